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
#include <string.h>

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

/* The partials of log f: in t = y - tau, alpha, beta, delta and sv. */
typedef struct {
  double t, alpha, beta, delta, sv;
} Wiener5Grad;

static double
wiener5_log (double t, double al, double be, double de, double sv, Wiener5Grad *g)
{
  double u = t / (al * al), w = 1 - be, du, dw;
  double lg = log_standard (u, w, &du, &dw);
  double sv2 = sv * sv, D = 1 + sv2 * t;
  double num = sv2 * al * al * w * w + 2 * al * de * w - de * de * t;

  g->t = du / (al * al) - 0.5 * sv2 / D + (-de * de * D - num * sv2) / (2 * D * D);
  g->alpha = -2 / al - 2 * du * t / (al * al * al) + (sv2 * al * w * w + de * w) / D;
  g->beta = -dw - (sv2 * al * al * w + al * de) / D;
  g->delta = (al * w - de * t) / D;
  g->sv = -sv * t / D + sv * (al * al * w * w * D - t * num) / (D * D);
  return -2 * log (al) + lg - 0.5 * log (D) + num / (2 * D);
}

/* The n arguments of the five- or seven-parameter form (6 or 8), with
 * Stan's checks in its order; the common size. */
static gint32
read_full (RtCtx *cx, const TildeValue *v, DArg *a, int n)
{
  static const char *const what[8] = {
    "Random variable", "Boundary separation", "Nondecision time", "A-priori bias",
    "Drift rate", "Inter-trial variability in drift rate",
    "Inter-trial variability in A-priori bias", "Inter-trial variability in Nondecision time",
  };
  for (int k = 0; k < n; k++)
    dist_arg (cx, &a[k], &v[k], what[k]);
  gint32 N = dist_size (cx, a, n);
  dist_check_positive_finite (cx, &a[0]);
  dist_check_positive_finite (cx, &a[1]);
  dist_check_finite (cx, &a[4]);
  dist_check_less (cx, &a[3], 1.0);
  dist_check_positive (cx, &a[3]);
  dist_check_nonnegative (cx, &a[2]);
  dist_check_finite (cx, &a[2]);
  dist_check_nonnegative (cx, &a[5]);
  dist_check_finite (cx, &a[5]);
  if (n == 8)
    {
      dist_check_nonnegative (cx, &a[6]);
      dist_check_finite (cx, &a[6]);
      for (gint32 i = 0; i < N; i++)
        {
          double w = AT (&a[3], i), sw = AT (&a[6], i);
          if (w - sw / 2 <= 0)
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Inter-trial variability in A-priori "
                      "bias = %g, but must be smaller than 2*(A-priori bias) = %g",
                      dist_name (cx), sw, 2 * w);
          if (w + sw / 2 >= 1)
            rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Inter-trial variability in A-priori "
                      "bias = %g, but must be smaller than 2*(1-A-priori bias) = %g",
                      dist_name (cx), sw, 2 * (1 - w));
        }
      dist_check_nonnegative (cx, &a[7]);
      dist_check_finite (cx, &a[7]);
    }
  for (gint32 i = 0; i < N; i++)
    if (!(AT (&a[0], i) > AT (&a[2], i)))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: Random variable = %g, but must be greater "
                "than nondecision time = %g", dist_name (cx), AT (&a[0], i), AT (&a[2], i));
  return N;
}

/* ---- the seven-parameter form ---- */

/* wiener (y | alpha, tau, beta, delta, sv, sw, st0): the starting point
 * also varies, uniformly over beta +- sw/2, and the non-decision time,
 * uniformly over [tau, tau + st0]. The density is the five-parameter one
 * averaged over both:
 *
 *   F = 1/st0 int_tau^U 1/sw int_{beta-sw/2}^{beta+sw/2} f5 (y - s | b) db ds
 *
 * with U = min (tau + st0, y) (f5 is zero for s >= y), by adaptive
 * Gauss-Kronrod quadrature in each variable. The partials in alpha, delta
 * and sv are integrated beside the density; those in beta, sw, y, tau and
 * st0 come from the ends of the intervals (Leibniz's rule). A width of zero
 * is no average. */

/* Kronrod's 15 points and Gauss's 7 among them (QUADPACK's qk15): the
 * nodes on [0, 1] of the symmetric rule, descending. */
static const double gk_nodes[8] = {
  0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
  0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
  0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
  0.207784955007898467600689403773245, 0.000000000000000000000000000000000,
};
static const double gk_weights[8] = {
  0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
  0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
  0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
  0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
};
/* Gauss's weights for the odd-indexed nodes above (1, 3, 5, 7) */
static const double g_weights[4] = {
  0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
  0.381830050505118944950369775488975, 0.417959183673469387755102040816327,
};

#define QUAD_MAX 6         /* components of an integrand */
#define QUAD_DEPTH 12      /* halvings of a panel at the most */
#define QUAD_RTOL 1e-8

typedef void (*QuadFn) (double x, double *out, void *data);

/* The Kronrod sum of f over [lo, hi] into k[0 .. m), and its difference
 * from Gauss's into err. */
static void
quad_panel (QuadFn f, void *data, int m, double lo, double hi, double *k, double *err)
{
  double c = (lo + hi) / 2, h = (hi - lo) / 2, g[QUAD_MAX] = { 0 }, fx[QUAD_MAX], fy[QUAD_MAX];

  for (int j = 0; j < m; j++)
    k[j] = 0;
  for (int i = 0; i < 8; i++)
    {
      f (c + h * gk_nodes[i], fx, data);
      if (i < 7)
        f (c - h * gk_nodes[i], fy, data);
      for (int j = 0; j < m; j++)
        {
          double sum = i < 7 ? fx[j] + fy[j] : fx[j];
          k[j] += gk_weights[i] * sum;
          if (i % 2 == 1)
            g[j] += g_weights[i / 2] * sum;
        }
    }
  for (int j = 0; j < m; j++)
    {
      k[j] *= h;
      err[j] = fabs (k[j] - g[j] * h);
    }
}

/* Whether a panel's errors are within its share of the tolerance per unit
 * of width. */
static gboolean
quad_good (int m, double width, const double *err, const double *tol)
{
  for (int j = 0; j < m; j++)
    if (err[j] > tol[j] * width)     /* NaN: no halving will help */
      return FALSE;
  return TRUE;
}

static void
quad_adapt (QuadFn f, void *data, int m, double lo, double hi, const double *tol, int depth,
            double *sum)
{
  double k[QUAD_MAX], err[QUAD_MAX];

  quad_panel (f, data, m, lo, hi, k, err);
  if (quad_good (m, hi - lo, err, tol) || depth >= QUAD_DEPTH)
    {
      for (int j = 0; j < m; j++)
        sum[j] += k[j];
      return;
    }
  quad_adapt (f, data, m, lo, (lo + hi) / 2, tol, depth + 1, sum);
  quad_adapt (f, data, m, (lo + hi) / 2, hi, tol, depth + 1, sum);
}

/* The integral of the m components of f over [lo, hi] into out. The
 * first component is the density, the others its partials: each is
 * integrated to about QUAD_RTOL of its own size plus the density's (a
 * partial's error then moves the gradient of the log density by about
 * QUAD_RTOL), or to `floor` where that is larger (an integral that adds a
 * negligible part to an outer one), the sizes taken from one panel over
 * the whole interval, which is the answer when it already agrees with
 * Gauss's rule. */
static void
quad (QuadFn f, void *data, int m, double lo, double hi, double floor, double *out)
{
  double tol[QUAD_MAX], k[QUAD_MAX], err[QUAD_MAX];

  quad_panel (f, data, m, lo, hi, k, err);
  for (int j = 0; j < m; j++)
    tol[j] = MAX (QUAD_RTOL * (fabs (k[j]) + fabs (k[0])), floor) / (hi - lo);
  if (quad_good (m, hi - lo, err, tol))
    {
      memcpy (out, k, sizeof (double) * (gsize) m);
      return;
    }
  for (int j = 0; j < m; j++)
    out[j] = 0;
  quad_adapt (f, data, m, lo, (lo + hi) / 2, tol, 1, out);
  quad_adapt (f, data, m, (lo + hi) / 2, hi, tol, 1, out);
}

typedef struct {
  double y, alpha, tau, beta, delta, sv, sw, st0;
  double t;       /* the time of the inner integral */
  double floor;   /* the absolute error an inner integral may have */
} Wiener7;

/* f5 at time t and bias b, with its partials in alpha, delta, sv and t
 * (densities, not logs): out[0 .. 5). */
static void
f5_at (const Wiener7 *p, double t, double b, double *out)
{
  Wiener5Grad g;

  if (t <= 0)
    {
      for (int j = 0; j < 5; j++)
        out[j] = 0;
      return;
    }
  double f = exp (wiener5_log (t, p->alpha, b, p->delta, p->sv, &g));
  out[0] = f;
  out[1] = f * g.alpha;
  out[2] = f * g.delta;
  out[3] = f * g.sv;
  out[4] = f * g.t;
}

static void
inner_integrand (double b, double *out, void *data)
{
  const Wiener7 *p = data;
  f5_at (p, p->t, b, out);
}

/* H (t) and its partials, averaged over the bias: out = { H, H_alpha,
 * H_delta, H_sv, H_t, H_beta, H_sw }. */
static void
over_bias (const Wiener7 *p, double t, double *out)
{
  double hi[5], lo[5];

  if (p->sw == 0)
    {
      Wiener5Grad g;
      f5_at (p, t, p->beta, out);
      if (t > 0)
        wiener5_log (t, p->alpha, p->beta, p->delta, p->sv, &g);
      out[5] = t > 0 ? out[0] * g.beta : 0;
      out[6] = 0;
      return;
    }
  Wiener7 q = *p;
  q.t = t;
  quad (inner_integrand, &q, 5, p->beta - p->sw / 2, p->beta + p->sw / 2, p->floor * p->sw, out);
  for (int j = 0; j < 5; j++)
    out[j] /= p->sw;
  f5_at (p, t, p->beta + p->sw / 2, hi);
  f5_at (p, t, p->beta - p->sw / 2, lo);
  out[5] = (hi[0] - lo[0]) / p->sw;
  out[6] = -out[0] / p->sw + (hi[0] + lo[0]) / (2 * p->sw);
}

static void
outer_integrand (double s, double *out, void *data)
{
  const Wiener7 *p = data;
  double h[7];

  over_bias (p, p->y - s, h);
  out[0] = h[0];
  out[1] = h[1];
  out[2] = h[2];
  out[3] = h[3];
  out[4] = h[5];
  out[5] = h[6];
}

/* log F with its partials, in the order of the arguments after y. */
static double
wiener7_log (const Wiener7 *p, double *dy, double grad[7])
{
  double F[6], h_start[7], h_end[7];

  /* the inner integrals' absolute tolerance, from the size of the
   * density where the non-decision time is shortest (its largest time) */
  Wiener7 q = *p;
  q.floor = 0;
  over_bias (&q, p->y - p->tau, h_start);
  q.floor = QUAD_RTOL * fabs (h_start[0]);
  p = &q;
  if (p->st0 == 0)
    {
      for (int j = 0; j < 4; j++)
        F[j] = h_start[j];
      F[4] = h_start[5];
      F[5] = h_start[6];
      *dy = h_start[4];
      grad[6] = -h_start[4] / 2;           /* st0 at zero */
    }
  else
    {
      double end = MIN (p->tau + p->st0, p->y);
      gboolean cut = p->tau + p->st0 >= p->y;   /* the average ends at y */
      quad (outer_integrand, (void *) p, 6, p->tau, end, p->floor * (end - p->tau), F);
      for (int j = 0; j < 6; j++)
        F[j] /= p->st0;
      if (cut)
        for (int j = 0; j < 7; j++)
          h_end[j] = 0;
      else
        over_bias (p, p->y - p->tau - p->st0, h_end);
      *dy = (h_start[0] - h_end[0]) / p->st0;
      grad[6] = -F[0] / p->st0 + h_end[0] / p->st0;
    }
  double f = F[0];
  grad[0] = F[1] / f;        /* alpha */
  grad[1] = -*dy / f;        /* tau */
  grad[2] = F[4] / f;        /* beta */
  grad[3] = F[2] / f;        /* delta */
  grad[4] = F[3] / f;        /* sv */
  grad[5] = F[5] / f;        /* sw */
  grad[6] /= f;              /* st0 */
  *dy /= f;
  return log (f);
}

/* ---- the five- and seven-parameter forms over their arguments ---- */

/* One trial: x holds its n arguments (6 or 8) in Stan's order, g receives
 * the partials in the same order. */
static double
wiener_trial (const double *x, int n, double *g)
{
  if (n == 6)
    {
      Wiener5Grad d;
      double lp = wiener5_log (x[0] - x[2], x[1], x[3], x[4], x[5], &d);
      g[0] = d.t;
      g[1] = d.alpha;
      g[2] = -d.t;
      g[3] = d.beta;
      g[4] = d.delta;
      g[5] = d.sv;
      return lp;
    }
  Wiener7 p = { x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], 0, 0 };
  return wiener7_log (&p, &g[0], g + 1);
}

static void
wiener_full (RtCtx *cx, const TildeValue *v, int n, TildeValue *out)
{
  DArg a[8];
  gint32 N = read_full (cx, v, a, n);
  if (dist_dropped (cx, a, n, out))
    return;
  double logp = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double x[8], g[8];
      for (int k = 0; k < n; k++)
        x[k] = AT (&a[k], i);
      logp += wiener_trial (x, n, g);
      for (int k = 0; k < n; k++)
        dist_grad (&a[k], i, g[k]);
    }
  dist_finish (cx, a, n, logp, out);
}

static void
k_wiener_any (RtCtx *cx, int nargs, const TildeValue *v, TildeValue *out)
{
  if (nargs == 6 || nargs == 8)
    wiener_full (cx, v, nargs, out);
  else
    k_wiener (cx, nargs, v, out);
}

const RtBuiltin rt_builtins_wiener[] = {
  { "wiener_lpdf", k_wiener_any, 5, 8 },
  { "wiener_lupdf", k_wiener_any, 5, 8 },
  { NULL, NULL, 0, 0 },
};
