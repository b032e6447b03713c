// The engine's agenda: a binary heap ordered by (time, insertion order), so that events
// due at the same instant run in the order they were scheduled. Stale entries are
// recognised by a generation number and skipped.
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
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::priority_queue<AgendaItem, std::vector<AgendaItem>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab
