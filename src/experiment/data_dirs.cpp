#include "experiment/data_dirs.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "util/input_file.h"

namespace schedlab {

namespace {

namespace fs = std::filesystem;

// The first of `candidates` that is a folder holding `probe`, else `fallback`.
std::string first_with(const std::vector<fs::path>& candidates, const std::string& probe,
                       const std::string& fallback) {
  for (const auto& candidate : candidates)  // from the environment: any string
    if (path_exists((candidate / probe).string())) return candidate.lexically_normal().string();
  return fallback;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// $SCHEDLAB_DATA/folder, then beside the executable: installed (bin/../share/schedlab),
// in a build folder (build/..), next to it.
std::vector<fs::path> candidates(const std::string& folder) {
  std::vector<fs::path> out;
  if (const std::string data = env("SCHEDLAB_DATA"); !data.empty())
    out.push_back(fs::path(data) / folder);
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const fs::path& p : {exe.parent_path() / ".." / "share" / "schedlab" / folder,
                              exe.parent_path() / ".." / folder, exe.parent_path() / folder})
      out.push_back(p);
  return out;
}

}  // namespace

std::string default_scenarios_dir() {
  if (const std::string e = env("SCHEDLAB_SCENARIOS"); !e.empty()) return e;
  return first_with(candidates("scenarios"), "e1-x264-ultrafast.json", "scenarios");
}

std::string default_experiments_dir(const std::string& scenarios_dir) {
  if (const std::string e = env("SCHEDLAB_EXPERIMENTS"); !e.empty()) return e;
  fs::path scenarios = fs::path(scenarios_dir).lexically_normal();
  if (!scenarios.has_filename()) scenarios = scenarios.parent_path();  // "scenarios/"
  std::vector<fs::path> in_order = {scenarios.parent_path() / "experiments"};
  for (const fs::path& p : candidates("experiments")) in_order.push_back(p);
  return first_with(in_order, "", "experiments");
}

}  // namespace schedlab
