/* The few libtracefs calls the recorder makes, behind plain C functions: libtracefs's own
   header is C that a C++ compiler refuses (it converts int to an enum in inline functions),
   so only tracefs_shim.c includes it. Each returns 0 (or a pointer) on success and -1 (or
   NULL) with errno set on failure, as libtracefs does. */
#ifndef SCHEDLAB_TRACEFS_SHIM_H
#define SCHEDLAB_TRACEFS_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tracefs_instance;

int schedlab_tracefs_set_dir(const char* tracing_dir);
/* Creates instances/NAME; *is_new is 0 when it existed already. */
struct tracefs_instance* schedlab_tracefs_create(const char* name, int* is_new);
/* The instance's folder into buf (NUL-terminated), or -1. */
int schedlab_tracefs_dir(struct tracefs_instance* instance, char* buf, size_t size);
int schedlab_tracefs_write(struct tracefs_instance* instance, const char* file, const char* value);
int schedlab_tracefs_tracing(struct tracefs_instance* instance, int on);
int schedlab_tracefs_buffer_kb(struct tracefs_instance* instance, size_t kb);
int schedlab_tracefs_enable(struct tracefs_instance* instance, const char* system,
                            const char* event);
/* Removes the instance's folder (its buffers go with it) and frees the handle. */
int schedlab_tracefs_destroy(struct tracefs_instance* instance);
/* Frees the handle only. */
void schedlab_tracefs_free(struct tracefs_instance* instance);

#ifdef __cplusplus
}
#endif

#endif
