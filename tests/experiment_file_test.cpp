// Experiments as data: an experiment added as a file runs with `reproduce` and no C++;
// the reader's defaults, --quick settings and published tables; bad files are one line
// naming the file and the key; the shipped files hold the parts of E1-E5.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "experiment/reproduce.h"
#include "experiment/results.h"
#include "util/error.h"

namespace schedlab {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("schedlab-expfile-" + name);
  fs::remove_all(d);
  fs::create_directories(d / "scenarios");
  fs::create_directories(d / "experiments");
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// Two tasks that share one CPU, each marking its rounds; 10 ms of work per round.
constexpr const char* kScenario = R"({"machine": {"cpus": 1}, "global": {"duration": 2},
    "tasks": {"t": {"instance": 2, "loop": -1, "run": 10000, "mark": "rounds"}}})";

constexpr const char* kExperiment = R"({
  "comment": "a test experiment",
  "defaults": {"scenario": "two.json", "policies": ["rr", "bfs"],
               "metrics": ["marks.rounds.per_second"], "repeat": 2,
               "quick": {"repeat": 1, "set": ["/global/duration=1"]}},
  "parts": [
    {"id": "x-cpus", "title": "X: rounds against CPUs", "vary": ["/machine/cpus=1,2"],
     "published": "X-table.csv", "zoom": [1, 2]},
    {"id": "x-long", "title": "X: not in --quick", "quick": {"skip": true}}
  ]})";

int cli(const std::vector<std::string>& args, std::string* out_text, std::string* err_text) {
  std::ostringstream out, err;
  const int rc = cli_main(args, out, err);
  *out_text = out.str();
  *err_text = err.str();
  return rc;
}

TEST(ExperimentFile, DefaultsQuickSettingsAndPublishedTable) {
  const fs::path d = fresh_dir("read");
  write(d / "experiments" / "X.json", kExperiment);
  write(d / "experiments" / "X-table.csv", "cpus,rr,bfs\n1,100,100\n2,200,190\n");
  const std::vector<ExperimentPart> all = read_experiment((d / "experiments" / "X.json").string());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].scenario, "two.json");  // from the defaults
  EXPECT_EQ(all[0].policies, (std::vector<std::string>{"rr", "bfs"}));
  EXPECT_EQ(all[0].repeat, 2);
  EXPECT_EQ(all[0].quick_repeat, 1);
  ASSERT_EQ(all[0].quick_sets.size(), 1u);
  EXPECT_EQ(all[0].quick_sets[0], (std::pair<std::string, std::string>{"/global/duration", "1"}));
  EXPECT_EQ(all[0].published_csv, "cpus,rr,bfs\n1,100,100\n2,200,190\n");
  EXPECT_EQ(all[0].zoom, (std::pair<double, double>{1, 2}));
  EXPECT_TRUE(all[0].in_quick);
  EXPECT_FALSE(all[1].in_quick);  // its own quick replaces the defaults'
  EXPECT_TRUE(all[1].quick_sets.empty());
  EXPECT_EQ(experiment_parts("X", true, (d / "experiments").string()).size(), 1u);
  EXPECT_EQ(experiment_parts("all", false, (d / "experiments").string()).size(), 2u);
}

// A new experiment is a file: reproduce finds it beside --scenarios and runs it.
TEST(ExperimentFile, ANewExperimentRunsWithoutCode) {
  const fs::path d = fresh_dir("run");
  write(d / "scenarios" / "two.json", kScenario);
  write(d / "experiments" / "X.json", kExperiment);
  write(d / "experiments" / "X-table.csv", "cpus,rr,bfs\n1,100,100\n2,200,190\n");
  std::string out, err;
  ASSERT_EQ(cli({"reproduce", "X", "--quick", "--out", (d / "out").string(), "--scenarios",
                 (d / "scenarios").string()},
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("running 1 parts of X"), std::string::npos) << out;
  EXPECT_NE(out.find("published"), std::string::npos) << out;
  const ResultTable t = read_results_csv((d / "out" / "x-cpus.csv").string());
  EXPECT_EQ(t.rows.size(), 4u);  // 2 CPU counts x 2 policies x 1 quick repeat
  // Two tasks of 10 ms rounds for 1 s (--quick): 100 rounds a second on one CPU, 200 on two.
  const Aggregate agg = aggregate_results(t, {"cpus"}, "marks.rounds.per_second");
  EXPECT_DOUBLE_EQ(agg.cell("1", "rr")->median, 100.0);
  EXPECT_DOUBLE_EQ(agg.cell("2", "rr")->median, 200.0);
  EXPECT_TRUE(fs::exists(d / "out" / "x-cpus-zoom.svg"));
  EXPECT_TRUE(fs::exists(d / "out" / "x-cpus-published.csv"));
  EXPECT_FALSE(fs::exists(d / "out" / "x-long.csv"));
}

TEST(ExperimentFile, BadFilesNameTheFileAndTheKey) {
  const fs::path d = fresh_dir("bad");
  const std::string f = (d / "experiments" / "B.json").string();
  auto error_of = [&](const std::string& text) {
    write(f, text);
    try {
      read_experiment(f);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"parts": [{"id": "a", "title": "t", "scenario": "s.json",
      "policies": ["rr"], "metrics": ["duration_s"], "repaet": 2}]})"),
            f + ": parts[0].repaet: unknown key (known: id, title, description, scenario, "
                "policies, vary, set, metrics, repeat, quick, published, zoom, plot, timeline, "
                "comment)");
  EXPECT_EQ(error_of(R"({"parts": [{"id": "a", "title": "t", "policies": ["rr"],
      "metrics": ["duration_s"]}]})"),
            f + ": parts[0].scenario: missing");
  EXPECT_EQ(error_of(R"({"parts": [{"id": "a", "title": "t", "scenario": "s.json",
      "policies": ["rr"], "metrics": ["duration_s"], "plot": {"log": "z"}}]})"),
            f + ": parts[0].plot.log: expected auto, x, y, xy or none");
  EXPECT_EQ(error_of(R"({"parts": [{"id": "a", "title": "t", "scenario": "s.json",
      "policies": ["rr"], "metrics": ["duration_s"], "timeline": {"window_ms": [-5, 10]}}]})"),
            f + ": parts[0].timeline.window_ms: starts before 0 ms");
  EXPECT_EQ(error_of(R"({"defaults": {"set": ["novalue"]}, "parts": [{"id": "a", "title": "t",
      "scenario": "s.json", "policies": ["rr"], "metrics": ["duration_s"]}]})"),
            f + ": defaults.set[0]: expected /json/pointer=value");
  EXPECT_EQ(error_of(R"({"parts": []})"), f + ": parts: expected a non-empty array of parts");
  EXPECT_EQ(error_of(R"({"parts": [{"id": "a", "title": "t", "scenario": "s.json",
      "policies": ["rr"], "metrics": ["duration_s"], "published": "none.csv"}]})"),
            f + ": parts[0].published: cannot read none.csv next to the experiment file");
  std::string out, err;
  EXPECT_EQ(cli({"reproduce", "B", "--experiments", (d / "experiments").string()}, &out, &err), 2);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

// The shipped experiment files: the parts the reproduce of E1-E5 always ran.
TEST(ExperimentFile, TheShippedExperiments) {
  const std::string dir = (fs::path(SCHEDLAB_SOURCE_DIR) / "experiments").string();
  EXPECT_EQ(experiment_names(dir), (std::vector<std::string>{"E1", "E2", "E3", "E4", "E5"}));
  EXPECT_EQ(experiment_parts("all", true, dir).size(), 3u + 1 + 3 + 6 + 2);
  const std::vector<ExperimentPart> e3 = experiment_parts("E3", false, dir);
  ASSERT_EQ(e3.size(), 9u);
  EXPECT_EQ(
      e3[1].sets,
      (std::vector<std::pair<std::string, std::string>>{{"/workload/policy", "SCHED_BATCH"}}));
  EXPECT_EQ(e3[8].id, "e3-x264-720p-medium-zerolatency-b3");
  const std::vector<ExperimentPart> e2 = experiment_parts("E2", false, dir);
  EXPECT_EQ(e2[0].repeat, 5);
  EXPECT_EQ(e2[0].policies[1], "cfs-tip-2009-09:START_DEBIT=0");
  EXPECT_FALSE(experiment_parts("E1", true, dir)[0].published_csv.empty());
  // E1's replays of the recorded x264 (docs/replay.md) run in full only: `all --quick` is
  // unchanged by them
  const std::vector<ExperimentPart> e1 = experiment_parts("E1", false, dir);
  ASSERT_EQ(e1.size(), 7u);
  EXPECT_EQ(e1[3].scenario, "replay/x264-threads1.json");
  EXPECT_EQ(e1[6].axes.size(), 2u);
  for (std::size_t k = 3; k < 7; ++k) EXPECT_FALSE(e1[k].in_quick) << e1[k].id;
  EXPECT_TRUE(experiment_parts("E4", true, dir)[5].quick_sets.empty());  // the movie in full
}

}  // namespace
}  // namespace schedlab
