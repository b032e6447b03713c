// Typed reads from a JValue with errors that name the file, the key path and the reason.
#pragma once

#include <string>
#include <vector>

#include "json/jtree.h"
#include "util/types.h"

namespace schedlab {

class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;

  void expect_object(const JValue& v, const std::string& key) const;
  // The member `name` of object `v` (whose key is `key`), or an error that it is missing.
  const JValue& required(const JValue& v, const std::string& key, const std::string& name) const;
  std::string string(const JValue& v, const std::string& key) const;
  int64_t integer(const JValue& v, const std::string& key) const;
  int64_t integer_in(const JValue& v, const std::string& key, int64_t lo, int64_t hi) const;
  double number(const JValue& v, const std::string& key) const;
  bool boolean(const JValue& v, const std::string& key) const;
  // A non-negative duration given in `unit_ns` units (µs for rt-app), as nanoseconds.
  Time duration(const JValue& v, const std::string& key, Time unit_ns) const;
  std::vector<int> int_list(const JValue& v, const std::string& key) const;

 private:
  std::string file_;
};

}  // namespace schedlab
