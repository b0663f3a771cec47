/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running the straight-line form (flat-private.h). The densities compute
 * their values with the library's own formulas in the library's order
 * (dist/dist.c), so that the log density is the general path's; the
 * terms are summed as the general path sums them: the constant ones in
 * order, then the others in order after them.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/flat-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <string.h>

static guint fallbacks;

guint
rt_flat_fallbacks (void)
{
  return g_atomic_int_get (&fallbacks);
}

static gboolean
give_way (void)
{
  g_atomic_int_inc (&fallbacks);
  return FALSE;
}

double *
rt_flat_scratch_new (const RtFlat *f)
{
  double *buf = g_new0 (double, 2 * (gsize) f->n_vals + f->max_terms + 1);
  memcpy (buf + f->n_vars, f->consts, sizeof (double) * (gsize) (f->n_vals - f->n_vars));
  return buf;
}

guint
rt_flat_size (const RtFlat *f)
{
  return f->n_ins;
}

void
rt_flat_free (RtFlat *f)
{
  if (!f)
    return;
  g_free (f->ins);
  g_free (f->consts);
  g_free (f);
}

/* Element i of an operand, a scalar broadcast. */
#define AT(v, r, i) ((v)[(r).off + ((r).vec ? (i) : 0)])

/* Adds d to the adjoint of element i of an ad operand; a scalar's
 * contributions are summed in *s first, as the library's partials are. */
static inline void
grad (double *g, const FlReg *r, gint32 i, double d, double *s)
{
  if (r->vec)
    g[r->off + i] += d;
  else
    *s += d;
}

/* ---- densities ---- */

typedef struct {
  double cst;       /* the terms that are constants */
  double *terms;    /* the others, in order */
  guint  n_terms;
} Sum;

static inline void
add_term (Sum *sum, gboolean ad, double x)
{
  if (ad)
    sum->terms[sum->n_terms++] = x;
  else
    sum->cst += x;
}

/* dist.c's normal_scalars */
static gboolean
normal_scalars (const FlIns *ins, const double *v, double *g, gboolean drop, Sum *sum)
{
  const FlReg *a = ins->a;
  double y = v[a[0].off], mu = v[a[1].off], s = v[a[2].off];
  if (isnan (y) || !isfinite (mu) || !(s > 0))
    return FALSE;
  gboolean any = a[0].ad || a[1].ad || a[2].ad;
  if (drop && !any)
    return TRUE;
  double inv_s = 1 / s, z = (y - mu) * inv_s;
  double logp = -0.5 * z * z;
  if (!drop)
    logp -= TILDE_LOG_SQRT_TWO_PI;
  if (!drop || a[2].ad)
    logp -= log (s);
  if (a[0].ad)
    g[a[0].off] += -z * inv_s;
  if (a[1].ad)
    g[a[1].off] += z * inv_s;
  if (a[2].ad)
    g[a[2].off] += -inv_s + z * z * inv_s;
  add_term (sum, any, logp);
  return TRUE;
}

/* dist.c's k_normal for vectorised arguments */
static gboolean
normal (const FlIns *ins, const double *v, double *g, gboolean drop, Sum *sum)
{
  const FlReg *a = ins->a;
  if (!a[0].vec && !a[1].vec && !a[2].vec)
    return normal_scalars (ins, v, g, drop, sum);
  gint32 N = ins->n;
  if (a[2].ad)
    for (gint32 i = 0; i < (a[2].vec ? N : 1); i++)
      if (!(v[a[2].off + i] > 0))
        return FALSE;
  gboolean any = a[0].ad || a[1].ad || a[2].ad;
  if (drop && !any)
    {
      for (gint32 i = 0; i < N; i++)
        if (isnan (AT (v, a[0], i)) || !isfinite (AT (v, a[1], i)))
          return FALSE;
      return TRUE;
    }
  gboolean k_const = !drop, k_sigma = !drop || a[2].ad, k_quad = !drop || any;
  double logp = 0, sy = 0, smu = 0;
  if (k_const)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  if (k_sigma)
    {
      if (a[2].vec)
        for (gint32 i = 0; i < N; i++)
          logp -= log (v[a[2].off + i]);
      else
        logp -= N * log (v[a[2].off]);
    }
  if (!a[2].vec)
    {
      double inv_s = 1 / v[a[2].off], sq = 0;
      for (gint32 i = 0; i < N; i++)
        {
          double z = (AT (v, a[0], i) - AT (v, a[1], i)) * inv_s;
          sq += z * z;
          double dy = -z * inv_s;
          if (a[0].ad)
            grad (g, &a[0], i, dy, &sy);
          if (a[1].ad)
            grad (g, &a[1], i, -dy, &smu);
        }
      if (!isfinite (sq))
        return FALSE;
      if (k_quad)
        logp -= 0.5 * sq;
      if (a[2].ad)
        g[a[2].off] += -N * inv_s + sq * inv_s;
    }
  else
    {
      for (gint32 i = 0; i < N; i++)
        {
          double s = v[a[2].off + i], inv_s = 1 / s;
          double y = AT (v, a[0], i), mu = AT (v, a[1], i);
          if (isnan (y) || !isfinite (mu))
            return FALSE;
          double z = (y - mu) * inv_s;
          if (k_quad)
            logp -= 0.5 * z * z;
          double dy = -z * inv_s;
          if (a[0].ad)
            grad (g, &a[0], i, dy, &sy);
          if (a[1].ad)
            grad (g, &a[1], i, -dy, &smu);
          if (a[2].ad)
            g[a[2].off + i] += -inv_s + z * z * inv_s;
        }
    }
  if (a[0].ad && !a[0].vec)
    g[a[0].off] += sy;
  if (a[1].ad && !a[1].vec)
    g[a[1].off] += smu;
  add_term (sum, any, logp);
  return TRUE;
}

/* dist.c's k_std_normal */
static gboolean
std_normal (const FlIns *ins, const double *v, double *g, gboolean drop, Sum *sum)
{
  const FlReg *a = ins->a;
  gint32 N = ins->n;
  const double *y = v + a[0].off;
  double logp = 0, sq = 0;
  for (gint32 i = 0; i < N; i++)
    if (isnan (y[i]))
      return FALSE;
  if (drop && !a[0].ad)
    return TRUE;
  for (gint32 i = 0; i < N; i++)
    sq += y[i] * y[i];
  if (a[0].ad)
    for (gint32 i = 0; i < N; i++)
      g[a[0].off + i] += -y[i];
  logp -= 0.5 * sq;
  if (!drop)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  add_term (sum, a[0].ad, logp);
  return TRUE;
}

/* dist.c's k_cauchy */
static gboolean
cauchy (const FlIns *ins, const double *v, double *g, gboolean drop, Sum *sum)
{
  const FlReg *a = ins->a;
  gint32 N = ins->n;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (v, a[0], i), mu = AT (v, a[1], i), s = AT (v, a[2], i);
      if (isnan (y) || !isfinite (mu) || !(s > 0) || isinf (s))
        return FALSE;
    }
  gboolean any = a[0].ad || a[1].ad || a[2].ad;
  if (drop && !any)
    return TRUE;
  gboolean k_const = !drop, k_sigma = !drop || a[2].ad, k_all = !drop || any;
  double logp = 0, sy = 0, smu = 0, ss = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double y = AT (v, a[0], i), mu = AT (v, a[1], i), s = AT (v, a[2], i);
      double d = y - mu, d2 = d * d, s2 = s * s;
      if (k_const)
        logp -= TILDE_LOG_PI;
      if (k_sigma)
        logp -= log (s);
      if (k_all)
        logp -= log1p (d2 / s2);
      double dy = -2 * d / (s2 + d2);
      if (a[0].ad)
        grad (g, &a[0], i, dy, &sy);
      if (a[1].ad)
        grad (g, &a[1], i, -dy, &smu);
      if (a[2].ad)
        grad (g, &a[2], i, (d2 - s2) / (s * (s2 + d2)), &ss);
    }
  if (a[0].ad && !a[0].vec)
    g[a[0].off] += sy;
  if (a[1].ad && !a[1].vec)
    g[a[1].off] += smu;
  if (a[2].ad && !a[2].vec)
    g[a[2].off] += ss;
  add_term (sum, any, logp);
  return TRUE;
}

/* target += a: its elements summed */
static void
sum_term (const FlIns *ins, const double *v, double *g, Sum *sum)
{
  const FlReg *a = &ins->a[0];
  double s = 0;
  for (gint32 i = 0; i < a->n; i++)
    s += v[a->off + i];
  if (a->ad)
    for (gint32 i = 0; i < a->n; i++)
      g[a->off + i] += 1;
  add_term (sum, a->ad, a->vec ? s : v[a->off]);
}

/* ---- transforms (transform.c's elementwise ones) ---- */

static void
constrain (const FlIns *ins, double *v, double *g, gboolean jacobian, Sum *sum)
{
  const double *u = v + ins->a[0].off;
  double *x = v + ins->dst.off, *d = v + ins->aux.off, lj = 0;
  double *gu = g + ins->a[0].off;
  gint32 n = ins->n;
  switch (ins->op)
    {
    case FL_LOWER:
      for (gint32 i = 0; i < n; i++)
        {
          double e = exp (u[i]);
          d[i] = e;
          x[i] = e + ins->k0;
          lj += u[i];
        }
      if (jacobian)
        for (gint32 i = 0; i < n; i++)
          gu[i] += 1;
      break;
    case FL_UPPER:
      for (gint32 i = 0; i < n; i++)
        {
          double e = exp (u[i]);
          d[i] = -e;
          x[i] = ins->k0 - e;
          lj += u[i];
        }
      if (jacobian)
        for (gint32 i = 0; i < n; i++)
          gu[i] += 1;
      break;
    default: /* FL_LUB */
      {
        double lb = ins->k0, w = ins->k1 - ins->k0, lw = log (w);
        for (gint32 i = 0; i < n; i++)
          {
            double s = tilde_inv_logit (u[i]), au = fabs (u[i]);
            d[i] = w * s * (1 - s);
            x[i] = w * s + lb;
            lj += lw - au - 2 * log1p (exp (-au));
            if (jacobian)
              gu[i] += 1 - 2 * s;
          }
      }
      break;
    }
  if (jacobian)
    add_term (sum, TRUE, lj);
}

/* ---- arithmetic ---- */

void
rt_flat_arith (const FlIns *ins, double *v)
{
  const FlReg *a = &ins->a[0], *b = &ins->a[1], *c = &ins->a[2];
  double *r = v + ins->dst.off;
  gint32 n = ins->n;
  switch (ins->op)
    {
    case FL_ADD:
      for (gint32 i = 0; i < n; i++)
        r[i] = AT (v, *a, i) + AT (v, *b, i);
      break;
    case FL_SUB:
      for (gint32 i = 0; i < n; i++)
        r[i] = AT (v, *a, i) - AT (v, *b, i);
      break;
    case FL_MUL:
      for (gint32 i = 0; i < n; i++)
        r[i] = AT (v, *a, i) * AT (v, *b, i);
      break;
    case FL_DIV:
      for (gint32 i = 0; i < n; i++)
        r[i] = AT (v, *a, i) / AT (v, *b, i);
      break;
    case FL_FMA:
      for (gint32 i = 0; i < n; i++)
        r[i] = fma (AT (v, *a, i), AT (v, *b, i), AT (v, *c, i));
      break;
    case FL_NEG:
      for (gint32 i = 0; i < n; i++)
        r[i] = -AT (v, *a, i);
      break;
    case FL_EXP:
      for (gint32 i = 0; i < n; i++)
        r[i] = exp (AT (v, *a, i));
      break;
    case FL_LOG:
      for (gint32 i = 0; i < n; i++)
        r[i] = log (AT (v, *a, i));
      break;
    case FL_SQRT:
      for (gint32 i = 0; i < n; i++)
        r[i] = sqrt (AT (v, *a, i));
      break;
    case FL_SQUARE:
      for (gint32 i = 0; i < n; i++)
        r[i] = AT (v, *a, i) * AT (v, *a, i);
      break;
    case FL_INV:
      for (gint32 i = 0; i < n; i++)
        r[i] = 1 / AT (v, *a, i);
      break;
    case FL_EXPM1:
      for (gint32 i = 0; i < n; i++)
        r[i] = expm1 (AT (v, *a, i));
      break;
    case FL_INV_LOGIT:
      for (gint32 i = 0; i < n; i++)
        r[i] = tilde_inv_logit (AT (v, *a, i));
      break;
    default:
      g_assert_not_reached ();
    }
}

/* The adjoints of an instruction's operands from its result's. */
static void
backward (const FlIns *ins, const double *v, double *g)
{
  const FlReg *a = &ins->a[0], *b = &ins->a[1], *c = &ins->a[2];
  const double *r = v + ins->dst.off, *gr = g + ins->dst.off;
  double sa = 0, sb = 0, sc = 0;
  gint32 n = ins->n;
  switch (ins->op)
    {
    case FL_LOWER:
    case FL_UPPER:
    case FL_LUB:
      for (gint32 i = 0; i < n; i++)
        g[a->off + i] += gr[i] * v[ins->aux.off + i];
      return;
    case FL_ADD:
    case FL_SUB:
      for (gint32 i = 0; i < n; i++)
        {
          if (a->ad)
            grad (g, a, i, gr[i], &sa);
          if (b->ad)
            grad (g, b, i, ins->op == FL_ADD ? gr[i] : -gr[i], &sb);
        }
      break;
    case FL_MUL:
      for (gint32 i = 0; i < n; i++)
        {
          if (a->ad)
            grad (g, a, i, gr[i] * AT (v, *b, i), &sa);
          if (b->ad)
            grad (g, b, i, gr[i] * AT (v, *a, i), &sb);
        }
      break;
    case FL_DIV:
      for (gint32 i = 0; i < n; i++)
        {
          double y = AT (v, *b, i);
          if (a->ad)
            grad (g, a, i, gr[i] / y, &sa);
          if (b->ad)
            grad (g, b, i, -gr[i] * r[i] / y, &sb);
        }
      break;
    case FL_FMA:
      for (gint32 i = 0; i < n; i++)
        {
          if (a->ad)
            grad (g, a, i, gr[i] * AT (v, *b, i), &sa);
          if (b->ad)
            grad (g, b, i, gr[i] * AT (v, *a, i), &sb);
          if (c->ad)
            grad (g, c, i, gr[i], &sc);
        }
      break;
    default:
      for (gint32 i = 0; i < n; i++)
        {
          double x = AT (v, *a, i), d;
          switch (ins->op)
            {
            case FL_NEG: d = -1; break;
            case FL_EXP: d = r[i]; break;
            case FL_LOG: d = 1 / x; break;
            case FL_SQRT: d = 0.5 / r[i]; break;
            case FL_SQUARE: d = 2 * x; break;
            case FL_INV: d = -r[i] * r[i]; break;
            case FL_EXPM1: d = r[i] + 1; break;
            default: d = r[i] * (1 - r[i]); break;   /* FL_INV_LOGIT */
            }
          grad (g, a, i, gr[i] * d, &sa);
        }
      break;
    }
  if (a->ad && !a->vec)
    g[a->off] += sa;
  if (b->ad && !b->vec)
    g[b->off] += sb;
  if (c->ad && !c->vec)
    g[c->off] += sc;
}

gboolean
rt_flat_run (const RtFlat *f, double *scratch, const double *theta, gboolean propto,
             gboolean jacobian, double *gradient, double *lp)
{
  double *v = scratch, *g = scratch + f->n_vals;
  Sum sum = { .terms = g + f->n_vals };
  memcpy (v, theta, sizeof (double) * (gsize) f->n_params);
  memset (g, 0, sizeof (double) * (gsize) f->n_vars);
  for (guint k = 0; k < f->n_ins; k++)
    {
      const FlIns *ins = &f->ins[k];
      gboolean drop = ins->drop && propto, ok = TRUE;
      if (ins->jacobian && !jacobian && ins->op >= FL_NORMAL)
        continue;
      switch (ins->op)
        {
        case FL_LOWER:
        case FL_UPPER:
        case FL_LUB:
          constrain (ins, v, g, ins->jacobian && jacobian, &sum);
          break;
        case FL_NORMAL:
          ok = normal (ins, v, g, drop, &sum);
          break;
        case FL_STD_NORMAL:
          ok = std_normal (ins, v, g, drop, &sum);
          break;
        case FL_CAUCHY:
          ok = cauchy (ins, v, g, drop, &sum);
          break;
        case FL_SUM:
          sum_term (ins, v, g, &sum);
          break;
        default:
          rt_flat_arith (ins, v);
          break;
        }
      if (!ok)
        return give_way ();
    }
  double total = sum.cst;
  for (guint i = 0; i < sum.n_terms; i++)
    total += sum.terms[i];
  if (!isfinite (total))
    return give_way ();
  if (gradient)
    {
      for (guint k = f->n_ins; k-- > 0;)
        if (f->ins[k].op < FL_NORMAL && f->ins[k].dst.ad)
          backward (&f->ins[k], v, g);
      for (gint32 i = 0; i < f->n_params; i++)
        if (!isfinite (g[i]))
          return give_way ();
      memcpy (gradient, g, sizeof (double) * (gsize) f->n_params);
    }
  *lp = total;
  return TRUE;
}
