/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading Stan CSV files: fixtures under data/csv/ laid out as CmdStan 2.33
 * writes them (its documented header, adaptation and timing comments), a
 * file cut short, a file with no header, and malformed text that must fail
 * with the file and line in the message.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "infer/summary.h"
#include "io/stan-csv-read.h"

static TildeStanCsv *
read_fixture (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "infer", "data", "csv", name, NULL);
  g_autoptr (GError) error = NULL;
  TildeStanCsv *csv = tilde_stan_csv_read_file (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (csv);
  return csv;
}

static void
test_cmdstan_file (void)
{
  g_autoptr (TildeStanCsv) csv = read_fixture ("bernoulli.csv");
  const char *const columns[] = { "lp__", "accept_stat__", "stepsize__", "treedepth__",
                                  "n_leapfrog__", "divergent__", "energy__", "theta" };

  g_assert_cmpstr (csv->model, ==, "bernoulli_model");
  g_assert_cmpstr (csv->algorithm, ==, "hmc");
  g_assert_cmpstr (csv->engine, ==, "nuts");
  g_assert_cmpstr (csv->metric, ==, "diag_e");
  g_assert_cmpint (csv->num_samples, ==, 10);
  g_assert_cmpint (csv->num_warmup, ==, 1000);
  g_assert_false (csv->save_warmup);
  g_assert_cmpint (csv->thin, ==, 1);
  g_assert_cmpint (csv->max_depth, ==, 10);
  g_assert_cmpint (csv->chain_id, ==, 2);
  g_assert_cmpstr (csv->seed, ==, "589886520");

  /* settings keep their nesting and their "(Default)" mark */
  g_assert_cmpstr (tilde_stan_csv_setting (csv, "method.sample.adapt.delta"), ==, "0.80000000000000004");
  g_assert_cmpstr (tilde_stan_csv_setting (csv, "data.file"), ==, "bernoulli.data.json");
  g_assert_cmpstr (tilde_stan_csv_setting (csv, "output.file"), ==, "output.csv");
  g_assert_cmpstr (tilde_stan_csv_setting (csv, "metric_file"), ==, "");
  g_assert_cmpstr (tilde_stan_csv_setting (csv, "stancflags"), ==, "");
  g_assert_cmpstr (tilde_stan_csv_setting (csv, "stanc_version"), ==, "stanc3 v2.33.1");
  g_assert_null (tilde_stan_csv_setting (csv, "no_such_setting"));
  for (guint i = 0; i < csv->settings->len; i++)
    {
      const TildeStanCsvSetting *s = g_ptr_array_index (csv->settings, i);

      if (g_str_equal (s->key, "num_samples"))
        {
          g_assert_false (s->is_default);
          g_assert_cmpstr (s->path, ==, "method.sample.num_samples");
          g_assert_cmpuint (s->line, ==, 8);
        }
      if (g_str_equal (s->key, "max_depth"))
        {
          g_assert_true (s->is_default);
          g_assert_cmpstr (s->path, ==, "method.sample.algorithm.hmc.engine.nuts.max_depth");
        }
    }

  g_assert_cmpuint (csv->n_columns, ==, G_N_ELEMENTS (columns));
  for (guint j = 0; j < csv->n_columns; j++)
    g_assert_cmpstr (csv->column_names[j], ==, columns[j]);
  g_assert_null (csv->column_names[csv->n_columns]);
  g_assert_cmpuint (csv->header_line, ==, 46);
  g_assert_cmpint (tilde_stan_csv_column (csv, "theta"), ==, 7);
  g_assert_cmpint (tilde_stan_csv_column (csv, "alpha"), ==, -1);

  g_assert_cmpfloat (csv->step_size, ==, 0.911297);
  g_assert_cmpint (csv->metric_kind, ==, TILDE_STAN_CSV_METRIC_DIAG);
  g_assert_cmpuint (csv->n_metric, ==, 1);
  g_assert_cmpfloat (csv->inv_metric[0], ==, 0.566254);

  g_assert_cmpuint (csv->n_warmup_draws, ==, 0);
  g_assert_cmpuint (csv->n_draws, ==, 10);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 0, 0), ==, -8.07514);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 3, 1), ==, 1);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 9, 7), ==, 0.257236);
  g_assert_cmpuint (csv->draw_lines[0], ==, 51);
  g_assert_cmpuint (csv->draw_lines[9], ==, 60);

  g_assert_cmpfloat (csv->warmup_seconds, ==, 0.006);
  g_assert_cmpfloat (csv->sampling_seconds, ==, 0.002);
  g_assert_cmpfloat (csv->total_seconds, ==, 0.008);
  g_assert_cmpuint (csv->warnings->len, ==, 0);
}

/* save_warmup = 1 with thin = 3: CmdStan keeps warmup iterations 0, 3, 6
 * (ceil(7 / 3) = 3 rows) before the adaptation comments. */
static void
test_saved_warmup_and_thinning (void)
{
  g_autoptr (TildeStanCsv) csv = read_fixture ("warmup-thin.csv");

  g_assert_true (csv->save_warmup);
  g_assert_cmpint (csv->thin, ==, 3);
  g_assert_cmpint (csv->max_depth, ==, 12);
  g_assert_cmpuint (csv->n_warmup_draws, ==, 3);
  g_assert_cmpuint (csv->n_draws, ==, 3);
  g_assert_cmpfloat (csv->warmup_draws[0], ==, -12.5);
  g_assert_cmpfloat (csv->warmup_draws[2 * csv->n_columns + 7], ==, 0.21);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 0, 7), ==, -0.12);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 2, 8), ==, 0.87);
  g_assert_cmpuint (csv->n_metric, ==, 2);
  g_assert_cmpfloat (csv->inv_metric[1], ==, 0.412);
  g_assert_cmpfloat (csv->step_size, ==, 1.07);
}

static void
test_dense_metric_and_special_values (void)
{
  g_autoptr (TildeStanCsv) csv = read_fixture ("dense.csv");
  const double expected[9] = { 1.02331, 0.491123, -0.103, 0.491123, 0.987654, 0.0125,
                               -0.103, 0.0125, 2.5 };

  g_assert_cmpstr (csv->metric, ==, "dense_e");
  g_assert_cmpint (csv->metric_kind, ==, TILDE_STAN_CSV_METRIC_DENSE);
  g_assert_cmpuint (csv->n_metric, ==, 3);
  for (guint i = 0; i < 9; i++)
    g_assert_cmpfloat (csv->inv_metric[i], ==, expected[i]);
  g_assert_cmpuint (csv->n_draws, ==, 4);
  g_assert_true (isnan (tilde_stan_csv_draw (csv, 3, 1)));
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 3, 6), ==, INFINITY);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 3, 7), ==, -INFINITY);
  g_assert_cmpstr (csv->column_names[9], ==, "x.3");
}

/* The run stopped in the middle of writing "0.21744": that line goes, with
 * a warning naming the file and line. */
static void
test_truncated_file (void)
{
  g_autoptr (TildeStanCsv) csv = read_fixture ("truncated.csv");
  const char *warning;

  g_assert_cmpuint (csv->n_draws, ==, 8);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 7, 7), ==, 0.0946735);
  g_assert_true (isnan (csv->sampling_seconds));
  g_assert_cmpuint (csv->warnings->len, ==, 1);
  warning = g_ptr_array_index (csv->warnings, 0);
  g_assert_true (g_str_has_suffix (csv->name, "truncated.csv"));
  g_assert_true (g_str_has_prefix (warning, csv->name));
  g_assert_nonnull (strstr (warning, ":59:"));
  g_assert_nonnull (strstr (warning, "incomplete"));
}

/* Only names and rows, and no newline at the end: not CmdStan's output, so
 * the last row stands. CmdStan's defaults fill in the settings. */
static void
test_file_without_header (void)
{
  g_autoptr (TildeStanCsv) csv = read_fixture ("no-header.csv");

  g_assert_cmpuint (csv->settings->len, ==, 0);
  g_assert_null (csv->model);
  g_assert_cmpuint (csv->n_columns, ==, 3);
  g_assert_cmpuint (csv->n_draws, ==, 3);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 2, 2), ==, 1.35);
  g_assert_cmpint (csv->num_warmup, ==, 0);
  g_assert_cmpint (csv->num_samples, ==, 3);
  g_assert_cmpint (csv->max_depth, ==, 10);
  g_assert_cmpint (csv->metric_kind, ==, TILDE_STAN_CSV_METRIC_NONE);
  g_assert_cmpuint (csv->warnings->len, ==, 0);
}

static void
test_line_endings_and_blanks (void)
{
  const char *text = "# model = m_model\r\n# id = 4\r\nlp__, a\r\n\r\n1.5, -2\r\n 2 ,3e-1\r\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeStanCsv) csv = tilde_stan_csv_read_string (text, strlen (text), "crlf.csv", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (csv->model, ==, "m_model");
  g_assert_cmpint (csv->chain_id, ==, 4);
  g_assert_cmpstr (csv->column_names[1], ==, "a");
  g_assert_cmpuint (csv->n_draws, ==, 2);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 1, 1), ==, 0.3);
}

/* Every number of a draw reads as strtod reads it, bit for bit: CmdStan's
 * plain decimals (read without strtod where that is exact) and the forms
 * only strtod takes (+1.5, .5, 1., 01, inf, nan). */
static void
test_numbers_as_strtod (void)
{
  static const char *forms[] = { "+1.5", ".5", "1.", "01", "inf", "-inf", "nan", "-0", "-0.0",
                                 "1e308", "1e-320", "9007199254740993", "0.30000000000000004",
                                 "123456789012345678e-5", "5.4236440212765072e+20" };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  GString *text = g_string_new ("lp__,a,b,c,d\n");
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    g_ptr_array_add (tokens, g_strdup (forms[i]));
  while (tokens->len % 5 != 0 || tokens->len < 50000)
    {
      double x = ldexp (g_rand_double_range (rand, -1, 1), g_rand_int_range (rand, -60, 60));
      /* CmdStan's 6 significant digits, and more */
      g_ptr_array_add (tokens, g_strdup_printf ("%.*g", g_rand_int_range (rand, 1, 20), x));
    }
  for (guint i = 0; i < tokens->len; i++)
    g_string_append_printf (text, "%s%s", (char *) tokens->pdata[i], i % 5 == 4 ? "\n" : ",");
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeStanCsv) csv = tilde_stan_csv_read_string (text->str, text->len, "numbers.csv", &error);
  g_string_free (text, TRUE);
  g_assert_no_error (error);
  g_assert_cmpuint (csv->n_draws, ==, tokens->len / 5);
  for (guint i = 0; i < csv->n_draws; i++)
    for (guint j = 0; j < 5; j++, n++)
      {
        double expected = g_ascii_strtod (tokens->pdata[n], NULL);
        double got = tilde_stan_csv_draw (csv, i, j);
        if (memcmp (&expected, &got, sizeof got) != 0)
          g_error ("%s read as %.17g, strtod gives %.17g", (char *) tokens->pdata[n], got, expected);
      }
}

/* Each malformed text fails; the message names the file and the line. */
static void
test_malformed_files (void)
{
  const struct {
    const char *text;
    const char *message;
  } cases[] = {
    { "", "bad.csv: the file is empty" },
    { "# model = m\n# id = 1\n", "bad.csv: no column names" },
    { "1.5,2\n3,4\n", "bad.csv:1: expected the column names, found a row of numbers" },
    { "a,b,c\n1,2,3\n4,5\n", "bad.csv:3: expected 3 values, one for each column, found 2" },
    { "a,b,c\n1,2,3\n4,5,6,7\n", "bad.csv:3: expected 3 values, one for each column, found 4" },
    { "a,b\n1,2\n3,x7\n", "bad.csv:3: value 2 ('x7', column b) is not a number" },
    { "a,b\n1,\n", "bad.csv:2: value 2 ('', column b) is not a number" },
    { "a,,b\n", "bad.csv:1: column 2 has no name" },
    { "a,b,a\n1,2,3\n", "bad.csv:1: column 3 repeats the name 'a' of column 1" },
    { "# num_samples = many\na\n1\n", "bad.csv:1: num_samples = many: expected a whole number" },
    { "# thin = 0\na\n1\n", "bad.csv:1: thin = 0: expected a whole number of at least 1" },
    { "# save_warmup = maybe\na\n1\n", "bad.csv:1: save_warmup = maybe: expected 0 or 1" },
    { "a,b\n# Step size = big\n", "bad.csv:2: the step size is not a number" },
    { "a,b\n# Diagonal elements of inverse mass matrix:\n# 1, zz\n1,2\n",
      "bad.csv:3: expected a line of the inverse metric" },
    { "a,b\n# Elements of inverse mass matrix:\n# 1, 0\n# 0\n",
      "bad.csv:4: row 2 of the inverse metric has 1 values, the first had 2" },
    { "a,b\n# Elements of inverse mass matrix:\n# 1, 0\n", "bad.csv:3: the inverse metric ends early" },
    { "a,b\n1,2\0\n", "bad.csv: the file holds a NUL byte" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      gsize len = strlen (cases[i].text);
      TildeStanCsv *csv;

      if (strstr (cases[i].message, "NUL"))
        len = 9;
      csv = tilde_stan_csv_read_string (cases[i].text, len, "bad.csv", &error);
      g_assert_null (csv);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_error ("case %u: expected \"%s...\", got \"%s\"", i, cases[i].message, error->message);
    }
}

static void
test_missing_file (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (tilde_stan_csv_read_file ("/nonexistent/chain-1.csv", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent/chain-1.csv"));
}

/* Damaged copies of a real file (bytes replaced by characters that matter
 * to the format, lines cut) are read, and summarised when they read, without
 * a crash or a leak: either a file or an error comes back, never both. */
static void
test_damaged_files (void)
{
  const char *names[] = { "warmup-thin.csv", "bernoulli.csv" };
  char *originals[2] = { NULL, NULL };
  gsize lengths[2];
  const char alphabet[] = ",\n#= 0123456789e-.nafi\r(:";
  const double probs[] = { 0.05, 0.5, 0.95 };
  GRand *rand = g_rand_new_with_seed (17);
  guint read_ok = 0;

  for (guint f = 0; f < 2; f++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "infer", "data", "csv", names[f], NULL);

      g_assert_true (g_file_get_contents (path, &originals[f], &lengths[f], NULL));
    }
  for (guint k = 0; k < 600; k++)
    {
      g_autofree char *text = g_memdup2 (originals[k % 2], lengths[k % 2]);
      gsize len = lengths[k % 2];
      guint edits = g_rand_int_range (rand, 1, 4);
      g_autoptr (GError) error = NULL;
      g_autoptr (TildeStanCsv) csv = NULL;

      for (guint e = 0; e < edits; e++)
        text[g_rand_int_range (rand, 0, (gint32) len)] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      if (g_rand_boolean (rand))
        len = g_rand_int_range (rand, 0, (gint32) len);
      csv = tilde_stan_csv_read_string (text, len, "damaged.csv", &error);
      g_assert_true ((csv == NULL) != (error == NULL));
      if (csv != NULL && csv->n_draws > 0)
        {
          g_autoptr (TildeSummary) s = tilde_summary_new (&csv, 1, probs, 3, NULL);
          g_autofree char *table = tilde_summary_to_text (s, 2);
          g_autofree char *json = tilde_summary_to_json (s);

          g_assert_nonnull (table);
          g_assert_nonnull (json);
          read_ok++;
        }
      else if (csv == NULL)
        g_assert_true (g_str_has_prefix (error->message, "damaged.csv"));
    }
  g_test_message ("%u of 600 damaged files still read", read_ok);
  g_assert_cmpuint (read_ok, >, 0);
  g_rand_free (rand);
  g_free (originals[0]);
  g_free (originals[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/stan-csv/cmdstan-file", test_cmdstan_file);
  g_test_add_func ("/infer/stan-csv/saved-warmup-and-thinning", test_saved_warmup_and_thinning);
  g_test_add_func ("/infer/stan-csv/dense-metric-and-special-values", test_dense_metric_and_special_values);
  g_test_add_func ("/infer/stan-csv/truncated-file", test_truncated_file);
  g_test_add_func ("/infer/stan-csv/file-without-header", test_file_without_header);
  g_test_add_func ("/infer/stan-csv/line-endings-and-blanks", test_line_endings_and_blanks);
  g_test_add_func ("/infer/stan-csv/malformed-files", test_malformed_files);
  g_test_add_func ("/infer/stan-csv/numbers-as-strtod", test_numbers_as_strtod);
  g_test_add_func ("/infer/stan-csv/missing-file", test_missing_file);
  g_test_add_func ("/infer/stan-csv/damaged-files", test_damaged_files);
  return g_test_run ();
}
