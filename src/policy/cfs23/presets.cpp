// The preset cfs-2.6.23: its defaults (params.h) and scheduling domains.
//
// Checked against the source (2.6.23.17: kernel/sched_fair.c's sysctl_sched_features,
// sched.c, include/linux/topology.h): every SCHED_FEAT default, the tunables' base values
// and their 1+ilog2(ncpus) scaling with its 100 ms cap, runtime_limit = latency and
// wakeup granularity = min_granularity / 2 at boot, the nice weights, and the
// SD_SIBLING_INIT / SD_MC_INIT / SD_CPU_INIT fields below.
#include "policy/cfs23/cfs23.h"
#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {
namespace cfs23 {
namespace {

using namespace balance;  // the SD_* flags

// No SD_BALANCE_FORK and no SD_WAKE_BALANCE yet; SD_WAKE_IDLE on every level.
std::vector<DomainTemplate> domains_2623() {
  return sibling_mc_cpu_levels(kSdLoadBalance | kSdBalanceNewidle | kSdBalanceExec | kSdWakeAffine |
                               kSdWakeIdle);
}

std::unique_ptr<SchedClass> make(const Cfs23Params& p) {
  if (p.sched_tunable_scaling > 2)
    throw InputError("", "--param sched_tunable_scaling", "must be 0, 1 or 2");
  if (p.sched_min_granularity_ns == 0)
    throw InputError("", "--param sched_min_granularity_ns", "must be positive");
  if (p.PRECISE_CPU_LOAD)
    throw InputError("", "--param PRECISE_CPU_LOAD",
                     "PRECISE_CPU_LOAD is not modelled: cpu_load[] follows the queue weight");
  std::vector<DomainTemplate> levels = domains_2623();
  switch_domain_flag(levels, kSdBalanceNewidle, p.SD_BALANCE_NEWIDLE);
  switch_domain_flag(levels, kSdBalanceFork, p.SD_BALANCE_FORK);
  switch_domain_flag(levels, kSdWakeAffine, p.SD_WAKE_AFFINE);
  switch_domain_flag(levels, kSdWakeIdle, p.SD_WAKE_IDLE);
  return std::make_unique<Cfs23>(p, std::move(levels));
}

}  // namespace
}  // namespace cfs23

std::vector<PolicyInfo> cfs23_policies() {
  return {declare_policy<cfs23::Cfs23Params>(
      "cfs-2.6.23",
      "CFS as merged in Linux 2.6.23 (sched_fair.c of 2.6.23.17): fair_clock and "
      "wait_runtime, sleeper credit with payback, wake-ups to idle siblings",
      cfs23::Cfs23Params::table(), {}, cfs23::make)};
}

}  // namespace schedlab
