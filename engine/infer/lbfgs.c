/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/lbfgs.h"

#include <string.h>

/* Pairs live in a ring: slot (first + k) % capacity is the k-th oldest. */
struct TildeLbfgsHistory {
  gsize   n, capacity, first, count;
  double *y, *s;     /* capacity rows of n */
  double *rho;       /* 1 / s'y per pair */
  double *weights;   /* scratch for the two-loop recursion */
  double  gamma;
};

TildeLbfgsHistory *
tilde_lbfgs_history_new (gsize n, gsize capacity)
{
  TildeLbfgsHistory *h = g_new0 (TildeLbfgsHistory, 1);

  g_return_val_if_fail (capacity > 0, NULL);
  h->n = n;
  h->capacity = capacity;
  h->y = g_new0 (double, MAX (n * capacity, 1));
  h->s = g_new0 (double, MAX (n * capacity, 1));
  h->rho = g_new0 (double, capacity);
  h->weights = g_new0 (double, capacity);
  h->gamma = 1.0;
  return h;
}

void
tilde_lbfgs_history_free (TildeLbfgsHistory *h)
{
  if (h == NULL)
    return;
  g_free (h->y);
  g_free (h->s);
  g_free (h->rho);
  g_free (h->weights);
  g_free (h);
}

static double
dot (const double *a, const double *b, gsize n)
{
  double s = 0.0;
  for (gsize i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static gsize
slot (const TildeLbfgsHistory *h, gsize k)
{
  return (h->first + k) % h->capacity;
}

double
tilde_lbfgs_history_update (TildeLbfgsHistory *h, const double *y, const double *s,
                            gboolean reset)
{
  double sy = dot (y, s, h->n), yy = dot (y, y, h->n);
  double scale = 1.0;
  gsize k;

  if (reset)
    {
      scale = yy / sy;
      h->first = 0;
      h->count = 0;
    }
  if (h->count < h->capacity)
    k = slot (h, h->count++);
  else
    {
      /* full: the oldest slot takes the newest pair */
      k = h->first;
      h->first = (h->first + 1) % h->capacity;
    }
  memcpy (h->y + k * h->n, y, sizeof (double) * h->n);
  memcpy (h->s + k * h->n, s, sizeof (double) * h->n);
  h->rho[k] = 1.0 / sy;
  h->gamma = sy / yy;
  return scale;
}

void
tilde_lbfgs_history_direction (TildeLbfgsHistory *h, const double *g, double *p)
{
  gsize n = h->n;

  for (gsize i = 0; i < n; i++)
    p[i] = -g[i];
  for (gsize k = h->count; k-- > 0;)
    {
      gsize j = slot (h, k);
      double a = h->rho[j] * dot (h->s + j * n, p, n);
      const double *y = h->y + j * n;

      for (gsize i = 0; i < n; i++)
        p[i] -= a * y[i];
      h->weights[j] = a;
    }
  for (gsize i = 0; i < n; i++)
    p[i] *= h->gamma;
  for (gsize k = 0; k < h->count; k++)
    {
      gsize j = slot (h, k);
      double b = h->rho[j] * dot (h->y + j * n, p, n);
      const double *s = h->s + j * n;

      for (gsize i = 0; i < n; i++)
        p[i] += (h->weights[j] - b) * s[i];
    }
}
