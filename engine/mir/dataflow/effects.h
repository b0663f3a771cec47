/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What each node of a flow graph reads and writes, over a numbering of the
 * variables the graph mentions. Every analysis builds its gen and kill sets
 * from these.
 *
 * A node's reads and writes are those of the expressions it holds itself
 * (a condition, loop bounds, a right-hand side, lvalue indices, declaration
 * sizes), never those of the statements nested in it. Function names used
 * as values (reduce_sum(f, ...)) are not variables. `target` is a variable:
 * `target +=`, `jacobian +=` and calls of _lp and _jacobian functions read
 * and write it, `target()` reads it.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"
#include "mir/dataflow/bitset.h"
#include "mir/dataflow/flow-graph.h"

G_BEGIN_DECLS

#define MIR_TARGET_VARIABLE "target"

typedef struct {
  GPtrArray   *names;        /* interned names, by number; NULL-terminated */
  /* private: number + 1 by name, open addressing on the interned pointer */
  const char **keys;
  guint       *numbers;
  guint        mask;
  guint        null_number;
} MirVarIndex;

MirVarIndex *mir_var_index_new      (void);
void         mir_var_index_free     (MirVarIndex *index);
/* The number of `name`, added when new. */
guint        mir_var_index_add      (MirVarIndex *index, const char *name);
/* The number of `name`, or MIR_FLOW_NONE. */
guint        mir_var_index_lookup   (const MirVarIndex *index, const char *name);
guint        mir_var_index_size     (const MirVarIndex *index);
const char  *mir_var_index_name     (const MirVarIndex *index, guint number);
/* The names by number, NULL-terminated (owned by the index). */
const char *const *mir_var_index_names (const MirVarIndex *index);
/* A set of all the names in `names` (NULL-terminated, may be NULL) that
 * the index knows. */
MirBitset   *mir_var_index_set_of   (const MirVarIndex *index, const char *const *names);

typedef struct {
  MirVarIndex *vars;
  /* per node, read-only (empty sets are one set shared by the nodes:
   * mir_effects_empty); entry and exit have empty sets */
  MirBitset  **reads;
  MirBitset  **writes;     /* given a value, in whole or in part */
  MirBitset  **kills;      /* whose previous value is gone: x = e, declarations,
                            * loop variables */
  MirBitset  **declares;   /* declarations and loop variables */
  MirBitset  **scope_ends; /* block and profile ends: the variables declared
                            * directly in them, which die there */
  guint        n_nodes;
  /* private */
  gpointer     block;      /* the sets */
  const MirBitset *empty;  /* the one empty set, in the block */
} MirEffects;

/* The effects of every node; variables are numbered in order of first
 * appearance, then the names in `extra` (may be NULL) not seen. */
MirEffects *mir_effects_new  (const MirFlowGraph *graph, const char *const *extra);
void        mir_effects_free (MirEffects *effects);
/* The one set that every empty set of `effects` is: a set at this address
 * needs no work. */
const MirBitset *mir_effects_empty (const MirEffects *effects);

/* Whether a variable expression names a variable (not a function). */
gboolean    mir_expr_is_variable  (const MirExpr *e);
/* Calls `visit` on every variable expression in `e`, outermost first. */
void        mir_expr_foreach_variable (const MirExpr *e, MirExprVisitor visit,
                                       gpointer user_data);
/* Calls `visit` on every variable expression the statement's own
 * expressions hold (see above). */
void        mir_stmt_foreach_variable (const MirStmt *s, MirExprVisitor visit,
                                       gpointer user_data);
/* Adds the variables `e` reads to `set` (names the index does not know
 * are skipped). */
void        mir_expr_add_reads    (const MirExpr *e, const MirVarIndex *vars, MirBitset *set);
/* Whether a call's value depends on the sizes of its arguments only
 * (FnLength__, size, rows, cols, num_elements, dims): sizes are fixed by
 * the data. */
gboolean    mir_fun_is_size_query (const MirFun *fun);
/* Like mir_expr_add_reads, leaving out what only size queries read. */
void        mir_expr_add_value_reads (const MirExpr *e, const MirVarIndex *vars,
                                      MirBitset *set);
/* Whether evaluating `e` adds to the target (an _lp or _jacobian call). */
gboolean    mir_expr_increments_target (const MirExpr *e);
/* Whether a call is an _lp or _jacobian function's. */
gboolean    mir_fun_increments_target  (const MirFun *fun);

G_END_DECLS
