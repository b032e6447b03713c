#include "workload/program.h"

namespace schedlab {

bool sched_settings_unchanged(const SchedSettings& now, const SchedSettings& next,
                              bool custom_slices) {
  if (now.policy != next.policy || now.nice != next.nice || now.rt_priority != next.rt_priority)
    return false;
  if (next.policy == SchedPolicy::kDeadline)
    return now.dl_runtime_ns == next.dl_runtime_ns && now.dl_deadline_ns == next.dl_deadline_ns &&
           now.dl_period_ns == next.dl_period_ns;
  return !custom_slices || !takes_custom_slice(next.policy) ||
         now.dl_runtime_ns == next.dl_runtime_ns;
}

const char* op_name(Op op) {
  switch (op) {
    case Op::kRun:
      return "run";
    case Op::kRuntime:
      return "runtime";
    case Op::kSleep:
      return "sleep";
    case Op::kTimer:
      return "timer";
    case Op::kLock:
      return "lock";
    case Op::kUnlock:
      return "unlock";
    case Op::kWait:
      return "wait";
    case Op::kSignal:
      return "signal";
    case Op::kBroadcast:
      return "broad";
    case Op::kSync:
      return "sync";
    case Op::kBarrier:
      return "barrier";
    case Op::kSuspend:
      return "suspend";
    case Op::kResume:
      return "resume";
    case Op::kYield:
      return "yield";
    case Op::kSemPost:
      return "sem_post";
    case Op::kSemWait:
      return "sem_wait";
    case Op::kFork:
      return "fork";
    case Op::kMem:
      return "mem";
    case Op::kIoRun:
      return "iorun";
    case Op::kSpinLock:
      return "spin_lock";
    case Op::kSpinUnlock:
      return "spin_unlock";
    case Op::kAdvance:
      return "advance";
    case Op::kWaitProgress:
      return "wait_progress";
    case Op::kMark:
      return "mark";
    case Op::kLwLockAcquire:
      return "lwlock_acquire";
    case Op::kLwLockRelease:
      return "lwlock_release";
    case Op::kInnodbRwLock:
      return "innodb_rw_lock";
    case Op::kInnodbRwUnlock:
      return "innodb_rw_unlock";
  }
  return "?";
}

int32_t NameTable::intern(const std::string& name) {
  const auto [it, added] = index.try_emplace(name, static_cast<int32_t>(names.size()));
  if (added) names.push_back(name);
  return it->second;
}

int32_t NameTable::find(const std::string& name) const {
  const auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

}  // namespace schedlab
