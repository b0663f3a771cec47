/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Which matrices of log_prob can be a struct of arrays (SoA: one autodiff
 * object holding all the values) and which must stay an array of structs
 * (AoS: a matrix of autodiff scalars) — the Stan compiler's memory-pattern
 * analysis (analysis_and_optimization/Memory_patterns.ml, optimize_soa),
 * computed on the MIR; `--debug-mem-patterns` prints its result.
 *
 * A variable must be AoS when one of stanc's rules demotes it: it is
 * indexed down to single cells inside a loop, passed to a user-defined
 * function or to a library function without an SoA signature, put into an
 * array, row-vector or tuple expression or a branch of ?:, assigned from an
 * expression of data and autodiff scalars only, assigned the result of a
 * function without SoA support, assigned through a tuple projection, or has
 * a complex type; then, to a fixed point, whatever is assigned to or from
 * an AoS variable is AoS too. Everything else is SoA.
 *
 * The analysis does not change the program; a pass applies it.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

typedef struct {
  const char         *name;     /* interned */
  const MirSizedType *type;     /* the declaration's type, owned by the program */
  MirMemPattern       pattern;
  const char         *reason;   /* AoS: why (static text, may name a function); NULL for SoA */
  TildeSpan           span;     /* of the declaration */
} MirMemPatternEntry;

/* Every declaration of log_prob whose type can have a memory pattern
 * (vectors, row vectors, matrices and arrays of them), in program order,
 * with the pattern it can have. Entries point into `program`, which must
 * outlive the array. */
GArray *mir_mem_patterns_analyze (const MirProgram *program);

/* stanc's --debug-mem-patterns text: one `<type> <name>: AoS|SoA` line per
 * entry, in order. */
char   *mir_mem_patterns_report  (const MirProgram *program);
/* The same, each AoS line followed by `  // <reason>`. */
char   *mir_mem_patterns_explain (const MirProgram *program);

/* Whether the library function `name` (an operator's function such as
 * "Times__" included) has a signature taking SoA matrices for arguments of
 * these types. */
gboolean mir_mem_pattern_supports_soa (const char *name, const TildeType *const *args,
                                       guint n_args);

G_END_DECLS
