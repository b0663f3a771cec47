/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Calling the function argument of a higher-order function: directly on
 * the evaluation's tape, or in a nest that differentiates it and is then
 * forgotten.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <math.h>
#include <string.h>

#define CX (&ev->cx)

/* ---- the table ---- */

static const RtHof hofs[] = {
  { "reduce_sum", rt_ex_reduce_sum, 3, G_MAXINT, 3, 2, 0 },
  { "reduce_sum_static", rt_ex_reduce_sum, 3, G_MAXINT, 3, 2, 1 },
  { "map_rect", rt_ex_map_rect, 5, 5, 4, -1, 0 },
  { "integrate_1d", rt_ex_integrate_1d, 6, 7, 5, -1, 0 },
  { "ode_rk45", rt_ex_ode, 4, G_MAXINT, 2, 3, ODE_OP (ODE_RK45, FORM_PLAIN) },
  { "ode_ckrk", rt_ex_ode, 4, G_MAXINT, 2, 3, ODE_OP (ODE_CKRK, FORM_PLAIN) },
  { "ode_adams", rt_ex_ode, 4, G_MAXINT, 2, 3, ODE_OP (ODE_ADAMS, FORM_PLAIN) },
  { "ode_bdf", rt_ex_ode, 4, G_MAXINT, 2, 3, ODE_OP (ODE_BDF, FORM_PLAIN) },
  { "ode_rk45_tol", rt_ex_ode, 7, G_MAXINT, 2, 6, ODE_OP (ODE_RK45, FORM_TOL) },
  { "ode_ckrk_tol", rt_ex_ode, 7, G_MAXINT, 2, 6, ODE_OP (ODE_CKRK, FORM_TOL) },
  { "ode_adams_tol", rt_ex_ode, 7, G_MAXINT, 2, 6, ODE_OP (ODE_ADAMS, FORM_TOL) },
  { "ode_bdf_tol", rt_ex_ode, 7, G_MAXINT, 2, 6, ODE_OP (ODE_BDF, FORM_TOL) },
  { "ode_adjoint_tol_ctl", rt_ex_ode, 15, G_MAXINT, 2, 14, ODE_OP (ODE_BDF, FORM_ADJOINT) },
  { "integrate_ode", rt_ex_ode, 7, 7, 5, -1, ODE_OP (ODE_RK45, FORM_OLD) },
  { "integrate_ode_rk45", rt_ex_ode, 7, 10, 5, -1, ODE_OP (ODE_RK45, FORM_OLD) },
  { "integrate_ode_adams", rt_ex_ode, 7, 10, 5, -1, ODE_OP (ODE_ADAMS, FORM_OLD) },
  { "integrate_ode_bdf", rt_ex_ode, 7, 10, 5, -1, ODE_OP (ODE_BDF, FORM_OLD) },
  /* op: 1 Newton, 2 the old signature, 4 with tolerances */
  { "solve_powell", rt_ex_algebra, 2, G_MAXINT, 1, 1, 0 },
  { "solve_newton", rt_ex_algebra, 2, G_MAXINT, 1, 1, 1 },
  { "solve_powell_tol", rt_ex_algebra, 5, G_MAXINT, 1, 4, 4 },
  { "solve_newton_tol", rt_ex_algebra, 5, G_MAXINT, 1, 4, 5 },
  { "algebra_solver", rt_ex_algebra, 5, 8, 4, -1, 2 },
  { "algebra_solver_newton", rt_ex_algebra, 5, 8, 4, -1, 3 },
  { "dae", rt_ex_dae, 5, G_MAXINT, 3, 4, 0 },
  { "dae_tol", rt_ex_dae, 8, G_MAXINT, 3, 7, 1 },
  /* no function argument: evaluators that read or add to the target */
  { "target", rt_ex_target, 0, 0, -1, -1, 0 },
  { "lower_bound_jacobian", rt_ex_transform_jacobian, 2, 2, -1, -1, 0 },
  { "upper_bound_jacobian", rt_ex_transform_jacobian, 2, 2, -1, -1, 0 },
  { "lower_upper_bound_jacobian", rt_ex_transform_jacobian, 3, 3, -1, -1, 0 },
  { "offset_multiplier_jacobian", rt_ex_transform_jacobian, 3, 3, -1, -1, 0 },
  { "ordered_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "positive_ordered_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "simplex_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "sum_to_zero_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "unit_vector_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "stochastic_column_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "stochastic_row_jacobian", rt_ex_transform_jacobian, 1, 1, -1, -1, 0 },
  { "corr_matrix_jacobian", rt_ex_transform_jacobian, 2, 2, -1, -1, 0 },
  { "cov_matrix_jacobian", rt_ex_transform_jacobian, 2, 2, -1, -1, 0 },
  { "cholesky_factor_corr_jacobian", rt_ex_transform_jacobian, 2, 2, -1, -1, 0 },
  { "cholesky_factor_cov_jacobian", rt_ex_transform_jacobian, 3, 3, -1, -1, 0 },
  { NULL, NULL, 0, 0, 0, 0, 0 },
};

const RtHof *
rt_hof_lookup (const char *name)
{
  for (const RtHof *h = hofs; h->name; h++)
    if (strcmp (h->name, name) == 0)
      return h;
  return NULL;
}

/* ---- nests ---- */

void
rt_nest_open (RtNest *nest, Ev *ev, TildeArena *scratch)
{
  AdTape *t = CX->tape;
  nest->ev = ev;
  nest->scratch = scratch;
  nest->n_vars = t->n_vars;
  nest->n_nodes = t->n_nodes;
  nest->payload_used = t->payload_used;
  nest->arena = CX->arena;
  nest->tape_arena = t->arena;
  CX->arena = scratch;
  t->arena = scratch;
}

void
rt_nest_close (RtNest *nest)
{
  Ev *ev = nest->ev;
  AdTape *t = CX->tape;
  t->n_vars = nest->n_vars;
  t->n_nodes = nest->n_nodes;
  t->payload_used = nest->payload_used;
  t->arena = nest->tape_arena;
  CX->arena = nest->arena;
  tilde_arena_reset (nest->scratch);
}

void
rt_nest_sweep (RtNest *nest, gint32 seed)
{
  AdTape *t = nest->ev->cx.tape;
  memset (t->adj + nest->n_vars, 0, sizeof (double) * (gsize) (t->n_vars - nest->n_vars));
  if (seed < nest->n_vars)
    return;
  t->adj[seed] = 1.0;
  for (guint k = t->n_nodes; k-- > nest->n_nodes;)
    t->nodes[k].fn (t, t->nodes[k].payload);
}

/* ---- values ---- */

static gboolean
holds_elems (const TildeValue *v)
{
  return v->kind == TILDE_VALUE_TUPLE || (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v));
}

gint32
rt_hof_flatten (RtCtx *cx, const TildeValue *v, double *x)
{
  if (holds_elems (v))
    {
      gint32 n = 0;
      for (gint32 i = 0; i < v->rows; i++)
        n += rt_hof_flatten (cx, &v->u.elems[i], x ? x + n : NULL);
      return n;
    }
  if (v->kind == TILDE_VALUE_COMPLEX
      || (v->kind >= TILDE_VALUE_COMPLEX_VECTOR && v->kind <= TILDE_VALUE_COMPLEX_MATRIX))
    rt_raise (cx, TILDE_MODEL_ERROR_FATAL, "%s: complex arguments are not supported here",
              cx->fn_name);
  gint32 n = tilde_value_flat_size (v);
  if (x && n > 0)
    memcpy (x, rt_values (cx, v), sizeof (double) * (gsize) n);
  return n;
}

void
rt_hof_check_finite (RtCtx *cx, const char *what, const TildeValue *v)
{
  gint32 n = rt_hof_flatten (cx, v, NULL);
  double *x = rt_alloc_d (cx, (gsize) n);
  rt_hof_flatten (cx, v, x);
  for (gint32 i = 0; i < n; i++)
    if (!isfinite (x[i]))
      rt_domain_error (cx, what, x[i], "finite");
}

/* The autodiff scalars of v, in order: their count, and their ids. */
static gint32
collect_ids (const TildeValue *v, gint32 *ids)
{
  if (holds_elems (v))
    {
      gint32 n = 0;
      for (gint32 i = 0; i < v->rows; i++)
        n += collect_ids (&v->u.elems[i], ids ? ids + n : NULL);
      return n;
    }
  if (!v->ad)
    return 0;
  gint32 n = tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? 1 : tilde_value_flat_size (v);
  if (ids)
    for (gint32 i = 0; i < n; i++)
      ids[i] = n == 1 && tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? v->start
        : tilde_value_var (v, i);
  return n;
}

/* The id of each real of v, flattened in order; -1 for data. */
static gint32
output_ids (const TildeValue *v, gint32 *ids)
{
  if (holds_elems (v))
    {
      gint32 n = 0;
      for (gint32 i = 0; i < v->rows; i++)
        n += output_ids (&v->u.elems[i], ids + n);
      return n;
    }
  gint32 n = tilde_value_flat_size (v);
  for (gint32 i = 0; i < n; i++)
    ids[i] = !v->ad ? -1 : tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? v->start
      : tilde_value_var (v, i);
  return n;
}

/* v with its autodiff scalars replaced by their values. */
static TildeValue
values_only (RtCtx *cx, const TildeValue *v)
{
  TildeValue r = *v;
  r.view = 0;
  if (holds_elems (v))
    {
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
      for (gint32 i = 0; i < v->rows; i++)
        r.u.elems[i] = values_only (cx, &v->u.elems[i]);
      return r;
    }
  if (!v->ad)
    return r;
  r.ad = 0;
  r.idx = NULL;
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      tilde_value_set_real (&r, cx->tape->val[v->start]);
      return r;
    }
  gint32 n = tilde_value_flat_size (v);
  r.u.d = tilde_arena_memdup (cx->arena, rt_values (cx, v), sizeof (double) * (gsize) MAX (n, 1));
  return r;
}

/* v with its autodiff scalars replaced, in order, by the variables
 * base, base + 1, ... (*k counts them). */
static TildeValue
rebind (RtCtx *cx, const TildeValue *v, gint32 base, gint32 *k)
{
  TildeValue r = *v;
  r.view = 0;
  if (holds_elems (v))
    {
      r.u.elems = tilde_arena_alloc (cx->arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 1));
      for (gint32 i = 0; i < v->rows; i++)
        r.u.elems[i] = rebind (cx, &v->u.elems[i], base, k);
      return r;
    }
  if (!v->ad)
    return r;
  r.idx = NULL;
  r.start = base + *k;
  *k += tilde_value_kind_is_scalar ((TildeValueKind) v->kind) ? 1 : tilde_value_flat_size (v);
  return r;
}

/* ---- the callback ---- */

void
rt_callback_init (RtCallback *cb, Ev *ev, const Ex *e, const TildeValue *rest, int n_rest)
{
  memset (cb, 0, sizeof *cb);
  cb->ev = ev;
  cb->f = e->code;
  cb->drop = e->drop;
  cb->rest = rest;
  cb->n_rest = n_rest;
  cb->n_params = -1;
}

/* What nested calls need: the data form of rest and its parameters. */
static void
prepare (RtCallback *cb)
{
  Ev *ev = cb->ev;
  int n_rest = cb->n_rest;
  const TildeValue *rest = cb->rest;
  cb->n_params = 0;
  cb->rest_data = tilde_arena_alloc (CX->arena, sizeof (TildeValue) * (gsize) MAX (n_rest, 1));
  for (int i = 0; i < n_rest; i++)
    {
      cb->rest_data[i] = values_only (CX, &rest[i]);
      cb->n_params += collect_ids (&rest[i], NULL);
    }
  cb->param_ids = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (cb->n_params, 1));
  cb->param_values = rt_alloc_d (CX, (gsize) cb->n_params);
  gint32 k = 0;
  for (int i = 0; i < n_rest; i++)
    k += collect_ids (&rest[i], cb->param_ids + k);
  for (gint32 i = 0; i < cb->n_params; i++)
    cb->param_values[i] = CX->tape->val[cb->param_ids[i]];
}

gint32
rt_callback_n_params (RtCallback *cb)
{
  if (cb->n_params < 0)
    prepare (cb);
  return cb->n_params;
}

void
rt_callback_clear (RtCallback *cb)
{
  g_clear_pointer (&cb->scratch, tilde_arena_free);
}

void
rt_callback_call (RtCallback *cb, const TildeValue *lead, int n_lead, TildeValue *out)
{
  Ev *ev = cb->ev;
  TildeValue *frame = rt_function_frame (ev, cb->f);
  if (n_lead > 0)
    memcpy (frame, lead, sizeof (TildeValue) * (gsize) n_lead);
  if (cb->n_rest > 0)
    memcpy (frame + n_lead, cb->rest, sizeof (TildeValue) * (gsize) cb->n_rest);
  rt_call_function (ev, cb->f, frame, cb->drop, NULL, 0, out);
}

gint32
rt_callback_n_in (const TildeValue *lead, int n_lead, const gboolean *diff)
{
  gint32 n = 0;
  for (int k = 0; k < n_lead; k++)
    if (diff && diff[k])
      n += tilde_value_flat_size (&lead[k]);
  return n;
}

/* A data lead argument as fresh variables. */
static TildeValue
lead_variables (RtCtx *cx, const TildeValue *v)
{
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    {
      TildeValue r = rt_promote_ad (cx, v);
      return r;
    }
  TildeValue r = rt_new_ad (cx, (TildeValueKind) v->kind, v->rows, v->cols);
  gint32 n = tilde_value_flat_size (v);
  if (n > 0)
    memcpy (cx->tape->val + r.start, rt_values (cx, v), sizeof (double) * (gsize) n);
  return r;
}

/* The evaluation in an open nest (errors unwind to rt_callback_eval). */
static void
nested_eval (RtCallback *cb, RtNest *nest, const TildeValue *lead, int n_lead,
             const gboolean *diff, gboolean params, double *value, gint32 max_out,
             gint32 *n_out, double *jac)
{
  Ev *ev = cb->ev;
  gint32 n_in = rt_callback_n_in (lead, n_lead, diff);
  gint32 n_lead_in = n_in;
  params = params && cb->n_params > 0;
  if (params)
    n_in += cb->n_params;
  /* the inputs' ids: the nest's variables */
  gint32 *in = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n_in, 1));
  TildeValue *frame = rt_function_frame (ev, cb->f);
  gint32 k = 0;
  for (int i = 0; i < n_lead; i++)
    {
      if (!(diff && diff[i]))
        {
          frame[i] = lead[i];
          continue;
        }
      frame[i] = lead_variables (CX, &lead[i]);
      gint32 m = tilde_value_flat_size (&lead[i]);
      for (gint32 j = 0; j < m; j++)
        in[k++] = frame[i].start + j;
    }
  if (params)
    {
      TildeValue p = rt_new_ad (CX, TILDE_VALUE_VECTOR, cb->n_params, 1);
      memcpy (CX->tape->val + p.start, cb->param_values, sizeof (double) * (gsize) cb->n_params);
      gint32 q = 0;
      for (int i = 0; i < cb->n_rest; i++)
        frame[n_lead + i] = rebind (CX, &cb->rest[i], p.start, &q);
      for (gint32 j = 0; j < cb->n_params; j++)
        in[n_lead_in + j] = p.start + j;
    }
  else if (cb->n_rest > 0)
    memcpy (frame + n_lead, cb->rest_data, sizeof (TildeValue) * (gsize) cb->n_rest);
  TildeValue out;
  rt_call_function (ev, cb->f, frame, cb->drop, NULL, 0, &out);
  gint32 n = rt_hof_flatten (CX, &out, NULL);
  *n_out = n;
  if (n > max_out)
    return;
  rt_hof_flatten (CX, &out, value);
  if (!jac)
    return;
  gint32 *ids = tilde_arena_alloc (CX->arena, sizeof (gint32) * (gsize) MAX (n, 1));
  output_ids (&out, ids);
  for (gint32 i = 0; i < n; i++)
    {
      double *row = jac + (gsize) i * (gsize) n_in;
      if (ids[i] < 0 || n_in == 0)
        {
          memset (row, 0, sizeof (double) * (gsize) n_in);
          continue;
        }
      rt_nest_sweep (nest, ids[i]);
      for (gint32 j = 0; j < n_in; j++)
        row[j] = CX->tape->adj[in[j]];
    }
}

gboolean
rt_callback_eval (RtCallback *cb, const TildeValue *lead, int n_lead, const gboolean *diff,
                  gboolean params, double *value, gint32 max_out, gint32 *n_out, double *jac)
{
  Ev *ev = cb->ev;
  if (cb->n_params < 0)
    prepare (cb);
  if (!cb->scratch)
    cb->scratch = tilde_arena_new (64 * 1024);
  RtNest nest;
  rt_nest_open (&nest, ev, cb->scratch);
  jmp_buf jmp, *outer = CX->jmp;
  TildeValue *slots = ev->slots;
  int depth = ev->depth;
  gboolean propto = CX->propto;
  if (setjmp (jmp))
    {
      CX->jmp = outer;
      ev->slots = slots;
      ev->depth = depth;
      CX->propto = propto;
      rt_nest_close (&nest);
      return FALSE;
    }
  CX->jmp = &jmp;
  nested_eval (cb, &nest, lead, n_lead, diff, params, value, max_out, n_out, jac);
  CX->jmp = outer;
  rt_nest_close (&nest);
  return TRUE;
}

void
rt_callback_reraise (RtCallback *cb)
{
  Ev *ev = cb->ev;
  longjmp (*CX->jmp, 1);
}
