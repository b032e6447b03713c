// Helpers for generators: build workload programs step by step, interning the names of
// counters and marks. Generators produce the same values as the rt-app reader, so the
// engine needs no special paths for them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "workload/program.h"

namespace schedlab::gen {

inline Step run(Time ns) {
  return Step{Op::kRun, ns, 0, -1, -1, false};
}
inline Step sleep_for(Time ns) {
  return Step{Op::kSleep, ns, 0, -1, -1, false};
}
inline Step advance(int32_t counter, int64_t by = 1) {
  return Step{Op::kAdvance, 0, by, counter, -1, false};
}
// recheck: the waiter sleeps on a condition variable that every advance broadcasts.
inline Step wait_progress(int32_t counter, int64_t target, bool recheck = false) {
  Step s{Op::kWaitProgress, 0, target, counter, -1, false};
  s.recheck = recheck;
  return s;
}
inline Step fork(int32_t task_index) {
  return Step{Op::kFork, 0, 0, task_index, -1, false};
}
inline Step mark(int32_t mark, int64_t count = 1) {
  return Step{Op::kMark, 0, count, mark, -1, false};
}
inline Step sem_post(int32_t sem, int64_t n = 1) {
  return Step{Op::kSemPost, 0, n, sem, -1, false, false};
}
inline Step sem_wait(int32_t sem, int64_t n = 1) {
  return Step{Op::kSemWait, 0, n, sem, -1, false, false};
}
// A spinlock taken with the waiting policy `config` (an index into w.spin_configs).
inline Step spin_lock(int32_t lock, int64_t config) {
  return Step{Op::kSpinLock, 0, config, lock, -1, false, false};
}
inline Step spin_unlock(int32_t lock) {
  return Step{Op::kSpinUnlock, 0, 0, lock, -1, false, false};
}
inline Step yield() {
  return Step{Op::kYield, 0, 0, -1, -1, false, false};
}

// A semaphore's value before the run (the table grows with the semaphores interned).
inline void set_semaphore_initial(Workload& w, int32_t sem, int64_t value) {
  if (static_cast<size_t>(sem) >= w.semaphore_initial.size())
    w.semaphore_initial.resize(static_cast<size_t>(sem) + 1, 0);
  w.semaphore_initial[static_cast<size_t>(sem)] = value;
}

// A phase that runs `steps` `loop` times.
inline Phase phase(std::string name, int64_t loop, std::vector<Step> steps) {
  Phase p;
  p.name = std::move(name);
  p.loop = loop;
  p.steps = std::move(steps);
  return p;
}

// A task that runs `steps` once.
inline TaskSpec one_shot(std::string name, int instances, std::vector<Step> steps, int nice = 0) {
  TaskSpec t;
  t.name = std::move(name);
  t.instances = instances;
  t.loop = 1;
  t.sched.nice = nice;
  t.phases.push_back(phase("main", 1, std::move(steps)));
  return t;
}

// A task that runs `steps` `loops` times.
inline TaskSpec looped(std::string name, std::vector<Step> steps, int64_t loops) {
  TaskSpec t = one_shot(std::move(name), 1, std::move(steps));
  t.phases.front().loop = loops;
  return t;
}

inline int32_t add_task(Workload& w, TaskSpec t) {
  w.tasks.push_back(std::move(t));
  return static_cast<int32_t>(w.tasks.size() - 1);
}

}  // namespace schedlab::gen
