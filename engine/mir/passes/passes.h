/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The optimisation passes on the MIR, after the Stan compiler's
 * (stanc3 analysis_and_optimization/Optimize.ml), in one table: each pass
 * has a name (stanc's), the level that turns it on, a one-line description
 * and a function that rewrites a program in place and says whether it
 * changed anything.
 *
 * Every pass keeps the meaning of the program, including where stanc's
 * does not: arms of ?:, && and || that are not evaluated are never
 * evaluated by a rewrite (no constant folding raises an error), recursive
 * functions are never inlined, print, reject, fatal_error and user-defined
 * functions that may have effects are never removed, duplicated or
 * reordered, _rng calls are never duplicated, removed or moved across each
 * other, and no rewrite changes the type of an expression. Expressions
 * that have no effect but may fail (an index out of range, a domain error)
 * are treated as stanc treats them: dead code computing them may be
 * removed, and code motion may compute them earlier or later on paths
 * that compute them anyway, though never across a print, a reject, a
 * draw or a user function with effects.
 *
 * Every node a pass creates or rewrites has a type, an AD level and the
 * source span of the code it stands for.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

/* stanc's --O0, --O1 and --Oexperimental (--O). */
typedef enum {
  MIR_OPT_O0,
  MIR_OPT_O1,
  MIR_OPT_EXPERIMENTAL,
} MirOptLevel;

/* A pass rewrites `program` in place; TRUE when it changed it. */
typedef gboolean (*MirPassFunc) (MirProgram *program);

typedef struct {
  const char  *name;          /* stanc's name: "constant_propagation" */
  MirOptLevel  level;         /* the lowest level that runs it */
  const char  *description;   /* one line */
  MirPassFunc  run;
} MirPass;

/* The table, in the order of its first use in the pipeline. */
const MirPass *mir_passes           (guint *n_passes);
/* The pass called `name`, or NULL. */
const MirPass *mir_pass_lookup      (const char *name);

/* "O0", "O1", "Oexperimental"; parsing also accepts "O" (Oexperimental)
 * and a leading "--". FALSE for anything else. */
const char    *mir_opt_level_name   (MirOptLevel level);
gboolean       mir_opt_level_parse  (const char *text, MirOptLevel *level);

/* ---- the passes ---- */

/* Replaces calls of user-defined functions that are defined once, have a
 * body and are not recursive (directly or through other functions) by
 * their bodies, as stanc does: a result variable, a flag and a loop run
 * once whose `break` stands for `return`. Only calls evaluated whenever
 * their statement runs are inlined (not in a branch of ?:, the right of &&
 * or ||, a loop's bounds or a while condition), and only when moving the
 * call's evaluation before the rest of its statement reorders no effect.
 * Arguments other than variables and literals are evaluated once into a
 * variable; `_lpdf` functions called without `_lupdf` compute their own
 * densities normalised. */
gboolean mir_pass_function_inlining        (MirProgram *program);
/* Replaces reads of int and real variables known to hold a constant by
 * the constant (constants of transformed data reach every part). */
gboolean mir_pass_constant_propagation     (MirProgram *program);
/* Replaces reads of x by reads of y where x = y holds on every path, within
 * one program part. */
gboolean mir_pass_copy_propagation         (MirProgram *program);
/* Removes assignments to variables never read afterwards (when their
 * right-hand side has no effect), branches that never run, and empty
 * loops, conditionals and blocks. Declarations stay. */
gboolean mir_pass_dead_code_elimination    (MirProgram *program);
/* The first iteration of a loop in front of it:
 * `for (i in a:b) s` becomes `if (b >= a) { s[i:=a]; for (i in (a + 1):b) s }`
 * (when a and b have no effect and s changes nothing they read) and
 * `while (c) s` becomes `if (c) { s; while (c) s }`; loops whose body may
 * break or continue out of them stay. */
gboolean mir_pass_one_step_loop_unrolling  (MirProgram *program);
/* Replaces reads of x by e where x = e holds on every path and e can be
 * evaluated again without effect (no _rng, no user-defined function, no
 * data or parameter read, no target()). Within one program part. */
gboolean mir_pass_expression_propagation   (MirProgram *program);
/* Folds constant int and real operations (never a division by zero, an
 * overflow or an arm that does not run), simplifies ?:, && and || with
 * constant conditions and drops trailing [:] indices, and applies stanc's
 * rewrites into faster or more stable functions (log(1 - x) -> log1m(x),
 * a + b * c -> fma(b, c, a), the GLM densities, ...) when the new call
 * has exactly the type of the old expression. */
gboolean mir_pass_partial_evaluation       (MirProgram *program);
/* Lazy code motion (Knoop, Rüthing and Steffen): computes each repeated
 * or loop-invariant pure expression once, as late as possible, in a
 * `lcm_sym<N>__` variable. */
gboolean mir_pass_lazy_code_motion         (MirProgram *program);
/* Writes out the body of a for loop with constant bounds (at most 33
 * iterations) once for each value of its variable. */
gboolean mir_pass_static_loop_unrolling    (MirProgram *program);
/* Splices statement lists into the lists that hold them. */
gboolean mir_pass_list_collapsing          (MirProgram *program);
/* Declares data (double) every local variable of log_prob and of function
 * bodies whose value never depends on parameters, and lowers the AD level
 * of the expressions reading them. */
gboolean mir_pass_optimize_ad_levels       (MirProgram *program);
/* Marks a declaration whose next statement assigns the whole variable
 * (from an expression that does not read it) as not needing a default
 * value. */
gboolean mir_pass_allow_uninitialized_decls (MirProgram *program);
/* Makes the bodies of if, while and for statements blocks (scopes). */
gboolean mir_pass_block_fixing             (MirProgram *program);
/* Applies the memory-pattern analysis (mir-mem-pattern.h) to log_prob:
 * the matrices it finds SoA get that pattern on their declarations, their
 * parameter reads and the library calls on them. */
gboolean mir_pass_optimize_soa             (MirProgram *program);

G_END_DECLS
