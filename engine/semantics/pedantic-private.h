/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the files of pedantic mode share: pedantic.c drives the checks and
 * owns the variables, the statement walks and the warnings, and asks the
 * TildePedanticFlow what the data-flow analyses know; pedantic-value.c
 * evaluates what is known at compile time; pedantic-dist.c checks
 * distribution arguments; pedantic-factor.c builds the factor graph (unused
 * parameters, priors); pedantic-tilde.c looks at the left-hand sides of `~`.
 */
#pragma once

#include <glib.h>

#include "semantics/pedantic.h"
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
  const TildeProgram      *program;
  const TildePedanticFlow *flow;       /* may be NULL */
  GPtrArray               *vars;       /* PedVar*, owned */
  GHashTable              *by_decl;    /* PedVar* (stmt, name) -> itself */
  GHashTable              *globals;    /* name -> PedVar* of block-level variables */
  GPtrArray               *warnings;   /* TildeDiagnostic*, the caller's */
} Pedantic;

/* The variable a VARIABLE expression reads, or NULL (a function name, or
 * something the checker could not resolve). */
PedVar  *_ped_var_of_expr (Pedantic *P, const TildeExpr *e);
gboolean _ped_var_is_data (const PedVar *var);   /* data or transformed data */

/* Records a warning; span NULL: no location. */
void     _ped_warn (Pedantic *P, const TildeSpan *span, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

/* `e` without the parentheses around it. */
const TildeExpr *_ped_strip_parens (const TildeExpr *e);
/* The family of foo_lpdf/foo_lupdf/foo_lpmf/foo_lupmf (interned), or NULL;
 * *unnormalized tells the _lupdf/_lupmf forms. */
const char *_ped_density_family (const char *name, gboolean *unnormalized);

/* ---- statements (pedantic.c) ---- */

/* A variable read at a place. */
typedef struct {
  PedVar          *var;
  const TildeExpr *expr;    /* the VARIABLE expression that reads it */
} PedUse;

typedef void (*PedStmtVisitor) (TildeStmt *stmt, gpointer data);

/* Calls `visit` on each statement of the log density (transformed
 * parameters, then model), nested ones included, parents first. */
void _ped_foreach_model_stmt    (Pedantic *P, PedStmtVisitor visit, gpointer data);
/* The same for the body of a function definition. */
void _ped_foreach_function_stmt (TildeStmt *fun_def, PedStmtVisitor visit, gpointer data);
/* The function definitions with a body (TildeStmt*). */
GPtrArray *_ped_function_definitions (Pedantic *P);
/* Appends the expressions a statement evaluates itself, not those of the
 * statements nested in it: stanc's right-hand sides, conditions, loop
 * bounds, arguments. */
void _ped_stmt_exprs (const TildeStmt *s, GPtrArray *exprs);
/* Calls `visit` on `e` and every expression inside it, parents first. */
void _ped_expr_foreach (const TildeExpr *e,
                        void (*visit) (const TildeExpr *e, gpointer data),
                        gpointer data);
/* Appends the variables read by an expression (function names left out). */
void _ped_expr_uses (Pedantic *P, const TildeExpr *e, GArray *uses);

/* ---- what the flow analyses know (pedantic.c) ---- */

/* The only statement whose definition of its variable reaches `use`, or
 * NULL. */
const TildeStmt *_ped_definition (Pedantic *P, const TildeExpr *use);
/* Appends (PedVar*, repeats possible) the data and parameters the value read
 * by `use` depends on (the variable itself when it is one). */
void _ped_value_sources   (Pedantic *P, const PedUse *use, GPtrArray *sources);
/* Appends those that decide whether `stmt` runs. */
void _ped_control_sources (Pedantic *P, const TildeStmt *stmt, GPtrArray *sources);

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

/* A number known at compile time: literals, arithmetic on them, and (with
 * P, whose flow knows definitions) variables whose only reaching definition
 * gives them such a number. */
gboolean _ped_number (Pedantic *P, const TildeExpr *e, PedNumber *out);
void     _ped_number_clear (PedNumber *number);
/* stanc's compile-time view of a distribution argument. */
void     _ped_value (Pedantic *P, const TildeExpr *e, PedValue *out);
void     _ped_value_clear (PedValue *value);
/* The variables whose definitions _ped_value may look up for a
 * distribution argument `e`: those it reads (data and parameters aside),
 * added to `names` (interned, no repeats) when not yet in `seen`. */
void     _ped_value_variables (Pedantic *P, const TildeExpr *e, GHashTable *seen,
                               GPtrArray *names);
/* The expression a definition gives `var`: the right-hand side of a plain
 * assignment of the whole variable, or its initial value. */
const TildeExpr *_ped_defined_value (Pedantic *P, const TildeStmt *def, const PedVar *var);

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
 * unit-scale constants; on the log density and on function bodies. */
void _ped_check_distributions (Pedantic *P);
/* The variables whose definitions the distribution checks look up. */
void _ped_track_distribution_values (Pedantic *P);
/* pedantic-factor.c: unused parameters and priors. */
void _ped_check_factor_graph (Pedantic *P);
/* pedantic-tilde.c: several `~` for one variable, non-linear left-hand sides. */
void _ped_check_tildes (Pedantic *P);

G_END_DECLS
