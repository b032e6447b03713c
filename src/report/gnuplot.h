// Pictures are drawn by gnuplot (Debian's gnuplot-nox), driven by a script schedlab
// writes: the script is kept beside the picture, so a figure can be restyled for a paper
// by editing it and running `gnuplot FILE.gp > FILE.svg`.
#pragma once

#include <string>

namespace schedlab {

enum class PlotFormat { kSvg, kPng, kPdf };

// By the file's extension (.svg, .png, .pdf); InputError naming the file otherwise.
PlotFormat plot_format_of(const std::string& path);

// The `set terminal` line for a picture of width x height pixels (PDF: 100 px an inch).
std::string terminal_line(PlotFormat format, int width_px, int height_px);

// A whole script: a comment saying what it draws and how to render it again, the
// terminal line, then `body`.
std::string gnuplot_script(const std::string& about, PlotFormat format, int width_px, int height_px,
                           const std::string& body);

struct Rendered {
  bool ok = false;
  std::string picture;  // what gnuplot wrote (SVG text, PNG or PDF bytes)
  std::string error;    // why not, when !ok: one line
};

// Runs gnuplot on the script (which sets the terminal and writes to stdout). The program
// is $SCHEDLAB_GNUPLOT, else `gnuplot` from PATH.
Rendered render_gnuplot(const std::string& script);

// A string as a gnuplot double-quoted literal. Terminals are `noenhanced`, so text
// prints as it is (no ^ or _ markup).
std::string gnuplot_quote(const std::string& text);

}  // namespace schedlab
