/* trace.dat through libtracecmd, in C (see trace_dat_read.c). */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calls emit(ctx, text, length) with the records as ftrace text; -1 if the file is refused. */
int schedlab_trace_dat_print(const char* path, void (*emit)(void*, const char*, size_t), void* ctx);

#ifdef __cplusplus
}
#endif
