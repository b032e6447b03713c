#include "host/trace_instance.h"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "host/tracefs.h"
#include "host/tracefs_shim.h"
#include "host/watchdog.h"
#include "util/error.h"

namespace schedlab {

namespace {

constexpr const char* kPrefix = "schedlab-";

// Whether PID runs schedlab (or its tests) now: alive, not a zombie, comm "schedlab...".
bool runs_schedlab(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= line.size())
    return false;
  const char state = line[close + 2];
  const std::string comm = line.substr(open + 1, close - open - 1);
  return state != 'Z' && state != 'X' && comm.rfind("schedlab", 0) == 0;
}

[[noreturn]] void refused(const std::string& what, const std::string& root) {
  throw InputError(root, "", fmt::format("{}: {}", what, strerror(errno)));
}

}  // namespace

bool instances_supported(const std::string& root) {
  struct stat st {};
  return ::stat((root + "/instances").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> remove_stale_instances(const std::string& root) {
  std::vector<std::string> notes;
  const std::string instances = root + "/instances";
  DIR* d = ::opendir(instances.c_str());
  if (!d) return notes;
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  for (const std::string& name : names) {
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string digits = name.substr(std::strlen(kPrefix));
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (ec != std::errc() || end != digits.data() + digits.size() || pid <= 0) continue;
    if (pid == getpid() || runs_schedlab(pid)) continue;
    const std::string dir = instances + "/" + name;
    if (::rmdir(dir.c_str()) == 0)
      notes.push_back(fmt::format(
          "removed the tracing instance {}, left by schedlab process {} that is gone", dir, pid));
    else
      notes.push_back(
          fmt::format("cannot remove the stale tracing instance {}: {}", dir, strerror(errno)));
  }
  return notes;
}

TraceInstance::TraceInstance(const std::string& root, int buffer_kb, Watchdog& watchdog)
    : name_(fmt::format("{}{}", kPrefix, getpid())) {
  if (schedlab_tracefs_set_dir(root.c_str()) != 0) refused("libtracefs: cannot use it", root);
  int is_new = 0;
  instance_ = schedlab_tracefs_create(name_.c_str(), &is_new);
  if (!instance_) refused("cannot create the tracing instance instances/" + name_, root);
  if (!is_new) {
    schedlab_tracefs_free(instance_);
    instance_ = nullptr;
    throw InputError(root, "",
                     fmt::format("the tracing instance instances/{} exists already (another "
                                 "recording in this process)",
                                 name_));
  }
  char dir[4096];
  dir_ = schedlab_tracefs_dir(instance_, dir, sizeof dir) == 0 ? std::string(dir)
                                                               : root + "/instances/" + name_;
  watchdog.remove_dir(dir_);
  auto check = [&](int rc, const std::string& what) {
    if (rc < 0) refused(fmt::format("instances/{}: cannot set {}", name_, what), root);
  };
  try {
    check(schedlab_tracefs_tracing(instance_, 0), "tracing_on 0");
    check(schedlab_tracefs_write(instance_, "current_tracer", "nop"), "current_tracer nop");
    check(schedlab_tracefs_write(instance_, "trace_clock", "mono"), "trace_clock mono");
    check(schedlab_tracefs_buffer_kb(instance_, static_cast<size_t>(buffer_kb)),
          fmt::format("buffer_size_kb {}", buffer_kb));
    for (const std::string& e : recorded_sched_events())
      check(schedlab_tracefs_enable(instance_, "sched", e.c_str()),
            "events/sched/" + e + "/enable 1");
  } catch (...) {
    schedlab_tracefs_destroy(instance_);
    instance_ = nullptr;
    throw;
  }
}

TraceInstance::~TraceInstance() {
  if (!instance_) return;
  schedlab_tracefs_tracing(instance_, 0);
  schedlab_tracefs_destroy(instance_);
}

void TraceInstance::tracing_on(bool on) {
  if (schedlab_tracefs_tracing(instance_, on ? 1 : 0) < 0 && on)
    refused(fmt::format("instances/{}: cannot set tracing_on 1", name_), dir_);
}

}  // namespace schedlab
