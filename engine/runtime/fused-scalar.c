/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scalar expressions as one node. Computed as written,
 * `sqrt (a0 + a1 * square (r[t - 1] - mu) + b1 * square (s[t - 1]))`
 * records eight nodes; here its instructions (compiled
 * in post-order, leaves left to right) run forward for the value and each
 * instruction's local partials, then backward over the program for the
 * partials with respect to the leaves, and one node records those. The
 * values and partials are the library's own formulas.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/exec-private.h"
#include "runtime/math/special.h"

#include <math.h>

#define CX (&ev->cx)

static inline double
sx_leaf (Ev *ev, const Ex *e, gint32 *id)
{
  TildeValue tmp;
  const TildeValue *v;
  /* a scalar variable is read in place */
  if (e->fn == rt_ex_var)
    v = &ev->slots[e->slot];
  else
    {
      rt_eval (ev, e, &tmp);
      v = &tmp;
    }
  if (v->ad)
    {
      *id = v->start;
      return CX->tape->val[v->start];
    }
  *id = -1;
  return v->kind == TILDE_VALUE_INT ? v->u.i : rt_scalar (CX, v);
}

void
rt_ex_sx (Ev *ev, const Ex *e, TildeValue *out)
{
  double val[SX_MAX_PROGRAM], d[SX_MAX_PROGRAM][3], adj[SX_MAX_PROGRAM];
  gint32 id[SX_MAX_PROGRAM];
  int n = e->n_sx, n_ad = 0;
  /* forward: values, and each instruction's partials with respect to its
   * operands (the library's own formulas) */
  for (int i = 0; i < n; i++)
    {
      const Sx *p = &e->sx[i];
      if (p->op == SX_LEAF)
        {
          val[i] = sx_leaf (ev, p->e, &id[i]);
          n_ad += id[i] >= 0;
          continue;
        }
      double a = val[p->a], b = val[p->b], c = val[p->c], v;
      double *di = d[i];
      switch (p->op)
        {
        case SX_ADD: v = a + b; di[0] = 1; di[1] = 1; break;
        case SX_SUB: v = a - b; di[0] = 1; di[1] = -1; break;
        case SX_MUL: v = a * b; di[0] = b; di[1] = a; break;
        case SX_DIV: v = a / b; di[0] = 1 / b; di[1] = -a / (b * b); break;
        case SX_FMA: v = fma (a, b, c); di[0] = b; di[1] = a; di[2] = 1; break;
        case SX_POW:
          v = pow (a, b);
          di[0] = b == 0 ? 0 : b * pow (a, b - 1);
          di[1] = a == 0 ? 0 : v * log (a);
          break;
        case SX_NEG: v = -a; di[0] = -1; break;
        case SX_SQUARE: v = a * a; di[0] = 2 * a; break;
        case SX_SQRT: v = sqrt (a); di[0] = 0.5 / v; break;
        case SX_EXP: v = exp (a); di[0] = v; break;
        case SX_LOG: v = log (a); di[0] = 1 / a; break;
        case SX_EXPM1: v = expm1 (a); di[0] = v + 1; break;
        case SX_INV: v = 1 / a; di[0] = -1 / (a * a); break;
        case SX_INV_LOGIT: v = tilde_inv_logit (a); di[0] = v * (1 - v); break;
        default: g_assert_not_reached ();
        }
      val[i] = v;
    }
  if (n_ad == 0)
    {
      tilde_value_set_real (out, val[n - 1]);
      return;
    }
  /* backward over the program: the partials with respect to the leaves */
  for (int i = 0; i < n; i++)
    adj[i] = 0;
  adj[n - 1] = 1;
  for (int i = n - 1; i >= 0; i--)
    {
      const Sx *p = &e->sx[i];
      double g = adj[i];
      switch (p->op)
        {
        case SX_LEAF:
          break;
        case SX_FMA:
          adj[p->c] += g * d[i][2];
          /* fall through */
        case SX_ADD: case SX_SUB: case SX_MUL: case SX_DIV: case SX_POW:
          adj[p->b] += g * d[i][1];
          /* fall through */
        default:
          adj[p->a] += g * d[i][0];
        }
    }
  gint32 ids[SX_MAX_LEAVES];
  double ps[SX_MAX_LEAVES];
  int k = 0;
  for (int i = 0; i < n; i++)
    if (e->sx[i].op == SX_LEAF && id[i] >= 0)
      {
        ids[k] = id[i];
        ps[k++] = adj[i];
      }
  AdTape *t = CX->tape;
  double v = val[n - 1];
  gint32 res;
  switch (k)
    {
    case 1:
      res = ad_unary (t, v, ids[0], ps[0]);
      break;
    case 2:
      res = ad_binary (t, v, ids[0], ps[0], ids[1], ps[1]);
      break;
    case 3:
      res = ad_ternary (t, v, ids[0], ps[0], ids[1], ps[1], ids[2], ps[2]);
      break;
    default:
      {
        AdOperand ops[SX_MAX_LEAVES];
        double *p = rt_alloc_d (CX, (gsize) k);
        for (int j = 0; j < k; j++)
          {
            p[j] = ps[j];
            ops[j] = (AdOperand) { .start = ids[j], .n = 1, .partial = p + j };
          }
        res = ad_reduction (t, v, (guint) k, ops);
      }
    }
  if (res < 0)
    rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  tilde_value_set_var (out, res);
}
