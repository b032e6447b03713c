// One self-contained HTML file (no external resources: it opens offline) with, per
// experiment part: its description, tables, plots (inline SVG, also saved beside it),
// the scenario as run, the policies with their parameters, the seeds and the version.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace schedlab {

struct ReportSection {
  std::string title;
  std::string description;
  std::string command;        // the equivalent `schedlab sweep` command line
  std::string scenario_text;  // the scenario file
  std::vector<std::pair<std::string, std::string>> tables;  // caption, HTML table
  std::vector<std::pair<std::string, std::string>> plots;   // file name, SVG text
  std::string seeds;                                        // how the seeds were derived, and which
  std::string parameters;                                   // each scheduler's parameters in effect
};

std::string html_report(const std::string& title, const std::string& version,
                        const std::vector<ReportSection>& sections);

}  // namespace schedlab
