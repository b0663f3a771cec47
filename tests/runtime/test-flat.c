/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The straight-line form of small models: each model is prepared with it
 * and without it (the general path, every statement a closure), and the
 * two must agree on the log density and its gradient (with and without
 * propto and Jacobians, at O0 and O1), and on the error and its message
 * when the evaluation fails. Each model must take the form (or, for those
 * it does not cover, not take it), and the gradients match finite
 * differences.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "runtime/flat-private.h"
#include "runtime-test-util.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

typedef struct {
  const char *name;
  const char *source;
  const char *data;
  gboolean    flat;       /* log_prob takes the straight-line form */
  gboolean    errors;     /* some of the points are domain errors */
  gboolean    exact;      /* the gradient too is the general path's to the last bit */
} Case;

static TildeModel *
prepare (const Case *c, MirOptLevel level, gboolean flat)
{
  g_autoptr (MirProgram) lowered = rt_test_mir_from_string (c->source);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) prog = mir_pipeline_run (transformed, level, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string (c->data, -1, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  rt_flat_set_enabled (flat);
  TildeModel *m = tilde_model_new (prog, data, diags);
  rt_flat_set_enabled (TRUE);
  if (!m)
    g_error ("%s: %s", c->name, ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message);
  return m;
}

/* Both fail alike, or both give the same value and gradient; TRUE when
 * they succeeded. */
static gboolean
agree (const Case *c, TildeModel *f, TildeModel *g, const double *theta, gboolean propto,
       gboolean jacobian)
{
  const char *name = c->name;
  gsize P = tilde_model_num_params_unconstrained (f);
  g_autofree double *gf = g_new0 (double, P);
  g_autofree double *gg = g_new0 (double, P);
  g_autoptr (TildeModelError) ef = NULL;
  g_autoptr (TildeModelError) eg = NULL;
  double lf = tilde_model_log_density (f, theta, propto, jacobian, gf, &ef);
  double lg = tilde_model_log_density (g, theta, propto, jacobian, gg, &eg);
  if (ef || eg)
    {
      if (!ef || !eg)
        g_error ("%s: %s fails alone: %s", name, ef ? "the flat form" : "the general path",
                 (ef ? ef : eg)->message);
      g_assert_cmpint (ef->kind, ==, eg->kind);
      g_assert_cmpstr (ef->message, ==, eg->message);
      return FALSE;
    }
  /* the value is summed as the general path sums it, to the last bit; the
   * gradient's sums may be taken in another order */
  if (lf != lg)
    g_error ("%s: log density %.17g, the general path %.17g", name, lf, lg);
  for (gsize i = 0; i < P; i++)
    if (c->exact ? gf[i] != gg[i] : !rt_test_close (gf[i], gg[i], 1e-12))
      g_error ("%s: gradient[%" G_GSIZE_FORMAT "] %.17g, the general path %.17g", name, i,
               gf[i], gg[i]);
  /* the value alone is the same value */
  double lv = tilde_model_log_density (f, theta, propto, jacobian, NULL, NULL);
  g_assert_cmpfloat (lv, ==, lf);
  return TRUE;
}

static void
check_fd (const char *name, TildeModel *m, const double *theta)
{
  gsize P = tilde_model_num_params_unconstrained (m);
  g_autofree double *g = g_new (double, P);
  g_autofree double *t = g_memdup2 (theta, sizeof (double) * P);
  tilde_model_log_density (m, theta, FALSE, TRUE, g, NULL);
  for (gsize i = 0; i < P; i++)
    {
      double h = 1e-6 * fmax (1, fabs (theta[i])), lp[2];
      for (int s = 0; s < 2; s++)
        {
          t[i] = theta[i] + (s ? h : -h);
          lp[s] = tilde_model_log_density (m, t, FALSE, TRUE, NULL, NULL);
        }
      t[i] = theta[i];
      if (!rt_test_close (g[i], (lp[1] - lp[0]) / (2 * h), 1e-6))
        g_error ("%s: gradient[%" G_GSIZE_FORMAT "] %.12g, finite differences %.12g", name, i,
                 g[i], (lp[1] - lp[0]) / (2 * h));
    }
}

static void
test_case (gconstpointer p)
{
  const Case *c = p;
  for (int level = 0; level < 2; level++)
    {
      MirOptLevel l = level ? MIR_OPT_O1 : MIR_OPT_O0;
      g_autoptr (TildeModel) f = prepare (c, l, TRUE);
      g_autoptr (TildeModel) g = prepare (c, l, FALSE);
      g_assert_cmpint (rt_model_has_flat (f), ==, c->flat);
      g_assert_false (rt_model_has_flat (g));
      gsize P = tilde_model_num_params_unconstrained (f);
      g_autofree double *theta = g_new (double, P);
      guint fallbacks = rt_flat_fallbacks ();
      int ok = 0, failed = 0;
      for (int k = 0; k < 6; k++)
        {
          for (gsize i = 0; i < P; i++)
            theta[i] = 0.9 * sin (1.3 * (double) (i + 1) + k) + 0.1 * k;
          gboolean any = FALSE;
          for (int mode = 0; mode < 4; mode++)
            {
              gboolean r = agree (c, f, g, theta, mode & 1, mode & 2);
              any |= r;
              ok += r;
              failed += !r;
            }
          if (any)
            check_fd (c->name, f, theta);
        }
      g_assert_cmpint (ok, >, 0);
      if (c->errors)
        {
          /* every failure went through the general path, which raised it */
          g_assert_cmpint (failed, >, 0);
          if (c->flat)
            g_assert_cmpuint (rt_flat_fallbacks (), >=, fallbacks + (guint) failed);
        }
      else
        {
          g_assert_cmpint (failed, ==, 0);
          g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks);
        }
    }
}

static const Case cases[] = {
  { "eight-schools-noncentered",
    "data { int<lower=0> J; array[J] real y; array[J] real<lower=0> sigma; }\n"
    "parameters { real mu; real<lower=0> tau; vector[J] theta_tilde; }\n"
    "transformed parameters { vector[J] theta = mu + tau * theta_tilde; }\n"
    "model {\n"
    "  mu ~ normal(0, 5);\n"
    "  tau ~ cauchy(0, 5);\n"
    "  theta_tilde ~ normal(0, 1);\n"
    "  y ~ normal(theta, sigma);\n"
    "}\n",
    "{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], "
    "\"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}", TRUE, FALSE, TRUE },
  { "eight-schools-centered",
    "data { int<lower=0> J; vector[J] y; vector<lower=0>[J] sigma; }\n"
    "parameters { real mu; real<lower=0> tau; vector[J] theta; }\n"
    "model {\n"
    "  mu ~ normal(0, 5);\n"
    "  tau ~ cauchy(0, 5);\n"
    "  theta ~ normal(mu, tau);\n"
    "  y ~ normal(theta, sigma);\n"
    "}\n",
    "{\"J\": 4, \"y\": [28, 8, -3, 7], \"sigma\": [15, 10, 16, 11]}", TRUE, FALSE, TRUE },
  { "bounds-and-arithmetic",
    "data { int N; vector[N] x; array[N] int k; real c; }\n"
    "parameters {\n"
    "  real<lower=-1, upper=2> a; real<upper=3> b; vector<lower=0.5>[N] s;\n"
    "  array[N] real<lower=-2, upper=-1> u; row_vector<upper=1>[N] w;\n"
    "}\n"
    "transformed parameters {\n"
    "  vector[N] m = exp (a * x) - sqrt (s) ./ (1 + square (x));\n"
    "  real q;\n"
    "  q = inv_logit (b) + expm1 (a / 4) - inv (s[1] + 2) * log (c + b * b);\n"
    "}\n"
    "model {\n"
    "  x ~ normal (m, s);\n"
    "  k ~ normal (-m, 2);\n"
    "  u ~ cauchy (a, s);\n"
    "  w ~ std_normal ();\n"
    "  b ~ cauchy (q, 2.5);\n"
    "  target += -0.5 * square (q - 1) + fma (a, b, 2 * c);\n"
    "  target += -s;\n"
    "  target += normal_lpdf (a | 0, 1);\n"
    "}\n",
    "{\"N\": 3, \"x\": [0.5, -1, 2], \"k\": [1, 0, 3], \"c\": 4}", TRUE, FALSE },
  /* locations computed by fma inside the density, operands of each kind */
  { "folded-locations",
    "data { int N; vector[N] y; vector[N] x; vector<lower=0>[N] s; }\n"
    "parameters { real a; real<lower=0> b; vector[N] v; vector[N] w; }\n"
    "transformed parameters { vector[N] m = fma (v, x, a); }\n"
    "model {\n"
    "  y ~ normal (m, s);\n"
    "  y ~ normal (fma (b, w, v), b);\n"
    "  x ~ normal (fma (v, w, x), 2);\n"
    "  w ~ normal (fma (a, b, x), s);\n"
    "  w ~ normal (x .* v + a, b);\n"
    "  y ~ normal (a + b * x, 1.5);\n"
    "  v ~ std_normal ();\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.5, -1, 2], \"x\": [1.5, 0.2, -0.7], \"s\": [1, 2, 0.5]}", TRUE,
    FALSE },
  { "scales-that-are-parameters",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real sigma; vector[N] t; }\n"
    "model {\n"
    "  y ~ normal (mu, sigma);\n"
    "  t ~ cauchy (0, sigma - 0.2);\n"
    "  mu ~ normal (0, sigma * sigma);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.1, 0.4, -0.3]}", TRUE, TRUE },
  /* bounds of transformed parameters, checked; some points break them */
  { "checked-transformed-parameters",
    "data { int N; vector[N] y; }\n"
    "parameters { real a; real<lower=0> b; vector[N] v; }\n"
    "transformed parameters {\n"
    "  real<lower=0> s = exp (a);\n"
    "  vector<lower=-1, upper=1>[N] w = 0.5 * v;\n"
    "  real<upper=1> t = a + b;\n"
    "}\n"
    "model {\n"
    "  y ~ normal (w, s);\n"
    "  v ~ normal (0, b);\n"
    "  t ~ normal (0, 2);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.1, 0.4, -0.3]}", TRUE, TRUE },
  /* the codes chosen for data operands: a vector and a scalar parameter
   * under normal with data location and scale (0 and 1 among them), cauchy
   * of a bounded scalar, a location a + b * v with a data scale; terms of
   * data alone (summed when the form is built, one dropped under propto) */
  { "data-operands-and-constant-terms",
    "data { int N; vector[N] y; real c; }\n"
    "parameters { real a; real<lower=1.5> b; vector[N] v; array[N] real w; }\n"
    "model {\n"
    "  v ~ normal (1.5, 2);\n"
    "  w ~ normal (0, 1);\n"
    "  target += normal_lpdf (y | c, 3);\n"
    "  a ~ normal (-1, 0.5);\n"
    "  b ~ cauchy (2, 3);\n"
    "  y ~ normal (c, 2);\n"
    "  target += c;\n"
    "  y ~ normal (a + b * v, 1.5);\n"
    "  target += std_normal_lpdf (y);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.5, -1, 2], \"c\": 0.25}", TRUE, FALSE, TRUE },
  /* a density of a container folded into the normal after it whose
   * location it is in: std_normal, normal (0, 1) and normal of data
   * location and scale; the container each operand of the location; data
   * scales scalar and vector. The last prior is not next to its normal
   * (not folded), the one before it is of a location with two containers.
   * The log density is the general path's to the bit; the gradient of a,
   * a scalar under several densities, sums its partials in another order
   * (as in folded-locations), the eight schools' is exact. */
  { "priors-folded-into-locations",
    "data { int N; vector[N] y; vector[N] x; vector<lower=0>[N] s; }\n"
    "parameters { real a; real<lower=0> b; vector[N] e; vector[N] f; vector[N] h; }\n"
    "model {\n"
    "  e ~ std_normal ();\n"
    "  y ~ normal (a + b * e, s);\n"
    "  f ~ normal (0, 1);\n"
    "  y ~ normal (f * b + a, 2);\n"
    "  h ~ normal (0.5, 1.5);\n"
    "  x ~ normal (fma (a, b, h), s);\n"
    "  e ~ normal (-1, 3);\n"
    "  y ~ normal (e .* f + a, s);\n"
    "  f ~ std_normal ();\n"
    "  a ~ normal (0, 2);\n"
    "  x ~ normal (a * b + h, 1);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.5, -1, 2], \"x\": [1.5, 0.2, -0.7], \"s\": [1, 2, 0.5]}", TRUE,
    FALSE },
  /* scalar steps run as one code: a bound and the density of its value
   * and another's after it, then two densities, the second dropping no
   * constants (a _lpdf call); a bound and the densities of other
   * parameters after it, then a density of the bound's value and
   * another. Each parameter under several densities sums its partials in
   * another order than the general path. */
  { "scalar-runs-of-a-bound-and-its-density",
    "parameters { real a; real<lower=0.5> s; }\n"
    "model {\n"
    "  s ~ cauchy (1, 2);\n"
    "  a ~ normal (0, 3);\n"
    "  a ~ cauchy (-1, 0.5);\n"
    "  target += normal_lpdf (a | 2, 4);\n"
    "}\n",
    "{}", TRUE, FALSE },
  { "scalar-runs-of-a-bound-and-other-densities",
    "parameters { real<lower=-1> s; real a; real b; }\n"
    "model {\n"
    "  a ~ normal (1, 2);\n"
    "  target += cauchy_lpdf (b | 0, 1);\n"
    "  s ~ normal (0, 1);\n"
    "  b ~ normal (-1, 1);\n"
    "}\n",
    "{}", TRUE, FALSE },
  { "a-loop-is-not-covered",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  for (n in 1:N) y[n] ~ normal (mu, 1);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.1, 0.4, -0.3]}", FALSE, FALSE },
  { "a-library-call-is-not-covered",
    "data { int N; vector[N] y; }\n"
    "parameters { real mu; real<lower=0> s; }\n"
    "model {\n"
    "  y ~ student_t (3, mu, s);\n"
    "}\n",
    "{\"N\": 3, \"y\": [0.1, 0.4, -0.3]}", FALSE, FALSE },
};

/* A data scale that is not positive: the general path raises the error on
 * every evaluation, so the form is not built. */
static void
test_bad_data_scale (void)
{
  static const Case c = {
    "bad-scale",
    "data { vector[2] s; }\n"
    "parameters { real mu; }\n"
    "model { mu ~ normal (0, s); }\n",
    "{\"s\": [1, -1]}", FALSE, TRUE,
  };
  g_autoptr (TildeModel) f = prepare (&c, MIR_OPT_O1, TRUE);
  g_assert_false (rt_model_has_flat (f));
  double theta = 0.3;
  g_autoptr (TildeModelError) e = NULL;
  tilde_model_log_density (f, &theta, TRUE, TRUE, NULL, &e);
  g_assert_nonnull (e);
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (e->message, ==, "normal_lpdf: Scale parameter[2] is -1, but must be positive!");
}

/* The message of a scale that a parameter makes negative is the general
 * path's, word for word (Stan's wording). */
static void
test_error_message (void)
{
  g_autoptr (TildeModel) f = prepare (&cases[4], MIR_OPT_O1, TRUE);
  g_assert_true (rt_model_has_flat (f));
  double theta[5] = { 0.1, -0.5, 0, 0, 0 };
  g_autoptr (TildeModelError) e = NULL;
  guint fallbacks = rt_flat_fallbacks ();
  double lp = tilde_model_log_density (f, theta, TRUE, TRUE, NULL, &e);
  g_assert_true (isnan (lp));
  g_assert_nonnull (e);
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (e->message, ==, "normal_lpdf: Scale parameter is -0.5, but must be positive!");
  g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
}

/* A transformed parameter out of its bounds: the general path's message
 * (Stan's wording). */
static void
test_check_message (void)
{
  const Case *c = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (strcmp (cases[i].name, "checked-transformed-parameters") == 0)
      c = &cases[i];
  g_autoptr (TildeModel) f = prepare (c, MIR_OPT_O1, TRUE);
  g_assert_true (rt_model_has_flat (f));
  double theta[5] = { 0.1, 0, 0.4, 3, -0.2 };
  g_autoptr (TildeModelError) e = NULL;
  guint fallbacks = rt_flat_fallbacks ();
  tilde_model_log_density (f, theta, TRUE, TRUE, NULL, &e);
  g_assert_nonnull (e);
  g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (e->message, ==, "w[2] is 1.5, but must be less than or equal to 1");
  g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
}

/* A parameter that is NaN: each code for a parameter under a density
 * gives way, and the general path raises the error in Stan's words. */
static void
test_nan_parameter (void)
{
  const Case *c = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (strcmp (cases[i].name, "data-operands-and-constant-terms") == 0)
      c = &cases[i];
  g_autoptr (TildeModel) f = prepare (c, MIR_OPT_O1, TRUE);
  g_assert_true (rt_model_has_flat (f));
  /* a, b, v[3], w[3]; the density that sees the NaN first, each time */
  static const struct { int at; const char *message; } points[] = {
    { 2, "normal_lpdf: Random variable[1] is nan, but must be not nan!" },
    { 5, "normal_lpdf: Random variable[1] is nan, but must be not nan!" },
    { 0, "normal_lpdf: Random variable is nan, but must be not nan!" },
    { 1, "cauchy_lpdf: Random variable is nan, but must be not nan!" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (points); k++)
    for (int mode = 0; mode < 4; mode++)
      {
        double theta[8] = { 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, -0.7, 0.8 };
        theta[points[k].at] = NAN;
        g_autoptr (TildeModelError) e = NULL;
        guint fallbacks = rt_flat_fallbacks ();
        double lp = tilde_model_log_density (f, theta, mode & 1, mode & 2, NULL, &e);
        g_assert_true (isnan (lp));
        g_assert_nonnull (e);
        g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
        g_assert_cmpstr (e->message, ==, points[k].message);
        g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
      }
}

/* A NaN in a container whose density is folded into the normal after it
 * (the eight schools' theta_tilde): the general path's error, in Stan's
 * words, from that density. */
static void
test_nan_in_folded_prior (void)
{
  g_autoptr (TildeModel) f = prepare (&cases[0], MIR_OPT_O1, TRUE);
  g_assert_true (rt_model_has_flat (f));
  for (int mode = 0; mode < 4; mode++)
    {
      double theta[10] = { 0.1, 0.2, 0.3, -0.4, 0.5, NAN, -0.7, 0.8, 0.9, 1 };
      g_autoptr (TildeModelError) e = NULL;
      guint fallbacks = rt_flat_fallbacks ();
      double lp = tilde_model_log_density (f, theta, mode & 1, mode & 2, NULL, &e);
      g_assert_true (isnan (lp));
      g_assert_nonnull (e);
      g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
      g_assert_cmpstr (e->message, ==, "normal_lpdf: Random variable[4] is nan, but must be not nan!");
      g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
    }
}

static const Case *
find_case (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (strcmp (cases[i].name, name) == 0)
      return &cases[i];
  g_assert_not_reached ();
}

/* A NaN at each place of a scalar run (the bound, its first density, its
 * second): the run gives way and the general path raises the error of the
 * density that sees it first, in Stan's words. */
static void
test_nan_in_scalar_run (void)
{
  const Case *c = find_case ("scalar-runs-of-a-bound-and-other-densities");
  g_autoptr (TildeModel) f = prepare (c, MIR_OPT_O1, TRUE);
  g_assert_true (rt_model_has_flat (f));
  /* s, a, b */
  static const struct { int at; const char *message; } points[] = {
    { 1, "normal_lpdf: Random variable is nan, but must be not nan!" },
    { 2, "cauchy_lpdf: Random variable is nan, but must be not nan!" },
    { 0, "normal_lpdf: Random variable is nan, but must be not nan!" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (points); k++)
    for (int mode = 0; mode < 4; mode++)
      {
        double theta[3] = { 0.1, 0.2, 0.3 }, grad[3];
        theta[points[k].at] = NAN;
        g_autoptr (TildeModelError) e = NULL;
        guint fallbacks = rt_flat_fallbacks ();
        double lp = tilde_model_log_density (f, theta, mode & 1, mode & 2, grad, &e);
        g_assert_true (isnan (lp));
        g_assert_nonnull (e);
        g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
        g_assert_cmpstr (e->message, ==, points[k].message);
        g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
      }
}

/* A finite log density whose gradient is not finite (the partial of a
 * density with a tiny data scale overflows where its square does not):
 * the flat form gives way, the general path's value and gradient come
 * back, and the next evaluation is the flat form's again, unharmed. */
static void
test_gradient_not_finite (void)
{
  static const Case c = {
    "gradient-not-finite",
    "parameters { real mu; real<lower=0> s; }\n"
    "model { mu ~ normal (0, 1e-160); s ~ normal (0, 2); }\n",
    "{}", TRUE, FALSE,
  };
  g_autoptr (TildeModel) f = prepare (&c, MIR_OPT_O1, TRUE);
  g_autoptr (TildeModel) g = prepare (&c, MIR_OPT_O1, FALSE);
  g_assert_true (rt_model_has_flat (f));
  /* z = 1e150: z * z / 2 is finite, its partial z / sigma is not */
  double theta[2] = { 1e-10, 0.5 }, gf[2], gg[2];
  guint fallbacks = rt_flat_fallbacks ();
  double lf = tilde_model_log_density (f, theta, TRUE, TRUE, gf, NULL);
  double lg = tilde_model_log_density (g, theta, TRUE, TRUE, gg, NULL);
  g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
  g_assert_true (isfinite (lg));
  g_assert_cmpfloat (lf, ==, lg);
  g_assert_true (isinf (gg[0]) && gg[0] < 0);
  g_assert_cmpfloat (gf[0], ==, gg[0]);
  g_assert_cmpfloat (gf[1], ==, gg[1]);
  /* the adjoints the flat form left behind were cleared */
  theta[0] = 0;
  lf = tilde_model_log_density (f, theta, TRUE, TRUE, gf, NULL);
  lg = tilde_model_log_density (g, theta, TRUE, TRUE, gg, NULL);
  g_assert_cmpuint (rt_flat_fallbacks (), ==, fallbacks + 1);
  g_assert_cmpfloat (lf, ==, lg);
  g_assert_cmpfloat (gf[0], ==, gg[0]);
  g_assert_cmpfloat (gf[1], ==, gg[1]);
}

/* Chains evaluate one model on several threads at once, each with a
 * scratch of its own: every thread's values and gradients are those of
 * one thread alone, bit for bit, points that give way among them. */
#define N_THREADS 4
#define N_POINTS 7
#define ROUNDS 300

typedef struct {
  TildeModel   *m;
  int           id;
  const double *theta;     /* N_POINTS points of 10 */
  const double *lp;        /* what one thread alone computed */
  const double *grad;
  gboolean      ok;
} Worker;

static gpointer
evaluate_concurrently (gpointer p)
{
  Worker *w = p;
  w->ok = TRUE;
  for (int r = 0; r < ROUNDS; r++)
    for (int k = 0; k < N_POINTS; k++)
      {
        int at = (k + w->id + r) % N_POINTS;
        double grad[10];
        TildeModelError *e = NULL;
        double lp = tilde_model_log_density (w->m, w->theta + 10 * at, (r & 1) == 0, TRUE, grad,
                                             &e);
        gboolean same = isnan (w->lp[2 * at + (r & 1)]) ? isnan (lp) && e
          : lp == w->lp[2 * at + (r & 1)] && !e
            && memcmp (grad, w->grad + 10 * (2 * at + (r & 1)), sizeof grad) == 0;
        w->ok &= same;
        tilde_model_error_free (e);
      }
  return NULL;
}

static void
test_concurrent (void)
{
  g_autoptr (TildeModel) f = prepare (&cases[0], MIR_OPT_O1, TRUE);
  g_assert_true (rt_model_has_flat (f));
  double theta[N_POINTS * 10], lp[N_POINTS * 2], grad[N_POINTS * 2 * 10];
  for (int k = 0; k < N_POINTS; k++)
    for (int i = 0; i < 10; i++)
      theta[10 * k + i] = 0.8 * sin (0.7 * (i + 1) + 1.9 * k);
  /* a NaN: the general path's error, on whichever thread */
  theta[10 * 3 + 6] = NAN;
  for (int k = 0; k < N_POINTS; k++)
    for (int propto = 0; propto < 2; propto++)
      {
        TildeModelError *e = NULL;
        lp[2 * k + propto] = tilde_model_log_density (f, theta + 10 * k, propto == 0, TRUE,
                                                      grad + 10 * (2 * k + propto), &e);
        g_assert_true (isnan (lp[2 * k + propto]) == (k == 3));
        tilde_model_error_free (e);
      }
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  for (int t = 0; t < N_THREADS; t++)
    {
      workers[t] = (Worker) { f, t, theta, lp, grad, FALSE };
      threads[t] = g_thread_new ("flat", evaluate_concurrently, &workers[t]);
    }
  for (int t = 0; t < N_THREADS; t++)
    {
      g_thread_join (threads[t]);
      g_assert_true (workers[t].ok);
    }
}

/* A term of data alone that is an error (a NaN among the data): the
 * general path raises it at every evaluation, so the form is not built. */
static void
test_bad_constant_term (void)
{
  static const Case c = {
    "bad-constant-term",
    "data { vector[2] y; }\n"
    "parameters { real mu; }\n"
    "model { mu ~ normal (0, 1); y ~ normal (0, 2); }\n",
    "{\"y\": [1, \"NaN\"]}", FALSE, TRUE,
  };
  g_autoptr (TildeModel) f = prepare (&c, MIR_OPT_O1, TRUE);
  g_assert_false (rt_model_has_flat (f));
  for (int mode = 0; mode < 4; mode++)
    {
      double theta = 0.3;
      g_autoptr (TildeModelError) e = NULL;
      tilde_model_log_density (f, &theta, mode & 1, mode & 2, NULL, &e);
      g_assert_nonnull (e);
      g_assert_cmpint (e->kind, ==, TILDE_MODEL_ERROR_DOMAIN);
      g_assert_cmpstr (e->message, ==, "normal_lpdf: Random variable[2] is nan, but must be not nan!");
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strconcat ("/runtime/flat/", cases[i].name, NULL);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/runtime/flat/bad-data-scale", test_bad_data_scale);
  g_test_add_func ("/runtime/flat/error-message", test_error_message);
  g_test_add_func ("/runtime/flat/check-message", test_check_message);
  g_test_add_func ("/runtime/flat/nan-parameter", test_nan_parameter);
  g_test_add_func ("/runtime/flat/bad-constant-term", test_bad_constant_term);
  g_test_add_func ("/runtime/flat/nan-in-folded-prior", test_nan_in_folded_prior);
  g_test_add_func ("/runtime/flat/nan-in-scalar-run", test_nan_in_scalar_run);
  g_test_add_func ("/runtime/flat/gradient-not-finite", test_gradient_not_finite);
  g_test_add_func ("/runtime/flat/concurrent", test_concurrent);
  return g_test_run ();
}
