// The LWLocks and spinlocks a PostgreSQL 8.4 backend takes serving sysbench 0.4's OLTP
// statements (docs/workloads/oltp.md, "PostgreSQL 8.4's LWLocks"). Used by the oltp generator's
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
  Time mutex_ns;          // under an LWLock's mutex or another bare spinlock, per section
  int64_t spin_config;    // how the mutex spinlocks wait (w.spin_configs)
  bool lock_manager;      // the lock manager's partition locks and the sinval reads
  bool buffer_headers;    // the buffer header spinlocks of PinBuffer/UnpinBuffer
};

// What one backend's transaction has taken from the lock manager so far: 8.4's LOCALLOCK
// table, which grants a lock already held in the same mode without the shared table.
struct PgTransaction {
  int client = 0;         // the backend, whose vxid and xid locks are its own
  bool in_block = false;  // inside BEGIN ... COMMIT; else each statement is a transaction
  uint32_t held = 0;      // bits by PgLocks' lock tags
};

class PgLocks {
 public:
  PgLocks(Workload& w, PgSettings settings);
  // The server's locks for statement `query` on rows first..last (one row but for a range
  // query; BEGIN and COMMIT ignore them); `writes` says whether the transaction writes (its
  // COMMIT then has an xid). `txn` is the backend's transaction, updated.
  void serve(Query query, int64_t first, int64_t last, bool first_write, bool writes,
             PgTransaction& txn, std::vector<Step>& s) const;

  // The lock manager's lock tags a sysbench transaction takes: its virtual xid, its xid,
  // and the table and its two indexes in the modes the executor opens them.
  enum Tag : int { kVxid, kXid, kHeapShare, kPkeyShare, kHeapRowExcl, kPkeyRowExcl, kKRowExcl };

 private:
  void acquire(int32_t lock, LwLockMode mode, std::vector<Step>& s) const;
  void release(int32_t lock, std::vector<Step>& s) const;
  void section(int32_t lock, LwLockMode mode, Time hold, std::vector<Step>& s) const;
  // A bare spinlock held mutex_ns (a buffer header, sinval's msgnumLock).
  void spin_section(int32_t spinlock, std::vector<Step>& s) const;
  // A buffer looked up (mapping partition shared, pinned inside it), its content lock
  // taken in `mode`, released, and unpinned.
  void read_page(int32_t page, std::vector<Step>& s) const;
  void pin(int32_t page, std::vector<Step>& s) const;
  void unpin(int32_t page, std::vector<Step>& s) const;
  // LockAcquire of `tag` (LockRelationOid's when `relation`): the shared table under the
  // tag's partition lock unless the transaction holds it already, then, for a relation,
  // AcceptInvalidationMessages.
  void lock(Tag tag, bool relation, PgTransaction& txn, std::vector<Step>& s) const;
  // AcceptInvalidationMessages with no message queued: SIGetDataEntries once.
  void accept_invalidations(std::vector<Step>& s) const;
  void start_transaction(PgTransaction& txn, std::vector<Step>& s) const;
  // LockReleaseAll: each partition the transaction holds a lock in, in partition order.
  void release_all(PgTransaction& txn, std::vector<Step>& s) const;
  int32_t lock_partition(Tag tag, int client) const;

  const Workload& w_;
  PgSettings p_;
  int32_t proc_array_, wal_insert_, wal_write_, clog_, xid_gen_, sinval_read_;
  int32_t msgnum_ = -1;              // sinval's msgnumLock spinlock
  std::vector<int32_t> partitions_;  // BufMappingLock 0..15
  std::vector<int32_t> lock_mgr_;    // LockMgrLock 0..15
  // Buffers: the index root, the leaves, the heap pages (content locks, in page order).
  int32_t root_;
  std::vector<int32_t> leaves_, k_leaves_, heap_;  // primary key and k index leaves, heap
  std::vector<int32_t> partition_of_;              // by LWLock: a buffer's mapping partition
  std::vector<int32_t> header_of_;                 // by LWLock: a buffer's header spinlock
};

}  // namespace schedlab::oltp
