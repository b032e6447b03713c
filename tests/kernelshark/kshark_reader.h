// A trace.dat as KernelShark loads it: through libkshark (Debian's libkshark-dev), the
// data library of the KernelShark GUI, with its sched_events plugin when it is installed
// (Debian's kernelshark). That plugin is what draws a task's slices: it sets each
// sched_switch entry's pid to the task switched in, so the entry starts that task's lane.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab::test {

struct KsharkEntry {
  int cpu = 0;
  int64_t ts_ns = 0;
  int pid = 0;        // the entry's pid as KernelShark plots it
  std::string event;  // "system/name", e.g. "sched/sched_switch"
  std::string info;   // the fields as KernelShark shows them (ftrace/print entries only)
};

struct KsharkLoad {
  std::string error;  // empty when the file opened and its entries loaded
  bool sched_plugin = false;
  std::vector<KsharkEntry> entries;  // in KernelShark's order (by time)
};

// The plugin's file as Debian installs it.
inline constexpr const char* kSchedEventsPlugin =
    "/usr/lib/x86_64-linux-gnu/kernelshark/plugins/plugin-sched_events.so";

KsharkLoad kshark_load(const std::string& trace_dat, bool with_sched_plugin);

}  // namespace schedlab::test
