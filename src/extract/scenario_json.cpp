// The extracted workload as a scenario file: rt-app tasks (one per thread, instance 0
// for a forked one), the edges as semaphores, notes as comments (docs/replay.md).
#include <fmt/format.h>

#include <algorithm>

#include "extract/extract.h"
#include "report/json_text.h"

namespace schedlab {

namespace {

// Stray bytes of a comm (not UTF-8) become "\xNN" first (report/json_text.h).
std::string quoted(const std::string& name) {
  const std::string s = utf8_or_escaped(name);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A comment must not close itself early.
std::string comment_text(const std::string& text) {
  std::string s = utf8_or_escaped(text);
  for (size_t at = s.find("*/"); at != std::string::npos; at = s.find("*/", at)) s[at] = '+';
  return s;
}

std::string step_json(const ExtractedWorkload& w, const XStep& s) {
  switch (s.kind) {
    case XStep::Kind::kRun:
      return fmt::format("\"run\": {{\"ns\": {}}}", s.ns);
    case XStep::Kind::kSleep:
      return fmt::format("\"sleep\": {{\"ns\": {}}}", s.ns);
    case XStep::Kind::kTimer: {
      const XTask& t = w.tasks[static_cast<size_t>(s.ref)];
      return fmt::format("\"timer\": {{\"ref\": {}, \"period\": {}{}}}", quoted("timer:" + t.name),
                         std::max<Time>(1, (s.ns + kNsPerUs / 2) / kNsPerUs),
                         t.timer_origin_ns ? fmt::format(", \"origin_ns\": {}", *t.timer_origin_ns)
                                           : std::string());
    }
    case XStep::Kind::kPost: {
      const std::string name = quoted(edge_name(w, w.edges[static_cast<size_t>(s.ref)]));
      return s.sync ? fmt::format("\"sem_post\": {{\"ref\": {}, \"sync\": true}}", name)
                    : fmt::format("\"sem_post\": {}", name);
    }
    case XStep::Kind::kWait:
      return fmt::format("\"sem_wait\": {}",
                         quoted(edge_name(w, w.edges[static_cast<size_t>(s.ref)])));
    case XStep::Kind::kFork:
      return fmt::format("\"fork\": {}", quoted(w.tasks[static_cast<size_t>(s.ref)].name));
  }
  return {};
}

// "policy" and "priority" (the RT priority, or nice) of a policy other than SCHED_DEADLINE.
std::string policy_keys(SchedPolicy policy, int nice, int rt_priority) {
  return fmt::format("\"policy\": \"{}\", \"priority\": {}", policy_name(policy),
                     is_rt(policy) ? std::clamp(rt_priority, 1, 99) : nice);
}

// The task's own policy keys (a deadline task's parameters where known; else it runs as
// SCHED_OTHER).
std::string task_sched_keys(const XTask& t) {
  if (t.policy == SchedPolicy::kDeadline && t.dl_runtime_ns > 0)
    return fmt::format(
        "\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": {}, \"dl-deadline\": {}, "
        "\"dl-period\": {}",
        t.dl_runtime_ns / kNsPerUs, t.dl_deadline_ns / kNsPerUs, t.dl_period_ns / kNsPerUs);
  const SchedPolicy policy = t.policy == SchedPolicy::kDeadline ? SchedPolicy::kOther : t.policy;
  return policy_keys(policy, t.nice, t.rt_priority);
}

void task_json(std::string& out, const ExtractedWorkload& w, const XTask& t, bool first,
               bool last) {
  out += fmt::format(
      "    /* pid {} tgid {}: {} ns of CPU in {} bursts, {} wake-ups by selected "
      "threads, {} sleeps",
      t.pid, t.tgid, t.cpu_ns, t.bursts, t.edges_in, t.sleeps);
  if (t.unknown_wakers)
    out += fmt::format("; {} wake-ups whose waker is not known (interrupt, idle, lost): sleeps",
                       t.unknown_wakers);
  out += " */\n";
  out += fmt::format("    {}: {{\n", quoted(t.name));
  out += fmt::format("      \"instance\": {}, \"loop\": 1,\n", t.forked ? 0 : 1);
  const bool with_dl = t.policy == SchedPolicy::kDeadline && t.dl_runtime_ns > 0;
  if (with_dl)
    out += t.dl_inferred ? "      /* SCHED_DEADLINE parameters inferred from the trace's "
                           "wake-ups (period: their median interval; runtime: the most CPU "
                           "in one period; deadline = period) */\n"
                         : "      /* SCHED_DEADLINE parameters as given (--dl) */\n";
  else if (t.policy == SchedPolicy::kDeadline)
    out +=
        "      /* SCHED_DEADLINE in the trace: its parameters are not traced, run as "
        "SCHED_OTHER */\n";
  const std::string own_keys = task_sched_keys(t);
  out += "      " + own_keys + ",\n";
  if (!w.cpus_of_every_task.empty()) {
    std::string list;
    for (const int c : w.cpus_of_every_task) list += (list.empty() ? "" : ", ") + std::to_string(c);
    out += fmt::format("      \"cpus\": [{}],\n", list);
  }
  if (!t.forked && t.delay_ns > 0)
    out += fmt::format("      \"delay\": {},\n", (t.delay_ns + kNsPerUs / 2) / kNsPerUs);
  out += "      \"phases\": {\n";
  std::vector<XPhase> phases = t.phases;
  if (phases.empty()) phases.push_back({1, {{XStep::Kind::kRun, 0, 0, false}}});
  const bool mark = first && !w.end_mark.empty();
  for (size_t p = 0; p < phases.size(); ++p) {
    if (phases[p].started_as && (p == 0 || !phases[p - 1].started_as))
      out +=
          "        /* before the thread set its own policy or nice, as its first lines show */\n";
    out += fmt::format("        \"p{}\": {{\"loop\": {}", p, phases[p].loop);
    if (phases[p].started_as && t.started_as) {
      const TaskInfo::StartedAs& a = *t.started_as;
      out += ", " + policy_keys(a.policy == SchedPolicy::kDeadline ? SchedPolicy::kOther : a.policy,
                                a.nice, a.rt_priority);
    } else if (p > 0 && phases[p - 1].started_as) {
      // rt-app keeps the settings of the phase before when a phase has none
      out += ", " + own_keys;
    }
    for (const XStep& s : phases[p].steps) out += ",\n          " + step_json(w, s);
    out += p + 1 < phases.size() || mark ? "},\n" : "}\n";
  }
  if (mark)
    out += fmt::format(
        "        /* --end-mark: the program's own count, not in the trace */\n"
        "        \"p{}\": {{\"loop\": 1,\n          \"mark\": {{\"ref\": {}, \"count\": {}}}}}\n",
        phases.size(), quoted(w.end_mark), w.end_mark_count);
  out += last ? "      }\n    }\n" : "      }\n    },\n";
}

}  // namespace

std::string scenario_json(const ExtractedWorkload& w, const std::string& source,
                          const std::string& machine) {
  std::string out = "{\n";
  out += fmt::format("  /* extracted by schedlab extract from {} ({} tasks, {} edges) */\n",
                     comment_text(source), w.tasks.size(), w.edges.size());
  for (const std::string& n : w.notes) out += "  /* note: " + comment_text(n) + " */\n";
  out += fmt::format("  \"name\": {},\n", quoted("extracted from " + source));
  if (machine.empty())
    out += fmt::format("  \"machine\": {{\"cpus\": {}}},\n", w.cpus);
  else
    out += fmt::format("  \"machine\": {},\n", quoted(machine));
  out += "  \"global\": {\"duration\": -1},\n";
  out += "  \"tasks\": {\n";
  for (size_t i = 0; i < w.tasks.size(); ++i)
    task_json(out, w, w.tasks[i], i == 0, i + 1 == w.tasks.size());
  out += "  }\n}\n";
  return out;
}

}  // namespace schedlab
