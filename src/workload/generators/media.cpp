// The media player test of the 2009 fairness posts (docs/workloads/mediaplayer.md, a
// reconstruction): mplayer playing a movie of `movie_s` seconds (360) beside amarok scanning a
// collection of `songs` (12,000) backed by mysqld, all on `cpus`.
//
// mplayer: an audio thread feeds the sound card one period of `audio_period_ns` (20 ms)
//   at a time, `audio_ns` (0.5 ms) of decoding each, then sleeps until the card needs
//   the next (an rt-app relative timer: when it is late the card has run dry and the
//   playback clock slips by the lateness, as an ALSA underrun does). Every frame's worth
//   of periods it posts the frame clock; the video thread decodes a frame (`decode_ns`,
//   4 ms), waits for its presentation time on that clock and shows it (mark `frames`).
//   After the last period has played, mark `movie_done`: its first_ms is the wall time
//   to play the movie; ideal is the movie's length plus one audio period.
// amarok: per song the scanner parses tags (`song_ns`, 3 ms), asks mysqld (`query_ns`,
//   1 ms of mysqld's time) in a synchronous round trip and reads the next file
//   (`io_ns`, 2 ms asleep); mark `songs` per song and `collection_loaded` at the end.
//
// Every cost and period here is an assumption with a documented default: the E4 setup
// gives only a movie decoded at a few ms per frame and a mysql-backed scanner
// (docs/workloads/mediaplayer.md). The 20 ms period is about one sound-card period of 1024 frames
// at 48 kHz (21.3 ms), rounded so that a 25 fps frame is two periods.
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

using params::CpuList;

#define MEDIAPLAYER_PARAMS(X)                                                             \
  X(int64_t, movie_s, 360, params::range(1, 86'400), "E4: an exactly 6-minute movie",     \
    "the movie's length in seconds")                                                      \
  X(int64_t, fps, 25, params::range(1, 1000), "assumption", "video frames per second")    \
  X(Time, audio_period_ns, 20 * kNsPerMs, params::duration(),                             \
    "assumption (1024 frames at 48 kHz: 21.3 ms)", "one sound-card period")               \
  X(Time, audio_ns, kNsPerMs / 2, params::duration(), "assumption",                       \
    "CPU to decode one audio period")                                                     \
  X(Time, decode_ns, 4 * kNsPerMs, params::duration(), "assumption",                      \
    "CPU to decode one video frame")                                                      \
  X(Time, movie_delay_ns, 0, params::duration(), "schedlab", "when mplayer starts")       \
  X(int64_t, songs, 12'000, params::range(0, 10'000'000), "E4: a 12,000-song collection", \
    "songs amarok scans; 0: no amarok and no mysqld")                                     \
  X(Time, song_ns, 3 * kNsPerMs, params::duration(), "assumption",                        \
    "amarok's CPU to parse one song's tags")                                              \
  X(Time, query_ns, kNsPerMs, params::duration(), "assumption", "mysqld's CPU per song")  \
  X(Time, io_ns, 2 * kNsPerMs, params::duration(), "assumption",                          \
    "amarok asleep reading the next file")                                                \
  X(int, nice, 0, params::range(-20, 19), "schedlab", "nice level of mplayer's threads")  \
  X(CpuList, cpus, std::nullopt, params::any(), "E4: all on CPU 0",                       \
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
  Phase end;
  end.name = "drain";
  end.steps = {wait_for_card, gen::mark(done_mark)};
  audio.phases.push_back(std::move(end));
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

// amarok's collection scanner and the mysqld that answers it, one round trip per song.
void add_amarok(const MediaplayerParams& p, Workload& w) {
  const int32_t request = w.semaphores.intern("mysqld.requests");
  const int32_t reply = w.semaphores.intern("mysqld.replies");
  const int32_t song_mark = w.marks.intern("songs");
  const int32_t loaded = w.marks.intern("collection_loaded");
  std::vector<Step> scan = {gen::run(p.song_ns), Step{Op::kSemPost, 0, 1, request, -1, false, true},
                            Step{Op::kSemWait, 0, 1, reply, -1, false, false},
                            gen::mark(song_mark)};
  if (p.io_ns > 0) scan.push_back(gen::sleep_for(p.io_ns));
  TaskSpec scanner = gen::one_shot("amarok.scanner", 1, std::move(scan));
  scanner.phases.front().loop = p.songs;
  Phase finished;
  finished.name = "loaded";
  finished.steps = {gen::mark(loaded)};
  scanner.phases.push_back(std::move(finished));
  scanner.cpus = p.cpus;
  gen::add_task(w, std::move(scanner));
  TaskSpec mysqld =
      gen::one_shot("mysqld", 1,
                    {Step{Op::kSemWait, 0, 1, request, -1, false, false}, gen::run(p.query_ns),
                     Step{Op::kSemPost, 0, 1, reply, -1, false, true}});
  mysqld.phases.front().loop = p.songs;
  mysqld.cpus = p.cpus;
  gen::add_task(w, std::move(mysqld));
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
