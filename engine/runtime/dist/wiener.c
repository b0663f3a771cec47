/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * wiener (y | alpha, tau, beta, delta): the density of the time y at which
 * a Wiener diffusion with drift delta, started at beta * alpha between
 * boundaries 0 and alpha, first reaches the upper one, after a non-decision
 * time tau. By symmetry it is the lower boundary's density with drift
 * -delta from 1 - beta:
 *
 *   f = alpha^-2 exp (delta alpha (1 - beta) - delta^2 t / 2) g (t / alpha^2, 1 - beta)
 *
 * with t = y - tau and g the standard density (unit boundary, no drift),
 * summed as Navarro and Fuss's small-time series for u = t / alpha^2 < 1
 * and the large-time series otherwise, each until its terms fall below
 * 1e-20 of the first; g's derivatives are summed with it. The
 * five-parameter form adds normal trial-to-trial variability of the drift,
 * integrated in closed form (wiener5 below).
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/dist/dist-private.h"

#include <math.h>

#define TAIL 46.0   /* -log 1e-20 */

/* log g (u, w) and d log g / du, d log g / dw. */
static double
log_standard (double u, double w, double *du, double *dw)
{
  if (u < 1)
    {
      /* (2 pi u^3)^-1/2 sum_k (w + 2k) exp (-(w + 2k)^2 / (2u)), scaled by
       * the k = 0 exponent */
      int K = (int) ceil (sqrt (2 * u * TAIL) / 2) + 2;
      double s = 0, su = 0, sw = 0;
      for (int k = -K; k <= K; k++)
        {
          double x = w + 2 * k, e = exp (-(x * x - w * w) / (2 * u));
          s += x * e;
          sw += (1 - x * x / u) * e;
          su += x * e * x * x / (2 * u * u);
        }
      /* the scale exp (-w^2 / (2u)) is part of the value: its derivatives
       * are in the sums already, relative to the unscaled terms */
      double lg = -0.5 * log (2 * G_PI * u * u * u) - w * w / (2 * u) + log (s);
      *du = -1.5 / u + w * w / (2 * u * u) + (su - s * w * w / (2 * u * u)) / s;
      *dw = -w / u + (sw + s * w / u) / s;
      return lg;
    }
  /* pi sum_k k exp (-k^2 pi^2 u / 2) sin (k pi w), scaled by the k = 1
   * exponent */
  int K = (int) ceil (sqrt (2 * TAIL / (G_PI * G_PI * u))) + 2;
  double s = 0, su = 0, sw = 0;
  for (int k = 1; k <= K; k++)
    {
      double e = exp (-(k * k - 1) * G_PI * G_PI * u / 2);
      s += k * e * sin (k * G_PI * w);
      su += -k * (k * k) * G_PI * G_PI / 2 * e * sin (k * G_PI * w);
      sw += k * e * k * G_PI * cos (k * G_PI * w);
    }
  *du = su / s;
  *dw = sw / s;
  return log (G_PI) - G_PI * G_PI * u / 2 + log (s);
}

static void
k_wiener (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  DArg a[5];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Boundary separation");
  dist_arg (cx, &a[2], &v[2], "Nondecision time");
  dist_arg (cx, &a[3], &v[3], "A-priori bias");
  dist_arg (cx, &a[4], &v[4], "Drift rate");
  gint32 N = dist_size (cx, a, 5);
  dist_check_positive_finite (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_nonnegative (cx, &a[2]);
  dist_check_finite (cx, &a[2]);
  dist_check_positive (cx, &a[3]);
  dist_check_less (cx, &a[3], 1.0);
  dist_check_finite (cx, &a[4]);
  for (gint32 i = 0; i < N; i++)
    if (!(AT (&a[0], i) > AT (&a[2], i)))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Random variable = %g, but must be greater "
                "than nondecision time = %g", dist_name (cx), AT (&a[0], i), AT (&a[2], i));
  if (dist_dropped (cx, a, 5, out))
    return;
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), tau = AT (&a[2], i);
      double be = AT (&a[3], i), de = AT (&a[4], i);
      double t = y - tau, u = t / (al * al), w = 1 - be, du, dw;
      double lg = log_standard (u, w, &du, &dw);
      logp += -2 * log (al) + de * al * w - de * de * t / 2 + lg;
      double dt = -de * de / 2 + du / (al * al);
      dist_grad (&a[0], i, dt);
      dist_grad (&a[2], i, -dt);
      dist_grad (&a[1], i, -2 / al + de * w - 2 * du * t / (al * al * al));
      dist_grad (&a[3], i, -de * al - dw);
      dist_grad (&a[4], i, al * w - de * t);
    }
  dist_finish (cx, a, 5, logp, out);
}

/* wiener (y | alpha, tau, beta, delta, sv): the drift varies from trial to
 * trial as normal (delta, sv); integrated over it, the lower boundary's
 * density of the reflected process (drift -delta from w = 1 - beta) is
 *
 *   f = alpha^-2 g (t / alpha^2, w) (1 + sv^2 t)^-1/2
 *       exp ((sv^2 alpha^2 w^2 + 2 alpha delta w - delta^2 t) / (2 (1 + sv^2 t)))
 *
 * which is the four-parameter density when sv = 0. */
static void
wiener5 (RtCtx *cx, const TildeValue *v, TildeValue *out)
{
  DArg a[6];
  dist_arg (cx, &a[0], &v[0], "Random variable");
  dist_arg (cx, &a[1], &v[1], "Boundary separation");
  dist_arg (cx, &a[2], &v[2], "Nondecision time");
  dist_arg (cx, &a[3], &v[3], "A-priori bias");
  dist_arg (cx, &a[4], &v[4], "Drift rate");
  dist_arg (cx, &a[5], &v[5], "Inter-trial variability in drift rate");
  gint32 N = dist_size (cx, a, 6);
  dist_check_positive_finite (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_finite (cx, &a[4]);
  dist_check_less (cx, &a[3], 1.0);
  dist_check_positive (cx, &a[3]);
  dist_check_nonnegative (cx, &a[2]);
  dist_check_finite (cx, &a[2]);
  dist_check_nonnegative (cx, &a[5]);
  dist_check_finite (cx, &a[5]);
  for (gint32 i = 0; i < N; i++)
    if (!(AT (&a[0], i) > AT (&a[2], i)))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Random variable = %g, but must be greater "
                "than nondecision time = %g", dist_name (cx), AT (&a[0], i), AT (&a[2], i));
  if (dist_dropped (cx, a, 6, out))
    return;
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (&a[0], i), al = AT (&a[1], i), tau = AT (&a[2], i);
      double be = AT (&a[3], i), de = AT (&a[4], i), sv = AT (&a[5], i);
      double t = y - tau, u = t / (al * al), w = 1 - be, du, dw;
      double lg = log_standard (u, w, &du, &dw);
      double sv2 = sv * sv, D = 1 + sv2 * t;
      double num = sv2 * al * al * w * w + 2 * al * de * w - de * de * t;
      logp += -2 * log (al) + lg - 0.5 * log (D) + num / (2 * D);
      double dt = du / (al * al) - 0.5 * sv2 / D + (-de * de * D - num * sv2) / (2 * D * D);
      dist_grad (&a[0], i, dt);
      dist_grad (&a[2], i, -dt);
      dist_grad (&a[1], i, -2 / al - 2 * du * t / (al * al * al)
                           + (sv2 * al * w * w + de * w) / D);
      dist_grad (&a[3], i, -dw - (sv2 * al * al * w + al * de) / D);
      dist_grad (&a[4], i, (al * w - de * t) / D);
      dist_grad (&a[5], i, -sv * t / D + sv * (al * al * w * w * D - t * num) / (D * D));
    }
  dist_finish (cx, a, 6, logp, out);
}

static void
k_wiener_any (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  if (nargs == 6)
    wiener5 (cx, v, out);
  else
    k_wiener (cx, nargs, v, out);
}

const RtBuiltin rt_builtins_wiener[] = {
  { "wiener_lpdf", k_wiener_any, 5, 6 },
  { "wiener_lupdf", k_wiener_any, 5, 6 },
  { NULL, NULL, 0, 0 },
};
