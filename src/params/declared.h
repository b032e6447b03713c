// Parameters declared once. A family of parameters (a scheduler's tunables and feature
// switches, a workload generator's knobs) is one X-macro list, one line per parameter:
//
//   #define RR_PARAMS(X)
//     X(int64_t, slice_ns, 10'000'000, params::at_least(1), "schedlab",
//       "time a task runs before it goes to the tail")
//   SCHEDLAB_DECLARE_PARAMS(RrParams, RR_PARAMS)
//
// (each line of the list ending in a backslash).
//
// and from that line follow the typed field (`RrParams::slice_ns`, which code reads, so
// a misspelt name fails to compile), its default, the parser of `name=value` text and of
// scenario JSON, and the row `schedlab policies` / `schedlab generators` lists, as the
// kernel's `SCHED_FEAT(START_DEBIT, true)` gives the enum, the default and the test.
// Presets are rows of defaults: a value of the struct with some fields changed. A family
// whose releases offer different switches (CFS 2.6.31 and 2.6.32) declares every switch
// of the family once; each release's table is `only({...})` or `without({...})` of the
// family's, naming members (so a misspelt one fails to compile).
//
// Column by column: X(type, name, default, limits, since, effect)
//   type    bool, int, int64_t (or Time), double, std::string, or params::CpuList (a list
//           of CPUs, absent by default; Table::check_cpu_lists checks it against the
//           machine once it is known)
//   limits  params::any(), params::at_least(lo), params::range(lo, hi),
//           params::half_open(lo, hi) (hi excluded), params::duration() (nanoseconds,
//           0 up to kMaxDurationNs), params::one_of({"a", "b"}) for strings;
//           `.or_word("auto", 0)` lets a number be written as a word (x264's
//           `threads: "auto"`), and a value equal to a word is listed as that word
//   since   the release or source the parameter and its default come from (for a family
//           of releases, the releases that have it; each preset's row gives its default)
//   effect  one line: what it changes
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "json/jtree.h"
#include "util/types.h"

namespace schedlab::params {

struct Limits {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;                       // a string parameter's values
  std::vector<std::pair<std::string, int64_t>> words;     // words a number may be written as
  bool hi_open = false;                                   // hi itself is outside: [lo, hi)
  bool duration = false;  // a time in ns: "negative duration", "overflows" as JsonReader
  Limits or_word(std::string word, int64_t value) const {
    Limits l = *this;
    l.words.emplace_back(std::move(word), value);
    return l;
  }
};
inline Limits any() { return {}; }
inline Limits at_least(double lo) {
  Limits l;
  l.lo = lo;
  return l;
}
inline Limits range(double lo, double hi) {
  Limits l;
  l.lo = lo;
  l.hi = hi;
  return l;
}
inline Limits half_open(double lo, double hi) {
  Limits l = range(lo, hi);
  l.hi_open = true;
  return l;
}
// As JsonReader::duration reads nanoseconds: 0 up to kMaxDurationNs (2^50, exact in a double).
inline Limits duration() {
  Limits l = range(0, static_cast<double>(kMaxDurationNs));
  l.duration = true;
  return l;
}
inline Limits one_of(std::vector<std::string> choices) {
  Limits l;
  l.choices = std::move(choices);
  return l;
}

// A list of CPUs (a generator's `cpus`): absent means no pinning. Each entry is a CPU
// number below kMaxCpus; whether the machine has it is known only later.
using CpuList = std::optional<std::vector<int>>;

// One parameter as listed: every column as text.
struct Row {
  std::string name, type, value, since, effect;
};

// The declaration of one parameter of struct S.
template <class S>
struct Field {
  using Member =
      std::variant<bool S::*, int S::*, int64_t S::*, double S::*, std::string S::*, CpuList S::*>;
  const char* name;
  const char* type;
  Member member;
  Limits limits;
  const char* since;
  const char* effect;
};

// Untyped helpers (declared_params.cpp). `where` names the owner in messages, e.g.
// "policy 'rr'" or "generator 'x264'".
struct Target {
  std::string file, key, where;
};
[[noreturn]] void fail(const Target& at, const std::string& reason);
void parse_text(const Target& at, const std::string& text, const Limits& l, bool& out);
void parse_text(const Target& at, const std::string& text, const Limits& l, int& out);
void parse_text(const Target& at, const std::string& text, const Limits& l, int64_t& out);
void parse_text(const Target& at, const std::string& text, const Limits& l, double& out);
void parse_text(const Target& at, const std::string& text, const Limits& l, std::string& out);
void parse_text(const Target& at, const std::string& text, const Limits& l, CpuList& out);
void parse_json(const Target& at, const JValue& v, const Limits& l, bool& out);
void parse_json(const Target& at, const JValue& v, const Limits& l, int& out);
void parse_json(const Target& at, const JValue& v, const Limits& l, int64_t& out);
void parse_json(const Target& at, const JValue& v, const Limits& l, double& out);
void parse_json(const Target& at, const JValue& v, const Limits& l, std::string& out);
void parse_json(const Target& at, const JValue& v, const Limits& l, CpuList& out);
std::string show(bool v);
std::string show(int v);
std::string show(int64_t v);
std::string show(double v);
std::string show(const std::string& v);
std::string show(const CpuList& v);
// `text` (a value as show() gives it), or the word of `l` that stands for that value.
std::string show_word(const Limits& l, const std::string& text);
// Every CPU of `cpus` must be one of the machine's `machine_cpus`.
void check_cpus_fit(const Target& at, const CpuList& cpus, int machine_cpus);
[[noreturn]] void fail_unknown(const Target& at, const std::string& name,
                               const std::vector<std::string>& known);

// The family's table: every field of S in declaration order.
template <class S>
class Table {
 public:
  explicit Table(std::vector<Field<S>> fields) : fields_(std::move(fields)) {}
  const std::vector<Field<S>>& fields() const { return fields_; }

  const Field<S>* find(const std::string& name) const {
    for (const Field<S>& f : fields_)
      if (name == f.name) return &f;
    return nullptr;
  }
  // The declared name of a field: `table.name_of(&RrParams::slice_ns)` is "slice_ns", and a
  // misspelt member fails to compile.
  template <class M>
  const char* name_of(M S::*member) const {
    for (const Field<S>& f : fields_) {
      const auto* m = std::get_if<M S::*>(&f.member);
      if (m && *m == member) return f.name;
    }
    return "?";  // not reached: every member of S is declared by its list
  }
  using Member = typename Field<S>::Member;
  // A preset's own list: these fields, in this order (a release's features.h order).
  Table only(std::initializer_list<Member> members) const {
    std::vector<Field<S>> picked;
    for (const Member& m : members) picked.push_back(field_of(m));
    return Table(std::move(picked));
  }
  // Every field but these (the switches a release lacks), in declaration order.
  Table without(std::initializer_list<Member> members) const {
    std::vector<Field<S>> kept;
    for (const Field<S>& f : fields_) {
      bool dropped = false;
      for (const Member& m : members) dropped = dropped || f.member == m;
      if (!dropped) kept.push_back(f);
    }
    return Table(std::move(kept));
  }
  // The same list with one field's effect worded for this preset (a switch whose effect
  // differs between releases).
  Table with_effect(const Member& member, const char* effect) const {
    Table t = *this;
    for (Field<S>& f : t.fields_)
      if (f.member == member) f.effect = effect;
    return t;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const Field<S>& f : fields_) n.emplace_back(f.name);
    return n;
  }

  // `name=value` from the command line or a scenario's text; unknown names list the
  // known ones. at.key is filled in as "--param NAME" when empty.
  void set_text(S& s, const std::string& name, const std::string& text, Target at) const {
    if (at.key.empty()) at.key = "--param " + name;
    const Field<S>* f = find(name);
    if (!f) fail_unknown(at, name, names());
    std::visit([&](auto m) { parse_text(at, text, f->limits, s.*m); }, f->member);
  }
  void set_json(S& s, const std::string& name, const JValue& v, const Target& at) const {
    const Field<S>* f = find(name);
    if (!f) fail_unknown(at, name, names());
    std::visit([&](auto m) { parse_json(at, v, f->limits, s.*m); }, f->member);
  }
  // Every member of a JSON object, in file order; `skip` names keys read elsewhere.
  void set_object(S& s, const JValue& obj, const Target& at,
                  const std::vector<std::string>& skip = {}) const {
    for (const auto& [k, v] : obj.members) {
      bool skipped = false;
      for (const std::string& n : skip) skipped = skipped || n == k;
      if (skipped) continue;
      Target here = at;
      here.key = at.key.empty() ? k : at.key + "." + k;
      set_json(s, k, v, here);
    }
  }
  // Every CPU-list field of `s` against the machine, once it is known (at.key as set_object).
  void check_cpu_lists(const S& s, const Target& at, int machine_cpus) const {
    for (const Field<S>& f : fields_)
      if (const auto* m = std::get_if<CpuList S::*>(&f.member)) {
        Target here = at;
        here.key = at.key.empty() ? f.name : at.key + "." + f.name;
        check_cpus_fit(here, s.**m, machine_cpus);
      }
  }
  std::string value_text(const S& s, const Field<S>& f) const {
    return std::visit([&](auto m) { return show(s.*m); }, f.member);
  }
  std::vector<Row> rows(const S& values) const {
    std::vector<Row> out;
    for (const Field<S>& f : fields_)
      out.push_back(
          {f.name, f.type, show_word(f.limits, value_text(values, f)), f.since, f.effect});
    return out;
  }

 private:
  const Field<S>& field_of(const Member& member) const {
    for (const Field<S>& f : fields_)
      if (f.member == member) return f;
    throw std::logic_error("a member the table does not declare");
  }

  std::vector<Field<S>> fields_;
};

}  // namespace schedlab::params

#define SCHEDLAB_PARAM_FIELD_(type, name, def, limits, since, effect) type name = def;
#define SCHEDLAB_PARAM_ROW_(type, name, def, limits, since, effect) \
  ::schedlab::params::Field<Self>{#name, #type, &Self::name, limits, since, effect},

// Declares `struct Name` with one field per line of LIST and `Name::table()`.
#define SCHEDLAB_DECLARE_PARAMS(Name, LIST)                                  \
  struct Name {                                                              \
    LIST(SCHEDLAB_PARAM_FIELD_)                                              \
    static const ::schedlab::params::Table<Name>& table() {                  \
      using Self = Name;                                                     \
      static const ::schedlab::params::Table<Name> t({LIST(SCHEDLAB_PARAM_ROW_)}); \
      return t;                                                              \
    }                                                                        \
  };
