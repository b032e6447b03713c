// A task's CPU time on each CPU, kept for the CPUs it ran on only: on a 1,024-CPU machine
// a task visits a few, and 100,000 dense rows of 1,024 counters would take 800 MB.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
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
    last_ = index_of(cpu);
    by_cpu_[last_].second += ns;
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
  // The entry of `cpu`, made if new. CPUs 0-63 are found by their rank in `low_` (a
  // task on a global queue, as BFS's, changes CPU at most switches: a binary search
  // there was a tenth of the run); the rest by a search after them.
  size_t index_of(CpuId cpu) {
    const auto c = static_cast<uint32_t>(cpu);
    if (c < 64) {
      const uint64_t bit = uint64_t{1} << c;
      const auto at = static_cast<size_t>(std::popcount(low_ & (bit - 1)));
      if ((low_ & bit) == 0) {
        by_cpu_.insert(by_cpu_.begin() + static_cast<std::ptrdiff_t>(at), {cpu, 0});
        low_ |= bit;
      }
      return at;
    }
    const auto first_high = by_cpu_.begin() + std::popcount(low_);
    auto it =
        std::lower_bound(first_high, by_cpu_.end(), cpu,
                         [](const std::pair<CpuId, Time>& e, CpuId x) { return e.first < x; });
    if (it == by_cpu_.end() || it->first != cpu) it = by_cpu_.insert(it, {cpu, 0});
    return static_cast<size_t>(it - by_cpu_.begin());
  }

  std::vector<std::pair<CpuId, Time>> by_cpu_;  // sorted by CPU
  uint64_t low_ = 0;                            // which of CPUs 0-63 have an entry
  size_t last_ = 0;                             // the entry added to last, for last_cpu_
  CpuId last_cpu_ = kNoCpu;
};

}  // namespace schedlab
