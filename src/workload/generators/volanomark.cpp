// VolanoMark 2.x (docs/workloads/volanomark.md; E4's "vmark", taken to be VolanoMark, an
// inference): Volano's Java chat-server
// benchmark over loopback, as IBM LTC's description of VolanoMark 2.1.2 has it. `rooms`
// rooms of `users` users, each user one TCP connection served by four Java threads (one
// kernel task each, 1:1 in the JVMs of the time):
// - the client sender writes its user's `messages` messages (`client_send_ns` each);
// - the server receiver, blocked in the socket's read, takes each one (`server_recv_ns`)
//   and wakes the server senders of the room's other users-1 members (JVM event
//   semaphores), writing to none of their sockets itself;
// - each server sender writes the message to its own socket (`server_send_ns`), after
//   `yields` sched_yield()s (where the benchmark's yields happen is an assumption);
// - each client receiver reads it (`client_recv_ns`) and marks `messages`: a delivered
//   copy, so marks.messages.per_second is the messages per second the server transferred,
//   VolanoMark's score (counting copies, as IBM's OLS 2001 slide does: an inference).
// The costs, the yields and the unpaced senders are assumptions (the sources do not say how
// a user paces its sends).
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

#define VOLANOMARK_PARAMS(X)                                                                      \
  X(int, rooms, 10, params::range(1, 1000), "inferred from Volano's run rules (200 connections)", \
    "chat rooms")                                                                                 \
  X(int, users, 20, params::range(2, 1000), "IBM LTC, VolanoMark 2.1.2", "users per room")        \
  X(int64_t, messages, 100, params::range(1, 1'000'000), "Volano's run rules: -count 100",        \
    "messages each user sends")                                                                   \
  X(Time, client_send_ns, 20'000, params::duration(), "assumption",                               \
    "a client sender's CPU per message")                                                          \
  X(Time, server_recv_ns, 10'000, params::duration(), "assumption",                               \
    "the server receiver's CPU per message")                                                      \
  X(Time, server_send_ns, 10'000, params::duration(), "assumption",                               \
    "a server sender's CPU per copy")                                                             \
  X(Time, client_recv_ns, 10'000, params::duration(), "assumption",                               \
    "a client receiver's CPU per copy")                                                           \
  X(int, yields, 2, params::range(0, 1000),                                                       \
    "assumption (IBM LTC: ~800,000 in a 10-room, 100-message run, IBM JVM, Linux 2.4)",           \
    "sched_yield() calls of a server sender per copy")                                            \
  X(std::string, name, "vm", params::any(), "schedlab", "prefix of task and object names")
SCHEDLAB_DECLARE_PARAMS(VolanoParams, VOLANOMARK_PARAMS)

// Bounds on what one run may build, schedlab's (not VolanoMark's): tasks, and the server
// receivers' posts, so that a huge room count is refused before it is allocated.
constexpr int64_t kMaxTasks = 1'000'000, kMaxPosts = 10'000'000;

void validate(const VolanoParams& p, const GeneratorContext& ctx) {
  const int64_t connections = int64_t{p.rooms} * p.users;
  if (connections * 4 > kMaxTasks)
    gen::reject(ctx, &VolanoParams::users,
                fmt::format("{} rooms of {} users make {} tasks, more than {}", p.rooms, p.users,
                            connections * 4, kMaxTasks));
  if (connections * p.users > kMaxPosts)
    gen::reject(ctx, &VolanoParams::users,
                fmt::format("{} rooms of {} users make {} fan-out steps, more than {}", p.rooms,
                            p.users, connections * p.users, kMaxPosts));
}

void generate(const VolanoParams& p, const GeneratorContext&, Workload& w) {
  const int32_t delivered = w.marks.intern("messages");
  const int64_t copies = p.messages * (p.users - 1);  // each user receives
  for (int r = 0; r < p.rooms; ++r) {
    std::vector<int32_t> to_server(static_cast<size_t>(p.users)),
        to_sender(static_cast<size_t>(p.users)), to_client(static_cast<size_t>(p.users));
    for (int u = 0; u < p.users; ++u) {
      const std::string conn = fmt::format("{}.r{}u{}", p.name, r, u);
      to_server[static_cast<size_t>(u)] = w.semaphores.intern(conn + ".in");
      to_sender[static_cast<size_t>(u)] = w.semaphores.intern(conn + ".out");
      to_client[static_cast<size_t>(u)] = w.semaphores.intern(conn + ".sock");
    }
    for (int u = 0; u < p.users; ++u) {
      const auto at = static_cast<size_t>(u);
      const std::string id = fmt::format("{}-r{}u{}", p.name, r, u);
      gen::add_task(
          w, gen::looped(id + "-csend", {gen::run(p.client_send_ns), gen::sem_post(to_server[at])},
                         p.messages));
      std::vector<Step> receive{gen::sem_wait(to_server[at]), gen::run(p.server_recv_ns)};
      for (int v = 0; v < p.users; ++v)
        if (v != u) receive.push_back(gen::sem_post(to_sender[static_cast<size_t>(v)]));
      gen::add_task(w, gen::looped(id + "-srecv", std::move(receive), p.messages));
      std::vector<Step> send{gen::sem_wait(to_sender[at])};
      for (int y = 0; y < p.yields; ++y) send.push_back(gen::yield());
      send.push_back(gen::run(p.server_send_ns));
      send.push_back(gen::sem_post(to_client[at]));
      gen::add_task(w, gen::looped(id + "-ssend", std::move(send), copies));
      gen::add_task(w, gen::looped(id + "-crecv",
                                   {gen::sem_wait(to_client[at]), gen::run(p.client_recv_ns),
                                    gen::mark(delivered)},
                                   copies));
    }
  }
}

}  // namespace

GeneratorInfo volanomark_generator() {
  return gen::declare<VolanoParams>(
      "volanomark", "VolanoMark 2.x: chat rooms broadcast over four threads per connection",
      generate, validate);
}

}  // namespace schedlab
