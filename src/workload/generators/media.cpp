// The media player test of the 2009 fairness posts (docs/workloads/mediaplayer.md, a
// reconstruction): mplayer playing a movie of `movie_s` seconds (360) beside amarok scanning a
// collection of `songs` (12,000) into its embedded MySQL, all on `cpus`.
//
// mplayer: an audio thread feeds the sound card one period of `audio_period_ns` (20 ms)
//   at a time, `audio_ns` (0.5 ms) of decoding each, then sleeps until the card needs
//   the next (an rt-app relative timer: when it is late the card has run dry and the
//   playback clock slips by the lateness, as an ALSA underrun does). Every frame's worth
//   of periods it posts the frame clock; the video thread decodes a frame (`decode_ns`,
//   4 ms), waits for its presentation time on that clock and shows it (mark `frames`).
//   After the last period has played, mark `movie_done`: its first_ms is the wall time
//   to play the movie; ideal is the movie's length plus one audio period.
// amarok: Amarok 2.2.0's full collection scan (amarok.cpp): its scanner process writes
//   one XML element per directory and per track into a pipe, the GUI thread reads them
//   and wakes the parser thread, which writes each directory's tracks to the MySQL
//   embedded in Amarok's process; mark `songs` per track written, `collection_loaded`
//   after the final copy into the permanent tables.
//
// Every cost and period here is an assumption with a documented default: the E4 setup
// gives only a movie decoded at a few ms per frame and a mysql-backed scan; amarok's
// structure is Amarok 2.2.0's (docs/workloads/mediaplayer.md). The 20 ms period is about one
// sound-card period of 1024 frames at 48 kHz (21.3 ms), rounded so that a 25 fps frame is two
// periods.
#include <fmt/format.h>

#include "workload/generators/amarok.h"
#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

using params::CpuList;

#define MEDIAPLAYER_PARAMS(X)                                                                   \
  X(int64_t, movie_s, 360, params::range(1, 86'400), "E4: an exactly 6-minute movie",           \
    "the movie's length in seconds")                                                            \
  X(int64_t, fps, 25, params::range(1, 1000), "assumption", "video frames per second")          \
  X(Time, audio_period_ns, 20 * kNsPerMs, params::duration(),                                   \
    "assumption (1024 frames at 48 kHz: 21.3 ms)", "one sound-card period")                     \
  X(Time, audio_ns, kNsPerMs / 2, params::duration(), "assumption",                             \
    "CPU to decode one audio period")                                                           \
  X(Time, decode_ns, 4 * kNsPerMs, params::duration(), "assumption",                            \
    "CPU to decode one video frame")                                                            \
  X(Time, movie_delay_ns, 0, params::duration(), "schedlab", "when mplayer starts")             \
  X(int64_t, songs, 12'000, params::range(0, 10'000'000), "E4: a 12,000-song collection",       \
    "tracks amarok 2.2.0 scans; 0: no amarok")                                                  \
  X(int, songs_per_dir, 12, params::range(1, 100'000), "assumption (an album per directory)",   \
    "tracks per directory; the parser writes a directory's rows at the next one's first track") \
  X(int, pipe_lines, 160, params::range(1, 1'000'000),                                          \
    "2.6's 16-page pipe (64 KiB); 400-byte elements an assumption",                             \
    "scanner elements the stdout pipe holds before the scanner's write blocks")                 \
  X(Time, walk_ns, 100'000, params::duration(), "assumption",                                   \
    "scanner: CPU to list one directory in the walk before the tracks")                         \
  X(Time, io_ns, 2 * kNsPerMs, params::duration(), "assumption",                                \
    "scanner: asleep on a track's first read from disk")                                        \
  X(Time, song_ns, 3 * kNsPerMs, params::duration(), "assumption",                              \
    "scanner: CPU per track (its log line, two TagLib parses, the MD5 of 16 KiB, the element)") \
  X(Time, gui_line_ns, 50'000, params::duration(), "assumption",                                \
    "amarok's GUI thread: CPU per element read from the pipe, with its progress event")         \
  X(Time, parse_line_ns, 100'000, params::duration(), "assumption",                             \
    "amarok's parser thread: CPU to parse one element")                                         \
  X(Time, list_ns, 200'000, params::duration(), "assumption",                                   \
    "parser: CPU to list a track's directory and read its file times")                          \
  X(Time, sql_ns, 300'000, params::duration(), "assumption",                                    \
    "parser: CPU per statement on the embedded MySQL (MyISAM)")                                 \
  X(Time, copy_ns, 20'000, params::duration(), "assumption",                                    \
    "parser: CPU per track of the final copy into the permanent tables")                        \
  X(int, nice, 0, params::range(-20, 19), "schedlab", "nice level of mplayer's threads")        \
  X(CpuList, cpus, std::nullopt, params::any(), "E4: all on CPU 0",                             \
    "the CPUs of every task; all: not pinned")
SCHEDLAB_DECLARE_PARAMS(MediaplayerParams, MEDIAPLAYER_PARAMS)

void validate(const MediaplayerParams& p, const GeneratorContext& ctx) {
  if (p.audio_period_ns == 0)
    gen::reject(ctx, &MediaplayerParams::audio_period_ns, "must be positive");
  const Time frame_ns = kNsPerSec / p.fps;
  if (frame_ns % p.audio_period_ns != 0)
    gen::reject(ctx, &MediaplayerParams::audio_period_ns,
                fmt::format("a frame ({} ns at {} fps) must be a whole number of audio periods",
                            frame_ns, p.fps));
  // The final copy is one run of copy_ns per track: it must stay a duration.
  if (p.songs > 0 && p.copy_ns > kMaxDurationNs / p.songs)
    gen::reject(ctx, &MediaplayerParams::copy_ns,
                fmt::format("{} tracks of {} ns exceed the longest duration ({} ns)", p.songs,
                            p.copy_ns, kMaxDurationNs));
}

// mplayer: the audio thread feeds the card period by period and posts the frame clock
// every frame's worth of periods; the video thread decodes and shows a frame per post.
void add_mplayer(const MediaplayerParams& p, Workload& w) {
  const int64_t periods_per_frame = kNsPerSec / p.fps / p.audio_period_ns;
  const int64_t frames = p.movie_s * p.fps;
  const int32_t timer = w.timers.intern("mplayer.audio_clock");
  w.timer_unique.resize(w.timers.size());
  const int32_t frame_clock = w.semaphores.intern("mplayer.frame_clock");
  const Step wait_for_card{Op::kTimer, p.audio_period_ns, 0, timer, -1, false};
  const int32_t frames_mark = w.marks.intern("frames");
  const int32_t done_mark = w.marks.intern("movie_done");

  TaskSpec audio = gen::one_shot("mplayer.audio", 1, {}, p.nice);
  audio.phases.front().name = "play";
  audio.phases.front().loop = frames;
  for (int64_t i = 0; i < periods_per_frame; ++i) {
    audio.phases.front().steps.push_back(gen::run(p.audio_ns));
    audio.phases.front().steps.push_back(wait_for_card);
  }
  audio.phases.front().steps.push_back(Step{Op::kSemPost, 0, 1, frame_clock, -1, false, false});
  audio.phases.push_back(gen::phase("drain", 1, {wait_for_card, gen::mark(done_mark)}));
  audio.cpus = p.cpus;
  audio.delay_ns = p.movie_delay_ns;
  gen::add_task(w, std::move(audio));

  TaskSpec video =
      gen::one_shot("mplayer.video", 1,
                    {gen::run(p.decode_ns), Step{Op::kSemWait, 0, 1, frame_clock, -1, false, false},
                     gen::mark(frames_mark)},
                    p.nice);
  video.phases.front().loop = frames;
  video.cpus = p.cpus;
  video.delay_ns = p.movie_delay_ns;
  gen::add_task(w, std::move(video));
}

void add_amarok(const MediaplayerParams& p, Workload& w) {
  amarok::add_collection_scan(
      amarok::ScanSettings{p.songs, p.songs_per_dir, p.pipe_lines, p.walk_ns, p.io_ns, p.song_ns,
                           p.gui_line_ns, p.parse_line_ns, p.list_ns, p.sql_ns, p.copy_ns, p.cpus},
      w);
}

void generate(const MediaplayerParams& p, const GeneratorContext&, Workload& w) {
  add_mplayer(p, w);
  if (p.songs > 0) add_amarok(p, w);
}

}  // namespace

GeneratorInfo mediaplayer_generator() {
  return gen::declare<MediaplayerParams>(
      "mediaplayer", "mplayer playing a movie beside amarok scanning its collection (E4)", generate,
      validate);
}

}  // namespace schedlab
