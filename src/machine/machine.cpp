#include "machine/machine.h"

#include <fmt/format.h>

#include <filesystem>

#include "machine/cost_reader.h"
#include "util/input_file.h"

namespace schedlab {

Time Machine::migration_penalty(CpuId from, CpuId to, Time time_away) const {
  if (from == to || from == kNoCpu || same_core(from, to)) return 0;
  const Time cost = same_llc(from, to) ? shared_cache_migration_cost_ns : migration_cost_ns;
  if (cost == 0) return 0;
  if (time_away < 0) time_away = 0;
  return static_cast<Time>((static_cast<Int128>(cost) * cache_decay_ns) /
                           (cache_decay_ns + time_away));
}

void resize_machine(Machine& m, int cpus) {
  m.cpus = cpus;
  m.capacity.assign(cpus, 1024);
  m.core_of.resize(cpus);
  m.llc_of.assign(cpus, 0);
  m.package_of.assign(cpus, 0);
  for (int i = 0; i < cpus; ++i) m.core_of[i] = i;
}

Machine make_machine(int cpus) {
  Machine m;
  resize_machine(m, cpus);
  return m;
}

namespace {

// A list of CPU groups: every CPU in at most one group; CPUs in none get a group alone.
std::vector<int> read_groups(const JValue& v, const JsonReader& r, const std::string& key,
                             int cpus) {
  if (!v.is_array()) r.fail(key, "expected an array of CPU lists, found " + v.type_name());
  std::vector<int> group_of(cpus, -1);
  int next = 0;
  for (size_t g = 0; g < v.items.size(); ++g) {
    const std::string gkey = fmt::format("{}[{}]", key, g);
    for (int cpu : r.int_list(v.items[g], gkey)) {
      if (cpu >= cpus)
        r.fail(gkey, fmt::format("CPU {} is outside the machine's {} CPUs", cpu, cpus));
      if (group_of[cpu] >= 0) r.fail(gkey, fmt::format("CPU {} is in two groups", cpu));
      group_of[cpu] = next;
    }
    ++next;
  }
  for (int& g : group_of)
    if (g < 0) g = next++;
  return group_of;
}

}  // namespace

Machine read_machine(const JValue& v, const JsonReader& r, const std::string& base_dir,
                     int default_cpus) {
  if (v.is_string()) {  // a machine file, relative to the scenario's folder
    std::filesystem::path path = v.string;
    if (path.is_relative() && !path_exists(path.string()))
      path = std::filesystem::path(base_dir) / path;
    const JsonReader file_reader(path.string());
    const JValue inner = parse_json_file(path.string());
    if (inner.is_string()) file_reader.fail("machine", "a machine file cannot name another one");
    return read_machine(inner, file_reader, path.parent_path().string(), default_cpus);
  }
  r.expect_object(v, "machine");
  Machine m;
  int cpus = default_cpus;
  if (const JValue* c = v.find("cpus"))
    cpus = static_cast<int>(r.integer_in(*c, "machine.cpus", 1, kMaxCpus));
  resize_machine(m, cpus);
  for (const auto& [k, val] : v.members) {
    const std::string key = "machine." + k;
    if (k == "cpus") continue;
    if (k == "name")
      m.name = r.string(val, key);
    else if (k == "description")
      r.string(val, key);
    else if (k == "hz")
      m.hz = static_cast<int>(r.integer_in(val, key, 1, 100000));
    else if (k == "context_switch_ns")
      m.context_switch_ns = r.duration(val, key, 1);
    else if (k == "migration_cost_ns")
      m.migration_cost_ns = r.duration(val, key, 1);
    else if (k == "shared_cache_migration_cost_ns")
      m.shared_cache_migration_cost_ns = r.duration(val, key, 1);
    else if (k == "cache_decay_ns") {
      m.cache_decay_ns = r.duration(val, key, 1);
      if (m.cache_decay_ns == 0) r.fail(key, "must be positive");
    } else if (k == "memory_bytes_per_us")
      m.memory_bytes_per_us = r.integer_in(val, key, 1, INT64_MAX / 4);
    else if (k == "capacity") {
      if (val.is_array()) {
        if (static_cast<int>(val.items.size()) != cpus)
          r.fail(key, fmt::format("{} entries for {} CPUs", val.items.size(), cpus));
        for (int i = 0; i < cpus; ++i)
          m.capacity[i] = static_cast<int>(
              r.integer_in(val.items[i], fmt::format("{}[{}]", key, i), 1, 1 << 20));
      } else {
        m.capacity.assign(cpus, static_cast<int>(r.integer_in(val, key, 1, 1 << 20)));
      }
    } else if (k == "topology") {
      r.expect_object(val, key);
      for (const auto& [tk, tv] : val.members) {
        const std::string tkey = key + "." + tk;
        if (tk == "smt")
          m.core_of = read_groups(tv, r, tkey, cpus);
        else if (tk == "llc")
          m.llc_of = read_groups(tv, r, tkey, cpus);
        else if (tk == "packages")
          m.package_of = read_groups(tv, r, tkey, cpus);
        else
          r.fail(tkey, "unknown key (smt, llc, packages)");
      }
      if (!val.find("llc") && val.find("packages")) m.llc_of = m.package_of;
    } else if (!read_cost_key(m, k, val, r)) {
      r.fail(key, "unknown key");
    }
  }
  return m;
}

}  // namespace schedlab
