#include "host/tracefs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "host/global_tracing.h"
#include "host/trace_instance.h"
#include "host/watchdog.h"
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

// "[local] global mono" -> "local".
std::string bracketed(const std::string& s) {
  const auto a = s.find('['), b = s.find(']');
  return a == std::string::npos || b == std::string::npos ? s : s.substr(a + 1, b - a - 1);
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
    ::close(fd_);  // before the instance is removed: an open trace_pipe keeps it busy
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
      // Every 50 ms, not 5: each wake-up of this thread can preempt the recorded workload
      // (a recorded hog counted 200 more switches a second), and 50 ms of events fit the
      // per-CPU buffer many times over (8 MB: over 100,000 events).
      std::this_thread::sleep_for(std::chrono::milliseconds(stop_ ? 5 : 50));
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
  std::vector<std::string> out = {"tracing_on=" + read_file(dir + "/tracing_on"),
                                  "current_tracer=" + read_file(dir + "/current_tracer"),
                                  "buffer_size_kb=" + read_file(dir + "/buffer_size_kb"),
                                  "trace_clock=" + bracketed(read_file(dir + "/trace_clock"))};
  for (const std::string& e : recorded_sched_events())
    out.push_back(e + "=" + read_file(dir + "/events/sched/" + e + "/enable"));
  return out;
}

struct TraceSession::Impl {
  std::unique_ptr<OutputFile> out;
  std::unique_ptr<Watchdog> watchdog;
  std::unique_ptr<TraceInstance> instance;  // or
  std::unique_ptr<GlobalTracing> global;
  std::string dir;
  std::unique_ptr<PipeReader> reader;
  std::vector<std::string> notes;
  size_t lines = 0;
  unsigned long long overruns = 0;
  bool stopped = false;

  void tracing_on(bool on) {
    if (instance) instance->tracing_on(on);
    if (global) global->tracing_on(on);
  }
};

TraceSession::TraceSession(const TraceSetup& setup, const std::string& out_path,
                           const OutputOptions& out)
    : impl_(std::make_unique<Impl>()) {
  if (geteuid() != 0)
    throw InputError("", "record", "recording the kernel's scheduler needs root (tracefs)");
  std::string why;
  const std::string root = find_tracefs(setup.tracefs_dir, true, &why);
  if (root.empty()) throw InputError("", "record", why);
  impl_->out = std::make_unique<OutputFile>(out_path, out);
  impl_->out->stream() << "# tracer: nop\n#\n# recorded by schedlab #P:"
                       << sysconf(_SC_NPROCESSORS_ONLN) << "\n";
  impl_->watchdog = std::make_unique<Watchdog>();
  if (!setup.global && instances_supported(root)) {
    impl_->notes = remove_stale_instances(root);
    impl_->instance = std::make_unique<TraceInstance>(root, setup.buffer_kb, *impl_->watchdog);
    impl_->dir = impl_->instance->dir();
  } else {
    impl_->global = std::make_unique<GlobalTracing>(root, setup.buffer_kb, *impl_->watchdog,
                                                    setup.lock_dir, impl_->notes);
    impl_->dir = root;
  }
  impl_->reader = std::make_unique<PipeReader>(impl_->dir, impl_->out->stream());
  impl_->tracing_on(true);
}

void TraceSession::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->tracing_on(false);
  impl_->reader->stop();
  impl_->lines = impl_->reader->lines();
  for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); ++cpu) {
    std::istringstream stats(read_file(fmt::format("{}/per_cpu/cpu{}/stats", impl_->dir, cpu)));
    std::string key;
    unsigned long long value = 0;
    while (stats >> key)
      if (key == "overrun:" && stats >> value) impl_->overruns += value;
  }
  impl_->out->close();
}

TraceSession::~TraceSession() {
  if (!impl_) return;
  if (impl_->reader) {
    impl_->tracing_on(false);
    impl_->reader->stop();
  }
  impl_->reader.reset();
  impl_->instance.reset();  // removed, or
  impl_->global.reset();    // the settings written back
  if (impl_->watchdog) impl_->watchdog->disarm();
}

size_t TraceSession::lines() const {
  return impl_->reader ? impl_->reader->lines() : impl_->lines;
}
unsigned long long TraceSession::overruns() const {
  return impl_->overruns;
}
const std::vector<std::string>& TraceSession::notes() const {
  return impl_->notes;
}
const std::string& TraceSession::trace_dir() const {
  return impl_->dir;
}
Watchdog& TraceSession::watchdog() {
  return *impl_->watchdog;
}

}  // namespace schedlab
