// x264 of September 2009 as a workload (docs/workloads/x264.md): frame threads that encode
// one macroblock row at a time and wait on their reference frames' progress, a main thread
// that starts frames round-robin and joins the oldest in flight, the CLI's one-frame input
// read-ahead, the threaded lookahead with its FIFOs, and sliced threads (December 2009).
//
// Source: mirror/x264 at 8e67a586e02672ef7faf001bae1813200f8fb730 (2009-09-14, r1259; the
// seed's e553a4c is not in that history, and nothing between r1259 and r1272 touches
// threading but the lookahead's waits, e0920d6f). Cited below as "@8e67a586 file:line".
// - frame threads: a new pthread per frame (encoder.c:1810-1815), which first calls
//   x264_lower_thread_priority(10) = nice(10) when a sync lookahead is on
//   (encoder.c:1522-1523, common/osdep.h:227-245); the main thread forks frame k, then
//   joins the oldest context's frame k+1-threads (encoder.c:1596-1603, 1812, 1833).
// - row waits: before row y a frame waits until each reference has published
//   min(rows, y + K) rows, K = (mv_range_thread + 24) / 16 (analyse.c:372-384,
//   encoder.c:644-665); reference frames publish every row by a condition-variable
//   broadcast that wakes every waiter of that frame, each re-checking its own target
//   (frame.c:919-933, encoder.c:1170-1173); non-reference B frames publish nothing (the
//   main thread joins them).
// - the main thread per call of x264_encoder_encode (encoder.c:1585-1835): copy the
//   picture, build the lowres planes and AQ if any analysis needs them (812-817,
//   1640-1649), push it to the lookahead (blocking on a full FIFO), return without
//   encoding for the first slicetype_length + sync_lookahead frames (798-807, 1654), take
//   a decided mini-GOP (waiting on the lookahead, or deciding inline without one), its
//   serial work, fork, join. The CLI reads frame 0 itself and each next frame in a new
//   helper thread joined at the next read (x264.c:1018-1032, muxers.c:481-525).
// - the lookahead thread (sync_lookahead > 0, threads > 1; lookahead.c:91-163): decides a
//   mini-GOP (bframes + 1 frames) once more than slicetype_length frames wait.
// - sliced threads (tune zerolatency, 6f221210 of 2009-12-07): one persistent thread per
//   slice of rows, all started together per frame, the main thread waiting for all.
//
// Assumptions, not measurements (docs/workloads/x264.md): per-row weights I 0.6, P 1.0,
// B 0.7 normalised to the calibration; +-10 % uniform row jitter; the main thread's
// serial work 3 % of a frame; lowres + AQ and the slice-type decisions as shares of a
// frame per preset (kPresets); reading a 4CIF frame 100 us (scaled by area); veryfast's
// single-thread speed (60 fps on 4CIF); a fixed B-frame pattern for b-adapt; all
// broadcast waiters woken at once (glibc requeues them onto the mutex); mv_range 512.
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
  int ref, bframes, b_adapt, me_range, rc_lookahead;
  bool mbtree, scenecut;
  double lowres_share;    // main thread, per input frame: lowres planes and AQ (assumed)
  double decision_share;  // slice-type decisions, per frame decided (assumed)
};

// The presets as x264.c Parse() sets them @8e67a586 x264.c:568-660 over the defaults of
// common.c:39-150 (medium; there is no x264_param_default_preset in that tree): ref,
// bframes, b-adapt (0 none, 1 fast, 2 trellis), me_range, rc-lookahead, mbtree, scenecut.
// ultrafast keeps rc-lookahead 40 but, without mbtree, never uses it. fps: E1's
// single-thread calibration (veryfast's 60 an assumption); the two shares are
// assumptions that add up to the 1/5/10/10 % lookahead share of the earlier model.
constexpr Preset kPresets[] = {
    {"ultrafast", 130.76, 1, 0, 0, 16, 40, false, false, 0.005, 0.005},
    {"veryfast", 60.0, 1, 3, 1, 16, 40, false, true, 0.02, 0.03},
    {"medium", 20.01, 3, 3, 1, 16, 40, true, true, 0.02, 0.08},
    {"veryslow", 1.90, 16, 8, 2, 24, 60, true, true, 0.02, 0.08},
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
constexpr int kLookaheadMax = 250;         // X264_LOOKAHEAD_MAX @8e67a586 common/common.h
constexpr int kNiceAuto = 20;              // frame_nice "auto" (outside the nice range)

#define X264_PARAMS(X)                                                                             \
  X(std::string, preset, "medium", params::one_of(preset_names()), "x264 r1259 (2009-09-14)",      \
    "a row of the preset table: ref, B frames, b-adapt, motion range, lookahead, speed")           \
  X(std::string, tune, "none", params::one_of({"zerolatency", "none"}), "x264 (2009-12)",          \
    "zerolatency: sliced threads, no lookahead, no B frames unless bframes is given")              \
  X(std::string, ratecontrol, "crf", params::one_of({"crf", "abr", "cqp"}), "x264 r1259",          \
    "crf (the default), abr (-B), cqp (--qp): cqp alone needs no lowres planes")                   \
  X(int, threads, 0, params::range(1, 128).or_word("auto", 0), "x264 r1259",                       \
    "encoder threads; auto: 1.5 per CPU for frames, 1 per CPU (rows / 4 at most) for slices")      \
  X(int, frames, 600, params::range(1, 1'000'000), "E1: soccer_4cif", "frames to encode")          \
  X(int, width, 704, params::range(16, 16384), "E1: 4CIF", "picture width in pixels")              \
  X(int, height, 576, params::range(16, 16384), "E1: 4CIF", "picture height in pixels")            \
  X(int, bframes, -1, params::range(0, 16).or_word("auto", -1), "x264 --bframes",                  \
    "B frames between anchors; auto: the preset's, 0 with zerolatency")                            \
  X(int, ref, -1, params::range(1, 16).or_word("auto", -1), "x264 --ref",                          \
    "reference frames of a P frame; auto: the preset's")                                           \
  X(int, sync_lookahead, -1, params::range(0, 250).or_word("auto", -1), "x264 r1246",              \
    "lookahead thread's buffer, at least threads + bframes; auto: threads + bframes; 0: none")     \
  X(int, keyint, 250, params::range(1, 100'000), "x264 --keyint", "an I frame every n frames")     \
  X(std::string, style, "thread-per-frame", params::one_of({"thread-per-frame", "pool"}),          \
    "x264 2007 to mid 2010; pool after", "a new thread per frame, or persistent ones")             \
  X(int, frame_nice, kNiceAuto, params::range(-20, 19).or_word("auto", kNiceAuto), "x264 r1247",   \
    "nice of the frame (or slice) threads; auto: 10 with a sync lookahead, else 0")                \
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
// display order) followed by the B frames displayed before it. B frames are not
// references (b_bframe_pyramid 0 @8e67a586 common.c:78, encoder.c:1719-1732).
struct Plan {
  std::vector<Frame> frames;
  std::vector<int> group_end;  // per coded frame: the end of its mini-GOP (frames decided)
};

Plan frame_plan(int frames, int bframes, int ref, int keyint) {
  Plan plan;
  std::vector<int> refs_so_far;  // coded indices of reference frames, oldest first
  plan.frames.push_back(Frame{'I', true, {}});
  plan.group_end.push_back(1);
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
    const int anchor_coded = static_cast<int>(plan.frames.size());
    plan.frames.push_back(anchor);
    refs_so_far.push_back(anchor_coded);
    for (int b = 0; b < group; ++b)
      plan.frames.push_back(Frame{'B', false, {previous_anchor, anchor_coded}});
    plan.group_end.resize(plan.frames.size(), anchor_coded + group + 1);
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

// The encoder as configured: the automatic settings resolved on this machine as
// x264_validate_parameters() and x264_encoder_open() resolve them, and the costs at
// capacity 1024, scaled from 4CIF by area.
struct Encoder {
  const Preset* preset;
  std::string name;
  bool sliced, pool, lowres;
  int threads, bframes, ref, sync_lookahead, mb_rows, mb_cols, frame_nice;
  int slicetype_length;                // frames the lookahead keeps beyond the mini-GOP it decides
  int delay;                           // input frames read before the first frame is encoded
  int ifbuf_max, next_max, ofbuf_max;  // the lookahead's FIFOs (lookahead.c:144-146)
  int lag;                             // rows a frame stays behind its references (mv_range_thread)
  Time main_ns, lowres_ns, decision_ns, input_ns;
  double encode_ns;  // a frame's encoding work, its rows together
};

Encoder configure(const X264Params& p, int ncpu) {
  Encoder e;
  const Preset& pr = preset_named(p.preset);
  e.preset = &pr;
  e.name = p.name;
  e.sliced = p.tune == "zerolatency";
  e.pool = p.style == "pool";
  e.mb_rows = (p.height + 15) / 16;
  e.mb_cols = (p.width + 15) / 16;
  int threads = p.threads;
  // x264_threads_auto: 1.5 per CPU (@8e67a586 encoder.c:367-369; no cap by height until
  // 9140ee1f of 2015); sliced threads one per CPU (cde39046), rows / 4 at most (6f221210).
  if (threads == 0) threads = e.sliced ? std::min(ncpu, std::max(1, e.mb_rows / 4)) : ncpu * 3 / 2;
  e.threads = std::clamp(threads, 1, 128);
  // zerolatency turns B frames off unless --bframes is given too (E3's variants).
  e.bframes = p.bframes >= 0 ? p.bframes : e.sliced ? 0 : pr.bframes;
  e.ref = p.ref > 0 ? p.ref : pr.ref;
  // @8e67a586 encoder.c:523-526: a non-zero sync lookahead (auto is -1) is clipped to
  // [threads + bframes, 250]; none with one thread (or sliced threads, x264.c of 6f221210).
  e.sync_lookahead = p.sync_lookahead == 0
                         ? 0
                         : std::clamp(p.sync_lookahead, e.threads + e.bframes, kLookaheadMax);
  if (e.threads == 1 || e.sliced) e.sync_lookahead = 0;
  // encoder.c:1522-1523: each frame thread lowers itself by 10 when a sync lookahead is on.
  e.frame_nice = p.frame_nice != kNiceAuto           ? p.frame_nice
                 : e.sync_lookahead > 0 && !e.sliced ? 10
                                                     : 0;
  e.lag = row_lag(p.height, e.threads, pr.me_range);
  // encoder.c:798-807: the slice-type window and the encoder's delay.
  const bool mbtree = pr.mbtree && !e.sliced;  // zerolatency: rc-lookahead 0, no mbtree
  const int b_adapt = e.bframes > 0 ? pr.b_adapt : 0;
  e.slicetype_length = b_adapt == 2 ? std::max(e.bframes, 3) * 4 : e.bframes;
  if (mbtree) e.slicetype_length = std::max(e.slicetype_length, pr.rc_lookahead);
  const int i_delay =
      std::min(e.slicetype_length + e.threads - 1, kLookaheadMax) + e.sync_lookahead;
  e.delay = e.threads > 1 ? i_delay + 1 - e.threads : 0;
  e.ifbuf_max = e.sync_lookahead + 3;
  e.next_max = e.ofbuf_max = i_delay + 3;
  // encoder.c:812-817: lowres planes for any analysis or a rate control but CQP; without
  // them (ultrafast with --qp) the slice-type decision does nothing (slicetype.c:877-897).
  const bool scenecut = pr.scenecut && !e.sliced;
  e.lowres = p.ratecontrol != "cqp" || b_adapt > 0 || scenecut || mbtree;

  const double area = static_cast<double>(e.mb_rows * e.mb_cols) / k4cifMacroblocks;
  const double frame_ns = 1e9 / pr.fps_4cif * area;
  e.main_ns = static_cast<Time>(frame_ns * kMainShare);
  e.lowres_ns = e.lowres ? static_cast<Time>(frame_ns * pr.lowres_share) : 0;
  e.decision_ns = e.lowres ? static_cast<Time>(frame_ns * pr.decision_share) : 0;
  e.input_ns = static_cast<Time>(static_cast<double>(kInputRead4cifNs) * area);
  e.encode_ns =
      frame_ns - static_cast<double>(e.main_ns + e.lowres_ns + e.decision_ns + e.input_ns);
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

// One thread: everything in the calling thread, frame after frame (the decisions' cost
// spread over the frames they decide).
void encode_serially(const Encoder& e, const Plan& plan, RowCosts& costs, Main& main) {
  for (const Frame& f : plan.frames) {
    Time encode = 0;
    for (int y = 0; y < e.mb_rows; ++y) encode += costs.next(f);
    main.steps.push_back(gen::run(e.input_ns + e.lowres_ns + e.decision_ns + e.main_ns + encode));
    main.steps.push_back(gen::mark(main.frames_mark));
  }
}

// Sliced threads: per frame the main thread starts every slice and waits for all.
void encode_sliced(const Encoder& e, const Plan& plan, RowCosts& costs, Main& main, Workload& w) {
  const int threads = e.threads;
  const int32_t go = w.counters.intern(e.name + ".slices_start");
  const int32_t done = w.counters.intern(e.name + ".slices_done");
  std::vector<std::vector<Step>> slice_steps(threads);
  for (size_t fi = 0; fi < plan.frames.size(); ++fi) {
    main.steps.push_back(gen::run(e.input_ns + e.lowres_ns + e.decision_ns + e.main_ns));
    main.steps.push_back(gen::advance(go));
    main.steps.push_back(gen::wait_progress(done, static_cast<int64_t>(fi + 1) * threads));
    main.steps.push_back(gen::mark(main.frames_mark));
    for (int s = 0; s < threads; ++s) {
      const int first = s * e.mb_rows / threads, last = (s + 1) * e.mb_rows / threads;
      Time cost = 0;
      for (int y = first; y < last; ++y) cost += costs.next(plan.frames[fi]);
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

// Each frame's program: per row, wait for the references (a condition variable every
// published row of that reference broadcasts), encode, publish (reference frames every
// row; the others once, at their end, for the main thread's join only).
std::vector<std::vector<Step>> frame_programs(const Encoder& e, const Plan& plan,
                                              const std::vector<int32_t>& rows_done,
                                              RowCosts& costs) {
  std::vector<std::vector<Step>> programs(plan.frames.size());
  for (size_t fi = 0; fi < plan.frames.size(); ++fi) {
    const Frame& f = plan.frames[fi];
    auto& st = programs[fi];
    for (int y = 0; y < e.mb_rows; ++y) {
      for (int r : f.refs)
        st.push_back(
            gen::wait_progress(rows_done[r], std::min(e.mb_rows, y + e.lag), /*recheck=*/true));
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

// The lookahead's FIFOs as counters of frames: pushed by the main thread (into ifbuf),
// decided by the lookahead (into ofbuf), taken by the main thread (out of ofbuf).
struct Lookahead {
  int32_t pushed, decided, taken;
};

// x264_lookahead_thread(): decide the next mini-GOP once more than slicetype_length frames
// wait in `next` (or the input has ended), waiting for room in ofbuf before moving it.
void add_lookahead(const Encoder& e, const Plan& plan, const Lookahead& la, Workload& w) {
  const int frames = static_cast<int>(plan.frames.size());
  std::vector<Step> st;
  for (int start = 0; start < frames; start = plan.group_end[static_cast<size_t>(start)]) {
    const int end = plan.group_end[static_cast<size_t>(start)];
    st.push_back(gen::wait_progress(la.pushed, std::min(frames, start + e.slicetype_length + 1)));
    if (e.decision_ns > 0) st.push_back(gen::run(e.decision_ns * (end - start)));
    if (end - e.ofbuf_max > 0) st.push_back(gen::wait_progress(la.taken, end - e.ofbuf_max));
    st.push_back(gen::advance(la.decided, end - start));
  }
  gen::add_task(w, gen::one_shot(e.name + "-lookahead", 1, std::move(st)));
}

// Frame threads: the main thread's calls of x264_encoder_encode, one per input frame and
// then one per delayed frame: read (the next read starts in a helper), copy, lowres and
// AQ, push; past the delay take the mini-GOP (or decide it), the serial work, fork the
// frame, join the oldest context's frame. At the end it joins those still in flight.
void encode_with_frame_threads(const Encoder& e, const Plan& plan, RowCosts& costs, Main& main,
                               Workload& w) {
  const int frames = static_cast<int>(plan.frames.size());
  std::vector<int32_t> rows_done(plan.frames.size());
  for (size_t fi = 0; fi < plan.frames.size(); ++fi)
    rows_done[fi] = w.counters.intern(fmt::format("{}.frame{}.rows", e.name, fi));
  std::vector<std::vector<Step>> programs = frame_programs(e, plan, rows_done, costs);
  const int32_t started = w.counters.intern(e.name + ".frames_started");
  const std::vector<int32_t> frame_task = add_frame_threads(e, std::move(programs), started, w);
  // read_frame_thread(): frame 0 in the main thread; frame i+1 in a new helper thread
  // started once frame i is taken, joined when frame i+1 is wanted.
  const int32_t input_done = w.counters.intern(e.name + ".input_read");
  const int32_t input_task = gen::add_task(
      w, gen::one_shot(e.name + "-input", 0, {gen::run(e.input_ns), gen::advance(input_done)}));
  const Lookahead la{w.counters.intern(e.name + ".lookahead_in"),
                     w.counters.intern(e.name + ".lookahead_out"),
                     w.counters.intern(e.name + ".lookahead_taken")};
  const bool threaded_lookahead = e.sync_lookahead > 0;
  if (threaded_lookahead) add_lookahead(e, plan, la, w);
  auto join = [&](int fi) {
    main.steps.push_back(gen::wait_progress(rows_done[static_cast<size_t>(fi)], e.mb_rows));
    main.steps.push_back(gen::mark(main.frames_mark));
  };
  for (int call = 0; call < frames + e.delay; ++call) {
    if (call < frames) {
      if (call == 0) {
        main.steps.push_back(gen::run(e.input_ns));
      } else {
        main.steps.push_back(gen::wait_progress(input_done, call));
      }
      if (call + 1 < frames) main.steps.push_back(gen::fork(input_task));
      if (e.lowres_ns > 0) main.steps.push_back(gen::run(e.lowres_ns));
      // x264_synch_frame_list_push() blocks while ifbuf is full; the lookahead drains it
      // into `next` as long as that has room.
      const int room = e.ifbuf_max + e.next_max;
      if (threaded_lookahead && call + 1 - room > 0)
        main.steps.push_back(gen::wait_progress(la.decided, call + 1 - room));
      if (threaded_lookahead) main.steps.push_back(gen::advance(la.pushed));
    }
    const int k = call - e.delay;  // the coded frame this call encodes
    if (k < 0) continue;
    const int end = plan.group_end[static_cast<size_t>(k)];
    const bool group_start = k == 0 || plan.group_end[static_cast<size_t>(k - 1)] != end;
    if (group_start) {
      if (threaded_lookahead) {  // x264_lookahead_get_frames(): wait for ofbuf, take it
        main.steps.push_back(gen::wait_progress(la.decided, end));
        main.steps.push_back(gen::advance(la.taken, end - k));
      } else if (e.decision_ns > 0) {  // x264_slicetype_decide() inline
        main.steps.push_back(gen::run(e.decision_ns * (end - k)));
      }
    }
    main.steps.push_back(gen::run(e.main_ns));
    main.steps.push_back(e.pool ? gen::advance(started)
                                : gen::fork(frame_task[static_cast<size_t>(k)]));
    if (k + 1 - e.threads >= 0) join(k + 1 - e.threads);
  }
  for (int fi = std::max(0, frames + 1 - e.threads); fi < frames; ++fi) join(fi);
}

void generate(const X264Params& p, const GeneratorContext& ctx, Workload& w) {
  const Encoder e = configure(p, ctx.machine.cpus);
  const Plan plan = frame_plan(p.frames, e.bframes, e.ref, p.keyint);
  RowCosts costs(e, plan.frames, p.jitter, ctx.seed);
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
