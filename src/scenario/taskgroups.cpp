#include "scenario/taskgroups.h"

#include <fmt/format.h>

#include <set>

namespace schedlab {

namespace {

// Fair group scheduling concerns the normal classes only (RT group scheduling, off in
// most kernels, is another matter): RT and deadline threads are left out.
bool ever_normal(const TaskSpec& t) {
  if (is_normal(t.sched.policy)) return true;
  for (const Phase& p : t.phases)
    if (p.sched && is_normal(p.sched->policy)) return true;
  return false;
}

// The groups a task's threads can be in: the task's own (the root "/" when it names
// none) until a phase names another, which holds from that phase on.
std::set<std::string> groups_of(const TaskSpec& t) {
  std::set<std::string> groups{t.taskgroup.empty() ? "/" : t.taskgroup};
  for (const Phase& p : t.phases)
    if (p.taskgroup && !p.taskgroup->empty()) groups.insert(*p.taskgroup);
  return groups;
}

bool names_a_group(const TaskSpec& t) {
  if (!t.taskgroup.empty()) return true;
  for (const Phase& p : t.phases)
    if (p.taskgroup && !p.taskgroup->empty()) return true;
  return false;
}

// Can this workload ever have two normal threads at once? Instances, forks and other
// tasks.
bool several_threads(const Workload& w) {
  std::vector<int> forked(w.tasks.size());
  for (const TaskSpec& t : w.tasks)
    for (const Phase& p : t.phases)
      for (const Step& s : p.steps)
        if (s.op == Op::kFork && s.object >= 0) ++forked[s.object];
  int threads = 0;
  for (size_t i = 0; i < w.tasks.size(); ++i)
    if (ever_normal(w.tasks[i]))
      threads += w.tasks[i].instances + (forked[i] ? 2 : 0);  // a fork may start many
  return threads > 1;
}

}  // namespace

void check_taskgroups(const Workload& w, const std::string& policy, const JsonReader& reader,
                      std::vector<std::string>& notes) {
  const TaskSpec* first = nullptr;
  std::set<std::string> groups;
  for (const TaskSpec& t : w.tasks) {
    if (!ever_normal(t)) continue;
    if (!first && names_a_group(t)) first = &t;
    const std::set<std::string> own = groups_of(t);
    groups.insert(own.begin(), own.end());
  }
  if (!first) return;
  std::string list;
  for (const std::string& g : groups) list += (list.empty() ? "" : ", ") + g;
  if (groups.size() == 1 || !several_threads(w)) {
    notes.push_back(fmt::format(
        "taskgroup {} recorded; no group scheduling is modelled, and here it would not change "
        "the schedule ({})",
        list, groups.size() == 1 ? "every task is in that one group" : "there is one thread"));
    return;
  }
  reader.fail("tasks." + first->name + ".taskgroup",
              fmt::format("policy '{}' has no group scheduling (tasks in {} would share the CPUs "
                          "by group)",
                          policy, list));
}

}  // namespace schedlab
