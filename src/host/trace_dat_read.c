/* The libtracecmd side of trace_dat.cpp, in C: trace-cmd's headers are C, not C++.
 * Prints every record of a trace.dat (the top buffer and each instance, merged in time
 * order) as one ftrace text line through `emit`, by the event formats the file carries
 * and without plugins (as `trace-cmd report -N`), with nanosecond timestamps; a
 * "CPU:N [LOST M EVENTS]" line where the ring buffer dropped events before a record. */
#include "host/trace_dat_read.h"

#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

struct printer {
  void (*emit)(void *, const char *, size_t);
  void *ctx;
};

static int print_record(struct tracecmd_input *handle, struct tep_record *record, int cpu,
                        void *data) {
  const struct printer *p = data;
  struct tep_handle *tep = tracecmd_get_tep(handle);
  struct trace_seq seq;
  trace_seq_init(&seq);
  if (record->missed_events > 0)
    trace_seq_printf(&seq, "CPU:%d [LOST %lld EVENTS]\n", cpu, record->missed_events);
  else if (record->missed_events < 0)
    trace_seq_printf(&seq, "CPU:%d [EVENTS DROPPED]\n", cpu);
  tep_print_event(tep, &seq, record, "%16s-%-7d", TEP_PRINT_COMM, TEP_PRINT_PID);
  trace_seq_printf(&seq, " [%03d] %llu.%09llu: ", cpu, record->ts / 1000000000ULL,
                   record->ts % 1000000000ULL);
  tep_print_event(tep, &seq, record, "%s: %s\n", TEP_PRINT_NAME, TEP_PRINT_INFO);
  trace_seq_terminate(&seq);
  p->emit(p->ctx, seq.buffer, (size_t)seq.len);
  trace_seq_destroy(&seq);
  return 0;
}

int schedlab_trace_dat_print(const char *path, void (*emit)(void *, const char *, size_t),
                             void *ctx) {
  struct printer p = {emit, ctx};
  struct tracecmd_input *top;
  struct tracecmd_input **handles;
  int instances, n = 1, i;
  tracecmd_set_loglevel(TEP_LOG_NONE);
  top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
  if (!top) return -1;
  instances = tracecmd_buffer_instances(top);
  handles = calloc((size_t)instances + 1, sizeof *handles);
  if (!handles) {
    tracecmd_close(top);
    return -1;
  }
  handles[0] = top;
  for (i = 0; i < instances; ++i) {
    struct tracecmd_input *h = tracecmd_buffer_instance_handle(top, i);
    if (h) handles[n++] = h;
  }
  tracecmd_iterate_events_multi(handles, n, print_record, &p);
  for (i = n - 1; i > 0; --i) tracecmd_close(handles[i]);
  tracecmd_close(top);
  free(handles);
  return 0;
}
