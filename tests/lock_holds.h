// Holds of a lock read from marks, for the tests that check a lock's exclusion: a task
// marks "in_x" or "in_s" as it takes the lock and "out" before it releases it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "util/types.h"

namespace schedlab::test {

class LockHolds {
 public:
  LockHolds(int32_t in_x, int32_t in_s, int32_t out) : in_x_(in_x), in_s_(in_s), out_(out) {}
  // One mark of `task` (any other mark is ignored).
  void mark(int64_t task, int32_t mark, Time at) {
    if (mark == in_x_ || mark == in_s_) open_[task] = {at, mark == in_x_};
    if (mark == out_) holds_.push_back({open_.at(task).first, at, open_.at(task).second});
  }
  size_t size() const { return holds_.size(); }
  // Pairs of holds that overlap with one of the two exclusive.
  int exclusive_overlaps() {
    std::sort(holds_.begin(), holds_.end(),
              [](const Hold& a, const Hold& b) { return a.from < b.from; });
    int overlaps = 0;
    for (size_t i = 0; i < holds_.size(); ++i)
      for (size_t j = i + 1; j < holds_.size() && holds_[j].from < holds_[i].to; ++j)
        overlaps += holds_[i].exclusive || holds_[j].exclusive;
    return overlaps;
  }

 private:
  struct Hold {
    Time from, to;
    bool exclusive;
  };
  int32_t in_x_, in_s_, out_;
  std::map<int64_t, std::pair<Time, bool>> open_;  // task: since, exclusive
  std::vector<Hold> holds_;
};

}  // namespace schedlab::test
