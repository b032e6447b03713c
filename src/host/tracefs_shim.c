#include "host/tracefs_shim.h"

#include <string.h>
#include <tracefs.h>

int schedlab_tracefs_set_dir(const char* tracing_dir) {
  char copy[4096];
  if (strlen(tracing_dir) >= sizeof copy) return -1;
  strcpy(copy, tracing_dir); /* libtracefs takes a char* and keeps its own copy */
  return tracefs_set_tracing_dir(copy);
}

struct tracefs_instance* schedlab_tracefs_create(const char* name, int* is_new) {
  struct tracefs_instance* instance = tracefs_instance_create(name);
  if (instance) *is_new = tracefs_instance_is_new(instance) ? 1 : 0;
  return instance;
}

int schedlab_tracefs_dir(struct tracefs_instance* instance, char* buf, size_t size) {
  char* dir = tracefs_instance_get_dir(instance);
  if (!dir) return -1;
  const int fits = strlen(dir) < size;
  if (fits) strcpy(buf, dir);
  tracefs_put_tracing_file(dir);
  return fits ? 0 : -1;
}

int schedlab_tracefs_write(struct tracefs_instance* instance, const char* file, const char* value) {
  return tracefs_instance_file_write(instance, file, value) < 0 ? -1 : 0;
}

int schedlab_tracefs_tracing(struct tracefs_instance* instance, int on) {
  return on ? tracefs_trace_on(instance) : tracefs_trace_off(instance);
}

int schedlab_tracefs_buffer_kb(struct tracefs_instance* instance, size_t kb) {
  return tracefs_instance_set_buffer_size(instance, kb, -1);
}

int schedlab_tracefs_enable(struct tracefs_instance* instance, const char* system,
                            const char* event) {
  return tracefs_event_enable(instance, system, event);
}

int schedlab_tracefs_destroy(struct tracefs_instance* instance) {
  const int rc = tracefs_instance_destroy(instance);
  tracefs_instance_free(instance);
  return rc;
}

void schedlab_tracefs_free(struct tracefs_instance* instance) {
  tracefs_instance_free(instance);
}
