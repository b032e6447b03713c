// rt-app's taskgroups against a model with no group scheduling: CFS gives a cgroup's
// tasks the group's cpu.shares between them (kernel/sched/fair.c, FAIR_GROUP_SCHED), and
// no modelled policy has that yet (one flat run queue per CPU). Where the groups cannot
// change who runs, the run goes on with a note; where they could, it is refused, naming
// the policy, rather than run as if the groups were not there.
#pragma once

#include <string>
#include <vector>

#include "json/jread.h"
#include "workload/program.h"

namespace schedlab {

// Groups cannot change the schedule when every normal-class task is always in one and
// the same group, or when there is only ever one such task. Appends a note then; throws
// InputError (the first task naming a group, and `policy`) otherwise. Nothing when no
// task names a group.
void check_taskgroups(const Workload& w, const std::string& policy, const JsonReader& reader,
                      std::vector<std::string>& notes);

}  // namespace schedlab
