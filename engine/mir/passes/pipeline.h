/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The optimisation pipeline: the passes of a level (passes.h) in the
 * Stan compiler's order (Optimize.optimization_suite), some of them run
 * more than once:
 *
 *   function_inlining, constant_propagation, copy_propagation,
 *   constant_propagation, dead_code_elimination, one_step_loop_unrolling,
 *   expression_propagation, partial_evaluation, lazy_code_motion,
 *   copy_propagation, constant_propagation, static_loop_unrolling,
 *   dead_code_elimination, list_collapsing, optimize_ad_levels,
 *   allow_uninitialized_decls, block_fixing, optimize_soa
 *
 * each step skipped when its pass belongs to a higher level. --O0 runs
 * nothing.
 *
 * The pipeline can record a snapshot after every step, for the IR viewer:
 * the pass, the program printed (mir_print_program), whether the pass
 * changed it, and the source span of every printed line.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"
#include "mir/passes/passes.h"

G_BEGIN_DECLS

typedef struct {
  const MirPass *pass;        /* NULL for the program before the first pass */
  const char    *name;        /* the pass's name, or "input" */
  char          *text;        /* mir_print_program of the program after it */
  gboolean       changed;     /* the pass changed the program */
  GArray        *line_spans;  /* TildeSpan per line of text */
} MirPassSnapshot;

void mir_pass_snapshot_free (MirPassSnapshot *snapshot);

/* The passes `level` runs, in order (a pass may come more than once). */
const MirPass *const *mir_pipeline_steps (MirOptLevel level, guint *n_steps);

/* The program optimised at `level`; `program` is not modified. When
 * `snapshots` is not NULL it receives a new array of MirPassSnapshot*: the
 * input first, then one after each step. */
MirProgram *mir_pipeline_run (const MirProgram *program, MirOptLevel level,
                              GPtrArray **snapshots);

/* --debug-passes: the program after every step that changed it, each
 * under a header line `--- after <pass>: <description> ---`. */
char       *mir_pipeline_debug_text (const GPtrArray *snapshots);

G_END_DECLS
