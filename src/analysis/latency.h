// Latency percentiles in small, bounded memory: exact while a set holds at most
// kExactLimit samples (8 KB), then a log-linear histogram (HDR style) with 128 sub-buckets
// per power of two, allocated only for the powers of two that occur (512 B each): a
// percentile is then the lower bound of the sample's bucket, at most 1/128 (0.8 %) below
// the exact value and never below the smallest sample. Percentiles are nearest-rank: the
// ceil(p*n)-th smallest value. A bucket counts up to 2^32 - 1 samples (it saturates).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace schedlab {

// The percentiles schbench prints in its block (schbench.c of 2016, show_latencies).
inline constexpr double kPercentileBlock[] = {0.50, 0.75, 0.90, 0.95, 0.99, 0.995, 0.999};
inline constexpr const char* kPercentileNames[] = {"50", "75", "90", "95", "99", "99.5", "99.9"};

class LatencyStats {
 public:
  static constexpr size_t kExactLimit = 1024;
  static constexpr int kSubBits = 7;  // 128 sub-buckets per power of two: error < 1/128

  void add(int64_t v);
  // Adds every sample of `other` (exact while both are and the sum fits, else bucketed).
  void merge(const LatencyStats& other);
  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t percentile(double p) const;
  // The percentiles of `ps` into `out`, each as percentile() gives it; for ascending
  // `ps` at the cost of about one: one copy and nested selections while exact, one pass
  // over the buckets after.
  void percentiles(std::span<const double> ps, std::span<int64_t> out) const;

 private:
  static constexpr size_t kGroupSize = size_t{1} << kSubBits;
  static int group_of(uint64_t v);
  static size_t sub_of(uint64_t v, int group);
  static int64_t bucket_floor(int group, size_t sub);
  size_t group_offset(int group) const;  // where the group's counts start in counts_
  uint64_t rank_of(double p) const;      // nearest rank, 1..count_
  void spill();
  void count_in_bucket(uint64_t v, uint64_t n);

  uint64_t count_ = 0;
  int64_t max_ = 0, min_ = 0;
  std::vector<int64_t> exact_;
  bool spilled_ = false;
  // The histogram: group g holds [2^(g+kSubBits-1), 2^(g+kSubBits)) in kGroupSize equal
  // buckets (group 0: [0, kGroupSize) one value each); only the groups set in `groups_`
  // are stored, in increasing order.
  uint64_t groups_ = 0;
  std::vector<uint32_t> counts_;
};

}  // namespace schedlab
