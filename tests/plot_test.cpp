// Plots and timelines: the gnuplot scripts schedlab writes (labels with units from the
// declarations, log2 axes, markers, error bars and the note of n, the published series),
// the timeline recorder, and the pictures gnuplot draws from them (skipped without it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/cli.h"
#include "experiment/metric_labels.h"
#include "experiment/sweep.h"
#include "report/gnuplot.h"
#include "report/line_plot.h"
#include "report/timeline.h"
#include "util/error.h"
#include "util/subprocess.h"

namespace schedlab {
namespace {

namespace fs = std::filesystem;

bool has_gnuplot() {
  static const bool found = run_program({"gnuplot", "--version"}, "").exit_status == 0;
  return found;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Three repeats at threads 1, 2, 4, 8 for two schedulers.
Aggregate sweep_of(const std::string& axis, const std::vector<std::string>& points) {
  std::string csv = "scenario,policy," + axis + ",repeat,seed,marks.frames.per_second\n";
  for (const char* policy : {"bfs", "cfs-2.6.31"})
    for (size_t i = 0; i < points.size(); ++i)
      for (int r = 0; r < 3; ++r)
        csv += "s," + std::string(policy) + "," + points[i] + "," + std::to_string(r) + ",1," +
               std::to_string(10 * (i + 1) + r) + "\n";
  return aggregate_results(parse_results_csv(csv, "t"), {axis}, "marks.frames.per_second");
}

std::vector<std::string> lines_starting(const std::string& script, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(script);
  for (std::string l; std::getline(in, l);)
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

TEST(LinePlot, LabelsComeFromTheDeclarationsWithUnits) {
  PlotOptions o;
  o.title = "E1 \"A\"";
  const std::string s = line_plot_script(sweep_of("threads", {"1", "2", "3"}), nullptr, o);
  EXPECT_EQ(lines_starting(s, "set title "), std::vector<std::string>{R"(set title "E1 \"A\"")"});
  EXPECT_EQ(lines_starting(s, "set xlabel "), std::vector<std::string>{"set xlabel \"Threads\""});
  EXPECT_EQ(lines_starting(s, "set ylabel "),
            std::vector<std::string>{"set ylabel \"Frames per second (fps)\""});
  o.x_label = "x264 threads";
  o.y_label = "fps";
  const std::string own = line_plot_script(sweep_of("threads", {"1", "2", "3"}), nullptr, o);
  EXPECT_EQ(lines_starting(own, "set xlabel "),
            std::vector<std::string>{"set xlabel \"x264 threads\""});
  EXPECT_EQ(lines_starting(own, "set ylabel "), std::vector<std::string>{"set ylabel \"fps\""});
}

TEST(LinePlot, PowersOfTwoGetALog2Axis) {
  EXPECT_TRUE(powers_of_two_axis({1, 2, 4, 8}));
  EXPECT_TRUE(powers_of_two_axis({1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_FALSE(powers_of_two_axis({1, 2, 3, 4}));
  EXPECT_FALSE(powers_of_two_axis({2, 4}));                  // too few
  EXPECT_FALSE(powers_of_two_axis({4, 8, 16}));              // spans only 4x
  EXPECT_TRUE(powers_of_two_axis({500, 1000, 2000, 4000}));  // doublings of any start
  EXPECT_TRUE(powers_of_two_axis({0.5, 1, 2, 4, 8}));
  EXPECT_FALSE(powers_of_two_axis({500, 1000, 1500, 4000}));
  EXPECT_FALSE(powers_of_two_axis({-1, 2, 4, 8}));
  PlotOptions o;
  const Aggregate clients =
      sweep_of("clients", {"1", "2", "4", "8", "16", "32", "64", "128", "256"});
  const std::string s = line_plot_script(clients, nullptr, o);
  EXPECT_EQ(lines_starting(s, "set logscale"), std::vector<std::string>{"set logscale x 2"});
  // The swept values are the ticks, so 1 2 4 8 do not print on top of each other.
  EXPECT_EQ(lines_starting(s, "set xtics ("),
            std::vector<std::string>{R"(set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, )"
                                     R"("64" 64, "128" 128, "256" 256))"});
  EXPECT_EQ(lines_starting(s, "set xrange"),
            std::vector<std::string>{"set xrange [0.8695652174:294.4]"});  // 1/1.15, 256*1.15
  o.log = "none";
  EXPECT_TRUE(lines_starting(line_plot_script(clients, nullptr, o), "set logscale").empty());
  o.log = "xy";
  EXPECT_EQ(lines_starting(line_plot_script(clients, nullptr, o), "set logscale"),
            (std::vector<std::string>{"set logscale x 2", "set logscale y 10"}));
  EXPECT_TRUE(lines_starting(line_plot_script(sweep_of("threads", {"1", "2", "3", "4"}), nullptr,
                                              PlotOptions{}),
                             "set logscale")
                  .empty());
}

TEST(LinePlot, EachSeriesHasItsMarkerErrorBarsWithCapsAndANoteOfN) {
  Published published;
  for (const char* p : {"1", "2", "4", "8"}) {
    published[{p, "bfs"}] = 11;
    published[{p, "cfs-2.6.31"}] = 9;
  }
  const std::string s =
      line_plot_script(sweep_of("threads", {"1", "2", "4", "8"}), &published, PlotOptions{});
  EXPECT_EQ(lines_starting(s, "set bars"), std::vector<std::string>{"set bars 2.5"});  // caps
  EXPECT_EQ(lines_starting(s, "set label 1 "),
            std::vector<std::string>{
                "set label 1 \"Points: median of n = 3 runs; bars: minimum to maximum. Dashed: "
                "published figures.\" at screen 0.01, screen 0.03 left font \",9\""});
  // Median, min, max of 10, 11, 12 (bfs at 1 thread).
  EXPECT_NE(s.find("$s0 << EOD\n1 11 10 12\n2 21 20 22\n4 31 30 32\n8 41 40 42\nEOD\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("$p0 << EOD\n1 11\n2 11\n4 11\n8 11\nEOD\n"), std::string::npos) << s;
  // Plotted: the schedulers filled, the published twins dashed in the same colour with an
  // open marker; four shapes, all different.
  const std::regex series(
      R"re(\$(\w+) using ([0-9:]+) with (\w+)( dt 2)? lw [0-9.]+ pt (\d+) lc rgb "(#\w+)" title "([^"]+)")re");
  std::vector<std::string> titles, colours;
  std::set<std::string> shapes;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), series); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    titles.push_back(m[7]);
    colours.push_back(m[6]);
    shapes.insert(m[5]);
    const bool published_series = m[7].str().find("(published)") != std::string::npos;
    EXPECT_EQ(m[4].matched, published_series) << m[0];
    EXPECT_EQ(m[3], published_series ? "linespoints" : "yerrorlines") << m[0];
    EXPECT_EQ(m[2], published_series ? "1:2" : "1:2:3:4") << m[0];
  }
  EXPECT_EQ(titles, (std::vector<std::string>{"bfs", "cfs-2.6.31", "bfs (published)",
                                              "cfs-2.6.31 (published)"}));
  EXPECT_EQ(colours[0], colours[2]);
  EXPECT_EQ(colours[1], colours[3]);
  EXPECT_NE(colours[0], colours[1]);
  EXPECT_EQ(shapes.size(), 4u);
}

TEST(LinePlot, OneRunEachHasNoBarsAndAZoomKeepsItsPoints) {
  const Aggregate one = aggregate_results(
      parse_results_csv("scenario,policy,threads,repeat,seed,m\ns,rr,1,0,1,5\ns,rr,2,0,1,6\n"
                        "s,rr,3,0,1,7\ns,rr,4,0,1,8\n",
                        "t"),
      {"threads"}, "m");
  PlotOptions o;
  const std::string s = line_plot_script(one, nullptr, o);
  EXPECT_NE(s.find("$s0 using 1:2 with linespoints"), std::string::npos) << s;
  EXPECT_NE(s.find("\"Points: one run each (no error bars).\""), std::string::npos);
  EXPECT_EQ(lines_starting(s, "set ylabel "), std::vector<std::string>{"set ylabel \"m\""});
  EXPECT_EQ(lines_starting(s, "set yrange"), std::vector<std::string>{"set yrange [0:*]"});
  o.x_range = std::make_pair(2.0, 3.0);
  const std::string zoom = line_plot_script(one, nullptr, o);
  EXPECT_NE(zoom.find("$s0 << EOD\n2 6 6 6\n3 7 7 7\nEOD"), std::string::npos) << zoom;
  EXPECT_TRUE(lines_starting(zoom, "set yrange").empty());  // a zoom fits the data
}

TEST(LinePlot, BadOptionsNameTheOption) {
  PlotOptions o;
  o.log = "z";
  EXPECT_THROW(check_plot_options(o), InputError);
  EXPECT_EQ(parse_plot_size("800x500"), std::make_pair(800, 500));
  for (const char* bad : {"800", "x500", "800x", "50x50", "800x500px", "99999x100"})
    EXPECT_THROW(parse_plot_size(bad), InputError) << bad;
  EXPECT_EQ(plot_format_of("a/b.pdf"), PlotFormat::kPdf);
  EXPECT_THROW(plot_format_of("b.jpg"), InputError);
}

// Every metric column of every shipped scenario declares its label (no raw key on an axis).
TEST(MetricLabels, EveryColumnOfTheShippedScenariosIsDeclared) {
  size_t columns = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios")) {
    if (!entry.is_regular_file()) continue;  // scenarios/validate: validate's suite
    SweepSpec spec;
    spec.scenario = entry.path().string();
    for (const std::string& c : metric_columns(spec)) {
      EXPECT_TRUE(declared_metric_label(c)) << entry.path().filename() << ": " << c;
      ++columns;
    }
  }
  EXPECT_GT(columns, 100u);
  EXPECT_EQ(metric_label("marks.transactions.interval_p95_ms").axis(),
            "95th percentile of the time between transactions (ms)");
  EXPECT_EQ(metric_label("marks.tbench_bytes.per_second").axis(), "Bytes per second (B/s)");
  EXPECT_EQ(metric_label("marks.tbench_bytes.mb_per_second").axis(), "Megabytes per second (MB/s)");
  EXPECT_FALSE(declared_metric_label("marks.frames.mb_per_second"));  // frames are no bytes
  EXPECT_EQ(metric_label("marks.konsole_ready.first_ms").axis(),
            "Time of the first of the konsole ready (ms)");
  EXPECT_EQ(metric_label("jain_fairness").axis(), "Jain's fairness index of CPU time");
  EXPECT_EQ(metric_label("nonsense").axis(), "nonsense");
  EXPECT_EQ(axis_label("x_nice"), "Nice level of the X server");
  EXPECT_EQ(axis_label("slice_ns"), "Slice ns");
}

// By hand: CPU 0 runs a from 0 to 3 ms, b from 3 to 8 ms, then idles; CPU 1 runs b from
// 9 ms to the end at 12 ms. The window is 2..10 ms.
TEST(Timeline, TheRecorderKeepsTheSlicesAndWakeupsInTheWindow) {
  TimelineRecorder r(2 * kNsPerMs, 10 * kNsPerMs);
  RunInfo info;
  info.cpus = 2;
  info.policy = "rr";
  r.begin(info);
  TaskInfo a, b;
  a.id = 0, a.name = "a", b.id = 1, b.name = "b";
  r.task_created(a);
  r.task_created(b);
  auto at = [](double ms) { return static_cast<Time>(ms * 1e6); };
  auto sw = [&](double ms, CpuId cpu, TaskId prev, TaskId next) {
    SchedEvent e;
    e.time = at(ms), e.type = EventType::kSwitch, e.cpu = cpu, e.task = prev, e.other = next;
    r.event(e);
  };
  auto wake = [&](double ms, CpuId cpu, TaskId task) {
    SchedEvent e;
    e.time = at(ms), e.type = EventType::kWakeup, e.cpu = cpu, e.task = task;
    r.event(e);
  };
  sw(0, 0, kNoTask, 0);
  wake(1, 0, 1);  // before the window
  sw(3, 0, 0, 1);
  sw(8, 0, 1, kNoTask);
  wake(9, 1, 1);
  sw(9, 1, kNoTask, 1);
  r.end(at(12));
  const Timeline& t = r.timeline();
  ASSERT_EQ(t.slices.size(), 3u);
  EXPECT_EQ(t.slices[0].task, 0);
  EXPECT_EQ(t.slices[0].start_ns, at(2));  // clipped to the window
  EXPECT_EQ(t.slices[0].end_ns, at(3));
  EXPECT_EQ(t.slices[1].start_ns, at(3));
  EXPECT_EQ(t.slices[1].end_ns, at(8));
  EXPECT_EQ(t.slices[2].cpu, 1);
  EXPECT_EQ(t.slices[2].end_ns, at(10));
  ASSERT_EQ(t.wakeups.size(), 1u);
  EXPECT_EQ(t.wakeups[0].time_ns, at(9));
  EXPECT_EQ(t.busy_ns, (std::vector<Time>{at(1), at(6)}));
  const std::string s = timeline_script(t, TimelineOptions{"two", 1000});
  // b ran longer, so it comes first in the legend and takes the first colour.
  EXPECT_NE(s.find("$slices << EOD\n2.5 0 2 3 -0.35 0.35 0xD55E00\n5.5 0 3 8 -0.35 0.35 "
                   "0x0072B2\n9.5 1 9 10 0.65 1.35 0x0072B2\nEOD\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("$wakeups << EOD\n9 0.53\nEOD\n"), std::string::npos) << s;
  EXPECT_NE(s.find("NaN with boxes lc rgb \"#0072B2\" title \"b\", \\\n     NaN with boxes lc rgb "
                   "\"#D55E00\" title \"a\""),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("set ytics (\"CPU 0\" 0, \"CPU 1\" 1) nomirror"), std::string::npos);
  EXPECT_NE(s.find("set yrange [1.5:-0.7]"), std::string::npos);  // CPU 0 on top
}

// More than 12 tasks: a colour per family ("w-3" is of "w"), the busiest first.
TEST(Timeline, ManyTasksShareAColourPerFamily) {
  Timeline t;
  t.cpus = 1;
  t.to_ns = 40;
  for (int i = 0; i < 14; ++i) {
    t.names.push_back(i < 13 ? "w-" + std::to_string(i) : "main");
    t.slices.push_back({0, i, i, i + 1});
    t.busy_ns.push_back(1);
  }
  const std::string s = timeline_script(t, TimelineOptions{});
  EXPECT_NE(s.find("title \"w\""), std::string::npos) << s;
  EXPECT_NE(s.find("title \"main\""), std::string::npos) << s;
  EXPECT_EQ(s.find("title \"other tasks\""), std::string::npos) << s;
  EXPECT_EQ(s.find("title \"w-3\""), std::string::npos) << s;
}

// gnuplot draws them: SVG with each series named, PNG and PDF by the file's extension.
TEST(Rendering, GnuplotDrawsSvgPngAndPdf) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  Published published{{{"1", "bfs"}, 12.0}, {{"2", "bfs"}, 22.0}};
  const std::string body =
      line_plot_script(sweep_of("threads", {"1", "2", "4"}), &published, PlotOptions{});
  const Rendered svg = render_gnuplot(gnuplot_script("t", PlotFormat::kSvg, 720, 440, body));
  ASSERT_TRUE(svg.ok) << svg.error;
  for (const char* title : {"bfs", "cfs-2.6.31", "bfs (published)"})
    EXPECT_NE(svg.picture.find(std::string("<text>") + title + "</text>"), std::string::npos)
        << title;  // the key's entries
  EXPECT_NE(svg.picture.find("Frames per second (fps)"), std::string::npos);
  const Rendered png = render_gnuplot(gnuplot_script("t", PlotFormat::kPng, 720, 440, body));
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.picture.substr(0, 4), "\x89PNG");
  const Rendered pdf = render_gnuplot(gnuplot_script("t", PlotFormat::kPdf, 720, 440, body));
  ASSERT_TRUE(pdf.ok) << pdf.error;
  EXPECT_EQ(pdf.picture.substr(0, 5), "%PDF-");
  const Rendered bad = render_gnuplot("plot $nothing using 1:2\n");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("gnuplot failed"), std::string::npos) << bad.error;
}

TEST(Rendering, SweepWritesThePlotByItsExtensionWithItsScript) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  const fs::path dir = fs::temp_directory_path() / "schedlab-test-plot-formats";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path scen = dir / "s.json";
  std::ofstream(scen) << R"({"machine": {"cpus": 2}, "global": {"duration": 1},
      "tasks": {"t": {"instance": 2, "loop": -1, "run": 1000, "sleep": 500, "mark": "done"}}})";
  std::ostringstream out, err;
  ASSERT_EQ(
      cli_main({"sweep", scen.string(), "--policy", "rr,eevdf", "--vary",
                "/tasks/t/run=500,1000,2000,4000", "--plot", (dir / "p.pdf").string(), "--title",
                "My title", "--size", "600x400", "--report", (dir / "r.html").string()},
               out, err),
      0)
      << err.str();
  EXPECT_EQ(read_file(dir / "p.pdf").substr(0, 5), "%PDF-");
  const std::string script = read_file(dir / "p.gp");
  EXPECT_NE(script.find("set terminal pdfcairo size 6in,4in"), std::string::npos) << script;
  EXPECT_NE(script.find("set title \"My title\""), std::string::npos);
  EXPECT_NE(script.find("set logscale x 2"), std::string::npos);  // 500 x 1, 2, 4, 8
  const std::string html = read_file(dir / "r.html");
  EXPECT_NE(html.find("data:image/svg+xml;base64,"), std::string::npos);
  EXPECT_NE(html.find("Timelines of single runs"), std::string::npos);
  std::ostringstream o2, e2;
  EXPECT_EQ(cli_main({"sweep", scen.string(), "--plot", (dir / "p.jpg").string()}, o2, e2), 2);
  EXPECT_NE(e2.str().find(".svg, .png or .pdf"), std::string::npos) << e2.str();
}

TEST(Rendering, WithoutGnuplotASweepPlotIsAnErrorNamingTheScript) {
  const fs::path dir = fs::temp_directory_path() / "schedlab-test-no-gnuplot";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path scen = dir / "s.json";
  std::ofstream(scen) << R"({"global": {"duration": 1}, "tasks": {"t": {"loop": 1, "run": 10}}})";
  setenv("SCHEDLAB_GNUPLOT", "/nonexistent/gnuplot", 1);
  std::ostringstream out, err;
  const int rc = cli_main(
      {"sweep", scen.string(), "--policy", "rr", "--plot", (dir / "p.svg").string()}, out, err);
  unsetenv("SCHEDLAB_GNUPLOT");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.str().find("p.svg: not drawn: cannot run /nonexistent/gnuplot"), std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("the script is " + (dir / "p.gp").string()), std::string::npos)
      << err.str();
  EXPECT_TRUE(fs::exists(dir / "p.gp"));
}

}  // namespace
}  // namespace schedlab
