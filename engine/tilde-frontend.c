/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "tilde-frontend.h"

#include "tilde-diagnostic-render.h"
#include "syntax/parser.h"
#include "semantics/check.h"
#include "tilde-warnings.h"

struct TildeCheckResult {
  gatomicrefcount  ref;
  TildeProgram    *program;
  GPtrArray       *diagnostics;
  TildeSourceSet  *sources;
};

static const TildeFrontendOptions default_options = { 0 };

static TildeSourceSet *
new_source_set (const TildeFrontendOptions *opts)
{
  TildeSourceSet *set = tilde_source_set_new ();

  for (gsize i = 0; opts->include_paths && opts->include_paths[i]; i++)
    tilde_source_set_add_include_path (set, opts->include_paths[i]);
  tilde_source_set_set_search_own_directory (set, opts->search_own_directory);
  return set;
}

/* Parses the main file of `set` and, when that went well, type-checks it. */
static TildeCheckResult *
check_sources (TildeSourceSet *set, gboolean functions_only, const TildeFrontendOptions *opts)
{
  TildeCheckResult *r = g_new0 (TildeCheckResult, 1);
  TildeCheckOptions check = { opts->allow_undefined, NULL };

  g_atomic_ref_count_init (&r->ref);
  r->sources = tilde_source_set_ref (set);
  r->diagnostics = tilde_diagnostic_list_new ();
  r->program = tilde_parse_program (set, functions_only ? TILDE_PARSE_FUNCTIONS_ONLY
                                                        : TILDE_PARSE_DEFAULT,
                                    r->diagnostics);
  if (tilde_diagnostic_list_has_errors (r->diagnostics))
    g_clear_pointer (&r->program, tilde_program_free);
  else if (tilde_check_program (r->program, &check, r->diagnostics))
    {
      /* Pedantic mode includes the uninitialised-variable warnings. */
      if (opts->pedantic)
        tilde_warnings_pedantic (r->program, r->diagnostics);
      else if (opts->warn_uninitialized)
        tilde_warnings_uninitialized (r->program, r->diagnostics);
    }
  return r;
}

TildeCheckResult *
tilde_frontend_check_file (const char *path, const TildeFrontendOptions *opts, GError **error)
{
  g_autoptr (TildeSourceSet) set = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  if (opts == NULL)
    opts = &default_options;
  set = new_source_set (opts);
  if (!tilde_source_set_load_main (set, path, error))
    return NULL;
  return check_sources (set, opts->functions_only || g_str_has_suffix (path, ".stanfunctions"),
                        opts);
}

TildeCheckResult *
tilde_frontend_check_buffer (const char *display_name, const char *directory, const char *text,
                             gssize len, const TildeFrontendOptions *opts)
{
  g_autoptr (TildeSourceSet) set = NULL;

  g_return_val_if_fail (display_name != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  if (opts == NULL)
    opts = &default_options;
  set = new_source_set (opts);
  tilde_source_set_set_main_buffer (set, display_name, directory, text, len);
  return check_sources (set, opts->functions_only
                             || g_str_has_suffix (display_name, ".stanfunctions"), opts);
}

TildeCheckResult *
tilde_check_result_ref (TildeCheckResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  g_atomic_ref_count_inc (&result->ref);
  return result;
}

void
tilde_check_result_unref (TildeCheckResult *result)
{
  if (result == NULL || !g_atomic_ref_count_dec (&result->ref))
    return;
  g_clear_pointer (&result->program, tilde_program_free);
  g_ptr_array_unref (result->diagnostics);
  tilde_source_set_unref (result->sources);
  g_free (result);
}

TildeProgram *
tilde_check_result_get_program (TildeCheckResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->program;
}

GPtrArray *
tilde_check_result_get_diagnostics (TildeCheckResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->diagnostics;
}

TildeSourceSet *
tilde_check_result_get_sources (TildeCheckResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result->sources;
}

gboolean
tilde_check_result_has_errors (TildeCheckResult *result)
{
  g_return_val_if_fail (result != NULL, FALSE);
  return tilde_diagnostic_list_has_errors (result->diagnostics);
}

const TildeDiagnostic *
tilde_check_result_get_first_error (TildeCheckResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (tilde_diagnostic_is_error (d))
        return d;
    }
  return NULL;
}

char *
tilde_check_result_render_first_error (TildeCheckResult *result)
{
  const TildeDiagnostic *d = tilde_check_result_get_first_error (result);

  return d ? tilde_diagnostic_render_with_sources (d, result->sources) : NULL;
}

char *
tilde_check_result_render_all (TildeCheckResult *result)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (result != NULL, NULL);
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      g_autofree char *text =
        tilde_diagnostic_render_with_sources (g_ptr_array_index (result->diagnostics, i),
                                              result->sources);
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}
