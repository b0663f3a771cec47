/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The device the GPU tests run on, and models put on it. */
#pragma once

#include <glib.h>

#include "gpu/context.h"
#include "runtime/model.h"

G_BEGIN_DECLS

/* A context on the first device with double precision, its binary cache in
 * a directory of the test's own; NULL after g_test_skip when there is none. */
TildeGpuContext *gpu_test_context (void);

/* Evaluations a call below makes on the device. */
#define GPU_TEST_THETAS 6
#define GPU_TEST_THREAD_RUNS (GPU_TEST_THETAS + 4 * 40)

/* Whether four threads evaluating `dev` (n unconstrained parameters) at
 * once, 40 times each at thetas drawn from `r` in orders of their own, get
 * the log density and gradient of one thread alone, to the bit. */
gboolean         gpu_test_threads_agree (TildeModel *dev, GRand *r, gsize n);

G_END_DECLS
