/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Gaussian-process covariance functions: gp_exp_quad_cov, gp_matern32_cov,
 * gp_matern52_cov, gp_exponential_cov, gp_periodic_cov and gp_dot_prod_cov,
 * over points that are reals or vectors, for one set of points (a
 * symmetric matrix) or two (a cross covariance), with one length scale or
 * one per dimension. The matrix is one elementwise node: each entry
 * depends on the magnitude, the length scales, the period and the
 * coordinates of its two points.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"

#include <math.h>
#include <string.h>

typedef enum { GP_EXP_QUAD, GP_MATERN32, GP_MATERN52, GP_EXPONENTIAL, GP_PERIODIC, GP_DOT_PROD } GpKind;

/* A set of N points in D dimensions: reals or vectors. */
typedef struct {
  const TildeValue *v;
  int N, D;
  const double **x;    /* x[i]: point i's coordinates */
  gboolean ad;
} Points;

static void
points (RtCtx *cx, const TildeValue *v, const char *what, Points *p)
{
  p->v = v;
  p->ad = rt_is_ad (v);
  if (v->kind != TILDE_VALUE_ARRAY)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: %s must be an array", cx->fn_name, what);
  p->N = v->rows;
  p->x = tilde_arena_alloc (cx->arena, sizeof (double *) * (gsize) MAX (p->N, 1));
  if (tilde_value_is_flat (v))
    {
      const double *x = rt_values (cx, v);
      p->D = 1;
      for (int i = 0; i < p->N; i++)
        p->x[i] = x + i;
    }
  else
    {
      p->D = p->N > 0 ? tilde_value_flat_size (&v->u.elems[0]) : 0;
      for (int i = 0; i < p->N; i++)
        {
          rt_check_size (cx, "the dimensions of the points", tilde_value_flat_size (&v->u.elems[i]),
                         p->D);
          p->x[i] = rt_values (cx, &v->u.elems[i]);
        }
    }
  for (int i = 0; i < p->N; i++)
    for (int d = 0; d < p->D; d++)
      if (isnan (p->x[i][d]))
        rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s[%d] is nan, but must be not nan!",
                  cx->fn_name, what, i + 1);
}

/* the id of coordinate d of point i */
static gint32
point_id (RtCtx *cx, const Points *p, int i, int d)
{
  if (tilde_value_is_flat (p->v))
    return p->v->ad ? tilde_value_var (p->v, i) : -1;
  const TildeValue *e = &p->v->u.elems[i];
  return e->ad ? tilde_value_var (e, d) : -1;
}

static double
scalar_param (RtCtx *cx, const TildeValue *v, const char *what, gboolean may_be_zero)
{
  double x = rt_scalar (cx, v);
  if (!(may_be_zero ? x >= 0 : x > 0) || isinf (x))
    rt_domain_error (cx, what, x, may_be_zero ? "nonnegative finite" : "positive finite");
  return x;
}

/* dk / d (r^2) for the stationary kernels, with k = sigma^2 g (r) */
static double
stationary (GpKind kind, double s2, double r2, double *dk_dr2)
{
  double r = sqrt (r2), e;
  switch (kind)
    {
    case GP_EXP_QUAD:
      e = s2 * exp (-0.5 * r2);
      *dk_dr2 = -0.5 * e;
      return e;
    case GP_MATERN32:
      e = s2 * exp (-sqrt (3.0) * r);
      *dk_dr2 = -1.5 * e;
      return e * (1 + sqrt (3.0) * r);
    case GP_MATERN52:
      e = s2 * exp (-sqrt (5.0) * r);
      *dk_dr2 = -5.0 / 6 * e * (1 + sqrt (5.0) * r);
      return e * (1 + sqrt (5.0) * r + 5.0 / 3 * r2);
    case GP_EXPONENTIAL:
    default:
      e = s2 * exp (-r);
      /* the derivative of r is undefined where two points meet */
      *dk_dr2 = r > 0 ? -0.5 * e / r : 0;
      return e;
    }
}

/* ---- one set of data points: a symmetric matrix ----
 *
 * The common case (a stationary kernel of data points, one length scale)
 * computes and differentiates the lower triangle only: the upper is a copy,
 * and the node takes each pair's two adjoints together. A diagonal added
 * to the matrix (add_diag of the covariance, fused) is added to the values
 * and the node gives the diagonal's adjoints to it. */

typedef struct {
  gint32        out;
  int           n;
  const double *ps, *pl;   /* packed lower triangle, column by column: dk/dsigma, dk/dl */
  gint32        sigma_id, l_id;   /* -1: data */
  AdOperand     diag;             /* n == 0: no diagonal to differentiate; n == 1: a
                                   * scalar added to every diagonal element */
} GpSym;

static void
gp_sym_backward (AdTape *t, const void *p)
{
  const GpSym *g = p;
  const double *adj = t->adj + g->out;
  int n = g->n;
  double ts = 0, tl = 0;
  gsize e = 0;
  for (int j = 0; j < n; j++)
    {
      const double *col = adj + (gsize) j * (gsize) n;
      /* w = adj (i, j) + adj (j, i) below the diagonal */
      for (int i = j; i < n; i++, e++)
        {
          double w = i == j ? col[j] : col[i] + adj[j + (gsize) i * (gsize) n];
          if (g->ps)
            ts += w * g->ps[e];
          if (g->pl)
            tl += w * g->pl[e];
        }
    }
  if (g->sigma_id >= 0)
    t->adj[g->sigma_id] += ts;
  if (g->l_id >= 0)
    t->adj[g->l_id] += tl;
  if (g->diag.n == 1)
    {
      double s = 0;
      for (int i = 0; i < n; i++)
        s += adj[i + (gsize) i * (gsize) n];
      t->adj[ad_operand_id (&g->diag, 0)] += s;
    }
  else
    for (gint32 i = 0; i < g->diag.n; i++)
      t->adj[ad_operand_id (&g->diag, i)] += adj[i + (gsize) i * (gsize) n];
}

/* `diag` (may be NULL): the values added to the diagonal. */
static void
gp_symmetric (RtCtx *cx, GpKind kind, const Points *X, const TildeValue *sv, double sigma,
              const TildeValue *lv, double l, const TildeValue *diag, TildeValue *out)
{
  int N = X->N, D = X->D;
  gsize packed = (gsize) N * (gsize) (N + 1) / 2;
  gboolean s_ad = sv->ad, l_ad = lv->ad, d_ad = diag && rt_is_ad (diag);
  gboolean ad = s_ad || l_ad || d_ad;
  TildeValue r = ad ? rt_new_ad (cx, TILDE_VALUE_MATRIX, N, N)
    : rt_new_data (cx, TILDE_VALUE_MATRIX, N, N);
  double *k = ad ? cx->tape->val + r.start : r.u.d;
  double *ps = s_ad ? rt_alloc_d (cx, packed) : NULL;
  double *pl = l_ad ? rt_alloc_d (cx, packed) : NULL;
  double s2 = sigma * sigma, il2 = 1 / (l * l), two_over_sigma = sigma > 0 ? 2 / sigma : 0;
  gsize e = 0;
  for (int j = 0; j < N; j++)
    {
      const double *xj = X->x[j];
      for (int i = j; i < N; i++, e++)
        {
          const double *xi = X->x[i];
          double dist2 = 0;
          for (int d = 0; d < D; d++)
            dist2 += (xi[d] - xj[d]) * (xi[d] - xj[d]);
          double r2 = dist2 * il2, dk_dr2, v;
          if (kind == GP_EXP_QUAD)
            {
              v = s2 * exp (-0.5 * r2);
              dk_dr2 = -0.5 * v;
            }
          else
            v = stationary (kind, s2, r2, &dk_dr2);
          k[i + (gsize) j * N] = v;
          k[j + (gsize) i * N] = v;
          if (ps)
            ps[e] = v * two_over_sigma;
          if (pl)
            pl[e] = -2 * dk_dr2 * r2 / l;
        }
    }
  if (diag)
    {
      gboolean scalar = tilde_value_kind_is_scalar ((TildeValueKind) diag->kind);
      const double *dv = rt_values (cx, diag);
      for (int i = 0; i < N; i++)
        k[i + (gsize) i * N] += dv[scalar ? 0 : i];
    }
  if (ad)
    {
      GpSym *g = tilde_arena_alloc0 (cx->tape->arena, sizeof *g);
      g->out = r.start;
      g->n = N;
      g->ps = ps;
      g->pl = pl;
      g->sigma_id = s_ad ? sv->start : -1;
      g->l_id = l_ad ? lv->start : -1;
      if (d_ad)
        g->diag = rt_operand (diag, NULL);
      ad_push (cx->tape, gp_sym_backward, g);
    }
  *out = r;
}

static gboolean
is_stationary (GpKind kind)
{
  return kind == GP_EXP_QUAD || kind == GP_MATERN32 || kind == GP_MATERN52
    || kind == GP_EXPONENTIAL;
}

/* `diag` (may be NULL): add_diag (covariance, diag), fused. */
static void
gp_with_diag (RtCtx *cx, GpKind kind, int nargs, const TildeValue *a, const TildeValue *diag,
              TildeValue *out);

static void
gp (RtCtx *cx, GpKind kind, int nargs, const TildeValue *a, TildeValue *out)
{
  gp_with_diag (cx, kind, nargs, a, NULL, out);
}

static void
gp_with_diag (RtCtx *cx, GpKind kind, int nargs, const TildeValue *a, const TildeValue *diag,
              TildeValue *out)
{
  /* (x [, y], sigma [, l] [, p]) */
  int n_params = kind == GP_DOT_PROD ? 1 : kind == GP_PERIODIC ? 3 : 2;
  gboolean cross = nargs - n_params == 2;
  Points X, Y;
  points (cx, &a[0], cross ? "x1" : "x", &X);
  if (cross)
    points (cx, &a[1], "x2", &Y);
  else
    Y = X;
  if (cross && X.D != Y.D)
    rt_check_size (cx, "the dimensions of x1 and x2", X.D, Y.D);
  int D = X.D;
  const TildeValue *ps = &a[cross ? 2 : 1];
  double sigma = scalar_param (cx, &ps[0], kind == GP_DOT_PROD ? "sigma" : "magnitude",
                               kind == GP_DOT_PROD);
  /* length scales: one, or one per dimension */
  const TildeValue *lv = kind == GP_DOT_PROD ? NULL : &ps[1];
  gboolean ard = lv && !tilde_value_kind_is_scalar ((TildeValueKind) lv->kind);
  double *ls = NULL;
  if (lv)
    {
      int nl = ard ? tilde_value_flat_size (lv) : 1;
      if (ard)
        rt_check_size (cx, "the length scales and the dimensions of the points", nl, D);
      const double *lx = rt_values (cx, lv);
      ls = rt_alloc_d (cx, (gsize) D);
      for (int d = 0; d < D; d++)
        {
          ls[d] = lx[ard ? d : 0];
          if (!(ls[d] > 0) || isinf (ls[d]))
            rt_domain_error (cx, "length scale", ls[d], "positive finite");
        }
      if (!ard && D == 0)
        {
          double l0 = lx[0];
          if (!(l0 > 0) || isinf (l0))
            rt_domain_error (cx, "length scale", l0, "positive finite");
        }
    }
  double period = kind == GP_PERIODIC ? scalar_param (cx, &ps[2], "period", FALSE) : 0;
  double lsc = lv && !ard ? rt_values (cx, lv)[0] : 0;
  if (diag)
    {
      const char *name = cx->fn_name;
      cx->fn_name = "add_diag";
      if (!tilde_value_kind_is_scalar ((TildeValueKind) diag->kind))
        rt_check_size (cx, "add_diag", tilde_value_flat_size (diag), X.N);
      cx->fn_name = name;
    }
  if (!cross && !X.ad && lv && !ard && is_stationary (kind))
    {
      gp_symmetric (cx, kind, &X, &ps[0], sigma, lv, lsc, diag, out);
      return;
    }
  if (diag)
    {
      /* the general form, then add_diag as the library computes it */
      TildeValue cov, args[2];
      gp_with_diag (cx, kind, nargs, a, NULL, &cov);
      args[0] = cov;
      args[1] = *diag;
      cx->fn_name = "add_diag";
      rt_builtin_lookup ("add_diag", 2)->fn (cx, 2, args, out);
      return;
    }

  int N1 = X.N, N2 = Y.N, NN = N1 * N2;
  gboolean s_ad = ps[0].ad, l_ad = lv && lv->ad, p_ad = kind == GP_PERIODIC && ps[2].ad;
  gboolean ad = s_ad || l_ad || p_ad || X.ad || Y.ad;
  TildeValue r = ad ? rt_new_ad (cx, TILDE_VALUE_MATRIX, N1, N2)
    : rt_new_data (cx, TILDE_VALUE_MATRIX, N1, N2);
  double *k = ad ? cx->tape->val + r.start : r.u.d;
  /* partials: magnitude, each length scale (or the one), period, and each
   * coordinate of the two points */
  double *ps_s = s_ad ? rt_alloc_d (cx, (gsize) NN) : NULL;
  int nl = ard ? D : 1;
  double **ps_l = l_ad ? tilde_arena_alloc (cx->arena, sizeof (double *) * (gsize) nl) : NULL;
  for (int d = 0; l_ad && d < nl; d++)
    ps_l[d] = rt_alloc_d (cx, (gsize) NN);
  double *ps_p = p_ad ? rt_alloc_d (cx, (gsize) NN) : NULL;
  double **px = X.ad ? tilde_arena_alloc (cx->arena, sizeof (double *) * (gsize) MAX (D, 1)) : NULL;
  double **py = Y.ad ? tilde_arena_alloc (cx->arena, sizeof (double *) * (gsize) MAX (D, 1)) : NULL;
  for (int d = 0; d < D; d++)
    {
      if (px)
        px[d] = rt_alloc_d (cx, (gsize) NN);
      if (py)
        py[d] = rt_alloc_d (cx, (gsize) NN);
    }
  double s2 = sigma * sigma;
  double *delta = rt_alloc_d (cx, (gsize) MAX (D, 1));
  for (int j = 0; j < N2; j++)
    for (int i = 0; i < N1; i++)
      {
        int e = i + j * N1;
        const double *xi = X.x[i], *yj = Y.x[j];
        double v, dk_dx_scale = 0;   /* dk / d x_id = dk_dx_scale * delta_d / l_d^2 */
        if (kind == GP_DOT_PROD)
          {
            double dot = 0;
            for (int d = 0; d < D; d++)
              dot += xi[d] * yj[d];
            v = s2 + dot;
            if (ps_s)
              ps_s[e] = 2 * sigma;
            for (int d = 0; d < D; d++)
              {
                if (px)
                  px[d][e] = yj[d];
                if (py)
                  py[d][e] = xi[d];
              }
            k[e] = v;
            continue;
          }
        double r2 = 0, dist2 = 0;
        for (int d = 0; d < D; d++)
          {
            delta[d] = xi[d] - yj[d];
            r2 += delta[d] * delta[d] / (ls[d] * ls[d]);
            dist2 += delta[d] * delta[d];
          }
        if (kind == GP_PERIODIC)
          {
            double dist = sqrt (dist2), w = M_PI * dist / period;
            double s = sin (w), l2 = lsc * lsc;
            v = s2 * exp (-2 * s * s / l2);
            /* dk / d dist, and d dist / d x_d = delta_d / dist (a finite limit at 0) */
            double sin2w = sin (2 * w);
            double dk_ddist_over_dist = dist > 0 ? -v * (2 * M_PI / (l2 * period)) * sin2w / dist
              : -v * 4 * M_PI * M_PI / (l2 * period * period);
            if (ps_l)
              ps_l[0][e] = v * 4 * s * s / (l2 * lsc);
            if (ps_p)
              ps_p[e] = v * 2 * M_PI * dist * sin2w / (l2 * period * period);
            for (int d = 0; d < D; d++)
              {
                if (px)
                  px[d][e] = dk_ddist_over_dist * delta[d];
                if (py)
                  py[d][e] = -dk_ddist_over_dist * delta[d];
              }
          }
        else
          {
            double dk_dr2;
            v = stationary (kind, s2, r2, &dk_dr2);
            dk_dx_scale = 2 * dk_dr2;
            for (int d = 0; d < D; d++)
              {
                double g = dk_dx_scale * delta[d] / (ls[d] * ls[d]);
                if (px)
                  px[d][e] = g;
                if (py)
                  py[d][e] = -g;
                if (ps_l && ard)
                  ps_l[d][e] = -2 * dk_dr2 * delta[d] * delta[d] / (ls[d] * ls[d] * ls[d]);
              }
            if (ps_l && !ard)
              ps_l[0][e] = -2 * dk_dr2 * r2 / lsc;
          }
        if (ps_s)
          ps_s[e] = sigma > 0 ? 2 * v / sigma : 0;
        k[e] = v;
      }
  if (ad)
    {
      AdOperand *ops = tilde_arena_alloc (cx->arena, sizeof (AdOperand) * (gsize) (2 * D + nl + 2));
      guint n_ops = 0;
      if (ps_s)
        ops[n_ops++] = (AdOperand) { .start = ps[0].start, .n = 1, .partial = ps_s };
      for (int d = 0; ps_l && d < nl; d++)
        ops[n_ops++] = (AdOperand) { .start = tilde_value_var (lv, ard ? d : 0), .n = 1,
                                     .partial = ps_l[d] };
      if (ps_p)
        ops[n_ops++] = (AdOperand) { .start = ps[2].start, .n = 1, .partial = ps_p };
      for (int side = 0; side < 2; side++)
        {
          double **pp = side ? py : px;
          const Points *P = side ? &Y : &X;
          if (!pp)
            continue;
          for (int d = 0; d < D; d++)
            {
              gint32 *ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (NN, 1));
              gint32 constant = -1;
              for (int j = 0; j < N2; j++)
                for (int i = 0; i < N1; i++)
                  {
                    gint32 id = point_id (cx, P, side ? j : i, d);
                    if (id < 0)
                      {
                        /* a data point among parameters: its partials go
                         * to a constant nobody reads */
                        if (constant < 0)
                          constant = ad_constant (cx->tape, 0.0);
                        id = constant;
                      }
                    ids[i + j * N1] = id;
                  }
              ops[n_ops++] = (AdOperand) { .idx = ids, .n = NN, .partial = pp[d] };
            }
        }
      ad_elementwise (cx->tape, r.start, NN, n_ops, ops);
    }
  *out = r;
}

#define GP_KERNEL(name, kind)                                                    \
  static void k_##name (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out) \
  {                                                                              \
    gp (cx, kind, nargs, a, out);                                                \
  }

GP_KERNEL (gp_exp_quad_cov, GP_EXP_QUAD)
GP_KERNEL (gp_matern32_cov, GP_MATERN32)
GP_KERNEL (gp_matern52_cov, GP_MATERN52)
GP_KERNEL (gp_exponential_cov, GP_EXPONENTIAL)
GP_KERNEL (gp_periodic_cov, GP_PERIODIC)
GP_KERNEL (gp_dot_prod_cov, GP_DOT_PROD)

/* add_diag (gp_..._cov (x, magnitude, length scale), d): the covariance's
 * arguments, then d. */
#define GP_ADD_DIAG_KERNEL(name, kind)                                                   \
  static void k_##name##_add_diag (RtCtx *cx, int nargs, const TildeValue *a, TildeValue *out) \
  {                                                                                      \
    gp_with_diag (cx, kind, nargs - 1, a, &a[nargs - 1], out);                           \
  }

GP_ADD_DIAG_KERNEL (gp_exp_quad_cov, GP_EXP_QUAD)
GP_ADD_DIAG_KERNEL (gp_matern32_cov, GP_MATERN32)
GP_ADD_DIAG_KERNEL (gp_matern52_cov, GP_MATERN52)
GP_ADD_DIAG_KERNEL (gp_exponential_cov, GP_EXPONENTIAL)

const RtBuiltin rt_builtins_gp[] = {
  { "gp_exp_quad_cov", k_gp_exp_quad_cov, 3, 4 },
  { "gp_matern32_cov", k_gp_matern32_cov, 3, 4 },
  { "gp_matern52_cov", k_gp_matern52_cov, 3, 4 },
  { "gp_exponential_cov", k_gp_exponential_cov, 3, 4 },
  { "gp_periodic_cov", k_gp_periodic_cov, 4, 5 },
  { "gp_dot_prod_cov", k_gp_dot_prod_cov, 2, 3 },
  /* fused by the compiler: the covariance of one set of points with its
   * diagonal added */
  { "gp_exp_quad_cov add_diag", k_gp_exp_quad_cov_add_diag, 4, 4 },
  { "gp_matern32_cov add_diag", k_gp_matern32_cov_add_diag, 4, 4 },
  { "gp_matern52_cov add_diag", k_gp_matern52_cov_add_diag, 4, 4 },
  { "gp_exponential_cov add_diag", k_gp_exponential_cov_add_diag, 4, 4 },
  { NULL, NULL, 0, 0 },
};
