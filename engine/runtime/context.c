/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/runtime-private.h"

#include <math.h>
#include <string.h>

void
rt_raise (RtCtx *cx, TildeModelErrorKind kind, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_free (cx->err_msg);
  cx->err_msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  cx->err_kind = kind;
  longjmp (*cx->jmp, 1);
}

void
rt_raise_take (RtCtx *cx, TildeModelErrorKind kind, char *message)
{
  g_free (cx->err_msg);
  cx->err_msg = message;
  cx->err_kind = kind;
  longjmp (*cx->jmp, 1);
}

const char *
rt_fn_name (RtCtx *cx)
{
  const char *name = cx->fn_name ? cx->fn_name : "?";
  gsize len = strlen (name);
  gboolean pdf = g_str_has_suffix (name, "_lupdf");
  if (len > 6 && (pdf || g_str_has_suffix (name, "_lupmf")))
    {
      char *s = tilde_arena_alloc (cx->arena, len);
      memcpy (s, name, len - 5);
      strcpy (s + len - 5, pdf ? "lpdf" : "lpmf");
      return s;
    }
  return name;
}

void
rt_domain_error (RtCtx *cx, const char *what, double value, const char *must)
{
  rt_raise (cx, TILDE_MODEL_ERROR_DOMAIN, "%s: %s is %.6g, but must be %s!",
            rt_fn_name (cx), what, value, must);
}

const double *
rt_values (RtCtx *cx, const TildeValue *v)
{
  if (v->ad)
    {
      if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
        return cx->tape->val + v->start;
      if (!v->idx)
        return cx->tape->val + v->start;
      gint32 n = tilde_value_flat_size (v);
      double *d = rt_alloc_d (cx, (gsize) n);
      const double *val = cx->tape->val;
      for (gint32 i = 0; i < n; i++)
        d[i] = val[v->idx[i]];
      return d;
    }
  switch ((TildeValueKind) v->kind)
    {
    case TILDE_VALUE_INT:
      {
        double *d = rt_alloc_d (cx, 1);
        d[0] = v->u.i;
        return d;
      }
    case TILDE_VALUE_REAL:
      return &v->u.r;
    case TILDE_VALUE_ARRAY:
      if (v->elem == TILDE_VALUE_INT)
        {
          double *d = rt_alloc_d (cx, (gsize) v->rows);
          for (gint32 i = 0; i < v->rows; i++)
            d[i] = v->u.iv[i];
          return d;
        }
      if (v->elem == TILDE_VALUE_REAL)
        return v->u.d;
      break;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_MATRIX:
      return v->u.d;
    default:
      break;
    }
  rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: a %s where reals were expected",
            cx->fn_name ? cx->fn_name : "?", tilde_value_kind_name ((TildeValueKind) v->kind));
}

const double *
rt_stable_values (RtCtx *cx, const TildeValue *v)
{
  const double *x = rt_values (cx, v);
  /* a data scalar's value lives in the struct, often a caller's temporary */
  if (!v->ad && (v->kind == TILDE_VALUE_REAL || v->kind == TILDE_VALUE_COMPLEX))
    return tilde_arena_memdup (cx->arena, x,
                               sizeof (double) * (v->kind == TILDE_VALUE_COMPLEX ? 2 : 1));
  if (v->ad || !v->view || tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return x;
  return tilde_arena_memdup (cx->arena, x, sizeof (double) * (gsize) tilde_value_flat_size (v));
}

double
rt_scalar (RtCtx *cx, const TildeValue *v)
{
  if (v->ad)
    return cx->tape->val[v->start];
  if (v->kind == TILDE_VALUE_INT)
    return v->u.i;
  if (v->kind == TILDE_VALUE_REAL)
    return v->u.r;
  rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: a %s where a scalar was expected",
            cx->fn_name ? cx->fn_name : "?", tilde_value_kind_name ((TildeValueKind) v->kind));
}

int
rt_int (RtCtx *cx, const TildeValue *v)
{
  if (v->kind == TILDE_VALUE_INT)
    return v->u.i;
  rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: a %s where an int was expected",
            cx->fn_name ? cx->fn_name : "?", tilde_value_kind_name ((TildeValueKind) v->kind));
}

static gint32
new_vars (RtCtx *cx, gint32 n)
{
  gint32 s = ad_new_vars (cx->tape, n);
  if (s < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full (%d variables)",
              cx->tape->cap_vars);
  return s;
}

TildeValue
rt_new_ad (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols)
{
  TildeValue v = { .kind = (guint8) kind, .ad = 1, .rows = rows, .cols = cols };
  if (kind == TILDE_VALUE_ARRAY)
    v.elem = TILDE_VALUE_REAL;
  v.start = new_vars (cx, rows * cols);
  return v;
}

TildeValue
rt_new_data (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols)
{
  TildeValue v = { .kind = (guint8) kind, .rows = rows, .cols = cols };
  if (kind == TILDE_VALUE_ARRAY)
    v.elem = TILDE_VALUE_REAL;
  if (kind == TILDE_VALUE_REAL)
    return v;
  v.u.d = rt_alloc_d (cx, (gsize) rows * (gsize) cols);
  return v;
}

AdOperand
rt_operand (const TildeValue *v, const double *partial)
{
  AdOperand op = { .start = v->start, .idx = v->idx, .n = tilde_value_flat_size (v),
                   .partial = partial };
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      op.idx = NULL;
      op.n = 1;
    }
  return op;
}

gboolean
rt_is_ad (const TildeValue *v)
{
  if (v->ad)
    return TRUE;
  if (v->kind == TILDE_VALUE_TUPLE || (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v)))
    for (gint32 i = 0; i < v->rows; i++)
      if (rt_is_ad (&v->u.elems[i]))
        return TRUE;
  return FALSE;
}

TildeValue
rt_promote_ad (RtCtx *cx, const TildeValue *v)
{
  if (v->ad)
    return *v;
  TildeValue r = *v;
  switch ((TildeValueKind) v->kind)
    {
    case TILDE_VALUE_INT:
    case TILDE_VALUE_REAL:
      r.kind = TILDE_VALUE_REAL;
      r.ad = 1;
      r.start = new_vars (cx, 1);
      cx->tape->val[r.start] = rt_scalar (cx, v);
      return r;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_MATRIX:
      {
        gint32 n = v->rows * v->cols;
        r.ad = 1;
        r.idx = NULL;
        r.start = new_vars (cx, n);
        memcpy (cx->tape->val + r.start, v->u.d, sizeof (double) * (gsize) n);
        return r;
      }
    case TILDE_VALUE_ARRAY:
      if (tilde_value_is_flat (v))
        {
          const double *x = rt_values (cx, v);
          r.ad = 1;
          r.idx = NULL;
          r.elem = TILDE_VALUE_REAL;
          r.start = new_vars (cx, v->rows);
          memcpy (cx->tape->val + r.start, x, sizeof (double) * (gsize) v->rows);
          return r;
        }
      /* fall through */
    case TILDE_VALUE_TUPLE:
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
      for (gint32 i = 0; i < v->rows; i++)
        r.u.elems[i] = (v->kind == TILDE_VALUE_TUPLE && v->u.elems[i].kind == TILDE_VALUE_INT)
          ? v->u.elems[i] : rt_promote_ad (cx, &v->u.elems[i]);
      return r;
    default:
      return r;
    }
}

TildeValue
rt_reduce (RtCtx *cx, double value, guint n_ops, const AdOperand *ops)
{
  if (n_ops == 0)
    return tilde_value_real (value);
  gint32 id = ad_reduction (cx->tape, value, n_ops, ops);
  if (id < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  return rt_ad_scalar (id);
}

void
rt_check_size (RtCtx *cx, const char *what, gint32 a, gint32 b)
{
  if (a != b)
    rt_raise (cx, TILDE_MODEL_ERROR_INDEX, "%s: size mismatch in %s (%d and %d)",
              cx->fn_name ? cx->fn_name : "?", what, a, b);
}

/* ---- elementwise maps ---- */

static gboolean
is_container (const TildeValue *v)
{
  return !tilde_value_kind_is_scalar ((TildeValueKind) v->kind);
}

#define MAX_MAP_ARGS 4

static void
map_scalars (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out, RtScalarFn f)
{
  double x[MAX_MAP_ARGS] = { 0 }, d[MAX_MAP_ARGS] = { 0 };
  AdOperand ops[MAX_MAP_ARGS];
  guint n_ops = 0;
  for (int k = 0; k < nargs; k++)
    x[k] = rt_scalar (cx, &args[k]);
  double value = f (x, d);
  for (int k = 0; k < nargs; k++)
    if (args[k].ad)
      {
        ops[n_ops] = (AdOperand) { .start = args[k].start, .n = 1 };
        ops[n_ops].partial = NULL;
        x[n_ops] = d[k];   /* reuse as storage for the partials */
        n_ops++;
      }
  if (n_ops == 0)
    {
      *out = tilde_value_real (value);
      return;
    }
  gint32 id;
  if (n_ops == 1)
    id = ad_unary (cx->tape, value, ops[0].start, x[0]);
  else if (n_ops == 2)
    id = ad_binary (cx->tape, value, ops[0].start, x[0], ops[1].start, x[1]);
  else
    {
      double *p = rt_alloc_d (cx, n_ops);
      for (guint k = 0; k < n_ops; k++)
        {
          p[k] = x[k];
          ops[k].partial = p + k;
        }
      id = ad_reduction (cx->tape, value, n_ops, ops);
    }
  if (id < 0)
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
  *out = rt_ad_scalar (id);
}

static gboolean
is_ints (const TildeValue *v)
{
  if (v->kind == TILDE_VALUE_INT)
    return TRUE;
  if (v->kind != TILDE_VALUE_ARRAY)
    return FALSE;
  if (v->elem == TILDE_VALUE_INT)
    return TRUE;
  if (v->elem != TILDE_VALUE_ARRAY)
    return FALSE;
  for (gint32 i = 0; i < v->rows; i++)
    if (!is_ints (&v->u.elems[i]))
      return FALSE;
  return TRUE;
}

gboolean
rt_all_ints (int nargs, const TildeValue *args)
{
  for (int k = 0; k < nargs; k++)
    if (!is_ints (&args[k]))
      return FALSE;
  return TRUE;
}

void
rt_map_int (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out, RtIntFn f)
{
  const TildeValue *shape = NULL;
  double x[MAX_MAP_ARGS];

  g_assert (nargs <= MAX_MAP_ARGS);
  for (int k = 0; k < nargs; k++)
    if (args[k].kind == TILDE_VALUE_ARRAY)
      {
        if (shape)
          rt_check_size (cx, "elementwise arguments", args[k].rows, shape->rows);
        else
          shape = &args[k];
      }
  if (!shape)
    {
      for (int k = 0; k < nargs; k++)
        x[k] = rt_scalar (cx, &args[k]);
      tilde_value_set_int (out, f (cx, x));
      return;
    }
  TildeValue r = { .kind = TILDE_VALUE_ARRAY, .rows = shape->rows, .cols = 1 };
  gboolean flat = shape->elem == TILDE_VALUE_INT || shape->elem == TILDE_VALUE_REAL;
  if (flat)
    {
      r.elem = TILDE_VALUE_INT;
      r.u.iv = tilde_arena_alloc (cx->arena, sizeof (int) * (gsize) MAX (r.rows, 1));
      for (gint32 i = 0; i < r.rows; i++)
        {
          for (int k = 0; k < nargs; k++)
            {
              const TildeValue *a = &args[k];
              x[k] = a->kind != TILDE_VALUE_ARRAY ? rt_scalar (cx, a)
                     : a->elem == TILDE_VALUE_INT ? a->u.iv[i] : rt_values (cx, a)[i];
            }
          r.u.iv[i] = f (cx, x);
        }
    }
  else
    {
      TildeValue sub[MAX_MAP_ARGS];
      r.elem = TILDE_VALUE_ARRAY;
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (r.rows, 1));
      for (gint32 i = 0; i < r.rows; i++)
        {
          for (int k = 0; k < nargs; k++)
            sub[k] = args[k].kind == TILDE_VALUE_ARRAY ? args[k].u.elems[i] : args[k];
          rt_map_int (cx, nargs, sub, &r.u.elems[i], f);
        }
    }
  *out = r;
}

void
rt_map (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out, RtScalarFn f)
{
  /* one real scalar, the common call in loops */
  if (nargs == 1 && (args[0].kind == TILDE_VALUE_REAL || args[0].kind == TILDE_VALUE_INT))
    {
      double x = rt_scalar (cx, &args[0]), d;
      double value = f (&x, &d);
      if (!args[0].ad)
        {
          tilde_value_set_real (out, value);
          return;
        }
      gint32 id = ad_unary (cx->tape, value, args[0].start, d);
      if (id < 0)
        rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "the autodiff tape is full");
      tilde_value_set_var (out, id);
      return;
    }
  const TildeValue *shape = NULL;
  g_assert (nargs <= MAX_MAP_ARGS);
  for (int k = 0; k < nargs; k++)
    if (is_container (&args[k]))
      {
        if (!shape)
          shape = &args[k];
        else
          {
            rt_check_size (cx, "elementwise arguments", args[k].rows, shape->rows);
            rt_check_size (cx, "elementwise arguments", args[k].cols, shape->cols);
          }
      }
  if (!shape)
    {
      map_scalars (cx, nargs, args, out, f);
      return;
    }
  if (!tilde_value_is_flat (shape))
    {
      /* arrays of containers: element by element */
      TildeValue r = *shape;
      r.ad = 0;
      r.idx = NULL;
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (shape->rows, 1));
      TildeValue sub[MAX_MAP_ARGS];
      for (gint32 i = 0; i < shape->rows; i++)
        {
          for (int k = 0; k < nargs; k++)
            sub[k] = is_container (&args[k]) ? args[k].u.elems[i] : args[k];
          rt_map (cx, nargs, sub, &r.u.elems[i], f);
        }
      if (shape->rows > 0)
        r.elem = r.u.elems[0].kind;
      *out = r;
      return;
    }
  gint32 n = tilde_value_flat_size (shape);
  TildeValueKind kind = (TildeValueKind) shape->kind;
  const double *x[MAX_MAP_ARGS];
  int stride[MAX_MAP_ARGS];
  gboolean any_ad = FALSE;
  for (int k = 0; k < nargs; k++)
    {
      x[k] = rt_values (cx, &args[k]);
      stride[k] = is_container (&args[k]) ? 1 : 0;
      any_ad |= args[k].ad;
    }
  double xi[MAX_MAP_ARGS], di[MAX_MAP_ARGS];
  if (!any_ad)
    {
      TildeValue r = rt_new_data (cx, kind, shape->rows, shape->cols);
      for (gint32 i = 0; i < n; i++)
        {
          for (int k = 0; k < nargs; k++)
            xi[k] = x[k][i * stride[k]];
          r.u.d[i] = f (xi, di);
        }
      *out = r;
      return;
    }
  TildeValue r = rt_new_ad (cx, kind, shape->rows, shape->cols);
  double *val = cx->tape->val + r.start;
  double *p[MAX_MAP_ARGS] = { NULL };
  AdOperand ops[MAX_MAP_ARGS];
  guint n_ops = 0;
  for (int k = 0; k < nargs; k++)
    if (args[k].ad)
      {
        p[k] = rt_alloc_d (cx, (gsize) n);
        ops[n_ops++] = rt_operand (&args[k], p[k]);
      }
  for (gint32 i = 0; i < n; i++)
    {
      for (int k = 0; k < nargs; k++)
        xi[k] = x[k][i * stride[k]];
      val[i] = f (xi, di);
      for (int k = 0; k < nargs; k++)
        if (p[k])
          p[k][i] = di[k];
    }
  ad_elementwise (cx->tape, r.start, n, n_ops, ops);
  *out = r;
}

/* ---- the table ---- */

static GHashTable *builtins;   /* name -> GPtrArray of RtBuiltin*, one per arity range */

static gpointer
build_table (gpointer unused)
{
  /* complex first: its kernels pass calls without complex arguments on */
  const RtBuiltin *tables[] = {
    rt_builtins_complex, rt_builtins_arith, rt_builtins_funs, rt_builtins_scalar,
    rt_builtins_containers,
    rt_builtins_matrix, rt_builtins_gp, rt_builtins_linalg, rt_builtins_dist,
    rt_builtins_dist_continuous, rt_builtins_dist_discrete,
    rt_builtins_dist_multivariate, rt_builtins_cdf, rt_builtins_rng,
    rt_builtins_rng_multi, rt_builtins_hmm, rt_builtins_sparse, rt_builtins_decomp,
    rt_builtins_transform, rt_builtins_hypergeometric, rt_builtins_lkj_cov,
    rt_builtins_gaussian_dlm, rt_builtins_wiener, rt_builtins_poisson_binomial,
  };
  GHashTable *t = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    for (const RtBuiltin *b = tables[i]; b->name; b++)
      {
        GPtrArray *all = g_hash_table_lookup (t, b->name);
        if (!all)
          {
            all = g_ptr_array_new ();
            g_hash_table_insert (t, (gpointer) b->name, all);
          }
        g_ptr_array_add (all, (gpointer) b);
      }
  builtins = t;
  return t;
}

static GOnce table_once = G_ONCE_INIT;

const RtBuiltin *
rt_builtin_lookup (const char *name, int nargs)
{
  g_once (&table_once, build_table, NULL);
  GPtrArray *all = g_hash_table_lookup (builtins, name);
  if (!all)
    return NULL;
  for (guint i = 0; i < all->len; i++)
    {
      const RtBuiltin *b = g_ptr_array_index (all, i);
      if (nargs >= b->min_args && nargs <= b->max_args)
        return b;
    }
  return NULL;
}

const RtBuiltin *
rt_builtin_lookup_other (const char *name, int nargs, RtKernel skip)
{
  g_once (&table_once, build_table, NULL);
  GPtrArray *all = g_hash_table_lookup (builtins, name);
  for (guint i = 0; all && i < all->len; i++)
    {
      const RtBuiltin *b = g_ptr_array_index (all, i);
      if (b->fn != skip && nargs >= b->min_args && nargs <= b->max_args)
        return b;
    }
  return NULL;
}
