// Scheduling domains with their groups shared between the CPUs of a span give every CPU
// the groups, in the order and with the power, that a per-CPU construction gives (the
// one written out below, as build_domains was before it shared them), on random
// topologies: SMT siblings numbered side by side or half the machine apart, and cores
// and caches made of CPUs picked at random, whose rounds are no rotation of one list.
#include "policy/balance/domains.h"

#include <gtest/gtest.h>

#include <vector>

#include "util/rng.h"

namespace schedlab::balance {
namespace {

struct RefDomain {
  CpuMask span;
  std::vector<CpuMask> groups;
  std::vector<int64_t> power;
  uint32_t flags = 0;
};

CpuMask ref_span(const Machine& m, Level level, CpuId cpu) {
  CpuMask s;
  for (CpuId c = 0; c < m.cpus; ++c)
    if (level == Level::kSmt  ? m.same_core(c, cpu)
        : level == Level::kMc ? m.same_llc(c, cpu)
                              : true)
      s.set(static_cast<size_t>(c));
  return s;
}

std::vector<std::vector<RefDomain>> reference(const Machine& m,
                                              const std::vector<DomainTemplate>& levels,
                                              GroupPower power) {
  const int n = m.cpus;
  std::vector<int64_t> cpu_power(n, 1024);
  if (power == GroupPower::kSumOfCpus && levels.front().level == Level::kSmt)
    for (CpuId c = 0; c < n; ++c) {
      const auto w = static_cast<int64_t>(ref_span(m, Level::kSmt, c).count());
      if (w > 1) cpu_power[c] = (1024 * 1178 / w) >> 10;
    }
  std::vector<std::vector<RefDomain>> built(n);
  for (size_t li = 0; li < levels.size(); ++li) {
    for (CpuId cpu = 0; cpu < n; ++cpu) {
      RefDomain d;
      d.flags = levels[li].flags;
      d.span = ref_span(m, levels[li].level, cpu);
      CpuMask covered;
      for (int i = 0; i < n; ++i) {
        const CpuId c = (cpu + i) % n;
        if (!d.span.test(static_cast<size_t>(c)) || covered.test(static_cast<size_t>(c))) continue;
        CpuMask g;
        if (li == 0)
          g.set(static_cast<size_t>(c));
        else
          g = ref_span(m, levels[li - 1].level, c) & d.span;
        covered |= g;
        d.groups.push_back(g);
        const auto first = static_cast<CpuId>(g.find_first());
        int64_t p = 0;
        if (li == 0) {
          p = cpu_power[first];
        } else if (power == GroupPower::kOnePerSharedGroup &&
                   (levels[li - 1].flags & (kSdShareCpupower | kSdSharePkgResources))) {
          p = 1024;
        } else {
          for (int64_t cp : built[first][li - 1].power) p += cp;
        }
        d.power.push_back(p);
      }
      built[cpu].push_back(d);
    }
  }
  std::vector<std::vector<RefDomain>> kept(n);
  for (CpuId cpu = 0; cpu < n; ++cpu)
    for (RefDomain& d : built[cpu]) {
      if (d.span.count() <= 1 || (!kept[cpu].empty() && kept[cpu].back().span == d.span)) continue;
      kept[cpu].push_back(d);
    }
  return kept;
}

// Ids 0..classes-1 for n CPUs: side by side, strided, or at random.
std::vector<int> grouping(Rng& rng, int n, int classes) {
  std::vector<int> id(n);
  const uint64_t how = rng.below(3);
  for (int c = 0; c < n; ++c)
    id[c] = how == 0   ? c * classes / n
            : how == 1 ? c % classes
                       : static_cast<int>(rng.below(static_cast<uint64_t>(classes)));
  return id;
}

TEST(Domains, SharedGroupsGiveEachCpuThePerCpuConstructionsGroups) {
  Rng rng(1919);
  int not_rotations = 0;
  for (int round = 0; round < 60; ++round) {
    const int n = 1 + static_cast<int>(rng.below(round < 50 ? 40 : 300));
    Machine m = make_machine(n);
    m.core_of = grouping(rng, n, std::max(1, n / 2));
    m.llc_of = grouping(rng, n, 1 + static_cast<int>(rng.below(4)));
    std::vector<DomainTemplate> levels = sibling_mc_cpu_levels(kSdLoadBalance);
    const GroupPower power = rng.below(2) ? GroupPower::kSumOfCpus : GroupPower::kOnePerSharedGroup;
    const auto ours = build_domains(m, levels, power);
    const auto ref = reference(m, levels, power);
    ASSERT_EQ(ours.size(), ref.size());
    for (CpuId cpu = 0; cpu < n; ++cpu) {
      ASSERT_EQ(ours[cpu].size(), ref[cpu].size()) << "round " << round << " cpu " << cpu;
      for (size_t l = 0; l < ref[cpu].size(); ++l) {
        const Domain& d = ours[cpu][l];
        const RefDomain& r = ref[cpu][l];
        EXPECT_EQ(d.span, r.span);
        EXPECT_EQ(d.t.flags, r.flags);
        ASSERT_EQ(d.group_count(), r.groups.size()) << "round " << round;
        for (size_t g = 0; g < r.groups.size(); ++g) {
          EXPECT_EQ(d.group(g), r.groups[g]) << "round " << round << " cpu " << cpu << " g " << g;
          EXPECT_EQ(d.group_power(g), r.power[g]) << "round " << round;
        }
        if (!d.order.empty()) ++not_rotations;
      }
    }
  }
  EXPECT_GT(not_rotations, 0) << "the random groupings should include orders that are no rotation";
}

// Memory: one flat 4,096-CPU machine's domains hold one list of 4,096 single-CPU groups,
// shared by every CPU, rather than 4,096 lists.
TEST(Domains, AFlatMachineSharesOneGroupList) {
  const Machine m = make_machine(4096);
  const auto d = build_domains(m, sibling_mc_cpu_levels(kSdLoadBalance), GroupPower::kSumOfCpus);
  ASSERT_EQ(d[0].size(), 1u);
  EXPECT_EQ(d[0][0].group_count(), 4096u);
  EXPECT_EQ(d[0][0].list, d[4095][0].list);
  EXPECT_TRUE(d[4095][0].order.empty());
  EXPECT_EQ(d[4095][0].group(0).find_first(), 4095u);
  EXPECT_EQ(d[4095][0].group(1).find_first(), 0u);
}

}  // namespace
}  // namespace schedlab::balance
