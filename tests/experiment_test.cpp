// Sweeps, aggregation, plots, reports, shards and `schedlab reproduce`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "experiment/reproduce.h"
#include "experiment/results.h"
#include "experiment/sweep.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("schedlab-test-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int cli(const std::vector<std::string>& args, std::string* out_text = nullptr,
        std::string* err_text = nullptr) {
  std::ostringstream out, err;
  const int rc = cli_main(args, out, err);
  if (out_text) *out_text = out.str();
  if (err_text) *err_text = err.str();
  return rc;
}

// A small x264 scenario: fast to run, with a frames mark.
fs::path small_scenario(const fs::path& dir) {
  const fs::path p = dir / "small.json";
  std::ofstream(p) << R"({"machine": {"cpus": 2, "hz": 1000}, "global": {"duration": 20},
      "workload": {"generator": "x264", "preset": "ultrafast", "frames": 24, "width": 128,
                   "height": 96, "threads": 2, "sync_lookahead": 0}})";
  return p;
}

TEST(Sweep, RangesAndListsExpand) {
  EXPECT_EQ(parse_axis("/workload/threads=1..4").values,
            (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(parse_axis("/workload/threads=1..16:5").values,
            (std::vector<std::string>{"1", "6", "11", "16"}));
  EXPECT_EQ(parse_axis("/workload/preset=ultrafast,medium").values,
            (std::vector<std::string>{"ultrafast", "medium"}));
  EXPECT_EQ(parse_axis("/workload/threads=3").values, (std::vector<std::string>{"3"}));
  EXPECT_EQ(parse_axis("/workload/threads=1..2").name(), "threads");
  EXPECT_THROW(parse_axis("/workload/threads=5..1"), InputError);  // empty range
  EXPECT_THROW(parse_axis("/workload/threads="), InputError);
  EXPECT_THROW(parse_axis("/workload/threads=1..4:0"), InputError);
  EXPECT_THROW(parse_axis("threads=1..4"), InputError);
  // not a range: what precedes ".." is no integer (a machine file's path)
  EXPECT_EQ(parse_axis("/machine=../m/a.json,../m/b.json").values,
            (std::vector<std::string>{"../m/a.json", "../m/b.json"}));
  const PolicySpec p = parse_policy_spec("cfs-2.6.32:START_DEBIT=0:sched_latency_ns=4000000");
  EXPECT_EQ(p.policy, "cfs-2.6.32");
  EXPECT_EQ(p.params.size(), 2u);
  EXPECT_EQ(p.params[0], (std::pair<std::string, std::string>{"START_DEBIT", "0"}));
}

TEST(Sweep, SeedsDependOnScenarioPointAndRepeatOnly) {
  const uint64_t a = derive_seed("e1", {"4"}, 0);
  EXPECT_EQ(a, derive_seed("e1", {"4"}, 0));
  EXPECT_NE(a, derive_seed("e1", {"4"}, 1));
  EXPECT_NE(a, derive_seed("e1", {"5"}, 0));
  EXPECT_NE(a, derive_seed("e2", {"4"}, 0));
  EXPECT_NE(derive_seed("e1", {"1", "23"}, 0), derive_seed("e1", {"12", "3"}, 0));
  SweepSpec spec;
  spec.policies = {parse_policy_spec("bfs"), parse_policy_spec("rr")};
  spec.axes = {parse_axis("/x=1..3")};
  spec.repeat = 2;
  const std::vector<RunKey> keys = expand(spec, "s");
  ASSERT_EQ(keys.size(), 12u);
  EXPECT_EQ(keys[0].seed, keys[2].seed);  // the two policies of a point share its seeds
}

TEST(Results, MedianMinMaxOnKnownNumbers) {
  const Stats odd = stats_of({5, 1, 3});
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 5);
  const Stats even = stats_of({4, 1, 3, 10});
  EXPECT_EQ(even.median, 3.5);
  EXPECT_EQ(even.n, 4);
  const ResultTable t = parse_results_csv(
      "scenario,policy,threads,repeat,seed,fps\ns,a,1,0,9,10\ns,a,1,1,9,30\ns,a,1,2,9,20\ns,b,1,0,"
      "9,7\n",
      "t");
  const Aggregate agg = aggregate_results(t, {"threads"}, "fps");
  ASSERT_NE(agg.cell("1", "a"), nullptr);
  EXPECT_EQ(agg.cell("1", "a")->median, 20);
  EXPECT_EQ(agg.cell("1", "b")->median, 7);
  EXPECT_THROW(aggregate_results(t, {"threads"}, "nope"), InputError);
}

TEST(Sweep, RowsDoNotDependOnJobsAndHaveTheSchema) {
  const fs::path dir = temp_dir("jobs");
  const fs::path scen = small_scenario(dir);
  auto sweep = [&](const std::string& jobs, const fs::path& out) {
    EXPECT_EQ(
        cli({"sweep", scen.string(), "--policy", "rr,cfs-2.6.32", "--vary",
             "/workload/threads=1..3", "--repeat", "2", "--jobs", jobs, "--out", out.string()}),
        0);
    return read_results_csv(out.string());
  };
  const ResultTable one = sweep("1", dir / "one.csv"), two = sweep("2", dir / "two.csv");
  EXPECT_EQ(one.columns, two.columns);
  EXPECT_EQ(
      (std::vector<std::string>(one.columns.begin(), one.columns.begin() + 6)),
      (std::vector<std::string>{"scenario", "policy", "threads", "repeat", "seed", "duration_s"}));
  EXPECT_EQ(one.columns.back(), "wall_seconds");
  EXPECT_NE(one.column("marks.frames.per_second"), -1);
  ASSERT_EQ(one.rows.size(), 12u);
  // Same rows whatever the order they finished in, wall-clock columns aside.
  const ResultTable a = merge_results({{"one", one}}), b = merge_results({{"two", two}});
  ASSERT_EQ(a.rows.size(), b.rows.size());
  const int wall = a.column("wall_seconds");
  for (std::size_t i = 0; i < a.rows.size(); ++i)
    for (std::size_t c = 0; c < a.columns.size(); ++c)
      if (static_cast<int>(c) != wall) {
        EXPECT_EQ(a.rows[i][c], b.rows[i][c]) << a.columns[c];
      }
  // JSON output: one object per run with the same fields.
  ASSERT_EQ(cli({"sweep", scen.string(), "--policy", "rr", "--vary", "/workload/threads=1..2",
                 "--out", (dir / "r.json").string()}),
            0);
  const std::string json = read_file(dir / "r.json");
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), 2);
  EXPECT_NE(json.find(R"("threads": "2")"), std::string::npos);
  EXPECT_NE(json.find(R"("marks.frames.per_second": )"), std::string::npos);
}

TEST(Sweep, ShardsJoinToTheUnshardedRun) {
  const fs::path dir = temp_dir("shards");
  const fs::path scen = small_scenario(dir);
  const std::vector<std::string> base = {
      "sweep", scen.string(), "--policy", "rr,bfs", "--vary", "/workload/threads=1..3", "--repeat",
      "2"};
  auto run = [&](std::vector<std::string> extra, const fs::path& out) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--out");
    args.push_back(out.string());
    EXPECT_EQ(cli(args), 0);
  };
  run({}, dir / "all.csv");
  run({"--shard", "1/3"}, dir / "s1.csv");
  run({"--shard", "2/3"}, dir / "s2.csv");
  run({"--shard", "3/3"}, dir / "s3.csv");
  EXPECT_EQ(read_results_csv((dir / "s2.csv").string()).rows.size(), 4u);
  ASSERT_EQ(cli({"merge", (dir / "s1.csv").string(), (dir / "s2.csv").string(),
                 (dir / "s3.csv").string(), "--out", (dir / "merged.csv").string()}),
            0);
  const ResultTable merged = read_results_csv((dir / "merged.csv").string());
  const ResultTable all = merge_results({{"all", read_results_csv((dir / "all.csv").string())}});
  ASSERT_EQ(merged.rows.size(), all.rows.size());
  const int wall = all.column("wall_seconds");
  for (std::size_t i = 0; i < all.rows.size(); ++i)
    for (std::size_t c = 0; c < all.columns.size(); ++c)
      if (static_cast<int>(c) != wall) {
        EXPECT_EQ(merged.rows[i][c], all.rows[i][c]);
      }
}

TEST(Reproduce, WritesTablesPlotsAndAReportThatReferencesEveryPlot) {
  const fs::path dir = temp_dir("reproduce");
  std::string out;
  ASSERT_EQ(cli({"reproduce", "E1", "--quick", "--out", dir.string(), "--scenarios",
                 (fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios").string()},
                &out),
            0);
  EXPECT_NE(out.find("published"), std::string::npos);  // table A beside the medians
  const std::string html = read_file(dir / "report.html");
  int plots = 0, timelines = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".svg") continue;
    const std::string name = entry.path().filename().string();
    ++(name.find("-timeline-") != std::string::npos ? timelines : plots);
    EXPECT_NE(html.find(name), std::string::npos) << entry.path();
    EXPECT_TRUE(fs::exists(fs::path(entry.path()).replace_extension(".gp"))) << entry.path();
  }
  EXPECT_EQ(plots, 3);      // E1 A, B, C
  EXPECT_EQ(timelines, 6);  // a run of each of the two schedulers, per part
  // Embedded, so the page opens offline; no external resource.
  EXPECT_NE(html.find("<img src=\"data:image/svg+xml;base64,"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "e1-x264-ultrafast.csv"));
  // The parameters in effect, defaults included, and the version.
  EXPECT_NE(html.find("cfs-2.6.31: NEW_FAIR_SLEEPERS=1"), std::string::npos);
  EXPECT_NE(html.find("sched_latency_ns=20000000"), std::string::npos);
  EXPECT_NE(html.find("bfs-0.232: rr_interval=6"), std::string::npos);
}

// The terminal table lists points and schedulers in sweep order, however the runs finish.
TEST(Sweep, TheTableDoesNotDependOnJobs) {
  const fs::path dir = temp_dir("table-order");
  const fs::path scen = small_scenario(dir);
  std::vector<std::string> tables;
  for (const char* jobs : {"1", "2", "2", "2"}) {
    std::string out;
    ASSERT_EQ(cli({"sweep", scen.string(), "--policy", "cfs-2.6.32,rr,bfs", "--vary",
                   "/workload/threads=1..4", "--jobs", jobs},
                  &out),
              0);
    tables.push_back(out);
  }
  for (const std::string& t : tables) EXPECT_EQ(t, tables.front());
  EXPECT_LT(tables.front().find("cfs-2.6.32"), tables.front().find("bfs"));
}

// E4: OLTP tps and lock-holder preemptions against clients, tbench, vmark, and konsole's
// start-up (the time of its first konsole_ready mark); E5: glxgears fps against X's nice,
// SD beside CFS v5, in both scroll modes.
TEST(Reproduce, E4AndE5RunTheirScenariosWithTheirSchedulers) {
  const std::string scenarios = (fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios").string();
  const std::string experiments = (fs::path(SCHEDLAB_SOURCE_DIR) / "experiments").string();
  const std::vector<ExperimentPart> e4 = experiment_parts("E4", true, experiments);
  ASSERT_EQ(e4.size(), 6u);
  EXPECT_EQ(e4[0].scenario, "e4-pgsql-oltp.json");
  EXPECT_EQ(e4[0].axes, std::vector<std::string>{"/workload/clients=1,2,4,8,16,32,64,128,256"});
  EXPECT_EQ(e4[0].policies, (std::vector<std::string>{"bfs-0.304", "cfs-tip-2009-10"}));
  EXPECT_EQ(e4[4].metrics, std::vector<std::string>{"marks.konsole_ready.first_ms"});
  EXPECT_EQ(e4[5].scenario, "e4-amarok-mplayer.json");
  const std::vector<ExperimentPart> e5 = experiment_parts("E5", true, experiments);
  ASSERT_EQ(e5.size(), 2u);
  EXPECT_EQ(e5[0].policies, (std::vector<std::string>{"sd", "cfs-2.6.23"}));

  const fs::path dir = temp_dir("reproduce-e5");
  std::string out;
  ASSERT_EQ(
      cli({"reproduce", "E5", "--quick", "--out", dir.string(), "--scenarios", scenarios}, &out),
      0);
  EXPECT_NE(out.find("x_nice"), std::string::npos) << out;
  const ResultTable line = read_results_csv((dir / "e5-glitch1-line.csv").string());
  ASSERT_EQ(line.rows.size(), 12u);  // 6 nice levels x 2 schedulers
  const Aggregate agg = aggregate_results(line, {"x_nice"}, "marks.gears_frames.per_second");
  ASSERT_NE(agg.cell("-19", "sd"), nullptr);
  EXPECT_GT(agg.cell("-19", "sd")->median, 0);
  EXPECT_GT(agg.cell("19", "cfs-2.6.23")->median, 0);

  const fs::path konsole_dir = temp_dir("konsole-first");
  ASSERT_EQ(
      cli({"sweep", (fs::path(scenarios) / "e4-konsole-pert.json").string(), "--policy",
           "cfs-2.6.32", "--set", "/global/duration=2", "--out", (konsole_dir / "k.csv").string()}),
      0);
  const ResultTable k = read_results_csv((konsole_dir / "k.csv").string());
  ASSERT_EQ(k.rows.size(), 1u);
  const int first = k.column("marks.konsole_ready.first_ms");
  ASSERT_NE(first, -1);
  EXPECT_GT(std::stod(k.rows[0][static_cast<size_t>(first)]), 100.0);  // started at 100 ms
  const int p95 = k.column("marks.konsole_ready.interval_p95_ms");
  ASSERT_NE(p95, -1);
  EXPECT_EQ(k.rows[0][static_cast<size_t>(p95)], "");  // one mark: no interval
  const ResultTable pg = read_results_csv((dir / "e5-glitch1-line.csv").string());
  const int frame_p95 = pg.column("marks.gears_frames.interval_p95_ms");
  ASSERT_NE(frame_p95, -1);
  // No frame comes sooner than its 0.667 ms of CPU after the last (a run of fewer than two
  // frames has no interval: an empty cell).
  int intervals = 0;
  for (const auto& row : pg.rows)
    if (const std::string& cell = row[static_cast<size_t>(frame_p95)]; !cell.empty()) {
      ++intervals;
      EXPECT_GT(std::stod(cell), 0.66);
    }
  EXPECT_GT(intervals, 6);
}

TEST(Sweep, BadInputIsRejectedWithExitTwo) {
  const fs::path dir = temp_dir("bad");
  const fs::path scen = small_scenario(dir);
  std::string err;
  EXPECT_EQ(cli({"sweep", scen.string(), "--policy", "rr", "--vary", "/workload/nothere/x=1..2"},
                nullptr, &err),
            2);
  EXPECT_NE(err.find("nothere"), std::string::npos) << err;
  EXPECT_EQ(cli({"sweep", scen.string(), "--policy", "rr", "--vary", "/workload/threads=3..1"},
                nullptr, &err),
            2);
  EXPECT_NE(err.find("empty range"), std::string::npos) << err;
  EXPECT_EQ(cli({"sweep", scen.string(), "--policy", "rr", "--metric", "marks.nope.per_second"},
                nullptr, &err),
            2);
  EXPECT_NE(err.find("unknown metric"), std::string::npos) << err;
  EXPECT_EQ(cli({"sweep", scen.string(), "--policy", "nosuch"}, nullptr, &err), 2);
  EXPECT_NE(err.find("unknown policy"), std::string::npos) << err;
  EXPECT_EQ(cli({"reproduce", "E9", "--experiments",
                 (fs::path(SCHEDLAB_SOURCE_DIR) / "experiments").string()},
                nullptr, &err),
            2);
  EXPECT_NE(err.find("unknown experiment"), std::string::npos) << err;
}

}  // namespace
}  // namespace schedlab::test
