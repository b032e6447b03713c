// `schedlab extract TRACE`: the workload a recorded trace shows, as a scenario file that
// `run` replays under any scheduler (docs/replay.md).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "extract/extract.h"
#include "host/ftrace_parser.h"
#include "params/declared.h"
#include "util/error.h"
#include "util/output_file.h"

namespace schedlab {

namespace {

struct ExtractArgs {
  std::string trace_file, out, machine, end_mark, cpus;
  std::vector<std::string> comms, dl;
  std::vector<int64_t> pids;
  double from_s = -1, to_s = -1;
  bool exact = false, softirq = false;
  int tolerance = 10;
};

Time seconds_ns(double s) {
  return s < 0 ? -1 : static_cast<Time>(std::llround(s * 1e9));
}

int extract(const ExtractArgs& a, std::ostream& out, std::ostream& err) {
  ExtractOptions o;
  o.comm_patterns = a.comms;
  o.pids = a.pids;
  o.from_ns = seconds_ns(a.from_s);
  o.to_ns = seconds_ns(a.to_s);
  if (o.to_ns >= 0 && o.from_ns >= 0 && o.to_ns <= o.from_ns)
    throw InputError(a.trace_file, "--to", "the window ends before it starts");
  o.exact = a.exact;
  o.softirq_wakers = a.softirq;
  o.tolerance_percent = a.tolerance;
  for (const std::string& d : a.dl) o.dl.push_back(parse_dl_option(d));
  FtraceStats stats;
  ExtractedWorkload w = extract_trace_file(a.trace_file, o, &stats);
  if (!a.end_mark.empty()) {
    const auto eq = a.end_mark.find('=');
    char* end = nullptr;
    const long long count =
        eq == std::string::npos ? 0 : std::strtoll(a.end_mark.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || eq == 0 || end == nullptr || *end != '\0' || count <= 0)
      throw InputError("", "--end-mark " + a.end_mark, "expected NAME=COUNT, COUNT > 0");
    w.end_mark = a.end_mark.substr(0, eq);
    w.end_mark_count = count;
  }
  if (!a.cpus.empty()) {
    const params::Target at{a.trace_file, "--cpus " + a.cpus, "extract"};
    params::CpuList cpus;
    params::parse_text(at, a.cpus, {}, cpus);
    params::check_cpus_fit(at, cpus, w.cpus);  // the trace's machine
    if (cpus) {
      w.cpus_of_every_task = *cpus;
      w.notes.push_back(fmt::format(
          "affinity: every task is pinned to the CPUs {} as given (--cpus); a trace does not "
          "show affinity",
          a.cpus));
    }
  }
  const std::string text = scenario_json(w, a.trace_file, a.machine);
  if (a.out.empty() || a.out == "-") {
    out << text;
  } else {
    write_output(a.out, text);
  }
  size_t steps = 0, phases = 0;
  for (const XTask& t : w.tasks)
    for (const XPhase& p : t.phases) {
      ++phases;
      steps += p.steps.size();
    }
  err << fmt::format("schedlab: extracted {} tasks, {} wake-up edges, {} steps in {} phases{}\n",
                     w.tasks.size(), w.edges.size(), steps, phases,
                     a.out.empty() || a.out == "-" ? "" : " to " + a.out);
  for (const std::string& n : stats.notes) err << "schedlab: note: " << n << "\n";
  for (const std::string& n : w.notes) err << "schedlab: note: " << n << "\n";
  return 0;
}

}  // namespace

Command add_extract(CLI::App& parent) {
  auto a = std::make_shared<ExtractArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "extract", "the workload a recorded trace shows, as a scenario to replay (docs/replay.md)");
  cmd->add_option("trace_file", a->trace_file,
                  "tracefs text, trace-cmd report output, trace.dat or systrace HTML")
      ->required();
  cmd->add_option("--out", a->out, "scenario file to write (default: standard output)");
  cmd->add_option("--comm", a->comms,
                  "select threads whose name matches this shell pattern (repeatable); their "
                  "forked children follow");
  cmd->add_option("--pid", a->pids, "select the thread or thread group P (repeatable)");
  // Finite seconds from 0 (CLI::NonNegativeNumber would take "nan").
  const CLI::Validator from_zero(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 ||
            v > kMaxDurationSeconds)
          return fmt::format("'{}' is not a number of seconds in [0, {:g}]", text,
                             kMaxDurationSeconds);
        return {};
      },
      "SECONDS");
  cmd->add_option("--from", a->from_s, "start of the window, seconds from the trace's start")
      ->check(from_zero);
  cmd->add_option("--to", a->to_s, "end of the window, seconds from the trace's start")
      ->check(from_zero);
  cmd->add_flag("--exact", a->exact, "keep every burst (no loops)");
  cmd->add_option("--cpus", a->cpus,
                  "CPU list (0,1) every task is pinned to: a trace does not show affinity");
  cmd->add_option("--end-mark", a->end_mark,
                  "NAME=COUNT: the first task marks COUNT at its end (the program's own count, "
                  "as x264's frames: a sweep's marks.NAME.per_second)");
  cmd->add_option("--dl", a->dl,
                  "NAME_OR_PID=RUNTIME:DEADLINE:PERIOD (us): the SCHED_DEADLINE parameters of "
                  "a thread, which a trace does not show (repeatable; without it they are "
                  "inferred)");
  cmd->add_flag("--softirq-wakers", a->softirq,
                "a wake-up in soft-interrupt context is the interrupted task's (loopback "
                "networking; a timer softirq would give a false edge)");
  cmd->add_option("--tolerance", a->tolerance,
                  "percent within which repeated steps form a loop and wake-ups a timer "
                  "(default 10; at least 2 us)")
      ->transform(integer_in(0, 100));
  cmd->add_option("--machine", a->machine,
                  "machine file the scenario names (as written; default a flat machine of "
                  "the trace's CPU count)");
  return {cmd, [a](std::ostream& out, std::ostream& err) { return extract(*a, out, err); }};
}

}  // namespace schedlab
