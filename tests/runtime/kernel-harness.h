/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Calling library kernels directly, outside a model, for the runtime tests. */
#pragma once

#include "runtime/runtime-private.h"

G_BEGIN_DECLS

typedef struct {
  RtCtx   cx;
  jmp_buf jmp;
} Harness;

Harness   *harness_new  (void);
void       harness_free (Harness *h);
/* Calls a library function; FALSE (message in h->cx.err_msg) on error.
 * drop: as for a _lupdf call under propto. */
gboolean   call         (Harness *h, const char *name, gboolean drop, int n,
                         const TildeValue *args, TildeValue *out);
/* A data value of a flat kind holding x. */
TildeValue vec          (Harness *h, TildeValueKind kind, gint32 rows, gint32 cols, const double *x);

G_END_DECLS
