// Line plots as standalone SVG, written by the project: a metric against the varied axis,
// one line per scheduler with min-max error bars, a legend, and optionally a zoom on a
// range of the axis (the plateau graphs of E3).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "experiment/results.h"

namespace schedlab {

struct PlotOptions {
  std::string title;
  std::string x_label;                               // default: the axis column
  std::string y_label;                               // default: the metric
  std::optional<std::pair<double, double>> x_range;  // zoom: only points in [lo, hi]
};

// Points whose axis value is not a number are placed at their index.
std::string svg_plot(const Aggregate& a, const PlotOptions& options);

}  // namespace schedlab
