// Recording in the global tracing instance, where tracefs has no instances (kernels
// before 3.10). The settings it changes are saved first into a lock file,
// /run/schedlab/tracing-<tracefs path>.lock (0600, held with flock while recording):
//   - a second recorder finds the lock held and refuses, naming the first's pid;
//   - a recorder that died without restoring (its lock free, its file still there) has its
//     saved settings written back by the next one, with a note;
//   - the watchdog writes them back if schedlab is killed.
// buffer_size_kb is saved whole: the size a never-used buffer will expand to (its
// "(expanded: N)"), and each CPU's size where they differ (the file reads "X").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace schedlab {

class Watchdog;

class GlobalTracing {
 public:
  // Takes the lock (InputError if another recorder holds it), restores what a dead one
  // left, saves the settings, then sets tracing off, nop, mono, `buffer_kb` per CPU, an
  // empty buffer and the sched events on. `notes` receives what the user should know.
  GlobalTracing(const std::string& root, int buffer_kb, Watchdog& watchdog,
                const std::string& lock_dir, std::vector<std::string>& notes);
  ~GlobalTracing();  // writes every saved setting back (tracing_on last), drops the lock
  GlobalTracing(const GlobalTracing&) = delete;
  GlobalTracing& operator=(const GlobalTracing&) = delete;

  const std::string& dir() const { return root_; }
  void tracing_on(bool on);

  // The writes that put the settings of `root` back as they are now, in order.
  static std::vector<std::pair<std::string, std::string>> restore_plan(const std::string& root);

 private:
  void lock(const std::string& lock_dir, std::vector<std::string>& notes);
  std::string root_, lock_path_;
  int lock_fd_ = -1;
  std::vector<std::pair<std::string, std::string>> restore_;  // file, value
};

// The lock file of the tracefs at `root` in `lock_dir`.
std::string tracing_lock_path(const std::string& lock_dir, const std::string& root);

}  // namespace schedlab
