// The LWLocks of a PostgreSQL 8.4 backend serving sysbench's statements. Sources: the 8.4
// branch (adunstan/pg-cvs-mirror, a CVS mirror of postgres/postgres, REL8_4_STABLE
// @da22ea6dc9643bd262c5c881dacb26c536a7acdf, 2009-10-14); paths under src/backend:
//   snapshots  every data statement takes two snapshots under READ COMMITTED:
//              exec_bind_message (tcop/postgres.c 1513-1517) and PortalStart or
//              ProcessQuery (tcop/pquery.c 506, 174); each GetSnapshotData takes
//              ProcArrayLock SHARED (storage/ipc/procarray.c 722). BEGIN and COMMIT take
//              none (pquery.c 1174-1186 skips the snapshot of a TransactionStmt).
//   buffers    a buffer-pool hit takes its buffer-mapping partition SHARED (BufferAlloc,
//              storage/buffer/bufmgr.c 519; NUM_BUFFER_PARTITIONS 16), then the buffer's
//              content lock, SHARED to read and EXCLUSIVE to change (LockBuffer, bufmgr.c
//              2375-2377).
//   WAL        each WAL record takes WALInsertLock EXCLUSIVE (XLogInsert,
//              access/transam/xlog.c 710), inside the page's exclusive content lock.
//   xid        the first write assigns an xid: XidGenLock EXCLUSIVE (transam/varsup.c 54).
//   COMMIT     with an xid: the commit record (WALInsertLock X), XLogFlush's WALWriteLock X
//              (xlog.c 1929, held over the write and fsync), CLogControlLock X
//              (transam/clog.c 261), ProcArrayEndTransaction's ProcArrayLock X
//              (procarray.c 244). Without an xid none of these (procarray.c 264-280).
// Which pages a statement touches (a 10,000-row table: a two-level btree, so root, leaf,
// heap; the row's leaf and heap page in id order, oltp_keys.h page_of: sysbench loads the
// rows in id order, and its prepare sets k to 0 in every row, so the k index's entries,
// all equal, are taken to lie in the same order; the index updates' k + 1 moving entries
// to that index's end over a run is left out), the WAL records per statement (3 for an update of
// the indexed k or an insert: heap plus two index entries; 1 for the update of c, taken to be HOT,
// and the delete) are the research notes' reading of the code paths, not measured; the hold times
// are assumptions (PgSettings). Left out: the lock-manager partition locks, the buffer-header
// spinlocks, CLOG lookups of visibility checks, and row-lock waits.
#include "workload/generators/oltp_pgsql.h"

#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/oltp_keys.h"
#include "workload/lwlock_steps.h"

namespace schedlab::oltp {

namespace {

// Declares an LWLock and grows `partition_of` to cover it.
int32_t declare(Workload& w, const std::string& name, std::vector<int32_t>& partition_of,
                int32_t partition = -1) {
  const int32_t lock = declare_lwlock(w, name);
  partition_of.resize(w.lwlocks.size(), -1);
  if (partition >= 0) partition_of[static_cast<size_t>(lock)] = partition;
  return lock;
}

}  // namespace

PgLocks::PgLocks(Workload& w, PgSettings settings) : w_(w), p_(std::move(settings)) {
  const std::string& n = p_.name;
  proc_array_ = declare(w, n + ".ProcArrayLock", partition_of_);
  xid_gen_ = declare(w, n + ".XidGenLock", partition_of_);
  wal_insert_ = declare(w, n + ".WALInsertLock", partition_of_);
  wal_write_ = declare(w, n + ".WALWriteLock", partition_of_);
  clog_ = declare(w, n + ".CLogControlLock", partition_of_);
  for (int b = 0; b < p_.buffer_partitions; ++b)
    partitions_.push_back(declare(w, fmt::format("{}.BufMappingLock{}", n, b), partition_of_));
  // A buffer's mapping partition is a hash of its tag (BufTableHashPartition); here a
  // fixed spread of the page numbers.
  int page = 0;
  auto buffer = [&](const std::string& what) {
    const auto partition = static_cast<int32_t>((static_cast<uint64_t>(page++) * 2654435761u) %
                                                static_cast<uint64_t>(p_.buffer_partitions));
    return declare(w, fmt::format("{}.buffer.{}", n, what), partition_of_,
                   partitions_[static_cast<size_t>(partition)]);
  };
  root_ = buffer("root");
  for (int i = 0; i < p_.leaf_pages; ++i) leaves_.push_back(buffer(fmt::format("leaf{}", i)));
  for (int i = 0; i < p_.leaf_pages; ++i) k_leaves_.push_back(buffer(fmt::format("k_leaf{}", i)));
  for (int i = 0; i < p_.heap_pages; ++i) heap_.push_back(buffer(fmt::format("heap{}", i)));
}

void PgLocks::acquire(int32_t lock, LwLockMode mode, std::vector<Step>& s) const {
  append_lwlock_acquire(w_, s, lock, mode, p_.spin_config, p_.mutex_ns);
}

void PgLocks::release(int32_t lock, std::vector<Step>& s) const {
  append_lwlock_release(w_, s, lock, p_.spin_config, p_.mutex_ns);
}

void PgLocks::section(int32_t lock, LwLockMode mode, Time hold, std::vector<Step>& s) const {
  acquire(lock, mode, s);
  s.push_back(gen::run(hold));
  release(lock, s);
}

void PgLocks::read_page(int32_t page, std::vector<Step>& s) const {
  section(partition_of_[static_cast<size_t>(page)], LwLockMode::kShared, p_.hold_ns, s);
  section(page, LwLockMode::kShared, p_.hold_ns, s);
}

void PgLocks::snapshot(std::vector<Step>& s) const {
  section(proc_array_, LwLockMode::kShared, p_.hold_ns, s);  // exec_bind_message
  section(proc_array_, LwLockMode::kShared, p_.hold_ns, s);  // PortalStart / ProcessQuery
}

void PgLocks::serve(Query query, int64_t first, int64_t last, bool first_write, bool writes,
                    std::vector<Step>& s) const {
  auto leaf = [&](const std::vector<int32_t>& of, int64_t id = -1) {
    return of[static_cast<size_t>(page_of(id < 0 ? first : id, p_.table_size, p_.leaf_pages))];
  };
  auto heap = [&](int64_t id = -1) {
    return heap_[static_cast<size_t>(page_of(id < 0 ? first : id, p_.table_size, p_.heap_pages))];
  };
  // A change to a page: its lookup, its content lock EXCLUSIVE, one WAL record inside.
  auto change = [&](int32_t page) {
    section(partition_of_[static_cast<size_t>(page)], LwLockMode::kShared, p_.hold_ns, s);
    acquire(page, LwLockMode::kExclusive, s);
    s.push_back(gen::run(p_.hold_ns));
    section(wal_insert_, LwLockMode::kExclusive, p_.wal_hold_ns, s);
    release(page, s);
  };
  auto descend = [&] {  // the primary-key lookup of the row to change
    read_page(root_, s);
    read_page(leaf(leaves_), s);
  };
  auto xid = [&] {
    if (first_write) section(xid_gen_, LwLockMode::kExclusive, p_.hold_ns, s);
  };
  switch (query) {
    case Query::kBegin:
      return;
    case Query::kPoint:
      snapshot(s);
      read_page(root_, s);
      read_page(leaf(leaves_), s);
      read_page(heap(), s);
      return;
    case Query::kRange: {  // the scan: each leaf, then the heap pages of its rows, once
      snapshot(s);
      read_page(root_, s);
      int32_t at_leaf = -1, at_heap = -1;
      for (int64_t id = first; id <= last; ++id) {
        if (const int32_t l = leaf(leaves_, id); l != at_leaf) read_page(at_leaf = l, s);
        if (const int32_t h = heap(id); h != at_heap) read_page(at_heap = h, s);
      }
      return;
    }
    case Query::kIndexUpdate:  // a new heap tuple and an entry in both indexes
      snapshot(s);
      descend();
      xid();
      change(heap());
      change(leaf(leaves_));
      change(leaf(k_leaves_));
      return;
    case Query::kNonIndexUpdate:  // HOT: the heap page only
    case Query::kDelete:
      snapshot(s);
      descend();
      xid();
      change(heap());
      return;
    case Query::kInsert:
      snapshot(s);
      xid();
      change(heap());
      change(leaf(leaves_));
      change(leaf(k_leaves_));
      return;
    case Query::kCommit:
      if (!writes) return;
      section(wal_insert_, LwLockMode::kExclusive, p_.wal_hold_ns, s);  // the commit record
      section(wal_write_, LwLockMode::kExclusive, p_.wal_flush_ns, s);  // XLogFlush
      section(clog_, LwLockMode::kExclusive, p_.hold_ns, s);
      section(proc_array_, LwLockMode::kExclusive, p_.hold_ns, s);  // ProcArrayEndTransaction
      return;
  }
}

}  // namespace schedlab::oltp
