#include "policy/arrays/mainline_2622.h"

#include <limits>

namespace schedlab::arrays {

using namespace balance;  // the SD_* flags

std::vector<DomainTemplate> domains_2622() {
  return sibling_mc_cpu_levels(kSdLoadBalance | kSdBalanceNewidle | kSdBalanceExec | kSdWakeAffine);
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
