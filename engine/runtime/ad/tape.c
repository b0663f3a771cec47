/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/ad/tape.h"

#include <string.h>
#include <sys/mman.h>

/* Virtual reservation per array: pages are only committed when touched. */
#define MAX_VARS ((gint32) 1 << 27)

static double *
reserve (gsize n)
{
  void *p = mmap (NULL, n * sizeof (double), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Room for a node's payload: a bump in the reserve, the arena past it. */
static inline void *
payload (AdTape *t, gsize size)
{
  size = (size + 15) & ~(gsize) 15;
  if (G_LIKELY (size <= t->payload_cap - t->payload_used))
    {
      void *p = t->payloads + t->payload_used;
      t->payload_used += size;
      return p;
    }
  return tilde_arena_alloc (t->arena, size);
}

AdTape *
ad_tape_new (void)
{
  AdTape *t = g_new0 (AdTape, 1);
  gint32 cap = MAX_VARS;
  while (cap > 1024 && !(t->val = reserve ((gsize) cap)))
    cap /= 4;
  t->adj = reserve ((gsize) cap);
  if (!t->val || !t->adj)
    g_error ("cannot reserve memory for an autodiff tape");
  t->cap_vars = cap;
  t->cap_nodes = 1024;
  t->nodes = g_new (AdNode, t->cap_nodes);
  /* as many 16-byte units as variables; a bigger tape's payloads go to
   * the arena */
  t->payloads = (guint8 *) reserve ((gsize) cap * 2);
  t->payload_cap = t->payloads ? (gsize) cap * 2 * sizeof (double) : 0;
  t->arena = tilde_arena_new (256 * 1024);
  return t;
}

void
ad_tape_free (AdTape *t)
{
  if (!t)
    return;
  munmap (t->val, (gsize) t->cap_vars * sizeof (double));
  munmap (t->adj, (gsize) t->cap_vars * sizeof (double));
  if (t->payloads)
    munmap (t->payloads, t->payload_cap);
  g_free (t->nodes);
  tilde_arena_free (t->arena);
  g_free (t);
}

void
ad_tape_reset (AdTape *t)
{
  t->n_vars = 0;
  t->n_nodes = 0;
  t->payload_used = 0;
  tilde_arena_reset (t->arena);
}

static inline gint32
new_vars (AdTape *t, gint32 n)
{
  if (n > t->cap_vars - t->n_vars)
    return -1;
  gint32 first = t->n_vars;
  t->n_vars += n;
  return first;
}

G_GNUC_NO_INLINE static void
grow_nodes (AdTape *t)
{
  t->cap_nodes *= 2;
  t->nodes = g_renew (AdNode, t->nodes, t->cap_nodes);
}

static inline void
push (AdTape *t, AdBackwardFn fn, const void *payload)
{
  if (G_UNLIKELY (t->n_nodes == t->cap_nodes))
    grow_nodes (t);
  t->nodes[t->n_nodes].fn = fn;
  t->nodes[t->n_nodes].payload = payload;
  t->n_nodes++;
}

gint32
ad_new_vars (AdTape *t, gint32 n)
{
  return new_vars (t, n);
}

void
ad_push (AdTape *t, AdBackwardFn fn, const void *payload)
{
  push (t, fn, payload);
}

gint32
ad_constant (AdTape *t, double value)
{
  gint32 id = ad_new_vars (t, 1);
  if (id >= 0)
    t->val[id] = value;
  return id;
}

typedef struct { gint32 out, a; double da; } Unary;
typedef struct { gint32 out, a, b; double da, db; } Binary;
typedef struct { gint32 out, a, b, c; double da, db, dc; } Ternary;

static void
unary_backward (AdTape *t, const void *p)
{
  const Unary *u = p;
  t->adj[u->a] += t->adj[u->out] * u->da;
}

static void
binary_backward (AdTape *t, const void *p)
{
  const Binary *b = p;
  double g = t->adj[b->out];
  t->adj[b->a] += g * b->da;
  t->adj[b->b] += g * b->db;
}

static void
ternary_backward (AdTape *t, const void *p)
{
  const Ternary *n = p;
  double g = t->adj[n->out];
  t->adj[n->a] += g * n->da;
  t->adj[n->b] += g * n->db;
  t->adj[n->c] += g * n->dc;
}

gint32
ad_ternary (AdTape *t, double value, gint32 a, double da, gint32 b, double db, gint32 c,
            double dc)
{
  gint32 out = new_vars (t, 1);
  if (out < 0)
    return out;
  t->val[out] = value;
  Ternary *n = payload (t, sizeof *n);
  n->out = out;
  n->a = a;
  n->b = b;
  n->c = c;
  n->da = da;
  n->db = db;
  n->dc = dc;
  push (t, ternary_backward, n);
  return out;
}

gint32
ad_unary (AdTape *t, double value, gint32 a, double da)
{
  gint32 out = new_vars (t, 1);
  if (out < 0)
    return out;
  t->val[out] = value;
  Unary *u = payload (t, sizeof *u);
  u->out = out;
  u->a = a;
  u->da = da;
  push (t, unary_backward, u);
  return out;
}

gint32
ad_binary (AdTape *t, double value, gint32 a, double da, gint32 b, double db)
{
  gint32 out = new_vars (t, 1);
  if (out < 0)
    return out;
  t->val[out] = value;
  Binary *n = payload (t, sizeof *n);
  n->out = out;
  n->a = a;
  n->b = b;
  n->da = da;
  n->db = db;
  push (t, binary_backward, n);
  return out;
}

typedef struct {
  gint32    out;
  gint32    n;       /* elementwise: number of outputs */
  guint     n_ops;
  AdOperand ops[];
} Generic;

static void
reduction_backward (AdTape *t, const void *p)
{
  const Generic *r = p;
  double g = t->adj[r->out];
  if (g == 0.0)
    return;
  double *adj = t->adj;
  for (guint k = 0; k < r->n_ops; k++)
    {
      const AdOperand *op = &r->ops[k];
      const double *pa = op->partial;
      if (op->same)
        {
          double gp = g * pa[0];
          for (gint32 i = 0; i < op->n; i++)
            adj[ad_operand_id (op, i)] += gp;
        }
      else if (op->idx)
        for (gint32 i = 0; i < op->n; i++)
          adj[op->idx[i]] += g * pa[i];
      else
        {
          double *a = adj + op->start;
          for (gint32 i = 0; i < op->n; i++)
            a[i] += g * pa[i];
        }
    }
}

static Generic *
generic_new (AdTape *t, gint32 out, gint32 n, guint n_ops, const AdOperand *ops)
{
  Generic *g = payload (t, sizeof (Generic) + n_ops * sizeof (AdOperand));
  g->out = out;
  g->n = n;
  g->n_ops = n_ops;
  memcpy (g->ops, ops, n_ops * sizeof (AdOperand));
  return g;
}

gint32
ad_reduction (AdTape *t, double value, guint n_ops, const AdOperand *ops)
{
  gint32 out = new_vars (t, 1);
  if (out < 0)
    return out;
  t->val[out] = value;
  push (t, reduction_backward, generic_new (t, out, 1, n_ops, ops));
  return out;
}

static void
elementwise_backward (AdTape *t, const void *p)
{
  const Generic *e = p;
  const double *g = t->adj + e->out;
  double *adj = t->adj;
  for (guint k = 0; k < e->n_ops; k++)
    {
      const AdOperand *op = &e->ops[k];
      const double *pa = op->partial;
      if (op->same)
        {
          double q = pa[0];
          if (op->n == 1 && e->n != 1)
            {
              double s = 0.0;
              for (gint32 i = 0; i < e->n; i++)
                s += g[i];
              adj[ad_operand_id (op, 0)] += s * q;
            }
          else if (op->idx)
            for (gint32 i = 0; i < e->n; i++)
              adj[op->idx[i]] += g[i] * q;
          else
            {
              double *a = adj + op->start;
              for (gint32 i = 0; i < e->n; i++)
                a[i] += g[i] * q;
            }
        }
      else if (op->n == 1 && e->n != 1)
        {
          double s = 0.0;
          for (gint32 i = 0; i < e->n; i++)
            s += g[i] * pa[i];
          adj[ad_operand_id (op, 0)] += s;
        }
      else if (op->idx)
        for (gint32 i = 0; i < e->n; i++)
          adj[op->idx[i]] += g[i] * pa[i];
      else
        {
          double *a = adj + op->start;
          for (gint32 i = 0; i < e->n; i++)
            a[i] += g[i] * pa[i];
        }
    }
}

void
ad_elementwise (AdTape *t, gint32 out, gint32 n, guint n_ops, const AdOperand *ops)
{
  if (n_ops == 0 || n == 0)
    return;
  push (t, elementwise_backward, generic_new (t, out, n, n_ops, ops));
}

/* Sums with four accumulators: a single chain of dependent additions
 * would take the adder's latency per element. */
static double
sum (const double *a, gint32 n)
{
  double s[4] = { 0, 0, 0, 0 };
  gint32 i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++)
      s[k] += a[i + k];
  for (; i < n; i++)
    s[0] += a[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

static double
sum_products (const double *a, const double *b, gint32 n)
{
  double s[4] = { 0, 0, 0, 0 };
  gint32 i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++)
      s[k] += a[i + k] * b[i + k];
  for (; i < n; i++)
    s[0] += a[i] * b[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/* q[pos[i] - 1] += a[i] for 1-based positions into q's span. The
 * processor cannot tell in advance whether a load of q reads what the
 * store before it wrote, and once it has guessed wrong it waits for every
 * store: the sums of each fourth element go to their own copy of q, so
 * that a load only ever waits for the store four elements back. */
static void
scatter_add (AdTape *t, double *q, const int *pos, const double *a, gint32 n, gint32 span)
{
  if (n < 4 * span)
    {
      for (gint32 i = 0; i < n; i++)
        q[pos[i] - 1] += a[i];
      return;
    }
  double *c = tilde_arena_alloc0 (t->arena, sizeof (double) * 3 * (gsize) span);
  double *q1 = c - 1, *q2 = c + span - 1, *q3 = c + 2 * span - 1, *q0 = q - 1;
  gint32 i = 0;
  for (; i + 4 <= n; i += 4)
    {
      q0[pos[i]] += a[i];
      q1[pos[i + 1]] += a[i + 1];
      q2[pos[i + 2]] += a[i + 2];
      q3[pos[i + 3]] += a[i + 3];
    }
  for (; i < n; i++)
    q0[pos[i]] += a[i];
  for (gint32 j = 0; j < span; j++)
    q[j] = (q[j] + c[j]) + (c[span + j] + c[2 * span + j]);
}

/* d out / d x through the map: for a broadcast x, the sum over the map's
 * outputs; otherwise element by element. */
AdOperand
ad_compose (AdTape *t, const AdOperand *outer, const AdOperand *inner, gint32 n)
{
  AdOperand r = *inner;
  double *p;
  if (inner->pos)
    {
      /* a gather: summed per variable of its range */
      const double *a = outer->partial, *b = inner->partial;
      const int *pos = inner->pos;
      double *q = tilde_arena_alloc0 (t->arena, sizeof (double) * (gsize) MAX (inner->span, 1));
      if (outer->same && inner->same)
        for (gint32 i = 0; i < n; i++)
          q[pos[i] - 1] += a[0] * b[0];
      else if (outer->same)
        for (gint32 i = 0; i < n; i++)
          q[pos[i] - 1] += a[0] * b[i];
      else if (inner->same)
        {
          /* summed first, scaled once per variable */
          scatter_add (t, q, pos, a, n, inner->span);
          for (gint32 j = 0; j < inner->span; j++)
            q[j] *= b[0];
        }
      else
        for (gint32 i = 0; i < n; i++)
          q[pos[i] - 1] += a[i] * b[i];
      r.pos = NULL;
      r.idx = NULL;
      r.n = inner->span;
      r.span = 0;
      r.partial = q;
      r.same = FALSE;
      return r;
    }
  if (outer->same && inner->same)
    {
      p = tilde_arena_alloc (t->arena, sizeof (double));
      p[0] = outer->partial[0] * inner->partial[0] * (inner->n == 1 ? n : 1);
      r.partial = p;
      return r;
    }
  if (inner->n == 1 && n != 1)
    {
      double s;
      if (inner->same)
        s = inner->partial[0] * sum (outer->partial, n);
      else if (outer->same)
        s = outer->partial[0] * sum (inner->partial, n);
      else
        s = sum_products (outer->partial, inner->partial, n);
      p = tilde_arena_alloc (t->arena, sizeof (double));
      p[0] = s;
      r.partial = p;
      r.same = FALSE;
      return r;
    }
  const double *a = outer->partial, *b = inner->partial;
  if (inner->idx && n > 1)
    {
      /* listed ids within a span no longer than the list (x[g] of a short
       * x): summed per variable now, so the sweep adds span values in
       * order instead of scattering n */
      gint32 lo = inner->idx[0], hi = lo;
      for (gint32 i = 1; i < n; i++)
        {
          lo = MIN (lo, inner->idx[i]);
          hi = MAX (hi, inner->idx[i]);
        }
      gint32 span = hi - lo + 1;
      if (span <= n)
        {
          double *q = tilde_arena_alloc0 (t->arena, sizeof (double) * (gsize) span);
          const gint32 *ids = inner->idx;
          if (outer->same && inner->same)
            for (gint32 i = 0; i < n; i++)
              q[ids[i] - lo] += a[0] * b[0];
          else if (outer->same)
            for (gint32 i = 0; i < n; i++)
              q[ids[i] - lo] += a[0] * b[i];
          else if (inner->same)
            for (gint32 i = 0; i < n; i++)
              q[ids[i] - lo] += a[i] * b[0];
          else
            for (gint32 i = 0; i < n; i++)
              q[ids[i] - lo] += a[i] * b[i];
          r.idx = NULL;
          r.start = lo;
          r.n = span;
          r.partial = q;
          r.same = FALSE;
          return r;
        }
    }
  p = tilde_arena_alloc (t->arena, sizeof (double) * (gsize) MAX (n, 1));
  if (outer->same)
    for (gint32 i = 0; i < n; i++)
      p[i] = a[0] * b[i];
  else if (inner->same)
    for (gint32 i = 0; i < n; i++)
      p[i] = a[i] * b[0];
  else
    for (gint32 i = 0; i < n; i++)
      p[i] = a[i] * b[i];
  r.partial = p;
  r.same = FALSE;
  return r;
}

gboolean
ad_fold_elementwise (AdTape *t, guint node)
{
  if (t->n_nodes < 2 || node >= t->n_nodes - 1
      || t->nodes[node].fn != elementwise_backward
      || t->nodes[t->n_nodes - 1].fn != reduction_backward)
    return FALSE;
  const Generic *e = t->nodes[node].payload;
  const Generic *r = t->nodes[t->n_nodes - 1].payload;
  guint k;
  for (k = 0; k < r->n_ops; k++)
    if (!r->ops[k].idx && r->ops[k].start == e->out && r->ops[k].n == e->n)
      break;
  if (k == r->n_ops)
    return FALSE;
  guint n_ops = r->n_ops - 1 + e->n_ops;
  Generic *f = payload (t, sizeof (Generic) + n_ops * sizeof (AdOperand));
  f->out = r->out;
  f->n = 1;
  f->n_ops = 0;
  for (guint j = 0; j < r->n_ops; j++)
    if (j != k)
      f->ops[f->n_ops++] = r->ops[j];
  for (guint j = 0; j < e->n_ops; j++)
    f->ops[f->n_ops++] = ad_compose (t, &r->ops[k], &e->ops[j], e->n);
  t->nodes[t->n_nodes - 1].payload = f;
  memmove (t->nodes + node, t->nodes + node + 1, (t->n_nodes - node - 1) * sizeof (AdNode));
  t->n_nodes--;
  return TRUE;
}

void
ad_gradient (AdTape *t, const gint32 *seeds, guint n_seeds)
{
  memset (t->adj, 0, (gsize) t->n_vars * sizeof (double));
  for (guint i = 0; i < n_seeds; i++)
    t->adj[seeds[i]] += 1.0;
  for (guint k = t->n_nodes; k-- > 0;)
    t->nodes[k].fn (t, t->nodes[k].payload);
}
