#include "experiment/run_timeline.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "report/figures.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {

Timeline sweep_run_timeline(const SweepSpec& spec, const RunKey& key, Time from_ns, Time to_ns) {
  Scenario s = load_run_scenario(spec, key);
  s.duration_ns = std::min(s.duration_ns.value_or(kDefaultRunLimitNs), to_ns);
  TimelineRecorder recorder(from_ns, to_ns);
  in_scenario(s.file, [&] { return simulate(s, recorder, SimulationOptions{}); });
  return recorder.timeline();
}

std::vector<Figure> sweep_timelines(const SweepSpec& spec, const TimelineRequest& request,
                                    const std::string& dir, const std::string& stem) {
  const std::vector<RunKey> keys =
      expand(spec, std::filesystem::path(spec.scenario).stem().string());
  const std::vector<std::string> point =
      request.point.empty() && !keys.empty() ? keys.back().point : request.point;
  std::string at;
  for (size_t i = 0; i < point.size() && i < spec.axes.size(); ++i)
    at += fmt::format("{}{} = {}", i ? ", " : " at ", spec.axes[i].name(), point[i]);
  std::vector<Figure> figures;
  for (const RunKey& k : keys) {
    if (k.point != point || k.repeat != 0) continue;
    const Timeline t = sweep_run_timeline(spec, k, request.from_ns, request.to_ns);
    TimelineOptions options;
    options.title =
        fmt::format("{}{}{}", request.title, request.title.empty() ? "" : ": ", k.policy + at);
    const PictureSpec picture{timeline_script(t, options), options.title, options.width,
                              timeline_height(t)};
    std::string name = stem + "-timeline-" + k.policy;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
    Figure f = dir.empty() ? render_figure(picture) : figure_of(picture, dir, name);
    f.title = options.title;
    f.caption = timeline_caption(t, fmt::format("The run{} (seed {})", at, k.seed));
    figures.push_back(std::move(f));
  }
  return figures;
}

}  // namespace schedlab
