/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pseudo-random draws for generated quantities (the _rng functions),
 * vectorised like Stan's: a container argument gives an array of draws.
 * Draws use the GSL generator the caller hands to the evaluation.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <gsl/gsl_randist.h>

typedef double (*Draw) (RtCtx *cx, const double *x);

static void
need_rng (RtCtx *cx)
{
  if (!cx->rng)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: random numbers are only available in "
              "transformed data and generated quantities", cx->fn_name);
}

/* Draws one value per element of the container arguments (scalar result
 * when all are scalars). */
static void
draw (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out, Draw f, gboolean integer)
{
  need_rng (cx);
  const double *x[4];
  gint32 n = 1;
  gboolean vec = FALSE;
  int stride[4];
  for (int k = 0; k < nargs; k++)
    {
      x[k] = rt_values (cx, &args[k]);
      stride[k] = 0;
      if (!tilde_value_kind_is_scalar ((TildeValueKind) args[k].kind))
        {
          gint32 m = tilde_value_flat_size (&args[k]);
          if (vec && m != n)
            rt_check_size (cx, "arguments", m, n);
          n = m;
          vec = TRUE;
          stride[k] = 1;
        }
    }
  double xi[4];
  if (!vec)
    {
      for (int k = 0; k < nargs; k++)
        xi[k] = x[k][0];
      double d = f (cx, xi);
      *out = integer ? tilde_value_int ((int) d) : tilde_value_real (d);
      return;
    }
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = integer ? TILDE_VALUE_INT : TILDE_VALUE_REAL,
                   .rows = n, .cols = 1 };
  if (integer)
    r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (n, 1));
  else
    r.u.d = rt_alloc_d (cx, (gsize) n);
  for (gint32 i = 0; i < n; i++)
    {
      for (int k = 0; k < nargs; k++)
        xi[k] = x[k][i * stride[k]];
      double d = f (cx, xi);
      if (integer)
        r.u.iv[i] = (int) d;
      else
        r.u.d[i] = d;
    }
  *out = r;
}

static void
check (RtCtx *cx, gboolean ok, const char *what, double x, const char *must)
{
  if (!ok)
    rt_domain_error (cx, what, x, must);
}

static double
d_normal (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return x[0] + gsl_ran_gaussian_ziggurat (cx->rng, x[1]);
}

static double
d_std_normal (RtCtx *cx, const double *x)
{
  return gsl_ran_gaussian_ziggurat (cx->rng, 1.0);
}

static double
d_cauchy (RtCtx *cx, const double *x)
{
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return x[0] + gsl_ran_cauchy (cx->rng, x[1]);
}

static double
d_student_t (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Degrees of freedom parameter", x[0], "positive finite");
  check (cx, x[2] > 0 && isfinite (x[2]), "Scale parameter", x[2], "positive finite");
  return x[1] + x[2] * gsl_ran_tdist (cx->rng, x[0]);
}

static double
d_exponential (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Inverse scale parameter", x[0], "positive finite");
  return gsl_ran_exponential (cx->rng, 1 / x[0]);
}

static double
d_gamma (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Shape parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Inverse scale parameter", x[1], "positive finite");
  return gsl_ran_gamma (cx->rng, x[0], 1 / x[1]);
}

static double
d_inv_gamma (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Shape parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return 1 / gsl_ran_gamma (cx->rng, x[0], 1 / x[1]);
}

static double
d_lognormal (RtCtx *cx, const double *x)
{
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return gsl_ran_lognormal (cx->rng, x[0], x[1]);
}

static double
d_beta (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "First shape parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Second shape parameter", x[1], "positive finite");
  return gsl_ran_beta (cx->rng, x[0], x[1]);
}

static double
d_uniform (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Lower bound parameter", x[0], "finite");
  check (cx, isfinite (x[1]), "Upper bound parameter", x[1], "finite");
  if (!(x[1] > x[0]))
    {
      char must[64];
      g_snprintf (must, sizeof must, "greater than %g", x[0]);
      rt_domain_error (cx, "Upper bound parameter", x[1], must);
    }
  return x[0] + (x[1] - x[0]) * gsl_rng_uniform (cx->rng);
}

static double
d_bernoulli (RtCtx *cx, const double *x)
{
  check (cx, x[0] >= 0 && x[0] <= 1, "Probability parameter", x[0], "in the interval [0, 1]");
  return gsl_rng_uniform (cx->rng) < x[0];
}

static double
d_bernoulli_logit (RtCtx *cx, const double *x)
{
  check (cx, !isnan (x[0]), "Logit transformed probability parameter", x[0], "not nan");
  return gsl_rng_uniform (cx->rng) < tilde_inv_logit (x[0]);
}

static double
d_binomial (RtCtx *cx, const double *x)
{
  check (cx, x[0] >= 0, "Population size parameter", x[0], "nonnegative");
  check (cx, x[1] >= 0 && x[1] <= 1, "Probability parameter", x[1], "in the interval [0, 1]");
  return gsl_ran_binomial (cx->rng, x[1], (unsigned) x[0]);
}

static double
d_binomial_logit (RtCtx *cx, const double *x)
{
  check (cx, x[0] >= 0, "Population size parameter", x[0], "nonnegative");
  return gsl_ran_binomial (cx->rng, tilde_inv_logit (x[1]), (unsigned) x[0]);
}

static double
poisson_checked (RtCtx *cx, double lambda)
{
  check (cx, lambda >= 0 && lambda < 1073741824.0, "Rate parameter", lambda,
         "nonnegative and less than 2^30");
  return gsl_ran_poisson (cx->rng, lambda);
}

static double
d_poisson (RtCtx *cx, const double *x)
{
  return poisson_checked (cx, x[0]);
}

static double
d_poisson_log (RtCtx *cx, const double *x)
{
  return poisson_checked (cx, exp (x[0]));
}

static double
d_neg_binomial_2 (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Location parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Precision parameter", x[1], "positive finite");
  return poisson_checked (cx, gsl_ran_gamma (cx->rng, x[1], x[0] / x[1]));
}

static double
d_neg_binomial_2_log (RtCtx *cx, const double *x)
{
  double mu = exp (x[0]);
  check (cx, isfinite (mu), "Log location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Precision parameter", x[1], "positive finite");
  return poisson_checked (cx, gsl_ran_gamma (cx->rng, x[1], mu / x[1]));
}

static double
d_double_exponential (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return x[0] + gsl_ran_laplace (cx->rng, x[1]);
}

static double
d_logistic (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return x[0] + gsl_ran_logistic (cx->rng, x[1]);
}

static double
d_gumbel (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return x[0] - x[1] * log (-log (gsl_rng_uniform_pos (cx->rng)));
}

static double
check_dof (RtCtx *cx, double nu)
{
  check (cx, nu > 0 && isfinite (nu), "Degrees of freedom parameter", nu, "positive finite");
  return nu;
}

static double
d_chi_square (RtCtx *cx, const double *x)
{
  return gsl_ran_chisq (cx->rng, check_dof (cx, x[0]));
}

static double
d_inv_chi_square (RtCtx *cx, const double *x)
{
  return 1 / gsl_ran_chisq (cx->rng, check_dof (cx, x[0]));
}

static double
d_scaled_inv_chi_square (RtCtx *cx, const double *x)
{
  double nu = check_dof (cx, x[0]);
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  return nu * x[1] * x[1] / gsl_ran_chisq (cx->rng, nu);
}

static void
check_shape_scale (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Shape parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
}

static double
d_weibull (RtCtx *cx, const double *x)
{
  check_shape_scale (cx, x);
  return gsl_ran_weibull (cx->rng, x[1], x[0]);
}

static double
d_frechet (RtCtx *cx, const double *x)
{
  check_shape_scale (cx, x);
  return x[1] * pow (-log (gsl_rng_uniform_pos (cx->rng)), -1 / x[0]);
}

static double
d_rayleigh (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Scale parameter", x[0], "positive finite");
  return gsl_ran_rayleigh (cx->rng, x[0]);
}

static double
d_pareto (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Scale parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Shape parameter", x[1], "positive finite");
  return gsl_ran_pareto (cx->rng, x[1], x[0]);
}

static double
d_pareto_type_2 (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  check (cx, x[2] > 0 && isfinite (x[2]), "Shape parameter", x[2], "positive finite");
  /* by inversion: Q (y) = (1 + (y - mu) / lambda)^-alpha */
  return x[0] + x[1] * expm1 (-log (gsl_rng_uniform_pos (cx->rng)) / x[2]);
}

static double
d_beta_proportion (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0, "Location parameter", x[0], "positive");
  check (cx, x[0] < 1, "Location parameter", x[0], "less than 1");
  check (cx, x[1] > 0 && isfinite (x[1]), "Precision parameter", x[1], "positive finite");
  return gsl_ran_beta (cx->rng, x[0] * x[1], (1 - x[0]) * x[1]);
}

/* von Mises about 0 by Best and Fisher's (1979) rejection method */
static double
von_mises_centred (gsl_rng *r, double kappa)
{
  if (kappa < 1e-8)
    return M_PI * (2 * gsl_rng_uniform (r) - 1);
  double tau = 1 + sqrt (1 + 4 * kappa * kappa);
  double rho = (tau - sqrt (2 * tau)) / (2 * kappa);
  double s = (1 + rho * rho) / (2 * rho);
  for (;;)
    {
      double u1 = gsl_rng_uniform (r), u2 = gsl_rng_uniform (r);
      double z = cos (M_PI * u1), w = (1 + s * z) / (s + z), c = kappa * (s - w);
      if (c * (2 - c) - u2 > 0 || log (c / u2) + 1 - c >= 0)
        {
          double w1 = fmin (fmax (w, -1), 1);
          return gsl_rng_uniform (r) > 0.5 ? acos (w1) : -acos (w1);
        }
    }
}

static double
d_von_mises (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] >= 0, "Scale parameter", x[1], "nonnegative");
  check (cx, isfinite (x[1]), "Scale parameter", x[1], "finite");
  /* values in [(mu mod 2 pi) - pi, (mu mod 2 pi) + pi] */
  return fmod (x[0], 2 * M_PI) + von_mises_centred (cx->rng, x[1]);
}

static double
d_skew_normal (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  check (cx, isfinite (x[2]), "Shape parameter", x[2], "finite");
  /* |u0| selects the sign of a normal correlated with it by delta */
  double delta = x[2] / sqrt (1 + x[2] * x[2]);
  double u0 = gsl_ran_gaussian_ziggurat (cx->rng, 1.0), v = gsl_ran_gaussian_ziggurat (cx->rng, 1.0);
  double u1 = delta * u0 + sqrt (1 - delta * delta) * v;
  return x[0] + x[1] * (u0 >= 0 ? u1 : -u1);
}

static double
d_exp_mod_normal (RtCtx *cx, const double *x)
{
  check (cx, isfinite (x[0]), "Location parameter", x[0], "finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Scale parameter", x[1], "positive finite");
  check (cx, x[2] > 0 && isfinite (x[2]), "Inv_scale parameter", x[2], "positive finite");
  return x[0] + gsl_ran_gaussian_ziggurat (cx->rng, x[1]) + gsl_ran_exponential (cx->rng, 1 / x[2]);
}

static double
d_neg_binomial (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Shape parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Inverse scale parameter", x[1], "positive finite");
  return poisson_checked (cx, gsl_ran_gamma (cx->rng, x[0], 1 / x[1]));
}

static double
d_beta_binomial (RtCtx *cx, const double *x)
{
  check (cx, x[0] >= 0, "Population size parameter", x[0], "nonnegative");
  check (cx, x[1] > 0 && isfinite (x[1]), "First prior sample size parameter", x[1],
         "positive finite");
  check (cx, x[2] > 0 && isfinite (x[2]), "Second prior sample size parameter", x[2],
         "positive finite");
  return gsl_ran_binomial (cx->rng, gsl_ran_beta (cx->rng, x[1], x[2]), (unsigned) x[0]);
}

static double
d_hypergeometric (RtCtx *cx, const double *x)
{
  double N = x[0], a = x[1], b = x[2];
  check (cx, N >= 0 && N <= a + b, "Draws parameter", N, "in the interval [0, a + b]");
  check (cx, a >= 0, "Successes in population parameter", a, "nonnegative");
  check (cx, b >= 0, "Failures in population parameter", b, "nonnegative");
  return gsl_ran_hypergeometric (cx->rng, (unsigned) a, (unsigned) b, (unsigned) N);
}

static double
d_loglogistic (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Scale parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Shape parameter", x[1], "positive finite");
  double u = gsl_rng_uniform_pos (cx->rng);
  return x[0] * pow (u / (1 - u), 1 / x[1]);
}

static double
d_skew_double_exponential (RtCtx *cx, const double *x)
{
  double mu = x[0], s = x[1], t = x[2];
  check (cx, isfinite (mu), "Location parameter", mu, "finite");
  check (cx, s > 0 && isfinite (s), "Scale parameter", s, "positive finite");
  check (cx, t >= 0 && t <= 1, "Skewness parameter", t, "in the interval [0, 1]");
  /* by inversion of its distribution function */
  double u = gsl_rng_uniform_pos (cx->rng);
  return u < t ? mu + s / (2 * (1 - t)) * log (u / t) : mu - s / (2 * t) * log ((1 - u) / (1 - t));
}

static double
d_discrete_range (RtCtx *cx, const double *x)
{
  if (!(x[1] >= x[0]))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Upper bound parameter is %g, but must be "
              "greater than or equal to %g!", cx->fn_name, x[1], x[0]);
  return x[0] + (double) gsl_rng_uniform_int (cx->rng, (unsigned long) (x[1] - x[0] + 1));
}

static double
d_beta_neg_binomial (RtCtx *cx, const double *x)
{
  check (cx, x[0] > 0 && isfinite (x[0]), "Number of successes parameter", x[0], "positive finite");
  check (cx, x[1] > 0 && isfinite (x[1]), "Prior success parameter", x[1], "positive finite");
  check (cx, x[2] > 0 && isfinite (x[2]), "Prior failure parameter", x[2], "positive finite");
  /* failures before r successes, the success probability Beta (alpha, beta) */
  double p = gsl_ran_beta (cx->rng, x[1], x[2]);
  double n = gsl_ran_negative_binomial (cx->rng, p, x[0]);
  check (cx, n < G_MAXINT, "Draw", n, "less than the largest int");
  return n;
}

#define RNG(name, n, integer)                                                    \
  static void k_##name (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out) \
  {                                                                            \
    draw (cx, nargs, a, out, d_##name, integer);                               \
  }
RNG (normal, 2, FALSE)
RNG (std_normal, 0, FALSE)
RNG (cauchy, 2, FALSE)
RNG (student_t, 3, FALSE)
RNG (exponential, 1, FALSE)
RNG (gamma, 2, FALSE)
RNG (inv_gamma, 2, FALSE)
RNG (lognormal, 2, FALSE)
RNG (beta, 2, FALSE)
RNG (uniform, 2, FALSE)
RNG (bernoulli, 1, TRUE)
RNG (bernoulli_logit, 1, TRUE)
RNG (binomial, 2, TRUE)
RNG (binomial_logit, 2, TRUE)
RNG (poisson, 1, TRUE)
RNG (poisson_log, 1, TRUE)
RNG (neg_binomial_2, 2, TRUE)
RNG (neg_binomial_2_log, 2, TRUE)
RNG (double_exponential, 2, FALSE)
RNG (logistic, 2, FALSE)
RNG (gumbel, 2, FALSE)
RNG (chi_square, 1, FALSE)
RNG (inv_chi_square, 1, FALSE)
RNG (scaled_inv_chi_square, 2, FALSE)
RNG (weibull, 2, FALSE)
RNG (frechet, 2, FALSE)
RNG (rayleigh, 1, FALSE)
RNG (pareto, 2, FALSE)
RNG (pareto_type_2, 3, FALSE)
RNG (beta_proportion, 2, FALSE)
RNG (von_mises, 2, FALSE)
RNG (skew_normal, 3, FALSE)
RNG (exp_mod_normal, 3, FALSE)
RNG (neg_binomial, 2, TRUE)
RNG (beta_binomial, 3, TRUE)
RNG (hypergeometric, 3, TRUE)
RNG (loglogistic, 2, FALSE)
RNG (skew_double_exponential, 3, FALSE)
RNG (discrete_range, 2, TRUE)
RNG (beta_neg_binomial, 3, TRUE)

#define E(name, n) { #name "_rng", k_##name, n, n }

const RtBuiltin rt_builtins_rng[] = {
  E (normal, 2), E (std_normal, 0), E (cauchy, 2), E (student_t, 3), E (exponential, 1),
  E (gamma, 2), E (inv_gamma, 2), E (lognormal, 2), E (beta, 2), E (uniform, 2),
  E (bernoulli, 1), E (bernoulli_logit, 1), E (binomial, 2), E (binomial_logit, 2),
  E (poisson, 1), E (poisson_log, 1), E (neg_binomial_2, 2), E (neg_binomial_2_log, 2),
  E (double_exponential, 2), E (logistic, 2), E (gumbel, 2), E (chi_square, 1),
  E (inv_chi_square, 1), E (scaled_inv_chi_square, 2), E (weibull, 2), E (frechet, 2),
  E (rayleigh, 1), E (pareto, 2), E (pareto_type_2, 3), E (beta_proportion, 2),
  E (von_mises, 2), E (skew_normal, 3), E (exp_mod_normal, 3), E (neg_binomial, 2),
  E (beta_binomial, 3), E (hypergeometric, 3), E (loglogistic, 2), E (skew_double_exponential, 3),
  E (discrete_range, 2), E (beta_neg_binomial, 3),
  { NULL, NULL, 0, 0 },
};
