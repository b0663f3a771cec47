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
 * The iterations run in blocks: each instruction over a block of
 * iterations at a time, forward, then backward, so that the dispatch on
 * the instruction is paid once a block, not once an iteration.
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

#define give_up rt_fused_give_up

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

/* One instruction on one element: its value, and in d its partials with
 * respect to its operands a, b, c, e; *bad when a check fails. Inlined
 * into one loop per operation. */
G_ALWAYS_INLINE static inline double
lx_op (LxOp op, double a, double b, double c, double e, double *d, gboolean *bad)
{
  double v;
  switch (op)
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
      *bad |= !(a >= -1);
      d[0] = 1 / (1 + a);
      return log1p (a);
    case LX_LOG1M:
      *bad |= !(a <= 1);
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
      *bad |= !(a > 0);
      d[0] = 1;
      return a;
    case LX_CHECK_UNIT:
      *bad |= !(a >= 0 && a <= 1);
      d[0] = 1;
      return a;
    case LX_NORMAL:
      {
        /* y, mu, 1 / sigma, log sigma */
        double diff = a - b, z = diff * c;
        *bad |= isnan (a) || !isfinite (b);
        d[0] = -z * c;
        d[1] = z * c;
        d[2] = -z * diff;
        d[3] = -1;
        return -0.5 * z * z - TILDE_LOG_SQRT_TWO_PI - e;
      }
    case LX_NORMAL_NO_CONST:
    case LX_NORMAL_KERNEL:
    case LX_NORMAL_NONE:
      {
        double diff = a - b, z = diff * c;
        *bad |= isnan (a) || !isfinite (b);
        if (op == LX_NORMAL_NONE)
          {
            d[0] = d[1] = d[2] = d[3] = 0;
            return 0;
          }
        d[0] = -z * c;
        d[1] = z * c;
        d[2] = -z * diff;
        d[3] = op == LX_NORMAL_NO_CONST ? -1 : 0;
        return op == LX_NORMAL_NO_CONST ? -0.5 * z * z - e : -0.5 * z * z;
      }
    case LX_LOG_MIX:
      {
        /* a, b, log theta, log1m theta */
        double x = c + a, y = e + b;
        if (G_UNLIKELY (!isfinite (x) || !isfinite (y)))
          {
            v = tilde_log_sum_exp2 (x, y);
            d[0] = d[2] = exp (x - v);
            d[1] = d[3] = exp (y - v);
            return v;
          }
        /* log_sum_exp's own value; the weights from its one exponential */
        double w_other = exp (-fabs (x - y)), w = 1 / (1 + w_other);
        gboolean x_max = x > y;
        v = (x_max ? x : y) + log1p (w_other);
        d[0] = d[2] = x_max ? w : w_other * w;
        d[1] = d[3] = x_max ? w_other * w : w;
        return v;
      }
    default:
      g_assert_not_reached ();
    }
}

#define LX_BLOCK 128

/* Where an operand's values are: an instruction that varies has one per
 * iteration of the block, one that does not its one value (step 0). */
typedef struct {
  double  *v[LX_MAX_PROGRAM];
  double  *d[LX_MAX_PROGRAM][LX_MAX_OPERANDS];
  double  *adj[LX_MAX_PROGRAM];
  gboolean vec[LX_MAX_PROGRAM];
} LxBlock;

/* ins over the m iterations of the block: values and partials. */
static void
lx_block_forward (Ev *ev, const Lx *ins, LxOp op, LxBlock *bl, int k, int m)
{
  static const double zero = 0;
  const double *x[LX_MAX_OPERANDS];
  int step[LX_MAX_OPERANDS];
  double scratch[LX_BLOCK];
  double *d[LX_MAX_OPERANDS];
  for (int j = 0; j < LX_MAX_OPERANDS; j++)
    {
      gboolean has = j < ins->n_args;
      x[j] = has ? bl->v[ins->args[j]] : &zero;
      step[j] = has && bl->vec[ins->args[j]];
      d[j] = has ? bl->d[k][j] : scratch;
    }
  double *out = bl->v[k];
  gboolean bad = FALSE;
  switch (op)
    {
#define LX_CASE(OP)                                                              \
    case OP:                                                                     \
      for (int i = 0; i < m; i++)                                                \
        {                                                                        \
          double dl[LX_MAX_OPERANDS] = { 0 };                                    \
          out[i] = lx_op (OP, x[0][i * step[0]], x[1][i * step[1]],              \
                          x[2][i * step[2]], x[3][i * step[3]], dl, &bad);       \
          d[0][i] = dl[0];                                                       \
          d[1][i] = dl[1];                                                       \
          d[2][i] = dl[2];                                                       \
          d[3][i] = dl[3];                                                       \
        }                                                                        \
      break;
    LX_CASE (LX_ADD) LX_CASE (LX_SUB) LX_CASE (LX_MUL) LX_CASE (LX_DIV)
    LX_CASE (LX_FMA) LX_CASE (LX_POW) LX_CASE (LX_NEG) LX_CASE (LX_SQUARE)
    LX_CASE (LX_SQRT) LX_CASE (LX_EXP) LX_CASE (LX_LOG) LX_CASE (LX_EXPM1)
    LX_CASE (LX_LOG1P) LX_CASE (LX_LOG1M) LX_CASE (LX_INV) LX_CASE (LX_INV_LOGIT)
    LX_CASE (LX_LOG_SUM_EXP) LX_CASE (LX_CHECK_POSITIVE) LX_CASE (LX_CHECK_UNIT)
    LX_CASE (LX_NORMAL) LX_CASE (LX_LOG_MIX) LX_CASE (LX_NORMAL_NO_CONST)
    LX_CASE (LX_NORMAL_KERNEL) LX_CASE (LX_NORMAL_NONE)
#undef LX_CASE
    default:
      g_assert_not_reached ();
    }
  if (bad)
    give_up (ev);
}

/* Backward over ins for the m iterations of the block: into the adjoints
 * of the operands that vary, and summed into those of the ones that do
 * not. */
static void
lx_block_backward (const Lx *ins, LxBlock *bl, int k, int m, double *adj)
{
  const double *g = bl->adj[k];
  for (int j = 0; j < ins->n_args; j++)
    {
      int a = ins->args[j];
      const double *d = bl->d[k][j];
      if (bl->vec[a])
        {
          double *ga = bl->adj[a];
          for (int i = 0; i < m; i++)
            ga[i] += g[i] * d[i];
        }
      else
        {
          double sum = 0;
          for (int i = 0; i < m; i++)
            sum += g[i] * d[i];
          adj[a] += sum;
        }
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
  RtFusedMark mark;
  jmp_buf jmp;
  rt_fused_mark (ev, &mark);
  if (setjmp (jmp))
    {
      rt_fused_rewind (ev, &mark);
      return rt_exec (ev, s->else_s);
    }
  CX->jmp = &jmp;

  const Lx *prog = s->lx;
  int n_prog = s->n_lx, last = n_prog - 1;
  gint32 n = (gint32) (hi - lo + 1);
  double val[LX_MAX_PROGRAM], adj[LX_MAX_PROGRAM], d[LX_MAX_PROGRAM][LX_MAX_OPERANDS];
  gint32 id[LX_MAX_PROGRAM];
  LxSlice slices[LX_MAX_PROGRAM];
  LxBlock bl;
  int vary[LX_MAX_PROGRAM], n_vary = 0;
  gboolean any_ad = FALSE;
  gboolean ad[LX_MAX_PROGRAM];   /* depends on autodiff variables */
  LxOp op[LX_MAX_PROGRAM];       /* what runs: a normal_lupdf's form chosen here */

  /* once: the leaves, the slices' storage and what does not vary */
  for (int k = 0; k < n_prog; k++)
    {
      const Lx *ins = &prog[k];
      id[k] = -1;
      adj[k] = 0;
      bl.vec[k] = ins->varies;
      bl.v[k] = &val[k];
      if (ins->varies)
        {
          vary[n_vary++] = k;
          bl.v[k] = rt_alloc_d (CX, LX_BLOCK);
          bl.adj[k] = rt_alloc_d (CX, LX_BLOCK);
          for (int j = 0; j < ins->n_args; j++)
            bl.d[k][j] = rt_alloc_d (CX, LX_BLOCK);
        }
      gboolean bad = FALSE;
      op[k] = ins->op;
      ad[k] = FALSE;
      for (int j = 0; j < ins->n_args; j++)
        ad[k] |= ad[ins->args[j]];
      if (ins->drop && CX->propto)
        op[k] = !ad[k] ? LX_NORMAL_NONE : ad[ins->args[3]] ? LX_NORMAL_NO_CONST
          : LX_NORMAL_KERNEL;
      switch (ins->op)
        {
        case LX_LEAF:
          val[k] = leaf_value (ev, ins, &id[k]);
          ad[k] = id[k] >= 0;
          break;
        case LX_SLICE:
          open_slice (ev, ins, (int) lo, n, &slices[k]);
          ad[k] = slices[k].p != NULL;
          break;
        case LX_LOOP_VAR:
          break;
        default:
          if (ins->varies)
            break;
          double e[LX_MAX_OPERANDS] = { 0 };
          for (int j = 0; j < ins->n_args; j++)
            e[j] = val[ins->args[j]];
          val[k] = lx_op (op[k], e[0], e[1], e[2], e[3], d[k], &bad);
        }
      any_ad |= ad[k];
      if (bad)
        give_up (ev);
    }

  /* block by block: forward over what varies, then backward over it, the
   * adjoints of what does not vary summed over the iterations */
  double total = 0;
  for (gint32 i0 = 0; i0 < n; i0 += LX_BLOCK)
    {
      int m = (int) MIN (LX_BLOCK, n - i0);
      for (int j = 0; j < n_vary; j++)
        {
          int k = vary[j];
          const Lx *ins = &prog[k];
          double *v = bl.v[k];
          if (ins->op == LX_SLICE)
            for (int i = 0; i < m; i++)
              v[i] = slice_value (&slices[k], i0 + i);
          else if (ins->op == LX_LOOP_VAR)
            for (int i = 0; i < m; i++)
              v[i] = (double) (lo + i0 + i);
          else
            lx_block_forward (ev, ins, op[k], &bl, k, m);
        }
      const double *v = bl.v[last];
      for (int i = 0; i < m; i++)
        total += v[i];
      if (!any_ad)
        continue;
      for (int j = 0; j < n_vary; j++)
        memset (bl.adj[vary[j]], 0, sizeof (double) * (gsize) m);
      for (int i = 0; i < m; i++)
        bl.adj[last][i] = 1;
      for (int j = n_vary; j-- > 0;)
        {
          int k = vary[j];
          const Lx *ins = &prog[k];
          if (ins->op == LX_SLICE)
            {
              if (slices[k].p)
                memcpy (slices[k].p + i0, bl.adj[k], sizeof (double) * (gsize) m);
            }
          else if (ins->op != LX_LOOP_VAR)
            lx_block_backward (ins, &bl, k, m, adj);
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
  CX->jmp = mark.outer;
  rt_add_term (ev, &out);
  return FLOW_NEXT;
}
