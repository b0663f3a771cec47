/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "tilde-draws.h"
#include "infer/summary.h"
#include "worker/run-job.h"

G_BEGIN_DECLS

#define TILDE_TYPE_RUN_CONTROLLER (tilde_run_controller_get_type ())

G_DECLARE_FINAL_TYPE (TildeRunController, tilde_run_controller, TILDE, RUN_CONTROLLER, GObject)

typedef enum {
  TILDE_CHAIN_PHASE_PENDING,
  TILDE_CHAIN_PHASE_WARMUP,
  TILDE_CHAIN_PHASE_SAMPLING,
  TILDE_CHAIN_PHASE_DONE,
} TildeChainPhase;

typedef struct {
  TildeChainPhase phase;
  guint           iteration;      /* over warm-up and sampling, from 1 */
  guint           total;
  double          per_second;     /* iterations a second in this phase so far; 0 unknown */
  double          seconds_left;   /* -1 unknown */
  double          seconds;        /* since the chain's first iteration; its whole run once done */
} TildeChainProgress;

/* One run of a model at a time, off the main thread (engine/worker/run-job.h
 * on a thread of its own): draws stream into a new :draws store in batches
 * handed to the main context at G_PRIORITY_DEFAULT_IDLE, one batch pending
 * at a time, so that however fast the chains go the main loop only ever
 * appends what arrived since its last turn. ::progress is emitted at most
 * ten times a second while the run goes on. When the run ends (finished,
 * failed or stopped) the draws made so far stay and :running goes FALSE at
 * once; then the summary of the files is computed off the main thread, and
 * ::finished is emitted with the error (NULL when the run ended normally).
 *
 * A run's files go to a new folder under the cache folder
 * ($XDG_CACHE_HOME/tilde/runs) unless :runs-folder names another. */
TildeRunController *tilde_run_controller_new (void);

/* FALSE (and nothing starts) while a run goes on or its ::finished is
 * still to come. `data_text` may be NULL. */
gboolean      tilde_run_controller_start    (TildeRunController     *self,
                                             const char             *model_name,
                                             const char             *model_text,
                                             const char             *data_text,
                                             const TildeRunSettings *settings);
/* Asks the run to stop; ::finished follows. */
void          tilde_run_controller_stop     (TildeRunController *self);
gboolean      tilde_run_controller_get_running (TildeRunController *self);
/* While a run goes on or its ::finished is still to come: nothing
 * else can start or be shown. */
gboolean      tilde_run_controller_get_busy    (TildeRunController *self);

const char   *tilde_run_controller_get_runs_folder (TildeRunController *self);
void          tilde_run_controller_set_runs_folder (TildeRunController *self,
                                                    const char         *folder);

/* The draws of the current (or last) run; NULL before the first draw. */
TildeDraws   *tilde_run_controller_get_draws     (TildeRunController *self);
/* Holds the draws that come back while a view lays out a run's new
 * store: until released, they wait (the run's last are handed over all
 * the same), and the release hands over what came meanwhile. Holds count. */
void          tilde_run_controller_hold_draws    (TildeRunController *self);
void          tilde_run_controller_release_draws (TildeRunController *self);
/* Asks the chains to step aside for a frame that must have the
 * processors: each stops at the end of its current iteration and waits
 * until resumed, until Stop, or for 100 ms at most. Only a running run
 * that was not asked to stop is paused; pauses count. */
void          tilde_run_controller_pause_chains  (TildeRunController *self);
void          tilde_run_controller_resume_chains (TildeRunController *self);
guint         tilde_run_controller_get_n_chains  (TildeRunController *self);
gboolean      tilde_run_controller_get_progress  (TildeRunController *self,
                                                  guint               chain,
                                                  TildeChainProgress *progress);
/* The last run's settings, texts, folder and files. */
const TildeRunSettings *tilde_run_controller_get_settings (TildeRunController *self);
const char   *tilde_run_controller_get_model_name (TildeRunController *self);
const char   *tilde_run_controller_get_model_text (TildeRunController *self);
const char   *tilde_run_controller_get_data_text  (TildeRunController *self);
const char   *tilde_run_controller_get_folder     (TildeRunController *self);
/* NULL-terminated; empty while a run goes on. */
const char *const *tilde_run_controller_get_output_paths (TildeRunController *self);
/* After a sampling run with draws after warm-up; NULL otherwise. */
const TildeSummary *tilde_run_controller_get_summary (TildeRunController *self);
/* After an optimisation: lp__ and the outputs at the mode. */
const double *tilde_run_controller_get_estimates (TildeRunController  *self,
                                                  const char *const  **names,
                                                  gsize               *n);
/* TildeProblem items: why the last run could not start (the model's or
 * the data's errors, or one message without a place), and the warnings
 * of a device it could not use (it then ran on the CPU). */
GListModel   *tilde_run_controller_get_problems  (TildeRunController *self);
/* The messages of the last run (the sampler's, print()), one a line. */
const char   *tilde_run_controller_get_log       (TildeRunController *self);

/* Writes the last run into `folder` (made if missing): model.stan,
 * data.json, options.json and the Stan CSV files. */
gboolean      tilde_run_controller_save         (TildeRunController *self,
                                                 const char         *folder,
                                                 GError            **error);
/* Reads a folder written by _save, off the main thread, as if the run had
 * just ended there: ::finished follows (with the error, if any). FALSE
 * while a run goes on. */
gboolean      tilde_run_controller_open         (TildeRunController *self,
                                                 const char         *folder);

/* A folder written by _save, read whole (options, texts, every chain's
 * draws and their summary) so that a window can look at it before it
 * shows it. */
typedef struct _TildeSavedRun TildeSavedRun;

/* Reads `folder` on a thread of its own. The error names the file at
 * fault: a folder without options.json is not a run; then options.json
 * that does not parse, no model.stan, no Stan CSV file of the run's
 * method, or one that does not read. A missing data.json is no data. */
void           tilde_saved_run_read_async     (const char          *folder,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
TildeSavedRun *tilde_saved_run_read_finish    (GAsyncResult        *result,
                                               GError             **error);
void           tilde_saved_run_free           (TildeSavedRun       *saved);
const char    *tilde_saved_run_get_folder     (const TildeSavedRun *saved);
const char    *tilde_saved_run_get_model_text (const TildeSavedRun *saved);
/* The model's name as the run's Stan CSV files give it ("model =
 * NAME_model", as CmdStan writes it),
 * or the folder's name when they do not. */
const char    *tilde_saved_run_get_model_name (const TildeSavedRun *saved);
/* "" for a run without data. */
const char    *tilde_saved_run_get_data_text  (const TildeSavedRun *saved);
const TildeRunSettings *tilde_saved_run_get_settings (const TildeSavedRun *saved);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeSavedRun, tilde_saved_run_free)

/* Makes `saved` (taken, and freed) the last run at once, as _open does
 * once its reading is done: :draws, the summary, the files, the texts and
 * settings, then ::finished. FALSE while a run goes on. */
gboolean      tilde_run_controller_show_saved   (TildeRunController *self,
                                                 TildeSavedRun      *saved);

G_END_DECLS
