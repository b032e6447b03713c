// Timelines of single runs of a sweep, for the reports: a run is simulated only up to
// the end of the window (a simulation is causal, so up to there it is the sweep's own
// run, same seed and all).
#pragma once

#include <string>
#include <vector>

#include "experiment/sweep.h"
#include "report/html_report.h"
#include "report/timeline.h"

namespace schedlab {

Timeline sweep_run_timeline(const SweepSpec& spec, const RunKey& key, Time from_ns, Time to_ns);

struct TimelineRequest {
  std::vector<std::string> point;  // one value per axis; empty: the sweep's last point
  Time from_ns = 0, to_ns = 100 * kNsPerMs;
  std::string title;  // each figure's title starts with it
};

// One figure per scheduler of the sweep, of its first repeat at the point. With `dir`,
// each is also written as dir/<stem>-timeline-<policy>.svg (and .gp).
std::vector<Figure> sweep_timelines(const SweepSpec& spec, const TimelineRequest& request,
                                    const std::string& dir, const std::string& stem);

}  // namespace schedlab
