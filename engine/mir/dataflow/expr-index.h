/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The expressions of a flow graph that an expression analysis (available,
 * anticipated, postponable and used expressions) tracks, numbered, with
 * the variables each reads.
 *
 * Candidates are the compound subexpressions whose value depends on
 * nothing but the variables they read and which have no effect: operators
 * and library functions (not _rng, _lp or _jacobian ones, nor target()),
 * indexing, the conditional operator, && and ||, promotions, tuple
 * projections, and the array, row-vector and tuple constructors.
 * Variables and literals are not candidates (there is nothing to save),
 * nor user-defined functions, which may print or reject.
 *
 * Expressions are identified structurally (mir_expr_equal, which ignores
 * source spans), so `a * b` computed in two statements is one expression.
 * A node "uses" the candidates it always evaluates: the right operand of
 * && and || and the branches of ?: are evaluated only sometimes.
 */
#pragma once

#include "mir/dataflow/effects.h"

G_BEGIN_DECLS

/* private */
typedef struct {
  gconstpointer *keys;
  guint         *values;
  guint         *hashes;
  guint          mask;
  guint          n;
} MirExprTable;

typedef struct {
  GPtrArray   *exprs;      /* const MirExpr*, one representative each */
  GPtrArray   *labels;     /* their text; NULL-terminated */
  MirBitset  **reads;      /* per expression: the variables it reads */
  /* per node: the candidates it evaluates every time it runs */
  MirBitset  **uses;
  /* per node: the candidates whose value its writes change */
  MirBitset  **kills;
  guint        n_nodes;
  /* private: numbers (+ 1) by expression and by occurrence */
  MirExprTable by_expr;
  MirExprTable by_occurrence;
  TildeArena  *arena;      /* the sets and their arrays */
} MirExprIndex;

MirExprIndex *mir_expr_index_new    (const MirFlowGraph *graph, const MirEffects *effects);
/* The same without the texts: `labels` holds NULLs (for a pass, which
 * never shows its facts). */
MirExprIndex *mir_expr_index_new_unlabelled (const MirFlowGraph *graph,
                                             const MirEffects *effects);
void          mir_expr_index_free   (MirExprIndex *index);
guint         mir_expr_index_size   (const MirExprIndex *index);
/* The number of an expression equal to `e`, or MIR_FLOW_NONE. */
guint         mir_expr_index_lookup (const MirExprIndex *index, const MirExpr *e);

/* Whether `e` is a candidate as described above. */
gboolean      mir_expr_is_candidate (const MirExpr *e);
/* A structural hash agreeing with mir_expr_equal. */
guint         mir_expr_hash         (const MirExpr *e);

G_END_DECLS
