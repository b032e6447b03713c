/* The libtracecmd side of trace_dat.cpp, in C: trace-cmd's headers are C, not C++.
 * Prints every record of a trace.dat (the top buffer and each instance, merged in time
 * order) as one ftrace text line through `emit` (the tracefs layout with its latency
 * flags), by the event formats the file carries and without plugins (as `trace-cmd
 * report -N`), with nanosecond timestamps; a
 * "CPU:N [LOST M EVENTS]" line where the ring buffer dropped events before a record;
 * first "#P:N", the file's CPU count, as the tracefs text's header states it. */
#include "host/trace_dat_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

struct printer {
  void (*emit)(void *, const char *, size_t);
  void *ctx;
};

/* A trace_marker write of schedlab's trace.dat writer that states the run's span
 * ("schedlab: start", "schedlab: end") becomes the ftrace text's comment
 * "# schedlab: start SECS", which the text parser reads. */
static int print_span(struct tep_handle *tep, struct tep_record *record, struct trace_seq *seq) {
  static const char *const words[] = {"start", "end"};
  struct tep_event *event = tep_find_event_by_record(tep, record);
  struct tep_format_field *field;
  const char *buf;
  size_t i, room;
  if (!event || strcmp(event->system, "ftrace") != 0 || strcmp(event->name, "print") != 0)
    return 0;
  field = tep_find_field(event, "buf");
  if (!field || field->offset >= record->size) return 0;
  buf = (const char *)record->data + field->offset;
  room = (size_t)(record->size - field->offset);
  for (i = 0; i < sizeof words / sizeof words[0]; ++i) {
    char text[32];
    snprintf(text, sizeof text, "schedlab: %s", words[i]);
    if (strnlen(buf, room) == strlen(text) && strcmp(buf, text) == 0) {
      trace_seq_printf(seq, "# schedlab: %s %llu.%09llu\n", words[i], record->ts / 1000000000ULL,
                       record->ts % 1000000000ULL);
      return 1;
    }
  }
  return 0;
}

static int print_record(struct tracecmd_input *handle, struct tep_record *record, int cpu,
                        void *data) {
  const struct printer *p = data;
  struct tep_handle *tep = tracecmd_get_tep(handle);
  struct trace_seq seq;
  trace_seq_init(&seq);
  if (!print_span(tep, record, &seq)) {
    if (record->missed_events > 0)
      trace_seq_printf(&seq, "CPU:%d [LOST %lld EVENTS]\n", cpu, record->missed_events);
    else if (record->missed_events < 0)
      trace_seq_printf(&seq, "CPU:%d [EVENTS DROPPED]\n", cpu);
    tep_print_event(tep, &seq, record, "%16s-%-7d", TEP_PRINT_COMM, TEP_PRINT_PID);
    trace_seq_printf(&seq, " [%03d] ", cpu);
    /* the irq-off, need-resched, hard/soft-irq and preempt-depth columns, which tell a
     * wake-up from interrupt context (a timer's) from one by the running task */
    tep_print_event(tep, &seq, record, "%s", TEP_PRINT_LATENCY);
    trace_seq_printf(&seq, " %llu.%09llu: ", record->ts / 1000000000ULL,
                     record->ts % 1000000000ULL);
    tep_print_event(tep, &seq, record, "%s: %s\n", TEP_PRINT_NAME, TEP_PRINT_INFO);
  }
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
  if (tep_get_cpus(tracecmd_get_tep(top)) > 0) {
    char line[32];
    int len = snprintf(line, sizeof line, "#P:%d\n", tep_get_cpus(tracecmd_get_tep(top)));
    emit(ctx, line, (size_t)len);
  }
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
