/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stan's constraining transforms, their log absolute Jacobian determinants
 * and their inverses, so that unconstrained coordinates mean what they mean
 * in Stan (the Stan reference manual, "Constraint transforms"; simplex is
 * the stick-breaking transform).
 *
 * A transform applies to a whole declared value: bounds and offsets
 * elementwise (their arguments broadcast or match the value's shape),
 * vector and matrix transforms to each element of an array in turn.
 * Unconstrained values are read in Stan's serialisation order: array
 * elements one after the other, matrices column-major.
 */
#pragma once

#include "runtime/runtime-private.h"
#include "mir/mir.h"

G_BEGIN_DECLS

/* Unconstrained size of a value of `shape` under `kind`. */
gint32 rt_free_size (MirTransformKind kind, const TildeShape *shape);

/* Constrains the rt_free_size values of `u` (a flat real value, ad or
 * data) into a value of `shape`; `lj` receives log |J| (ad when anything
 * involved is). `a` and `b` are the transform's arguments (NULL when it
 * has none). */
void   rt_constrain (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
                     const TildeShape *shape, const TildeValue *u, TildeValue *out,
                     TildeValue *lj);

/* The unconstrained values of the constrained data value `x`, written to
 * `free` (rt_free_size of x's shape). Fails with a domain error when `x`
 * does not satisfy the constraint. */
void   rt_unconstrain (RtCtx *cx, MirTransformKind kind, const TildeValue *a, const TildeValue *b,
                       const TildeValue *x, double *free);

/* Raises a domain error naming `name` unless `x` satisfies the
 * constraint (the checks of data, transformed parameters and generated
 * quantities). */
void   rt_check_constraint (RtCtx *cx, MirTransformKind kind, const TildeValue *a,
                            const TildeValue *b, const TildeValue *x, const char *name);

G_END_DECLS
