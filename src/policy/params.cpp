#include "policy/params.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "util/error.h"

namespace schedlab {

ParamValues::ParamValues(const std::vector<ParamSpec>& specs) : specs_(&specs) {
  for (const ParamSpec& s : specs) values_[s.name] = s.default_value;
}

void ParamValues::set(const std::string& name, const std::string& text, const std::string& file,
                      const std::string& policy) {
  const std::string key = "--param " + name;
  const ParamSpec* spec = nullptr;
  for (const ParamSpec& s : *specs_)
    if (s.name == name) spec = &s;
  if (!spec) {
    std::string known;
    for (const ParamSpec& s : *specs_) known += (known.empty() ? "" : ", ") + s.name;
    throw InputError(file, key,
                     fmt::format("unknown parameter for policy '{}' (it has: {})", policy,
                                 known.empty() ? "none" : known));
  }
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end)
    throw InputError(file, key, fmt::format("'{}' is not an integer", text));
  if (spec->is_bool && value != 0 && value != 1)
    throw InputError(file, key, fmt::format("'{}' is not 0 or 1", text));
  if (!spec->is_bool && value < 0)
    throw InputError(file, key, fmt::format("negative value {}", value));
  values_[name] = value;
}

int64_t ParamValues::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("undeclared parameter " + name);
  return it->second;
}

}  // namespace schedlab
