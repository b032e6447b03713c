#include "workload/rtapp_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "workload/innodb_rw_lock_steps.h"
#include "workload/lwlock_steps.h"

namespace schedlab {
namespace {

// rt-app decides an event's type by the prefix of its key ("run0", "sleep_b").
// Longer prefixes come first where one is a prefix of another.
constexpr std::pair<const char*, Op> kEventPrefixes[] = {
    {"runtime", Op::kRuntime},
    {"run", Op::kRun},
    {"sleep", Op::kSleep},
    {"timer", Op::kTimer},
    {"unlock", Op::kUnlock},
    {"lock", Op::kLock},
    {"wait_progress", Op::kWaitProgress},
    {"wait", Op::kWait},
    {"signal", Op::kSignal},
    {"broad", Op::kBroadcast},
    {"sync", Op::kSync},
    {"barrier", Op::kBarrier},
    {"suspend", Op::kSuspend},
    {"resume", Op::kResume},
    {"yield", Op::kYield},
    {"fork", Op::kFork},
    {"mem", Op::kMem},
    {"iorun", Op::kIoRun},
    {"sem_post", Op::kSemPost},
    {"sem_wait", Op::kSemWait},
    {"spin_lock", Op::kSpinLock},
    {"spin_unlock", Op::kSpinUnlock},
    {"lwlock_acquire", Op::kLwLockAcquire},
    {"lwlock_release", Op::kLwLockRelease},
    {"innodb_rw_lock", Op::kInnodbRwLock},
    {"innodb_rw_unlock", Op::kInnodbRwUnlock},
    {"advance", Op::kAdvance},
    {"mark", Op::kMark},
};

std::optional<Op> event_of_key(const std::string& key) {
  for (const auto& [prefix, op] : kEventPrefixes)
    if (key.rfind(prefix, 0) == 0) return op;
  return std::nullopt;
}

// Global keys rt-app v1.0 reads; the ones that only matter to a real run are accepted
// and ignored by the simulator. "frag" is the legacy AQuoSA key of the mp3/video examples.
const std::set<std::string> kGlobalKeys = {
    "duration",  "calibration",     "default_policy",   "pi_enabled", "lock_pages",
    "logdir",    "log_basename",    "log_size",         "ftrace",     "gnuplot",
    "io_device", "mem_buffer_size", "cumulative_slack", "frag"};

// rt-app's priority for RT threads that name none (rt-app_args.h DEFAULT_THREAD_PRIORITY).
constexpr int kDefaultRtPriority = 10;

// rt-app's default build supports this many taskgroups (rt-app_taskgroups.c,
// max_nbr_tgs), and refuses a file naming more.
constexpr size_t kMaxTaskgroups = 32;

// "loop": -1 on a phase repeats it for ever (rt-app's phase counter never reaches -1);
// "run": -1 runs for ever (rt-app passes it to loadwait() as an unsigned count). Both
// stand for the longest the engine can run, which no run reaches.
constexpr int64_t kEndlessLoop = INT64_MAX;
constexpr Time kEndlessRun = kMaxDurationNs;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

struct ForkRef {
  size_t task, phase, step;
  std::string target, key;
};

class RtAppParser {
 public:
  RtAppParser(const JsonReader& r, Workload& w, RtAppGlobal& g) : r_(r), w_(w), g_(g) {}

  void read(const JValue& root, bool tasks_required) {
    r_.expect_object(root, "(top level)");
    if (const JValue* global = root.find("global")) read_global(*global);
    const JValue* tasks = root.find("tasks");
    if (!tasks && !tasks_required) return;
    if (!tasks) r_.fail("tasks", "missing: a scenario needs a \"tasks\" object");
    r_.expect_object(*tasks, "tasks");
    if (tasks->members.empty()) r_.fail("tasks", "no task defined");
    for (const auto& [name, spec] : tasks->members) read_task(name, spec);
    resolve_forks();
    count_barrier_users();
    check_taskgroups();
    if (!clamped_.empty())
      g_.notes.push_back("util_min/util_max of " + joined(clamped_) +
                         " recorded; no effect: the model has no utilization clamping (uclamp)");
    if (!membound_.empty())
      g_.notes.push_back("nodes_membind of " + joined(membound_) +
                         " recorded; no effect: the machine model has no NUMA nodes");
    if (!reclaiming_.empty())
      g_.notes.push_back("dl-reclaim of " + joined(reclaiming_) +
                         " recorded; no effect: the deadline class does not model GRUB's "
                         "bandwidth reclaiming (SCHED_FLAG_RECLAIM)");
  }

 private:
  void read_global(const JValue& g) {
    r_.expect_object(g, "global");
    std::vector<std::string> unknown;
    for (const auto& [k, v] : g.members) {
      const std::string key = "global." + k;
      if (!kGlobalKeys.count(k)) {
        unknown.push_back(key);
        continue;
      }
      if (k == "duration") {
        const int64_t seconds = r_.integer(v, key);
        if (seconds < -1) r_.fail(key, fmt::format("negative duration {}", seconds));
        if (seconds > kMaxDurationNs / kNsPerSec)
          r_.fail(key, fmt::format("duration {} s overflows", seconds));
        if (seconds > 0) g_.duration_ns = seconds * kNsPerSec;
      } else if (k == "default_policy") {
        g_.default_policy = parse_policy(v, key);
      }
    }
    if (!unknown.empty())  // rt-app reads the keys it knows and never looks at the others
      g_.notes.push_back(joined(unknown) + ": not rt-app keys; ignored, as rt-app ignores them");
  }

  SchedPolicy parse_policy(const JValue& v, const std::string& key) const {
    const std::string s = r_.string(v, key);
    if (s == "SCHED_OTHER") return SchedPolicy::kOther;
    if (s == "SCHED_BATCH") return SchedPolicy::kBatch;
    if (s == "SCHED_IDLE") return SchedPolicy::kIdle;
    if (s == "SCHED_FIFO") return SchedPolicy::kFifo;
    if (s == "SCHED_RR") return SchedPolicy::kRR;
    if (s == "SCHED_DEADLINE") return SchedPolicy::kDeadline;
    if (s == "SCHED_ISO") return SchedPolicy::kIso;  // -ck kernels (BFS) only
    r_.fail(key, "unknown policy '" + s +
                     "' (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, "
                     "SCHED_DEADLINE, SCHED_ISO)");
  }

  // policy/priority/dl-* may come in any order, so they are collected, then applied.
  struct SchedKeys {
    const JValue* policy = nullptr;
    const JValue* priority = nullptr;
    const JValue* dl_runtime = nullptr;
    const JValue* dl_period = nullptr;
    const JValue* dl_deadline = nullptr;
    const JValue* util_min = nullptr;
    const JValue* util_max = nullptr;
    std::string prefix;

    bool take(const std::string& k, const JValue& v) {
      if (k == "policy")
        policy = &v;
      else if (k == "priority")
        priority = &v;
      else if (k == "dl-runtime")
        dl_runtime = &v;
      else if (k == "dl-period")
        dl_period = &v;
      else if (k == "dl-deadline")
        dl_deadline = &v;
      else if (k == "util_min")
        util_min = &v;
      else if (k == "util_max")
        util_max = &v;
      else
        return false;
      return true;
    }
    bool any() const {
      return policy || priority || dl_runtime || dl_period || dl_deadline || util_min || util_max;
    }
  };

  SchedSettings apply_sched(const SchedKeys& keys, SchedSettings s) const {
    if (keys.policy) s.policy = parse_policy(*keys.policy, keys.prefix + "policy");
    const std::string pkey = keys.prefix + "priority";
    if (is_rt(s.policy)) {
      s.rt_priority = keys.priority ? static_cast<int>(r_.integer_in(*keys.priority, pkey, 1, 99))
                                    : (s.rt_priority ? s.rt_priority : kDefaultRtPriority);
    } else if (keys.priority) {
      // For SCHED_OTHER/BATCH/IDLE rt-app's "priority" is the nice value.
      s.nice = static_cast<int>(r_.integer_in(*keys.priority, pkey, -20, 19));
    }
    if (keys.dl_runtime)
      s.dl_runtime_ns = r_.duration(*keys.dl_runtime, keys.prefix + "dl-runtime", kNsPerUs);
    if (keys.dl_period)
      s.dl_period_ns = r_.duration(*keys.dl_period, keys.prefix + "dl-period", kNsPerUs);
    if (keys.dl_deadline)
      s.dl_deadline_ns = r_.duration(*keys.dl_deadline, keys.prefix + "dl-deadline", kNsPerUs);
    // -1 (rt-app's "no change") or a clamp of 0..1024 (SCHED_CAPACITY_SCALE).
    if (keys.util_min)
      s.util_min =
          static_cast<int>(r_.integer_in(*keys.util_min, keys.prefix + "util_min", -1, 1024));
    if (keys.util_max)
      s.util_max =
          static_cast<int>(r_.integer_in(*keys.util_max, keys.prefix + "util_max", -1, 1024));
    if (s.util_min >= 0 && s.util_max >= 0 && s.util_min > s.util_max)  // uclamp_validate
      r_.fail(keys.prefix + "util_min",
              fmt::format("util_min {} is above util_max {}", s.util_min, s.util_max));
    if (s.policy == SchedPolicy::kDeadline) {
      if (s.dl_runtime_ns <= 0)
        r_.fail(keys.prefix + "dl-runtime", "SCHED_DEADLINE needs a positive dl-runtime");
      // rt-app's defaults (parse_thread_sched_data): dl-period = dl-runtime, dl-deadline =
      // dl-period.
      if (s.dl_period_ns <= 0) s.dl_period_ns = s.dl_runtime_ns;
      if (s.dl_deadline_ns <= 0) s.dl_deadline_ns = s.dl_period_ns;
      if (!(s.dl_runtime_ns <= s.dl_deadline_ns && s.dl_deadline_ns <= s.dl_period_ns))
        r_.fail(keys.prefix + (keys.dl_period ? "dl-runtime" : "dl-period"),
                keys.dl_period ? "needs dl-runtime <= dl-deadline <= dl-period"
                               : "needs dl-runtime <= dl-deadline <= dl-period (dl-period "
                                 "defaults to dl-runtime, as in rt-app)");
    }
    return s;
  }

  void read_task(const std::string& name, const JValue& v) {
    const std::string key = "tasks." + name;
    r_.expect_object(v, key);
    TaskSpec task;
    task.name = name;
    task.sched.policy = g_.default_policy;
    SchedKeys sched;
    sched.prefix = key + ".";
    Phase direct;
    const JValue* phases = nullptr;
    w_.tasks.emplace_back();  // reserve the index so fork references can point at steps
    const size_t index = w_.tasks.size() - 1;
    for (const auto& [k, val] : v.members) {
      const std::string kk = key + "." + k;
      if (k == "instance") {
        task.instances = static_cast<int>(r_.integer_in(val, kk, 0, 100000));
      } else if (k == "loop") {
        task.loop = r_.integer_in(val, kk, -1, INT64_MAX);
      } else if (k == "cpus") {
        task.cpus = r_.int_list(val, kk);
      } else if (k == "delay") {
        task.delay_ns = r_.duration(val, kk, kNsPerUs);
      } else if (k == "phases") {
        phases = &val;
      } else if (k == "memory_intensity") {  // before the events: "mem..." is an event prefix
        task.memory_intensity_q10 = memory_intensity(val, kk);
      } else if (k == "taskgroup") {
        task.taskgroup = read_taskgroup(val, kk);
      } else if (k == "nodes_membind") {
        task.nodes_membind = read_nodes(val, kk, name);
      } else if (k == "dl-reclaim") {  // rt-app's grub-support branch: SCHED_FLAG_RECLAIM
        if (r_.boolean(val, kk)) reclaiming_.push_back(name);
      } else if (sched.take(k, val)) {
      } else if (auto op = event_of_key(k)) {
        add_step(*op, val, kk, index, 0, direct.steps);
      } else {
        r_.fail(kk, "unknown key (not a task setting and not an rt-app event)");
      }
    }
    task.sched = apply_sched(sched, task.sched);
    note_clamps(name, task.sched);
    if (phases) {
      if (!direct.steps.empty())
        r_.fail(key + ".phases", "a task has either events or phases, not both");
      r_.expect_object(*phases, key + ".phases");
      if (phases->members.empty()) r_.fail(key + ".phases", "no phase defined");
      for (const auto& [pname, pv] : phases->members)
        task.phases.push_back(
            read_phase(pname, pv, key + ".phases." + pname, index, task.phases.size(), task.sched));
    } else {
      if (direct.steps.empty()) r_.fail(key, "the task has no events");
      task.phases.push_back(std::move(direct));
    }
    w_.tasks[index] = std::move(task);
  }

  // schedlab's own key: 0 (compute-bound) .. 1 (memory-bound), kept in 1/1024ths.
  int memory_intensity(const JValue& v, const std::string& key) const {
    const double m = r_.number(v, key);
    if (!(m >= 0 && m <= 1)) r_.fail(key, fmt::format("{} is outside 0..1", m));
    return static_cast<int>(std::lround(m * 1024));
  }

  Phase read_phase(const std::string& name, const JValue& v, const std::string& key,
                   size_t task_index, size_t phase_index, const SchedSettings& task_sched) {
    r_.expect_object(v, key);
    Phase phase;
    phase.name = name;
    SchedKeys sched;
    sched.prefix = key + ".";
    for (const auto& [k, val] : v.members) {
      const std::string kk = key + "." + k;
      if (k == "loop") {
        phase.loop = r_.integer_in(val, kk, -1, INT64_MAX);
        if (phase.loop == 0) r_.fail(kk, "a phase runs at least once (-1: for ever)");
        if (phase.loop == -1) phase.loop = kEndlessLoop;
      } else if (k == "cpus") {
        phase.cpus = r_.int_list(val, kk);
      } else if (k == "memory_intensity") {
        phase.memory_intensity_q10 = memory_intensity(val, kk);
      } else if (k == "taskgroup") {
        phase.taskgroup = read_taskgroup(val, kk);
      } else if (k == "nodes_membind") {
        phase.nodes_membind = read_nodes(val, kk, key);
      } else if (sched.take(k, val)) {
      } else if (auto op = event_of_key(k)) {
        add_step(*op, val, kk, task_index, phase_index, phase.steps);
      } else {
        r_.fail(kk, "unknown key (not a phase setting and not an rt-app event)");
      }
    }
    if (sched.any()) {
      // rt-app reads a phase's dl-* on their own (dl-period defaults to the phase's
      // dl-runtime, dl-deadline to its dl-period: parse_sched_data), not over the task's.
      SchedSettings base = task_sched;
      if (sched.dl_runtime || sched.dl_period || sched.dl_deadline)
        base.dl_runtime_ns = base.dl_period_ns = base.dl_deadline_ns = 0;
      phase.sched = apply_sched(sched, base);
      note_clamps(key, *phase.sched);
    }
    if (phase.steps.empty()) r_.fail(key, "the phase has no events");
    return phase;
  }

  // A run/runtime/sleep length: rt-app's microseconds, or schedlab's {"ns": N} in
  // nanoseconds, as `extract` writes the bursts it measured.
  Time step_duration(const JValue& v, const std::string& key) {
    if (!v.is_object()) return r_.duration(v, key, kNsPerUs);
    for (const auto& [k, _] : v.members)
      if (k != "ns") r_.fail(key + "." + k, "unknown key (a duration object has only ns)");
    return r_.duration(r_.required(v, key, "ns"), key + ".ns", 1);
  }

  // An event's steps: one, or an LWLock's sequence (workload/lwlock_steps.h).
  void add_step(Op op, const JValue& v, const std::string& key, size_t task, size_t phase,
                std::vector<Step>& steps) {
    if (op == Op::kLwLockAcquire || op == Op::kLwLockRelease)
      read_lwlock(op, v, key, steps);
    else if (op == Op::kInnodbRwLock || op == Op::kInnodbRwUnlock)
      read_innodb_rw_lock(op, v, key, steps);
    else
      steps.push_back(read_step(op, v, key, task, phase, steps.size()));
  }

  struct LockEvent {
    std::string name;
    LwLockMode mode = LwLockMode::kExclusive;
    Time mutex_ns = 0;
  };

  // An LWLock's or an InnoDB rw-lock's event: the lock's name, or an object of "ref",
  // "mode" (when taking the lock), "mutex_ns" and the keys `other(k, val, kk)` reads
  // (false: an unknown key, failed with `unknown`).
  template <class OtherKey>
  LockEvent read_lock_event(const JValue& v, const std::string& key, bool taking,
                            const char* unknown, OtherKey&& other) {
    LockEvent e;
    if (v.is_string()) {
      e.name = v.string;
      return e;
    }
    r_.expect_object(v, key);
    for (const auto& [k, val] : v.members) {
      const std::string kk = key + "." + k;
      if (k == "ref") {
        e.name = r_.string(val, kk);
      } else if (k == "mode" && taking) {
        const std::string m = r_.string(val, kk);
        if (m != "shared" && m != "exclusive") r_.fail(kk, "expected \"shared\" or \"exclusive\"");
        e.mode = m == "shared" ? LwLockMode::kShared : LwLockMode::kExclusive;
      } else if (k == "mutex_ns") {
        e.mutex_ns = r_.duration(val, kk, 1);
      } else if (!other(k, val, kk)) {
        r_.fail(kk, unknown);
      }
    }
    if (e.name.empty()) r_.fail(key + ".ref", "missing");
    return e;
  }

  // "lwlock_acquire": name (exclusive) | {"ref", "mode": "shared" | "exclusive", "mutex_ns",
  // "tas_round_ns"}; "lwlock_release": name | {"ref", "mutex_ns", "tas_round_ns"}. The
  // LWLock's mutex spinlock waits as PostgreSQL 8.4's s_lock, spins_per_delay rounds of
  // tas_round_ns each (default kDefaultTasRoundNs, an assumption).
  void read_lwlock(Op op, const JValue& v, const std::string& key, std::vector<Step>& steps) {
    SpinLockConfig c;
    c.tas_round_ns = kDefaultTasRoundNs;
    const LockEvent e =
        read_lock_event(v, key, op == Op::kLwLockAcquire, "unknown key",
                        [&](const std::string& k, const JValue& val, const std::string& kk) {
                          if (k != "tas_round_ns") return false;
                          c.tas_round_ns = r_.duration(val, kk, 1);
                          if (c.tas_round_ns <= 0) r_.fail(kk, "must be positive");
                          return true;
                        });
    const int32_t lock = declare_lwlock(w_, e.name);
    w_.spin_configs.push_back(c);
    const auto config = static_cast<int64_t>(w_.spin_configs.size() - 1);
    if (op == Op::kLwLockAcquire)
      append_lwlock_acquire(w_, steps, lock, e.mode, config, e.mutex_ns);
    else
      append_lwlock_release(w_, steps, lock, config, e.mutex_ns);
  }

  // "innodb_rw_lock": name (exclusive) | {"ref", "mode": "shared" | "exclusive",
  // "mutex_ns", "spin_rounds", "spin_wait_delay", "delay_unit_ns"}; "innodb_rw_unlock":
  // name | {"ref", "mutex_ns"}. The rw-lock's mutex and its own spin wait as MySQL 5.1's
  // InnoDB: spin_rounds (SYNC_SPIN_ROUNDS, 20) delays of uniform 0..spin_wait_delay
  // (srv_spin_wait_delay, 5) units of delay_unit_ns (20 ns, an assumption: the oltp
  // generator's ut_delay_unit_ns); the mutex then one sched_yield and its event. The spin
  // settings belong to the lock: a later use that names other ones is an error.
  void read_innodb_rw_lock(Op op, const JValue& v, const std::string& key,
                           std::vector<Step>& steps) {
    SpinLockConfig c;
    c.spin_rounds = 20;
    c.round_delay_max = 5;
    c.delay_unit_ns = 20;
    c.yield_rounds = 1;
    c.fallback = SpinFallback::kEvent;
    bool spin_given = false;
    const bool locking = op == Op::kInnodbRwLock;
    const LockEvent e = read_lock_event(
        v, key, locking,
        locking ? "unknown key (ref, mode, mutex_ns, spin_rounds, spin_wait_delay, delay_unit_ns)"
                : "unknown key (ref, mutex_ns)",
        [&](const std::string& k, const JValue& val, const std::string& kk) {
          if (!locking) return false;
          if (k == "spin_rounds")
            c.spin_rounds = static_cast<int>(r_.integer_in(val, kk, 0, 1000000));
          else if (k == "spin_wait_delay")
            c.round_delay_max = static_cast<int>(r_.integer_in(val, kk, 0, 1000000));
          else if (k == "delay_unit_ns")
            c.delay_unit_ns = r_.duration(val, kk, 1);
          else
            return false;
          spin_given = true;
          return true;
        });
    const int32_t known = w_.innodb_rwlocks.find(e.name);
    if (known >= 0) {
      const SpinLockConfig& had =
          w_.spin_configs[w_.innodb_rwlock_spin_config[static_cast<size_t>(known)]];
      if (spin_given &&
          (had.spin_rounds != c.spin_rounds || had.round_delay_max != c.round_delay_max ||
           had.delay_unit_ns != c.delay_unit_ns))
        r_.fail(key, "spin settings differ from those of the rw-lock's first use");
    }
    int64_t config = -1;
    if (known < 0) {
      w_.spin_configs.push_back(c);
      config = static_cast<int64_t>(w_.spin_configs.size() - 1);
    }
    const int32_t lock = declare_innodb_rwlock(w_, e.name, config);
    if (locking)
      append_innodb_rw_lock(w_, steps, lock, e.mode, e.mutex_ns);
    else
      append_innodb_rw_unlock(w_, steps, lock, e.mutex_ns);
  }

  Step read_step(Op op, const JValue& v, const std::string& key, size_t task, size_t phase,
                 size_t index) {
    Step s;
    s.op = op;
    switch (op) {
      case Op::kRun:
        s.duration_ns =
            v.kind == JValue::Kind::kInt && v.integer == -1 ? kEndlessRun : step_duration(v, key);
        break;
      case Op::kRuntime:
      case Op::kSleep:
        s.duration_ns = step_duration(v, key);
        break;
      case Op::kMem:
      case Op::kIoRun:
        s.amount = r_.integer_in(v, key, 0, kMaxDurationNs);
        break;
      case Op::kTimer: {
        const JValue& ref = r_.required(v, key, "ref");
        const JValue& period = r_.required(v, key, "period");
        for (const auto& [k, _] : v.members)
          if (k != "ref" && k != "period" && k != "mode" && k != "origin_ns")
            r_.fail(key + "." + k, "unknown key");
        const std::string name = r_.string(ref, key + ".ref");
        s.duration_ns = r_.duration(period, key + ".period", kNsPerUs);
        if (const JValue* mode = v.find("mode")) {
          const std::string m = r_.string(*mode, key + ".mode");
          if (m != "relative" && m != "absolute")
            r_.fail(key + ".mode", "expected \"relative\" or \"absolute\", found \"" + m + "\"");
          s.absolute = m == "absolute";
        }
        s.object = w_.timers.intern(name);
        w_.timer_unique.resize(w_.timers.size());
        w_.timer_unique[s.object] = name.rfind("unique", 0) == 0;
        w_.timer_origin_ns.resize(w_.timers.size());
        if (const JValue* origin = v.find("origin_ns")) {
          // a grid origin before the run's start is allowed (a recording's window opened
          // within a period)
          const Time ns =
              r_.integer_in(*origin, key + ".origin_ns", -kMaxDurationNs, kMaxDurationNs);
          std::optional<Time>& known = w_.timer_origin_ns[static_cast<size_t>(s.object)];
          if (known && *known != ns)
            r_.fail(key + ".origin_ns",
                    fmt::format("timer '{}' already has origin_ns {} (one grid per timer)", name,
                                *known));
          known = ns;
        }
        break;
      }
      case Op::kLock:
      case Op::kUnlock:
        s.object = w_.mutexes.intern(r_.string(v, key));
        break;
      case Op::kWait:
      case Op::kSync: {
        s.object = w_.condvars.intern(r_.string(r_.required(v, key, "ref"), key + ".ref"));
        s.mutex = w_.mutexes.intern(r_.string(r_.required(v, key, "mutex"), key + ".mutex"));
        break;
      }
      case Op::kSignal:
      case Op::kBroadcast:
        s.object = w_.condvars.intern(r_.string(v, key));
        break;
      case Op::kBarrier:
        s.object = w_.barriers.intern(r_.string(v, key));
        break;
      case Op::kSuspend:
      case Op::kResume:
        s.object = w_.suspend_queues.intern(r_.string(v, key));
        break;
      case Op::kYield:
        break;
      case Op::kFork:
        forks_.push_back({task, phase, index, r_.string(v, key), key});
        break;
      case Op::kSpinLock:
        read_spin_lock(v, key, s);
        break;
      case Op::kSpinUnlock:
        s.object = w_.spinlocks.intern(r_.string(v, key));
        break;
      case Op::kLwLockAcquire:  // add_step's
      case Op::kLwLockRelease:
      case Op::kInnodbRwLock:
      case Op::kInnodbRwUnlock:
        break;
      case Op::kAdvance:
      case Op::kMark:
        read_named_count(v, key, op == Op::kAdvance ? w_.counters : w_.marks,
                         op == Op::kAdvance ? "by" : "count", s);
        break;
      case Op::kWaitProgress: {
        s.object = w_.counters.intern(r_.string(r_.required(v, key, "ref"), key + ".ref"));
        s.amount = r_.integer_in(r_.required(v, key, "value"), key + ".value", 0, INT64_MAX);
        break;
      }
      case Op::kSemPost:
      case Op::kSemWait:
        read_semaphore_step(v, key, op == Op::kSemPost, s);
        break;
    }
    return s;
  }

  void read_named_count(const JValue& v, const std::string& key, NameTable& table,
                        const char* count_key, Step& s) {
    s.amount = 1;
    if (v.is_string()) {
      s.object = table.intern(v.string);
      return;
    }
    const JValue& ref = r_.required(v, key, "ref");
    for (const auto& [k, val] : v.members) {
      if (k == "ref") continue;
      if (k != count_key) r_.fail(key + "." + k, "unknown key");
      s.amount = r_.integer_in(val, key + "." + k, 0, INT64_MAX / 4);
    }
    s.object = table.intern(r_.string(ref, key + ".ref"));
  }

  // "sem_post": name | {"ref", "count", "sync"}; "sem_wait": name | {"ref", "count"}.
  void read_semaphore_step(const JValue& v, const std::string& key, bool post, Step& s) {
    s.amount = 1;
    if (v.is_string()) {
      s.object = w_.semaphores.intern(v.string);
      return;
    }
    const JValue& ref = r_.required(v, key, "ref");
    for (const auto& [k, val] : v.members) {
      const std::string kk = key + "." + k;
      if (k == "ref") continue;
      if (k == "count")
        s.amount = r_.integer_in(val, kk, 1, INT64_MAX / 4);
      else if (k == "sync" && post)
        s.sync = r_.boolean(val, kk);
      else if (k == "sleep_first" && !post)
        s.duration_ns = r_.duration(val, kk, kNsPerUs);
      else
        r_.fail(kk,
                post ? "unknown key (ref, count, sync)" : "unknown key (ref, count, sleep_first)");
    }
    s.object = w_.semaphores.intern(r_.string(ref, key + ".ref"));
  }

  void read_spin_lock(const JValue& v, const std::string& key, Step& s) {
    SpinLockConfig c;
    std::string name;
    if (v.is_string()) {
      name = v.string;
    } else {
      r_.expect_object(v, key);
      for (const auto& [k, val] : v.members) {
        const std::string kk = key + "." + k;
        if (k == "ref")
          name = r_.string(val, kk);
        else if (k == "spin_ns")
          c.spin_ns = r_.duration(val, kk, 1);
        else if (k == "tas_round_ns")
          c.tas_round_ns = r_.duration(val, kk, 1);
        else if (k == "yield_rounds")
          c.yield_rounds = static_cast<int>(r_.integer_in(val, kk, 0, 1000000));
        else if (k == "fallback") {
          const std::string f = r_.string(val, kk);
          if (f != "sleep" && f != "block" && f != "event")
            r_.fail(kk, "expected \"sleep\", \"block\" or \"event\"");
          c.fallback = f == "sleep"   ? SpinFallback::kSleep
                       : f == "block" ? SpinFallback::kBlock
                                      : SpinFallback::kEvent;
        } else if (k == "spin_rounds")  // event: InnoDB's spin phase
          c.spin_rounds = static_cast<int>(r_.integer_in(val, kk, 0, 1000000));
        else if (k == "round_delay_max")
          c.round_delay_max = static_cast<int>(r_.integer_in(val, kk, 0, 1000000));
        else if (k == "delay_unit_ns")
          c.delay_unit_ns = r_.duration(val, kk, 1);
        else if (k == "sleep_min_ns")
          c.sleep_min_ns = r_.duration(val, kk, 1);
        else if (k == "sleep_max_ns")
          c.sleep_max_ns = r_.duration(val, kk, 1);
        else if (k == "growth_max_percent")
          c.growth_max_percent = static_cast<int>(r_.integer_in(val, kk, 0, 1000));
        else if (k == "max_sleeps")
          c.max_sleeps = static_cast<int>(r_.integer_in(val, kk, 1, 1000000000));
        else
          r_.fail(kk, "unknown key");
      }
      if (name.empty()) r_.fail(key + ".ref", "missing");
      if (c.fallback == SpinFallback::kSleep && c.sleep_min_ns <= 0)
        r_.fail(key + ".sleep_min_ns", "must be positive");
    }
    s.object = w_.spinlocks.intern(name);
    w_.spin_configs.push_back(c);
    s.amount = static_cast<int64_t>(w_.spin_configs.size() - 1);
  }

  void resolve_forks() {
    for (const ForkRef& f : forks_) {
      bool found = false;
      for (size_t i = 0; i < w_.tasks.size(); ++i) {
        if (w_.tasks[i].name == f.target) {
          w_.tasks[f.task].phases[f.phase].steps[f.step].object = static_cast<int32_t>(i);
          found = true;
        }
      }
      if (!found) r_.fail(f.key, "fork of an undefined task '" + f.target + "'");
    }
  }

  // rt-app counts a barrier's users from the references in the file: each task
  // instance that names the barrier is one user.
  void count_barrier_users() {
    w_.barrier_users.assign(w_.barriers.size(), 0);
    for (const TaskSpec& t : w_.tasks) {
      std::set<int32_t> used;
      for (const Phase& p : t.phases)
        for (const Step& s : p.steps)
          if (s.op == Op::kBarrier) used.insert(s.object);
      for (int32_t b : used) w_.barrier_users[b] += t.instances;
    }
  }

  // rt-app's rules (parse_taskgroup_data): a path from the root, "" for none.
  std::string read_taskgroup(const JValue& v, const std::string& key) {
    const std::string path = r_.string(v, key);
    if (!path.empty() && path[0] != '/')
      r_.fail(key, "a taskgroup is a path starting with '/', as rt-app requires");
    if (!path.empty() && std::find(groups_.begin(), groups_.end(), path) == groups_.end()) {
      groups_.push_back(path);
      if (groups_.size() > kMaxTaskgroups)
        r_.fail(key, fmt::format("more than {} taskgroups (rt-app's limit)", kMaxTaskgroups));
    }
    return path;
  }

  std::vector<int> read_nodes(const JValue& v, const std::string& key, const std::string& who) {
    std::vector<int> nodes = r_.int_list(v, key);
    if (std::find(membound_.begin(), membound_.end(), who) == membound_.end())
      membound_.push_back(who);
    return nodes;
  }

  void note_clamps(const std::string& who, const SchedSettings& s) {
    if ((s.util_min >= 0 || s.util_max >= 0) &&
        std::find(clamped_.begin(), clamped_.end(), who) == clamped_.end())
      clamped_.push_back(who);
  }

  // rt-app's check_taskgroup_policy_dep: a thread in a taskgroup (from the phase that
  // names it on) runs SCHED_OTHER, SCHED_BATCH or SCHED_IDLE.
  void check_taskgroups() const {
    for (const TaskSpec& t : w_.tasks) {
      const std::string key = "tasks." + t.name;
      SchedPolicy policy = t.sched.policy;
      std::string group = t.taskgroup;
      auto check = [&](const std::string& where) {
        if (!group.empty() && !is_normal(policy))
          r_.fail(where, fmt::format("no taskgroup support for policy {} (rt-app refuses it)",
                                     policy_name(policy)));
      };
      check(key + ".taskgroup");
      for (const Phase& p : t.phases) {
        if (p.sched) policy = p.sched->policy;
        if (p.taskgroup && !p.taskgroup->empty()) group = *p.taskgroup;
        check(key + ".phases." + p.name);
      }
    }
  }

  const JsonReader& r_;
  Workload& w_;
  RtAppGlobal& g_;
  std::vector<ForkRef> forks_;
  std::vector<std::string> groups_;  // every taskgroup named, in file order
  // who set util clamps / nodes_membind / dl-reclaim
  std::vector<std::string> clamped_, membound_, reclaiming_;
};

}  // namespace

void read_rtapp(const JValue& root, const JsonReader& reader, Workload& out, RtAppGlobal& global,
                bool tasks_required) {
  RtAppParser(reader, out, global).read(root, tasks_required);
}

void validate_workload(const Workload& w, const JsonReader& r) {
  std::vector<bool> mutex_locked(w.mutexes.size()), counter_advanced(w.counters.size()),
      spin_locked(w.spinlocks.size()), sem_posted(w.semaphores.size()),
      rw_locked(w.innodb_rwlocks.size());
  for (size_t i = 0; i < w.semaphore_initial.size() && i < sem_posted.size(); ++i)
    sem_posted[i] = w.semaphore_initial[i] > 0;
  for (const TaskSpec& t : w.tasks)
    for (const Phase& p : t.phases)
      for (const Step& s : p.steps) {
        if (s.op == Op::kLock) mutex_locked[s.object] = true;
        if (s.op == Op::kAdvance) counter_advanced[s.object] = true;
        if (s.op == Op::kSemPost) sem_posted[s.object] = true;
        if (s.op == Op::kSpinLock) spin_locked[s.object] = true;
        if (s.op == Op::kInnodbRwLock) rw_locked[s.object] = true;
      }
  for (const TaskSpec& t : w.tasks)
    for (const Phase& p : t.phases)
      for (const Step& s : p.steps) {
        const std::string where = "tasks." + t.name;
        if ((s.op == Op::kUnlock || s.op == Op::kWait || s.op == Op::kSync)) {
          const int32_t m = s.op == Op::kUnlock ? s.object : s.mutex;
          if (!mutex_locked[m])
            r.fail(where, fmt::format("{} names mutex '{}', which no task ever locks",
                                      op_name(s.op), w.mutexes.names[m]));
        }
        if (s.op == Op::kSemWait && !sem_posted[s.object])
          r.fail(where, fmt::format("sem_wait on semaphore '{}', which no task posts",
                                    w.semaphores.names[s.object]));
        if (s.op == Op::kWaitProgress && !counter_advanced[s.object])
          r.fail(where, fmt::format("wait_progress on counter '{}', which no task advances",
                                    w.counters.names[s.object]));
        if (s.op == Op::kSpinUnlock && !spin_locked[s.object])
          r.fail(where, fmt::format("spin_unlock of '{}', which no task ever locks",
                                    w.spinlocks.names[s.object]));
        if (s.op == Op::kInnodbRwUnlock && !rw_locked[s.object])
          r.fail(where, fmt::format("innodb_rw_unlock of '{}', which no task ever locks",
                                    w.innodb_rwlocks.names[s.object]));
      }
  bool any_started = false;
  for (const TaskSpec& t : w.tasks) any_started |= t.instances > 0;
  if (!any_started) r.fail("tasks", "every task has \"instance\": 0, so nothing would start");
}

}  // namespace schedlab
