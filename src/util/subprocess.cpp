#include "util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <tuple>

extern char** environ;

namespace schedlab {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return pipe2(fd, O_CLOEXEC) == 0; }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
};

// Feeds `input` and drains both outputs at once, so that neither side blocks on a full
// pipe while the other waits.
void exchange(Pipe& in, Pipe& out, Pipe& err, const std::string& input, ProgramResult& r) {
  size_t written = 0;
  if (input.empty()) in.close_end(1);
  char buffer[65536];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3];
    int n = 0;
    int in_at = -1, out_at = -1, err_at = -1;
    if (in.fd[1] >= 0) fds[in_at = n++] = {in.fd[1], POLLOUT, 0};
    if (out.fd[0] >= 0) fds[out_at = n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[err_at = n++] = {err.fd[0], POLLIN, 0};
    if (poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (in_at >= 0 && fds[in_at].revents) {
      const ssize_t k = ::write(in.fd[1], input.data() + written, input.size() - written);
      if (k > 0) written += static_cast<size_t>(k);
      if (k < 0 || written == input.size()) in.close_end(1);  // EPIPE: it stopped reading
    }
    for (auto [at, pipe, text] : {std::tuple{out_at, &out, &r.out}, {err_at, &err, &r.err}}) {
      if (at < 0 || !fds[at].revents) continue;
      const ssize_t k = ::read(pipe->fd[0], buffer, sizeof buffer);
      if (k > 0)
        text->append(buffer, static_cast<size_t>(k));
      else if (k == 0 || errno != EINTR)
        pipe->close_end(0);
    }
  }
  in.close_end(1);
}

}  // namespace

ProgramResult run_program(const std::vector<std::string>& argv, const std::string& input) {
  ProgramResult r;
  Pipe in, out, err;
  if (argv.empty() || !in.open() || !out.open() || !err.open()) {
    r.error = "cannot create pipes";
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A reader that stops early must not kill us with SIGPIPE while we write its input.
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  if (rc == 0) {
    r.started = true;
    exchange(in, out, err, input, r);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    r.error = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
  }
  sigaction(SIGPIPE, &old, nullptr);
  return r;
}

}  // namespace schedlab
