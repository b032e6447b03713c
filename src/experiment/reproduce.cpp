#include "experiment/reproduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "experiment/results.h"
#include "experiment/sweep.h"
#include "report/html_report.h"
#include "report/svg_plot.h"
#include "util/error.h"

namespace schedlab {

namespace {

// EXPERIMENTS.md, E1 table A (fps, median of 3): the development target.
constexpr const char* kE1TableA =
    "threads,bfs,cfs-2.6.31\n1,124.79,131.69\n2,252.14,192.14\n3,376.55,223.24\n4,447.69,242.54\n"
    "5,447.98,252.43\n6,447.87,253.56\n7,444.79,250.37\n8,441.08,251.95\n";

ExperimentPart x264_part(const std::string& id, const std::string& title,
                         const std::string& scenario, std::vector<std::string> policies,
                         const std::string& threads) {
  ExperimentPart p;
  p.id = id;
  p.title = title;
  p.scenario = scenario;
  p.policies = std::move(policies);
  p.axes = {"/workload/threads=" + threads};
  p.metrics = {"marks.frames.per_second"};
  return p;
}

}  // namespace

std::vector<ExperimentPart> experiment_parts(const std::string& which, bool quick) {
  std::vector<ExperimentPart> parts;
  const bool all = which == "all";
  if (all || which == "E1") {
    const std::vector<std::string> pol = {"bfs", "cfs-2.6.31"};
    ExperimentPart a = x264_part("e1-x264-ultrafast", "E1 A: x264 ultrafast, threads 1-8",
                                 "e1-x264-ultrafast.json", pol, "1..8");
    a.description =
        "x264 --preset ultrafast --no-scenecut --sync-lookahead 0 --qp 20 on soccer_4cif, "
        "Q9300, BFS against CFS 2.6.31. The published table A is shown beside the simulated "
        "medians.";
    a.published_csv = kE1TableA;
    parts.push_back(a);
    {
      ExperimentPart b = x264_part("e1-x264-default", "E1 B: x264 -B 2000 (medium), threads 1-8",
                                   "e1-x264-default.json", pol, "1..8");
      b.description = "The default preset at 2000 kbit/s (published table B is held out).";
      parts.push_back(b);
      ExperimentPart c = x264_part("e1-x264-veryslow", "E1 C: x264 veryslow, threads 1-8",
                                   "e1-x264-veryslow.json", pol, "1..8");
      c.description = "The veryslow preset (published table C is held out).";
      parts.push_back(c);
    }
  }
  if (all || which == "E2") {
    ExperimentPart p;
    p.id = "e2-startdebit";
    p.title = "E2: START_DEBIT under competition (tbench 8 + x264 --threads 8)";
    p.description =
        "CFS of the -tip tree (modelled by cfs-2.6.32) with START_DEBIT on and off, and BFS. "
        "x264 creates a thread per frame; tbench does not. x264 fps and tbench bytes per "
        "second over the run.";
    p.scenario = "e2-startdebit.json";
    p.policies = {"cfs-2.6.32", "cfs-2.6.32:START_DEBIT=0", "bfs"};
    p.metrics = {"marks.frames.per_second", "marks.tbench_bytes.per_second"};
    p.repeat = 5;
    p.quick_sets = {{"/global/duration", "3"}};
    parts.push_back(p);
  }
  if (all || which == "E3") {
    const std::vector<std::string> pol = {"bfs", "cfs-2.6.32"};
    struct Clip {
      const char* id;
      const char* title;
      const char* scenario;
      std::vector<std::pair<std::string, std::string>> sets;
    };
    std::vector<Clip> clips = {
        {"e3-x264-ultrafast",
         "E3: x264 ultrafast under 2.6.32, threads 1-16",
         "e3-x264-ultrafast.json",
         {}},
        {"e3-x264-ultrafast-batch",
         "E3: x264 ultrafast as SCHED_BATCH",
         "e3-x264-ultrafast.json",
         {{"/workload/policy", "SCHED_BATCH"}}},
        {"e3-x264-720p-veryfast-zerolatency",
         "E3: 720p veryfast zerolatency (sliced threads)",
         "e3-x264-720p-veryfast-zerolatency.json",
         {}},
    };
    if (!quick) {
      clips.push_back(
          {"e3-x264-default", "E3: x264 -B 2000 under 2.6.32", "e3-x264-default.json", {}});
      clips.push_back({"e3-x264-default-batch",
                       "E3: x264 -B 2000 as SCHED_BATCH",
                       "e3-x264-default.json",
                       {{"/workload/policy", "SCHED_BATCH"}}});
      clips.push_back(
          {"e3-x264-veryslow", "E3: x264 veryslow under 2.6.32", "e3-x264-veryslow.json", {}});
      clips.push_back({"e3-x264-720p-veryfast-zerolatency-b3",
                       "E3: 720p veryfast zerolatency --bframes 3",
                       "e3-x264-720p-veryfast-zerolatency.json",
                       {{"/workload/bframes", "3"}}});
      clips.push_back({"e3-x264-720p-medium-zerolatency",
                       "E3: 720p medium zerolatency",
                       "e3-x264-720p-medium-zerolatency.json",
                       {}});
      clips.push_back({"e3-x264-720p-medium-zerolatency-b3",
                       "E3: 720p medium zerolatency --bframes 3",
                       "e3-x264-720p-medium-zerolatency.json",
                       {{"/workload/bframes", "3"}}});
    }
    for (const Clip& c : clips) {
      ExperimentPart p = x264_part(c.id, c.title, c.scenario, pol, "1..16");
      p.description =
          "Linux 2.6.32 against BFS on the Q9300, up to 4 threads per CPU; the zoom "
          "shows the plateau with min-max bars.";
      p.sets = c.sets;
      p.zoom = std::make_pair(4.0, 16.0);
      parts.push_back(p);
    }
  }
  if (all || which == "E4") {
    // BFS 0.304 against CFS of the -tip tree of October 2009 (cfs-2.6.32 is the nearest).
    const std::vector<std::string> pol = {"bfs-0.304", "cfs-2.6.32"};
    for (const char* db : {"pgsql", "mysql"}) {
      ExperimentPart p;
      p.id = fmt::format("e4-{}-oltp", db);
      p.title = fmt::format("E4: sysbench OLTP against {}, clients 1-256",
                            std::string(db) == "pgsql" ? "PostgreSQL" : "MySQL");
      p.description =
          std::string(db) == "pgsql"
              ? "Transactions per second, sysbench's 95th-percentile response time (ms) "
                "and lock-holder preemptions. PostgreSQL's s_lock spins, then sleeps 1 ms "
                "and more: a preempted lock holder stalls every waiter."
              : "Transactions per second and sysbench's 95th-percentile response time (ms). "
                "InnoDB's mutexes spin, sched_yield once, then block on an OS event.";
      p.scenario = fmt::format("e4-{}-oltp.json", db);
      p.policies = pol;
      p.axes = {"/workload/clients=1,2,4,8,16,32,64,128,256"};
      p.metrics = {"marks.transactions.per_second", "marks.transactions.interval_p95_ms",
                   "lock_holder_preemptions"};
      p.quick_sets = {{"/global/duration", "2"}};
      parts.push_back(p);
    }
    struct Single {
      const char* id;
      const char* title;
      const char* description;
      const char* metric;
    };
    for (const Single& one : {
             Single{"e4-tbench", "E4: tbench 8", "tbench 8 on the Q9300: bytes per second.",
                    "marks.tbench_bytes.per_second"},
             Single{"e4-vmark", "E4: vmark (many-to-many messaging)",
                    "The messaging load standing in for vmark: messages per second.",
                    "marks.messages.per_second"},
             Single{"e4-konsole-pert", "E4: konsole start-up beside pert and X on CPU 0",
                    "pert (a CPU hog), the X server and konsole pinned to CPU 0; konsole "
                    "starts at 100 ms, so its start-up time is first_ms - 100.",
                    "marks.konsole_ready.first_ms"},
         }) {
      ExperimentPart p;
      p.id = one.id;
      p.title = one.title;
      p.description = one.description;
      p.scenario = std::string(one.id) + ".json";
      p.policies = pol;
      p.metrics = {one.metric};
      p.quick_sets = {{"/global/duration", "2"}};
      parts.push_back(p);
    }
    ExperimentPart movie;
    movie.id = "e4-amarok-mplayer";
    movie.title = "E4: a 6-minute movie beside pert and amarok's scan, all on CPU 0";
    movie.description =
        "Wall time to play the movie (ideal 360,020 ms; more means the sound card ran dry) "
        "and when amarok finished loading its 12,000 songs. Simulated in full even with "
        "--quick (about 0.1 s a run).";
    movie.scenario = "e4-amarok-mplayer.json";
    movie.policies = pol;
    movie.metrics = {"marks.movie_done.first_ms", "marks.collection_loaded.first_ms"};
    parts.push_back(movie);
  }
  if (all || which == "E5") {
    for (const char* scroll : {"jump", "line"}) {
      ExperimentPart p;
      p.id = fmt::format("e5-glitch1-{}", scroll);
      p.title =
          fmt::format("E5: glxgears fps beside xterms scrolling in {} mode, X reniced", scroll);
      p.description =
          "glitch1 on the uniprocessor amd64 (HZ 300), glxgears through the in-kernel 3D "
          "driver (a CPU hog), SD 0.46 against CFS v5 (modelled by cfs-2.6.23).";
      p.scenario = "e5-glitch1.json";
      p.policies = {"sd", "cfs-2.6.23"};
      p.axes = {"/workload/x_nice=-19,-10,-5,0,10,19"};
      p.sets = {{"/workload/scroll", scroll}};
      p.metrics = {"marks.gears_frames.per_second"};
      p.quick_sets = {{"/global/duration", "3"}};
      parts.push_back(p);
    }
  }
  if (parts.empty())
    throw InputError("", "reproduce " + which, "unknown experiment (E1, E2, E3, E4, E5, all)");
  return parts;
}

std::string default_scenarios_dir() {
  if (const char* env = std::getenv("SCHEDLAB_SCENARIOS")) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const auto& candidate :
         {exe.parent_path() / ".." / "scenarios", exe.parent_path() / "scenarios"})
      if (std::filesystem::exists(candidate / "e1-x264-ultrafast.json"))
        return candidate.lexically_normal().string();
  }
  return "scenarios";
}

std::string reproduce(const ReproduceOptions& o, std::ostream& out,
                      const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<ExperimentPart> parts = experiment_parts(o.which, o.quick);
  std::filesystem::create_directories(o.out_dir);
  // Every run of every part goes through one pool of workers.
  std::vector<SweepSpec> specs;
  std::vector<std::vector<std::string>> metrics;
  std::vector<std::string> bodies;  // headers, then the rows in sweep order
  std::vector<std::vector<std::pair<std::size_t, std::string>>> lines(parts.size());
  std::vector<std::vector<uint64_t>> seeds(parts.size());
  std::vector<std::unique_ptr<std::ofstream>> csvs;
  for (const ExperimentPart& part : parts) {
    SweepSpec spec;
    spec.scenario = (std::filesystem::path(o.scenarios_dir) / part.scenario).string();
    for (const std::string& p : part.policies) spec.policies.push_back(parse_policy_spec(p));
    for (const std::string& a : part.axes) spec.axes.push_back(parse_axis(a));
    spec.sets = part.sets;
    if (o.quick) spec.sets.insert(spec.sets.end(), part.quick_sets.begin(), part.quick_sets.end());
    spec.repeat = o.quick ? part.quick_repeat : part.repeat;
    spec.jobs = o.jobs;
    metrics.push_back(metric_columns(spec));
    const std::string csv_path = (std::filesystem::path(o.out_dir) / (part.id + ".csv")).string();
    auto csv = std::make_unique<std::ofstream>(csv_path, std::ios::binary);
    if (!*csv) throw InputError(csv_path, "", "cannot open for writing");
    bodies.push_back(csv_header(spec, metrics.back()));
    *csv << bodies.back();
    csvs.push_back(std::move(csv));
    specs.push_back(std::move(spec));
  }
  out << fmt::format("running {} parts of {} ...\n", parts.size(), o.which);
  run_sweeps(
      specs,
      [&](std::size_t i, const RunRow& row) {
        const std::string line = csv_row(specs[i], metrics[i], row);
        *csvs[i] << line;
        lines[i].emplace_back(row.index, line);
        seeds[i].push_back(row.key.seed);
      },
      progress);
  std::vector<ReportSection> sections;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ExperimentPart& part = parts[i];
    const SweepSpec& spec = specs[i];
    csvs[i]->close();
    std::sort(lines[i].begin(), lines[i].end());
    for (const auto& [index, line] : lines[i]) bodies[i] += line;
    const ResultTable table = parse_results_csv(bodies[i], part.id + ".csv");
    std::vector<std::string> axis_columns;
    for (const Axis& a : spec.axes) axis_columns.push_back(a.name());
    ReportSection section;
    section.title = part.title;
    section.description = part.description;
    std::string cmd = "schedlab sweep scenarios/" + part.scenario + " --policy ";
    for (std::size_t k = 0; k < part.policies.size(); ++k) cmd += (k ? "," : "") + part.policies[k];
    for (const std::string& a : part.axes) cmd += " --vary " + a;
    for (const auto& [k, v] : spec.sets) cmd += " --set " + k + "=" + v;
    cmd += fmt::format(" --repeat {}", spec.repeat);
    section.command = cmd;
    for (const PolicySpec& p : spec.policies)
      section.parameters += describe_parameters(p, spec.params) + "\n";
    std::ifstream scen(spec.scenario);
    std::ostringstream scen_text;
    scen_text << scen.rdbuf();
    section.scenario_text = scen_text.str();
    std::vector<uint64_t>& sd = seeds[i];
    std::sort(sd.begin(), sd.end());
    sd.erase(std::unique(sd.begin(), sd.end()), sd.end());
    section.seeds = "hash(scenario, point, repeat): ";
    for (std::size_t k = 0; k < sd.size() && k < 24; ++k)
      section.seeds += (k ? ", " : "") + std::to_string(sd[k]);
    if (sd.size() > 24) section.seeds += fmt::format(", ... ({} in all)", sd.size());
    Published published;
    if (!part.published_csv.empty()) {
      const std::string pub_path =
          (std::filesystem::path(o.out_dir) / (part.id + "-published.csv")).string();
      std::ofstream(pub_path, std::ios::binary) << part.published_csv;
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
      const std::string file = part.id + ".svg";
      const std::string svg = svg_plot(agg, po);
      std::ofstream((std::filesystem::path(o.out_dir) / file).string(), std::ios::binary) << svg;
      section.plots.emplace_back(file, svg);
      if (part.zoom) {
        po.x_range = part.zoom;
        po.title += fmt::format(" (zoom {:g}-{:g})", part.zoom->first, part.zoom->second);
        const std::string zfile = part.id + "-zoom.svg";
        const std::string zsvg = svg_plot(agg, po);
        std::ofstream((std::filesystem::path(o.out_dir) / zfile).string(), std::ios::binary)
            << zsvg;
        section.plots.emplace_back(zfile, zsvg);
      }
    }
    sections.push_back(std::move(section));
  }
  const std::string report = (std::filesystem::path(o.out_dir) / "report.html").string();
  std::ofstream(report, std::ios::binary)
      << html_report(fmt::format("schedlab reproduce {}{}", o.which, o.quick ? " --quick" : ""),
                     SCHEDLAB_VERSION_STRING, sections);
  return report;
}

}  // namespace schedlab
