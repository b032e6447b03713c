// BFS's ranked idle-CPU search over the candidates' set bits against the loop it replaced
// (every CPU of the machine from `from`, wrapping, testing each), on random candidate
// masks, machines of 1 to 1,500 CPUs and random ranks 0..7 (small ranges, so ties and
// the early stop at rank <= 1 are common); and one case by hand.
#include "policy/bfs_idle.h"

#include <gtest/gtest.h>

#include <vector>

#include "util/rng.h"

namespace schedlab {
namespace {

CpuId loop_search(const CpuMask& candidates, int n, CpuId from, const std::vector<int>& rank) {
  CpuId best = kNoCpu;
  int best_rank = 1 << 30;
  for (int i = 0; i < n; ++i) {
    const CpuId c = (from + i) % n;
    if (!candidates.test(static_cast<size_t>(c))) continue;
    if (rank[c] < best_rank) {
      best = c;
      best_rank = rank[c];
      if (best_rank <= 1) break;
    }
  }
  return best;
}

TEST(BfsIdle, SetBitSearchEqualsTheLoopOnRandomMasks) {
  Rng rng(19);
  int found = 0, stopped_early = 0, wrapped = 0;
  for (int round = 0; round < 20000; ++round) {
    const int n = 1 + static_cast<int>(rng.next() % (round % 4 == 0 ? 1500 : 130));
    const uint64_t density = 1 + rng.next() % 64;  // candidates per 64 CPUs, on average
    CpuMask candidates;
    std::vector<int> rank(static_cast<size_t>(n));
    for (int c = 0; c < n; ++c) {
      if (rng.next() % 64 < density) candidates.set(static_cast<size_t>(c));
      rank[static_cast<size_t>(c)] = static_cast<int>(rng.next() % 8);
    }
    const auto from = static_cast<CpuId>(rng.next() % static_cast<uint64_t>(n));
    const CpuId want = loop_search(candidates, n, from, rank);
    const CpuId got = bfs::ranked_idle_cpu(candidates, from,
                                           [&](CpuId c) { return rank[static_cast<size_t>(c)]; });
    ASSERT_EQ(got, want) << "round " << round << " n " << n << " from " << from;
    if (want == kNoCpu) continue;
    ++found;
    if (rank[static_cast<size_t>(want)] <= 1) ++stopped_early;
    if (want < from) ++wrapped;
  }
  EXPECT_GT(found, 15000);
  EXPECT_GT(stopped_early, 5000);
  EXPECT_GT(wrapped, 1000);
}

// CPUs 0..9, candidates 1, 3, 6, 8, from CPU 5: visited 6, 8, 1, 3. Ranks 6:4, 8:2, 1:1,
// 3:0: 8 beats 6, then 1 (rank 1) ends the search before 3's rank 0 is seen.
TEST(BfsIdle, HandComputedSearch) {
  CpuMask candidates;
  for (size_t c : {1, 3, 6, 8}) candidates.set(c);
  const std::vector<int> rank = {7, 1, 7, 0, 7, 7, 4, 7, 2, 7};
  std::vector<CpuId> seen;
  const CpuId got = bfs::ranked_idle_cpu(candidates, 5, [&](CpuId c) {
    seen.push_back(c);
    return rank[static_cast<size_t>(c)];
  });
  EXPECT_EQ(got, 1);
  EXPECT_EQ(seen, (std::vector<CpuId>{6, 8, 1}));
  EXPECT_EQ(bfs::ranked_idle_cpu(CpuMask{}, 5, [](CpuId) { return 0; }), kNoCpu);
}

}  // namespace
}  // namespace schedlab
