#include "report/line_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "experiment/metric_labels.h"
#include "report/gnuplot.h"
#include "util/error.h"

namespace schedlab {

namespace {

// Colour-blind-safe palette (Okabe-Ito); a published series takes its scheduler's colour.
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#000000"};
// gnuplot point types: filled circle, square, triangle up, triangle down, diamond,
// pentagon, and the open ones in the same order.
constexpr int kFilled[] = {7, 5, 9, 11, 13, 15};
constexpr int kOpen[] = {6, 4, 8, 10, 12, 14};
constexpr int kShapes = static_cast<int>(std::size(kFilled));

std::optional<double> number(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::string value(double v) {
  return fmt::format("{:.10g}", v);
}

// Where each point goes on x: its value, or its index when any is not a number.
struct XAxis {
  std::vector<double> xs;
  bool numeric = true;
  std::vector<size_t> shown;  // points inside the zoom range
};

XAxis x_axis(const Aggregate& a, const PlotOptions& o) {
  XAxis x;
  for (const std::string& p : a.points) {
    const auto v = number(p);
    x.numeric = x.numeric && v;
    x.xs.push_back(v.value_or(0));
  }
  if (!x.numeric)
    for (size_t i = 0; i < x.xs.size(); ++i) x.xs[i] = static_cast<double>(i);
  for (size_t i = 0; i < x.xs.size(); ++i)
    if (!o.x_range || (x.xs[i] >= o.x_range->first && x.xs[i] <= o.x_range->second))
      x.shown.push_back(i);
  return x;
}

// The published columns in the order of the schedulers they go with, then the others.
std::vector<std::string> published_columns(const Aggregate& a, const Published& p) {
  std::set<std::string> all;
  for (const auto& [key, v] : p) all.insert(key.second);
  std::vector<std::string> out;
  for (const std::string& policy : a.policies)
    if (all.erase(policy)) out.push_back(policy);
  out.insert(out.end(), all.begin(), all.end());
  return out;
}

std::string axes_settings(const Aggregate& a, const XAxis& x, const PlotOptions& o, bool log_x,
                          bool log_y) {
  const std::string axis = a.axis_columns.empty() ? "point" : a.axis_columns.front();
  std::string s = "set encoding utf8\n";
  s += "set title " + gnuplot_quote(o.title) + "\n";
  s += "set xlabel " + gnuplot_quote(o.x_label.empty() ? axis_label(axis) : o.x_label) + "\n";
  s += "set ylabel " +
       gnuplot_quote(o.y_label.empty() ? metric_label(a.metric).axis() : o.y_label) + "\n";
  s += "set border 3\nset xtics nomirror out\nset ytics nomirror out\n";
  s += "set grid ytics lc rgb \"#dddddd\"\n";
  s += "set key outside right top vertical Left reverse spacing 1.3\n";
  s += "set bars 2.5\n";  // caps on the error bars
  s += "set pointsize 1.3\nset bmargin 6\n";
  if (log_x) s += "set logscale x 2\n";
  if (log_y) s += "set logscale y 10\n";
  // The swept values are the ticks (labelled as written), unless there are too many.
  if (!x.numeric || x.shown.size() <= 16) {
    std::string ticks;
    for (size_t i : x.shown)
      ticks += (ticks.empty() ? "" : ", ") + gnuplot_quote(a.points[i]) + " " + value(x.xs[i]);
    s += "set xtics (" + ticks + ")\n";
  }
  if (!x.shown.empty()) {
    double lo = x.xs[x.shown.front()], hi = lo;
    for (size_t i : x.shown) lo = std::min(lo, x.xs[i]), hi = std::max(hi, x.xs[i]);
    // A little room at both ends, so that end points and their bars are not on the axes.
    const double pad = log_x ? 1.15 : std::max((hi - lo) * 0.04, 0.4);
    s += log_x ? fmt::format("set xrange [{}:{}]\n", value(lo / pad), value(hi * pad))
               : fmt::format("set xrange [{}:{}]\n", value(lo - pad), value(hi + pad));
  }
  // Full plots start at zero; a zoom and a log axis fit the data.
  if (!o.x_range && !log_y) s += "set yrange [0:*]\n";
  if (o.x_range || log_y) s += "set offsets 0, 0, graph 0.08, graph 0.08\n";
  return s;
}

}  // namespace

bool powers_of_two_axis(const std::vector<double>& xs) {
  if (xs.empty()) return false;
  const double lo = *std::min_element(xs.begin(), xs.end());
  if (!(lo > 0)) return false;
  std::set<double> distinct;
  for (double x : xs) {
    const double ratio = x / lo;  // exact for doublings of binary fractions and integers
    if (ratio != std::floor(ratio) || ratio > 1e15) return false;
    const auto v = static_cast<uint64_t>(ratio);
    if ((v & (v - 1)) != 0) return false;
    distinct.insert(x);
  }
  return distinct.size() >= 3 && *distinct.rbegin() >= 8 * lo;
}

void check_plot_options(const PlotOptions& o) {
  if (o.log != "auto" && o.log != "x" && o.log != "y" && o.log != "xy" && o.log != "none")
    throw InputError("", "--log " + o.log, "expected auto, x, y, xy or none");
  if (o.width < 100 || o.height < 100 || o.width > 10000 || o.height > 10000)
    throw InputError("", fmt::format("--size {}x{}", o.width, o.height),
                     "width and height are 100 to 10000 pixels");
}

std::pair<int, int> parse_plot_size(const std::string& text) {
  const auto x = text.find('x');
  int w = 0, h = 0;
  if (x != std::string::npos) {
    const auto [p, ec] = std::from_chars(text.data(), text.data() + x, w);
    const auto [q, ec2] = std::from_chars(text.data() + x + 1, text.data() + text.size(), h);
    if (ec == std::errc() && ec2 == std::errc() && p == text.data() + x &&
        q == text.data() + text.size() && w >= 100 && h >= 100 && w <= 10000 && h <= 10000)
      return {w, h};
  }
  throw InputError("", "--size " + text, "expected WIDTHxHEIGHT in pixels, 100 to 10000 each");
}

std::string error_bar_note(const Aggregate& a, bool with_published) {
  int lo = 0, hi = 0;
  for (const auto& [key, s] : a.cells) {
    lo = lo ? std::min(lo, s.n) : s.n;
    hi = std::max(hi, s.n);
  }
  std::string note;
  if (hi <= 1)
    note = "Points: one run each (no error bars).";
  else if (lo == hi)
    note = fmt::format("Points: median of n = {} runs; bars: minimum to maximum.", hi);
  else
    note = fmt::format("Points: median of n = {}-{} runs; bars: minimum to maximum.", lo, hi);
  return with_published ? note + " Dashed: published figures." : note;
}

std::string line_plot_script(const Aggregate& a, const Published* published, const PlotOptions& o) {
  check_plot_options(o);
  const XAxis x = x_axis(a, o);
  std::vector<double> shown_xs;
  for (size_t i : x.shown) shown_xs.push_back(x.xs[i]);
  const bool log_x = o.log == "x" || o.log == "xy" ||
                     (o.log == "auto" && x.numeric && powers_of_two_axis(shown_xs));
  const bool log_y = o.log == "y" || o.log == "xy";
  const std::vector<std::string> pub_columns =
      published ? published_columns(a, *published) : std::vector<std::string>{};
  std::string s = axes_settings(a, x, o, log_x, log_y);
  s += "set label 1 " + gnuplot_quote(error_bar_note(a, !pub_columns.empty())) +
       " at screen 0.01, screen 0.03 left font \",9\"\n";
  bool bars = false;
  for (const auto& [key, st] : a.cells) bars |= st.n > 1;
  // The data: one block per series ($s0 ... for the schedulers, $p0 ... published).
  std::vector<std::string> plots;
  for (size_t k = 0; k < a.policies.size(); ++k) {
    std::string block;
    for (size_t i : x.shown)
      if (const Stats* st = a.cell(a.points[i], a.policies[k]))
        block += fmt::format("{} {} {} {}\n", value(x.xs[i]), value(st->median), value(st->min),
                             value(st->max));
    if (block.empty()) continue;
    s += fmt::format("$s{} << EOD\n{}EOD\n", k, block);
    const int shape = static_cast<int>(k) % kShapes;
    plots.push_back(fmt::format("$s{} using 1:2{} with {} lw 2 pt {} lc rgb \"{}\" title {}", k,
                                bars ? ":3:4" : "", bars ? "yerrorlines" : "linespoints",
                                kFilled[shape], kColours[k % std::size(kColours)],
                                gnuplot_quote(a.policies[k])));
  }
  for (size_t c = 0; c < pub_columns.size(); ++c) {
    std::string block;
    for (size_t i : x.shown) {
      const auto it = published->find({a.points[i], pub_columns[c]});
      if (it != published->end())
        block += fmt::format("{} {}\n", value(x.xs[i]), value(it->second));
    }
    if (block.empty()) continue;
    // The scheduler's colour, and an open marker no simulated series uses.
    const auto own = std::find(a.policies.begin(), a.policies.end(), pub_columns[c]);
    const size_t colour = own != a.policies.end() ? static_cast<size_t>(own - a.policies.begin())
                                                  : a.policies.size() + c;
    const int shape = static_cast<int>(a.policies.size() + c) % kShapes;
    s += fmt::format("$p{} << EOD\n{}EOD\n", c, block);
    plots.push_back(fmt::format(
        "$p{} using 1:2 with linespoints dt 2 lw 1.5 pt {} lc rgb \"{}\" title {}", c, kOpen[shape],
        kColours[colour % std::size(kColours)], gnuplot_quote(pub_columns[c] + " (published)")));
  }
  if (plots.empty()) {  // nothing to draw: an empty frame that says so
    s += "set label 2 \"no data\" at graph 0.5, graph 0.5 center\nset yrange [0:1]\n";
    plots.push_back("NaN notitle");
  }
  s += "plot ";
  for (size_t i = 0; i < plots.size(); ++i) s += (i ? ", \\\n     " : "") + plots[i];
  return s + "\n";
}

}  // namespace schedlab
