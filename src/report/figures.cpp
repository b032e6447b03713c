#include "report/figures.h"

#include <filesystem>

#include "util/error.h"

namespace schedlab {

namespace {

// A file whose name schedlab chose (a script beside a picture, a file in a folder).
const OutputOptions kOwnName{false};

std::string script_path(const std::string& path) {
  return std::filesystem::path(path).replace_extension(".gp").string();
}

}  // namespace

void write_picture(const PictureSpec& p, const std::string& path, const OutputOptions& options) {
  const PlotFormat format = plot_format_of(path);
  const std::string script = gnuplot_script(p.about, format, p.width, p.height, p.body);
  write_output(script_path(path), script, kOwnName);
  const Rendered r = render_gnuplot(script);
  if (!r.ok)
    throw InputError(path, "", "not drawn: " + r.error + "; the script is " + script_path(path));
  write_output(path, r.picture, options);
}

Figure render_figure(const PictureSpec& p) {
  Figure f;
  const Rendered r =
      render_gnuplot(gnuplot_script(p.about, PlotFormat::kSvg, p.width, p.height, p.body));
  if (r.ok)
    f.svg = r.picture;
  else
    f.error = r.error;
  return f;
}

Figure figure_of(const PictureSpec& p, const std::string& dir, const std::string& stem) {
  Figure f;
  f.file = stem + ".svg";
  const std::string script = gnuplot_script(p.about, PlotFormat::kSvg, p.width, p.height, p.body);
  write_output((std::filesystem::path(dir) / (stem + ".gp")).string(), script, kOwnName);
  const Rendered r = render_gnuplot(script);
  if (r.ok) {
    f.svg = r.picture;
    write_output((std::filesystem::path(dir) / f.file).string(), f.svg, kOwnName);
  } else {
    f.error = r.error + "; the script is " + stem + ".gp";
    f.file.clear();
  }
  return f;
}

}  // namespace schedlab
