// A run queue's timeline: the queued (not running) entities ordered by virtual runtime,
// equal keys in insertion order, as the kernel's rbtree keeps them (a new entity goes to
// the right of equal keys). An indexed binary heap: leftmost in O(1), insert and erase
// anywhere in O(log n); positions live in a table shared by all run queues.
#pragma once

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
  bool up(size_t i) {
    const size_t start = i;
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!before(heap_[i], heap_[parent])) break;
      std::swap(heap_[i], heap_[parent]);
      place(i);
      i = parent;
    }
    place(i);
    return i != start;
  }
  void down(size_t i) {
    const size_t n = heap_.size();
    for (;;) {
      size_t best = i;
      const size_t l = 2 * i + 1, r = l + 1;
      if (l < n && before(heap_[l], heap_[best])) best = l;
      if (r < n && before(heap_[r], heap_[best])) best = r;
      if (best == i) break;
      std::swap(heap_[i], heap_[best]);
      place(i);
      i = best;
    }
    place(i);
  }

  std::vector<Node> heap_;
  std::vector<int32_t>* pos_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab::fair
