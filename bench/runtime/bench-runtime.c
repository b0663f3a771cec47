/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Gradients per second of the runtime, side by side with hand-written C
 * (reference.c) computing the same log density and gradient: synthetic
 * data from a fixed seed, each model prepared at O0 and O1, the C checked
 * against Tilde once (value and gradient to 1e-8), then all three timed in
 * turn, repeat after repeat, and the medians printed.
 *
 * Usage: bench-runtime MODELS-DIR [REPEATS [MODEL...]]
 *
 * With a negative REPEATS, -N, nothing is timed: each column runs N
 * evaluations, for a profiler such as callgrind to count.
 */
#define G_LOG_DOMAIN "tilde-bench"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "runtime/model.h"
#include "tilde-frontend.h"

#define SEED 20240611
#define TOLERANCE 1e-8

typedef struct {
  const char   *name;      /* the table's row */
  const char   *file;      /* in MODELS-DIR */
  gboolean      loop;      /* the target: 3x for loops, 1.5x otherwise */
  RefLogDensity ref;
  char       *(*make_data) (gsl_rng *rng, BenchData *d);
} Bench;

/* ---- data ---- */

static void
json_reals (GString *s, const char *name, const double *x, int n)
{
  g_string_append_printf (s, "\"%s\": [", name);
  for (int i = 0; i < n; i++)
    g_string_append_printf (s, "%s%.17g", i ? ", " : "", x[i]);
  g_string_append (s, "], ");
}

static void
json_ints (GString *s, const char *name, const int *x, int n)
{
  g_string_append_printf (s, "\"%s\": [", name);
  for (int i = 0; i < n; i++)
    g_string_append_printf (s, "%s%d", i ? ", " : "", x[i]);
  g_string_append (s, "], ");
}

static char *
json_end (GString *s)
{
  /* drop the last ", " */
  g_string_truncate (s, s->len - 2);
  g_string_append (s, " }");
  return g_string_free (s, FALSE);
}

static char *
logistic_data (gsl_rng *rng, BenchData *d)
{
  int N = d->N = 5000, K = d->K = 20;
  d->X = g_new (double, (gsize) N * K);
  d->yi = g_new (int, N);
  d->work = g_new (double, 2 * (gsize) N);
  double beta[20];
  for (int k = 0; k < K; k++)
    beta[k] = gsl_ran_gaussian (rng, 0.5);
  for (int n = 0; n < N; n++)
    {
      double eta = 0.3;
      for (int k = 0; k < K; k++)
        {
          d->X[n * K + k] = gsl_ran_gaussian (rng, 1.0);
          eta += d->X[n * K + k] * beta[k];
        }
      d->yi[n] = gsl_rng_uniform (rng) < 1 / (1 + exp (-eta));
    }
  GString *s = g_string_new ("{ ");
  g_string_append_printf (s, "\"N\": %d, \"K\": %d, \"X\": [", N, K);
  for (int n = 0; n < N; n++)
    {
      g_string_append (s, n ? ", [" : "[");
      for (int k = 0; k < K; k++)
        g_string_append_printf (s, "%s%.17g", k ? ", " : "", d->X[n * K + k]);
      g_string_append (s, "]");
    }
  g_string_append (s, "], ");
  json_ints (s, "y", d->yi, N);
  return json_end (s);
}

/* The classic data of Rubin (1981). */
static char *
eight_schools_data (gsl_rng *rng, BenchData *d)
{
  static double y[8] = { 28, 8, -3, 7, -1, 1, 18, 12 };
  static double sigma[8] = { 15, 10, 16, 11, 9, 11, 10, 18 };
  d->N = 8;
  d->y = g_memdup2 (y, sizeof y);
  d->sigma = g_memdup2 (sigma, sizeof sigma);
  GString *s = g_string_new ("{ \"J\": 8, ");
  json_reals (s, "y", d->y, 8);
  json_reals (s, "sigma", d->sigma, 8);
  return json_end (s);
}

static char *
hierarchical_data (gsl_rng *rng, BenchData *d)
{
  int G = d->G = 200, N = d->N = 2000;
  double eta[200];
  for (int k = 0; k < G; k++)
    eta[k] = gsl_ran_gaussian (rng, 1.0);
  d->g = g_new (int, N);
  d->y = g_new (double, N);
  for (int n = 0; n < N; n++)
    {
      d->g[n] = 1 + (int) gsl_rng_uniform_int (rng, (unsigned long) G);
      d->y[n] = 1.5 + 0.8 * eta[d->g[n] - 1] + gsl_ran_gaussian (rng, 2.0);
    }
  GString *s = g_string_new (NULL);
  g_string_printf (s, "{ \"N\": %d, \"G\": %d, ", N, G);
  json_ints (s, "g", d->g, N);
  json_reals (s, "y", d->y, N);
  return json_end (s);
}

static char *
ar1_data (gsl_rng *rng, BenchData *d)
{
  int N = d->N = 1000;
  d->y = g_new (double, N);
  d->y[0] = 0;
  for (int n = 1; n < N; n++)
    d->y[n] = 0.4 + 0.7 * d->y[n - 1] + gsl_ran_gaussian (rng, 1.0);
  GString *s = g_string_new (NULL);
  g_string_printf (s, "{ \"N\": %d, ", N);
  json_reals (s, "y", d->y, N);
  return json_end (s);
}

static char *
ark_data (gsl_rng *rng, BenchData *d)
{
  int N = d->N = 200, K = d->K = 5;
  static const double phi[5] = { 0.5, -0.2, 0.1, 0.05, -0.05 };
  d->y = g_new (double, N);
  for (int n = 0; n < N; n++)
    {
      d->y[n] = 0.3 + gsl_ran_gaussian (rng, 0.2);
      for (int k = 1; k <= K && k <= n; k++)
        d->y[n] += phi[k - 1] * d->y[n - k];
    }
  GString *s = g_string_new (NULL);
  g_string_printf (s, "{ \"K\": %d, \"N\": %d, ", K, N);
  json_reals (s, "y", d->y, N);
  return json_end (s);
}

static char *
garch_data (gsl_rng *rng, BenchData *d)
{
  int N = d->N = 200;
  d->y = g_new (double, N);
  d->sigma = g_new (double, 1);
  d->work = g_new (double, 2 * (gsize) N);
  double s = d->sigma[0] = 1.0;
  for (int n = 0; n < N; n++)
    {
      if (n > 0)
        s = sqrt (0.2 + 0.3 * (d->y[n - 1] - 0.1) * (d->y[n - 1] - 0.1) + 0.5 * s * s);
      d->y[n] = 0.1 + s * gsl_ran_gaussian (rng, 1.0);
    }
  GString *str = g_string_new (NULL);
  g_string_printf (str, "{ \"T\": %d, \"sigma1\": %.17g, ", N, d->sigma[0]);
  json_reals (str, "y", d->y, N);
  return json_end (str);
}

static char *
gp_data (gsl_rng *rng, BenchData *d)
{
  int N = d->N = 100;
  d->x = g_new (double, N);
  d->y = g_new (double, N);
  for (int n = 0; n < N; n++)
    {
      d->x[n] = -5 + 10 * gsl_rng_uniform (rng);
      d->y[n] = sin (d->x[n]) + gsl_ran_gaussian (rng, 0.3);
    }
  d->work = g_new (double, 2 * (gsize) N * N + N);
  GString *s = g_string_new (NULL);
  g_string_printf (s, "{ \"N\": %d, ", N);
  json_reals (s, "x", d->x, N);
  json_reals (s, "y", d->y, N);
  return json_end (s);
}

static void
bench_data_clear (BenchData *d)
{
  g_free (d->X);
  g_free (d->yi);
  g_free (d->g);
  g_free (d->x);
  g_free (d->y);
  g_free (d->sigma);
  g_free (d->work);
}

static const Bench benches[] = {
  { "logistic N=5000 K=20, vectorised", "logistic.stan", FALSE, ref_logistic, logistic_data },
  { "logistic N=5000 K=20, loop", "logistic-loop.stan", TRUE, ref_logistic, logistic_data },
  { "eight schools, non-centered", "eight-schools.stan", FALSE, ref_eight_schools,
    eight_schools_data },
  { "hierarchical normal, 200 groups", "hierarchical.stan", FALSE, ref_hierarchical,
    hierarchical_data },
  { "AR(1) N=1000, loop", "ar1.stan", TRUE, ref_ar1, ar1_data },
  { "AR(K) K=5 N=200, nested loops", "ark.stan", TRUE, ref_ark, ark_data },
  { "GARCH(1,1) T=200, recurrence", "garch.stan", TRUE, ref_garch, garch_data },
  { "GP regression N=100, Cholesky", "gp.stan", FALSE, ref_gp, gp_data },
};

/* ---- models ---- */

static TildeModel *
prepare (const char *path, const char *json, MirOptLevel level)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, NULL, &error);
  if (!r || tilde_check_result_has_errors (r))
    {
      g_autofree char *text = r ? tilde_check_result_render_all (r) : NULL;
      g_printerr ("%s: %s\n", path, text ? text : error->message);
      return NULL;
    }
  g_autoptr (MirProgram) lowered = mir_lower_program (tilde_check_result_get_program (r));
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  g_autoptr (MirProgram) optimized = mir_pipeline_run (transformed, level, NULL);
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string (json, -1, &error);
  if (!data)
    {
      g_printerr ("%s: %s\n", path, error->message);
      return NULL;
    }
  g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
  TildeModel *m = tilde_model_new (optimized, data, diags);
  if (!m)
    g_printerr ("%s: %s\n", path,
                diags->len ? ((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message : "?");
  return m;
}

static gboolean
close_enough (double a, double b)
{
  return fabs (a - b) <= TOLERANCE * MAX (1.0, MAX (fabs (a), fabs (b)));
}

/* Value and gradient of Tilde and of the C at theta; FALSE (and why on
 * standard error) when they differ. */
static gboolean
check (const Bench *b, const char *level, TildeModel *m, const BenchData *d, const double *theta,
       gsize P)
{
  g_autofree double *gt = g_new0 (double, P);
  g_autofree double *gc = g_new0 (double, P);
  g_autoptr (TildeModelError) error = NULL;
  double lt = tilde_model_log_density (m, theta, TRUE, TRUE, gt, &error);
  if (error)
    {
      g_printerr ("%s (%s): %s\n", b->name, level, error->message);
      return FALSE;
    }
  double lc = b->ref (d, theta, gc);
  gboolean ok = close_enough (lt, lc);
  if (!ok)
    g_printerr ("%s (%s): log density %.17g, the C gives %.17g\n", b->name, level, lt, lc);
  for (gsize i = 0; i < P; i++)
    if (!close_enough (gt[i], gc[i]))
      {
        g_printerr ("%s (%s): gradient[%" G_GSIZE_FORMAT "] %.17g, the C gives %.17g\n",
                    b->name, level, i, gt[i], gc[i]);
        ok = FALSE;
      }
  return ok;
}

/* ---- timing ---- */

typedef enum { T_O0, T_O1, T_C, N_COLUMNS } Column;

typedef struct {
  const Bench     *b;
  TildeModel      *m[2];
  const BenchData *d;
  const double    *theta;
  double          *grad;
} Runner;

static double volatile sink;

/* One function per column, so that a profile tells them apart. */
G_GNUC_NO_INLINE static double
batch_tilde_o0 (const Runner *r, long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    s += tilde_model_log_density (r->m[T_O0], r->theta, TRUE, TRUE, r->grad, NULL);
  return s;
}

G_GNUC_NO_INLINE static double
batch_tilde_o1 (const Runner *r, long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    s += tilde_model_log_density (r->m[T_O1], r->theta, TRUE, TRUE, r->grad, NULL);
  return s;
}

G_GNUC_NO_INLINE static double
batch_c (const Runner *r, long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    s += r->b->ref (r->d, r->theta, r->grad);
  return s;
}

static void
run_batch (const Runner *r, Column c, long n)
{
  sink = c == T_O0 ? batch_tilde_o0 (r, n) : c == T_O1 ? batch_tilde_o1 (r, n) : batch_c (r, n);
}

/* Microseconds per gradient of one batch. */
static double
time_batch (const Runner *r, Column c, long n)
{
  gint64 t0 = g_get_monotonic_time ();
  run_batch (r, c, n);
  return (double) (g_get_monotonic_time () - t0) / (double) n;
}

/* Enough evaluations for a batch to take about 20 ms. */
static long
batch_size (const Runner *r, Column c)
{
  long n = 1;
  for (;;)
    {
      gint64 t0 = g_get_monotonic_time ();
      run_batch (r, c, n);
      gint64 dt = g_get_monotonic_time () - t0;
      if (dt >= 20000 || n >= (1L << 30))
        return n;
      n = dt < 100 ? n * 16 : MAX (n + 1, (long) ((double) n * 20000.0 / (double) dt));
    }
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *x, int n)
{
  qsort (x, (size_t) n, sizeof (double), compare_doubles);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Runs one model; FALSE when it could not be prepared or the C disagrees. */
static gboolean
run_bench (const Bench *b, const char *dir, int repeats)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, SEED);
  BenchData d = { 0 };
  g_autofree char *json = b->make_data (rng, &d);
  g_autofree char *path = g_build_filename (dir, b->file, NULL);
  Runner r = { .b = b, .d = &d };
  r.m[T_O0] = prepare (path, json, MIR_OPT_O0);
  r.m[T_O1] = prepare (path, json, MIR_OPT_O1);
  gboolean ok = r.m[T_O0] && r.m[T_O1];
  gsize P = ok ? tilde_model_num_params_unconstrained (r.m[T_O0]) : 0;
  g_autofree double *theta = g_new0 (double, MAX (P, 1));
  g_autofree double *grad = g_new0 (double, MAX (P, 1));
  for (gsize i = 0; i < P; i++)
    theta[i] = gsl_ran_flat (rng, -0.5, 0.5);
  r.theta = theta;
  r.grad = grad;
  ok = ok && check (b, "O0", r.m[T_O0], &d, theta, P) && check (b, "O1", r.m[T_O1], &d, theta, P);
  if (ok && repeats < 0)
    for (int c = 0; c < N_COLUMNS; c++)
      run_batch (&r, (Column) c, -repeats);
  else if (ok)
    {
      long n[N_COLUMNS];
      double *t[N_COLUMNS];
      for (int c = 0; c < N_COLUMNS; c++)
        {
          n[c] = batch_size (&r, (Column) c);
          t[c] = g_new (double, repeats);
        }
      /* in turn, so that a busy moment of a shared machine hits all three */
      for (int k = 0; k < repeats; k++)
        for (int c = 0; c < N_COLUMNS; c++)
          t[c][k] = time_batch (&r, (Column) c, n[c]);
      double med[N_COLUMNS];
      for (int c = 0; c < N_COLUMNS; c++)
        {
          med[c] = median (t[c], repeats);
          g_free (t[c]);
        }
      double ratio = med[T_O1] / med[T_C];
      printf ("%-36s %10.3f %10.3f %10.3f %7.2fx %7.2fx  %s\n", b->name, med[T_O0], med[T_O1],
              med[T_C], med[T_O0] / med[T_C], ratio,
              ratio <= (b->loop ? 3.0 : 1.5) ? "" : (b->loop ? "(target 3x)" : "(target 1.5x)"));
      fflush (stdout);
    }
  tilde_model_free (r.m[T_O0]);
  tilde_model_free (r.m[T_O1]);
  bench_data_clear (&d);
  gsl_rng_free (rng);
  return ok;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s MODELS-DIR [REPEATS [MODEL...]]\n", argv[0]);
      return 2;
    }
  int repeats = argc > 2 ? atoi (argv[2]) : 11;
  if (repeats == 0)
    repeats = 1;
  printf ("Gradient evaluations: microseconds each (median of %d batches of about 20 ms),\n"
          "Tilde's runtime at O0 and O1 against hand-written C (-O2); checked to %g first.\n\n",
          repeats, TOLERANCE);
  printf ("%-36s %10s %10s %10s %8s %8s\n", "model", "O0 us", "O1 us", "C us", "O0/C", "O1/C");
  gboolean ok = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (benches); i++)
    {
      gboolean wanted = argc <= 3;
      for (int k = 3; k < argc; k++)
        wanted |= strstr (benches[i].file, argv[k]) != NULL;
      if (wanted)
        ok &= run_bench (&benches[i], argv[1], repeats);
    }
  return ok ? 0 : 1;
}
