// What `schedlab --version` prints: the release and the git commit of the build.
#pragma once

#include <string>

namespace schedlab {

// "schedlab 0.1.0 (git 4d19c50abcde)"; "git unknown" for a build outside a checkout,
// "-dirty" when the checkout had uncommitted changes.
std::string version_text();

}  // namespace schedlab
