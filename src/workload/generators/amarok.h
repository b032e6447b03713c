// Amarok 2.2.0's full collection scan (docs/workloads/mediaplayer.md, "amarok"): its
// scanner process, its GUI thread and its XML parser thread with the embedded MySQL.
// Used by the mediaplayer generator.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "workload/program.h"

namespace schedlab::amarok {

struct ScanSettings {
  int64_t songs;       // tracks in the collection
  int songs_per_dir;   // tracks per directory (an album)
  int pipe_lines;      // XML elements the scanner's stdout pipe holds
  Time walk_ns;        // scanner: listing one directory
  Time io_ns;          // scanner: asleep on a track's first read from disk
  Time song_ns;        // scanner: a track's log line, two TagLib parses, the MD5, the element
  Time gui_line_ns;    // GUI thread: one element read from the pipe, and its progress event
  Time parse_line_ns;  // parser: one element parsed
  Time list_ns;        // parser: a track's directory listing and file times
  Time sql_ns;         // parser: one statement on the embedded MySQL
  Time copy_ns;        // parser: the commit's copy to the permanent tables, per track
  std::optional<std::vector<int>> cpus;  // every task's CPUs
};

// The three tasks amarok.scanner, amarok (the GUI thread) and amarok.parser. Marks
// `songs` as each track's rows are written and `collection_loaded` after the commit.
void add_collection_scan(const ScanSettings& s, Workload& w);

}  // namespace schedlab::amarok
