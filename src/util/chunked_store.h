// A growing array of objects in chunks of 1,024: addresses stay put as it grows (tasks
// point at each other's records), and finding an object is a shift, a mask and a load
// from a table of chunks that stays in the cache. (A std::deque of a large type keeps a
// few per 512-byte block: its index divides, and at 100,000 tasks its table of blocks
// misses the cache; a vector of pointers adds a dependent load before every use.)
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace schedlab {

template <typename T>
class ChunkedStore {
 public:
  static constexpr size_t kChunkBits = 10;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;

  ChunkedStore() = default;
  ChunkedStore(const ChunkedStore&) = delete;
  ChunkedStore& operator=(const ChunkedStore&) = delete;
  ~ChunkedStore() {
    for (size_t i = size_; i > 0; --i) (*this)[i - 1].~T();
  }

  T& operator[](size_t i) { return *std::launder(slot(i)); }
  const T& operator[](size_t i) const { return *std::launder(slot(i)); }
  size_t size() const { return size_; }

  // Every object in index order.
  template <typename Store, typename Value>
  class Iterator {
   public:
    Iterator(Store* store, size_t i) : store_(store), i_(i) {}
    Value& operator*() const { return (*store_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return i_ == other.i_; }

   private:
    Store* store_;
    size_t i_;
  };
  auto begin() { return Iterator<ChunkedStore, T>(this, 0); }
  auto end() { return Iterator<ChunkedStore, T>(this, size_); }
  auto begin() const { return Iterator<const ChunkedStore, const T>(this, 0); }
  auto end() const { return Iterator<const ChunkedStore, const T>(this, size_); }

  // A new value-initialised object at the end.
  T& emplace_back() {
    if ((size_ >> kChunkBits) == chunks_.size())
      chunks_.push_back(std::unique_ptr<Chunk>(new Chunk));  // uninitialised: no memset
    T* t = ::new (static_cast<void*>(slot(size_))) T();
    ++size_;
    return *t;
  }

 private:
  // Raw storage: objects are constructed one by one as they are added.
  struct Chunk {
    alignas(T) std::byte bytes[sizeof(T) * kChunk];
  };
  T* slot(size_t i) {
    return reinterpret_cast<T*>(chunks_[i >> kChunkBits]->bytes) + (i & (kChunk - 1));
  }
  const T* slot(size_t i) const {
    return reinterpret_cast<const T*>(chunks_[i >> kChunkBits]->bytes) + (i & (kChunk - 1));
  }

  std::vector<std::unique_ptr<Chunk>> chunks_;
  size_t size_ = 0;
};

}  // namespace schedlab
