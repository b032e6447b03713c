// A process that undoes a recording's changes to the system when schedlab cannot: after a
// SIGKILL, a crash or the OOM killer. It blocks reading one end of a socket pair whose
// other end only schedlab holds, so the kernel closing schedlab's descriptors as it dies,
// however it dies, wakes it; it then does, in order, what it was told (kill a process
// group, write a tracing setting back, remove the private tracing instance, unlink the
// lock file) and exits. On a normal end schedlab does all of that itself and the watchdog
// is told to forget it first. Between fork and exit the watchdog makes only
// async-signal-safe calls (the parent may have threads).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace schedlab {

class Watchdog {
 public:
  Watchdog();   // forks the watchdog; throws InputError if it cannot
  ~Watchdog();  // disarm()
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // What to do if schedlab dies first, in the order given.
  void kill_group(pid_t pgid);
  void write_file(const std::string& path, const std::string& value);
  void remove_dir(const std::string& path);
  void remove_file(const std::string& path);
  // No longer to be done (the thing was undone, or a process group was reaped).
  void forget_group(pid_t pgid);
  void forget_all();
  // Forgets everything and waits for the watchdog to exit.
  void disarm();
  pid_t pid() const { return pid_; }

 private:
  void add(std::string item);
  void sync();  // sends "forget all" and then every item again
  int fd_ = -1;
  pid_t pid_ = -1;
  std::vector<std::string> items_;
};

}  // namespace schedlab
