// The events of a trace.dat written by schedlab: each event's format file (the text of
// tracefs events/<system>/<event>/format that a reader parses to decode the records) and
// the bytes of one record in that layout. The layouts are Linux 6.18's, as its tracefs
// shows them on x86-64: the common header (type, flags, preempt count, pid), comm as
// char[16] in sched_switch, sched_wak*, sched_process_exit, and as a __data_loc string
// in sched_migrate_task and sched_process_fork; ftrace's print event (a trace_marker
// write) for marks and for the run's span. Little endian, 8-byte longs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/kernel_records.h"

namespace schedlab {

struct TraceDatEventFormat {
  std::string system, name;
  std::string format;  // the format file's text
};

// ftrace's print event first (system "ftrace"), then the sched events (system "sched").
const std::vector<TraceDatEventFormat>& trace_dat_event_formats();

// The address the print event's ip holds: kallsyms names it tracing_mark_write, so that
// a reader prints a marker as the kernel does ("tracing_mark_write: TEXT").
inline constexpr uint64_t kTracingMarkWriteAddress = 0xffffffff81000000ULL;

// One record's bytes (a multiple of 4, as the ring buffer aligns them).
std::string trace_dat_record(const KernelRecord& r);

// The kernel's comm: TASK_COMM_LEN 16 with its NUL, so 15 characters.
std::string kernel_comm(const std::string& comm);

}  // namespace schedlab
