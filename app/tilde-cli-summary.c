/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde summary`: the chains of Stan CSV files summarised as CmdStan's
 * stansummary does, with cmdstanr's sampler warnings; or the same as JSON. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "infer/summary.h"

typedef struct {
  gboolean json;
  int      sig_figs;
  char    *percentiles;
  char   **files;
} SummaryOptions;

static void
options_clear (SummaryOptions *o)
{
  g_free (o->percentiles);
  g_strfreev (o->files);
}

static GOptionContext *
option_context (SummaryOptions *o)
{
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, N_("Print the summary as JSON"), NULL },
    { "sig-figs", 0, 0, G_OPTION_ARG_INT, &o->sig_figs,
      N_("Significant figures of the table, 1 to 18 (default 2)"), N_("N") },
    { "percentiles", 0, 0, G_OPTION_ARG_STRING, &o->percentiles,
      N_("Increasing percentiles in [0.1, 99.9], comma-separated (default 5,50,95; \"\" for none)"),
      N_("LIST") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->files, NULL, NULL },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("FILE.csv..."));

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Summarises the chains of a run, one Stan CSV file each: mean, MCSE, "
                                  "standard deviation,\nquantiles, bulk and tail ESS and rank-normalised "
                                  "split R-hat of every column, as CmdStan's\nstansummary lists them, then "
                                  "warnings about divergences, tree depth, E-BFMI, R-hat and ESS."));
  return context;
}

/* "5,50,95" -> 0.05, 0.5, 0.95; FALSE (after a message) unless increasing
 * numbers in [0.1, 99.9]. */
static gboolean
parse_percentiles (const char *spec, GArray *probs)
{
  g_auto (GStrv) parts = g_strsplit_set (spec, ", ", -1);
  double last = 0;

  for (guint i = 0; parts[i]; i++)
    {
      char *end;
      double pct;

      if (parts[i][0] == '\0')
        continue;
      pct = g_ascii_strtod (parts[i], &end);
      if (*end != '\0' || !(pct >= 0.1 && pct <= 99.9) || pct <= last)
        {
          g_printerr (_("tilde summary: --percentiles %s: give increasing numbers from 0.1 to 99.9\n"), spec);
          return FALSE;
        }
      last = pct;
      pct /= 100;
      g_array_append_val (probs, pct);
    }
  return TRUE;
}

static GPtrArray *
read_chains (char **files)
{
  GPtrArray *chains = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_stan_csv_free);

  for (guint i = 0; files[i]; i++)
    {
      g_autoptr (GError) error = NULL;
      TildeStanCsv *csv = tilde_stan_csv_read_file (files[i], &error);

      if (csv == NULL)
        {
          g_printerr (_("tilde summary: %s\n"), error->message);
          g_ptr_array_unref (chains);
          return NULL;
        }
      for (guint w = 0; w < csv->warnings->len; w++)
        g_printerr (_("tilde summary: warning: %s\n"), (const char *) g_ptr_array_index (csv->warnings, w));
      g_ptr_array_add (chains, csv);
    }
  return chains;
}

int
_tilde_cli_summary (const char *name, int argc, char **argv)
{
  SummaryOptions o = { .sig_figs = 2 };
  g_autoptr (GOptionContext) context = option_context (&o);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) probs = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) chains = NULL;
  g_autoptr (TildeSummary) summary = NULL;
  g_autofree char *out = NULL;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde %s: %s\n", name, error->message);
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (o.files == NULL || o.files[0] == NULL)
    {
      g_printerr (_("tilde summary: give one or more Stan CSV files (see tilde summary --help)\n"));
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (o.sig_figs < 1 || o.sig_figs > 18)
    {
      g_printerr (_("tilde summary: --sig-figs %d: give a whole number from 1 to 18\n"), o.sig_figs);
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (!parse_percentiles (o.percentiles ? o.percentiles : "5,50,95", probs))
    {
      options_clear (&o);
      return TILDE_EXIT_USAGE;
    }

  chains = read_chains (o.files);
  options_clear (&o);
  if (chains == NULL)
    return TILDE_EXIT_MODEL_ERROR;
  summary = tilde_summary_new ((TildeStanCsv *const *) chains->pdata, chains->len,
                               (const double *) (void *) probs->data, probs->len, &error);
  if (summary == NULL)
    {
      g_printerr (_("tilde summary: %s\n"), error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  out = o.json ? tilde_summary_to_json (summary) : tilde_summary_to_text (summary, o.sig_figs);
  fputs (out, stdout);
  if (o.json)
    fputc ('\n', stdout);
  return TILDE_EXIT_OK;
}
