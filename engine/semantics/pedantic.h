/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pedantic mode (stanc's --warn-pedantic): warnings about Stan programs that
 * are legal but probably not what was meant, computed on the typed syntax
 * tree.
 *
 * The checks and their texts are stanc's: distribution arguments and
 * variates outside what the distribution allows, uniform priors, lkj_corr,
 * small equal gamma/inv_gamma arguments, unit-scale constants, parameters
 * that are unused or have no or several priors (a factor graph of the model
 * block), control flow that depends on parameters (also inside functions
 * called with parameter-dependent arguments), several `~` for one variable,
 * hard or nonsensical bounds, possibly non-linear left-hand sides of `~`, and
 * variables read before they are assigned. Warnings come out in stanc's
 * order: located ones last position first, then those without a location.
 *
 * Where stanc is known to cry wolf, this does not: a factor whose variate is
 * a parameter is that parameter's own prior, so `x ~ normal(0, sigma)` is
 * not a second prior of sigma when sigma has one, and a prior whose
 * hyperparameters are data or depend on data still counts as a prior.
 * Transforms of data on the left of `~` need no Jacobian, a loop over the
 * elements of a parameter does not depend on its values, and Jacobian terms
 * are no priors. A declaration annotated `@silent` silences the warnings
 * about that variable.
 *
 * The program must have type-checked without errors (the checker's slots are
 * read); an expression left untyped is treated conservatively.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* Appends the pedantic warnings (TILDE_DIAG_PEDANTIC, severity warning). */
void tilde_pedantic_check (const TildeProgram *program, GPtrArray *diagnostics);

/* Appends only the "may not have been assigned a value before its use"
 * warnings, as stanc's --warn-uninitialized prints them
 * (TILDE_DIAG_UNINITIALIZED). */
void tilde_pedantic_check_uninitialized (const TildeProgram *program, GPtrArray *diagnostics);

G_END_DECLS
