// A sweep's metric against its varied axis, as a gnuplot script (report/gnuplot.h): one
// series per scheduler (median, with capped min-max error bars), the published figures
// beside them (dashed, in the scheduler's colour, their own markers), one marker shape
// per series, a note of n and of what the bars show, labels with units from the metrics'
// declarations, and a log2 axis where the swept values are powers of two.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "experiment/results.h"

namespace schedlab {

struct PlotOptions {
  std::string title;
  std::string x_label;            // default: the axis's declared label (experiment/metric_labels.h)
  std::string y_label;            // default: the metric's declared label and unit
  int width = 720, height = 440;  // pixels (PDF: 100 an inch)
  // "auto": log2 x when the swept values are doublings spanning 8x or more;
  // "x", "y", "xy" (log2 x, log10 y) or "none".
  std::string log = "auto";
  std::optional<std::pair<double, double>> x_range;  // zoom: only points in [lo, hi]
};

// InputError naming the option for a bad --log or --size.
void check_plot_options(const PlotOptions& o);
// "720x440" as width and height; InputError naming --size otherwise.
std::pair<int, int> parse_plot_size(const std::string& text);

// The script without its terminal line (prepend terminal_line()). Points whose axis
// value is not a number are placed at their index and labelled with it.
std::string line_plot_script(const Aggregate& a, const Published* published,
                             const PlotOptions& options);

// What the points and bars are: "Points: median of n = 3 runs; bars: minimum to
// maximum." (with "dashed: published figures." when there are some).
std::string error_bar_note(const Aggregate& a, bool with_published);

// Every value the smallest times a power of two (1, 2, 4, 8 or 500, 1000, 2000, 4000), at
// least three of them, the largest 8x the smallest or more.
bool powers_of_two_axis(const std::vector<double>& xs);

}  // namespace schedlab
