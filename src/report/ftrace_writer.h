// The event stream as the kernel's own ftrace text (`run --ftrace out.txt`), in the
// layout of the tracefs `trace` file with the record-tgid column (docs/traces.md):
//
//   COMM-PID (TGID) [CPU] FLAGS SECS.NANOSECS: EVENT: FIELDS
//
// sched_switch, sched_waking + sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_process_fork and sched_process_exit with the kernel's field layout, and marks as
// atrace counters (`tracing_mark_write: C|tgid|mark|total`). Every line's COMM-PID is
// the task running on its CPU, as the kernel records it. Pids and tgids are those of
// events/kernel_ids.h (a recording keeps its own). prio is the kernel's: 120 + nice, 99 -
// rt_priority, -1 for SCHED_DEADLINE. Timestamps have nanoseconds (as `trace-cmd report -t` prints
// them) so that `analyze` reads back the very same times; comments `# schedlab: start S` and
// `# schedlab: end S` give the run's span. `analyze` reads the file back; the layout is
// the one Perfetto's ftrace importer reads (tests/perfetto_text_test.cpp checks its rules;
// Perfetto itself is not run).
#pragma once

#include <ostream>

#include "events/event.h"
#include "report/kernel_records.h"

namespace schedlab {

class FtraceTextWriter final : public EventSink {
 public:
  explicit FtraceTextWriter(std::ostream& out);
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override { recorder_.task_created(t); }
  void sched_changed(const TaskInfo& t, Time) override { recorder_.sched_changed(t); }
  void event(const SchedEvent& e) override { recorder_.event(e); }
  void end(Time t) override;

 private:
  void line(const KernelRecord& r);

  std::ostream& out_;
  KernelRecorder recorder_;
};

}  // namespace schedlab
