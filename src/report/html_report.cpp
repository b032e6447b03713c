#include "report/html_report.h"

#include <fmt/format.h>

#include "report/xml_escape.h"

namespace schedlab {

std::string html_report(const std::string& title, const std::string& version,
                        const std::vector<ReportSection>& sections) {
  std::string h = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}}"
      "table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #bbb;padding:3px 8px;"
      "text-align:right}}th{{background:#eee}}pre{{background:#f6f6f6;padding:8px;overflow-x:auto;"
      "font-size:12px}}h2{{border-bottom:1px solid #ccc}}</style></head><body>\n"
      "<h1>{0}</h1>\n<p>schedlab {1}. Each point is the median of its repeats, with the minimum "
      "and maximum; seeds are derived from the scenario, the point and the repeat.</p>\n",
      xml_escape(title), xml_escape(version));
  h += "<ul>";
  for (std::size_t i = 0; i < sections.size(); ++i)
    h += fmt::format("<li><a href=\"#s{}\">{}</a></li>", i, xml_escape(sections[i].title));
  h += "</ul>\n";
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const ReportSection& s = sections[i];
    h += fmt::format("<h2 id=\"s{}\">{}</h2>\n<p>{}</p>\n", i, xml_escape(s.title),
                     xml_escape(s.description));
    for (const auto& [caption, table] : s.tables)
      h += "<h3>" + xml_escape(caption) + "</h3>\n" + table;
    for (const auto& [file, svg] : s.plots)
      h += fmt::format("<figure>{}<figcaption>{} (<a href=\"{}\">{}</a>)</figcaption></figure>\n",
                       svg, xml_escape(file), xml_escape(file), xml_escape(file));
    h += "<details><summary>How it was run</summary>\n<pre>" + xml_escape(s.command) + "</pre>\n";
    h += "<p>Seeds: " + xml_escape(s.seeds) + "</p>\n";
    if (!s.parameters.empty())
      h += "<p>Scheduler parameters in effect:</p><pre>" + xml_escape(s.parameters) + "</pre>\n";
    h += "<pre>" + xml_escape(s.scenario_text) + "</pre></details>\n";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace schedlab
