/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The _rng functions, drawn with a fixed seed: sample means and variances
 * against the distributions' closed forms (within five standard errors),
 * continuous draws against their distribution function by a
 * Kolmogorov-Smirnov test, discrete draws against their mass function by a
 * chi-square test, both at the 0.1% level. The distribution and mass
 * functions are the runtime's own, themselves checked against mpmath in
 * test-math.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_sf_gamma.h>

#include "kernel-harness.h"

#define N_DRAWS 20000
#define EULER_GAMMA 0.57721566490153286061

typedef struct {
  Harness *h;
  gsl_rng *rng;
} Rig;

static Rig
rig_new (void)
{
  Rig r = { harness_new (), gsl_rng_alloc (gsl_rng_mt19937) };
  gsl_rng_set (r.rng, 20240611);
  r.h->cx.rng = r.rng;
  return r;
}

static void
rig_free (Rig *r)
{
  gsl_rng_free (r->rng);
  harness_free (r->h);
}

static double
draw_one (Rig *r, const char *name, int n, const TildeValue *args)
{
  TildeValue out;
  if (!call (r->h, name, FALSE, n, args, &out))
    g_error ("%s: %s", name, r->h->cx.err_msg);
  return out.kind == TILDE_VALUE_INT ? out.u.i : out.u.r;
}

/* Sample mean and variance against the closed forms; with the fourth
 * central moment for the variance's standard error. */
static void
check_moments (const char *name, const double *x, int n, double mean, double var)
{
  double m = 0, v = 0, m4 = 0;
  for (int i = 0; i < n; i++)
    m += x[i];
  m /= n;
  for (int i = 0; i < n; i++)
    {
      double d = x[i] - m;
      v += d * d;
      m4 += d * d * d * d;
    }
  v /= n - 1;
  m4 /= n;
  double se_mean = sqrt (var / n), se_var = sqrt (fmax (m4 - v * v, 0) / n);
  if (!(fabs (m - mean) <= 5 * se_mean))
    g_error ("%s: sample mean %g, expected %g (standard error %g)", name, m, mean, se_mean);
  if (!isnan (var) && !(fabs (v - var) <= 5 * se_var + 1e-12))
    g_error ("%s: sample variance %g, expected %g (standard error %g)", name, v, var, se_var);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Kolmogorov-Smirnov against the runtime's `cdf` at args (the draw in
 * front) */
static void
check_ks (Rig *r, const char *rng_name, const char *cdf, double *x, int n, int nargs,
          const TildeValue *args)
{
  qsort (x, (size_t) n, sizeof (double), cmp_double);
  TildeValue a[6];
  memcpy (a + 1, args, sizeof (TildeValue) * (gsize) nargs);
  double D = 0;
  for (int i = 0; i < n; i++)
    {
      a[0] = tilde_value_real (x[i]);
      TildeValue out;
      if (!call (r->h, cdf, FALSE, nargs + 1, a, &out))
        g_error ("%s: %s", cdf, r->h->cx.err_msg);
      double F = out.u.r;
      D = fmax (D, fmax (fabs (F - (double) i / n), fabs ((double) (i + 1) / n - F)));
    }
  /* the 0.1% critical value of sqrt (n) D is 1.95 */
  if (!(sqrt (n) * D < 1.95))
    g_error ("%s: Kolmogorov-Smirnov statistic sqrt(n) D = %g against %s", rng_name,
             sqrt (n) * D, cdf);
}

/* Chi-square goodness of fit of integer draws against probabilities p[k]
 * of the values lo .. lo + K - 1 (the last bin also takes what lies above,
 * bins with small expected counts are pooled with their neighbours). */
static void
check_chi_square (const char *name, const double *x, int n, int lo, const double *p, int K)
{
  double *count = g_new0 (double, K);
  for (int i = 0; i < n; i++)
    {
      int k = (int) x[i] - lo;
      if (k < 0 || k >= K)
        k = k < 0 ? 0 : K - 1;
      count[k]++;
    }
  double stat = 0, obs = 0, expct = 0;
  int df = -1;
  for (int k = 0; k < K; k++)
    {
      obs += count[k];
      expct += n * p[k];
      if (expct >= 20 || k == K - 1)
        {
          stat += (obs - expct) * (obs - expct) / fmax (expct, 1e-300);
          df++;
          obs = expct = 0;
        }
    }
  g_free (count);
  if (df < 1)
    return;
  double crit = gsl_cdf_chisq_Qinv (0.001, df);
  if (!(stat < crit))
    g_error ("%s: chi-square %g on %d degrees of freedom (0.1%% critical value %g)", name, stat,
             df, crit);
}

/* ---- univariate ---- */

typedef struct {
  const char *name;       /* foo: foo_rng, foo_cdf, foo_lpmf */
  int nargs;
  double args[3];
  gboolean integer[3];    /* argument k is an int */
  double mean, var;       /* NAN: no such moment */
  gboolean discrete;
  int support_lo;         /* discrete: smallest value to tabulate */
} UniCase;

#define I3 { TRUE, TRUE, TRUE }

static double
gamma_fn (double x)
{
  return gsl_sf_gamma (x);
}

static void
run_univariate (Rig *r, const UniCase *c)
{
  TildeValue args[3];
  for (int k = 0; k < c->nargs; k++)
    args[k] = c->integer[k] ? tilde_value_int ((int) c->args[k]) : tilde_value_real (c->args[k]);
  g_autofree char *rng = g_strconcat (c->name, "_rng", NULL);
  double *x = g_new (double, N_DRAWS);
  for (int i = 0; i < N_DRAWS; i++)
    x[i] = draw_one (r, rng, c->nargs, args);
  if (!isnan (c->mean))
    check_moments (rng, x, N_DRAWS, c->mean, c->var);
  if (!c->discrete)
    {
      g_autofree char *cdf = g_strconcat (c->name, "_cdf", NULL);
      if (rt_builtin_lookup (cdf, c->nargs + 1))
        check_ks (r, rng, cdf, x, N_DRAWS, c->nargs, args);
    }
  else
    {
      /* the mass function over the values the draws reach */
      int hi = c->support_lo;
      for (int i = 0; i < N_DRAWS; i++)
        hi = MAX (hi, (int) x[i]);
      int K = hi - c->support_lo + 1;
      double *p = g_new (double, K);
      g_autofree char *lpmf = g_strconcat (c->name, "_lpmf", NULL);
      TildeValue a[4];
      memcpy (a + 1, args, sizeof (TildeValue) * (gsize) c->nargs);
      double tail = 1;
      for (int k = 0; k < K; k++)
        {
          a[0] = tilde_value_int (c->support_lo + k);
          TildeValue out;
          /* values outside the support (an error for some) have no mass */
          p[k] = call (r->h, lpmf, FALSE, c->nargs + 1, a, &out) ? exp (out.u.r) : 0;
          tail -= p[k];
        }
      p[K - 1] += fmax (tail, 0);
      check_chi_square (rng, x, N_DRAWS, c->support_lo, p, K);
      g_free (p);
    }
  g_free (x);
}

static void
test_univariate (void)
{
  const double pi2 = M_PI * M_PI;
  double d = 2.5 / sqrt (1 + 2.5 * 2.5);   /* skew normal's delta */
  const UniCase cases[] = {
    { "normal", 2, { 1.5, 2.0 }, { 0 }, 1.5, 4.0 },
    { "std_normal", 0, { 0 }, { 0 }, 0, 1 },
    { "cauchy", 2, { -1.0, 0.5 }, { 0 }, NAN, NAN },
    { "student_t", 3, { 6.0, 1.0, 2.0 }, { 0 }, 1.0, 4.0 * 6 / 4 },
    { "double_exponential", 2, { 0.5, 1.5 }, { 0 }, 0.5, 2 * 2.25 },
    { "logistic", 2, { -2.0, 0.7 }, { 0 }, -2.0, 0.49 * pi2 / 3 },
    { "gumbel", 2, { 1.0, 2.0 }, { 0 }, 1.0 + 2.0 * EULER_GAMMA, pi2 * 4 / 6 },
    { "lognormal", 2, { 0.2, 0.4 }, { 0 }, exp (0.2 + 0.08), (exp (0.16) - 1) * exp (0.4 + 0.16) },
    { "chi_square", 1, { 3.5 }, { 0 }, 3.5, 7.0 },
    { "inv_chi_square", 1, { 12.0 }, { 0 }, 0.1, 2.0 / (100 * 8) },
    { "scaled_inv_chi_square", 2, { 12.0, 0.5 }, { 0 }, 12 * 0.25 / 10,
      2.0 * 144 * 0.0625 / (100 * 8) },
    { "exponential", 1, { 2.5 }, { 0 }, 0.4, 0.16 },
    { "gamma", 2, { 3.0, 2.0 }, { 0 }, 1.5, 0.75 },
    { "inv_gamma", 2, { 6.0, 2.0 }, { 0 }, 0.4, 4.0 / (25 * 4) },
    { "weibull", 2, { 1.5, 2.0 }, { 0 }, 2 * gamma_fn (1 + 1 / 1.5),
      4 * (gamma_fn (1 + 2 / 1.5) - pow (gamma_fn (1 + 1 / 1.5), 2)) },
    { "frechet", 2, { 6.0, 2.0 }, { 0 }, 2 * gamma_fn (1 - 1 / 6.0),
      4 * (gamma_fn (1 - 2 / 6.0) - pow (gamma_fn (1 - 1 / 6.0), 2)) },
    { "rayleigh", 1, { 1.5 }, { 0 }, 1.5 * sqrt (M_PI / 2), (4 - M_PI) * 2.25 / 2 },
    { "pareto", 2, { 0.5, 6.0 }, { 0 }, 6 * 0.5 / 5, 0.25 * 6 / (25 * 4) },
    { "pareto_type_2", 3, { 1.0, 2.0, 6.0 }, { 0 }, 1 + 2.0 / 5, 4.0 * 6 / (25 * 4) },
    { "beta", 2, { 2.0, 3.0 }, { 0 }, 0.4, 6.0 / (25 * 6) },
    { "beta_proportion", 2, { 0.3, 8.0 }, { 0 }, 0.3, 0.21 / 9 },
    { "von_mises", 2, { 0.0, 2.0 }, { 0 }, NAN, NAN },
    { "uniform", 2, { -1.0, 3.0 }, { 0 }, 1.0, 16.0 / 12 },
    { "skew_normal", 3, { 1.0, 2.0, 2.5 }, { 0 }, 1 + 2 * d * sqrt (2 / M_PI),
      4 * (1 - 2 * d * d / M_PI) },
    { "exp_mod_normal", 3, { 1.0, 0.5, 2.0 }, { 0 }, 1.5, 0.25 + 0.25 },
    { "loglogistic", 2, { 1.5, 8.0 }, { 0 }, 1.5 * (M_PI / 8) / sin (M_PI / 8),
      2.25 * (2 * (M_PI / 8) / sin (2 * M_PI / 8) - pow ((M_PI / 8) / sin (M_PI / 8), 2)) },
    { "skew_double_exponential", 3, { 1.0, 2.0, 0.3 }, { 0 }, NAN, NAN },
    { "discrete_range", 2, { -2, 4 }, { TRUE, TRUE }, 1.0, (49 - 1) / 12.0, TRUE, -2 },
    { "beta_neg_binomial", 3, { 3.0, 6.0, 2.0 }, { 0 }, 3.0 * 2 / 5,
      3.0 * 2 * (3 + 6 - 1) * (2 + 6 - 1) / (4.0 * 25), TRUE, 0 },
    { "bernoulli", 1, { 0.3 }, { 0 }, 0.3, 0.21, TRUE, 0 },
    { "bernoulli_logit", 1, { -0.5 }, { 0 }, 1 / (1 + exp (0.5)),
      exp (0.5) / pow (1 + exp (0.5), 2), TRUE, 0 },
    { "binomial", 2, { 20, 0.3 }, { TRUE }, 6.0, 4.2, TRUE, 0 },
    { "binomial_logit", 2, { 20, 0.4 }, { TRUE }, 20 / (1 + exp (-0.4)),
      20 * exp (-0.4) / pow (1 + exp (-0.4), 2), TRUE, 0 },
    { "beta_binomial", 3, { 10, 2.0, 3.0 }, { TRUE }, 4.0, 10 * 6.0 * 15 / (25 * 6), TRUE, 0 },
    { "hypergeometric", 3, { 5, 7, 4 }, I3, 5 * 7 / 11.0, 5 * (7 / 11.0) * (4 / 11.0) * (6 / 10.0),
      TRUE, 0 },
    { "poisson", 1, { 4.5 }, { 0 }, 4.5, 4.5, TRUE, 0 },
    { "poisson_log", 1, { 1.2 }, { 0 }, exp (1.2), exp (1.2), TRUE, 0 },
    { "neg_binomial", 2, { 3.0, 0.5 }, { 0 }, 6.0, 3.0 / 0.25 * 1.5, TRUE, 0 },
    { "neg_binomial_2", 2, { 4.0, 2.5 }, { 0 }, 4.0, 4 + 16 / 2.5, TRUE, 0 },
    { "neg_binomial_2_log", 2, { 1.0, 2.5 }, { 0 }, exp (1.0), exp (1.0) + exp (2.0) / 2.5,
      TRUE, 0 },
  };
  Rig r = rig_new ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    run_univariate (&r, &cases[i]);
  rig_free (&r);
}

/* von Mises draws lie in [(mu mod 2 pi) - pi, (mu mod 2 pi) + pi]; the
 * distribution function is on [-pi, pi]. E cos (y - mu) = I1 (kappa) /
 * I0 (kappa), E cos^2 (y - mu) = (1 + I2 (kappa) / I0 (kappa)) / 2. */
static void
test_von_mises_wrapped (void)
{
  Rig r = rig_new ();
  TildeValue args[2] = { tilde_value_real (7.0), tilde_value_real (1.5) };
  double *x = g_new (double, N_DRAWS), *cs = g_new (double, N_DRAWS), c = fmod (7.0, 2 * M_PI);
  for (int i = 0; i < N_DRAWS; i++)
    {
      x[i] = draw_one (&r, "von_mises_rng", 2, args);
      g_assert_cmpfloat (fabs (x[i] - c), <=, M_PI);
      cs[i] = cos (x[i] - 7.0);
      x[i] = x[i] > M_PI ? x[i] - 2 * M_PI : x[i];
    }
  double i0 = gsl_sf_bessel_I0 (1.5), i1 = gsl_sf_bessel_I1 (1.5), i2 = gsl_sf_bessel_In (2, 1.5);
  double m1 = i1 / i0, m2 = 0.5 * (1 + i2 / i0);
  check_moments ("von_mises_rng", cs, N_DRAWS, m1, m2 - m1 * m1);
  g_free (cs);
  check_ks (&r, "von_mises_rng", "von_mises_cdf", x, N_DRAWS, 2, args);
  g_free (x);
  rig_free (&r);
}

/* ---- categories ---- */

static void
test_categorical (void)
{
  Rig r = rig_new ();
  double th[4] = { 0.1, 0.4, 0.2, 0.3 }, be[4] = { 0.5, -1.0, 2.0, 0.0 };
  TildeValue theta = vec (r.h, TILDE_VALUE_VECTOR, 4, 1, th);
  TildeValue beta = vec (r.h, TILDE_VALUE_VECTOR, 4, 1, be);
  double *x = g_new (double, N_DRAWS);
  for (int i = 0; i < N_DRAWS; i++)
    x[i] = draw_one (&r, "categorical_rng", 1, &theta);
  check_chi_square ("categorical_rng", x, N_DRAWS, 1, th, 4);
  double soft[4], p[4], s = 0;
  for (int k = 0; k < 4; k++)
    s += soft[k] = exp (be[k]);
  for (int k = 0; k < 4; k++)
    soft[k] /= s;
  for (int i = 0; i < N_DRAWS; i++)
    x[i] = draw_one (&r, "categorical_logit_rng", 1, &beta);
  check_chi_square ("categorical_logit_rng", x, N_DRAWS, 1, soft, 4);
  /* ordinal draws against the runtime's mass functions */
  double cuts[3] = { -1.0, 0.5, 2.0 };
  TildeValue c = vec (r.h, TILDE_VALUE_VECTOR, 3, 1, cuts);
  const char *names[2][2] = { { "ordered_logistic_rng", "ordered_logistic_lpmf" },
                              { "ordered_probit_rng", "ordered_probit_lpmf" } };
  for (int f = 0; f < 2; f++)
    {
      TildeValue a[3] = { tilde_value_int (0), tilde_value_real (0.3), c }, out;
      for (int k = 0; k < 4; k++)
        {
          a[0] = tilde_value_int (k + 1);
          g_assert_true (call (r.h, names[f][1], FALSE, 3, a, &out));
          p[k] = exp (out.u.r);
        }
      for (int i = 0; i < N_DRAWS; i++)
        x[i] = draw_one (&r, names[f][0], 2, a + 1);
      check_chi_square (names[f][0], x, N_DRAWS, 1, p, 4);
    }
  /* Poisson binomial counts against the runtime's mass function, whose
   * values the reference table checks */
  double pb[4] = { 0.2, 0.55, 0.7, 0.95 }, ppb[5];
  TildeValue pbt[2] = { tilde_value_int (0), vec (r.h, TILDE_VALUE_VECTOR, 4, 1, pb) };
  for (int k = 0; k <= 4; k++)
    {
      TildeValue out;
      pbt[0] = tilde_value_int (k);
      g_assert_true (call (r.h, "poisson_binomial_lpmf", FALSE, 2, pbt, &out));
      ppb[k] = exp (out.u.r);
    }
  for (int i = 0; i < N_DRAWS; i++)
    x[i] = draw_one (&r, "poisson_binomial_rng", 1, &pbt[1]);
  check_chi_square ("poisson_binomial_rng", x, N_DRAWS, 0, ppb, 5);
  /* multinomial counts: each component binomial (N, theta_k) */
  TildeValue m[2] = { theta, tilde_value_int (12) };
  int M = 5000;
  double *y = g_new (double, (gsize) (4 * M));
  for (int i = 0; i < M; i++)
    {
      TildeValue out;
      g_assert_true (call (r.h, "multinomial_rng", FALSE, 2, m, &out));
      int tot = 0;
      for (int k = 0; k < 4; k++)
        {
          y[k * M + i] = out.u.iv[k];
          tot += out.u.iv[k];
        }
      g_assert_cmpint (tot, ==, 12);
    }
  for (int k = 0; k < 4; k++)
    check_moments ("multinomial_rng", y + k * M, M, 12 * th[k], 12 * th[k] * (1 - th[k]));
  m[0] = beta;
  for (int i = 0; i < M; i++)
    {
      TildeValue out;
      g_assert_true (call (r.h, "multinomial_logit_rng", FALSE, 2, m, &out));
      for (int k = 0; k < 4; k++)
        y[k * M + i] = out.u.iv[k];
    }
  for (int k = 0; k < 4; k++)
    check_moments ("multinomial_logit_rng", y + k * M, M, 12 * soft[k], 12 * soft[k] * (1 - soft[k]));
  /* Dirichlet-multinomial counts: N a_k / a0 on average, overdispersed by
   * (N + a0) / (1 + a0) */
  double al[4] = { 0.5, 2.0, 1.0, 3.5 }, a0 = 7;
  TildeValue dm[2] = { vec (r.h, TILDE_VALUE_VECTOR, 4, 1, al), tilde_value_int (12) };
  for (int i = 0; i < M; i++)
    {
      TildeValue out;
      g_assert_true (call (r.h, "dirichlet_multinomial_rng", FALSE, 2, dm, &out));
      for (int k = 0; k < 4; k++)
        y[k * M + i] = out.u.iv[k];
    }
  for (int k = 0; k < 4; k++)
    {
      double q = al[k] / a0;
      check_moments ("dirichlet_multinomial_rng", y + k * M, M, 12 * q,
                     12 * q * (1 - q) * (12 + a0) / (1 + a0));
    }
  g_free (y);
  g_free (x);
  rig_free (&r);
}

/* ---- vectors and matrices ---- */

/* draws of a vector- or matrix-valued rng, as M columns of length L */
static double *
draw_many (Rig *r, const char *name, int n, const TildeValue *args, int M, int *L)
{
  double *y = NULL;
  for (int i = 0; i < M; i++)
    {
      TildeValue out;
      if (!call (r->h, name, FALSE, n, args, &out))
        g_error ("%s: %s", name, r->h->cx.err_msg);
      int len = tilde_value_flat_size (&out);
      if (!y)
        {
          *L = len;
          y = g_new (double, (gsize) (len * M));
        }
      for (int k = 0; k < len; k++)
        y[k * M + i] = out.u.d[k];
    }
  return y;
}

static double
sample_cov (const double *a, const double *b, int M)
{
  double ma = 0, mb = 0, c = 0;
  for (int i = 0; i < M; i++)
    {
      ma += a[i];
      mb += b[i];
    }
  ma /= M;
  mb /= M;
  for (int i = 0; i < M; i++)
    c += (a[i] - ma) * (b[i] - mb);
  return c / (M - 1);
}

static void
test_dirichlet (void)
{
  Rig r = rig_new ();
  double al[3] = { 0.5, 2.0, 4.5 }, a0 = 7;
  TildeValue alpha = vec (r.h, TILDE_VALUE_VECTOR, 3, 1, al);
  int L, M = N_DRAWS;
  double *y = draw_many (&r, "dirichlet_rng", 1, &alpha, M, &L);
  for (int k = 0; k < 3; k++)
    check_moments ("dirichlet_rng", y + k * M, M, al[k] / a0,
                   al[k] * (a0 - al[k]) / (a0 * a0 * (a0 + 1)));
  /* each component is Beta (alpha_k, alpha_0 - alpha_k) */
  TildeValue b[2] = { tilde_value_real (al[0]), tilde_value_real (a0 - al[0]) };
  check_ks (&r, "dirichlet_rng", "beta_cdf", y, M, 2, b);
  g_free (y);
  rig_free (&r);
}

static void
test_multi_normal (void)
{
  Rig r = rig_new ();
  double S[9] = { 2.0, 0.3, -0.4, 0.3, 1.5, 0.2, -0.4, 0.2, 1.1 }, mu[3] = { 0.1, 0.2, -0.3 };
  TildeValue Sigma = vec (r.h, TILDE_VALUE_MATRIX, 3, 3, S);
  TildeValue m = vec (r.h, TILDE_VALUE_VECTOR, 3, 1, mu), L;
  g_assert_true (call (r.h, "cholesky_decompose", FALSE, 1, &Sigma, &L));
  const char *names[4] = { "multi_normal_rng", "multi_normal_cholesky_rng", "multi_student_t_rng",
                           "multi_student_t_cholesky_rng" };
  int M = N_DRAWS;
  for (int f = 0; f < 4; f++)
    {
      double nu = 8, scale = f < 2 ? 1 : nu / (nu - 2);
      TildeValue a[3] = { tilde_value_real (nu), m, f % 2 ? L : Sigma };
      int len;
      double *y = draw_many (&r, names[f], f < 2 ? 2 : 3, f < 2 ? a + 1 : a, M, &len);
      g_assert_cmpint (len, ==, 3);
      for (int i = 0; i < 3; i++)
        {
          check_moments (names[f], y + i * M, M, mu[i], scale * S[i + 3 * i]);
          for (int j = 0; j < i; j++)
            {
              double c = sample_cov (y + i * M, y + j * M, M);
              double se = sqrt (scale * scale * (S[i + 3 * i] * S[j + 3 * j] + S[i + 3 * j] * S[i + 3 * j]) / M);
              if (!(fabs (c - scale * S[i + 3 * j]) <= 6 * se * (f < 2 ? 1 : 2)))
                g_error ("%s: covariance (%d, %d) %g, expected %g", names[f], i, j, c,
                         scale * S[i + 3 * j]);
            }
        }
      g_free (y);
    }
  /* an array of locations gives an array of draws */
  TildeValue locs = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_VECTOR, .rows = 2, .cols = 1 };
  TildeValue elems[2] = { m, m };
  locs.u.elems = elems;
  TildeValue a[2] = { locs, Sigma }, out;
  g_assert_true (call (r.h, "multi_normal_rng", FALSE, 2, a, &out));
  g_assert_cmpint (out.kind, ==, TILDE_VALUE_ARRAY);
  g_assert_cmpint (out.rows, ==, 2);
  g_assert_cmpint (out.u.elems[1].rows, ==, 3);
  rig_free (&r);
}

static void
test_lkj (void)
{
  Rig r = rig_new ();
  int K = 4, M = 8000;
  double eta = 1.7, b = eta - 1 + K / 2.0;
  TildeValue a[2] = { tilde_value_int (K), tilde_value_real (eta) };
  for (int f = 0; f < 2; f++)
    {
      int len;
      double *y = draw_many (&r, f ? "lkj_corr_cholesky_rng" : "lkj_corr_rng", 2, a, M, &len);
      g_assert_cmpint (len, ==, K * K);
      double *rho = g_new (double, M);
      for (int i = 0; i < M; i++)
        {
          /* the (3, 1) correlation, from L L' for the Cholesky form */
          double v = 0;
          if (f)
            for (int k = 0; k < K; k++)
              v += y[(2 + k * K) * M + i] * y[(0 + k * K) * M + i];
          else
            v = y[(2 + 0 * K) * M + i];
          rho[i] = 0.5 * (v + 1);
        }
      /* each correlation is 2 Beta (b, b) - 1 with b = eta - 1 + K / 2 */
      check_moments ("lkj_corr_rng", rho, M, 0.5, 1 / (4 * (2 * b + 1)));
      TildeValue bb[2] = { tilde_value_real (b), tilde_value_real (b) };
      check_ks (&r, "lkj_corr_rng", "beta_cdf", rho, M, 2, bb);
      g_free (rho);
      g_free (y);
    }
  rig_free (&r);
}

static void
test_wishart (void)
{
  Rig r = rig_new ();
  double S[4] = { 1.5, 0.4, 0.4, 0.8 };
  int K = 2, M = N_DRAWS;
  TildeValue Sv = vec (r.h, TILDE_VALUE_MATRIX, 2, 2, S), L;
  g_assert_true (call (r.h, "cholesky_decompose", FALSE, 1, &Sv, &L));
  double nu = 9;
  for (int f = 0; f < 4; f++)
    {
      static const char *const names[4] = { "wishart_rng", "wishart_cholesky_rng", "inv_wishart_rng",
                                             "inv_wishart_cholesky_rng" };
      gboolean inv = f >= 2, chol = f % 2;
      TildeValue a[2] = { tilde_value_real (nu), chol ? L : Sv };
      int len;
      double *y = draw_many (&r, names[f], 2, a, M, &len);
      if (chol)
        for (int i = 0; i < M; i++)
          {
            /* L L' from the factor's lower triangle */
            double l00 = y[0 * M + i], l10 = y[1 * M + i], l11 = y[3 * M + i];
            g_assert_cmpfloat (y[2 * M + i], ==, 0);
            y[0 * M + i] = l00 * l00;
            y[1 * M + i] = y[2 * M + i] = l10 * l00;
            y[3 * M + i] = l10 * l10 + l11 * l11;
          }
      for (int i = 0; i < K; i++)
        for (int j = 0; j <= i; j++)
          {
            double sij = S[i + K * j], sii = S[i + K * i], sjj = S[j + K * j], mean, var;
            if (!inv)
              {
                mean = nu * sij;
                var = nu * (sij * sij + sii * sjj);
              }
            else
              {
                double p = K;
                mean = sij / (nu - p - 1);
                var = ((nu - p + 1) * sij * sij + (nu - p - 1) * sii * sjj)
                  / ((nu - p) * (nu - p - 1) * (nu - p - 1) * (nu - p - 3));
              }
            check_moments (names[f], y + (i + K * j) * M, M, mean, var);
          }
      g_free (y);
    }
  rig_free (&r);
}

static void
test_glm (void)
{
  Rig r = rig_new ();
  double xv[6] = { 1, -1, 0.5, 0.2, 2, -1 }, bv[2] = { 0.7, -0.4 };
  TildeValue a[3] = { vec (r.h, TILDE_VALUE_MATRIX, 3, 2, xv), tilde_value_real (0.3),
                      vec (r.h, TILDE_VALUE_VECTOR, 2, 1, bv) };
  int M = N_DRAWS;
  double *y = g_new (double, (gsize) (3 * M));
  for (int i = 0; i < M; i++)
    {
      TildeValue out;
      g_assert_true (call (r.h, "bernoulli_logit_glm_rng", FALSE, 3, a, &out));
      for (int n = 0; n < 3; n++)
        y[n * M + i] = out.u.iv[n];
    }
  for (int n = 0; n < 3; n++)
    {
      double p = 1 / (1 + exp (-(0.3 + xv[n] * bv[0] + xv[n + 3] * bv[1])));
      check_moments ("bernoulli_logit_glm_rng", y + n * M, M, p, p * (1 - p));
    }
  g_free (y);
  rig_free (&r);
}

/* Containers of parameters give arrays of draws, one per element. */
static void
test_vectorised (void)
{
  Rig r = rig_new ();
  double mu[3] = { -100, 0, 100 };
  TildeValue a[2] = { vec (r.h, TILDE_VALUE_VECTOR, 3, 1, mu), tilde_value_real (0.01) }, out;
  g_assert_true (call (r.h, "gumbel_rng", FALSE, 2, a, &out));
  g_assert_cmpint (out.kind, ==, TILDE_VALUE_ARRAY);
  g_assert_cmpint (out.rows, ==, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (fabs (out.u.d[i] - mu[i]), <, 1);
  TildeValue b[3] = { a[0], tilde_value_real (1.0), tilde_value_real (2.0) };
  g_assert_true (call (r.h, "pareto_type_2_rng", FALSE, 3, b, &out));
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (out.u.d[i], >=, mu[i]);
  rig_free (&r);
}

static void
test_errors (void)
{
  Rig r = rig_new ();
  TildeValue a[3] = { tilde_value_real (1), tilde_value_real (-2), tilde_value_real (1) }, out;
  g_assert_false (call (r.h, "weibull_rng", FALSE, 2, a, &out));
  g_assert_cmpint (r.h->cx.err_kind, ==, TILDE_MODEL_ERROR_DOMAIN);
  g_assert_cmpstr (r.h->cx.err_msg, ==, "weibull_rng: Scale parameter is -2, but must be positive finite!");
  double bad[3] = { 0.5, 0.6, 0.1 };
  TildeValue th = vec (r.h, TILDE_VALUE_VECTOR, 3, 1, bad);
  g_assert_false (call (r.h, "categorical_rng", FALSE, 1, &th, &out));
  g_assert_cmpstr (r.h->cx.err_msg, ==, "categorical_rng: Probabilities parameter is not a valid "
                   "simplex. sum(Probabilities parameter) = 1.2, but should be 1");
  TildeValue w[2] = { tilde_value_real (-0.5), vec (r.h, TILDE_VALUE_MATRIX, 1, 1, (double[]) { 1 }) };
  g_assert_false (call (r.h, "wishart_rng", FALSE, 2, w, &out));
  g_assert_cmpstr (r.h->cx.err_msg, ==, "wishart_rng: Degrees of freedom parameter is -0.5, but must "
                   "be greater than 0!");
  /* no generator outside generated quantities */
  r.h->cx.rng = NULL;
  g_assert_false (call (r.h, "normal_rng", FALSE, 2, a, &out));
  g_assert_cmpint (r.h->cx.err_kind, ==, TILDE_MODEL_ERROR_FATAL);
  rig_free (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/rng/univariate", test_univariate);
  g_test_add_func ("/runtime/rng/von-mises-wrapped", test_von_mises_wrapped);
  g_test_add_func ("/runtime/rng/categories", test_categorical);
  g_test_add_func ("/runtime/rng/dirichlet", test_dirichlet);
  g_test_add_func ("/runtime/rng/multi-normal", test_multi_normal);
  g_test_add_func ("/runtime/rng/lkj", test_lkj);
  g_test_add_func ("/runtime/rng/wishart", test_wishart);
  g_test_add_func ("/runtime/rng/glm", test_glm);
  g_test_add_func ("/runtime/rng/vectorised", test_vectorised);
  g_test_add_func ("/runtime/rng/errors", test_errors);
  return g_test_run ();
}
