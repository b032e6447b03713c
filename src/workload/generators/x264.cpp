// x264 of 2009 as a workload (docs/workloads/x264.md): frame threads that encode one macroblock
// row at a time and wait on their reference frames' progress, a main thread that starts
// frames round-robin and joins the oldest in flight, a per-frame input thread, the
// threaded lookahead with its FIFOs, and sliced threads for --tune zerolatency.
//
// Structure (from x264's frame threading, r607 to 2010):
// - frame mode: before row y a frame waits until each reference frame has completed
//   min(rows, y + K) rows, K = (mv_range_thread + 24) / 16 with mv_range_thread computed
//   from the height and the thread count as x264 does; reference frames publish every
//   row, non-reference B frames only at their end (all are joined by the main thread).
// - thread-per-frame (the 2009 style, default): each frame is a new thread (fork);
//   "pool" keeps one persistent thread per context (the 2010 style).
// - the main thread, per frame: (with threads > 1) create and join an input thread that
//   reads the frame, take the lookahead's decision (or make it itself), do its serial
//   work, join the frame that last used the next thread context (marking it "frames"),
//   and start the frame; at the end it joins the frames still in flight.
// - lookahead (sync_lookahead > 0 and threads > 1): one thread analysing frames as they
//   are pushed, at most sync_lookahead decisions ahead of the main thread.
// - sliced threads (tune zerolatency): one persistent thread per slice of rows, all
//   started together per frame, the main thread waiting for all (no overlap of frames).
//
// Assumptions, not measurements (docs/workloads/x264.md): per-row weights I 0.6, P 1.0,
// B 0.7 normalised to the calibration; +-10 % uniform row jitter; the main thread's
// serial work 3 % of a frame; the lookahead 1 % (ultrafast), 5 % (veryfast), 10 %
// (medium, veryslow); reading a 4CIF frame 100 us (scaled by area); veryfast's
// single-thread speed (60 fps on 4CIF; E1 measured only ultrafast, medium and veryslow);
// a fixed B-frame pattern for b-adapt; B frames are not references (pre-2010); idealised
// condition variables (a broadcast wakes only the waiters it satisfies); mv_range 512.
// Calibrated on E1's single-thread figures only (Q9300, 2.5 GHz, pinned): ultrafast
// 130.76 fps, medium (-B 2000) 20.01 fps, veryslow 1.90 fps, cost proportional to area.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/rng.h"
#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

struct Preset {
  const char* name;
  double fps_4cif;  // single thread on the Q9300 (calibration)
  int ref, bframes, me_range;
  double lookahead_share;
};

// ultrafast: ref 1, no B, dia (merange 16), rc-lookahead 0; veryfast: ref 1, 3 B, hex 16;
// medium: ref 3, 3 B, hex 16; veryslow: ref 16, 8 B, umh 24 (x264 --fullhelp of 2009).
// fps: E1's single-thread calibration, but veryfast's 60 is an assumption; the lookahead
// shares are assumptions.
constexpr Preset kPresets[] = {
    {"ultrafast", 130.76, 1, 0, 16, 0.01},
    {"veryfast", 60.0, 1, 3, 16, 0.05},
    {"medium", 20.01, 3, 3, 16, 0.10},
    {"veryslow", 1.90, 16, 8, 24, 0.10},
};

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.emplace_back(p.name);
  return names;
}

const Preset& preset_named(const std::string& name) {
  for (const Preset& p : kPresets)
    if (name == p.name) return p;
  return kPresets[2];  // not reached: the parameter's limits allow only the names above
}

constexpr double kMainShare = 0.03;         // the main thread's serial work: an assumption
constexpr Time kInputRead4cifNs = 100'000;  // reading one 4CIF frame: an assumption
constexpr double kWeightI = 0.6, kWeightP = 1.0, kWeightB = 0.7;  // per-row weights: assumed
constexpr int kMvRange = 512;              // mv_range: an assumption (x264's cap in pixels)
constexpr int k4cifMacroblocks = 44 * 36;  // 704x576 in 16x16 macroblocks

#define X264_PARAMS(X)                                                                             \
  X(std::string, preset, "medium", params::one_of(preset_names()), "x264 presets (2009-07)",       \
    "a row of the preset table: ref, B frames, motion range, speed, lookahead share")              \
  X(std::string, tune, "none", params::one_of({"zerolatency", "none"}), "x264 (2009-12)",          \
    "zerolatency: sliced threads, no lookahead, no B frames unless bframes is given")              \
  X(int, threads, 0, params::range(1, 128).or_word("auto", 0), "x264 r607",                        \
    "encoder threads; auto: 1.5 per CPU for frames (rows / 2 at most), 1 per CPU for slices")      \
  X(int, frames, 600, params::range(1, 1'000'000), "E1: soccer_4cif", "frames to encode")          \
  X(int, width, 704, params::range(16, 16384), "E1: 4CIF", "picture width in pixels")              \
  X(int, height, 576, params::range(16, 16384), "E1: 4CIF", "picture height in pixels")            \
  X(int, bframes, -1, params::range(0, 16).or_word("auto", -1), "x264 --bframes",                  \
    "B frames between anchors; auto: the preset's, 0 with zerolatency")                            \
  X(int, ref, -1, params::range(1, 16).or_word("auto", -1), "x264 --ref",                          \
    "reference frames of a P frame; auto: the preset's")                                           \
  X(int, sync_lookahead, -1, params::range(0, 250).or_word("auto", -1), "x264 r1246",              \
    "lookahead thread's buffer in frames, 0: no thread; auto: bframes + 1")                        \
  X(int, keyint, 250, params::range(1, 100'000), "x264 --keyint", "an I frame every n frames")     \
  X(std::string, style, "thread-per-frame", params::one_of({"thread-per-frame", "pool"}),          \
    "x264 2007 to mid 2010; pool after", "a new thread per frame, or persistent ones")             \
  X(int, frame_nice, 0, params::range(-20, 19), "schedlab",                                        \
    "nice level of the frame (or slice) threads")                                                  \
  X(double, jitter, 0.1, params::half_open(0, 1), "assumption",                                    \
    "each row's cost varies uniformly by up to +-jitter")                                          \
  X(std::string, name, "x264", params::any(), "schedlab", "the main thread, prefix of the others") \
  X(std::string, policy, "SCHED_OTHER",                                                            \
    params::one_of({"SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE"}), "E3: schedtool -B",              \
    "scheduling policy of every thread")
SCHEDLAB_DECLARE_PARAMS(X264Params, X264_PARAMS)

void validate(const X264Params& p, const GeneratorContext& ctx) {
  if (p.name.empty()) gen::reject(ctx, &X264Params::name, "must not be empty");
}

SchedPolicy policy_of(const std::string& name) {
  if (name == "SCHED_BATCH") return SchedPolicy::kBatch;
  if (name == "SCHED_IDLE") return SchedPolicy::kIdle;
  return SchedPolicy::kOther;
}

struct Frame {
  char type = 'P';  // I, P or B, in coded order
  bool is_ref = true;
  std::vector<int> refs;  // coded indices of the frames it waits on
};

// Frame types and references in coded order: an anchor (P, or I every keyint frames in
// display order) followed by the B frames displayed before it.
std::vector<Frame> frame_plan(int frames, int bframes, int ref, int keyint) {
  std::vector<Frame> plan;
  std::vector<int> refs_so_far;  // coded indices of reference frames, oldest first
  plan.push_back(Frame{'I', true, {}});
  refs_so_far.push_back(0);
  int display = 1;
  while (display < frames) {
    const int group = std::min(bframes, frames - display - 1);
    const int anchor_display = display + group;
    const int previous_anchor = refs_so_far.back();
    Frame anchor;
    anchor.type = anchor_display % keyint == 0 ? 'I' : 'P';
    if (anchor.type == 'P') {
      const int n = std::min<int>(ref, static_cast<int>(refs_so_far.size()));
      anchor.refs.assign(refs_so_far.end() - n, refs_so_far.end());
    }
    const int anchor_coded = static_cast<int>(plan.size());
    plan.push_back(anchor);
    refs_so_far.push_back(anchor_coded);
    for (int b = 0; b < group; ++b)
      plan.push_back(Frame{'B', false, {previous_anchor, anchor_coded}});
    display = anchor_display + 1;
  }
  return plan;
}

// mv_range_thread as x264 computes it, and the row lag K it implies.
int row_lag(int height, int threads, int me_range) {
  int max_range = (height + 24) / threads - 24;
  int r = std::clamp(max_range / 2, me_range, kMvRange);
  r = ((r + 24 + 15) / 16) * 16 - 24;  // round up so r + 24 is a multiple of 16
  return (r + 24) / 16;
}

// The encoder as configured: the automatic settings resolved on this machine, and the
// costs at capacity 1024, scaled from 4CIF by area.
struct Encoder {
  const Preset* preset;
  std::string name;
  bool sliced, pool;
  int threads, bframes, ref, sync_lookahead, mb_rows, mb_cols, frame_nice;
  int lag;  // rows a frame stays behind its references (mv_range_thread)
  Time main_ns, lookahead_ns, input_ns;
  double encode_ns;  // a frame's encoding work, its rows together
};

Encoder configure(const X264Params& p, int ncpu) {
  Encoder e;
  e.preset = &preset_named(p.preset);
  e.name = p.name;
  e.sliced = p.tune == "zerolatency";
  e.pool = p.style == "pool";
  e.frame_nice = p.frame_nice;
  e.mb_rows = (p.height + 15) / 16;
  e.mb_cols = (p.width + 15) / 16;
  int threads = p.threads;
  if (threads == 0)  // x264_threads_auto
    threads = e.sliced ? std::min(ncpu, std::max(1, e.mb_rows / 4))
                       : std::min(ncpu * 3 / 2, std::max(1, e.mb_rows / 2));
  e.threads = std::clamp(threads, 1, 128);
  // zerolatency turns B frames off unless --bframes is given too (E3's variants).
  e.bframes = p.bframes >= 0 ? p.bframes : e.sliced ? 0 : e.preset->bframes;
  e.ref = p.ref > 0 ? p.ref : e.preset->ref;
  e.sync_lookahead = p.sync_lookahead >= 0 ? p.sync_lookahead : e.bframes + 1;
  if (e.threads == 1 || e.sliced) e.sync_lookahead = 0;
  e.lag = row_lag(p.height, e.threads, e.preset->me_range);

  const double area = static_cast<double>(e.mb_rows * e.mb_cols) / k4cifMacroblocks;
  const double frame_ns = 1e9 / e.preset->fps_4cif * area;
  e.main_ns = static_cast<Time>(frame_ns * kMainShare);
  e.lookahead_ns = static_cast<Time>(frame_ns * e.preset->lookahead_share);
  e.input_ns = static_cast<Time>(static_cast<double>(kInputRead4cifNs) * area);
  e.encode_ns = frame_ns - static_cast<double>(e.main_ns + e.lookahead_ns + e.input_ns);
  return e;
}

// Row costs: the frame type's weight over the plan's mean weight, with jitter drawn from
// the run's seed in the order the programs are built.
class RowCosts {
 public:
  RowCosts(const Encoder& e, const std::vector<Frame>& plan, double jitter, uint64_t seed)
      : encode_ns_(e.encode_ns),
        mb_rows_(e.mb_rows),
        jitter_(jitter),
        rng_(seed ^ 0x78323634ULL) {  // "x264": a stream of its own
    double weight_sum = 0;
    for (const Frame& f : plan) weight_sum += weight(f);
    weight_mean_ = weight_sum / static_cast<double>(plan.size());
  }
  Time next(const Frame& f) {
    const double jitter = 1 + jitter_ * (2 * rng_.unit() - 1);
    return static_cast<Time>(encode_ns_ * weight(f) / weight_mean_ / mb_rows_ * jitter);
  }

 private:
  static double weight(const Frame& f) {
    return f.type == 'I' ? kWeightI : f.type == 'B' ? kWeightB : kWeightP;
  }
  double encode_ns_;
  int mb_rows_;
  double jitter_, weight_mean_ = 1;
  Rng rng_;
};

// The main thread's program, and the mark it counts encoded frames with.
struct Main {
  std::vector<Step> steps;
  int32_t frames_mark;
};

// One thread: everything in the calling thread, frame after frame.
void encode_serially(const Encoder& e, const std::vector<Frame>& plan, RowCosts& costs,
                     Main& main) {
  for (const Frame& f : plan) {
    Time encode = 0;
    for (int y = 0; y < e.mb_rows; ++y) encode += costs.next(f);
    main.steps.push_back(gen::run(e.input_ns + e.lookahead_ns + e.main_ns + encode));
    main.steps.push_back(gen::mark(main.frames_mark));
  }
}

// Sliced threads: per frame the main thread starts every slice and waits for all.
void encode_sliced(const Encoder& e, const std::vector<Frame>& plan, RowCosts& costs, Main& main,
                   Workload& w) {
  const int threads = e.threads;
  const int32_t go = w.counters.intern(e.name + ".slices_start");
  const int32_t done = w.counters.intern(e.name + ".slices_done");
  std::vector<std::vector<Step>> slice_steps(threads);
  for (size_t fi = 0; fi < plan.size(); ++fi) {
    main.steps.push_back(gen::run(e.input_ns + e.main_ns));
    main.steps.push_back(gen::advance(go));
    main.steps.push_back(gen::wait_progress(done, static_cast<int64_t>(fi + 1) * threads));
    main.steps.push_back(gen::mark(main.frames_mark));
    for (int s = 0; s < threads; ++s) {
      const int first = s * e.mb_rows / threads, last = (s + 1) * e.mb_rows / threads;
      Time cost = 0;
      for (int y = first; y < last; ++y) cost += costs.next(plan[fi]);
      auto& st = slice_steps[s];
      st.push_back(gen::wait_progress(go, static_cast<int64_t>(fi + 1)));
      if (cost > 0) st.push_back(gen::run(cost));
      st.push_back(gen::advance(done));
    }
  }
  for (int s = 0; s < threads; ++s)
    gen::add_task(w, gen::one_shot(fmt::format("{}-slice{}", e.name, s), 1,
                                   std::move(slice_steps[s]), e.frame_nice));
}

// Each frame's program: per row, wait for the references, encode, publish (reference
// frames every row, the others once, at their end).
std::vector<std::vector<Step>> frame_programs(const Encoder& e, const std::vector<Frame>& plan,
                                              const std::vector<int32_t>& rows_done,
                                              RowCosts& costs) {
  std::vector<std::vector<Step>> programs(plan.size());
  for (size_t fi = 0; fi < plan.size(); ++fi) {
    const Frame& f = plan[fi];
    auto& st = programs[fi];
    for (int y = 0; y < e.mb_rows; ++y) {
      for (int r : f.refs)
        st.push_back(gen::wait_progress(rows_done[r], std::min(e.mb_rows, y + e.lag)));
      st.push_back(gen::run(costs.next(f)));
      if (f.is_ref) st.push_back(gen::advance(rows_done[fi]));
    }
    if (!f.is_ref) st.push_back(gen::advance(rows_done[fi], e.mb_rows));
  }
  return programs;
}

// Frame threads: a new one per frame (their task indices, to fork), or a pool of
// `threads` persistent ones that take frames round-robin as `started` counts them.
std::vector<int32_t> add_frame_threads(const Encoder& e, std::vector<std::vector<Step>> programs,
                                       int32_t started, Workload& w) {
  std::vector<int32_t> frame_task(programs.size(), -1);
  if (e.pool) {
    for (int t = 0; t < e.threads; ++t) {
      std::vector<Step> st;
      for (size_t fi = static_cast<size_t>(t); fi < programs.size();
           fi += static_cast<size_t>(e.threads)) {
        st.push_back(gen::wait_progress(started, static_cast<int64_t>(fi + 1)));
        st.insert(st.end(), programs[fi].begin(), programs[fi].end());
      }
      gen::add_task(
          w, gen::one_shot(fmt::format("{}-worker{}", e.name, t), 1, std::move(st), e.frame_nice));
    }
  } else {
    for (size_t fi = 0; fi < programs.size(); ++fi)
      frame_task[fi] = gen::add_task(w, gen::one_shot(fmt::format("{}-frame{}", e.name, fi), 0,
                                                      std::move(programs[fi]), e.frame_nice));
  }
  return frame_task;
}

// The lookahead's FIFOs: frames pushed in, decisions out, decisions taken by the main thread.
struct Lookahead {
  int32_t pushed, decided, consumed;
};

// The lookahead thread: analyse each pushed frame, at most sync_lookahead decisions ahead
// of the main thread.
void add_lookahead(const Encoder& e, int frames, const Lookahead& la, Workload& w) {
  std::vector<Step> st;
  for (int j = 0; j < frames; ++j) {
    st.push_back(gen::wait_progress(la.pushed, j + 1));
    if (e.lookahead_ns > 0) st.push_back(gen::run(e.lookahead_ns));
    st.push_back(gen::advance(la.decided));
    if (j + 1 - e.sync_lookahead > 0)
      st.push_back(gen::wait_progress(la.consumed, j + 1 - e.sync_lookahead));
  }
  gen::add_task(w, gen::one_shot(e.name + "-lookahead", 1, std::move(st)));
}

// Frame threads: the main thread, per frame, has the input read by a helper thread, takes
// the lookahead's decision (or makes it), joins the frame that last used the next thread
// context, and starts the frame; at the end it joins those still in flight.
void encode_with_frame_threads(const Encoder& e, const std::vector<Frame>& plan, RowCosts& costs,
                               Main& main, Workload& w) {
  std::vector<int32_t> rows_done(plan.size());
  for (size_t fi = 0; fi < plan.size(); ++fi)
    rows_done[fi] = w.counters.intern(fmt::format("{}.frame{}.rows", e.name, fi));
  std::vector<std::vector<Step>> programs = frame_programs(e, plan, rows_done, costs);
  const int32_t started = w.counters.intern(e.name + ".frames_started");
  const std::vector<int32_t> frame_task = add_frame_threads(e, std::move(programs), started, w);
  // The per-frame input thread (x264's CLI reads the next frame in a helper thread).
  const int32_t input_done = w.counters.intern(e.name + ".input_read");
  const int32_t input_task = gen::add_task(
      w, gen::one_shot(e.name + "-input", 0, {gen::run(e.input_ns), gen::advance(input_done)}));
  int64_t inputs = 0;
  auto read_input = [&] {
    main.steps.push_back(gen::fork(input_task));
    main.steps.push_back(gen::wait_progress(input_done, ++inputs));
  };
  const Lookahead la{w.counters.intern(e.name + ".lookahead_in"),
                     w.counters.intern(e.name + ".lookahead_out"),
                     w.counters.intern(e.name + ".lookahead_taken")};
  const int frames = static_cast<int>(plan.size());
  if (e.sync_lookahead > 0) {
    add_lookahead(e, frames, la, w);
    for (int j = 0; j < std::min(frames, e.sync_lookahead); ++j) {  // the encoder's delay
      read_input();
      main.steps.push_back(gen::advance(la.pushed));
    }
  }
  auto join = [&](int fi) {
    main.steps.push_back(gen::wait_progress(rows_done[static_cast<size_t>(fi)], e.mb_rows));
    main.steps.push_back(gen::mark(main.frames_mark));
  };
  for (int fi = 0; fi < frames; ++fi) {
    if (e.sync_lookahead > 0) {
      if (fi + e.sync_lookahead < frames) {
        read_input();
        main.steps.push_back(gen::advance(la.pushed));
      }
      main.steps.push_back(gen::wait_progress(la.decided, fi + 1));
      main.steps.push_back(gen::advance(la.consumed));
      main.steps.push_back(gen::run(e.main_ns));
    } else {
      read_input();
      main.steps.push_back(gen::run(e.main_ns + e.lookahead_ns));
    }
    if (fi >= e.threads) join(fi - e.threads);
    main.steps.push_back(e.pool ? gen::advance(started) : gen::fork(frame_task[fi]));
  }
  for (int fi = std::max(0, frames - e.threads); fi < frames; ++fi) join(fi);
}

void generate(const X264Params& p, const GeneratorContext& ctx, Workload& w) {
  const Encoder e = configure(p, ctx.machine.cpus);
  const std::vector<Frame> plan = frame_plan(p.frames, e.bframes, e.ref, p.keyint);
  RowCosts costs(e, plan, p.jitter, ctx.seed);
  Main main{{}, w.marks.intern("frames")};
  const int32_t main_index = gen::add_task(w, TaskSpec{});  // filled in at the end
  if (e.threads == 1)
    encode_serially(e, plan, costs, main);
  else if (e.sliced)
    encode_sliced(e, plan, costs, main, w);
  else
    encode_with_frame_threads(e, plan, costs, main, w);
  w.tasks[main_index] = gen::one_shot(e.name, 1, std::move(main.steps));
  const SchedPolicy policy = policy_of(p.policy);
  for (size_t i = static_cast<size_t>(main_index); i < w.tasks.size(); ++i)
    w.tasks[i].sched.policy = policy;
}

}  // namespace

int x264_row_lag(int height, int threads, int me_range) {
  return row_lag(height, threads, me_range);
}

GeneratorInfo x264_generator() {
  return gen::declare<X264Params>(
      "x264", "x264 of 2009: frame threads, lookahead, sliced threads (E1-E3)", generate, validate);
}

}  // namespace schedlab
