// BFS's choice of an idle CPU for a woken task (resched_best_idle): the candidates
// ranked from the task's CPU, visited from that CPU upwards and then from CPU 0, the
// first of the lowest rank winning and a rank of 1 or less ending the search at once.
// The visit reads the candidates' set bits a word at a time, as the kernel's
// for_each_cpu_mask does, instead of testing every CPU of the machine.
#pragma once

#include <cstddef>

#include "util/cpu_mask.h"
#include "util/types.h"

namespace schedlab::bfs {

// rank_of(cpu): the CPU's rank (lower is better); kNoCpu if there is no candidate.
template <typename RankOf>
CpuId ranked_idle_cpu(const CpuMask& candidates, CpuId from, RankOf&& rank_of) {
  CpuId best = kNoCpu;
  int best_rank = 1 << 30;
  const auto visit = [&](size_t cpu) {  // true when the search is over
    const auto c = static_cast<CpuId>(cpu);
    const int rank = rank_of(c);
    if (rank >= best_rank) return false;
    best = c;
    best_rank = rank;
    return rank <= 1;
  };
  const size_t end = candidates.size(), start = static_cast<size_t>(from);
  for (size_t c = start == 0 ? candidates.find_first() : candidates.find_next(start - 1); c < end;
       c = candidates.find_next(c))
    if (visit(c)) return best;
  for (size_t c = candidates.find_first(); c < start && c < end; c = candidates.find_next(c))
    if (visit(c)) return best;
  return best;
}

}  // namespace schedlab::bfs
