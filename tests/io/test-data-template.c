/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The template of a model's data: every variable of the data block in its
 * order and shape, laid out to be read, and data that check clean against
 * the model, however its constraints are spelled.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "io/data-check.h"
#include "io/data-template.h"
#include "tilde-frontend.h"

static char *
template_of (const char *model, TildeCheckResult **check)
{
  g_autofree char *problem = NULL;
  char *text;

  *check = tilde_frontend_check_buffer ("model.stan", NULL, model, -1, NULL);
  g_assert_false (tilde_check_result_has_errors (*check));
  text = tilde_data_template (tilde_check_result_get_program (*check), &problem);
  g_assert_null (problem);
  g_assert_nonnull (text);
  return text;
}

static void
assert_checks_clean (const char *text, TildeCheckResult *check)
{
  g_autoptr (GPtrArray) diags = tilde_data_check (text, -1, "data.json",
                                                  tilde_check_result_get_program (check));
  for (guint i = 0; i < diags->len; i++)
    g_test_message ("%s", ((TildeDiagnostic *) diags->pdata[i])->message);
  g_assert_cmpuint (diags->len, ==, 0);
}

static void
test_eight_schools (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("TILDE_EXAMPLES_DIR"), "eight_schools.stan", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) check = tilde_frontend_check_file (path, NULL, &error);
  g_autofree char *problem = NULL;
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_no_error (error);
  text = tilde_data_template (tilde_check_result_get_program (check), &problem);
  g_test_message ("%s", text);
  lines = g_strsplit (text, "\n", -1);
  /* one variable a line, in the order of the data block */
  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  g_assert_cmpstr (lines[0], ==, "{");
  g_assert_true (g_str_has_prefix (lines[1], "  \"J\": "));
  g_assert_true (g_str_has_prefix (lines[2], "  \"y\": ["));
  g_assert_true (g_str_has_prefix (lines[3], "  \"sigma\": ["));
  g_assert_cmpstr (lines[4], ==, "}");
  /* reals to three significant digits */
  g_assert_cmpuint (strlen (lines[2]), <, 60);
  assert_checks_clean (text, check);

  /* the same model, the same template */
  g_autofree char *again = tilde_data_template (tilde_check_result_get_program (check), &problem);
  g_assert_cmpstr (text, ==, again);
}

static void
test_constrained_and_nested (void)
{
  g_autoptr (TildeCheckResult) check = NULL;
  g_autofree char *text = template_of (
    "data {\n"
    "  int<lower=1> N;\n"
    "  int<lower=1> K;\n"
    "  matrix[N, K] X;\n"
    "  array[N] int<lower=0, upper=1> y;\n"
    "  simplex[K] w;\n"
    "  ordered[K] cut;\n"
    "  cov_matrix[K] S;\n"
    "  cholesky_factor_corr[K] L;\n"
    "  unit_vector[3] u;\n"
    "  array[2] vector<lower=-1, upper=1>[K] v;\n"
    "  complex z;\n"
    "  tuple(int, real) t;\n"
    "  array[K] real<lower=0> sd;\n"
    "}\n", &check);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  g_test_message ("%s", text);
  assert_checks_clean (text, check);
  /* a matrix reads as its rows, one a line */
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "  \"X\": "))
      {
        g_assert_cmpstr (lines[i], ==, "  \"X\": [");
        g_assert_true (g_str_has_prefix (lines[i + 1], "    ["));
      }
  g_assert_nonnull (strstr (text, "\n  \"t\": {\"1\": "));
}

static void
test_no_data (void)
{
  g_autoptr (TildeCheckResult) check = NULL;
  g_autofree char *text = template_of ("parameters { real mu; }\nmodel { mu ~ normal(0, 1); }\n", &check);
  g_assert_cmpstr (text, ==, "{}\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/io/data-template/eight-schools", test_eight_schools);
  g_test_add_func ("/io/data-template/constrained-and-nested", test_constrained_and_nested);
  g_test_add_func ("/io/data-template/no-data", test_no_data);
  return g_test_run ();
}
