#include "host/load_check.h"

#include <fmt/format.h>

#include <fstream>
#include <string>

namespace schedlab {

double load_average_1min() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return load;
}

int runnable_tasks() {
  std::ifstream in("/proc/stat");
  for (std::string key; in >> key;) {
    if (key == "procs_running") {
      int n = -1;
      in >> n;
      return n;
    }
    in.ignore(1 << 16, '\n');
  }
  return -1;
}

CpuTimes cpu_times() {
  std::ifstream in("/proc/stat");
  std::string key;
  CpuTimes t;
  if (!(in >> key) || key != "cpu") return t;
  // user nice system idle iowait irq softirq steal (guest and guest_nice are in user)
  for (int field = 0; field < 8; ++field) {
    uint64_t v = 0;
    if (!(in >> v)) return {};
    t.total += v;
    if (field == 7) t.steal = v;
  }
  return t;
}

double steal_share(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.steal < before.steal) return 0;
  return static_cast<double>(after.steal - before.steal) /
         static_cast<double>(after.total - before.total);
}

LoadCheck::LoadCheck(int cpus) : cpus_(cpus), load1_(load_average_1min()) {
  sample();
}

void LoadCheck::sample() {
  const int n = runnable_tasks();
  if (n < 0) return;
  others_ += std::max(0, n - 1);  // the reader itself is running
  ++samples_;
}

// Judgement: half a CPU's worth of other work, on average or over the last minute, moves
// the figures by more than they are worth.
bool LoadCheck::busy() const {
  return others_mean() >= 0.5 || load1_ >= 0.5 * cpus_;
}

std::string LoadCheck::summary() const {
  return fmt::format(
      "{}: {:.1f} other runnable tasks on average over {} samples, load {:.2f} "
      "over the last minute ({} CPUs)",
      busy() ? "busy" : "quiet", others_mean(), samples_, load1_, cpus_);
}

}  // namespace schedlab
