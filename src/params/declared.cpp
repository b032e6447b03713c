#include "params/declared.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "util/error.h"

namespace schedlab::params {

void fail(const Target& at, const std::string& reason) {
  throw InputError(at.file, at.key, reason);
}

void fail_unknown(const Target& at, const std::string& name,
                  const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  Target here = at;
  if (here.key.empty()) here.key = name;
  fail(here, fmt::format("unknown parameter for {} (it has: {})", at.where,
                         list.empty() ? "none" : list));
}

namespace {

std::string number_text(double x) {
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  if (x == std::nearbyint(x) && std::fabs(x) < 9.0e18)
    return std::to_string(static_cast<int64_t>(x));
  return fmt::format("{}", x);
}

bool inside(double x, const Limits& l) {
  return x >= l.lo && (l.hi_open ? x < l.hi : x <= l.hi);
}

// The two limits that word their reasons their own way (durations as JsonReader::duration
// words them); returns when neither applies.
void fail_special(const Target& at, double x, const Limits& l, const std::string& shown) {
  if (l.duration && x < 0) fail(at, fmt::format("negative duration {}", shown));
  if (l.duration)
    fail(at, fmt::format("duration {} overflows (the limit is {} ns)", shown, number_text(l.hi)));
  if (l.hi_open)
    fail(at, fmt::format("{} is outside [{}, {})", shown, number_text(l.lo), number_text(l.hi)));
}

void check_range(const Target& at, double x, const Limits& l, const std::string& shown) {
  if (inside(x, l)) return;
  fail_special(at, x, l, shown);
  if (l.lo == 0 && std::isinf(l.hi)) fail(at, fmt::format("negative value {}", shown));
  if (std::isinf(l.hi)) fail(at, fmt::format("{} is below {}", shown, number_text(l.lo)));
  fail(at, fmt::format("{} is outside {}..{}", shown, number_text(l.lo), number_text(l.hi)));
}

bool word_value(const Limits& l, const std::string& text, int64_t& out) {
  for (const auto& [w, v] : l.words)
    if (w == text) {
      out = v;
      return true;
    }
  return false;
}

void check_choice(const Target& at, const std::string& v, const Limits& l) {
  if (l.choices.empty()) return;
  std::string list;
  for (const std::string& c : l.choices) {
    if (c == v) return;
    list += (list.empty() ? "" : ", ") + c;
  }
  fail(at, fmt::format("unknown value '{}' ({})", v, list));
}

template <class Int>
void parse_int_text(const Target& at, const std::string& text, const Limits& l, Int& out) {
  int64_t word = 0;
  if (word_value(l, text, word)) {
    out = static_cast<Int>(word);
    return;
  }
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) fail(at, fmt::format("'{}' is not an integer", text));
  check_range(at, static_cast<double>(value), l, std::to_string(value));
  if (value < std::numeric_limits<Int>::min() || value > std::numeric_limits<Int>::max())
    fail(at, fmt::format("{} overflows", value));
  out = static_cast<Int>(value);
}

template <class Int>
void parse_int_json(const Target& at, const JValue& v, const Limits& l, Int& out) {
  int64_t word = 0;
  if (v.is_string() && word_value(l, v.string, word)) {
    out = static_cast<Int>(word);
    return;
  }
  int64_t x = 0;
  if (v.too_large) fail(at, "number overflows a 64-bit integer");
  if (v.kind == JValue::Kind::kInt) {
    x = v.integer;
  } else if (v.kind == JValue::Kind::kFloat && std::fabs(v.real) < 9.0e18 &&
             std::nearbyint(v.real) == v.real) {
    x = static_cast<int64_t>(v.real);
  } else if (v.kind == JValue::Kind::kFloat && std::fabs(v.real) >= 9.0e18) {
    fail(at, "number overflows a 64-bit integer");
  } else {
    fail(at, "expected an integer, found " + v.type_name());
  }
  if (!inside(static_cast<double>(x), l)) {
    fail_special(at, static_cast<double>(x), l, std::to_string(x));
    if (std::isinf(l.hi) && l.lo == 0) fail(at, fmt::format("negative value {}", x));
    fail(at, fmt::format("{} is outside {}..{}", x, number_text(l.lo), number_text(l.hi)));
  }
  if (x < std::numeric_limits<Int>::min() || x > std::numeric_limits<Int>::max())
    fail(at, fmt::format("{} overflows", x));
  out = static_cast<Int>(x);
}

}  // namespace

void parse_text(const Target& at, const std::string& text, const Limits&, bool& out) {
  if (text == "0" || text == "false") {
    out = false;
  } else if (text == "1" || text == "true") {
    out = true;
  } else {
    int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) fail(at, fmt::format("'{}' is not an integer", text));
    fail(at, fmt::format("'{}' is not 0 or 1", text));
  }
}
void parse_text(const Target& at, const std::string& text, const Limits& l, int& out) {
  parse_int_text(at, text, l, out);
}
void parse_text(const Target& at, const std::string& text, const Limits& l, int64_t& out) {
  parse_int_text(at, text, l, out);
}
void parse_text(const Target& at, const std::string& text, const Limits& l, double& out) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value))
    fail(at, fmt::format("'{}' is not a number", text));
  check_range(at, value, l, text);
  out = value;
}
void parse_text(const Target& at, const std::string& text, const Limits& l, std::string& out) {
  check_choice(at, text, l);
  out = text;
}

void parse_json(const Target& at, const JValue& v, const Limits&, bool& out) {
  if (v.kind == JValue::Kind::kBool) {
    out = v.boolean;
  } else if (v.kind == JValue::Kind::kInt && (v.integer == 0 || v.integer == 1)) {
    out = v.integer == 1;
  } else {
    fail(at, "expected a boolean, found " + v.type_name());
  }
}
void parse_json(const Target& at, const JValue& v, const Limits& l, int& out) {
  parse_int_json(at, v, l, out);
}
void parse_json(const Target& at, const JValue& v, const Limits& l, int64_t& out) {
  parse_int_json(at, v, l, out);
}
void parse_json(const Target& at, const JValue& v, const Limits& l, double& out) {
  if (!v.is_number()) fail(at, "expected a number, found " + v.type_name());
  const double x = v.kind == JValue::Kind::kInt ? static_cast<double>(v.integer) : v.real;
  if (!inside(x, l)) {
    fail_special(at, x, l, number_text(x));
    fail(at,
         fmt::format("{} is outside {}..{}", number_text(x), number_text(l.lo), number_text(l.hi)));
  }
  out = x;
}
void parse_json(const Target& at, const JValue& v, const Limits& l, std::string& out) {
  if (!v.is_string()) fail(at, "expected a string, found " + v.type_name());
  check_choice(at, v.string, l);
  out = v.string;
}

void parse_text(const Target& at, const std::string& text, const Limits&, CpuList& out) {
  if (text == "all") {
    out.reset();
    return;
  }
  std::vector<int> cpus;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    int cpu = 0;
    parse_int_text(at, text.substr(begin, comma - begin), range(0, kMaxCpus - 1), cpu);
    cpus.push_back(cpu);
    begin = comma + 1;
  }
  out = std::move(cpus);
}

// As JsonReader::int_list: an array of CPU numbers, an error naming the entry.
void parse_json(const Target& at, const JValue& v, const Limits&, CpuList& out) {
  if (!v.is_array()) fail(at, "expected an array of integers, found " + v.type_name());
  std::vector<int> cpus;
  for (size_t i = 0; i < v.items.size(); ++i) {
    Target item = at;
    item.key = fmt::format("{}[{}]", at.key, i);
    int cpu = 0;
    parse_int_json(item, v.items[i], range(0, kMaxCpus - 1), cpu);
    cpus.push_back(cpu);
  }
  out = std::move(cpus);
}

void check_cpus_fit(const Target& at, const CpuList& cpus, int machine_cpus) {
  if (!cpus) return;
  for (int c : *cpus)
    if (c < 0 || c >= machine_cpus)
      fail(at, fmt::format("CPU {} is outside the machine's {} CPUs", c, machine_cpus));
}

std::string show(bool v) {
  return v ? "1" : "0";
}
std::string show(int v) {
  return std::to_string(v);
}
std::string show(int64_t v) {
  return std::to_string(v);
}
std::string show(double v) {
  return fmt::format("{}", v);
}
std::string show(const std::string& v) {
  return v;
}
std::string show(const CpuList& v) {
  if (!v) return "all";
  std::string text;
  for (int c : *v) {
    if (!text.empty()) text += ',';
    text += std::to_string(c);
  }
  return text;
}

std::string show_word(const Limits& l, const std::string& text) {
  for (const auto& [word, value] : l.words)
    if (std::to_string(value) == text) return word;
  return text;
}

}  // namespace schedlab::params
