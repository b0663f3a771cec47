/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the files of pedantic mode share: pedantic.c drives the checks and
 * owns the variables and the warnings; pedantic-flow.c builds control-flow
 * graphs of statement lists with reaching definitions, dependencies and
 * initialisation; pedantic-value.c evaluates what is known at compile time;
 * pedantic-dist.c checks distribution arguments; pedantic-factor.c builds
 * the factor graph (unused parameters, priors); pedantic-control.c finds
 * control flow that depends on parameters; pedantic-tilde.c looks at the
 * left-hand sides of `~`.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* ---- variables (pedantic.c) ---- */

typedef enum {
  PED_VAR_DATA,
  PED_VAR_TDATA,
  PED_VAR_PARAM,
  PED_VAR_TPARAM,
  PED_VAR_GQ,
  PED_VAR_LOCAL,     /* model-block and statement locals, function locals */
  PED_VAR_LOOP,
  PED_VAR_ARG,       /* a function argument */
} PedVarKind;

typedef struct {
  const char     *name;     /* interned */
  TildeStmt      *stmt;     /* VAR_DECL, FOR, FOREACH or FUN_DEF that declares it */
  PedVarKind      kind;
  TildeSizedType *type;     /* the declared type (VAR_DECL only) */
  gboolean        silent;   /* declared @silent */
  gboolean        is_int;   /* declared `int` (a scalar) */
  guint           index;    /* position in Pedantic.vars */
} PedVar;

typedef struct {
  const TildeProgram *program;
  GPtrArray          *vars;       /* PedVar*, owned */
  GHashTable         *by_decl;    /* PedVar* (stmt, name) -> itself */
  GHashTable         *globals;    /* name -> PedVar* of block-level variables */
  GPtrArray          *warnings;   /* PedWarning*, owned */
} Pedantic;

/* The variable a VARIABLE expression reads, or NULL (a function name, or
 * something the checker could not resolve). */
PedVar  *_ped_var_of_expr (Pedantic *P, const TildeExpr *e);
gboolean _ped_var_is_data (const PedVar *var);   /* data or transformed data */

/* Records a warning; span NULL: no location. */
void     _ped_warn (Pedantic *P, const TildeSpan *span, const char *format, ...)
  G_GNUC_PRINTF (3, 4);
/* stanc's Location_span.to_string: "'f.stan', line 3, column 4 to column 9". */
char    *_ped_span_to_string (const TildeSpan *span);

/* `e` without the parentheses around it. */
const TildeExpr *_ped_strip_parens (const TildeExpr *e);
/* The family of foo_lpdf/foo_lupdf/foo_lpmf/foo_lupmf (interned), or NULL;
 * *unnormalized tells the _lupdf/_lupmf forms. */
const char *_ped_density_family (const char *name, gboolean *unnormalized);

/* ---- control-flow graphs (pedantic-flow.c) ---- */

typedef enum {
  PED_NODE_ENTRY,
  PED_NODE_DECL,       /* one declared variable, with or without initial value */
  PED_NODE_ASSIGN,
  PED_NODE_TILDE,
  PED_NODE_TARGET,     /* target += */
  PED_NODE_JACOBIAN,   /* jacobian += */
  PED_NODE_CALL,       /* a call statement */
  PED_NODE_PRINT,
  PED_NODE_REJECT,     /* reject and fatal_error */
  PED_NODE_RETURN,
  PED_NODE_IF,
  PED_NODE_WHILE,
  PED_NODE_FOR,
  PED_NODE_FOREACH,
  PED_NODE_BREAK,
  PED_NODE_CONTINUE,
} PedNodeKind;

/* A variable read at a place. */
typedef struct {
  PedVar          *var;
  const TildeSpan *span;
} PedUse;

typedef struct {
  PedNodeKind      kind;
  TildeStmt       *stmt;
  int              parent;    /* the innermost enclosing if/while/for, or -1 */
  GPtrArray       *exprs;     /* TildeExpr* the statement evaluates (stanc's rhs) */
  GArray          *uses;      /* PedUse: the variables those read */
  GPtrArray       *defs;      /* PedVar* the statement writes */
  gboolean         strong;    /* overwrites them whole (else an element or field) */
  gboolean         assigns;   /* gives them a value (a bare declaration does not) */
  const TildeExpr *value;     /* whole new value of defs[0] when known, for propagation */
  guint            first_def; /* ids of its definitions: first_def + i */
  GArray          *preds;     /* int */
  guint32         *rd_in;     /* reaching definitions at entry (bitset over ids) */
  GArray          *use_defs;  /* int: the nodes whose definitions its uses read */
} PedNode;

typedef struct {
  Pedantic  *P;
  GArray    *nodes;       /* PedNode; node 0 is the entry */
  guint      n_defs;
  GArray    *def_node;    /* int per definition id */
  GPtrArray *var_defs;    /* per variable index: GArray of definition ids, or NULL */
  GPtrArray *declared;    /* PedVar* declared by the statements */
} PedFlow;

/* The graph of the statement lists, one after another. With flatten_loops
 * every loop body runs exactly once (stanc's view for initialisation). */
PedFlow  *_ped_flow_new (Pedantic *P, TildeStmt **const *lists, const int *lengths,
                         guint n_lists, gboolean flatten_loops);
void      _ped_flow_free (PedFlow *flow);
static inline PedNode *
_ped_flow_node (PedFlow *flow, int i)
{
  return &g_array_index (flow->nodes, PedNode, i);
}
/* The nodes whose definitions of `var` reach the entry of `node`. */
void      _ped_flow_reaching (PedFlow *flow, int node, const PedVar *var, GArray *nodes);
/* Marks in `visited` (one byte per node) `node` and everything it depends
 * on: its enclosing control flow and the definitions of what it reads,
 * transitively (stanc's node_dependencies). */
void      _ped_flow_node_deps (PedFlow *flow, int node, guint8 *visited);
/* Marks what the values of `uses`, read at `node`, depend on; with_parents
 * adds the control flow around `node` (stanc's node_vars_dependencies). */
void      _ped_flow_uses_deps (PedFlow *flow, int node, const GArray *uses,
                               gboolean with_parents, guint8 *visited);
/* Sets seen[var->index] for every variable read by a marked node. */
void      _ped_flow_marked_vars (PedFlow *flow, const guint8 *visited, guint8 *seen);
/* Calls `report` for every read of a variable declared in the statements
 * that may happen before it has a value (the graph should be flattened). */
void      _ped_flow_uninitialized (PedFlow *flow,
                                   void (*report) (const PedUse *use, gpointer data),
                                   gpointer data);
/* Calls `visit` on `e` and every expression inside it, parents first. */
void      _ped_expr_foreach (const TildeExpr *e,
                             void (*visit) (const TildeExpr *e, gpointer data),
                             gpointer data);
/* The variables read by an expression (function names left out). */
void      _ped_expr_uses (Pedantic *P, const TildeExpr *e, GArray *uses);

/* ---- compile-time values (pedantic-value.c) ---- */

typedef struct {
  double    value;
  gboolean  is_int;
  char     *text;    /* as stanc prints it: "0.001", "-1" */
  TildeSpan span;    /* where it comes from */
} PedNumber;

typedef enum {
  PED_VALUE_OPAQUE,
  PED_VALUE_NUMBER,
  PED_VALUE_PARAM,
  PED_VALUE_DATA,
} PedValueKind;

typedef struct {
  PedValueKind kind;
  PedVar      *var;      /* PARAM, DATA */
  PedNumber    number;   /* NUMBER */
  TildeSpan    span;     /* where the value comes from */
} PedValue;

/* A number known at compile time: literals, arithmetic on them, and (with a
 * flow) variables whose only reaching definition is such a number. node is
 * where `e` is evaluated (-1 without a flow). */
gboolean _ped_number (PedFlow *flow, int node, const TildeExpr *e, PedNumber *out);
void     _ped_number_clear (PedNumber *number);
/* stanc's compile-time view of a distribution argument. */
void     _ped_value (PedFlow *flow, int node, const TildeExpr *e, PedValue *out);
void     _ped_value_clear (PedValue *value);

typedef enum {
  PED_BOUND_NONE,
  PED_BOUND_NONLIT,
  PED_BOUND_LIT,
} PedBoundKind;

typedef struct {
  PedBoundKind kind;
  double       value;
} PedBound;

typedef enum {
  PED_TRANS_IDENTITY,
  PED_TRANS_BOUNDED,        /* <lower=, upper=> */
  PED_TRANS_OFFSET_MULTIPLIER,
  PED_TRANS_ORDERED,
  PED_TRANS_POSITIVE_ORDERED,
  PED_TRANS_SIMPLEX,
  PED_TRANS_UNIT_VECTOR,
  PED_TRANS_SUM_TO_ZERO,
  PED_TRANS_STOCHASTIC,
  PED_TRANS_CHOLESKY_CORR,
  PED_TRANS_CHOLESKY_COV,
  PED_TRANS_CORRELATION,
  PED_TRANS_COVARIANCE,
} PedTransKind;

/* The constraint of a declared variable and the bounds it implies (stanc's
 * trans_bounds_values). */
typedef struct {
  PedTransKind kind;
  PedBound     lower;
  PedBound     upper;
} PedTransform;

void     _ped_transform (const PedVar *var, PedTransform *out);

/* ---- the checks ---- */

/* pedantic-dist.c: distribution arguments, uniform, lkj_corr, gamma,
 * unit-scale constants; on the model (TP and model statements) and on
 * function bodies. */
void _ped_check_distributions (Pedantic *P, PedFlow *flow);
/* pedantic-factor.c: unused parameters and priors. */
void _ped_check_factor_graph (Pedantic *P, PedFlow *model);
/* pedantic-control.c */
void _ped_check_control_flow (Pedantic *P, PedFlow *model);
void _ped_check_function_control_flow (Pedantic *P, PedFlow *model, TildeStmt *fun_def,
                                       PedFlow *body);
/* pedantic-tilde.c: several `~` for one variable, non-linear left-hand sides. */
void _ped_check_tildes (Pedantic *P, PedFlow *model);

G_END_DECLS
