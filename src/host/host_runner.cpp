#include "host/host_runner.h"

#include <fmt/format.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>
#include <tuple>

#include "events/deadline_job.h"
#include "host/busy_loop.h"
#include "host/tracefs.h"
#include "host/user_dirs.h"
#include "sim/innodb_rw_lock.h"  // RwWriter
#include "util/error.h"
#include "util/rng.h"

namespace schedlab {

namespace {

Time mono_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<Time>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

Time thread_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<Time>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

void on_wake_signal(int) {}  // only interrupts clock_nanosleep

// sched_attr of sched_setattr(2), version 0 (48 bytes).
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period;
};

uint32_t linux_policy(SchedPolicy p) {
  switch (p) {
    case SchedPolicy::kOther:
      return 0;
    case SchedPolicy::kFifo:
      return 1;
    case SchedPolicy::kRR:
      return 2;
    case SchedPolicy::kBatch:
      return 3;
    case SchedPolicy::kIdle:
      return 5;
    case SchedPolicy::kDeadline:
      return 6;
    case SchedPolicy::kIso:
      return 4;  // the -ck kernels' number; mainline refuses it
  }
  return 0;
}

#ifndef SCHEDLAB_BUILD_TAG
#define SCHEDLAB_BUILD_TAG "unknown"
#endif

struct CachedSpeed {
  double loops_per_us = 0;
  std::string build;  // which build measured it (SCHEDLAB_BUILD_TAG); empty if not said
};

// "loops_per_us X [build TAG]", or nullopt when the text is not that.
std::optional<CachedSpeed> cached_speed(const std::string& text) {
  std::istringstream in(text);
  std::string key, value, build_key, rest;
  CachedSpeed cached;
  if (!(in >> key >> value) || key != "loops_per_us") return std::nullopt;
  if (in >> build_key && (build_key != "build" || !(in >> cached.build) || (in >> rest)))
    return std::nullopt;
  char* end = nullptr;
  cached.loops_per_us = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size() || !std::isfinite(cached.loops_per_us))
    return std::nullopt;
  return cached;
}

// The busy loop's speed on this machine, measured in thread CPU time (immune to
// preemption), cached between runs in a folder of this user's (host/user_dirs.h). A cached
// value outside [kMinLoopsPerUs, kMaxLoopsPerUs] is not believed (1e12 made every run
// loop for days, a tiny one gave wrong figures), nor one another build measured (the
// sanitizer build's loop is several times slower): it is measured again, with a note.
double calibrate(const HostRunOptions& o, std::string* note) {
  std::string why;
  const std::string dir = cache_dir(o.cache_dir, &why);
  const std::string file = dir.empty() ? std::string() : dir + "/calibration";
  std::string doubt;
  if (!o.recalibrate && !file.empty()) {
    if (const auto text = read_cache_file(file, 4096))
      if (const auto cached = cached_speed(*text)) {
        const double value = cached->loops_per_us;
        if (value < kMinLoopsPerUs || value > kMaxLoopsPerUs) {
          doubt = fmt::format("; the cached {:g} loops/us is outside {:g}..{:g}, so not believed",
                              value, kMinLoopsPerUs, kMaxLoopsPerUs);
        } else if (cached->build != SCHEDLAB_BUILD_TAG) {
          doubt = fmt::format("; the cached {:g} loops/us was measured by {}", value,
                              cached->build.empty() ? "an unnamed build" : cached->build);
        } else {
          *note =
              fmt::format("busy loop: {:.1f} loops/us (cached in {}; --recalibrate measures again)",
                          value, file);
          return value;
        }
      }
  }
  const double best = time_busy_loop();
  const bool cached = !file.empty() && write_cache_file(file, [&](std::ostream& out) {
    out << "loops_per_us " << best << " build " << SCHEDLAB_BUILD_TAG << "\n";
  });
  *note = fmt::format("busy loop: {:.1f} loops/us (measured now, {}){}", best,
                      cached         ? "cached in " + file
                      : file.empty() ? "not cached: " + why
                                     : "not cached: cannot write " + file,
                      doubt);
  return best;
}

// Which limit a refused thread most likely hit, with the numbers, for the error.
std::string thread_limit_hint() {
  rlimit as{}, stack{}, nproc{};
  getrlimit(RLIMIT_AS, &as);
  getrlimit(RLIMIT_STACK, &stack);
  getrlimit(RLIMIT_NPROC, &nproc);
  // glibc gives a thread a stack of RLIMIT_STACK (8 MiB when that is unlimited), and a
  // thread that allocates an arena of up to 64 MiB.
  const uint64_t stack_kb = stack.rlim_cur == RLIM_INFINITY ? 8192 : stack.rlim_cur / 1024;
  uint64_t mapped_pages = 0;
  std::ifstream("/proc/self/statm") >> mapped_pages;
  const uint64_t mapped = mapped_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (as.rlim_cur != RLIM_INFINITY && mapped + (64 << 20) + stack_kb * 1024 >= as.rlim_cur)
    return fmt::format(
        "the limit hit: address space (ulimit -v {} KB), with {} KB of stack per thread",
        as.rlim_cur / 1024, stack_kb);
  if (nproc.rlim_cur != RLIM_INFINITY)
    return fmt::format("the limit hit: processes and threads of this user (ulimit -u {})",
                       nproc.rlim_cur);
  return "the limit hit: kernel.threads-max, or memory";
}

// A thread blocked on a semaphore or a progress counter: woken alone, when it is served
// (a post that covers its need, an advance that reaches its target, or any advance for a
// re-checking waiter), as the simulator wakes exactly those. With one condition variable
// for all, every post woke every waiter: hackbench's 20 senders on a receiver's room
// semaphore all woke for each message, and 19 went back to sleep, wake-ups and switches
// the simulated program does not have.
//
// It sleeps on a futex word of its own, set under the waitable's mutex; the waker calls
// FUTEX_WAKE after letting the mutex go. Woken with the mutex held, the waiter preempted
// its waker on the same CPU, met the mutex held at its next wait, and blocked a second
// time. The waiter may have returned by the time FUTEX_WAKE comes: the address is then a
// stale one, and a wait that meets a stray wake-up checks its word and sleeps again.
struct Waiter {
  std::atomic<uint32_t> woken{0};
  int64_t need = 0;  // semaphore: units; counter: target
  bool recheck = false;
  uint32_t* word() { return reinterpret_cast<uint32_t*>(&woken); }
  void sleep() { syscall(SYS_futex, word(), FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0); }
  static void wake(uint32_t* word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
};
// The words of the waiters served under a mutex, woken once it is let go.
class Wakeups {
 public:
  void serve(Waiter* w) {
    w->woken.store(1);
    words_.push_back(w->word());
  }
  ~Wakeups() {
    for (uint32_t* word : words_) Waiter::wake(word);
  }

 private:
  std::vector<uint32_t*> words_;
};
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
struct Waitable {
  std::mutex m;
  std::condition_variable cv;
  std::deque<Waiter*> waiters;  // semaphores and counters: each sleeps on its own word
  // The waiter stops waiting (woken, or told to stop): it leaves the queue if still in.
  void forget(const Waiter* w) { std::erase(waiters, w); }
};
// PostgreSQL 8.4's LWLock (sim/lwlock.h has the rules and their source): its state under
// `m` (on the host the program's spin_lock of the LWLock's mutex guards the step, and `m`
// the state), waiters queued in order, each on its own futex word; `need` is the mode.
struct LwLock : Waitable {
  int exclusive = 0, shared = 0;
  bool release_ok = true;
};
// MySQL 5.1's InnoDB rw-lock (sim/innodb_rw_lock.h has the source, and the rules in
// rw_rules, shared with the simulator's state): its state changed under `m` (on the host
// the program's spin_lock of the rw-lock's mutex guards the first try, `m` every change);
// the spin phase reads the fields without `m`, so they are atomic. `event_sets` counts
// os_event_set calls: a waiter sleeps until it changes.
struct InnodbRwLock : Waitable {
  std::atomic<int> reader_count{0};
  std::atomic<RwWriter> writer{RwWriter::kNotLocked};
  std::atomic<int64_t> writer_task{-1};  // Thread::id of EX or of the WAIT_EX reservation
  int writer_count = 0;
  bool waiters = false;
  uint64_t event_sets = 0;
};
struct Barrier : Waitable {
  int arrived = 0;
  uint64_t generation = 0;
};
struct SuspendQueue : Waitable {
  uint64_t generation = 0;
};
struct Counter : Waitable {
  int64_t value = 0;
};
struct Semaphore : Waitable {  // waiters served in order of arrival
  int64_t value = 0;
};
struct SpinLock : Waitable {
  std::atomic<int64_t> owner{-1};
  std::deque<int64_t> blocked;  // waiters handed the lock in order
  // kEvent (InnoDB's os_event): waiters on the event, and the sets so far (os_event_set's
  // signal_count: a waiter sleeps until it changes).
  int event_waiters = 0;
  uint64_t event_sets = 0;
};
struct SharedTimer {
  std::mutex m;
  bool started = false;
  Time next = 0;
};

struct Worker {
  std::thread thread;
  std::atomic<bool> done{false};
};

class Runner {
 public:
  Runner(const Scenario& s, double loops_per_us, int max_threads, HostRunResult& result)
      : s_(s),
        w_(s.workload),
        loops_per_us_(loops_per_us),
        max_threads_(max_threads),
        result_(result) {
    mutexes_ = std::vector<std::timed_mutex>(w_.mutexes.size());
    condvars_ = std::vector<std::condition_variable_any>(w_.condvars.size());
    barriers_ = std::vector<Barrier>(w_.barriers.size());
    suspends_ = std::vector<SuspendQueue>(w_.suspend_queues.size());
    counters_ = std::vector<Counter>(w_.counters.size());
    semaphores_ = std::vector<Semaphore>(w_.semaphores.size());
    lwlocks_ = std::vector<LwLock>(w_.lwlocks.size());
    innodb_rwlocks_ = std::vector<InnodbRwLock>(w_.innodb_rwlocks.size());
    for (size_t i = 0; i < semaphores_.size() && i < w_.semaphore_initial.size(); ++i)
      semaphores_[i].value = w_.semaphore_initial[i];
    spinlocks_ = std::vector<SpinLock>(w_.spinlocks.size());
    timers_ = std::vector<SharedTimer>(w_.timers.size());
    fork_counts_ = std::vector<std::atomic<int>>(w_.tasks.size());
  }

  // A thread that cannot start ends the run as an error (error()), as a failing thread does.
  void start_static() {
    try {
      for (size_t i = 0; i < w_.tasks.size(); ++i) {
        const TaskSpec& spec = w_.tasks[i];
        for (int k = 0; k < spec.instances; ++k)
          start(static_cast<int>(i),
                spec.instances > 1 ? fmt::format("{}-{}", spec.name, k) : spec.name, "");
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }

  bool all_done() {
    std::lock_guard<std::mutex> g(workers_m_);
    for (const Worker& wk : workers_)
      if (!wk.done) return false;
    return true;
  }

  // Sleeps until CLOCK_MONOTONIC `until_ns`, or less when every thread has ended or one
  // failed. The supervisor sleeping here instead of waking every few milliseconds keeps
  // it from preempting the workload (at 2 ms it woke 500 times a second, which the real
  // runs counted as switches of the workload's tasks and the simulation has no cause for).
  void wait_for_end(Time until_ns) {
    std::unique_lock<std::mutex> g(ended_m_);
    ended_cv_.wait_until(g,
                         std::chrono::steady_clock::time_point(std::chrono::nanoseconds(until_ns)),
                         [this] { return ended_ || error() != nullptr || all_done(); });
    ended_ = false;
  }

  ~Runner() { stop_all(); }  // no thread outlives the run, whatever ends it
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Tells every thread to stop, wakes it from whatever it waits on, and joins it.
  void stop_all() {
    stop_ = true;
    for (;;) {
      for (auto& cv : condvars_) cv.notify_all();
      for (Waitable* wt : waitables()) {
        std::lock_guard<std::mutex> g(wt->m);
        wt->cv.notify_all();
        for (Waiter* w : wt->waiters) Waiter::wake(w->word());
      }
      bool done = true;
      {
        std::lock_guard<std::mutex> g(workers_m_);
        for (Worker& wk : workers_)
          if (!wk.done && wk.thread.joinable()) {
            done = false;
            pthread_kill(wk.thread.native_handle(), SIGUSR2);
          }
      }
      if (done) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard<std::mutex> g(workers_m_);
    for (Worker& wk : workers_)
      if (wk.thread.joinable()) wk.thread.join();
  }

  std::exception_ptr error() {
    std::lock_guard<std::mutex> g(error_m_);
    return error_;
  }

 private:
  struct Thread {
    int spec = 0;
    std::string name;
    int64_t tid = 0;  // the kernel's, as the trace names it
    Time t_first = 0;
    std::vector<std::pair<int32_t, Time>> unique_timers;
    std::vector<char> buffer;
    Rng rng{1};
    int64_t id = 0;  // for spinlock ownership
    std::optional<std::pair<std::vector<int>, SchedSettings>> applied;
    DeadlineJob job;                // SCHED_DEADLINE: the job open now
    std::vector<HostEvent> events;  // its marks and deadline jobs, handed over at the end
    Time c_duration_ns = 0;         // run/runtime since its last timer step (rt-app's)
  };

  bool deadline_task(const Thread& t) const {
    return t.applied && t.applied->second.policy == SchedPolicy::kDeadline;
  }
  void record(Thread& t, Time now, EventType type, int32_t arg, int64_t value) {
    t.events.push_back(
        {now, t.tid, static_cast<CpuId>(std::max(0, sched_getcpu())), type, arg, value});
  }
  // The one job rule (events/deadline_job.h), at the points the thread itself sees: a job
  // ends when it waits, yields, reaches its timer or exits, and starts when it goes on.
  void job_end(Thread& t, bool exiting = false) {
    if (!t.job.open()) return;
    const Time now = mono_now();
    if (const auto late = t.job.close(now, thread_cpu_now(), exiting))
      record(t, now, EventType::kDlJob, 0, *late);
  }
  void job_start(Thread& t, Time activation) {
    if (deadline_task(t))
      t.job.start(activation, t.applied->second.dl_deadline_ns, thread_cpu_now());
  }
  // A wait that blocks: it ends the job, and the wake-up starts the next, as the
  // simulator's block and wake do. `wait` returns false when told to stop.
  template <class Wait>
  bool blocking(Thread& t, Wait&& wait) {
    job_end(t);
    const bool ok = wait();
    if (deadline_task(t)) job_start(t, mono_now());
    return ok;
  }

  std::vector<Waitable*> waitables() {
    std::vector<Waitable*> v;
    for (auto& x : barriers_) v.push_back(&x);
    for (auto& x : suspends_) v.push_back(&x);
    for (auto& x : counters_) v.push_back(&x);
    for (auto& x : semaphores_) v.push_back(&x);
    for (auto& x : spinlocks_) v.push_back(&x);
    for (auto& x : lwlocks_) v.push_back(&x);
    for (auto& x : innodb_rwlocks_) v.push_back(&x);
    return v;
  }

  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> g(error_m_);
      if (!error_) error_ = e;
      stop_ = true;
    }
    signal_end();
  }
  void signal_end() {
    {
      std::lock_guard<std::mutex> g(ended_m_);
      ended_ = true;
    }
    ended_cv_.notify_all();
  }

  // A thread of task `spec`, forked by `parent` (empty: at the start). Past max_threads,
  // or when the system refuses a thread, an error naming the task (the caller's thread
  // hands it to fail()).
  void start(int spec, std::string name, const std::string& parent) {
    std::lock_guard<std::mutex> g(workers_m_);
    if (stop_) return;
    if (alive_ >= max_threads_)
      throw WorkloadError(
          fmt::format("more than {} threads alive at once, when {} (--max-tasks raises the limit)",
                      max_threads_,
                      parent.empty() ? fmt::format("task {} starts", name)
                                     : fmt::format("task {} forks {}", parent, name)),
          s_.file);
    Worker& wk = workers_.emplace_back();
    const int64_t id = static_cast<int64_t>(workers_.size());
    ++alive_;
    try {
      wk.thread = std::thread([this, spec, name, id, &wk] {
        Thread t;
        t.spec = spec;
        t.name = name;
        t.id = id;
        t.rng = Rng(s_.seed * 1000003 + static_cast<uint64_t>(id));
        try {
          body(t);
        } catch (...) {
          fail(std::current_exception());
        }
        --alive_;
        wk.done = true;
        signal_end();
      });
    } catch (const std::system_error& e) {
      --alive_;
      workers_.pop_back();  // no thread behind it: nothing to signal or join
      throw InputError(s_.file, "tasks." + w_.tasks[spec].name,
                       fmt::format("the system refused thread '{}' ({} threads running): {}; {}",
                                   name, alive_.load(), e.code().message(), thread_limit_hint()));
    }
  }

  // Sleeps until an absolute CLOCK_MONOTONIC time; false when told to stop.
  bool sleep_until(Time when) {
    timespec ts{static_cast<time_t>(when / kNsPerSec), static_cast<long>(when % kNsPerSec)};
    while (!stop_) {
      if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == 0) return true;
    }
    return false;
  }

  // Fixed work: loops of the calibrated speed, checking for stop every 20 us of work.
  bool run_work(Time ns) {
    auto loops = static_cast<uint64_t>(static_cast<double>(ns) / 1000.0 * loops_per_us_);
    const auto chunk = static_cast<uint64_t>(20 * loops_per_us_) + 1;
    while (loops > 0 && !stop_) {
      const uint64_t n = std::min(loops, chunk);
      busy_loop(n);
      loops -= n;
    }
    return !stop_;
  }

  bool run_until(Time end) {
    while (mono_now() < end)
      if (stop_) return false;
    return true;
  }

  void apply(Thread& t, const std::vector<int>& cpus, const SchedSettings& s) {
    // the host's kernel: custom slices from 6.12 (older ones ignore sched_runtime here)
    if (t.applied && t.applied->first == cpus &&
        sched_settings_unchanged(t.applied->second, s, true))
      return;
    const bool was_deadline = deadline_task(t);
    t.applied = std::make_pair(cpus, s);
    if (was_deadline && s.policy != SchedPolicy::kDeadline) t.job.cancel();  // as the simulator
    if (!was_deadline && s.policy == SchedPolicy::kDeadline) job_start(t, mono_now());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpus.empty()) {
      for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); ++c) CPU_SET(static_cast<int>(c), &set);
    } else {
      for (int c : cpus) CPU_SET(c, &set);
    }
    const std::string key = fmt::format("tasks.{}", w_.tasks[t.spec].name);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      throw InputError(s_.file, key + ".cpus",
                       fmt::format("the host refused the affinity: {}", strerror(errno)));
    SchedAttr attr{};
    attr.size = sizeof attr;
    attr.sched_policy = linux_policy(s.policy);
    attr.sched_nice = s.nice;
    attr.sched_priority = is_rt(s.policy) ? static_cast<uint32_t>(s.rt_priority) : 0;
    if (s.policy == SchedPolicy::kDeadline) {
      attr.sched_runtime = static_cast<uint64_t>(s.dl_runtime_ns);
      attr.sched_deadline = static_cast<uint64_t>(s.dl_deadline_ns);
      attr.sched_period = static_cast<uint64_t>(s.dl_period_ns);
    } else if (takes_custom_slice(s.policy)) {
      // rt-app's dl-runtime on a fair thread: the custom slice of 6.12 (older kernels
      // ignore sched_runtime outside SCHED_DEADLINE)
      attr.sched_runtime = static_cast<uint64_t>(s.dl_runtime_ns);
    }
    if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0)
      throw InputError(s_.file, key + ".policy",
                       fmt::format("the host refused {} for '{}': {}{}", policy_name(s.policy),
                                   t.name, strerror(errno),
                                   errno == EPERM   ? " (run as root or with CAP_SYS_NICE)"
                                   : errno == EBUSY ? " (deadline admission control)"
                                                    : ""));
  }

  void body(Thread& t) {
    const TaskSpec& spec = w_.tasks[t.spec];
    {
      std::lock_guard<std::mutex> g(names_m_);
      t.tid = static_cast<int64_t>(gettid());
      KnownThread& k = result_.record.threads[t.tid];
      k.name = t.name;
      const auto& cpus =
          spec.phases.empty() || !spec.phases[0].cpus ? spec.cpus : spec.phases[0].cpus;
      if (cpus)
        for (int c : *cpus) k.allowed.set(static_cast<size_t>(c));
    }
    pthread_setname_np(pthread_self(), t.name.substr(0, 15).c_str());
    // rt-app: every thread's reference time is t_zero + delay, and it sleeps until then
    // (a thread forked later does not)
    t.t_first = result_.start_ns + spec.delay_ns;
    if (mono_now() < t.t_first && !sleep_until(t.t_first)) return;
    for (int64_t iter = 0; spec.loop < 0 || iter < spec.loop; ++iter) {
      for (size_t p = 0; p < spec.phases.size(); ++p) {
        const Phase& phase = spec.phases[p];
        for (int64_t pi = 0; pi < phase.loop; ++pi) {
          const auto& cpus = phase.cpus ? phase.cpus : spec.cpus;
          // rt-app: a phase without settings keeps the thread's (the task's at its start)
          const SchedSettings settings = phase.sched ? *phase.sched
                                         : t.applied ? t.applied->second
                                                     : spec.sched;
          apply(t, cpus.value_or(std::vector<int>{}), settings);
          for (const Step& step : phase.steps)
            if (stop_ || !execute(t, step)) return finish(t, false);
        }
      }
    }
    finish(t, true);
  }

  // At exit the open job ends (one with no work after its activation was none); when the
  // run is stopped, a job still open past its deadline has missed it (as at the
  // simulator's end).
  void finish(Thread& t, bool exiting) {
    if (exiting) {
      job_end(t, true);
    } else if (const Time now = mono_now();
               const auto late = t.job.close_at_end(now, thread_cpu_now())) {
      record(t, now, EventType::kDlJob, 0, *late);
    }
    std::lock_guard<std::mutex> g(names_m_);
    result_.record.events.insert(result_.record.events.end(), t.events.begin(), t.events.end());
  }

  // One function per kind of step; each returns false when the run was told to stop.
  bool execute(Thread& t, const Step& s) {
    switch (s.op) {
      case Op::kRun:
        t.c_duration_ns += s.duration_ns;
        return run_work(s.duration_ns);
      case Op::kRuntime:
        t.c_duration_ns += s.duration_ns;
        return run_until(mono_now() + s.duration_ns);
      case Op::kMem:
      case Op::kIoRun:
        return write_memory(t, s.amount);
      case Op::kSleep:
        return sleep_step(t, s.duration_ns);
      case Op::kTimer:
        return timer(t, s);
      case Op::kLock:
        return lock_mutex(t, s.object);
      case Op::kUnlock:
        mutexes_[s.object].unlock();
        return true;
      case Op::kWait:
      case Op::kSync:
        return condvar_wait(t, s);
      case Op::kSignal:
        condvars_[s.object].notify_one();
        return true;
      case Op::kBroadcast:
        condvars_[s.object].notify_all();
        return true;
      case Op::kBarrier:
        return barrier(t, s.object);
      case Op::kSuspend:
        return suspend(t, s.object);
      case Op::kResume:
        return resume(s.object);
      case Op::kYield:
        job_end(t);  // a deadline task's yield ends its job
        sched_yield();
        return true;
      case Op::kFork:
        return fork_task(t, s.object);
      case Op::kSpinLock:
        return spin_lock(t, s);
      case Op::kSpinUnlock:
        return spin_unlock(s.object);
      case Op::kLwLockAcquire:
        return lwlock_acquire(t, s);
      case Op::kLwLockRelease:
        return lwlock_release(s);
      case Op::kInnodbRwLock:
        return innodb_rw_lock(t, s);
      case Op::kInnodbRwUnlock:
        return innodb_rw_unlock(t, s);
      case Op::kAdvance:
        return advance(s.object, s.amount);
      case Op::kWaitProgress:
        return wait_progress(t, s.object, s.amount, s.recheck);
      case Op::kMark:
        record(t, mono_now(), EventType::kMark, s.object, s.amount);
        return true;
      case Op::kSemPost:
        return sem_post(s.object, s.amount);
      case Op::kSemWait:
        return sem_wait(t, s.object, s.amount, s.duration_ns);
    }
    return true;
  }

  bool write_memory(Thread& t, int64_t bytes) {
    if (t.buffer.empty()) t.buffer.resize(1 << 20);
    for (int64_t done = 0; done < bytes && !stop_;) {
      const int64_t n = std::min<int64_t>(bytes - done, static_cast<int64_t>(t.buffer.size()));
      std::memset(t.buffer.data(), static_cast<int>(done & 0xff), static_cast<size_t>(n));
      done += n;
    }
    return !stop_;
  }

  bool sleep_step(Thread& t, Time duration_ns) {
    const Time until = mono_now() + duration_ns;
    job_end(t);
    const bool ok = sleep_until(until);
    job_start(t, until);
    return ok;
  }

  bool lock_mutex(Thread& t, int32_t m) {
    if (mutexes_[m].try_lock()) return true;
    return blocking(t, [&] {
      while (!mutexes_[m].try_lock_for(std::chrono::milliseconds(50)))
        if (stop_) return false;
      return true;
    });
  }

  // rt-app waits once, without a predicate; sync signals first.
  bool condvar_wait(Thread& t, const Step& s) {
    if (s.op == Op::kSync) condvars_[s.object].notify_one();
    return blocking(t, [&] {
      std::unique_lock<std::timed_mutex> lock(mutexes_[s.mutex], std::adopt_lock);
      condvars_[s.object].wait(lock);
      lock.release();
      return !stop_;
    });
  }

  bool barrier(Thread& t, int32_t object) {
    Barrier& b = barriers_[object];
    std::unique_lock<std::mutex> g(b.m);
    if (b.arrived + 1 >= w_.barrier_users[object]) {
      b.arrived = 0;
      ++b.generation;
      b.cv.notify_all();
      return true;
    }
    ++b.arrived;
    const uint64_t gen = b.generation;
    return blocking(t, [&] {
      b.cv.wait(g, [&] { return b.generation != gen || stop_; });
      return !stop_;
    });
  }

  bool suspend(Thread& t, int32_t object) {
    SuspendQueue& q = suspends_[object];
    std::unique_lock<std::mutex> g(q.m);
    const uint64_t gen = q.generation;
    return blocking(t, [&] {
      q.cv.wait(g, [&] { return q.generation != gen || stop_; });
      return !stop_;
    });
  }

  bool resume(int32_t object) {
    SuspendQueue& q = suspends_[object];
    std::lock_guard<std::mutex> g(q.m);
    ++q.generation;  // only those waiting now see it: a resume with no waiter is lost
    q.cv.notify_all();
    return true;
  }

  bool fork_task(const Thread& t, int32_t object) {
    const TaskSpec& target = w_.tasks[object];
    const int k = target.instances + fork_counts_[object]++;
    start(object, fmt::format("{}-{}", target.name, k), t.name);
    return true;
  }

  bool spin_unlock(int32_t object) {
    SpinLock& l = spinlocks_[object];
    std::lock_guard<std::mutex> g(l.m);
    if (!l.blocked.empty()) {  // hand it to the first blocked waiter
      l.owner = l.blocked.front();
      l.blocked.pop_front();
      l.cv.notify_all();
    } else {
      l.owner = -1;
    }
    if (l.event_waiters > 0) {  // os_event_set: a broadcast, nobody handed the lock
      ++l.event_sets;
      l.cv.notify_all();
    }
    return true;
  }

  // The waiters whose target the new value reaches, and every re-checking one (a condition
  // variable broadcast), are woken; a re-checker short of its target waits again.
  bool advance(int32_t object, int64_t amount) {
    Counter& c = counters_[object];
    Wakeups wakeups;  // after the lock (declared first, destroyed last)
    std::lock_guard<std::mutex> g(c.m);
    c.value += amount;
    std::erase_if(c.waiters, [&](Waiter* w) {
      if (!w->recheck && c.value < w->need) return false;
      wakeups.serve(w);
      return true;
    });
    return true;
  }

  bool wait_progress(Thread& t, int32_t object, int64_t target, bool recheck) {
    Counter& c = counters_[object];
    for (;;) {
      std::unique_lock<std::mutex> g(c.m);
      if (c.value >= target) return true;
      Waiter w;
      w.need = target;
      w.recheck = recheck;
      if (!wait_alone(t, c, w, g)) return false;
      if (!recheck) return true;  // woken only once its target was reached
    }
  }

  // Sleeps until served; false when told to stop. `g` holds the waitable's mutex, and is
  // let go once the waiter is in the queue (a waker sets the word under that mutex, and a
  // word set before the sleep makes FUTEX_WAIT return at once).
  bool wait_alone(Thread& t, Waitable& on, Waiter& w, std::unique_lock<std::mutex>& g) {
    on.waiters.push_back(&w);
    g.unlock();
    blocking(t, [&] {
      while (!w.woken.load() && !stop_) w.sleep();
      return true;
    });
    if (!w.woken.load()) {  // stopping: out of the queue before `w` goes
      g.lock();
      on.forget(&w);
      g.unlock();
    }
    return !stop_;
  }

  // 8.4's LWLockAcquire: the mutex spinlock (held by the step before) is let go as the state
  // is decided; a waiter sleeps on its own word and, woken, tries again (no hand-off). On
  // the host the retry takes only `m`, not the mutex spinlock again.
  bool lwlock_acquire(Thread& t, const Step& s) {
    LwLock& l = lwlocks_[s.object];
    const bool exclusive = s.amount == static_cast<int64_t>(LwLockMode::kExclusive);
    std::unique_lock<std::mutex> g(l.m);
    spin_unlock(w_.lwlock_mutex[static_cast<size_t>(s.object)]);
    for (bool retry = false;; retry = true) {
      if (retry) l.release_ok = true;
      if (exclusive ? l.exclusive == 0 && l.shared == 0 : l.exclusive == 0) {
        ++(exclusive ? l.exclusive : l.shared);
        return true;
      }
      Waiter w;
      w.need = s.amount;
      if (!wait_alone(t, l, w, g)) return false;
      g.lock();
    }
  }

  // 8.4's LWLockRelease: once the lock is free (and releaseOK), the head alone if it wants
  // exclusive, else the run of shared waiters at the head.
  bool lwlock_release(const Step& s) {
    LwLock& l = lwlocks_[s.object];
    Wakeups wakeups;  // after the lock (declared first, destroyed last)
    std::lock_guard<std::mutex> g(l.m);
    spin_unlock(w_.lwlock_mutex[static_cast<size_t>(s.object)]);
    --(l.exclusive > 0 ? l.exclusive : l.shared);
    if (l.waiters.empty() || l.exclusive != 0 || l.shared != 0 || !l.release_ok) return true;
    const int64_t kShared = static_cast<int64_t>(LwLockMode::kShared);
    const bool head_exclusive = l.waiters.front()->need != kShared;
    do {
      wakeups.serve(l.waiters.front());
      l.waiters.pop_front();
    } while (!head_exclusive && !l.waiters.empty() && l.waiters.front()->need == kShared);
    l.release_ok = false;
    return true;
  }

  // 5.1.45's rw-lock acquisition: a try under the mutex (held by the step before, let go
  // here); the spin of spin_rounds random delays while the awaited field is busy, a
  // sched_yield if all were spent; a try under `m`; then the event, and over again (S from
  // the spin, X from a try). On the host the tries after the first take only `m`.
  bool innodb_rw_lock(Thread& t, const Step& s) {
    InnodbRwLock& l = innodb_rwlocks_[s.object];
    const auto lock = static_cast<size_t>(s.object);
    const SpinLockConfig& cfg = w_.spin_configs[w_.innodb_rwlock_spin_config[lock]];
    const auto mode = static_cast<LwLockMode>(s.amount);
    bool mutex_held = true, spin_first = false;
    while (!stop_) {
      if (!spin_first) {
        std::lock_guard<std::mutex> g(l.m);
        if (mutex_held) spin_unlock(w_.innodb_rwlock_mutex[lock]);
        mutex_held = false;
        if (rw_rules::try_lock(l, t.id, mode) == RwTry::kGranted) return true;
      }
      int round = 0;
      for (; round < cfg.spin_rounds && !rw_rules::spin_over(l, t.id, mode); ++round) {
        const Time units = static_cast<Time>(
            t.rng.below(static_cast<uint64_t>(std::max(0, cfg.round_delay_max)) + 1));
        const Time end = mono_now() + units * cfg.delay_unit_ns;
        while (mono_now() < end) {
        }
      }
      if (round == cfg.spin_rounds) {
        job_end(t);  // a yield ends a deadline task's job
        sched_yield();
      }
      std::unique_lock<std::mutex> g(l.m);
      if (rw_rules::try_lock(l, t.id, mode) == RwTry::kGranted) return true;
      l.waiters = true;
      const uint64_t sets = l.event_sets;
      if (!blocking(t, [&] {
            l.cv.wait(g, [&] { return l.event_sets != sets || stop_; });
            return !stop_;
          }))
        return false;
      spin_first = mode == LwLockMode::kShared;
    }
    return false;
  }

  // rw_lock_s_unlock_func / rw_lock_x_unlock_func: the hold dropped under `m`, the event
  // set if waiters were flagged and the lock is free of its holders' kind.
  bool innodb_rw_unlock(const Thread& t, const Step& s) {
    InnodbRwLock& l = innodb_rwlocks_[s.object];
    std::lock_guard<std::mutex> g(l.m);
    spin_unlock(w_.innodb_rwlock_mutex[static_cast<size_t>(s.object)]);
    const bool exclusive = rw_rules::holds_x(l, t.id);
    if (!exclusive && l.reader_count == 0) return true;  // holds nothing (the simulator says so)
    if (rw_rules::unlock(l, int64_t{-1}, exclusive)) {
      ++l.event_sets;
      l.cv.notify_all();
    }
    return true;
  }

  // A post serves the waiters in order of arrival, handing each what it needs, while it
  // covers the first one's need (the simulator's rule).
  bool sem_post(int32_t object, int64_t amount) {
    Semaphore& sem = semaphores_[object];
    Wakeups wakeups;  // after the lock (declared first, destroyed last)
    std::lock_guard<std::mutex> g(sem.m);
    sem.value += amount;
    while (!sem.waiters.empty() && sem.value >= sem.waiters.front()->need) {
      Waiter* w = sem.waiters.front();
      sem.waiters.pop_front();
      sem.value -= w->need;
      wakeups.serve(w);
    }
    return true;
  }

  // With sleep_first_ns, a wait that cannot be served at once sleeps that long once and
  // tries again before it queues (the engine's step_sem_wait).
  bool sem_wait(Thread& t, int32_t object, int64_t amount, Time sleep_first_ns) {
    Semaphore& sem = semaphores_[object];
    std::unique_lock<std::mutex> g(sem.m);
    if (sem.waiters.empty() && sem.value >= amount) {
      sem.value -= amount;
      return true;
    }
    if (sleep_first_ns > 0) {
      g.unlock();
      if (!sleep_step(t, sleep_first_ns)) return false;
      g.lock();
      if (sem.waiters.empty() && sem.value >= amount) {
        sem.value -= amount;
        return true;
      }
    }
    Waiter w;
    w.need = amount;
    return wait_alone(t, sem, w, g);
  }

  // rt-app's timer: the next boundary of the period grid from t_first (or the timer's
  // origin_ns after the run's start); relative mode restarts the grid after a miss.
  bool timer(Thread& t, const Step& s) {
    const std::optional<Time> given = w_.timer_origin(s.object);
    const Time origin = given ? result_.start_ns + *given : t.t_first;
    // The next period boundary; in relative mode a late period restarts from now.
    auto advance = [&](Time& boundary) {
      boundary += s.duration_ns;
      const Time due = boundary;
      if (!s.absolute && mono_now() >= due) boundary = mono_now();
      return due;
    };
    Time next = 0;
    if (w_.timer_unique[s.object]) {
      auto it = std::find_if(t.unique_timers.begin(), t.unique_timers.end(),
                             [&](const auto& p) { return p.first == s.object; });
      if (it == t.unique_timers.end()) it = t.unique_timers.insert(it, {s.object, origin});
      next = advance(it->second);
    } else {
      SharedTimer& st = timers_[s.object];
      std::lock_guard<std::mutex> g(st.m);
      if (!st.started) {
        st.started = true;
        st.next = origin;
      }
      next = advance(st.next);
    }
    job_end(t);  // a deadline task's job is one period's work
    const Time now = mono_now();
    // The same timing point as the simulator's (events/event.h kTimer).
    t.events.push_back(
        {now, t.tid, static_cast<CpuId>(std::max(0, sched_getcpu())), EventType::kTimer,
         static_cast<int32_t>(std::min<Time>(s.duration_ns / kNsPerUs, INT32_MAX)), next,
         static_cast<int32_t>(std::min<Time>(t.c_duration_ns / kNsPerUs, INT32_MAX))});
    t.c_duration_ns = 0;
    if (now < next) {
      const bool ok = sleep_until(next);
      job_start(t, next);
      return ok;
    }
    job_start(t, now);  // the period is already over: the next job starts now
    return true;
  }

  // A userland spinlock: spin for spin_ns, then yield rounds, then the fallback.
  bool spin_lock(Thread& t, const Step& s) {
    SpinLock& l = spinlocks_[s.object];
    const SpinLockConfig& cfg = w_.spin_configs[static_cast<size_t>(s.amount)];
    auto try_take = [&] {
      int64_t free = -1;
      return l.owner.compare_exchange_strong(free, t.id);
    };
    auto spin = [&] {
      const Time end = mono_now() + cfg.spin_ns;
      do {
        if (try_take()) return true;
      } while (mono_now() < end && !stop_);
      return false;
    };
    if (cfg.fallback == SpinFallback::kEvent) return event_spin_lock(t, l, cfg, try_take);
    if (spin()) return true;
    for (int r = 0; r < cfg.yield_rounds && !stop_; ++r) {
      job_end(t);  // a yield ends a deadline task's job
      sched_yield();
      if (spin()) return true;
    }
    if (cfg.fallback == SpinFallback::kBlock) {
      std::unique_lock<std::mutex> g(l.m);
      if (try_take()) return true;
      l.blocked.push_back(t.id);
      return blocking(t, [&] {
        l.cv.wait(g, [&] { return l.owner == t.id || stop_; });
        return !stop_;
      });
    }
    Time delay = cfg.sleep_min_ns;  // PostgreSQL s_lock's back-off
    for (int sleeps = 0; !stop_; ++sleeps) {
      if (sleeps >= cfg.max_sleeps)
        throw WorkloadError(fmt::format("task {}: stuck spinlock '{}' after {} sleeps", t.name,
                                        w_.spinlocks.names[s.object], sleeps),
                            s_.file);
      if (!sleep_step(t, delay)) return false;
      if (spin()) return true;
      const double growth =
          1.0 +
          static_cast<double>(t.rng.below(static_cast<uint64_t>(cfg.growth_max_percent) + 1)) /
              100.0;
      delay = static_cast<Time>(static_cast<double>(delay) * growth);
      if (delay > cfg.sleep_max_ns) delay = cfg.sleep_min_ns;
    }
    return false;
  }

  // InnoDB 5.0/5.1's mutex_spin_wait (engine_program.cpp cites it): spin_rounds rounds of a
  // random busy delay, each after a look at the lock; yield_rounds sched_yields, each
  // followed by one test-and-set; then wait on the lock's event, and start over once set.
  template <class TryTake>
  bool event_spin_lock(Thread& t, SpinLock& l, const SpinLockConfig& cfg, TryTake& try_take) {
    while (!stop_) {
      for (int r = 0; r < cfg.spin_rounds && !stop_; ++r) {
        if (try_take()) return true;
        const Time units = static_cast<Time>(
            t.rng.below(static_cast<uint64_t>(std::max(0, cfg.round_delay_max)) + 1));
        const Time end = mono_now() + units * cfg.delay_unit_ns;
        while (mono_now() < end) {
        }
      }
      if (try_take()) return true;
      for (int r = 0; r < cfg.yield_rounds && !stop_; ++r) {
        job_end(t);  // a yield ends a deadline task's job
        sched_yield();
        if (try_take()) return true;
      }
      std::unique_lock<std::mutex> g(l.m);
      if (try_take()) return true;
      const uint64_t sets = l.event_sets;
      ++l.event_waiters;
      const bool ok = blocking(t, [&] {
        l.cv.wait(g, [&] { return l.event_sets != sets || stop_; });
        return !stop_;
      });
      --l.event_waiters;
      if (!ok) return false;
    }
    return false;
  }

  const Scenario& s_;
  const Workload& w_;
  double loops_per_us_;
  int max_threads_;
  std::atomic<int> alive_{0};
  HostRunResult& result_;
  std::atomic<bool> stop_{false};
  std::vector<std::timed_mutex> mutexes_;
  std::vector<std::condition_variable_any> condvars_;
  std::vector<Barrier> barriers_;
  std::vector<SuspendQueue> suspends_;
  std::vector<Counter> counters_;
  std::vector<Semaphore> semaphores_;
  std::vector<LwLock> lwlocks_;
  std::vector<InnodbRwLock> innodb_rwlocks_;
  std::vector<SpinLock> spinlocks_;
  std::vector<SharedTimer> timers_;
  std::vector<std::atomic<int>> fork_counts_;
  std::mutex workers_m_, names_m_, error_m_, ended_m_;
  std::condition_variable ended_cv_;  // a thread ended or failed (ended_)
  bool ended_ = false;
  std::deque<Worker> workers_;
  std::exception_ptr error_;
};

// What the host cannot run at all, found before any thread starts.
void check_runnable(const Scenario& s) {
  for (const TaskSpec& t : s.workload.tasks) {
    std::vector<SchedSettings> all{t.sched};
    for (const Phase& p : t.phases)
      if (p.sched) all.push_back(*p.sched);
    for (const SchedSettings& st : all) {
      const std::string key = fmt::format("tasks.{}.policy", t.name);
      if (st.policy == SchedPolicy::kIso)
        throw InputError(s.file, key, "SCHED_ISO exists only in -ck kernels; the host refuses it");
      if ((is_rt(st.policy) || st.policy == SchedPolicy::kDeadline) && geteuid() != 0)
        throw InputError(
            s.file, key,
            fmt::format("{} on the host needs root (CAP_SYS_NICE)", policy_name(st.policy)));
    }
  }
}

}  // namespace

double time_busy_loop() {
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    const uint64_t n = 20'000'000;
    const Time t0 = thread_cpu_now();
    busy_loop(n);
    const Time t1 = thread_cpu_now();
    best = std::max(best, static_cast<double>(n) / (static_cast<double>(t1 - t0) / 1000.0));
  }
  return best;
}

HostRunResult run_on_host(const Scenario& scenario, const HostRunOptions& options) {
  check_runnable(scenario);
  HostRunResult result;
  result.loops_per_us = calibrate(options, &result.calibration_note);
  struct sigaction sa {};
  sa.sa_handler = on_wake_signal;  // no SA_RESTART: it interrupts clock_nanosleep
  sigemptyset(&sa.sa_mask);
  struct sigaction old {};
  sigaction(SIGUSR2, &sa, &old);
  StopSignals signals;
  Runner runner(scenario, result.loops_per_us, options.max_threads, result);
  result.start_ns = mono_now();
  runner.start_static();
  for (;;) {
    // Ctrl-C is seen within 50 ms (a signal handler cannot notify a condition variable).
    runner.wait_for_end(
        std::min(result.start_ns + options.duration_ns, mono_now() + 50 * kNsPerMs));
    if (runner.all_done()) break;
    if (runner.error()) break;
    if (StopSignals::caught()) {
      result.interrupted = true;
      break;
    }
    if (mono_now() - result.start_ns >= options.duration_ns) {
      result.timed_out = true;
      break;
    }
  }
  runner.stop_all();
  result.end_ns = mono_now();
  sigaction(SIGUSR2, &old, nullptr);
  if (const std::exception_ptr e = runner.error()) std::rethrow_exception(e);
  result.record.mark_names = scenario.workload.marks.names;
  // Threads hand their events over as they end: in time order, ties by thread.
  std::sort(result.record.events.begin(), result.record.events.end(),
            [](const HostEvent& a, const HostEvent& b) {
              return std::tie(a.time_ns, a.tid) < std::tie(b.time_ns, b.tid);
            });
  return result;
}

}  // namespace schedlab
