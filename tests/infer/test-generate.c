/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Standalone generated quantities (infer/generate.h): draws read back by
 * name in Stan CSV's column-major order, through constraining transforms,
 * and the quantities recomputed against their closed forms. */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "infer-test-util.h"
#include "infer/generate.h"

/* Runs the generator over CSV_TEXT into memory and reads the result back. */
static TildeStanCsv *
generate (TildeModel *model, const char *csv_text, guint64 seed, guint *n_failed, GError **error)
{
  g_autoptr(TildeStanCsv) input = tilde_stan_csv_read_string (csv_text, strlen (csv_text),
                                                              "fit.csv", NULL);
  TildeGenerateOptions o = { .seed = seed, .seed_given = TRUE, .sig_figs = 9,
                             .model_name = "gq_model", .output = "gq.csv" };
  char *text = NULL;
  size_t length = 0;
  FILE *stream = open_memstream (&text, &length);
  TildeCsvWriter *writer = tilde_csv_writer_new_for_stream (stream, o.sig_figs);
  gboolean ok;
  TildeStanCsv *out = NULL;

  g_assert_nonnull (input);
  ok = tilde_generate_quantities (model, input, &o, writer, NULL, NULL, n_failed, error);
  g_assert_true (tilde_csv_writer_close (writer, NULL));
  fclose (stream);
  if (ok)
    {
      out = tilde_stan_csv_read_string (text, length, "gq.csv", NULL);
      g_assert_nonnull (out);
    }
  free (text);
  return out;
}

/* The generator over every draw of CSV_TEXT for MODEL_TEXT, all of them
 * expected to succeed. */
static TildeStanCsv *
generate_all (const char *model_text, const char *csv_text)
{
  g_autoptr(TildeModel) model = infer_test_model (model_text, NULL);
  g_autoptr(GError) error = NULL;
  guint failed = 99;
  TildeStanCsv *out = generate (model, csv_text, 1, &failed, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (failed, ==, 0);
  return out;
}

static double
value (const TildeStanCsv *csv, guint i, const char *name)
{
  int j = tilde_stan_csv_column (csv, name);
  g_assert_cmpint (j, >=, 0);
  return tilde_stan_csv_draw (csv, i, (guint) j);
}

/* A matrix parameter (column-major in the file), a simplex and a bounded
 * scalar: every element lands where the model expects it. */
static void
test_shapes (void)
{
  static const char model_text[] =
    "parameters { matrix[2, 3] m; simplex[3] p; real<lower=1, upper=3> b; }\n"
    "model { to_vector (m) ~ normal (0, 1); b ~ normal (2, 1); }\n"
    "generated quantities {\n"
    "  real m12 = m[1, 2];\n"
    "  real m21 = m[2, 1];\n"
    "  real row_sum = sum (m[2]);\n"
    "  real p_dot = p[1] + 10 * p[2] + 100 * p[3];\n"
    "  real b2 = b * b;\n"
    "}\n";
  static const char csv_text[] =
    "lp__,m.1.1,m.2.1,m.1.2,m.2.2,m.1.3,m.2.3,p.1,p.2,p.3,b\n"
    "-3,11,21,12,22,13,23,0.2,0.3,0.5,1.5\n"
    "-4,-1,-2,-3,-4,-5,-6,0.25,0.25,0.5,2.75\n";
  g_autoptr(TildeStanCsv) out = generate_all (model_text, csv_text);

  g_assert_cmpuint (out->n_draws, ==, 2);
  g_assert_cmpstr (out->column_names[0], ==, "lp__");
  g_assert_cmpstr (out->column_names[11], ==, "m12");
  g_assert_cmpfloat (value (out, 0, "lp__"), ==, -3);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "m12"), 12, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "m21"), 21, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "row_sum"), 21 + 22 + 23, 1e-9);
  g_assert_cmpfloat_with_epsilon (value (out, 1, "row_sum"), -2 - 4 - 6, 1e-9);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "p_dot"), 0.2 + 3 + 50, 1e-7);
  g_assert_cmpfloat_with_epsilon (value (out, 1, "p_dot"), 0.25 + 2.5 + 50, 1e-7);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "b2"), 2.25, 1e-8);
  g_assert_cmpfloat_with_epsilon (value (out, 1, "b2"), 2.75 * 2.75, 1e-8);
  g_assert_cmpstr (tilde_stan_csv_setting (out, "method"), ==, "generate_quantities");
  g_assert_cmpstr (tilde_stan_csv_setting (out, "method.generate_quantities.fitted_params"), ==,
                   "fit.csv");
}

/* Complex parameters: each value's parts are named NAME.real and
 * NAME.imag, innermost, and read back as the pairs an init file holds. */
static void
test_complex (void)
{
  static const char model_text[] =
    "parameters { complex z; complex_matrix[2, 2] M; }\n"
    "model { get_real (z) ~ normal (0, 1); get_imag (z) ~ normal (0, 1); }\n"
    "generated quantities {\n"
    "  real zi = get_imag (z);\n"
    "  real m12 = get_real (M[1, 2]) + 10 * get_imag (M[1, 2]);\n"
    "  real m21 = get_real (M[2, 1]) + 10 * get_imag (M[2, 1]);\n"
    "  real n = norm (z);\n"
    "}\n";
  static const char csv_text[] =
    "lp__,z.real,z.imag,M.1.1.real,M.1.1.imag,M.2.1.real,M.2.1.imag,"
    "M.1.2.real,M.1.2.imag,M.2.2.real,M.2.2.imag\n"
    "-3,3,-4,1,2,3,4,5,6,7,8\n";
  g_autoptr(TildeStanCsv) out = generate_all (model_text, csv_text);

  g_assert_cmpfloat_with_epsilon (value (out, 0, "zi"), -4, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "m12"), 65, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "m21"), 43, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "n"), 25, 1e-12);
}

/* Tuple parameters: members after a colon, read back as JSON objects. */
static void
test_tuples (void)
{
  static const char model_text[] =
    "parameters { array[2] tuple(real<lower=0>, vector[2]) q; }\n"
    "model { for (i in 1:2) { q[i].1 ~ exponential (1); q[i].2 ~ normal (0, 1); } }\n"
    "generated quantities { real s = q[1].1 + 10 * q[2].1 + 100 * q[2].2[1] + 1000 * q[1].2[2]; }\n";
  static const char csv_text[] =
    "lp__,q.1:1,q.1:2.1,q.1:2.2,q.2:1,q.2:2.1,q.2:2.2\n"
    "-3,0.5,1,2,3,4,5\n";
  g_autoptr(TildeStanCsv) out = generate_all (model_text, csv_text);

  g_assert_cmpfloat_with_epsilon (value (out, 0, "s"), 0.5 + 30 + 400 + 2000, 1e-9);
}

/* Transformed parameters are recomputed; a draw from an _rng has the
 * moments of its distribution. */
static void
test_quantities (void)
{
  static const char model_text[] =
    "parameters { real mu; }\n"
    "transformed parameters { real e = exp (mu); }\n"
    "model { mu ~ normal (0, 1); }\n"
    "generated quantities { real s = mu * 2; real y = poisson_rng (e); }\n";
  GString *csv = g_string_new ("lp__,mu,e\n");
  g_autoptr(TildeModel) model = infer_test_model (model_text, NULL);
  g_autoptr(TildeStanCsv) out = NULL;
  g_autoptr(GError) error = NULL;
  double y_sum = 0;
  enum { N = 2000 };

  /* e is the fit's (wrong on purpose): the output's is recomputed */
  for (guint i = 0; i < N; i++)
    g_string_append_printf (csv, "0,%.6f,-1\n", -1.0 + 2.0 * i / (N - 1));
  out = generate (model, csv->str, 7, NULL, &error);
  g_string_free (csv, TRUE);
  g_assert_no_error (error);
  for (guint i = 0; i < N; i++)
    {
      double mu = value (out, i, "mu");
      g_assert_cmpfloat_with_epsilon (value (out, i, "s"), 2 * mu, 1e-12);
      g_assert_cmpfloat_with_epsilon (value (out, i, "e"), exp (mu), 1e-8 * exp (mu));
      y_sum += value (out, i, "y") - exp (mu);
    }
  /* sum of Poisson(e_i) - e_i: mean 0, variance sum e_i (about 2000 * 1.18) */
  g_assert_cmpfloat (fabs (y_sum), <, 5 * sqrt (N * 1.2));
}

static void
test_errors (void)
{
  static const char model_text[] =
    "parameters { vector[2] v; }\n"
    "model { v ~ normal (0, 1); }\n"
    "generated quantities { real t = v[1] + v[2]; }\n";
  static const char no_gq_text[] =
    "parameters { vector[2] v; }\n"
    "model { v ~ normal (0, 1); }\n";
  g_autoptr(TildeModel) model = infer_test_model (model_text, NULL);
  g_autoptr(TildeModel) no_gq = infer_test_model (no_gq_text, NULL);
  g_autoptr(GError) missing = NULL;
  g_autoptr(GError) extra = NULL;
  g_autoptr(GError) nothing = NULL;
  g_autoptr(GError) empty = NULL;

  g_assert_null (generate (model, "lp__,v.1\n0,1\n", 1, NULL, &missing));
  g_assert_error (missing, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_MISMATCH);
  g_assert_nonnull (strstr (missing->message, "\"v.2\""));

  g_assert_null (generate (model, "lp__,v.1,v.2,v.3\n0,1,2,3\n", 1, NULL, &extra));
  g_assert_error (extra, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_MISMATCH);
  g_assert_nonnull (strstr (extra->message, "\"v.3\""));

  g_assert_null (generate (no_gq, "lp__,v.1,v.2\n0,1,2\n", 1, NULL, &nothing));
  g_assert_error (nothing, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_NO_QUANTITIES);

  g_assert_null (generate (model, "lp__,v.1,v.2\n", 1, NULL, &empty));
  g_assert_error (empty, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_NO_DRAWS);
}

/* Draws printed with 6 significant digits miss a simplex's or a zero
 * sum's constraint by the rounding: they are read as the nearest values
 * that meet it, as the sampler made them (CmdStan stops at such a draw);
 * a draw that misses by more is an error still. */
static void
test_rounded_constraints (void)
{
  static const char model_text[] =
    "parameters { simplex[3] p; sum_to_zero_vector[3] z; sum_to_zero_matrix[2, 3] S;\n"
    "  row_stochastic_matrix[2, 2] P; unit_vector[2] u; }\n"
    "model { }\n"
    "generated quantities { real ps = sum (p); real p1 = p[1]; real zs = sum (z);\n"
    "  real ss = sum (S[1]) + sum (S[:, 2]); real pp = sum (P[1]); real uu = dot_self (u); }\n";
  static const char header[] =
    "lp__,p.1,p.2,p.3,z.1,z.2,z.3,S.1.1,S.2.1,S.1.2,S.2.2,S.1.3,S.2.3,P.1.1,P.2.1,P.1.2,P.2.2,"
    "u.1,u.2\n";
  g_autofree char *rounded = g_strconcat (header, "0,0.333333,0.333333,0.333333,"
                                          "0.123457,-0.234567,0.111111,"
                                          "0.333333,-0.333333,0.333333,-0.333333,-0.666667,0.666667,"
                                          "0.333333,0.5,0.666666,0.5,0.6,0.800001\n", NULL);
  g_autofree char *off = g_strconcat (header, "0,0.35,0.33,0.33,"
                                      "0.123457,-0.234567,0.111111,"
                                      "0.333333,-0.333333,0.333333,-0.333333,-0.666667,0.666667,"
                                      "0.333333,0.5,0.666666,0.5,0.6,0.8\n", NULL);
  g_autoptr(TildeModel) model = infer_test_model (model_text, NULL);
  g_autoptr(TildeStanCsv) out = generate_all (model_text, rounded);
  g_autoptr(GError) error = NULL;

  g_assert_cmpfloat_with_epsilon (value (out, 0, "ps"), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "p1"), 1 / 3.0, 1e-8);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "zs"), 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "ss"), 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "pp"), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (value (out, 0, "uu"), 1, 1e-12);

  g_assert_null (generate (model, off, 1, NULL, &error));
  g_assert_error (error, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_DRAW);
  g_assert_nonnull (strstr (error->message, "is not a valid simplex"));
}

/* The draws of a run of the sampler, read back: the quantities are the
 * functions of each draw they should be. */
static void
test_sampler_round_trip (void)
{
  static const char fit_text[] =
    "parameters { real<lower=0> sigma; }\n"
    "model { sigma ~ gamma (3, 2); }\n";
  static const char gq_text[] =
    "parameters { real<lower=0> sigma; }\n"
    "model { sigma ~ gamma (3, 2); }\n"
    "generated quantities { real v = square (sigma); }\n";
  g_autoptr(TildeModel) fit = infer_test_model (fit_text, NULL);
  g_autoptr(TildeModel) gq = infer_test_model (gq_text, NULL);
  g_autoptr(TildeSampleRun) run = NULL;
  g_autoptr(TildeStanCsv) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tilde-generate-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "fit.csv", NULL);
  g_autofree char *text = NULL;
  TildeSampleOptions o;

  infer_test_options (&o, 1, 200, 300, 4);
  o.output = path;
  run = infer_test_run (fit, &o);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  out = generate (gq, text, 3, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->n_draws, ==, 300);
  for (guint i = 0; i < out->n_draws; i++)
    {
      double sigma = value (out, i, "sigma");
      g_assert_cmpfloat_with_epsilon (value (out, i, "v"), sigma * sigma, 1e-8 * sigma * sigma);
    }
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/generate/shapes", test_shapes);
  g_test_add_func ("/infer/generate/quantities", test_quantities);
  g_test_add_func ("/infer/generate/complex", test_complex);
  g_test_add_func ("/infer/generate/tuples", test_tuples);
  g_test_add_func ("/infer/generate/errors", test_errors);
  g_test_add_func ("/infer/generate/rounded-constraints", test_rounded_constraints);
  g_test_add_func ("/infer/generate/sampler-round-trip", test_sampler_round_trip);
  return g_test_run ();
}
