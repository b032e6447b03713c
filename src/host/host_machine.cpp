#include "host/host_machine.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace schedlab {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// A group id per CPU from a per-CPU key (equal keys, equal group).
int group_id(std::map<std::string, int>& ids, const std::string& key) {
  return ids.try_emplace(key, static_cast<int>(ids.size())).first->second;
}

// jiffies from /proc/timer_list (root), or -1.
int64_t read_jiffies() {
  std::ifstream in("/proc/timer_list");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("jiffies: ", 0) == 0) return std::stoll(line.substr(9));
  return -1;
}

// CONFIG_HZ: from the kernel's config file if there is one, else from how fast jiffies
// advance over 200 ms, rounded to the usual values; 1000 when neither works.
int host_hz() {
  std::ifstream config("/boot/config-" + host_kernel_release());
  for (std::string line; std::getline(config, line);)
    if (line.rfind("CONFIG_HZ=", 0) == 0) return std::stoi(line.substr(10));
  const int64_t j0 = read_jiffies();
  if (j0 < 0) return 1000;
  usleep(200'000);
  const int64_t j1 = read_jiffies();
  const double hz = static_cast<double>(j1 - j0) / 0.2;
  int best = 1000;
  for (int candidate : {100, 250, 300, 1000})
    if (std::abs(hz - candidate) < std::abs(hz - best)) best = candidate;
  return best;
}

}  // namespace

Machine host_machine() {
  const int n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  Machine m = make_machine(n);
  m.name = "host";
  m.hz = host_hz();
  std::map<std::string, int> cores, llcs, packages;
  for (int c = 0; c < n; ++c) {
    const std::string base = fmt::format("/sys/devices/system/cpu/cpu{}", c);
    const std::string pkg = read_line(base + "/topology/physical_package_id");
    m.package_of[c] = group_id(packages, pkg.empty() ? "0" : pkg);
    const std::string siblings = read_line(base + "/topology/thread_siblings_list");
    m.core_of[c] = group_id(cores, siblings.empty() ? std::to_string(c) : siblings);
    std::string llc;  // the highest cache level's sharing list
    for (int index = 0; index < 8; ++index) {
      const std::string shared =
          read_line(fmt::format("{}/cache/index{}/shared_cpu_list", base, index));
      if (!shared.empty()) llc = shared;
    }
    m.llc_of[c] = group_id(llcs, llc.empty() ? "all" : llc);
  }
  return m;
}

std::string host_kernel_release() {
  utsname u{};
  uname(&u);
  return u.release;
}

std::string model_for_kernel(const std::string& release) {
  int major = 0, minor = 0, patch = 0;
  char dot = 0;
  std::istringstream in(release);
  in >> major >> dot >> minor >> dot >> patch;
  if (major > 6 || (major == 6 && minor >= 12)) return "eevdf";
  if (major == 6 && minor >= 6) return "eevdf-6.6";
  if (major == 2 && minor == 6 && patch == 23) return "cfs-2.6.23";
  if (major == 2 && minor == 6 && patch >= 24 && patch <= 31) return "cfs-2.6.31";
  return "cfs-2.6.32";
}

}  // namespace schedlab
