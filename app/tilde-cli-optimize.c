/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde optimize`: a posterior mode as CmdStan's optimize method finds it,
 * written as CmdStan writes it, with optional draws from the Laplace
 * approximation at the mode as CmdStan's laplace method makes them. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "tilde-engine.h"
#include "infer/laplace.h"
#include "infer/init.h"
#include "infer/optimize.h"
#include "io/stan-csv-write.h"

#define UNSET_INT G_MININT

typedef struct {
  char    *data;
  char    *init;
  double   init_radius;
  char    *algorithm;
  gboolean jacobian;
  int      iter;
  double   tol_obj, tol_rel_obj, tol_grad, tol_rel_grad, tol_param;
  int      history_size;
  double   init_alpha;
  int      laplace_draws;
  char    *laplace_output;
  gint64   seed;
  char    *output;
  gboolean save_iterations;
  int      refresh;
  int      sig_figs;
  gboolean o0, o1, oexperimental;
  char   **files;
} OptimizeArgs;

static void
args_clear (OptimizeArgs *a)
{
  g_free (a->data);
  g_free (a->init);
  g_free (a->algorithm);
  g_free (a->laplace_output);
  g_free (a->output);
  g_strfreev (a->files);
}

static GOptionContext *
option_context (OptimizeArgs *a)
{
  const GOptionEntry entries[] = {
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &a->data, N_("Data file (CmdStan JSON)"), N_("FILE") },
    { "init", 0, 0, G_OPTION_ARG_FILENAME, &a->init,
      N_("Initial values by name (CmdStan JSON; the rest drawn at random), or a radius"), N_("FILE|R") },
    { "init-radius", 0, 0, G_OPTION_ARG_DOUBLE, &a->init_radius,
      N_("Draw initial values uniformly in (-R, R) on the unconstrained scale (default 2)"), N_("R") },
    { "algorithm", 0, 0, G_OPTION_ARG_STRING, &a->algorithm,
      N_("lbfgs (default), bfgs or newton"), N_("NAME") },
    { "jacobian", 0, 0, G_OPTION_ARG_NONE, &a->jacobian,
      N_("Add the log Jacobian: the mode on the unconstrained scale"), NULL },
    { "iter", 0, 0, G_OPTION_ARG_INT, &a->iter, N_("Most iterations (default 2000)"), N_("N") },
    { "tol-obj", 0, 0, G_OPTION_ARG_DOUBLE, &a->tol_obj,
      N_("Absolute change in the objective (default 1e-12)"), N_("E") },
    { "tol-rel-obj", 0, 0, G_OPTION_ARG_DOUBLE, &a->tol_rel_obj,
      N_("Relative change in the objective, in machine epsilons (default 1e4)"), N_("E") },
    { "tol-grad", 0, 0, G_OPTION_ARG_DOUBLE, &a->tol_grad,
      N_("Norm of the gradient (default 1e-8)"), N_("E") },
    { "tol-rel-grad", 0, 0, G_OPTION_ARG_DOUBLE, &a->tol_rel_grad,
      N_("Relative gradient magnitude, in machine epsilons (default 1e7)"), N_("E") },
    { "tol-param", 0, 0, G_OPTION_ARG_DOUBLE, &a->tol_param,
      N_("Change in the parameters (default 1e-8)"), N_("E") },
    { "history-size", 0, 0, G_OPTION_ARG_INT, &a->history_size,
      N_("Updates L-BFGS remembers (default 5)"), N_("N") },
    { "init-alpha", 0, 0, G_OPTION_ARG_DOUBLE, &a->init_alpha,
      N_("First step of the line search (default 0.001)"), N_("A") },
    { "laplace-draws", 0, 0, G_OPTION_ARG_INT, &a->laplace_draws,
      N_("Also draw N times from the Laplace approximation at the mode"), N_("N") },
    { "laplace-output", 0, 0, G_OPTION_ARG_FILENAME, &a->laplace_output,
      N_("File for the Laplace draws (default: the output's name with _laplace)"), N_("FILE") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &a->seed, N_("Random seed (0 to 4294967295)"), N_("S") },
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &a->output, N_("Output file (default output.csv)"), N_("FILE") },
    { "save-iterations", 0, 0, G_OPTION_ARG_NONE, &a->save_iterations,
      N_("Write every iterate, not only the last"), NULL },
    { "refresh", 0, 0, G_OPTION_ARG_INT, &a->refresh,
      N_("Print a progress line every N iterations, 0 for none (default 100)"), N_("N") },
    { "sig-figs", 0, 0, G_OPTION_ARG_INT, &a->sig_figs,
      N_("Significant digits in the output, 1 to 18 (default 6)"), N_("N") },
    { "O0", 0, 0, G_OPTION_ARG_NONE, &a->o0, N_("No optimisation of the program (the default)"), NULL },
    { "O1", 0, 0, G_OPTION_ARG_NONE, &a->o1, N_("Optimise the program at level 1"), NULL },
    { "Oexperimental", 0, 0, G_OPTION_ARG_NONE, &a->oexperimental, N_("All program optimisations"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->files, NULL, N_("MODEL.stan") },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("MODEL.stan"));

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_group (context, _tilde_cli_model_option_group ());
  g_option_context_add_group (context, _tilde_cli_device_option_group ());
  g_option_context_set_summary (context,
    _("Finds the posterior mode with L-BFGS, BFGS or Newton and writes it as CmdStan's optimize "
      "method does: lp__ and every parameter, transformed parameter and generated quantity, one "
      "row (one per iteration with --save-iterations). Without --jacobian the mode is that of the "
      "model as written; with it, the mode on the unconstrained scale. --laplace-draws adds draws "
      "from the normal approximation there, in a second file, as CmdStan's laplace method makes "
      "them."));
  return context;
}

#define usage_error(...) _tilde_cli_usage_error ("optimize", __VA_ARGS__)

/* --init holds a number (a radius, as CmdStan's init=0.5) or a file. */
static gboolean
init_is_radius (const char *init, double *radius)
{
  char *end;
  double value;

  if (init == NULL || *init == '\0')
    return FALSE;
  value = g_ascii_strtod (init, &end);
  if (*end != '\0')
    return FALSE;
  *radius = value;
  return TRUE;
}

/* Checks the arguments and fills in the run's options. */
static gboolean
check_args (OptimizeArgs *a, TildeOptimizeOptions *o, double *radius)
{
  gboolean tolerances_given = !isnan (a->tol_obj) || !isnan (a->tol_rel_obj) || !isnan (a->tol_grad)
                              || !isnan (a->tol_rel_grad) || !isnan (a->tol_param)
                              || !isnan (a->init_alpha);

  tilde_optimize_options_init (o);
  if (a->files == NULL || g_strv_length (a->files) != 1)
    return usage_error (_("give one model file (see tilde optimize --help)"));
  if (a->algorithm && !tilde_optimize_algorithm_from_name (a->algorithm, &o->algorithm))
    return usage_error (_("unknown algorithm '%s': use lbfgs, bfgs or newton"), a->algorithm);
  if (o->algorithm == TILDE_OPTIMIZE_NEWTON && tolerances_given)
    return usage_error (_("the tolerances and --init-alpha apply to lbfgs and bfgs, not newton"));
  if (o->algorithm != TILDE_OPTIMIZE_LBFGS && a->history_size != UNSET_INT)
    return usage_error (_("--history-size applies to lbfgs only"));
  if (a->init != NULL && !isnan (a->init_radius))
    return usage_error (_("give either --init or --init-radius"));

#define TAKE(field, cond, what)                                         \
  if (!isnan (a->field))                                                \
    {                                                                   \
      if (!(cond))                                                      \
        return usage_error (_("%s must be %s"), "--" what, _("non-negative")); \
      o->field = a->field;                                              \
    }
  TAKE (tol_obj, a->tol_obj >= 0, "tol-obj")
  TAKE (tol_rel_obj, a->tol_rel_obj >= 0, "tol-rel-obj")
  TAKE (tol_grad, a->tol_grad >= 0, "tol-grad")
  TAKE (tol_rel_grad, a->tol_rel_grad >= 0, "tol-rel-grad")
  TAKE (tol_param, a->tol_param >= 0, "tol-param")
#undef TAKE
  if (!isnan (a->init_alpha))
    {
      if (!(a->init_alpha > 0))
        return usage_error (_("--init-alpha must be positive"));
      o->init_alpha = a->init_alpha;
    }
  if (a->iter != UNSET_INT)
    {
      if (a->iter <= 0)
        return usage_error (_("--iter must be positive"));
      o->iter = a->iter;
    }
  if (a->history_size != UNSET_INT)
    {
      if (a->history_size <= 0)
        return usage_error (_("--history-size must be positive"));
      o->history_size = a->history_size;
    }
  if (a->refresh != UNSET_INT)
    {
      if (a->refresh < 0)
        return usage_error (_("--refresh must be 0 or more"));
      o->refresh = a->refresh;
    }
  if (a->sig_figs != -1 && (a->sig_figs < 1 || a->sig_figs > 18))
    return usage_error (_("--sig-figs must be between 1 and 18"));
  if (a->laplace_draws < 0)
    return usage_error (_("--laplace-draws must be 0 or more"));
  if (a->laplace_output != NULL && a->laplace_draws == 0)
    return usage_error (_("--laplace-output needs --laplace-draws"));
  if (a->seed != -1 && (a->seed < 0 || a->seed > G_MAXUINT32))
    return usage_error (_("--seed must be between 0 and 4294967295"));
  o->jacobian = a->jacobian;
  o->save_iterations = a->save_iterations;

  *radius = 2.0;
  if (!isnan (a->init_radius))
    *radius = a->init_radius;
  else if (init_is_radius (a->init, radius))
    g_clear_pointer (&a->init, g_free);
  if (!(*radius >= 0) || !isfinite (*radius))
    return usage_error (_("the initial radius must be 0 or more"));
  return TRUE;
}

/* ---- the configuration CmdStan prints and writes ---- */

typedef struct {
  guint    depth;
  char    *key;
  char    *value;      /* NULL for a section */
  gboolean is_default;
} ConfigLine;

static void
config_line_clear (gpointer p)
{
  ConfigLine *l = p;
  g_free (l->key);
  g_free (l->value);
}

static void
config_add (GArray *config, guint depth, const char *key, const char *value, gboolean is_default)
{
  ConfigLine l = { depth, g_strdup (key), g_strdup (value), is_default };
  g_array_append_val (config, l);
}

static void
config_add_double (GArray *config, guint depth, const char *key, double value, double default_value)
{
  g_autofree char *text = g_strdup_printf ("%g", value);
  config_add (config, depth, key, text, value == default_value);
}

static void
config_add_int (GArray *config, guint depth, const char *key, gint64 value, gint64 default_value)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, value);
  config_add (config, depth, key, text, value == default_value);
}

static void
config_add_bool (GArray *config, guint depth, const char *key, gboolean value)
{
  config_add (config, depth, key, value ? "true" : "false", !value);
}

/* What the run was asked to do, shared by the optimize and laplace files. */
typedef struct {
  const char *model_path;
  const char *data_path;
  const char *init_path;
  double      radius;
  guint32     seed;
  gboolean    seed_given;
  int         refresh;
  int         sig_figs;
} RunSettings;

static void
config_preamble (GArray *config, const RunSettings *s)
{
  g_auto (GStrv) version = g_strsplit (tilde_engine_stan_version (), ".", 3);
  g_autofree char *name = _tilde_cli_model_name (s->model_path);
  config_add (config, 0, "stan_version_major", version[0], FALSE);
  config_add (config, 0, "stan_version_minor", version[1] ? version[1] : "0", FALSE);
  config_add (config, 0, "stan_version_patch", version[1] && version[2] ? version[2] : "0", FALSE);
  config_add (config, 0, "model", name, FALSE);
}

static void
config_common (GArray *config, const RunSettings *s, const char *output_path, gboolean output_default)
{
  config_add (config, 0, "id", "1", TRUE);
  config_add (config, 0, "data", NULL, FALSE);
  config_add (config, 1, "file", s->data_path ? s->data_path : "", s->data_path == NULL);
  if (s->init_path)
    config_add (config, 0, "init", s->init_path, FALSE);
  else
    config_add_double (config, 0, "init", s->radius, 2.0);
  config_add (config, 0, "random", NULL, FALSE);
  config_add_int (config, 1, "seed", s->seed, s->seed_given ? (gint64) -1 : (gint64) s->seed);
  config_add (config, 0, "output", NULL, FALSE);
  config_add (config, 1, "file", output_path, output_default);
  config_add (config, 1, "diagnostic_file", "", TRUE);
  config_add_int (config, 1, "refresh", s->refresh, 100);
  config_add_int (config, 1, "sig_figs", s->sig_figs, -1);
  config_add (config, 0, "num_threads", "1", TRUE);
}

static void
config_optimize (GArray *config, const TildeOptimizeOptions *o)
{
  TildeOptimizeOptions d;
  const char *algorithm = tilde_optimize_algorithm_name (o->algorithm);

  tilde_optimize_options_init (&d);
  config_add (config, 0, "method", "optimize", FALSE);
  config_add (config, 1, "optimize", NULL, FALSE);
  config_add (config, 2, "algorithm", algorithm, o->algorithm == d.algorithm);
  if (o->algorithm != TILDE_OPTIMIZE_NEWTON)
    {
      config_add (config, 3, algorithm, NULL, FALSE);
      config_add_double (config, 4, "init_alpha", o->init_alpha, d.init_alpha);
      config_add_double (config, 4, "tol_obj", o->tol_obj, d.tol_obj);
      config_add_double (config, 4, "tol_rel_obj", o->tol_rel_obj, d.tol_rel_obj);
      config_add_double (config, 4, "tol_grad", o->tol_grad, d.tol_grad);
      config_add_double (config, 4, "tol_rel_grad", o->tol_rel_grad, d.tol_rel_grad);
      config_add_double (config, 4, "tol_param", o->tol_param, d.tol_param);
      if (o->algorithm == TILDE_OPTIMIZE_LBFGS)
        config_add_int (config, 4, "history_size", o->history_size, d.history_size);
    }
  config_add_bool (config, 2, "jacobian", o->jacobian);
  config_add_int (config, 2, "iter", o->iter, d.iter);
  config_add_bool (config, 2, "save_iterations", o->save_iterations);
}

static void
config_laplace (GArray *config, const char *mode_path, gboolean jacobian, int draws)
{
  config_add (config, 0, "method", "laplace", FALSE);
  config_add (config, 1, "laplace", NULL, FALSE);
  config_add (config, 2, "mode", mode_path, FALSE);
  config_add (config, 2, "jacobian", jacobian ? "true" : "false", jacobian);
  config_add_int (config, 2, "draws", draws, 1000);
  config_add (config, 2, "calculate_lp", "true", TRUE);
}

static void
config_print (const GArray *config)
{
  for (guint i = 0; i < config->len; i++)
    {
      const ConfigLine *l = &g_array_index (config, ConfigLine, i);
      g_autofree char *indent = g_strnfill (2 * l->depth, ' ');

      if (l->value == NULL)
        printf ("%s%s\n", indent, l->key);
      else
        printf ("%s%s = %s%s\n", indent, l->key, l->value, l->is_default ? " (Default)" : "");
    }
  printf ("\n");
}

static void
config_write (const GArray *config, TildeCsvWriter *writer)
{
  for (guint i = 0; i < config->len; i++)
    {
      const ConfigLine *l = &g_array_index (config, ConfigLine, i);
      tilde_csv_writer_config (writer, l->depth, l->key, l->value, l->is_default);
    }
}

/* ---- writing rows ---- */

typedef struct {
  TildeModel     *model;
  TildeCsvWriter *writer;
  gsl_rng        *rng;
  double         *row;
  gsize           n_out;
} RowSink;

static void
print_message (const char *line, gpointer user_data)
{
  printf ("%s\n", line);
  fflush (stdout);
}

static gboolean
write_optimize_row (double lp, const double *theta, gpointer user_data)
{
  RowSink *sink = user_data;
  g_autoptr (TildeModelError) error = NULL;

  sink->row[0] = lp;
  if (!tilde_model_constrain (sink->model, theta, TRUE, TRUE, sink->rng, sink->row + 1, &error))
    {
      g_printerr ("%s\n", error->message);
      for (gsize k = 0; k < sink->n_out; k++)
        sink->row[1 + k] = NAN;
    }
  tilde_csv_writer_row (sink->writer, sink->row, 1 + sink->n_out);
  return tilde_csv_writer_flush (sink->writer, NULL);
}

static gboolean
write_laplace_row (const double *row, gsize n_row, const double *theta, gpointer user_data)
{
  RowSink *sink = user_data;

  tilde_csv_writer_row (sink->writer, row, n_row);
  return TRUE;
}

static void
write_names (TildeCsvWriter *writer, TildeModel *model, const char *first, const char *second)
{
  const char *const *names = tilde_model_output_names (model, TRUE, TRUE);
  g_autoptr (GPtrArray) all = g_ptr_array_new ();

  g_ptr_array_add (all, (gpointer) first);
  if (second)
    g_ptr_array_add (all, (gpointer) second);
  for (const char *const *n = names; *n; n++)
    g_ptr_array_add (all, (gpointer) *n);
  tilde_csv_writer_names (writer, (const char *const *) all->pdata, all->len);
}

static char *
laplace_path_for (const char *output)
{
  g_autofree char *stem = g_str_has_suffix (output, ".csv")
                          ? g_strndup (output, strlen (output) - 4) : g_strdup (output);
  return g_strconcat (stem, "_laplace.csv", NULL);
}

static gboolean
close_writer (TildeCsvWriter *writer)
{
  g_autoptr (GError) error = NULL;

  if (!tilde_csv_writer_close (writer, &error))
    {
      g_printerr (_("Error writing output: %s\n"), error->message);
      return FALSE;
    }
  return TRUE;
}

static int
run_laplace (TildeModel *model, const RunSettings *s, const TildeOptimizeOptions *o,
             const char *mode_path, const char *path, int draws, const double *mode, gsl_rng *rng)
{
  g_autoptr (GArray) config = g_array_new (FALSE, FALSE, sizeof (ConfigLine));
  g_autoptr (GError) error = NULL;
  TildeCsvWriter *writer;
  RowSink sink = { model, NULL, rng, NULL, 0 };
  gboolean ok;

  g_array_set_clear_func (config, config_line_clear);
  config_preamble (config, s);
  config_laplace (config, mode_path, o->jacobian, draws);
  config_common (config, s, path, FALSE);
  writer = tilde_csv_writer_open (path, s->sig_figs, &error);
  if (writer == NULL)
    {
      g_printerr (_("Error opening output file: %s\n"), error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  sink.writer = writer;
  config_print (config);
  config_write (config, writer);
  write_names (writer, model, "log_p__", "log_q__");
  ok = tilde_laplace_sample (model, mode, o->jacobian, draws, s->refresh, rng, write_laplace_row,
                             print_message, &sink, NULL, &error);
  if (!close_writer (writer) || !ok)
    {
      if (error)
        g_printerr ("%s\n", error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  return TILDE_EXIT_OK;
}

/* The starting point as sampling's initialisation finds it, judged on the
 * objective without the Jacobian and without the timing lines, as
 * CmdStan's optimize method starts. FALSE after a message. */
static gboolean
initial_point (TildeModel *model, const RunSettings *s, gsl_rng *rng, double *theta)
{
  g_autoptr (TildeInits) inits = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree double *gradient = g_new0 (double, MAX (tilde_model_num_params_unconstrained (model), 1));
  g_autofree char *problem = NULL;
  TildeInitOptions options = { .jacobian = FALSE, .report_timing = FALSE };
  double lp;

  if (s->init_path != NULL)
    {
      inits = tilde_inits_new_from_file (s->init_path, &error);
      if (inits == NULL)
        {
          g_printerr (_("Error reading init file '%s': %s\n"), s->init_path, error->message);
          return FALSE;
        }
    }
  if (!tilde_init_find_with (model, inits, s->radius, rng, &options, theta, &lp, gradient,
                             print_message, NULL, &problem))
    {
      g_printerr ("%s\n", problem);
      return FALSE;
    }
  return TRUE;
}

static int
run (OptimizeArgs *a)
{
  TildeOptimizeOptions o;
  RunSettings s = { 0 };
  g_autoptr (GArray) config = g_array_new (FALSE, FALSE, sizeof (ConfigLine));
  g_autoptr (TildeModel) model = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree double *theta0 = NULL;
  g_autofree double *row = NULL;
  const char *output = a->output ? a->output : "output.csv";
  TildeOptimizeResult result;
  TildeOptimizeCallbacks callbacks = { 0 };
  TildeCsvWriter *writer;
  RowSink sink = { 0 };
  MirOptLevel level;
  gsl_rng *rng;
  int status;
  gsize n;

  if (!check_args (a, &o, &s.radius) || !_tilde_cli_parse_level (a->o0, a->o1, a->oexperimental, &level))
    return TILDE_EXIT_USAGE;
  s.model_path = a->files[0];
  s.data_path = a->data;
  s.init_path = a->init;
  s.seed_given = a->seed != -1;
  s.seed = s.seed_given ? (guint32) a->seed : g_random_int ();
  s.refresh = o.refresh;
  s.sig_figs = a->sig_figs;

  model = _tilde_cli_load_model (s.model_path, s.data_path, level, s.seed, &status);
  if (model == NULL)
    return status;
  n = tilde_model_num_params_unconstrained (model);
  if (n == 0)
    {
      g_printerr (_("Model contains no parameters: there is nothing to optimize.\n"));
      return TILDE_EXIT_MODEL_ERROR;
    }

  g_array_set_clear_func (config, config_line_clear);
  config_preamble (config, &s);
  config_optimize (config, &o);
  config_common (config, &s, output, a->output == NULL);
  config_print (config);

  rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, s.seed);
  theta0 = g_new0 (double, n);
  if (!initial_point (model, &s, rng, theta0))
    {
      gsl_rng_free (rng);
      return TILDE_EXIT_MODEL_ERROR;
    }

  writer = tilde_csv_writer_open (output, s.sig_figs, &error);
  if (writer == NULL)
    {
      g_printerr (_("Error opening output file: %s\n"), error->message);
      gsl_rng_free (rng);
      return TILDE_EXIT_MODEL_ERROR;
    }
  config_write (config, writer);
  write_names (writer, model, "lp__", NULL);
  sink = (RowSink) { model, writer, rng, NULL, tilde_model_num_outputs (model, TRUE, TRUE) };
  row = g_new0 (double, 1 + sink.n_out);
  sink.row = row;
  callbacks = (TildeOptimizeCallbacks) { print_message, write_optimize_row, &sink, NULL };

  status = tilde_optimize_run (model, theta0, &o, &callbacks, &result) ? TILDE_EXIT_OK
                                                                       : TILDE_EXIT_MODEL_ERROR;
  _tilde_cli_report_device_failures (model);
  if (!close_writer (writer))
    status = TILDE_EXIT_MODEL_ERROR;
  if (status == TILDE_EXIT_OK && a->laplace_draws > 0)
    {
      g_autofree char *path = a->laplace_output ? g_strdup (a->laplace_output)
                                                : laplace_path_for (output);
      printf ("\n");
      status = run_laplace (model, &s, &o, output, path, a->laplace_draws, result.theta, rng);
    }
  tilde_optimize_result_clear (&result);
  gsl_rng_free (rng);
  return status;
}

int
_tilde_cli_optimize (const char *name, int argc, char **argv)
{
  OptimizeArgs a = {
    .init_radius = NAN, .iter = UNSET_INT, .tol_obj = NAN, .tol_rel_obj = NAN, .tol_grad = NAN,
    .tol_rel_grad = NAN, .tol_param = NAN, .history_size = UNSET_INT, .init_alpha = NAN,
    .laplace_draws = 0, .seed = -1, .refresh = UNSET_INT, .sig_figs = -1,
  };
  g_autoptr (GOptionContext) context = option_context (&a);
  g_autoptr (GError) error = NULL;
  int status;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde %s: %s\n", name, error->message);
      args_clear (&a);
      return TILDE_EXIT_USAGE;
    }
  status = run (&a);
  args_clear (&a);
  return status;
}
