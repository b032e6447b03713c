// CpuMask against std::bitset on random masks of every length up to the CPU limit, inline
// and on the heap; CpuResidency against a dense table.
#include <gtest/gtest.h>

#include <bitset>
#include <vector>

#include "analysis/cpu_residency.h"
#include "util/rng.h"
#include "util/types.h"

namespace schedlab {
namespace {

using Reference = std::bitset<kMaxCpus>;

// A random mask whose highest CPU is below `limit` (so that lengths differ), and its
// reference.
std::pair<CpuMask, Reference> random_mask(Rng& rng, size_t limit) {
  CpuMask m;
  Reference r;
  const uint64_t density = rng.below(4);  // empty-ish, sparse, half, dense
  for (size_t c = 0; c < limit; ++c) {
    const bool in = density == 0   ? rng.below(limit) == 0
                    : density == 1 ? rng.below(16) == 0
                    : density == 2 ? rng.below(2) == 0
                                   : rng.below(16) != 0;
    if (in) {
      m.set(c);
      r.set(c);
    }
  }
  return {m, r};
}

void expect_same(const CpuMask& m, const Reference& r) {
  ASSERT_EQ(m.count(), r.count());
  ASSERT_EQ(m.any(), r.any());
  ASSERT_EQ(m.none(), r.none());
  std::vector<size_t> ours, theirs;
  for_each_cpu(m, [&](CpuId c) { ours.push_back(static_cast<size_t>(c)); });
  for (size_t c = r._Find_first(); c < r.size(); c = r._Find_next(c)) theirs.push_back(c);
  ASSERT_EQ(ours, theirs);
  for (size_t c = 0; c < kMaxCpus; c += 7) ASSERT_EQ(m.test(c), r.test(c)) << c;
}

TEST(CpuMask, EveryOperationAgreesWithABitsetOnRandomMasks) {
  Rng rng(19);
  const size_t limits[] = {1, 3, 64, 65, 200, 256, 257, 1000, 1024, 4096};
  for (int round = 0; round < 400; ++round) {
    const size_t la = limits[rng.below(std::size(limits))];
    const size_t lb = limits[rng.below(std::size(limits))];
    auto [a, ra] = random_mask(rng, la);
    auto [b, rb] = random_mask(rng, lb);
    expect_same(a, ra);
    expect_same(a & b, ra & rb);
    expect_same(a | b, ra | rb);
    EXPECT_EQ(a.intersects(b), (ra & rb).any());
    EXPECT_EQ(a == b, ra == rb);
    EXPECT_EQ((a & b) == (b & a), true);
    CpuMask c = a;  // copy, then assignments across the inline / heap boundary
    c &= b;
    expect_same(c, ra & rb);
    c = b;
    expect_same(c, rb);
    c |= a;
    expect_same(c, ra | rb);
    c = a;
    expect_same(c, ra);
    CpuMask moved = std::move(c);
    expect_same(moved, ra);
    c = std::move(moved);
    expect_same(c, ra);
    const size_t cpu = rng.below(kMaxCpus);
    c.set(cpu);
    ra.set(cpu);
    expect_same(c, ra);
    c.reset(cpu);
    ra.reset(cpu);
    expect_same(c, ra);
    c.reset();
    EXPECT_TRUE(c.none());
    EXPECT_EQ(c, CpuMask{});
  }
}

TEST(CpuMask, LengthDoesNotChangeWhatTheMaskIs) {
  CpuMask short_one, long_one;
  short_one.set(3);
  long_one.set(3).set(4000).reset(4000);  // same CPUs, 63 words longer
  EXPECT_EQ(short_one, long_one);
  EXPECT_EQ(long_one.find_next(3), long_one.size());
  EXPECT_EQ(all_cpus(4096).count(), 4096u);
  EXPECT_EQ(all_cpus(65).count(), 65u);
  EXPECT_FALSE(all_cpus(65).test(65));
  EXPECT_EQ(all_cpus(64).find_next(63), all_cpus(64).size());
}

TEST(CpuResidency, AddsUpAsADenseTableDoes) {
  Rng rng(7);
  CpuResidency sparse;
  std::vector<Time> dense(1024, 0);
  CpuId cpu = 0;
  for (int i = 0; i < 5000; ++i) {
    if (rng.below(5) == 0) cpu = static_cast<CpuId>(rng.below(1024));
    const auto ns = static_cast<Time>(rng.below(1000));
    sparse.add(cpu, ns);
    dense[static_cast<size_t>(cpu)] += ns;
  }
  EXPECT_EQ(sparse.dense(1024), dense);
  EXPECT_EQ(CpuResidency{}.dense(3), (std::vector<Time>{0, 0, 0}));
}

// CPUs 0-63 (found through a table of their entries) and the ones above (by a search) mixed, in
// any order of first visits: every entry lands where a dense table puts it.
TEST(CpuResidency, LowAndHighCpusMixed) {
  Rng rng(11);
  CpuResidency sparse;
  std::vector<Time> dense(200, 0);
  for (int i = 0; i < 20000; ++i) {
    const auto cpu = static_cast<CpuId>(rng.below(4) ? rng.below(64) : 64 + rng.below(136));
    const auto ns = static_cast<Time>(rng.below(1000)) + 1;
    sparse.add(cpu, ns);
    dense[static_cast<size_t>(cpu)] += ns;
  }
  EXPECT_EQ(sparse.dense(200), dense);
  CpuResidency edges;  // 63 and 64 sit on either side of the bitmap's end
  edges.add(64, 5);
  edges.add(63, 3);
  edges.add(0, 1);
  edges.add(64, 5);
  EXPECT_EQ(edges.dense(66)[0], 1);
  EXPECT_EQ(edges.dense(66)[63], 3);
  EXPECT_EQ(edges.dense(66)[64], 10);
}

}  // namespace
}  // namespace schedlab
