#include "json/jtree.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/input_file.h"
#include "util/limits.h"

namespace schedlab {

JValue::JValue() = default;
JValue::JValue(const JValue&) = default;
JValue::JValue(JValue&&) noexcept = default;
JValue& JValue::operator=(const JValue&) = default;
JValue& JValue::operator=(JValue&&) noexcept = default;
JValue::~JValue() = default;

const JValue* JValue::find(const std::string& key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

JValue* JValue::find(const std::string& key) {
  for (auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::string JValue::type_name() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "a boolean";
    case Kind::kInt:
      return "an integer";
    case Kind::kFloat:
      return "a number";
    case Kind::kString:
      return "a string";
    case Kind::kArray:
      return "an array";
    case Kind::kObject:
      return "an object";
  }
  return "?";
}

namespace {

// Where a comment starting at i ends (one past it), or i when none starts there.
size_t comment_end(const std::string& s, size_t i) {
  const size_t n = s.size();
  if (s[i] != '/' || i + 1 >= n) return i;
  if (s[i + 1] == '*') {
    const size_t end = s.find("*/", i + 2);
    return end == std::string::npos ? n : end + 2;
  }
  if (s[i + 1] == '/') {
    const size_t end = s.find('\n', i);
    return end == std::string::npos ? n : end;
  }
  return i;
}

// Blanks comments and trailing commas with spaces (newlines kept) so that positions
// in the text handed to the strict parser match the original file.
std::string blank_leniencies(const std::string& in, JsonLeniency& seen) {
  std::string out = in;
  const size_t n = out.size();
  size_t i = 0;
  while (i < n) {
    const char c = out[i];
    if (c == '"') {  // skip a string literal with its escapes
      ++i;
      while (i < n && out[i] != '"') i += (out[i] == '\\') ? 2 : 1;
      ++i;
    } else if (const size_t stop = comment_end(out, i); stop != i) {
      for (size_t k = i; k < stop; ++k)
        if (out[k] != '\n') out[k] = ' ';
      ++seen.comments;
      i = stop;
    } else if (c == ',') {
      // What follows the comma, past blanks and comments (those are blanked when reached):
      // entries commented out often leave their comma behind, and json-c, rt-app's parser,
      // takes a comma before a closing bracket or after the last value of the file.
      size_t k = i + 1;
      while (k < n) {
        if (out[k] == ' ' || out[k] == '\t' || out[k] == '\n' || out[k] == '\r')
          ++k;
        else if (const size_t past = comment_end(out, k); past != k)
          k = past;
        else
          break;
      }
      if (k == n || out[k] == '}' || out[k] == ']') {
        out[i] = ' ';
        ++seen.trailing_commas;
      }
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

class TreeBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TreeBuilder(std::string file) : file_(std::move(file)) {}

  bool null() override { return put(JValue{}); }
  bool boolean(bool v) override {
    JValue j;
    j.kind = JValue::Kind::kBool;
    j.boolean = v;
    return put(std::move(j));
  }
  bool number_integer(number_integer_t v) override {
    JValue j;
    j.kind = JValue::Kind::kInt;
    j.integer = v;
    return put(std::move(j));
  }
  bool number_unsigned(number_unsigned_t v) override {
    JValue j;
    if (v > static_cast<number_unsigned_t>(INT64_MAX)) {
      j.kind = JValue::Kind::kFloat;
      j.real = static_cast<double>(v);
      j.too_large = true;
    } else {
      j.kind = JValue::Kind::kInt;
      j.integer = static_cast<int64_t>(v);
    }
    return put(std::move(j));
  }
  bool number_float(number_float_t v, const string_t&) override {
    JValue j;
    j.kind = JValue::Kind::kFloat;
    j.real = v;
    return put(std::move(j));
  }
  bool string(string_t& v) override {
    JValue j;
    j.kind = JValue::Kind::kString;
    j.string = v;
    return put(std::move(j));
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(JValue::Kind::kObject); }
  bool key(string_t& k) override {
    pending_key_ = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(JValue::Kind::kArray); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    const std::string prefix = "parse error at ";
    const auto at = what.find(prefix);
    if (at != std::string::npos) what = what.substr(at + prefix.size());
    throw InputError(file_, "", "malformed JSON: " + what);
  }

  JValue take() { return std::move(root_); }

 private:
  struct Frame {
    JValue value;
    std::string key;  // the key this container will be stored under in its parent
  };

  bool put(JValue v) {
    if (stack_.empty()) {
      root_ = std::move(v);
    } else if (stack_.back().value.is_object()) {
      stack_.back().value.members.emplace_back(std::move(pending_key_), std::move(v));
    } else {
      stack_.back().value.items.push_back(std::move(v));
    }
    return true;
  }
  bool open(JValue::Kind kind) {
    // A tree is destroyed (and dumped) recursively: a bounded depth keeps that off the
    // end of the stack.
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth))
      throw InputError(file_, "",
                       fmt::format("malformed JSON: arrays and objects nested deeper than {} "
                                   "levels",
                                   kMaxJsonDepth));
    Frame f;
    f.value.kind = kind;
    f.key = std::move(pending_key_);
    stack_.push_back(std::move(f));
    return true;
  }
  bool close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    pending_key_ = std::move(f.key);
    return put(std::move(f.value));
  }

  std::string file_;
  std::vector<Frame> stack_;
  std::string pending_key_;
  JValue root_;
};

void dump_to(const JValue& v, std::string& out) {
  switch (v.kind) {
    case JValue::Kind::kNull:
      out += "null";
      break;
    case JValue::Kind::kBool:
      out += v.boolean ? "true" : "false";
      break;
    case JValue::Kind::kInt:
      out += std::to_string(v.integer);
      break;
    case JValue::Kind::kFloat:
      out += nlohmann::json(v.real).dump();
      break;
    case JValue::Kind::kString:
      out += nlohmann::json(v.string).dump();
      break;
    case JValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        dump_to(v.items[i], out);
      }
      out += ']';
      break;
    case JValue::Kind::kObject:
      out += '{';
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out += ',';
        out += nlohmann::json(v.members[i].first).dump();
        out += ':';
        dump_to(v.members[i].second, out);
      }
      out += '}';
      break;
  }
}

std::string unescape_pointer_token(const std::string& token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace

JValue parse_json(const std::string& text, const std::string& file, JsonLeniency* leniency) {
  JsonLeniency seen;
  const std::string strict = blank_leniencies(text, seen);
  if (leniency) *leniency = seen;
  TreeBuilder builder(file);
  nlohmann::json::sax_parse(strict, &builder);
  return builder.take();
}

JValue parse_json_file(const std::string& path, JsonLeniency* leniency) {
  return parse_json(read_input_file(path), path, leniency);
}

void set_json_pointer(JValue& root, const std::string& pointer, const std::string& value_text,
                      const std::string& file) {
  const std::string key = "--set " + pointer;
  if (pointer.empty() || pointer[0] != '/')
    throw InputError(file, key, "a JSON pointer starts with '/'");
  if (std::count(pointer.begin(), pointer.end(), '/') > kMaxJsonDepth)
    throw InputError(file, key, fmt::format("more than {} levels", kMaxJsonDepth));
  JValue value;
  try {
    value = parse_json(value_text, "--set value");
  } catch (const InputError&) {
    value.kind = JValue::Kind::kString;
    value.string = value_text;
  }
  JValue* node = &root;
  size_t pos = 1;
  while (true) {
    const size_t slash = pointer.find('/', pos);
    const std::string token = unescape_pointer_token(
        pointer.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos));
    const bool last = slash == std::string::npos;
    JValue* child = nullptr;
    if (node->is_object()) {
      child = node->find(token);
      if (!child) {
        node->members.emplace_back(token, JValue{});
        child = &node->members.back().second;
        if (!last) child->kind = JValue::Kind::kObject;
      }
    } else if (node->is_array()) {
      size_t index = 0;
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      const bool numeric =
          !token.empty() && ec == std::errc() && end == token.data() + token.size();
      if (token == "-") {
        node->items.emplace_back();
        child = &node->items.back();
      } else if (numeric && index < node->items.size()) {
        child = &node->items[index];
      } else {
        throw InputError(
            file, key, fmt::format("no element '{}' in an array of {}", token, node->items.size()));
      }
    } else {
      throw InputError(file, key,
                       fmt::format("cannot descend into {} at '{}'", node->type_name(), token));
    }
    if (last) {
      *child = std::move(value);
      return;
    }
    node = child;
    pos = slash + 1;
  }
}

std::string dump_json(const JValue& v) {
  std::string out;
  dump_to(v, out);
  return out;
}

}  // namespace schedlab
