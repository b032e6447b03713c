#include "host/watchdog.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace schedlab {

namespace {

// The messages, one per line: "k PGID", "w PATH\tVALUE", "r DIR", "u FILE", and "c"
// (forget everything before).
constexpr size_t kMaxMessages = 1 << 16;

void sleep_ms(long ms) {
  const timespec ts{0, ms * 1'000'000};
  nanosleep(&ts, nullptr);
}

// Async-signal-safe from here to the end of watch(): no allocation, no stdio, no locks.
void perform(char* line) {
  const char kind = line[0];
  char* arg = line[1] == ' ' ? line + 2 : line + 1;
  if (kind == 'k') {
    long pgid = 0;
    for (const char* p = arg; *p >= '0' && *p <= '9'; ++p) pgid = pgid * 10 + (*p - '0');
    if (pgid > 1) kill(static_cast<pid_t>(-pgid), SIGKILL);
  } else if (kind == 'w') {
    char* tab = arg;
    while (*tab && *tab != '\t') ++tab;
    if (!*tab) return;
    *tab = '\0';
    const char* value = tab + 1;
    const int fd = open(arg, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return;
    size_t n = 0;
    while (value[n]) ++n;
    if (write(fd, value, n) < 0) {
      // nothing more can be done from here
    }
    close(fd);
  } else if (kind == 'r') {
    // A directory whose files the dead process still had open is busy for a moment.
    for (int tries = 0; tries < 200 && rmdir(arg) != 0 && errno == EBUSY; ++tries) sleep_ms(25);
  } else if (kind == 'u') {
    unlink(arg);
  }
}

[[noreturn]] void watch(int fd) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2})
    sigaction(sig, &ignore, nullptr);
  // Hold nothing of the parent's: not its trace_pipe (which keeps an instance busy), not
  // its output files, not another watchdog's socket.
  if (dup2(fd, 3) != 3) _exit(1);
  if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
    for (int other = 4; other < 65536; ++other) close(other);
  const int null = open("/dev/null", O_RDWR);
  for (int std_fd = 0; std_fd < 3; ++std_fd) dup2(null, std_fd);
  if (null > 2) close(null);
  static char buffer[kMaxMessages + 1];
  size_t used = 0;
  for (;;) {
    char scratch[512];
    char* into = used < kMaxMessages ? buffer + used : scratch;
    const size_t room = used < kMaxMessages ? kMaxMessages - used : sizeof scratch;
    const ssize_t n = read(3, into, room);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // schedlab is gone, or disarmed us
    if (into == buffer + used) used += static_cast<size_t>(n);
  }
  buffer[used] = '\0';
  // Only what follows the last "c" line still stands.
  size_t start = 0;
  for (size_t i = 0; i < used; ++i)
    if (buffer[i] == 'c' && (i == 0 || buffer[i - 1] == '\n') &&
        (i + 1 == used || buffer[i + 1] == '\n'))
      start = i + 1;
  for (size_t i = start; i < used;) {
    size_t end = i;
    while (end < used && buffer[end] != '\n') ++end;
    buffer[end] = '\0';
    if (end > i) perform(buffer + i);
    i = end + 1;
  }
  _exit(0);
}

}  // namespace

Watchdog::Watchdog() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw InputError("", "record", fmt::format("socketpair: {}", strerror(errno)));
  pid_ = fork();
  if (pid_ < 0) {
    const int e = errno;
    close(fds[0]);
    close(fds[1]);
    throw InputError("", "record", fmt::format("fork: {}", strerror(e)));
  }
  if (pid_ == 0) {
    close(fds[1]);
    watch(fds[0]);
  }
  close(fds[0]);
  fd_ = fds[1];
}

Watchdog::~Watchdog() {
  disarm();
}

void Watchdog::add(std::string item) {
  items_.push_back(std::move(item));
  const std::string line = items_.back() + "\n";
  if (fd_ >= 0) send(fd_, line.data(), line.size(), MSG_NOSIGNAL);
}

void Watchdog::sync() {
  if (fd_ < 0) return;
  std::string all = "c\n";
  for (const std::string& item : items_) all += item + "\n";
  send(fd_, all.data(), all.size(), MSG_NOSIGNAL);
}

void Watchdog::kill_group(pid_t pgid) {
  add(fmt::format("k {}", pgid));
}
void Watchdog::write_file(const std::string& path, const std::string& value) {
  add(fmt::format("w {}\t{}", path, value));
}
void Watchdog::remove_dir(const std::string& path) {
  add("r " + path);
}
void Watchdog::remove_file(const std::string& path) {
  add("u " + path);
}

void Watchdog::forget_group(pid_t pgid) {
  std::erase(items_, fmt::format("k {}", pgid));
  sync();
}

void Watchdog::forget_all() {
  items_.clear();
  sync();
}

void Watchdog::disarm() {
  if (fd_ < 0) return;
  forget_all();
  close(fd_);
  fd_ = -1;
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace schedlab
