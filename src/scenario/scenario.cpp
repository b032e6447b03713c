#include "scenario/scenario.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <thread>

#include "scenario/taskgroups.h"
#include "util/closest_word.h"
#include "util/error.h"
#include "workload/generators/generators.h"
#include "workload/rtapp_reader.h"

namespace schedlab {

int host_cpu_count() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxCpus));
}

namespace {

std::string param_text(const JValue& v, const JsonReader& r, const std::string& key) {
  if (v.kind == JValue::Kind::kBool) return v.boolean ? "1" : "0";
  if (v.kind == JValue::Kind::kInt) return std::to_string(v.integer);
  if (v.is_string()) return v.string;
  r.fail(key, "expected an integer, a boolean or a string, found " + v.type_name());
}

void read_scheduler(const JValue& v, const JsonReader& r, Scenario& s) {
  if (v.is_string()) {
    s.policy = v.string;
    return;
  }
  r.expect_object(v, "scheduler");
  for (const auto& [k, val] : v.members) {
    if (k == "policy") {
      s.policy = r.string(val, "scheduler.policy");
    } else if (k == "params") {
      r.expect_object(val, "scheduler.params");
      for (const auto& [pk, pv] : val.members)
        s.params.emplace_back(pk, param_text(pv, r, "scheduler.params." + pk));
    } else {
      r.fail("scheduler." + k, "unknown key (policy, params)");
    }
  }
}

void check_cpus(const std::optional<std::vector<int>>& cpus, int machine_cpus, const JsonReader& r,
                const std::string& key) {
  if (!cpus) return;
  if (cpus->empty()) r.fail(key, "an empty CPU list");
  for (int c : *cpus)
    if (c >= machine_cpus)
      r.fail(key, fmt::format("CPU {} is outside the machine ({} CPUs: 0..{})", c, machine_cpus,
                              machine_cpus - 1));
}

// The key that declared each task: "tasks.NAME" for rt-app's, the generator's for the rest.
struct TaskOrigin {
  std::string key;
  size_t member = 0;  // rt-app's: the position under "tasks" (1-based); 0 for a generator's
};

std::string describe(const TaskOrigin& o) {
  return o.member ? fmt::format("{} (member {} of tasks)", o.key, o.member)
                  : o.key + " (a generator)";
}

// Every thread must be told apart in a report: two tasks of one name, or a task named as
// another's instance ("b-1" beside "b" with 2 instances) or forked copy ("b-2", "b-3", ...
// beside a forked "b" with 2 instances), are refused, naming both.
void check_task_names(const Workload& w, const std::vector<TaskOrigin>& origin,
                      const JsonReader& r) {
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < w.tasks.size(); ++i) {
    const auto [it, fresh] = index_of.try_emplace(w.tasks[i].name, i);
    if (fresh) continue;
    const TaskOrigin &first = origin[it->second], &again = origin[i];
    if (first.member && again.member)
      r.fail(again.key, fmt::format("two tasks named '{}' (members {} and {} of tasks)",
                                    w.tasks[i].name, first.member, again.member));
    r.fail(again.key,
           fmt::format("makes a task named '{}', as {} does", w.tasks[i].name, describe(first)));
  }
  std::vector<bool> forked(w.tasks.size());
  for (const TaskSpec& t : w.tasks)
    for (const Phase& p : t.phases)
      for (const Step& st : p.steps)
        if (st.op == Op::kFork) forked[static_cast<size_t>(st.object)] = true;
  for (size_t i = 0; i < w.tasks.size(); ++i) {
    const std::string& name = w.tasks[i].name;
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos || dash + 1 == name.size()) continue;
    int64_t k = 0;
    const std::string_view digits = std::string_view(name).substr(dash + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (ec != std::errc() || end != digits.data() + digits.size() || std::to_string(k) != digits)
      continue;  // the engine and the host runner name copies "NAME-K", K in decimal
    const auto base = index_of.find(name.substr(0, dash));
    if (base == index_of.end()) continue;
    const TaskSpec& b = w.tasks[base->second];
    if (b.instances > 1 && k < b.instances)
      r.fail(origin[i].key, fmt::format("the name of instance {} of {}, which has {} instances", k,
                                        describe(origin[base->second]), b.instances));
    if (forked[base->second] && k >= b.instances)
      r.fail(origin[i].key, fmt::format("the name of copy {} that a fork of {} makes", k,
                                        describe(origin[base->second])));
  }
}

// "hgo" of "/tasks/hgo/run" (JSON pointer escapes undone), or nothing for another pointer.
std::optional<std::string> task_of_pointer(const std::string& pointer) {
  const std::string prefix = "/tasks/";
  if (pointer.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string token =
      pointer.substr(prefix.size(), pointer.find('/', prefix.size()) - prefix.size());
  std::string name;
  for (size_t i = 0; i < token.size(); ++i)
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1'))
      name += token[++i] == '0' ? '~' : '/';
    else
      name += token[i];
  return name;
}

// A --set edit under /tasks/ names a task of the file: a typo would add a task silently.
void check_task_exists(const JValue& root, const std::string& pointer, const std::string& file) {
  const std::optional<std::string> task = task_of_pointer(pointer);
  if (!task) return;
  const JValue* tasks = root.find("tasks");
  std::vector<std::string> names;
  if (tasks && tasks->is_object()) {
    if (tasks->find(*task)) return;
    for (const auto& [name, _] : tasks->members) names.push_back(name);
  }
  std::string reason = "no task '" + *task + "' in the file";
  if (const auto guess = closest_word(*task, names)) reason += " (did you mean " + *guess + "?)";
  throw InputError(file, "--set " + pointer, reason + "; --set-new adds a task");
}

Scenario build(JValue root, const std::string& file, const std::string& base_dir,
               const JsonLeniency& leniency, const ScenarioOverrides& o) {
  for (const auto& [pointer, value] : o.new_sets) set_json_pointer(root, pointer, value, file);
  for (const auto& [pointer, value] : o.sets) {
    check_task_exists(root, pointer, file);
    set_json_pointer(root, pointer, value, file);
  }
  const JsonReader r(file);
  r.expect_object(root, "(top level)");
  Scenario s;
  s.file = file;
  s.leniency = leniency;
  const int default_cpus = o.cpus.value_or(host_cpu_count());
  const JValue* generators = nullptr;
  bool names_policy = false;
  s.machine = make_machine(default_cpus);
  for (const auto& [k, v] : root.members) {
    if (k == "tasks" || k == "global" || k == "resources" || k == "name" || k == "description") {
      continue;  // "resources" is rt-app's legacy section, ignored as rt-app does
    } else if (k == "machine") {
      s.machine = read_machine(v, r, base_dir, default_cpus);
    } else if (k == "scheduler") {
      read_scheduler(v, r, s);
      names_policy = v.is_string() || v.find("policy");
    } else if (k == "seed") {
      s.seed = static_cast<uint64_t>(r.integer_in(v, "seed", 0, INT64_MAX));
    } else if (k == "workload") {
      if (!v.is_array()) r.expect_object(v, "workload");
      generators = &v;
    } else {
      r.fail(k, "unknown key (tasks, global, machine, scheduler, seed, workload)");
    }
  }
  if (o.cpus && *o.cpus != s.machine.cpus) resize_machine(s.machine, *o.cpus);
  RtAppGlobal global;
  read_rtapp(root, r, s.workload, global, generators == nullptr);
  std::vector<TaskOrigin> origin;
  for (const TaskSpec& t : s.workload.tasks)
    origin.push_back({"tasks." + t.name, origin.size() + 1});
  if (generators) {
    // Generated tasks follow the rt-app ones; jitter follows the run's seed.
    const uint64_t seed = o.seed.value_or(s.seed);
    auto generate = [&](const JValue& g, const std::string& key) {
      generate_workload(g, GeneratorContext{r, s.machine, seed, key}, s.workload);
      origin.resize(s.workload.tasks.size(), TaskOrigin{key, 0});
    };
    if (generators->is_array()) {
      if (generators->items.empty()) r.fail("workload", "an empty list of generators");
      for (size_t i = 0; i < generators->items.size(); ++i)
        generate(generators->items[i], fmt::format("workload[{}]", i));
    } else {
      generate(*generators, "workload");
      if (const JValue* g = generators->find("generator"); g && g->is_string())
        s.generator = g->string;
    }
  }
  check_task_names(s.workload, origin, r);
  validate_workload(s.workload, r);
  for (const TaskSpec& t : s.workload.tasks) {
    check_cpus(t.cpus, s.machine.cpus, r, "tasks." + t.name + ".cpus");
    for (const Phase& p : t.phases)
      check_cpus(p.cpus, s.machine.cpus, r, "tasks." + t.name + ".phases." + p.name + ".cpus");
  }
  s.duration_ns = global.duration_ns;
  s.notes = global.notes;
  if (o.policy) {
    s.policy = *o.policy;
  } else if (!names_policy && o.default_policy) {
    s.policy = *o.default_policy;
    s.policy_note = o.default_policy_reason;
  }
  check_taskgroups(s.workload, s.policy, r, s.notes);
  for (const auto& p : o.params) s.params.push_back(p);
  if (o.seed) s.seed = *o.seed;
  if (o.duration_s) {
    const double ns = *o.duration_s * 1e9;
    if (!(ns > 0) || ns > static_cast<double>(kMaxDurationNs))
      throw InputError(file, "--duration",
                       fmt::format("{} s is not a positive duration of at most {} s", *o.duration_s,
                                   kMaxDurationNs / kNsPerSec));
    s.duration_ns = static_cast<Time>(std::llround(ns));
  }
  s.raw = std::move(root);
  return s;
}

}  // namespace

Scenario load_scenario(const std::string& path, const ScenarioOverrides& o) {
  JsonLeniency leniency;
  JValue root = parse_json_file(path, &leniency);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return build(std::move(root), path, dir.empty() ? "." : dir, leniency, o);
}

Scenario scenario_from_text(const std::string& text, const std::string& name,
                            const ScenarioOverrides& o) {
  JsonLeniency leniency;
  JValue root = parse_json(text, name, &leniency);
  return build(std::move(root), name, ".", leniency, o);
}

}  // namespace schedlab
