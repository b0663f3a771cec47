/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "io/stan-csv-read.h"
#include "io/stan-csv-write.h"

/* What a C++ stream prints at its default precision (6) and at 9. */
static void
test_numbers (void)
{
  static const struct { double value; int sig_figs; const char *text; } cases[] = {
    { 0.2476014, -1, "0.247601" },
    { -6.747739, -1, "-6.74774" },
    { 1.0, -1, "1" },
    { 0.0, -1, "0" },
    { 10.0, -1, "10" },
    { 123456.7, -1, "123457" },
    { 1234567.0, -1, "1.23457e+06" },
    { 0.00001, -1, "1e-05" },
    { 0.0001234567, -1, "0.000123457" },
    { 0.93203712345, 9, "0.932037123" },
    { 2.5, 2, "2.5" },
    { 2.56, 2, "2.6" },
  };
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      tilde_csv_format_double (buffer, sizeof buffer, cases[i].value, cases[i].sig_figs);
      g_assert_cmpstr (buffer, ==, cases[i].text);
    }
  tilde_csv_format_double (buffer, sizeof buffer, NAN, -1);
  g_assert_cmpstr (buffer, ==, "nan");
  tilde_csv_format_double (buffer, sizeof buffer, -NAN, -1);
  g_assert_cmpstr (buffer, ==, "nan");
  tilde_csv_format_double (buffer, sizeof buffer, INFINITY, -1);
  g_assert_cmpstr (buffer, ==, "inf");
  tilde_csv_format_double (buffer, sizeof buffer, -INFINITY, -1);
  g_assert_cmpstr (buffer, ==, "-inf");
}

/* Against printf's "%.Ng" itself (what a C++ stream prints) over every
 * precision and many magnitudes, with values next to powers of ten and
 * next to rounding ties, where a shortcut would go wrong first. */
static void
test_numbers_match_printf (void)
{
  GRand *rand = g_rand_new_with_seed (20241122);
  char expected[64], got[64], format[8];
  guint checked = 0;

  for (int digits = 1; digits <= 18; digits++)
    {
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      for (int i = 0; i < 20000; i++)
        {
          double x;
          switch (i % 5)
            {
            case 0:   /* any magnitude */
              x = g_rand_double (rand) * pow (10, g_rand_int_range (rand, -40, 40));
              break;
            case 1:   /* a decimal tie: d.ddd5 at this precision */
              x = (floor (g_rand_double_range (rand, 1, 10) * pow (10, digits - 1)) + 0.5)
                  * pow (10, g_rand_int_range (rand, -8, 8) - digits + 1);
              break;
            case 2:   /* next to a power of ten */
              x = nextafter (pow (10, g_rand_int_range (rand, -20, 20)),
                             g_rand_boolean (rand) ? INFINITY : 0);
              break;
            case 3:   /* integers, which print without a point */
              x = (double) g_rand_int_range (rand, -2000000, 2000000);
              break;
            default:  /* what draws look like */
              x = g_rand_double_range (rand, -50, 50);
              break;
            }
          if (g_rand_boolean (rand))
            x = -x;
          g_ascii_formatd (expected, sizeof expected, format, x);
          tilde_csv_format_double (got, sizeof got, x, digits);
          if (strcmp (expected, got) != 0)
            g_error ("%.17g at %d digits: printf gives %s, the writer %s", x, digits, expected, got);
          checked++;
        }
    }
  g_assert_cmpuint (checked, ==, 18 * 20000);
  g_rand_free (rand);
}

/* Zeros, subnormals and the extremes, which take their own paths. */
static void
test_numbers_edges_match_printf (void)
{
  const double values[] = { 0.0, -0.0, 4.9406564584124654e-324, -4.9406564584124654e-324,
                            2.2250738585072009e-308, 1.2345678901234567e-310,
                            2.2250738585072014e-308, 1.7976931348623157e308, -1e300, 1e-300 };
  char expected[64], got[64], format[8];

  for (int digits = 1; digits <= 18; digits++)
    {
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
        {
          g_ascii_formatd (expected, sizeof expected, format, values[i]);
          tilde_csv_format_double (got, sizeof got, values[i], digits);
          g_assert_cmpstr (got, ==, expected);
        }
    }
}

/* A row of whole numbers (a draw's tree depth, step count and divergence
 * flag), written twice so that texts kept from the first row are used in
 * the second, reads as printf writes each number, at several precisions. */
static void
test_row_whole_numbers_match_printf (void)
{
  const int precisions[] = { -1, 1, 2, 3, 4, 12 };
  double row[40];
  gsize n = 0;

  for (double x = 0; x < 12; x++)
    row[n++] = x;
  row[n++] = -0.0;
  row[n++] = 99;
  row[n++] = 100;
  row[n++] = 1000;
  row[n++] = 1023;
  row[n++] = 1024;
  row[n++] = 1023.5;
  row[n++] = -3;
  row[n++] = 7.000000000000001;
  for (gsize p = 0; p < G_N_ELEMENTS (precisions); p++)
    {
      int digits = precisions[p] < 1 ? 6 : precisions[p];
      g_autoptr(GString) expected = g_string_new (NULL);
      g_autofree char *text = NULL;
      gsize length = 0;
      FILE *stream = open_memstream (&text, &length);
      TildeCsvWriter *writer = tilde_csv_writer_new_for_stream (stream, precisions[p]);
      char format[8], number[64];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      for (int copy = 0; copy < 2; copy++)
        {
          for (gsize i = 0; i < n; i++)
            {
              g_ascii_formatd (number, sizeof number, format, row[i]);
              g_string_append_printf (expected, "%s%s", i > 0 ? "," : "", number);
            }
          g_string_append_c (expected, '\n');
          tilde_csv_writer_row (writer, row, n);
        }
      g_assert_true (tilde_csv_writer_close (writer, NULL));
      fclose (stream);
      g_assert_cmpstr (text, ==, expected->str);
    }
}

/* The parts of a file, laid out as CmdStan lays them out. */
static void
test_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-csv-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out_1.csv", NULL);
  g_autoptr (GError) error = NULL;
  TildeCsvWriter *w = tilde_csv_writer_open (path, -1, &error);
  g_assert_no_error (error);

  tilde_csv_writer_config (w, 0, "model", "bernoulli_model", FALSE);
  tilde_csv_writer_config (w, 0, "method", "sample", TRUE);
  tilde_csv_writer_config (w, 1, "sample", NULL, FALSE);
  tilde_csv_writer_config (w, 2, "num_samples", "1000", TRUE);
  const char *names[] = { "lp__", "accept_stat__", "theta" };
  tilde_csv_writer_names (w, names, 3);
  double metric[] = { 0.502107, 1.5 };
  tilde_csv_writer_adaptation (w, 0.9320371, metric, 2, FALSE);
  double dense[] = { 1, 0.25, 0.25, 2 };
  tilde_csv_writer_adaptation (w, 0.5, dense, 2, TRUE);
  double row[] = { -6.747739, 1, 0.2476014 };
  tilde_csv_writer_row (w, row, 3);
  tilde_csv_writer_timing (w, 0.005, 0.014);
  g_assert_true (tilde_csv_writer_close (w, &error));
  g_assert_no_error (error);

  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==,
                   "# model = bernoulli_model\n"
                   "# method = sample (Default)\n"
                   "#   sample\n"
                   "#     num_samples = 1000 (Default)\n"
                   "lp__,accept_stat__,theta\n"
                   "# Adaptation terminated\n"
                   "# Step size = 0.932037\n"
                   "# Diagonal elements of inverse mass matrix:\n"
                   "# 0.502107, 1.5\n"
                   "# Adaptation terminated\n"
                   "# Step size = 0.5\n"
                   "# Elements of inverse mass matrix:\n"
                   "# 1, 0.25\n"
                   "# 0.25, 2\n"
                   "-6.74774,1,0.247601\n"
                   "# \n"
                   "#  Elapsed Time: 0.005 seconds (Warm-up)\n"
                   "#                0.014 seconds (Sampling)\n"
                   "#                0.019 seconds (Total)\n"
                   "# \n");
  g_unlink (path);
  g_rmdir (dir);
}

/* What the writer writes, the reader reads back: settings, names, the
 * adaptation, warmup and sampling draws at 9 digits, NaN and infinities. */
static void
test_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tilde-csv-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.csv", NULL);
  g_autoptr (GError) error = NULL;
  TildeCsvWriter *w = tilde_csv_writer_open (path, 9, &error);
  g_assert_no_error (error);
  tilde_csv_writer_config (w, 0, "method", "sample", TRUE);
  tilde_csv_writer_config (w, 1, "sample", NULL, FALSE);
  tilde_csv_writer_config (w, 2, "num_samples", "3", FALSE);
  tilde_csv_writer_config (w, 2, "num_warmup", "2", FALSE);
  tilde_csv_writer_config (w, 2, "save_warmup", "1", FALSE);
  tilde_csv_writer_config (w, 2, "thin", "1", TRUE);
  const char *names[] = { "lp__", "theta.1", "theta.2" };
  tilde_csv_writer_names (w, names, 3);
  double warmup[2][3] = { { -1, 0.1, 0.2 }, { -2, 0.3, 0.4 } };
  for (int i = 0; i < 2; i++)
    tilde_csv_writer_row (w, warmup[i], 3);
  double metric[] = { 0.123456789, 2 };
  tilde_csv_writer_adaptation (w, 0.75, metric, 2, FALSE);
  double draws[3][3] = { { -3.14159265, 1e-7, NAN }, { -4, INFINITY, -INFINITY }, { -5, 123456789, -0.5 } };
  for (int i = 0; i < 3; i++)
    tilde_csv_writer_row (w, draws[i], 3);
  tilde_csv_writer_timing (w, 0.25, 0.5);
  g_assert_true (tilde_csv_writer_close (w, &error));

  g_autoptr (TildeStanCsv) csv = tilde_stan_csv_read_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (csv->n_columns, ==, 3);
  g_assert_cmpstr (csv->column_names[1], ==, "theta.1");
  g_assert_cmpint (csv->num_samples, ==, 3);
  g_assert_true (csv->save_warmup);
  g_assert_cmpuint (csv->n_warmup_draws, ==, 2);
  g_assert_cmpfloat (csv->warmup_draws[4], ==, 0.3);
  g_assert_cmpuint (csv->n_draws, ==, 3);
  g_assert_cmpfloat (csv->step_size, ==, 0.75);
  g_assert_cmpint (csv->metric_kind, ==, TILDE_STAN_CSV_METRIC_DIAG);
  g_assert_cmpuint (csv->n_metric, ==, 2);
  g_assert_cmpfloat (csv->inv_metric[0], ==, 0.123456789);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 0, 0), ==, -3.14159265);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 0, 1), ==, 1e-7);
  g_assert_true (isnan (tilde_stan_csv_draw (csv, 0, 2)));
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 1, 1), ==, INFINITY);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 1, 2), ==, -INFINITY);
  g_assert_cmpfloat (tilde_stan_csv_draw (csv, 2, 1), ==, 123456789);
  g_assert_cmpfloat (csv->warmup_seconds, ==, 0.25);
  g_assert_cmpfloat (csv->sampling_seconds, ==, 0.5);
  g_assert_cmpfloat (csv->total_seconds, ==, 0.75);
  g_assert_cmpuint (csv->warnings->len, ==, 0);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_unwritable (void)
{
  g_autoptr (GError) error = NULL;
  TildeCsvWriter *w = tilde_csv_writer_open ("/nonexistent-folder/out.csv", -1, &error);
  g_assert_null (w);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "/nonexistent-folder/out.csv"));
}

/* A full device: the failure surfaces when the file is closed, by name. */
static void
test_full_device (void)
{
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full");
      return;
    }
  g_autoptr (GError) error = NULL;
  TildeCsvWriter *w = tilde_csv_writer_open ("/dev/full", -1, &error);
  g_assert_no_error (error);
  double row[] = { 1, 2, 3 };
  for (int i = 0; i < 10000; i++)
    tilde_csv_writer_row (w, row, 3);
  g_assert_false (tilde_csv_writer_close (w, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
  g_assert_nonnull (strstr (error->message, "/dev/full"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/io/csv-write/numbers", test_numbers);
  g_test_add_func ("/io/csv-write/numbers-match-printf", test_numbers_match_printf);
  g_test_add_func ("/io/csv-write/numbers-edges-match-printf", test_numbers_edges_match_printf);
  g_test_add_func ("/io/csv-write/row-whole-numbers-match-printf",
                   test_row_whole_numbers_match_printf);
  g_test_add_func ("/io/csv-write/file", test_file);
  g_test_add_func ("/io/csv-write/round-trip", test_round_trip);
  g_test_add_func ("/io/csv-write/unwritable", test_unwritable);
  g_test_add_func ("/io/csv-write/full-device", test_full_device);
  return g_test_run ();
}
