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
 * The body's real locals are the instructions that last assigned them. A
 * local updated by an inner loop,
 *
 *   real mu = alpha;
 *   for (k in 1:K) mu += beta[k] * y[t - k];
 *
 * is one instruction whose inner program (the new value from the old, k
 * and t) runs k after k over the block, its leaves (beta[k]) evaluated
 * once per k for the whole evaluation; the backward pass walks k
 * backwards. x + a * s and fma (a, s, x), with a the same in every
 * iteration and s a slice, is a dot product: x's partial is 1, a's s (and
 * s's a, when s is a slice of parameters).
 *
 * The same programs run recurrences, x[n] = f (x[n - 1], ...), as one node
 * (rt_st_for_recurrence, at the end).
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

/* An instruction that does not vary, once: from the values of the
 * program's instructions in val. */
static double
lx_once (const Lx *ins, LxOp op, const double *val, double *d, gboolean *bad)
{
  double e[LX_MAX_OPERANDS] = { 0 };
  for (int j = 0; j < ins->n_args; j++)
    e[j] = val[ins->args[j]];
  return lx_op (op, e[0], e[1], e[2], e[3], d, bad);
}

#define LX_BLOCK 128

/* Where an operand's values are: an instruction that varies has one per
 * iteration of the block, one that does not its one value (step 0). */
typedef struct {
  double  *v[LX_MAX_PROGRAM];
  double  *buf[LX_MAX_PROGRAM];   /* a slice's own storage, when it is not read in place */
  double  *d[LX_MAX_PROGRAM][LX_MAX_OPERANDS];
  double  *adj[LX_MAX_PROGRAM];
  gboolean vec[LX_MAX_PROGRAM];
  gboolean dead[LX_MAX_PROGRAM];  /* needs no adjoint: depends on no variable */
} LxBlock;

/* A slice's values over the block: reals of the data in place, the
 * others copied into buf. */
static inline double *
slice_block (const LxSlice *sl, double *buf, gint32 i0, int m)
{
  if (!sl->p && !sl->iv)
    return (double *) sl->x + i0;
  for (int i = 0; i < m; i++)
    buf[i] = slice_value (sl, i0 + i);
  return buf;
}

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
  /* the commonest operations of two operands, one loop for each pattern
   * of what varies, with nothing computed that is not needed */
#define LX_BIN(BODY)                                                            \
  do                                                                           \
    {                                                                          \
      const double *x0 = x[0], *x1 = x[1];                                     \
      double *d0 = d[0], *d1 = d[1];                                           \
      if (step[0] && step[1])                                                  \
        for (int i = 0; i < m; i++)                                            \
          {                                                                    \
            double a = x0[i], b = x1[i];                                       \
            BODY;                                                              \
          }                                                                    \
      else if (step[0])                                                        \
        for (int i = 0; i < m; i++)                                            \
          {                                                                    \
            double a = x0[i], b = x1[0];                                       \
            BODY;                                                              \
          }                                                                    \
      else                                                                     \
        for (int i = 0; i < m; i++)                                            \
          {                                                                    \
            double a = x0[0], b = x1[i];                                       \
            BODY;                                                              \
          }                                                                    \
      return;                                                                  \
    }                                                                          \
  while (0)
  switch (op)
    {
    case LX_ADD:
      LX_BIN (out[i] = a + b; d0[i] = 1; d1[i] = 1);
    case LX_SUB:
      LX_BIN (out[i] = a - b; d0[i] = 1; d1[i] = -1);
    case LX_MUL:
      LX_BIN (out[i] = a * b; d0[i] = b; d1[i] = a);
    default:
      break;
    }
#undef LX_BIN
  switch (op)
    {
#define LX_CASE(OP, N)                                                           \
    case OP:                                                                     \
      for (int i = 0; i < m; i++)                                                \
        {                                                                        \
          double dl[LX_MAX_OPERANDS] = { 0 };                                    \
          out[i] = lx_op (OP, x[0][i * step[0]], x[1][i * step[1]],              \
                          x[2][i * step[2]], x[3][i * step[3]], dl, &bad);       \
          for (int j = 0; j < N; j++)                                            \
            d[j][i] = dl[j];                                                     \
        }                                                                        \
      break;
    LX_CASE (LX_ADD, 2) LX_CASE (LX_SUB, 2) LX_CASE (LX_MUL, 2) LX_CASE (LX_DIV, 2)
    LX_CASE (LX_FMA, 3) LX_CASE (LX_POW, 2) LX_CASE (LX_NEG, 1) LX_CASE (LX_SQUARE, 1)
    LX_CASE (LX_SQRT, 1) LX_CASE (LX_EXP, 1) LX_CASE (LX_LOG, 1) LX_CASE (LX_EXPM1, 1)
    LX_CASE (LX_LOG1P, 1) LX_CASE (LX_LOG1M, 1) LX_CASE (LX_INV, 1)
    LX_CASE (LX_INV_LOGIT, 1) LX_CASE (LX_LOG_SUM_EXP, 2) LX_CASE (LX_CHECK_POSITIVE, 1)
    LX_CASE (LX_CHECK_UNIT, 1) LX_CASE (LX_NORMAL, 4) LX_CASE (LX_LOG_MIX, 4)
    LX_CASE (LX_NORMAL_NO_CONST, 4) LX_CASE (LX_NORMAL_KERNEL, 4) LX_CASE (LX_NORMAL_NONE, 4)
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
      if (bl->dead[a])
        continue;
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

/* ---- inner loops updating a local (LX_INNER_LOOP) ---- */

/* out = fma (a, s, out): with the processor's fma where it has one, the
 * library's otherwise (the same value: fma rounds once either way) */
__attribute__ ((target_clones ("default", "fma"))) static void
fma_loop (double *out, double a, const double *s, int m)
{
  for (int i = 0; i < m; i++)
    out[i] = fma (a, s[i], out[i]);
}

/* An inner loop's program in one evaluation: what does not vary with the
 * outer loop's variable computed once for each k (leaves, their
 * functions, the slices' views), the buffers of what does, and the
 * local's value before each k over the block, for the backward pass. */
typedef struct {
  const LxInner *in;
  gint64         lo;       /* the outer loop's first iteration */
  gint32         n_k;      /* 0 for an empty inner range */
  double        *val;      /* n_k x in->n: by k, then instruction */
  double        *d;        /* n_k x in->n x LX_MAX_OPERANDS: their partials */
  double        *adj;      /* n_k x in->n: their adjoints, over all iterations */
  gint32        *id;       /* n_k x in->n: the leaves' variables (-1: none) */
  LxSlice       *slices;   /* n_k x in->n */
  double        *carry;    /* n_k x LX_BLOCK: the local before each k */
  double       **dk;       /* n_k x in->n x LX_MAX_OPERANDS: the partials of what
                            * varies over the block, kept for the backward pass */
  double        *g;        /* LX_BLOCK: the local's adjoint after each k */
  LxBlock       *bl;
  gboolean       ad;       /* some leaf is an autodiff variable */
} LxInnerRun;

/* doubles an inner loop may keep in one evaluation (32 MiB); more, and
 * the loop runs as written */
#define LX_MAX_INNER_CELLS (1 << 22)

static LxInnerRun *
inner_open (Ev *ev, const LxInner *in, gint64 lo, gint32 n)
{
  TildeValue b;
  rt_eval (ev, in->lo, &b);
  gint64 k_lo = rt_int (CX, &b);
  rt_eval (ev, in->hi, &b);
  gint64 k_hi = rt_int (CX, &b);
  LxInnerRun *r = tilde_arena_alloc0 (CX->arena, sizeof *r);
  r->in = in;
  r->lo = lo;
  r->g = rt_alloc_d (CX, LX_BLOCK);
  if (k_hi < k_lo)
    return r;
  if ((k_hi - k_lo + 1) * in->n * (1 + LX_MAX_OPERANDS) * LX_BLOCK > LX_MAX_INNER_CELLS)
    give_up (ev);
  r->n_k = (gint32) (k_hi - k_lo + 1);
  gsize cells = (gsize) r->n_k * (gsize) in->n;
  r->val = rt_alloc_d (CX, cells);
  r->d = rt_alloc_d (CX, cells * LX_MAX_OPERANDS);
  r->adj = tilde_arena_alloc0 (CX->arena, cells * sizeof (double));
  r->id = tilde_arena_alloc (CX->arena, cells * sizeof (gint32));
  r->slices = tilde_arena_alloc (CX->arena, cells * sizeof (LxSlice));
  if (!in->dot)
    {
      r->carry = rt_alloc_d (CX, (gsize) r->n_k * LX_BLOCK);
      r->dk = tilde_arena_alloc0 (CX->arena, cells * LX_MAX_OPERANDS * sizeof (double *));
    }
  for (gint32 kk = 0; kk < r->n_k; kk++)
    {
      tilde_value_set_int (&ev->slots[in->slot], k_lo + kk);
      double *val = r->val + (gsize) kk * in->n;
      for (int j = 0; j < in->n; j++)
        {
          const Lx *ins = &in->prog[j];
          gsize c = (gsize) kk * in->n + j;
          gboolean bad = FALSE;
          r->id[c] = -1;
          switch (ins->op)
            {
            case LX_LEAF:
              val[j] = leaf_value (ev, ins, &r->id[c]);
              r->ad |= r->id[c] >= 0;
              break;
            case LX_SLICE:
              open_slice (ev, ins, (int) lo, n, &r->slices[c]);
              r->ad |= r->slices[c].p != NULL;
              break;
            case LX_LOOP_VAR:
            case LX_CARRY:
              break;
            default:
              if (ins->varies)
                break;
              val[j] = lx_once (ins, ins->op, val, r->d + c * LX_MAX_OPERANDS, &bad);
            }
          if (!in->dot && ins->varies && ins->op != LX_SLICE && ins->op != LX_LOOP_VAR
              && ins->op != LX_CARRY)
            for (int a = 0; a < ins->n_args; a++)
              r->dk[c * LX_MAX_OPERANDS + a] = rt_alloc_d (CX, LX_BLOCK);
          if (bad)
            give_up (ev);
        }
    }
  r->bl = tilde_arena_alloc0 (CX->arena, sizeof (LxBlock));
  for (int j = 0; j < in->n; j++)
    {
      const Lx *ins = &in->prog[j];
      r->bl->vec[j] = ins->varies;
      /* slices of data need no adjoints, nor does the loop's variable; the
       * slices are the same containers for every k */
      r->bl->dead[j] = (ins->op == LX_SLICE && !r->slices[j].p) || ins->op == LX_LOOP_VAR;
      /* a dot product reads its slice's values alone */
      if (!ins->varies || (in->dot && j != in->dot_s))
        continue;
      r->bl->v[j] = r->bl->buf[j] = rt_alloc_d (CX, LX_BLOCK);
      r->bl->adj[j] = rt_alloc_d (CX, LX_BLOCK);
    }
  return r;
}

/* The inner program for the k_lo + kk-th k over iterations i0 .. i0 + m - 1,
 * from the local's values before it. */
static void
inner_block (Ev *ev, LxInnerRun *r, gint32 kk, gint32 i0, int m)
{
  const LxInner *in = r->in;
  LxBlock *bl = r->bl;
  for (int j = 0; j < in->n; j++)
    {
      const Lx *ins = &in->prog[j];
      gsize c = (gsize) kk * in->n + j;
      double *v = bl->v[j];
      if (!ins->varies)
        bl->v[j] = r->val + c;
      else if (ins->op == LX_CARRY)
        bl->v[j] = r->carry + (gsize) kk * LX_BLOCK;
      else if (ins->op == LX_SLICE)
        bl->v[j] = slice_block (&r->slices[c], bl->buf[j], i0, m);
      else if (ins->op == LX_LOOP_VAR)
        for (int i = 0; i < m; i++)
          v[i] = (double) (r->lo + i0 + i);
      else
        {
          for (int a = 0; a < ins->n_args; a++)
            bl->d[j][a] = r->dk[c * LX_MAX_OPERANDS + a];
          lx_block_forward (ev, ins, ins->op, bl, j, m);
        }
    }
}

/* out, the local after the loop, from x, its value before it, k after k
 * as the loop runs; the partials of each k are kept for the backward
 * pass. */
static void
inner_forward (Ev *ev, LxInnerRun *r, const double *x, int step, double *out, gint32 i0, int m)
{
  const LxInner *in = r->in;
  if (in->dot)
    {
      for (int i = 0; i < m; i++)
        out[i] = x[i * step];
      for (gint32 kk = 0; kk < r->n_k; kk++)
        {
          gsize c = (gsize) kk * in->n;
          double a = r->val[c + in->dot_a];
          const double *sv = slice_block (&r->slices[c + in->dot_s], r->bl->buf[in->dot_s], i0, m);
          if (in->dot_fma)
            fma_loop (out, a, sv, m);
          else
            for (int i = 0; i < m; i++)
              out[i] += a * sv[i];
        }
      return;
    }
  int last = in->n - 1;
  double *next = r->n_k ? r->carry : out;
  for (int i = 0; i < m; i++)
    next[i] = x[i * step];
  for (gint32 kk = 0; kk < r->n_k; kk++)
    {
      inner_block (ev, r, kk, i0, m);
      next = kk + 1 < r->n_k ? r->carry + (gsize) (kk + 1) * LX_BLOCK : out;
      memcpy (next, r->bl->v[last], sizeof (double) * (gsize) m);
    }
}

/* From g, the adjoints of the local after the loop over the block: those
 * of what does not vary, k by k backwards from the partials the forward
 * pass kept; in r->g, the adjoints of the local before the loop. */
static const double *
inner_backward (Ev *ev, LxInnerRun *r, const double *g, gint32 i0, int m)
{
  const LxInner *in = r->in;
  LxBlock *bl = r->bl;
  int last = in->n - 1;
  if (in->dot)
    {
      /* x's partial is 1: g passes through; a's is s */
      for (gint32 kk = 0; kk < r->n_k && r->ad; kk++)
        {
          gsize c = (gsize) kk * in->n;
          const LxSlice *sl = &r->slices[c + in->dot_s];
          const double *sv = slice_block (sl, bl->buf[in->dot_s], i0, m);
          double sum = 0;
          for (int i = 0; i < m; i++)
            sum += g[i] * sv[i];
          r->adj[c + in->dot_a] += sum;
          if (sl->p)
            {
              double a = r->val[c + in->dot_a];
              for (int i = 0; i < m; i++)
                sl->p[i0 + i] = g[i] * a;
            }
        }
      return g;
    }
  memcpy (r->g, g, sizeof (double) * (gsize) m);
  for (gint32 kk = r->n_k - 1; kk >= 0; kk--)
    {
      for (int j = 0; j < in->n; j++)
        {
          gsize c = (gsize) kk * in->n + j;
          if (!in->prog[j].varies)
            continue;
          memset (bl->adj[j], 0, sizeof (double) * (gsize) m);
          for (int a = 0; a < in->prog[j].n_args; a++)
            bl->d[j][a] = r->dk[c * LX_MAX_OPERANDS + a];
        }
      memcpy (bl->adj[last], r->g, sizeof (double) * (gsize) m);
      for (int j = last; j >= 0; j--)
        {
          const Lx *ins = &in->prog[j];
          if (ins->varies && ins->op != LX_SLICE && ins->op != LX_LOOP_VAR
              && ins->op != LX_CARRY)
            lx_block_backward (ins, bl, j, m, r->adj + (gsize) kk * in->n);
          else if (ins->op == LX_SLICE && r->slices[(gsize) kk * in->n + j].p)
            memcpy (r->slices[(gsize) kk * in->n + j].p + i0, bl->adj[j],
                    sizeof (double) * (gsize) m);
        }
      memcpy (r->g, bl->adj[0], sizeof (double) * (gsize) m);   /* the CARRY's */
    }
  return r->g;
}

/* Once after the loop: the adjoints of what does not vary back to the
 * leaves, each of whose variables becomes an operand, as does each slice
 * of variables with its partials by iteration. */
static guint
inner_operands (LxInnerRun *r, AdOperand *ops)
{
  const LxInner *in = r->in;
  guint n_ops = 0;
  for (gint32 kk = 0; kk < r->n_k; kk++)
    for (int j = in->n - 1; j >= 0; j--)
      {
        const Lx *ins = &in->prog[j];
        gsize c = (gsize) kk * in->n + j;
        if (ins->op == LX_SLICE && r->slices[c].p)
          ops[n_ops++] = rt_operand (&r->slices[c].ad, r->slices[c].p);
        if (ins->varies || ins->op == LX_SLICE || ins->op == LX_LOOP_VAR)
          continue;
        if (ins->op == LX_LEAF)
          {
            if (r->id[c] >= 0)
              ops[n_ops++] = (AdOperand) { .start = r->id[c], .n = 1, .partial = r->adj + c };
            continue;
          }
        for (int a = 0; a < ins->n_args; a++)
          r->adj[(gsize) kk * in->n + ins->args[a]] += r->adj[c] * r->d[c * LX_MAX_OPERANDS + a];
      }
  return n_ops;
}

/* The bounds of the loop s; FALSE when it runs no iteration. */
static gboolean
loop_bounds (Ev *ev, const St *s, gint64 *lo, gint64 *hi)
{
  TildeValue bound;
  rt_eval (ev, s->e, &bound);
  *lo = rt_int (CX, &bound);
  rt_eval (ev, s->e2, &bound);
  *hi = rt_int (CX, &bound);
  return *hi >= *lo;
}

Flow
rt_st_for_scalars (Ev *ev, const St *s)
{
  /* a context that drops the terms: a body of terms alone is skipped, one
   * that also sets locals runs as written (their errors are the loop's) */
  if (ev->context != TILDE_MODEL_CONTEXT_JOINT && (s->mixed_roles || !rt_term_counts (ev, s)))
    return s->mixed_roles || s->lx_locals ? rt_exec (ev, s->else_s) : FLOW_NEXT;
  gint64 lo, hi;
  if (!loop_bounds (ev, s, &lo, &hi))
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
  LxInnerRun *inner[LX_MAX_PROGRAM];
  gsize n_inner_cells = 0;

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
          bl.v[k] = bl.buf[k] = rt_alloc_d (CX, LX_BLOCK);
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
        case LX_INNER_LOOP:
          inner[k] = inner_open (ev, ins->inner, lo, n);
          ad[k] |= inner[k]->ad;
          n_inner_cells += (gsize) inner[k]->n_k * (gsize) ins->inner->n;
          break;
        default:
          if (ins->varies)
            break;
          val[k] = lx_once (ins, op[k], val, d[k], &bad);
        }
      any_ad |= ad[k];
      bl.dead[k] = !ad[k];
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
            bl.v[k] = slice_block (&slices[k], bl.buf[k], i0, m);
          else if (ins->op == LX_LOOP_VAR)
            for (int i = 0; i < m; i++)
              v[i] = (double) (lo + i0 + i);
          else if (ins->op == LX_INNER_LOOP)
            inner_forward (ev, inner[k], bl.v[ins->args[0]], bl.vec[ins->args[0]], v, i0, m);
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
          else if (ins->op == LX_INNER_LOOP)
            {
              /* to the local before the loop, as to an operand */
              const double *g = inner_backward (ev, inner[k], bl.adj[k], i0, m);
              int a = ins->args[0];
              if (bl.vec[a])
                for (int i = 0; i < m; i++)
                  bl.adj[a][i] += g[i];
              else
                for (int i = 0; i < m; i++)
                  adj[a] += g[i];
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
      AdOperand *ops = tilde_arena_alloc (CX->arena,
                                          sizeof (AdOperand) * (LX_MAX_PROGRAM + n_inner_cells));
      guint n_ops = 0;
      for (int k = last; k >= 0; k--)
        {
          const Lx *ins = &prog[k];
          if (ins->op == LX_INNER_LOOP && inner[k]->ad)
            n_ops += inner_operands (inner[k], ops + n_ops);
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

/* ---- recurrences: for (n in lo:hi) x[n] = f (x[n - 1], n, ...) ---- */

/* A recurrence's node: the partials of every iteration, by instruction. */
typedef struct {
  const Lx *prog;
  int       n_prog;
  gint32    n;                       /* iterations */
  gint32    out;                     /* the first of the n variables x[lo .. hi] */
  gint32    carry_id;                /* x[lo - 1]'s variable; -1 for data */
  gint32    id[LX_MAX_PROGRAM];      /* the leaves' variables (-1: none) */
  gboolean  dep[LX_MAX_PROGRAM];     /* depends on x[n - 1] */
  double    dnv[LX_MAX_PROGRAM][LX_MAX_OPERANDS];  /* what does not vary: partials */
  double   *d[LX_MAX_PROGRAM][LX_MAX_OPERANDS];    /* what varies: by iteration */
  double   *adj[LX_MAX_PROGRAM];     /* what varies: adjoints by iteration */
  TildeValue slice[LX_MAX_PROGRAM];  /* slices of variables: the variables */
  guint8    seq[LX_MAX_PROGRAM];     /* the computations that depend on x[n - 1], in order */
  int       n_seq;
} LxRec;

static inline gboolean
rec_computes (const Lx *ins)
{
  return ins->varies && ins->op != LX_SLICE && ins->op != LX_LOOP_VAR && ins->op != LX_CARRY;
}

/* The reverse sweep: iteration after iteration backwards through what
 * depends on x[n - 1] (the adjoint of x[n - 1] going to the previous
 * iteration's value), then through the rest, vectorised over the
 * iterations, then to the leaves. */
static void
rec_backward (AdTape *tape, const void *p)
{
  const LxRec *r = p;
  int last = r->n_prog - 1;
  gsize bytes = sizeof (double) * (gsize) r->n;
  double adj_nv[LX_MAX_PROGRAM] = { 0 };
  for (int j = 0; j < r->n_prog; j++)
    if (r->adj[j])
      memset (r->adj[j], 0, bytes);
  double gc = 0;   /* x[n]'s adjoint through x[n] of the next iteration */
  for (gint32 i = r->n - 1; i >= 0; i--)
    {
      r->adj[last][i] += tape->adj[r->out + i] + gc;
      gc = 0;
      for (int q = r->n_seq - 1; q >= 0; q--)
        {
          int j = r->seq[q];
          const Lx *ins = &r->prog[j];
          double g = r->adj[j][i];
          if (g == 0)
            continue;
          for (int a = 0; a < ins->n_args; a++)
            {
              int k = ins->args[a];
              double w = g * r->d[j][a][i];
              if (k == 0)
                gc += w;
              else if (r->adj[k])
                r->adj[k][i] += w;
              else
                adj_nv[k] += w;
            }
        }
    }
  if (r->carry_id >= 0)
    tape->adj[r->carry_id] += gc;
  for (int j = last; j > 0; j--)
    {
      const Lx *ins = &r->prog[j];
      if (r->dep[j] || !rec_computes (ins))
        continue;
      const double *g = r->adj[j];
      for (int a = 0; a < ins->n_args; a++)
        {
          int k = ins->args[a];
          const double *d = r->d[j][a];
          if (r->adj[k])
            for (gint32 i = 0; i < r->n; i++)
              r->adj[k][i] += g[i] * d[i];
          else if (!r->prog[k].varies)
            {
              double sum = 0;
              for (gint32 i = 0; i < r->n; i++)
                sum += g[i] * d[i];
              adj_nv[k] += sum;
            }
        }
    }
  for (int j = 1; j < r->n_prog; j++)
    if (r->prog[j].op == LX_SLICE && r->adj[j])
      {
        const TildeValue *sv = &r->slice[j];
        for (gint32 i = 0; i < r->n; i++)
          tape->adj[sv->idx ? sv->idx[i] : sv->start + i] += r->adj[j][i];
      }
  for (int j = last; j > 0; j--)
    {
      const Lx *ins = &r->prog[j];
      if (ins->varies || adj_nv[j] == 0)
        continue;
      if (ins->op == LX_LEAF)
        {
          if (r->id[j] >= 0)
            tape->adj[r->id[j]] += adj_nv[j];
          continue;
        }
      for (int a = 0; a < ins->n_args; a++)
        adj_nv[ins->args[a]] += adj_nv[j] * r->dnv[j][a];
    }
}

Flow
rt_st_for_recurrence (Ev *ev, const St *s)
{
  gint64 lo, hi;
  if (!loop_bounds (ev, s, &lo, &hi))
    return FLOW_NEXT;
  TildeValue *x = &ev->slots[s->slot];
  int n_prog = s->n_lx, last = n_prog - 1;
  /* what the loop as written reports (an index out of range), or too much
   * to keep: as written */
  if (!is_flat_1d (x) || (x->kind == TILDE_VALUE_ARRAY && x->elem != TILDE_VALUE_REAL)
      || lo < 2 || hi > tilde_value_flat_size (x)
      || (hi - lo + 1) * n_prog * (2 + LX_MAX_OPERANDS) > LX_MAX_INNER_CELLS)
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

  gint32 n = (gint32) (hi - lo + 1);
  LxRec *r = tilde_arena_alloc0 (CX->arena, sizeof *r);
  r->prog = s->lx;
  r->n_prog = n_prog;
  r->n = n;
  double val[LX_MAX_PROGRAM];
  double *v[LX_MAX_PROGRAM];
  LxSlice slices[LX_MAX_PROGRAM];
  gboolean any_ad = FALSE;

  /* x[lo - 1], then once: the leaves, the slices' views, what does not vary */
  gint32 pos = (gint32) lo - 2;
  if (x->ad)
    {
      r->carry_id = x->idx ? x->idx[pos] : x->start + pos;
      any_ad = TRUE;
    }
  else
    r->carry_id = -1;
  for (int k = 0; k < n_prog; k++)
    {
      const Lx *ins = &s->lx[k];
      gboolean bad = FALSE;
      r->id[k] = -1;
      r->dep[k] = k == 0;
      for (int a = 0; a < ins->n_args; a++)
        r->dep[k] |= r->dep[ins->args[a]];
      v[k] = &val[k];
      switch (ins->op)
        {
        case LX_LEAF:
          val[k] = leaf_value (ev, ins, &r->id[k]);
          any_ad |= r->id[k] >= 0;
          break;
        case LX_SLICE:
          open_slice (ev, ins, (int) lo, n, &slices[k]);
          v[k] = slice_block (&slices[k], slices[k].p || slices[k].iv
                              ? rt_alloc_d (CX, (gsize) n) : NULL, 0, n);
          if (slices[k].p)
            {
              /* autodiff variables: their adjoints by iteration, to the
               * variables at the end of the sweep */
              r->slice[k] = slices[k].ad;
              r->adj[k] = slices[k].p;
              any_ad = TRUE;
              /* its ids may be x's own (x[n + 1]), which the loop's
               * assignments replace: the sweep needs the ones read */
              if (r->slice[k].idx)
                r->slice[k].idx = tilde_arena_memdup (CX->arena, r->slice[k].idx,
                                                      sizeof (gint32) * (gsize) n);
            }
          break;
        case LX_LOOP_VAR:
          v[k] = rt_alloc_d (CX, (gsize) n);
          for (gint32 i = 0; i < n; i++)
            v[k][i] = (double) (lo + i);
          break;
        case LX_CARRY:
          v[k] = rt_alloc_d (CX, (gsize) n);
          break;
        default:
          if (ins->varies)
            {
              v[k] = rt_alloc_d (CX, (gsize) n);
              r->adj[k] = rt_alloc_d (CX, (gsize) n);
              for (int a = 0; a < ins->n_args; a++)
                r->d[k][a] = rt_alloc_d (CX, (gsize) n);
            }
          else
            val[k] = lx_once (ins, ins->op, val, r->dnv[k], &bad);
        }
      if (bad)
        give_up (ev);
    }
  if (!any_ad)
    {
      /* data alone: nothing to differentiate */
      CX->jmp = mark.outer;
      return rt_exec (ev, s->else_s);
    }

  /* what does not depend on x[n - 1]: block by block over all iterations */
  LxBlock bl;
  for (gint32 i0 = 0; i0 < n; i0 += LX_BLOCK)
    {
      int m = (int) MIN (LX_BLOCK, n - i0);
      for (int k = 0; k < n_prog; k++)
        {
          const Lx *ins = &s->lx[k];
          bl.vec[k] = ins->varies;
          bl.v[k] = ins->varies ? v[k] + i0 : v[k];
          for (int a = 0; a < ins->n_args && r->d[k][a]; a++)
            bl.d[k][a] = r->d[k][a] + i0;
          if (!r->dep[k] && rec_computes (ins))
            lx_block_forward (ev, ins, ins->op, &bl, k, m);
        }
    }
  /* what does: one iteration after the other, each operand read from its
   * iteration's value (step 1) or its one value (step 0) */
  const double *src[LX_MAX_PROGRAM][LX_MAX_OPERANDS];
  int step[LX_MAX_PROGRAM][LX_MAX_OPERANDS];
  for (int k = 1; k < n_prog; k++)
    {
      const Lx *ins = &s->lx[k];
      if (!r->dep[k] || !rec_computes (ins))
        continue;
      r->seq[r->n_seq++] = (guint8) k;
      for (int a = 0; a < LX_MAX_OPERANDS; a++)
        {
          int j = a < ins->n_args ? ins->args[a] : -1;
          src[k][a] = j < 0 ? val : v[j];
          step[k][a] = j >= 0 && s->lx[j].varies;
        }
    }
  double c = r->carry_id >= 0 ? CX->tape->val[r->carry_id] : x->u.d[pos];
  gboolean bad = FALSE;
  for (gint32 i = 0; i < n; i++)
    {
      v[0][i] = c;
      for (int q = 0; q < r->n_seq; q++)
        {
          int k = r->seq[q];
          const Lx *ins = &s->lx[k];
          double dl[LX_MAX_OPERANDS];
          const double *const *e = src[k];
          const int *st = step[k];
          v[k][i] = lx_op (ins->op, e[0][i * st[0]], e[1][i * st[1]], e[2][i * st[2]],
                           e[3][i * st[3]], dl, &bad);
          for (int a = 0; a < ins->n_args; a++)
            r->d[k][a][i] = dl[a];
        }
      c = v[last][i];
    }
  if (bad)
    give_up (ev);

  /* x[lo .. hi]: new variables, one node */
  r->out = ad_new_vars (CX->tape, n);
  if (r->out < 0)
    give_up (ev);
  memcpy (CX->tape->val + r->out, v[last], sizeof (double) * (gsize) n);
  ad_push (CX->tape, rec_backward, r);
  rt_write_vars (ev, x, pos + 1, n, r->out);
  CX->jmp = mark.outer;
  return FLOW_NEXT;
}
