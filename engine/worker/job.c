/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "worker/job-private.h"

#include <string.h>

#include "io/data-check.h"
#include "syntax/printer.h"
#include "worker/anchor.h"

struct TildeJobInput {
  gatomicrefcount      ref;
  char                *display_name;
  char                *directory;
  char                *text;
  gsize                len;
  char               **include_paths;
  TildeFrontendOptions options;     /* include_paths points at the copy above */
};

struct TildeJobResult {
  gatomicrefcount   ref;
  TildeJobKind      kind;
  guint64           generation;
  TildeJobInput    *input;
  TildeCheckResult *check;
  char             *formatted;
  char             *format_error;
  int               line;
  int               column;
  gpointer          compiled;
  GDestroyNotify    compiled_free;
  GPtrArray        *data_diagnostics;
  gint64            elapsed_us;
};

TildeJobInput *
tilde_job_input_new_take (const char *display_name, const char *directory, char *text, gsize len,
                          const TildeFrontendOptions *opts)
{
  TildeJobInput *input;

  g_return_val_if_fail (display_name != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);

  input = g_new0 (TildeJobInput, 1);
  g_atomic_ref_count_init (&input->ref);
  input->display_name = g_strdup (display_name);
  input->directory = g_strdup (directory);
  input->len = len;
  input->text = text;
  if (opts != NULL)
    {
      input->options = *opts;
      input->include_paths = g_strdupv ((char **) opts->include_paths);
    }
  input->options.include_paths = (const char *const *) input->include_paths;
  return input;
}

TildeJobInput *
tilde_job_input_new (const char *display_name, const char *directory, const char *text,
                     gssize len, const TildeFrontendOptions *opts)
{
  g_return_val_if_fail (text != NULL, NULL);

  gsize n = len < 0 ? strlen (text) : (gsize) len;
  return tilde_job_input_new_take (display_name, directory, g_strndup (text, n), n, opts);
}

TildeJobInput *
tilde_job_input_ref (TildeJobInput *input)
{
  g_return_val_if_fail (input != NULL, NULL);
  g_atomic_ref_count_inc (&input->ref);
  return input;
}

void
tilde_job_input_unref (TildeJobInput *input)
{
  if (input == NULL || !g_atomic_ref_count_dec (&input->ref))
    return;
  g_free (input->display_name);
  g_free (input->directory);
  g_free (input->text);
  g_strfreev (input->include_paths);
  g_free (input);
}

const char *
tilde_job_input_get_display_name (const TildeJobInput *input)
{
  g_return_val_if_fail (input != NULL, NULL);
  return input->display_name;
}

const char *
tilde_job_input_get_directory (const TildeJobInput *input)
{
  g_return_val_if_fail (input != NULL, NULL);
  return input->directory;
}

const char *
tilde_job_input_get_text (const TildeJobInput *input, gsize *len)
{
  g_return_val_if_fail (input != NULL, NULL);
  if (len != NULL)
    *len = input->len;
  return input->text;
}

const TildeFrontendOptions *
tilde_job_input_get_options (const TildeJobInput *input)
{
  g_return_val_if_fail (input != NULL, NULL);
  return &input->options;
}

static TildeJobResult *
result_new (TildeJobKind kind, TildeJobInput *input)
{
  TildeJobResult *result = g_new0 (TildeJobResult, 1);

  g_atomic_ref_count_init (&result->ref);
  result->kind = kind;
  result->input = tilde_job_input_ref (input);
  return result;
}

static TildeCheckResult *
check_input (const TildeJobInput *input, const char *text)
{
  return tilde_frontend_check_buffer (input->display_name, input->directory,
                                      text, -1, &input->options);
}

TildeJobResult *
tilde_job_run_check (TildeJobInput *input)
{
  TildeJobResult *result;
  gint64 start = g_get_monotonic_time ();

  g_return_val_if_fail (input != NULL, NULL);
  result = result_new (TILDE_JOB_CHECK, input);
  result->check = check_input (input, input->text);
  result->elapsed_us = g_get_monotonic_time () - start;
  return result;
}

/* Formats the checked program and makes sure the text means the same
 * program; on success fills result->formatted and the mapped place. */
static void
format_program (TildeJobResult *result, int line, int column)
{
  const TildeJobInput *input = result->input;
  TildeProgram *program = tilde_check_result_get_program (result->check);
  g_autofree char *text = NULL;
  g_autoptr(TildeCheckResult) again = NULL;
  TildeFrontendOptions plain = input->options;
  TildeProgram *reparsed;
  gsize offset;

  if (program == NULL)
    {
      result->format_error = g_strdup ("The model does not parse, so it cannot be formatted.");
      return;
    }
  text = tilde_format_program (program, NULL);
  /* Warnings do not matter here: only whether the text parses back the same. */
  plain.pedantic = FALSE;
  plain.warn_uninitialized = FALSE;
  again = tilde_frontend_check_buffer (input->display_name, input->directory, text, -1, &plain);
  reparsed = tilde_check_result_get_program (again);
  if (reparsed == NULL || !tilde_program_equal (program, reparsed))
    {
      result->format_error = g_strdup ("The formatted text would not be the same program.");
      return;
    }
  offset = tilde_text_offset_at (input->text, input->len, line, column);
  offset = tilde_anchor_map_offset (program, input->text, input->len,
                                    reparsed, text, strlen (text), offset);
  tilde_text_position_at (text, strlen (text), offset, &result->line, &result->column);
  result->formatted = g_steal_pointer (&text);
}

TildeJobResult *
tilde_job_run_format (TildeJobInput *input, int line, int column)
{
  TildeJobResult *result;
  gint64 start = g_get_monotonic_time ();

  g_return_val_if_fail (input != NULL, NULL);
  result = result_new (TILDE_JOB_FORMAT, input);
  result->check = check_input (input, input->text);
  format_program (result, line, column);
  result->elapsed_us = g_get_monotonic_time () - start;
  return result;
}

TildeJobResult *
tilde_job_run_compile (TildeJobInput *input, TildeCompileFunc func, gpointer func_data,
                       GCancellable *cancellable)
{
  TildeJobResult *result;
  gint64 start = g_get_monotonic_time ();

  g_return_val_if_fail (input != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);
  result = result_new (TILDE_JOB_COMPILE, input);
  result->check = check_input (input, input->text);
  if (!tilde_check_result_has_errors (result->check)
      && !g_cancellable_is_cancelled (cancellable))
    result->compiled = func (result->check, func_data, cancellable, &result->compiled_free);
  result->elapsed_us = g_get_monotonic_time () - start;
  return result;
}

TildeJobResult *
tilde_job_run_data_check (TildeJobInput *input, TildeCheckResult *model)
{
  TildeJobResult *result;
  gint64 start = g_get_monotonic_time ();
  TildeProgram *program = NULL;

  g_return_val_if_fail (input != NULL, NULL);
  result = result_new (TILDE_JOB_DATA_CHECK, input);
  if (model != NULL)
    {
      result->check = tilde_check_result_ref (model);
      if (!tilde_check_result_has_errors (model))
        program = tilde_check_result_get_program (model);
    }
  result->data_diagnostics = tilde_data_check (input->text, (gssize) input->len,
                                               input->display_name, program);
  result->elapsed_us = g_get_monotonic_time () - start;
  return result;
}

TildeJobResult *
tilde_job_result_ref (TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  g_atomic_ref_count_inc (&result->ref);
  return result;
}

void
tilde_job_result_unref (TildeJobResult *result)
{
  if (result == NULL || !g_atomic_ref_count_dec (&result->ref))
    return;
  if (result->compiled != NULL && result->compiled_free != NULL)
    result->compiled_free (result->compiled);
  g_clear_pointer (&result->data_diagnostics, g_ptr_array_unref);
  g_free (result->formatted);
  g_free (result->format_error);
  g_clear_pointer (&result->check, tilde_check_result_unref);
  tilde_job_input_unref (result->input);
  g_free (result);
}

void
_tilde_job_result_set_generation (TildeJobResult *result, guint64 generation)
{
  result->generation = generation;
}

TildeJobKind
tilde_job_result_get_kind (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, TILDE_JOB_CHECK);
  return result->kind;
}

guint64
tilde_job_result_get_generation (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, 0);
  return result->generation;
}

TildeJobInput *
tilde_job_result_get_input (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->input;
}

TildeCheckResult *
tilde_job_result_get_check (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->check;
}

const char *
tilde_job_result_get_formatted (const TildeJobResult *result, int *line, int *column)
{
  g_return_val_if_fail (result != NULL, NULL);
  if (line != NULL)
    *line = result->line;
  if (column != NULL)
    *column = result->column;
  return result->formatted;
}

const char *
tilde_job_result_get_format_error (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->format_error;
}

gpointer
tilde_job_result_get_compiled (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->compiled;
}

GPtrArray *
tilde_job_result_get_data_diagnostics (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->data_diagnostics;
}

gint64
tilde_job_result_get_elapsed_us (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, 0);
  return result->elapsed_us;
}

const char *
tilde_job_kind_to_string (TildeJobKind kind)
{
  switch (kind)
    {
    case TILDE_JOB_CHECK:
      return "check";
    case TILDE_JOB_FORMAT:
      return "format";
    case TILDE_JOB_COMPILE:
      return "compile";
    case TILDE_JOB_DATA_CHECK:
      return "data-check";
    default:
      return "?";
    }
}
