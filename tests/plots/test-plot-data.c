/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The plots' numbers against independent truths: closed-form densities,
 * a direct kernel sum, the autocorrelation of an AR(1) process, ticks
 * worked by hand from Heckbert's rules, and brute-force column extremes.
 */
#define G_LOG_DOMAIN "tilde"

#include <math.h>
#include <string.h>

#include "infer/radix-sort.h"
#include "tilde-plot-data.h"

static double
normal_draw (GRand *rand)
{
  /* Box-Muller. */
  double u = g_rand_double_range (rand, 1e-300, 1);
  double v = g_rand_double (rand);

  return sqrt (-2 * log (u)) * cos (2 * G_PI * v);
}

static double
normal_density (double x, double sd)
{
  return exp (-0.5 * x * x / (sd * sd)) / (sd * sqrt (2 * G_PI));
}

static void
test_kde_normal_sample (void)
{
  enum { N = 20000, M = 512 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261122);
  g_autofree double *x = g_new (double, N);
  double density[M], lo, hi, h, delta, integral = 0, worst = 0;

  for (int i = 0; i < N; i++)
    x[i] = normal_draw (rand);
  h = tilde_kde_bandwidth (x, N);
  /* Silverman's rule for a standard normal: about 0.9 n^(-1/5). */
  g_assert_cmpfloat_with_epsilon (h, 0.9 * pow (N, -0.2), 0.01);
  g_assert_true (tilde_plot_finite_range (x, N, &lo, &hi));
  lo -= 4 * h;
  hi += 4 * h;
  tilde_kde_grid (x, N, h, lo, hi, M, density);

  delta = (hi - lo) / (M - 1);
  for (int i = 0; i < M; i++)
    integral += density[i] * delta * (i == 0 || i == M - 1 ? 0.5 : 1);
  g_assert_cmpfloat_with_epsilon (integral, 1.0, 1e-3);

  /* The estimate's expectation is the normal smoothed by the kernel:
   * N(0, 1 + h^2). What is left is sampling noise, about 0.007 here. */
  for (int i = 0; i < M; i++)
    {
      double g = lo + i * delta;

      if (fabs (g) < 3)
        worst = MAX (worst, fabs (density[i] - normal_density (g, sqrt (1 + h * h))));
    }
  g_test_message ("largest difference from the normal density: %g", worst);
  g_assert_cmpfloat (worst, <, 0.025);
}

static void
test_kde_matches_direct_sum (void)
{
  static const double x[] = { -1.3, -0.2, 0.1, 0.15, 0.9, 2.4, 2.5, NAN };
  enum { M = 401 };
  const double lo = -3, hi = 4.5, h = 0.3;
  const int n = G_N_ELEMENTS (x) - 1;   /* the NaN is skipped */
  double density[M], peak = 0;

  tilde_kde_grid (x, G_N_ELEMENTS (x), h, lo, hi, M, density);
  for (int i = 0; i < M; i++)
    {
      double g = lo + i * (hi - lo) / (M - 1), exact = 0;

      for (int k = 0; k < n; k++)
        exact += exp (-0.5 * pow ((g - x[k]) / h, 2)) / (n * h * sqrt (2 * G_PI));
      peak = MAX (peak, exact);
      g_assert_cmpfloat_with_epsilon (density[i], exact, 2e-3 * 0.5);
    }
  g_assert_cmpfloat (peak, >, 0.3);
}

static void
test_kde_in_parts (void)
{
  enum { N = 3000, M = 200 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autofree double *x = g_new (double, N);
  double bins[M] = { 0 }, whole[M], parts[M];
  gsize finite = 0;

  for (int i = 0; i < N; i++)
    x[i] = normal_draw (rand) * 2 + 1;
  tilde_kde_grid (x, N, 0.4, -10, 12, M, whole);
  /* Draws binned as they arrive, in uneven batches. */
  for (gsize from = 0, size = 1; from < N; from += size, size = size * 3 + 1)
    finite += tilde_kde_bin (x + from, MIN (size, N - from), -10, 12, M, bins);
  g_assert_cmpuint (finite, ==, N);
  tilde_kde_smooth (bins, finite, 0.4, -10, 12, M, parts);
  for (int i = 0; i < M; i++)
    g_assert_cmpfloat_with_epsilon (parts[i], whole[i], 1e-12);
}

static void
test_bandwidth_by_hand (void)
{
  double x[100], y[11];

  /* 1..100: sd = sqrt(100 * 101 / 12); IQR = 75.25 - 25.75 = 49.5, and
   * 49.5 / 1.34 > sd, so the sd decides. */
  for (int i = 0; i < 100; i++)
    x[i] = 100 - i;
  g_assert_cmpfloat_with_epsilon (tilde_kde_bandwidth (x, 100),
                                  0.9 * sqrt (100 * 101 / 12.0) * pow (100, -0.2), 1e-12);

  /* 0..9 and an outlier: the IQR (7.5 - 2.5 = 5) decides. */
  for (int i = 0; i < 10; i++)
    y[i] = (i * 7) % 10;
  y[10] = 1000;
  g_assert_cmpfloat_with_epsilon (tilde_kde_bandwidth (y, 11), 0.9 * (5 / 1.34) * pow (11, -0.2),
                                  1e-12);

  y[0] = y[1] = 4;
  g_assert_cmpfloat (tilde_kde_bandwidth (y, 2), ==, 0);
  g_assert_cmpfloat (tilde_kde_bandwidth (y, 1), ==, 0);
}

static void
test_ranks_with_ties (void)
{
  static const double x[] = { 3.0, 1.0, 2.0, 2.0, NAN, 5.0 };
  static const double expected[] = { 4, 1, 2.5, 2.5, 6, 5 };
  double ranks[G_N_ELEMENTS (x)];

  tilde_average_ranks (x, G_N_ELEMENTS (x), ranks);
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    g_assert_cmpfloat (ranks[i], ==, expected[i]);
}

static void
test_ranks_many (void)
{
  enum { N = 5000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  g_autofree double *x = g_new (double, N);
  g_autofree double *ranks = g_new (double, N);

  /* Negative and positive values, zeros of both signs, infinities and
   * heavy ties: each rank is 1 + the count below + half the other ties. */
  for (int i = 0; i < N; i++)
    x[i] = (g_rand_int_range (rand, -40, 40)) / 4.0;
  x[0] = -0.0;
  x[1] = 0.0;
  x[2] = -INFINITY;
  x[3] = INFINITY;
  x[4] = -1e300;
  tilde_average_ranks (x, N, ranks);
  for (int i = 0; i < N; i += 7)
    {
      double below = 0, equal = 0;

      for (int j = 0; j < N; j++)
        {
          below += x[j] < x[i];
          equal += x[j] == x[i];
        }
      g_assert_cmpfloat (ranks[i], ==, below + (equal + 1) / 2);
    }
}

static void
test_rank_histogram (void)
{
  /* Two chains of four, pooled: the first holds the four smallest. */
  static const double pooled[] = { 0.1, 0.4, 0.2, 0.3, 0.8, 0.5, 0.7, 0.6 };
  double ranks[8];
  guint first[4], second[4];
  static const guint expected_first[] = { 2, 2, 0, 0 };
  static const guint expected_second[] = { 0, 0, 2, 2 };

  tilde_average_ranks (pooled, 8, ranks);
  tilde_rank_histogram (ranks, 4, 8, 4, first);
  tilde_rank_histogram (ranks + 4, 4, 8, 4, second);
  g_assert_cmpmem (first, sizeof first, expected_first, sizeof expected_first);
  g_assert_cmpmem (second, sizeof second, expected_second, sizeof expected_second);
}

static void
test_autocorrelation_ar1 (void)
{
  enum { N = 50000, LAGS = 12 };
  const double phi = 0.7;
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autofree double *x = g_new (double, N);
  double rho[LAGS + 1], previous = 0;

  for (int i = -100; i < N; i++)
    {
      previous = phi * previous + normal_draw (rand);
      if (i >= 0)
        x[i] = previous + 40;   /* an offset the mean must remove */
    }
  g_assert_true (tilde_autocorrelation (x, N, LAGS, rho));
  g_assert_cmpfloat_with_epsilon (rho[0], 1.0, 1e-12);
  /* The estimate's standard error is about 0.008 at these lags. */
  for (int k = 1; k <= LAGS; k++)
    g_assert_cmpfloat_with_epsilon (rho[k], pow (phi, k), 0.04);
}

static void
test_autocorrelation_direct (void)
{
  static const double x[] = { 1, 4, 2, 8, 5, 7, 3, 3, 9, 0, 6, 2, 4 };
  const gsize n = G_N_ELEMENTS (x);
  double rho[8], mean = 0, denominator = 0;

  g_assert_true (tilde_autocorrelation (x, n, 7, rho));
  for (gsize t = 0; t < n; t++)
    mean += x[t] / n;
  for (gsize t = 0; t < n; t++)
    denominator += (x[t] - mean) * (x[t] - mean);
  for (gsize k = 0; k <= 7; k++)
    {
      double sum = 0;

      for (gsize t = 0; t + k < n; t++)
        sum += (x[t] - mean) * (x[t + k] - mean);
      g_assert_cmpfloat_with_epsilon (rho[k], sum / denominator, 1e-12);
    }

  /* Many lags of a shorter series go through the FFT: the same sums. */
  {
    enum { N = 3000, LAGS = 2999 };
    g_autoptr(GRand) rand = g_rand_new_with_seed (11);
    g_autofree double *y = g_new (double, N);
    g_autofree double *r = g_new (double, LAGS + 1);
    double m = 0, d = 0;

    for (int t = 0; t < N; t++)
      y[t] = (t > 0 ? 0.5 * y[t - 1] : 0) + normal_draw (rand) + 3;
    g_assert_true (tilde_autocorrelation (y, N, LAGS, r));
    for (int t = 0; t < N; t++)
      m += y[t] / N;
    for (int t = 0; t < N; t++)
      d += (y[t] - m) * (y[t] - m);
    for (int k = 0; k <= LAGS; k += 37)
      {
        double sum = 0;

        for (int t = 0; t + k < N; t++)
          sum += (y[t] - m) * (y[t + k] - m);
        g_assert_cmpfloat_with_epsilon (r[k], sum / d, 1e-10);
      }
  }

  {
    static const double flat[] = { 2, 2, 2, 2 };
    static const double broken[] = { 1, NAN, 2, 3 };

    g_assert_false (tilde_autocorrelation (flat, 4, 2, rho));
    g_assert_false (tilde_autocorrelation (broken, 4, 2, rho));
  }
}

static void
assert_ticks (double lo, double hi, guint target, const char *const *labels)
{
  TildeTicks ticks;
  guint n = g_strv_length ((char **) labels);

  tilde_ticks_nice (lo, hi, target, &ticks);
  g_assert_cmpuint (ticks.n, ==, n);
  for (guint i = 0; i < n; i++)
    {
      char text[64];

      tilde_ticks_format (&ticks, i, text, sizeof text);
      g_assert_cmpstr (text, ==, labels[i]);
      g_assert_cmpfloat (tilde_ticks_value (&ticks, i), >=, lo - 1e-12 * fabs (lo));
      g_assert_cmpfloat (tilde_ticks_value (&ticks, i), <=, hi + 1e-12 * fabs (hi));
    }
}

static void
test_ticks_by_hand (void)
{
  TildeTicks ticks;

  /* Heckbert's example: 105..543 with 5 ticks rounds the range to 500 and
   * the step to 100; the ticks inside are 200..500. */
  tilde_ticks_nice (105, 543, 5, &ticks);
  g_assert_cmpfloat (ticks.step, ==, 100);
  g_assert_cmpint (ticks.first, ==, 2);
  g_assert_cmpint (ticks.decimals, ==, 0);
  assert_ticks (105, 543, 5, (const char *[]) { "200", "300", "400", "500", NULL });
  /* 0..1: range 1, step nice(0.25) = 0.2. */
  assert_ticks (0, 1, 5, (const char *[]) { "0.0", "0.2", "0.4", "0.6", "0.8", "1.0", NULL });
  /* Range 0.0868 -> 0.1, step nice(0.025) = 0.02; a true minus sign. */
  assert_ticks (-0.0347, 0.0521, 5,
                (const char *[]) { "\u22120.02", "0.00", "0.02", "0.04", NULL });
  /* Iterations 0..10000: step nice(2500) = 2000. */
  assert_ticks (0, 10000, 5,
                (const char *[]) { "0", "2000", "4000", "6000", "8000", "10000", NULL });
  /* Tiny values go scientific: range 5e-7, step nice(1.67e-7) = 2e-7. */
  assert_ticks (1e-7, 5e-7, 4, (const char *[]) { "2e\u221207", "4e\u221207", NULL });
  /* Nothing to span: a range is made around the value. */
  tilde_ticks_nice (3, 3, 5, &ticks);
  g_assert_cmpuint (ticks.n, >=, 2);
  g_assert_cmpfloat (tilde_ticks_value (&ticks, 0), <=, 3);
  g_assert_cmpfloat (tilde_ticks_value (&ticks, ticks.n - 1), >=, 3);
}

static void
check_decimation (const double *y, gsize n, double start, double end, guint n_columns)
{
  g_autofree TildeColumn *columns = g_new (TildeColumn, n_columns);
  g_autofree TildeColumn *expected = g_new0 (TildeColumn, n_columns);

  tilde_decimate_min_max (y, n, start, end, n_columns, columns);
  for (gsize i = 0; i < n; i++)
    {
      TildeColumn *c;
      double position = floor ((i - start) * n_columns / (end - start));

      if (i < start || i >= end)
        continue;
      c = &expected[(guint) position];
      if (c->n++ == 0)
        c->first = c->min = c->max = y[i];
      c->min = MIN (c->min, y[i]);
      c->max = MAX (c->max, y[i]);
      c->last = y[i];
    }
  for (guint c = 0; c < n_columns; c++)
    {
      g_assert_cmpuint (columns[c].n, ==, expected[c].n);
      if (expected[c].n == 0)
        continue;
      g_assert_cmpfloat (columns[c].min, ==, expected[c].min);
      g_assert_cmpfloat (columns[c].max, ==, expected[c].max);
      g_assert_cmpfloat (columns[c].first, ==, expected[c].first);
      g_assert_cmpfloat (columns[c].last, ==, expected[c].last);
    }
}

static void
test_decimation_keeps_extremes (void)
{
  enum { N = 10000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  g_autofree double *y = g_new (double, N);
  TildeColumn columns[300];
  double top = -INFINITY;

  for (int i = 0; i < N; i++)
    y[i] = normal_draw (rand);
  y[4321] = 50;   /* one spike */
  check_decimation (y, N, 0, N, 300);
  check_decimation (y, N, 2500.5, 7300.25, 123);
  check_decimation (y, N, -200, 500, 640);   /* zoomed in past the start */

  tilde_decimate_min_max (y, N, 0, N, 300, columns);
  for (int c = 0; c < 300; c++)
    top = MAX (top, columns[c].max);
  g_assert_cmpfloat (top, ==, 50);
  g_assert_cmpuint (columns[4321 * 300 / N].n, ==, 34);
}

/* Every finite draw of iterations [from, n) inside [start, end) lands in
 * column floor((i - start) n_columns / (end - start)), whose extremes
 * bracket it, and the columns' counts, extremes and ends are those of a
 * direct pass over the draws. */
static void
check_envelope_columns (const TildeEnvelope *envelope, gsize from, double start, double end,
                        guint n_columns)
{
  gsize n;
  const double *y = tilde_envelope_get_values (envelope, &n);
  g_autofree TildeColumn *columns = g_new (TildeColumn, n_columns);
  g_autofree TildeColumn *expected = g_new0 (TildeColumn, n_columns);

  tilde_envelope_decimate (envelope, from, start, end, n_columns, columns);
  for (gsize i = from; i < n; i++)
    {
      double position = floor ((i - start) * n_columns / (end - start));
      TildeColumn *c;

      if (i < start || i >= end || !isfinite (y[i]))
        continue;
      g_assert_cmpfloat (position, >=, 0);
      g_assert_cmpfloat (position, <, n_columns);
      g_assert_cmpfloat (columns[(guint) position].min, <=, y[i]);
      g_assert_cmpfloat (columns[(guint) position].max, >=, y[i]);
      c = &expected[(guint) position];
      if (c->n++ == 0)
        c->first = c->min = c->max = y[i];
      c->min = MIN (c->min, y[i]);
      c->max = MAX (c->max, y[i]);
      c->last = y[i];
    }
  for (guint c = 0; c < n_columns; c++)
    {
      g_assert_cmpuint (columns[c].n, ==, expected[c].n);
      if (expected[c].n == 0)
        continue;
      g_assert_cmpfloat (columns[c].min, ==, expected[c].min);
      g_assert_cmpfloat (columns[c].max, ==, expected[c].max);
      g_assert_cmpfloat (columns[c].first, ==, expected[c].first);
      g_assert_cmpfloat (columns[c].last, ==, expected[c].last);
    }
}

/* A random walk with spikes and the odd NaN or infinity. */
static double *
walk (GRand *rand, gsize n)
{
  double *y = g_new (double, n), level = 0;

  for (gsize i = 0; i < n; i++)
    {
      level = 0.9 * level + normal_draw (rand);
      y[i] = level;
      if (g_rand_int_range (rand, 0, 500) == 0)
        y[i] = 40 * normal_draw (rand);
      if (g_rand_int_range (rand, 0, 300) == 0)
        y[i] = g_rand_boolean (rand) ? NAN : INFINITY;
    }
  return y;
}

static void
test_envelope_contains_every_draw (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint round = 0; round < 60; round++)
    {
      gsize n = (gsize) g_rand_int_range (rand, 1, 30000);
      g_autofree double *y = walk (rand, n);
      g_autoptr(TildeEnvelope) envelope = tilde_envelope_new ();
      double start = g_rand_double_range (rand, -50, n * 0.7);
      double end = round % 3 == 0 ? MAX (n, start + 2) : g_rand_double_range (rand, start + 1, n + 60);
      gsize from = round % 2 == 0 ? 0 : (gsize) g_rand_int_range (rand, 0, n);
      guint n_columns = (guint) g_rand_int_range (rand, 1, 1200);

      /* Whole numbers too, as when the plot is not zoomed. */
      if (round % 4 == 1)
        {
          start = floor (start);
          end = ceil (end);
        }
      tilde_envelope_append (envelope, y, n);
      check_envelope_columns (envelope, from, start, end, n_columns);
    }
}

/* The same columns as the pass over an array that the plot made before. */
static void
test_envelope_matches_array_decimation (void)
{
  enum { N = 11000, COLUMNS = 817 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (12);
  g_autofree double *y = walk (rand, N);
  g_autoptr(TildeEnvelope) envelope = tilde_envelope_new ();
  TildeColumn a[COLUMNS], b[COLUMNS];

  tilde_envelope_append (envelope, y, N);
  tilde_envelope_decimate (envelope, 0, 0, N, COLUMNS, a);
  tilde_decimate_min_max (y, N, 0, N, COLUMNS, b);
  g_assert_cmpmem (a, sizeof a, b, sizeof b);
}

static void
test_envelope_in_batches (void)
{
  enum { N = 20000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  g_autofree double *y = walk (rand, N);
  g_autoptr(TildeEnvelope) whole = tilde_envelope_new ();
  g_autoptr(TildeEnvelope) parts = tilde_envelope_new ();
  gsize done = 0;

  tilde_envelope_append (whole, y, N);
  while (done < N)
    {
      gsize batch = MIN ((gsize) g_rand_int_range (rand, 0, 700), N - done);

      tilde_envelope_append (parts, y + done, batch);
      done += batch;
      /* Part way, the envelope of the draws so far. */
      if (g_rand_int_range (rand, 0, 10) == 0)
        check_envelope_columns (parts, 0, 0, MAX (done, 2), 300);
    }
  for (guint round = 0; round < 200; round++)
    {
      gsize from = (gsize) g_rand_int_range (rand, 0, N), to = (gsize) g_rand_int_range (rand, 0, N + 1);
      double min_a = 0, max_a = 0, min_b = 0, max_b = 0, min_c = INFINITY, max_c = -INFINITY;
      guint n_a = tilde_envelope_extremes (whole, from, to, &min_a, &max_a);
      guint n_b = tilde_envelope_extremes (parts, from, to, &min_b, &max_b);
      guint n_c = 0;

      for (gsize i = from; i < to; i++)
        if (isfinite (y[i]))
          {
            n_c++;
            min_c = MIN (min_c, y[i]);
            max_c = MAX (max_c, y[i]);
          }
      g_assert_cmpuint (n_a, ==, n_c);
      g_assert_cmpuint (n_b, ==, n_c);
      if (n_c == 0)
        continue;
      g_assert_cmpfloat (min_a, ==, min_c);
      g_assert_cmpfloat (max_a, ==, max_c);
      g_assert_cmpfloat (min_b, ==, min_c);
      g_assert_cmpfloat (max_b, ==, max_c);
    }
  for (guint round = 0; round < 20; round++)
    {
      double start = g_rand_double_range (rand, 0, N / 2.0), end = g_rand_double_range (rand, start + 1, N);
      guint n_columns = (guint) g_rand_int_range (rand, 1, 1500);
      g_autofree TildeColumn *a = g_new (TildeColumn, n_columns);
      g_autofree TildeColumn *b = g_new (TildeColumn, n_columns);

      tilde_envelope_decimate (whole, 100, start, end, n_columns, a);
      tilde_envelope_decimate (parts, 100, start, end, n_columns, b);
      g_assert_cmpmem (a, n_columns * sizeof *a, b, n_columns * sizeof *b);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plots/data/kde-normal-sample", test_kde_normal_sample);
  g_test_add_func ("/plots/data/kde-matches-direct-sum", test_kde_matches_direct_sum);
  g_test_add_func ("/plots/data/kde-in-parts", test_kde_in_parts);
  g_test_add_func ("/plots/data/bandwidth-by-hand", test_bandwidth_by_hand);
  g_test_add_func ("/plots/data/ranks-with-ties", test_ranks_with_ties);
  g_test_add_func ("/plots/data/ranks-many", test_ranks_many);
  g_test_add_func ("/plots/data/rank-histogram", test_rank_histogram);
  g_test_add_func ("/plots/data/autocorrelation-ar1", test_autocorrelation_ar1);
  g_test_add_func ("/plots/data/autocorrelation-direct", test_autocorrelation_direct);
  g_test_add_func ("/plots/data/ticks-by-hand", test_ticks_by_hand);
  g_test_add_func ("/plots/data/decimation-keeps-extremes", test_decimation_keeps_extremes);
  g_test_add_func ("/plots/data/envelope-contains-every-draw", test_envelope_contains_every_draw);
  g_test_add_func ("/plots/data/envelope-matches-array-decimation",
                   test_envelope_matches_array_decimation);
  g_test_add_func ("/plots/data/envelope-in-batches", test_envelope_in_batches);
  return g_test_run ();
}
