#include "report/html_report.h"

#include <fmt/format.h>

#include "report/base64.h"
#include "report/xml_escape.h"

namespace schedlab {

std::string html_head(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}}"
      "table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #bbb;padding:3px 8px;"
      "text-align:right}}th{{background:#eee}}pre{{background:#f6f6f6;padding:8px;overflow-x:auto;"
      "font-size:12px}}h2{{border-bottom:1px solid #ccc}}figure{{margin:1em 0}}"
      "figure img{{max-width:100%;height:auto}}figcaption{{font-size:13px;color:#444}}"
      ".missing{{border:1px dashed #c00;padding:1em;color:#900}}</style></head><body>\n"
      "<h1>{0}</h1>\n",
      xml_escape(title));
}

std::string figure_html(const Figure& f) {
  std::string h = "<figure>";
  if (!f.svg.empty())
    h += fmt::format("<img src=\"data:image/svg+xml;base64,{}\" alt=\"{}\">", base64(f.svg),
                     xml_escape(f.title));
  else
    h += "<p class=\"missing\">Not drawn: " + xml_escape(f.error) + "</p>";
  h += "<figcaption>" + xml_escape(f.caption);
  if (!f.file.empty()) h += fmt::format(" (<a href=\"{0}\">{0}</a>)", xml_escape(f.file));
  return h + "</figcaption></figure>\n";
}

std::string html_report(const std::string& title, const std::string& version,
                        const std::vector<ReportSection>& sections) {
  std::string h = html_head(title);
  h += fmt::format(
      "<p>schedlab {}. Each point is the median of its repeats, with the minimum and maximum; "
      "seeds are derived from the scenario, the point and the repeat.</p>\n",
      xml_escape(version));
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
    for (const Figure& f : s.plots) h += figure_html(f);
    if (!s.timelines.empty()) h += "<h3>Timelines of single runs</h3>\n";
    for (const Figure& f : s.timelines) h += figure_html(f);
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
