#include "policy/balance/domains.h"

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

CpuMask span_of(const Machine& m, Level level, CpuId cpu) {
  CpuMask span;
  for (CpuId c = 0; c < m.cpus; ++c) {
    const bool in = level == Level::kSmt  ? m.same_core(c, cpu)
                    : level == Level::kMc ? m.same_llc(c, cpu)
                                          : true;
    if (in) span.set(static_cast<size_t>(c));
  }
  return span;
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
    for (CpuId c = 0; c < m.cpus; ++c) {
      const auto weight = static_cast<int64_t>(span_of(m, Level::kSmt, c).count());
      if (weight > 1) cpu_power[c] = (kLoadScale * kSmtGain / weight) >> 10;
    }
  }
  return cpu_power;
}

// The CPU's domain at level li: its span and groups, the child's spans, starting with
// this CPU's and going round in CPU order.
Domain domain_at(const Machine& m, const std::vector<DomainTemplate>& levels, size_t li,
                 CpuId cpu) {
  const int n = m.cpus;
  Domain d;
  d.t = levels[li];
  d.span = span_of(m, d.t.level, cpu);
  d.balance_interval_ms = d.t.min_interval_ms;
  CpuMask covered;
  for (int i = 0; i < n; ++i) {
    const CpuId c = (cpu + i) % n;
    if (!d.span.test(static_cast<size_t>(c)) || covered.test(static_cast<size_t>(c))) continue;
    CpuMask g;
    if (li == 0)
      g.set(static_cast<size_t>(c));
    else
      g = span_of(m, levels[li - 1].level, c) & d.span;
    covered |= g;
    d.groups.push_back(g);
  }
  return d;
}

// init_sched_groups_power() for level li: a group at the lowest level is its CPU; above,
// a group (a child span) is worth the sum of that child domain's groups, except that
// 2.6.31 counts a group whose CPUs share a core or a cache as one CPU.
void set_group_power(std::vector<std::vector<Domain>>& built, size_t li,
                     const std::vector<int64_t>& cpu_power, GroupPower power) {
  for (std::vector<Domain>& domains : built) {
    Domain& d = domains[li];
    for (const CpuMask& g : d.groups) {
      const auto first = static_cast<CpuId>(g._Find_first());
      int64_t p = 0;
      if (li == 0) {
        p = cpu_power[first];
      } else {
        const Domain& child = built[first][li - 1];
        const bool shares = (child.t.flags & (kSdShareCpupower | kSdSharePkgResources)) != 0;
        if (power == GroupPower::kOnePerSharedGroup && shares) {
          p = kLoadScale;
        } else {
          for (int64_t cp : child.group_power) p += cp;
        }
      }
      d.group_power.push_back(p);
    }
  }
}

}  // namespace

std::vector<std::vector<Domain>> build_domains(const Machine& m,
                                               const std::vector<DomainTemplate>& levels,
                                               GroupPower power) {
  const int n = m.cpus;
  std::vector<std::vector<Domain>> built(n);
  for (CpuId cpu = 0; cpu < n; ++cpu)
    for (size_t li = 0; li < levels.size(); ++li)
      built[cpu].push_back(domain_at(m, levels, li, cpu));
  const std::vector<int64_t> cpu_power = cpu_powers(m, levels, power);
  for (size_t li = 0; li < levels.size(); ++li) set_group_power(built, li, cpu_power, power);
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
