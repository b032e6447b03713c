#include "analysis/latency.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace schedlab {

size_t LatencyStats::bucket_of(uint64_t v) {
  if (v < (uint64_t{1} << kSubBits)) return v;
  const int msb = 63 - static_cast<int>(std::countl_zero(v));
  const int shift = msb - kSubBits;
  return (static_cast<size_t>(shift + 1) << kSubBits) + ((v >> shift) & ((1u << kSubBits) - 1));
}

int64_t LatencyStats::bucket_floor(size_t b) {
  const size_t group = b >> kSubBits;
  if (group == 0) return static_cast<int64_t>(b);
  const int shift = static_cast<int>(group) - 1;
  const uint64_t mantissa = (uint64_t{1} << kSubBits) | (b & ((1u << kSubBits) - 1));
  return static_cast<int64_t>(mantissa << shift);
}

void LatencyStats::count_in_bucket(int64_t v) {
  const size_t b = bucket_of(static_cast<uint64_t>(v));
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
}

void LatencyStats::spill() {
  spilled_ = true;
  for (int64_t v : exact_) count_in_bucket(v);
  exact_.clear();
  exact_.shrink_to_fit();
}

void LatencyStats::add(int64_t v) {
  if (v < 0) v = 0;
  min_ = count_ ? std::min(min_, v) : v;
  ++count_;
  max_ = std::max(max_, v);
  if (spilled_) {
    count_in_bucket(v);
  } else {
    exact_.push_back(v);
    if (exact_.size() > kExactLimit) spill();
  }
}

void LatencyStats::merge(const LatencyStats& other) {
  if (other.count_ == 0) return;
  if (!other.spilled_) {
    for (int64_t v : other.exact_) add(v);
    return;
  }
  if (!spilled_) spill();
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  for (size_t b = 0; b < other.buckets_.size(); ++b) buckets_[b] += other.buckets_[b];
}

int64_t LatencyStats::percentile(double p) const {
  if (count_ == 0) return 0;
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_))));
  if (!spilled_) {
    std::vector<int64_t> sorted = exact_;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(rank - 1), sorted.end());
    return sorted[rank - 1];
  }
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::min(bucket_floor(b), max_);
  }
  return max_;
}

}  // namespace schedlab
