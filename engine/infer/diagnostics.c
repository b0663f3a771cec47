/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/diagnostics.h"
#include "infer/radix-sort.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

/* Draws of one quantity, chain-major, owned. */
typedef struct {
  double *x;
  gsize   n_chains;
  gsize   n_draws;
} Chains;

static void
chains_clear (Chains *c)
{
  g_clear_pointer (&c->x, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Chains, chains_clear)

static gsize
chains_size (const Chains *c)
{
  return c->n_chains * c->n_draws;
}

static gboolean
any_nan (const double *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (isnan (x[i]))
      return TRUE;
  return FALSE;
}

static gboolean
all_finite (const double *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (x[i]))
      return FALSE;
  return TRUE;
}

static gboolean
all_equal (const double *x, gsize n)
{
  for (gsize i = 1; i < n; i++)
    if (x[i] != x[0])
      return FALSE;
  return TRUE;
}

/* posterior's is_constant(): the range is below machine epsilon. */
static gboolean
is_constant (const double *x, gsize n)
{
  double lo = INFINITY, hi = -INFINITY;

  for (gsize i = 0; i < n; i++)
    {
      lo = MIN (lo, x[i]);
      hi = MAX (hi, x[i]);
    }
  return n == 0 || fabs (hi - lo) < DBL_EPSILON;
}

/* posterior's should_return_NA(). */
static gboolean
cannot_assess (const double *x, gsize n)
{
  return !all_finite (x, n) || is_constant (x, n);
}

/* Each chain cut in two halves; with an odd count the middle draw goes. */
static Chains
split_chains (const double *draws, gsize n_chains, gsize n_draws)
{
  Chains out;
  gsize half = n_draws / 2;

  if (n_draws < 2)
    {
      out.n_chains = n_chains;
      out.n_draws = n_draws;
      out.x = g_new0 (double, MAX (n_chains * n_draws, 1));
      if (n_chains * n_draws > 0)
        memcpy (out.x, draws, sizeof (double) * n_chains * n_draws);
      return out;
    }
  out.n_chains = 2 * n_chains;
  out.n_draws = half;
  out.x = g_new (double, out.n_chains * half);
  for (gsize c = 0; c < n_chains; c++)
    {
      const double *chain = draws + c * n_draws;

      memcpy (out.x + (2 * c) * half, chain, sizeof (double) * half);
      memcpy (out.x + (2 * c + 1) * half, chain + (n_draws - half), sizeof (double) * half);
    }
  return out;
}

/* Replaces x (no NaN) by normal scores of its ranks, ties sharing their
 * average rank, with Blom's offset: qnorm((r - 3/8) / (S + 1/4)). */
static void
rank_normalise (double *x, gsize n)
{
  g_autofree double *ranks = g_new (double, MAX (n, 1));

  tilde_average_ranks (x, n, ranks);
  for (gsize k = 0; k < n; k++)
    x[k] = gsl_cdf_ugaussian_Pinv ((ranks[k] - 0.375) / ((double) n + 0.25));
}

/* As R's mean(): an extended-precision sum, then a second pass over the
 * residuals, so that identical draws have exactly their value as mean and
 * no spurious spread. */
double
tilde_draws_mean (const double *draws, gsize n)
{
  long double sum = 0, residual = 0, mean;

  if (n == 0)
    return NAN;
  for (gsize i = 0; i < n; i++)
    sum += draws[i];
  mean = sum / (long double) n;
  if (!isfinite ((double) mean))
    return (double) mean;
  for (gsize i = 0; i < n; i++)
    residual += draws[i] - mean;
  return (double) (mean + residual / (long double) n);
}

static double
sample_variance (const double *x, gsize n)
{
  long double ss = 0;
  double mean;

  if (n < 2)
    return NAN;
  mean = tilde_draws_mean (x, n);
  for (gsize i = 0; i < n; i++)
    ss += ((long double) x[i] - mean) * ((long double) x[i] - mean);
  return (double) (ss / (long double) (n - 1));
}

double
tilde_draws_sd (const double *draws, gsize n)
{
  return sqrt (sample_variance (draws, n));
}

/* The smallest 2^a 3^b 5^c at least n: FFT lengths GSL transforms fast. */
static gsize
fft_good_size (gsize n)
{
  if (n <= 2)
    return 2;
  for (;; n++)
    {
      gsize m = n;

      while (m % 2 == 0)
        m /= 2;
      while (m % 3 == 0)
        m /= 3;
      while (m % 5 == 0)
        m /= 5;
      if (m == 1)
        return n;
    }
}

/* GSL's tables for real transforms of one length, kept for all the chains
 * of a quantity. */
typedef struct {
  gsize                          len;
  double                        *y;
  gsl_fft_real_wavetable        *forward;
  gsl_fft_halfcomplex_wavetable *inverse;
  gsl_fft_real_workspace        *work;
} Fft;

/* For series of N draws: zero padding to twice a fast length keeps the
 * circular correlation from wrapping around. */
static void
fft_init (Fft *f, gsize n)
{
  f->len = 2 * fft_good_size (n);
  f->y = g_new (double, f->len);
  f->forward = gsl_fft_real_wavetable_alloc (f->len);
  f->inverse = gsl_fft_halfcomplex_wavetable_alloc (f->len);
  f->work = gsl_fft_real_workspace_alloc (f->len);
}

static void
fft_clear (Fft *f)
{
  gsl_fft_real_workspace_free (f->work);
  gsl_fft_halfcomplex_wavetable_free (f->inverse);
  gsl_fft_real_wavetable_free (f->forward);
  g_free (f->y);
}

static void
autocovariance_by (Fft *f, const double *x, gsize n, double *acov)
{
  double mean = tilde_draws_mean (x, n);
  double *y = f->y;
  gsize len = f->len;

  for (gsize i = 0; i < len; i++)
    y[i] = i < n ? x[i] - mean : 0;
  gsl_fft_real_transform (y, 1, len, f->forward, f->work);
  /* |Y_k|^2 in GSL's half-complex layout: re at 2k-1, im at 2k, and the
   * real Nyquist term last (len is even) */
  y[0] = y[0] * y[0];
  for (gsize k = 1; 2 * k < len; k++)
    {
      double re = y[2 * k - 1], im = y[2 * k];

      y[2 * k - 1] = re * re + im * im;
      y[2 * k] = 0;
    }
  y[len - 1] = y[len - 1] * y[len - 1];
  gsl_fft_halfcomplex_inverse (y, 1, len, f->inverse, f->work);
  for (gsize t = 0; t < n; t++)
    acov[t] = y[t] / (double) n;
}

void
tilde_autocovariance (const double *x, gsize n, double *acov)
{
  Fft f;

  if (n == 0)
    return;
  fft_init (&f, n);
  autocovariance_by (&f, x, n, acov);
  fft_clear (&f);
}

/* posterior's .rhat(): the potential scale reduction of (split) chains. */
static double
rhat_of (const Chains *c)
{
  gsize C = c->n_chains, N = c->n_draws;
  g_autofree double *means = NULL;
  double within = 0, between;

  if (cannot_assess (c->x, chains_size (c)) || N < 2 || C < 2)
    return NAN;
  means = g_new (double, C);
  for (gsize k = 0; k < C; k++)
    {
      means[k] = tilde_draws_mean (c->x + k * N, N);
      within += sample_variance (c->x + k * N, N);
    }
  within /= (double) C;
  between = (double) N * sample_variance (means, C);
  return sqrt ((between / within + (double) N - 1) / (double) N);
}

/* Geyer's initial monotone sequence estimate of the autocorrelation time
 * from the mean autocovariances of the chains, as posterior's .ess() does
 * it (including its "improved" last even term). */
static double
integrated_time (const double *acov_means, gsize N, double mean_var, double var_plus)
{
  g_autofree double *rho = g_new0 (double, N);
  double rho_even = 1, rho_odd, sum;
  gssize t = 0, max_t;

  rho[0] = rho_even;
  rho_odd = 1 - (mean_var - acov_means[1]) / var_plus;
  rho[1] = rho_odd;
  while (t < (gssize) N - 5 && !isnan (rho_even + rho_odd) && rho_even + rho_odd > 0)
    {
      t += 2;
      rho_even = 1 - (mean_var - acov_means[t]) / var_plus;
      rho_odd = 1 - (mean_var - acov_means[t + 1]) / var_plus;
      if (rho_even + rho_odd >= 0)
        {
          rho[t] = rho_even;
          rho[t + 1] = rho_odd;
        }
    }
  max_t = t;
  if (rho_even > 0)
    rho[max_t] = rho_even;

  for (t = 2; t <= max_t - 2; t += 2)
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1])
      {
        rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
        rho[t + 1] = rho[t];
      }

  /* posterior sums rho_hat_t[1:max_t], which in R is the first term alone
   * when max_t is 0 */
  sum = 0;
  for (t = 0; t < MAX (max_t, 1); t++)
    sum += rho[t];
  return -1 + 2 * sum + rho[max_t];
}

/* posterior's .ess(): the effective sample size of (split) chains. */
static double
ess_of (const Chains *c)
{
  gsize C = c->n_chains, N = c->n_draws;
  g_autofree double *acov = NULL;
  g_autofree double *acov_means = NULL;
  g_autofree double *means = NULL;
  double mean_var, var_plus, tau, tau_bound, total;
  Fft fft;

  if (N < 3 || cannot_assess (c->x, chains_size (c)))
    return NAN;
  fft_init (&fft, N);
  acov = g_new (double, N);
  acov_means = g_new0 (double, N);
  means = g_new (double, C);
  for (gsize k = 0; k < C; k++)
    {
      const double *chain = c->x + k * N;

      means[k] = tilde_draws_mean (chain, N);
      /* a constant chain has no autocovariance at all */
      if (all_equal (chain, N))
        memset (acov, 0, sizeof (double) * N);
      else
        autocovariance_by (&fft, chain, N, acov);
      for (gsize t = 0; t < N; t++)
        acov_means[t] += acov[t] / (double) C;
    }
  fft_clear (&fft);
  mean_var = acov_means[0] * (double) N / (double) (N - 1);
  var_plus = mean_var * (double) (N - 1) / (double) N;
  if (C > 1)
    var_plus += sample_variance (means, C);

  tau = integrated_time (acov_means, N, mean_var, var_plus);
  total = (double) (C * N);
  /* no more than total * log10(total), as posterior caps it */
  tau_bound = 1 / log10 (total);
  return total / MAX (tau, tau_bound);
}

double
tilde_rhat_bulk (const double *draws, gsize n_chains, gsize n_draws)
{
  g_auto (Chains) split = split_chains (draws, n_chains, n_draws);

  if (any_nan (draws, n_chains * n_draws) || n_chains * n_draws == 0)
    return NAN;
  rank_normalise (split.x, chains_size (&split));
  return rhat_of (&split);
}

double
tilde_rhat_tail (const double *draws, gsize n_chains, gsize n_draws)
{
  gsize n = n_chains * n_draws;
  g_autofree double *folded = NULL;
  double median;

  if (n == 0 || any_nan (draws, n))
    return NAN;
  median = tilde_draws_quantile (draws, n, 0.5);
  folded = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    folded[i] = fabs (draws[i] - median);
  /* an infinite median leaves inf - inf = NaN behind */
  return tilde_rhat_bulk (folded, n_chains, n_draws);
}

double
tilde_rhat (const double *draws, gsize n_chains, gsize n_draws)
{
  double bulk = tilde_rhat_bulk (draws, n_chains, n_draws);
  double tail = tilde_rhat_tail (draws, n_chains, n_draws);

  /* R's max() is NA as soon as either is */
  if (isnan (bulk) || isnan (tail))
    return NAN;
  return MAX (bulk, tail);
}

double
tilde_ess_bulk (const double *draws, gsize n_chains, gsize n_draws)
{
  g_auto (Chains) split = split_chains (draws, n_chains, n_draws);

  if (n_chains * n_draws == 0 || any_nan (draws, n_chains * n_draws))
    return NAN;
  rank_normalise (split.x, chains_size (&split));
  return ess_of (&split);
}

double
tilde_ess_mean (const double *draws, gsize n_chains, gsize n_draws)
{
  g_auto (Chains) split = split_chains (draws, n_chains, n_draws);

  return ess_of (&split);
}

double
tilde_ess_quantile (const double *draws, gsize n_chains, gsize n_draws, double prob)
{
  gsize n = n_chains * n_draws;
  g_autofree double *indicator = NULL;
  double q;

  if (n == 0 || cannot_assess (draws, n) || !(prob >= 0 && prob <= 1))
    return NAN;
  /* the maximum is not a quantile the indicator can vary around */
  if (prob == 1)
    prob = ((double) n - 0.5) / (double) n;
  q = tilde_draws_quantile (draws, n, prob);
  indicator = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    indicator[i] = draws[i] <= q ? 1.0 : 0.0;
  return tilde_ess_mean (indicator, n_chains, n_draws);
}

double
tilde_ess_tail (const double *draws, gsize n_chains, gsize n_draws)
{
  double lower = tilde_ess_quantile (draws, n_chains, n_draws, 0.05);
  double upper = tilde_ess_quantile (draws, n_chains, n_draws, 0.95);

  if (isnan (lower) || isnan (upper))
    return NAN;
  return MIN (lower, upper);
}

double
tilde_mcse_mean (const double *draws, gsize n_chains, gsize n_draws)
{
  gsize n = n_chains * n_draws;

  return tilde_draws_sd (draws, n) / sqrt (tilde_ess_mean (draws, n_chains, n_draws));
}

double
tilde_mcse_sd (const double *draws, gsize n_chains, gsize n_draws)
{
  gsize n = n_chains * n_draws;
  g_autofree double *squared = NULL;
  double mean, m2 = 0, m4 = 0, ess, varvar;

  if (n == 0)
    return NAN;
  mean = tilde_draws_mean (draws, n);
  squared = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      double d = draws[i] - mean;

      squared[i] = d * d;
      m2 += d * d;
      m4 += d * d * d * d;
    }
  m2 /= (double) n;
  m4 /= (double) n;
  ess = tilde_ess_mean (squared, n_chains, n_draws);
  varvar = (m4 - m2 * m2) / ess;
  return sqrt (varvar / m2 / 4);
}

static double
sorted_quantile (const double *sorted, gsize n, double prob)
{
  double h = (double) (n - 1) * prob;
  gsize lo = (gsize) floor (h), hi = (gsize) ceil (h);

  /* as R does: no interpolation towards an equal neighbour, so an
   * infinite draw does not turn 0 * inf into NaN */
  if (h > (double) lo && sorted[hi] != sorted[lo])
    return (1 - (h - (double) lo)) * sorted[lo] + (h - (double) lo) * sorted[hi];
  return sorted[lo];
}

void
tilde_draws_quantiles (const double *draws, gsize n,
                       const double *probs, gsize n_probs, double *out)
{
  g_autofree double *sorted = NULL;

  if (n == 0 || any_nan (draws, n))
    {
      for (gsize k = 0; k < n_probs; k++)
        out[k] = NAN;
      return;
    }
  sorted = g_new (double, n);
  tilde_sort_doubles (draws, n, sorted);
  for (gsize k = 0; k < n_probs; k++)
    out[k] = probs[k] >= 0 && probs[k] <= 1 ? sorted_quantile (sorted, n, probs[k]) : NAN;
}

double
tilde_draws_quantile (const double *draws, gsize n, double prob)
{
  double q;

  tilde_draws_quantiles (draws, n, &prob, 1, &q);
  return q;
}

double
tilde_ebfmi (const double *energy, gsize n_draws)
{
  double num = 0;

  if (n_draws < 3 || any_nan (energy, n_draws))
    return NAN;
  for (gsize i = 1; i < n_draws; i++)
    num += (energy[i] - energy[i - 1]) * (energy[i] - energy[i - 1]);
  return num / (double) n_draws / sample_variance (energy, n_draws);
}
