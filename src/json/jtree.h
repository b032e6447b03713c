// An order-preserving JSON tree: object members stay in file order and duplicate keys
// are all kept, as rt-app runs a file after its workgen script, which renames repeated
// keys (json-c alone would keep only the last; docs/workloads/rt-app.md). Built with
// nlohmann-json's SAX interface after a pass that blanks out comments and trailing
// commas, so line and column numbers in syntax errors still point into the original file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace schedlab {

struct JValue {
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  bool too_large = false;  // an unsigned literal above INT64_MAX
  std::string string;
  std::vector<JValue> items;
  std::vector<std::pair<std::string, JValue>> members;

  // Declared here and defaulted in jtree.cpp, where JValue is complete: clang 14 with
  // libstdc++ 12 cannot instantiate pair<string, JValue> for the implicit ones.
  JValue();
  JValue(const JValue&);
  JValue(JValue&&) noexcept;
  JValue& operator=(const JValue&);
  JValue& operator=(JValue&&) noexcept;
  ~JValue();

  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat; }

  // First member named key, or nullptr.
  const JValue* find(const std::string& key) const;
  JValue* find(const std::string& key);
  std::string type_name() const;
};

// What the reader tolerated in a file beyond strict JSON.
struct JsonLeniency {
  int comments = 0;
  int trailing_commas = 0;
};

// Parses text; throws InputError naming `file`, the line and column on bad syntax.
JValue parse_json(const std::string& text, const std::string& file,
                  JsonLeniency* leniency = nullptr);
JValue parse_json_file(const std::string& path, JsonLeniency* leniency = nullptr);

// Sets the value at an RFC 6901 pointer, creating object members that are missing.
// `value_text` is parsed as JSON when it is valid JSON, else taken as a string.
// Throws InputError (key = the pointer) when the path cannot be followed.
void set_json_pointer(JValue& root, const std::string& pointer, const std::string& value_text,
                      const std::string& file);

std::string dump_json(const JValue& v);

}  // namespace schedlab
