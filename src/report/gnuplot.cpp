#include "report/gnuplot.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "util/error.h"
#include "util/subprocess.h"

namespace schedlab {

PlotFormat plot_format_of(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return PlotFormat::kSvg;
  if (ext == ".png") return PlotFormat::kPng;
  if (ext == ".pdf") return PlotFormat::kPdf;
  throw InputError(path, "", "a plot is written as .svg, .png or .pdf (by its extension)");
}

std::string terminal_line(PlotFormat format, int width_px, int height_px) {
  // One font for every format; DejaVu Sans is what Debian's fontconfig gives "sans".
  switch (format) {
    case PlotFormat::kSvg:
      return fmt::format(
          "set terminal svg size {},{} font \"sans,11\" noenhanced background rgb \"white\"\n",
          width_px, height_px);
    case PlotFormat::kPng:
      return fmt::format(
          "set terminal pngcairo size {},{} font \"sans,11\" noenhanced background rgb \"white\"\n",
          width_px, height_px);
    case PlotFormat::kPdf:
      break;
  }
  return fmt::format("set terminal pdfcairo size {:g}in,{:g}in font \"sans,11\" noenhanced\n",
                     width_px / 100.0, height_px / 100.0);
}

std::string gnuplot_script(const std::string& about, PlotFormat format, int width_px, int height_px,
                           const std::string& body) {
  std::string s;
  for (size_t start = 0; start < about.size();) {
    const size_t nl = about.find('\n', start);
    s += "# " + about.substr(start, nl - start) + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  s += "# Written by schedlab for gnuplot 5: `gnuplot THIS.gp > out.svg`; for PNG or PDF\n"
       "# change the terminal to pngcairo or pdfcairo.\n";
  return s + terminal_line(format, width_px, height_px) + body;
}

Rendered render_gnuplot(const std::string& script) {
  const char* env = std::getenv("SCHEDLAB_GNUPLOT");
  const std::string program = env && *env ? env : "gnuplot";
  const ProgramResult r = run_program({program}, script);
  Rendered out;
  if (!r.started) {
    out.error = r.error + " (install Debian's gnuplot-nox, or name it in SCHEDLAB_GNUPLOT)";
    return out;
  }
  if (r.exit_status != 0 || r.out.empty()) {
    std::string first = r.err.substr(0, r.err.find_last_not_of("\n ") + 1);
    for (char& c : first)
      if (c == '\n') c = ' ';
    out.error = fmt::format("{} failed (status {}): {}", program, r.exit_status,
                            first.empty() ? "no output" : first);
    return out;
  }
  out.ok = true;
  out.picture = r.out;
  return out;
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace schedlab
