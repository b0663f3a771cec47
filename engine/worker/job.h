/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The work of the engine thread as values: a job's input is an immutable
 * copy of a buffer with the options it is checked with, and its output a
 * reference-counted result. Each job body is a plain function of its input,
 * so a caller without a thread (the CLI, a test) can run one directly; the
 * worker (worker.h) runs the same functions on its thread.
 *
 * Kinds:
 *  - check: parse, resolve #include, type-check and warn (pedantic when the
 *    options ask), i.e. the editor's live diagnostics;
 *  - format: a check, then the formatter's text of the program (stanc's
 *    --auto-format), with a place in the text carried over to the new text;
 *  - compile: a check, then a stage the caller supplies (MIR lowering,
 *    passes, snapshots), whose value the result holds;
 *  - data check: the input is the text of a JSON data file, checked
 *    against the data block of a model already checked (io/data-check.h);
 *    a newer one supersedes it whether the data or the model changed.
 *
 * Inputs and results may be shared between threads; nothing in them changes
 * after they are made.
 */
#pragma once

#include <gio/gio.h>

#include "tilde-frontend.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_JOB_CHECK,
  TILDE_JOB_FORMAT,
  TILDE_JOB_COMPILE,
  TILDE_JOB_DATA_CHECK,
  TILDE_N_JOB_KINDS
} TildeJobKind;

typedef struct TildeJobInput TildeJobInput;
typedef struct TildeJobResult TildeJobResult;

/* Copies everything: `text` (len -1: NUL-terminated), the names, and the
 * options with their include paths. `directory` may be NULL (a buffer that
 * has no file yet); `opts` may be NULL for the defaults. */
TildeJobInput *tilde_job_input_new (const char                 *display_name,
                                    const char                 *directory,
                                    const char                 *text,
                                    gssize                      len,
                                    const TildeFrontendOptions *opts);
/* The same, taking `text` (`len` bytes and a NUL after them, g_malloc'd)
 * instead of copying it: a data file of tens of megabytes is not copied
 * on the main thread for each check. */
TildeJobInput *tilde_job_input_new_take (const char                 *display_name,
                                         const char                 *directory,
                                         char                       *text,
                                         gsize                       len,
                                         const TildeFrontendOptions *opts);
TildeJobInput *tilde_job_input_ref   (TildeJobInput *input);
void           tilde_job_input_unref (TildeJobInput *input);

const char                 *tilde_job_input_get_display_name (const TildeJobInput *input);
const char                 *tilde_job_input_get_directory    (const TildeJobInput *input);
/* NUL-terminated; *len (may be NULL) receives its length in bytes. */
const char                 *tilde_job_input_get_text         (const TildeJobInput *input,
                                                              gsize               *len);
const TildeFrontendOptions *tilde_job_input_get_options      (const TildeJobInput *input);

/* The compile stage: runs after a check whose program has no error, on the
 * thread that runs the job. Returns the stage's value (or NULL) and sets
 * *value_free to what frees it. It should stop early, returning NULL, when
 * `cancellable` is cancelled. */
typedef gpointer (*TildeCompileFunc) (TildeCheckResult *check,
                                      gpointer          user_data,
                                      GCancellable     *cancellable,
                                      GDestroyNotify   *value_free);

/* The job bodies, without a thread. `cancellable` may be NULL. */
TildeJobResult *tilde_job_run_check   (TildeJobInput *input);
/* `line` (1-based) and `column` (0-based, bytes) name a place in the input,
 * usually the cursor; the result says where it is in the formatted text. */
TildeJobResult *tilde_job_run_format  (TildeJobInput *input,
                                       int            line,
                                       int            column);
TildeJobResult *tilde_job_run_compile (TildeJobInput   *input,
                                       TildeCompileFunc func,
                                       gpointer         func_data,
                                       GCancellable    *cancellable);
/* `input` holds the data text (its display name names the data file);
 * `model` is the check of the model whose data block the data must fit:
 * NULL, or one with errors, checks the JSON syntax alone. */
TildeJobResult *tilde_job_run_data_check (TildeJobInput    *input,
                                          TildeCheckResult *model);

TildeJobResult *tilde_job_result_ref   (TildeJobResult *result);
void            tilde_job_result_unref (TildeJobResult *result);

TildeJobKind      tilde_job_result_get_kind       (const TildeJobResult *result);
/* The number the worker gave the job (0 for a job run without a worker);
 * numbers grow with each job of the same kind. */
guint64           tilde_job_result_get_generation (const TildeJobResult *result);
TildeJobInput    *tilde_job_result_get_input      (const TildeJobResult *result);
/* The check of the input, for every kind but DATA_CHECK: diagnostics,
 * typed program. DATA_CHECK: the model's check the data were checked
 * against (may be NULL). */
TildeCheckResult *tilde_job_result_get_check      (const TildeJobResult *result);
/* FORMAT: the formatted text, or NULL (and *error_message set) when the
 * program could not be formatted: it does not parse, or the formatted text
 * would not mean the same program. *line and *column (may be NULL) receive
 * where the input's place went. */
const char       *tilde_job_result_get_formatted  (const TildeJobResult *result,
                                                   int                  *line,
                                                   int                  *column);
/* FORMAT: why there is no formatted text (NULL when there is). */
const char       *tilde_job_result_get_format_error (const TildeJobResult *result);
/* COMPILE: the stage's value; NULL when the check found an error or the
 * stage gave none. */
gpointer          tilde_job_result_get_compiled   (const TildeJobResult *result);
/* DATA_CHECK: the data's problems, placed in the data text (a list of
 * TildeDiagnostic owned by the result); NULL for the other kinds. */
GPtrArray        *tilde_job_result_get_data_diagnostics (const TildeJobResult *result);
/* Time the job body took, in microseconds (for the window's status and
 * benchmarks). */
gint64            tilde_job_result_get_elapsed_us (const TildeJobResult *result);

const char       *tilde_job_kind_to_string (TildeJobKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeJobInput, tilde_job_input_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeJobResult, tilde_job_result_unref)

G_END_DECLS
