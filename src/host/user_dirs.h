// Where the host side keeps files, made so that no other user can plant, replace or read
// them (issue 18 finding 2 and 6: predictable names in /tmp, a cache any user could
// create first):
//   - one run's temporary files: a fresh 0700 directory of its own (mkdtemp), in
//     $XDG_RUNTIME_DIR when that is this user's private folder, else in the temporary
//     folder ($TMPDIR or /tmp), files in it created O_EXCL|O_NOFOLLOW 0600, all removed
//     at the end;
//   - the caches (busy-loop calibration, x264's clip): $XDG_CACHE_HOME/schedlab, else
//     ~/.cache/schedlab (home from $HOME, else the password database), used only when
//     the folder is this user's and no one else may write it; written through a temporary
//     file renamed over the old one, read without following a symlink.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace schedlab {

class PrivateDir {
 public:
  PrivateDir();   // throws InputError when no such directory can be made
  ~PrivateDir();  // removes the directory and everything in it
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const std::string& path() const { return path_; }
  // A new empty file NAME in the directory (O_CREAT|O_EXCL|O_NOFOLLOW, 0600); its path.
  std::string new_file(const std::string& name) const;

 private:
  std::string path_;
};

// The cache folder (`dir` if given, else as above), created 0700 if missing; empty, with
// the reason in *why, when there is none this user alone controls.
std::string cache_dir(const std::string& dir, std::string* why);

// The text of a small cache file, or nullopt when it is missing, not a regular file (a
// symlink included) or larger than max_bytes.
std::optional<std::string> read_cache_file(const std::string& path, size_t max_bytes);

// Writes a cache file whole or not at all: `write` fills a temporary file in the same
// folder, which then replaces `path`. False (the old file kept) on any error.
bool write_cache_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace schedlab
