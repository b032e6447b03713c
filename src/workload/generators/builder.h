// Helpers for generators: build workload programs step by step, interning the names of
// counters and marks. Generators produce the same values as the rt-app reader, so the
// engine needs no special paths for them.
#pragma once

#include <string>
#include <utility>

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

// A task that runs `steps` once.
inline TaskSpec one_shot(std::string name, int instances, std::vector<Step> steps, int nice = 0) {
  TaskSpec t;
  t.name = std::move(name);
  t.instances = instances;
  t.loop = 1;
  t.sched.nice = nice;
  Phase p;
  p.name = "main";
  p.steps = std::move(steps);
  t.phases.push_back(std::move(p));
  return t;
}

inline int32_t add_task(Workload& w, TaskSpec t) {
  w.tasks.push_back(std::move(t));
  return static_cast<int32_t>(w.tasks.size() - 1);
}

}  // namespace schedlab::gen
