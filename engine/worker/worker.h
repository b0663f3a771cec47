/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The engine thread of a window: one thread that takes jobs (job.h) from a
 * queue, in order, and hands each result back on the main context of the
 * thread that made the worker.
 *
 * Every job gets a generation number, counted per kind. A newer job of a
 * kind supersedes the older ones: an older job still in the queue is
 * skipped, the one running is cancelled (its cancellable fires; a check,
 * which cannot stop half way, finishes and its result is thrown away), and
 * an older result that reaches the main context after a newer job was
 * submitted is dropped. So the callback only ever sees the result of the
 * newest job of its kind, and never one older than a result it saw before.
 *
 * Each job owns its input (an immutable copy) and its callback data: the
 * destroy notify runs on the main context once the job is over, whether its
 * callback ran or not. tilde_worker_free() stops the thread; no callback
 * runs after it returns.
 *
 * Test hook: a delay before each check and data-check job, set with
 * tilde_worker_set_check_delay() or, for every worker of the process, with
 * the environment variable TILDE_WORKER_CHECK_DELAY_MS. It stands for a slow
 * front end, so it is not cut short by cancellation (only by
 * tilde_worker_free()).
 */
#pragma once

#include <gio/gio.h>

#include "worker/job.h"

G_BEGIN_DECLS

typedef struct TildeWorker TildeWorker;

/* Runs on the worker's main context with the result of the newest job of
 * its kind; the result is the callback's to ref if it keeps it. */
typedef void (*TildeWorkerCallback) (TildeJobResult *result, gpointer user_data);

/* Counts since the worker was made, for tests and the status display. */
typedef struct {
  guint submitted;   /* jobs queued */
  guint skipped;     /* superseded before they started */
  guint discarded;   /* superseded while they ran: their result was thrown away */
  guint delivered;   /* results handed to a callback */
  guint dropped;     /* results that reached the main context already superseded */
  guint finished;    /* jobs the thread is done with, whatever became of them */
} TildeWorkerStats;

/* Results go to the thread-default main context of the calling thread. */
TildeWorker *tilde_worker_new    (void);
/* Cancels the running job, forgets the queued ones, waits for the thread to
 * end, and frees the worker. Pending callbacks are dropped (their destroy
 * notifies still run, on the main context or here). */
void         tilde_worker_free   (TildeWorker *worker);

/* Each returns the job's generation. */
guint64      tilde_worker_check   (TildeWorker        *worker,
                                   TildeJobInput      *input,
                                   TildeWorkerCallback callback,
                                   gpointer            user_data,
                                   GDestroyNotify      destroy);
/* `line` (1-based) and `column` (0-based, bytes): the place to carry over. */
guint64      tilde_worker_format  (TildeWorker        *worker,
                                   TildeJobInput      *input,
                                   int                 line,
                                   int                 column,
                                   TildeWorkerCallback callback,
                                   gpointer            user_data,
                                   GDestroyNotify      destroy);
/* `func` runs on the worker thread with `func_data`; `func_data_free` runs
 * on the main context once the job is over. */
guint64      tilde_worker_compile (TildeWorker        *worker,
                                   TildeJobInput      *input,
                                   TildeCompileFunc    func,
                                   gpointer            func_data,
                                   GDestroyNotify      func_data_free,
                                   TildeWorkerCallback callback,
                                   gpointer            user_data,
                                   GDestroyNotify      destroy);

/* Checks the data text in `input` against the data block of `model` (may
 * be NULL: the syntax alone), which the job keeps a reference to. Submit
 * one whenever the data or the model changes: the newest supersedes the
 * others. */
guint64      tilde_worker_check_data (TildeWorker        *worker,
                                      TildeJobInput      *input,
                                      TildeCheckResult   *model,
                                      TildeWorkerCallback callback,
                                      gpointer            user_data,
                                      GDestroyNotify      destroy);

/* Supersedes every job of `kind` submitted so far without submitting a new
 * one: none of their results will be delivered. */
void         tilde_worker_cancel  (TildeWorker *worker,
                                   TildeJobKind kind);
/* The generation of the newest job of `kind` (0 before the first). */
guint64      tilde_worker_get_generation (TildeWorker *worker,
                                          TildeJobKind kind);
void         tilde_worker_get_stats      (TildeWorker      *worker,
                                          TildeWorkerStats *stats);

/* Test hook: every check and data-check job waits `delay_ms` first. */
void         tilde_worker_set_check_delay (TildeWorker *worker,
                                           guint        delay_ms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeWorker, tilde_worker_free)

G_END_DECLS
