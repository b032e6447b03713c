// The presets cfs-2.6.23, cfs-2.6.31 and cfs-2.6.32: each release's SCHED_FEAT defaults,
// tunables and scheduling-domain initialisers, every one a parameter.
//
// Checked against the source (2.6.23.17: kernel/sched_fair.c's sysctl_sched_features,
// sched.c, include/linux/topology.h; 2.6.31.14: kernel/sched_features.h, sched_fair.c,
// sched.c, include/linux/topology.h; 2.6.32.2: the same files): every SCHED_FEAT default,
// the tunables' base values and their 1+ilog2(ncpus) scaling with its cap (100 ms in
// 2.6.23, 200 ms later), 2.6.23's runtime_limit = latency and wakeup granularity =
// min_granularity / 2 at boot, the nice weights, and the SD_SIBLING_INIT / SD_MC_INIT /
// SD_CPU_INIT fields below.
// Judgement: NR_CPUS = 64 for the interval cap, no power-savings balancing, no group
// scheduling, the NO_HZ idle balancer modelled as noted in balance.cpp, and 2.6.23
// balanced with the later code (see balance.cpp).
#include <fmt/format.h>

#include "policy/cfs/cfs.h"
#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {
namespace cfs {
namespace {

struct Feat {
  const char* name;
  bool default_on;
  const char* what;
};

// The switches of each release in sched_features.h order.
const std::vector<Feat>& features_of(Era era) {
  static const std::vector<Feat> f23 = {
      {"FAIR_SLEEPERS", true, "sleepers are credited the fair-clock time they slept"},
      {"SLEEPER_AVG", false, "the credit scaled by load / (load + weight)"},
      {"SLEEPER_LOAD_AVG", true, "SLEEPER_AVG uses cpu_load[2] as the load"},
      {"PRECISE_CPU_LOAD", false, "not modelled (cpu_load from exec/fair ratios); 1 is rejected"},
      {"START_DEBIT", true, "a process fork starts owing half a granularity"},
      {"SKIP_INITIAL", false, "a process fork's first wait is not credited"},
  };
  static const std::vector<Feat> f31 = {
      {"NEW_FAIR_SLEEPERS", true, "waking tasks get up to one latency of sleeper credit"},
      {"NORMALIZED_SLEEPER", false, "sleeper credit scaled by the task's weight"},
      {"ADAPTIVE_GRAN", true, "wake-up granularity shrinks for frequent wakers"},
      {"WAKEUP_PREEMPT", true, "wake-ups may preempt the running task"},
      {"START_DEBIT", true, "a new task starts one virtual slice after min_vruntime"},
      {"AFFINE_WAKEUPS", true, "wake_affine may pull a woken task to the waker's CPU"},
      {"CACHE_HOT_BUDDY", true, "buddies count as cache hot for load balancing"},
      {"SYNC_WAKEUPS", true, "honour the sync hint of a wake-up"},
      {"HRTICK", false, "not modelled (slices end at jiffy ticks); 1 is rejected"},
      {"DOUBLE_TICK", false, "only with HRTICK; no effect"},
      {"ASYM_GRAN", true, "wake-up granularity in the woken task's virtual time"},
      {"LB_BIAS", true, "source/target_load use the cpu_load[] averages"},
      {"LB_WAKEUP_UPDATE", true, "group-scheduling shares update; no effect on a flat queue"},
      {"ASYM_EFF_LOAD", true, "group-scheduling effective load; no effect on a flat queue"},
      {"WAKEUP_OVERLAP", false, "preempt when both tasks overlap briefly (avg_overlap)"},
      {"LAST_BUDDY", true, "prefer returning the CPU to the task a wake-up preempted"},
      {"OWNER_SPIN", true, "kernel mutex owner spinning; no effect on user-space locks"},
  };
  static const std::vector<Feat> f32 = {
      {"FAIR_SLEEPERS", true, "waking tasks get sleeper credit"},
      {"GENTLE_FAIR_SLEEPERS", true, "halve the sleeper credit"},
      {"NORMALIZED_SLEEPER", false, "sleeper credit scaled by the task's weight"},
      {"START_DEBIT", true, "a new task starts one virtual slice after min_vruntime"},
      {"WAKEUP_PREEMPT", true, "wake-ups may preempt; also the tick's vruntime-spread test"},
      {"ADAPTIVE_GRAN", true, "wake-up granularity shrinks for frequent wakers"},
      {"ASYM_GRAN", true, "wake-up granularity in the woken task's virtual time"},
      {"WAKEUP_SYNC", false, "a sync wake-up always preempts"},
      {"WAKEUP_OVERLAP", false, "preempt when both tasks overlap briefly (avg_overlap)"},
      {"WAKEUP_RUNNING", false, "preempt when the woken task runs shorter bursts"},
      {"SYNC_WAKEUPS", true, "honour the sync hint of a wake-up"},
      {"AFFINE_WAKEUPS", true, "wake_affine may pull a woken task to the waker's CPU"},
      {"SYNC_LESS", true, "drop the sync hint when either task overlaps long"},
      {"SYNC_MORE", false, "add the sync hint when both tasks overlap briefly"},
      {"NEXT_BUDDY", false, "prefer the woken task at the next pick (when loaded)"},
      {"LAST_BUDDY", true, "prefer returning the CPU to the task a wake-up preempted"},
      {"CACHE_HOT_BUDDY", true, "buddies count as cache hot for load balancing"},
      {"ARCH_POWER", false, "architecture CPU power; x86 of the time has none: no effect"},
      {"HRTICK", false, "not modelled (slices end at jiffy ticks); 1 is rejected"},
      {"DOUBLE_TICK", false, "only with HRTICK; no effect"},
      {"LB_BIAS", true, "source/target_load use the cpu_load[] averages"},
      {"LB_SHARES_UPDATE", true, "group-scheduling shares update; no effect on a flat queue"},
      {"ASYM_EFF_LOAD", true, "group-scheduling effective load; no effect on a flat queue"},
      {"OWNER_SPIN", true, "kernel mutex owner spinning; no effect on user-space locks"},
  };
  // kernel/sched/features.h of 6.6 (from the release, recalled: unverified against the
  // file) and of 6.12 (read from the source).
  static const std::vector<Feat> f66 = {
      {"PLACE_LAG", true, "keep a task's lag across sleep and migration"},
      {"PLACE_DEADLINE_INITIAL", true, "a new task's first slice is halved"},
      {"RUN_TO_PARITY", true, "no wake-up preemption until curr's slice or 0-lag point"},
      {"NEXT_BUDDY", false, "prefer the woken task at the next pick"},
      {"CACHE_HOT_BUDDY", true, "buddies count as cache hot for load balancing"},
      {"WAKEUP_PREEMPTION", true, "wake-ups may preempt the running task"},
      {"HRTICK", false, "not modelled (slices end at jiffy ticks); 1 is rejected"},
      {"HRTICK_DL", false, "deadline hrtick; no effect here"},
      {"DOUBLE_TICK", false, "only with HRTICK; no effect"},
      {"NONTASK_CAPACITY", true, "IRQ time lowers capacity; no IRQs simulated: no effect"},
      {"TTWU_QUEUE", true, "remote wake-ups queued by IPI; no effect on the model"},
      {"SIS_PROP", false, "select_idle_sibling scan limit; not modelled"},
      {"SIS_UTIL", true, "select_idle_sibling scan limit by utilisation; not modelled"},
      {"WARN_DOUBLE_CLOCK", false, "debugging; no effect"},
      {"RT_PUSH_IPI", true, "RT push by IPI; no effect on the model"},
      {"RT_RUNTIME_SHARE", false, "RT throttling; not modelled"},
      {"LB_MIN", false, "balancing minimum; no effect"},
      {"ATTACH_AGE_LOAD", true, "PELT ageing; not modelled"},
      {"WA_IDLE", true, "wake_affine by idleness"},
      {"WA_WEIGHT", true, "wake_affine by PELT load; not modelled (falls back to prev)"},
      {"WA_BIAS", true, "wake_affine bias; no effect without WA_WEIGHT"},
      {"UTIL_EST", true, "PELT utilisation estimate; not modelled"},
      {"UTIL_EST_FASTUP", true, "PELT utilisation estimate; not modelled"},
      {"LATENCY_WARN", false, "debugging; no effect"},
      {"HZ_BW", true, "bandwidth timer at HZ; no effect"},
  };
  static const std::vector<Feat> f612 = {
      {"PLACE_LAG", true, "keep a task's lag across sleep and migration"},
      {"PLACE_DEADLINE_INITIAL", true, "a new task's first slice is halved"},
      {"PLACE_REL_DEADLINE", true, "keep the relative deadline on migration"},
      {"RUN_TO_PARITY", true, "no wake-up preemption until curr's slice or 0-lag point"},
      {"PREEMPT_SHORT", true, "a woken task with a shorter slice may cancel RUN_TO_PARITY"},
      {"NEXT_BUDDY", false, "prefer the woken task at the next pick"},
      {"CACHE_HOT_BUDDY", true, "buddies count as cache hot for load balancing"},
      {"DELAY_DEQUEUE", true, "an ineligible sleeper stays queued until picked or woken"},
      {"DELAY_ZERO", true, "clip a delayed task's positive lag to zero"},
      {"WAKEUP_PREEMPTION", true, "wake-ups may preempt the running task"},
      {"HRTICK", false, "not modelled (slices end at jiffy ticks); 1 is rejected"},
      {"HRTICK_DL", false, "deadline hrtick; no effect here"},
      {"DOUBLE_TICK", false, "only with HRTICK; no effect"},
      {"NONTASK_CAPACITY", true, "IRQ time lowers capacity; no IRQs simulated: no effect"},
      {"TTWU_QUEUE", true, "remote wake-ups queued by IPI; no effect on the model"},
      {"SIS_UTIL", true, "select_idle_sibling scan limit by utilisation; not modelled"},
      {"WARN_DOUBLE_CLOCK", false, "debugging; no effect"},
      {"RT_PUSH_IPI", true, "RT push by IPI; no effect on the model"},
      {"RT_RUNTIME_SHARE", false, "RT throttling; not modelled"},
      {"LB_MIN", false, "balancing minimum; no effect"},
      {"ATTACH_AGE_LOAD", true, "PELT ageing; not modelled"},
      {"WA_IDLE", true, "wake_affine by idleness"},
      {"WA_WEIGHT", true, "wake_affine by PELT load; not modelled (falls back to prev)"},
      {"WA_BIAS", true, "wake_affine bias; no effect without WA_WEIGHT"},
      {"UTIL_EST", true, "PELT utilisation estimate; not modelled"},
      {"LATENCY_WARN", false, "debugging; no effect"},
  };
  if (era == Era::k66) return f66;
  if (era == Era::k612) return f612;
  return era == Era::k2623 ? f23 : era == Era::k2631 ? f31 : f32;
}

struct EraDefaults {
  int64_t latency, min_granularity, wakeup_granularity;
  bool child_runs_first;
};
EraDefaults defaults_of(Era era) {
  if (era == Era::k2623) return {20'000'000, 2'000'000, 1'000'000, true};
  if (era == Era::k2631) return {20'000'000, 4'000'000, 5'000'000, true};
  return {5'000'000, 1'000'000, 1'000'000, false};
}

std::vector<DomainTemplate> domain_templates(Era era) {
  if (era == Era::k66 || era == Era::k612) {
    // sd_init() of 6.x, judgement where PELT-era fields have no counterpart: no load
    // indices (idx 0: instantaneous loads), busy_factor 16, imbalance_pct 117 (SMT 110),
    // intervals of about the span in ms.
    const uint32_t common =
        kSdLoadBalance | kSdBalanceNewidle | kSdBalanceExec | kSdBalanceFork | kSdWakeAffine;
    return {{Level::kSmt, common | kSdShareCpupower | kSdPreferSibling, 2, 4, 16, 110, 0, 0, 0, 0,
             0, 0},
            {Level::kMc, common | kSdSharePkgResources, 4, 8, 16, 117, 0, 0, 0, 0, 0, 0},
            {Level::kCpu, common | kSdPreferSibling, 8, 16, 16, 117, 1, 0, 0, 0, 0, 0}};
  }
  if (era == Era::k2623) {
    // No SD_BALANCE_FORK and no SD_WAKE_BALANCE yet; SD_WAKE_IDLE on every level.
    const uint32_t common =
        kSdLoadBalance | kSdBalanceNewidle | kSdBalanceExec | kSdWakeAffine | kSdWakeIdle;
    return {{Level::kSmt, common | kSdShareCpupower, 1, 2, 64, 110, 0, 0, 0, 0, 0, 0},
            {Level::kMc, common | kSdSharePkgResources, 1, 4, 64, 125, 1, 2, 0, 0, 1, 1},
            {Level::kCpu, common, 1, 4, 64, 125, 1, 2, 0, 0, 1, 1}};
  }
  const bool e31 = era == Era::k2631;
  DomainTemplate smt{Level::kSmt,
                     kSdLoadBalance | kSdBalanceNewidle | kSdBalanceFork | kSdBalanceExec |
                         kSdWakeAffine | kSdShareCpupower | (e31 ? kSdWakeBalance : 0u),
                     1,
                     2,
                     64,
                     110,
                     0,
                     0,
                     0,
                     0,
                     0,
                     0};
  DomainTemplate mc{Level::kMc,
                    kSdLoadBalance | kSdBalanceFork | kSdBalanceExec | kSdWakeAffine |
                        kSdSharePkgResources |
                        (e31 ? kSdWakeBalance : kSdBalanceNewidle | kSdPreferSibling),
                    1,
                    4,
                    64,
                    125,
                    1,
                    2,
                    0,
                    0,
                    e31 ? 1 : 0,
                    e31 ? 1 : 0};
  DomainTemplate cpu{Level::kCpu,
                     kSdLoadBalance | kSdBalanceFork | kSdBalanceExec | kSdWakeAffine |
                         (e31 ? kSdWakeBalance : kSdBalanceNewidle | kSdPreferSibling),
                     1,
                     4,
                     64,
                     125,
                     1,
                     2,
                     1,
                     e31 ? 2 : 0,
                     e31 ? 1 : 0,
                     e31 ? 1 : 0};
  return {smt, mc, cpu};
}

struct DomainFlagParam {
  const char* name;
  uint32_t flag;
  const char* what;
};
const std::vector<DomainFlagParam>& domain_flag_params(Era era) {
  static const std::vector<DomainFlagParam> f23 = {
      {"SD_BALANCE_NEWIDLE", kSdBalanceNewidle, "MC and CPU levels pull when a CPU goes idle"},
      {"SD_BALANCE_FORK", kSdBalanceFork, "forks go to the idlest CPU (all levels)"},
      {"SD_WAKE_AFFINE", kSdWakeAffine, "wake-ups may move to the waker's CPU (all levels)"},
      {"SD_WAKE_IDLE", kSdWakeIdle, "a wake-up next to one task moves to an idle CPU"},
  };
  static const std::vector<DomainFlagParam> f31 = {
      {"SD_BALANCE_NEWIDLE", kSdBalanceNewidle, "MC and CPU levels pull when a CPU goes idle"},
      {"SD_BALANCE_FORK", kSdBalanceFork, "forks go to the idlest CPU (all levels)"},
      {"SD_WAKE_AFFINE", kSdWakeAffine, "wake-ups may move to the waker's CPU (all levels)"},
      {"SD_WAKE_BALANCE", kSdWakeBalance, "passive balancing at wake-up (all levels)"},
  };
  static const std::vector<DomainFlagParam> f32 = {
      {"SD_BALANCE_NEWIDLE", kSdBalanceNewidle, "MC and CPU levels pull when a CPU goes idle"},
      {"SD_BALANCE_FORK", kSdBalanceFork, "forks go to the idlest CPU (all levels)"},
      {"SD_WAKE_AFFINE", kSdWakeAffine, "wake-ups may move to the waker's CPU (all levels)"},
      {"SD_PREFER_SIBLING", kSdPreferSibling, "MC and CPU levels: idle siblings first"},
  };
  static const std::vector<DomainFlagParam> f6 = {
      {"SD_BALANCE_NEWIDLE", kSdBalanceNewidle, "MC and CPU levels pull when a CPU goes idle"},
      {"SD_BALANCE_FORK", kSdBalanceFork, "forks go to the idlest CPU (all levels)"},
      {"SD_WAKE_AFFINE", kSdWakeAffine, "wake-ups may move to the waker's CPU (all levels)"},
  };
  if (era == Era::k66 || era == Era::k612) return f6;
  return era == Era::k2623 ? f23 : era == Era::k2631 ? f31 : f32;
}

bool flag_default(Era era, uint32_t flag) {
  // The MC level's default (the CPU level agrees for every flag offered).
  return (domain_templates(era)[1].flags & flag) != 0;
}

std::vector<ParamSpec> param_specs(Era era) {
  std::vector<ParamSpec> specs;
  for (const Feat& f : features_of(era))
    specs.push_back({f.name, f.default_on ? 1 : 0, true, f.what});
  if (era == Era::k66 || era == Era::k612) {
    specs.push_back({"sched_base_slice_ns", 750'000, false,
                     "the slice, before scaling by 1 + ilog2(min(cpus, 8))"});
    specs.push_back(
        {"sched_tunable_scaling", 1, false, "0 none, 1 logarithmic (default), 2 linear"});
    specs.push_back(
        {"sched_migration_cost_ns", 500'000, false, "a task that ran this recently is cache hot"});
    specs.push_back({"sched_nr_migrate", 32, false, "tasks examined per balancing pass"});
    for (const DomainFlagParam& f : domain_flag_params(era))
      specs.push_back({f.name, flag_default(era, f.flag) ? 1 : 0, true, f.what});
    return specs;
  }
  const EraDefaults d = defaults_of(era);
  specs.push_back({"sched_latency_ns", d.latency, false,
                   "targeted preemption latency, before scaling by CPU count"});
  specs.push_back({"sched_min_granularity_ns", d.min_granularity, false,
                   "minimal slice, before scaling by CPU count"});
  specs.push_back({"sched_wakeup_granularity_ns", d.wakeup_granularity, false,
                   era == Era::k2623
                       ? "wake-up preemption granularity, before scaling (at boot 2.6.23 sets "
                         "it to the scaled min_granularity / 2)"
                       : "wake-up preemption granularity, before scaling by CPU count"});
  specs.push_back({"sched_tunable_scaling", 1, false,
                   "scaling of the three above: 0 none, 1 1+ilog2(cpus) (the kernel's), "
                   "2 linear"});
  specs.push_back({"sched_child_runs_first", d.child_runs_first ? 1 : 0, true,
                   "a forked child runs before its parent on the same CPU"});
  specs.push_back({"sched_compat_yield", 0, true, "sched_yield moves the task to the far right"});
  if (era == Era::k2623) {
    specs.push_back({"sched_batch_wakeup_granularity_ns", 25'000'000, false,
                     "wake-up granularity of SCHED_BATCH tasks (not scaled)"});
    specs.push_back({"sched_runtime_limit_ns", 0, false,
                     "bound of wait_runtime; 0 = sched_latency after scaling (the boot value)"});
    specs.push_back({"forks_are_threads", 1, true,
                     "forks are CLONE_VM threads (pthread_create), which skip task_new_fair; "
                     "0 models process forks"});
  } else {
    specs.push_back(
        {"sched_migration_cost_ns", 500'000, false, "a task that ran this recently is cache hot"});
    specs.push_back({"sched_nr_migrate", 32, false, "tasks examined per balancing pass"});
  }
  for (const DomainFlagParam& f : domain_flag_params(era))
    specs.push_back({f.name, flag_default(era, f.flag) ? 1 : 0, true, f.what});
  return specs;
}

std::unique_ptr<SchedClass> make(Era era, const ParamValues& p) {
  return std::make_unique<Cfs>(cfs_config(era, p));
}

}  // namespace

CfsConfig cfs_config(Era era, const ParamValues& p) {
  CfsConfig c;
  c.era = era;
  Features& f = c.feat;
  Tunables& t = c.base;
  if (era == Era::k66 || era == Era::k612) {
    if (p.flag("HRTICK"))
      throw InputError("", "--param HRTICK",
                       "HRTICK is not modelled: the simulator preempts at jiffy ticks only");
    f.place_lag = p.flag("PLACE_LAG");
    f.place_deadline_initial = p.flag("PLACE_DEADLINE_INITIAL");
    f.run_to_parity = p.flag("RUN_TO_PARITY");
    f.next_buddy = p.flag("NEXT_BUDDY");
    f.cache_hot_buddy = p.flag("CACHE_HOT_BUDDY");
    f.wakeup_preempt = p.flag("WAKEUP_PREEMPTION");
    f.affine_wakeups = p.flag("WA_IDLE");
    f.lb_bias = false;  // no cpu_load[] indices in 6.x
    f.sync_wakeups = true;
    if (era == Era::k612) {
      f.place_rel_deadline = p.flag("PLACE_REL_DEADLINE");
      f.preempt_short = p.flag("PREEMPT_SHORT");
      f.delay_dequeue = p.flag("DELAY_DEQUEUE");
      f.delay_zero = p.flag("DELAY_ZERO");
    }
    t.base_slice = p.get("sched_base_slice_ns");
    if (t.base_slice <= 0) throw InputError("", "--param sched_base_slice_ns", "must be positive");
    t.latency = t.min_granularity = t.wakeup_granularity = t.base_slice;  // unused by EEVDF
    t.migration_cost = p.get("sched_migration_cost_ns");
    t.nr_migrate = static_cast<int>(p.get("sched_nr_migrate"));
    c.tunable_scaling = static_cast<int>(p.get("sched_tunable_scaling"));
    if (c.tunable_scaling > 2)
      throw InputError("", "--param sched_tunable_scaling", "must be 0, 1 or 2");
    c.domains = domain_templates(era);
    for (const DomainFlagParam& fp : domain_flag_params(era)) {
      const bool on = p.flag(fp.name);
      if (on == flag_default(era, fp.flag)) continue;
      for (DomainTemplate& d : c.domains) {
        if (fp.flag == kSdBalanceNewidle && d.level == Level::kSmt) continue;
        d.flags = on ? d.flags | fp.flag : d.flags & ~fp.flag;
      }
    }
    return c;
  }
  t.latency = p.get("sched_latency_ns");
  t.min_granularity = p.get("sched_min_granularity_ns");
  t.wakeup_granularity = p.get("sched_wakeup_granularity_ns");
  t.child_runs_first = p.flag("sched_child_runs_first");
  t.compat_yield = p.flag("sched_compat_yield");
  c.tunable_scaling = static_cast<int>(p.get("sched_tunable_scaling"));
  if (c.tunable_scaling > 2)
    throw InputError("", "--param sched_tunable_scaling", "must be 0, 1 or 2");
  if (t.min_granularity == 0)
    throw InputError("", "--param sched_min_granularity_ns", "must be positive");
  if (era == Era::k2623) {
    if (p.flag("PRECISE_CPU_LOAD"))
      throw InputError("", "--param PRECISE_CPU_LOAD",
                       "PRECISE_CPU_LOAD is not modelled: cpu_load[] follows the queue weight");
    f.fair_sleepers = p.flag("FAIR_SLEEPERS");
    f.sleeper_avg = p.flag("SLEEPER_AVG");
    f.sleeper_load_avg = p.flag("SLEEPER_LOAD_AVG");
    f.start_debit = p.flag("START_DEBIT");
    f.skip_initial = p.flag("SKIP_INITIAL");
    // 2.6.23 always used the load averages, honoured sync and wake-affine, and preempted.
    f.lb_bias = f.sync_wakeups = f.affine_wakeups = f.wakeup_preempt = true;
    t.batch_wakeup_granularity = p.get("sched_batch_wakeup_granularity_ns");
    t.runtime_limit = p.get("sched_runtime_limit_ns");
    t.forks_are_threads = p.flag("forks_are_threads");
  } else {
    if (p.flag("HRTICK"))
      throw InputError("", "--param HRTICK",
                       "HRTICK is not modelled: the simulator preempts at jiffy ticks only");
    if (era == Era::k2631) {
      f.new_fair_sleepers = p.flag("NEW_FAIR_SLEEPERS");
    } else {
      f.fair_sleepers = p.flag("FAIR_SLEEPERS");
      f.gentle_fair_sleepers = p.flag("GENTLE_FAIR_SLEEPERS");
      f.wakeup_sync = p.flag("WAKEUP_SYNC");
      f.wakeup_running = p.flag("WAKEUP_RUNNING");
      f.sync_less = p.flag("SYNC_LESS");
      f.sync_more = p.flag("SYNC_MORE");
      f.next_buddy = p.flag("NEXT_BUDDY");
    }
    f.normalized_sleeper = p.flag("NORMALIZED_SLEEPER");
    f.adaptive_gran = p.flag("ADAPTIVE_GRAN");
    f.wakeup_preempt = p.flag("WAKEUP_PREEMPT");
    f.start_debit = p.flag("START_DEBIT");
    f.affine_wakeups = p.flag("AFFINE_WAKEUPS");
    f.cache_hot_buddy = p.flag("CACHE_HOT_BUDDY");
    f.sync_wakeups = p.flag("SYNC_WAKEUPS");
    f.asym_gran = p.flag("ASYM_GRAN");
    f.lb_bias = p.flag("LB_BIAS");
    f.wakeup_overlap = p.flag("WAKEUP_OVERLAP");
    f.last_buddy = p.flag("LAST_BUDDY");
    t.migration_cost = p.get("sched_migration_cost_ns");
    t.nr_migrate = static_cast<int>(p.get("sched_nr_migrate"));
  }
  c.domains = domain_templates(era);
  for (const DomainFlagParam& fp : domain_flag_params(era)) {
    const bool on = p.flag(fp.name);
    if (on == flag_default(era, fp.flag)) continue;
    for (DomainTemplate& d : c.domains) {
      // NEWIDLE and PREFER_SIBLING are switched on the MC and CPU levels; SMT keeps its own.
      const bool per_level = fp.flag == kSdBalanceNewidle || fp.flag == kSdPreferSibling;
      if (per_level && d.level == Level::kSmt) continue;
      d.flags = on ? d.flags | fp.flag : d.flags & ~fp.flag;
    }
  }
  return c;
}

}  // namespace cfs

std::vector<PolicyInfo> eevdf_policy_infos() {
  auto info = [](const char* name, cfs::Era era, const char* what) {
    return PolicyInfo{name, what, cfs::param_specs(era),
                      [era](const ParamValues& p) { return cfs::make(era, p); }};
  };
  return {info("eevdf", cfs::Era::k612, "EEVDF as in Linux 6.12 (alias of eevdf-6.12)"),
          info("eevdf-6.6", cfs::Era::k66,
               "EEVDF of Linux 6.6: lag placement, eligibility, earliest virtual deadline, "
               "RUN_TO_PARITY; 0.75 ms base slice"),
          info("eevdf-6.12", cfs::Era::k612,
               "EEVDF of Linux 6.12: adds PREEMPT_SHORT, DELAY_DEQUEUE/DELAY_ZERO, custom "
               "slices (dl-runtime on a fair task)")};
}

PolicyInfo cfs_2623_policy_info() {
  return {"cfs-2.6.23",
          "CFS as merged in Linux 2.6.23 (sched_fair.c of 2.6.23.17): fair_clock and "
          "wait_runtime, sleeper credit with payback, wake-ups to idle siblings",
          cfs::param_specs(cfs::Era::k2623),
          [](const ParamValues& p) { return cfs::make(cfs::Era::k2623, p); }};
}

PolicyInfo cfs_2631_policy_info() {
  return {"cfs-2.6.31",
          "CFS of Linux 2.6.31 (sched_fair.c of 2.6.31.14): 20/4/5 ms latency/min/wakeup "
          "granularity, child runs first, no new-idle balancing on MC/CPU domains",
          cfs::param_specs(cfs::Era::k2631),
          [](const ParamValues& p) { return cfs::make(cfs::Era::k2631, p); }};
}

PolicyInfo cfs_2632_policy_info() {
  return {"cfs-2.6.32",
          "CFS of Linux 2.6.32 (sched_fair.c of 2.6.32.2): 5/1/1 ms, gentle sleepers, "
          "new-idle balancing, idle-sibling wake-ups",
          cfs::param_specs(cfs::Era::k2632),
          [](const ParamValues& p) { return cfs::make(cfs::Era::k2632, p); }};
}

}  // namespace schedlab
