// One run queue's entities for EEVDF's pick: a sorted array while the queue is short, the
// augmented tree (deadline_tree.h) once it is long. Both order by (vruntime, insertion)
// and pick the same entity (the keys decide, not the structure): the eligible one of
// earliest deadline, then smaller vruntime, then earlier insertion.
//
// Why two: a run queue usually holds a handful of entities, where a scan of one
// contiguous array beats walking a tree of cache-line nodes (the tree was a third of an
// EEVDF run of 64 CPUs x 16 tasks); a queue of thousands needs the O(log n) tree. A queue
// moves to the tree past kToTree entities and back below kToArray (apart, so that a
// queue near one size does not move back and forth), keeping each entity's insertion
// number.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/eevdf/deadline_tree.h"
#include "util/types.h"

namespace schedlab::eevdf {

class DeadlineQueue {
 public:
  static constexpr size_t kToTree = 64, kToArray = 32;

  void insert(DeadlineTree& tree, TaskId id, int64_t vruntime, int64_t deadline) {
    const uint64_t seq = tree.next_seq();
    ++size_;
    if (root_ != kNoTask) {
      tree.insert_as(root_, id, vruntime, deadline, seq);
      if (vruntime < left_vruntime_) {  // equal keys go after the leftmost
        left_ = id;
        left_vruntime_ = vruntime;
      }
      return;
    }
    // After every entry of a smaller or equal vruntime (all inserted earlier).
    size_t at = sorted_.size();
    while (at > 0 && sorted_[at - 1].vruntime > vruntime) --at;
    sorted_.insert(sorted_.begin() + static_cast<std::ptrdiff_t>(at),
                   Entry{vruntime, deadline, seq, id});
    if (sorted_.size() > kToTree) {
      for (const Entry& e : sorted_) tree.insert_as(root_, e.id, e.vruntime, e.deadline, e.seq);
      left_ = sorted_.front().id;
      left_vruntime_ = sorted_.front().vruntime;
      sorted_.clear();
    }
  }

  void erase(DeadlineTree& tree, TaskId id) {
    --size_;
    if (root_ == kNoTask) {
      for (size_t i = 0; i < sorted_.size(); ++i)
        if (sorted_[i].id == id) {
          sorted_.erase(sorted_.begin() + static_cast<std::ptrdiff_t>(i));
          return;
        }
      return;
    }
    tree.erase(root_, id);
    if (size_ < kToArray) {
      tree.drain(root_, [&](TaskId x, int64_t v, int64_t d, uint64_t seq) {
        sorted_.push_back(Entry{v, d, seq, x});
      });
    } else if (id == left_) {
      left_ = tree.leftmost(root_);
      left_vruntime_ = tree.vruntime_of(left_);
    }
  }

  // The entity of smallest (vruntime, insertion), kNoTask if none: the kernel's leftmost.
  TaskId leftmost() const {
    if (root_ != kNoTask) return left_;
    return sorted_.empty() ? kNoTask : sorted_.front().id;
  }
  bool empty() const { return size_ == 0; }
  // Every entity, in (vruntime, insertion) order.
  template <typename F>
  void for_each(const DeadlineTree& tree, F&& f) const {
    if (root_ != kNoTask) return tree.for_each(root_, f);
    for (const Entry& e : sorted_) f(e.id);
  }

  // The eligible entity of earliest deadline, `excluded` (queued here or not, or kNoTask)
  // left out; eligible(vruntime) holds for a prefix of the vruntime order.
  template <typename F>
  TaskId pick_without(const DeadlineTree& tree, TaskId excluded, F&& eligible) const {
    if (root_ != kNoTask) return tree.pick_without(root_, excluded, eligible);
    // In (vruntime, insertion) order, so of equal deadlines the first seen wins.
    const Entry* best = nullptr;
    for (const Entry& e : sorted_) {
      if (!eligible(e.vruntime)) break;
      if (e.id != excluded && (!best || e.deadline < best->deadline)) best = &e;
    }
    return best ? best->id : kNoTask;
  }

  size_t size() const { return size_; }
  bool in_tree() const { return root_ != kNoTask; }
  // The order holds and the count is right (for invariant checks).
  bool consistent(const DeadlineTree& tree) const {
    if (root_ != kNoTask)
      return sorted_.empty() && tree.consistent(root_) && tree.size(root_) == size_ &&
             left_ == tree.leftmost(root_);
    for (size_t i = 1; i < sorted_.size(); ++i) {
      const Entry &a = sorted_[i - 1], &b = sorted_[i];
      if (a.vruntime > b.vruntime || (a.vruntime == b.vruntime && a.seq > b.seq)) return false;
    }
    return sorted_.size() == size_;
  }

 private:
  struct Entry {
    int64_t vruntime, deadline;
    uint64_t seq;
    TaskId id;
  };
  std::vector<Entry> sorted_;  // by (vruntime, seq), while root_ is kNoTask
  TaskId root_ = kNoTask;      // the tree's root once the queue is long
  TaskId left_ = kNoTask;      // with the tree: its leftmost, and that one's vruntime
  int64_t left_vruntime_ = 0;
  size_t size_ = 0;
};

}  // namespace schedlab::eevdf
