/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the compiler makes of a model, stage by stage, for the IR viewer:
 * the compile job's stage (job.h) that lowers a checked program to the
 * MIR, transforms it and runs the passes of one optimisation level,
 * keeping the printed program after each pass and the line diff each pass
 * made.
 *
 * The last stage is what an OpenCL device would run: the plan (where each
 * data variable lives and why, as `tilde compile --debug-mem-patterns`
 * prints it, each line behind `// `), then the source of the kernel of
 * every statement that would run on a device, as `--debug-opencl` prints
 * it, generated without a device (gpu/plan.h).
 *
 * Every text comes with the source of each of its lines: where in the main
 * file the statement (or declaration) the line was printed from is. A line
 * printed from an included file points at the #include line that brought
 * it in; a line with no source (block headers) has line 0. The sources are
 * plain numbers, so a result outlives the program it was made from.
 *
 * The stages are immutable once made and are shared with the main thread
 * through the job's result, which holds them.
 */
#pragma once

#include <gio/gio.h>

#include "mir/passes/passes.h"
#include "worker/worker.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_MIR_STAGE_AST,           /* the typed program printed back as Stan */
  TILDE_MIR_STAGE_MIR,           /* --debug-mir-pretty */
  TILDE_MIR_STAGE_TRANSFORMED,   /* --debug-transformed-mir-pretty */
  TILDE_MIR_STAGE_OPTIMIZED,     /* --debug-optimized-mir-pretty at the level */
  TILDE_MIR_STAGE_OPENCL,        /* --debug-mem-patterns' plan, then --debug-opencl's kernels */
  TILDE_N_MIR_STAGES
} TildeMirStage;

/* Lines count from 1 and columns (bytes) from 0, as in diagnostics;
 * end_column is just past the end. line 0: the line has no source. */
typedef struct {
  int line;
  int column;
  int end_line;
  int end_column;
} TildeMirSource;

typedef struct {
  char           *text;
  guint           n_lines;
  TildeMirSource *sources;    /* n_lines of them */
} TildeMirText;

typedef struct {
  const char   *name;          /* the pass's name (static) */
  const char   *description;   /* its one line (static) */
  gboolean      changed;       /* the pass said it changed the program */
  TildeMirText  after;         /* the program after the pass */
  GArray       *diff;          /* TildeDiffRow: the program before against after */
  guint         edits;         /* lines the pass removed, added or changed */
} TildeMirStep;

typedef struct {
  MirOptLevel   level;
  TildeMirText  stages[TILDE_N_MIR_STAGES];
  GPtrArray    *steps;         /* TildeMirStep*, one per pass run, in order */
  GArray       *optimized_diff;  /* TildeDiffRow: the transformed MIR against the optimized */
  gboolean      use_opencl;    /* planned as with --use-opencl */
  guint         opencl_kernels;  /* statements the OpenCL stage shows a kernel of */
  /* With no kernel: a design matrix that @gpu would put on the device
   * (NULL: none), the density of the statement that reads it and its line;
   * failing that, the vectors not yet annotated of an elementwise statement
   * ("x, y"), its reduction or density and line, and elementwise TRUE.
   * The OpenCL stage then holds the plan when the model annotates data
   * @gpu or use_opencl is set, and is empty otherwise. */
  char         *opencl_candidate;
  char         *opencl_candidate_call;
  int           opencl_candidate_line;
  gboolean      opencl_candidate_elementwise;
  /* With no kernel and no candidate: a normal linear model that stays on
   * the CPU by its sufficient statistics (opencl_candidate_call and _line
   * name it). */
  gboolean      opencl_by_statistics;
} TildeMirStages;

/* Makes the stages of a program that checked without errors, at `level`;
 * NULL when it cannot be lowered or `cancellable` (may be NULL) was
 * cancelled on the way. */
TildeMirStages *tilde_mir_stages_new  (TildeCheckResult *check,
                                       MirOptLevel       level,
                                       GCancellable     *cancellable);
/* The same, planning the device's data as with --use-opencl when
 * `use_opencl` (large design matrices of GLM statements go to the device
 * without @gpu). */
TildeMirStages *tilde_mir_stages_new_full (TildeCheckResult *check,
                                           MirOptLevel       level,
                                           gboolean          use_opencl,
                                           GCancellable     *cancellable);
void            tilde_mir_stages_free (TildeMirStages *stages);

/* The text of the program before step `index` (the transformed MIR before
 * the first). */
const TildeMirText *tilde_mir_stages_before_step (const TildeMirStages *stages,
                                                  guint                 index);

/* The compile job's stage: `user_data` is GINT_TO_POINTER (level), plus
 * TILDE_MIR_STAGES_USE_OPENCL for use_opencl. */
#define TILDE_MIR_STAGES_USE_OPENCL 0x100
gpointer tilde_mir_stages_compile (TildeCheckResult *check,
                                   gpointer          user_data,
                                   GCancellable     *cancellable,
                                   GDestroyNotify   *value_free);

/* Submits a compile job of `input` to the stages at `level`; as
 * tilde_worker_compile(). */
guint64  tilde_worker_compile_mir (TildeWorker        *worker,
                                   TildeJobInput      *input,
                                   MirOptLevel         level,
                                   TildeWorkerCallback callback,
                                   gpointer            user_data,
                                   GDestroyNotify      destroy);

guint64  tilde_worker_compile_mir_full (TildeWorker        *worker,
                                        TildeJobInput      *input,
                                        MirOptLevel         level,
                                        gboolean            use_opencl,
                                        TildeWorkerCallback callback,
                                        gpointer            user_data,
                                        GDestroyNotify      destroy);

/* The stages a compile job made with tilde_worker_compile_mir(), or NULL
 * when the model had errors. Owned by the result. */
const TildeMirStages *tilde_job_result_get_mir_stages (const TildeJobResult *result);

const char *tilde_mir_stage_name (TildeMirStage stage);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeMirStages, tilde_mir_stages_free)

G_END_DECLS
