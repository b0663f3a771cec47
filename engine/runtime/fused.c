/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Densities with fused arguments, and loops run as one vectorised call.
 *
 * `y ~ normal (mu + tau * eta[g], sigma)` computed as written records two
 * elementwise nodes over N new variables, then the density's reduction;
 * the reverse sweep walks all three. Here the argument is computed in one
 * pass together with its partials with respect to its leaves (forward
 * mode: mu, tau and eta[g]); the density hands back its partials with
 * respect to the argument instead of recording a node (RtCapture), and the
 * two are composed into the density's one reduction over the leaves: the
 * chain rule is applied once while recording, nothing records the
 * argument, and the sweep only adds tau's and mu's partials and eta's,
 * summed per variable of eta. (A density of more arguments than a capture
 * holds records the argument as one elementwise node and folds it into its
 * reduction.) `y ~ normal (a + b * v, sigma)` of data y and scalars a, b
 * and sigma goes further: one loop computes the value and sums the
 * partials as it goes, the location never stored (affine_normal).
 *
 * A loop whose body is only `target += density (...)` of scalars indexed
 * by the loop variable (`y[n] ~ normal (alpha + beta * y[n - 1], sigma)`)
 * is the same density vectorised over the iterations: y[n - 1] becomes the
 * slice y[lo - 1 : hi - 1], mu[g[n]] the gather mu[g[lo:hi]], and the
 * statement one call. Anything the vectorised form cannot do, or any error
 * it meets, sends the evaluation back to the statement or loop compiled as
 * usual, after the tape is rewound, so values, gradients and error
 * messages are those of the general path.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/exec-private.h"
#include "runtime/math/special.h"

#include <math.h>
#include <string.h>

#define CX (&ev->cx)
#define FX_MAX_DEPS 8
#define FX_MAX_ARGS 8

static const double ONE = 1.0;

typedef struct {
  gboolean      vec;      /* one value per element, else one for all */
  gint32        n;        /* vec: the number of elements; else 1 */
  const double *x;        /* the values; NULL for ints not needed as reals yet */
  const int    *iv;       /* int values (indices, int arguments) */
  gboolean      has_v;    /* leaves, slices and gathers are values already */
  TildeValue    v;
  gint32        start;    /* arguments: x are the values of new variables from here */
  gboolean      ints;     /* int arithmetic: an int argument */
  guint         n_deps;
  AdOperand     deps[FX_MAX_DEPS];   /* d value / d leaf: per element, or `same` */
} FxVal;

typedef struct {
  Ev      *ev;
  int      lo;    /* loops: the loop variable's first value */
  gint32   n;     /* the number of elements: a loop's iterations, else -1 until known */
} FxRun;

void
rt_fused_give_up (Ev *ev)
{
  rt_raise (CX, TILDE_MODEL_ERROR_FATAL, "not for the fused form");
}

#define give_up rt_fused_give_up

static int
int_of (Ev *ev, const Ex *e)
{
  TildeValue v;
  rt_eval (ev, e, &v);
  return rt_int (CX, &v);
}

static const double *
reals_of (FxRun *r, FxVal *f)
{
  Ev *ev = r->ev;
  if (!f->x)
    {
      double *d = rt_alloc_d (CX, (gsize) f->n);
      for (gint32 i = 0; i < f->n; i++)
        d[i] = f->iv[i];
      f->x = d;
    }
  return f->x;
}

static void
set_size (FxRun *r, gint32 n)
{
  if (r->n < 0)
    r->n = n;
  else if (r->n != n)
    give_up (r->ev);
}

static gboolean
is_flat_1d (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_VECTOR || v->kind == TILDE_VALUE_ROW_VECTOR
    || (v->kind == TILDE_VALUE_ARRAY && tilde_value_is_flat (v));
}

/* A value as a leaf: its values, and itself as the one dependency. */
static void
fx_value (FxRun *r, const TildeValue *v, FxVal *out)
{
  Ev *ev = r->ev;
  out->has_v = TRUE;
  out->v = *v;
  out->n_deps = 0;
  out->iv = NULL;
  out->ints = FALSE;
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      out->vec = FALSE;
      out->n = 1;
      if (v->kind == TILDE_VALUE_COMPLEX)
        give_up (ev);
      if (v->kind == TILDE_VALUE_INT)
        {
          int *i = tilde_arena_alloc (CX->arena, sizeof (int));
          *i = v->u.i;
          out->iv = i;
          out->x = NULL;
        }
      else if (v->ad)
        out->x = CX->tape->val + v->start;
      else
        out->x = tilde_arena_memdup (CX->arena, &v->u.r, sizeof (double));
    }
  else
    {
      if (!is_flat_1d (v))
        give_up (ev);
      out->vec = TRUE;
      out->n = tilde_value_flat_size (v);
      set_size (r, out->n);
      if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
        {
          out->iv = v->u.iv;
          out->x = NULL;
        }
      else
        out->x = rt_stable_values (CX, v);
    }
  if (v->ad)
    {
      out->deps[0] = rt_operand (v, &ONE);
      out->deps[0].same = TRUE;
      out->n_deps = 1;
    }
}

/* Positions first .. first + n - 1 (1-based) of a one-dimensional value, as
 * a view of it. */
static TildeValue
slice (Ev *ev, const TildeValue *b, gint64 first, gint32 n)
{
  if (!is_flat_1d (b))
    give_up (ev);
  gint32 len = tilde_value_flat_size (b);
  if (first < 1 || first + n - 1 > len)
    give_up (ev);
  gint32 k = (gint32) first - 1;
  TildeValue w = *b;
  if (b->kind == TILDE_VALUE_ROW_VECTOR)
    w.cols = n;
  else
    w.rows = n;
  if (b->ad && b->idx)
    w.idx = b->idx + k;
  else if (b->ad)
    w.start = b->start + k;
  else if (b->kind == TILDE_VALUE_ARRAY && b->elem == TILDE_VALUE_INT)
    w.u.iv = b->u.iv + k;
  else
    w.u.d = b->u.d + k;
  return w;
}

/* b[p[i]] for 1-based positions p. */
static TildeValue
gather (Ev *ev, const TildeValue *b, const int *p, gint32 n)
{
  if (!is_flat_1d (b))
    give_up (ev);
  gint32 len = tilde_value_flat_size (b);
  for (gint32 i = 0; i < n; i++)
    if (p[i] < 1 || p[i] > len)
      give_up (ev);
  TildeValue w = *b;
  w.view = 0;
  if (b->kind == TILDE_VALUE_ROW_VECTOR)
    w.cols = n;
  else
    w.rows = n;
  if (b->ad)
    {
      w.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n, 1));
      for (gint32 i = 0; i < n; i++)
        w.idx[i] = tilde_value_var (b, p[i] - 1);
    }
  else if (b->kind == TILDE_VALUE_ARRAY && b->elem == TILDE_VALUE_INT)
    {
      w.u.iv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) MAX (n, 1));
      for (gint32 i = 0; i < n; i++)
        w.u.iv[i] = b->u.iv[p[i] - 1];
    }
  else
    {
      w.u.d = rt_alloc_d (CX, (gsize) n);
      for (gint32 i = 0; i < n; i++)
        w.u.d[i] = b->u.d[p[i] - 1];
    }
  return w;
}

/* x[i] = val[p[i]], four values read before any is stored: the
 * processor may take a store for one to a value still to be read (their
 * addresses alike in the low bits) and wait for it. */
static void
gather_values (double *x, const double *val, const int *p, gint32 n)
{
  gint32 i = 0;
  for (; i + 4 <= n; i += 4)
    {
      double v0 = val[p[i]], v1 = val[p[i + 1]], v2 = val[p[i + 2]], v3 = val[p[i + 3]];
      x[i] = v0;
      x[i + 1] = v1;
      x[i + 2] = v2;
      x[i + 3] = v3;
    }
  for (; i < n; i++)
    x[i] = val[p[i]];
}

/* A gather whose values its consumer reads as it goes (affine_normal):
 * the positions, checked, and the values they read. */
typedef struct {
  const int    *p;
  const double *val;
} FxLazyGather;

/* b[p[i]] of variables in one range: their values (or, with `lazy`, what
 * reads them), and the range with the positions as the one dependency,
 * so that no list of ids is made and the partials are summed per variable
 * of the range. */
static void
gather_positions (FxRun *r, const TildeValue *b, const int *p, gint32 n, FxVal *out,
                  FxLazyGather *lazy)
{
  Ev *ev = r->ev;
  gint32 len = tilde_value_flat_size (b);
  const double *val = CX->tape->val + b->start - 1;
  double *x = lazy ? NULL : rt_alloc_d (CX, (gsize) n);
  guint bad = 0;
  /* one unsigned comparison finds positions below 1 and above len */
  for (gint32 i = 0; i < n; i++)
    bad |= (guint) (p[i] - 1) >= (guint) len;
  if (bad)
    give_up (ev);
  if (lazy)
    *lazy = (FxLazyGather) { .p = p, .val = val };
  else
    gather_values (x, val, p, n);
  set_size (r, n);
  out->has_v = FALSE;
  out->vec = TRUE;
  out->n = n;
  out->x = x;
  out->iv = NULL;
  out->ints = FALSE;
  out->start = -1;
  out->deps[0] = (AdOperand) { .start = b->start, .n = n, .partial = &ONE, .same = TRUE,
                               .pos = p, .span = len };
  out->n_deps = 1;
}

/* Positions become ids where a node is recorded. */
static AdOperand
with_ids (FxRun *r, const AdOperand *d)
{
  Ev *ev = r->ev;
  AdOperand o = *d;
  if (!d->pos)
    return o;
  gint32 *ids = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (d->n, 1));
  for (gint32 i = 0; i < d->n; i++)
    ids[i] = d->start + d->pos[i] - 1;
  o.idx = ids;
  o.pos = NULL;
  o.span = 0;
  return o;
}

/* The first row (1-based) a loop's e[n + off] reads. */
static gint64
first_row (FxRun *r, const Fx *f)
{
  Ev *ev = r->ev;
  gint64 off = f->off ? int_of (ev, f->off) : 0;
  return (gint64) r->lo + f->sign * off;
}

/* ---- arithmetic with partials ---- */

/* dep scaled by s (one value, or one per element) and c, over n elements. */
static AdOperand
scaled (FxRun *r, const AdOperand *d, const double *s, gboolean s_vec, double c, gint32 n)
{
  Ev *ev = r->ev;
  AdOperand o = *d;
  if (d->same && (!s || !s_vec))
    {
      double *p = rt_alloc_d (CX, 1);
      p[0] = d->partial[0] * (s ? s[0] : 1.0) * c;
      o.partial = p;
      return o;
    }
  /* d (value * leaf) / d leaf is the value itself */
  if (d->same && d->partial[0] == 1.0 && c == 1.0)
    {
      o.partial = s;
      o.same = FALSE;
      return o;
    }
  double *p = rt_alloc_d (CX, (gsize) n);
  for (gint32 i = 0; i < n; i++)
    p[i] = (d->same ? d->partial[0] : d->partial[i]) * (s ? s[s_vec ? i : 0] : 1.0) * c;
  o.partial = p;
  o.same = FALSE;
  return o;
}

static void
add_deps (FxRun *r, FxVal *out, const FxVal *a, const double *s, gboolean s_vec, double c)
{
  if (!a->n_deps)
    return;
  if (out->n_deps + a->n_deps > FX_MAX_DEPS)
    give_up (r->ev);
  AdOperand *o = out->deps + out->n_deps;
  if (!s && c == 1.0)
    memcpy (o, a->deps, sizeof (AdOperand) * a->n_deps);
  else
    for (guint k = 0; k < a->n_deps; k++)
      o[k] = scaled (r, &a->deps[k], s, s_vec, c, out->n);
  out->n_deps += a->n_deps;
}

static void fx_eval (FxRun *r, const Fx *f, FxVal *out);
static void fx_eval_at (FxRun *r, const Fx *f, FxVal *out, gboolean top);
static void fx_gather (FxRun *r, const Fx *f, FxVal *out, FxLazyGather *lazy);

/* o = x OP y over n elements, either side possibly one value for all;
 * written out per case so that the loops vectorise. */
#define BINARY_LOOP(OP)                                    \
  do                                                       \
    {                                                      \
      if (va && vb)                                        \
        for (gint32 i = 0; i < n; i++)                     \
          o[i] = x[i] OP y[i];                             \
      else if (va)                                         \
        {                                                  \
          double y0 = y[0];                                \
          for (gint32 i = 0; i < n; i++)                   \
            o[i] = x[i] OP y0;                             \
        }                                                  \
      else if (vb)                                         \
        {                                                  \
          double x0 = x[0];                                \
          for (gint32 i = 0; i < n; i++)                   \
            o[i] = x0 OP y[i];                             \
        }                                                  \
      else                                                 \
        {                                                  \
          /* fma (a, b, v) of scalars a and b */           \
          double v0 = x[0] OP y[0];                        \
          for (gint32 i = 0; i < n; i++)                   \
            o[i] = v0;                                     \
        }                                                  \
    }                                                      \
  while (0)

static void
binary (double *o, const double *x, gboolean va, const double *y, gboolean vb, gint32 n, int op)
{
  switch (op)
    {
    case FX_ADD: BINARY_LOOP (+); break;
    case FX_SUB: BINARY_LOOP (-); break;
    case FX_MUL: BINARY_LOOP (*); break;
    default: BINARY_LOOP (/); break;
    }
}

/* `top`: the values are an argument's, computed in place on the tape, in
 * variables the density then reads. */
static void
fx_arith (FxRun *r, const Fx *f, FxVal *out, gboolean top)
{
  Ev *ev = r->ev;
  FxVal a, b, c;
  fx_eval (r, f->a, &a);
  if (f->b)
    fx_eval (r, f->b, &b);
  if (f->c)
    fx_eval (r, f->c, &c);
  out->has_v = FALSE;
  out->iv = NULL;
  out->n_deps = 0;
  out->vec = a.vec || (f->b && b.vec) || (f->c && c.vec);
  if (!out->vec)
    give_up (ev);
  out->n = r->n;
  gint32 n = out->n;
  double *o;
  if (top)
    {
      out->start = rt_new_ad (CX, TILDE_VALUE_VECTOR, n, 1).start;
      o = CX->tape->val + out->start;
    }
  else
    o = rt_alloc_d (CX, (gsize) n);
  const double *x = reals_of (r, &a), *y = f->b ? reals_of (r, &b) : NULL;
  gboolean va = a.vec, vb = f->b && b.vec;
  switch (f->kind)
    {
    case FX_ADD:
      binary (o, x, va, y, vb, n, FX_ADD);
      add_deps (r, out, &a, NULL, FALSE, 1.0);
      add_deps (r, out, &b, NULL, FALSE, 1.0);
      break;
    case FX_SUB:
      binary (o, x, va, y, vb, n, FX_SUB);
      add_deps (r, out, &a, NULL, FALSE, 1.0);
      add_deps (r, out, &b, NULL, FALSE, -1.0);
      break;
    case FX_MUL:
      binary (o, x, va, y, vb, n, FX_MUL);
      add_deps (r, out, &a, y, vb, 1.0);
      add_deps (r, out, &b, x, va, 1.0);
      break;
    case FX_DIV:
      binary (o, x, va, y, vb, n, FX_DIV);
      if (a.n_deps)
        {
          double *inv = rt_alloc_d (CX, (gsize) b.n);
          for (gint32 i = 0; i < b.n; i++)
            inv[i] = 1 / y[i];
          add_deps (r, out, &a, inv, vb, 1.0);
        }
      if (b.n_deps)
        {
          double *q = rt_alloc_d (CX, (gsize) n);
          for (gint32 i = 0; i < n; i++)
            q[i] = -o[i] / y[vb ? i : 0];
          add_deps (r, out, &b, q, TRUE, 1.0);
        }
      break;
    case FX_FMA:
      /* x * y + z, rounded twice: the fused multiply-add of the optimised
       * program is a rewrite for speed, and a call per element is not */
      if (va != vb && !c.vec)
        {
          /* a scalar times a container plus a scalar */
          const double *v = va ? x : y;
          double k = va ? y[0] : x[0], z0 = reals_of (r, &c)[0];
          for (gint32 i = 0; i < n; i++)
            o[i] = k * v[i] + z0;
        }
      else if (va != vb)
        {
          const double *v = va ? x : y, *z = reals_of (r, &c);
          double k = va ? y[0] : x[0];
          for (gint32 i = 0; i < n; i++)
            o[i] = k * v[i] + z[i];
        }
      else
        {
          binary (o, x, va, y, vb, n, FX_MUL);
          binary (o, o, TRUE, reals_of (r, &c), c.vec, n, FX_ADD);
        }
      add_deps (r, out, &a, y, vb, 1.0);
      add_deps (r, out, &b, x, va, 1.0);
      add_deps (r, out, &c, NULL, FALSE, 1.0);
      break;
    case FX_NEG:
      for (gint32 i = 0; i < n; i++)
        o[i] = -x[i];
      add_deps (r, out, &a, NULL, FALSE, -1.0);
      break;
    default:
      g_assert_not_reached ();
    }
  out->x = o;
  out->ints = f->ints;
  if (f->ints)
    for (gint32 i = 0; i < n; i++)
      if (o[i] > G_MAXINT || o[i] < G_MININT)
        give_up (ev);
}

static void
fx_eval_at (FxRun *r, const Fx *f, FxVal *out, gboolean top)
{
  Ev *ev = r->ev;
  TildeValue v, w;
  switch (f->kind)
    {
    case FX_LEAF:
      rt_eval (ev, f->e, &v);
      fx_value (r, &v, out);
      return;
    case FX_SLICE:
      rt_eval (ev, f->e, &v);
      w = slice (ev, &v, first_row (r, f), r->n);
      fx_value (r, &w, out);
      return;
    case FX_GATHER:
      fx_gather (r, f, out, NULL);
      return;
    case FX_LOOP_VAR:
      {
        w = (TildeValue) { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = r->n,
                           .cols = 1 };
        w.u.iv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) MAX (r->n, 1));
        for (gint32 i = 0; i < r->n; i++)
          w.u.iv[i] = r->lo + i;
        fx_value (r, &w, out);
        return;
      }
    case FX_ROW_TIMES:
      {
        TildeValue args[2];
        rt_eval (ev, f->e, &v);
        if (v.kind != TILDE_VALUE_MATRIX)
          give_up (ev);
        gint64 first = first_row (r, f);
        if (first < 1 || first + r->n - 1 > v.rows)
          give_up (ev);
        args[0] = first == 1 && r->n == v.rows ? v
          : rt_index_range (ev, &v, (int) first, (int) (first + r->n - 1));
        rt_eval (ev, f->b->e, &args[1]);
        CX->fn_name = "Times__";
        f->times->fn (CX, 2, args, &w);
        fx_value (r, &w, out);
        return;
      }
    default:
      fx_arith (r, f, out, top);
    }
}

static void
fx_eval (FxRun *r, const Fx *f, FxVal *out)
{
  fx_eval_at (r, f, out, FALSE);
}

/* e[idx]; with `lazy`, a gather of parameters leaves its values to be
 * read by the caller (lazy->p set, out->x NULL). */
static void
fx_gather (FxRun *r, const Fx *f, FxVal *out, FxLazyGather *lazy)
{
  Ev *ev = r->ev;
  FxVal idx;
  TildeValue v, w;
  fx_eval (r, f->a, &idx);
  if (!idx.vec || !idx.iv)
    give_up (ev);
  rt_eval (ev, f->e, &v);
  if (v.ad && !v.idx && (v.kind == TILDE_VALUE_VECTOR || v.kind == TILDE_VALUE_ROW_VECTOR
                         || v.kind == TILDE_VALUE_ARRAY))
    {
      gather_positions (r, &v, idx.iv, idx.n, out, lazy);
      return;
    }
  w = gather (ev, &v, idx.iv, idx.n);
  fx_value (r, &w, out);
}

static void
fx_operand (FxRun *r, const Fx *f, FxVal *out, FxLazyGather *lazy)
{
  if (lazy)
    fx_gather (r, f, out, lazy);
  else
    fx_eval (r, f, out);
}

/* The argument a density receives for f: leaves as they are, computed
 * values as data, or as the new variables they were computed in, tied to
 * the leaves by one elementwise node (its position in *node). */
static TildeValue
materialise (FxRun *r, const FxVal *f, int *node, gboolean with_node)
{
  Ev *ev = r->ev;
  *node = -1;
  if (f->has_v)
    return f->v;
  TildeValue a = { .kind = TILDE_VALUE_VECTOR, .rows = f->n, .cols = 1 };
  if (f->ints)
    {
      a = (TildeValue) { .kind = TILDE_VALUE_ARRAY, .elem = TILDE_VALUE_INT, .rows = f->n,
                         .cols = 1 };
      a.u.iv = tilde_arena_alloc (CX->arena, sizeof (int) * (gsize) MAX (f->n, 1));
      for (gint32 i = 0; i < f->n; i++)
        a.u.iv[i] = (int) f->x[i];
      return a;
    }
  if (!f->n_deps)
    {
      a.u.d = (double *) f->x;
      return a;
    }
  if (f->start < 0)
    {
      /* values computed off the tape (a gather): variables for them */
      a = rt_new_ad (CX, TILDE_VALUE_VECTOR, f->n, 1);
      memcpy (CX->tape->val + a.start, f->x, sizeof (double) * (gsize) f->n);
      ((FxVal *) f)->start = a.start;
    }
  a.ad = 1;
  a.start = f->start;
  if (f->n > 0 && with_node)
    {
      AdOperand deps[FX_MAX_DEPS];
      const AdOperand *use = f->deps;
      for (guint k = 0; k < f->n_deps; k++)
        if (f->deps[k].pos)
          {
            for (guint j = 0; j < f->n_deps; j++)
              deps[j] = with_ids (r, &f->deps[j]);
            use = deps;
            break;
          }
      ad_elementwise (CX->tape, a.start, f->n, f->n_deps, use);
      *node = (int) CX->tape->n_nodes - 1;
    }
  return a;
}

/* The density of s (builtin, fx) over the elements r runs on, or over
 * whatever sizes its container leaves have when r is NULL. */
/* The density's partials with respect to its computed arguments, captured
 * instead of recorded, composed with the arguments' own: one reduction
 * over the leaves, no node for the arguments, and their variables given
 * back when nothing was allocated after them. */
static void
compose_captured (Ev *ev, FxVal *vals, const TildeValue *args, int n_args, const RtCapture *cap,
                  TildeValue *out)
{
  AdTape *t = CX->tape;
  AdOperand ops[FX_MAX_ARGS * FX_MAX_DEPS];
  guint n_ops = 0;
  for (int k = 0; k < n_args; k++)
    {
      if (!cap->p[k])
        continue;
      const FxVal *f = &vals[k];
      if (f->has_v)
        {
          ops[n_ops++] = rt_operand (&args[k], cap->p[k]);
          continue;
        }
      AdOperand outer = { .start = f->start, .n = cap->n[k], .partial = cap->p[k] };
      for (guint j = 0; j < f->n_deps; j++)
        ops[n_ops++] = ad_compose (t, &outer, &f->deps[j], f->n);
    }
  for (int k = n_args; k-- > 0;)
    if (!vals[k].has_v && args[k].ad && args[k].start + vals[k].n == t->n_vars)
      t->n_vars = args[k].start;
  *out = rt_reduce (CX, cap->logp, n_ops, ops);
}

/* ---- normal of an affine location in one pass ---- */

static gboolean
is_scalar_leaf (const Fx *f)
{
  return f->kind == FX_LEAF && f->scalar;
}

/* a container, or a slice or gather of one (a loop's vectorised scalars) */
static gboolean
is_container (const Fx *f)
{
  return (f->kind == FX_LEAF && !f->scalar) || f->kind == FX_GATHER || f->kind == FX_SLICE;
}

static gboolean
is_data_container (const Fx *f)
{
  return (f->kind == FX_LEAF && !f->scalar && f->data) || f->kind == FX_SLICE;
}

gboolean
rt_fused_is_affine_normal (const char *name, Fx *const *fx)
{
  if (strcmp (name, "normal_lpdf") != 0 && strcmp (name, "normal_lupdf") != 0)
    return FALSE;
  /* the form is known here, so that a statement of another form does not
   * try the one pass at every evaluation; only values make it give way */
  const Fx *m = fx[1];
  if (!is_scalar_leaf (fx[2]) || m->kind != FX_FMA || m->ints || !is_scalar_leaf (m->c)
      || !is_data_container (fx[0]))
    return FALSE;
  return (is_scalar_leaf (m->a) && is_container (m->b))
    || (is_scalar_leaf (m->b) && is_container (m->a));
}

static gint affine_normal_runs;

guint
rt_fused_affine_normal_runs (void)
{
  return (guint) g_atomic_int_get (&affine_normal_runs);
}

/* A scalar operand: its value, and the one variable it is (-1 for data). */
static gboolean
affine_scalar (const FxVal *f, double *x, gint32 *var)
{
  if (f->vec || f->n_deps > 1 || (f->n_deps && (!f->deps[0].same || f->deps[0].partial[0] != 1.0
                                                || f->deps[0].idx || f->deps[0].pos)))
    return FALSE;
  *x = f->x ? f->x[0] : f->iv[0];
  *var = f->n_deps ? f->deps[0].start : -1;
  return TRUE;
}

/* normal (y | k * v + z, sigma) for data y, scalars k, z and sigma and a
 * container v (parameters gathered by positions, a range of parameters,
 * or data) as one loop, as one would write it by hand: the density's
 * value, and its partials with respect to k, z, v and sigma summed as it
 * goes, nothing stored per element but v's partials. The value is the
 * general path's to the bit (the same operations in the same order as
 * the fused fma and k_normal's tightest loop); the partials are summed in
 * another order. FALSE, with nothing recorded, for anything else (the
 * caller goes on as usual): values that are not finite, a scale that is
 * not positive, y not data, operands not of that form. */
static gboolean
affine_normal (Ev *ev, const St *s, FxRun *r, TildeValue *out)
{
  AdTape *t = CX->tape;
  gint32 n_vars = t->n_vars;
  guint n_nodes = t->n_nodes;
  const Fx *m = s->fx[1];
  FxVal y, sg, a, b, c;
  FxLazyGather lazy = { 0 };
  fx_eval (r, s->fx[0], &y);
  fx_eval (r, s->fx[2], &sg);
  fx_operand (r, m->a, &a, m->a->kind == FX_GATHER ? &lazy : NULL);
  fx_operand (r, m->b, &b, m->b->kind == FX_GATHER ? &lazy : NULL);
  fx_eval (r, m->c, &c);
  const FxVal *kv = a.vec ? &b : &a, *vv = a.vec ? &a : &b;
  double k, z, sigma;
  gint32 k_var, z_var, s_var;
  if (!y.vec || y.n_deps || !vv->vec || vv->n_deps > 1 || y.n != vv->n
      || !affine_scalar (kv, &k, &k_var) || !affine_scalar (&c, &z, &z_var)
      || !affine_scalar (&sg, &sigma, &s_var) || !(sigma > 0))
    goto other;
  const AdOperand *vd = vv->n_deps ? &vv->deps[0] : NULL;
  if (vd && (!vd->same || vd->partial[0] != 1.0 || vd->idx))
    goto other;
  gboolean drop = s->drop && CX->propto;
  gboolean any_ad = vd || k_var >= 0 || z_var >= 0 || s_var >= 0;
  if (drop && !any_ad)
    goto other;
  gint32 N = y.n;
  const double *yx = reals_of (r, &y);
  double inv_s = 1 / sigma, sq = 0, gk = 0, gz = 0;
  double *q = NULL;
  if (lazy.p)
    {
      /* parameters gathered: their partials summed per variable */
      const int *p = lazy.p;
      const double *val = lazy.val;
      q = tilde_arena_alloc0 (CX->arena, sizeof (double) * (gsize) MAX (vd->span, 1));
      double *q0 = q - 1;
      for (gint32 i = 0; i < N; i++)
        {
          double v = val[p[i]], mu = k * v + z;
          double e = (yx[i] - mu) * inv_s;
          sq += e * e;
          double d = e * inv_s;
          gz += d;
          gk += d * v;
          q0[p[i]] += d;
        }
      for (gint32 j = 0; j < vd->span; j++)
        q[j] *= k;
    }
  else
    {
      const double *v = reals_of (r, (FxVal *) vv);
      if (vd)
        q = rt_alloc_d (CX, (gsize) MAX (N, 1));
      for (gint32 i = 0; i < N; i++)
        {
          double mu = k * v[i] + z;
          double e = (yx[i] - mu) * inv_s;
          sq += e * e;
          double d = e * inv_s;
          gz += d;
          gk += d * v[i];
          if (q)
            q[i] = d * k;
        }
    }
  if (!isfinite (sq))
    goto other;
  /* k_normal's terms: the constant, the scale's, the squares' */
  double logp = 0;
  if (!drop)
    logp -= N * TILDE_LOG_SQRT_TWO_PI;
  if (!drop || s_var >= 0)
    logp -= N * log (sigma);
  if (!drop || any_ad)
    logp -= 0.5 * sq;
  double *pd = rt_alloc_d (CX, 3);
  AdOperand ops[4];
  guint n_ops = 0;
  pd[0] = gk;
  pd[1] = gz;
  pd[2] = -N * inv_s + sq * inv_s;
  if (k_var >= 0)
    ops[n_ops++] = (AdOperand) { .start = k_var, .n = 1, .partial = &pd[0] };
  if (z_var >= 0)
    ops[n_ops++] = (AdOperand) { .start = z_var, .n = 1, .partial = &pd[1] };
  if (vd)
    ops[n_ops++] = (AdOperand) { .start = vd->start, .n = lazy.p ? vd->span : N, .partial = q };
  if (s_var >= 0)
    ops[n_ops++] = (AdOperand) { .start = s_var, .n = 1, .partial = &pd[2] };
  *out = rt_reduce (CX, logp, n_ops, ops);
  g_atomic_int_inc (&affine_normal_runs);
  return TRUE;
other:
  t->n_vars = n_vars;
  t->n_nodes = n_nodes;
  return FALSE;
}

static void
fused_density (Ev *ev, const St *s, FxRun *r, TildeValue *out)
{
  FxRun local = { .ev = ev, .n = -1 };
  FxVal vals[FX_MAX_ARGS];
  TildeValue args[FX_MAX_ARGS];
  int nodes[FX_MAX_ARGS];
  if (!r)
    r = &local;
  if (s->affine_normal && affine_normal (ev, s, r, out))
    return;
  for (int k = 0; k < s->n_fx; k++)
    fx_eval_at (r, s->fx[k], &vals[k], TRUE);
  AdTape *t = CX->tape;
  if (s->n_fx <= RT_CAPTURE_MAX_ARGS)
    {
      /* the computed arguments as variables without a node: the density's
       * partials are composed with theirs directly */
      for (int k = 0; k < s->n_fx; k++)
        args[k] = materialise (r, &vals[k], &nodes[k], FALSE);
      RtCapture cap = { 0 };
      guint nodes_before = t->n_nodes;
      CX->fn_name = s->name;
      CX->drop = s->drop && CX->propto;
      CX->capture = &cap;
      s->builtin->fn (CX, s->n_fx, args, out);
      CX->capture = NULL;
      CX->drop = FALSE;
      if (t->n_nodes != nodes_before)
        give_up (ev);
      if (cap.done)
        compose_captured (ev, vals, args, s->n_fx, &cap, out);
      return;
    }
  for (int k = 0; k < s->n_fx; k++)
    args[k] = materialise (r, &vals[k], &nodes[k], TRUE);
  guint before = t->n_nodes;
  CX->fn_name = s->name;
  CX->drop = s->drop && CX->propto;
  s->builtin->fn (CX, s->n_fx, args, out);
  CX->drop = FALSE;
  if (t->n_nodes != before + 1)
    return;
  /* the later node first: folding one moves those after it */
  for (int k = s->n_fx; k-- > 0;)
    if (nodes[k] >= 0)
      ad_fold_elementwise (t, (guint) nodes[k]);
}

static gint fallbacks;

guint
rt_fused_fallbacks (void)
{
  return (guint) g_atomic_int_get (&fallbacks);
}

void
rt_fused_mark (Ev *ev, RtFusedMark *m)
{
  m->outer = CX->jmp;
  m->n_vars = CX->tape->n_vars;
  m->n_nodes = CX->tape->n_nodes;
  m->n_terms = ev->n_terms;
  m->target_const = ev->target_const;
  m->slots = ev->slots;
  m->depth = ev->depth;
  m->stmt = ev->stmt;
  m->propto = CX->propto;
  m->param_args = ev->param_args;
}

void
rt_fused_rewind (Ev *ev, const RtFusedMark *m)
{
  CX->jmp = m->outer;
  CX->tape->n_vars = m->n_vars;
  CX->tape->n_nodes = m->n_nodes;
  ev->n_terms = m->n_terms;
  ev->target_const = m->target_const;
  ev->slots = m->slots;
  ev->depth = m->depth;
  ev->stmt = m->stmt;
  CX->propto = m->propto;
  ev->param_args = m->param_args;
  CX->drop = FALSE;
  CX->capture = NULL;
  g_clear_pointer (&CX->err_msg, g_free);
  g_atomic_int_inc (&fallbacks);
}

Flow
rt_st_target_fused (Ev *ev, const St *s)
{
  RtFusedMark m;
  jmp_buf jmp;
  if (!rt_term_counts (ev, s))
    return FLOW_NEXT;
  rt_fused_mark (ev, &m);
  if (setjmp (jmp))
    {
      rt_fused_rewind (ev, &m);
      return rt_st_target (ev, s);
    }
  CX->jmp = &jmp;
  TildeValue v;
  fused_density (ev, s, NULL, &v);
  CX->jmp = m.outer;
  rt_add_term (ev, &v);
  return FLOW_NEXT;
}

void
rt_ex_fused (Ev *ev, const Ex *e, TildeValue *out)
{
  RtFusedMark m;
  jmp_buf jmp;
  rt_fused_mark (ev, &m);
  if (setjmp (jmp))
    {
      rt_fused_rewind (ev, &m);
      rt_eval (ev, e->kids[0], out);
      return;
    }
  CX->jmp = &jmp;
  FxRun r = { .ev = ev, .n = -1 };
  FxVal v;
  int node;
  fx_eval_at (&r, e->fx, &v, TRUE);
  *out = materialise (&r, &v, &node, TRUE);
  CX->jmp = m.outer;
  if (tilde_type_kind (e->type) == TILDE_TYPE_ROW_VECTOR)
    {
      out->kind = TILDE_VALUE_ROW_VECTOR;
      out->cols = out->rows;
      out->rows = 1;
    }
}

Flow
rt_st_for_vector (Ev *ev, const St *s)
{
  /* in a context that drops some of the terms, the loop as written drops
   * them one by one */
  if (ev->context != TILDE_MODEL_CONTEXT_JOINT && (s->mixed_roles || !rt_term_counts (ev, s)))
    return s->mixed_roles ? rt_exec (ev, s->else_s) : FLOW_NEXT;
  gint64 lo = int_of (ev, s->e), hi = int_of (ev, s->e2);
  if (hi < lo)
    return FLOW_NEXT;
  if (hi - lo + 1 > G_MAXINT32)
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
  FxRun r = { .ev = ev, .lo = (int) lo, .n = (gint32) (hi - lo + 1) };
  for (int i = 0; i < s->n_body; i++)
    {
      TildeValue v;
      fused_density (ev, s->body[i], &r, &v);
      rt_add_term (ev, &v);
    }
  CX->jmp = m.outer;
  return FLOW_NEXT;
}
