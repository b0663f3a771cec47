/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#endif

#include "tilde-heap-policy.h"
#include "tilde-problem.h"
#include "tilde-run-controller-private.h"
#include "io/stan-csv-read.h"

/* Progress reaches the widgets at most this often. */
#define PROGRESS_INTERVAL_MS 100
/* The log keeps this much of a run's messages. */
#define LOG_LIMIT (256 * 1024)
/* The longest the chains wait on one pause, should it not be lifted.
 * Kept by the chains themselves: a caller's own timeout is a source of the
 * main loop, and would not fire while the main thread is busy. */
#define PAUSE_MAX_US (100 * G_TIME_SPAN_MILLISECOND)

typedef struct {
  guint   iteration, total;
  gboolean warmup, started, done;
  gint64  phase_start;            /* monotonic µs of the phase's first iteration */
  guint   phase_first;            /* the iteration it started at */
  gint64  start, end;             /* monotonic µs of the first and the last iteration */
} ChainState;

/* One chain's draws and progress not yet handed over. The chain takes its
 * lock for every draw; the main thread only tries it while the chains run,
 * and comes back in a later turn when it is taken: a chain preempted, or
 * blocked growing its buffer, while holding it must not hold up a frame. */
typedef struct {
  GMutex      lock;                 /* guards the next three */
  GArray     *warmup_rows, *rows;   /* rows not yet handed over */
  ChainState  state;
  GArray     *spare_warmup, *spare_rows; /* main thread: emptied, to swap in */
  ChainState  seen;                 /* main thread: the state last read */
} ChainBuffer;

struct _TildeSavedRun
{
  char             *folder;
  char             *model_name;  /* from the CSV files, else the folder's name */
  TildeRunSettings  settings;
  char             *model_text;
  char             *data_text;
  GPtrArray        *opened;      /* TildeStanCsv of the chains */
  TildeStanCsv     *mode;        /* an optimisation's */
  GPtrArray        *paths;       /* the files, NULL-terminated */
  TildeSummary     *summary;
};

/* What the run's threads share with the main thread. The controller
 * pointer is only touched on the main thread: it goes NULL when the
 * controller lets the run go, and the run's last callbacks then do
 * nothing. */
typedef struct {
  gatomicrefcount     ref;
  TildeRunController *controller;
  GMainContext       *context;
  TildeRunJob        *job;
  char               *folder;      /* for opening a saved run */
  TildeSavedRun      *saved;       /* what was read there */
  gboolean            stop_asked;  /* main thread */

  /* set once, under the lock, before `chains` is; read without it after */
  ChainBuffer        *chains;      /* atomic */
  guint               n_chains;
  gint                flush_pending; /* atomic: a hand-over is scheduled or held */

  GMutex              lock;        /* guards what follows */
  char              **names;       /* the columns, once known */
  gsize               rows_expected; /* per chain, if it runs to the end */
  gint                paused;      /* also read without the lock */
  guint               waiting;     /* threads waiting on the pause */
  gint64              pause_end;   /* the chains go on from then all the same */
  gint                pause_expired; /* it came; also read without the lock */
  GCond               resumed;
  GString            *log;

  gint                abandoned;   /* atomic: the controller went away */

  /* set by the run's thread before it hands the end over */
  gboolean            ok;
  GError             *error;
  TildeSummary       *summary;
  TildeRunSettings    settings;
} Run;

struct _TildeRunController
{
  GObject       parent_instance;

  Run          *run;
  GThread      *thread;
  TildeDraws   *draws;
  guint         n_chains;
  TildeSummary *summary;
  GListStore   *problems;
  char         *runs_folder;
  char         *folder;
  char         *model_name;
  char         *model_text;
  char         *data_text;
  char         *log;
  GPtrArray    *outputs;
  char        **estimate_names;
  double       *estimates;
  gsize         n_estimates;
  TildeRunSettings settings;
  guint         progress_source;
  guint         holds;         /* tilde_run_controller_hold_draws() not yet released */
  /* tilde_run_controller_pause_chains() not yet resumed: counted for the
   * controller, not per run (a pause taken while no run could be paused
   * pauses nothing, the next run included, and is still resumed) */
  guint         pauses;
  gint64        pause_max_us;
  gboolean      running;
  gboolean      finishing;     /* stopped, the summary not yet made */
};

G_DEFINE_FINAL_TYPE (TildeRunController, tilde_run_controller, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RUNNING,
  PROP_DRAWS,
  PROP_RUNS_FOLDER,
  N_PROPS
};

enum {
  SIGNAL_PROGRESS,
  SIGNAL_FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- the shared state ---- */

static Run *
run_new (TildeRunController *controller)
{
  Run *run = g_new0 (Run, 1);

  g_atomic_ref_count_init (&run->ref);
  run->controller = controller;
  run->context = g_main_context_ref_thread_default ();
  g_mutex_init (&run->lock);
  g_cond_init (&run->resumed);
  run->log = g_string_new (NULL);
  return run;
}

static Run *
run_ref (Run *run)
{
  g_atomic_ref_count_inc (&run->ref);
  return run;
}

static GArray *
rows_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (double));
}

static void
free_chains (ChainBuffer *chains, guint n)
{
  for (guint i = 0; chains && i < n; i++)
    {
      g_mutex_clear (&chains[i].lock);
      g_array_unref (chains[i].warmup_rows);
      g_array_unref (chains[i].rows);
      g_array_unref (chains[i].spare_warmup);
      g_array_unref (chains[i].spare_rows);
    }
  g_free (chains);
}

static void
run_unref (gpointer data)
{
  Run *run = data;

  if (!g_atomic_ref_count_dec (&run->ref))
    return;
  g_main_context_unref (run->context);
  tilde_run_job_free (run->job);
  g_free (run->folder);
  g_mutex_clear (&run->lock);
  g_cond_clear (&run->resumed);
  g_strfreev (run->names);
  free_chains (run->chains, run->n_chains);
  g_string_free (run->log, TRUE);
  g_clear_error (&run->error);
  g_clear_pointer (&run->summary, tilde_summary_free);
  g_clear_pointer (&run->saved, tilde_saved_run_free);
  g_free (run);
}

/* Hands `func` to the main thread. Not g_main_context_invoke(): the
 * context is the global default one, which the run's threads also see as
 * theirs, so whenever the main thread is not iterating it would run
 * `func` right there, on the run's thread (a widget notified off the main
 * thread, :running FALSE before the caller looked, a thread joining
 * itself). `run` is unreferenced after. */
static void
to_main_thread_after (Run *run, guint delay_ms, int priority, GSourceFunc func, const char *name)
{
  GSource *source = delay_ms > 0 ? g_timeout_source_new (delay_ms) : g_idle_source_new ();

  g_source_set_priority (source, priority);
  g_source_set_callback (source, func, run, run_unref);
  g_source_set_static_name (source, name);
  g_source_attach (source, run->context);
  g_source_unref (source);
}

static void
to_main_thread (Run *run, int priority, GSourceFunc func, const char *name)
{
  to_main_thread_after (run, 0, priority, func, name);
}

/* ---- draws, handed over in batches ---- */

static void
set_draws (TildeRunController *self, TildeDraws *draws)
{
  if (!g_set_object (&self->draws, draws))
    return;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DRAWS]);
}

static void schedule_chains_flush (Run *run);

/* Main thread: the chain's rows, if its lock can be had (or `wait`). */
static gboolean
take_rows (ChainBuffer *b, gboolean wait, GArray **warmup, GArray **rows)
{
  if (wait)
    g_mutex_lock (&b->lock);
  else if (!g_mutex_trylock (&b->lock))
    return FALSE;
  *warmup = b->warmup_rows;
  *rows = b->rows;
  b->warmup_rows = b->spare_warmup;
  b->rows = b->spare_rows;
  g_mutex_unlock (&b->lock);
  b->spare_warmup = b->spare_rows = NULL;
  return TRUE;
}

/* Main thread: everything that arrived since the last turn. While the
 * draws are held only a run's end (`force`) hands rows over; the chains
 * schedule no hand-over meanwhile (one counts as pending), and the
 * release schedules the next. A chain whose lock is taken keeps its rows
 * for the next turn. */
static void
flush_rows (Run *run, gboolean force)
{
  TildeRunController *self = run->controller;
  ChainBuffer *chains;
  guint n_chains, n_columns;
  gboolean busy = FALSE;

  if (self == NULL)
    return;
  if (self->holds > 0 && !force)
    {
      g_atomic_int_set (&run->flush_pending, TRUE);
      return;
    }
  /* before the rows are taken: a row added after this schedules a turn */
  g_atomic_int_set (&run->flush_pending, FALSE);
  chains = g_atomic_pointer_get (&run->chains);
  if (self->draws == NULL || chains == NULL)
    return;

  n_chains = MIN (run->n_chains, tilde_draws_get_n_chains (self->draws));
  n_columns = tilde_draws_get_n_columns (self->draws);
  for (guint c = 0; c < n_chains; c++)
    {
      ChainBuffer *b = &chains[c];
      GArray *warmup, *rows;

      if (!take_rows (b, force, &warmup, &rows))
        {
          busy = TRUE;
          continue;
        }
      if (warmup->len >= n_columns)
        tilde_draws_append (self->draws, c, (double *) (void *) warmup->data, warmup->len, TRUE);
      if (rows->len >= n_columns)
        tilde_draws_append (self->draws, c, (double *) (void *) rows->data, rows->len, FALSE);
      b->spare_warmup = g_array_set_size (warmup, 0);
      b->spare_rows = g_array_set_size (rows, 0);
    }
  if (busy && g_atomic_int_compare_and_exchange (&run->flush_pending, FALSE, TRUE))
    schedule_chains_flush (run);
}

static gboolean
flush_cb (gpointer data)
{
  flush_rows (data, FALSE);
  return G_SOURCE_REMOVE;
}

static void
schedule_flush (Run *run)
{
  to_main_thread (run_ref (run), G_PRIORITY_DEFAULT_IDLE, flush_cb, "[tilde] run draws");
}

/* The chains hand rows over every FLUSH_INTERVAL_MS at most, well inside a
 * frame. A turn as soon as the last was done woke the main thread every
 * few draws of a fast model, thousands of times a second, each turn a
 * wake-up, the main context's lock taken against the chains attaching the
 * next one, and a few tens of microseconds of the main thread's time. */
#define FLUSH_INTERVAL_MS 4

static void
schedule_chains_flush (Run *run)
{
  to_main_thread_after (run_ref (run), FLUSH_INTERVAL_MS, G_PRIORITY_DEFAULT_IDLE, flush_cb,
                        "[tilde] run draws");
}

/* GTK's cairo renderer paints each frame into an image from malloc the
 * size of what changed, and while a first run's rows fill the plots the
 * heap grows under two or so of them, a whole plot page each (1200 x 900
 * pixels: 4.3 MB). */
#define FRAME_IMAGES_BYTES (8u << 20)

/* Main thread: the columns are known, so the store can be made. The run
 * will write its draws into the store and the plots' series beside it
 * (about half as much again), and the frames that show them, as fresh
 * memory, a page fault every 4 KiB in the frames: those pages are faulted
 * in ahead, off the main thread. */
static gboolean
columns_cb (gpointer data)
{
  Run *run = data;
  TildeRunController *self = run->controller;
  g_autoptr(TildeDraws) draws = NULL;
  GThread *prefault;
  gsize bytes;

  if (self == NULL)
    return G_SOURCE_REMOVE;
  g_mutex_lock (&run->lock);
  draws = tilde_draws_new ((const char *const *) run->names, run->n_chains);
  bytes = (gsize) run->n_chains * run->rows_expected * tilde_draws_get_n_columns (draws)
          * sizeof (double) / 2 * 3 + FRAME_IMAGES_BYTES;
  g_mutex_unlock (&run->lock);
  self->n_chains = tilde_draws_get_n_chains (draws);
  prefault = tilde_heap_policy_prefault (bytes);
  if (prefault != NULL)
    g_thread_unref (prefault);
  set_draws (self, draws);
  flush_rows (run, FALSE);
  return G_SOURCE_REMOVE;
}

/* Under the run's lock. */
static void
alloc_chains (Run *run, guint n_chains)
{
  ChainBuffer *chains = g_new0 (ChainBuffer, n_chains);

  for (guint c = 0; c < n_chains; c++)
    {
      g_mutex_init (&chains[c].lock);
      chains[c].warmup_rows = rows_new ();
      chains[c].rows = rows_new ();
      chains[c].spare_warmup = rows_new ();
      chains[c].spare_rows = rows_new ();
    }
  run->n_chains = n_chains;
  g_atomic_pointer_set (&run->chains, chains);
}

/* Chains' threads: the chain's buffer, made with the others by the first
 * to need them if the columns have not come yet. */
static ChainBuffer *
chain_buffer (Run *run, guint chain)
{
  ChainBuffer *chains = g_atomic_pointer_get (&run->chains);

  if (chains == NULL)
    {
      g_mutex_lock (&run->lock);
      if (run->chains == NULL)
        alloc_chains (run, MAX (run->settings.sample.chains, 1));
      chains = run->chains;
      g_mutex_unlock (&run->lock);
    }
  return chain >= 1 && chain <= run->n_chains ? &chains[chain - 1] : NULL;
}

/* The run's thread: columns come before any draw is handed over, but a
 * chain may already have drawn, so the buffers exist from here on. */
static void
on_columns (const char *const *names, gsize n, guint n_chains, gsize rows, gpointer data)
{
  Run *run = data;

  g_mutex_lock (&run->lock);
  run->rows_expected = rows;
  g_strfreev (run->names);
  run->names = g_new0 (char *, n + 1);
  for (gsize i = 0; i < n; i++)
    run->names[i] = g_strdup (names[i]);
  if (run->chains == NULL)
    alloc_chains (run, n_chains);
  g_mutex_unlock (&run->lock);
  to_main_thread (run_ref (run), G_PRIORITY_DEFAULT_IDLE, columns_cb, "[tilde] run columns");
}

/* Chains' threads. */
static void
on_draw (guint chain, const double *row, gsize n, gboolean warmup, gpointer data)
{
  Run *run = data;
  ChainBuffer *b = chain_buffer (run, chain);

  if (b == NULL)
    return;
  g_mutex_lock (&b->lock);
  g_array_append_vals (warmup ? b->warmup_rows : b->rows, row, n);
  g_mutex_unlock (&b->lock);
  if (g_atomic_int_compare_and_exchange (&run->flush_pending, FALSE, TRUE))
    schedule_chains_flush (run);
}

/* ---- the chains stepping aside for a frame ---- */

/* Main thread. */
static void
set_paused (Run *run, gboolean paused, gint64 max_us)
{
  g_mutex_lock (&run->lock);
  run->pause_end = g_get_monotonic_time () + max_us;
  g_atomic_int_set (&run->pause_expired, FALSE);
  g_atomic_int_set (&run->paused, paused);
  if (!paused)
    g_cond_broadcast (&run->resumed);
  g_mutex_unlock (&run->lock);
}

/* Chains' threads, between two iterations, where a chain holds no lock
 * (and the run's thread, between Laplace draws: the same wait). */
static void
wait_while_paused (Run *run)
{
  if (!g_atomic_int_get (&run->paused) || g_atomic_int_get (&run->pause_expired))
    return;
  g_mutex_lock (&run->lock);
  run->waiting++;
  while (run->paused)
    if (!g_cond_wait_until (&run->resumed, &run->lock, run->pause_end))
      {
        /* the others go on without the lock until the next pause */
        g_atomic_int_set (&run->pause_expired, TRUE);
        break;
      }
  run->waiting--;
  g_mutex_unlock (&run->lock);
}

static void
on_progress (guint chain, guint iteration, guint total, gboolean warmup, gpointer data)
{
  Run *run = data;
  ChainBuffer *b = chain_buffer (run, chain);

  if (b != NULL)
    {
      ChainState *c = &b->state;
      gint64 now;

      g_mutex_lock (&b->lock);
      now = g_get_monotonic_time ();
      if (!c->started)
        c->start = now;
      if (!c->started || c->warmup != warmup)
        {
          c->phase_start = now;
          c->phase_first = iteration;
        }
      c->end = now;
      c->started = TRUE;
      c->iteration = iteration;
      c->total = total;
      c->warmup = warmup;
      c->done = iteration >= total;
      g_mutex_unlock (&b->lock);
    }
  wait_while_paused (run);
}

static void
on_message (guint chain, const char *text, gpointer data)
{
  Run *run = data;

  g_mutex_lock (&run->lock);
  if (run->log->len < LOG_LIMIT)
    {
      if (chain > 0)
        g_string_append_printf (run->log, "Chain %u: ", chain);
      g_string_append (run->log, text);
      if (text[0] == '\0' || text[strlen (text) - 1] != '\n')
        g_string_append_c (run->log, '\n');
    }
  g_mutex_unlock (&run->lock);
}

static const TildeRunCallbacks callbacks = { on_columns, on_progress, on_draw, on_message };

/* ---- the end of a run ---- */

static void
add_problem (TildeRunController *self, const TildeDiagnostic *d)
{
  g_autoptr(TildeProblem) problem = tilde_problem_new (d, NULL, NULL);

  g_list_store_append (self->problems, problem);
}

/* The job's diagnostics (the model's or the data's errors, a device's
 * warnings), and the error that stopped the run when none of them says it. */
static void
keep_problems (TildeRunController *self, Run *run)
{
  GPtrArray *diagnostics = run->job ? tilde_run_job_get_diagnostics (run->job) : NULL;
  gboolean placed_error = FALSE;

  for (guint i = 0; diagnostics && i < diagnostics->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diagnostics, i);

      placed_error |= tilde_diagnostic_is_error (d);
      add_problem (self, d);
    }
  if (!placed_error && run->error != NULL
      && !g_error_matches (run->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_CANCELLED))
    {
      g_autoptr(TildeDiagnostic) d =
        tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_RUNTIME, NULL, 0, 0, 0, 0,
                              run->error->message);
      add_problem (self, d);
    }
}

static void
keep_outputs (TildeRunController *self, const char *const *paths)
{
  g_ptr_array_set_size (self->outputs, 0);
  for (const char *const *p = paths; p && *p; p++)
    g_ptr_array_add (self->outputs, g_strdup (*p));
  g_ptr_array_add (self->outputs, NULL);
}

static void
keep_estimates (TildeRunController *self, const char *const *names, const double *values,
                gsize n)
{
  g_clear_pointer (&self->estimate_names, g_strfreev);
  g_clear_pointer (&self->estimates, g_free);
  self->n_estimates = 0;
  if (values == NULL)
    return;
  self->estimate_names = g_strdupv ((char **) names);
  self->estimates = g_memdup2 (values, n * sizeof (double));
  self->n_estimates = n;
}

static void
stop_progress (TildeRunController *self)
{
  g_clear_handle_id (&self->progress_source, g_source_remove);
}

/* The draws of an opened run, from its files. */
static void
fill_opened_draws (TildeRunController *self, TildeSavedRun *saved)
{
  TildeStanCsv *first;
  g_autoptr(TildeDraws) draws = NULL;

  if (saved->opened == NULL || saved->opened->len == 0)
    return;
  first = g_ptr_array_index (saved->opened, 0);
  draws = tilde_draws_new ((const char *const *) first->column_names, saved->opened->len);
  for (guint c = 0; c < saved->opened->len; c++)
    {
      TildeStanCsv *csv = g_ptr_array_index (saved->opened, c);

      if (csv->n_columns != first->n_columns)
        continue;
      if (csv->n_warmup_draws > 0)
        tilde_draws_append (draws, c, csv->warmup_draws,
                            (gsize) csv->n_warmup_draws * csv->n_columns, TRUE);
      if (csv->n_draws > 0)
        tilde_draws_append (draws, c, csv->draws, (gsize) csv->n_draws * csv->n_columns, FALSE);
    }
  self->n_chains = saved->opened->len;
  set_draws (self, draws);
}

static void
take_opened (TildeRunController *self, Run *run)
{
  TildeSavedRun *saved = run->saved;
  TildeStanCsv *mode = saved->mode;

  g_free (self->model_text);
  self->model_text = g_steal_pointer (&saved->model_text);
  g_free (self->data_text);
  self->data_text = g_steal_pointer (&saved->data_text);
  self->settings = saved->settings;
  g_free (self->folder);
  self->folder = g_strdup (saved->folder);
  g_free (self->model_name);
  self->model_name = g_strdup (tilde_saved_run_get_model_name (saved));
  fill_opened_draws (self, saved);
  if (mode != NULL && mode->n_draws > 0)
    keep_estimates (self, (const char *const *) mode->column_names,
                    mode->draws + (gsize) (mode->n_draws - 1) * mode->n_columns,
                    mode->n_columns);
  if (saved->paths != NULL)
    keep_outputs (self, (const char *const *) saved->paths->pdata);
  g_clear_pointer (&run->summary, tilde_summary_free);
  run->summary = g_steal_pointer (&saved->summary);
}

/* Main thread: the chains have stopped; their last draws go to the store
 * and the run stops counting as running, before the summary is made. */
static gboolean
stopped_cb (gpointer data)
{
  Run *run = data;
  TildeRunController *self = run->controller;

  if (self == NULL)
    return G_SOURCE_REMOVE;
  flush_rows (run, TRUE);
  stop_progress (self);
  self->running = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
  return G_SOURCE_REMOVE;
}

/* Main thread: the run (or the reading of a saved one) is over. */
static void
end_run (Run *run)
{
  TildeRunController *self = run->controller;
  const char *const *names = NULL;
  const double *estimates;
  gsize n = 0;

  flush_rows (run, TRUE);
  if (self->thread != NULL)
    g_thread_join (self->thread);
  self->thread = NULL;
  stop_progress (self);
  if (run->saved != NULL)
    take_opened (self, run);
  else
    {
      keep_outputs (self, tilde_run_job_get_output_paths (run->job));
      estimates = tilde_run_job_get_estimates (run->job, &names, &n);
      keep_estimates (self, names, estimates, n);
    }
  g_clear_pointer (&self->summary, tilde_summary_free);
  self->summary = g_steal_pointer (&run->summary);
  keep_problems (self, run);
  g_mutex_lock (&run->lock);
  g_free (self->log);
  self->log = g_strdup (run->log->str);
  g_mutex_unlock (&run->lock);

  self->finishing = FALSE;
  if (self->running)
    {
      self->running = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
    }
  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0, run->ok ? NULL : run->error);
}

static gboolean
finished_cb (gpointer data)
{
  Run *run = data;

  if (run->controller != NULL)
    end_run (run);
  return G_SOURCE_REMOVE;
}

static void
summarize (Run *run)
{
  const TildeRunSettings *s = tilde_run_job_get_settings (run->job);
  const char *const *paths = tilde_run_job_get_output_paths (run->job);
  g_autoptr(GError) error = NULL;

  if (s->method != TILDE_RUN_SAMPLE || paths[0] == NULL)
    return;
  run->summary = tilde_run_summarize_files (paths, &error);
  if (run->summary == NULL)
    g_debug ("No summary: %s", error->message);
}

/* The chains are background work: on Linux a thread's scheduling is its
 * own and the threads it starts inherit it, so lowering this thread's
 * lowers the chains', and the main loop gets the processor first however
 * many chains there are. Nice 10, not lower and not SCHED_IDLE: a chain
 * must still get the processor for a moment while other programs keep it
 * busy, to notice Stop (within 100 ms) and to hand its last draws over.
 * (`tilde sample` runs at the priority it is given.) */
static void
lower_priority (void)
{
#ifdef __linux__
  int value;

  errno = 0;
  value = getpriority (PRIO_PROCESS, 0);
  if (errno == 0 && value < 10)
    setpriority (PRIO_PROCESS, 0, 10);
#endif
}

static gpointer
run_thread (gpointer data)
{
  Run *run = data;

  lower_priority ();
  run->ok = tilde_run_job_run (run->job, &callbacks, run, &run->error);
  to_main_thread (run_ref (run), G_PRIORITY_DEFAULT, stopped_cb, "[tilde] run stopped");
  if (!g_atomic_int_get (&run->abandoned))
    summarize (run);
  to_main_thread (run, G_PRIORITY_DEFAULT_IDLE, finished_cb, "[tilde] run finished");
  return NULL;
}

/* ---- progress ---- */

static gboolean
progress_cb (gpointer data)
{
  TildeRunController *self = data;

  g_signal_emit (self, signals[SIGNAL_PROGRESS], 0);
  return G_SOURCE_CONTINUE;
}

gboolean
tilde_run_controller_get_progress (TildeRunController *self,
                                   guint               chain,
                                   TildeChainProgress *progress)
{
  Run *run = self->run;
  ChainBuffer *chains, *b;
  ChainState c;
  double seconds;

  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  *progress = (TildeChainProgress) { TILDE_CHAIN_PHASE_PENDING, 0, 0, 0, -1, 0 };
  if (run == NULL)
    return FALSE;
  chains = g_atomic_pointer_get (&run->chains);
  if (chains == NULL || chain >= run->n_chains)
    return FALSE;
  /* the state last read while the chain holds its lock */
  b = &chains[chain];
  if (g_mutex_trylock (&b->lock))
    {
      b->seen = b->state;
      g_mutex_unlock (&b->lock);
    }
  c = b->seen;
  if (!c.started)
    return TRUE;
  progress->iteration = c.iteration;
  progress->total = c.total;
  progress->phase = c.done ? TILDE_CHAIN_PHASE_DONE
                    : c.warmup ? TILDE_CHAIN_PHASE_WARMUP : TILDE_CHAIN_PHASE_SAMPLING;
  if (c.done)
    {
      /* the rate of a phase still running would fall as the clock moves on */
      progress->seconds_left = 0;
      progress->seconds = (c.end - c.start) / 1e6;
      return TRUE;
    }
  gint64 now = g_get_monotonic_time ();
  progress->seconds = (now - c.start) / 1e6;
  seconds = (now - c.phase_start) / 1e6;
  if (seconds > 0.05 && c.iteration > c.phase_first)
    {
      progress->per_second = (c.iteration - c.phase_first) / seconds;
      progress->seconds_left = (c.total - c.iteration) / progress->per_second;
    }
  return TRUE;
}

/* ---- starting and stopping ---- */

static char *
new_run_folder (TildeRunController *self)
{
  g_autofree char *base = self->runs_folder
                          ? g_strdup (self->runs_folder)
                          : g_build_filename (g_get_user_cache_dir (), "tilde", "runs", NULL);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");

  for (guint i = 0;; i++)
    {
      g_autofree char *name = i ? g_strdup_printf ("%s-%s-%u", self->model_name, stamp, i)
                                : g_strdup_printf ("%s-%s", self->model_name, stamp);
      char *path = g_build_filename (base, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        return path;
      g_free (path);
    }
}

static void
begin (TildeRunController *self, Run *run)
{
  g_list_store_remove_all (self->problems);
  g_clear_pointer (&self->summary, tilde_summary_free);
  keep_outputs (self, NULL);
  keep_estimates (self, NULL, NULL, 0);
  g_clear_pointer (&self->log, g_free);
  self->n_chains = 0;
  if (self->run)
    {
      self->run->controller = NULL;
      run_unref (self->run);
    }
  self->run = run_ref (run);
  self->running = TRUE;
  self->finishing = TRUE;
  /* running already: those watching the draws go see a run starting */
  set_draws (self, NULL);
  self->progress_source = g_timeout_add (PROGRESS_INTERVAL_MS, progress_cb, self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

gboolean
tilde_run_controller_start (TildeRunController     *self,
                            const char             *model_name,
                            const char             *model_text,
                            const char             *data_text,
                            const TildeRunSettings *settings)
{
  Run *run;

  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  if (self->running || self->finishing)
    return FALSE;
  g_free (self->model_name);
  self->model_name = g_strdup (model_name && *model_name ? model_name : "model");
  g_free (self->model_text);
  self->model_text = g_strdup (model_text);
  g_free (self->data_text);
  self->data_text = g_strdup (data_text);
  self->settings = *settings;
  g_free (self->folder);
  self->folder = new_run_folder (self);

  run = run_new (self);
  run->settings = *settings;
  run->job = tilde_run_job_new (self->model_name, model_text, data_text, self->folder, settings);
  begin (self, run);
  self->thread = g_thread_new ("tilde-run", run_thread, run);
  return TRUE;
}

void
tilde_run_controller_stop (TildeRunController *self)
{
  g_return_if_fail (TILDE_IS_RUN_CONTROLLER (self));
  if (self->running && self->run && self->run->job)
    {
      tilde_run_job_cancel (self->run->job);
      self->run->stop_asked = TRUE;
      /* a paused chain is to notice at once */
      set_paused (self->run, FALSE, 0);
    }
}

/* ---- saving and opening ---- */

static gboolean
write_text (const char *folder, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);

  return g_file_set_contents (path, text ? text : "", -1, error);
}

gboolean
tilde_run_controller_save (TildeRunController *self, const char *folder, GError **error)
{
  g_autofree char *options = NULL;

  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  if (self->running || self->model_text == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           _("There is no finished run to save."));
      return FALSE;
    }
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   _("The folder %s could not be made: %s"), folder, g_strerror (errno));
      return FALSE;
    }
  options = tilde_run_settings_to_json (&self->settings);
  if (!write_text (folder, "model.stan", self->model_text, error)
      || !write_text (folder, "data.json", self->data_text, error)
      || !write_text (folder, "options.json", options, error))
    return FALSE;
  for (guint i = 0; i + 1 < self->outputs->len; i++)
    {
      const char *path = g_ptr_array_index (self->outputs, i);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *to = g_build_filename (folder, base, NULL);
      g_autoptr(GFile) src = g_file_new_for_path (path);
      g_autoptr(GFile) dst = g_file_new_for_path (to);

      if (g_strcmp0 (path, to) != 0
          && !g_file_copy (src, dst, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, error))
        return FALSE;
    }
  return TRUE;
}

static int
compare_chain_files (gconstpointer a, gconstpointer b)
{
  const char *x = *(const char *const *) a, *y = *(const char *const *) b;
  gsize lx = strlen (x), ly = strlen (y);

  /* output_2.csv before output_10.csv */
  return lx != ly ? (lx < ly ? -1 : 1) : strcmp (x, y);
}

/* The CSV files of a saved run, in chain order. */
static GPtrArray *
list_csv_files (const char *folder, TildeRunMethod method, GError **error)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, error);
  GPtrArray *paths;
  const char *name;

  if (dir == NULL)
    return NULL;
  paths = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      gboolean wanted = method == TILDE_RUN_OPTIMIZE
                        ? g_str_equal (name, "optimize.csv") || g_str_equal (name, "laplace.csv")
                        : g_str_has_prefix (name, "output") && g_str_has_suffix (name, ".csv");
      if (wanted)
        g_ptr_array_add (paths, g_build_filename (folder, name, NULL));
    }
  g_ptr_array_sort (paths, compare_chain_files);
  /* "laplace.csv" and "optimize.csv" are as long: the mode comes first */
  if (method == TILDE_RUN_OPTIMIZE && paths->len == 2
      && g_str_has_suffix (g_ptr_array_index (paths, 0), "laplace.csv"))
    {
      gpointer t = paths->pdata[0];

      paths->pdata[0] = paths->pdata[1];
      paths->pdata[1] = t;
    }
  return paths;
}

void
tilde_saved_run_free (TildeSavedRun *saved)
{
  if (saved == NULL)
    return;
  g_free (saved->folder);
  g_free (saved->model_name);
  g_free (saved->model_text);
  g_free (saved->data_text);
  g_clear_pointer (&saved->opened, g_ptr_array_unref);
  g_clear_pointer (&saved->mode, tilde_stan_csv_free);
  g_clear_pointer (&saved->paths, g_ptr_array_unref);
  g_clear_pointer (&saved->summary, tilde_summary_free);
  g_free (saved);
}

const char *
tilde_saved_run_get_folder (const TildeSavedRun *saved)
{
  return saved->folder;
}

const char *
tilde_saved_run_get_model_name (const TildeSavedRun *saved)
{
  return saved->model_name;
}

const char *
tilde_saved_run_get_model_text (const TildeSavedRun *saved)
{
  return saved->model_text;
}

const char *
tilde_saved_run_get_data_text (const TildeSavedRun *saved)
{
  return saved->data_text;
}

const TildeRunSettings *
tilde_saved_run_get_settings (const TildeSavedRun *saved)
{
  return &saved->settings;
}

/* options.json first: a folder without one is not a run at all. */
static gboolean
read_options (TildeSavedRun *saved, GError **error)
{
  g_autofree char *path = g_build_filename (saved->folder, "options.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;

  tilde_run_settings_init (&saved->settings);
  if (!g_file_get_contents (path, &text, NULL, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                     _("“%s” is not a saved run: it has no options.json."), saved->folder);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (!tilde_run_settings_from_json (text, &saved->settings, &local))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_texts (TildeSavedRun *saved, GError **error)
{
  g_autofree char *model_path = g_build_filename (saved->folder, "model.stan", NULL);
  g_autofree char *data_path = g_build_filename (saved->folder, "data.json", NULL);

  /* GLib's messages name the file */
  if (!g_file_get_contents (model_path, &saved->model_text, NULL, error))
    return FALSE;
  /* a model without data is saved with an empty data.json */
  if (!g_file_get_contents (data_path, &saved->data_text, NULL, NULL))
    saved->data_text = g_strdup ("");
  return TRUE;
}

/* Each chain options.json counts wrote a file, named as the sampler
 * names them: a folder short of one is not the run it says it is. */
static gboolean
check_chain_files (TildeSavedRun *saved, GError **error)
{
  guint chains = saved->settings.sample.chains;
  g_autofree char *output = g_build_filename (saved->folder, "output.csv", NULL);

  for (guint id = 1; id <= chains; id++)
    {
      g_autofree char *path = tilde_sample_chain_output_path (output, chains, id);

      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                       _("The run’s draws are missing: there is no %s."), path);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
read_draws (TildeSavedRun *saved, GError **error)
{
  g_autoptr(GPtrArray) paths = NULL;

  if (saved->settings.method == TILDE_RUN_SAMPLE && !check_chain_files (saved, error))
    return FALSE;
  paths = list_csv_files (saved->folder, saved->settings.method, error);
  if (paths == NULL)
    return FALSE;
  if (paths->len == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("“%s” has no optimize.csv: the run’s results are missing."), saved->folder);
      return FALSE;
    }
  saved->opened = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_stan_csv_free);
  for (guint i = 0; i < paths->len; i++)
    {
      /* its messages name the file */
      TildeStanCsv *csv = tilde_stan_csv_read_file (g_ptr_array_index (paths, i), error);

      if (csv == NULL)
        return FALSE;
      /* an optimisation's table shows the mode, its plots the Laplace draws */
      if (saved->settings.method == TILDE_RUN_OPTIMIZE && i == 0)
        saved->mode = csv;
      else
        g_ptr_array_add (saved->opened, csv);
    }
  g_ptr_array_add (paths, NULL);
  if (saved->settings.method == TILDE_RUN_SAMPLE)
    saved->summary = tilde_run_summarize_files ((const char *const *) paths->pdata, NULL);
  saved->paths = g_steal_pointer (&paths);
  return TRUE;
}

/* The files say "model = eight_schools_model", as CmdStan's do: the
 * model's name with "_model" after it. */
static char *
model_name_of (const TildeSavedRun *saved)
{
  TildeStanCsv *csv = saved->mode;

  if (csv == NULL && saved->opened != NULL && saved->opened->len > 0)
    csv = g_ptr_array_index (saved->opened, 0);
  if (csv != NULL && csv->model != NULL && *csv->model != '\0')
    {
      gsize n = strlen (csv->model);

      if (g_str_has_suffix (csv->model, "_model") && n > strlen ("_model"))
        n -= strlen ("_model");
      return g_strndup (csv->model, n);
    }
  return g_path_get_basename (saved->folder);
}

static TildeSavedRun *
read_saved_run (const char *folder, GError **error)
{
  g_autoptr(TildeSavedRun) saved = g_new0 (TildeSavedRun, 1);

  saved->folder = g_strdup (folder);
  if (!read_options (saved, error) || !read_texts (saved, error) || !read_draws (saved, error))
    return NULL;
  saved->model_name = model_name_of (saved);
  return g_steal_pointer (&saved);
}

static void
read_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  TildeSavedRun *saved = read_saved_run (data, &error);

  if (saved == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, saved, (GDestroyNotify) tilde_saved_run_free);
}

void
tilde_saved_run_read_async (const char          *folder,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, tilde_saved_run_read_async);
  g_task_set_task_data (task, g_strdup (folder), g_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, read_in_thread);
}

TildeSavedRun *
tilde_saved_run_read_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static gpointer
open_thread (gpointer data)
{
  Run *run = data;

  run->saved = read_saved_run (run->folder, &run->error);
  run->ok = run->saved != NULL;
  to_main_thread (run, G_PRIORITY_DEFAULT_IDLE, finished_cb, "[tilde] run opened");
  return NULL;
}

gboolean
tilde_run_controller_open (TildeRunController *self, const char *folder)
{
  Run *run;

  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  if (self->running || self->finishing)
    return FALSE;
  run = run_new (self);
  run->folder = g_strdup (folder);
  begin (self, run);
  self->thread = g_thread_new ("tilde-open-run", open_thread, run);
  return TRUE;
}

gboolean
tilde_run_controller_show_saved (TildeRunController *self, TildeSavedRun *saved)
{
  Run *run;

  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (saved != NULL, FALSE);
  if (self->running || self->finishing)
    {
      tilde_saved_run_free (saved);
      return FALSE;
    }
  run = run_new (self);
  run->folder = g_strdup (saved->folder);
  run->saved = saved;
  run->ok = TRUE;
  begin (self, run);
  end_run (run);
  run_unref (run);
  return TRUE;
}

/* ---- the object ---- */

TildeRunController *
tilde_run_controller_new (void)
{
  return g_object_new (TILDE_TYPE_RUN_CONTROLLER, NULL);
}

gboolean
tilde_run_controller_get_running (TildeRunController *self)
{
  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  return self->running;
}

gboolean
tilde_run_controller_get_busy (TildeRunController *self)
{
  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), FALSE);
  return self->running || self->finishing;
}

const char *
tilde_run_controller_get_runs_folder (TildeRunController *self)
{
  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), NULL);
  return self->runs_folder;
}

void
tilde_run_controller_set_runs_folder (TildeRunController *self, const char *folder)
{
  g_return_if_fail (TILDE_IS_RUN_CONTROLLER (self));
  if (g_strcmp0 (self->runs_folder, folder) == 0)
    return;
  g_free (self->runs_folder);
  self->runs_folder = folder && *folder ? g_strdup (folder) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNS_FOLDER]);
}

void
tilde_run_controller_hold_draws (TildeRunController *self)
{
  g_return_if_fail (TILDE_IS_RUN_CONTROLLER (self));
  self->holds++;
}

void
tilde_run_controller_release_draws (TildeRunController *self)
{
  Run *run;

  g_return_if_fail (TILDE_IS_RUN_CONTROLLER (self));
  g_return_if_fail (self->holds > 0);
  run = self->run;
  if (--self->holds > 0 || run == NULL)
    return;
  /* what came while held, handed over in a turn of its own */
  if (g_atomic_int_get (&run->flush_pending))
    schedule_flush (run);
}

/* Only while the chains run and Stop has not been asked for: a pause
 * must never keep a stopping chain from noticing. */
static gboolean
chains_pausable (TildeRunController *self)
{
  return self->running && self->run != NULL && self->run->job != NULL && !self->run->stop_asked;
}

void
tilde_run_controller_pause_chains (TildeRunController *self)
{
  g_return_if_fail (TILDE_IS_RUN_CONTROLLER (self));
  if (self->pauses++ == 0 && chains_pausable (self))
    set_paused (self->run, TRUE, self->pause_max_us);
}

void
tilde_run_controller_resume_chains (TildeRunController *self)
{
  g_return_if_fail (TILDE_IS_RUN_CONTROLLER (self));
  g_return_if_fail (self->pauses > 0);
  if (--self->pauses == 0 && self->run != NULL)
    set_paused (self->run, FALSE, 0);
}

void
_tilde_run_controller_set_pause_max_ms (TildeRunController *self, guint ms)
{
  self->pause_max_us = ms * G_TIME_SPAN_MILLISECOND;
}

gboolean
_tilde_run_controller_get_chains_paused (TildeRunController *self)
{
  return self->run != NULL && g_atomic_int_get (&self->run->paused);
}

guint
_tilde_run_controller_get_waiting_chains (TildeRunController *self)
{
  guint waiting;

  if (self->run == NULL)
    return 0;
  g_mutex_lock (&self->run->lock);
  waiting = self->run->waiting;
  g_mutex_unlock (&self->run->lock);
  return waiting;
}

GMutex *
_tilde_run_controller_get_chain_lock (TildeRunController *self, guint chain)
{
  ChainBuffer *chains = self->run ? g_atomic_pointer_get (&self->run->chains) : NULL;

  if (chains == NULL || chain >= self->run->n_chains)
    return NULL;
  return &chains[chain].lock;
}

TildeDraws *
tilde_run_controller_get_draws (TildeRunController *self)
{
  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), NULL);
  return self->draws;
}

guint
tilde_run_controller_get_n_chains (TildeRunController *self)
{
  Run *run = self->run;

  g_return_val_if_fail (TILDE_IS_RUN_CONTROLLER (self), 0);
  if (run == NULL)
    return 0;
  return g_atomic_pointer_get (&run->chains) ? run->n_chains : self->n_chains;
}

const TildeRunSettings *
tilde_run_controller_get_settings (TildeRunController *self)
{
  return &self->settings;
}

const char *
tilde_run_controller_get_model_name (TildeRunController *self)
{
  return self->model_name;
}

const char *
tilde_run_controller_get_model_text (TildeRunController *self)
{
  return self->model_text;
}

const char *
tilde_run_controller_get_data_text (TildeRunController *self)
{
  return self->data_text;
}

const char *
tilde_run_controller_get_folder (TildeRunController *self)
{
  return self->folder;
}

const char *const *
tilde_run_controller_get_output_paths (TildeRunController *self)
{
  return (const char *const *) self->outputs->pdata;
}

const TildeSummary *
tilde_run_controller_get_summary (TildeRunController *self)
{
  return self->summary;
}

const double *
tilde_run_controller_get_estimates (TildeRunController *self, const char *const **names, gsize *n)
{
  if (names)
    *names = (const char *const *) self->estimate_names;
  if (n)
    *n = self->n_estimates;
  return self->estimates;
}

GListModel *
tilde_run_controller_get_problems (TildeRunController *self)
{
  return G_LIST_MODEL (self->problems);
}

const char *
tilde_run_controller_get_log (TildeRunController *self)
{
  return self->log ? self->log : "";
}

static void
tilde_run_controller_dispose (GObject *object)
{
  TildeRunController *self = TILDE_RUN_CONTROLLER (object);

  stop_progress (self);
  if (self->run != NULL)
    {
      g_atomic_int_set (&self->run->abandoned, TRUE);
      if (self->run->job)
        tilde_run_job_cancel (self->run->job);
      set_paused (self->run, FALSE, 0);
      /* the thread ends by itself once its chains have stopped */
      if (self->thread)
        g_thread_join (self->thread);
      self->thread = NULL;
      self->run->controller = NULL;
      g_clear_pointer (&self->run, run_unref);
    }
  g_clear_object (&self->draws);
  g_clear_pointer (&self->summary, tilde_summary_free);
  G_OBJECT_CLASS (tilde_run_controller_parent_class)->dispose (object);
}

static void
tilde_run_controller_finalize (GObject *object)
{
  TildeRunController *self = TILDE_RUN_CONTROLLER (object);

  g_clear_object (&self->problems);
  g_free (self->runs_folder);
  g_free (self->folder);
  g_free (self->model_name);
  g_free (self->model_text);
  g_free (self->data_text);
  g_free (self->log);
  g_ptr_array_unref (self->outputs);
  g_strfreev (self->estimate_names);
  g_free (self->estimates);
  G_OBJECT_CLASS (tilde_run_controller_parent_class)->finalize (object);
}

static void
tilde_run_controller_get_property (GObject *object, guint prop_id, GValue *value,
                                   GParamSpec *pspec)
{
  TildeRunController *self = TILDE_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_DRAWS:
      g_value_set_object (value, self->draws);
      break;
    case PROP_RUNS_FOLDER:
      g_value_set_string (value, self->runs_folder);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_controller_set_property (GObject *object, guint prop_id, const GValue *value,
                                   GParamSpec *pspec)
{
  TildeRunController *self = TILDE_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_RUNS_FOLDER:
      tilde_run_controller_set_runs_folder (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_controller_class_init (TildeRunControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = tilde_run_controller_dispose;
  object_class->finalize = tilde_run_controller_finalize;
  object_class->get_property = tilde_run_controller_get_property;
  object_class->set_property = tilde_run_controller_set_property;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DRAWS] =
    g_param_spec_object ("draws", NULL, NULL, TILDE_TYPE_DRAWS,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNS_FOLDER] =
    g_param_spec_string ("runs-folder", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
tilde_run_controller_init (TildeRunController *self)
{
  self->problems = g_list_store_new (TILDE_TYPE_PROBLEM);
  self->outputs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->outputs, NULL);
  tilde_run_settings_init (&self->settings);
  self->pause_max_us = PAUSE_MAX_US;
}
