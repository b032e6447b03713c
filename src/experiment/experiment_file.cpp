#include "experiment/experiment_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "json/jread.h"
#include "util/error.h"
#include "util/input_file.h"

namespace schedlab {

namespace {

constexpr const char* kPartKeys[] = {"id",        "title", "description", "scenario", "policies",
                                     "vary",      "set",   "metrics",     "repeat",   "quick",
                                     "published", "zoom",  "plot",        "timeline", "comment"};
constexpr const char* kQuickKeys[] = {"repeat", "set", "skip"};
constexpr const char* kPlotKeys[] = {"x_label", "y_label", "log"};
constexpr const char* kTimelineKeys[] = {"point", "window_ms"};
constexpr const char* kFileKeys[] = {"comment", "defaults", "parts"};

template <size_t N>
void only_known_keys(const JsonReader& r, const JValue& object, const std::string& key,
                     const char* const (&known)[N]) {
  r.expect_object(object, key);
  for (const auto& member : object.members)      // not a structured binding: clang 14 cannot
    if (const std::string& name = member.first;  // capture one in a lambda
        std::find_if(std::begin(known), std::end(known),
                     [&](const char* k) { return name == k; }) == std::end(known)) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      r.fail(key.empty() ? name : key + "." + name, "unknown key (known: " + list + ")");
    }
}

std::vector<std::string> strings(const JsonReader& r, const JValue& v, const std::string& key) {
  if (!v.is_array()) r.fail(key, "expected an array of strings, found " + v.type_name());
  std::vector<std::string> out;
  for (size_t i = 0; i < v.items.size(); ++i)
    out.push_back(r.string(v.items[i], fmt::format("{}[{}]", key, i)));
  return out;
}

// ["/pointer=value", ...] as sweep --set takes them.
std::vector<std::pair<std::string, std::string>> assignments(const JsonReader& r, const JValue& v,
                                                             const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::vector<std::string> texts = strings(r, v, key);
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto eq = texts[i].find('=');
    if (eq == std::string::npos || eq == 0)
      r.fail(fmt::format("{}[{}]", key, i), "expected /json/pointer=value");
    out.emplace_back(texts[i].substr(0, eq), texts[i].substr(eq + 1));
  }
  return out;
}

// A field of a part: its own, else the defaults' (with the key to name in errors).
struct Field {
  const JValue* value = nullptr;
  std::string key;
};

class PartReader {
 public:
  PartReader(const JsonReader& r, const JValue& part, std::string key, const JValue* defaults)
      : r_(r), part_(part), key_(std::move(key)), defaults_(defaults) {}

  Field field(const std::string& name) const {
    if (const JValue* own = part_.find(name)) return {own, key_ + "." + name};
    if (defaults_)
      if (const JValue* d = defaults_->find(name)) return {d, "defaults." + name};
    return {};
  }
  Field required(const std::string& name) const {
    const Field f = field(name);
    if (!f.value) r_.fail(key_ + "." + name, "missing");
    return f;
  }
  std::string string(const std::string& name, bool needed) const {
    const Field f = needed ? required(name) : field(name);
    return f.value ? r_.string(*f.value, f.key) : "";
  }
  std::vector<std::string> list(const std::string& name, bool needed) const {
    const Field f = needed ? required(name) : field(name);
    if (!f.value) return {};
    std::vector<std::string> out = strings(r_, *f.value, f.key);
    if (needed && out.empty()) r_.fail(f.key, "an empty list");
    return out;
  }

 private:
  const JsonReader& r_;
  const JValue& part_;
  std::string key_;
  const JValue* defaults_;
};

void read_quick(const JsonReader& r, const Field& f, ExperimentPart& p) {
  only_known_keys(r, *f.value, f.key, kQuickKeys);
  if (const JValue* v = f.value->find("repeat"))
    p.quick_repeat = static_cast<int>(r.integer_in(*v, f.key + ".repeat", 1, 1000));
  if (const JValue* v = f.value->find("set")) p.quick_sets = assignments(r, *v, f.key + ".set");
  if (const JValue* v = f.value->find("skip")) p.in_quick = !r.boolean(*v, f.key + ".skip");
}

std::pair<double, double> read_zoom(const JsonReader& r, const Field& f) {
  if (!f.value->is_array() || f.value->items.size() != 2) r.fail(f.key, "expected [lo, hi]");
  const double lo = r.number(f.value->items[0], f.key + "[0]");
  const double hi = r.number(f.value->items[1], f.key + "[1]");
  if (!(lo < hi)) r.fail(f.key, fmt::format("lo {:g} is not below hi {:g}", lo, hi));
  return {lo, hi};
}

std::string read_published(const JsonReader& r, const Field& f, const std::string& dir) {
  const std::string name = r.string(*f.value, f.key);
  const std::string path = (std::filesystem::path(dir) / name).string();
  if (!path_exists(path)) r.fail(f.key, "cannot read " + name + " next to the experiment file");
  return read_input_file(path);
}

void read_plot(const JsonReader& r, const Field& f, ExperimentPart& p) {
  only_known_keys(r, *f.value, f.key, kPlotKeys);
  if (const JValue* v = f.value->find("x_label")) p.x_label = r.string(*v, f.key + ".x_label");
  if (const JValue* v = f.value->find("y_label")) p.y_label = r.string(*v, f.key + ".y_label");
  if (const JValue* v = f.value->find("log")) {
    p.log = r.string(*v, f.key + ".log");
    if (p.log != "auto" && p.log != "x" && p.log != "y" && p.log != "xy" && p.log != "none")
      r.fail(f.key + ".log", "expected auto, x, y, xy or none");
  }
}

void read_timeline(const JsonReader& r, const Field& f, ExperimentPart& p) {
  if (f.value->kind == JValue::Kind::kBool) {
    p.timeline = f.value->boolean;
    return;
  }
  only_known_keys(r, *f.value, f.key, kTimelineKeys);
  if (const JValue* v = f.value->find("point"))
    p.timeline_point = v->is_string() ? v->string : std::to_string(r.integer(*v, f.key + ".point"));
  if (const JValue* v = f.value->find("window_ms")) {
    p.timeline_window_ms = read_zoom(r, Field{v, f.key + ".window_ms"});
    if (p.timeline_window_ms.first < 0) r.fail(f.key + ".window_ms", "starts before 0 ms");
  }
}

ExperimentPart read_part(const JsonReader& r, const PartReader& pr, const std::string& dir) {
  ExperimentPart p;
  p.id = pr.string("id", true);
  p.title = pr.string("title", true);
  p.description = pr.string("description", false);
  p.scenario = pr.string("scenario", true);
  p.policies = pr.list("policies", true);
  p.axes = pr.list("vary", false);
  p.metrics = pr.list("metrics", true);
  if (const Field f = pr.field("set"); f.value) p.sets = assignments(r, *f.value, f.key);
  if (const Field f = pr.field("repeat"); f.value)
    p.repeat = static_cast<int>(r.integer_in(*f.value, f.key, 1, 1000));
  if (const Field f = pr.field("quick"); f.value) read_quick(r, f, p);
  if (const Field f = pr.field("published"); f.value) p.published_csv = read_published(r, f, dir);
  if (const Field f = pr.field("zoom"); f.value) p.zoom = read_zoom(r, f);
  if (const Field f = pr.field("plot"); f.value) read_plot(r, f, p);
  if (const Field f = pr.field("timeline"); f.value) read_timeline(r, f, p);
  return p;
}

}  // namespace

std::vector<ExperimentPart> read_experiment(const std::string& path) {
  const JValue root = parse_json_file(path);
  const JsonReader r(path);
  only_known_keys(r, root, "", kFileKeys);
  const JValue* defaults = root.find("defaults");
  if (defaults) only_known_keys(r, *defaults, "defaults", kPartKeys);
  const JValue* parts_value = root.find("parts");
  if (!parts_value) r.fail("parts", "missing");
  const JValue& parts = *parts_value;
  if (!parts.is_array() || parts.items.empty())
    r.fail("parts", "expected a non-empty array of parts");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  std::vector<ExperimentPart> out;
  for (size_t i = 0; i < parts.items.size(); ++i) {
    const std::string key = fmt::format("parts[{}]", i);
    only_known_keys(r, parts.items[i], key, kPartKeys);
    out.push_back(read_part(r, PartReader(r, parts.items[i], key, defaults), dir));
  }
  return out;
}

std::vector<std::string> experiment_names(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  if (names.empty())
    throw InputError(dir, "", "no experiment files (*.json); --experiments names the folder");
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return names;
}

}  // namespace schedlab
