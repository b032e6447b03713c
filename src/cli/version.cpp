#include "cli/version.h"

#include "git_commit.h"  // generated at build time by cmake/git_commit.cmake

namespace schedlab {

std::string version_text() {
  return std::string("schedlab ") + SCHEDLAB_VERSION_STRING + " (git " + SCHEDLAB_GIT_COMMIT + ")";
}

}  // namespace schedlab
