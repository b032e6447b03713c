// x264 of 2009 as a workload (WORKLOADS.md §1): frame threads that encode one macroblock
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
// Assumptions, not measurements (marked ? in WORKLOADS.md): per-row weights I 0.6, P 1.0,
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
#include "workload/generators/generators.h"

namespace schedlab {
namespace {

struct Preset {
  const char* name;
  double fps_4cif;  // single thread on the Q9300 (calibration)
  int ref, bframes, me_range;
  double lookahead_share;
};

// ultrafast: ref 1, no B, dia (merange 16), rc-lookahead 0; medium: ref 3, 3 B, hex 16;
// veryslow: ref 16, 8 B, umh 24 (x264 --fullhelp of 2009).
constexpr Preset kPresets[] = {
    {"ultrafast", 130.76, 1, 0, 16, 0.01},
    {"veryfast", 60.0, 1, 3, 16, 0.05},
    {"medium", 20.01, 3, 3, 16, 0.10},
    {"veryslow", 1.90, 16, 8, 24, 0.10},
};

constexpr double kMainShare = 0.03;
constexpr Time kInputRead4cifNs = 100'000;
constexpr double kWeightI = 0.6, kWeightP = 1.0, kWeightB = 0.7;
constexpr int kMvRange = 512;
constexpr int k4cifMacroblocks = 44 * 36;

struct Params {
  const Preset* preset = &kPresets[2];
  bool zerolatency = false;
  int threads = 0;  // 0: auto
  int frames = 600;
  int width = 704, height = 576;
  int bframes = -1, ref = -1, sync_lookahead = -1, keyint = 250;
  bool pool = false;
  int frame_nice = 0;
  double jitter = 0.1;
  std::string name = "x264";
  SchedPolicy policy = SchedPolicy::kOther;  // schedtool -B runs it all as SCHED_BATCH
};

struct Frame {
  char type = 'P';  // I, P or B, in coded order
  bool is_ref = true;
  std::vector<int> refs;  // coded indices of the frames it waits on
};

Params read_params(const JValue& spec, const GeneratorContext& ctx) {
  const JsonReader& r = ctx.reader;
  Params p;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "preset") {
      const std::string name = r.string(v, key);
      p.preset = nullptr;
      for (const Preset& pr : kPresets)
        if (name == pr.name) p.preset = &pr;
      if (!p.preset)
        r.fail(key, "unknown preset '" + name + "' (ultrafast, veryfast, medium, veryslow)");
    } else if (k == "tune") {
      const std::string tune = r.string(v, key);
      if (tune != "zerolatency" && tune != "none")
        r.fail(key, "unknown tune '" + tune + "' (zerolatency, none)");
      p.zerolatency = tune == "zerolatency";
    } else if (k == "threads") {
      if (v.is_string() && v.string == "auto")
        p.threads = 0;
      else
        p.threads = static_cast<int>(r.integer_in(v, key, 1, 128));
    } else if (k == "frames") {
      p.frames = static_cast<int>(r.integer_in(v, key, 1, 1'000'000));
    } else if (k == "width") {
      p.width = static_cast<int>(r.integer_in(v, key, 16, 16384));
    } else if (k == "height") {
      p.height = static_cast<int>(r.integer_in(v, key, 16, 16384));
    } else if (k == "bframes") {
      p.bframes = static_cast<int>(r.integer_in(v, key, 0, 16));
    } else if (k == "ref") {
      p.ref = static_cast<int>(r.integer_in(v, key, 1, 16));
    } else if (k == "sync_lookahead") {
      if (v.is_string() && v.string == "auto")
        p.sync_lookahead = -1;
      else
        p.sync_lookahead = static_cast<int>(r.integer_in(v, key, 0, 250));
    } else if (k == "keyint") {
      p.keyint = static_cast<int>(r.integer_in(v, key, 1, 100000));
    } else if (k == "style") {
      const std::string style = r.string(v, key);
      if (style != "thread-per-frame" && style != "pool")
        r.fail(key, "unknown style '" + style + "' (thread-per-frame, pool)");
      p.pool = style == "pool";
    } else if (k == "frame_nice") {
      p.frame_nice = static_cast<int>(r.integer_in(v, key, -20, 19));
    } else if (k == "jitter") {
      p.jitter = r.number(v, key);
      if (!(p.jitter >= 0 && p.jitter < 1)) r.fail(key, "must be in [0, 1)");
    } else if (k == "name") {
      p.name = r.string(v, key);
      if (p.name.empty()) r.fail(key, "must not be empty");
    } else if (k == "policy") {
      const std::string policy = r.string(v, key);
      if (policy == "SCHED_OTHER")
        p.policy = SchedPolicy::kOther;
      else if (policy == "SCHED_BATCH")
        p.policy = SchedPolicy::kBatch;
      else if (policy == "SCHED_IDLE")
        p.policy = SchedPolicy::kIdle;
      else
        r.fail(key, "unknown policy '" + policy + "' (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE)");
    } else {
      r.fail(key,
             "unknown key (generator, preset, tune, threads, frames, width, height, bframes, ref, "
             "sync_lookahead, keyint, style, frame_nice, jitter, name, policy)");
    }
  }
  return p;
}

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

}  // namespace

int x264_row_lag(int height, int threads, int me_range) {
  return row_lag(height, threads, me_range);
}

void generate_x264(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const Params p = read_params(spec, ctx);
  const int mb_rows = (p.height + 15) / 16, mb_cols = (p.width + 15) / 16;
  const bool sliced = p.zerolatency;
  const int ncpu = ctx.machine.cpus;
  int threads = p.threads;
  if (threads == 0)  // x264_threads_auto
    threads = sliced ? std::min(ncpu, std::max(1, mb_rows / 4))
                     : std::min(ncpu * 3 / 2, std::max(1, mb_rows / 2));
  threads = std::clamp(threads, 1, 128);
  // zerolatency turns B frames off unless --bframes is given too (E3's variants).
  const int bframes = p.bframes >= 0 ? p.bframes : sliced ? 0 : p.preset->bframes;
  const int ref = p.ref > 0 ? p.ref : p.preset->ref;
  int sync_lookahead = p.sync_lookahead >= 0 ? p.sync_lookahead : bframes + 1;
  if (threads == 1 || sliced) sync_lookahead = 0;

  // Costs at capacity 1024, scaled from 4CIF by area.
  const double area = static_cast<double>(mb_rows * mb_cols) / k4cifMacroblocks;
  const double frame_ns = 1e9 / p.preset->fps_4cif * area;
  const auto main_ns = static_cast<Time>(frame_ns * kMainShare);
  const auto lookahead_ns = static_cast<Time>(frame_ns * p.preset->lookahead_share);
  const auto input_ns = static_cast<Time>(static_cast<double>(kInputRead4cifNs) * area);
  const double encode_ns = frame_ns - static_cast<double>(main_ns + lookahead_ns + input_ns);

  const std::vector<Frame> plan = frame_plan(p.frames, bframes, ref, p.keyint);
  double weight_sum = 0;
  for (const Frame& f : plan)
    weight_sum += f.type == 'I' ? kWeightI : f.type == 'B' ? kWeightB : kWeightP;
  const double weight_mean = weight_sum / static_cast<double>(plan.size());
  Rng rng(ctx.seed ^ 0x78323634ULL);  // "x264"
  auto row_cost = [&](const Frame& f) {
    const double wt = f.type == 'I' ? kWeightI : f.type == 'B' ? kWeightB : kWeightP;
    const double jitter = 1 + p.jitter * (2 * rng.unit() - 1);
    return static_cast<Time>(encode_ns * wt / weight_mean / mb_rows * jitter);
  };

  const std::string& n = p.name;
  const int32_t frames_mark = w.marks.intern("frames");
  Phase main_phase;
  main_phase.name = "main";
  std::vector<Step>& main = main_phase.steps;
  const int32_t main_index = gen::add_task(w, TaskSpec{});  // filled in at the end

  if (threads == 1) {  // no threads at all: everything in the calling thread
    for (const Frame& f : plan) {
      Time encode = 0;
      for (int y = 0; y < mb_rows; ++y) encode += row_cost(f);
      main.push_back(gen::run(input_ns + lookahead_ns + main_ns + encode));
      main.push_back(gen::mark(frames_mark));
    }
  } else if (sliced) {
    const int32_t go = w.counters.intern(n + ".slices_start");
    const int32_t done = w.counters.intern(n + ".slices_done");
    std::vector<std::vector<Step>> slice_steps(threads);
    for (size_t fi = 0; fi < plan.size(); ++fi) {
      main.push_back(gen::run(input_ns + main_ns));
      main.push_back(gen::advance(go));
      main.push_back(gen::wait_progress(done, static_cast<int64_t>(fi + 1) * threads));
      main.push_back(gen::mark(frames_mark));
      for (int s = 0; s < threads; ++s) {
        const int first = s * mb_rows / threads, last = (s + 1) * mb_rows / threads;
        Time cost = 0;
        for (int y = first; y < last; ++y) cost += row_cost(plan[fi]);
        auto& st = slice_steps[s];
        st.push_back(gen::wait_progress(go, static_cast<int64_t>(fi + 1)));
        if (cost > 0) st.push_back(gen::run(cost));
        st.push_back(gen::advance(done));
      }
    }
    for (int s = 0; s < threads; ++s)
      gen::add_task(w, gen::one_shot(fmt::format("{}-slice{}", n, s), 1, std::move(slice_steps[s]),
                                     p.frame_nice));
  } else {
    const int lag = row_lag(p.height, threads, p.preset->me_range);
    std::vector<int32_t> rows_done(plan.size());
    for (size_t fi = 0; fi < plan.size(); ++fi)
      rows_done[fi] = w.counters.intern(fmt::format("{}.frame{}.rows", n, fi));
    // Each frame's program: per row, wait for the references, encode, publish.
    std::vector<std::vector<Step>> frame_steps(plan.size());
    for (size_t fi = 0; fi < plan.size(); ++fi) {
      const Frame& f = plan[fi];
      auto& st = frame_steps[fi];
      for (int y = 0; y < mb_rows; ++y) {
        for (int r : f.refs)
          st.push_back(gen::wait_progress(rows_done[r], std::min(mb_rows, y + lag)));
        st.push_back(gen::run(row_cost(f)));
        if (f.is_ref) st.push_back(gen::advance(rows_done[fi]));
      }
      if (!f.is_ref) st.push_back(gen::advance(rows_done[fi], mb_rows));
    }
    // Frame threads: a new one per frame, or a pool of `threads` persistent ones.
    std::vector<int32_t> frame_task(plan.size(), -1);
    const int32_t started = w.counters.intern(n + ".frames_started");
    if (p.pool) {
      for (int t = 0; t < threads; ++t) {
        std::vector<Step> st;
        for (size_t fi = static_cast<size_t>(t); fi < plan.size();
             fi += static_cast<size_t>(threads)) {
          st.push_back(gen::wait_progress(started, static_cast<int64_t>(fi + 1)));
          st.insert(st.end(), frame_steps[fi].begin(), frame_steps[fi].end());
        }
        gen::add_task(
            w, gen::one_shot(fmt::format("{}-worker{}", n, t), 1, std::move(st), p.frame_nice));
      }
    } else {
      for (size_t fi = 0; fi < plan.size(); ++fi)
        frame_task[fi] = gen::add_task(w, gen::one_shot(fmt::format("{}-frame{}", n, fi), 0,
                                                        std::move(frame_steps[fi]), p.frame_nice));
    }
    // The per-frame input thread (x264's CLI reads the next frame in a helper thread).
    const int32_t input_done = w.counters.intern(n + ".input_read");
    const int32_t input_task = gen::add_task(
        w, gen::one_shot(n + "-input", 0, {gen::run(input_ns), gen::advance(input_done)}));
    int64_t inputs = 0;
    auto read_input = [&] {
      main.push_back(gen::fork(input_task));
      main.push_back(gen::wait_progress(input_done, ++inputs));
    };
    // The lookahead thread and its FIFOs.
    const int32_t pushed = w.counters.intern(n + ".lookahead_in");
    const int32_t decided = w.counters.intern(n + ".lookahead_out");
    const int32_t consumed = w.counters.intern(n + ".lookahead_taken");
    const int frames = static_cast<int>(plan.size());
    if (sync_lookahead > 0) {
      std::vector<Step> la;
      for (int j = 0; j < frames; ++j) {
        la.push_back(gen::wait_progress(pushed, j + 1));
        if (lookahead_ns > 0) la.push_back(gen::run(lookahead_ns));
        la.push_back(gen::advance(decided));
        if (j + 1 - sync_lookahead > 0)
          la.push_back(gen::wait_progress(consumed, j + 1 - sync_lookahead));
      }
      gen::add_task(w, gen::one_shot(n + "-lookahead", 1, std::move(la)));
      for (int j = 0; j < std::min(frames, sync_lookahead); ++j) {  // the encoder's delay
        read_input();
        main.push_back(gen::advance(pushed));
      }
    }
    auto join = [&](size_t fi) {
      main.push_back(gen::wait_progress(rows_done[fi], mb_rows));
      main.push_back(gen::mark(frames_mark));
    };
    for (int fi = 0; fi < frames; ++fi) {
      if (sync_lookahead > 0) {
        if (fi + sync_lookahead < frames) {
          read_input();
          main.push_back(gen::advance(pushed));
        }
        main.push_back(gen::wait_progress(decided, fi + 1));
        main.push_back(gen::advance(consumed));
        main.push_back(gen::run(main_ns));
      } else {
        read_input();
        main.push_back(gen::run(main_ns + lookahead_ns));
      }
      if (fi >= threads) join(static_cast<size_t>(fi - threads));
      if (p.pool)
        main.push_back(gen::advance(started));
      else
        main.push_back(gen::fork(frame_task[fi]));
    }
    for (int fi = std::max(0, frames - threads); fi < frames; ++fi) join(static_cast<size_t>(fi));
  }
  TaskSpec main_task = gen::one_shot(n, 1, {});
  main_task.phases.front() = std::move(main_phase);
  w.tasks[main_index] = std::move(main_task);
  for (size_t i = static_cast<size_t>(main_index); i < w.tasks.size(); ++i)
    w.tasks[i].sched.policy = p.policy;
}

}  // namespace schedlab
