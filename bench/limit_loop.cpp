// The practical limit for the bench load (issue 19): a minimal discrete-event loop that
// does only the scheduling arithmetic of bench-64cpu-1000.json under rr with a 4 ms slice,
// and nothing else (no program interpreter, no classes, no events, no analyzer).
//
//   64 CPUs, 500 hogs and 500 tasks that run 200 us and sleep 1 ms; one global FIFO queue
//   as rr has (policy/rr.cpp): a waking task takes an idle CPU (its previous one first),
//   else waits at the tail; at the first jiffy (HZ 1000) at or after a task has run 4 ms
//   it goes to the tail if the queue is not empty. Items due at the same time run in the
//   order they were scheduled, the jiffy after everything else due then (as the engine's
//   agenda does). The agenda is a 4-ary heap.
//
//   bench/limit_loop [SIMULATED_SECONDS] [REPEATS]
// prints the switches of one run, the agenda items and the switches per CPU second
// (getrusage, user + system) over the repeats. `schedlab run bench/bench-64cpu-1000.json
// --policy rr --param slice_ns=4000000` does the same schedule with everything else on.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kCpus = 64, kHogs = 500, kSleepers = 500;
constexpr int64_t kSliceNs = 4'000'000, kTickNs = 1'000'000;
constexpr int64_t kRunNs = 200'000, kSleepNs = 1'000'000;

enum Kind : uint8_t { kBurstEnd = 0, kWake = 1, kTick = 2 };

struct Item {
  int64_t at;
  uint64_t order;  // kind (ticks last) above the insertion sequence
  int32_t who;     // CPU for kBurstEnd, task for kWake
  Kind kind;
};

// A 4-ary min-heap of agenda items (shallower than a binary heap: fewer cache misses).
class Agenda {
 public:
  void push(int64_t at, Kind kind, int32_t who) {
    const uint64_t order = (uint64_t{kind == kTick} << 63) | seq_++;
    heap_.push_back(Item{at, order, who, kind});
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!less(heap_[i], heap_[parent])) break;
      std::swap(heap_[i], heap_[parent]);
      i = parent;
    }
  }
  Item pop() {
    const Item top = heap_[0];
    heap_[0] = heap_.back();
    heap_.pop_back();
    size_t i = 0;
    const size_t n = heap_.size();
    for (;;) {
      size_t best = i;
      for (size_t c = 4 * i + 1; c < 4 * i + 5 && c < n; ++c)
        if (less(heap_[c], heap_[best])) best = c;
      if (best == i) break;
      std::swap(heap_[i], heap_[best]);
      i = best;
    }
    return top;
  }
  bool empty() const { return heap_.empty(); }
  const Item& top() const { return heap_[0]; }

 private:
  static bool less(const Item& a, const Item& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  }
  std::vector<Item> heap_;
  uint64_t seq_ = 0;
};

// A ring buffer FIFO of task ids (never more than the number of tasks).
class Fifo {
 public:
  explicit Fifo(size_t cap) : buf_(cap) {}
  bool empty() const { return size_ == 0; }
  void push(int32_t t) {
    buf_[(head_ + size_) % buf_.size()] = t;
    ++size_;
  }
  int32_t pop() {
    const int32_t t = buf_[head_];
    head_ = (head_ + 1) % buf_.size();
    --size_;
    return t;
  }

 private:
  std::vector<int32_t> buf_;
  size_t head_ = 0, size_ = 0;
};

struct Result {
  uint64_t switches = 0, items = 0;
};

Result run(int64_t duration_ns) {
  constexpr int kTasks = kHogs + kSleepers;
  Agenda agenda;
  Fifo queue(kTasks);
  std::vector<int32_t> curr(kCpus, -1);
  std::vector<int64_t> picked_at(kCpus, 0);  // when curr was picked (it has run since)
  std::vector<int32_t> prev_cpu(kTasks, -1);
  Result r;
  int64_t now = 0, next_jiffy = -1;
  int32_t jiffy_generation = 0;
  bool in_tick = false;  // the jiffy re-arms itself once it has seen every CPU

  const auto is_sleeper = [](int32_t t) { return t >= kHogs; };
  const auto arm_jiffy = [&](int64_t at) {
    if (!in_tick && (next_jiffy < 0 || at < next_jiffy)) {
      next_jiffy = at;
      agenda.push(at, kTick, ++jiffy_generation);  // an earlier one makes the later stale
    }
  };
  // A new task on `cpu`: a sleeper ends its burst after 200 us, anyone's slice ends at the
  // first jiffy at or after 4 ms of running.
  const auto start = [&](int cpu, int32_t t) {
    ++r.switches;
    curr[cpu] = t;
    picked_at[cpu] = now;
    prev_cpu[t] = cpu;
    if (is_sleeper(t)) agenda.push(now + kRunNs, kBurstEnd, cpu);
    arm_jiffy((now + kSliceNs + kTickNs - 1) / kTickNs * kTickNs);
  };
  const auto switch_to_head = [&](int cpu) {
    if (queue.empty()) {
      ++r.switches;  // to idle
      curr[cpu] = -1;
    } else {
      start(cpu, queue.pop());
    }
  };
  const auto wake = [&](int32_t t) {
    const int prev = prev_cpu[t];
    for (int k = 0; k < kCpus; ++k) {  // the first idle CPU from prev on, wrapping around
      const int cpu = (prev + k) % kCpus;
      if (curr[cpu] < 0) return start(cpu, t);
    }
    queue.push(t);
  };

  // Fork: the first idle CPU after CPU 0 (rr's select_cpu with no previous CPU).
  for (int32_t t = 0; t < kTasks; ++t) {
    prev_cpu[t] = 0;
    int cpu = -1;
    for (int k = 1; k <= kCpus && cpu < 0; ++k)
      if (curr[k % kCpus] < 0) cpu = k % kCpus;
    if (cpu >= 0)
      start(cpu, t);
    else
      queue.push(t);
  }

  while (!agenda.empty() && agenda.top().at <= duration_ns) {
    const Item it = agenda.pop();
    ++r.items;
    now = it.at;
    switch (it.kind) {
      case kBurstEnd:  // a sleeper blocks for 1 ms
        agenda.push(now + kSleepNs, kWake, curr[it.who]);
        switch_to_head(it.who);
        break;
      case kWake:
        wake(it.who);
        break;
      case kTick: {
        if (it.who != jiffy_generation) break;
        in_tick = true;
        int64_t next = -1;
        for (int cpu = 0; cpu < kCpus; ++cpu) {
          if (curr[cpu] < 0) continue;
          if (now - picked_at[cpu] >= kSliceNs && !queue.empty()) {
            queue.push(curr[cpu]);
            start(cpu, queue.pop());
          }
          const int64_t due = (picked_at[cpu] + kSliceNs + kTickNs - 1) / kTickNs * kTickNs;
          const int64_t at = due > now ? due : now + kTickNs;
          if (next < 0 || at < next) next = at;
        }
        in_tick = false;
        next_jiffy = -1;
        if (next >= 0) arm_jiffy(next);
        break;
      }
    }
  }
  return r;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const auto duration_ns = static_cast<int64_t>(seconds * 1e9);
  const double t0 = cpu_seconds();
  Result r;
  for (int i = 0; i < repeats; ++i) r = run(duration_ns);
  const double cpu = cpu_seconds() - t0;
  const double switches = static_cast<double>(r.switches) * repeats;
  std::printf(
      "limit-loop switches %llu items %llu cpu_s %.3f switches_per_cpu_s %.0f ns_per_item %.1f\n",
      static_cast<unsigned long long>(r.switches), static_cast<unsigned long long>(r.items), cpu,
      cpu > 0 ? switches / cpu : 0.0, cpu * 1e9 / (static_cast<double>(r.items) * repeats));
  return 0;
}
