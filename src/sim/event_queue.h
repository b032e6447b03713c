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

enum class AgendaKind : uint8_t { kTaskStart, kTaskWake, kBurstEnd, kTick, kClassTimer, kIpi };

// 24 bytes: the insertion sequence and the kind share a word, whose top bit is set for
// the jiffy so that one comparison orders it after everything else due at its instant.
struct AgendaItem {
  Time time;
  uint64_t seq_kind;  // jiffy << 63 | insertion sequence << 8 | kind
  // The target (task spec, task or CPU) and a generation compared with the low 32 bits
  // of the owner's counter, in one word: written and read whole, which keeps the
  // processor's store-to-load forwarding working when items move through the heaps.
  uint64_t target_generation;
  AgendaKind kind() const { return static_cast<AgendaKind>(seq_kind & 0xff); }
  int32_t target() const { return static_cast<int32_t>(static_cast<uint32_t>(target_generation)); }
  uint32_t generation() const { return static_cast<uint32_t>(target_generation >> 32); }
  static uint64_t pack(int32_t target, uint64_t generation) {
    return static_cast<uint64_t>(static_cast<uint32_t>(target)) |
           static_cast<uint64_t>(static_cast<uint32_t>(generation)) << 32;
  }
};

class Agenda {
 public:
  explicit Agenda(int slots = 0) : slot_pos_(static_cast<size_t>(slots), -1) {}

  void push(Time t, AgendaKind kind, int32_t target, uint64_t generation) {
    heap_.emplace_back();
    heap_up(heap_.size() - 1, AgendaItem{t, tag(kind), AgendaItem::pack(target, generation)});
  }
  // Sets (or moves) the event of a slot; target is the slot.
  void set_slot(int32_t slot, Time t, AgendaKind kind) {
    const AgendaItem item{t, tag(kind), AgendaItem::pack(slot, 0)};
    int32_t& pos = slot_pos_[static_cast<size_t>(slot)];
    if (pos < 0) {
      pos = static_cast<int32_t>(slots_.size());
      slots_.emplace_back();
    }
    sift_slot(static_cast<size_t>(pos), item);
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
      const AgendaItem last = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) heap_down(0, last);
    }
  }
  size_t size() const { return heap_.size() + slots_.size(); }

 private:
  // (time, seq_kind) compared as one 128-bit number (times are never negative): no branch
  // on equal times, so choosing among a node's children needs no unpredictable jumps.
  struct Later {
    static UInt128 key(const AgendaItem& a) {
      return static_cast<UInt128>(static_cast<uint64_t>(a.time)) << 64 | a.seq_kind;
    }
    bool operator()(const AgendaItem& a, const AgendaItem& b) const { return key(a) > key(b); }
  };
  uint64_t tag(AgendaKind kind) {
    const uint64_t jiffy = kind == AgendaKind::kTick ? uint64_t{1} << 63 : 0;
    return jiffy | next_seq_++ << 8 | static_cast<uint64_t>(kind);
  }
  bool slot_first() const {
    if (slots_.empty()) return false;
    return heap_.empty() || Later{}(heap_[0], slots_[0]);
  }
  // The sifts carry the item being placed in registers and write it once, into the hole
  // it ends in: writing it first and reading it back would defeat store-to-load
  // forwarding (two 8-byte stores read as one 16-byte load).
  // The main heap is 4-ary: half the depth of a binary heap for the many sleep timers.
  void heap_up(size_t i, const AgendaItem& item) {
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!Later{}(heap_[parent], item)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = item;
  }
  void heap_down(size_t i, const AgendaItem& item) {
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
    slot_pos_[static_cast<size_t>(slots_[i].target())] = static_cast<int32_t>(i);
  }
  // Places `item` in the hole at i, moving it up or down the slot heap.
  void sift_slot(size_t i, const AgendaItem& item) {
    const size_t start = i;
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!Later{}(slots_[parent], item)) break;
      slots_[i] = slots_[parent];
      place(i);
      i = parent;
    }
    if (i == start) {
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
    }
    slots_[i] = item;
    place(i);
  }
  void remove_slot_at(size_t i) {
    slot_pos_[static_cast<size_t>(slots_[i].target())] = -1;
    const AgendaItem last = slots_.back();
    slots_.pop_back();
    if (i < slots_.size()) sift_slot(i, last);
  }

  std::vector<AgendaItem> heap_;
  std::vector<AgendaItem> slots_;  // a binary heap too, indexed by slot_pos_
  std::vector<int32_t> slot_pos_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab
