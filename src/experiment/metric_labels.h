// What a plot's axes say: each metric column of a sweep (metric_columns() in sweep.h) and
// each swept axis declares a human label and its unit, once, here.
#pragma once

#include <optional>
#include <string>

namespace schedlab {

struct Label {
  std::string text;  // "Frames per second"
  std::string unit;  // "fps"; empty for a count or an index
  // "Frames per second (fps)", or the text alone when there is no unit.
  std::string axis() const { return unit.empty() ? text : text + " (" + unit + ")"; }
};

// The declared label of a metric column ("marks.frames.per_second", "migrations"), or
// nothing for a column nobody declared.
std::optional<Label> declared_metric_label(const std::string& column);
// The declared label, else the column itself.
Label metric_label(const std::string& column);
// A mark that counts bytes (tbench's): its sweeps also have marks.<mark>.mb_per_second.
bool counts_bytes(const std::string& mark);

// A swept axis by its name (the last component of its pointer: "threads", "x_nice"): the
// declared label, else the name with '_' as spaces and a capital first letter.
std::string axis_label(const std::string& axis_name);

}  // namespace schedlab
