// Pictures as files: a gnuplot script body drawn to a file (by its extension), with the
// script kept beside it as FILE.gp, and the SVG as a Figure for the HTML report.
#pragma once

#include <string>

#include "report/gnuplot.h"
#include "report/html_report.h"
#include "util/output_file.h"

namespace schedlab {

struct PictureSpec {
  std::string body;   // the script without its terminal line
  std::string about;  // the script's opening comment (what it draws)
  int width = 720, height = 440;
};

// Writes `path` (.svg, .png or .pdf) and its script `path` with .gp for the extension;
// throws InputError naming the file when it cannot be written or drawn. Both are written
// checked (OutputFile); the script's name is schedlab's, so a symlink there is refused;
// one at `path` is followed unless `options` say not (a name schedlab chose).
void write_picture(const PictureSpec& p, const std::string& path,
                   const OutputOptions& options = {});

// The SVG for the report, drawn in memory; when gnuplot cannot draw, the Figure holds
// the reason.
Figure render_figure(const PictureSpec& p);

// The SVG for the report, also written to dir/stem.svg with dir/stem.gp beside it; when
// gnuplot cannot draw, the Figure holds the reason and the script is still written (both
// checked, not through a symlink: the folder's names are schedlab's).
Figure figure_of(const PictureSpec& p, const std::string& dir, const std::string& stem);

}  // namespace schedlab
