/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "worker/worker.h"

#include "worker/job-private.h"

/* What the thread, the jobs in flight and the worker's owner share. It
 * outlives the worker while results are still on their way to the main
 * context, so a late one finds `closed` set instead of freed memory. */
typedef struct {
  gatomicrefcount  ref;
  GMutex           mutex;
  GCond            cond;
  GQueue           queue;                       /* Job*, oldest first */
  guint64          latest[TILDE_N_JOB_KINDS];   /* newest generation of each kind */
  struct Job      *running;
  gboolean         closed;
  guint            delay_ms;
  TildeWorkerStats stats;
  GMainContext    *context;
} State;

typedef struct Job {
  State              *state;
  TildeJobKind        kind;
  guint64             generation;
  TildeJobInput      *input;
  int                 line;
  int                 column;
  TildeCompileFunc    func;
  gpointer            func_data;
  TildeCheckResult   *model;
  GDestroyNotify      func_data_free;
  TildeWorkerCallback callback;
  gpointer            user_data;
  GDestroyNotify      destroy;
  GCancellable       *cancellable;
  TildeJobResult     *result;
} Job;

struct TildeWorker {
  State   *state;
  GThread *thread;
};

static State *
state_ref (State *s)
{
  g_atomic_ref_count_inc (&s->ref);
  return s;
}

static void
state_unref (State *s)
{
  if (!g_atomic_ref_count_dec (&s->ref))
    return;
  g_mutex_clear (&s->mutex);
  g_cond_clear (&s->cond);
  g_main_context_unref (s->context);
  g_free (s);
}

static void
job_free (gpointer data)
{
  Job *job = data;

  if (job->destroy != NULL)
    job->destroy (job->user_data);
  if (job->func_data_free != NULL)
    job->func_data_free (job->func_data);
  g_clear_pointer (&job->result, tilde_job_result_unref);
  g_clear_pointer (&job->model, tilde_check_result_unref);
  tilde_job_input_unref (job->input);
  g_object_unref (job->cancellable);
  state_unref (job->state);
  g_free (job);
}

/* Runs on the main context: only the newest job of a kind is delivered. */
static gboolean
deliver (gpointer data)
{
  Job *job = data;
  State *s = job->state;
  gboolean current;

  if (job->result == NULL)
    return G_SOURCE_REMOVE;
  g_mutex_lock (&s->mutex);
  current = !s->closed && job->generation == s->latest[job->kind];
  if (current)
    s->stats.delivered++;
  else
    s->stats.dropped++;
  g_mutex_unlock (&s->mutex);
  if (current && job->callback != NULL)
    job->callback (job->result, job->user_data);
  return G_SOURCE_REMOVE;
}

/* Every job goes back to the main context, delivered or not, so that its
 * destroy notify (often a widget's unref) runs there. An idle source rather
 * than g_main_context_invoke(), which could run it on this thread when the
 * main thread is not iterating. */
static void
hand_back (Job *job)
{
  GSource *source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, deliver, job, job_free);
  g_source_set_static_name (source, "[tilde] engine result");
  g_source_attach (source, job->state->context);
  g_source_unref (source);
}

/* The test hook: a pause that only closing the worker cuts short. */
static void
wait_delay (State *s, guint delay_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) delay_ms * G_TIME_SPAN_MILLISECOND;

  g_mutex_lock (&s->mutex);
  while (!s->closed && g_cond_wait_until (&s->cond, &s->mutex, end))
    ;
  g_mutex_unlock (&s->mutex);
}

static TildeJobResult *
run_job (Job *job)
{
  switch (job->kind)
    {
    case TILDE_JOB_CHECK:
      return tilde_job_run_check (job->input);
    case TILDE_JOB_FORMAT:
      return tilde_job_run_format (job->input, job->line, job->column);
    case TILDE_JOB_COMPILE:
      return tilde_job_run_compile (job->input, job->func, job->func_data, job->cancellable);
    case TILDE_JOB_DATA_CHECK:
      return tilde_job_run_data_check (job->input, job->model);
    default:
      g_return_val_if_reached (NULL);
    }
}

static gboolean
is_stale (State *s, Job *job)
{
  return job->generation < s->latest[job->kind];
}

/* Waits for the next job that is still wanted; NULL once the worker closes. */
static Job *
next_job (State *s)
{
  Job *job = NULL;

  g_mutex_lock (&s->mutex);
  while (job == NULL && !s->closed)
    {
      if (g_queue_is_empty (&s->queue))
        {
          g_cond_wait (&s->cond, &s->mutex);
          continue;
        }
      job = g_queue_pop_head (&s->queue);
      if (is_stale (s, job))
        {
          s->stats.skipped++;
          s->stats.finished++;
          hand_back (job);
          job = NULL;
        }
    }
  if (job != NULL)
    s->running = job;
  g_mutex_unlock (&s->mutex);
  return job;
}

static gpointer
worker_thread (gpointer data)
{
  State *s = data;
  Job *job;

  while ((job = next_job (s)) != NULL)
    {
      TildeJobResult *result;
      guint delay_ms;

      g_mutex_lock (&s->mutex);
      delay_ms = job->kind == TILDE_JOB_CHECK || job->kind == TILDE_JOB_DATA_CHECK ? s->delay_ms : 0;
      g_mutex_unlock (&s->mutex);
      if (delay_ms > 0)
        wait_delay (s, delay_ms);

      result = run_job (job);
      if (result != NULL)
        _tilde_job_result_set_generation (result, job->generation);

      g_mutex_lock (&s->mutex);
      s->running = NULL;
      if (s->closed || is_stale (s, job) || g_cancellable_is_cancelled (job->cancellable))
        {
          s->stats.discarded++;
          g_clear_pointer (&result, tilde_job_result_unref);
        }
      job->result = result;
      s->stats.finished++;
      hand_back (job);
      g_mutex_unlock (&s->mutex);
    }
  state_unref (s);
  return NULL;
}

static guint
delay_from_environment (void)
{
  const char *value = g_getenv ("TILDE_WORKER_CHECK_DELAY_MS");
  guint64 ms = 0;

  if (value != NULL && !g_ascii_string_to_unsigned (value, 10, 0, 60000, &ms, NULL))
    g_warning ("TILDE_WORKER_CHECK_DELAY_MS=%s is not a number of milliseconds up to 60000", value);
  return (guint) ms;
}

TildeWorker *
tilde_worker_new (void)
{
  TildeWorker *worker = g_new0 (TildeWorker, 1);
  State *s = g_new0 (State, 1);

  g_atomic_ref_count_init (&s->ref);
  g_mutex_init (&s->mutex);
  g_cond_init (&s->cond);
  g_queue_init (&s->queue);
  s->context = g_main_context_ref_thread_default ();
  s->delay_ms = delay_from_environment ();
  worker->state = s;
  worker->thread = g_thread_new ("tilde-engine", worker_thread, state_ref (s));
  return worker;
}

void
tilde_worker_free (TildeWorker *worker)
{
  State *s;
  GQueue queued = G_QUEUE_INIT;
  GCancellable *running = NULL;

  if (worker == NULL)
    return;
  s = worker->state;
  g_mutex_lock (&s->mutex);
  s->closed = TRUE;
  queued = s->queue;
  g_queue_init (&s->queue);
  if (s->running != NULL)
    running = g_object_ref (s->running->cancellable);
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->mutex);

  if (running != NULL)
    {
      g_cancellable_cancel (running);
      g_object_unref (running);
    }
  g_thread_join (worker->thread);
  g_queue_clear_full (&queued, job_free);
  state_unref (s);
  g_free (worker);
}

static Job *
job_new (TildeWorker *worker, TildeJobKind kind, TildeJobInput *input,
         TildeWorkerCallback callback, gpointer user_data, GDestroyNotify destroy)
{
  Job *job = g_new0 (Job, 1);

  job->state = state_ref (worker->state);
  job->kind = kind;
  job->input = tilde_job_input_ref (input);
  job->callback = callback;
  job->user_data = user_data;
  job->destroy = destroy;
  job->cancellable = g_cancellable_new ();
  return job;
}

/* Numbers the job, supersedes the older ones of its kind and queues it. */
static guint64
submit (TildeWorker *worker, Job *job)
{
  State *s = worker->state;
  GCancellable *superseded = NULL;
  guint64 generation;

  g_mutex_lock (&s->mutex);
  if (s->closed)
    {
      g_mutex_unlock (&s->mutex);
      job_free (job);
      g_return_val_if_reached (0);
    }
  generation = job->generation = ++s->latest[job->kind];
  if (s->running != NULL && s->running->kind == job->kind)
    superseded = g_object_ref (s->running->cancellable);
  g_queue_push_tail (&s->queue, job);
  s->stats.submitted++;
  g_cond_signal (&s->cond);
  g_mutex_unlock (&s->mutex);

  /* Outside the lock: a compile stage may have handlers on its cancellable. */
  if (superseded != NULL)
    {
      g_cancellable_cancel (superseded);
      g_object_unref (superseded);
    }
  return generation;
}

guint64
tilde_worker_check (TildeWorker *worker, TildeJobInput *input,
                    TildeWorkerCallback callback, gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (worker != NULL, 0);
  g_return_val_if_fail (input != NULL, 0);
  return submit (worker, job_new (worker, TILDE_JOB_CHECK, input, callback, user_data, destroy));
}

guint64
tilde_worker_format (TildeWorker *worker, TildeJobInput *input, int line, int column,
                     TildeWorkerCallback callback, gpointer user_data, GDestroyNotify destroy)
{
  Job *job;

  g_return_val_if_fail (worker != NULL, 0);
  g_return_val_if_fail (input != NULL, 0);
  job = job_new (worker, TILDE_JOB_FORMAT, input, callback, user_data, destroy);
  job->line = line;
  job->column = column;
  return submit (worker, job);
}

guint64
tilde_worker_compile (TildeWorker *worker, TildeJobInput *input,
                      TildeCompileFunc func, gpointer func_data, GDestroyNotify func_data_free,
                      TildeWorkerCallback callback, gpointer user_data, GDestroyNotify destroy)
{
  Job *job;

  g_return_val_if_fail (worker != NULL, 0);
  g_return_val_if_fail (input != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  job = job_new (worker, TILDE_JOB_COMPILE, input, callback, user_data, destroy);
  job->func = func;
  job->func_data = func_data;
  job->func_data_free = func_data_free;
  return submit (worker, job);
}

guint64
tilde_worker_check_data (TildeWorker *worker, TildeJobInput *input, TildeCheckResult *model,
                         TildeWorkerCallback callback, gpointer user_data, GDestroyNotify destroy)
{
  Job *job;

  g_return_val_if_fail (worker != NULL, 0);
  g_return_val_if_fail (input != NULL, 0);
  job = job_new (worker, TILDE_JOB_DATA_CHECK, input, callback, user_data, destroy);
  job->model = model ? tilde_check_result_ref (model) : NULL;
  return submit (worker, job);
}

void
tilde_worker_cancel (TildeWorker *worker, TildeJobKind kind)
{
  State *s;
  GCancellable *running = NULL;

  g_return_if_fail (worker != NULL);
  g_return_if_fail (kind < TILDE_N_JOB_KINDS);
  s = worker->state;
  g_mutex_lock (&s->mutex);
  s->latest[kind]++;
  if (s->running != NULL && s->running->kind == kind)
    running = g_object_ref (s->running->cancellable);
  g_mutex_unlock (&s->mutex);
  if (running != NULL)
    {
      g_cancellable_cancel (running);
      g_object_unref (running);
    }
}

guint64
tilde_worker_get_generation (TildeWorker *worker, TildeJobKind kind)
{
  guint64 generation;

  g_return_val_if_fail (worker != NULL, 0);
  g_return_val_if_fail (kind < TILDE_N_JOB_KINDS, 0);
  g_mutex_lock (&worker->state->mutex);
  generation = worker->state->latest[kind];
  g_mutex_unlock (&worker->state->mutex);
  return generation;
}

void
tilde_worker_get_stats (TildeWorker *worker, TildeWorkerStats *stats)
{
  g_return_if_fail (worker != NULL);
  g_return_if_fail (stats != NULL);
  g_mutex_lock (&worker->state->mutex);
  *stats = worker->state->stats;
  g_mutex_unlock (&worker->state->mutex);
}

void
tilde_worker_set_check_delay (TildeWorker *worker, guint delay_ms)
{
  g_return_if_fail (worker != NULL);
  g_mutex_lock (&worker->state->mutex);
  worker->state->delay_ms = delay_ms;
  g_mutex_unlock (&worker->state->mutex);
}
