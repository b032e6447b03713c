// The engine's agenda: a binary heap ordered by time. Events due at the same instant run
// in the order they were scheduled, except ticks: they come after everything else due at
// that instant, in CPU order, so a tick sees the work that ended on it whenever it was
// armed. Stale entries are recognised by a generation number and skipped.
#pragma once

#include <queue>
#include <vector>

#include "util/types.h"

namespace schedlab {

enum class AgendaKind : uint8_t { kTaskStart, kTaskWake, kBurstEnd, kTick };

struct AgendaItem {
  Time time;
  uint64_t seq;
  AgendaKind kind;
  int32_t target;  // task spec, task or CPU
  uint64_t generation;
};

class Agenda {
 public:
  void push(Time t, AgendaKind kind, int32_t target, uint64_t generation) {
    heap_.push(AgendaItem{t, next_seq_++, kind, target, generation});
  }
  bool empty() const { return heap_.empty(); }
  const AgendaItem& top() const { return heap_.top(); }
  void pop() { heap_.pop(); }
  size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const AgendaItem& a, const AgendaItem& b) const {
      if (a.time != b.time) return a.time > b.time;
      const bool a_tick = a.kind == AgendaKind::kTick, b_tick = b.kind == AgendaKind::kTick;
      if (a_tick != b_tick) return a_tick;
      if (a_tick && a.target != b.target) return a.target > b.target;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<AgendaItem, std::vector<AgendaItem>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab
