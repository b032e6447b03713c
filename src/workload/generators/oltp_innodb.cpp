// The global mutexes of MySQL 5.1.45's built-in InnoDB on sysbench's statements. Source:
// dolphinsboy/mysql-5.1.45 @87180dde564e, paths under storage/innobase (the research
// notes of docs/workloads/oltp.md give each line):
//   buf_pool->mutex  every page fetch (buf_page_get_gen, buf/buf0buf.c 1181), even of a
//                    cached page; at a modifying mini-transaction's commit, each X-latched
//                    page's flush-list note (buf_page_release, include/buf0buf.ic 626).
//                    Not on an adaptive-hash hit (btr_search_guess_on_hash), so a point
//                    lookup by id fetches no page; a range query's optimizer estimate
//                    (records_in_range: two descents of two pages, hash bypassed) and its
//                    move to the next leaf do.
//   kernel_mutex     trx_start and the read view at the first consistent read
//                    (trx/trx0trx.c 705, 986); every lock_table and record lock call
//                    (lock/lock0lock.c 3584, 5137); COMMIT about five times
//                    (trx_commit_off_kernel: trx_no, the history, lock release and view
//                    close, the trx list).
//   log_sys->mutex   every modifying mini-transaction's commit (mtr/mtr0mtr.c 169-199),
//                    held through the release of its page latches; COMMIT's
//                    log_write_up_to (log/log0log.c 1284): the write under it, the fsync
//                    outside it (1442-1466).
//   rseg->mutex      the system rollback segment's, one in 5.1: the first change's undo
//                    assignment (trx/trx0undo.c 1687) and COMMIT's undo finish and history
//                    add (trx0trx.c 759-789, kernel_mutex nested).
//   autoinc_mutex    an INSERT's auto-increment update (handler/ha_innodb.cc 4072-4089).
//   btr_search_latch the adaptive hash index's rw-lock (sim/innodb_rw_lock.h), with
//                    `search_latch`. S: a point select's shortcut through the hash
//                    (row_sel_try_search_shortcut_for_mysql, row/row0sel.c 3451), let go
//                    right after the row's copy while trx->search_latch_timeout > 0
//                    (row0sel.c 3480): a connection's first BTR_SEA_TIMEOUT (10,000)
//                    shortcuts (trx/trx0trx.c 178) and 10,000 more each time it finds a
//                    writer waiting (row0sel.c 3300). Past them it would keep S until
//                    MySQL sends the row (sql/sql_class.cc 1636): left out, the short
//                    hold modelled throughout. X: every change of a record on a hashed leaf
//                    (btr/btr0cur.c: btr_cur_update_in_place 1489-1514, the delete marks
//                    2204-2217 and 2342-2350; btr_search_update_hash_on_insert, btr0sea.c),
//                    inside the change's mini-transaction. Every leaf of both indexes is
//                    taken to be hashed: sysbench's 10,000 rows sit on 28 leaves per index,
//                    searched far more often than a page needs to be hashed in the first
//                    second (an assumption from the table's size, not a model of
//                    btr_search_info_update).
// Each mutex waits as InnoDB's mutex_spin_wait (the generator's lock policy). Left out:
// the short S holds of the other statements' B-tree descents through the hash
// (btr_search_guess_on_hash, tried only while no writer is in: btr0cur.c 337, so they
// never wait), index->lock, page latches (per page, rarely shared), trx->undo_mutex
// (per transaction), the sync array's mutex, srv_conc_mutex, group commit (each COMMIT
// writes and flushes its own log), statistics updates and purge. The per-section hold
// times are assumptions (InnodbSettings).
#include "workload/generators/oltp_innodb.h"

#include <utility>

#include "workload/generators/builder.h"
#include "workload/innodb_rw_lock_steps.h"

namespace schedlab::oltp {

InnodbLatches::InnodbLatches(Workload& w, InnodbSettings settings)
    : w_(&w), p_(std::move(settings)) {
  const std::string& n = p_.name;
  kernel_ = w.spinlocks.intern(n + ".kernel_mutex");
  buf_pool_ = w.spinlocks.intern(n + ".buf_pool_mutex");
  log_sys_ = w.spinlocks.intern(n + ".log_sys_mutex");
  rseg_ = w.spinlocks.intern(n + ".rseg_mutex");
  autoinc_ = w.spinlocks.intern(n + ".autoinc_mutex");
  if (p_.search_latch)
    search_latch_ = declare_innodb_rwlock(w, n + ".btr_search_latch", p_.spin_config);
}

void InnodbLatches::section(int32_t mutex, Time hold, std::vector<Step>& s) const {
  s.push_back(gen::spin_lock(mutex, p_.spin_config));
  s.push_back(gen::run(hold));
  s.push_back(gen::spin_unlock(mutex));
}

void InnodbLatches::mtr_commit(std::vector<Step>& s) const {
  s.push_back(gen::spin_lock(log_sys_, p_.spin_config));
  s.push_back(gen::run(p_.hold_ns));
  section(buf_pool_, p_.hold_ns, s);
  s.push_back(gen::spin_unlock(log_sys_));
}

void InnodbLatches::leaf_change(std::vector<Step>& s) const {
  if (search_latch_ >= 0) {
    append_innodb_rw_lock(*w_, s, search_latch_, LwLockMode::kExclusive, p_.mutex_ns);
    s.push_back(gen::run(p_.hold_ns));
    append_innodb_rw_unlock(*w_, s, search_latch_, p_.mutex_ns);
  }
  mtr_commit(s);
}

void InnodbLatches::undo_then_change(std::vector<Step>& s) const {
  section(buf_pool_, p_.hold_ns, s);  // the undo page (trx0rec.c 1088)
  mtr_commit(s);                      // the undo record's mini-transaction
  leaf_change(s);                     // the clustered record's change
}

void InnodbLatches::serve(Query query, bool first_read, bool first_write, bool writes,
                          std::vector<Step>& s) const {
  const Time h = p_.hold_ns;
  if (first_read) {
    section(kernel_, h, s);  // trx_start
    section(kernel_, h, s);  // trx_assign_read_view
  }
  if (first_write) {  // trx_undo_assign_undo: the update undo log, its header's mtr
    section(rseg_, h, s);
    mtr_commit(s);
  }
  switch (query) {
    case Query::kBegin:
      return;
    case Query::kPoint:  // an adaptive-hash hit: no page fetch, no lock; S on the hash
      if (search_latch_ >= 0) {
        append_innodb_rw_lock(*w_, s, search_latch_, LwLockMode::kShared, p_.mutex_ns);
        s.push_back(gen::run(p_.search_s_ns));
        append_innodb_rw_unlock(*w_, s, search_latch_, p_.mutex_ns);
      }
      return;
    case Query::kRange:
      for (int fetch = 0; fetch < 4; ++fetch) section(buf_pool_, h, s);  // records_in_range
      section(buf_pool_, h, s);  // the move to the next leaf (one: an assumption)
      return;
    case Query::kIndexUpdate:  // k = k + 1: the clustered record, then k's entry moved
      section(kernel_, h, s);  // lock_table IX
      section(kernel_, h, s);  // the record's X lock
      undo_then_change(s);
      section(kernel_, h, s);  // the secondary entry's delete-mark check
      leaf_change(s);
      section(kernel_, h, s);  // the new secondary entry's insert check
      leaf_change(s);
      return;
    case Query::kNonIndexUpdate:  // c = ?: in place, the clustered record only
      section(kernel_, h, s);
      section(kernel_, h, s);
      undo_then_change(s);
      return;
    case Query::kDelete:  // delete-marks: clustered record and k's entry
      section(kernel_, h, s);
      section(kernel_, h, s);
      undo_then_change(s);
      section(kernel_, h, s);
      leaf_change(s);
      return;
    case Query::kInsert:  // the deleted id again: a modify of its delete-marked record
      section(autoinc_, h, s);
      section(kernel_, h, s);  // lock_table IX
      section(kernel_, h, s);  // the duplicate check's lock
      section(kernel_, h, s);  // the modify's lock check
      undo_then_change(s);
      section(kernel_, h, s);  // the secondary entry's insert check
      leaf_change(s);
      return;
    case Query::kCommit:
      section(kernel_, h, s);  // trx_commit_for_mysql
      if (writes) {
        // Under the rollback segment's mutex: the undo header page's state, trx_no, the
        // history add (the rseg header and the old history head), trx_no's kernel again.
        s.push_back(gen::spin_lock(rseg_, p_.spin_config));
        section(buf_pool_, h, s);
        section(kernel_, h, s);
        section(buf_pool_, h, s);
        section(buf_pool_, h, s);
        section(kernel_, h, s);
        s.push_back(gen::run(h));
        s.push_back(gen::spin_unlock(rseg_));
        mtr_commit(s);
      }
      section(kernel_, h, s);  // lock_release_off_kernel, the read view closed
      if (writes) {
        section(log_sys_, p_.log_write_ns, s);   // log_write_up_to: the write
        s.push_back(gen::run(p_.log_flush_ns));  // the fsync, outside the mutex
        section(log_sys_, h, s);                 // flushed_to_disk_lsn
      }
      section(kernel_, h, s);  // the trx list
      return;
  }
}

}  // namespace schedlab::oltp
