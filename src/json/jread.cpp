#include "json/jread.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace schedlab {

void JsonReader::fail(const std::string& key, const std::string& reason) const {
  throw InputError(file_, key, reason);
}

void JsonReader::expect_object(const JValue& v, const std::string& key) const {
  if (!v.is_object()) fail(key, "expected an object, found " + v.type_name());
}

const JValue& JsonReader::required(const JValue& v, const std::string& key,
                                   const std::string& name) const {
  expect_object(v, key);
  const JValue* member = v.find(name);
  if (!member) fail(key + "." + name, "missing");
  return *member;
}

std::string JsonReader::string(const JValue& v, const std::string& key) const {
  if (!v.is_string()) fail(key, "expected a string, found " + v.type_name());
  return v.string;
}

int64_t JsonReader::integer(const JValue& v, const std::string& key) const {
  if (v.too_large) fail(key, "number overflows a 64-bit integer");
  if (v.kind == JValue::Kind::kInt) return v.integer;
  if (v.kind == JValue::Kind::kFloat && std::fabs(v.real) >= 9.0e18)
    fail(key, "number overflows a 64-bit integer");
  if (v.kind == JValue::Kind::kFloat && std::nearbyint(v.real) == v.real &&
      std::fabs(v.real) < 9.0e18)
    return static_cast<int64_t>(v.real);
  fail(key, "expected an integer, found " + v.type_name());
}

int64_t JsonReader::integer_in(const JValue& v, const std::string& key, int64_t lo,
                               int64_t hi) const {
  const int64_t x = integer(v, key);
  if (x < lo || x > hi) fail(key, fmt::format("{} is outside {}..{}", x, lo, hi));
  return x;
}

double JsonReader::number(const JValue& v, const std::string& key) const {
  if (!v.is_number()) fail(key, "expected a number, found " + v.type_name());
  return v.kind == JValue::Kind::kInt ? static_cast<double>(v.integer) : v.real;
}

bool JsonReader::boolean(const JValue& v, const std::string& key) const {
  if (v.kind == JValue::Kind::kBool) return v.boolean;
  if (v.kind == JValue::Kind::kInt && (v.integer == 0 || v.integer == 1)) return v.integer == 1;
  fail(key, "expected a boolean, found " + v.type_name());
}

Time JsonReader::duration(const JValue& v, const std::string& key, Time unit_ns) const {
  const int64_t x = integer(v, key);
  if (x < 0) fail(key, fmt::format("negative duration {}", x));
  if (x > kMaxDurationNs / unit_ns)
    fail(key, fmt::format("duration {} overflows (the limit is {} ns)", x, kMaxDurationNs));
  return x * unit_ns;
}

std::vector<int> JsonReader::int_list(const JValue& v, const std::string& key) const {
  if (!v.is_array()) fail(key, "expected an array of integers, found " + v.type_name());
  std::vector<int> out;
  for (size_t i = 0; i < v.items.size(); ++i)
    out.push_back(
        static_cast<int>(integer_in(v.items[i], fmt::format("{}[{}]", key, i), 0, kMaxCpus - 1)));
  return out;
}

}  // namespace schedlab
