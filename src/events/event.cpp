#include "events/event.h"

namespace schedlab {

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::kSwitch:
      return "switch";
    case EventType::kWakeup:
      return "wakeup";
    case EventType::kWakeupNew:
      return "wakeup_new";
    case EventType::kMigrate:
      return "migrate";
    case EventType::kFork:
      return "fork";
    case EventType::kExit:
      return "exit";
    case EventType::kBlock:
      return "block";
    case EventType::kMark:
      return "mark";
    case EventType::kDlJob:
      return "dl_job";
    case EventType::kHolderPreempted:
      return "holder_preempted";
    case EventType::kTimer:
      return "timer";
    case EventType::kLost:
      return "lost";
    case EventType::kWaking:
      return "waking";
  }
  return "?";
}

const char* block_reason_name(BlockReason r) {
  switch (r) {
    case BlockReason::kSleep:
      return "sleep";
    case BlockReason::kTimer:
      return "timer";
    case BlockReason::kMutex:
      return "mutex";
    case BlockReason::kCondvar:
      return "condvar";
    case BlockReason::kBarrier:
      return "barrier";
    case BlockReason::kSuspend:
      return "suspend";
    case BlockReason::kProgress:
      return "progress";
    case BlockReason::kSpinSleep:
      return "spin_sleep";
    case BlockReason::kSpinBlock:
      return "spin_block";
    case BlockReason::kSemaphore:
      return "semaphore";
    case BlockReason::kLwLock:
      return "lwlock";
    case BlockReason::kInnodbRwLock:
      return "innodb_rw_lock";
  }
  return "?";
}

}  // namespace schedlab
