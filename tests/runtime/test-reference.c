/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The log density and gradient of the reference models against CmdStan's
 * own (logprob.json: three posterior draws, propto, jacobian on and off).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <json-glib/json-glib.h>
#include <math.h>

#include "runtime-test-util.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

typedef struct {
  const char *name;
  MirOptLevel level;
} Case;

static const char *
reference_dir (void)
{
  const char *dir = g_getenv ("TILDE_REFERENCE_DIR");
  return dir ? dir : "../shared/reference";
}

static void
check_model (gconstpointer data)
{
  const Case *cs_ = data;
  const char *name = cs_->name;
  g_autofree char *dir = g_build_filename (reference_dir (), name, NULL);
  g_autofree char *model_path = g_build_filename (dir, "model.stan", NULL);
  g_autofree char *data_path = g_build_filename (dir, "data.json", NULL);
  g_autofree char *lp_path = g_build_filename (dir, "logprob.json", NULL);
  if (!g_file_test (lp_path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no reference directory");
      return;
    }
  g_autoptr (MirProgram) lowered = rt_test_mir_from_file (model_path);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) prog = mir_pipeline_run (transformed, cs_->level, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) d = tilde_json_data_new_from_file (data_path, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr (TildeModel) model = tilde_model_new (prog, d, diags);
  if (!model)
    g_error ("%s: %s", name, ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, lp_path, &error));
  JsonArray *cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
  gsize P = tilde_model_num_params_unconstrained (model);
  /* gp_pois_regr factors a covariance with 1e-10 jitter: its condition
   * number (about 1e10) turns the last-bit differences between two correct
   * Cholesky factorisations into differences near 1e-8 in the gradient. */
  double tol = g_str_equal (name, "gp_pois_regr") ? 1e-7 : 1e-8;
  g_autofree double *theta = g_new (double, P);
  g_autofree double *grad = g_new (double, P);
  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *cs = json_array_get_object_element (cases, c);
      g_autofree char *params = json_to_string (json_object_get_member (cs, "params"), FALSE);
      g_autoptr (TildeJsonData) inits = tilde_json_data_new_from_string (params, -1, &error);
      g_assert_no_error (error);
      g_autoptr (TildeModelError) merr = NULL;
      if (!tilde_model_unconstrain (model, inits, theta, &merr))
        g_error ("%s: unconstrain: %s", name, merr->message);
      gboolean propto = json_object_get_boolean_member (cs, "propto");
      gboolean jacobian = json_object_get_boolean_member (cs, "jacobian");
      double lp = tilde_model_log_density (model, theta, propto, jacobian, grad, &merr);
      if (merr)
        g_error ("%s: log density: %s", name, merr->message);
      double expected = json_object_get_double_member (cs, "log_density");
      JsonArray *g = json_object_get_array_member (cs, "gradient");
      g_assert_cmpuint (json_array_get_length (g), ==, P);
      if (g_getenv ("TILDE_TEST_VERBOSE"))
        g_printerr ("%s case %u: lp %.17g vs %.17g\n", name, c, lp, expected);
      if (!rt_test_close (lp, expected, tol))
        g_error ("%s case %u (propto %d, jacobian %d): log density %.17g, CmdStan %.17g", name, c,
                 propto, jacobian, lp, expected);
      for (gsize i = 0; i < P; i++)
        {
          double gi = json_array_get_double_element (g, (guint) i);
          if (g_getenv ("TILDE_TEST_VERBOSE"))
            g_printerr ("  grad[%" G_GSIZE_FORMAT "] %.17g vs %.17g (%.2g)\n", i, grad[i], gi,
                        fabs (grad[i] - gi) / fmax (1, fabs (gi)));
          if (!rt_test_close (grad[i], gi, tol))
            g_error ("%s case %u (propto %d, jacobian %d): gradient[%" G_GSIZE_FORMAT "] %.17g, "
                     "CmdStan %.17g", name, c, propto, jacobian, i, grad[i], gi);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const char *const models[] = {
    "arK", "blr", "eight_schools_centered", "eight_schools_noncentered", "garch11",
    "gp_pois_regr", "kidscore_interaction", "logmesquite_logvas", "low_dim_gauss_mix",
    "mvn_lkj", "negbin_glm", "wells_dist",
  };
  static Case cases[3 * G_N_ELEMENTS (models)];
  static const MirOptLevel levels[] = { MIR_OPT_O0, MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };
  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    for (guint i = 0; i < G_N_ELEMENTS (models); i++)
      {
        Case *c = &cases[l * G_N_ELEMENTS (models) + i];
        c->name = models[i];
        c->level = levels[l];
        /* the optimised programs too: what the passes make must run alike */
        g_autofree char *path = g_strdup_printf ("/runtime/reference/%s/%s",
                                                 mir_opt_level_name (levels[l]), models[i]);
        g_test_add_data_func (path, c, check_model);
      }
  return g_test_run ();
}
