// A run queue's timeline: the queued (not running) entities ordered by virtual runtime,
// equal keys in insertion order, as the kernel's rbtree keeps them (a new entity goes to
// the right of equal keys). An indexed 4-ary heap: leftmost in O(1), insert and erase
// anywhere in O(log n); positions live in a table shared by all run queues.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/types.h"

namespace schedlab::fair {

class Timeline {
 public:
  explicit Timeline(std::vector<int32_t>* positions) : pos_(positions) {}

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  TaskId leftmost() const { return heap_.empty() ? kNoTask : heap_[0].id; }
  // The leftmost's key, read from the timeline (the entity's own record may be cold);
  // not empty(). An entity's vruntime does not change while it is queued.
  int64_t leftmost_vruntime() const { return heap_[0].vruntime; }
  // The entity with the largest key (compat sched_yield); a linear scan, as it is rare.
  TaskId rightmost() const {
    if (heap_.empty()) return kNoTask;
    size_t best = 0;
    for (size_t i = 1; i < heap_.size(); ++i)
      if (before(heap_[best], heap_[i])) best = i;
    return heap_[best].id;
  }

  // Every entity, in the heap's (deterministic, unspecified) order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Node& n : heap_) f(n.id);
  }

  void insert(TaskId id, int64_t vruntime) {
    heap_.push_back(Node{vruntime, next_seq_++, id});
    up(heap_.size() - 1);
  }

  void erase(TaskId id) {
    const auto i = static_cast<size_t>((*pos_)[id]);
    (*pos_)[id] = -1;
    const size_t last = heap_.size() - 1;
    if (i != last) {
      heap_[i] = heap_[last];
      heap_.pop_back();
      place(i);
      if (!up(i)) down(i);
    } else {
      heap_.pop_back();
    }
  }

 private:
  struct Node {
    int64_t vruntime;
    uint64_t seq;
    TaskId id;
  };
  static bool before(const Node& a, const Node& b) {
    return a.vruntime != b.vruntime ? a.vruntime < b.vruntime : a.seq < b.seq;
  }
  void place(size_t i) { (*pos_)[heap_[i].id] = static_cast<int32_t>(i); }
  // A 4-ary heap: half the levels of a binary one, and a node's four children share a
  // cache line or two, which matters once the run queues no longer fit in the cache. The
  // order (vruntime, then insertion) is total, so the leftmost is the same in any heap.
  static constexpr size_t kArity = 4;
  // Moves the node at i up to its place (a hole travels up; the node is written once).
  bool up(size_t i) {
    const size_t start = i;
    const Node node = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!before(node, heap_[parent])) break;
      heap_[i] = heap_[parent];
      place(i);
      i = parent;
    }
    heap_[i] = node;
    place(i);
    return i != start;
  }
  void down(size_t i) {
    const size_t n = heap_.size();
    const Node node = heap_[i];
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = std::min(first + kArity, n);
      for (size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], node)) break;
      heap_[i] = heap_[best];
      place(i);
      i = best;
    }
    heap_[i] = node;
    place(i);
  }

  std::vector<Node> heap_;
  std::vector<int32_t>* pos_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab::fair
