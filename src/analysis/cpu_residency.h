// A task's CPU time on each CPU, kept for the CPUs it ran on only: on a 1,024-CPU machine
// a task visits a few, and 100,000 dense rows of 1,024 counters would take 800 MB.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/types.h"

namespace schedlab {

class CpuResidency {
 public:
  void add(CpuId cpu, Time ns) { time_on(cpu) += ns; }
  // CPU time on CPUs 0..cpus-1, zero where the task never ran.
  std::vector<Time> dense(int cpus) const {
    std::vector<Time> out(static_cast<size_t>(cpus), 0);
    for (const auto& entries : {&low_, &high_})
      for (const auto& [cpu, ns] : *entries)
        if (cpu < cpus) out[static_cast<size_t>(cpu)] = ns;
    return out;
  }

 private:
  // The counter of `cpu`, made if new. CPUs 0-63 are found through `low_at_` (a task on a
  // global queue, as BFS's, changes CPU at most switches: a binary search there was a
  // tenth of the run, and keeping them sorted a memmove at each CPU's first visit); the
  // rest by a binary search.
  Time& time_on(CpuId cpu) {
    const auto c = static_cast<size_t>(cpu);
    if (c < low_at_.size()) {
      if (low_at_[c] == 0) {
        low_.push_back({cpu, 0});
        low_at_[c] = static_cast<uint8_t>(low_.size());
      }
      return low_[low_at_[c] - 1].second;
    }
    // A task mostly runs where it ran last: try that entry before searching.
    if (cpu == last_high_cpu_) return high_[last_high_].second;
    auto it =
        std::lower_bound(high_.begin(), high_.end(), cpu,
                         [](const std::pair<CpuId, Time>& e, CpuId x) { return e.first < x; });
    if (it == high_.end() || it->first != cpu) it = high_.insert(it, {cpu, 0});
    last_high_ = static_cast<size_t>(it - high_.begin());
    last_high_cpu_ = cpu;
    return it->second;
  }

  std::vector<std::pair<CpuId, Time>> low_;   // CPUs 0-63, in the order first visited
  std::vector<std::pair<CpuId, Time>> high_;  // CPUs 64 and up, sorted by CPU
  std::array<uint8_t, 64> low_at_{};          // [cpu]: its entry in low_ plus one, or 0
  size_t last_high_ = 0;                      // the entry of high_ found last: last_high_cpu_'s
  CpuId last_high_cpu_ = kNoCpu;
};

}  // namespace schedlab
