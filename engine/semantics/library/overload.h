/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Overload resolution, for built-in and user-defined functions alike, and the
 * Stan compiler's explanations when no signature fits.
 *
 * A call is checked against candidate function types (tilde_type_function).
 * An argument fits a parameter when its type promotes to the parameter's
 * type (tilde_type_promotion_cost) and, for a `data` parameter, the argument
 * is data. Of the fitting candidates the one needing the fewest promotions
 * wins; a tie for the fewest is an ambiguity. As in stanc, candidates are
 * considered in the order of their return types (int before real), and the
 * texts below reproduce stanc's wording and line breaking.
 */
#pragma once

#include <glib.h>

#include "semantics/types.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_MATCH_UNIQUE,
  TILDE_MATCH_AMBIGUOUS,
  TILDE_MATCH_NONE,
} TildeMatchStatus;

typedef struct {
  TildeMatchStatus status;
  guint index;                  /* UNIQUE: the chosen candidate */
  const TildeType *function;    /* UNIQUE: its function type */
  const TildeType *return_type; /* UNIQUE: what the call evaluates to */
  guint cost;                   /* UNIQUE: number of promotions applied */
  /* NONE from tilde_overload_resolve_variadic: the 0-based argument stanc
   * points its message at (-1: the whole call) */
  int blame;
} TildeMatch;

/* Fills `match` (may be NULL) and returns its status. */
TildeMatchStatus tilde_overload_resolve (const TildeType *const *candidates,
                                         guint n_candidates,
                                         const TildeArgType *args, guint n_args,
                                         TildeMatch *match);

/* When no candidate fits: stanc's
 *   Ill-typed arguments supplied to function 'name':
 *   (real, vector)
 *   Available signatures:
 *   (real, real) => real
 *     The second argument must be real but got vector
 *   ...
 * listing the five closest candidates. No trailing newline. */
char *tilde_overload_mismatch_message (const char *name,
                                       const TildeType *const *candidates,
                                       guint n_candidates,
                                       const TildeArgType *args, guint n_args);

/* When several candidates tie: stanc's "No unique minimum promotion found
 * for function 'name'. ..." listing the tied signatures. */
char *tilde_overload_ambiguity_message (const char *name,
                                        const TildeType *const *candidates,
                                        guint n_candidates,
                                        const TildeArgType *args, guint n_args);

/* A higher-order call with a variable argument list (the ODE, DAE and
 * algebraic solvers): args[0] must be a function whose leading parameters
 * are `fn_args` (and whose kind is plain, or a density when `allow_lpdf`),
 * returning `fn_return`; then come the `control` arguments, then one argument
 * for each further parameter of that function. On failure `*message` (when
 * not NULL) receives stanc's explanation. */
TildeMatchStatus tilde_overload_resolve_variadic (const char *name,
                                                  const TildeArgType *control,
                                                  guint n_control,
                                                  const TildeType *return_type,
                                                  const TildeArgType *fn_args,
                                                  guint n_fn_args,
                                                  const TildeType *fn_return,
                                                  gboolean allow_lpdf,
                                                  const TildeArgType *args,
                                                  guint n_args,
                                                  TildeMatch *match,
                                                  char **message);

/* Promotions needed to pass `args` to parameters `params`, or -1 when they
 * do not fit (types or data-only qualifiers). */
int tilde_overload_arguments_cost (const TildeArgType *params, guint n_params,
                                   const TildeArgType *args, guint n_args);

/* Levenshtein distance, for "did you mean" suggestions. */
guint tilde_edit_distance (const char *a, const char *b);

G_END_DECLS
