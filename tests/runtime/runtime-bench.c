/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Gradient evaluations per second of a model:
 * runtime-bench MODEL.stan DATA.json [SECONDS [O0|O1|Oexperimental]] */
#define G_LOG_DOMAIN "tilde-test"

#include <stdio.h>
#include <stdlib.h>

#include "runtime-test-util.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: %s MODEL.stan DATA.json [SECONDS]\n", argv[0]);
      return 2;
    }
  double seconds = argc > 3 ? atof (argv[3]) : 2.0;
  gint64 t0 = g_get_monotonic_time ();
  MirOptLevel level = MIR_OPT_O0;
  if (argc > 4 && !mir_opt_level_parse (argv[4], &level))
    {
      fprintf (stderr, "unknown level %s\n", argv[4]);
      return 2;
    }
  g_autoptr (MirProgram) lowered = rt_test_mir_from_file (argv[1]);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) prog = mir_pipeline_run (transformed, level, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_file (argv[2], &error);
  g_assert_no_error (error);
  gint64 t1 = g_get_monotonic_time ();
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr (TildeModel) m = tilde_model_new (prog, data, diags);
  gint64 t2 = g_get_monotonic_time ();
  if (!m)
    {
      fprintf (stderr, "%s\n", ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message);
      return 1;
    }
  gsize P = tilde_model_num_params_unconstrained (m);
  g_autofree double *theta = g_new0 (double, P);
  g_autofree double *grad = g_new0 (double, P);
  for (gsize i = 0; i < P; i++)
    theta[i] = 0.1 * (double) (i % 7) - 0.2;
  double lp = 0;
  long n = 0;
  gint64 start = g_get_monotonic_time (), now;
  do
    {
      for (int k = 0; k < 1000; k++)
        {
          g_autoptr (TildeModelError) e = NULL;
          lp = tilde_model_log_density (m, theta, TRUE, TRUE, grad, &e);
          if (e)
            {
              fprintf (stderr, "%s\n", e->message);
              return 1;
            }
        }
      n += 1000;
      now = g_get_monotonic_time ();
    }
  while (now - start < seconds * 1e6);
  double per = (double) (now - start) / (double) n;
  printf ("%s: %" G_GSIZE_FORMAT " parameters, front end %.2f ms, preparation %.2f ms, "
          "%.0f gradients/s (%.3f us each), lp %.6g\n", argv[1], P, (t1 - t0) / 1e3,
          (t2 - t1) / 1e3, 1e6 / per, per, lp);
  return 0;
}
