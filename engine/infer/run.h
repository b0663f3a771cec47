/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A sampling run: several chains of NUTS (or of the fixed_param sampler)
 * on worker threads, each with its own random stream derived from the
 * seed and the chain's id, so that every chain's draws are the same
 * however many threads run them and in whatever order. Each chain writes
 * a Stan CSV file as CmdStan 2.33 writes it (out.csv -> out_1.csv, ...;
 * exactly the given name for one chain) and can keep its draws in memory.
 *
 * Thread rules:
 * - tilde_sample_run_start, _wait and _free are called from one thread
 *   (the owner); _cancel from any thread, also from a signal handler.
 * - The callbacks run on the chains' worker threads, several at once: a
 *   consumer on a main loop hands what it needs over in an idle source
 *   attached to that loop's context (copying the little it needs: the row
 *   passed to `draw` is valid only during the call); not with
 *   g_main_context_invoke, which runs the function right there, on the
 *   chain's thread, whenever no thread is iterating the context.
 * - tilde_sample_run_get_draws may be called from any thread at any time
 *   while the run exists: the rows it returns are complete and never move
 *   or change (the table is allocated for the whole run up front).
 * - The model is shared by the chains (tilde_model_log_density is safe
 *   per evaluating thread); it must outlive the run.
 */
#pragma once

#include <glib.h>

#include "infer/adapt.h"
#include "infer/init.h"
#include "infer/metric.h"
#include "runtime/model.h"

G_BEGIN_DECLS

#define TILDE_SAMPLE_ERROR (tilde_sample_error_quark ())
GQuark tilde_sample_error_quark (void);

typedef enum {
  TILDE_SAMPLE_ERROR_OPTIONS,    /* an option out of range */
  TILDE_SAMPLE_ERROR_INIT,       /* no starting point */
  TILDE_SAMPLE_ERROR_MODEL,      /* an unrecoverable model error while sampling */
  TILDE_SAMPLE_ERROR_ADAPTATION, /* the step size or the metric could not be adapted */
  TILDE_SAMPLE_ERROR_OUTPUT,     /* a CSV file could not be written */
  TILDE_SAMPLE_ERROR_CANCELLED,
} TildeSampleError;

typedef struct {
  guint             chains;        /* 4 */
  guint             threads;       /* 0: min (chains, processors) */
  guint             warmup;        /* 1000 */
  guint             samples;       /* 1000 */
  guint             thin;          /* 1 */
  guint64           seed;
  gboolean          seed_given;    /* else the header marks the seed "(Default)" */
  guint             id;            /* the first chain's id: 1 */
  gboolean          adapt;         /* TRUE; off by itself without warm-up */
  TildeAdaptOptions adapt_options;
  guint             max_depth;     /* 10 */
  TildeMetricKind   metric;        /* diag_e */
  double            stepsize;      /* 1: where the step size search starts */
  gboolean          fixed_param;   /* chosen anyway for a model without parameters */
  gboolean          save_warmup;
  double            init_radius;   /* 2; 0: every parameter starts at zero */
  const TildeInits *inits;         /* may be NULL; borrowed until the run is freed */
  const char       *output;        /* "output.csv"; NULL: no files */
  int               sig_figs;      /* -1: six, as CmdStan */
  gboolean          keep_draws;    /* keep every saved draw for tilde_sample_run_get_draws */
  gboolean          time_density;  /* measure the time inside the log density */
  /* recorded in the CSV header only */
  guint             refresh;       /* 100 */
  const char       *model_name;    /* "bernoulli_model" */
  const char       *data_file;     /* "" */
  const char       *init_file;     /* the file behind `inits`, or NULL */
  const char       *compiler_flags;/* "--O1" */
} TildeSampleOptions;

/* CmdStan's defaults, with a seed from the clock. */
void tilde_sample_options_init (TildeSampleOptions *options);

typedef enum {
  TILDE_SAMPLE_MESSAGE_INFO,      /* initialisation, adaptation warnings */
  TILDE_SAMPLE_MESSAGE_REJECTION, /* a proposal rejected on a model error (may be frequent) */
  TILDE_SAMPLE_MESSAGE_ERROR,     /* why a chain stopped */
} TildeSampleMessageKind;

typedef struct {
  /* After each iteration of chain `chain` (its id): iteration counts from
   * 1 over warm-up and sampling together. */
  void (*progress) (guint chain, guint iteration, guint total, gboolean warmup, gpointer user_data);
  /* Each saved draw, `n` values in the order of the column names. */
  void (*draw)     (guint chain, const double *row, gsize n, gboolean warmup, gpointer user_data);
  /* Text for people, in CmdStan's words (may hold several lines). */
  void (*message)  (guint chain, TildeSampleMessageKind kind, const char *text, gpointer user_data);
} TildeSampleCallbacks;

typedef enum {
  TILDE_CHAIN_PENDING,
  TILDE_CHAIN_RUNNING,
  TILDE_CHAIN_DONE,
  TILDE_CHAIN_CANCELLED,
  TILDE_CHAIN_FAILED,
} TildeChainStatus;

/* What a chain did; complete once tilde_sample_run_wait has returned. */
typedef struct {
  guint            id;
  TildeChainStatus status;
  char            *problem;            /* FAILED: why */
  TildeModelError *problem_error;      /* FAILED on the model's error at the start: it, with
                                        * its place; NULL otherwise */
  char            *output_path;        /* NULL without files */
  double           warmup_seconds, sampling_seconds;
  gsize            warmup_draws, draws;/* saved */
  guint            divergences;        /* after warm-up */
  guint            warmup_divergences;
  guint            max_depth_hits;     /* after warm-up */
  double           stepsize;           /* after adaptation */
  guint64          gradients;          /* evaluations of the log density and gradient */
  double           density_seconds;    /* with time_density */
} TildeChainResult;

typedef struct TildeSampleRun TildeSampleRun;

/* Checks the options, opens the output files (writing the configuration
 * header and the column names) and starts the chains; returns at once.
 * NULL with `error` set when an option or a file is wrong; nothing runs
 * then. `callbacks` may be NULL. */
TildeSampleRun *tilde_sample_run_start (TildeModel                 *model,
                                        const TildeSampleOptions   *options,
                                        const TildeSampleCallbacks *callbacks,
                                        gpointer                    user_data,
                                        GError                    **error);
/* Asks every chain to stop after its current iteration; files keep every
 * draw made so far, each row whole. Any thread, signal handlers too. */
void            tilde_sample_run_cancel (TildeSampleRun *run);
/* Blocks until every chain has stopped. FALSE with `error` set for the
 * first chain (by id) that failed, or TILDE_SAMPLE_ERROR_CANCELLED. */
gboolean        tilde_sample_run_wait   (TildeSampleRun *run, GError **error);
/* Cancels, waits and frees. */
void            tilde_sample_run_free   (TildeSampleRun *run);

guint                   tilde_sample_run_get_n_chains     (const TildeSampleRun *run);
/* The rows each chain saves if it runs to the end (warm-up ones included
 * when kept, thinned). */
gsize                   tilde_sample_run_get_rows_per_chain (const TildeSampleRun *run);
gboolean                tilde_sample_run_is_fixed_param   (const TildeSampleRun *run);
/* "lp__", "accept_stat__", ..., then the model's outputs; owned by the run. */
const char *const      *tilde_sample_run_get_column_names (const TildeSampleRun *run, gsize *n);
/* The saved draws of chain `index` (0-based) so far, row-major, warm-up
 * rows first (*n_warmup of them); NULL unless keep_draws. */
const double           *tilde_sample_run_get_draws        (TildeSampleRun *run, guint index,
                                                           gsize *n_rows, gsize *n_warmup);
/* After tilde_sample_run_wait. */
const TildeChainResult *tilde_sample_run_get_chain_result (const TildeSampleRun *run, guint index);

/* The starting points and proposals that the model's errors raised at one
 * statement rejected, over all chains. */
typedef struct {
  char  *file;                         /* the statement's place: lines from 1, columns from 0 */
  int    begin_line, begin_column, end_line, end_column;
  char  *message;                      /* the first error there (of the lowest chain) */
  guint  start, warmup, sampling;      /* how many, by phase */
} TildeRejections;

/* Once tilde_sample_run_wait has returned: TildeRejections, one for each
 * statement whose errors rejected anything, in the order of the source
 * (errors without a statement are not counted). */
GPtrArray *tilde_sample_run_get_rejections (const TildeSampleRun *run);
/* The inverse metric chain `index` ended warm-up with (n or n x n values,
 * NULL for unit_e and fixed_param), after tilde_sample_run_wait. */
const double           *tilde_sample_run_get_inverse_metric (const TildeSampleRun *run, guint index,
                                                             TildeMetricKind *kind, gsize *n);

/* The file chain `id` of `chains` writes for `output`: out.csv -> out_2.csv. */
char *tilde_sample_chain_output_path (const char *output, guint chains, guint id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeSampleRun, tilde_sample_run_free)

G_END_DECLS
