#include "cli/options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "host/host_machine.h"
#include "report/json_report.h"
#include "report/rtapp_log.h"
#include "report/table_report.h"
#include "util/error.h"

namespace schedlab {

void add_scenario_options(CLI::App& cmd, ScenarioArgs& a) {
  cmd.add_option("scenario", a.scenario, "scenario file (rt-app JSON with optional sections)")
      ->required();
  cmd.add_option("--policy", a.policy, "normal-class scheduler (see `schedlab policies`)");
  cmd.add_option("--param", a.params, "scheduler parameter name=value (repeatable)");
  add_set_options(cmd, a.sets, a.new_sets);
  cmd.add_option("--seed", a.seed, "random seed (default: the scenario's, else 1)")
      ->transform(integer_in(0, INT64_MAX));
  cmd.add_option("--cpus", a.cpus, "CPU count (a flat machine of that size)")
      ->transform(integer_in(1, kMaxCpus));
  cmd.add_option("--duration", a.duration_s, "simulated seconds (overrides global.duration)")
      ->check(seconds_in(kMaxDurationSeconds));
}

ScenarioOverrides overrides_of(const ScenarioArgs& a, const CLI::App& cmd) {
  ScenarioOverrides o;
  o.sets = assignments(a.sets, "--set");
  o.new_sets = assignments(a.new_sets, "--set-new");
  for (const std::string& p : a.params) o.params.push_back(split_assignment(p, "--param"));
  if (cmd.count("--policy")) o.policy = a.policy;
  if (cmd.count("--seed")) o.seed = a.seed;
  if (cmd.count("--cpus")) o.cpus = a.cpus;
  if (cmd.count("--duration")) o.duration_s = a.duration_s;
  default_to_host_model(o);
  return o;
}

void default_to_host_model(ScenarioOverrides& o) {
  const std::string release = host_kernel_release();
  o.default_policy = model_for_kernel(release);
  o.default_policy_reason = fmt::format(
      "the file names no scheduler: {} is the model of this host's kernel {}; --policy rr runs the "
      "engine's round robin",
      *o.default_policy, release);
}

Scenario load_host_scenario(const HostScenarioArgs& a) {
  ScenarioOverrides o;
  o.sets = assignments(a.sets, "--set");
  o.new_sets = assignments(a.new_sets, "--set-new");
  if (a.duration_s > 0) o.duration_s = a.duration_s;
  return load_scenario(a.scenario, o);
}

void add_host_scenario_options(CLI::App& cmd, HostScenarioArgs& a) {
  cmd.add_option("scenario", a.scenario, "scenario file")->required();
  add_set_options(cmd, a.sets, a.new_sets);
}

void add_set_options(CLI::App& cmd, std::vector<std::string>& sets,
                     std::vector<std::string>& new_sets) {
  cmd.add_option("--set", sets,
                 "override a scenario value: /json/pointer=value (repeatable); a pointer under "
                 "/tasks/ must name a task of the file");
  cmd.add_option("--set-new", new_sets,
                 "as --set, applied first, and may add a task: /tasks/NAME=... (repeatable)");
}

std::vector<std::pair<std::string, std::string>> assignments(const std::vector<std::string>& texts,
                                                             const std::string& option) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& t : texts) out.push_back(split_assignment(t, option));
  return out;
}

std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("", option + " " + text, "expected name=value");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::unique_ptr<OutputFile> open_output(const std::string& path) {
  return std::make_unique<OutputFile>(path);
}

void add_report_options(CLI::App& cmd, ReportArgs& a) {
  CLI::Option* json = cmd.add_flag("--json", a.json, "print metrics as JSON");
  cmd.add_flag("--latency", a.latency,
               "print the perf-sched-latency table (per task: runtime, switches, delays)")
      ->excludes(json);
  cmd.add_flag("--timehist", a.timehist,
               "print a perf-sched-timehist row per context switch as the run goes")
      ->excludes(json);
  cmd.add_option("--trace", a.trace, "write a Chrome/Perfetto trace JSON file");
  cmd.add_flag("--trace-from-zero", a.trace_from_zero,
               "start the --trace timeline at 0 instead of the trace's own clock");
  cmd.add_option("--events", a.events, "write the event stream as CSV");
  cmd.add_option("--ftrace", a.ftrace,
                 "write the kernel's ftrace text (sched events), for analyze and Perfetto");
  cmd.add_option("--trace-dat", a.trace_dat,
                 "write the sched events as trace-cmd's trace.dat, for trace-cmd report, "
                 "KernelShark and analyze");
  cmd.add_option("--rtapp-log", a.rtapp_log_dir,
                 "write rt-app's per-thread logs of timer tasks into this directory");
}

OptionalWriters::OptionalWriters(const ReportArgs& args, SinkList& sinks, std::ostream& out) {
  if (!args.trace.empty()) {
    trace_file_ = open_output(args.trace);
    trace_ = std::make_unique<PerfettoTraceWriter>(trace_file_->stream(), args.trace_from_zero);
    sinks.add(trace_.get());
  }
  if (!args.events.empty()) {
    events_file_ = open_output(args.events);
    events_ = std::make_unique<EventsCsvWriter>(events_file_->stream());
    sinks.add(events_.get());
  }
  if (!args.ftrace.empty()) {
    ftrace_file_ = open_output(args.ftrace);
    ftrace_ = std::make_unique<FtraceTextWriter>(ftrace_file_->stream());
    sinks.add(ftrace_.get());
  }
  if (!args.trace_dat.empty()) {
    trace_dat_file_ = open_output(args.trace_dat);
    trace_dat_ = std::make_unique<TraceDatWriter>(trace_dat_file_->stream());
    sinks.add(trace_dat_.get());
  }
  if (args.timehist) {
    timehist_ = std::make_unique<TimehistWriter>(out);
    sinks.add(timehist_.get());
  }
}

void print_reports(const ReportArgs& args, const Metrics& m, std::ostream& out, std::ostream& err,
                   const std::string& policy_note) {
  if (args.json)
    write_metrics_json(out, m, policy_note);
  else if (!args.latency && !args.timehist)
    out << metrics_table(m, policy_note);
  if (args.latency) out << sched_latency_table(m);
  if (!args.rtapp_log_dir.empty()) {
    const std::vector<std::string> files = write_rtapp_logs(m, args.rtapp_log_dir);
    err << fmt::format("schedlab: note: {} rt-app log(s) written to {}{}\n", files.size(),
                       args.rtapp_log_dir, files.empty() ? " (no task reached a timer)" : "");
  }
}

void OptionalWriters::close() {
  if (trace_file_) trace_file_->close();
  if (events_file_) events_file_->close();
  if (ftrace_file_) ftrace_file_->close();
  if (trace_dat_file_) trace_dat_file_->close();
}

CLI::Validator integer_in(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [p, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ec != std::errc() || p != end || v < lo || v > hi)
          return fmt::format("'{}' is not a decimal integer in {}..{}", text, lo, hi);
        text = std::to_string(v);
        return {};
      },
      fmt::format("INT in {}..{}", lo, hi));
}

CLI::Validator seconds_in(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v <= 0 ||
            v > max)
          return fmt::format("'{}' is not a number of seconds in (0, {:g}]", text, max);
        return {};
      },
      fmt::format("SECONDS in (0, {:g}]", max));
}

void add_max_threads_option(CLI::App& cmd, HostSessionOptions& o) {
  cmd.add_option("--max-tasks", o.max_threads,
                 fmt::format("threads alive at once before the run stops (default {})",
                             kDefaultMaxHostThreads))
      ->transform(integer_in(1, 1'000'000));
}

void add_plot_options(CLI::App& cmd, PlotArgs& a) {
  cmd.add_option("--title", a.title, "plot title");
  cmd.add_option("--xlabel", a.x_label, "x axis label (default: the axis's declared label)");
  cmd.add_option("--ylabel", a.y_label, "y axis label (default: the metric's label and unit)");
  cmd.add_option("--size", a.size, "plot size in pixels, WIDTHxHEIGHT (default 720x440)");
  cmd.add_option("--log", a.log,
                 "log axes: auto (log2 x for powers of two), x, y, xy or none (default auto)");
}

PlotOptions plot_options_of(const PlotArgs& a, const std::string& default_title) {
  PlotOptions o;
  o.title = a.title.empty() ? default_title : a.title;
  o.x_label = a.x_label;
  o.y_label = a.y_label;
  o.log = a.log;
  if (!a.size.empty()) std::tie(o.width, o.height) = parse_plot_size(a.size);
  check_plot_options(o);
  return o;
}

void add_timeline_option(CLI::App& cmd, std::string& window) {
  cmd.add_option("--timeline-window", window,
                 "the part of the run the report's timeline shows, lo..hi in ms (default 0..100)");
}

std::pair<Time, Time> timeline_window_of(const std::string& window) {
  if (window.empty()) return {0, 100 * kNsPerMs};
  const auto dots = window.find("..");
  double lo = -1, hi = -1;
  if (dots != std::string::npos) {
    try {
      size_t used = 0, used2 = 0;
      lo = std::stod(window.substr(0, dots), &used);
      hi = std::stod(window.substr(dots + 2), &used2);
      if (used != dots || used2 != window.size() - dots - 2) lo = -1;
    } catch (const std::exception&) {
      lo = -1;
    }
  }
  if (!(lo >= 0 && hi > lo && hi * 1e6 < static_cast<double>(kMaxDurationNs)))
    throw InputError("", "--timeline-window " + window, "expected lo..hi in ms, 0 <= lo < hi");
  return {static_cast<Time>(lo * 1e6), static_cast<Time>(hi * 1e6)};
}

std::function<void(std::size_t, std::size_t)> progress_bar(std::ostream& err) {
  if (!isatty(STDERR_FILENO)) return {};
  const auto start = std::chrono::steady_clock::now();
  return [&err, start](std::size_t done, std::size_t total) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta =
        done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
    const int width = 30;
    const auto filled = static_cast<int>(static_cast<double>(width) * static_cast<double>(done) /
                                         static_cast<double>(std::max<std::size_t>(1, total)));
    err << fmt::format("\r[{}{}] {}/{}  ETA {:.0f} s ", std::string(filled, '='),
                       std::string(width - filled, ' '), done, total, eta)
        << (done == total ? "\n" : "") << std::flush;
  };
}

}  // namespace schedlab
