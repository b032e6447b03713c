// An output file whose every write is checked: a failed or short write (a full disk,
// /dev/full, a closed pipe) is an InputError naming the file when the file is closed,
// never a silent loss. Opened with open(2), so a path the user did not name (a default
// such as ./schedlab-trace.txt, or a file inside an output folder) is not followed through
// a symlink someone planted there, and a recording can be made private (0600).
#pragma once

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <string>

namespace schedlab {

struct OutputOptions {
  // False for a path the user did not name: a symlink there is refused (O_NOFOLLOW).
  bool follow_symlink = true;
  // The file's permissions (before the umask when it is created); `force_mode` applies
  // them to an existing file too (a recording is 0600 whoever made the file first).
  mode_t mode = 0666;
  bool force_mode = false;
};

class OutputFile {
 public:
  // Throws InputError naming the path when it cannot be opened for writing.
  explicit OutputFile(std::string path, const OutputOptions& options = {});
  // A descriptor opened elsewhere (stdout), named `name` in errors; left open by close().
  OutputFile(int fd, std::string name);
  ~OutputFile();  // closes; an error found only then is lost: call close()
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  const std::string& path() const { return path_; }
  // Writes what is buffered and closes; throws InputError naming the file and the reason
  // if any write failed. Closing twice does nothing.
  void close();

 private:
  class Buffer;
  std::string path_;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// Writes `text` to `path` and closes it, checked (OutputFile).
void write_output(const std::string& path, const std::string& text,
                  const OutputOptions& options = {});

}  // namespace schedlab
