/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "infer-test-util.h"

#include <math.h>
#include <string.h>

#include "mir/mir-lower.h"
#include "tilde-frontend.h"

static TildeModel *
prepare (TildeCheckResult *result, const TildeJsonData *data)
{
  g_autoptr(GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  MirProgram *lowered;
  TildeModel *model;

  if (result == NULL || tilde_check_result_has_errors (result))
    {
      g_autofree char *text = result ? tilde_check_result_render_all (result) : g_strdup ("unreadable");
      g_error ("model does not compile: %s", text);
    }
  lowered = mir_lower_program (tilde_check_result_get_program (result));
  g_assert_nonnull (lowered);
  model = tilde_model_new (lowered, data, diagnostics);
  mir_program_free (lowered);
  if (model == NULL)
    {
      const TildeDiagnostic *d = diagnostics->len ? g_ptr_array_index (diagnostics, 0) : NULL;
      g_error ("model preparation failed: %s", d ? d->message : "?");
    }
  return model;
}

TildeModel *
infer_test_model (const char *source, const char *data_json)
{
  g_autoptr(TildeCheckResult) result = tilde_frontend_check_buffer ("model.stan", NULL, source, -1, NULL);
  g_autoptr(TildeJsonData) data = NULL;
  g_autoptr(GError) error = NULL;

  if (data_json)
    {
      data = tilde_json_data_new_from_string (data_json, -1, &error);
      g_assert_no_error (error);
    }
  return prepare (result, data);
}

TildeModel *
infer_test_model_file (const char *stan_path, const char *data_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeCheckResult) result = tilde_frontend_check_file (stan_path, NULL, &error);
  g_autoptr(TildeJsonData) data = NULL;

  g_assert_no_error (error);
  if (data_path)
    {
      data = tilde_json_data_new_from_file (data_path, &error);
      g_assert_no_error (error);
    }
  return prepare (result, data);
}

void
infer_test_options (TildeSampleOptions *o, guint chains, guint warmup, guint samples, guint64 seed)
{
  tilde_sample_options_init (o);
  o->chains = chains;
  o->warmup = warmup;
  o->samples = samples;
  o->seed = seed;
  o->seed_given = TRUE;
  o->output = NULL;
  o->keep_draws = TRUE;
}

TildeSampleRun *
infer_test_run (TildeModel *model, const TildeSampleOptions *options)
{
  g_autoptr(GError) error = NULL;
  TildeSampleRun *run = tilde_sample_run_start (model, options, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (run);
  tilde_sample_run_wait (run, &error);
  g_assert_no_error (error);
  return run;
}

gsize
infer_test_column (TildeSampleRun *run, const char *name)
{
  gsize n;
  const char *const *names = tilde_sample_run_get_column_names (run, &n);

  for (gsize i = 0; i < n; i++)
    if (strcmp (names[i], name) == 0)
      return i;
  g_error ("no column %s", name);
  return 0;
}

double *
infer_test_draws (TildeSampleRun *run, gsize col, gsize *per_chain)
{
  guint chains = tilde_sample_run_get_n_chains (run);
  gsize n_columns, rows = 0, warmup = 0, expected = 0;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (double));

  tilde_sample_run_get_column_names (run, &n_columns);
  for (guint c = 0; c < chains; c++)
    {
      const double *table = tilde_sample_run_get_draws (run, c, &rows, &warmup);
      g_assert_nonnull (table);
      if (c == 0)
        expected = rows - warmup;
      g_assert_cmpuint (rows - warmup, ==, expected);
      for (gsize r = warmup; r < rows; r++)
        g_array_append_val (out, table[r * n_columns + col]);
    }
  *per_chain = expected;
  return (double *) g_array_free (out, FALSE);
}

static double
mean_of (const double *x, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += x[i];
  return s / n;
}

static double
variance_of (const double *x, gsize n, double mean)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (x[i] - mean) * (x[i] - mean);
  return s / (n - 1);
}

static double
batch_mcse (const double *x, guint chains, gsize per_chain, gsize batch)
{
  gsize per = per_chain / batch, k = 0;
  g_autofree double *means = g_new0 (double, MAX (chains * per, 1));

  for (guint c = 0; c < chains; c++)
    for (gsize b = 0; b < per; b++)
      means[k++] = mean_of (x + c * per_chain + b * batch, batch);
  if (k < 2)
    return INFINITY;
  return sqrt (variance_of (means, k, mean_of (means, k)) / k);
}

void
infer_test_summarise (const double *x, guint chains, gsize per_chain, InferTestSummary *s)
{
  gsize n = chains * per_chain, half = per_chain / 2;
  guint m = 2 * chains;
  double w = 0, b = 0, grand = 0;
  g_autofree double *means = g_new0 (double, m);

  s->mean = mean_of (x, n);
  s->sd = sqrt (variance_of (x, n, s->mean));
  s->mcse = MAX (batch_mcse (x, chains, per_chain, 50), batch_mcse (x, chains, per_chain, 100));
  for (guint c = 0; c < chains; c++)
    for (guint h = 0; h < 2; h++)
      {
        const double *part = x + c * per_chain + h * half;
        means[2 * c + h] = mean_of (part, half);
        w += variance_of (part, half, means[2 * c + h]) / m;
        grand += means[2 * c + h] / m;
      }
  for (guint j = 0; j < m; j++)
    b += (means[j] - grand) * (means[j] - grand) * half / (m - 1);
  s->rhat = sqrt (((half - 1.0) / half * w + b / half) / w);
}
