// `schedlab reproduce E1|...|all`: the experiments of the experiments folder (one file
// each, experiment_file.h) as sweeps over the shipped scenarios, written to a folder as
// CSV, terminal tables, plots and run timelines (drawn by gnuplot, each with its script)
// and one self-contained report.html.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "experiment/data_dirs.h"
#include "experiment/experiment_file.h"

namespace schedlab {

// The parts of one experiment ("E1") or of all ("all") in `experiments_dir`, without
// those that --quick skips when `quick`; throws InputError if unknown.
std::vector<ExperimentPart> experiment_parts(const std::string& which, bool quick,
                                             const std::string& experiments_dir);

struct ReproduceOptions {
  std::string which = "E1";
  bool quick = false;
  std::string out_dir = "schedlab-results";
  std::string scenarios_dir;    // where the shipped scenarios are
  std::string experiments_dir;  // where the experiment files are
  int jobs = 0;
  std::vector<std::string> extra_formats;  // "png", "pdf": each plot also in these
};

// Runs the experiments; prints the tables to `out`; returns the report's path.
std::string reproduce(const ReproduceOptions& options, std::ostream& out,
                      const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace schedlab
