// A many-to-many messaging load standing in for vmark (WORKLOADS.md §5, E4): `senders`
// tasks each send messages to the `receivers` in turn (round robin, starting at its own
// index), every message a little CPU to build, a post to the receiver's queue from that
// sender (a sync wake-up when `sync`) and, every `batch` messages, a wait for each
// receiver's acknowledgement of the batch; receivers serve their senders' queues in turn,
// a message from each, spend their handling cost, and acknowledge it. Mark `messages` counts
// messages handled, so its per_second is the throughput vmark reported.
//
// Assumptions (parameters): 8 senders, 8 receivers, 5 us to build and 10 us to handle a
// message, batches of 16, sync wake-ups on; a sender's message count per receiver is
// `messages` (-1: until the duration).
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/generators.h"

namespace schedlab {

void generate_messaging(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int senders = 8, receivers = 8, batch = 16;
  int64_t messages = -1;
  Time send_ns = 5'000, handle_ns = 10'000;
  bool sync = true;
  std::string name = "msg";
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "senders")
      senders = static_cast<int>(r.integer_in(v, key, 1, 4096));
    else if (k == "receivers")
      receivers = static_cast<int>(r.integer_in(v, key, 1, 4096));
    else if (k == "batch")
      batch = static_cast<int>(r.integer_in(v, key, 1, 1'000'000));
    else if (k == "messages")
      messages = r.integer_in(v, key, -1, 1'000'000'000);
    else if (k == "send_ns")
      send_ns = r.duration(v, key, 1);
    else if (k == "handle_ns")
      handle_ns = r.duration(v, key, 1);
    else if (k == "sync")
      sync = r.boolean(v, key);
    else if (k == "name")
      name = r.string(v, key);
    else
      r.fail(key,
             "unknown key (generator, senders, receivers, batch, messages, send_ns, "
             "handle_ns, sync, name)");
  }
  if (messages == 0) r.fail(ctx.key + ".messages", "must be positive, or -1 for no end");
  const int32_t handled = w.marks.intern("messages");
  // One queue and one acknowledgement semaphore per (sender, receiver) pair.
  auto queue = [&](int s, int d) {
    return w.semaphores.intern(fmt::format("{}.{}.{}", name, s, d));
  };
  auto ack = [&](int s, int d) {
    return w.semaphores.intern(fmt::format("{}.{}.{}.ack", name, s, d));
  };
  const int64_t loop = messages > 0 ? messages : INT64_MAX;
  for (int s = 0; s < senders; ++s) {
    std::vector<Step> steps;
    for (int b = 0; b < batch; ++b)
      for (int i = 0; i < receivers; ++i) {
        const int d = (s + i) % receivers;
        steps.push_back(gen::run(send_ns));
        steps.push_back(Step{Op::kSemPost, 0, 1, queue(s, d), -1, false, sync});
      }
    for (int d = 0; d < receivers; ++d)
      steps.push_back(Step{Op::kSemWait, 0, batch, ack(s, d), -1, false, false});
    TaskSpec t = gen::one_shot(fmt::format("{}-sender{}", name, s), 1, std::move(steps));
    t.phases.front().loop = messages > 0 ? (messages + batch - 1) / batch : loop;
    gen::add_task(w, std::move(t));
  }
  for (int d = 0; d < receivers; ++d) {
    std::vector<Step> steps;
    for (int s = 0; s < senders; ++s) {
      // A message from each sender, in the order they were sent to this receiver.
      steps.push_back(Step{Op::kSemWait, 0, 1, queue(s, d), -1, false, false});
      steps.push_back(gen::run(handle_ns));
      steps.push_back(gen::mark(handled));
      steps.push_back(Step{Op::kSemPost, 0, 1, ack(s, d), -1, false, false});
    }
    TaskSpec t = gen::one_shot(fmt::format("{}-receiver{}", name, d), 1, std::move(steps));
    t.phases.front().loop = messages > 0 ? ((messages + batch - 1) / batch) * batch : loop;
    gen::add_task(w, std::move(t));
  }
}

}  // namespace schedlab
