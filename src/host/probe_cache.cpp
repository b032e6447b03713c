// Probes of caches and of the machine's own noise (probes.h): the refill after a
// migration, the co-run slowdown of loops on CPUs that share a cache or a core, and the
// gaps a pinned hog sees in its run.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "host/probes.h"

namespace schedlab {

namespace {

constexpr int64_t kLine = 64;

// One read-modify-write of every cache line of the buffer; returns a value the compiler
// cannot drop.
uint64_t walk(std::vector<uint64_t>& buf) {
  uint64_t sum = 0;
  const size_t step = kLine / sizeof(uint64_t);
  for (size_t i = 0; i < buf.size(); i += step) {
    sum += buf[i];
    buf[i] = sum;
  }
  return sum;
}

Time timed_walk(std::vector<uint64_t>& buf, uint64_t& sink) {
  const Time t0 = mono_now_ns();
  sink += walk(buf);
  return mono_now_ns() - t0;
}

void busy_loop(uint64_t n, uint64_t& sink) {
  for (uint64_t i = 0; i < n; ++i) {
    sink += i;
    asm volatile("" : "+r"(sink));
  }
}

Time thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<Time>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

// Work units done per second of the thread's own CPU time (so that time other tasks take
// from it does not count) by `work` until the deadline, on `cpu`.
double rate_of(CpuId cpu, Time until, const std::function<uint64_t()>& work) {
  pin_to_cpu(cpu);
  uint64_t units = 0;
  const Time start = thread_cpu_ns();
  while (mono_now_ns() < until) units += work();
  return static_cast<double>(units) / (static_cast<double>(thread_cpu_ns() - start) / 1e9);
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

int64_t size_bytes(const std::string& text) {  // "1024K", "32M"
  if (text.empty()) return 0;
  int64_t n = 0;
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') n = n * 10 + (text[i++] - '0');
  if (i < text.size() && text[i] == 'K') n *= 1024;
  if (i < text.size() && text[i] == 'M') n *= 1024 * 1024;
  return n;
}

}  // namespace

Samples migration_refill(CpuId from, CpuId to, int64_t bytes, int repeats) {
  std::vector<uint64_t> buf(static_cast<size_t>(bytes) / sizeof(uint64_t), 1);
  uint64_t sink = 0;
  Samples out;
  for (int r = 0; r < repeats; ++r) {
    const CpuId a = r % 2 ? to : from, b = r % 2 ? from : to;
    pin_to_cpu(a);
    walk(buf);
    walk(buf);
    const Time warm = timed_walk(buf, sink);
    pin_to_cpu(b);  // the kernel moves the thread at once
    const Time cold = timed_walk(buf, sink);
    out.values.push_back(std::max<int64_t>(0, cold - warm));
  }
  if (sink == 42) out.values.push_back(0);  // keeps the walks
  return out;
}

double corun_slowdown(CpuId a, CpuId b, bool memory_heavy, int64_t bytes, Time duration_ns) {
  auto make_work = [memory_heavy, bytes]() {
    auto buf = std::make_shared<std::vector<uint64_t>>(
        memory_heavy ? static_cast<size_t>(bytes) / sizeof(uint64_t) : 0, 1);
    auto sink = std::make_shared<uint64_t>(0);
    return std::function<uint64_t()>([buf, sink, memory_heavy]() -> uint64_t {
      if (memory_heavy) {
        *sink += walk(*buf);
        return 1;
      }
      busy_loop(100000, *sink);
      return 1;
    });
  };
  double alone = 0, together_a = 0, together_b = 0;
  {
    auto work = make_work();
    work();  // page the buffer in
    std::thread t([&] { alone = rate_of(a, mono_now_ns() + duration_ns, work); });
    t.join();
  }
  {
    auto work_a = make_work(), work_b = make_work();
    work_a();
    work_b();
    const Time until = mono_now_ns() + duration_ns;
    std::thread ta([&] { together_a = rate_of(a, until, work_a); });
    std::thread tb([&] { together_b = rate_of(b, until, work_b); });
    ta.join();
    tb.join();
  }
  const double together = (together_a + together_b) / 2;
  return together > 0 ? std::max(0.0, alone / together - 1) : 0;
}

std::vector<NoiseSamples> preempted_gaps(int cpus, Time duration_ns) {
  std::vector<NoiseSamples> out(static_cast<size_t>(cpus));
  std::vector<std::thread> hogs;
  const Time start = mono_now_ns() + 10 * kNsPerMs;
  for (CpuId c = 0; c < cpus; ++c)
    hogs.emplace_back([&out, c, start, duration_ns] {
      NoiseSamples& n = out[static_cast<size_t>(c)];
      n.cpu = c;
      pin_to_cpu(c);
      while (mono_now_ns() < start) {
      }
      rusage before{};
      getrusage(RUSAGE_THREAD, &before);
      // What one clock read costs here sets the threshold: 20 of them, at least 1 us.
      Time t = mono_now_ns(), min_step = kNsPerSec;
      for (int i = 0; i < 1000; ++i) {
        const Time now = mono_now_ns();
        min_step = std::min(min_step, now - t);
        t = now;
      }
      const Time threshold = std::max<Time>(kNsPerUs, 20 * std::max<Time>(min_step, 20));
      std::vector<int64_t> gaps;
      const Time end = t + duration_ns;
      while (t < end) {
        const Time now = mono_now_ns();
        if (now - t > threshold) gaps.push_back(now - t);
        t = now;
      }
      rusage after{};
      getrusage(RUSAGE_THREAD, &after);
      n.duration_ns = duration_ns;
      n.gaps = static_cast<int64_t>(gaps.size());
      const auto switches =
          static_cast<size_t>(std::max<long>(0, after.ru_nivcsw - before.ru_nivcsw));
      std::sort(gaps.begin(), gaps.end(), std::greater<>());
      gaps.resize(std::min(gaps.size(), switches));
      n.preempted.values = std::move(gaps);
    });
  for (std::thread& h : hogs) h.join();
  return out;
}

int64_t private_cache_bytes(CpuId cpu) {
  const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
  const std::string siblings = read_line(base + "/topology/thread_siblings_list");
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = base + "/cache/index" + std::to_string(index);
    const std::string shared = read_line(dir + "/shared_cpu_list");
    if (shared.empty()) continue;
    if (shared != std::to_string(cpu) && shared != siblings) continue;
    best = std::max(best, size_bytes(read_line(dir + "/size")));
  }
  return best;
}

}  // namespace schedlab
