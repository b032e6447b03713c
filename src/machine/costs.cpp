// Reading the costs of costs.h from a machine file, and writing a machine file.
#include <fmt/format.h>

#include "machine/cost_reader.h"

namespace schedlab {

namespace {

params::Target target(const JsonReader& r, const std::string& key, const char* where) {
  return {r.file(), key, where};
}

// One state {"name", "idle_ns", "exit_ns"}; a state deeper than the one before it.
IdleState read_idle_state(const JValue& v, const JsonReader& r, const std::string& key) {
  r.expect_object(v, key);
  IdleState s;
  for (const auto& [k, val] : v.members) {
    const std::string kk = key + "." + k;
    if (k == "name")
      s.name = r.string(val, kk);
    else if (k == "idle_ns")
      s.idle_ns = r.duration(val, kk, 1);
    else if (k == "exit_ns")
      s.exit_ns = r.duration(val, kk, 1);
    else
      r.fail(kk, "unknown key (name, idle_ns, exit_ns)");
  }
  if (!v.find("exit_ns")) r.fail(key, "missing exit_ns");
  return s;
}

std::vector<IdleState> read_idle_states(const JValue& v, const JsonReader& r,
                                        const std::string& key) {
  if (v.is_number()) return {IdleState{"", 0, r.duration(v, key, 1)}};
  if (!v.is_array())
    r.fail(key, "expected a number of ns or a list of {idle_ns, exit_ns}, found " + v.type_name());
  std::vector<IdleState> states;
  for (size_t i = 0; i < v.items.size(); ++i) {
    const std::string k = fmt::format("{}[{}]", key, i);
    states.push_back(read_idle_state(v.items[i], r, k));
    if (i > 0 && states[i].idle_ns <= states[i - 1].idle_ns)
      r.fail(k + ".idle_ns", "idle states must be listed by increasing idle_ns");
  }
  return states;
}

BackgroundSource read_source(const JValue& v, const JsonReader& r, const std::string& key,
                             int cpus) {
  r.expect_object(v, key);
  BackgroundSource s;
  BackgroundSource::table().set_object(s, v, target(r, key, "a background source"));
  BackgroundSource::table().check_cpu_lists(s, target(r, key, "a background source"), cpus);
  if (s.policy == "SCHED_FIFO" && (s.priority < 1 || s.priority > 99))
    r.fail(key + ".priority", fmt::format("{} is outside 1..99 for SCHED_FIFO", s.priority));
  if (s.policy == "SCHED_OTHER" && s.priority > 19)
    r.fail(key + ".priority", fmt::format("{} is outside -20..19 (a nice value)", s.priority));
  if (s.rate_hz > 0 && s.burst_ns == 0) r.fail(key + ".burst_ns", "must be positive");
  return s;
}

std::vector<BackgroundSource> read_background(const JValue& v, const JsonReader& r,
                                              const std::string& key, int cpus) {
  if (v.is_object()) return {read_source(v, r, key, cpus)};
  if (!v.is_array())
    r.fail(key, "expected a source object or a list of them, found " + v.type_name());
  std::vector<BackgroundSource> sources;
  for (size_t i = 0; i < v.items.size(); ++i)
    sources.push_back(read_source(v.items[i], r, fmt::format("{}[{}]", key, i), cpus));
  return sources;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string groups_json(const std::vector<int>& group_of) {
  std::vector<std::vector<int>> groups;
  std::vector<int> index;  // group id -> position in groups, in order of first CPU
  for (size_t cpu = 0; cpu < group_of.size(); ++cpu) {
    const auto g = static_cast<size_t>(group_of[cpu]);
    if (g >= index.size()) index.resize(g + 1, -1);
    if (index[g] < 0) {
      index[g] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[static_cast<size_t>(index[g])].push_back(static_cast<int>(cpu));
  }
  std::string out = "[";
  for (size_t i = 0; i < groups.size(); ++i)
    out += fmt::format("{}[{}]", i ? ", " : "", fmt::join(groups[i], ", "));
  return out + "]";
}

}  // namespace

bool read_cost_key(Machine& m, const std::string& key, const JValue& v, const JsonReader& r) {
  const std::string full = "machine." + key;
  if (MachineCosts::table().find(key)) {
    MachineCosts::table().set_json(m.costs, key, v, target(r, full, "the machine"));
    return true;
  }
  if (key == "idle_exit_ns") {
    m.idle_states = read_idle_states(v, r, full);
    return true;
  }
  if (key == "background") {
    m.background = read_background(v, r, full, m.cpus);
    return true;
  }
  return false;
}

Time Machine::idle_exit_ns(Time idle_for) const {
  Time exit = 0;
  for (const IdleState& s : idle_states) {
    if (s.idle_ns > idle_for) break;
    exit = s.exit_ns;
  }
  return exit;
}

std::string machine_file_text(const Machine& m, const std::string& comment) {
  std::string out = "{\n  /* " + comment + " */\n";
  out += fmt::format("  \"name\": {},\n  \"cpus\": {},\n  \"hz\": {},\n", quoted(m.name), m.cpus,
                     m.hz);
  out += fmt::format("  \"topology\": {{\"smt\": {}, \"llc\": {}, \"packages\": {}}},\n",
                     groups_json(m.core_of), groups_json(m.llc_of), groups_json(m.package_of));
  out += fmt::format("  \"context_switch_ns\": {},\n", m.context_switch_ns);
  out += fmt::format("  \"migration_cost_ns\": {},\n", m.migration_cost_ns);
  out +=
      fmt::format("  \"shared_cache_migration_cost_ns\": {},\n", m.shared_cache_migration_cost_ns);
  out += fmt::format("  \"cache_decay_ns\": {},\n", m.cache_decay_ns);
  for (const auto& f : MachineCosts::table().fields())
    out += fmt::format("  \"{}\": {},\n", f.name, MachineCosts::table().value_text(m.costs, f));
  out += "  \"idle_exit_ns\": [";
  for (size_t i = 0; i < m.idle_states.size(); ++i) {
    const IdleState& s = m.idle_states[i];
    out += fmt::format("{}\n    {{\"name\": {}, \"idle_ns\": {}, \"exit_ns\": {}}}", i ? "," : "",
                       quoted(s.name), s.idle_ns, s.exit_ns);
  }
  out += m.idle_states.empty() ? "],\n" : "\n  ],\n";
  out += "  \"background\": [";
  for (size_t i = 0; i < m.background.size(); ++i) {
    const BackgroundSource& b = m.background[i];
    std::string fields;
    for (const auto& f : BackgroundSource::table().fields()) {
      const std::string value = BackgroundSource::table().value_text(b, f);
      const std::string name = f.name;
      if (name == "cpus" && !b.cpus) continue;
      const bool text = name == "name" || name == "policy";
      fields += fmt::format("{}\"{}\": {}", fields.empty() ? "" : ", ", name,
                            text             ? quoted(value)
                            : name == "cpus" ? "[" + value + "]"
                                             : value);
    }
    out += fmt::format("{}\n    {{{}}}", i ? "," : "", fields);
  }
  out += m.background.empty() ? "]\n" : "\n  ]\n";
  return out + "}\n";
}

}  // namespace schedlab
