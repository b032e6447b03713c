// One run queue's timeline for EEVDF: its entities in (vruntime, insertion) order, where
// the first is the kernel's leftmost, with the pick of pick_eevdf(): the eligible entity
// of earliest deadline, then smaller vruntime, then earlier insertion. The kernel finds
// it in an rbtree whose nodes cache their subtree's minimum deadline (6.6's
// min_deadline); the answer depends on the keys alone, so any structure ordering them
// gives the same pick.
//
// Two forms, by length: a list of sorted blocks (block_list.h; fastest from a handful to
// a few thousand entities, where a tree's scattered nodes miss the cache) and, past
// to_tree entities, the augmented tree (deadline_tree.h; O(log n) however long). The
// queue moves back below to_blocks (apart, so that a queue near one size does not move
// back and forth), every entity keeping its insertion number.
#pragma once

#include <cstdint>

#include "policy/eevdf/block_list.h"
#include "policy/eevdf/deadline_tree.h"
#include "util/types.h"

namespace schedlab::eevdf {

class DeadlineQueue {
 public:
  // Measured on 64 CPUs: blocks at 1,560 entities per queue take 211 ns per event against
  // the tree's 308; at 10,000 per queue (2 CPUs) 568 against 153.
  explicit DeadlineQueue(size_t to_tree = 4096, size_t to_blocks = 2048)
      : to_tree_(to_tree), to_blocks_(to_blocks) {}

  void insert(DeadlineTree& tree, TaskId id, int64_t vruntime, int64_t deadline) {
    const uint64_t seq = next_seq_++;
    if (root_ == kNoTask) {
      blocks_.insert(id, vruntime, deadline, seq);
      if (blocks_.size() > to_tree_) to_tree(tree);
      return;
    }
    tree.insert_as(root_, id, vruntime, deadline, seq);
    ++tree_size_;
    if (vruntime < left_vruntime_) {  // equal keys go after the leftmost
      left_ = id;
      left_vruntime_ = vruntime;
    }
  }

  // Erases `id`, queued here with `vruntime` (an entity's vruntime does not change while
  // it is queued).
  void erase(DeadlineTree& tree, TaskId id, int64_t vruntime) {
    if (root_ == kNoTask) {
      blocks_.erase(id, vruntime);
      return;
    }
    tree.erase(root_, id);
    --tree_size_;
    if (tree_size_ < to_blocks_) {
      tree.drain(root_, [&](TaskId x, int64_t v, int64_t d, uint64_t s) {
        blocks_.insert(x, v, d, s);  // in key order, so each goes last
      });
      tree_size_ = 0;
    } else if (id == left_) {
      left_ = tree.leftmost(root_);
      left_vruntime_ = tree.vruntime_of(left_);
    }
  }

  // The eligible entity of earliest deadline, `excluded` (queued here or not, or kNoTask)
  // left out; eligible(vruntime) holds for a prefix of the vruntime order.
  template <typename F>
  TaskId pick_without(const DeadlineTree& tree, TaskId excluded, F&& eligible) const {
    if (root_ != kNoTask) return tree.pick_without(root_, excluded, eligible);
    return blocks_.pick_without(excluded, eligible);
  }

  // The entity of smallest (vruntime, insertion), kNoTask if none: the kernel's leftmost.
  TaskId leftmost() const { return root_ != kNoTask ? left_ : blocks_.leftmost(); }
  // The leftmost's vruntime, read where the queue keeps it; not empty().
  int64_t leftmost_vruntime() const {
    return root_ != kNoTask ? left_vruntime_ : blocks_.leftmost_vruntime();
  }
  size_t size() const { return root_ != kNoTask ? tree_size_ : blocks_.size(); }
  bool empty() const { return size() == 0; }
  bool in_tree() const { return root_ != kNoTask; }
  // Every entity, in (vruntime, insertion) order.
  template <typename F>
  void for_each(const DeadlineTree& tree, F&& f) const {
    if (root_ != kNoTask) return tree.for_each(root_, f);
    blocks_.for_each([&](TaskId id, int64_t, int64_t, uint64_t) { f(id); });
  }
  // The order and summaries hold in the form in use, and the other is empty.
  bool consistent(const DeadlineTree& tree) const {
    if (root_ == kNoTask) return blocks_.consistent();
    return blocks_.size() == 0 && tree.consistent(root_) && tree.size(root_) == tree_size_ &&
           left_ == tree.leftmost(root_) && left_vruntime_ == tree.vruntime_of(left_);
  }

 private:
  void to_tree(DeadlineTree& tree) {
    blocks_.for_each(
        [&](TaskId id, int64_t v, int64_t d, uint64_t s) { tree.insert_as(root_, id, v, d, s); });
    tree_size_ = blocks_.size();
    left_ = blocks_.leftmost();
    left_vruntime_ = tree.vruntime_of(left_);
    blocks_.clear();
  }

  size_t to_tree_, to_blocks_;
  BlockList blocks_;
  TaskId root_ = kNoTask;  // the tree's root while the queue is long
  size_t tree_size_ = 0;
  TaskId left_ = kNoTask;  // with the tree: its leftmost, and that one's vruntime
  int64_t left_vruntime_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab::eevdf
