// Amarok 2.2.0's full collection scan (KDE/amarok v2.2.0 @bb7f1f85cb68, 2009-09-28):
//   scanner  amarokcollectionscanner, a separate single-threaded process started without
//            a nice level (src/AmarokProcess.cpp 41-56: setLowPriority is never called).
//            It first walks the whole tree, writing one <folder> element per directory
//            (utilities/collectionscanner/CollectionScanner.cpp 277-335) and then
//            <itemcount> (246-253); then per track it rewrites its crash log, reads the
//            tags with TagLib, parses the file a second time for its unique id and reads
//            its first 16 KiB for an MD5 (474-743, AFTUtility.cpp 176-224), and writes one
//            <tags> element; at each change of directory one <compilation> element
//            (424-470). Every element ends in std::endl (781): one write() to the stdout
//            pipe per element, no sleeps or pauses anywhere.
//   GUI      Amarok's main thread reads the pipe when it is readable (ScanManager.cpp
//            262-281), appends the text to the parser's buffer under a mutex and wakes the
//            parser with QWaitCondition::wakeOne (821-830); it also runs the progress
//            bar's one queued event per track (649-652, 590).
//   parser   one ThreadWeaver job (XmlParseJob::run, 606-819) parses incrementally and
//            runs all the scan's SQL itself: the database is MySQL embedded in Amarok's
//            process (CollectionManager.cpp 138-143; MySqlEmbeddedCollection.cpp 67-112),
//            so there is no mysqld. Per <folder> a SELECT and an INSERT (addDirectory,
//            ScanResultProcessor.cpp 56-90). A directory's tracks are written when the
//            first track of the next directory arrives (727-743): per track its directory
//            listed and its file times read (365-407), a SELECT and an INSERT on urls_temp
//            and a REPLACE into tracks_temp (413-458, 694-751); per directory the SELECT of
//            its id (807-831) and the fetch and inserts of its new album and artist
//            (501-602). After </scanner> the last directory, then the copy of the
//            temporary tables into the permanent ones (DatabaseUpdater.cpp 545-649). No
//            transaction (MyISAM, every statement on its own).
// The pipe holds `pipe_lines` elements before the scanner's write() blocks; Amarok's own
// buffer is unbounded, so only a GUI thread that does not run fills it.
// Approximations: the progress event is run as the GUI reads the track's element (Amarok
// runs it when the parser posts it, soon after); the directory walk's metadata reads do
// not sleep; the creation of the temporary tables (once) and the image elements (only
// listed) are left out. Every cost, the elements per pipe and the tracks per directory
// are assumptions (docs/workloads/mediaplayer.md).
#include "workload/generators/amarok.h"

#include <utility>

#include "workload/generators/builder.h"

namespace schedlab::amarok {

namespace {

struct Pipes {
  int32_t space, data, parse;  // the pipe's free elements, its elements, the parser's buffer
};

// The scanner's write() of one element: it blocks while the pipe is full; pipe_write wakes
// the reader with a sync wake-up (fs/pipe.c).
void write_element(const Pipes& p, std::vector<Step>& s) {
  s.push_back(gen::sem_wait(p.space));
  s.push_back(Step{Op::kSemPost, 0, 1, p.data, -1, false, true});
}

// The parser takes one element from its buffer (waiting on its condition while it is
// empty) and parses it.
void parse_element(const Pipes& p, const ScanSettings& c, std::vector<Step>& s) {
  s.push_back(gen::sem_wait(p.parse));
  s.push_back(gen::run(c.parse_line_ns));
}

// processDirectory: the directory's own statements, then each track's.
void write_directory(const ScanSettings& c, int64_t tracks, int32_t song_mark,
                     std::vector<Step>& s) {
  s.push_back(gen::run(4 * c.sql_ns));  // its id, its new album and artist (fetch, 2 inserts)
  for (int64_t i = 0; i < tracks; ++i) {
    s.push_back(gen::run(c.list_ns + 3 * c.sql_ns));  // urls_temp SELECT, INSERT; REPLACE
    s.push_back(gen::mark(song_mark));
  }
}

TaskSpec task(std::string name, const ScanSettings& c) {
  TaskSpec t = gen::one_shot(std::move(name), 1, {});
  t.phases.clear();
  t.cpus = c.cpus;
  return t;
}

}  // namespace

void add_collection_scan(const ScanSettings& c, Workload& w) {
  const Pipes pipes{w.semaphores.intern("amarok.scanner.stdout.space"),
                    w.semaphores.intern("amarok.scanner.stdout"),
                    w.semaphores.intern("amarok.parser.data")};
  gen::set_semaphore_initial(w, pipes.space, c.pipe_lines);
  const int32_t song_mark = w.marks.intern("songs");
  const int32_t loaded = w.marks.intern("collection_loaded");
  const int64_t full_dirs = c.songs / c.songs_per_dir;
  const int64_t rest = c.songs % c.songs_per_dir;
  const int64_t dirs = full_dirs + (rest > 0 ? 1 : 0);
  const int64_t last_dir = rest > 0 ? rest : c.songs_per_dir;

  // The scanner: the walk, the count, each directory's tracks and its compilation
  // element, the end of the document.
  TaskSpec scanner = task("amarok.scanner", c);
  std::vector<Step> walk{gen::run(c.walk_ns)};
  write_element(pipes, walk);
  scanner.phases.push_back(gen::phase("walk", dirs, std::move(walk)));
  std::vector<Step> count;
  write_element(pipes, count);
  scanner.phases.push_back(gen::phase("itemcount", 1, std::move(count)));
  auto directory = [&](int64_t tracks) {
    std::vector<Step> s;
    for (int64_t i = 0; i < tracks; ++i) {
      if (c.io_ns > 0) s.push_back(gen::sleep_for(c.io_ns));
      s.push_back(gen::run(c.song_ns));
      write_element(pipes, s);
    }
    write_element(pipes, s);  // <compilation>
    return s;
  };
  if (full_dirs > 0)
    scanner.phases.push_back(gen::phase("scan", full_dirs, directory(c.songs_per_dir)));
  if (rest > 0) scanner.phases.push_back(gen::phase("last_directory", 1, directory(rest)));
  std::vector<Step> end;
  write_element(pipes, end);  // </scanner>
  scanner.phases.push_back(gen::phase("end", 1, std::move(end)));
  gen::add_task(w, std::move(scanner));

  // The GUI thread: each element read, its space given back, the parser woken.
  const int64_t elements = dirs + 1 + c.songs + dirs + 1;
  TaskSpec gui = task("amarok", c);
  gui.phases.push_back(gen::phase(
      "read", elements,
      {gen::sem_wait(pipes.data), gen::run(c.gui_line_ns),
       Step{Op::kSemPost, 0, 1, pipes.space, -1, false, true}, gen::sem_post(pipes.parse)}));
  gen::add_task(w, std::move(gui));

  // The parser: the folders, the count, then each directory's elements, the previous
  // directory written after its first track's.
  TaskSpec parser = task("amarok.parser", c);
  std::vector<Step> folder;
  parse_element(pipes, c, folder);
  folder.push_back(gen::run(2 * c.sql_ns));
  parser.phases.push_back(gen::phase("folders", dirs, std::move(folder)));
  std::vector<Step> itemcount;
  parse_element(pipes, c, itemcount);
  parser.phases.push_back(gen::phase("itemcount", 1, std::move(itemcount)));
  auto tracks_of = [&](int64_t tracks, int64_t previous) {
    std::vector<Step> s;
    parse_element(pipes, c, s);
    if (previous > 0) write_directory(c, previous, song_mark, s);
    for (int64_t i = 1; i < tracks; ++i) parse_element(pipes, c, s);
    parse_element(pipes, c, s);  // <compilation>
    return s;
  };
  parser.phases.push_back(
      gen::phase("first_directory", 1, tracks_of(full_dirs > 0 ? c.songs_per_dir : rest, 0)));
  if (full_dirs > 1)
    parser.phases.push_back(
        gen::phase("directories", full_dirs - 1, tracks_of(c.songs_per_dir, c.songs_per_dir)));
  if (full_dirs > 0 && rest > 0)
    parser.phases.push_back(gen::phase("last_directory", 1, tracks_of(rest, c.songs_per_dir)));
  std::vector<Step> commit;
  parse_element(pipes, c, commit);  // </scanner>
  write_directory(c, last_dir, song_mark, commit);
  commit.push_back(gen::run(c.copy_ns * c.songs));
  commit.push_back(gen::mark(loaded));
  parser.phases.push_back(gen::phase("commit", 1, std::move(commit)));
  gen::add_task(w, std::move(parser));
}

}  // namespace schedlab::amarok
