// A private tracefs instance, instances/schedlab-<pid> (the kernel's
// Documentation/trace/ftrace.rst, "Instances", Linux 3.10 on): ring buffers, clock, event
// switches and tracing_on of its own, so a recording never touches the global buffer nor
// another tool's settings, and nothing global needs saving or restoring. Made, configured
// and removed through libtracefs. A watchdog process removes it if schedlab is killed; an
// instance left all the same (the watchdog was killed too) is found by name at the next
// start and removed, with a note.
#pragma once

#include <string>
#include <vector>

struct tracefs_instance;

namespace schedlab {

class Watchdog;

// Whether the tracefs at `root` offers instances.
bool instances_supported(const std::string& root);

// Removes instances/schedlab-PID whose PID no longer runs schedlab; a note for each.
std::vector<std::string> remove_stale_instances(const std::string& root);

class TraceInstance {
 public:
  // Creates the instance with tracing off, the nop tracer, the mono clock, `buffer_kb` per
  // CPU and the sched events on (tracing_on is left to the caller), and tells `watchdog`
  // to remove it. Throws InputError naming the setting that failed.
  TraceInstance(const std::string& root, int buffer_kb, Watchdog& watchdog);
  ~TraceInstance();  // the instance removed (its buffers freed)
  TraceInstance(const TraceInstance&) = delete;
  TraceInstance& operator=(const TraceInstance&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& name() const { return name_; }
  void tracing_on(bool on);

 private:
  std::string name_, dir_;
  tracefs_instance* instance_ = nullptr;
};

}  // namespace schedlab
