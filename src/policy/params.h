// Named scheduler parameters: tunables and feature switches set from the scenario or
// the command line (--param name=value), never compiled in.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace schedlab {

struct ParamSpec {
  std::string name;
  int64_t default_value = 0;
  bool is_bool = false;
  std::string description;
};

class ParamValues {
 public:
  explicit ParamValues(const std::vector<ParamSpec>& specs);
  // Parses `text` (an integer, or 0/1 for a boolean); throws InputError naming `file`.
  void set(const std::string& name, const std::string& text, const std::string& file,
           const std::string& policy);
  int64_t get(const std::string& name) const;
  bool flag(const std::string& name) const { return get(name) != 0; }

 private:
  const std::vector<ParamSpec>* specs_;
  std::map<std::string, int64_t> values_;
};

}  // namespace schedlab
