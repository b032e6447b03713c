// Whether this machine is too busy to measure: other runnable tasks (procs_running of
// /proc/stat, less the thread that reads it) sampled while a measurement's own threads are
// stopped, and the 1-minute load average at the start. Measurements of a busy machine
// (calibrate, validate) are reported with a warning, or marked.
#pragma once

#include <string>

namespace schedlab {

class LoadCheck {
 public:
  // Reads the load average and a first sample now.
  explicit LoadCheck(int cpus);
  // One more sample of the other runnable tasks (call while the measuring threads wait).
  void sample();
  bool busy() const;
  // "busy: 2.3 other runnable tasks on average, load 3.10 over the last minute" or "quiet: ...".
  std::string summary() const;
  double others_mean() const { return samples_ ? static_cast<double>(others_) / samples_ : 0; }
  double load1() const { return load1_; }

 private:
  int cpus_;
  double load1_ = 0;
  long others_ = 0;
  int samples_ = 0;
};

// The machine's CPU time so far (the "cpu" line of /proc/stat, in clock ticks): all of it,
// and the part the hypervisor gave to other guests (steal). Zero where unreadable.
struct CpuTimes {
  uint64_t total = 0, steal = 0;
};
CpuTimes cpu_times();
// The share of the CPU time between two readings that was stolen (0 if none passed).
double steal_share(const CpuTimes& before, const CpuTimes& after);

// The 1-minute load average, and the runnable tasks procs_running counts (-1 if unknown).
double load_average_1min();
int runnable_tasks();

}  // namespace schedlab
