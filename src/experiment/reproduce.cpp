#include "experiment/reproduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "experiment/results.h"
#include "experiment/run_timeline.h"
#include "experiment/sweep.h"
#include "report/figures.h"
#include "report/html_report.h"
#include "report/line_plot.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/output_file.h"

namespace schedlab {

std::vector<ExperimentPart> experiment_parts(const std::string& which, bool quick,
                                             const std::string& experiments_dir) {
  const std::vector<std::string> names = experiment_names(experiments_dir);
  std::vector<ExperimentPart> parts;
  for (const std::string& name : names) {
    if (which != "all" && which != name) continue;
    for (ExperimentPart& p :
         read_experiment((std::filesystem::path(experiments_dir) / (name + ".json")).string()))
      if (!quick || p.in_quick) parts.push_back(std::move(p));
  }
  if (which != "all" && std::find(names.begin(), names.end(), which) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += n + ", ";
    throw InputError(experiments_dir, "reproduce " + which,
                     "unknown experiment (" + known + "all)");
  }
  return parts;
}

namespace {

SweepSpec spec_of(const ExperimentPart& part, const ReproduceOptions& o) {
  SweepSpec spec;
  spec.scenario = (std::filesystem::path(o.scenarios_dir) / part.scenario).string();
  for (const std::string& p : part.policies) spec.policies.push_back(parse_policy_spec(p));
  for (const std::string& a : part.axes) spec.axes.push_back(parse_axis(a));
  spec.sets = part.sets;
  if (o.quick) spec.sets.insert(spec.sets.end(), part.quick_sets.begin(), part.quick_sets.end());
  spec.repeat = o.quick ? part.quick_repeat : part.repeat;
  spec.jobs = o.jobs;
  return spec;
}

// One part's sweep while it runs: its CSV (streamed), and its rows in sweep order.
struct PartRun {
  SweepSpec spec;
  std::vector<std::string> metrics;
  std::string body;  // the header, then the rows in sweep order
  std::vector<std::pair<std::size_t, std::string>> lines;
  std::vector<uint64_t> seeds;
  std::unique_ptr<OutputFile> csv;
};

// The files written inside the output folder: named by schedlab, so a symlink planted
// there is not followed.
const OutputOptions kInFolder{false};

std::string in_folder(const ReproduceOptions& o, const std::string& file) {
  return (std::filesystem::path(o.out_dir) / file).string();
}

PartRun start_part(const ExperimentPart& part, const ReproduceOptions& o) {
  PartRun run;
  run.spec = spec_of(part, o);
  run.metrics = metric_columns(run.spec);
  run.csv = std::make_unique<OutputFile>(in_folder(o, part.id + ".csv"), kInFolder);
  run.body = csv_header(run.spec, run.metrics);
  run.csv->stream() << run.body;
  return run;
}

// The sweep command that runs the part alone.
std::string command_of(const ExperimentPart& part, const SweepSpec& spec) {
  std::string cmd = "schedlab sweep scenarios/" + part.scenario + " --policy ";
  for (std::size_t k = 0; k < part.policies.size(); ++k) cmd += (k ? "," : "") + part.policies[k];
  for (const std::string& a : part.axes) cmd += " --vary " + a;
  for (const auto& [k, v] : spec.sets) cmd += " --set " + k + "=" + v;
  return cmd + fmt::format(" --repeat {}", spec.repeat);
}

std::string seeds_text(std::vector<uint64_t> seeds) {
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  std::string text = "hash(scenario, point, repeat): ";
  for (std::size_t k = 0; k < seeds.size() && k < 24; ++k)
    text += (k ? ", " : "") + std::to_string(seeds[k]);
  if (seeds.size() > 24) text += fmt::format(", ... ({} in all)", seeds.size());
  return text;
}

ReportSection section_of(const ExperimentPart& part, const PartRun& run) {
  ReportSection section;
  section.title = part.title;
  section.description = part.description;
  section.command = command_of(part, run.spec);
  for (const PolicySpec& p : run.spec.policies)
    section.parameters += describe_parameters(p, run.spec.params) + "\n";
  section.scenario_text = read_input_file(run.spec.scenario);
  section.seeds = seeds_text(run.seeds);
  return section;
}

// The plot as DIR/stem.svg (with its gnuplot script DIR/stem.gp and any extra formats),
// and as a figure of the report.
void add_plot(const Aggregate& agg, const Published* pub, const PlotOptions& po,
              const std::string& stem, const ReproduceOptions& o, ReportSection& section) {
  const PictureSpec picture{line_plot_script(agg, pub, po), po.title, po.width, po.height};
  Figure f = figure_of(picture, o.out_dir, stem);
  f.title = po.title;
  f.caption = error_bar_note(agg, pub != nullptr);
  for (const std::string& ext : o.extra_formats)
    write_picture(picture, in_folder(o, stem + "." + ext), kInFolder);
  section.plots.push_back(std::move(f));
}

// One run per policy at the part's timeline point (else the last point), repeat 0.
void add_timelines(const ExperimentPart& part, const PartRun& run, const ReproduceOptions& o,
                   ReportSection& section) {
  if (!part.timeline) return;
  TimelineRequest request;
  if (!part.timeline_point.empty()) {
    if (run.spec.axes.size() != 1)
      throw InputError(part.id, "timeline.point", "only a part with one varied axis names a point");
    const auto& values = run.spec.axes.front().values;
    if (std::find(values.begin(), values.end(), part.timeline_point) == values.end())
      throw InputError(part.id, "timeline.point",
                       "'" + part.timeline_point + "' is not a value of the varied axis");
    request.point = {part.timeline_point};
  }
  request.from_ns = static_cast<Time>(part.timeline_window_ms.first * 1e6);
  request.to_ns = static_cast<Time>(part.timeline_window_ms.second * 1e6);
  request.title = part.title;
  section.timelines = sweep_timelines(run.spec, request, o.out_dir, part.id);
}

// Every metric's table (the published figures beside the first), and the first
// metric's plot (and zoom) when the part varies an axis.
void tables_and_plots(const ExperimentPart& part, const PartRun& run, const ReproduceOptions& o,
                      std::ostream& out, ReportSection& section) {
  const ResultTable table = parse_results_csv(run.body, part.id + ".csv");
  std::vector<std::string> axis_columns;
  for (const Axis& a : run.spec.axes) axis_columns.push_back(a.name());
  Published published;
  if (!part.published_csv.empty()) {
    const std::string pub_path = in_folder(o, part.id + "-published.csv");
    write_output(pub_path, part.published_csv, kInFolder);
    published = read_published(pub_path);
  }
  out << part.title << "\n";
  for (std::size_t m = 0; m < part.metrics.size(); ++m) {
    const Aggregate agg = aggregate_results(table, axis_columns, part.metrics[m]);
    const Published* pub = part.published_csv.empty() || m > 0 ? nullptr : &published;
    out << format_aggregate_table(agg, pub) << "\n";
    section.tables.emplace_back(part.metrics[m], aggregate_table_html(agg, pub));
    if (m > 0 || axis_columns.empty()) continue;
    PlotOptions po;
    po.title = part.title;
    po.x_label = part.x_label;
    po.y_label = part.y_label;
    po.log = part.log;
    add_plot(agg, pub, po, part.id, o, section);
    if (part.zoom) {
      po.x_range = part.zoom;
      po.title += fmt::format(" (zoom {:g}-{:g})", part.zoom->first, part.zoom->second);
      add_plot(agg, pub, po, part.id + "-zoom", o, section);
    }
  }
}

}  // namespace

std::string reproduce(const ReproduceOptions& o, std::ostream& out,
                      const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::string experiments_dir =
      o.experiments_dir.empty() ? default_experiments_dir(o.scenarios_dir) : o.experiments_dir;
  const std::vector<ExperimentPart> parts = experiment_parts(o.which, o.quick, experiments_dir);
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec || !std::filesystem::is_directory(o.out_dir))
    throw InputError(o.out_dir, "--out",
                     "cannot create the output folder: " +
                         (ec ? ec.message() : std::string("it exists and is not a folder")));
  std::vector<PartRun> runs;
  std::vector<SweepSpec> specs;  // every run of every part goes through one pool of workers
  for (const ExperimentPart& part : parts) {
    runs.push_back(start_part(part, o));
    specs.push_back(runs.back().spec);
  }
  out << fmt::format("running {} parts of {} ...\n", parts.size(), o.which);
  run_sweeps(
      specs,
      [&](std::size_t i, const RunRow& row) {
        const std::string line = csv_row(runs[i].spec, runs[i].metrics, row);
        runs[i].csv->stream() << line;
        runs[i].lines.emplace_back(row.index, line);
        runs[i].seeds.push_back(row.key.seed);
      },
      progress);
  std::vector<ReportSection> sections;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    PartRun& run = runs[i];
    run.csv->close();
    std::sort(run.lines.begin(), run.lines.end());
    for (const auto& [index, line] : run.lines) run.body += line;
    ReportSection section = section_of(parts[i], run);
    tables_and_plots(parts[i], run, o, out, section);
    add_timelines(parts[i], run, o, section);
    sections.push_back(std::move(section));
  }
  const std::string report = in_folder(o, "report.html");
  write_output(
      report,
      html_report(fmt::format("schedlab reproduce {}{}", o.which, o.quick ? " --quick" : ""),
                  SCHEDLAB_VERSION_STRING, sections),
      kInFolder);
  return report;
}

}  // namespace schedlab
