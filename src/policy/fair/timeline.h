// A run queue's timeline: the queued (not running) entities ordered by virtual runtime,
// equal keys in insertion order, as the kernel's rbtree keeps them (a new entity goes to
// the right of equal keys).
//
// A list of sorted blocks, each split in two when it reaches kMaxBlock entities. What
// CFS does most touches the list's ends: the leftmost is the first block's first entry;
// a task that has run goes back near the end (its vruntime is among the largest), a
// waking sleeper near the start (placed at min_vruntime less a bonus). Those blocks stay
// in the cache however long the queue is, where a tree or a heap walks down a path of
// nodes that no longer are once there are many tasks (100,000 tasks on 64 CPUs). Each
// task's key (vruntime and insertion number) lives in a table shared by all run queues,
// from which erase() finds it by binary search.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/types.h"

namespace schedlab::fair {

struct TimelineKey {
  int64_t vruntime = 0;
  uint64_t seq = 0;  // insertion number: the tie-break
};

class Timeline {
 public:
  static constexpr size_t kMaxBlock = 128;

  explicit Timeline(std::vector<TimelineKey>* keys) : keys_(keys) { blocks_.emplace_back(); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Only the list's one block may be empty.
  TaskId leftmost() const { return size_ ? blocks_.front().front().id : kNoTask; }
  TaskId rightmost() const { return size_ ? blocks_.back().back().id : kNoTask; }

  // Every entity, in order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Block& b : blocks_)
      for (const Entry& e : b) f(e.id);
  }

  void insert(TaskId id, int64_t vruntime) {
    const Entry entry{vruntime, next_seq_++, id};
    (*keys_)[static_cast<size_t>(id)] = {entry.vruntime, entry.seq};
    // After every entity of a smaller or equal vruntime (they were all inserted before):
    // in the first block ending with a larger vruntime, else at the end of the last.
    size_t b = blocks_.size() - 1;
    if (b > 0) {
      const auto it =
          std::upper_bound(blocks_.begin(), blocks_.end(), vruntime,
                           [](int64_t v, const Block& x) { return v < x.back().vruntime; });
      if (it != blocks_.end()) b = static_cast<size_t>(it - blocks_.begin());
    }
    Block& block = blocks_[b];
    if (block.empty() || block.back().vruntime <= vruntime) {
      block.push_back(entry);
    } else {
      const auto at = std::upper_bound(block.begin(), block.end(), vruntime,
                                       [](int64_t v, const Entry& x) { return v < x.vruntime; });
      block.insert(at, entry);
    }
    ++size_;
    if (block.size() >= kMaxBlock) split(b);
  }

  void erase(TaskId id) {
    const TimelineKey key = (*keys_)[static_cast<size_t>(id)];
    const auto below = [](const Entry& x, const TimelineKey& k) {
      return x.vruntime != k.vruntime ? x.vruntime < k.vruntime : x.seq < k.seq;
    };
    size_t b = 0;
    if (blocks_.size() > 1) {  // the first block whose last entry is not below the key
      const auto it = std::partition_point(blocks_.begin(), blocks_.end(),
                                           [&](const Block& x) { return below(x.back(), key); });
      b = static_cast<size_t>(it - blocks_.begin());
    }
    Block& block = blocks_[b];
    block.erase(std::lower_bound(block.begin(), block.end(), key, below));
    --size_;
    if (block.size() < kMaxBlock / 4 && blocks_.size() > 1) merge(b);
  }

 private:
  struct Entry {
    int64_t vruntime;
    uint64_t seq;
    TaskId id;
  };
  using Block = std::vector<Entry>;

  void split(size_t b) {
    Block& full = blocks_[b];
    const auto half = full.begin() + static_cast<std::ptrdiff_t>(full.size() / 2);
    Block upper(half, full.end());
    full.erase(half, full.end());
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(upper));
  }
  // A short block joins a neighbour when both fit in half a block, and an empty one goes:
  // the blocks stay at least a quarter full on average, so they hold little empty room.
  void merge(size_t b) {
    if (blocks_[b].empty()) {
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
      return;
    }
    const size_t left = b + 1 < blocks_.size() ? b : b - 1;
    Block& into = blocks_[left];
    Block& from = blocks_[left + 1];
    if (into.size() + from.size() > kMaxBlock / 2) return;
    into.insert(into.end(), from.begin(), from.end());
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(left) + 1);
  }

  std::vector<Block> blocks_;
  std::vector<TimelineKey>* keys_;
  size_t size_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab::fair
