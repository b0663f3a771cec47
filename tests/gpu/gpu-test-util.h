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

G_END_DECLS
