/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "runtime-test-util.h"

#include <math.h>

#include "tilde-frontend.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

static MirProgram *
lower (TildeCheckResult *r)
{
  if (!r || tilde_check_result_has_errors (r))
    {
      g_autofree char *text = r ? tilde_check_result_render_all (r) : g_strdup ("unreadable");
      g_error ("model does not compile: %s", text);
    }
  MirProgram *p = mir_lower_program (tilde_check_result_get_program (r));
  g_assert_nonnull (p);
  return p;
}

MirProgram *
rt_test_mir_from_string (const char *source)
{
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_buffer ("model.stan", NULL, source, -1, NULL);
  return lower (r);
}

MirProgram *
rt_test_mir_from_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, NULL, &error);
  g_assert_no_error (error);
  return lower (r);
}

static TildeModel *
prepare_at (const char *source, const char *data_json, MirOptLevel level, GPtrArray *diags)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) p = mir_pipeline_run (transformed, level, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = NULL;
  if (data_json)
    {
      data = tilde_json_data_new_from_string (data_json, -1, &error);
      g_assert_no_error (error);
    }
  return tilde_model_new (p, data, diags);
}

static TildeModel *
prepare (const char *source, const char *data_json, GPtrArray *diags)
{
  return prepare_at (source, data_json, MIR_OPT_O0, diags);
}

TildeModel *
rt_test_model_at (const char *source, const char *data_json, MirOptLevel level)
{
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  TildeModel *m = prepare_at (source, data_json, level, diags);
  if (!m)
    {
      const TildeDiagnostic *d = diags->len ? g_ptr_array_index (diags, 0) : NULL;
      g_error ("model preparation at %s failed: %s", mir_opt_level_name (level),
               d ? d->message : "?");
    }
  return m;
}

TildeModel *
rt_test_model (const char *source, const char *data_json)
{
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  TildeModel *m = prepare (source, data_json, diags);
  if (!m)
    {
      const TildeDiagnostic *d = diags->len ? g_ptr_array_index (diags, 0) : NULL;
      g_error ("model preparation failed: %s", d ? d->message : "?");
    }
  return m;
}

GPtrArray *
rt_test_prepare_errors (const char *source, const char *data_json)
{
  GPtrArray *diags = tilde_diagnostic_list_new ();
  TildeModel *m = prepare (source, data_json, diags);
  tilde_model_free (m);
  return diags;
}

gboolean
rt_test_close (double a, double b, double tol)
{
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  if (isinf (a) || isinf (b))
    return a == b;
  return fabs (a - b) <= tol * fmax (1.0, fmax (fabs (a), fabs (b)));
}
