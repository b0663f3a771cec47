/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Linear algebra kernels shared by the operators and the library. */
#pragma once

#include "runtime/runtime-private.h"

G_BEGIN_DECLS

/* a * b for vectors, row vectors and matrices (row_vector * vector is a
 * real). */
void rt_matmul        (RtCtx *cx, const TildeValue *a, const TildeValue *b, TildeValue *out);
void rt_transpose     (RtCtx *cx, const TildeValue *a, TildeValue *out);
/* a^-1 b and b a^-1 (a square, by LU), with gradients in both */
void rt_mdivide_left  (RtCtx *cx, const TildeValue *a, const TildeValue *b, TildeValue *out);
void rt_mdivide_right (RtCtx *cx, const TildeValue *b, const TildeValue *a, TildeValue *out);
/* The ids of an ad flat value as an array (contiguous ranges listed). */
gint32 *rt_ids        (RtCtx *cx, const TildeValue *v);

G_END_DECLS
