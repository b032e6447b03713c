#include "util/types.h"

namespace schedlab {

const char* policy_name(SchedPolicy p) {
  switch (p) {
    case SchedPolicy::kOther:
      return "SCHED_OTHER";
    case SchedPolicy::kBatch:
      return "SCHED_BATCH";
    case SchedPolicy::kIdle:
      return "SCHED_IDLE";
    case SchedPolicy::kFifo:
      return "SCHED_FIFO";
    case SchedPolicy::kRR:
      return "SCHED_RR";
    case SchedPolicy::kDeadline:
      return "SCHED_DEADLINE";
    case SchedPolicy::kIso:
      return "SCHED_ISO";
  }
  return "?";
}

}  // namespace schedlab
