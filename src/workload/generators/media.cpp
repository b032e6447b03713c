// The media player test of the 2009 fairness posts (WORKLOADS.md §4, a reconstruction):
// mplayer playing a movie of `movie_s` seconds (360) beside amarok scanning a collection
// of `songs` (12,000) backed by mysqld, all on `cpus`.
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
// Every cost and period here is an assumption with a documented default: WORKLOADS.md
// gives only "decode ≈ a few ms per frame on a timer" and a mysql-backed scanner. The
// 20 ms period is about one sound-card period of 1024 frames at 48 kHz (21.3 ms),
// rounded so that a 25 fps frame is two periods.
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/generators.h"

namespace schedlab {

void generate_mediaplayer(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int64_t movie_s = 360, fps = 25, songs = 12'000;
  Time audio_period_ns = 20 * kNsPerMs, audio_ns = kNsPerMs / 2, decode_ns = 4 * kNsPerMs;
  Time song_ns = 3 * kNsPerMs, query_ns = kNsPerMs, io_ns = 2 * kNsPerMs, movie_delay_ns = 0;
  int nice = 0;
  std::optional<std::vector<int>> cpus;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "movie_s")
      movie_s = r.integer_in(v, key, 1, 86'400);
    else if (k == "fps")
      fps = r.integer_in(v, key, 1, 1000);
    else if (k == "audio_period_ns")
      audio_period_ns = r.duration(v, key, 1);
    else if (k == "audio_ns")
      audio_ns = r.duration(v, key, 1);
    else if (k == "decode_ns")
      decode_ns = r.duration(v, key, 1);
    else if (k == "movie_delay_ns")
      movie_delay_ns = r.duration(v, key, 0);
    else if (k == "songs")
      songs = r.integer_in(v, key, 0, 10'000'000);
    else if (k == "song_ns")
      song_ns = r.duration(v, key, 1);
    else if (k == "query_ns")
      query_ns = r.duration(v, key, 1);
    else if (k == "io_ns")
      io_ns = r.duration(v, key, 0);
    else if (k == "nice")
      nice = static_cast<int>(r.integer_in(v, key, -20, 19));
    else if (k == "cpus")
      cpus = read_generator_cpus(ctx, v, key);
    else
      r.fail(key,
             "unknown key (generator, movie_s, fps, audio_period_ns, audio_ns, decode_ns, "
             "movie_delay_ns, songs, song_ns, query_ns, io_ns, nice, cpus)");
  }
  const Time frame_ns = kNsPerSec / fps;
  if (frame_ns % audio_period_ns != 0)
    r.fail(ctx.key + ".audio_period_ns",
           fmt::format("a frame ({} ns at {} fps) must be a whole number of audio periods",
                       frame_ns, fps));
  const int64_t periods_per_frame = frame_ns / audio_period_ns;
  const int64_t frames = movie_s * fps;

  const int32_t timer = w.timers.intern("mplayer.audio_clock");
  w.timer_unique.resize(w.timers.size());
  const int32_t frame_clock = w.semaphores.intern("mplayer.frame_clock");
  const Step wait_for_card{Op::kTimer, audio_period_ns, 0, timer, -1, false};
  const int32_t frames_mark = w.marks.intern("frames");
  const int32_t done_mark = w.marks.intern("movie_done");

  TaskSpec audio = gen::one_shot("mplayer.audio", 1, {}, nice);
  audio.phases.front().name = "play";
  audio.phases.front().loop = frames;
  for (int64_t p = 0; p < periods_per_frame; ++p) {
    audio.phases.front().steps.push_back(gen::run(audio_ns));
    audio.phases.front().steps.push_back(wait_for_card);
  }
  audio.phases.front().steps.push_back(Step{Op::kSemPost, 0, 1, frame_clock, -1, false, false});
  Phase end;
  end.name = "drain";
  end.steps = {wait_for_card, gen::mark(done_mark)};
  audio.phases.push_back(std::move(end));
  audio.cpus = cpus;
  audio.delay_ns = movie_delay_ns;
  gen::add_task(w, std::move(audio));

  TaskSpec video =
      gen::one_shot("mplayer.video", 1,
                    {gen::run(decode_ns), Step{Op::kSemWait, 0, 1, frame_clock, -1, false, false},
                     gen::mark(frames_mark)},
                    nice);
  video.phases.front().loop = frames;
  video.cpus = cpus;
  video.delay_ns = movie_delay_ns;
  gen::add_task(w, std::move(video));

  if (songs == 0) return;
  const int32_t request = w.semaphores.intern("mysqld.requests");
  const int32_t reply = w.semaphores.intern("mysqld.replies");
  const int32_t song_mark = w.marks.intern("songs");
  const int32_t loaded = w.marks.intern("collection_loaded");
  std::vector<Step> scan = {gen::run(song_ns), Step{Op::kSemPost, 0, 1, request, -1, false, true},
                            Step{Op::kSemWait, 0, 1, reply, -1, false, false},
                            gen::mark(song_mark)};
  if (io_ns > 0) scan.push_back(gen::sleep_for(io_ns));
  TaskSpec scanner = gen::one_shot("amarok.scanner", 1, std::move(scan));
  scanner.phases.front().loop = songs;
  Phase finished;
  finished.name = "loaded";
  finished.steps = {gen::mark(loaded)};
  scanner.phases.push_back(std::move(finished));
  scanner.cpus = cpus;
  gen::add_task(w, std::move(scanner));
  TaskSpec mysqld =
      gen::one_shot("mysqld", 1,
                    {Step{Op::kSemWait, 0, 1, request, -1, false, false}, gen::run(query_ns),
                     Step{Op::kSemPost, 0, 1, reply, -1, false, true}});
  mysqld.phases.front().loop = songs;
  mysqld.cpus = cpus;
  gen::add_task(w, std::move(mysqld));
}

}  // namespace schedlab
