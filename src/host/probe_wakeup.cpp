// Probes of switching and waking (probes.h): pipe ping-pong on one CPU, futex wake-ups
// across CPUs onto an idle or a busy target, and timer overshoot.
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "host/probes.h"

namespace schedlab {

namespace {

long futex(std::atomic<int>* word, int op, int value) {
  return syscall(SYS_futex, reinterpret_cast<int*>(word), op, value, nullptr, nullptr, 0);
}

void sleep_ns(Time ns) {
  timespec ts{static_cast<time_t>(ns / kNsPerSec), static_cast<long>(ns % kNsPerSec)};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
  }
}

void spin_ns(Time ns) {
  const Time end = mono_now_ns() + ns;
  while (mono_now_ns() < end) {
  }
}

// write + read of one byte on a pipe to itself: what a ping-pong round does besides
// switching.
double pipe_round_ns(int rounds) {
  int p[2];
  if (pipe(p) != 0) return 0;
  char c = 0;
  const Time t0 = mono_now_ns();
  for (int i = 0; i < rounds; ++i)
    if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) break;
  const Time t1 = mono_now_ns();
  close(p[0]);
  close(p[1]);
  return static_cast<double>(t1 - t0) / rounds;
}

// The shared state of a wake-up probe, one cache line each.
struct alignas(64) Line {
  std::atomic<int> value{0};
};
struct WakeShared {
  Line word;     // the futex the target waits on: 1 = wake
  Line waiting;  // the target is about to wait
  Line acked;    // the target has run and recorded
  Line stop;
};

void target_loop(WakeShared& s, CpuId cpu, int count, std::vector<int64_t>& run_at) {
  pin_to_cpu(cpu);
  for (int i = 0; i < count && !s.stop.value.load(); ++i) {
    s.waiting.value.store(1);
    while (s.word.value.load() == 0 && !s.stop.value.load())
      futex(&s.word.value, FUTEX_WAIT_PRIVATE, 0);
    run_at.push_back(mono_now_ns());
    s.word.value.store(0);
    s.acked.value.store(1);
  }
}

void idle_spinner(std::atomic<int>& stop, CpuId cpu) {
  pin_to_cpu(cpu);
  sched_param none{};
  sched_setscheduler(0, SCHED_IDLE, &none);  // any woken thread preempts it at once
  while (!stop.load()) {
  }
}

}  // namespace

int64_t Samples::percentile(double p) const {
  if (values.empty()) return 0;
  std::vector<int64_t> v = values;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size(), std::max<size_t>(rank, 1)) - 1];
}

Time mono_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<Time>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

bool pin_to_cpu(CpuId cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<size_t>(cpu), &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

Samples context_switch(CpuId cpu, int batches, int rounds_per_batch) {
  int ab[2], ba[2];
  Samples out;
  if (pipe(ab) != 0) return out;
  if (pipe(ba) != 0) {
    close(ab[0]);
    close(ab[1]);
    return out;
  }
  const int total = batches * rounds_per_batch;
  std::thread echo([&] {
    pin_to_cpu(cpu);
    char c = 0;
    for (int i = 0; i < total; ++i)
      if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1) break;
  });
  pin_to_cpu(cpu);
  const double pipe_ns = pipe_round_ns(rounds_per_batch);
  char c = 0;
  for (int b = 0; b < batches; ++b) {
    const Time t0 = mono_now_ns();
    for (int i = 0; i < rounds_per_batch; ++i)
      if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) break;
    const double round = static_cast<double>(mono_now_ns() - t0) / rounds_per_batch;
    // two switches per round, and one write + read on each side besides
    out.values.push_back(std::max<int64_t>(1, std::llround(round / 2 - pipe_ns)));
  }
  echo.join();
  for (int fd : {ab[0], ab[1], ba[0], ba[1]}) close(fd);
  return out;
}

WakeSamples futex_wakeups(CpuId waker, CpuId target, int count, Time target_idle_ns,
                          bool busy_target) {
  WakeShared s;
  std::vector<int64_t> run_at;
  run_at.reserve(static_cast<size_t>(count));
  std::vector<int64_t> woke_at, send;
  std::atomic<int> spinner_stop{0};
  std::thread spinner;
  if (busy_target) spinner = std::thread(idle_spinner, std::ref(spinner_stop), target);
  std::thread t(target_loop, std::ref(s), target, count, std::ref(run_at));
  pin_to_cpu(waker);
  for (int i = 0; i < count; ++i) {
    const Time give_up = mono_now_ns() + kNsPerSec;
    while (s.waiting.value.load() == 0 && mono_now_ns() < give_up) {
    }
    s.waiting.value.store(0);
    // Let the target block and its CPU settle into idle (or into the spinner).
    if (target_idle_ns > 0)
      sleep_ns(target_idle_ns);
    else
      spin_ns(20 * kNsPerUs);
    s.acked.value.store(0);
    s.word.value.store(1);
    const Time t0 = mono_now_ns();
    const long woken = futex(&s.word.value, FUTEX_WAKE_PRIVATE, 1);
    const Time t1 = mono_now_ns();
    woke_at.push_back(woken == 1 ? t0 : -1);  // -1: it had not blocked yet
    send.push_back(t1 - t0);
    while (s.acked.value.load() == 0 && mono_now_ns() < give_up) {
    }
  }
  s.stop.value.store(1);
  s.word.value.store(1);
  futex(&s.word.value, FUTEX_WAKE_PRIVATE, 1);
  t.join();
  spinner_stop.store(1);
  if (spinner.joinable()) spinner.join();
  WakeSamples out;
  for (size_t i = 0; i < woke_at.size() && i < run_at.size(); ++i)
    if (woke_at[i] >= 0) {
      out.latency.values.push_back(run_at[i] - woke_at[i]);
      out.send.values.push_back(send[i]);
    }
  return out;
}

Samples futex_wake_alone(CpuId cpu, int count) {
  pin_to_cpu(cpu);
  std::atomic<int> word{0};
  Samples out;
  for (int i = 0; i < count; ++i) {
    const Time t0 = mono_now_ns();
    futex(&word, FUTEX_WAKE_PRIVATE, 1);
    out.values.push_back(mono_now_ns() - t0);
  }
  return out;
}

Samples timer_overshoot(CpuId cpu, int count, Time sleep_ns_) {
  pin_to_cpu(cpu);
  Samples out;
  for (int i = 0; i < count; ++i) {
    const Time t0 = mono_now_ns();
    sleep_ns(sleep_ns_);
    out.values.push_back(mono_now_ns() - t0 - sleep_ns_);
  }
  return out;
}

}  // namespace schedlab
