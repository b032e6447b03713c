// Reads rt-app's JSON (the "tasks" and "global" sections, v1.0 plus upstream's fork)
// into workload programs, keeping events in file order, duplicate keys included.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "json/jread.h"
#include "workload/program.h"

namespace schedlab {

struct RtAppGlobal {
  std::optional<Time> duration_ns;  // absent: run until every task has exited
  SchedPolicy default_policy = SchedPolicy::kOther;
  // For the user: what was accepted without effect (keys rt-app ignores, settings the
  // model has no mechanism for), one sentence each.
  std::vector<std::string> notes;
};

// `root` is the whole file; its "tasks" and "global" members are read. "tasks" may be
// absent when a generator provides the workload.
void read_rtapp(const JValue& root, const JsonReader& reader, Workload& out, RtAppGlobal& global,
                bool tasks_required = true);

// Checks that a workload is complete in itself: fork targets exist, mutexes that are
// unlocked or waited with are locked somewhere, counters waited on are advanced.
void validate_workload(const Workload& w, const JsonReader& reader);

}  // namespace schedlab
