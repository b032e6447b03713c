// The presets cfs-2.6.31, cfs-tip-2009-09, cfs-tip-2009-10 and cfs-2.6.32: each release's row of
// defaults (SCHED_FEAT switches, tunables, domain flags), the switches it offers in its own
// features.h order, its scheduling-domain initialisers, and where its code differs.
//
// -tip of October 2009 is v2.6.32-rc5 (mainline history, tag v2.6.32-rc5) with the two
// scheduler commits -tip applied on 14 October; its features, tunables and domain
// initialisers are 2.6.32's (v2.6.32-rc5..v2.6.32 changes none of them but SD_PREFER_LOCAL).
//
// Checked against the source (2.6.31.14 and 2.6.32.2: kernel/sched_features.h,
// sched_fair.c, sched.c, include/linux/topology.h): every SCHED_FEAT default, the
// tunables' base values and their 1+ilog2(ncpus) scaling with its 200 ms cap, and the
// SD_SIBLING_INIT / SD_MC_INIT / SD_CPU_INIT fields below. Judgement: NR_CPUS = 64 for the
// interval cap, no power-savings balancing, no group scheduling, the NO_HZ idle balancer
// modelled as noted in policy/balance/balancer.h.
#include "policy/cfs/cfs.h"
#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {
namespace cfs {
namespace {

using balance::DomainTemplate;
using balance::Level;
using namespace balance;  // the SD_* flags

// SD_SIBLING_INIT, SD_MC_INIT and SD_CPU_INIT of 2.6.31.
std::vector<DomainTemplate> domains_2631() {
  std::vector<DomainTemplate> levels = sibling_mc_cpu_levels(
      kSdLoadBalance | kSdBalanceFork | kSdBalanceExec | kSdWakeAffine | kSdWakeBalance);
  levels[0].flags |= kSdBalanceNewidle;  // new-idle balancing only between SMT siblings
  levels[2].idle_idx = 1;
  levels[2].newidle_idx = 2;
  return levels;
}

// 2.6.32: SD_WAKE_BALANCE gone; NEWIDLE and PREFER_SIBLING on MC and CPU; wake and
// fork/exec indices 0, the CPU level's new-idle index 0.
std::vector<DomainTemplate> domains_2632() {
  const uint32_t common = kSdLoadBalance | kSdBalanceFork | kSdBalanceExec | kSdWakeAffine;
  const uint32_t upper = common | kSdBalanceNewidle | kSdPreferSibling;
  return {
      {.level = Level::kSmt,
       .flags = common | kSdBalanceNewidle | kSdShareCpupower,
       .max_interval_ms = 2,
       .imbalance_pct = 110},
      {.level = Level::kMc,
       .flags = upper | kSdSharePkgResources,
       .cache_nice_tries = 1,
       .busy_idx = 2},
      {.level = Level::kCpu, .flags = upper, .cache_nice_tries = 1, .busy_idx = 2, .idle_idx = 1}};
}

// -tip of 10-15 September 2009 (e1f8450854d6, v2.6.31 with the first scheduler merge of
// 2.6.32): SD_WAKE_AFFINE gone from the CPU level (47734f89), SD_BALANCE_NEWIDLE on MC
// and CPU (840a0653), SD_PREFER_SIBLING (b5d978e0), SD_WAKE_IDLE on MC and CPU
// (a8fae3ec); 2.6.31's wake and fork/exec indices 1 and the CPU level's new-idle index 2.
std::vector<DomainTemplate> domains_tip200909() {
  const uint32_t common = kSdLoadBalance | kSdBalanceFork | kSdBalanceExec | kSdWakeBalance;
  std::vector<DomainTemplate> levels = sibling_mc_cpu_levels(common);
  levels[0].flags |= kSdBalanceNewidle | kSdWakeAffine;
  levels[1].flags |= kSdBalanceNewidle | kSdWakeAffine | kSdPreferSibling | kSdWakeIdle;
  levels[2].flags |= kSdBalanceNewidle | kSdPreferSibling | kSdWakeIdle;
  levels[2].idle_idx = 1;
  levels[2].newidle_idx = 2;
  return levels;
}

// The row of 2.6.31's defaults: the family's with 2.6.31's tunables, and off what
// 2.6.31 lacks (its sleeper credit is NEW_FAIR_SLEEPERS, undivided).
CfsParams defaults_2631() {
  CfsParams p;
  p.FAIR_SLEEPERS = false;
  p.GENTLE_FAIR_SLEEPERS = false;
  p.sched_latency_ns = 20'000'000;
  p.sched_min_granularity_ns = 4'000'000;
  p.sched_wakeup_granularity_ns = 5'000'000;
  p.sched_child_runs_first = true;
  p.SD_BALANCE_NEWIDLE = false;
  p.SD_PREFER_SIBLING = false;
  return p;
}

CfsParams defaults_2632() {
  CfsParams p;
  p.NEW_FAIR_SLEEPERS = false;
  p.SD_WAKE_BALANCE = false;
  return p;
}

// -tip of 10-15 September 2009: 2.6.31's features with NEW_FAIR_SLEEPERS off (3f2aa307,
// 10 September: no sleeper credit at all), 2.6.32's tunables and child_runs_first off
// (172e082a, 2bba22c5), new-idle balancing and SD_PREFER_SIBLING on.
CfsParams defaults_tip200909() {
  CfsParams p = defaults_2631();
  p.NEW_FAIR_SLEEPERS = false;
  p.sched_latency_ns = 5'000'000;
  p.sched_min_granularity_ns = 1'000'000;
  p.sched_wakeup_granularity_ns = 1'000'000;
  p.sched_child_runs_first = false;
  p.SD_BALANCE_NEWIDLE = true;
  p.SD_PREFER_SIBLING = true;
  return p;
}

// 2.6.31's sched_features.h, in its order.
params::Table<CfsParams> table_2631() {
  using P = CfsParams;
  return P::table()
      .only({&P::NEW_FAIR_SLEEPERS,
             &P::NORMALIZED_SLEEPER,
             &P::ADAPTIVE_GRAN,
             &P::WAKEUP_PREEMPT,
             &P::START_DEBIT,
             &P::AFFINE_WAKEUPS,
             &P::CACHE_HOT_BUDDY,
             &P::SYNC_WAKEUPS,
             &P::HRTICK,
             &P::DOUBLE_TICK,
             &P::ASYM_GRAN,
             &P::LB_BIAS,
             &P::LB_WAKEUP_UPDATE,
             &P::ASYM_EFF_LOAD,
             &P::WAKEUP_OVERLAP,
             &P::LAST_BUDDY,
             &P::OWNER_SPIN,
             &P::sched_latency_ns,
             &P::sched_min_granularity_ns,
             &P::sched_wakeup_granularity_ns,
             &P::sched_tunable_scaling,
             &P::sched_child_runs_first,
             &P::sched_compat_yield,
             &P::sched_migration_cost_ns,
             &P::sched_nr_migrate,
             &P::SD_BALANCE_NEWIDLE,
             &P::SD_BALANCE_FORK,
             &P::SD_WAKE_AFFINE,
             &P::SD_WAKE_BALANCE})
      .with_effect(&P::WAKEUP_PREEMPT, "wake-ups may preempt the running task");
}

params::Table<CfsParams> table_2632() {
  using P = CfsParams;
  return P::table().without({&P::NEW_FAIR_SLEEPERS, &P::LB_WAKEUP_UPDATE, &P::SD_WAKE_BALANCE});
}

// Combinations the model refuses, with the reason.
void validate(const CfsParams& p) {
  if (p.sched_tunable_scaling > 2)
    throw InputError("", "--param sched_tunable_scaling", "must be 0, 1 or 2");
  if (p.sched_min_granularity_ns == 0)
    throw InputError("", "--param sched_min_granularity_ns", "must be positive");
  if (p.HRTICK)
    throw InputError("", "--param HRTICK",
                     "HRTICK is not modelled: the simulator preempts at jiffy ticks only");
}

std::unique_ptr<SchedClass> make(const CfsParams& p, const Cfs::Release& release,
                                 std::vector<DomainTemplate> levels) {
  validate(p);
  switch_domain_flag(levels, kSdBalanceNewidle, p.SD_BALANCE_NEWIDLE);
  switch_domain_flag(levels, kSdBalanceFork, p.SD_BALANCE_FORK);
  switch_domain_flag(levels, kSdWakeAffine, p.SD_WAKE_AFFINE);
  switch_domain_flag(levels, kSdWakeBalance, p.SD_WAKE_BALANCE);
  switch_domain_flag(levels, kSdPreferSibling, p.SD_PREFER_SIBLING);
  return std::make_unique<Cfs>(p, release, std::move(levels));
}

}  // namespace

const Cfs::Release Cfs::k2631 = {
    .fork_needs_fair_curr = true,
    .fork_from_curr = false,
    .new_never_backwards = false,
    .last_buddy_first = false,
    .tick_spread_test = false,
    .affine_empty_balanced = false,
    .check_preempt_wakeup = &Cfs::check_preempt_wakeup_2631,
    .select_wake_cpu = &Cfs::select_wake_cpu_2631,
    .balance = {},
};

// -tip of 10-15 September 2009 (e1f8450854d6): 2.6.31's code with the fork placement of
// b5d9d734 (the child starts from the running task's vruntime, never placed backwards),
// wake_affine's empty-waker rule (71a29aa7), cdd2ab3d and wake_idle(), and the dynamic
// cpu_power and SD_PREFER_SIBLING balancing of 4 September; before the wake-up rework
// (c88d5910) and the NEXT_BUDDY switch (3cb63d52) of 15 September.
const Cfs::Release Cfs::kTip200909 = {
    .fork_needs_fair_curr = true,
    .fork_from_curr = true,
    .new_never_backwards = true,
    .last_buddy_first = false,
    .tick_spread_test = false,
    .affine_empty_balanced = true,
    .affine_on_prev = true,
    .wake_idle = true,
    .check_preempt_wakeup = &Cfs::check_preempt_wakeup_2631,
    .select_wake_cpu = &Cfs::select_wake_cpu_2631,
    .balance = {.group_power = balance::GroupPower::kSumOfCpus,
                .round_capacity = true,
                .prefer_sibling = true},
};

const Cfs::Release Cfs::k2632 = {
    .check_preempt_wakeup = &Cfs::check_preempt_wakeup_2632,
    .select_wake_cpu = &Cfs::select_wake_cpu_2632,
    .balance = {.group_power = balance::GroupPower::kSumOfCpus,
                .round_capacity = true,
                .prefer_sibling = true,
                .newidle_rate_limit = true,
                .hot_buddy_rq = balance::HotBuddyRq::kThisRq},
};

// The -tip tree of 14-22 October 2009: v2.6.32-rc5 with 92f6a5e3 (buddies cleared once
// examined) and 799e2205 (SD_PREFER_LOCAL off on MC/CPU: no effect without
// SD_BALANCE_WAKE), before f685ceac of 23 October (the tick's spread test, buddies only
// from sched_nr_latency tasks, the last buddy only on a preemption, CACHE_HOT_BUDDY only
// on a busy queue) and before the stable backports of 2.6.32.2 (the idle-CPU search at
// wake-up, the new-idle rate limit), all dated 23 October 2009 or later.
const Cfs::Release Cfs::kTip200910 = {
    .tick_spread_test = false,
    .wake_idle_search = false,
    .clear_examined_buddies = true,
    .check_preempt_wakeup = &Cfs::check_preempt_wakeup_tip,
    .select_wake_cpu = &Cfs::select_wake_cpu_2632,
    .balance = {.group_power = balance::GroupPower::kSumOfCpus,
                .round_capacity = true,
                .prefer_sibling = true},
};

}  // namespace cfs

std::vector<PolicyInfo> cfs_policies() {
  using cfs::Cfs;
  using cfs::CfsParams;
  return {
      declare_policy<CfsParams>(
          "cfs-2.6.31",
          "CFS of Linux 2.6.31 (sched_fair.c of 2.6.31.14): 20/4/5 ms latency/min/wakeup "
          "granularity, child runs first, no new-idle balancing on MC/CPU domains",
          cfs::table_2631(), cfs::defaults_2631(),
          [](const CfsParams& p) { return cfs::make(p, Cfs::k2631, cfs::domains_2631()); }),
      declare_policy<CfsParams>(
          "cfs-tip-2009-09",
          "CFS of the -tip tree of 10-15 September 2009 (v2.6.31 with 2.6.32's first "
          "scheduler merge): 5/1/1 ms, no sleeper credit, the next buddy on every wake-up, "
          "2.6.31's wake-up CPU choice with wake_idle(), new-idle balancing",
          cfs::table_2631(), cfs::defaults_tip200909(),
          [](const CfsParams& p) {
            return cfs::make(p, Cfs::kTip200909, cfs::domains_tip200909());
          }),
      declare_policy<CfsParams>(
          "cfs-tip-2009-10",
          "CFS of the -tip tree of mid-October 2009 (v2.6.32-rc5 with 92f6a5e3): 2.6.32's "
          "tunables and features, buddies marked on every wake-up, no idle-CPU search, no "
          "new-idle rate limit",
          cfs::table_2632(), cfs::defaults_2632(),
          [](const CfsParams& p) { return cfs::make(p, Cfs::kTip200910, cfs::domains_2632()); }),
      declare_policy<CfsParams>(
          "cfs-2.6.32",
          "CFS of Linux 2.6.32 (sched_fair.c of 2.6.32.2): 5/1/1 ms, gentle sleepers, "
          "new-idle balancing, idle-sibling wake-ups",
          cfs::table_2632(), cfs::defaults_2632(),
          [](const CfsParams& p) { return cfs::make(p, Cfs::k2632, cfs::domains_2632()); })};
}

}  // namespace schedlab
