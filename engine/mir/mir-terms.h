/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Which `target +=` terms are the prior and which the likelihood.
 *
 * A term's variate is the first argument of the density it calls (the left
 * of `~`, the `y` of `target += foo_lpdf(y | ...)`, the sliced argument of
 * `reduce_sum(foo_lpdf, y, ...)`). A term whose variate depends on no
 * parameter is likelihood, any other prior. A `target +=` of anything but
 * one density is likelihood when some density inside it has such a
 * variate (`log_mix(p, normal_lpdf(y | ...), ...)`), prior otherwise
 * (`target += -0.5 * square(mu)`). A truncation term takes the role of the
 * `~` it belongs to (the one just before it). Jacobian terms are not
 * classified: they always belong to the prior.
 *
 * Dependence is data flow: a variable depends on the parameters when some
 * assignment gives it a value computed from them (indices of the assigned
 * part included), whatever the order of the statements and whichever
 * branch assigns it; a branch on a parameter does not by itself make what
 * it assigns depend on the parameter. Sizes (size, rows, cols,
 * num_elements, dims) depend on nothing. A user function's value depends
 * on the arguments its return values are computed from.
 *
 * Inside a function a term is classified against the function's
 * arguments: MIR_TERM_BY_ARGUMENTS with the arguments its variate depends
 * on; at each call it is prior when one of them depends on parameters
 * there. (When a term of several densities inside a function has variates
 * that depend on different arguments, it counts as likelihood only when
 * none of them depends on a parameter at the call.) Inlining a function
 * resolves these against the call.
 *
 * Lowering classifies every term (mir_classify_terms) and the passes keep
 * the classification; function inlining classifies again, which gives the
 * terms that were already in place the roles they had.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

/* Sets the role of every `target +=` of log_prob and of the function
 * bodies. */
void        mir_classify_terms   (MirProgram *program);

/* The mark of a statement for the IR viewer: TRUE for `target +=` (its
 * role, and for MIR_TERM_BY_ARGUMENTS the arguments as a mask, bit i for
 * argument i, bit 63 for any argument from the 64th on) and `jacobian +=`
 * (always MIR_TERM_PRIOR); FALSE for any other statement. `args` may be
 * NULL. */
gboolean    mir_stmt_term_role   (const MirStmt *s, MirTermRole *role, guint64 *args);
/* "prior", "likelihood", "by arguments" */
const char *mir_term_role_name   (MirTermRole role);

/* What the expressions of a program part or function depend on: in
 * log_prob, bit 0 stands for the parameters; in a function, bit i for its
 * argument i (bit 63 for any from the 64th on). */
typedef struct MirTermDeps MirTermDeps;

MirTermDeps *mir_term_deps_new     (const MirProgram *program);
void         mir_term_deps_free    (MirTermDeps *deps);
/* The sources `e` depends on, evaluated in `fun` (NULL: in log_prob). */
guint64      mir_term_deps_of_expr (MirTermDeps *deps, const MirFunDef *fun, const MirExpr *e);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MirTermDeps, mir_term_deps_free)

G_END_DECLS
