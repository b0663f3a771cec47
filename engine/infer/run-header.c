/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The configuration header of a sample run's CSV files, laid out as
 * CmdStan 2.33 lays out its argument tree: one "key = value" a line,
 * nested by two spaces, "(Default)" after values left at their default. */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/run-private.h"

#include <string.h>

#include "tilde-engine.h"

typedef struct {
  TildeCsvWriter *writer;
} Header;

static void
line (Header *h, guint depth, const char *key, const char *value, gboolean is_default)
{
  tilde_csv_writer_config (h->writer, depth, key, value, is_default);
}

static void
section (Header *h, guint depth, const char *key)
{
  tilde_csv_writer_config (h->writer, depth, key, NULL, FALSE);
}

static void
uint_line (Header *h, guint depth, const char *key, guint64 value, guint64 default_value)
{
  char text[32];
  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, value);
  line (h, depth, key, text, value == default_value);
}

static void
int_line (Header *h, guint depth, const char *key, int value, int default_value)
{
  char text[32];
  g_snprintf (text, sizeof text, "%d", value);
  line (h, depth, key, text, value == default_value);
}

/* CmdStan prints real arguments with 17 significant digits. */
static void
real_line (Header *h, guint depth, const char *key, double value, double default_value)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (text, sizeof text, "%.17g", value);
  line (h, depth, key, text, value == default_value);
}

void
_tilde_csv_write_version_config (TildeCsvWriter *writer)
{
  g_auto(GStrv) parts = g_strsplit (tilde_engine_stan_version (), ".", 3);
  const char *keys[] = { "stan_version_major", "stan_version_minor", "stan_version_patch" };
  guint n = g_strv_length (parts);

  for (guint i = 0; i < 3; i++)
    tilde_csv_writer_config (writer, 0, keys[i], i < n ? parts[i] : "0", FALSE);
}

static void
sample_lines (Header *h, const TildeSampleOptions *o, const TildeSampleHeaderInfo *info)
{
  TildeAdaptOptions d;
  const TildeAdaptOptions *a = &o->adapt_options;

  tilde_adapt_options_init (&d);
  line (h, 0, "method", "sample", TRUE);
  section (h, 1, "sample");
  uint_line (h, 2, "num_samples", o->samples, 1000);
  uint_line (h, 2, "num_warmup", o->warmup, 1000);
  uint_line (h, 2, "save_warmup", o->save_warmup, 0);
  uint_line (h, 2, "thin", o->thin, 1);
  section (h, 2, "adapt");
  uint_line (h, 3, "engaged", info->adapt_engaged, 1);
  real_line (h, 3, "gamma", a->gamma, d.gamma);
  real_line (h, 3, "delta", a->delta, d.delta);
  real_line (h, 3, "kappa", a->kappa, d.kappa);
  real_line (h, 3, "t0", a->t0, d.t0);
  uint_line (h, 3, "init_buffer", a->init_buffer, d.init_buffer);
  uint_line (h, 3, "term_buffer", a->term_buffer, d.term_buffer);
  uint_line (h, 3, "window", a->window, d.window);
  /* not CmdStan's: written only when it is not Stan's own adaptation */
  if (a->metric_adaptation != TILDE_METRIC_ADAPTATION_STAN)
    line (h, 3, "metric_adaptation", tilde_metric_adaptation_name (a->metric_adaptation), FALSE);
  if (info->fixed_param)
    line (h, 2, "algorithm", "fixed_param", FALSE);
  else
    {
      line (h, 2, "algorithm", "hmc", TRUE);
      section (h, 3, "hmc");
      line (h, 4, "engine", "nuts", TRUE);
      section (h, 5, "nuts");
      uint_line (h, 6, "max_depth", o->max_depth, 10);
      line (h, 4, "metric", tilde_metric_kind_name (o->metric), o->metric == TILDE_METRIC_DIAG);
      line (h, 4, "metric_file", "", TRUE);
      real_line (h, 4, "stepsize", o->stepsize, 1.0);
      real_line (h, 4, "stepsize_jitter", 0.0, 0.0);
    }
  uint_line (h, 2, "num_chains", o->chains, 1);
}

void
_tilde_sample_write_config (TildeCsvWriter *writer, const TildeSampleOptions *o,
                            const TildeSampleHeaderInfo *info)
{
  Header h = { writer };
  g_autofree char *compiler = NULL;

  _tilde_csv_write_version_config (writer);
  line (&h, 0, "model", o->model_name ? o->model_name : "model", FALSE);
  line (&h, 0, "start_datetime", info->start_datetime, FALSE);
  sample_lines (&h, o, info);
  uint_line (&h, 0, "id", info->chain_id, 1);
  section (&h, 0, "data");
  line (&h, 1, "file", o->data_file ? o->data_file : "", o->data_file == NULL);
  if (o->init_file != NULL)
    line (&h, 0, "init", o->init_file, FALSE);
  else
    {
      char text[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (text, sizeof text, "%.17g", o->init_radius);
      line (&h, 0, "init", text, o->init_radius == 2.0);
    }
  section (&h, 0, "random");
  {
    char text[32];
    g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, o->seed);
    line (&h, 1, "seed", text, !o->seed_given);
  }
  section (&h, 0, "output");
  line (&h, 1, "file", o->output ? o->output : "", o->output && strcmp (o->output, "output.csv") == 0);
  line (&h, 1, "diagnostic_file", "", TRUE);
  uint_line (&h, 1, "refresh", o->refresh, 100);
  int_line (&h, 1, "sig_figs", o->sig_figs, -1);
  line (&h, 1, "profile_file", "profile.csv", TRUE);
  uint_line (&h, 0, "num_threads", info->threads, 1);
  compiler = g_strdup_printf ("tilde %s", tilde_engine_version ());
  line (&h, 0, "stanc_version", compiler, FALSE);
  line (&h, 0, "stancflags", o->compiler_flags ? o->compiler_flags : "", FALSE);
}
