// A task's CPU time on each CPU, kept for the CPUs it ran on only: on a 1,024-CPU machine
// a task visits a few, and 100,000 dense rows of 1,024 counters would take 800 MB.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "util/types.h"

namespace schedlab {

class CpuResidency {
 public:
  void add(CpuId cpu, Time ns) {
    // A task mostly runs where it ran last: try that entry before searching.
    if (cpu == last_cpu_) {
      by_cpu_[last_].second += ns;
      return;
    }
    auto it =
        std::lower_bound(by_cpu_.begin(), by_cpu_.end(), cpu,
                         [](const std::pair<CpuId, Time>& e, CpuId c) { return e.first < c; });
    if (it == by_cpu_.end() || it->first != cpu) it = by_cpu_.insert(it, {cpu, 0});
    it->second += ns;
    last_ = static_cast<size_t>(it - by_cpu_.begin());
    last_cpu_ = cpu;
  }
  // CPU time on CPUs 0..cpus-1, zero where the task never ran.
  std::vector<Time> dense(int cpus) const {
    std::vector<Time> out(static_cast<size_t>(cpus), 0);
    for (const auto& [cpu, ns] : by_cpu_)
      if (cpu < cpus) out[static_cast<size_t>(cpu)] = ns;
    return out;
  }

 private:
  std::vector<std::pair<CpuId, Time>> by_cpu_;  // sorted by CPU
  size_t last_ = 0;                             // the entry added to last, for last_cpu_
  CpuId last_cpu_ = kNoCpu;
};

}  // namespace schedlab
