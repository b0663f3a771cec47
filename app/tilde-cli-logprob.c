/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde log-prob` and `tilde diagnose`: the log density and its gradient at
 * given parameters, and the gradient checked against finite differences, as
 * CmdStan's log_prob and diagnose methods report them. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"

typedef struct {
  char    *data;
  char    *params;
  gboolean propto;
  gboolean no_jacobian;
  char    *context;
  gboolean o0, o1, oexperimental;
  double   epsilon;
  double   error_threshold;
  double   init_radius;
  gint64   seed;
  char   **files;
} LogProbOptions;

static void
options_clear (LogProbOptions *o)
{
  g_free (o->data);
  g_free (o->params);
  g_free (o->context);
  g_strfreev (o->files);
}

static GOptionContext *
option_context (LogProbOptions *o, gboolean diagnose)
{
  const GOptionEntry common[] = {
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &o->data, N_("Data file (CmdStan JSON)"), N_("FILE") },
    { "params", 0, 0, G_OPTION_ARG_FILENAME, &o->params,
      N_("Constrained parameter values by name (CmdStan JSON)"), N_("FILE") },
    { "propto", 0, 0, G_OPTION_ARG_NONE, &o->propto,
      N_("Drop the constants that ~ statements leave out"), NULL },
    { "no-jacobian", 0, 0, G_OPTION_ARG_NONE, &o->no_jacobian,
      N_("Leave out the log Jacobian of the constraining transforms"), NULL },
    { "context", 0, 0, G_OPTION_ARG_STRING, &o->context,
      N_("The terms to sum: joint (the default), prior (with the Jacobian) or likelihood"),
      N_("joint|prior|likelihood") },
    { "O0", 0, 0, G_OPTION_ARG_NONE, &o->o0, N_("No optimisation (the default)"), NULL },
    { "O1", 0, 0, G_OPTION_ARG_NONE, &o->o1, N_("Optimise at level 1"), NULL },
    { "Oexperimental", 0, 0, G_OPTION_ARG_NONE, &o->oexperimental, N_("All optimisations"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->files, NULL, N_("MODEL.stan") },
    { NULL }
  };
  const GOptionEntry diagnose_entries[] = {
    { "epsilon", 0, 0, G_OPTION_ARG_DOUBLE, &o->epsilon,
      N_("Finite-difference step (default 1e-6)"), N_("E") },
    { "error", 0, 0, G_OPTION_ARG_DOUBLE, &o->error_threshold,
      N_("Largest accepted difference (default 1e-6)"), N_("E") },
    { "init-radius", 0, 0, G_OPTION_ARG_DOUBLE, &o->init_radius,
      N_("Without --params: draw the point uniformly in (-R, R) (default 2)"), N_("R") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o->seed, N_("Random seed for that draw"), N_("S") },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("MODEL.stan"));

  g_option_context_add_main_entries (context, common, GETTEXT_PACKAGE);
  g_option_context_add_group (context, _tilde_cli_model_option_group ());
  g_option_context_add_group (context, _tilde_cli_device_option_group ());
  if (diagnose)
    {
      g_option_context_add_main_entries (context, diagnose_entries, GETTEXT_PACKAGE);
      g_option_context_set_summary (context, _("Compares the gradient of the log density with "
                                               "finite differences, as CmdStan's diagnose method does."));
    }
  else
    g_option_context_set_summary (context, _("Prints the log density and its gradient over the "
                                             "unconstrained parameters as JSON. The default is the "
                                             "full density, with every constant and the Jacobian."));
  return context;
}

/* The unconstrained point: from --params, or drawn as CmdStan draws inits. */
static gboolean
unconstrained_point (TildeModel *model, const LogProbOptions *o, double *theta, gsize n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeModelError) model_error = NULL;
  g_autoptr(TildeJsonData) params = NULL;

  if (o->params == NULL)
    {
      GRand *rand = g_rand_new_with_seed ((guint32) o->seed);

      for (gsize i = 0; i < n; i++)
        theta[i] = g_rand_double_range (rand, -o->init_radius, o->init_radius);
      g_rand_free (rand);
      return TRUE;
    }
  params = tilde_json_data_new_from_file (o->params, &error);
  if (params == NULL)
    {
      g_printerr (_("Error reading parameter file '%s': %s\n"), o->params, error->message);
      return FALSE;
    }
  if (!tilde_model_unconstrain (model, params, theta, &model_error))
    {
      g_printerr (_("Error in parameter file '%s': %s\n"), o->params, model_error->message);
      return FALSE;
    }
  return TRUE;
}

static int
run (const char *name, int argc, char **argv, gboolean diagnose)
{
  LogProbOptions o = { .epsilon = 1e-6, .error_threshold = 1e-6, .init_radius = 2.0, .seed = 0 };
  g_autoptr(GOptionContext) context = option_context (&o, diagnose);
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeModel) model = NULL;
  g_autoptr(TildeModelError) model_error = NULL;
  g_autofree double *theta = NULL;
  g_autofree double *gradient = NULL;
  MirOptLevel level;
  TildeModelContext model_context;
  int status = TILDE_EXIT_OK;
  double lp;
  gsize n;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde %s: %s\n", name, error->message);
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (o.files == NULL || g_strv_length (o.files) != 1
      || (!diagnose && o.params == NULL) || o.epsilon <= 0 || o.init_radius < 0)
    {
      g_printerr (diagnose ? _("tilde diagnose: give one model file (see tilde diagnose --help)\n")
                           : _("tilde log-prob: give one model file and --params (see tilde log-prob --help)\n"));
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (!_tilde_cli_parse_level (o.o0, o.o1, o.oexperimental, &level))
    {
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (!_tilde_cli_parse_context (o.context, &model_context))
    {
      g_printerr (_("tilde %s: --context must be joint, prior or likelihood, not '%s'\n"), name,
                  o.context);
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }

  model = _tilde_cli_load_model (o.files[0], o.data, level, 0, &status);
  if (model == NULL)
    {
      options_clear (&o);
      return status;
    }
  tilde_model_set_context (model, model_context);
  n = tilde_model_num_params_unconstrained (model);
  theta = g_new0 (double, MAX (n, 1));
  gradient = g_new0 (double, MAX (n, 1));
  if (!unconstrained_point (model, &o, theta, n))
    {
      options_clear (&o);
      return TILDE_EXIT_MODEL_ERROR;
    }

  lp = tilde_model_log_density (model, theta, o.propto, !o.no_jacobian, gradient, &model_error);
  _tilde_cli_report_device_failures (model);
  if (model_error != NULL)
    {
      g_autofree char *described = tilde_model_error_describe (model_error);
      g_printerr (_("Error evaluating the log density: %s\n"), described);
      options_clear (&o);
      return TILDE_EXIT_MODEL_ERROR;
    }

  if (!diagnose)
    {
      g_autoptr(GString) out = g_string_new ("{\"log_density\": ");

      _tilde_cli_append_double (out, lp);
      g_string_append (out, ", \"gradient\": [");
      for (gsize i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          _tilde_cli_append_double (out, gradient[i]);
        }
      g_string_append (out, "]}\n");
      fputs (out->str, stdout);
    }
  else
    {
      const char *const *names = tilde_model_unconstrained_names (model);
      gboolean all_good = TRUE;

      printf ("TEST GRADIENT MODE\n\n Log probability=%g\n\n", lp);
      printf (" %-12s %15s %15s %15s %15s\n", "param idx", "value", "model", "finite diff", "error");
      for (gsize i = 0; i < n; i++)
        {
          double saved = theta[i], up, down, fd;

          theta[i] = saved + o.epsilon;
          up = tilde_model_log_density (model, theta, o.propto, !o.no_jacobian, NULL, NULL);
          theta[i] = saved - o.epsilon;
          down = tilde_model_log_density (model, theta, o.propto, !o.no_jacobian, NULL, NULL);
          theta[i] = saved;
          fd = (up - down) / (2 * o.epsilon);
          printf (" %-12" G_GSIZE_FORMAT " %15g %15g %15g %15g  %s\n", i, saved, gradient[i], fd,
                  gradient[i] - fd, names && names[i] ? names[i] : "");
          if (!(fabs (gradient[i] - fd) <= o.error_threshold))
            all_good = FALSE;
        }
      if (!all_good)
        {
          printf ("\nThe gradient differs from finite differences by more than %g.\n", o.error_threshold);
          status = TILDE_EXIT_MODEL_ERROR;
        }
    }
  options_clear (&o);
  return status;
}

int
_tilde_cli_log_prob (const char *name, int argc, char **argv)
{
  return run (name, argc, argv, FALSE);
}

int
_tilde_cli_diagnose (const char *name, int argc, char **argv)
{
  return run (name, argc, argv, TRUE);
}
