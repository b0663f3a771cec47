/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Complex numbers. Data keep (re, im) pairs interleaved; an autodiff
 * complex scalar holds the ids of its two parts (idx[0] and idx[1] when
 * idx is set, else start and start + 1) and a container interleaves the
 * ids of its parts the same way. Splitting a complex value into its real
 * and imaginary parts, or joining two real values into a complex one,
 * only moves ids: no node.
 *
 * Elementwise operations (arithmetic, the analytic functions, abs, arg,
 * ...) map over the parts with the real elementwise map: an analytic f
 * with derivative f' gives each part its partials by the Cauchy-Riemann
 * equations (d re f / d re z = re f', d re f / d im z = -im f', ...).
 * Matrix products and the structural functions (transpose, append_row,
 * to_vector, sum, ...) run the library's real kernels on the parts.
 * Library functions that also take reals are found here first: with no
 * complex argument they pass the call on to the real kernel. The FFTs
 * use GSL's mixed-radix transforms; their reverse rule is the adjoint
 * transform.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"
#include "runtime/math/complex.h"

#include <complex.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_complex.h>
#include <math.h>
#include <string.h>

/* ---- kinds ---- */

gboolean
rt_is_complex (const TildeValue *v)
{
  if (tilde_value_kind_is_complex ((TildeValueKind) v->kind))
    return TRUE;
  if (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v))
    return v->rows > 0 ? rt_is_complex (&v->u.elems[0])
      : tilde_value_kind_is_complex ((TildeValueKind) v->elem);
  return FALSE;
}

static gboolean
any_complex (int n, const TildeValue *a)
{
  for (int i = 0; i < n; i++)
    if (rt_is_complex (&a[i]))
      return TRUE;
  return FALSE;
}

static TildeValueKind
real_kind (int k)
{
  switch (k)
    {
    case TILDE_VALUE_COMPLEX: return TILDE_VALUE_REAL;
    case TILDE_VALUE_COMPLEX_VECTOR: return TILDE_VALUE_VECTOR;
    case TILDE_VALUE_COMPLEX_ROW_VECTOR: return TILDE_VALUE_ROW_VECTOR;
    case TILDE_VALUE_COMPLEX_MATRIX: return TILDE_VALUE_MATRIX;
    default: return (TildeValueKind) k;
    }
}

static TildeValueKind
complex_kind (int k)
{
  switch (k)
    {
    case TILDE_VALUE_INT:
    case TILDE_VALUE_REAL: return TILDE_VALUE_COMPLEX;
    case TILDE_VALUE_VECTOR: return TILDE_VALUE_COMPLEX_VECTOR;
    case TILDE_VALUE_ROW_VECTOR: return TILDE_VALUE_COMPLEX_ROW_VECTOR;
    case TILDE_VALUE_MATRIX: return TILDE_VALUE_COMPLEX_MATRIX;
    default: return (TildeValueKind) k;
    }
}

/* The id of part p (0 re, 1 im) of element i of an autodiff complex value. */
static gint32
part_id (const TildeValue *z, gint32 i, int p)
{
  if (z->kind == TILDE_VALUE_COMPLEX)
    return z->idx ? z->idx[p] : z->start + p;
  return tilde_value_var (z, 2 * i + p);
}

/* ---- splitting and joining ---- */

static gboolean
holds_elems (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_TUPLE || (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v));
}

/* A data value of v's real shape holding zeros. */
static TildeValue
zeros_like (RtCtx *cx, const TildeValue *v)
{
  if (holds_elems (v))
    {
      TildeValue r = *v;
      r.ad = 0;
      r.idx = NULL;
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
      for (gint32 i = 0; i < v->rows; i++)
        r.u.elems[i] = zeros_like (cx, &v->u.elems[i]);
      if (v->rows > 0)
        r.elem = r.u.elems[0].kind;
      else
        r.elem = real_kind (v->elem);
      return r;
    }
  TildeValueKind k = real_kind (v->kind);
  if (k == TILDE_VALUE_INT || k == TILDE_VALUE_REAL)
    return tilde_value_real (0);
  TildeValue r = rt_new_data (cx, k, v->rows, v->cols);
  memset (r.u.d, 0, sizeof (double) * (gsize) MAX (v->rows * v->cols, 1));
  return r;
}

void
rt_complex_split (RtCtx *cx, const TildeValue *v, TildeValue *re, TildeValue *im)
{
  if (!rt_is_complex (v))
    {
      *re = *v;
      if (re->kind == TILDE_VALUE_INT)
        tilde_value_set_real (re, re->u.i);
      else if (re->kind == TILDE_VALUE_ARRAY && re->elem == TILDE_VALUE_INT)
        {
          re->elem = TILDE_VALUE_REAL;
          re->u.d = (double *) rt_values (cx, v);
        }
      *im = zeros_like (cx, v);
      return;
    }
  if (v->kind == TILDE_VALUE_COMPLEX)
    {
      if (v->ad)
        {
          *re = rt_ad_scalar (part_id (v, 0, 0));
          *im = rt_ad_scalar (part_id (v, 0, 1));
        }
      else
        {
          *re = tilde_value_real (v->u.z[0]);
          *im = tilde_value_real (v->u.z[1]);
        }
      return;
    }
  if (v->kind == TILDE_VALUE_ARRAY)
    {
      /* an array of complex scalars splits into flat arrays of reals */
      gboolean scalars = v->rows > 0 && v->u.elems[0].kind == TILDE_VALUE_COMPLEX;
      if (scalars)
        {
          gboolean ad = rt_is_ad (v);
          TildeValue parts[2];
          for (int p = 0; p < 2; p++)
            {
              parts[p] = (TildeValue) { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_REAL,
                                        .ad = ad, .rows = v->rows, .cols = 1 };
              if (ad)
                parts[p].idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) v->rows);
              else
                parts[p].u.d = rt_alloc_d (cx, (gsize) v->rows);
            }
          for (gint32 i = 0; i < v->rows; i++)
            {
              const TildeValue *z = &v->u.elems[i];
              for (int p = 0; p < 2; p++)
                {
                  if (!ad)
                    parts[p].u.d[i] = z->u.z[p];
                  else if (z->ad)
                    parts[p].idx[i] = part_id (z, 0, p);
                  else
                    {
                      TildeValue c = tilde_value_real (z->u.z[p]);
                      parts[p].idx[i] = rt_promote_ad (cx, &c).start;
                    }
                }
            }
          *re = parts[0];
          *im = parts[1];
          return;
        }
      *re = *v;
      *im = *v;
      re->u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
      im->u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
      for (gint32 i = 0; i < v->rows; i++)
        rt_complex_split (cx, &v->u.elems[i], &re->u.elems[i], &im->u.elems[i]);
      re->elem = im->elem = real_kind (v->elem);
      return;
    }
  /* complex vectors and matrices */
  gint32 n = v->rows * v->cols;
  TildeValueKind k = real_kind (v->kind);
  for (int p = 0; p < 2; p++)
    {
      TildeValue *r = p ? im : re;
      *r = (TildeValue) { .kind = (guint8) k, .ad = v->ad, .rows = v->rows, .cols = v->cols };
      if (v->ad)
        {
          r->idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (n, 1));
          for (gint32 i = 0; i < n; i++)
            r->idx[i] = part_id (v, i, p);
        }
      else
        {
          r->u.d = rt_alloc_d (cx, (gsize) n);
          for (gint32 i = 0; i < n; i++)
            r->u.d[i] = v->u.d[2 * i + p];
        }
    }
}

static gint32
scalar_id (RtCtx *cx, const TildeValue *v)
{
  return v->ad ? v->start : rt_promote_ad (cx, v).start;
}

/* The id or value of element i of a real value (a scalar broadcasts). */
static gint32
elem_id (RtCtx *cx, const TildeValue *v, gint32 i)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return scalar_id (cx, v);
  if (v->ad)
    return tilde_value_var (v, i);
  TildeValue c = tilde_value_real (rt_values (cx, v)[i]);
  return rt_promote_ad (cx, &c).start;
}

static double
elem_value (RtCtx *cx, const TildeValue *v, gint32 i)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return rt_scalar (cx, v);
  return rt_values (cx, v)[i];
}

TildeValue
rt_complex_join (RtCtx *cx, const TildeValue *re, const TildeValue *im)
{
  /* the shape: the container's, when one part is a scalar */
  const TildeValue *shape = tilde_value_kind_is_scalar ((TildeValueKind) re->kind) ? im : re;
  gboolean ad = rt_is_ad (re) || rt_is_ad (im);
  if (holds_elems (shape))
    {
      TildeValue r = *shape;
      r.ad = 0;
      r.idx = NULL;
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (shape->rows, 1));
      for (gint32 i = 0; i < shape->rows; i++)
        r.u.elems[i] = rt_complex_join (cx, holds_elems (re) ? &re->u.elems[i] : re,
                                        holds_elems (im) ? &im->u.elems[i] : im);
      r.elem = complex_kind (shape->rows > 0 ? r.u.elems[0].kind : shape->elem);
      return r;
    }
  if (tilde_value_kind_is_scalar ((TildeValueKind) shape->kind))
    {
      TildeValue z = { .kind = TILDE_VALUE_COMPLEX, .rows = 1, .cols = 1, .ad = ad };
      if (ad)
        {
          z.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * 2);
          z.idx[0] = scalar_id (cx, re);
          z.idx[1] = scalar_id (cx, im);
          z.start = z.idx[0];
        }
      else
        {
          z.u.z[0] = rt_scalar (cx, re);
          z.u.z[1] = rt_scalar (cx, im);
        }
      return z;
    }
  gint32 n = tilde_value_flat_size (shape);
  if (shape->kind == TILDE_VALUE_ARRAY)
    {
      /* flat arrays of reals join into arrays of complex scalars */
      TildeValue r = { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_COMPLEX, .rows = n,
                       .cols = 1 };
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (n, 1));
      for (gint32 i = 0; i < n; i++)
        {
          TildeValue a, b;
          if (rt_is_ad (re))
            a = rt_ad_scalar (elem_id (cx, re, i));
          else
            a = tilde_value_real (elem_value (cx, re, i));
          if (rt_is_ad (im))
            b = rt_ad_scalar (elem_id (cx, im, i));
          else
            b = tilde_value_real (elem_value (cx, im, i));
          r.u.elems[i] = rt_complex_join (cx, &a, &b);
        }
      return r;
    }
  TildeValue z = { .kind = (guint8) complex_kind (shape->kind), .ad = ad, .rows = shape->rows,
                   .cols = shape->cols };
  if (ad)
    {
      z.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (2 * n, 1));
      for (gint32 i = 0; i < n; i++)
        {
          z.idx[2 * i] = elem_id (cx, re, i);
          z.idx[2 * i + 1] = elem_id (cx, im, i);
        }
      z.start = n > 0 ? z.idx[0] : 0;
    }
  else
    {
      z.u.d = rt_alloc_d (cx, 2 * (gsize) n);
      for (gint32 i = 0; i < n; i++)
        {
          z.u.d[2 * i] = elem_value (cx, re, i);
          z.u.d[2 * i + 1] = elem_value (cx, im, i);
        }
    }
  return z;
}

TildeValue
rt_complex_promote (RtCtx *cx, const TildeValue *v)
{
  if (rt_is_complex (v))
    return *v;
  TildeValue re, im;
  rt_complex_split (cx, v, &re, &im);
  return rt_complex_join (cx, &re, &im);
}

TildeValue
rt_complex_element (RtCtx *cx, const TildeValue *v, gint32 pos)
{
  TildeValue z = { .kind = TILDE_VALUE_COMPLEX, .rows = 1, .cols = 1, .ad = v->ad };
  if (v->ad)
    {
      /* its own ids: the container's list may be written later */
      z.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * 2);
      z.idx[0] = part_id (v, pos, 0);
      z.idx[1] = part_id (v, pos, 1);
      z.start = z.idx[0];
    }
  else
    {
      z.u.z[0] = v->u.d[2 * pos];
      z.u.z[1] = v->u.d[2 * pos + 1];
    }
  return z;
}

TildeValue
rt_complex_gather (RtCtx *cx, const TildeValue *v, const gint32 *pos, gint32 n,
                   TildeValueKind kind, gint32 rows, gint32 cols)
{
  TildeValue r = { .kind = (guint8) kind, .ad = v->ad, .rows = rows, .cols = cols };
  if (v->ad)
    {
      r.idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (2 * n, 1));
      for (gint32 k = 0; k < n; k++)
        {
          r.idx[2 * k] = part_id (v, pos[k], 0);
          r.idx[2 * k + 1] = part_id (v, pos[k], 1);
        }
      r.start = n > 0 ? r.idx[0] : 0;
    }
  else
    {
      r.u.d = rt_alloc_d (cx, 2 * (gsize) n);
      for (gint32 k = 0; k < n; k++)
        {
          r.u.d[2 * k] = v->u.d[2 * pos[k]];
          r.u.d[2 * k + 1] = v->u.d[2 * pos[k] + 1];
        }
    }
  return r;
}

void
rt_complex_write (RtCtx *cx, TildeValue *t, const gint32 *pos, gint32 n, const TildeValue *rhs)
{
  gboolean scalar = tilde_value_kind_is_scalar ((TildeValueKind) rhs->kind);
  if (!scalar)
    rt_check_size (cx, "assignment", tilde_value_flat_size (rhs), n);
  TildeValue z = rt_complex_promote (cx, rhs);
  if (!z.ad && !t->ad)
    {
      for (gint32 k = 0; k < n; k++)
        {
          t->u.d[2 * pos[k]] = scalar ? z.u.z[0] : z.u.d[2 * k];
          t->u.d[2 * pos[k] + 1] = scalar ? z.u.z[1] : z.u.d[2 * k + 1];
        }
      return;
    }
  gint32 len = tilde_value_flat_size (t);
  if (!t->ad || !t->idx)
    {
      /* the slot gets its own list of ids */
      TildeValue a = t->ad ? *t : rt_complex_promote_ad (cx, t);
      gint32 *ids = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (2 * len, 1));
      for (gint32 i = 0; i < 2 * len; i++)
        ids[i] = tilde_value_var (&a, i);
      t->ad = 1;
      t->idx = ids;
      t->start = len > 0 ? ids[0] : 0;
    }
  TildeValue za = z.ad ? z : rt_complex_promote_ad (cx, &z);
  for (gint32 k = 0; k < n; k++)
    for (int p = 0; p < 2; p++)
      t->idx[2 * pos[k] + p] = part_id (&za, scalar ? 0 : k, p);
}

TildeValue
rt_complex_promote_ad (RtCtx *cx, const TildeValue *v)
{
  if (v->ad)
    return *v;
  if (v->kind == TILDE_VALUE_COMPLEX)
    {
      TildeValue z = *v;
      z.ad = 1;
      z.idx = NULL;
      z.start = ad_new_vars (cx->tape, 2);
      if (z.start < 0)
        rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
      cx->tape->val[z.start] = v->u.z[0];
      cx->tape->val[z.start + 1] = v->u.z[1];
      return z;
    }
  gint32 n = 2 * tilde_value_flat_size (v);
  TildeValue z = *v;
  z.ad = 1;
  z.idx = NULL;
  z.start = ad_new_vars (cx->tape, MAX (n, 1));
  if (z.start < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  memcpy (cx->tape->val + z.start, v->u.d, sizeof (double) * (gsize) n);
  return z;
}

/* ---- elementwise maps over the parts ---- */

typedef double complex (*Analytic1) (double complex z, double complex *dz);
typedef double complex (*Analytic2) (double complex z, double complex w, double complex *dz,
                                     double complex *dw);

/* Each map below fixes one function and one part: rt_map takes plain
 * functions of reals. */
#define UNARY(name, expr, deriv)                                              \
  static double complex name##_f (double complex z, double complex *dz)       \
  {                                                                           \
    double complex v = (expr);                                                \
    *dz = (deriv);                                                            \
    return v;                                                                 \
  }                                                                           \
  static double name##_re (const double *x, double *d)                        \
  {                                                                           \
    double complex dz, v = name##_f (x[0] + I * x[1], &dz);                   \
    d[0] = creal (dz);                                                        \
    d[1] = -cimag (dz);                                                       \
    return creal (v);                                                         \
  }                                                                           \
  static double name##_im (const double *x, double *d)                        \
  {                                                                           \
    double complex dz, v = name##_f (x[0] + I * x[1], &dz);                   \
    d[0] = cimag (dz);                                                        \
    d[1] = creal (dz);                                                        \
    return cimag (v);                                                         \
  }

#define BINARY(name, expr, dzexpr, dwexpr)                                    \
  static double complex name##_f (double complex z, double complex w,         \
                                  double complex *dz, double complex *dw)     \
  {                                                                           \
    double complex v = (expr);                                                \
    *dz = (dzexpr);                                                           \
    *dw = (dwexpr);                                                           \
    return v;                                                                 \
  }                                                                           \
  static double name##_re (const double *x, double *d)                        \
  {                                                                           \
    double complex dz, dw, v = name##_f (x[0] + I * x[1], x[2] + I * x[3], &dz, &dw); \
    d[0] = creal (dz);                                                        \
    d[1] = -cimag (dz);                                                       \
    d[2] = creal (dw);                                                        \
    d[3] = -cimag (dw);                                                       \
    return creal (v);                                                         \
  }                                                                           \
  static double name##_im (const double *x, double *d)                        \
  {                                                                           \
    double complex dz, dw, v = name##_f (x[0] + I * x[1], x[2] + I * x[3], &dz, &dw); \
    d[0] = cimag (dz);                                                        \
    d[1] = creal (dz);                                                        \
    d[2] = cimag (dw);                                                        \
    d[3] = creal (dw);                                                        \
    return cimag (v);                                                         \
  }

UNARY (c_exp, cexp (z), cexp (z))
UNARY (c_log, clog (z), 1 / z)
UNARY (c_log10, clog (z) / M_LN10, 1 / (z * M_LN10))
UNARY (c_sqrt, csqrt (z), 0.5 / csqrt (z))
UNARY (c_sin, csin (z), ccos (z))
UNARY (c_cos, ccos (z), -csin (z))
UNARY (c_tan, ctan (z), 1 + ctan (z) * ctan (z))
UNARY (c_asin, casin (z), 1 / csqrt (1 - z * z))
UNARY (c_acos, cacos (z), -1 / csqrt (1 - z * z))
UNARY (c_atan, catan (z), 1 / (1 + z * z))
UNARY (c_sinh, csinh (z), ccosh (z))
UNARY (c_cosh, ccosh (z), csinh (z))
UNARY (c_tanh, ctanh (z), 1 - ctanh (z) * ctanh (z))
UNARY (c_asinh, casinh (z), 1 / csqrt (z * z + 1))
UNARY (c_acosh, cacosh (z), 1 / (csqrt (z - 1) * csqrt (z + 1)))
UNARY (c_atanh, catanh (z), 1 / (1 - z * z))
UNARY (c_neg, -z, -1)

static double complex
c_pow_value (double complex z, double complex w)
{
  return cpow (z, w);
}

static double complex
c_pow_dz (double complex z, double complex w)
{
  return z == 0 ? (w == 1 ? 1 : 0) : w * cpow (z, w - 1);
}

static double complex
c_pow_dw (double complex z, double complex w)
{
  return z == 0 ? 0 : cpow (z, w) * clog (z);
}

BINARY (c_add, z + w, 1, 1)
BINARY (c_sub, z - w, 1, -1)
BINARY (c_mul, z * w, w, z)
BINARY (c_div, z / w, 1 / w, -z / (w * w))
BINARY (c_pow, c_pow_value (z, w), c_pow_dz (z, w), c_pow_dw (z, w))

/* f applied elementwise to complex z, by parts. */
static void
map1 (RtCtx *cx, const TildeValue *z, RtScalarFn re_fn, RtScalarFn im_fn, TildeValue *out)
{
  TildeValue parts[2], re, im;
  rt_complex_split (cx, z, &parts[0], &parts[1]);
  rt_map (cx, 2, parts, &re, re_fn);
  rt_map (cx, 2, parts, &im, im_fn);
  *out = rt_complex_join (cx, &re, &im);
}

static void
map2 (RtCtx *cx, const TildeValue *z, const TildeValue *w, RtScalarFn re_fn, RtScalarFn im_fn,
      TildeValue *out)
{
  TildeValue parts[4], re, im;
  rt_complex_split (cx, z, &parts[0], &parts[1]);
  rt_complex_split (cx, w, &parts[2], &parts[3]);
  rt_map (cx, 4, parts, &re, re_fn);
  rt_map (cx, 4, parts, &im, im_fn);
  *out = rt_complex_join (cx, &re, &im);
}

/* ---- passing calls on to the real kernels ---- */

static void
call_real (RtCtx *cx, const char *name, int n, const TildeValue *args, TildeValue *out)
{
  const RtBuiltin *b = rt_builtin_lookup (name, n);
  const char *saved = cx->fn_name;
  b->fn (cx, n, args, out);
  cx->fn_name = saved;
}

/* The kernel `name` after this file's own, found once per arity. */
static void
forward (RtCtx *cx, const char *name, RtKernel self, const RtBuiltin **cache, int n,
         const TildeValue *a, TildeValue *out)
{
  const RtBuiltin *b = n < 6 ? g_atomic_pointer_get (&cache[n]) : NULL;
  if (!b)
    {
      b = rt_builtin_lookup_other (name, n, self);
      if (!b)
        rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: no kernel for these arguments", name);
      if (n < 6)
        g_atomic_pointer_set (&cache[n], b);
    }
  b->fn (cx, n, a, out);
}

/* name applied to the real and imaginary parts of the complex arguments
 * (others passed to both as they are): the linear and structural
 * functions. */
static void
partwise (RtCtx *cx, const char *name, int n, const TildeValue *a, TildeValue *out)
{
  TildeValue re[8], im[8], r, i;
  g_assert (n <= 8);
  for (int k = 0; k < n; k++)
    {
      if (rt_is_complex (&a[k]))
        rt_complex_split (cx, &a[k], &re[k], &im[k]);
      else
        re[k] = im[k] = a[k];
    }
  call_real (cx, name, n, re, &r);
  call_real (cx, name, n, im, &i);
  *out = rt_complex_join (cx, &r, &i);
}

static gboolean
is_scalarish (const TildeValue *v)
{
  return tilde_value_kind_is_scalar ((TildeValueKind) v->kind);
}

/* f (a, b) for a real function f linear in each argument: (ar + i ai) and
 * (br + i bi) give f (ar, br) - f (ai, bi) + i (f (ar, bi) + f (ai, br)). */
static void
bilinear (RtCtx *cx, const char *f, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  TildeValue ar, ai, br, bi, p[2], t1, t2, re, im;
  rt_complex_split (cx, a, &ar, &ai);
  rt_complex_split (cx, b, &br, &bi);
  p[0] = ar, p[1] = br;
  call_real (cx, f, 2, p, &t1);
  p[0] = ai, p[1] = bi;
  call_real (cx, f, 2, p, &t2);
  p[0] = t1, p[1] = t2;
  call_real (cx, "subtract", 2, p, &re);
  p[0] = ar, p[1] = bi;
  call_real (cx, f, 2, p, &t1);
  p[0] = ai, p[1] = br;
  call_real (cx, f, 2, p, &t2);
  p[0] = t1, p[1] = t2;
  call_real (cx, "add", 2, p, &im);
  *out = rt_complex_join (cx, &re, &im);
}

/* A product of two complex values: elementwise when either is a scalar,
 * the matrix product otherwise (by parts). */
static void
times (RtCtx *cx, const char *elt, const TildeValue *a, const TildeValue *b, TildeValue *out)
{
  if (elt || is_scalarish (a) || is_scalarish (b))
    map2 (cx, a, b, c_mul_re, c_mul_im, out);
  else
    bilinear (cx, "multiply", a, b, out);
}

#define WRAP(id, stan, impl)                                                    \
  static void w_##id (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)   \
  {                                                                             \
    static const RtBuiltin *cache[6];                                           \
    if (G_LIKELY (!any_complex (n, a)))                                         \
      {                                                                         \
        forward (cx, stan, w_##id, cache, n, a, out);                           \
        return;                                                                 \
      }                                                                         \
    impl;                                                                       \
  }

#define PARTWISE(id, stan) WRAP (id, stan, partwise (cx, stan, n, a, out))
#define ANALYTIC(id, stan, f) WRAP (id, stan, map1 (cx, &a[0], f##_re, f##_im, out))

WRAP (plus_op, "Plus__", map2 (cx, &a[0], &a[1], c_add_re, c_add_im, out))
WRAP (add, "add", map2 (cx, &a[0], &a[1], c_add_re, c_add_im, out))
WRAP (minus_op, "Minus__", map2 (cx, &a[0], &a[1], c_sub_re, c_sub_im, out))
WRAP (subtract, "subtract", map2 (cx, &a[0], &a[1], c_sub_re, c_sub_im, out))
WRAP (neg_op, "PMinus__", map1 (cx, &a[0], c_neg_re, c_neg_im, out))
WRAP (neg, "minus", map1 (cx, &a[0], c_neg_re, c_neg_im, out))
WRAP (pplus_op, "PPlus__", *out = a[0])
WRAP (pplus, "plus", *out = a[0])
WRAP (times_op, "Times__", times (cx, NULL, &a[0], &a[1], out))
WRAP (multiply, "multiply", times (cx, NULL, &a[0], &a[1], out))
WRAP (elt_times_op, "EltTimes__", times (cx, "elt", &a[0], &a[1], out))
WRAP (elt_multiply, "elt_multiply", times (cx, "elt", &a[0], &a[1], out))
WRAP (divide_op, "Divide__", map2 (cx, &a[0], &a[1], c_div_re, c_div_im, out))
WRAP (divide, "divide", map2 (cx, &a[0], &a[1], c_div_re, c_div_im, out))
WRAP (elt_divide_op, "EltDivide__", map2 (cx, &a[0], &a[1], c_div_re, c_div_im, out))
WRAP (elt_divide, "elt_divide", map2 (cx, &a[0], &a[1], c_div_re, c_div_im, out))
WRAP (pow_op, "Pow__", map2 (cx, &a[0], &a[1], c_pow_re, c_pow_im, out))
WRAP (elt_pow_op, "EltPow__", map2 (cx, &a[0], &a[1], c_pow_re, c_pow_im, out))
WRAP (pow, "pow", map2 (cx, &a[0], &a[1], c_pow_re, c_pow_im, out))
ANALYTIC (exp, "exp", c_exp)
ANALYTIC (log, "log", c_log)
ANALYTIC (log10, "log10", c_log10)
ANALYTIC (sqrt, "sqrt", c_sqrt)
ANALYTIC (sin, "sin", c_sin)
ANALYTIC (cos, "cos", c_cos)
ANALYTIC (tan, "tan", c_tan)
ANALYTIC (asin, "asin", c_asin)
ANALYTIC (acos, "acos", c_acos)
ANALYTIC (atan, "atan", c_atan)
ANALYTIC (sinh, "sinh", c_sinh)
ANALYTIC (cosh, "cosh", c_cosh)
ANALYTIC (tanh, "tanh", c_tanh)
ANALYTIC (asinh, "asinh", c_asinh)
ANALYTIC (acosh, "acosh", c_acosh)
ANALYTIC (atanh, "atanh", c_atanh)
PARTWISE (transpose_op, "Transpose__")
PARTWISE (transpose, "transpose")
PARTWISE (sum, "sum")
PARTWISE (cumulative_sum, "cumulative_sum")
PARTWISE (to_vector, "to_vector")
PARTWISE (to_row_vector, "to_row_vector")
PARTWISE (to_matrix, "to_matrix")
PARTWISE (to_array_1d, "to_array_1d")
PARTWISE (to_array_2d, "to_array_2d")
PARTWISE (rep_vector, "rep_vector")
PARTWISE (rep_row_vector, "rep_row_vector")
PARTWISE (rep_matrix, "rep_matrix")
PARTWISE (append_row, "append_row")
PARTWISE (append_col, "append_col")
PARTWISE (head, "head")
PARTWISE (tail, "tail")
PARTWISE (segment, "segment")
PARTWISE (reverse, "reverse")
PARTWISE (diag_matrix, "diag_matrix")
PARTWISE (diagonal, "diagonal")
PARTWISE (col, "col")
PARTWISE (row, "row")
PARTWISE (block, "block")
PARTWISE (sub_col, "sub_col")
PARTWISE (sub_row, "sub_row")
PARTWISE (add_diag, "add_diag")
PARTWISE (symmetrize_from_lower_tri, "symmetrize_from_lower_tri")
PARTWISE (trace, "trace")

static void
compare (RtCtx *cx, const TildeValue *a, gboolean equal, TildeValue *out)
{
  TildeValue z = rt_complex_promote (cx, &a[0]), w = rt_complex_promote (cx, &a[1]);
  TildeValue zr, zi, wr, wi;
  rt_complex_split (cx, &z, &zr, &zi);
  rt_complex_split (cx, &w, &wr, &wi);
  gboolean same = rt_scalar (cx, &zr) == rt_scalar (cx, &wr)
    && rt_scalar (cx, &zi) == rt_scalar (cx, &wi);
  *out = tilde_value_int (equal ? same : !same);
}

/* dot_product: sum conj (u_i) v_i of vectors (Eigen's, which Stan uses),
 * sum u_i v_i of arrays */
static void
dot (RtCtx *cx, const TildeValue *u, const TildeValue *v, TildeValue *out)
{
  gboolean conjugate = u->kind != TILDE_VALUE_ARRAY;
  TildeValue a, b, c, d, p[2], t1, t2, re, im;
  rt_complex_split (cx, u, &a, &b);
  rt_complex_split (cx, v, &c, &d);
  p[0] = a, p[1] = c;
  call_real (cx, "dot_product", 2, p, &t1);
  p[0] = b, p[1] = d;
  call_real (cx, "dot_product", 2, p, &t2);
  p[0] = t1, p[1] = t2;
  call_real (cx, conjugate ? "add" : "subtract", 2, p, &re);
  p[0] = a, p[1] = d;
  call_real (cx, "dot_product", 2, p, &t1);
  p[0] = b, p[1] = c;
  call_real (cx, "dot_product", 2, p, &t2);
  p[0] = t1, p[1] = t2;
  call_real (cx, conjugate ? "subtract" : "add", 2, p, &im);
  *out = rt_complex_join (cx, &re, &im);
}

/* dot_self, columns_dot_self, rows_dot_self (the real function f): sums
 * of |v_i|^2, as Eigen's squaredNorm gives them to Stan, f (re) + f (im) */
static void
self_product (RtCtx *cx, const char *f, const TildeValue *v, TildeValue *out)
{
  TildeValue p[2], re, zero = tilde_value_real (0);
  rt_complex_split (cx, v, &p[0], &p[1]);
  call_real (cx, f, 1, &p[0], &p[0]);
  call_real (cx, f, 1, &p[1], &p[1]);
  call_real (cx, "add", 2, p, &re);
  *out = rt_complex_join (cx, &re, &zero);
}

/* singular_values of a complex matrix: the real matrix [[Ar, -Ai],
 * [Ai, Ar]] has each of them twice, so every other of its own (their
 * derivatives too: along the directions the parts of A can move, both of a
 * pair move alike, Re (u^H dA v)). */
static void
complex_singular_values (RtCtx *cx, const TildeValue *a, TildeValue *out)
{
  TildeValue ar, ai, p[2], top, bottom, r, s;
  rt_complex_split (cx, a, &ar, &ai);
  p[0] = ar;
  call_real (cx, "minus", 1, &ai, &p[1]);
  call_real (cx, "append_col", 2, p, &top);
  p[0] = ai, p[1] = ar;
  call_real (cx, "append_col", 2, p, &bottom);
  p[0] = top, p[1] = bottom;
  call_real (cx, "append_row", 2, p, &r);
  call_real (cx, "singular_values", 1, &r, &s);
  gint32 k = s.rows / 2;
  if (!s.ad)
    {
      *out = rt_new_data (cx, TILDE_VALUE_VECTOR, k, 1);
      for (gint32 j = 0; j < k; j++)
        out->u.d[j] = s.u.d[2 * j];
      return;
    }
  *out = (TildeValue) { .kind = TILDE_VALUE_VECTOR, .rows = k, .cols = 1, .ad = 1 };
  out->idx = tilde_arena_alloc (cx->arena, sizeof (gint32) * (gsize) MAX (k, 1));
  for (gint32 j = 0; j < k; j++)
    out->idx[j] = tilde_value_var (&s, 2 * j);
  out->start = k > 0 ? out->idx[0] : 0;
}

/* mdivide_right (B, A) = B A^-1 of complex values through the real
 * system [Xr, Xi] [[Ar, Ai], [-Ai, Ar]] = [Br, Bi], which is X A = B
 * written by parts. */
static void
complex_mdivide_right (RtCtx *cx, const TildeValue *b, const TildeValue *a, TildeValue *out)
{
  TildeValue ar, ai, br, bi, p[5], top, bottom, m, rhs, x, xr, xi;
  rt_complex_split (cx, a, &ar, &ai);
  rt_complex_split (cx, b, &br, &bi);
  gint32 n = ar.cols;
  p[0] = ar, p[1] = ai;
  call_real (cx, "append_col", 2, p, &top);
  call_real (cx, "minus", 1, &ai, &p[0]);
  p[1] = ar;
  call_real (cx, "append_col", 2, p, &bottom);
  p[0] = top, p[1] = bottom;
  call_real (cx, "append_row", 2, p, &m);
  p[0] = br, p[1] = bi;
  call_real (cx, "append_col", 2, p, &rhs);
  p[0] = rhs, p[1] = m;
  call_real (cx, "mdivide_right", 2, p, &x);
  if (x.kind == TILDE_VALUE_ROW_VECTOR)
    {
      p[0] = x, p[1] = tilde_value_int (n);
      call_real (cx, "head", 2, p, &xr);
      call_real (cx, "tail", 2, p, &xi);
    }
  else
    {
      p[0] = x, p[1] = tilde_value_int (1), p[2] = tilde_value_int (1);
      p[3] = tilde_value_int (x.rows), p[4] = tilde_value_int (n);
      call_real (cx, "block", 5, p, &xr);
      p[2] = tilde_value_int (n + 1);
      call_real (cx, "block", 5, p, &xi);
    }
  *out = rt_complex_join (cx, &xr, &xi);
}

/* prod: the elements multiplied in order */
static void
product (RtCtx *cx, const TildeValue *v, TildeValue *out)
{
  TildeValue re, im, one = tilde_value_real (1), zero = tilde_value_real (0);
  TildeValue acc = rt_complex_join (cx, &one, &zero);
  rt_complex_split (cx, v, &re, &im);
  gint32 n = tilde_value_flat_size (&re);
  for (gint32 i = 0; i < n; i++)
    {
      TildeValue r = re.ad ? rt_ad_scalar (tilde_value_var (&re, i))
        : tilde_value_real (rt_values (cx, &re)[i]);
      TildeValue m = im.ad ? rt_ad_scalar (tilde_value_var (&im, i))
        : tilde_value_real (rt_values (cx, &im)[i]);
      TildeValue z = rt_complex_join (cx, &r, &m);
      map2 (cx, &acc, &z, c_mul_re, c_mul_im, &acc);
    }
  *out = acc;
}

WRAP (dot_product, "dot_product", dot (cx, &a[0], &a[1], out))
WRAP (diag_pre_multiply, "diag_pre_multiply", bilinear (cx, "diag_pre_multiply", &a[0], &a[1], out))
WRAP (diag_post_multiply, "diag_post_multiply",
      bilinear (cx, "diag_post_multiply", &a[0], &a[1], out))
WRAP (dot_self, "dot_self", self_product (cx, "dot_self", &a[0], out))
WRAP (columns_dot_self, "columns_dot_self", self_product (cx, "columns_dot_self", &a[0], out))
WRAP (rows_dot_self, "rows_dot_self", self_product (cx, "rows_dot_self", &a[0], out))
WRAP (columns_dot_product, "columns_dot_product",
      bilinear (cx, "columns_dot_product", &a[0], &a[1], out))
WRAP (rows_dot_product, "rows_dot_product", bilinear (cx, "rows_dot_product", &a[0], &a[1], out))
WRAP (mdivide_right, "mdivide_right", complex_mdivide_right (cx, &a[0], &a[1], out))
WRAP (singular_values, "singular_values", complex_singular_values (cx, &a[0], out))
WRAP (prod, "prod", product (cx, &a[0], out))
WRAP (equals, "Equals__", compare (cx, a, TRUE, out))
WRAP (nequals, "NEquals__", compare (cx, a, FALSE, out))

/* ---- functions of complex values ---- */

static double f_hypot (const double *x, double *d)
{
  double r = hypot (x[0], x[1]);
  d[0] = r > 0 ? x[0] / r : 0;
  d[1] = r > 0 ? x[1] / r : 0;
  return r;
}

static double f_atan2 (const double *x, double *d)
{
  /* arg (z) = atan2 (im, re), x = (re, im) */
  double r2 = x[0] * x[0] + x[1] * x[1];
  d[0] = r2 > 0 ? -x[1] / r2 : 0;
  d[1] = r2 > 0 ? x[0] / r2 : 0;
  return atan2 (x[1], x[0]);
}

static double f_norm (const double *x, double *d)
{
  d[0] = 2 * x[0];
  d[1] = 2 * x[1];
  return x[0] * x[0] + x[1] * x[1];
}

static double f_neg_part (const double *x, double *d) { d[0] = -1; return -x[0]; }
static double
f_polar_re (const double *x, double *d)
{
  d[0] = cos (x[1]);
  d[1] = -x[0] * sin (x[1]);
  return x[0] * cos (x[1]);
}

static double
f_polar_im (const double *x, double *d)
{
  d[0] = sin (x[1]);
  d[1] = x[0] * cos (x[1]);
  return x[0] * sin (x[1]);
}

/* A real function of the two parts. */
static void
of_parts (RtCtx *cx, const TildeValue *z, RtScalarFn f, TildeValue *out)
{
  TildeValue parts[2];
  rt_complex_split (cx, z, &parts[0], &parts[1]);
  rt_map (cx, 2, parts, out, f);
}

WRAP (abs, "abs", of_parts (cx, &a[0], f_hypot, out))

static void
k_get_real (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  TildeValue im;
  rt_complex_split (cx, &a[0], out, &im);
}

static void
k_get_imag (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  TildeValue re;
  rt_complex_split (cx, &a[0], &re, out);
}

static void k_arg (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { of_parts (cx, &a[0], f_atan2, out); }
static void k_norm (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { of_parts (cx, &a[0], f_norm, out); }

static void
k_conj (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  TildeValue re, im, neg;
  rt_complex_split (cx, &a[0], &re, &im);
  rt_map (cx, 1, &im, &neg, f_neg_part);
  *out = rt_complex_join (cx, &re, &neg);
}

static void
k_proj (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  TildeValue re, im;
  rt_complex_split (cx, &a[0], &re, &im);
  double x = rt_scalar (cx, &re), y = rt_scalar (cx, &im);
  if (isinf (x) || isinf (y))
    {
      TildeValue r = tilde_value_real (INFINITY), i = tilde_value_real (copysign (0.0, y));
      *out = rt_complex_join (cx, &r, &i);
      return;
    }
  *out = a[0];
}

static void
k_polar (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  if (rt_scalar (cx, &a[0]) < 0)
    rt_domain_error (cx, "r", rt_scalar (cx, &a[0]), "nonnegative");
  TildeValue re, im;
  rt_map (cx, 2, a, &re, f_polar_re);
  rt_map (cx, 2, a, &im, f_polar_im);
  *out = rt_complex_join (cx, &re, &im);
}

static void
k_to_complex (RtCtx *cx, int n, const TildeValue *a, TildeValue *out)
{
  TildeValue zero = tilde_value_real (0), r, i, ignored;
  rt_complex_split (cx, n > 0 ? &a[0] : &zero, &r, &ignored);
  rt_complex_split (cx, n > 1 ? &a[1] : &zero, &i, &ignored);
  if (!tilde_value_kind_is_scalar ((TildeValueKind) r.kind)
      && !tilde_value_kind_is_scalar ((TildeValueKind) i.kind))
    {
      rt_check_size (cx, "re and im", r.rows, i.rows);
      rt_check_size (cx, "re and im", r.cols, i.cols);
    }
  *out = rt_complex_join (cx, &r, &i);
}

/* ---- the fast Fourier transforms ---- */

/* The DFT (sign -1) or its unnormalised inverse (+1) of n complex values
 * at stride `stride` (in complex elements), in place. */
static void
dft (double *x, gint32 n, gint32 stride, int sign)
{
  if (n <= 1)
    return;
  gsl_set_error_handler_off ();
  gsl_fft_complex_wavetable *w = gsl_fft_complex_wavetable_alloc ((size_t) n);
  gsl_fft_complex_workspace *s = gsl_fft_complex_workspace_alloc ((size_t) n);
  gsl_fft_complex_transform (x, (size_t) stride, (size_t) n, w, s,
                             sign < 0 ? gsl_fft_forward : gsl_fft_backward);
  gsl_fft_complex_workspace_free (s);
  gsl_fft_complex_wavetable_free (w);
}

/* The 1-d or 2-d transform of rows x cols interleaved values, in place,
 * divided by their count when inverse. */
static void
transform (double *x, gint32 rows, gint32 cols, gboolean two_d, int sign, gboolean normalise)
{
  if (!two_d)
    dft (x, rows * cols, 1, sign);
  else
    {
      for (gint32 j = 0; j < cols; j++)
        dft (x + 2 * (gsize) j * rows, rows, 1, sign);
      for (gint32 i = 0; i < rows; i++)
        dft (x + 2 * (gsize) i, cols, rows, sign);
    }
  if (normalise)
    {
      double s = 1.0 / MAX (rows * cols, 1);
      for (gint32 i = 0; i < 2 * rows * cols; i++)
        x[i] *= s;
    }
}

typedef struct {
  gint32 rows, cols, n;
  gboolean two_d, inverse;
  const gint32 *in;     /* interleaved ids of the input */
  gint32 out;
} Fft;

static void
fft_backward (AdTape *t, const void *p)
{
  const Fft *f = p;
  double *g = g_memdup2 (t->adj + f->out, sizeof (double) * 2 * (gsize) f->n);
  /* the adjoint: F^H for the forward transform, F / n for the inverse */
  transform (g, f->rows, f->cols, f->two_d, f->inverse ? -1 : 1, f->inverse);
  for (gint32 i = 0; i < 2 * f->n; i++)
    t->adj[f->in[i]] += g[i];
  g_free (g);
}

static void
fft (RtCtx *cx, const TildeValue *z, gboolean two_d, gboolean inverse, TildeValue *out)
{
  gint32 n = z->rows * z->cols;
  TildeValue v = rt_complex_promote (cx, z);
  double *x;
  TildeValue r = { .kind = v.kind, .rows = v.rows, .cols = v.cols, .ad = v.ad };
  if (v.ad)
    {
      r.start = ad_new_vars (cx->tape, MAX (2 * n, 1));
      if (r.start < 0)
        rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
      x = cx->tape->val + r.start;
      for (gint32 i = 0; i < 2 * n; i++)
        x[i] = cx->tape->val[tilde_value_var (&v, i)];
    }
  else
    {
      r.u.d = x = rt_alloc_d (cx, 2 * (gsize) n);
      memcpy (x, v.u.d, sizeof (double) * 2 * (gsize) n);
    }
  transform (x, v.rows, v.cols, two_d, inverse ? 1 : -1, inverse);
  if (v.ad)
    {
      Fft *f = tilde_arena_alloc (cx->tape->arena, sizeof *f);
      gint32 *in = tilde_arena_alloc (cx->tape->arena, sizeof (gint32) * (gsize) MAX (2 * n, 1));
      for (gint32 i = 0; i < 2 * n; i++)
        in[i] = tilde_value_var (&v, i);
      *f = (Fft) { .rows = v.rows, .cols = v.cols, .n = n, .two_d = two_d, .inverse = inverse,
                   .in = in, .out = r.start };
      ad_push (cx->tape, fft_backward, f);
    }
  *out = r;
}

static void k_fft (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { fft (cx, &a[0], FALSE, FALSE, out); }
static void k_inv_fft (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { fft (cx, &a[0], FALSE, TRUE, out); }
static void k_fft2 (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { fft (cx, &a[0], TRUE, FALSE, out); }
static void k_inv_fft2 (RtCtx *cx, int n, const TildeValue *a, TildeValue *out) { fft (cx, &a[0], TRUE, TRUE, out); }

#define E(id, stan, lo, hi) { stan, w_##id, lo, hi }

const RtBuiltin rt_builtins_complex[] = {
  E (plus_op, "Plus__", 2, 2), E (add, "add", 2, 2), E (minus_op, "Minus__", 2, 2),
  E (subtract, "subtract", 2, 2), E (neg_op, "PMinus__", 1, 1), E (neg, "minus", 1, 1),
  E (pplus_op, "PPlus__", 1, 1), E (pplus, "plus", 1, 1), E (times_op, "Times__", 2, 2),
  E (multiply, "multiply", 2, 2), E (elt_times_op, "EltTimes__", 2, 2),
  E (elt_multiply, "elt_multiply", 2, 2), E (divide_op, "Divide__", 2, 2),
  E (divide, "divide", 2, 2), E (elt_divide_op, "EltDivide__", 2, 2),
  E (elt_divide, "elt_divide", 2, 2), E (pow_op, "Pow__", 2, 2), E (elt_pow_op, "EltPow__", 2, 2),
  E (pow, "pow", 2, 2), E (exp, "exp", 1, 1), E (log, "log", 1, 1), E (log10, "log10", 1, 1),
  E (sqrt, "sqrt", 1, 1), E (sin, "sin", 1, 1), E (cos, "cos", 1, 1), E (tan, "tan", 1, 1),
  E (asin, "asin", 1, 1), E (acos, "acos", 1, 1), E (atan, "atan", 1, 1),
  E (sinh, "sinh", 1, 1), E (cosh, "cosh", 1, 1), E (tanh, "tanh", 1, 1),
  E (asinh, "asinh", 1, 1), E (acosh, "acosh", 1, 1), E (atanh, "atanh", 1, 1),
  E (transpose_op, "Transpose__", 1, 1), E (transpose, "transpose", 1, 1),
  E (sum, "sum", 1, 1), E (cumulative_sum, "cumulative_sum", 1, 1),
  E (to_vector, "to_vector", 1, 1), E (to_row_vector, "to_row_vector", 1, 1),
  E (to_matrix, "to_matrix", 1, 4), E (to_array_1d, "to_array_1d", 1, 1),
  E (to_array_2d, "to_array_2d", 1, 1), E (rep_vector, "rep_vector", 2, 2),
  E (rep_row_vector, "rep_row_vector", 2, 2), E (rep_matrix, "rep_matrix", 2, 3),
  E (append_row, "append_row", 2, 2), E (append_col, "append_col", 2, 2),
  E (head, "head", 2, 2), E (tail, "tail", 2, 2), E (segment, "segment", 3, 3),
  E (reverse, "reverse", 1, 1), E (diag_matrix, "diag_matrix", 1, 1),
  E (diagonal, "diagonal", 1, 1), E (col, "col", 2, 2), E (row, "row", 2, 2),
  E (block, "block", 5, 5), E (sub_col, "sub_col", 4, 4), E (sub_row, "sub_row", 4, 4),
  E (add_diag, "add_diag", 2, 2), E (symmetrize_from_lower_tri, "symmetrize_from_lower_tri", 1, 1),
  E (trace, "trace", 1, 1), E (equals, "Equals__", 2, 2), E (nequals, "NEquals__", 2, 2),
  E (abs, "abs", 1, 1), E (dot_product, "dot_product", 2, 2), E (dot_self, "dot_self", 1, 1),
  E (columns_dot_self, "columns_dot_self", 1, 1), E (rows_dot_self, "rows_dot_self", 1, 1),
  E (columns_dot_product, "columns_dot_product", 2, 2),
  E (rows_dot_product, "rows_dot_product", 2, 2), E (mdivide_right, "mdivide_right", 2, 2),
  E (singular_values, "singular_values", 1, 1),
  E (prod, "prod", 1, 1), E (diag_pre_multiply, "diag_pre_multiply", 2, 2),
  E (diag_post_multiply, "diag_post_multiply", 2, 2),
  { "get_real", k_get_real, 1, 1 },
  { "get_imag", k_get_imag, 1, 1 },
  { "arg", k_arg, 1, 1 },
  { "norm", k_norm, 1, 1 },
  { "conj", k_conj, 1, 1 },
  { "proj", k_proj, 1, 1 },
  { "polar", k_polar, 2, 2 },
  { "to_complex", k_to_complex, 0, 2 },
  { "fft", k_fft, 1, 1 },
  { "inv_fft", k_inv_fft, 1, 1 },
  { "fft2", k_fft2, 1, 1 },
  { "inv_fft2", k_inv_fft2, 1, 1 },
  { NULL, NULL, 0, 0 },
};
