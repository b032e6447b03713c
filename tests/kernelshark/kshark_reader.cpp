#include "kshark_reader.h"

#include <cstdlib>
#include <filesystem>

extern "C" {
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>
#include <libkshark.h>
}

namespace schedlab::test {

KsharkLoad kshark_load(const std::string& trace_dat, bool with_sched_plugin) {
  KsharkLoad out;
  kshark_context* ctx = nullptr;
  if (!kshark_instance(&ctx)) {
    out.error = "kshark_instance failed";
    return out;
  }
  const int sd = kshark_open(ctx, trace_dat.c_str());
  if (sd < 0) {
    out.error = "kshark_open failed: " + std::to_string(sd);
    kshark_free(ctx);
    return out;
  }
  if (with_sched_plugin && std::filesystem::exists(kSchedEventsPlugin) &&
      kshark_register_plugin(ctx, "sched_events", kSchedEventsPlugin) != nullptr)
    out.sched_plugin = kshark_tep_handle_plugins(ctx, sd) > 0;
  kshark_entry** rows = nullptr;
  const ssize_t n = kshark_load_entries(ctx, sd, &rows);
  if (n < 0) out.error = "kshark_load_entries failed: " + std::to_string(n);
  for (ssize_t i = 0; i < n; ++i) {
    char* name = kshark_get_event_name(rows[i]);
    KsharkEntry e{rows[i]->cpu, rows[i]->ts, rows[i]->pid, name ? name : "?", ""};
    free(name);
    if (e.event == "ftrace/print") {
      char* info = kshark_get_info(rows[i]);
      e.info = info ? info : "";
      free(info);
    }
    out.entries.push_back(std::move(e));
    free(rows[i]);
  }
  free(rows);
  kshark_close(ctx, sd);  // runs the plugins' close handlers, frees the stream
  kshark_free(ctx);
  return out;
}

}  // namespace schedlab::test
