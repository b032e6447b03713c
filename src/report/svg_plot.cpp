#include "report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "report/xml_escape.h"

namespace schedlab {

namespace {

// Colour-blind-safe palette (Okabe-Ito).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#000000"};

// A "nice" tick step (1, 2 or 5 x 10^k) for about `target` ticks over span.
double nice_step(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::string tick_label(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9)
    return fmt::format("{}", static_cast<long long>(std::llround(v)));
  return fmt::format("{:g}", v);
}

}  // namespace

std::string svg_plot(const Aggregate& a, const PlotOptions& o) {
  constexpr double kW = 720, kH = 440, kLeft = 80, kRight = 180, kTop = 50, kBottom = 60;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  // x positions of the points
  std::vector<double> xs;
  bool numeric = true;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    double v = 0;
    const std::string& s = a.points[i];
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) numeric = false;
    xs.push_back(v);
  }
  if (!numeric)
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i);
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (!o.x_range || (xs[i] >= o.x_range->first && xs[i] <= o.x_range->second)) shown.push_back(i);
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  bool first = true;
  for (std::size_t i : shown) {
    xmin = first ? xs[i] : std::min(xmin, xs[i]);
    xmax = first ? xs[i] : std::max(xmax, xs[i]);
    for (const std::string& p : a.policies)
      if (const Stats* s = a.cell(a.points[i], p)) {
        if (first || s->max > ymax) ymax = s->max;
        if (first || s->min < ymin) ymin = s->min;
        first = false;
      }
    first = false;
  }
  if (!o.x_range) ymin = std::min(0.0, ymin);  // full plots start at zero
  if (ymax <= ymin) ymax = ymin + 1;
  const double ypad = (ymax - ymin) * 0.08;
  if (o.x_range) ymin -= ypad;
  ymax += ypad;
  if (xmax <= xmin) xmax = xmin + 1;
  auto px = [&](double x) { return kLeft + (x - xmin) / (xmax - xmin) * pw; };
  auto py = [&](double y) { return kTop + ph - (y - ymin) / (ymax - ymin) * ph; };

  std::string svg = fmt::format(
      R"~(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)~"
      "\n",
      kW, kH);
  svg += fmt::format(R"~(<rect x="0" y="0" width="{}" height="{}" fill="white"/>)~"
                     "\n",
                     kW, kH);
  svg += fmt::format(R"~(<text x="{}" y="24" font-size="15" text-anchor="middle">{}</text>)~"
                     "\n",
                     kLeft + pw / 2, xml_escape(o.title));
  // axes and ticks
  svg += fmt::format(
      R"~(<g class="axes" stroke="#333"><line x1="{0}" y1="{1}" x2="{2}" y2="{1}"/><line x1="{0}" y1="{3}" x2="{0}" y2="{1}"/></g>)~"
      "\n",
      kLeft, kTop + ph, kLeft + pw, kTop);
  const double ystep = nice_step(ymax - ymin, 6);
  for (double y = std::ceil(ymin / ystep) * ystep; y <= ymax + 1e-9; y += ystep)
    svg += fmt::format(
        R"~(<line x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" stroke="#ddd"/><text x="{3}" y="{4:.1f}" text-anchor="end">{5}</text>)~"
        "\n",
        kLeft, py(y), kLeft + pw, kLeft - 6, py(y) + 4, tick_label(y));
  for (std::size_t i : shown)
    svg += fmt::format(
        R"~(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#333"/><text x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)~"
        "\n",
        px(xs[i]), kTop + ph, kTop + ph + 5, kTop + ph + 20, xml_escape(a.points[i]));
  svg += fmt::format(
      R"~(<text x="{}" y="{}" text-anchor="middle">{}</text>)~"
      "\n",
      kLeft + pw / 2, kH - 15,
      xml_escape(o.x_label.empty() ? (a.axis_columns.empty() ? "point" : a.axis_columns.front())
                                   : o.x_label));
  svg += fmt::format(
      R"~(<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">{}</text>)~"
      "\n",
      kTop + ph / 2, kTop + ph / 2, xml_escape(o.y_label.empty() ? a.metric : o.y_label));
  // one series per policy
  for (std::size_t k = 0; k < a.policies.size(); ++k) {
    const std::string& p = a.policies[k];
    const char* colour = kColours[k % std::size(kColours)];
    std::string points, bars, dots;
    for (std::size_t i : shown) {
      const Stats* s = a.cell(a.points[i], p);
      if (!s) continue;
      const double x = px(xs[i]);
      points += fmt::format("{:.1f},{:.1f} ", x, py(s->median));
      bars += fmt::format(R"~(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}"/>)~", x,
                          py(s->min), py(s->max));
      dots += fmt::format(R"~(<circle cx="{:.1f}" cy="{:.1f}" r="3"/>)~", x, py(s->median));
    }
    svg += fmt::format(
        R"~(<g class="series" data-policy="{0}" stroke="{1}" fill="{1}"><polyline fill="none" stroke-width="2" points="{2}"/>{3}{4}</g>)~"
        "\n",
        xml_escape(p), colour, points, bars, dots);
    const double ly = kTop + 10 + 20 * static_cast<double>(k);
    svg += fmt::format(
        R"~(<g class="legend"><line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}" stroke-width="2"/><text x="{4}" y="{5}">{6}</text></g>)~"
        "\n",
        kLeft + pw + 15, ly, kLeft + pw + 40, colour, kLeft + pw + 46, ly + 4, xml_escape(p));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace schedlab
