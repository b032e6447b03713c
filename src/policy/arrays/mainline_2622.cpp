#include "policy/arrays/mainline_2622.h"

#include <limits>

namespace schedlab::arrays {

using namespace balance;  // the SD_* flags

std::vector<DomainTemplate> domains_2622() {
  const uint32_t common = kSdLoadBalance | kSdBalanceNewidle | kSdBalanceExec | kSdWakeAffine;
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

Rules rules_2622() {
  return {.cpu_load_indices = 3,
          .catch_up_missed_ticks = false,
          .empty_load_per_task = 1024,  // SCHED_LOAD_SCALE
          .count_other_classes = false,
          .sd_idle = false,
          .group_imbalance = false,
          .small_imbalance_2622 = true,
          .skip_for_load = SkipForLoad::kWeightUnlessBestPrio,
          .nr_migrate = std::numeric_limits<int64_t>::max(),
          .keep_one_task = true,
          .newidle_2622 = true,
          .idle_balance_2622 = true,
          .jiffies_round_up = false,
          .cap_interval = false,
          .active_min_queued = 1};
}

}  // namespace schedlab::arrays
