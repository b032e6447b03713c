#include "report/rtapp_log.h"

#include <fmt/format.h>

#include <filesystem>

#include "events/kernel_ids.h"
#include "util/error.h"
#include "util/output_file.h"

namespace schedlab {

namespace {

int64_t us(Time ns) {
  return ns / kNsPerUs;
}

}  // namespace

std::string rtapp_log_text(const Metrics& m, const TaskMetrics& t, int index) {
  const Time origin = m.origin_ns > 0 ? m.origin_ns : kSimClockBaseNs;
  std::string out = fmt::format(
      "{} {:>8} {:>8} {:>8} {:>15} {:>15} {:>15} {:>10} {:>10} {:>10} {:>10}\n", "#idx", "perf",
      "run", "period", "start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat");
  for (const TimerActivation& a : t.activations)
    out += fmt::format("{:4} {:8} {:8} {:8} {:15} {:15} {:15} {:10} {:10} {:10} {:10}\n", index,
                       us(a.cpu_ns), us(a.run_ns), us(a.end_ns - a.start_ns),
                       us(origin + a.start_ns), us(origin + a.end_ns), us(a.start_ns),
                       us(a.slack_ns), a.c_duration_us, a.c_period_us, us(a.wakeup_latency_ns));
  return out;
}

std::vector<std::string> write_rtapp_logs(const Metrics& m, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, "", "cannot create the directory: " + ec.message());
  std::vector<std::string> files;
  int index = 0;
  for (const TaskMetrics& t : m.tasks) {
    const int idx = index++;
    if (t.activations.empty()) continue;
    std::string name = t.name;
    for (char& c : name)
      if (c == '/') c = '_';
    const std::string path =
        (std::filesystem::path(dir) / fmt::format("rt-app-{}-{}.log", name, idx)).string();
    // Checked, and not through a symlink: the folder is the user's, the names are ours.
    OutputOptions options;
    options.follow_symlink = false;
    write_output(path, rtapp_log_text(m, t, idx), options);
    files.push_back(path);
  }
  return files;
}

}  // namespace schedlab
