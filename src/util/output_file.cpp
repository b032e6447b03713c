#include "util/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>
#include <vector>

#include "util/error.h"

namespace schedlab {

// A stream buffer over a file descriptor that remembers the first failed write.
class OutputFile::Buffer : public std::streambuf {
 public:
  Buffer(int fd, bool owned) : fd_(fd), owned_(owned), data_(1 << 16) {
    setp(data_.data(), data_.data() + data_.size());
  }
  ~Buffer() override { finish(); }

  // Writes the rest and closes the descriptor; the errno of the first failure, or 0.
  int finish() {
    if (fd_ < 0) return error_;
    drain();
    if (owned_ && ::close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
    return error_;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    size_t left = static_cast<size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error_ = errno;
      if (n == 0) error_ = EIO;  // a short write that makes no progress
      if (n <= 0) break;
      p += n;
      left -= static_cast<size_t>(n);
    }
    setp(data_.data(), data_.data() + data_.size());
    return error_ == 0;
  }

  int fd_;
  bool owned_;
  int error_ = 0;
  std::vector<char> data_;
};

OutputFile::OutputFile(std::string path, const OutputOptions& o) : path_(std::move(path)) {
  int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY;
  if (!o.follow_symlink) flags |= O_NOFOLLOW;
  const int fd = ::open(path_.c_str(), flags, o.mode);
  if (fd < 0)
    throw InputError(path_, "",
                     errno == ELOOP && !o.follow_symlink
                         ? std::string("cannot open for writing: it is a symlink (refused, as "
                                       "schedlab chose this path itself; name the file to use it)")
                         : fmt::format("cannot open for writing: {}", strerror(errno)));
  struct stat st {};
  if (o.force_mode && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      (st.st_mode & 07777) != o.mode && ::fchmod(fd, o.mode) != 0) {
    const int e = errno;
    ::close(fd);
    throw InputError(path_, "",
                     fmt::format("cannot set its mode to {:o}: {}", o.mode, strerror(e)));
  }
  buffer_ = std::make_unique<Buffer>(fd, true);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

OutputFile::OutputFile(int fd, std::string name)
    : path_(std::move(name)),
      buffer_(std::make_unique<Buffer>(fd, false)),
      stream_(std::make_unique<std::ostream>(buffer_.get())) {}

OutputFile::~OutputFile() {
  if (buffer_) buffer_->finish();
}

std::ostream& OutputFile::stream() {
  return *stream_;
}

void OutputFile::close() {
  stream_->flush();
  if (const int e = buffer_->finish())
    throw InputError(path_, "", fmt::format("cannot write: {}", strerror(e)));
}

void write_output(const std::string& path, const std::string& text, const OutputOptions& options) {
  OutputFile file(path, options);
  file.stream() << text;
  file.close();
}

}  // namespace schedlab
