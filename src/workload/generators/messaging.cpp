// A generic many-to-many messaging load (docs/workloads/messaging.md; E4's vmark is the
// volanomark generator): `senders`
// tasks each send messages to the `receivers` in turn (round robin, starting at its own
// index), every message a little CPU to build, a post to the receiver's queue from that
// sender (a sync wake-up when `sync`) and, every `batch` messages, a wait for each
// receiver's acknowledgement of the batch; receivers serve their senders' queues in turn,
// a message from each, spend their handling cost, and acknowledge it. Mark `messages` counts
// messages handled, so its per_second is the load's throughput.
//
// Assumptions (parameters): 8 senders, 8 receivers, 5 us to build and 10 us to handle a
// message, batches of 16, sync wake-ups on; a sender's message count per receiver is
// `messages` (-1: until the duration).
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

#define MESSAGING_PARAMS(X)                                                                  \
  X(int, senders, 8, params::range(1, 4096), "assumption", "sender tasks")                   \
  X(int, receivers, 8, params::range(1, 4096), "assumption", "receiver tasks")               \
  X(int, batch, 16, params::range(1, 1'000'000), "assumption",                               \
    "messages to each receiver between waits for their acknowledgements")                    \
  X(int64_t, messages, -1, params::range(-1, 1'000'000'000), "schedlab",                     \
    "messages from each sender to each receiver; -1: until the duration")                    \
  X(Time, send_ns, 5'000, params::duration(), "assumption", "sender CPU to build a message") \
  X(Time, handle_ns, 10'000, params::duration(), "assumption", "receiver CPU per message")   \
  X(bool, sync, true, params::any(), "assumption", "a message's post is a sync wake-up")     \
  X(std::string, name, "msg", params::any(), "schedlab", "prefix of task and object names")
SCHEDLAB_DECLARE_PARAMS(MessagingParams, MESSAGING_PARAMS)

void validate(const MessagingParams& p, const GeneratorContext& ctx) {
  if (p.messages == 0)
    gen::reject(ctx, &MessagingParams::messages, "must be positive, or -1 for no end");
}

void generate(const MessagingParams& p, const GeneratorContext&, Workload& w) {
  const std::string& name = p.name;
  const int32_t handled = w.marks.intern("messages");
  // One queue and one acknowledgement semaphore per (sender, receiver) pair.
  auto queue = [&](int s, int d) {
    return w.semaphores.intern(fmt::format("{}.{}.{}", name, s, d));
  };
  auto ack = [&](int s, int d) {
    return w.semaphores.intern(fmt::format("{}.{}.{}.ack", name, s, d));
  };
  const int64_t loop = p.messages > 0 ? p.messages : INT64_MAX;
  const int64_t batches = (p.messages + p.batch - 1) / p.batch;  // when messages > 0
  for (int s = 0; s < p.senders; ++s) {
    std::vector<Step> steps;
    for (int b = 0; b < p.batch; ++b)
      for (int i = 0; i < p.receivers; ++i) {
        const int d = (s + i) % p.receivers;
        steps.push_back(gen::run(p.send_ns));
        steps.push_back(Step{Op::kSemPost, 0, 1, queue(s, d), -1, false, p.sync});
      }
    for (int d = 0; d < p.receivers; ++d)
      steps.push_back(Step{Op::kSemWait, 0, p.batch, ack(s, d), -1, false, false});
    TaskSpec t = gen::one_shot(fmt::format("{}-sender{}", name, s), 1, std::move(steps));
    t.phases.front().loop = p.messages > 0 ? batches : loop;
    gen::add_task(w, std::move(t));
  }
  for (int d = 0; d < p.receivers; ++d) {
    std::vector<Step> steps;
    for (int s = 0; s < p.senders; ++s) {
      // A message from each sender, in the order they were sent to this receiver.
      steps.push_back(Step{Op::kSemWait, 0, 1, queue(s, d), -1, false, false});
      steps.push_back(gen::run(p.handle_ns));
      steps.push_back(gen::mark(handled));
      steps.push_back(Step{Op::kSemPost, 0, 1, ack(s, d), -1, false, false});
    }
    TaskSpec t = gen::one_shot(fmt::format("{}-receiver{}", name, d), 1, std::move(steps));
    t.phases.front().loop = p.messages > 0 ? batches * p.batch : loop;
    gen::add_task(w, std::move(t));
  }
}

}  // namespace

GeneratorInfo messaging_generator() {
  return gen::declare<MessagingParams>(
      "messaging", "many-to-many messages in batches (a generic messaging load)", generate,
      validate);
}

}  // namespace schedlab
