// The event stream as trace-cmd's trace.dat (`--trace-dat out.dat`), the file that
// `trace-cmd report` and KernelShark open: file format version 6 as trace-cmd.dat.v6(5)
// describes it (Debian's trace-cmd package), uncompressed, little endian, 4096-byte
// pages. The header carries the ring buffer's page and event headers, the format files
// of the events written (trace_dat_events.h), one kallsyms line (tracing_mark_write, for
// markers), no trace_printk formats and the tasks' comms as saved_cmdlines; then one
// run of ring-buffer pages per CPU, each event behind the ring buffer's 4-byte header
// with its time delta (a time-extend event before a delta of 2^27 ns or more).
//
// The records are those of the ftrace text writer (kernel_records.h), the same events
// at the same nanosecond on the same CPU in the name of the same running task; a comm is
// cut to the kernel's 15 characters. Two trace_marker writes, "schedlab: start" and
// "schedlab: end", give the run's span (the ftrace text's `# schedlab:` comments). The
// pages are kept in memory until end() writes the file (about 40 bytes an event).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "events/event.h"
#include "report/kernel_records.h"

namespace schedlab {

class TraceDatWriter final : public EventSink {
 public:
  explicit TraceDatWriter(std::ostream& out);
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override { recorder_.task_created(t); }
  void sched_changed(const TaskInfo& t, Time) override { recorder_.sched_changed(t); }
  void event(const SchedEvent& e) override { recorder_.event(e); }
  void end(Time t) override;

 private:
  // One CPU's ring buffer: full pages, and the page being filled (its data only).
  struct CpuPages {
    std::string pages, page;
    Time page_ns = 0, last_ns = 0;
  };
  void add(const KernelRecord& r);
  void append(CpuPages& cpu, Time clock_ns, const std::string& record);
  static void close_page(CpuPages& cpu);
  std::string header() const;

  std::ostream& out_;
  KernelRecorder recorder_;
  std::vector<CpuPages> cpus_;
};

}  // namespace schedlab
