/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pedantic mode (stanc's --warn-pedantic), the checks made on the typed
 * syntax tree: distribution arguments and variates outside what the
 * distribution allows, uniform priors, lkj_corr, small equal
 * gamma/inv_gamma arguments, unit-scale constants, parameters that are
 * unused or have no or several priors (a factor graph of the model block),
 * several `~` for one variable, hard or nonsensical bounds, and possibly
 * non-linear left-hand sides of `~`.
 *
 * The warnings about control flow that depends on parameters and about
 * variables read before they are assigned are not made here: they are
 * data-flow analyses of the MIR (engine/tilde-warnings.h puts the two
 * together). What these checks need to know about the flow of values (which
 * assignment gave a variable its value, which data and parameters a value
 * depends on) they ask a TildePedanticFlow, which the same analyses answer.
 *
 * Where stanc is known to cry wolf, this does not: a factor whose variate is
 * a parameter is that parameter's own prior, so `x ~ normal(0, sigma)` is
 * not a second prior of sigma when sigma has one, and a prior whose
 * hyperparameters are data or depend on data still counts as a prior.
 * Transforms of data on the left of `~` need no Jacobian, and Jacobian
 * terms are no priors. A declaration annotated `@silent` silences the
 * warnings about that variable.
 *
 * The program should have type-checked without errors (the checker's slots
 * are read); an expression left untyped is treated conservatively.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* What the data-flow analyses know, asked about places of the transformed
 * parameters and model blocks and of function bodies. `use` is always a
 * TILDE_EXPR_VARIABLE that reads a variable there. Any member may be NULL,
 * and so may the whole struct: nothing is known beyond the tree. */
typedef struct {
  gpointer data;
  /* Called once, before any `definition`, with the names of the variables
   * whose definitions may be asked for (NULL-terminated). */
  void             (*track)           (gpointer data, const char *const *names);
  /* The only statement whose definition of the variable reaches `use`, or
   * NULL when there are none or several (or the only one is not a
   * statement of the program). */
  const TildeStmt *(*definition)      (gpointer data, const TildeExpr *use);
  /* Appends (interned names) the data, transformed data and parameters
   * that the value read by `use`, in the log density, may depend on. */
  void             (*value_sources)   (gpointer data, const TildeExpr *use, GPtrArray *names);
  /* Appends (interned names) those that decide whether `stmt`, a statement
   * of the log density, runs. */
  void             (*control_sources) (gpointer data, const TildeStmt *stmt, GPtrArray *names);
} TildePedanticFlow;

/* Appends the warnings of these checks (TILDE_DIAG_PEDANTIC, severity
 * warning) in no particular order; `flow` may be NULL. The caller sorts
 * them as stanc prints them (last position first, then those without a
 * location) and leaves out repeats. */
void tilde_pedantic_check_tree (const TildeProgram      *program,
                                const TildePedanticFlow *flow,
                                GPtrArray               *diagnostics);

G_END_DECLS
