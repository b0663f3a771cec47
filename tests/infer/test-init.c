/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Starting points as CmdStan finds them, and its words when it cannot. */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "infer-test-util.h"
#include "infer/init.h"
#include "infer/rng.h"

static const char *const model_source =
  "parameters { real mu; real<lower=0> sigma; vector<lower=-1, upper=1>[2] r; }\n"
  "model { mu ~ normal(0, 1); sigma ~ lognormal(0, 1); r ~ normal(0, 1); }\n";

static void
collect (const char *line, gpointer data)
{
  g_string_append_printf (data, "%s\n", line);
}

typedef struct {
  gboolean ok;
  double   theta[16], lp, gradient[16];
  char    *problem;
  GString *messages;
} Found;

static void
found_clear (Found *f)
{
  g_free (f->problem);
  g_string_free (f->messages, TRUE);
}

static void
find (TildeModel *model, const char *inits_json, double radius, Found *f)
{
  g_autoptr(TildeInits) inits = NULL;
  g_autoptr(GError) error = NULL;
  gsl_rng *rng = tilde_rng_new_stream (17, 1);

  memset (f, 0, sizeof *f);
  f->messages = g_string_new (NULL);
  if (inits_json)
    {
      inits = tilde_inits_new_from_string (inits_json, &error);
      g_assert_no_error (error);
    }
  f->ok = tilde_init_find (model, inits, radius, rng, f->theta, &f->lp, f->gradient, collect,
                           f->messages, &f->problem);
  gsl_rng_free (rng);
}

/* Random: every coordinate in (-2, 2) on the unconstrained scale; with
 * radius 0.5 in (-0.5, 0.5); radius 0 puts them all at zero. */
static void
test_random (void)
{
  g_autoptr(TildeModel) model = infer_test_model (model_source, NULL);
  Found f;
  const double radii[] = { 2, 0.5, 0 };

  for (guint k = 0; k < G_N_ELEMENTS (radii); k++)
    {
      find (model, NULL, radii[k], &f);
      g_assert_true (f.ok);
      for (int i = 0; i < 4; i++)
        {
          if (radii[k] == 0)
            g_assert_cmpfloat (f.theta[i], ==, 0);
          else
            g_assert_cmpfloat (fabs (f.theta[i]), <, radii[k]);
        }
      g_assert_true (isfinite (f.lp));
      g_assert_nonnull (strstr (f.messages->str, "Gradient evaluation took"));
      g_assert_nonnull (strstr (f.messages->str, "Adjust your expectations accordingly!"));
      found_clear (&f);
    }
}

/* Given values are read on the constrained scale: sigma = 2 is log 2
 * unconstrained, r = 0.5 is logit((0.5 + 1) / 2). */
static void
test_file (void)
{
  g_autoptr(TildeModel) model = infer_test_model (model_source, NULL);
  Found f;

  find (model, "{\"mu\": 1.5, \"sigma\": 2, \"r\": [0.5, -0.5]}", 2, &f);
  g_assert_true (f.ok);
  g_assert_cmpfloat (f.theta[0], ==, 1.5);
  g_assert_cmpfloat (fabs (f.theta[1] - log (2.0)), <, 1e-14);
  g_assert_cmpfloat (fabs (f.theta[2] - log (0.75 / 0.25)), <, 1e-14);
  g_assert_cmpfloat (fabs (f.theta[3] + log (0.75 / 0.25)), <, 1e-14);
  found_clear (&f);
}

/* Partial inits: sigma from the file, the rest drawn. */
static void
test_partial_file (void)
{
  g_autoptr(TildeModel) model = infer_test_model (model_source, NULL);
  Found f;

  find (model, "{\"sigma\": 3, \"unused\": [1, 2, 3]}", 2, &f);
  g_assert_true (f.ok);
  g_assert_cmpfloat (fabs (f.theta[1] - log (3.0)), <, 1e-14);
  g_assert_cmpfloat (fabs (f.theta[0]), <, 2);
  g_assert_cmpfloat (fabs (f.theta[2]), <, 2 + 1e-12);
  g_assert_cmpfloat (fabs (f.theta[3]), <, 2 + 1e-12);
  g_assert_cmpfloat (f.theta[0], !=, 0);
  found_clear (&f);
}

/* Partial inits of tuple and complex parameters: the given ones from the
 * file, the drawn ones written back by their column names ("q.1:2.imag")
 * and read with the file's. */
static void
test_partial_tuples (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { tuple(real, real<lower=0>) p; array[2] tuple(vector[2], complex) q;"
    " complex z; }\n"
    "model { p.1 ~ normal(0, 1); p.2 ~ exponential(1); abs(z) ~ std_normal(); }\n", NULL);
  Found f;

  /* p and z given; q (8 values) drawn */
  find (model, "{\"p\": {\"1\": 0.25, \"2\": 2}, \"z\": [-1.5, 0.5]}", 2, &f);
  g_assert_true (f.ok);
  g_assert_cmpfloat (f.theta[0], ==, 0.25);
  g_assert_cmpfloat (fabs (f.theta[1] - log (2.0)), <, 1e-14);
  for (int i = 2; i < 10; i++)
    g_assert_cmpfloat (fabs (f.theta[i]), <, 2);
  g_assert_cmpfloat (f.theta[10], ==, -1.5);
  g_assert_cmpfloat (f.theta[11], ==, 0.5);
  found_clear (&f);
  /* q given; p and z drawn */
  find (model, "{\"q\": [{\"1\": [1, 2], \"2\": [3, 4]}, {\"1\": [5, 6], \"2\": [7, 8]}]}", 2, &f);
  g_assert_true (f.ok);
  for (int i = 2; i < 10; i++)
    g_assert_cmpfloat (f.theta[i], ==, i - 1);
  found_clear (&f);
}

/* Inits are read as data are: the same check, with a line and column, and
 * each given value's own text (a comment, an exponent, a 17-digit
 * number, the last of two) put with the drawn rest. */
static void
test_text_read_as_data (void)
{
  static const struct { const char *text, *message; } bad[] = {
    { "{\"mu\": 1} {\"mu\": 2}", "<inits>:1:11: Parse error: expected the end of the data, found '{'" },
    { "{\"mu\": 4.}", "<inits>:1:8: Parse error: 4. is not a number" },
    { "{\"mu\": \"\xff\"}", "<inits>:1:9: Parse error: the data is not UTF-8 text" },
    { "[1, 2]", "JSON inits must be an object whose members are variables" },
  };
  g_autoptr(TildeModel) model = infer_test_model (model_source, NULL);
  Found f;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_null (tilde_inits_new_from_string (bad[i].text, &error));
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, bad[i].message);
    }
  find (model, "{\"sigma\": 1, \"sigma\": /* given */ 3.0000000000000004e0, \"mu\": -0.1}", 2, &f);
  g_assert_true (f.ok);
  g_assert_cmpfloat (f.theta[0], ==, -0.1);
  g_assert_cmpfloat (f.theta[1], ==, log (3.0000000000000004));
  found_clear (&f);
}

/* A value outside its constraint is rejected; with everything given
 * there is nothing to draw again, so one attempt. */
static void
test_file_violates_constraint (void)
{
  g_autoptr(TildeModel) model = infer_test_model (model_source, NULL);
  Found f;

  find (model, "{\"mu\": 0, \"sigma\": -1, \"r\": [0, 0]}", 2, &f);
  g_assert_false (f.ok);
  g_assert_cmpstr (f.problem, ==, "Initialization failed.");
  g_assert_nonnull (strstr (f.messages->str, "Rejecting initial value:\n"
                                             "  Error evaluating the log probability at the initial value.\n"));
  g_assert_nonnull (strstr (f.messages->str, "Initialization between (-2, 2) failed after 1 attempts. "));
  found_clear (&f);
}

/* A density that is never finite: 100 rejections in CmdStan's words, then
 * the failure. */
static void
test_failure (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { real x; }\n"
    "model { target += negative_infinity(); }\n", NULL);
  Found f;
  const char *p;
  guint rejections = 0;

  find (model, NULL, 2, &f);
  g_assert_false (f.ok);
  g_assert_cmpstr (f.problem, ==, "Initialization failed.");
  for (p = f.messages->str; (p = strstr (p, "Rejecting initial value:\n"
                                            "  Log probability evaluates to log(0), i.e. negative infinity.\n"
                                            "  Stan can't start sampling from this initial value.\n")); p++)
    rejections++;
  g_assert_cmpuint (rejections, ==, 100);
  g_assert_true (g_str_has_suffix (f.messages->str,
                                   "\nInitialization between (-2, 2) failed after 100 attempts. \n"
                                   " Try specifying initial values, reducing ranges of constrained "
                                   "values, or reparameterizing the model.\n"));
  found_clear (&f);
}

/* A model error at the starting point is a rejection with its message;
 * when the point becomes good on a later try, the search succeeds. */
static void
test_error_then_success (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { real x; }\n"
    "model { if (x < 1.5) reject(\"x is \", x); x ~ normal(0, 1); }\n", NULL);
  Found f;

  find (model, NULL, 2, &f);
  g_assert_true (f.ok);
  g_assert_cmpfloat (f.theta[0], >=, 1.5);
  g_assert_nonnull (strstr (f.messages->str, "Rejecting initial value:\n"
                                             "  Error evaluating the log probability at the initial value.\n"));
  g_assert_nonnull (strstr (f.messages->str, "x is "));
  found_clear (&f);
}

/* An index out of range ends the search at once, as Stan's
 * std::out_of_range does, with the error and where it was raised; only
 * domain errors and reject() are tried again. */
static void
test_index_error_is_unrecoverable (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "data { array[2] real y; }\n"
    "parameters { real x; }\n"
    "model { target += y[3] * x; }\n", "{\"y\": [1, 2]}");
  Found f;

  find (model, NULL, 2, &f);
  g_assert_false (f.ok);
  g_assert_cmpstr (f.problem, ==, "Exception: index 3 out of range; expecting index to be between "
                   "1 and 2 (in 'model.stan', line 3, column 8 to column 27)");
  g_assert_true (g_str_has_prefix (f.messages->str, "Unrecoverable error evaluating the log "
                                   "probability at the initial value.\n"));
  g_assert_null (strstr (f.messages->str, "Rejecting initial value"));
  found_clear (&f);
}

/* A gradient that is not finite where the density is. */
static void
test_gradient_not_finite (void)
{
  g_autoptr(TildeModel) model = infer_test_model (
    "parameters { real<lower=0> x; }\n"
    "model { target += sqrt(x - x) + normal_lpdf(x | 1, 1); }\n", NULL);
  Found f;

  find (model, NULL, 2, &f);
  g_assert_false (f.ok);
  g_assert_nonnull (strstr (f.messages->str, "Rejecting initial value:\n"
                                             "  Gradient evaluated at the initial value is not finite.\n"
                                             "  Stan can't start sampling from this initial value.\n"));
  found_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/init/random", test_random);
  g_test_add_func ("/infer/init/file", test_file);
  g_test_add_func ("/infer/init/partial-file", test_partial_file);
  g_test_add_func ("/infer/init/partial-tuples", test_partial_tuples);
  g_test_add_func ("/infer/init/text-read-as-data", test_text_read_as_data);
  g_test_add_func ("/infer/init/file-violates-constraint", test_file_violates_constraint);
  g_test_add_func ("/infer/init/failure", test_failure);
  g_test_add_func ("/infer/init/error-then-success", test_error_then_success);
  g_test_add_func ("/infer/init/index-error-is-unrecoverable", test_index_error_is_unrecoverable);
  g_test_add_func ("/infer/init/gradient-not-finite", test_gradient_not_finite);
  return g_test_run ();
}
