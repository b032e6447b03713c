// Latency percentiles in bounded memory: exact while a task has at most kExactLimit
// samples, then a log-linear histogram with 256 sub-buckets per power of two
// (relative error below 0.4 %). Percentiles are nearest-rank: the ceil(p*n)-th value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace schedlab {

// The percentiles schbench prints in its block (schbench.c of 2016, show_latencies).
inline constexpr double kPercentileBlock[] = {0.50, 0.75, 0.90, 0.95, 0.99, 0.995, 0.999};
inline constexpr const char* kPercentileNames[] = {"50", "75", "90", "95", "99", "99.5", "99.9"};

class LatencyStats {
 public:
  static constexpr size_t kExactLimit = 4096;

  void add(int64_t v);
  // Adds every sample of `other` (exact while both are and the sum fits, else bucketed).
  void merge(const LatencyStats& other);
  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t percentile(double p) const;

 private:
  static constexpr int kSubBits = 8;
  static size_t bucket_of(uint64_t v);
  static int64_t bucket_floor(size_t b);
  void spill();
  void count_in_bucket(int64_t v);

  uint64_t count_ = 0;
  int64_t max_ = 0, min_ = 0;
  std::vector<int64_t> exact_;
  bool spilled_ = false;
  std::vector<uint64_t> buckets_;  // grows only up to the bucket of the largest sample
};

}  // namespace schedlab
