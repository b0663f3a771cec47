/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the passes share: fresh names, which expressions have effects, a
 * rewriting traversal of a statement's own expressions, literals, the types
 * of library calls, and the parts of a program with the AD level of their
 * values.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"
#include "mir/dataflow/flow-graph.h"

G_BEGIN_DECLS

/* ---- fresh names ---- */

/* Names "<prefix>_sym<N>__" with N above every N such a name of the
 * program already has, as stanc's Gensym numbers them. */
typedef struct {
  guint next;
} PassNames;

void        pass_names_init   (PassNames *names, const MirProgram *program);
const char *pass_names_fresh  (PassNames *names, const char *prefix);   /* interned */
/* Whether `name` is such a name: a variable of the passes, which no other
 * part than the one it was made in reads. */
gboolean    pass_is_temporary (const char *name);

/* ---- effects ---- */

/* Which user-defined functions have no effect: they (and every function
 * they call) never print, reject, stop, draw random numbers or touch the
 * target, and none of them is recursive. */
typedef struct {
  GHashTable *pure;   /* interned name -> itself */
} PassEffects;

void     pass_effects_init   (PassEffects *fx, const MirProgram *program);
void     pass_effects_clear  (PassEffects *fx);
/* Whether evaluating `e` may have an effect besides failing: an _rng,
 * _lp or _jacobian call, a user-defined function that may have one, or a
 * compiler function that reads, writes, checks or prints. */
gboolean pass_expr_has_effects (const MirExpr *e, const PassEffects *fx);
/* Whether `e` may be evaluated more times, or fewer, or elsewhere, with
 * the same value: no effects and no target(). */
gboolean pass_expr_is_movable  (const MirExpr *e, const PassEffects *fx);
/* Variables, literals and promotions of them: nothing to compute, nothing
 * that can fail. */
gboolean pass_expr_is_trivial  (const MirExpr *e);
/* Whether an expression reads variable `name`. */
gboolean pass_expr_reads       (const MirExpr *e, const char *name);
/* Whether running the statement itself (not the statements nested in it)
 * has an effect that shows when a run fails: a print, reject or
 * fatal_error, a draw, a user function with effects. Code motion moves no
 * computation across such a statement, so that a computation that fails
 * still fails before, or after, the same effects. */
gboolean pass_stmt_has_effects (const MirStmt *s, const PassEffects *fx);
/* Whether a function call is one of a compiler function with an effect. */
gboolean pass_internal_has_effects (MirInternal fn);

/* ---- rewriting a statement's own expressions ---- */

/* Called on an expression before its children: return a replacement (the
 * old node is then freed and the replacement is not visited) or NULL to
 * go on into the children. `conditional` says whether the expression is
 * evaluated only sometimes when its statement runs (a branch of ?:, the
 * right of && or ||). */
typedef MirExpr *(*PassRewrite) (const MirExpr *e, gboolean conditional, gpointer user_data);

/* Rewrites the expressions `s` holds itself (not those of nested
 * statements), in evaluation order: what a statement reads. The variable
 * named by FnCheck__ and FnWriteParam__ stays as it is. */
void pass_rewrite_stmt_exprs (MirStmt *s, PassRewrite f, gpointer user_data);
/* The same on one expression slot. */
void pass_rewrite_expr       (MirExpr **slot, PassRewrite f, gpointer user_data);

/* Calls `visit` on every statement of the tree in `*slot` after its
 * children, with the slot holding it, so that it may replace it. */
typedef void (*PassStmtVisit) (MirStmt **slot, gpointer user_data);
void pass_map_stmt_post (MirStmt **slot, PassStmtVisit visit, gpointer user_data);
/* The same, parents before children (a replacement is then visited). */
void pass_map_stmt_pre  (MirStmt **slot, PassStmtVisit visit, gpointer user_data);
/* Applies pass_map_stmt_post to every statement of the parts (and the
 * function bodies when `functions`). */
void pass_map_program_post (MirProgram *p, gboolean functions, PassStmtVisit visit,
                            gpointer user_data);

/* The statement list of a block, profile or statement list (NULL for
 * other statements). */
GPtrArray *pass_stmt_list (MirStmt *s);
/* Renames every read of, write to and declaration of the variables in
 * `renames` (interned name -> interned name) in `s`. */
void       pass_rename_vars (MirStmt *s, GHashTable *renames);
/* Replaces every read of a variable in `subst` (interned name ->
 * const MirExpr*) by a copy of its expression, taking the read's span. */
void       pass_subst_vars  (MirStmt *s, GHashTable *subst);
/* Whether `s` or a statement in it assigns or declares `name`. */
gboolean   pass_stmt_writes (const MirStmt *s, const char *name);
/* Whether `s` holds a break or continue that would leave a loop around it
 * (one not inside a loop of its own). */
gboolean   pass_stmt_breaks_out (const MirStmt *s);
/* Whether `s` holds a return statement. */
gboolean   pass_stmt_returns (const MirStmt *s);
/* Whether any statement in `s` declares a variable directly in the list
 * of `s` (looking through statement lists). */
gboolean   pass_list_declares (const GPtrArray *stmts);
/* A statement list (not a scope) holding the given statements. */
MirStmt   *pass_slist_of (const TildeSpan *span, MirStmt *first, ...) G_GNUC_NULL_TERMINATED;

/* ---- literals and types ---- */

MirExpr   *pass_int_lit   (const TildeSpan *span, gint64 value);
MirExpr   *pass_real_lit  (const TildeSpan *span, double value);
/* The number a literal (or a promoted literal) stands for. */
gboolean   pass_lit_value (const MirExpr *e, double *value);
gboolean   pass_is_number (const MirExpr *e, double value);
/* The type of a call of library function or operator function `name`
 * ("Plus__") with these arguments, and the signature chosen, or NULL when
 * no signature fits. */
const TildeType *pass_call_type (const char *name, GPtrArray *args, const TildeType **signature);
/* `e` promoted to `to` when its type differs (as lowering promotes). */
MirExpr   *pass_promote   (MirExpr *e, const TildeType *to);
/* Sets the AD level of every expression, lvalue and declaration in `s`
 * to data (code moved into a part that has no autodiff values). */
void       pass_make_data (MirStmt *s);
void       pass_make_expr_data (MirExpr *e);
/* Raises the AD level of each expression of `s` (its own, not those of
 * nested statements) that holds an autodiff value to autodiff, so that
 * after an autodiff expression took the place of a data variable no data
 * expression is computed from autodiff values. Int values, draws and
 * compiler reads keep their levels. */
void       pass_raise_ad  (MirStmt *s);

/* ---- program parts ---- */

/* Calls `run` once for each part and each function body with its flow
 * graph and every statement in it (nested ones included) that the pass
 * may rewrite. With `after_data` the graph of a part other than
 * prepare_data starts with prepare_data, so that what transformed data
 * hold at its end reaches the part (no other part can change them). */
typedef void (*PassGraphRun) (MirFlowGraph *graph, GPtrArray *stmts, TildeAdLevel part_ad,
                              gpointer user_data);
void pass_foreach_graph (MirProgram *p, gboolean after_data, PassGraphRun run,
                         gpointer user_data);
/* The same, skipping the graphs for which `wanted`, given the statements
 * the graph would be built from (in order), says there is nothing to do. */
typedef gboolean (*PassGraphWanted) (GPtrArray *roots, gpointer user_data);
void pass_foreach_graph_wanted (MirProgram *p, gboolean after_data, PassGraphWanted wanted,
                                PassGraphRun run, gpointer user_data);
/* Per node of `graph`: whether control can reach it from the entry (new
 * array). Facts of "must" analyses hold vacuously elsewhere. */
gboolean *pass_reachable (const MirFlowGraph *graph);

/* The AD level values have in a part: autodiff in log_prob and
 * transform_inits, data in prepare_data and generate_quantities. */
TildeAdLevel pass_part_ad (MirPart part);

G_END_DECLS
