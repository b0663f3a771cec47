/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Normal linear models over data by their sufficient statistics.
 *
 * `y ~ normal_id_glm (X, alpha, beta, sigma)` (or `normal (X * beta +
 * alpha, sigma)`) with y and X data of the data or transformed data
 * blocks depends on alpha and beta only through the sum of squares
 *
 *   S = sum_i (y_i - alpha - x_i beta)^2,
 *
 * a quadratic form whose coefficients are computed once, when the model is
 * prepared: with the column means m of X, the mean of y, and the centred
 * yc and Xc, A = Xc' Xc, g = Xc' yc, yc' yc and the sums of yc and Xc (zero
 * but for rounding, kept so that nothing is lost). With c = mean (y) -
 * alpha - m' beta and u = yc - Xc beta,
 *
 *   S = yc' yc - 2 beta' g + beta' A beta + 2 c sum (u) + N c^2,
 *
 * so an evaluation costs K^2 instead of 2 N K: for N = 5000 observations
 * of K = 23 predictors, about 600 multiply-adds where the product and its
 * transpose read X's 115,000 numbers twice. Centring keeps what the
 * subtraction loses to rounding to the digits of yc' yc over S (the
 * inverse of 1 - R^2), a few at most.
 *
 * The density, its constants dropped or kept as Stan does, and its
 * partials are those of the CPU path; anything not finite, sizes that do
 * not agree, or a parameter out of its domain sends the evaluation to the
 * statement as compiled, whose error and message are Stan's.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/normal-stats.h"
#include "runtime/math/special.h"
#include "gpu/plan.h"

#include <cblas.h>
#include <math.h>

struct RtNormalStats {
  StFn          cpu_fn;        /* the statement as compiled */
  const Ex     *alpha, *beta, *sigma;   /* alpha may be NULL */
  gboolean      drop;          /* an _lupdf call */
  gint32        n, k;
  double        y_mean;
  double       *x_mean;        /* m, K */
  double       *a;             /* A = Xc' Xc, K x K, both triangles */
  double       *g;             /* Xc' yc */
  double        syy, sy;       /* yc' yc, sum (yc) */
  double       *sx;            /* sum of the rows of Xc */
};

static gboolean
all_finite (const double *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (x[i]))
      return FALSE;
  return TRUE;
}

/* The statistics of y and X (column-major, N x K), in the persistent arena;
 * NULL when a value is not finite (every evaluation is then the CPU
 * path's, which raises the error). */
static RtNormalStats *
stats_new (TildeArena *arena, const double *y, const double *x, gint32 n, gint32 k)
{
  if (n < 1 || !all_finite (y, (gsize) n) || !all_finite (x, (gsize) n * (gsize) k))
    return NULL;
  RtNormalStats *st = tilde_arena_new0 (arena, RtNormalStats);
  st->n = n;
  st->k = k;
  st->x_mean = tilde_arena_alloc (arena, sizeof (double) * (gsize) MAX (k, 1));
  st->g = tilde_arena_alloc (arena, sizeof (double) * (gsize) MAX (k, 1));
  st->sx = tilde_arena_alloc (arena, sizeof (double) * (gsize) MAX (k, 1));
  st->a = tilde_arena_alloc (arena, sizeof (double) * (gsize) MAX (k * k, 1));
  double s = 0;
  for (gint32 i = 0; i < n; i++)
    s += y[i];
  st->y_mean = s / n;
  g_autofree double *yc = g_new (double, n);
  g_autofree double *xc = g_new (double, (gsize) n * (gsize) MAX (k, 1));
  for (gint32 i = 0; i < n; i++)
    {
      yc[i] = y[i] - st->y_mean;
      st->syy += yc[i] * yc[i];
      st->sy += yc[i];
    }
  for (gint32 j = 0; j < k; j++)
    {
      const double *col = x + (gsize) j * (gsize) n;
      double *c = xc + (gsize) j * (gsize) n;
      s = 0;
      for (gint32 i = 0; i < n; i++)
        s += col[i];
      st->x_mean[j] = s / n;
      double sxj = 0;
      for (gint32 i = 0; i < n; i++)
        {
          c[i] = col[i] - st->x_mean[j];
          sxj += c[i];
        }
      st->sx[j] = sxj;
    }
  if (k > 0)
    {
      /* g = Xc' yc and A = Xc' Xc by BLAS: N K^2 / 2 multiply-adds, 5 x 10^9
       * for a million rows of 100 predictors */
      cblas_dgemv (CblasColMajor, CblasTrans, n, k, 1.0, xc, n, yc, 1, 0.0, st->g, 1);
      cblas_dsyrk (CblasColMajor, CblasLower, CblasTrans, k, n, 1.0, xc, n, 0.0, st->a, k);
      for (gint32 j = 0; j < k; j++)
        for (gint32 l = 0; l < j; l++)
          st->a[j * k + l] = st->a[l * k + j];
    }
  return st;
}

static gboolean
is_unnormalised (const MirFun *f)
{
  return f->propto || g_str_has_suffix (f->name, "_lupdf");
}

static void
attach (St *s, const TildeValue *globals, int n_globals, TildeArena *arena, guint *n_attached)
{
  TildeGpuSite site;
  if ((s->fn != rt_st_target && s->fn != rt_st_target_fused) || !s->mir
      || s->mir->kind != MIR_STMT_TARGET_PLUS
      || !tilde_gpu_site_match (s->mir->u.increment.expr, &site)
      || site.family != TILDE_GPU_GLM_NORMAL_ID || !site.sigma)
    return;
  const TildeValue *x = rt_global_value (rt_ex_find (s->e, site.x), globals, n_globals);
  const TildeValue *y = rt_global_value (rt_ex_find (s->e, site.y), globals, n_globals);
  const Ex *alpha = site.alpha ? rt_ex_find (s->e, site.alpha) : NULL;
  const Ex *beta = rt_ex_find (s->e, site.beta), *sigma = rt_ex_find (s->e, site.sigma);
  if (!x || !y || x->kind != TILDE_VALUE_MATRIX || y->kind != TILDE_VALUE_VECTOR || x->ad
      || y->ad || y->rows != x->rows || !beta || !sigma || (site.alpha && !alpha))
    return;
  RtNormalStats *st = stats_new (arena, y->u.d, x->u.d, x->rows, x->cols);
  if (!st)
    return;
  st->cpu_fn = s->fn;
  st->alpha = alpha;
  st->beta = beta;
  st->sigma = sigma;
  st->drop = is_unnormalised (&site.call->u.call.fun);
  s->normal_stats = st;
  s->fn = rt_st_target_normal_stats;
  (*n_attached)++;
}

static void
attach_all (St *s, const TildeValue *globals, int n_globals, TildeArena *arena, guint *n)
{
  if (!s)
    return;
  attach (s, globals, n_globals, arena, n);
  for (int i = 0; i < s->n_body; i++)
    attach_all (s->body[i], globals, n_globals, arena, n);
  attach_all (s->then_s, globals, n_globals, arena, n);
  attach_all (s->else_s, globals, n_globals, arena, n);
}

static gint enabled = TRUE;

void
rt_normal_stats_set_enabled (gboolean on)
{
  g_atomic_int_set (&enabled, on);
}

guint
rt_normal_stats_attach (St *log_prob, const TildeValue *globals, int n_globals, TildeArena *arena)
{
  guint n = 0;
  if (!g_atomic_int_get (&enabled))
    return 0;
  attach_all (log_prob, globals, n_globals, arena, &n);
  return n;
}

/* The density and its partials from the statistics; FALSE for the CPU
 * path to evaluate (and raise the error). */
static gboolean
evaluate (Ev *ev, const RtNormalStats *st, TildeValue *out)
{
  RtCtx *cx = &ev->cx;
  TildeValue a = { 0 }, b, sg;
  if (st->alpha)
    rt_eval (ev, st->alpha, &a);
  else
    tilde_value_set_real (&a, 0);
  rt_eval (ev, st->beta, &b);
  rt_eval (ev, st->sigma, &sg);
  if (!tilde_value_kind_is_scalar ((TildeValueKind) a.kind)
      || !tilde_value_kind_is_scalar ((TildeValueKind) sg.kind)
      || b.kind != TILDE_VALUE_VECTOR || b.rows != st->k)
    return FALSE;
  double alpha = rt_scalar (cx, &a), sigma = rt_scalar (cx, &sg);
  const double *beta = rt_stable_values (cx, &b);
  gint32 k = st->k, n = st->n;
  if (!isfinite (alpha) || !(sigma > 0) || !isfinite (sigma) || !all_finite (beta, (gsize) k))
    return FALSE;
  gboolean any_ad = a.ad || b.ad || sg.ad;
  gboolean drop = st->drop && cx->propto;
  if (drop && !any_ad)
    {
      tilde_value_set_real (out, 0);
      return TRUE;
    }
  /* A beta, m' beta, beta' g, beta' A beta, sum (Xc) beta */
  double *ab = rt_alloc_d (cx, (gsize) MAX (k, 1));
  if (k > 0)
    cblas_dgemv (CblasColMajor, CblasNoTrans, k, k, 1.0, st->a, k, beta, 1, 0.0, ab, 1);
  double mb = 0, bg = 0, bab = 0, sxb = 0;
  for (gint32 j = 0; j < k; j++)
    {
      mb += st->x_mean[j] * beta[j];
      bg += beta[j] * st->g[j];
      bab += beta[j] * ab[j];
      sxb += st->sx[j] * beta[j];
    }
  double c = st->y_mean - alpha - mb, su = st->sy - sxb;
  double ss = fmax (st->syy - 2 * bg + bab + 2 * c * su + n * c * c, 0);
  if (!isfinite (ss))
    return FALSE;
  double inv_var = 1 / (sigma * sigma);
  double logp = -0.5 * ss * inv_var;
  gboolean keep_sigma = !drop || sg.ad;
  if (!drop)
    logp -= n * TILDE_LOG_SQRT_TWO_PI;
  if (keep_sigma)
    logp -= n * log (sigma);
  AdOperand ops[3];
  guint n_ops = 0;
  double *p = rt_alloc_d (cx, 2);
  if (a.ad)
    {
      p[0] = (su + n * c) * inv_var;
      ops[n_ops++] = rt_operand (&a, &p[0]);
    }
  if (b.ad)
    {
      /* d S / d beta = 2 (A beta - g) - 2 m sum (u) - 2 c sx - 2 N c m */
      double *pb = rt_alloc_d (cx, (gsize) MAX (k, 1));
      for (gint32 j = 0; j < k; j++)
        pb[j] = -(ab[j] - st->g[j] - st->x_mean[j] * su - c * st->sx[j]
                  - n * c * st->x_mean[j]) * inv_var;
      ops[n_ops++] = rt_operand (&b, pb);
    }
  if (sg.ad)
    {
      p[1] = ss * inv_var / sigma - (keep_sigma ? n / sigma : 0);
      ops[n_ops++] = rt_operand (&sg, &p[1]);
    }
  *out = rt_reduce (cx, logp, n_ops, ops);
  return TRUE;
}

Flow
rt_st_target_normal_stats (Ev *ev, const St *s)
{
  const RtNormalStats *st = s->normal_stats;
  if (!rt_term_counts (ev, s))
    return FLOW_NEXT;
  TildeValue v;
  if (!evaluate (ev, st, &v))
    return st->cpu_fn (ev, s);
  rt_add_term (ev, &v);
  return FLOW_NEXT;
}
