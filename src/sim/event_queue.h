// The engine's agenda: events ordered by time. Events due at the same instant run in the
// order they were scheduled, except the jiffy (the ticks of all CPUs due then): it comes
// after everything else due at that instant, so a tick sees the work that ended on it
// whenever it was armed.
//
// Most events sit in a binary heap; stale ones are recognised by a generation number and
// skipped. Events that are replaced all the time (the end of the burst running on each
// CPU) live in slots instead, one per CPU, updated in place, so preemptions do not fill
// the heap with stale entries.
#pragma once

#include <algorithm>
#include <vector>

#include "util/types.h"

namespace schedlab {

enum class AgendaKind : uint8_t { kTaskStart, kTaskWake, kBurstEnd, kTick, kClassTimer };

// 24 bytes: the insertion sequence and the kind share a word, whose top bit is set for
// the jiffy so that one comparison orders it after everything else due at its instant.
struct AgendaItem {
  Time time;
  uint64_t seq_kind;    // jiffy << 63 | insertion sequence << 8 | kind
  int32_t target;       // task spec, task or CPU
  uint32_t generation;  // compared with the low 32 bits of the owner's counter
  AgendaKind kind() const { return static_cast<AgendaKind>(seq_kind & 0xff); }
};

class Agenda {
 public:
  explicit Agenda(int slots = 0) : slot_pos_(static_cast<size_t>(slots), -1) {}

  void push(Time t, AgendaKind kind, int32_t target, uint64_t generation) {
    heap_.push_back(AgendaItem{t, tag(kind), target, static_cast<uint32_t>(generation)});
    heap_up(heap_.size() - 1);
  }
  // Sets (or moves) the event of a slot; target is the slot.
  void set_slot(int32_t slot, Time t, AgendaKind kind) {
    const AgendaItem item{t, tag(kind), slot, 0};
    int32_t& pos = slot_pos_[static_cast<size_t>(slot)];
    if (pos < 0) {
      pos = static_cast<int32_t>(slots_.size());
      slots_.push_back(item);
    } else {
      slots_[static_cast<size_t>(pos)] = item;
    }
    if (!slot_up(static_cast<size_t>(pos))) slot_down(static_cast<size_t>(pos));
  }
  void clear_slot(int32_t slot) {
    const int32_t pos = slot_pos_[static_cast<size_t>(slot)];
    if (pos >= 0) remove_slot_at(static_cast<size_t>(pos));
  }

  bool empty() const { return heap_.empty() && slots_.empty(); }
  const AgendaItem& top() const { return slot_first() ? slots_[0] : heap_[0]; }
  void pop() {
    if (slot_first()) {
      remove_slot_at(0);
    } else {
      heap_[0] = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) heap_down(0);
    }
  }
  size_t size() const { return heap_.size() + slots_.size(); }

 private:
  struct Later {
    bool operator()(const AgendaItem& a, const AgendaItem& b) const {
      return a.time != b.time ? a.time > b.time : a.seq_kind > b.seq_kind;
    }
  };
  uint64_t tag(AgendaKind kind) {
    const uint64_t jiffy = kind == AgendaKind::kTick ? uint64_t{1} << 63 : 0;
    return jiffy | next_seq_++ << 8 | static_cast<uint64_t>(kind);
  }
  bool slot_first() const {
    if (slots_.empty()) return false;
    return heap_.empty() || Later{}(heap_[0], slots_[0]);
  }
  // The main heap is 4-ary: half the depth of a binary heap for the many sleep timers.
  void heap_up(size_t i) {
    const AgendaItem item = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!Later{}(heap_[parent], item)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = item;
  }
  void heap_down(size_t i) {
    const AgendaItem item = heap_[i];
    const size_t n = heap_.size();
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t last = std::min(first + 4, n);
      for (size_t c = first + 1; c < last; ++c)
        if (Later{}(heap_[best], heap_[c])) best = c;
      if (!Later{}(item, heap_[best])) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = item;
  }
  void place(size_t i) {
    slot_pos_[static_cast<size_t>(slots_[i].target)] = static_cast<int32_t>(i);
  }
  // Both move a hole instead of swapping, writing each displaced item and its position
  // once.
  bool slot_up(size_t i) {
    const size_t start = i;
    const AgendaItem item = slots_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!Later{}(slots_[parent], item)) break;
      slots_[i] = slots_[parent];
      place(i);
      i = parent;
    }
    slots_[i] = item;
    place(i);
    return i != start;
  }
  void slot_down(size_t i) {
    const AgendaItem item = slots_[i];
    const size_t n = slots_.size();
    for (;;) {
      const size_t l = 2 * i + 1, r = l + 1;
      if (l >= n) break;
      const size_t best = r < n && Later{}(slots_[l], slots_[r]) ? r : l;
      if (!Later{}(item, slots_[best])) break;
      slots_[i] = slots_[best];
      place(i);
      i = best;
    }
    slots_[i] = item;
    place(i);
  }
  void remove_slot_at(size_t i) {
    slot_pos_[static_cast<size_t>(slots_[i].target)] = -1;
    const size_t last = slots_.size() - 1;
    if (i != last) {
      slots_[i] = slots_[last];
      slots_.pop_back();
      place(i);
      if (!slot_up(i)) slot_down(i);
    } else {
      slots_.pop_back();
    }
  }

  std::vector<AgendaItem> heap_;
  std::vector<AgendaItem> slots_;  // a binary heap too, indexed by slot_pos_
  std::vector<int32_t> slot_pos_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab
