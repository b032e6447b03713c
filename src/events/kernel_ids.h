// The kernel's ids of a task, for the outputs that name tasks the kernel's way (ftrace
// text, perf-sched-style tables, rt-app logs): a recording keeps the trace's pid and
// tgid; a simulated task gets made-up ones as a system numbers threads: kFirstPid + task
// id, and a task forked by another is a thread of its parent's process (rt-app's forks
// are pthread_create) while the others lead their own.
#pragma once

#include <cstdint>
#include <vector>

#include "events/event.h"

namespace schedlab {

inline constexpr int64_t kFirstPid = 1000;
// The trace clock of a simulation's time 0 in the files that print absolute times.
inline constexpr Time kSimClockBaseNs = 100 * kNsPerSec;

class KernelIds {
 public:
  struct Ids {
    int64_t pid = 0, tgid = 0;
  };
  // Call for every task, in creation order (a parent before its children).
  const Ids& add(const TaskInfo& t) {
    if (static_cast<size_t>(t.id) >= ids_.size()) ids_.resize(t.id + 1);
    Ids& ids = ids_[t.id];
    ids.pid = t.pid > 0 ? t.pid : kFirstPid + t.id;
    ids.tgid = t.tgid > 0 ? t.tgid
               : t.pid <= 0 && t.parent >= 0 && static_cast<size_t>(t.parent) < ids_.size()
                   ? ids_[t.parent].tgid
                   : ids.pid;
    return ids;
  }
  const Ids& of(TaskId id) const { return ids_.at(static_cast<size_t>(id)); }

 private:
  std::vector<Ids> ids_;
};

}  // namespace schedlab
