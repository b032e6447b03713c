// trace.dat, the file of trace-cmd record and KernelShark, read through Debian's
// libtracecmd and libtraceevent: each record is printed by the event format the file
// itself carries (the kernel's print_fmt, without plugins, as `trace-cmd report -N`) in
// the tracefs text layout, nanosecond timestamps, every buffer instance merged in time
// order, and a "CPU:N [LOST M EVENTS]" line where the ring buffer dropped events.
#pragma once

#include <string>

namespace schedlab {

// The file starts with trace.dat's magic ("\x17\x08\x44tracing").
bool is_trace_dat(const std::string& path);

// The records as ftrace text; InputError naming the file when libtracecmd refuses it.
std::string trace_dat_text(const std::string& path);

}  // namespace schedlab
