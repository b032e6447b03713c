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
//   lock mgr   LockAcquire (storage/lmgr/lock.c 466ff) grants a lock this transaction
//              already holds in the same mode from the backend's LOCALLOCK table (l. 549-553);
//              else it takes the tag's LockMgrLock partition EXCLUSIVE (l. 563; 16
//              partitions, storage/lwlock.h 27). The tags: StartTransaction's vxid
//              (access/transam/xact.c 1495), AssignTransactionId's xid (xact.c 429), and the
//              relations as sysbench's prepared statements (drv_pgsql.c PQexecPrepared) open
//              them: the cached plan's table, AccessShare or RowExclusive
//              (utils/cache/plancache.c 674-681, at bind), a scan's index AccessShare unless
//              the table is the target (executor/nodeIndexscan.c 582-584), an UPDATE's or
//              INSERT's indexes RowExclusive (execUtils.c 981; not for DELETE, execMain.c
//              1148-1150). Commit's ProcReleaseLocks (proc.c 571) runs LockReleaseAll, which
//              takes each partition holding one of the backend's locks EXCLUSIVE (lock.c
//              1512-1591), after ProcArrayEndTransaction.
//   sinval     AcceptInvalidationMessages reads the shared invalidation queue once when it is
//              empty (storage/ipc/sinval.c 87-118): SInvalReadLock SHARED and inside it the
//              msgnumLock spinlock (sinvaladt.c 492-505). It runs after every new relation
//              lock (storage/lmgr/lmgr.c LockRelationOid), at StartTransaction (xact.c 1535,
//              AtStart_Cache) and at each CommandCounterIncrement (xact.c 646): one after
//              each data statement's execute (tcop/postgres.c 1953) and, inside a block, one
//              at its Sync (CommitTransactionCommand's TBLOCK_INPROGRESS).
//   headers    a buffer-pool hit pins the buffer under its header spinlock, inside the
//              mapping partition lock (PinBuffer, bufmgr.c 1045; BufferAlloc 519-532); its
//              release unpins it under the same spinlock (UnpinBuffer, bufmgr.c 1124); a
//              change marks it dirty under it too (MarkBufferDirty, bufmgr.c 954).
// Which pages a statement touches (a 10,000-row table: a two-level btree, so root, leaf,
// heap; the row's leaf and heap page in id order, oltp_keys.h page_of: sysbench loads the
// rows in id order, and its prepare sets k to 0 in every row, so the k index's entries,
// all equal, are taken to lie in the same order; the index updates' k + 1 moving entries
// to that index's end over a run is left out), the WAL records per statement (3 for an update of
// the indexed k or an insert: heap plus two index entries; 1 for the update of c, taken to be HOT,
// and the delete) are the research notes' reading of the code paths, not measured; the hold times
// are assumptions (PgSettings). A lock tag's partition is a hash of the tag, whose oids and ids
// the model does not have: here the tags are spread over the partitions in order (the table,
// its primary key, its k index, then each backend's vxid and xid), and a backend's vxid and
// xid keep their partition from one transaction to the next. Left out: CLOG lookups of
// visibility checks, row-lock waits, and the local lock table's CPU (in the statement's).
#include "workload/generators/oltp_pgsql.h"

#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/oltp_keys.h"
#include "workload/lwlock_steps.h"

namespace schedlab::oltp {

namespace {

constexpr int kLockPartitions = 16;  // NUM_LOCK_PARTITIONS, storage/lwlock.h 27-28

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
  sinval_read_ = -1;
  if (p_.lock_manager) {
    sinval_read_ = declare(w, n + ".SInvalReadLock", partition_of_);
    msgnum_ = w.spinlocks.intern(n + ".sinval.msgnumLock");
    for (int i = 0; i < kLockPartitions; ++i)
      lock_mgr_.push_back(declare(w, fmt::format("{}.LockMgrLock{}", n, i), partition_of_));
  }
  for (int b = 0; b < p_.buffer_partitions; ++b)
    partitions_.push_back(declare(w, fmt::format("{}.BufMappingLock{}", n, b), partition_of_));
  // A buffer's mapping partition is a hash of its tag (BufTableHashPartition); here a
  // fixed spread of the page numbers.
  int page = 0;
  auto buffer = [&](const std::string& what) {
    const auto partition = static_cast<int32_t>((static_cast<uint64_t>(page++) * 2654435761u) %
                                                static_cast<uint64_t>(p_.buffer_partitions));
    const std::string buffer_name = fmt::format("{}.buffer.{}", n, what);
    const int32_t lock =
        declare(w, buffer_name, partition_of_, partitions_[static_cast<size_t>(partition)]);
    header_of_.resize(w.lwlocks.size(), -1);
    if (p_.buffer_headers)
      header_of_[static_cast<size_t>(lock)] = w.spinlocks.intern(buffer_name + ".header");
    return lock;
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

void PgLocks::spin_section(int32_t spinlock, std::vector<Step>& s) const {
  s.push_back(gen::spin_lock(spinlock, p_.spin_config));
  s.push_back(gen::run(p_.mutex_ns));
  s.push_back(gen::spin_unlock(spinlock));
}

void PgLocks::pin(int32_t page, std::vector<Step>& s) const {
  const int32_t mapping = partition_of_[static_cast<size_t>(page)];
  acquire(mapping, LwLockMode::kShared, s);
  s.push_back(gen::run(p_.hold_ns));
  if (const int32_t header = header_of_[static_cast<size_t>(page)]; header >= 0)
    spin_section(header, s);
  release(mapping, s);
}

void PgLocks::unpin(int32_t page, std::vector<Step>& s) const {
  if (const int32_t header = header_of_[static_cast<size_t>(page)]; header >= 0)
    spin_section(header, s);
}

void PgLocks::read_page(int32_t page, std::vector<Step>& s) const {
  pin(page, s);
  section(page, LwLockMode::kShared, p_.hold_ns, s);
  unpin(page, s);
}

void PgLocks::accept_invalidations(std::vector<Step>& s) const {
  if (!p_.lock_manager) return;
  acquire(sinval_read_, LwLockMode::kShared, s);
  spin_section(msgnum_, s);
  release(sinval_read_, s);
}

int32_t PgLocks::lock_partition(Tag tag, int client) const {
  int number = 0;  // the table 0, its primary key 1, its k index 2, then vxid and xid by client
  switch (tag) {
    case kHeapShare:
    case kHeapRowExcl:
      number = 0;
      break;
    case kPkeyShare:
    case kPkeyRowExcl:
      number = 1;
      break;
    case kKRowExcl:
      number = 2;
      break;
    case kVxid:
      number = 3 + 2 * client;
      break;
    case kXid:
      number = 4 + 2 * client;
      break;
  }
  return number % kLockPartitions;
}

void PgLocks::lock(Tag tag, bool relation, PgTransaction& txn, std::vector<Step>& s) const {
  if (!p_.lock_manager) return;
  const uint32_t bit = 1u << tag;
  if (txn.held & bit) return;  // LOCKACQUIRE_ALREADY_HELD: no invalidations either
  txn.held |= bit;
  section(lock_mgr_[static_cast<size_t>(lock_partition(tag, txn.client))], LwLockMode::kExclusive,
          p_.hold_ns, s);
  if (relation) accept_invalidations(s);
}

void PgLocks::start_transaction(PgTransaction& txn, std::vector<Step>& s) const {
  lock(kVxid, false, txn, s);
  accept_invalidations(s);  // AtStart_Cache
}

void PgLocks::release_all(PgTransaction& txn, std::vector<Step>& s) const {
  if (!p_.lock_manager) return;
  uint32_t partitions = 0;
  for (int tag = kVxid; tag <= kKRowExcl; ++tag)
    if (txn.held & (1u << tag))
      partitions |= 1u << lock_partition(static_cast<Tag>(tag), txn.client);
  for (int i = 0; i < kLockPartitions; ++i)
    if (partitions & (1u << i))
      section(lock_mgr_[static_cast<size_t>(i)], LwLockMode::kExclusive, p_.hold_ns, s);
  txn.held = 0;
}

void PgLocks::serve(Query query, int64_t first, int64_t last, bool first_write, bool writes,
                    PgTransaction& txn, std::vector<Step>& s) const {
  auto leaf = [&](const std::vector<int32_t>& of, int64_t id = -1) {
    return of[static_cast<size_t>(page_of(id < 0 ? first : id, p_.table_size, p_.leaf_pages))];
  };
  auto heap = [&](int64_t id = -1) {
    return heap_[static_cast<size_t>(page_of(id < 0 ? first : id, p_.table_size, p_.heap_pages))];
  };
  // A change to a page: its lookup, its content lock EXCLUSIVE, marked dirty, one WAL
  // record inside.
  auto change = [&](int32_t page) {
    pin(page, s);
    acquire(page, LwLockMode::kExclusive, s);
    s.push_back(gen::run(p_.hold_ns));
    if (const int32_t header = header_of_[static_cast<size_t>(page)]; header >= 0)
      spin_section(header, s);
    section(wal_insert_, LwLockMode::kExclusive, p_.wal_hold_ns, s);
    release(page, s);
    unpin(page, s);
  };
  auto descend = [&] {  // the primary-key lookup of the row to change
    read_page(root_, s);
    read_page(leaf(leaves_), s);
  };
  auto xid = [&] {
    if (!first_write) return;
    section(xid_gen_, LwLockMode::kExclusive, p_.hold_ns, s);
    lock(kXid, false, txn, s);  // XactLockTableInsert
  };
  if (query == Query::kBegin) {
    start_transaction(txn, s);
    return;
  }
  if (query == Query::kCommit) {
    if (writes) {
      section(wal_insert_, LwLockMode::kExclusive, p_.wal_hold_ns, s);  // the commit record
      section(wal_write_, LwLockMode::kExclusive, p_.wal_flush_ns, s);  // XLogFlush
      section(clog_, LwLockMode::kExclusive, p_.hold_ns, s);
      section(proc_array_, LwLockMode::kExclusive, p_.hold_ns, s);  // ProcArrayEndTransaction
    }
    release_all(txn, s);
    return;
  }
  // A data statement: Bind (a transaction started outside a block, a snapshot, the cached
  // plan's table lock), Execute (a snapshot, the executor's index locks, the pages, a
  // CommandCounterIncrement), Sync (another inside a block, else the commit).
  const bool select = query == Query::kPoint || query == Query::kRange;
  if (!txn.in_block) start_transaction(txn, s);
  section(proc_array_, LwLockMode::kShared, p_.hold_ns, s);  // exec_bind_message
  lock(select ? kHeapShare : kHeapRowExcl, true, txn, s);
  section(proc_array_, LwLockMode::kShared, p_.hold_ns, s);  // PortalStart / ProcessQuery
  if (select) {
    lock(kPkeyShare, true, txn, s);
  } else if (query != Query::kDelete) {
    lock(kPkeyRowExcl, true, txn, s);
    lock(kKRowExcl, true, txn, s);
  }
  switch (query) {
    case Query::kPoint:
      read_page(root_, s);
      read_page(leaf(leaves_), s);
      read_page(heap(), s);
      break;
    case Query::kRange: {  // the scan: each leaf, then the heap pages of its rows, once
      read_page(root_, s);
      int32_t at_leaf = -1, at_heap = -1;
      for (int64_t id = first; id <= last; ++id) {
        if (const int32_t l = leaf(leaves_, id); l != at_leaf) read_page(at_leaf = l, s);
        if (const int32_t h = heap(id); h != at_heap) read_page(at_heap = h, s);
      }
      break;
    }
    case Query::kIndexUpdate:  // a new heap tuple and an entry in both indexes
      descend();
      xid();
      change(heap());
      change(leaf(leaves_));
      change(leaf(k_leaves_));
      break;
    case Query::kNonIndexUpdate:  // HOT: the heap page only
    case Query::kDelete:
      descend();
      xid();
      change(heap());
      break;
    case Query::kInsert:
      xid();
      change(heap());
      change(leaf(leaves_));
      change(leaf(k_leaves_));
      break;
    case Query::kBegin:
    case Query::kCommit:
      break;
  }
  accept_invalidations(s);  // CommandCounterIncrement after the execute
  if (txn.in_block)
    accept_invalidations(s);  // the Sync's CommandCounterIncrement
  else
    release_all(txn, s);  // the Sync's commit: no xid (a select), so only the locks
}

}  // namespace schedlab::oltp
