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

/* The scratch: the place of the gradient (gradient_slot), then the
 * values, the adjoints and the junk. */
double *
rt_flat_scratch_new (const RtFlat *f)
{
  G_STATIC_ASSERT (sizeof (double *) <= sizeof (double));
  double *buf = g_new0 (double, 1 + 2 * (gsize) f->n_vals + (gsize) f->max_n + 1) + 1;
  /* A model without constants has none to copy (and consts is NULL). */
  if (f->n_vals > f->n_vars)
    memcpy (buf + f->n_vars, f->consts, sizeof (double) * (gsize) (f->n_vals - f->n_vars));
  return buf;
}

void
rt_flat_scratch_free (double *scratch)
{
  if (scratch)
    g_free (scratch - 1);
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
  for (int mode = 0; mode < 4; mode++)
    g_free (f->prog[mode].ins);
  g_free (f->back);
  g_free (f->back1);
  g_free (f->consts);
  g_free (f);
}

/* An operand as its loops read it: values x and partials g, both with
 * stride k (0: a scalar, broadcast). The partials go to the adjoints, or,
 * for data, to the scratch's junk, where nothing reads them: the loops
 * then need no tests. A scalar's partials are summed first and added to
 * its adjoint once, as the library's partials are. Both places are fixed
 * when the form is built (FlReg.goff), relative to the scratch. */
typedef struct {
  const double *x;
  double       *g;
  gint32        k;
} Op;

static inline Op
op_of (const FlReg *restrict r, double *scratch)
{
  Op o = { scratch + r->off, scratch + r->goff, r->vec };
  return o;
}

#define X(o, i) ((o).x[(i) * (o).k])

/* In the loops specialised on constant strides: a scalar operand's value
 * is read once before the loop (x0) and its partials summed in a local
 * (s), which the compiler keeps in registers. */
#define LOAD(o, k, i, x0) ((k) ? (o).x[i] : (x0))
#define ADDG(o, k, i, s, d) do { if (k) (o).g[i] += (d); else (s) += (d); } while (0)
/* ADDG, where `first` (when p) is added to the same adjoint before d */
#define ADDG_AFTER(o, k, i, s, d, p, first) \
  do { if (p) (o).g[i] = ((o).g[i] + (first)) + (d); else ADDG (o, k, i, s, d); } while (0)

/* ---- densities ---- */

/* dist.c's normal_scalars */
static gboolean
normal_scalars (const FlIns *restrict ins, const double *v, double *g, gboolean drop, double *term)
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
  *term = logp;
  return TRUE;
}

/* The loop of k_normal over vectorised arguments, for constant strides
 * (each combination its own copy): adds the quadratic terms (and, for a
 * vector scale, the scale's partials) and the partials of y and mu.
 * FALSE when a value is not finite. */
static inline __attribute__ ((always_inline)) gboolean
normal_loop (Op y, Op mu, Op sigma, gint32 N, double *logp, double *sigma_grad, const int ky,
             const int km, const int ks)
{
  const double y0 = y.x[0], m0 = mu.x[0];
  double sy = 0, sm = 0;
  if (!ks)
    {
      double inv_s = 1 / sigma.x[0], sq = 0;
      for (gint32 i = 0; i < N; i++)
        {
          double z = (LOAD (y, ky, i, y0) - LOAD (mu, km, i, m0)) * inv_s;
          sq += z * z;
          double dy = -z * inv_s;
          ADDG (y, ky, i, sy, dy);
          ADDG (mu, km, i, sm, -dy);
        }
      *logp -= 0.5 * sq;
      *sigma_grad = -N * inv_s + sq * inv_s;
      if (!ky)
        *y.g += sy;
      if (!km)
        *mu.g += sm;
      return isfinite (sq);
    }
  double lp = *logp;
  for (gint32 i = 0; i < N; i++)
    {
      double inv_s = 1 / sigma.x[i];
      double z = (LOAD (y, ky, i, y0) - LOAD (mu, km, i, m0)) * inv_s;
      lp -= 0.5 * z * z;
      double dy = -z * inv_s;
      ADDG (y, ky, i, sy, dy);
      ADDG (mu, km, i, sm, -dy);
      sigma.g[i] += -inv_s + z * z * inv_s;
    }
  if (!ky)
    *y.g += sy;
  if (!km)
    *mu.g += sm;
  *logp = lp;
  return isfinite (lp);
}

/* dist.c's k_normal for vectorised arguments */
static gboolean
normal (const FlIns *restrict ins, double *v, double *g, gboolean drop, double *term)
{
  const FlReg *a = ins->a;
  if (!a[0].vec && !a[1].vec && !a[2].vec)
    return normal_scalars (ins, v, g, drop, term);
  gint32 N = ins->n;
  Op y = op_of (&a[0], v), mu = op_of (&a[1], v), sigma = op_of (&a[2], v);
  if (a[2].ad)
    for (gint32 i = 0; i < (a[2].vec ? N : 1); i++)
      if (!(sigma.x[i] > 0))
        return FALSE;
  gboolean any = a[0].ad || a[1].ad || a[2].ad;
  if (drop && !any)
    {
      for (gint32 i = 0; i < N; i++)
        if (isnan (X (y, i)) || !isfinite (X (mu, i)))
          return FALSE;
      return TRUE;
    }
  /* k_quad holds from here: a NaN y or a mu that is not finite makes the
   * quadratic terms so, and the general path raises the error */
  gboolean k_const = !drop, k_sigma = !drop || a[2].ad;
  double logp = 0, sigma_grad = 0;
  if (k_const)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  if (k_sigma)
    {
      if (a[2].vec)
        for (gint32 i = 0; i < N; i++)
          logp -= log (sigma.x[i]);
      else
        logp -= N * log (sigma.x[0]);
    }
  gboolean ok;
  switch (a[0].vec | a[1].vec << 1 | a[2].vec << 2)
    {
    case 1: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 1, 0, 0); break;
    case 2: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 0, 1, 0); break;
    case 3: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 1, 1, 0); break;
    case 4: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 0, 0, 1); break;
    case 5: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 1, 0, 1); break;
    case 6: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 0, 1, 1); break;
    default: ok = normal_loop (y, mu, sigma, N, &logp, &sigma_grad, 1, 1, 1); break;
    }
  if (!ok)
    return FALSE;
  if (a[2].ad && !a[2].vec)
    g[a[2].off] += sigma_grad;
  *term = logp;
  return TRUE;
}

/* normal with a location b0 * b1 + b2 (an fma of the general path's fused
 * forms, rounded twice) computed in the loop: the same values as the
 * location stored and then read, its partials passed on to
 * b as the backward pass of fma would. The strides of y (a container)
 * and of b are constants, each combination its own copy.
 *
 * With pj >= 0, the loop also computes the density just before it,
 * normal (b[pj] | pm, 1 / pinv) of a container of parameters (pm 0 and
 * pinv 1 for std_normal): its squares summed into *psq in their order
 * and its partials added to b[pj]'s adjoints before this density's, as
 * they would be in two loops, one after the other. */
static inline __attribute__ ((always_inline)) gboolean
normal_fma_loop (Op y, Op sigma, Op b0, Op b1, Op b2, gint32 N, double *logp, double *sigma_grad,
                 const int gy, const int ks, const int kinv, const int k0, const int k1, const int k2,
                 const int pj, const int pu, double pm, double pinv, double *psq)
{
  const double c0 = b0.x[0], c1 = b1.x[0], c2 = b2.x[0];
  double lp = *logp, sq = 0, inv_s = ks ? 0 : 1 / sigma.x[0], s0 = 0, s1 = 0, s2 = 0, pq = 0;
  /* One iteration reads and writes nothing of another's: the loop writes
   * only adjoints, and operands are whole containers (the same one, or
   * none of the other's elements) or scalars, whose partials are summed
   * in registers. Told so, the compiler does not test for overlaps each
   * time before it runs the loop two elements at a time. */
#pragma GCC ivdep
#pragma GCC unroll 4
  for (gint32 i = 0; i < N; i++)
    {
      double x0 = LOAD (b0, k0, i, c0), x1 = LOAD (b1, k1, i, c1);
      double x2 = LOAD (b2, k2, i, c2);
      double gp = 0;
      if (pj >= 0)
        {
          double xp = pj == 0 ? x0 : pj == 1 ? x1 : x2;
          double pz = pu ? xp : (xp - pm) * pinv;
          pq += pz * pz;
          gp = pu ? -pz : -pz * pinv;
        }
      double mu = x0 * x1 + x2;
      if (ks)
        inv_s = kinv ? sigma.x[i] : 1 / sigma.x[i];
      double z = (y.x[i] - mu) * inv_s;
      if (ks)
        lp -= 0.5 * z * z;
      else
        sq += z * z;
      double dy = -z * inv_s;
      if (gy)
        y.g[i] += dy;
      /* the prior's partial first, then this density's */
      ADDG_AFTER (b0, k0, i, s0, -dy * x1, pj == 0, gp);
      ADDG_AFTER (b1, k1, i, s1, -dy * x0, pj == 1, gp);
      ADDG_AFTER (b2, k2, i, s2, -dy, pj == 2, gp);
      if (ks && gy)
        sigma.g[i] += -inv_s + z * z * inv_s;
    }
  if (!k0)
    *b0.g += s0;
  if (!k1)
    *b1.g += s1;
  if (!k2)
    *b2.g += s2;
  if (pj >= 0)
    *psq = pq;
  if (!ks)
    {
      lp -= 0.5 * sq;
      *sigma_grad = -N * inv_s + sq * inv_s;
    }
  *logp = lp;
  /* with the prior: one test of both sums (NaN or an infinity in either
   * makes theirs so; a finite sum that overflows only gives way too) */
  return isfinite (pj >= 0 ? lp + pq : lp);
}

static gboolean
normal_fma (const FlIns *restrict ins, double *v, double *g, gboolean drop, double *term)
{
  const FlReg *a = ins->a, *b = ins->b;
  gint32 N = ins->n;
  Op y = op_of (&a[0], v), sigma = op_of (&a[2], v);
  Op b0 = op_of (&b[0], v), b1 = op_of (&b[1], v), b2 = op_of (&b[2], v);
  if (a[2].ad)
    for (gint32 i = 0; i < (a[2].vec ? N : 1); i++)
      if (!(sigma.x[i] > 0))
        return FALSE;
  gboolean k_const = !drop, k_sigma = !drop || a[2].ad;
  double logp = 0, sigma_grad = 0;
  if (k_const)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  if (k_sigma)
    {
      if (a[2].vec)
        for (gint32 i = 0; i < N; i++)
          logp -= log (sigma.x[i]);
      else
        logp -= N * log (sigma.x[0]);
    }
  gboolean ok;
  /* data y and sigma, the common case, take no partials */
  gboolean gy = a[0].ad || a[2].ad;
#define NF(ks, k0, k1, k2) \
  (gy ? normal_fma_loop (y, sigma, b0, b1, b2, N, &logp, &sigma_grad, 1, ks, 0, k0, k1, k2, -1, 0, \
                         0, 0, NULL) \
   : normal_fma_loop (y, sigma, b0, b1, b2, N, &logp, &sigma_grad, 0, ks, 0, k0, k1, k2, -1, 0, 0, \
                      0, NULL))
  switch (b[0].vec | b[1].vec << 1 | b[2].vec << 2 | a[2].vec << 3)
    {
    case 0: ok = NF (0, 0, 0, 0); break;
    case 1: ok = NF (0, 1, 0, 0); break;
    case 2: ok = NF (0, 0, 1, 0); break;
    case 3: ok = NF (0, 1, 1, 0); break;
    case 4: ok = NF (0, 0, 0, 1); break;
    case 5: ok = NF (0, 1, 0, 1); break;
    case 6: ok = NF (0, 0, 1, 1); break;
    case 7: ok = NF (0, 1, 1, 1); break;
    case 8: ok = NF (1, 0, 0, 0); break;
    case 9: ok = NF (1, 1, 0, 0); break;
    case 10: ok = NF (1, 0, 1, 0); break;
    case 11: ok = NF (1, 1, 1, 0); break;
    case 12: ok = NF (1, 0, 0, 1); break;
    case 13: ok = NF (1, 1, 0, 1); break;
    case 14: ok = NF (1, 0, 1, 1); break;
    default: ok = NF (1, 1, 1, 1); break;
    }
#undef NF
  if (!ok)
    return FALSE;
  if (a[2].ad && !a[2].vec)
    g[a[2].off] += sigma_grad;
  *term = logp;
  return TRUE;
}

/* dist.c's k_std_normal */
static gboolean
std_normal (const FlIns *restrict ins, const double *v, double *g, gboolean drop, double *term)
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
  *term = logp;
  return TRUE;
}

/* k_cauchy of three scalars (a prior on a scale, mostly) */
static gboolean
cauchy_scalars (const FlIns *restrict ins, const double *v, double *g, gboolean drop, double *term)
{
  const FlReg *a = ins->a;
  double y = v[a[0].off], mu = v[a[1].off], s = v[a[2].off];
  if (isnan (y) || !isfinite (mu) || !(s > 0) || isinf (s))
    return FALSE;
  gboolean any = a[0].ad || a[1].ad || a[2].ad;
  if (drop && !any)
    return TRUE;
  double d = y - mu, d2 = d * d, s2 = s * s, logp = 0;
  if (!drop)
    logp -= TILDE_LOG_PI;
  if (!drop || a[2].ad)
    logp -= log (s);
  logp -= log1p (d2 / s2);
  double dy = -2 * d / (s2 + d2);
  if (a[0].ad)
    g[a[0].off] += dy;
  if (a[1].ad)
    g[a[1].off] += -dy;
  if (a[2].ad)
    g[a[2].off] += (d2 - s2) / (s * (s2 + d2));
  *term = logp;
  return TRUE;
}

/* dist.c's k_cauchy */
static gboolean
cauchy (const FlIns *restrict ins, double *v, double *g, gboolean drop, double *term)
{
  const FlReg *a = ins->a;
  if (!a[0].vec && !a[1].vec && !a[2].vec)
    return cauchy_scalars (ins, v, g, drop, term);
  gint32 N = ins->n;
  Op y = op_of (&a[0], v), mu = op_of (&a[1], v), sigma = op_of (&a[2], v);
  for (gint32 i = 0; i < N; i++)
    {
      double s = X (sigma, i);
      if (isnan (X (y, i)) || !isfinite (X (mu, i)) || !(s > 0) || isinf (s))
        return FALSE;
    }
  gboolean any = a[0].ad || a[1].ad || a[2].ad;
  if (drop && !any)
    return TRUE;
  gboolean k_const = !drop, k_sigma = !drop || a[2].ad, k_all = !drop || any;
  double logp = 0, sy = 0, sm = 0, ss = 0;
  for (gint32 i = 0; i < N; i++)
    {
      double s = X (sigma, i);
      double d = X (y, i) - X (mu, i), d2 = d * d, s2 = s * s;
      if (k_const)
        logp -= TILDE_LOG_PI;
      if (k_sigma)
        logp -= log (s);
      if (k_all)
        logp -= log1p (d2 / s2);
      double dy = -2 * d / (s2 + d2);
      ADDG (y, y.k, i, sy, dy);
      ADDG (mu, mu.k, i, sm, -dy);
      ADDG (sigma, sigma.k, i, ss, (d2 - s2) / (s * (s2 + d2)));
    }
  if (!y.k)
    *y.g += sy;
  if (!mu.k)
    *mu.g += sm;
  if (!sigma.k)
    *sigma.g += ss;
  *term = logp;
  return TRUE;
}

/* rt_check_constraint's bounds of a transformed parameter */
static gboolean
check (const FlIns *restrict ins, const double *v)
{
  const FlReg *a = ins->a;
  const double *x = v + a[0].off, *lo = v + a[1].off, *hi = v + a[2].off;
  gint32 kl = a[1].vec, kh = a[2].vec;
  for (gint32 i = 0; i < ins->n; i++)
    switch (ins->check)
      {
      case MIR_TRANS_LOWER:
        if (!(x[i] >= lo[i * kl]))
          return FALSE;
        break;
      case MIR_TRANS_UPPER:
        if (!(x[i] <= lo[i * kl]))
          return FALSE;
        break;
      default:
        if (!(x[i] >= lo[i * kl]) || !(x[i] <= hi[i * kh]))
          return FALSE;
        break;
      }
  return TRUE;
}

/* target += a: its elements summed */
static void
sum_term (const FlIns *restrict ins, const double *v, double *g, double *term)
{
  const FlReg *a = &ins->a[0];
  double s = 0;
  for (gint32 i = 0; i < a->n; i++)
    s += v[a->off + i];
  if (a->ad)
    for (gint32 i = 0; i < a->n; i++)
      g[a->off + i] += 1;
  *term = a->vec ? s : v[a->off];
}

/* ---- transforms (transform.c's elementwise ones) ---- */

static void
constrain (const FlIns *restrict ins, double *v, double *g, gboolean jacobian, double *term)
{
  const double *u = v + ins->a[0].off;
  double *x = v + ins->dst.off, *d = v + ins->aux.off, lj = 0;
  double *gu = g + ins->a[0].off;
  gint32 n = ins->n;
  if (n == 1 && ins->op == FL_LOWER)
    {
      /* real<lower=a>, the commonest parameter */
      double e = exp (u[0]);
      d[0] = e;
      x[0] = e + ins->k0;
      if (jacobian)
        {
          gu[0] += 1;
          *term = u[0];
        }
      return;
    }
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
    *term = lj;
}

/* ---- arithmetic ---- */

/* The loops for constant strides (0: a scalar operand, broadcast), each
 * combination its own copy. */
static inline __attribute__ ((always_inline)) void
arith_loop (FlOp op, double *r, const double *px, const double *py, const double *pz, gint32 n,
            const int kx, const int ky, const int kz)
{
  /* the scalars read once: r may be anywhere in the same memory */
  const double x0 = px[0], y0 = py[0], z0 = pz[0];
#define x(i) ((kx) ? px[i] : x0)
#define y(i) ((ky) ? py[i] : y0)
#define z(i) ((kz) ? pz[i] : z0)
  switch (op)
    {
    case FL_ADD:
      for (gint32 i = 0; i < n; i++)
        r[i] = x (i) + y (i);
      break;
    case FL_SUB:
      for (gint32 i = 0; i < n; i++)
        r[i] = x (i) - y (i);
      break;
    case FL_MUL:
      for (gint32 i = 0; i < n; i++)
        r[i] = x (i) * y (i);
      break;
    case FL_DIV:
      for (gint32 i = 0; i < n; i++)
        r[i] = x (i) / y (i);
      break;
    case FL_FMA:
      for (gint32 i = 0; i < n; i++)
        r[i] = fma (x (i), y (i), z (i));
      break;
    case FL_FMA_TWICE:
      for (gint32 i = 0; i < n; i++)
        r[i] = x (i) * y (i) + z (i);
      break;
    case FL_NEG:
      for (gint32 i = 0; i < n; i++)
        r[i] = -x (i);
      break;
    case FL_EXP:
      for (gint32 i = 0; i < n; i++)
        r[i] = exp (x (i));
      break;
    case FL_LOG:
      for (gint32 i = 0; i < n; i++)
        r[i] = log (x (i));
      break;
    case FL_SQRT:
      for (gint32 i = 0; i < n; i++)
        r[i] = sqrt (x (i));
      break;
    case FL_SQUARE:
      for (gint32 i = 0; i < n; i++)
        r[i] = x (i) * x (i);
      break;
    case FL_INV:
      for (gint32 i = 0; i < n; i++)
        r[i] = 1 / x (i);
      break;
    case FL_EXPM1:
      for (gint32 i = 0; i < n; i++)
        r[i] = expm1 (x (i));
      break;
    case FL_INV_LOGIT:
      for (gint32 i = 0; i < n; i++)
        r[i] = tilde_inv_logit (x (i));
      break;
    default:
      g_assert_not_reached ();
    }
#undef x
#undef y
#undef z
}

/* An operand's stride bit, the unused operands of unary and binary
 * operations taken as vectors (their loops never read them). */
static inline int
stride_code (const FlIns *ins)
{
  static const int used[] = { [FL_ADD] = 3, [FL_SUB] = 3, [FL_MUL] = 3, [FL_DIV] = 3,
                              [FL_FMA] = 7, [FL_NEG] = 1, [FL_EXP] = 1, [FL_LOG] = 1,
                              [FL_SQRT] = 1, [FL_SQUARE] = 1, [FL_INV] = 1, [FL_EXPM1] = 1,
                              [FL_INV_LOGIT] = 1 };
  return (ins->a[0].vec | ins->a[1].vec << 1 | ins->a[2].vec << 2) | (7 & ~used[ins->op]);
}

void
rt_flat_arith (const FlIns *restrict ins, double *v)
{
  double *r = v + ins->dst.off;
  const double *x = v + ins->a[0].off, *y = v + ins->a[1].off, *z = v + ins->a[2].off;
  FlOp op = ins->op == FL_FMA && ins->twice ? FL_FMA_TWICE : ins->op;
  gint32 n = ins->n;
  switch (stride_code (ins))
    {
    case 0: arith_loop (op, r, x, y, z, n, 0, 0, 0); break;
    case 1: arith_loop (op, r, x, y, z, n, 1, 0, 0); break;
    case 2: arith_loop (op, r, x, y, z, n, 0, 1, 0); break;
    case 3: arith_loop (op, r, x, y, z, n, 1, 1, 0); break;
    case 4: arith_loop (op, r, x, y, z, n, 0, 0, 1); break;
    case 5: arith_loop (op, r, x, y, z, n, 1, 0, 1); break;
    case 6: arith_loop (op, r, x, y, z, n, 0, 1, 1); break;
    default: arith_loop (op, r, x, y, z, n, 1, 1, 1); break;
    }
}

static inline __attribute__ ((always_inline)) void
backward_loop (FlOp op, Op a, Op b, Op c, const double *r, const double *gr, gint32 n,
               const int ka, const int kb, const int kc)
{
  const double a0 = a.x[0], b0 = b.x[0];
  double sa = 0, sb = 0, sc = 0;
  switch (op)
    {
    case FL_ADD:
      for (gint32 i = 0; i < n; i++)
        {
          ADDG (a, ka, i, sa, gr[i]);
          ADDG (b, kb, i, sb, gr[i]);
        }
      break;
    case FL_SUB:
      for (gint32 i = 0; i < n; i++)
        {
          ADDG (a, ka, i, sa, gr[i]);
          ADDG (b, kb, i, sb, -gr[i]);
        }
      break;
    case FL_MUL:
      for (gint32 i = 0; i < n; i++)
        {
          ADDG (a, ka, i, sa, gr[i] * LOAD (b, kb, i, b0));
          ADDG (b, kb, i, sb, gr[i] * LOAD (a, ka, i, a0));
        }
      break;
    case FL_DIV:
      for (gint32 i = 0; i < n; i++)
        {
          double y = LOAD (b, kb, i, b0);
          ADDG (a, ka, i, sa, gr[i] / y);
          ADDG (b, kb, i, sb, -gr[i] * r[i] / y);
        }
      break;
    case FL_FMA:
      for (gint32 i = 0; i < n; i++)
        {
          ADDG (a, ka, i, sa, gr[i] * LOAD (b, kb, i, b0));
          ADDG (b, kb, i, sb, gr[i] * LOAD (a, ka, i, a0));
          ADDG (c, kc, i, sc, gr[i]);
        }
      break;
    default:
      for (gint32 i = 0; i < n; i++)
        {
          double x = LOAD (a, ka, i, a0), d;
          switch (op)
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
          ADDG (a, ka, i, sa, gr[i] * d);
        }
      break;
    }
  if (!ka)
    *a.g += sa;
  if (!kb)
    *b.g += sb;
  if (!kc)
    *c.g += sc;
}

/* The adjoints of an instruction's operands from its result's, which
 * are then cleared: nothing adds to them after this step, and a run
 * starts with every adjoint 0 (rt_flat_run). */
G_GNUC_NO_INLINE static void
backward (const FlIns *restrict ins, double *v, double *g)
{
  const FlReg *ra = &ins->a[0], *rb = &ins->a[1], *rc = &ins->a[2];
  const double *r = v + ins->dst.off;
  double *gr = g + ins->dst.off;
  gint32 n = ins->n;
  FlOp op = ins->op;
  if (op <= FL_LUB)
    {
      const double *d = v + ins->aux.off;
      double *gu = g + ra->off;
      for (gint32 i = 0; i < n; i++)
        {
          gu[i] += gr[i] * d[i];
          gr[i] = 0;
        }
      return;
    }
  Op a = op_of (ra, v), b = op_of (rb, v), c = op_of (rc, v);
  switch (stride_code (ins))
    {
    case 0: backward_loop (op, a, b, c, r, gr, n, 0, 0, 0); break;
    case 1: backward_loop (op, a, b, c, r, gr, n, 1, 0, 0); break;
    case 2: backward_loop (op, a, b, c, r, gr, n, 0, 1, 0); break;
    case 3: backward_loop (op, a, b, c, r, gr, n, 1, 1, 0); break;
    case 4: backward_loop (op, a, b, c, r, gr, n, 0, 0, 1); break;
    case 5: backward_loop (op, a, b, c, r, gr, n, 1, 0, 1); break;
    case 6: backward_loop (op, a, b, c, r, gr, n, 0, 1, 1); break;
    default: backward_loop (op, a, b, c, r, gr, n, 1, 1, 1); break;
    }
  memset (gr, 0, sizeof (double) * (gsize) n);
}

/* ---- the code of each instruction ---- */

/* Each instruction's code ends by handing on to the next one's, the sum of
 * the terms so far with its own added (a call in tail position, which the
 * compiler makes a jump: no loop, no return to it); the last instruction
 * hands the sum back. Giving way is handing back NaN, which the sum
 * would become anyway. Instructions without a term add nothing: the sum
 * starts at +0 or a sum of terms, never at -0, so that + 0 leaves it. */
#define NEXT(total) return ins[1].fn (ins + 1, v, g, (total))

/* normal (y | mu, sigma) with y a container of the parameters and mu and
 * sigma data scalars: c[0] 1 / sigma, c[1] the constant part of the
 * density as normal () computes it (0 under propto), c[2] mu. With mu 0
 * and sigma 1 (`unit`), (y - 0) * 1 is y: those steps are left out. */
static inline __attribute__ ((always_inline)) double
normal_vector_data (const FlIns *restrict ins, double *v, double *g, double total, const int unit)
{
  const double *y = v + ins->a[0].off;
  double *gy = v + ins->a[0].goff;
  const double inv_s = ins->c[0], mu = ins->c[2];
  const gint32 N = ins->n;
  double sq = 0;
#pragma GCC unroll 2
  for (gint32 i = 0; i < N; i++)
    {
      double z = unit ? y[i] : (y[i] - mu) * inv_s;
      sq += z * z;
      gy[i] += unit ? -z : -z * inv_s;
    }
  if (!isfinite (sq))
    return NAN;
  NEXT (total + (ins->c[1] - 0.5 * sq));
}

static double
fn_normal_vector_data (const FlIns *restrict ins, double *v, double *g, double total)
{
  return normal_vector_data (ins, v, g, total, 0);
}

static double
fn_normal_vector_unit (const FlIns *restrict ins, double *v, double *g, double total)
{
  return normal_vector_data (ins, v, g, total, 1);
}

/* normal (y | mu, sigma) of a scalar y and data mu and sigma, as
 * normal_scalars, c[0] 1 / sigma, c[1] log (sigma), c[2] mu (kind 1);
 * cauchy (y | mu, sigma), as cauchy_scalars, c[0] sigma squared, c[1]
 * the constant part (0 under propto), c[2] mu (kind 2). The term, its
 * partial added to *gy. */
static inline __attribute__ ((always_inline)) double
scalar_term (const int kind, const double *c, gboolean drop, double y, double *gy)
{
  if (kind == 1)
    {
      double inv_s = c[0], z = (y - c[2]) * inv_s;
      double logp = -0.5 * z * z;
      if (!drop)
        {
          logp -= TILDE_LOG_SQRT_TWO_PI;
          logp -= c[1];
        }
      *gy += -z * inv_s;
      return logp;
    }
  /* the partial first, so that less is kept across the call of log1p */
  double d = y - c[2], d2 = d * d, s2 = c[0];
  *gy += -2 * d / (s2 + d2);
  return c[1] - log1p (d2 / s2);
}

/* Those densities of a scalar parameter, or of a transformed one. */
static double
fn_normal_scalar_data (const FlIns *restrict ins, double *v, double *g, double total)
{
  double y = v[ins->a[0].off];
  if (isnan (y))
    return NAN;
  NEXT (total + scalar_term (1, ins->c, ins->drop, y, &v[ins->a[0].goff]));
}

static double
fn_cauchy_scalar_data (const FlIns *restrict ins, double *v, double *g, double total)
{
  double y = v[ins->a[0].off];
  if (isnan (y))
    return NAN;
  NEXT (total + scalar_term (2, ins->c, ins->drop, y, &v[ins->a[0].goff]));
}

/* real<lower=a>, the commonest parameter, with and without its Jacobian */
static inline __attribute__ ((always_inline)) double
lower_scalar (const FlIns *restrict ins, double *v, double *g, double total, const int jacobian)
{
  /* the Jacobian's term and partial first, so that less is kept across
   * the call of exp */
  double u = v[ins->a[0].off];
  if (jacobian)
    {
      g[ins->a[0].off] += 1;
      total += u;
    }
  double e = exp (u);
  v[ins->aux.off] = e;
  v[ins->dst.off] = e + ins->k0;
  return total;
}

static double
fn_lower_scalar (const FlIns *restrict ins, double *v, double *g, double total)
{
  NEXT (lower_scalar (ins, v, g, total, 0));
}

static double
fn_lower_scalar_jacobian (const FlIns *restrict ins, double *v, double *g, double total)
{
  NEXT (lower_scalar (ins, v, g, total, 1));
}

/* Scalar steps that follow each other in one code (rt_flat_fuse): a
 * scalar lower bound (lower: 0 none, 1 without its Jacobian, 2 with it),
 * then one or two of the densities above (d1, d2: their kinds; d2 0
 * none), the first of b[0] with c and drop, the second of b[1] with pc
 * and pdrop; the same steps in the same order as their own codes. */
static inline __attribute__ ((always_inline)) double
scalar_run (const FlIns *restrict ins, double *v, double *g, double total, const int lower,
            const int d1, const int d2)
{
  if (lower)
    total = lower_scalar (ins, v, g, total, lower == 2);
  double y = v[ins->b[0].off];
  if (isnan (y))
    return NAN;
  total += scalar_term (d1, ins->c, ins->drop, y, &v[ins->b[0].goff]);
  if (d2)
    {
      y = v[ins->b[1].off];
      if (isnan (y))
        return NAN;
      total += scalar_term (d2, ins->pc, ins->pdrop, y, &v[ins->b[1].goff]);
    }
  NEXT (total);
}

#define SCALAR_RUN(lower, d1, d2) \
  static double \
  fn_scalar_run_##lower##d1##d2 (const FlIns *restrict ins, double *v, double *g, double total) \
  { \
    return scalar_run (ins, v, g, total, lower, d1, d2); \
  }
SCALAR_RUN (0, 1, 1)
SCALAR_RUN (0, 1, 2)
SCALAR_RUN (0, 2, 1)
SCALAR_RUN (0, 2, 2)
SCALAR_RUN (1, 1, 0)
SCALAR_RUN (1, 1, 1)
SCALAR_RUN (1, 1, 2)
SCALAR_RUN (1, 2, 0)
SCALAR_RUN (1, 2, 1)
SCALAR_RUN (1, 2, 2)
SCALAR_RUN (2, 1, 0)
SCALAR_RUN (2, 1, 1)
SCALAR_RUN (2, 1, 2)
SCALAR_RUN (2, 2, 0)
SCALAR_RUN (2, 2, 1)
SCALAR_RUN (2, 2, 2)
#undef SCALAR_RUN

/* by lower, d1 - 1 and d2 (NULL: a single density, its own code) */
static const FlFn scalar_runs[3][2][3] = {
  { { NULL, fn_scalar_run_011, fn_scalar_run_012 },
    { NULL, fn_scalar_run_021, fn_scalar_run_022 } },
  { { fn_scalar_run_110, fn_scalar_run_111, fn_scalar_run_112 },
    { fn_scalar_run_120, fn_scalar_run_121, fn_scalar_run_122 } },
  { { fn_scalar_run_210, fn_scalar_run_211, fn_scalar_run_212 },
    { fn_scalar_run_220, fn_scalar_run_221, fn_scalar_run_222 } },
};

/* normal (y | b0 * b1 + b2, sigma) with y and sigma data: c[1] the
 * constant part (0 under propto, else with the logs of the scales), for a
 * vector sigma aux its reciprocals (flat-compile.c), one copy for each
 * combination of strides. */
#define NORMAL_FMA_DATA(ks, k0, k1, k2) \
  static double \
  fn_normal_fma_##ks##k0##k1##k2 (const FlIns *restrict ins, double *v, double *g, double total) \
  { \
    const FlReg *a = ins->a, *b = ins->b; \
    Op y = op_of (&a[0], v), sigma = op_of (ks ? &ins->aux : &a[2], v); \
    Op b0 = op_of (&b[0], v), b1 = op_of (&b[1], v), b2 = op_of (&b[2], v); \
    double logp = ins->c[1], sigma_grad; \
    if (!normal_fma_loop (y, sigma, b0, b1, b2, ins->n, &logp, &sigma_grad, 0, ks, ks, k0, k1, k2, \
                          -1, 0, 0, 0, NULL)) \
      return NAN; \
    NEXT (total + logp); \
  }
NORMAL_FMA_DATA (0, 0, 0, 0)
NORMAL_FMA_DATA (0, 1, 0, 0)
NORMAL_FMA_DATA (0, 0, 1, 0)
NORMAL_FMA_DATA (0, 1, 1, 0)
NORMAL_FMA_DATA (0, 0, 0, 1)
NORMAL_FMA_DATA (0, 1, 0, 1)
NORMAL_FMA_DATA (0, 0, 1, 1)
NORMAL_FMA_DATA (0, 1, 1, 1)
NORMAL_FMA_DATA (1, 0, 0, 0)
NORMAL_FMA_DATA (1, 1, 0, 0)
NORMAL_FMA_DATA (1, 0, 1, 0)
NORMAL_FMA_DATA (1, 1, 1, 0)
NORMAL_FMA_DATA (1, 0, 0, 1)
NORMAL_FMA_DATA (1, 1, 0, 1)
NORMAL_FMA_DATA (1, 0, 1, 1)
NORMAL_FMA_DATA (1, 1, 1, 1)
#undef NORMAL_FMA_DATA

static const FlFn normal_fma_data[16] = {
  fn_normal_fma_0000, fn_normal_fma_0100, fn_normal_fma_0010, fn_normal_fma_0110,
  fn_normal_fma_0001, fn_normal_fma_0101, fn_normal_fma_0011, fn_normal_fma_0111,
  fn_normal_fma_1000, fn_normal_fma_1100, fn_normal_fma_1010, fn_normal_fma_1110,
  fn_normal_fma_1001, fn_normal_fma_1101, fn_normal_fma_1011, fn_normal_fma_1111,
};

/* The same with the density before it folded in (normal_fma_loop's pj):
 * the location's one container b[pj], its other operands scalars; aux
 * as above. pc[0] is that density's 1 / sigma, pc[2] its mu, pc[1] its
 * constant part (for std_normal, what is subtracted after the squares).
 * pu: 0 normal, 1 normal (0, 1), 2 std_normal (the steps of mu 0 and
 * sigma 1 left out in both, as in normal_vector_data). */
#define NORMAL_FMA_PRIOR(ks, pj, pu) \
  static double \
  fn_normal_fma_prior_##ks##pj##pu (const FlIns *restrict ins, double *v, double *g, \
                                    double total) \
  { \
    const FlReg *a = ins->a, *b = ins->b; \
    Op y = op_of (&a[0], v), sigma = op_of (ks ? &ins->aux : &a[2], v); \
    Op b0 = op_of (&b[0], v), b1 = op_of (&b[1], v), b2 = op_of (&b[2], v); \
    double logp = ins->c[1], sigma_grad, psq; \
    if (!normal_fma_loop (y, sigma, b0, b1, b2, ins->n, &logp, &sigma_grad, 0, ks, ks, pj == 0, \
                          pj == 1, pj == 2, pj, pu != 0, ins->pc[2], ins->pc[0], &psq)) \
      return NAN; \
    double prior = pu == 2 ? (0 - 0.5 * psq) - ins->pc[1] : ins->pc[1] - 0.5 * psq; \
    NEXT (total + prior + logp); \
  }
NORMAL_FMA_PRIOR (0, 0, 0)
NORMAL_FMA_PRIOR (0, 1, 0)
NORMAL_FMA_PRIOR (0, 2, 0)
NORMAL_FMA_PRIOR (1, 0, 0)
NORMAL_FMA_PRIOR (1, 1, 0)
NORMAL_FMA_PRIOR (1, 2, 0)
NORMAL_FMA_PRIOR (0, 0, 1)
NORMAL_FMA_PRIOR (0, 1, 1)
NORMAL_FMA_PRIOR (0, 2, 1)
NORMAL_FMA_PRIOR (1, 0, 1)
NORMAL_FMA_PRIOR (1, 1, 1)
NORMAL_FMA_PRIOR (1, 2, 1)
NORMAL_FMA_PRIOR (0, 0, 2)
NORMAL_FMA_PRIOR (0, 1, 2)
NORMAL_FMA_PRIOR (0, 2, 2)
NORMAL_FMA_PRIOR (1, 0, 2)
NORMAL_FMA_PRIOR (1, 1, 2)
NORMAL_FMA_PRIOR (1, 2, 2)
#undef NORMAL_FMA_PRIOR

/* by the scale's stride, the container's place and pu */
static const FlFn normal_fma_prior[2][3][3] = {
  { { fn_normal_fma_prior_000, fn_normal_fma_prior_001, fn_normal_fma_prior_002 },
    { fn_normal_fma_prior_010, fn_normal_fma_prior_011, fn_normal_fma_prior_012 },
    { fn_normal_fma_prior_020, fn_normal_fma_prior_021, fn_normal_fma_prior_022 } },
  { { fn_normal_fma_prior_100, fn_normal_fma_prior_101, fn_normal_fma_prior_102 },
    { fn_normal_fma_prior_110, fn_normal_fma_prior_111, fn_normal_fma_prior_112 },
    { fn_normal_fma_prior_120, fn_normal_fma_prior_121, fn_normal_fma_prior_122 } },
};

/* The general forms, testing their operands' kinds as they go. A term that
 * the mode drops stays 0. */

static double
fn_constrain (const FlIns *restrict ins, double *v, double *g, double total)
{
  double lj = 0;
  constrain (ins, v, g, ins->jacobian, &lj);
  NEXT (total + lj);
}

static double
fn_normal (const FlIns *restrict ins, double *v, double *g, double total)
{
  double logp = 0;
  if (!normal (ins, v, g, ins->drop, &logp))
    return NAN;
  NEXT (total + logp);
}

static double
fn_std_normal (const FlIns *restrict ins, double *v, double *g, double total)
{
  double logp = 0;
  if (!std_normal (ins, v, g, ins->drop, &logp))
    return NAN;
  NEXT (total + logp);
}

static double
fn_cauchy (const FlIns *restrict ins, double *v, double *g, double total)
{
  double logp = 0;
  if (!cauchy (ins, v, g, ins->drop, &logp))
    return NAN;
  NEXT (total + logp);
}

static double
fn_sum (const FlIns *restrict ins, double *v, double *g, double total)
{
  double x;
  sum_term (ins, v, g, &x);
  NEXT (total + x);
}

static double
fn_normal_fma (const FlIns *restrict ins, double *v, double *g, double total)
{
  double logp = 0;
  if (!normal_fma (ins, v, g, ins->drop, &logp))
    return NAN;
  NEXT (total + logp);
}

static double
fn_check (const FlIns *restrict ins, double *v, double *g, double total)
{
  if (!check (ins, v))
    return NAN;
  NEXT (total);
}

static double
fn_arith (const FlIns *restrict ins, double *v, double *g, double total)
{
  rt_flat_arith (ins, v);
  NEXT (total);
}

/* Where the caller wants the gradient (NULL: nowhere), kept just before
 * the values for the end of the run (fn_end): the codes hand on only the
 * values and the adjoints. */
static inline double **
gradient_slot (double *scratch)
{
  return (double **) (scratch - 1);
}

static void
clear_adjoints (const RtFlat *f, double *scratch)
{
  memset (scratch + f->n_vals, 0, sizeof (double) * (gsize) f->n_vars);
}

/* The backward steps of the instructions other than scalar transforms. */
static void
backward_all (const RtFlat *f, double *v, double *g)
{
  const FlIns *code = f->ins;
  for (guint k = f->n_back; k-- > 0;)
    backward (&code[f->back[k]], v, g);
}

/* The rest of the backward pass, the scalar transforms' steps (which come
 * last: flat-compile.c's list_backward), and the gradient handed out:
 * theta's adjoints copied, cleared, and summed, the sum finite unless an
 * entry is not (or, rarely, the sum of finite ones overflows, which only
 * sends the evaluation the general way too). */
static inline __attribute__ ((always_inline)) double
finish (const RtFlat *f, double *v, double *g, double total, double *gradient)
{
  guint nb = f->n_back1;
  if (nb)
    {
      const FlBack1 *b = f->back1;
      do
        {
          double gx = v[b->x];
          v[b->x] = 0;
          v[b->u] += gx * v[b->d];
          b++;
        }
      while (--nb);
    }
  typedef double V2 __attribute__ ((vector_size (16), aligned (8), may_alias));
  const V2 zero = { 0, 0 };
  V2 sum2 = zero;
  gint32 P = f->n_params, P2 = P & ~1;
  for (gint32 i = 0; i < P2; i += 2)
    {
      V2 x = *(const V2 *) (g + i);
      sum2 = sum2 + x;
      *(V2 *) (gradient + i) = x;
      *(V2 *) (g + i) = zero;
    }
  double sum = sum2[0] + sum2[1];
  if (P2 < P)
    {
      gradient[P2] = g[P2];
      sum += g[P2];
      g[P2] = 0;
    }
  return G_LIKELY (isfinite (sum)) ? total : NAN;
}

/* fn_end's cases other than the commonest. */
G_GNUC_NO_INLINE static double
end_general (const RtFlat *f, double *v, double *g, double total, double *gradient)
{
  if (!isfinite (total))
    return NAN;
  if (!gradient)
    {
      clear_adjoints (f, v);
      return total;
    }
  backward_all (f, v, g);
  return finish (f, v, g, total, gradient);
}

/* The end of a run, with the sum of the terms: the backward pass, and the
 * gradient handed out. Each backward step clears the adjoints it reads,
 * and theta's are cleared as they are copied out, so that the next run
 * starts from zeros; NaN to give way (the caller then clears them all).
 * With only scalar transforms to step back over, it makes no call. */
static double
fn_end (const FlIns *restrict ins, double *v, double *g, double total)
{
  const RtFlat *f = ins->flat;
  double *gradient = *gradient_slot (v);
  if (G_UNLIKELY (!gradient || f->n_back || !isfinite (total)))
    return end_general (f, v, g, total, gradient);
  return finish (f, v, g, total, gradient);
}

#undef NEXT

const FlFn rt_flat_end = fn_end;

gboolean
rt_flat_constant_term (const RtFlat *f, const FlIns *ins, double *scratch, double *x)
{
  double *g = scratch + f->n_vals;
  *x = 0;
  switch (ins->op)
    {
    case FL_NORMAL:
      return normal (ins, scratch, g, ins->drop, x);
    case FL_STD_NORMAL:
      return std_normal (ins, scratch, g, ins->drop, x);
    case FL_CAUCHY:
      return cauchy (ins, scratch, g, ins->drop, x);
    case FL_SUM:
      sum_term (ins, scratch, g, x);
      return TRUE;
    default:
      return FALSE;
    }
}

/* A scalar operand that is data (its value among the constants). */
static gboolean
data_scalar (const FlReg *r, const double *v, double *x)
{
  if (r->ad || r->vec)
    return FALSE;
  *x = v[r->off];
  return TRUE;
}

gboolean
rt_flat_has_term (const FlIns *ins, gboolean *ad)
{
  const FlReg *a = ins->a;
  switch (ins->op)
    {
    case FL_LOWER:
    case FL_UPPER:
    case FL_LUB:
      *ad = TRUE;
      return ins->jacobian;
    case FL_NORMAL:
    case FL_CAUCHY:
      *ad = a[0].ad || a[1].ad || a[2].ad;
      return !(ins->drop && !*ad);
    case FL_STD_NORMAL:
      *ad = a[0].ad;
      return !(ins->drop && !*ad);
    case FL_SUM:
      *ad = a[0].ad;
      return TRUE;
    case FL_NORMAL_FMA:
      *ad = TRUE;
      return TRUE;
    default:
      *ad = FALSE;
      return FALSE;
    }
}

/* The constant part of k_normal over N values with data scales, in its
 * order: what normal () and normal_fma () subtract before the loop. */
static double
normal_constant (const FlIns *ins, const double *v)
{
  const FlReg *s = &ins->a[2];
  gint32 N = ins->n;
  double logp = 0;
  if (ins->drop)
    return logp;
  logp -= N * TILDE_LOG_SQRT_TWO_PI;
  if (s->vec)
    for (gint32 i = 0; i < N; i++)
      logp -= log (v[s->off + i]);
  else
    logp -= N * log (v[s->off]);
  return logp;
}

void
rt_flat_choose (FlIns *ins, const double *v)
{
  const FlReg *a = ins->a, *b = ins->b;
  double mu, s;
  switch (ins->op)
    {
    case FL_LOWER:
      ins->fn = ins->n != 1 ? fn_constrain
        : ins->jacobian ? fn_lower_scalar_jacobian : fn_lower_scalar;
      return;
    case FL_UPPER:
    case FL_LUB:
      ins->fn = fn_constrain;
      return;
    case FL_NORMAL:
      ins->fn = fn_normal;
      /* the scale was checked when the form was built */
      if (!a[0].ad || !data_scalar (&a[1], v, &mu) || !data_scalar (&a[2], v, &s)
          || !isfinite (mu))
        return;
      ins->c[0] = 1 / s;
      ins->c[2] = mu;
      if (!a[0].vec)
        {
          ins->c[1] = log (s);
          ins->fn = fn_normal_scalar_data;
          return;
        }
      ins->c[1] = normal_constant (ins, v);
      ins->fn = mu == 0 && s == 1 ? fn_normal_vector_unit : fn_normal_vector_data;
      return;
    case FL_STD_NORMAL:
      ins->fn = fn_std_normal;
      /* for rt_flat_fuse: std_normal as normal (0, 1), and what it
       * subtracts after the squares */
      ins->c[0] = 1;
      ins->c[1] = ins->drop ? 0 : ins->n * TILDE_LOG_SQRT_TWO_PI;
      ins->c[2] = 0;
      return;
    case FL_CAUCHY:
      ins->fn = fn_cauchy;
      if (!a[0].ad || a[0].vec || !data_scalar (&a[1], v, &mu) || !data_scalar (&a[2], v, &s)
          || !isfinite (mu))
        return;
      ins->c[0] = s * s;
      ins->c[1] = 0;
      if (!ins->drop)
        {
          ins->c[1] -= TILDE_LOG_PI;
          ins->c[1] -= log (s);
        }
      ins->c[2] = mu;
      ins->fn = fn_cauchy_scalar_data;
      return;
    case FL_SUM:
      ins->fn = fn_sum;
      return;
    case FL_NORMAL_FMA:
      ins->fn = fn_normal_fma;
      if (a[0].ad || a[2].ad)
        return;
      ins->c[1] = normal_constant (ins, v);
      ins->fn = normal_fma_data[b[0].vec | b[1].vec << 1 | b[2].vec << 2 | a[2].vec << 3];
      return;
    case FL_CHECK:
      ins->fn = fn_check;
      return;
    default:
      ins->fn = fn_arith;
      return;
    }
}

double
rt_flat_run (const RtFlat *f, double *scratch, const double *theta, gboolean propto,
             gboolean jacobian, double *gradient)
{
  const FlProg *p = &f->prog[(propto ? 1 : 0) | (jacobian ? 2 : 0)];
  *gradient_slot (scratch) = gradient;
  /* theta in, two at a time: a leaf until the tail call */
  typedef double V2 __attribute__ ((vector_size (16), aligned (8), may_alias));
  gint32 P = f->n_params, P2 = P & ~1;
#pragma GCC unroll 2
  for (gint32 i = 0; i < P2; i += 2)
    *(V2 *) (scratch + i) = *(const V2 *) (theta + i);
  if (P2 < P)
    scratch[P2] = theta[P2];
  /* every adjoint is 0 here (left so by the run before); the general
   * path's sum: the constant terms first (summed when the form was
   * built), then the others in order, and the end of the run (fn_end) */
  return p->ins->fn (p->ins, scratch, scratch + f->n_vals, p->cst);
}

void
rt_flat_gave_way (const RtFlat *f, double *scratch)
{
  clear_adjoints (f, scratch);
  g_atomic_int_inc (&fallbacks);
}

/* A density over a container of parameters with data location and scale
 * (std_normal among them), which normal_fma_loop can fold in. */
static gboolean
prior_to_fold (const FlIns *a)
{
  if (a->fn == fn_normal_vector_unit || a->fn == fn_normal_vector_data)
    return TRUE;
  return a->op == FL_STD_NORMAL && a->a[0].vec && a->a[0].ad;
}

/* d (the instruction after a) takes a in, where d is normal (y | b0 * b1 +
 * b2, sigma) with data y and sigma and a location whose one container is
 * a's variate. */
static gboolean
fold_prior (const FlIns *a, FlIns *d)
{
  if (d->op != FL_NORMAL_FMA || d->a[0].ad || d->a[2].ad || d->n != a->n)
    return FALSE;
  int j = -1;
  for (int k = 0; k < 3; k++)
    if (d->b[k].vec)
      {
        if (j >= 0)
          return FALSE;
        j = k;
      }
  const FlReg *r = &d->b[j < 0 ? 0 : j];
  if (j < 0 || !r->ad || r->off != a->a[0].off || r->n != a->n)
    return FALSE;
  memcpy (d->pc, a->c, sizeof d->pc);
  int pu = a->op == FL_STD_NORMAL ? 2 : a->c[2] == 0 && a->c[0] == 1;
  d->fn = normal_fma_prior[d->a[2].vec != 0][j][pu];
  return TRUE;
}

/* The kind of a scalar density of data location and scale (scalar_term),
 * 0 for any other instruction. */
static int
scalar_density (const FlIns *ins)
{
  return ins->fn == fn_normal_scalar_data ? 1 : ins->fn == fn_cauchy_scalar_data ? 2 : 0;
}

/* At ins[0], a scalar lower bound or a scalar density, the scalar steps
 * that follow it (a scalar density or two after a bound, one after a
 * density) as one: each code's entry and exit, and its hand-over to the
 * next, paid once. The number of instructions taken in. */
static guint
fuse_scalar_run (FlIns *ins, guint n)
{
  int lower = ins->fn == fn_lower_scalar ? 1 : ins->fn == fn_lower_scalar_jacobian ? 2 : 0;
  guint k = lower ? 1 : 0;
  int d1 = k < n ? scalar_density (&ins[k]) : 0;
  int d2 = d1 && k + 1 < n ? scalar_density (&ins[k + 1]) : 0;
  if (!d1 || (!lower && !d2))
    return 0;
  FlIns run = ins[0];
  run.b[0] = ins[k].a[0];
  memcpy (run.c, ins[k].c, sizeof run.c);
  run.drop = ins[k].drop;
  if (d2)
    {
      run.b[1] = ins[k + 1].a[0];
      memcpy (run.pc, ins[k + 1].c, sizeof run.pc);
      run.pdrop = ins[k + 1].drop;
    }
  run.fn = scalar_runs[lower][d1 - 1][d2];
  ins[0] = run;
  return k + (d2 ? 1 : 0);
}

guint
rt_flat_fuse (FlIns *ins, guint n)
{
  guint out = 0;
  for (guint k = 0; k < n; k++)
    {
      if (k + 1 < n && prior_to_fold (&ins[k]) && fold_prior (&ins[k], &ins[k + 1]))
        continue;
      ins[out++] = ins[k];
    }
  n = out;
  out = 0;
  for (guint k = 0; k < n; k++)
    {
      guint taken = fuse_scalar_run (&ins[k], n - k);
      ins[out++] = ins[k];
      k += taken;
    }
  return out;
}
