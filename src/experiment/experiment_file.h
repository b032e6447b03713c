// Experiments as data: one JSON file per experiment (experiments/E1.json, ...), read by
// `schedlab reproduce`, so adding an experiment or a part needs no C++.
//
//   {"comment": "...",                 optional, for readers
//    "defaults": {PART FIELDS},        optional: every part starts from these
//    "parts": [{PART FIELDS}, ...]}    run and reported in this order
//
// Part fields (a part's own replace the defaults'):
//   id           file stem of its outputs (CSV, SVG, published CSV)     required
//   title, description                                                 title required
//   scenario     file in the scenarios folder                           required
//   policies     ["bfs", "cfs-2.6.32:START_DEBIT=0"] as sweep --policy  required
//   vary         ["/workload/threads=1..8"] as sweep --vary
//   set          ["/workload/policy=SCHED_BATCH"] as sweep --set
//   metrics      columns to tabulate; the first is plotted              required
//   repeat       runs per point and policy (default 3)
//   quick        with --quick: {"repeat": 1, "set": [...], "skip": false}
//   published    CSV next to the experiment file: the axis, then one column per
//                policy label; shown beside the first metric's medians
//   zoom         [lo, hi]: a second plot of that part of the axis
//   plot         {"x_label": "...", "y_label": "...", "log": "auto|x|y|xy|none"}:
//                the plot's labels (default: the declared ones) and log axes
//   timeline     {"point": "8", "window_ms": [0, 100]}: the run drawn as a timeline,
//                one per policy (default: the last point, the first 100 ms); false: none
//   comment      for readers
#pragma once

#include <optional>
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
  bool in_quick = true;       // run with --quick
  std::string published_csv;  // published figures (axis, then one column per policy)
  std::optional<std::pair<double, double>> zoom;
  std::string x_label, y_label;  // empty: the declared labels
  std::string log = "auto";
  bool timeline = true;
  std::string timeline_point;  // empty: the last point
  std::pair<double, double> timeline_window_ms{0, 100};
};

// The parts of one experiment file (all of them; reproduce drops those not in_quick).
// Throws InputError naming the file, the key and the reason.
std::vector<ExperimentPart> read_experiment(const std::string& path);

// The experiments of a folder: the stems of its *.json files, shorter names first
// (E2 before E10). Throws InputError when there is none.
std::vector<std::string> experiment_names(const std::string& dir);

}  // namespace schedlab
