/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A prepared model's statements run by OpenCL kernels (engine/gpu).
 *
 * tilde_model_use_device works out, from the model's MIR, which GLM
 * statements of log_prob read a design matrix living on the device, and
 * which reductions of elementwise expressions read only vectors living
 * there (gpu/plan.h), copies their data there once, builds their kernels
 * and switches those statements to them. Evaluating such a statement sends
 * alpha and beta, gets back the value and the sums its partials come
 * from, and records one reduction node on the tape, as the CPU density
 * does. On anything the kernel does not cover at that evaluation (a
 * non-finite value, a vector alpha, no autodiff argument, no rows) the
 * statement runs as compiled for the CPU, so values, gradients and error
 * messages are the CPU path's.
 */
#pragma once

#include <glib.h>

#include "runtime/model.h"
#include "gpu/context.h"

G_BEGIN_DECLS

/* Runs the GLM and elementwise statements over device data on `ctx`'s
 * device. With `use_opencl` the design matrices and vectors of those
 * statements go to the device even without `@gpu` when they have
 * TILDE_GPU_AUTO_MIN_ELEMENTS elements or more. A statement whose data the device cannot take (out of memory,
 * a kernel that does not build) stays on the CPU with a
 * TILDE_DIAG_WARNING in `diagnostics` (may be NULL). Returns how many
 * statements run on the device. Call it once, before evaluating. */
guint tilde_model_use_device (TildeModel *model, TildeGpuContext *ctx, gboolean use_opencl,
                              GPtrArray *diagnostics);

/* How many statements of the model run on a device. */
guint tilde_model_device_statements (const TildeModel *model);
/* How many statement evaluations the kernels made (the others fell back to
 * the CPU path). */
guint tilde_model_device_runs (const TildeModel *model);

/* The statements whose kernel failed while evaluating since the last call
 * (the device lost, out of its memory): a TildeDiagnostic warning each,
 * placed at the statement, which runs on the CPU from then on. A new
 * array, empty when none; safe while other threads evaluate. */
GPtrArray *tilde_model_take_device_failures (TildeModel *model);

G_END_DECLS
