// The LWLocks a PostgreSQL 8.4 backend takes serving sysbench 0.4's OLTP statements
// (docs/workloads/oltp.md, "PostgreSQL 8.4's LWLocks"). Used by the oltp generator's
// pgsql variant unless `lwlocks` is false.
#pragma once

#include <string>
#include <vector>

#include "workload/program.h"

namespace schedlab::oltp {

// sysbench 0.4's statements (sb_oltp.c get_request_complex): the five writes in their
// order, an index update, a non-index update, the extra index update, a delete, an insert.
enum class Query {
  kBegin,
  kPoint,
  kRange,
  kIndexUpdate,
  kNonIndexUpdate,
  kDelete,
  kInsert,
  kCommit
};

struct PgSettings {
  std::string name;       // prefix of the lock names
  int buffer_partitions;  // NUM_BUFFER_PARTITIONS
  int leaf_pages;         // index leaf pages a key falls on
  int heap_pages;         // heap pages a row falls on
  int64_t table_size;     // rows, spread evenly over both in id order (oltp_keys.h page_of)
  Time hold_ns;           // under a ProcArrayLock, buffer-mapping, content or CLOG lock
  Time wal_hold_ns;       // under WALInsertLock, per WAL record
  Time wal_flush_ns;      // under WALWriteLock at commit
  Time mutex_ns;          // under an LWLock's mutex spinlock, per acquire or release
  int64_t spin_config;    // how the mutex spinlocks wait (w.spin_configs)
};

class PgLocks {
 public:
  PgLocks(Workload& w, PgSettings settings);
  // The server's LWLocks for statement `query` on rows first..last (one row but for a
  // range query; BEGIN and COMMIT ignore them); `writes` says whether the transaction writes
  // (its COMMIT then has an xid).
  void serve(Query query, int64_t first, int64_t last, bool first_write, bool writes,
             std::vector<Step>& s) const;

 private:
  void acquire(int32_t lock, LwLockMode mode, std::vector<Step>& s) const;
  void release(int32_t lock, std::vector<Step>& s) const;
  void section(int32_t lock, LwLockMode mode, Time hold, std::vector<Step>& s) const;
  // A buffer looked up (mapping partition shared) and its content lock taken in `mode`.
  void read_page(int32_t page, std::vector<Step>& s) const;
  void snapshot(std::vector<Step>& s) const;

  const Workload& w_;
  PgSettings p_;
  int32_t proc_array_, wal_insert_, wal_write_, clog_, xid_gen_;
  std::vector<int32_t> partitions_;
  // Buffers: the index root, the leaves, the heap pages (content locks, in page order).
  int32_t root_;
  std::vector<int32_t> leaves_, k_leaves_, heap_;  // primary key and k index leaves, heap
  std::vector<int32_t> partition_of_;              // by LWLock: a buffer's mapping partition
};

}  // namespace schedlab::oltp
