#include "policy/balance/domains.h"

#include <algorithm>
#include <map>

namespace schedlab::balance {

const char* level_name(Level l) {
  switch (l) {
    case Level::kSmt:
      return "SMT";
    case Level::kMc:
      return "MC";
    case Level::kCpu:
      return "CPU";
  }
  return "?";
}

namespace {

// A level's spans: the CPUs of a core (SMT), of a last-level cache (MC) or the whole
// machine (CPU), as classes (the kernel's cpu_sibling_map, cpu_coregroup_map, cpu_online).
struct LevelSpans {
  std::vector<uint32_t> class_of;  // [cpu]
  std::vector<CpuMask> spans;      // [class], numbered in the order of their lowest CPUs
};

LevelSpans spans_of(const Machine& m, Level level) {
  LevelSpans s;
  s.class_of.resize(static_cast<size_t>(m.cpus));
  std::map<int, uint32_t> class_of_id;
  for (CpuId c = 0; c < m.cpus; ++c) {
    const int id = level == Level::kSmt ? m.core_of[c] : level == Level::kMc ? m.llc_of[c] : 0;
    const auto [it, fresh] = class_of_id.try_emplace(id, static_cast<uint32_t>(s.spans.size()));
    if (fresh) s.spans.emplace_back();
    s.class_of[c] = it->second;
    s.spans[it->second].set(static_cast<size_t>(c));
  }
  return s;
}

constexpr int64_t kLoadScale = 1024;  // SCHED_LOAD_SCALE: one CPU's power
// smt_gain (2.6.32 SD_SIBLING_INIT): two threads of a core are worth 1.15 CPUs.
constexpr int64_t kSmtGain = 1178;

}  // namespace

std::vector<DomainTemplate> sibling_mc_cpu_levels(uint32_t common) {
  return {{.level = Level::kSmt,
           .flags = common | kSdShareCpupower,
           .max_interval_ms = 2,
           .imbalance_pct = 110},
          {.level = Level::kMc,
           .flags = common | kSdSharePkgResources,
           .cache_nice_tries = 1,
           .busy_idx = 2,
           .wake_idx = 1,
           .forkexec_idx = 1},
          {.level = Level::kCpu,
           .flags = common,
           .cache_nice_tries = 1,
           .busy_idx = 2,
           .wake_idx = 1,
           .forkexec_idx = 1}};
}

void switch_domain_flag(std::vector<DomainTemplate>& levels, uint32_t flag, bool on) {
  const bool mc_default = levels.size() > 1 && (levels[1].flags & flag) != 0;
  if (on == mc_default) return;
  const bool mc_and_cpu_only = flag == kSdBalanceNewidle || flag == kSdPreferSibling;
  for (DomainTemplate& d : levels) {
    if (mc_and_cpu_only && d.level == Level::kSmt) continue;
    d.flags = on ? d.flags | flag : d.flags & ~flag;
  }
}

namespace {

// The power of each CPU at the lowest level (2.6.32 divides smt_gain among threads).
std::vector<int64_t> cpu_powers(const Machine& m, const std::vector<DomainTemplate>& levels,
                                GroupPower power) {
  std::vector<int64_t> cpu_power(m.cpus, kLoadScale);
  if (power == GroupPower::kSumOfCpus && !levels.empty() && levels.front().level == Level::kSmt &&
      (levels.front().flags & kSdShareCpupower)) {
    const LevelSpans smt = spans_of(m, Level::kSmt);
    for (CpuId c = 0; c < m.cpus; ++c) {
      const auto weight = static_cast<int64_t>(smt.spans[smt.class_of[c]].count());
      if (weight > 1) cpu_power[c] = (kLoadScale * kSmtGain / weight) >> 10;
    }
  }
  return cpu_power;
}

// The groups of one span at level li: single CPUs at the lowest level; above, the child
// level's spans within it. group_of[c] is the index of c's group, for c in the span.
GroupList groups_of(const CpuMask& span, const LevelSpans* child, std::vector<uint32_t>& group_of) {
  GroupList list;
  std::vector<int> index_of_class(child ? child->spans.size() : 0, -1);
  for_each_cpu(span, [&](CpuId c) {
    if (!child) {
      group_of[c] = static_cast<uint32_t>(list.masks.size());
      list.masks.emplace_back().set(static_cast<size_t>(c));
      return;
    }
    int& index = index_of_class[child->class_of[c]];
    if (index < 0) {
      index = static_cast<int>(list.masks.size());
      list.masks.push_back(child->spans[child->class_of[c]] & span);
    }
    group_of[c] = static_cast<uint32_t>(index);
  });
  return list;
}

// Where cpu's round of the groups starts in the list: from cpu going round in CPU order,
// each group where its first CPU is met. When that is not the list rotated, the whole order.
void set_round(Domain& d, CpuId cpu, const std::vector<uint32_t>& group_of) {
  const size_t n = d.list->masks.size();
  d.first = group_of[cpu];
  std::vector<uint32_t> order;
  std::vector<char> seen(n, 0);
  auto visit = [&](size_t c) {
    const uint32_t g = group_of[c];
    if (!seen[g]) {
      seen[g] = 1;
      order.push_back(g);
    }
  };
  for (size_t c = static_cast<size_t>(cpu); c < d.span.size() && order.size() < n;
       c = d.span.find_next(c))
    visit(c);
  for (size_t c = d.span.find_first(); c < static_cast<size_t>(cpu) && order.size() < n;
       c = d.span.find_next(c))
    visit(c);
  for (size_t i = 0; i < n; ++i) {
    if (order[i] != (d.first + i) % n) {
      d.order = std::move(order);
      return;
    }
  }
}

// init_sched_groups_power() for one group list at level li: a group at the lowest level is
// its CPU; above, a group (a child span) is worth the sum of that child domain's groups,
// except that 2.6.31 counts a group whose CPUs share a core or a cache as one CPU.
void set_group_power(GroupList& list, size_t li, const std::vector<DomainTemplate>& levels,
                     const std::vector<std::vector<Domain>>& built,
                     const std::vector<int64_t>& cpu_power, GroupPower power) {
  for (const CpuMask& g : list.masks) {
    const auto first = static_cast<CpuId>(g.find_first());
    int64_t p = 0;
    if (li == 0) {
      p = cpu_power[first];
    } else {
      const bool shares = (levels[li - 1].flags & (kSdShareCpupower | kSdSharePkgResources)) != 0;
      if (power == GroupPower::kOnePerSharedGroup && shares) {
        p = kLoadScale;
      } else {
        for (int64_t cp : built[first][li - 1].list->power) p += cp;
      }
    }
    list.power.push_back(p);
  }
}

}  // namespace

std::vector<std::vector<Domain>> build_domains(const Machine& m,
                                               const std::vector<DomainTemplate>& levels,
                                               GroupPower power) {
  const int n = m.cpus;
  std::vector<std::vector<Domain>> built(n);
  const std::vector<int64_t> cpu_power = cpu_powers(m, levels, power);
  std::vector<LevelSpans> spans;
  std::vector<uint32_t> group_of(static_cast<size_t>(n), 0);
  for (size_t li = 0; li < levels.size(); ++li) {
    spans.push_back(spans_of(m, levels[li].level));
    const LevelSpans& here = spans.back();
    const LevelSpans* child = li == 0 ? nullptr : &spans[li - 1];
    for (const CpuMask& span : here.spans) {
      GroupList list = groups_of(span, child, group_of);
      set_group_power(list, li, levels, built, cpu_power, power);
      list.min_power = *std::min_element(list.power.begin(), list.power.end());
      if (std::all_of(list.masks.begin(), list.masks.end(),
                      [](const CpuMask& g) { return g.count() == 1; }))
        for (const CpuMask& g : list.masks)
          list.cpu_of.push_back(static_cast<CpuId>(g.find_first()));
      const auto shared = std::make_shared<const GroupList>(std::move(list));
      for_each_cpu(span, [&](CpuId cpu) {
        Domain& d = built[cpu].emplace_back();
        d.t = levels[li];
        d.span = span;
        d.balance_interval_ms = d.t.min_interval_ms;
        d.list = shared;
        set_round(d, cpu, group_of);
      });
    }
  }
  // Drop degenerate levels: one CPU, or the same span as the level below.
  std::vector<std::vector<Domain>> result(n);
  for (CpuId cpu = 0; cpu < n; ++cpu) {
    for (Domain& d : built[cpu]) {
      if (d.span.count() <= 1) continue;
      if (!result[cpu].empty() && result[cpu].back().span == d.span) continue;
      result[cpu].push_back(std::move(d));
    }
  }
  return result;
}

}  // namespace schedlab::balance
