/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde generate-quantities`: CmdStan's generate_quantities method. The
 * draws of earlier Stan CSV files (one per chain, as `tilde sample`
 * writes them) go through the model's transformed parameters and
 * generated quantities again, one output file per input file. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "infer/generate.h"
#include "infer/run.h"
#include "io/stan-csv-read.h"
#include "io/stan-csv-write.h"

/* Full messages of failed draws per file before they are only counted. */
enum { FAILURES_IN_FULL = 3 };

typedef struct {
  char    *data;
  char   **fitted_params;
  gint64   seed;
  char    *output;
  int      sig_figs;
  gboolean o0, o1, oexperimental;
  char   **files;
} GenerateArgs;

static void
args_clear (GenerateArgs *a)
{
  g_free (a->data);
  g_strfreev (a->fitted_params);
  g_free (a->output);
  g_strfreev (a->files);
}

static GOptionContext *
option_context (GenerateArgs *a)
{
  const GOptionEntry entries[] = {
    { "fitted-params", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->fitted_params,
      N_("Stan CSV file of draws from the same model (repeat for several chains)"), N_("FILE") },
    { "fitted_params", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME_ARRAY, &a->fitted_params,
      NULL, NULL },
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &a->data, N_("Data file (CmdStan JSON)"), N_("FILE") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &a->seed, N_("Random seed (default: from the clock)"), N_("S") },
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &a->output,
      N_("Output file (default output.csv; with several input files out.csv gives out_1.csv, ...)"),
      N_("FILE") },
    { "sig-figs", 0, 0, G_OPTION_ARG_INT, &a->sig_figs,
      N_("Significant digits of the values, 1 to 18 (default 6)"), N_("N") },
    { "O0", 0, 0, G_OPTION_ARG_NONE, &a->o0, N_("No optimisation (the default)"), NULL },
    { "O1", 0, 0, G_OPTION_ARG_NONE, &a->o1, N_("Optimise at level 1"), NULL },
    { "Oexperimental", 0, 0, G_OPTION_ARG_NONE, &a->oexperimental, N_("All optimisations"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->files, NULL, NULL },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("MODEL.stan"));

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_group (context, _tilde_cli_model_option_group ());
  g_option_context_set_summary (context, _("Runs the transformed parameters and generated quantities "
                                           "of MODEL.stan again over the draws\nof earlier Stan CSV "
                                           "files, as CmdStan's generate_quantities method does, and\n"
                                           "writes one Stan CSV file per input file."));
  return context;
}

#define usage_error(...) _tilde_cli_usage_error ("generate-quantities", __VA_ARGS__)

static gboolean
check_args (const GenerateArgs *a)
{
  if (a->files == NULL || g_strv_length (a->files) != 1)
    return usage_error (_("give one model file (see tilde generate-quantities --help)"));
  if (a->fitted_params == NULL)
    return usage_error (_("give the draws with --fitted-params FILE"));
  if (a->seed != -1 && (a->seed < 0 || a->seed > G_MAXUINT32))
    return usage_error (_("--seed must be between 0 and 4294967295"));
  if (a->sig_figs != -1 && (a->sig_figs < 1 || a->sig_figs > 18))
    return usage_error (_("--sig-figs must be between 1 and 18, not %d"), a->sig_figs);
  return TRUE;
}

typedef struct {
  const char *file;
  guint       shown;
} Failures;

/* CmdStan logs the error of each failed draw; a few are shown in full. */
static void
on_failed_draw (guint draw, const char *text, gpointer data)
{
  Failures *f = data;

  if (f->shown++ < FAILURES_IN_FULL)
    g_printerr (_("%s: draw %u: generated quantities failed: %s\n"), f->file, draw, text);
}

/* All input files are read and checked before any output is written. */
static GPtrArray *
read_inputs (const GenerateArgs *a, TildeModel *model)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_stan_csv_free);

  for (char **p = a->fitted_params; *p != NULL; p++)
    {
      g_autoptr(GError) error = NULL;
      TildeStanCsv *csv = tilde_stan_csv_read_file (*p, &error);

      if (csv == NULL)
        {
          g_printerr (_("Error reading fitted param names from sample csv file %s: %s\n"), *p,
                      error->message);
          return NULL;
        }
      g_ptr_array_add (inputs, csv);
      for (guint w = 0; w < csv->warnings->len; w++)
        g_printerr ("%s\n", (const char *) g_ptr_array_index (csv->warnings, w));
      if (!tilde_generate_check (model, csv, &error))
        {
          g_printerr ("%s\n", error->message);
          return NULL;
        }
    }
  return g_steal_pointer (&inputs);
}

static int
generate_one (TildeModel *model, const TildeStanCsv *csv, TildeGenerateOptions *o,
              const char *path)
{
  g_autoptr(GError) error = NULL;
  TildeCsvWriter *writer = tilde_csv_writer_open (path, o->sig_figs, &error);
  Failures failures = { csv->name, 0 };
  guint n_failed = 0;
  gboolean ok;

  if (writer == NULL)
    {
      g_printerr ("tilde generate-quantities: %s\n", error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  o->fitted_params = csv->name;
  o->output = path;
  ok = tilde_generate_quantities (model, csv, o, writer, on_failed_draw, &failures, &n_failed,
                                  &error);
  if (!tilde_csv_writer_close (writer, ok ? &error : NULL))
    ok = FALSE;
  if (!ok)
    {
      g_printerr ("%s\n", error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  if (n_failed > 0)
    g_printerr (_("%s: the generated quantities failed in %u of %u draws; their values are NaN.\n"),
                csv->name, n_failed, csv->n_draws);
  return TILDE_EXIT_OK;
}

static int
generate (const GenerateArgs *a)
{
  g_autoptr(TildeModel) model = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) paths = NULL;
  g_autofree char *name = _tilde_cli_model_name (a->files[0]);
  TildeGenerateOptions o = { 0 };
  const char *output = a->output ? a->output : "output.csv";
  MirOptLevel level;
  int status;

  if (!_tilde_cli_parse_level (a->o0, a->o1, a->oexperimental, &level))
    return TILDE_EXIT_USAGE;
  /* the seed before the model: its transformed data draw from it, as in the
   * run that made the draws when the seed is that run's */
  o.seed = a->seed != -1 ? (guint64) a->seed : g_random_int ();
  o.seed_given = a->seed != -1;
  model = _tilde_cli_load_model (a->files[0], a->data, level, o.seed, &status);
  if (model == NULL)
    return status;
  inputs = read_inputs (a, model);
  if (inputs == NULL)
    return TILDE_EXIT_MODEL_ERROR;

  o.sig_figs = a->sig_figs;
  o.model_name = name;
  o.data_file = a->data;
  o.compiler_flags = a->oexperimental ? "--Oexperimental" : a->o1 ? "--O1" : "";
  paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < inputs->len; i++)
    {
      char *path = tilde_sample_chain_output_path (output, inputs->len, i + 1);
      g_ptr_array_add (paths, path);
      status = generate_one (model, g_ptr_array_index (inputs, i), &o, path);
      if (status != TILDE_EXIT_OK)
        return status;
    }
  printf ("%s", paths->len == 1 ? _("Output file:") : _("Output files:"));
  for (guint i = 0; i < paths->len; i++)
    printf (" %s", (const char *) g_ptr_array_index (paths, i));
  printf ("\n");
  return TILDE_EXIT_OK;
}

int
_tilde_cli_generate (const char *name, int argc, char **argv)
{
  GenerateArgs a = { .seed = -1, .sig_figs = -1 };
  g_autoptr(GOptionContext) context = option_context (&a);
  g_autoptr(GError) error = NULL;
  int status;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde %s: %s\n", name, error->message);
      args_clear (&a);
      return TILDE_EXIT_USAGE;
    }
  if (!check_args (&a))
    {
      args_clear (&a);
      return TILDE_EXIT_USAGE;
    }
  status = generate (&a);
  args_clear (&a);
  return status;
}
