#include "host/tracefs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "util/error.h"

namespace schedlab {

namespace {

const char* const kDefaultTracefs = "/sys/kernel/tracing";
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  g_signal = sig;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  std::string v = s.str();
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

bool write_file(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::write(fd, value.data(), value.size());
  ::close(fd);
  return n == static_cast<ssize_t>(value.size());
}

// "7 (expanded: 1408)" -> "7"; "[local] global mono" -> "local".
std::string first_number(const std::string& s) {
  return s.substr(0, s.find(' '));
}
std::string bracketed(const std::string& s) {
  const auto a = s.find('['), b = s.find(']');
  return a == std::string::npos || b == std::string::npos ? s : s.substr(a + 1, b - a - 1);
}

// Every setting touched, saved on construction and written back on destruction.
class SavedSettings {
 public:
  explicit SavedSettings(std::string dir) : dir_(std::move(dir)) {
    save("tracing_on", read_file(dir_ + "/tracing_on"));
    save("current_tracer", read_file(dir_ + "/current_tracer"));
    save("buffer_size_kb", first_number(read_file(dir_ + "/buffer_size_kb")));
    save("trace_clock", bracketed(read_file(dir_ + "/trace_clock")));
    for (const std::string& e : recorded_sched_events()) {
      const std::string file = "events/sched/" + e + "/enable";
      save(file, read_file(dir_ + "/" + file));
    }
  }
  ~SavedSettings() {
    write_file(dir_ + "/tracing_on", "0");
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it)
      if (it->first != "tracing_on") write_file(dir_ + "/" + it->first, it->second);
    write_file(dir_ + "/tracing_on", tracing_on_);
  }
  SavedSettings(const SavedSettings&) = delete;
  SavedSettings& operator=(const SavedSettings&) = delete;

 private:
  void save(const std::string& name, const std::string& value) {
    if (name == "tracing_on")
      tracing_on_ = value;
    else
      saved_.emplace_back(name, value);
  }
  std::string dir_;
  std::string tracing_on_ = "1";
  std::vector<std::pair<std::string, std::string>> saved_;
};

void set(const std::string& dir, const std::string& name, const std::string& value) {
  if (!write_file(dir + "/" + name, value))
    throw InputError(dir + "/" + name, "",
                     fmt::format("cannot write '{}': {}", value, strerror(errno)));
}

// Copies trace_pipe to the output while the command runs, then drains it.
class PipeReader {
 public:
  PipeReader(const std::string& dir, std::ostream& out) : out_(out) {
    fd_ = ::open((dir + "/trace_pipe").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw InputError(dir + "/trace_pipe", "", strerror(errno));
    thread_ = std::thread([this] { loop(); });
  }
  ~PipeReader() { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  size_t lines() const { return lines_; }

 private:
  void loop() {
    char buf[1 << 16];
    int idle_after_stop = 0;
    for (;;) {
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n > 0) {
        out_.write(buf, n);
        for (ssize_t i = 0; i < n; ++i) lines_ += buf[i] == '\n';
        idle_after_stop = 0;
        continue;
      }
      if (stop_ && ++idle_after_stop > 2) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::ostream& out_;
  int fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  size_t lines_ = 0;
};

}  // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  const std::array<int, 3> signals{SIGINT, SIGTERM, SIGHUP};
  old_.resize(signals.size());
  for (size_t i = 0; i < signals.size(); ++i) sigaction(signals[i], &sa, &old_[i]);
}

StopSignals::~StopSignals() {
  const std::array<int, 3> signals{SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < signals.size(); ++i) sigaction(signals[i], &old_[i], nullptr);
}

int StopSignals::caught() {
  return g_signal;
}

const std::vector<std::string>& recorded_sched_events() {
  static const std::vector<std::string> events = {
      "sched_switch",       "sched_wakeup",       "sched_wakeup_new",  "sched_waking",
      "sched_migrate_task", "sched_process_fork", "sched_process_exit"};
  return events;
}

std::string find_tracefs(const std::string& dir, bool mount_if_needed, std::string* why) {
  const std::string d = dir.empty() ? kDefaultTracefs : dir;
  struct stat st {};
  if (::stat((d + "/tracing_on").c_str(), &st) == 0) return d;
  if (!dir.empty() || !mount_if_needed) {
    if (why) *why = fmt::format("{} is not a tracefs directory", d);
    return {};
  }
  if (::mount("nodev", d.c_str(), "tracefs", 0, nullptr) != 0) {
    if (why)
      *why = fmt::format("cannot mount tracefs at {}: {}{}", d, strerror(errno),
                         geteuid() != 0 ? " (recording needs root)" : "");
    return {};
  }
  return d;
}

std::vector<std::string> tracing_settings(const std::string& dir) {
  std::vector<std::string> out = {
      "tracing_on=" + read_file(dir + "/tracing_on"),
      "current_tracer=" + read_file(dir + "/current_tracer"),
      "buffer_size_kb=" + first_number(read_file(dir + "/buffer_size_kb")),
      "trace_clock=" + bracketed(read_file(dir + "/trace_clock"))};
  for (const std::string& e : recorded_sched_events())
    out.push_back(e + "=" + read_file(dir + "/events/sched/" + e + "/enable"));
  return out;
}

struct TraceSession::Impl {
  std::string dir;
  std::ofstream out;
  std::unique_ptr<SavedSettings> saved;
  std::unique_ptr<PipeReader> reader;
  unsigned long long overruns = 0;
  bool stopped = false;
};

TraceSession::TraceSession(const std::string& tracefs_dir, int buffer_kb,
                           const std::string& out_path)
    : impl_(std::make_unique<Impl>()) {
  if (geteuid() != 0)
    throw InputError("", "record", "recording the kernel's scheduler needs root (tracefs)");
  std::string why;
  impl_->dir = find_tracefs(tracefs_dir, true, &why);
  if (impl_->dir.empty()) throw InputError("", "record", why);
  impl_->out.open(out_path, std::ios::binary);
  if (!impl_->out) throw InputError(out_path, "", "cannot open for writing");
  impl_->out << "# tracer: nop\n#\n# recorded by schedlab #P:" << sysconf(_SC_NPROCESSORS_ONLN)
             << "\n";
  const std::string& dir = impl_->dir;
  impl_->saved = std::make_unique<SavedSettings>(dir);  // restored however we leave
  set(dir, "tracing_on", "0");
  set(dir, "current_tracer", "nop");
  set(dir, "trace_clock", "mono");
  set(dir, "buffer_size_kb", std::to_string(buffer_kb));
  set(dir, "trace", "");
  for (const std::string& e : recorded_sched_events())
    set(dir, "events/sched/" + e + "/enable", "1");
  impl_->reader = std::make_unique<PipeReader>(dir, impl_->out);
  set(dir, "tracing_on", "1");
}

void TraceSession::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  write_file(impl_->dir + "/tracing_on", "0");
  impl_->reader->stop();
  impl_->out.flush();
  for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); ++cpu) {
    std::istringstream stats(read_file(fmt::format("{}/per_cpu/cpu{}/stats", impl_->dir, cpu)));
    std::string key;
    unsigned long long value = 0;
    while (stats >> key)
      if (key == "overrun:" && stats >> value) impl_->overruns += value;
  }
}

TraceSession::~TraceSession() {
  if (!impl_) return;
  if (impl_->reader) stop();
  impl_->reader.reset();
  impl_->saved.reset();
}

size_t TraceSession::lines() const {
  return impl_->reader ? impl_->reader->lines() : 0;
}
unsigned long long TraceSession::overruns() const {
  return impl_->overruns;
}

RecordResult record_command(const RecordOptions& o) {
  if (o.command.empty())
    throw InputError("", "record", "no command given (schedlab record -- CMD)");
  RecordResult result;
  StopSignals signals;
  TraceSession session(o.tracefs_dir, o.buffer_kb, o.out);

  const pid_t child = fork();
  if (child < 0) throw InputError("", "record", fmt::format("fork: {}", strerror(errno)));
  if (child == 0) {
    setpgid(0, 0);
    std::vector<char*> argv;
    for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  setpgid(child, child);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool stopping = false;
  double stop_at = 0;
  auto stop_group = [&](int sig) { kill(-child, sig); };
  for (;;) {
    const pid_t r = waitpid(child, &status, WNOHANG);
    if (r == child) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!stopping && (g_signal != 0 || elapsed > o.timeout_s)) {
      result.interrupted = g_signal != 0;
      result.timed_out = !result.interrupted;
      stop_group(SIGTERM);
      stopping = true;
      stop_at = elapsed;
    } else if (stopping && elapsed > stop_at + 2) {
      stop_group(SIGKILL);  // it ignored SIGTERM
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop_group(SIGKILL);  // whatever the command left behind in its group
  session.stop();
  result.lines = session.lines();
  result.overruns = session.overruns();
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace schedlab
