/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * AD levels (forward, may): the least set of variables that must hold
 * autodiff values (`var` in the generated C++) because their values depend
 * on parameters, the analysis behind the Stan compiler's
 * `Optimize.optimize_ad_levels`.
 *
 * A fact is the set of variables that may hold an autodiff value at a
 * point. An expression is autodiff when it reads such a variable, reads the
 * target, calls an _lp function, or reads a parameter (FnReadParam in
 * log_prob); values of int type never are. x = e and declarations with a
 * value add x when e is autodiff; a whole assignment of a data value, a
 * declaration of a data variable (parameters re-read as data in
 * generate_quantities) and a declaration of a local without a value remove
 * it (a declaration of an initial variable, such as a parameter, keeps
 * it); x[i] = e only adds.
 *
 * A variable must be declared autodiff when it is in the fact after any
 * node: mir_ad_levels_variables.
 */
#pragma once

#include "mir/mir.h"
#include "mir/dataflow/effects.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

typedef struct {
  MirSetFacts *facts;
  MirEffects  *effects;
} MirAdLevels;

/* `initial`: the autodiff variables at entry (parameters, a function's
 * autodiff arguments). */
MirAdLevels *mir_ad_levels           (MirFlowGraph *graph, const char *const *initial,
                                      gboolean record);
/* A program part, starting from the parameters in log_prob and from
 * nothing in the other parts (where parameters are data). */
MirAdLevels *mir_ad_levels_of_part   (const MirProgram *program, MirPart part);
/* A function body, starting from its arguments not declared `data` whose
 * types can hold autodiff values. */
MirAdLevels *mir_ad_levels_of_function (const MirFunDef *fun);
void         mir_ad_levels_free      (MirAdLevels *ad);

/* The variables that hold an autodiff value somewhere (NULL-terminated,
 * interned; free the array only). */
const char **mir_ad_levels_variables (const MirAdLevels *ad);
/* The AD level of `e` evaluated just before `node`. */
TildeAdLevel mir_ad_levels_of_expr   (const MirAdLevels *ad, guint node, const MirExpr *e);

G_END_DECLS
