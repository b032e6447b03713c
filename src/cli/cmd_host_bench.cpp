// `schedlab host bench`: the real program over counts and repeats, tabulated like a sweep.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "experiment/results.h"
#include "host/host_bench.h"
#include "host/host_machine.h"
#include "report/figures.h"
#include "report/line_plot.h"
#include "util/error.h"

namespace schedlab {

namespace {

struct HostBenchArgs {
  HostBenchOptions options;
  std::string counts = "1..8", out, plot;
  PlotArgs plot_args;
};

// "1..8", "1,2,4" or "4": each number the whole of its piece, 1..kMaxCount.
std::vector<int> parse_counts(const std::string& text) {
  constexpr int kMaxCount = 4096;
  auto whole = [](std::string_view s, int& v) {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size() && v >= 1 && v <= kMaxCount;
  };
  std::vector<int> counts;
  const std::string_view t = text;
  bool ok = true;
  if (const auto dots = t.find(".."); dots != std::string_view::npos) {
    int lo = 0, hi = 0;
    ok = whole(t.substr(0, dots), lo) && whole(t.substr(dots + 2), hi);
    for (int i = lo; ok && i <= hi; ++i) counts.push_back(i);
  } else {
    for (size_t start = 0; ok;) {
      const size_t comma = t.find(',', start);
      int v = 0;
      ok = whole(t.substr(start, comma == std::string_view::npos ? t.npos : comma - start), v);
      counts.push_back(v);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  if (!ok || counts.empty())
    throw InputError("", "--counts " + text,
                     fmt::format("expected lo..hi or a,b,c of integers in 1..{}", kMaxCount));
  return counts;
}

// Every run, with a progress line on stderr, as a results table.
ResultTable run_bench(const HostBenchOptions& o, const std::string& axis, const std::string& metric,
                      std::ostream& err) {
  const std::string label = fmt::format("{} {}{}", host_kernel_release(), o.policy,
                                        o.nice ? fmt::format(" nice {}", o.nice) : "");
  ResultTable table;
  table.columns = {"policy", axis, "repeat", metric};
  const size_t total = o.counts.size() * static_cast<size_t>(o.repeat);
  host_bench(o, [&](const BenchRun& r) {
    table.rows.push_back(
        {label, std::to_string(r.count), std::to_string(r.repeat), fmt::format("{:.6g}", r.value)});
    const bool tty = isatty(STDERR_FILENO);
    err << fmt::format("{}{} {}={} repeat {}: {:.4g} {}  ({}/{})", tty ? "\r" : "", o.program, axis,
                       r.count, r.repeat + 1, r.value, metric, table.rows.size(), total)
        << (!tty || table.rows.size() == total ? "\n" : "") << std::flush;
  });
  return table;
}

int host_bench_command(const HostBenchArgs& a, std::ostream& out, std::ostream& err) {
  HostBenchOptions o = a.options;
  o.counts = parse_counts(a.counts);
  const std::string axis = o.program == "x264"     ? "threads"
                           : o.program == "tbench" ? "clients"
                                                   : "groups";
  const std::string metric = bench_unit(o.program);
  const ResultTable table = run_bench(o, axis, metric, err);
  if (!a.out.empty()) write_output(a.out, results_csv(table));
  const Aggregate agg = aggregate_results(table, {axis}, metric);
  out << fmt::format("{} on this machine, {} (median [min-max] of {})\n", o.program, metric,
                     o.repeat)
      << format_aggregate_table(agg);
  if (!a.plot.empty()) {
    const PlotOptions po =
        plot_options_of(a.plot_args, fmt::format("{} on {}", o.program, host_kernel_release()));
    write_picture({line_plot_script(agg, nullptr, po), po.title, po.width, po.height}, a.plot);
  }
  return 0;
}

void add_program_options(CLI::App& cmd, HostBenchOptions& o) {
  cmd.add_option("--preset", o.preset, "x264 preset (default ultrafast)");
  cmd.add_option("--frames", o.frames, "x264 frames (default 100)")
      ->transform(integer_in(1, 100000));
  cmd.add_option("--width", o.width, "x264 clip width (default 704)")
      ->transform(integer_in(16, 8192));
  cmd.add_option("--height", o.height, "x264 clip height (default 576)")
      ->transform(integer_in(16, 8192));
  cmd.add_option("--seconds", o.seconds, "tbench run time (default 10)")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd.add_option("--loops", o.loops, "hackbench loops (default 100)")
      ->transform(integer_in(1, 1000000));
  cmd.add_flag("--processes", o.processes, "hackbench with processes");
  cmd.add_option("--file", o.file, "rt-app JSON file (rtapp)");
}

}  // namespace

Command add_host_bench(CLI::App& host) {
  auto a = std::make_shared<HostBenchArgs>();
  HostBenchOptions& o = a->options;
  CLI::App* cmd = host.add_subcommand(
      "bench", "run x264, tbench, hackbench or rt-app for real over counts and repeats");
  cmd->add_option("program", o.program, "x264, tbench, hackbench or rtapp")->required();
  cmd->add_option("--counts", a->counts,
                  "threads (x264), clients (tbench) or groups (hackbench): lo..hi or a,b,c");
  cmd->add_option("--repeat", o.repeat, "runs per count (default 3)")
      ->transform(integer_in(1, 100));
  cmd->add_option("--policy", o.policy,
                  "SCHED_OTHER (default), SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR");
  cmd->add_option("--priority", o.rt_priority, "for SCHED_FIFO/RR (default 10)")
      ->transform(integer_in(1, 99));
  cmd->add_option("--nice", o.nice, "nice value")->transform(integer_in(-20, 19));
  cmd->add_option("--cpus", o.cpus, "taskset CPU list");
  add_program_options(*cmd, o);
  cmd->add_option("--timeout", o.timeout_s, "seconds per run (default 600)")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd->add_option("--out", a->out, "results CSV");
  cmd->add_option("--plot", a->plot, "plot: .svg, .png or .pdf (by gnuplot)");
  add_plot_options(*cmd, a->plot_args);
  return {cmd,
          [a](std::ostream& out, std::ostream& err) { return host_bench_command(*a, out, err); }};
}

}  // namespace schedlab
