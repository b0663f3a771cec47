/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An OpenCL context and command queue on one device, shared by every
 * kernel of the models prepared on it (reference-counted), and the
 * programs built there: compiled once per source and device, their
 * binaries cached on disk under $XDG_CACHE_HOME/tilde/opencl, keyed by a
 * hash of the source, the device's name and its driver's version.
 */
#pragma once

#include <glib.h>

#include "gpu/device.h"

G_BEGIN_DECLS

typedef struct TildeGpuContext TildeGpuContext;

/* Receives each generated kernel source before it is built (--debug-opencl). */
typedef void (*TildeGpuSourceFunc) (const char *what, const char *source, gpointer user_data);

TildeGpuContext *tilde_gpu_context_new   (const TildeGpuDevice *device, GError **error);
TildeGpuContext *tilde_gpu_context_ref   (TildeGpuContext *ctx);
void             tilde_gpu_context_unref (TildeGpuContext *ctx);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeGpuContext, tilde_gpu_context_unref)

const TildeGpuDevice *tilde_gpu_context_device (const TildeGpuContext *ctx);
void             tilde_gpu_context_set_source_func (TildeGpuContext *ctx, TildeGpuSourceFunc func,
                                                    gpointer user_data);
/* Where program binaries are cached (NULL: the user cache directory);
 * tests point it at a directory of their own. */
void             tilde_gpu_context_set_cache_dir (TildeGpuContext *ctx, const char *dir);

/* The built program for `source` (a cl_program the caller releases),
 * from the cache when the cache holds it; `*from_cache` (may be NULL)
 * says which. NULL with TILDE_GPU_ERROR_BUILD and the compiler's log. */
gpointer         tilde_gpu_context_build (TildeGpuContext *ctx, const char *what,
                                          const char *source, gboolean *from_cache,
                                          GError **error);

/* Releases a program tilde_gpu_context_build returned. */
void             tilde_gpu_program_release (gpointer program);

/* The cl_context and cl_command_queue. Kernels are enqueued with the
 * context's lock held: chains may evaluate on several threads. */
gpointer         tilde_gpu_context_cl_context (const TildeGpuContext *ctx);
gpointer         tilde_gpu_context_queue      (const TildeGpuContext *ctx);
void             tilde_gpu_context_lock       (TildeGpuContext *ctx);
void             tilde_gpu_context_unlock     (TildeGpuContext *ctx);

/* For tests of what a device lost while running does: after `runs` more
 * kernel runs, every run fails with CL_DEVICE_NOT_AVAILABLE (G_MAXUINT,
 * the default: never). */
void             tilde_gpu_context_fail_after (TildeGpuContext *ctx, guint runs);
/* With the lock held, before a run: CL_SUCCESS, or the failure above. */
int              tilde_gpu_context_run_allowed (TildeGpuContext *ctx);

/* The bytes the kernels' launches copied between host and device since the
 * context was made (their data, copied once when a kernel is made, are not
 * counted): what goes over the bus per evaluation, summed. Counted with
 * the lock held, after a launch's copies succeed. */
void             tilde_gpu_context_count_copies (TildeGpuContext *ctx, gsize to_device,
                                                 gsize to_host);
void             tilde_gpu_context_copied (TildeGpuContext *ctx, guint64 *to_device,
                                           guint64 *to_host);

/* A GError for an OpenCL failure of `what`: out of memory codes become
 * TILDE_GPU_ERROR_MEMORY. */
void             tilde_gpu_set_cl_error (GError **error, int code, const char *what);

G_END_DECLS
