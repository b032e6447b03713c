// One self-contained HTML file (no external resources: it opens offline) with, per
// experiment part: its description, tables, plots and run timelines (SVG drawn by
// gnuplot, embedded as data: URLs and also saved beside it), the scenario as run, the
// policies with their parameters, the seeds and the version.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace schedlab {

// A picture in the report.
struct Figure {
  std::string file;     // its SVG beside the report (linked), or empty
  std::string svg;      // the picture; empty when it could not be drawn
  std::string title;    // alt text
  std::string caption;  // what it shows (n and the bars, the run and the window)
  std::string error;    // why there is no picture
};

struct ReportSection {
  std::string title;
  std::string description;
  std::string command;        // the equivalent `schedlab sweep` command line
  std::string scenario_text;  // the scenario file
  std::vector<std::pair<std::string, std::string>> tables;  // caption, HTML table
  std::vector<Figure> plots;
  std::vector<Figure> timelines;  // single runs, one per scheduler
  std::string seeds;              // how the seeds were derived, and which
  std::string parameters;         // each scheduler's parameters in effect
};

std::string html_report(const std::string& title, const std::string& version,
                        const std::vector<ReportSection>& sections);

// The parts every report page shares: its head (title, style) and one figure.
std::string html_head(const std::string& title);
std::string figure_html(const Figure& f);

}  // namespace schedlab
