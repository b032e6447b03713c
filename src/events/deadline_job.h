// The one rule by which a SCHED_DEADLINE job is counted, in the simulator and on the host
// alike: a job opens at an activation and is due one relative deadline later; it closes
// when the task's period's work is done (it blocks, yields, reaches its timer or exits),
// and it missed when it closed after its deadline. A job still open at the end of a run
// missed if its deadline has passed by then. Closing reports end - deadline, the value
// of a kDlJob event (> 0: a miss).
#pragma once

#include <optional>

#include "util/types.h"

namespace schedlab {

class DeadlineJob {
 public:
  bool open() const { return deadline_ns_ >= 0; }
  Time deadline_ns() const { return deadline_ns_; }
  // `exec_ns`: the task's CPU time so far, to tell a job that did no work.
  void start(Time activation_ns, Time relative_deadline_ns, Time exec_ns) {
    deadline_ns_ = activation_ns + relative_deadline_ns;
    exec_at_start_ns_ = exec_ns;
  }
  // The lateness of the job that closes now, or nothing if none was open. A task that
  // exits right after an activation without running (rt-app's last timer) had no job.
  std::optional<Time> close(Time now_ns, Time exec_ns, bool exiting = false) {
    if (!open()) return std::nullopt;
    const Time deadline = deadline_ns_;
    deadline_ns_ = -1;
    if (exiting && exec_ns == exec_at_start_ns_) return std::nullopt;
    return now_ns - deadline;
  }
  // At the end of a run: a job past its deadline counts as missed; one still in time is
  // not counted.
  std::optional<Time> close_at_end(Time end_ns, Time exec_ns) {
    if (!open() || deadline_ns_ >= end_ns) return std::nullopt;
    return close(end_ns, exec_ns);
  }
  void cancel() { deadline_ns_ = -1; }

 private:
  Time deadline_ns_ = -1;
  Time exec_at_start_ns_ = 0;
};

}  // namespace schedlab
