/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The generalised hypergeometric functions pFq (a; b; z) = sum_k
 * prod (a_i)_k / prod (b_j)_k z^k / k!, summed term by term with their
 * derivatives: d/d a_i adds t_k sum_{m<k} 1 / (a_i + m) to each term, d/d
 * b_j subtracts the same with b_j, d/dz is sum_k k t_k / z.
 * hypergeometric_1F0 is (1 - z)^-a; hypergeometric_2F1 reaches z < -1 by
 * Pfaff's transformation 2F1 (a, b; c; z) = (1 - z)^-a 2F1 (a, c - b; c;
 * z / (z - 1)) and z = 1 by Gauss's theorem.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <string.h>

#define MAX_TERMS 1000000
#define MAX_PARAMS 32

/* The series and its derivatives (da[p], db[q], dz); FALSE when it does
 * not converge within MAX_TERMS. */
static gboolean
pfq_series (const double *a, int p, const double *b, int q, double z, double *value, double *da,
            double *db, double *dz)
{
  double sa[MAX_PARAMS] = { 0 }, sb[MAX_PARAMS] = { 0 };
  double t = 1, sum = 1, sum_dz = 0;
  memset (da, 0, sizeof (double) * (gsize) p);
  memset (db, 0, sizeof (double) * (gsize) q);
  for (int k = 0; k < MAX_TERMS; k++)
    {
      /* t_{k+1} from t_k */
      double ratio = z / (k + 1);
      gboolean ends = FALSE;
      for (int i = 0; i < p; i++)
        {
          ratio *= a[i] + k;
          ends |= a[i] + k == 0;
        }
      for (int j = 0; j < q; j++)
        ratio /= b[j] + k;
      for (int i = 0; i < p; i++)
        if (a[i] + k != 0)
          sa[i] += 1 / (a[i] + k);
      for (int j = 0; j < q; j++)
        sb[j] += 1 / (b[j] + k);
      t *= ratio;
      if (ends || t == 0)
        break;
      sum += t;
      for (int i = 0; i < p; i++)
        da[i] += t * sa[i];
      for (int j = 0; j < q; j++)
        db[j] -= t * sb[j];
      sum_dz += (k + 1) * t;
      if (!isfinite (sum))
        return FALSE;
      if (fabs (t) <= 1e-17 * fabs (sum) && fabs (ratio) < 1)
        break;
      if (k + 1 == MAX_TERMS)
        return FALSE;
    }
  *value = sum;
  if (z != 0)
    *dz = sum_dz / z;
  else
    {
      double r = 1;
      for (int i = 0; i < p; i++)
        r *= a[i];
      for (int j = 0; j < q; j++)
        r /= b[j];
      *dz = r;
    }
  return TRUE;
}

static void
no_convergence (RtCtx *cx)
{
  rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the hypergeometric series does not converge",
            cx->fn_name);
}

/* A node over the ad ones among a (p values), b (q values) and z. */
static void
finish (RtCtx *cx, double value, const TildeValue *va, const double *da, const TildeValue *vb,
        const double *db, const TildeValue *vz, double dz, TildeValue *out)
{
  AdOperand ops[3];
  guint n = 0;
  if (va && va->ad)
    ops[n++] = rt_operand (va, tilde_arena_memdup (cx->arena, da, sizeof (double) * (gsize)
                                                   MAX (tilde_value_flat_size (va), 1)));
  if (vb && vb->ad)
    ops[n++] = rt_operand (vb, tilde_arena_memdup (cx->arena, db, sizeof (double) * (gsize)
                                                   MAX (tilde_value_flat_size (vb), 1)));
  if (vz->ad)
    {
      double *p = rt_alloc_d (cx, 1);
      p[0] = dz;
      ops[n++] = rt_operand (vz, p);
    }
  *out = rt_reduce (cx, value, n, ops);
}

static void
check_finite (RtCtx *cx, const char *what, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite (x[i]))
      rt_domain_error (cx, what, x[i], "finite");
}

static void
k_pfq (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out)
{
  int p = tilde_value_flat_size (&args[0]), q = tilde_value_flat_size (&args[1]);
  if (p > MAX_PARAMS || q > MAX_PARAMS)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: at most %d parameters on each side", cx->fn_name,
              MAX_PARAMS);
  if (g_str_equal (cx->fn_name, "hypergeometric_3F2") && (p != 3 || q != 2))
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "hypergeometric_3F2: a must have 3 elements and b 2 "
              "(they have %d and %d)", p, q);
  const double *a = rt_values (cx, &args[0]), *b = rt_values (cx, &args[1]);
  double z = rt_scalar (cx, &args[2]);
  check_finite (cx, "a", a, p);
  check_finite (cx, "b", b, q);
  check_finite (cx, "z", &z, 1);
  gboolean polynomial = FALSE;
  for (int i = 0; i < p; i++)
    polynomial |= a[i] <= 0 && a[i] == floor (a[i]);
  for (int j = 0; j < q; j++)
    if (b[j] <= 0 && b[j] == floor (b[j]))
      rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: b[%d] is %g, but must not be a non-positive "
                "integer", cx->fn_name, j + 1, b[j]);
  if (!polynomial && p == q + 1 && !(fabs (z) < 1))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: abs(z) is %g, but must be less than 1 when p = "
              "q + 1", cx->fn_name, fabs (z));
  if (!polynomial && p > q + 1 && z != 0)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: the series diverges for p > q + 1",
              cx->fn_name);
  double v, da[MAX_PARAMS], db[MAX_PARAMS], dz;
  if (!pfq_series (a, p, b, q, z, &v, da, db, &dz))
    no_convergence (cx);
  finish (cx, v, &args[0], da, &args[1], db, &args[2], dz, out);
}

static void
k_1f0 (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out)
{
  double a = rt_scalar (cx, &args[0]), z = rt_scalar (cx, &args[1]);
  if (!(fabs (z) < 1))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "hypergeometric_1F0: abs(z) is %g, but must be less "
              "than 1", fabs (z));
  double v = pow (1 - z, -a);
  double da = -log1p (-z) * v, dz = a * v / (1 - z);
  finish (cx, v, &args[0], &da, NULL, NULL, &args[1], dz, out);
}

/* 2F1 and its derivatives in (a, b, c) and z, for z <= 1. */
static gboolean
f21 (double a, double b, double c, double z, double *v, double *g, double *dz)
{
  if (fabs (z) < 1)
    {
      double ab[2] = { a, b }, dab[2], dc;
      if (!pfq_series (ab, 2, &c, 1, z, v, dab, &dc, dz))
        return FALSE;
      g[0] = dab[0];
      g[1] = dab[1];
      g[2] = dc;
      return TRUE;
    }
  if (z == 1)
    {
      /* Gauss: Gamma (c) Gamma (c - a - b) / (Gamma (c - a) Gamma (c - b)) */
      if (!(c - a - b > 0))
        return FALSE;
      double lv = lgamma (c) + lgamma (c - a - b) - lgamma (c - a) - lgamma (c - b);
      *v = exp (lv);
      double dcab = tilde_digamma (c - a - b);
      g[0] = *v * (-dcab + tilde_digamma (c - a));
      g[1] = *v * (-dcab + tilde_digamma (c - b));
      g[2] = *v * (tilde_digamma (c) + dcab - tilde_digamma (c - a) - tilde_digamma (c - b));
      *dz = NAN;
      return isfinite (*v);
    }
  if (z < -1 || z == -1)
    {
      /* Pfaff: (1 - z)^-a 2F1 (a, c - b; c; w), w = z / (z - 1) in [1/2, 1) */
      double w = z / (z - 1), s = pow (1 - z, -a), G, gg[3], gw;
      double ab[2] = { a, c - b }, dab[2], dc;
      if (!pfq_series (ab, 2, &c, 1, w, &G, dab, &dc, &gw))
        return FALSE;
      gg[0] = dab[0];
      gg[1] = dab[1];
      gg[2] = dc;
      *v = s * G;
      g[0] = -log1p (-z) * *v + s * gg[0];
      g[1] = -s * gg[1];
      g[2] = s * (gg[1] + gg[2]);
      *dz = a * *v / (1 - z) + s * gw * (-1 / ((z - 1) * (z - 1)));
      return TRUE;
    }
  return FALSE;
}

static void
k_2f1 (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out)
{
  double x[4];
  for (int i = 0; i < 4; i++)
    x[i] = rt_scalar (cx, &args[i]);
  check_finite (cx, "arguments", x, 4);
  if (x[2] <= 0 && x[2] == floor (x[2]))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "hypergeometric_2F1: c is %g, but must not be a "
              "non-positive integer", x[2]);
  double v, g[3], dz;
  if (x[3] > 1)
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "hypergeometric_2F1: z is %g, but must be less than "
              "or equal to 1", x[3]);
  if (!f21 (x[0], x[1], x[2], x[3], &v, g, &dz))
    rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "hypergeometric_2F1: the function is not defined "
              "(or its series does not converge) at a = %g, b = %g, c = %g, z = %g", x[0], x[1],
              x[2], x[3]);
  AdOperand ops[4];
  double *p = rt_alloc_d (cx, 4);
  p[0] = g[0];
  p[1] = g[1];
  p[2] = g[2];
  p[3] = dz;
  guint n = 0;
  for (int i = 0; i < 4; i++)
    if (args[i].ad)
      ops[n++] = rt_operand (&args[i], &p[i]);
  *out = rt_reduce (cx, v, n, ops);
}

const RtBuiltin rt_builtins_hypergeometric[] = {
  { "hypergeometric_pFq", k_pfq, 3, 3 },
  { "hypergeometric_3F2", k_pfq, 3, 3 },
  { "hypergeometric_2F1", k_2f1, 4, 4 },
  { "hypergeometric_1F0", k_1f0, 2, 2 },
  { NULL, NULL, 0, 0 },
};
