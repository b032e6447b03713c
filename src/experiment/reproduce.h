// `schedlab reproduce E1|E2|E3|E4|E5|all`: the experiments of EXPERIMENTS.md as sweeps over the
// shipped scenarios, written to a folder as CSV, terminal tables, SVG plots and one
// self-contained report.html.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace schedlab {

struct ExperimentPart {
  std::string id;  // file stem of its outputs
  std::string title;
  std::string description;
  std::string scenario;  // relative to the scenarios folder
  std::vector<std::string> policies;
  std::vector<std::string> axes;                          // --vary texts
  std::vector<std::pair<std::string, std::string>> sets;  // fixed edits
  std::vector<std::pair<std::string, std::string>> quick_sets;
  std::vector<std::string> metrics;  // the first is plotted
  int repeat = 3, quick_repeat = 1;
  std::string published_csv;  // published figures (axis, then one column per policy)
  std::optional<std::pair<double, double>> zoom;
};

// The parts of one experiment ("E1") or of all ("all"); throws InputError if unknown.
std::vector<ExperimentPart> experiment_parts(const std::string& which, bool quick);

struct ReproduceOptions {
  std::string which = "E1";
  bool quick = false;
  std::string out_dir = "schedlab-results";
  std::string scenarios_dir;  // where the shipped scenarios are
  int jobs = 0;
};

// Runs the experiments; prints the tables to `out`; returns the report's path.
std::string reproduce(const ReproduceOptions& options, std::ostream& out,
                      const std::function<void(std::size_t, std::size_t)>& progress = {});

// The folder of the shipped scenarios: SCHEDLAB_SCENARIOS, else next to the executable
// (../scenarios from build/), else ./scenarios.
std::string default_scenarios_dir();

}  // namespace schedlab
