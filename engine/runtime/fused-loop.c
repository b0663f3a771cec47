/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Loops of scalar terms as one node.
 *
 *   for (n in 1:N)
 *     target += log_mix (theta, normal_lpdf (y[n] | mu[1], sigma[1]),
 *                        normal_lpdf (y[n] | mu[2], sigma[2]));
 *
 * computed as written records about ten nodes an iteration and walks them
 * all in the reverse sweep. Here the body is a short program (compiled in
 * post-order, see Lx in exec-private.h). The instructions that do not
 * depend on n (the leaves mu[1] and theta, the checks of sigma and theta,
 * 1 / sigma, log sigma, log theta and log1m theta) run once before the
 * loop; in every iteration the others run forward, for the value and their
 * partials with respect to their operands, and backward, adding to the
 * adjoints of the loop-invariant instructions; after the loop those are
 * taken back to the leaves once, and one reduction records the sum of the
 * terms with its partials. Leaves that vary with n are slices of
 * one-dimensional containers: data are read in place, and a slice of
 * autodiff variables gets one partial per iteration.
 *
 * The values and partials are the library's formulas. A check that fails,
 * a slice out of range or anything else not covered gives up: the tape is
 * rewound and the loop runs as written, so that errors and their messages
 * are the loop's own.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/exec-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <string.h>

#define CX (&ev->cx)

/* What a slice reads in the iterations. */
typedef struct {
  const double *x;     /* reals, from the first iteration's element */
  const int    *iv;    /* or ints */
  TildeValue    ad;    /* autodiff variables: the view over the iterations */
  double       *p;     /* and their partials, one per iteration */
} LxSlice;

G_GNUC_NORETURN static void
give_up (Ev *ev)
{
  rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "not for the fused form");
}

static gboolean
is_flat_1d (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_VECTOR || v->kind == TILDE_VALUE_ROW_VECTOR
    || (v->kind == TILDE_VALUE_ARRAY && tilde_value_is_flat (v)
        && (v->elem == TILDE_VALUE_INT || v->elem == TILDE_VALUE_REAL));
}

/* The elements lo + sign * off .. of e that iterations 0 .. n - 1 read. */
static void
open_slice (Ev *ev, const Lx *ins, int lo, gint32 n, LxSlice *sl)
{
  TildeValue b, off;
  rt_eval (ev, ins->e, &b);
  if (!is_flat_1d (&b))
    give_up (ev);
  gint64 first = lo;
  if (ins->off)
    {
      rt_eval (ev, ins->off, &off);
      first += (gint64) ins->sign * rt_int (CX, &off);
    }
  if (first < 1 || first + n - 1 > tilde_value_flat_size (&b))
    give_up (ev);
  gint32 k = (gint32) first - 1;
  memset (sl, 0, sizeof *sl);
  if (b.ad)
    {
      sl->ad = b;
      sl->ad.kind = TILDE_VALUE_VECTOR;
      sl->ad.rows = n;
      sl->ad.cols = 1;
      if (b.idx)
        sl->ad.idx = b.idx + k;
      else
        sl->ad.start = b.start + k;
      sl->x = CX->tape->val;     /* read through the ids */
      sl->p = rt_alloc_d (CX, (gsize) n);
    }
  else if (b.kind == TILDE_VALUE_ARRAY && b.elem == TILDE_VALUE_INT)
    sl->iv = b.u.iv + k;
  else
    sl->x = b.u.d + k;
}

static inline double
slice_value (const LxSlice *sl, gint32 i)
{
  if (sl->p)
    return sl->x[sl->ad.idx ? sl->ad.idx[i] : sl->ad.start + i];
  return sl->iv ? sl->iv[i] : sl->x[i];
}

/* A leaf's value, and its variable's id (-1 for none). */
static double
leaf_value (Ev *ev, const Lx *ins, gint32 *id)
{
  TildeValue v;
  rt_eval (ev, ins->e, &v);
  *id = -1;
  if (v.kind == TILDE_VALUE_INT)
    return v.u.i;
  if (v.kind != TILDE_VALUE_REAL)
    give_up (ev);
  if (v.ad)
    {
      *id = v.start;
      return CX->tape->val[v.start];
    }
  return v.u.r;
}

/* One instruction forward: its value, and in d its partials with respect
 * to its operands. */
G_ALWAYS_INLINE static inline double
lx_forward (Ev *ev, const Lx *ins, const double *val, double *d)
{
  double a = val[ins->args[0]], b = 0, c = 0, v;
  if (ins->n_args > 1)
    b = val[ins->args[1]];
  if (ins->n_args > 2)
    c = val[ins->args[2]];
  switch (ins->op)
    {
    case LX_ADD: d[0] = 1; d[1] = 1; return a + b;
    case LX_SUB: d[0] = 1; d[1] = -1; return a - b;
    case LX_MUL: d[0] = b; d[1] = a; return a * b;
    case LX_DIV: d[0] = 1 / b; d[1] = -a / (b * b); return a / b;
    case LX_FMA: d[0] = b; d[1] = a; d[2] = 1; return fma (a, b, c);
    case LX_POW:
      v = pow (a, b);
      d[0] = b == 0 ? 0 : b * pow (a, b - 1);
      d[1] = a == 0 ? 0 : v * log (a);
      return v;
    case LX_NEG: d[0] = -1; return -a;
    case LX_SQUARE: d[0] = 2 * a; return a * a;
    case LX_SQRT: v = sqrt (a); d[0] = 0.5 / v; return v;
    case LX_EXP: v = exp (a); d[0] = v; return v;
    case LX_LOG: d[0] = 1 / a; return log (a);
    case LX_EXPM1: v = expm1 (a); d[0] = v + 1; return v;
    case LX_LOG1P:
      if (!(a >= -1))
        give_up (ev);
      d[0] = 1 / (1 + a);
      return log1p (a);
    case LX_LOG1M:
      if (!(a <= 1))
        give_up (ev);
      d[0] = -1 / (1 - a);
      return log1p (-a);
    case LX_INV: d[0] = -1 / (a * a); return 1 / a;
    case LX_INV_LOGIT: v = tilde_inv_logit (a); d[0] = v * (1 - v); return v;
    case LX_LOG_SUM_EXP:
      v = tilde_log_sum_exp2 (a, b);
      d[0] = exp (a - v);
      d[1] = exp (b - v);
      return v;
    case LX_CHECK_POSITIVE:
      if (!(a > 0))
        give_up (ev);
      d[0] = 1;
      return a;
    case LX_CHECK_UNIT:
      if (!(a >= 0 && a <= 1))
        give_up (ev);
      d[0] = 1;
      return a;
    case LX_NORMAL:
      {
        /* y, mu, 1 / sigma, log sigma */
        double r = c, l = val[ins->args[3]], diff = a - b, z = diff * r;
        if (isnan (a) || !isfinite (b))
          give_up (ev);
        d[0] = -z * r;
        d[1] = z * r;
        d[2] = -z * diff;
        d[3] = -1;
        return -0.5 * z * z - TILDE_LOG_SQRT_TWO_PI - l;
      }
    case LX_LOG_MIX:
      {
        /* a, b, log theta, log1m theta */
        double x = c + a, y = val[ins->args[3]] + b;
        if (G_UNLIKELY (!isfinite (x) || !isfinite (y)))
          {
            v = tilde_log_sum_exp2 (x, y);
            d[0] = d[2] = exp (x - v);
            d[1] = d[3] = exp (y - v);
            return v;
          }
        /* log_sum_exp's own value; the weights from its one exponential */
        double e = exp (-fabs (x - y)), w = 1 / (1 + e);
        gboolean x_max = x > y;
        v = (x_max ? x : y) + log1p (e);
        d[0] = d[2] = x_max ? w : e * w;
        d[1] = d[3] = x_max ? e * w : w;
        return v;
      }
    default:
      g_assert_not_reached ();
    }
}

Flow
rt_st_for_scalars (Ev *ev, const St *s)
{
  if (ev->context != TILDE_MODEL_CONTEXT_JOINT && (s->mixed_roles || !rt_term_counts (ev, s)))
    return s->mixed_roles ? rt_exec (ev, s->else_s) : FLOW_NEXT;
  TildeValue bound;
  rt_eval (ev, s->e, &bound);
  gint64 lo = rt_int (CX, &bound);
  rt_eval (ev, s->e2, &bound);
  gint64 hi = rt_int (CX, &bound);
  if (hi < lo)
    return FLOW_NEXT;
  if (hi - lo + 1 > G_MAXINT32 || lo < G_MININT32 || hi > G_MAXINT32)
    return rt_exec (ev, s->else_s);
  RtFusedMark m;
  jmp_buf jmp;
  rt_fused_mark (ev, &m);
  if (setjmp (jmp))
    {
      rt_fused_rewind (ev, &m);
      return rt_exec (ev, s->else_s);
    }
  CX->jmp = &jmp;

  const Lx *prog = s->lx;
  int n_prog = s->n_lx, last = n_prog - 1;
  gint32 n = (gint32) (hi - lo + 1);
  double val[LX_MAX_PROGRAM], adj[LX_MAX_PROGRAM], d[LX_MAX_PROGRAM][LX_MAX_OPERANDS];
  gint32 id[LX_MAX_PROGRAM];
  LxSlice slices[LX_MAX_PROGRAM];
  gboolean any_ad = FALSE;
  int vary[LX_MAX_PROGRAM], n_vary = 0;

  /* once: the leaves, the slices' storage and what does not vary */
  for (int k = 0; k < n_prog; k++)
    {
      const Lx *ins = &prog[k];
      id[k] = -1;
      adj[k] = 0;
      switch (ins->op)
        {
        case LX_LEAF:
          val[k] = leaf_value (ev, ins, &id[k]);
          any_ad |= id[k] >= 0;
          break;
        case LX_SLICE:
          open_slice (ev, ins, (int) lo, n, &slices[k]);
          any_ad |= slices[k].p != NULL;
          break;
        case LX_LOOP_VAR:
          break;
        default:
          if (!ins->varies)
            val[k] = lx_forward (ev, ins, val, d[k]);
        }
      if (ins->varies)
        vary[n_vary++] = k;
    }

  /* every iteration: forward over what varies, then backward over it,
   * the adjoints of what does not vary summed over the iterations */
  double total = 0;
  for (gint32 i = 0; i < n; i++)
    {
      for (int j = 0; j < n_vary; j++)
        {
          int k = vary[j];
          const Lx *ins = &prog[k];
          if (ins->op == LX_SLICE)
            val[k] = slice_value (&slices[k], i);
          else if (ins->op == LX_LOOP_VAR)
            val[k] = (double) (lo + i);
          else
            val[k] = lx_forward (ev, ins, val, d[k]);
        }
      total += val[last];
      if (!any_ad)
        continue;
      adj[last] = 1;
      for (int j = n_vary; j-- > 0;)
        {
          int k = vary[j];
          const Lx *ins = &prog[k];
          double g = adj[k];
          adj[k] = 0;
          if (ins->op == LX_SLICE)
            {
              if (slices[k].p)
                slices[k].p[i] = g;
              continue;
            }
          for (int a = 0; a < ins->n_args; a++)
            adj[ins->args[a]] += g * d[k][a];
        }
    }

  TildeValue out;
  if (!any_ad)
    tilde_value_set_real (&out, total);
  else
    {
      /* once: back through what does not vary to the leaves */
      AdOperand ops[LX_MAX_PROGRAM];
      guint n_ops = 0;
      for (int k = last; k >= 0; k--)
        {
          const Lx *ins = &prog[k];
          if (ins->op == LX_SLICE)
            {
              if (slices[k].p)
                ops[n_ops++] = rt_operand (&slices[k].ad, slices[k].p);
              continue;
            }
          if (ins->varies || ins->op == LX_LOOP_VAR)
            continue;
          if (ins->op == LX_LEAF)
            {
              if (id[k] >= 0)
                {
                  double *p = rt_alloc_d (CX, 1);
                  *p = adj[k];
                  ops[n_ops++] = (AdOperand) { .start = id[k], .n = 1, .partial = p };
                }
              continue;
            }
          for (int j = 0; j < ins->n_args; j++)
            adj[ins->args[j]] += adj[k] * d[k][j];
        }
      out = rt_reduce (CX, total, n_ops, ops);
    }
  CX->jmp = m.outer;
  rt_add_term (ev, &out);
  return FLOW_NEXT;
}
