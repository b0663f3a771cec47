/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The run job of a window: a model's text and its data's text, compiled at
 * an optimisation level and prepared, then sampled with NUTS or optimised
 * (with Laplace draws if asked), writing Stan CSV files into a folder.
 *
 * tilde_run_job_run blocks: the window calls it on a thread of its own
 * and hears of the run through the callbacks, which run on the chains'
 * threads (several at once), as infer/run.h says. tilde_run_job_cancel
 * may be called from any thread at any time; the files keep every whole
 * row made until then.
 *
 * Problems with the model or the data are diagnostics
 * (tilde_run_job_get_diagnostics), placed in the model's or the data's
 * text, for a problems list; the GError then says in one line what
 * stopped the run.
 *
 * A run on an OpenCL device prepares the model as `tilde sample --device`
 * does (runtime/gpu-call.h): a device that cannot be had (not there any
 * more, no double precision, no context) or a kernel that does not build
 * leaves the model, or that statement, on the CPU, and the run goes on
 * with a warning among the diagnostics.
 *
 * The settings round-trip through JSON, so that a saved run can be
 * reopened with what it was run with.
 */
#pragma once

#include <gio/gio.h>

#include "gpu/device.h"
#include "infer/optimize.h"
#include "infer/run.h"
#include "infer/summary.h"
#include "mir/passes/passes.h"

G_BEGIN_DECLS

#define TILDE_RUN_JOB_ERROR (tilde_run_job_error_quark ())
GQuark tilde_run_job_error_quark (void);

typedef enum {
  TILDE_RUN_JOB_ERROR_MODEL,     /* the model does not compile: see the diagnostics */
  TILDE_RUN_JOB_ERROR_DATA,      /* the data do not fit the model: see the diagnostics */
  TILDE_RUN_JOB_ERROR_INIT,      /* no starting point */
  TILDE_RUN_JOB_ERROR_FAILED,    /* the sampler or the optimiser stopped on an error */
  TILDE_RUN_JOB_ERROR_OUTPUT,    /* a file could not be written */
  TILDE_RUN_JOB_ERROR_CANCELLED,
} TildeRunJobError;

typedef enum {
  TILDE_RUN_SAMPLE,
  TILDE_RUN_OPTIMIZE,
} TildeRunMethod;

typedef struct {
  TildeRunMethod       method;
  MirOptLevel          level;
  TildeModelContext    context;
  /* chains, warm-up, draws, thin, seed, adaptation, tree depth, metric,
   * init radius, save_warmup; its output and names are the job's */
  TildeSampleOptions   sample;
  TildeOptimizeOptions optimize;
  guint                laplace_draws;   /* after an optimisation; 0: none */
  TildeDeviceChoice    device;          /* where GLM statements over device data run */
  gboolean             use_opencl;      /* on a device: large design matrices without @gpu too */
} TildeRunSettings;

/* CmdStan's defaults (a seed from the clock), warm-up draws kept, the CPU. */
void      tilde_run_settings_init      (TildeRunSettings *settings);
/* An object: {"method": "sample", "chains": 4, ...}. */
char     *tilde_run_settings_to_json   (const TildeRunSettings *settings);
/* Keys left out keep the defaults; FALSE on text that is not such an
 * object or a value out of range. */
gboolean  tilde_run_settings_from_json (const char       *text,
                                        TildeRunSettings *settings,
                                        GError          **error);

typedef struct {
  /* Once the model is ready, before any draw: the columns of each draw
   * (Stan CSV names), how many chains will send them, and how many rows
   * each will send if it runs to the end. */
  void (*columns)  (const char *const *names, gsize n, guint n_chains, gsize rows,
                    gpointer user_data);
  /* infer/run.h's; an optimisation's Laplace draws come as chain 1. */
  void (*progress) (guint chain, guint iteration, guint total, gboolean warmup, gpointer user_data);
  void (*draw)     (guint chain, const double *row, gsize n, gboolean warmup, gpointer user_data);
  /* Messages for people: the sampler's, the optimiser's lines, print(). */
  void (*message)  (guint chain, const char *text, gpointer user_data);
} TildeRunCallbacks;

typedef struct TildeRunJob TildeRunJob;

/* Copies everything. `model_name` names the model in the files
 * ("eight_schools"); `data_text` may be NULL or empty for no data;
 * `directory` is where the CSV files go (made if missing). */
TildeRunJob *tilde_run_job_new (const char             *model_name,
                                const char             *model_text,
                                const char             *data_text,
                                const char             *directory,
                                const TildeRunSettings *settings);
void         tilde_run_job_free   (TildeRunJob *job);

/* Compiles, prepares and runs; TRUE when the run ended normally. */
gboolean     tilde_run_job_run    (TildeRunJob             *job,
                                   const TildeRunCallbacks *callbacks,
                                   gpointer                 user_data,
                                   GError                 **error);
/* Any thread, any time; a job cancelled before it runs does not start. */
void         tilde_run_job_cancel (TildeRunJob *job);

const TildeRunSettings *tilde_run_job_get_settings (const TildeRunJob *job);
/* TildeDiagnostic: the model's errors (file: the model's name) or the
 * data's (file "data"), or the warnings of a device the run could not use
 * (without a place); after sampling, a warning at each statement whose
 * errors rejected starting points or proposals, with their counts and the
 * first message.
 * Empty when the model ran as asked without a rejection. */
GPtrArray   *tilde_run_job_get_diagnostics  (TildeRunJob *job);
/* The Stan CSV files written (one per chain; for an optimisation the mode,
 * then the Laplace draws), NULL-terminated. */
const char *const *tilde_run_job_get_output_paths (TildeRunJob *job);
/* After a sampling run: what chain `index` (0-based) did; NULL otherwise. */
const TildeChainResult *tilde_run_job_get_chain_result (TildeRunJob *job, guint index);
/* After an optimisation: lp__ and the model's outputs at the mode, with
 * their names (NULL-terminated); NULL before or without one. */
const double *tilde_run_job_get_estimates      (TildeRunJob        *job,
                                                const char *const **names,
                                                gsize              *n);

/* The summary of Stan CSV files (5 %, 50 % and 95 % quantiles), as
 * `tilde summary` makes it; chains without a sampling draw are left out.
 * NULL with `error` set when no file holds a draw or a file is unreadable. */
TildeSummary *tilde_run_summarize_files (const char *const *paths,
                                         GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeRunJob, tilde_run_job_free)

G_END_DECLS
