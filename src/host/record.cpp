// `schedlab record -- COMMAND`: the command runs in its own process group, dies with
// schedlab (a parent-death signal, and the group killed on every exit path, by the
// watchdog after a SIGKILL), and its exit status is passed on; one that cannot be started
// is an error naming it.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "host/tracefs.h"
#include "host/watchdog.h"
#include "util/error.h"

namespace schedlab {

namespace {

// The child between fork and exec: only async-signal-safe calls. The exec's errno goes
// back through `status_fd` (closed on a successful exec).
[[noreturn]] void exec_child(const std::vector<char*>& argv, pid_t parent, int status_fd) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // schedlab died before the line above
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR2}) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvp(argv[0], argv.data());
  const int e = errno;
  if (write(status_fd, &e, sizeof e) < 0) {
    // the parent sees a closed pipe and status 127
  }
  _exit(127);
}

// The recorded command's process group, killed and reaped however record_command ends.
class Child {
 public:
  Child(const std::vector<std::string>& command, Watchdog& watchdog) : watchdog_(watchdog) {
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      throw InputError("", "record", fmt::format("pipe: {}", strerror(errno)));
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) {
      const int e = errno;
      close(fds[0]);
      close(fds[1]);
      throw InputError("", "record", fmt::format("fork: {}", strerror(e)));
    }
    if (pid_ == 0) {
      close(fds[0]);
      exec_child(argv, parent, fds[1]);
    }
    close(fds[1]);
    setpgid(pid_, pid_);  // also here, so that it is set before we signal the group
    watchdog_.kill_group(pid_);
    int exec_errno = 0;
    ssize_t n;
    while ((n = read(fds[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    close(fds[0]);
    if (n == static_cast<ssize_t>(sizeof exec_errno)) {
      reap();
      throw InputError("", "record",
                       fmt::format("cannot run '{}': {}", command[0], strerror(exec_errno)));
    }
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));  // -1 before Linux 5.3
  }
  ~Child() {
    reap();
    if (pidfd_ >= 0) close(pidfd_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void signal_group(int sig) const { kill(-pid_, sig); }
  // Whatever the command left behind in its group is killed, the command reaped.
  void reap() {
    if (pid_ <= 0) return;
    signal_group(SIGKILL);
    if (!reaped_)
      while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
    watchdog_.forget_group(pid_);
    pid_ = -1;
  }
  // Waits up to `ms` for the command to exit (less on a signal). With a pidfd the wait
  // ends when it exits; without one it is a sleep. Polling every 5 ms woke schedlab 200
  // times a second, preempting the recorded program.
  bool exited(int* status, int ms) {
    if (waitpid(pid_, &status_, WNOHANG) == pid_) {
      reaped_ = true;
      *status = status_;
      return true;
    }
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      poll(&p, 1, ms);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
    if (waitpid(pid_, &status_, WNOHANG) != pid_) return false;
    reaped_ = true;
    *status = status_;
    return true;
  }

 private:
  Watchdog& watchdog_;
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

}  // namespace

RecordResult record_command(const RecordOptions& o) {
  if (o.command.empty())
    throw InputError("", "record", "no command given (schedlab record -- CMD)");
  RecordResult result;
  StopSignals signals;
  OutputOptions out;
  out.follow_symlink = o.out_named;
  out.mode = o.out_mode;
  out.force_mode = true;
  TraceSession session(o.trace, o.out, out);
  result.notes = session.notes();
  Child child(o.command, session.watchdog());
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool stopping = false;
  double stop_at = 0;
  while (!child.exited(&status, 50)) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!stopping && (StopSignals::caught() != 0 || elapsed > o.timeout_s)) {
      result.interrupted = StopSignals::caught() != 0;
      result.timed_out = !result.interrupted;
      child.signal_group(SIGTERM);
      stopping = true;
      stop_at = elapsed;
    } else if (stopping && elapsed > stop_at + 2) {
      child.signal_group(SIGKILL);  // it ignored SIGTERM
    }
  }
  child.reap();
  session.stop();
  result.lines = session.lines();
  result.overruns = session.overruns();
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace schedlab
