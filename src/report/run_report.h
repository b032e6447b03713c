// `run --report out.html`: one run of any scenario as a self-contained page: its
// timeline (report/timeline.h), the per-task and per-CPU tables of `run`, the marks, and
// the scenario as run.
#pragma once

#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "report/html_report.h"

namespace schedlab {

struct RunReport {
  std::string scenario_file, scenario_text, version;
  std::string policy_note;         // why the policy, when the scenario did not say
  std::vector<std::string> notes;  // the scenario's and the run's
  Figure timeline;
};

std::string run_report_html(const Metrics& m, const RunReport& r);

}  // namespace schedlab
