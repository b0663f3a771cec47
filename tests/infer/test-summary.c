/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Summaries of Stan CSV runs: the four-chain run under data/reference-run/
 * against data/reference-summary.json (both made by
 * make-diagnostics-reference.py, independently of engine/infer), the
 * warnings in cmdstanr's documented wording, the number layout of CmdStan's
 * stansummary (the eight schools table of the CmdStan guide), and runs whose
 * files do not belong together.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "infer/column-name.h"
#include "infer/summary.h"

static const double default_probs[] = { 0.05, 0.5, 0.95 };

static char *
data_path (const char *folder, const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "infer", "data", folder, name, NULL);
}

static GPtrArray *
read_chains (const char *folder, const char *const *names)
{
  GPtrArray *chains = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_stan_csv_free);

  for (const char *const *n = names; *n; n++)
    {
      g_autofree char *path = data_path (folder, *n);
      g_autoptr (GError) error = NULL;
      TildeStanCsv *csv = tilde_stan_csv_read_file (path, &error);

      g_assert_no_error (error);
      g_ptr_array_add (chains, csv);
    }
  return chains;
}

static const char *const reference_chains[] = { "chain-1.csv", "chain-2.csv", "chain-3.csv",
                                                "chain-4.csv", NULL };

static double
json_number (JsonObject *o, const char *member)
{
  JsonNode *node = json_object_get_member (o, member);

  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);

      return g_str_equal (s, "NaN") ? NAN : g_str_equal (s, "inf") ? INFINITY : -INFINITY;
    }
  return json_node_get_double (node);
}

static void
assert_close (const char *row, const char *what, double got, double want)
{
  if (isnan (want) ? !isnan (got)
      : isinf (want) ? got != want
      : !(fabs (got - want) <= 1e-9 * MAX (fabs (want), 1e-12)))
    g_error ("%s %s: expected %.17g, got %.17g", row, what, want, got);
}

static JsonObject *
reference_summary (JsonParser *parser)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "infer", "data",
                                                 "reference-summary.json", NULL);
  g_autoptr (GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_reference_run (void)
{
  g_autoptr (GPtrArray) chains = read_chains ("reference-run", reference_chains);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *want = reference_summary (parser);
  JsonArray *columns = json_object_get_array_member (want, "columns");
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeSummary) s = tilde_summary_new ((TildeStanCsv *const *) chains->pdata, chains->len,
                                                  default_probs, 3, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (s->n_chains, ==, 4);
  /* the 20 saved warmup draws of each file are not part of it */
  g_assert_cmpuint (s->n_draws, ==, json_object_get_int_member (want, "draws_per_chain"));
  g_assert_cmpstr (s->model, ==, "reference_model");
  g_assert_cmpuint (s->rows->len, ==, json_array_get_length (columns));

  for (guint r = 0; r < s->rows->len; r++)
    {
      const TildeSummaryRow *row = g_ptr_array_index (s->rows, r);
      JsonObject *w = json_array_get_object_element (columns, r);
      const char *name = json_object_get_string_member (w, "name");

      g_assert_cmpstr (row->name, ==, name);
      assert_close (name, "mean", row->mean, json_number (w, "mean"));
      assert_close (name, "mcse", row->mcse, json_number (w, "mcse"));
      assert_close (name, "sd", row->sd, json_number (w, "sd"));
      assert_close (name, "5%", row->quantiles[0], json_number (w, "q5"));
      assert_close (name, "50%", row->quantiles[1], json_number (w, "q50"));
      assert_close (name, "95%", row->quantiles[2], json_number (w, "q95"));
      assert_close (name, "ess_bulk", row->ess_bulk, json_number (w, "ess_bulk"));
      assert_close (name, "ess_tail", row->ess_tail, json_number (w, "ess_tail"));
      assert_close (name, "rhat", row->rhat, json_number (w, "rhat"));
    }
  g_assert_cmpint (((TildeSummaryRow *) g_ptr_array_index (s->rows, 0))->kind, ==, TILDE_SUMMARY_LP);
  g_assert_cmpint (((TildeSummaryRow *) g_ptr_array_index (s->rows, 1))->kind, ==, TILDE_SUMMARY_SAMPLER);
  g_assert_cmpint (((TildeSummaryRow *) g_ptr_array_index (s->rows, 7))->kind, ==, TILDE_SUMMARY_MODEL);

  for (guint c = 0; c < 4; c++)
    {
      g_assert_cmpint (s->divergent[c], ==,
                       json_array_get_int_element (json_object_get_array_member (want, "divergent"), c));
      g_assert_cmpint (s->max_treedepth[c], ==,
                       json_array_get_int_element (json_object_get_array_member (want, "max_treedepth_hits"), c));
      assert_close ("ebfmi", "chain", s->ebfmi[c],
                    json_array_get_double_element (json_object_get_array_member (want, "ebfmi"), c));
      g_assert_cmpfloat (s->chain_warmup[c], ==, 20);
    }
}

/* cmdstanr's messages: "Warning: N of M (x%) transitions ended with a
 * divergence." with x = format(round(100 N / M), nsmall = 1), and so on. */
static void
test_reference_run_warnings (void)
{
  g_autoptr (GPtrArray) chains = read_chains ("reference-run", reference_chains);
  g_autoptr (TildeSummary) s = tilde_summary_new ((TildeStanCsv *const *) chains->pdata, chains->len,
                                                  default_probs, 3, NULL);
  const char *expected[] = {
    /* 3 divergences (chains 1 and 4) and 3 transitions at depth 10 (chain
     * 2) of 1600: 0.19%, which rounds to 0 */
    "Warning: 3 of 1600 (0.0%) transitions ended with a divergence.\n"
    "See https://mc-stan.org/misc/warnings for details.",
    "Warning: 3 of 1600 (0.0%) transitions hit the maximum treedepth limit of 10.\n"
    "See https://mc-stan.org/misc/warnings for details.",
    /* chain 4's energy has E-BFMI 0.23 */
    "Warning: 1 of 4 chains had an E-BFMI less than 0.3.\n"
    "See https://mc-stan.org/misc/warnings for details.",
    /* theta[3]: one chain in another mode, R-hat 1.48 */
    "Warning: The following parameters had rank-normalized split R-hat greater than 1.01:\n"
    "  theta[3]\n",
    /* bulk-ESS 303 and 7.8 against 400 */
    "Warning: The following parameters had a bulk or tail effective sample size below 400 "
    "(100 per chain):\n  theta[2], theta[3]\n",
  };

  g_assert_cmpuint (s->warnings->len, ==, G_N_ELEMENTS (expected));
  for (guint w = 0; w < G_N_ELEMENTS (expected); w++)
    {
      const char *got = g_ptr_array_index (s->warnings, w);

      if (!g_str_has_prefix (got, expected[w]))
        g_error ("warning %u: expected \"%s...\", got \"%s\"", w, expected[w], got);
    }
}

/* One rounded percentage per cmdstanr: 92 of 4000 is 2.3%, shown "2.0";
 * 662 of 4000 is 16.55%, shown "17.0". */
static void
test_divergence_percentages (void)
{
  const char *text_head = "lp__,divergent__,x\n";
  const struct {
    guint divergent, total;
    const char *percent;
  } cases[] = { { 92, 4000, "(2.0%)" }, { 662, 4000, "(17.0%)" }, { 4000, 4000, "(100.0%)" } };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      GString *text = g_string_new (text_head);
      g_autoptr (TildeStanCsv) csv = NULL;
      g_autoptr (TildeSummary) s = NULL;
      g_autofree char *want = NULL;

      for (guint i = 0; i < cases[k].total; i++)
        g_string_append_printf (text, "-1,%d,%g\n", i < cases[k].divergent, sin (i));
      csv = tilde_stan_csv_read_string (text->str, text->len, "div.csv", NULL);
      g_string_free (text, TRUE);
      s = tilde_summary_new (&csv, 1, default_probs, 3, NULL);
      want = g_strdup_printf ("Warning: %u of %u %s transitions ended with a divergence.",
                              cases[k].divergent, cases[k].total, cases[k].percent);
      g_assert_true (g_str_has_prefix (g_ptr_array_index (s->warnings, 0), want));
    }
}

static TildeSummaryRow *
hand_row (const char *name, TildeSummaryKind kind, const double v[9])
{
  TildeSummaryRow *row = g_new0 (TildeSummaryRow, 1);

  row->name = g_strdup (name);
  row->column = g_strdup (name);
  row->kind = kind;
  row->mean = v[0];
  row->mcse = v[1];
  row->sd = v[2];
  row->quantiles = g_memdup2 (v + 3, 3 * sizeof (double));
  row->ess_bulk = v[6];
  row->ess_tail = v[7];
  row->rhat = v[8];
  return row;
}

static void
row_free (gpointer data)
{
  TildeSummaryRow *row = data;

  g_free (row->name);
  g_free (row->column);
  g_free (row->quantiles);
  g_free (row);
}

/* The eight schools table of CmdStan's stansummary documentation, with its
 * MAD and ESS_bulk/s columns left out: every cell must read as it does
 * there (sig_figs 2: "-19", "0.024", "6.5e-03" where a column of the
 * sampler's rows needs scientific notation, "nan", "1.0"), right-aligned
 * under its header. */
static void
test_stansummary_number_layout (void)
{
  static const struct {
    const char *name;
    TildeSummaryKind kind;
    double v[9];
    const char *cells;
  } table[] = {
    { "lp__", TILDE_SUMMARY_LP, { -19, 0.31, 4.9, -27, -19, -11, 264, 275, 1.002 },
      "lp__ -19 0.31 4.9 -27 -19 -11 264 275 1.0" },
    { "accept_stat__", TILDE_SUMMARY_SAMPLER, { 0.77, 0.024, 0.31, 0.0065, 0.93, 0.9996, 243, 273, 1.003 },
      "accept_stat__ 0.77 0.024 0.31 6.5e-03 0.93 1.00 243 273 1.0" },
    { "stepsize__", TILDE_SUMMARY_SAMPLER, { 0.25, NAN, 0.016, 0.22, 0.25, 0.26, NAN, NAN, NAN },
      "stepsize__ 0.25 nan 0.016 2.2e-01 0.25 0.26 nan nan nan" },
    { "treedepth__", TILDE_SUMMARY_SAMPLER, { 3.4, 0.048, 0.76, 2, 4, 4, 285, 295, 1.001 },
      "treedepth__ 3.4 0.048 0.76 2.0e+00 4.0 4.0 285 295 1.0" },
    { "n_leapfrog__", TILDE_SUMMARY_SAMPLER, { 13, 0.80, 7.1, 3, 15, 31, 220, 274, 1.004 },
      "n_leapfrog__ 13 0.80 7.1 3.0e+00 15 31 220 274 1.0" },
    { "divergent__", TILDE_SUMMARY_SAMPLER, { 0.015, NAN, 0.12, 0, 0, 0, NAN, NAN, NAN },
      "divergent__ 0.015 nan 0.12 0.0e+00 0.00 0.00 nan nan nan" },
    { "energy__", TILDE_SUMMARY_SAMPLER, { 24, 0.32, 5.4, 15, 24, 33, 289, 488, 1.002 },
      "energy__ 24 0.32 5.4 1.5e+01 24 33 289 488 1.0" },
    { "mu", TILDE_SUMMARY_MODEL, { 7.8, 0.20, 5.5, -1.3, 7.7, 17, 688, 915, 1.001 },
      "mu 7.8 0.20 5.5 -1.3 7.7 17 688 915 1.0" },
    { "theta[1]", TILDE_SUMMARY_MODEL, { 12, 0.28, 8.7, -0.36, 11, 28, 908, 763, 1.0 },
      "theta[1] 12 0.28 8.7 -0.36 11 28 908 763 1.0" },
    { "theta[7]", TILDE_SUMMARY_MODEL, { 11, 0.24, 7.1, 0.025, 11, 24, 885, 473, 1.002 },
      "theta[7] 11 0.24 7.1 0.025 11 24 885 473 1.0" },
    { "tau", TILDE_SUMMARY_MODEL, { 7.8, 0.26, 5.9, 1.8, 6.3, 18, 248, 178, 1.003 },
      "tau 7.8 0.26 5.9 1.8 6.3 18 248 178 1.0" },
  };
  g_autoptr (TildeSummary) s = g_new0 (TildeSummary, 1);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  const char *header = NULL;
  guint found = 0;

  s->model = g_strdup ("eight_schools_model");
  s->algorithm = g_strdup ("hmc");
  s->engine = g_strdup ("nuts");
  s->n_chains = 4;
  s->n_draws = 1000;
  s->chain_draws = g_new (guint, 4);
  s->chain_warmup = g_new (gint64, 4);
  s->chain_thin = g_new (gint64, 4);
  s->warmup_seconds = g_new (double, 4);
  s->sampling_seconds = g_new (double, 4);
  for (guint c = 0; c < 4; c++)
    {
      s->chain_draws[c] = 1000;
      s->chain_warmup[c] = 1000;
      s->chain_thin[c] = 1;
    }
  memcpy (s->warmup_seconds, (double[]) { 0.065, 0.078, 0.080, 0.086 }, 4 * sizeof (double));
  memcpy (s->sampling_seconds, (double[]) { 0.047, 0.044, 0.045, 0.053 }, 4 * sizeof (double));
  s->n_probs = 3;
  s->probs = g_memdup2 (default_probs, sizeof default_probs);
  s->rows = g_ptr_array_new_with_free_func (row_free);
  s->warnings = g_ptr_array_new_with_free_func (g_free);
  for (guint r = 0; r < G_N_ELEMENTS (table); r++)
    g_ptr_array_add (s->rows, hand_row (table[r].name, table[r].kind, table[r].v));

  text = tilde_summary_to_text (s, 2);
  g_test_message ("%s", text);
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "Inference for Stan model: eight_schools_model");
  g_assert_cmpstr (lines[1], ==, "4 chains: each with iter=1000; warmup=1000; thin=1; 4000 iterations saved.");
  g_assert_cmpstr (lines[3], ==, "Warmup took (0.065, 0.078, 0.080, 0.086) seconds, 0.31 seconds total");
  g_assert_cmpstr (lines[4], ==, "Sampling took (0.047, 0.044, 0.045, 0.053) seconds, 0.19 seconds total");
  g_assert_cmpstr (lines[5], ==, "");
  header = lines[6];
  g_assert_true (g_str_has_prefix (header, "              "));
  g_assert_cmpstr (lines[7], ==, "");
  /* a blank line between the sampler's rows and the model's */
  g_assert_cmpstr (lines[15], ==, "");

  for (guint i = 8; lines[i] != NULL; i++)
    for (guint r = 0; r < G_N_ELEMENTS (table); r++)
      {
        g_auto (GStrv) cells = g_strsplit_set (lines[i], " ", -1);
        g_autofree char *joined = NULL;
        GPtrArray *kept = g_ptr_array_new ();
        const char *h = header;
        const char *p = lines[i];

        for (guint c = 0; cells[c]; c++)
          if (cells[c][0])
            g_ptr_array_add (kept, cells[c]);
        g_ptr_array_add (kept, NULL);
        if (kept->len < 2 || !g_str_equal (g_ptr_array_index (kept, 0), table[r].name))
          {
            g_ptr_array_free (kept, TRUE);
            continue;
          }
        joined = g_strjoinv (" ", (char **) kept->pdata);
        g_ptr_array_free (kept, TRUE);
        g_assert_cmpstr (joined, ==, table[r].cells);
        /* right-aligned: each cell ends where its header ends */
        g_assert_cmpuint (strlen (lines[i]), ==, strlen (header));
        for (gsize k = 0; h[k]; k++)
          if (h[k] != ' ' && (h[k + 1] == ' ' || h[k + 1] == '\0'))
            g_assert_true (p[k] != ' ');
        found++;
      }
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (table));
  g_assert_nonnull (strstr (text, "\nSamples were drawn using hmc with nuts.\n"));
}

/* --sig-figs: more figures, and a column too wide for 8 characters in
 * fixed notation turns scientific. */
static void
test_significant_figures (void)
{
  const char *csv_text = "lp__,x,y\n-7.25,0.5,123456\n-7.5,0.25,234567\n-6.75,0.125,345678\n"
                         "-7,0.375,456789\n-7.125,0.0625,567891\n";
  g_autoptr (TildeStanCsv) csv = tilde_stan_csv_read_string (csv_text, strlen (csv_text), "s.csv", NULL);
  g_autoptr (TildeSummary) s = tilde_summary_new (&csv, 1, (const double[]) { 0.5 }, 1, NULL);
  g_autofree char *two = tilde_summary_to_text (s, 2);
  g_autofree char *four = tilde_summary_to_text (s, 4);

  /* mean of x is 0.2625, of y 345676.2: too wide for the Mean column to
   * stay in fixed notation */
  g_assert_nonnull (strstr (two, " 2.6e-01 "));
  g_assert_nonnull (strstr (four, " 2.625e-01 "));
  g_assert_nonnull (strstr (two, " 3.5e+05 "));
  g_assert_nonnull (strstr (four, " 3.457e+05 "));
  /* the sd of x, 0.179, shares a column with the sd of y */
  g_assert_nonnull (strstr (two, " 1.8e-01 "));
  g_assert_nonnull (strstr (four, " 1.790e-01 "));
  /* one percentile column, as asked */
  g_assert_nonnull (strstr (two, "StdDev       50%  ESS_bulk"));
}

static void
test_json_form (void)
{
  g_autoptr (GPtrArray) chains = read_chains ("reference-run", reference_chains);
  g_autoptr (TildeSummary) s = tilde_summary_new ((TildeStanCsv *const *) chains->pdata, chains->len,
                                                  default_probs, 3, NULL);
  g_autofree char *json = tilde_summary_to_json (s);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *root, *theta1, *sampler;
  JsonArray *columns;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "model"), ==, "reference_model");
  g_assert_cmpint (json_object_get_int_member (root, "chains"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (root, "draws_per_chain"), ==, 400);
  columns = json_object_get_array_member (root, "columns");
  g_assert_cmpuint (json_array_get_length (columns), ==, s->rows->len);
  theta1 = json_array_get_object_element (columns, 8);
  g_assert_cmpstr (json_object_get_string_member (theta1, "name"), ==, "theta[1]");
  g_assert_cmpstr (json_object_get_string_member (theta1, "column"), ==, "theta.1");
  g_assert_cmpstr (json_object_get_string_member (theta1, "kind"), ==, "parameter");
  for (guint r = 0; r < s->rows->len; r++)
    {
      const TildeSummaryRow *row = g_ptr_array_index (s->rows, r);
      JsonObject *o = json_array_get_object_element (columns, r);
      JsonObject *q = json_object_get_object_member (o, "quantiles");

      assert_close (row->name, "json mean", json_number (o, "mean"), row->mean);
      assert_close (row->name, "json r_hat", json_number (o, "r_hat"), row->rhat);
      assert_close (row->name, "json ess_tail", json_number (o, "ess_tail"), row->ess_tail);
      assert_close (row->name, "json mcse", json_number (o, "mcse"), row->mcse);
      assert_close (row->name, "json 95%", json_number (q, "95%"), row->quantiles[2]);
    }
  sampler = json_object_get_object_member (root, "sampler");
  g_assert_cmpint (json_object_get_int_member (sampler, "max_depth"), ==, 10);
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (sampler, "divergent"), 0), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "warnings")), ==, 5);
}

static void
test_mismatched_chains (void)
{
  const char *a = "lp__,mu,tau\n-1,0.5,1\n-2,0.6,2\n-1.5,0.4,1.5\n";
  const char *b = "lp__,mu,sigma\n-1,0.5,1\n-2,0.6,2\n";
  const char *c = "# model = m\nlp__,mu\n-1,0.5\n";
  const char *d = "# model = m\n# save_warmup = 1\n# num_warmup = 10\nlp__,mu\n-1,0.5\n";
  g_autoptr (TildeStanCsv) ca = tilde_stan_csv_read_string (a, strlen (a), "a.csv", NULL);
  g_autoptr (TildeStanCsv) cb = tilde_stan_csv_read_string (b, strlen (b), "b.csv", NULL);
  g_autoptr (TildeStanCsv) cc = tilde_stan_csv_read_string (c, strlen (c), "c.csv", NULL);
  g_autoptr (TildeStanCsv) cd = tilde_stan_csv_read_string (d, strlen (d), "d.csv", NULL);
  TildeStanCsv *ab[] = { ca, cb }, *ac[] = { ca, cc }, *cd_only[] = { cd };
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;

  g_assert_null (tilde_summary_new (ab, 2, default_probs, 3, &e1));
  g_assert_error (e1, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (e1->message, ==, "b.csv:1: column 3 is 'sigma', but 'tau' in a.csv: "
                                    "the files are not chains of one run");
  g_assert_null (tilde_summary_new (ac, 2, default_probs, 3, &e2));
  g_assert_cmpstr (e2->message, ==, "c.csv:2: 2 columns, but a.csv has 3: "
                                    "the files are not chains of one run");
  /* its only row is a saved warmup draw */
  g_assert_null (tilde_summary_new (cd_only, 1, default_probs, 3, &e3));
  g_assert_error (e3, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (e3->message, ==, "d.csv: no sampling draws");
}

/* A run cut short: chains of 400 and 250 draws are both summarised by
 * their first 250, with a warning. */
static void
test_uneven_chains (void)
{
  g_autoptr (GPtrArray) chains = read_chains ("reference-run", reference_chains);
  TildeStanCsv *second = g_ptr_array_index (chains, 1);
  g_autoptr (TildeSummary) s = NULL;

  second->n_draws = 250;
  s = tilde_summary_new ((TildeStanCsv *const *) chains->pdata, chains->len, default_probs, 3, NULL);
  g_assert_cmpuint (s->n_draws, ==, 250);
  g_assert_cmpuint (s->chain_draws[1], ==, 250);
  g_assert_cmpstr (g_ptr_array_index (s->warnings, 0), ==,
                   "Warning: The chains have different numbers of draws (400, 250, 400, 400); "
                   "each is summarised by its first 250.");
}

static void
test_display_names (void)
{
  const char *cases[][2] = {
    { "theta.1", "theta[1]" }, { "L.2.1", "L[2,1]" }, { "lp__", "lp__" }, { "a.b", "a.b" },
    { "x.10.2.3", "x[10,2,3]" }, { "bar:2.1", "bar:2[1]" }, { "y.", "y." }, { ".1", ".1" },
    { "v.1.x", "v.1.x" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = tilde_column_display_name (cases[i][0]);

      g_assert_cmpstr (got, ==, cases[i][1]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/summary/reference-run", test_reference_run);
  g_test_add_func ("/infer/summary/reference-run-warnings", test_reference_run_warnings);
  g_test_add_func ("/infer/summary/divergence-percentages", test_divergence_percentages);
  g_test_add_func ("/infer/summary/stansummary-number-layout", test_stansummary_number_layout);
  g_test_add_func ("/infer/summary/significant-figures", test_significant_figures);
  g_test_add_func ("/infer/summary/json-form", test_json_form);
  g_test_add_func ("/infer/summary/mismatched-chains", test_mismatched_chains);
  g_test_add_func ("/infer/summary/uneven-chains", test_uneven_chains);
  g_test_add_func ("/infer/summary/display-names", test_display_names);
  return g_test_run ();
}
