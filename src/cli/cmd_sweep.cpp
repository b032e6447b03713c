// `schedlab sweep`: a scenario over varied values, schedulers and repeats, tabulated as
// median [min-max], with optional CSV/JSON results, a plot (SVG, PNG or PDF, by gnuplot)
// and an HTML report with the plot and a timeline of one run per scheduler.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/options.h"
#include "experiment/results.h"
#include "experiment/run_timeline.h"
#include "experiment/sweep.h"
#include "report/figures.h"
#include "report/html_report.h"
#include "report/line_plot.h"
#include "util/error.h"
#include "util/input_file.h"

namespace schedlab {

namespace {

struct SweepArgs {
  std::string scenario, out, plot, report, metric, published, shard, zoom, timeline_window;
  PlotArgs plot_args;
  std::vector<std::string> policies, vary, params, sets, new_sets;
  int repeat = 1, jobs = 0;
};

// The whole of `text` as a finite number.
bool whole_number(const std::string& text, double& v) {
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
}

std::pair<double, double> parse_range(const std::string& text, const std::string& key) {
  const auto dots = text.find("..");
  double lo = 0, hi = 0;
  if (dots == std::string::npos || !whole_number(text.substr(0, dots), lo) ||
      !whole_number(text.substr(dots + 2), hi))
    throw InputError("", key + " " + text, "expected lo..hi");
  return {lo, hi};
}

// "K/N" with 1 <= K <= N, each the whole of its side.
std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  int k = 0, n = 0;
  auto whole = [](std::string_view s, int& v) {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
  };
  const std::string_view t = text;
  if (slash == std::string::npos || !whole(t.substr(0, slash), k) ||
      !whole(t.substr(slash + 1), n) || n < 1 || k < 1 || k > n)
    throw InputError("", "--shard " + text, "expected K/N with 1 <= K <= N");
  return {k, n};
}

SweepSpec spec_of(const SweepArgs& a) {
  SweepSpec spec;
  spec.scenario = a.scenario;
  for (const std::string& p : a.policies) spec.policies.push_back(parse_policy_spec(p));
  if (spec.policies.empty()) {
    ScenarioOverrides o;
    default_to_host_model(o);
    spec.policies.push_back(parse_policy_spec(load_scenario(a.scenario, o).policy));
  }
  for (const std::string& v : a.vary) spec.axes.push_back(parse_axis(v));
  for (const std::string& p : a.params) spec.params.push_back(split_assignment(p, "--param"));
  spec.sets = assignments(a.sets, "--set");
  spec.new_sets = assignments(a.new_sets, "--set-new");
  spec.repeat = a.repeat;
  spec.jobs = a.jobs;
  if (!a.shard.empty()) spec.shard = parse_shard(a.shard);
  return spec;
}

// --metric, else the first mark's rate, else the duration; an error if not a column.
std::string metric_of(const SweepArgs& a, const std::vector<std::string>& metrics) {
  std::string metric = a.metric;
  if (metric.empty()) {
    metric = "duration_s";
    for (const std::string& m : metrics)
      if (m.rfind("marks.", 0) == 0 && m.size() > 11 && m.substr(m.size() - 11) == ".per_second") {
        metric = m;
        break;
      }
  }
  if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) {
    std::string known;
    for (const std::string& m : metrics) known += (known.empty() ? "" : ", ") + m;
    throw InputError(a.scenario, "--metric " + metric, "unknown metric (known: " + known + ")");
  }
  return metric;
}

// Runs the sweep; returns the CSV body (header, then the rows in sweep order). The --out
// file is a CSV streamed as runs finish, or a JSON array written at the end.
std::string run_and_write(const SweepArgs& a, const SweepSpec& spec,
                          const std::vector<std::string>& metrics, std::ostream& err) {
  const bool json_out = a.out.size() > 5 && a.out.substr(a.out.size() - 5) == ".json";
  std::unique_ptr<OutputFile> file;
  if (!a.out.empty()) file = open_output(a.out);
  const std::string header = csv_header(spec, metrics);
  // Runs finish in any order; the table and the JSON list them in sweep order.
  std::vector<std::pair<std::size_t, std::string>> lines, json_rows;
  if (file && !json_out) file->stream() << header << std::flush;
  run_sweep(
      spec,
      [&](const RunRow& row) {
        const std::string line = csv_row(spec, metrics, row);
        lines.emplace_back(row.index, line);
        if (file && !json_out) file->stream() << line << std::flush;
        if (json_out) json_rows.emplace_back(row.index, json_row(spec, row));
      },
      progress_bar(err));
  std::sort(lines.begin(), lines.end());
  std::sort(json_rows.begin(), json_rows.end());
  if (json_out) {
    file->stream() << "[\n";
    for (std::size_t i = 0; i < json_rows.size(); ++i)
      file->stream() << "  " << json_rows[i].second << (i + 1 < json_rows.size() ? ",\n" : "\n");
    file->stream() << "]\n";
  }
  if (file) file->close();
  std::string body = header;
  for (const auto& [index, line] : lines) body += line;
  return body;
}

void write_report(const SweepArgs& a, const SweepSpec& spec, const std::string& metric,
                  const Aggregate& agg, const Published* published, const PlotOptions& po,
                  const PictureSpec& picture) {
  ReportSection s;
  s.title = po.title;
  s.description = "schedlab sweep of " + a.scenario;
  s.tables.emplace_back(metric, aggregate_table_html(agg, published));
  Figure plot = render_figure(picture);
  plot.title = po.title;
  plot.caption = error_bar_note(agg, published != nullptr);
  s.plots.push_back(std::move(plot));
  TimelineRequest request;
  std::tie(request.from_ns, request.to_ns) = timeline_window_of(a.timeline_window);
  request.title = po.title;
  s.timelines = sweep_timelines(spec, request, "", "");
  s.scenario_text = read_input_file(a.scenario);
  s.seeds = "hash(scenario, point, repeat)";
  for (const PolicySpec& p : spec.policies)
    s.parameters += describe_parameters(p, spec.params) + "\n";
  write_output(a.report, html_report("schedlab sweep " + po.title, SCHEDLAB_VERSION_STRING, {s}));
}

int sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  PlotOptions po = plot_options_of(a.plot_args, std::filesystem::path(a.scenario).stem().string());
  if (!a.zoom.empty()) po.x_range = parse_range(a.zoom, "--zoom");
  if (!a.plot.empty()) plot_format_of(a.plot);  // a bad extension is an error before the runs
  timeline_window_of(a.timeline_window);
  const SweepSpec spec = spec_of(a);
  const std::vector<std::string> metrics = metric_columns(spec);
  const std::string metric = metric_of(a, metrics);
  const std::string body = run_and_write(a, spec, metrics, err);
  const ResultTable table = parse_results_csv(body, a.out.empty() ? a.scenario : a.out);
  std::vector<std::string> axis_columns;
  for (const Axis& ax : spec.axes) axis_columns.push_back(ax.name());
  const Aggregate agg = aggregate_results(table, axis_columns, metric);
  Published published;
  if (!a.published.empty()) published = read_published(a.published);
  const Published* pub = a.published.empty() ? nullptr : &published;
  out << format_aggregate_table(agg, pub);
  const PictureSpec picture{line_plot_script(agg, pub, po), po.title, po.width, po.height};
  if (!a.plot.empty()) write_picture(picture, a.plot);
  if (!a.report.empty()) write_report(a, spec, metric, agg, pub, po, picture);
  return 0;
}

}  // namespace

Command add_sweep(CLI::App& parent) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* cmd =
      parent.add_subcommand("sweep", "run a scenario over varied values, schedulers and repeats");
  cmd->add_option("scenario", a->scenario, "scenario file")->required();
  cmd->add_option("--policy", a->policies,
                  "schedulers to compare, comma-separated; name:param=value adds parameters")
      ->delimiter(',');
  cmd->add_option("--vary", a->vary, "/pointer=lo..hi[:step] or /pointer=a,b,c (repeatable)");
  cmd->add_option("--param", a->params, "parameter for every scheduler name=value (repeatable)");
  add_set_options(*cmd, a->sets, a->new_sets);
  cmd->add_option("--repeat", a->repeat, "runs per point and scheduler (default 1)")
      ->transform(integer_in(1, 1000));
  cmd->add_option("--jobs", a->jobs, "parallel runs (default: every core)")
      ->transform(integer_in(1, 1024));
  cmd->add_option("--out", a->out, "results file: .csv (streamed) or .json");
  cmd->add_option("--plot", a->plot,
                  "write the plot: .svg, .png or .pdf (by gnuplot; its script beside as .gp)");
  add_plot_options(*cmd, a->plot_args);
  cmd->add_option("--report", a->report,
                  "write a self-contained HTML report (the table, the plot, a timeline of one run "
                  "per scheduler)");
  add_timeline_option(*cmd, a->timeline_window);
  cmd->add_option("--metric", a->metric,
                  "metric to tabulate and plot (default: the first mark's per_second)");
  cmd->add_option("--published", a->published, "CSV of published figures to show beside");
  cmd->add_option("--shard", a->shard, "run only share K of N (K/N, stable)");
  cmd->add_option("--zoom", a->zoom, "plot only lo..hi of the axis");
  return {cmd, [a](std::ostream& out, std::ostream& err) { return sweep(*a, out, err); }};
}

}  // namespace schedlab
