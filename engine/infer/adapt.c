/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/adapt.h"

#include "infer/fisher-metric.h"

#include <math.h>
#include <string.h>

void
tilde_adapt_options_init (TildeAdaptOptions *o)
{
  *o = (TildeAdaptOptions) {
    .delta = 0.8, .gamma = 0.05, .kappa = 0.75, .t0 = 10,
    .init_buffer = 75, .term_buffer = 50, .window = 25,
    .metric_adaptation = TILDE_METRIC_ADAPTATION_STAN,
  };
}

const char *
tilde_metric_adaptation_name (TildeMetricAdaptation adaptation)
{
  return adaptation == TILDE_METRIC_ADAPTATION_GRADIENTS ? "gradients" : "stan";
}

gboolean
tilde_metric_adaptation_parse (const char *text, TildeMetricAdaptation *adaptation)
{
  if (g_strcmp0 (text, "stan") == 0)
    *adaptation = TILDE_METRIC_ADAPTATION_STAN;
  else if (g_strcmp0 (text, "gradients") == 0)
    *adaptation = TILDE_METRIC_ADAPTATION_GRADIENTS;
  else
    return FALSE;
  return TRUE;
}

/* ---- step size ---- */

void
tilde_stepsize_adaptation_init (TildeStepsizeAdaptation *a, const TildeAdaptOptions *o)
{
  *a = (TildeStepsizeAdaptation) {
    .delta = o->delta, .gamma = o->gamma, .kappa = o->kappa, .t0 = o->t0, .mu = log (10.0),
  };
}

void
tilde_stepsize_adaptation_restart (TildeStepsizeAdaptation *a)
{
  a->counter = 0;
  a->s_bar = 0;
  a->x_bar = 0;
}

double
tilde_stepsize_adaptation_learn (TildeStepsizeAdaptation *a, double accept_stat)
{
  double eta, x, x_eta;

  a->counter += 1;
  if (accept_stat > 1)
    accept_stat = 1;
  eta = 1.0 / (a->counter + a->t0);
  a->s_bar = (1.0 - eta) * a->s_bar + eta * (a->delta - accept_stat);
  x = a->mu - a->s_bar * sqrt (a->counter) / a->gamma;
  x_eta = pow (a->counter, -a->kappa);
  a->x_bar = (1.0 - x_eta) * a->x_bar + x_eta * x;
  return exp (x);
}

double
tilde_stepsize_adaptation_final (const TildeStepsizeAdaptation *a)
{
  return exp (a->x_bar);
}

/* ---- windows ---- */

static void
windows_restart (TildeAdaptWindows *w)
{
  w->counter = 0;
  w->window_size = w->base_window;
  w->next_window = w->init_buffer + w->window_size - 1;
}

char *
tilde_adapt_windows_init (TildeAdaptWindows *w, guint num_warmup, guint init_buffer,
                          guint term_buffer, guint base_window, const char *estimator)
{
  *w = (TildeAdaptWindows) { 0 };
  if (num_warmup < 20)
    {
      /* no window at all: counter < num_warmup - term_buffer never holds */
      windows_restart (w);
      return g_strdup_printf ("WARNING: No %s estimation is\n"
                              "         performed for num_warmup < 20\n", estimator);
    }
  if ((guint64) init_buffer + base_window + term_buffer > num_warmup)
    {
      w->num_warmup = num_warmup;
      w->init_buffer = (guint) (0.15 * num_warmup);
      w->term_buffer = (guint) (0.1 * num_warmup);
      w->base_window = num_warmup - (w->init_buffer + w->term_buffer);
      windows_restart (w);
      return g_strdup_printf ("WARNING: There aren't enough warmup iterations to fit the\n"
                              "         three stages of adaptation as currently configured.\n"
                              "         Reducing each adaptation stage to 15%%/75%%/10%% of\n"
                              "         the given number of warmup iterations:\n"
                              "           init_buffer = %u\n"
                              "           adapt_window = %u\n"
                              "           term_buffer = %u\n",
                              w->init_buffer, w->base_window, w->term_buffer);
    }
  w->num_warmup = num_warmup;
  w->init_buffer = init_buffer;
  w->term_buffer = term_buffer;
  w->base_window = base_window;
  windows_restart (w);
  return NULL;
}

gboolean
tilde_adapt_windows_in_window (const TildeAdaptWindows *w)
{
  return w->counter >= w->init_buffer
         && w->counter + w->term_buffer < w->num_warmup
         && w->counter != w->num_warmup;
}

gboolean
tilde_adapt_windows_end_window (const TildeAdaptWindows *w)
{
  return w->num_warmup > 0 && w->counter == w->next_window && w->counter != w->num_warmup;
}

/* The last window before the terminal buffer. */
static guint
windows_last (const TildeAdaptWindows *w)
{
  return w->num_warmup - w->term_buffer - 1;
}

static void
windows_compute_next (TildeAdaptWindows *w)
{
  guint64 following;

  if (w->next_window == windows_last (w))
    return;
  w->window_size *= 2;
  w->next_window = w->counter + w->window_size;
  if (w->next_window == windows_last (w))
    return;
  /* when the window after this one would not fit, this one takes the rest */
  following = (guint64) w->next_window + 2 * (guint64) w->window_size;
  if (following >= (guint64) w->num_warmup - w->term_buffer)
    w->next_window = windows_last (w);
}

void
tilde_adapt_windows_advance (TildeAdaptWindows *w, gboolean ended)
{
  if (ended)
    windows_compute_next (w);
  w->counter++;
}

/* ---- Welford ---- */

TildeWelford *
tilde_welford_new (gsize n, gboolean dense)
{
  TildeWelford *w = g_new0 (TildeWelford, 1);

  w->n = n;
  w->dense = dense;
  w->mean = g_new0 (double, MAX (n, 1));
  w->delta = g_new0 (double, MAX (n, 1));
  w->m2 = g_new0 (double, MAX (dense ? n * n : n, 1));
  return w;
}

void
tilde_welford_free (TildeWelford *w)
{
  if (w == NULL)
    return;
  g_free (w->mean);
  g_free (w->delta);
  g_free (w->m2);
  g_free (w);
}

void
tilde_welford_restart (TildeWelford *w)
{
  w->count = 0;
  memset (w->mean, 0, sizeof (double) * w->n);
  memset (w->m2, 0, sizeof (double) * (w->dense ? w->n * w->n : w->n));
}

void
tilde_welford_add (TildeWelford *w, const double *x)
{
  gsize n = w->n;

  w->count += 1;
  for (gsize i = 0; i < n; i++)
    {
      w->delta[i] = x[i] - w->mean[i];
      w->mean[i] += w->delta[i] / w->count;
    }
  if (!w->dense)
    {
      for (gsize i = 0; i < n; i++)
        w->m2[i] += (x[i] - w->mean[i]) * w->delta[i];
      return;
    }
  /* the lower triangle; the estimate mirrors it */
  for (gsize i = 0; i < n; i++)
    {
      double after = x[i] - w->mean[i];
      double *row = w->m2 + i * n;
      for (gsize j = 0; j <= i; j++)
        row[j] += after * w->delta[j];
    }
}

void
tilde_welford_regularised (const TildeWelford *w, double *out)
{
  gsize n = w->n;
  double c = w->count;
  double shrink = c / (c + 5.0), add = 1e-3 * (5.0 / (c + 5.0));

  if (!w->dense)
    {
      for (gsize i = 0; i < n; i++)
        {
          double v = c > 1 ? w->m2[i] / (c - 1.0) : out[i];
          out[i] = shrink * v + add;
        }
      return;
    }
  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j <= i; j++)
      {
        double v = c > 1 ? w->m2[i * n + j] / (c - 1.0) : out[i * n + j];
        v = shrink * v + (i == j ? add : 0.0);
        out[i * n + j] = out[j * n + i] = v;
      }
}

/* ---- one chain's adaptation ---- */

/* The gradients' schedule (see adapt.h). */
#define EARLY_SHARE        0.3
#define FINAL_SHARE        0.15
#define EARLY_SWITCH       10
#define SWITCH             80
#define MIN_DRAWS          3
/* A dense estimate costs two eigen-decompositions: it is made every this
 * many iterations, and once more when the metric becomes final. In the
 * first 30 % that falls just after a swap, on the 10 draws of a fresh
 * foreground (made 5 iterations later instead, on 15, it did no better:
 * some posteriors gained, others lost, within the seeds' noise). */
#define DENSE_EVERY        10
/* The dense estimate's ridge, RIDGE * RIDGE_DRAWS / (n + RIDGE_DRAWS) of
 * the diagonals after n draws (regularised_covariance). */
#define RIDGE              1e-3
#define RIDGE_DRAWS        5.0
/* Bounds on an inverse metric's element, so that a coordinate that has
 * not moved (or whose gradient has not) keeps a usable scale. */
#define INVERSE_MIN        1e-20
#define INVERSE_MAX        1e20

struct TildeAdapter {
  TildeMetric            *metric;
  TildeStepsizeAdaptation stepsize;
  TildeAdaptWindows       windows;
  TildeWelford           *estimator;   /* Stan's; NULL for the unit metric */
  double                 *estimate;
  /* the gradients' adaptation: foreground [0] and background [1] */
  gboolean                gradients;
  TildeWelford           *draws[2], *slopes[2];
  guint                   iteration, early_end, final_start;
  TildeFisherMetric      *fisher;      /* dense only */
  double                 *s, *g;       /* dense only: the covariances, regularised */
};

TildeAdapter *
tilde_adapter_new (TildeMetric *metric, const TildeAdaptOptions *options, guint num_warmup,
                   double initial_stepsize, char **warning)
{
  TildeAdapter *a = g_new0 (TildeAdapter, 1);
  gboolean dense = metric->kind == TILDE_METRIC_DENSE;
  char *text = NULL;

  a->metric = metric;
  tilde_stepsize_adaptation_init (&a->stepsize, options);
  a->stepsize.mu = log (10.0 * initial_stepsize);
  if (options->metric_adaptation == TILDE_METRIC_ADAPTATION_GRADIENTS
      && metric->kind != TILDE_METRIC_UNIT)
    {
      gsize size = MAX (dense ? metric->n * metric->n : metric->n, 1);

      a->gradients = TRUE;
      for (guint k = 0; k < 2; k++)
        {
          a->draws[k] = tilde_welford_new (metric->n, dense);
          a->slopes[k] = tilde_welford_new (metric->n, dense);
        }
      a->estimate = g_new0 (double, size);
      if (dense)
        {
          a->fisher = tilde_fisher_metric_new (metric->n);
          a->s = g_new0 (double, size);
          a->g = g_new0 (double, size);
        }
      a->early_end = (guint) lround (EARLY_SHARE * num_warmup);
      /* at least one iteration after the last update, so that the step
       * size searched for the final metric is adapted, not kept at 1 */
      a->final_start = MIN (num_warmup - (guint) lround (FINAL_SHARE * num_warmup),
                            MAX (num_warmup, 1) - 1);
    }
  else if (metric->kind != TILDE_METRIC_UNIT)
    {
      text = tilde_adapt_windows_init (&a->windows, num_warmup, options->init_buffer,
                                       options->term_buffer, options->window,
                                       dense ? "covariance" : "variance");
      a->estimator = tilde_welford_new (metric->n, dense);
      a->estimate = g_new0 (double, MAX (dense ? metric->n * metric->n : metric->n, 1));
    }
  if (warning != NULL)
    *warning = text;
  else
    g_free (text);
  return a;
}

void
tilde_adapter_free (TildeAdapter *a)
{
  if (a == NULL)
    return;
  tilde_welford_free (a->estimator);
  for (guint k = 0; k < 2; k++)
    {
      tilde_welford_free (a->draws[k]);
      tilde_welford_free (a->slopes[k]);
    }
  tilde_fisher_metric_free (a->fisher);
  g_free (a->s);
  g_free (a->g);
  g_free (a->estimate);
  g_free (a);
}

static double
clamp_inverse (double x)
{
  return CLAMP (x, INVERSE_MIN, INVERSE_MAX);
}

void
tilde_adapter_start (TildeAdapter *a, TildeNuts *nuts)
{
  const double *g = tilde_nuts_get_gradient (nuts);
  gsize n = a->metric->n;
  gboolean dense = a->metric->kind == TILDE_METRIC_DENSE;

  if (!a->gradients)
    return;
  if (dense)
    memset (a->estimate, 0, sizeof (double) * n * n);
  /* the scale a coordinate's slope suggests; none where it is flat */
  for (gsize i = 0; i < n; i++)
    a->estimate[dense ? i * n + i : i]
      = isfinite (g[i]) && g[i] != 0 ? clamp_inverse (1.0 / fabs (g[i])) : 1.0;
  tilde_metric_set_inverse (a->metric, a->estimate);
}

/* The full matrix of a dense Welford's sums, its diagonal raised by
 * RIDGE 5 / (n + 5) of itself: a scale-free form of Stan's regularisation
 * that keeps the matrix positive definite while fewer draws than
 * coordinates have been seen (in directions no draw has explored, the
 * estimate then falls back to the diagonal one), and fades as draws come. */
static void
regularised_covariance (const TildeWelford *w, double *out)
{
  gsize n = w->n;
  double raise = 1.0 + RIDGE * RIDGE_DRAWS / (w->count + RIDGE_DRAWS);

  for (gsize i = 0; i < n; i++)
    for (gsize j = 0; j <= i; j++)
      out[i * n + j] = out[j * n + i] = w->m2[i * n + j] * (i == j ? raise : 1.0);
}

/* The geometric mean S # G^-1 from the foreground (fisher-metric.h). A
 * failure keeps the metric as it was. */
static void
set_dense_from_gradients (TildeAdapter *a)
{
  regularised_covariance (a->draws[0], a->s);
  regularised_covariance (a->slopes[0], a->g);
  if (tilde_fisher_metric_solve (a->fisher, a->s, a->g, a->estimate))
    tilde_metric_set_inverse (a->metric, a->estimate);
}

/* sqrt (Var q / Var g) from the foreground, where both are known. */
static void
set_from_gradients (TildeAdapter *a)
{
  const TildeWelford *q = a->draws[0], *g = a->slopes[0];
  double c = q->count;

  if (c < MIN_DRAWS)
    return;
  if (a->fisher != NULL)
    {
      set_dense_from_gradients (a);
      return;
    }
  memcpy (a->estimate, a->metric->inverse, sizeof (double) * a->metric->n);
  for (gsize i = 0; i < a->metric->n; i++)
    {
      double ratio = q->m2[i] / g->m2[i];   /* the (c - 1)s cancel */
      if (isfinite (ratio) && ratio > 0)
        a->estimate[i] = clamp_inverse (sqrt (ratio));
    }
  tilde_metric_set_inverse (a->metric, a->estimate);
}

/* A first step size for a new metric, and a fresh dual averaging around
 * it. */
static gboolean
restart_stepsize (TildeAdapter *a, TildeNuts *nuts, gsl_rng *rng, char **problem)
{
  if (!tilde_nuts_init_stepsize (nuts, rng, problem))
    return FALSE;
  a->stepsize.mu = log (10.0 * tilde_nuts_get_stepsize (nuts));
  tilde_stepsize_adaptation_restart (&a->stepsize);
  return TRUE;
}

/* The end of a window: the new metric, then a new first step size and a
 * fresh dual averaging around it. */
static gboolean
close_window (TildeAdapter *a, TildeNuts *nuts, gsl_rng *rng, char **problem)
{
  gsize size = a->metric->kind == TILDE_METRIC_DENSE ? a->metric->n * a->metric->n : a->metric->n;

  memcpy (a->estimate, a->metric->inverse, sizeof (double) * size);
  tilde_welford_regularised (a->estimator, a->estimate);
  tilde_welford_restart (a->estimator);
  if (!tilde_metric_set_inverse (a->metric, a->estimate))
    {
      *problem = g_strdup ("Numerical overflow in metric adaptation. This occurs when the "
                           "sampler encounters extreme values on the unconstrained space; this "
                           "may happen when the posterior density function is too wide or "
                           "improper. There may be problems with your model specification.");
      return FALSE;
    }
  return restart_stepsize (a, nuts, rng, problem);
}

static gboolean
learn_from_gradients (TildeAdapter *a, TildeNuts *nuts, gsl_rng *rng, char **problem)
{
  guint it = a->iteration++;

  if (it >= a->final_start)
    return TRUE;
  for (guint k = 0; k < 2; k++)
    {
      tilde_welford_add (a->draws[k], tilde_nuts_get_position (nuts));
      tilde_welford_add (a->slopes[k], tilde_nuts_get_gradient (nuts));
    }
  if (a->draws[1]->count >= (it < a->early_end ? EARLY_SWITCH : SWITCH))
    {
      TildeWelford *q = a->draws[0], *g = a->slopes[0];
      a->draws[0] = a->draws[1];
      a->slopes[0] = a->slopes[1];
      a->draws[1] = q;
      a->slopes[1] = g;
      tilde_welford_restart (q);
      tilde_welford_restart (g);
    }
  if (a->fisher == NULL || (it + 1) % DENSE_EVERY == 0 || it + 1 == a->final_start)
    set_from_gradients (a);
  /* the metric is final: a step size for it, as after one of Stan's windows */
  return it + 1 < a->final_start || restart_stepsize (a, nuts, rng, problem);
}

gboolean
tilde_adapter_learn (TildeAdapter *a, TildeNuts *nuts, gsl_rng *rng, double accept_stat,
                     char **problem)
{
  gboolean ended;

  tilde_nuts_set_stepsize (nuts, tilde_stepsize_adaptation_learn (&a->stepsize, accept_stat));
  if (a->gradients)
    return learn_from_gradients (a, nuts, rng, problem);
  if (a->estimator == NULL)
    return TRUE;
  if (tilde_adapt_windows_in_window (&a->windows))
    tilde_welford_add (a->estimator, tilde_nuts_get_position (nuts));
  ended = tilde_adapt_windows_end_window (&a->windows);
  tilde_adapt_windows_advance (&a->windows, ended);
  return !ended || close_window (a, nuts, rng, problem);
}

void
tilde_adapter_finish (TildeAdapter *a, TildeNuts *nuts)
{
  tilde_nuts_set_stepsize (nuts, tilde_stepsize_adaptation_final (&a->stepsize));
}
