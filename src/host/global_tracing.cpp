#include "host/global_tracing.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "host/tracefs.h"
#include "host/watchdog.h"
#include "util/error.h"

namespace schedlab {

namespace {

std::string read_setting(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  std::string v(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

bool write_setting(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::write(fd, value.data(), value.size());
  ::close(fd);
  return n == static_cast<ssize_t>(value.size());
}

void set(const std::string& dir, const std::string& name, const std::string& value) {
  if (!write_setting(dir + "/" + name, value))
    throw InputError(dir + "/" + name, "",
                     fmt::format("cannot write '{}': {}", value, strerror(errno)));
}

// "7 (expanded: 1408)" -> "1408": a buffer not yet used is 7 KB until tracing starts, and
// 1408 is what it is set to; "8192" -> "8192".
std::string full_size(const std::string& text) {
  const auto at = text.find("(expanded: ");
  if (at == std::string::npos) return text.substr(0, text.find(' '));
  const std::string rest = text.substr(at + 11);
  return rest.substr(0, rest.find(')'));
}

// "[local] global mono" -> "local".
std::string bracketed(const std::string& s) {
  const auto a = s.find('['), b = s.find(']');
  return a == std::string::npos || b == std::string::npos ? s : s.substr(a + 1, b - a - 1);
}

// Writes the plan in a lock file ("write PATH\tVALUE" lines) back.
void perform(const std::vector<std::pair<std::string, std::string>>& plan) {
  for (const auto& [path, value] : plan) write_setting(path, value);
}

std::vector<std::pair<std::string, std::string>> parse_plan(const std::string& text, pid_t* pid) {
  std::vector<std::pair<std::string, std::string>> plan;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("pid ", 0) == 0) *pid = static_cast<pid_t>(std::atol(line.c_str() + 4));
    if (line.rfind("write ", 0) != 0) continue;
    const auto tab = line.find('\t');
    if (tab != std::string::npos) plan.emplace_back(line.substr(6, tab - 6), line.substr(tab + 1));
  }
  return plan;
}

}  // namespace

std::string tracing_lock_path(const std::string& lock_dir, const std::string& root) {
  std::string name = root;
  for (char& c : name)
    if (c == '/') c = '-';
  return fmt::format("{}/tracing{}.lock", lock_dir, name);
}

std::vector<std::pair<std::string, std::string>> GlobalTracing::restore_plan(
    const std::string& root) {
  auto file = [&](const std::string& name) { return root + "/" + name; };
  std::vector<std::pair<std::string, std::string>> plan;
  plan.emplace_back(file("tracing_on"), "0");  // quiet while the rest changes
  plan.emplace_back(file("current_tracer"), read_setting(file("current_tracer")));
  plan.emplace_back(file("trace_clock"), bracketed(read_setting(file("trace_clock"))));
  const std::string size = read_setting(file("buffer_size_kb"));
  if (size == "X") {  // the CPUs differ: each one's own
    for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); ++cpu) {
      const std::string f = file(fmt::format("per_cpu/cpu{}/buffer_size_kb", cpu));
      const std::string v = full_size(read_setting(f));
      if (!v.empty()) plan.emplace_back(f, v);
    }
  } else {
    plan.emplace_back(file("buffer_size_kb"), full_size(size));
  }
  for (const std::string& e : recorded_sched_events()) {
    const std::string f = file("events/sched/" + e + "/enable");
    plan.emplace_back(f, read_setting(f));
  }
  plan.emplace_back(file("tracing_on"), read_setting(file("tracing_on")));
  return plan;
}

void GlobalTracing::lock(const std::string& lock_dir, std::vector<std::string>& notes) {
  if (::mkdir(lock_dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw InputError(lock_dir, "", fmt::format("cannot make the lock folder: {}", strerror(errno)));
  struct stat st {};
  if (::lstat(lock_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 022) != 0)
    throw InputError(lock_dir, "",
                     "the lock folder is not a directory of this user that only it may write");
  lock_path_ = tracing_lock_path(lock_dir, root_);
  for (;;) {  // a file unlinked by its holder between our open and our flock is retried
    lock_fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock_fd_ < 0)
      throw InputError(lock_path_, "", fmt::format("cannot open the lock: {}", strerror(errno)));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      pid_t holder = 0;
      char buf[4096];
      const ssize_t n = ::pread(lock_fd_, buf, sizeof buf, 0);
      parse_plan(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), &holder);
      ::close(lock_fd_);
      lock_fd_ = -1;
      throw InputError(root_, "",
                       fmt::format("another recorder (schedlab pid {}) is using the global "
                                   "tracing buffer; wait for it to finish (lock {})",
                                   holder, lock_path_));
    }
    struct stat held {
    }, named{};
    if (::fstat(lock_fd_, &held) == 0 && ::lstat(lock_path_.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev)
      break;
    ::close(lock_fd_);
  }
  // A lock file that is not empty belongs to a recorder that died before restoring.
  std::string text(1 << 16, '\0');
  const ssize_t n = ::pread(lock_fd_, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  pid_t dead = 0;
  const auto plan = parse_plan(text, &dead);
  if (!plan.empty()) {
    perform(plan);
    notes.push_back(fmt::format(
        "restored the tracing settings that schedlab pid {} saved in {} and did not put back", dead,
        lock_path_));
  }
}

GlobalTracing::GlobalTracing(const std::string& root, int buffer_kb, Watchdog& watchdog,
                             const std::string& lock_dir, std::vector<std::string>& notes)
    : root_(root) {
  lock(lock_dir, notes);
  restore_ = restore_plan(root_);
  std::string text = fmt::format("pid {}\n", getpid());
  for (const auto& [path, value] : restore_) text += fmt::format("write {}\t{}\n", path, value);
  if (::ftruncate(lock_fd_, 0) != 0 ||
      ::pwrite(lock_fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      ::fsync(lock_fd_) != 0)
    throw InputError(lock_path_, "", fmt::format("cannot save the settings: {}", strerror(errno)));
  for (const auto& [path, value] : restore_) watchdog.write_file(path, value);
  watchdog.remove_file(lock_path_);
  try {
    set(root_, "tracing_on", "0");
    set(root_, "current_tracer", "nop");
    set(root_, "trace_clock", "mono");
    set(root_, "buffer_size_kb", std::to_string(buffer_kb));
    set(root_, "trace", "");
    for (const std::string& e : recorded_sched_events())
      set(root_, "events/sched/" + e + "/enable", "1");
  } catch (...) {
    perform(restore_);
    ::unlink(lock_path_.c_str());
    ::close(lock_fd_);
    throw;
  }
}

GlobalTracing::~GlobalTracing() {
  perform(restore_);
  ::unlink(lock_path_.c_str());  // while still holding it: the next one starts clean
  ::close(lock_fd_);
}

void GlobalTracing::tracing_on(bool on) {
  if (!write_setting(root_ + "/tracing_on", on ? "1" : "0") && on)
    throw InputError(root_ + "/tracing_on", "",
                     fmt::format("cannot write '1': {}", strerror(errno)));
}

}  // namespace schedlab
