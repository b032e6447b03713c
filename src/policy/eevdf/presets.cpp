// The presets eevdf-6.6 and eevdf-6.12 (and eevdf, the newest): each release's row of
// defaults, the switches it offers, and 6.x's scheduling domains.
#include "policy/eevdf/eevdf.h"
#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {
namespace eevdf {
namespace {

using namespace balance;  // the SD_* flags

// sd_init() of 6.x, judgement where PELT-era fields have no counterpart: no load indices
// (idx 0: instantaneous loads), busy_factor 16, imbalance_pct 117 (SMT 110), intervals of
// about the span in ms.
std::vector<DomainTemplate> domains_6x() {
  const uint32_t common =
      kSdLoadBalance | kSdBalanceNewidle | kSdBalanceExec | kSdBalanceFork | kSdWakeAffine;
  return {{.level = Level::kSmt,
           .flags = common | kSdShareCpupower | kSdPreferSibling,
           .min_interval_ms = 2,
           .max_interval_ms = 4,
           .busy_factor = 16,
           .imbalance_pct = 110},
          {.level = Level::kMc,
           .flags = common | kSdSharePkgResources,
           .min_interval_ms = 4,
           .max_interval_ms = 8,
           .busy_factor = 16,
           .imbalance_pct = 117},
          {.level = Level::kCpu,
           .flags = common | kSdPreferSibling,
           .min_interval_ms = 8,
           .max_interval_ms = 16,
           .busy_factor = 16,
           .imbalance_pct = 117,
           .cache_nice_tries = 1}};
}

// 6.6 lacks 6.12's PLACE_REL_DEADLINE, PREEMPT_SHORT and DELAY_DEQUEUE/DELAY_ZERO.
EevdfParams defaults_66() {
  EevdfParams p;
  p.PLACE_REL_DEADLINE = p.PREEMPT_SHORT = p.DELAY_DEQUEUE = p.DELAY_ZERO = false;
  return p;
}

params::Table<EevdfParams> table_66() {
  using P = EevdfParams;
  return P::table().without(
      {&P::PLACE_REL_DEADLINE, &P::PREEMPT_SHORT, &P::DELAY_DEQUEUE, &P::DELAY_ZERO});
}

params::Table<EevdfParams> table_612() {
  using P = EevdfParams;
  return P::table().without({&P::SIS_PROP, &P::UTIL_EST_FASTUP, &P::HZ_BW});
}

std::unique_ptr<SchedClass> make(const EevdfParams& p, const Eevdf::Release& release) {
  if (p.HRTICK)
    throw InputError("", "--param HRTICK",
                     "HRTICK is not modelled: the simulator preempts at jiffy ticks only");
  if (p.sched_base_slice_ns <= 0)
    throw InputError("", "--param sched_base_slice_ns", "must be positive");
  if (p.sched_tunable_scaling > 2)
    throw InputError("", "--param sched_tunable_scaling", "must be 0, 1 or 2");
  std::vector<DomainTemplate> levels = domains_6x();
  switch_domain_flag(levels, kSdBalanceNewidle, p.SD_BALANCE_NEWIDLE);
  switch_domain_flag(levels, kSdBalanceFork, p.SD_BALANCE_FORK);
  switch_domain_flag(levels, kSdWakeAffine, p.SD_WAKE_AFFINE);
  return std::make_unique<Eevdf>(p, release, std::move(levels));
}

}  // namespace

const Eevdf::Release Eevdf::k66 = {.custom_slices = false};
const Eevdf::Release Eevdf::k612 = {.custom_slices = true};

}  // namespace eevdf

std::vector<PolicyInfo> eevdf_policies() {
  using eevdf::Eevdf;
  using eevdf::EevdfParams;
  auto make_612 = [](const EevdfParams& p) { return eevdf::make(p, Eevdf::k612); };
  // 6.12's deadline class pushes a lone queued task (6.7 on); 6.6's does not.
  auto with_612_deadline_class = [](PolicyInfo info) {
    info.dl_push_lone = true;
    return info;
  };
  return {with_612_deadline_class(
              declare_policy<EevdfParams>("eevdf", "EEVDF as in Linux 6.12 (alias of eevdf-6.12)",
                                          eevdf::table_612(), {}, make_612)),
          declare_policy<EevdfParams>(
              "eevdf-6.6",
              "EEVDF of Linux 6.6: lag placement, eligibility, earliest virtual deadline, "
              "RUN_TO_PARITY; 0.75 ms base slice",
              eevdf::table_66(), eevdf::defaults_66(),
              [](const EevdfParams& p) { return eevdf::make(p, Eevdf::k66); }),
          with_612_deadline_class(declare_policy<EevdfParams>(
              "eevdf-6.12",
              "EEVDF of Linux 6.12: adds PREEMPT_SHORT, DELAY_DEQUEUE/DELAY_ZERO, custom "
              "slices (dl-runtime on a fair task)",
              eevdf::table_612(), {}, make_612))};
}

}  // namespace schedlab
