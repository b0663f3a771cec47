/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Complex values as the evaluator moves them (complex.c): splitting into
 * real and imaginary parts, joining, promotion, indexing and assignment,
 * for data and autodiff values alike. */
#pragma once

#include "runtime/runtime-private.h"

G_BEGIN_DECLS

/* Whether v is complex or an array of complex values. */
gboolean   rt_is_complex       (const TildeValue *v);
/* The real and imaginary parts of v as real values of the same shape
 * (arrays of complex scalars give flat arrays); a real v gives itself and
 * zeros. */
void       rt_complex_split    (RtCtx *cx, const TildeValue *v, TildeValue *re, TildeValue *im);
/* The complex value of the parts (a scalar part broadcasts). */
TildeValue rt_complex_join     (RtCtx *cx, const TildeValue *re, const TildeValue *im);
/* v as complex (unchanged when it is). */
TildeValue rt_complex_promote  (RtCtx *cx, const TildeValue *v);
/* A complex data value as fresh variables. */
TildeValue rt_complex_promote_ad (RtCtx *cx, const TildeValue *v);
/* Element pos of a complex vector or matrix. */
TildeValue rt_complex_element  (RtCtx *cx, const TildeValue *v, gint32 pos);
/* The elements of a complex vector or matrix at pos, as a value of kind. */
TildeValue rt_complex_gather   (RtCtx *cx, const TildeValue *v, const gint32 *pos, gint32 n,
                                TildeValueKind kind, gint32 rows, gint32 cols);
/* t[pos[k]] = rhs[k] (or the scalar rhs) for a complex vector or matrix t. */
void       rt_complex_write    (RtCtx *cx, TildeValue *t, const gint32 *pos, gint32 n,
                                const TildeValue *rhs);

G_END_DECLS
