/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reduce_sum, reduce_sum_static and map_rect, run serially: the function
 * is called on the evaluation's own tape, so the gradient with respect to
 * the slices and the shared arguments comes from the ordinary sweep.
 *
 * reduce_sum may partition its range in any way (Stan's is scheduled by
 * threads); here it is one call over the whole range, the cheapest. The
 * static form splits the range as Stan's static partitioner does (halves
 * until a piece holds at most grainsize elements), so that a partial-sum
 * function gets the same slices it would get from Stan.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <string.h>

#define CX (&ev->cx)

static TildeValue *
eval_kids (Ev *ev, const Ex *e)
{
  TildeValue *args = tilde_arena_alloc (CX->arena,
                                        sizeof (TildeValue) * (gsize) MAX (e->n_kids, 1));
  for (int i = 0; i < e->n_kids; i++)
    rt_eval (ev, e->kids[i], &args[i]);
  CX->fn_name = e->name;
  return args;
}

/* ---- reduce_sum ---- */

typedef struct {
  RtCallback  cb;
  TildeValue  x;       /* the sliced array */
  TildeValue  sum;
  gboolean    started;
} Reduce;

/* Adds f (x[lo:hi], lo, hi, ...) (1-based, inclusive) to the sum. */
static void
add_slice (Ev *ev, Reduce *r, int lo, int hi)
{
  TildeValue lead[3], v;
  lead[0] = rt_index_range (ev, &r->x, lo, hi);
  tilde_value_set_int (&lead[1], lo);
  tilde_value_set_int (&lead[2], hi);
  rt_callback_call (&r->cb, lead, 3, &v);
  if (v.kind == TILDE_VALUE_INT)
    tilde_value_set_real (&v, v.u.i);
  if (!r->started)
    r->sum = v;
  else
    rt_arith_scalar (CX, 0, &r->sum, &v, &r->sum);
  r->started = TRUE;
}

/* tbb's simple partitioner on [begin, end) (0-based): halves until a
 * piece is no longer than grain. */
static void
add_static (Ev *ev, Reduce *r, int begin, int end, int grain)
{
  if (end - begin > grain)
    {
      int middle = begin + (end - begin) / 2;
      add_static (ev, r, begin, middle, grain);
      add_static (ev, r, middle, end, grain);
      return;
    }
  add_slice (ev, r, begin + 1, end);
}

void
rt_ex_reduce_sum (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue *args = eval_kids (ev, e);
  int grain = rt_int (CX, &args[1]);
  if (grain < 1)
    rt_domain_error (CX, "grainsize", grain, "positive");
  Reduce r = { .x = args[0] };
  rt_callback_init (&r.cb, ev, e, args + 2, e->n_kids - 2);
  int n = args[0].rows;
  if (n == 0)
    {
      tilde_value_set_real (out, 0);
      return;
    }
  if (e->op == 0)
    add_slice (ev, &r, 1, n);
  else
    add_static (ev, &r, 0, n, grain);
  CX->fn_name = e->name;
  *out = r.sum;
}

/* ---- map_rect ---- */

static TildeValue
job (const TildeValue *all, int j, TildeValueKind empty_kind)
{
  if (all->rows > 0)
    return all->u.elems[j];
  TildeValue v = { .kind = (guint8) empty_kind, .rows = 0, .cols = 1 };
  if (empty_kind == TILDE_VALUE_ARRAY)
    v.elem = TILDE_VALUE_REAL;
  return v;
}

/* The outputs of the jobs, one after the other, as one vector. */
static TildeValue
concatenate (Ev *ev, const TildeValue *parts, int n)
{
  gint32 total = 0;
  gboolean ad = FALSE;
  for (int j = 0; j < n; j++)
    {
      total += tilde_value_flat_size (&parts[j]);
      ad |= parts[j].ad;
    }
  if (!ad)
    {
      TildeValue r = rt_new_data (CX, TILDE_VALUE_VECTOR, total, 1);
      gint32 k = 0;
      for (int j = 0; j < n; j++)
        {
          gint32 m = tilde_value_flat_size (&parts[j]);
          if (m > 0)
            memcpy (r.u.d + k, rt_values (CX, &parts[j]), sizeof (double) * (gsize) m);
          k += m;
        }
      return r;
    }
  TildeValue r = { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = total, .cols = 1 };
  r.idx = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (total, 1));
  gint32 k = 0;
  for (int j = 0; j < n; j++)
    {
      TildeValue p = rt_promote_ad (CX, &parts[j]);
      gint32 m = tilde_value_flat_size (&parts[j]);
      for (gint32 i = 0; i < m; i++)
        r.idx[k++] = tilde_value_var (&p, i);
    }
  return r;
}

static void
check_jobs (Ev *ev, const char *what, const TildeValue *v, int n)
{
  if (v->rows > 0 && v->rows != n)
    rt_raise (CX, TILDE_MODEL_ERROR_INDEX, "map_rect: size of %s (%d) and the number of jobs "
              "(%d) must match in size", what, v->rows, n);
}

void
rt_ex_map_rect (Ev *ev, const Ex *e, TildeValue *out)
{
  TildeValue *args = eval_kids (ev, e);
  const TildeValue *thetas = &args[1], *xr = &args[2], *xi = &args[3];
  int n = MAX (thetas->rows, MAX (xr->rows, xi->rows));
  check_jobs (ev, "job_params", thetas, n);
  check_jobs (ev, "x_r", xr, n);
  check_jobs (ev, "x_i", xi, n);
  RtCallback cb;
  rt_callback_init (&cb, ev, e, NULL, 0);
  TildeValue *parts = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n, 1));
  for (int j = 0; j < n; j++)
    {
      TildeValue lead[4];
      lead[0] = args[0];
      lead[1] = job (thetas, j, TILDE_VALUE_VECTOR);
      lead[2] = job (xr, j, TILDE_VALUE_ARRAY);
      lead[3] = job (xi, j, TILDE_VALUE_ARRAY);
      if (xi->rows == 0)
        lead[3].elem = TILDE_VALUE_INT;
      rt_callback_call (&cb, lead, 4, &parts[j]);
    }
  CX->fn_name = e->name;
  *out = concatenate (ev, parts, n);
}
