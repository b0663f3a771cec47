/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The higher-order functions: library functions whose first argument names
 * a function of the functions block (reduce_sum, map_rect, integrate_1d,
 * the ODE, DAE and algebraic solvers); and, in the same table, the library
 * functions that need the evaluation itself (target (), and the
 * transforms' _jacobian forms, which add to the target).
 *
 * They are not kernels of the library table: they run user code, so they
 * are evaluators of the executable form, resolved at preparation from
 * their own table (the call's function argument becomes Ex.code, the other
 * arguments its kids).
 *
 * Solvers need the derivatives of the user's function at many points.
 * They get them from nested reverse-mode sweeps on the evaluation's own
 * tape: a nest records the function on fresh variables after everything
 * the evaluation has recorded, sweeps back over its own nodes only, and is
 * then forgotten (variables, nodes and memory), so that a solve of
 * thousands of steps leaves on the tape only the nodes of its results.
 */
#pragma once

#include "runtime/exec-private.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;
  ExFn        fn;
  int         min_args, max_args;  /* the call's, the function argument included */
  int         lead;                /* parameters of the function the solver supplies;
                                    * -1: the call has no function argument */
  int         fixed;               /* the call's arguments after the function and before
                                    * the variadic ones; -1 when not variadic */
  int         op;                  /* the variant, passed in Ex.op */
} RtHof;

/* The variants of rt_ex_ode: a method and a form of call. */
enum { ODE_RK45, ODE_CKRK, ODE_ADAMS, ODE_BDF };
enum { FORM_PLAIN, FORM_TOL, FORM_ADJOINT, FORM_OLD };
#define ODE_OP(method, form) ((method) | ((form) << 4))

/* NULL when `name` is not a higher-order function the runtime runs. */
const RtHof *rt_hof_lookup (const char *name);

/* ---- nests ---- */

typedef struct {
  Ev         *ev;
  TildeArena *scratch;
  gint32      n_vars;
  guint       n_nodes;
  gsize       payload_used;
  TildeArena *arena, *tape_arena;
} RtNest;

/* Starts recording after everything on the tape, with temporaries in
 * `scratch`. */
void rt_nest_open  (RtNest *nest, Ev *ev, TildeArena *scratch);
/* Forgets the variables, nodes and temporaries since rt_nest_open. */
void rt_nest_close (RtNest *nest);
/* The reverse sweep of the nodes recorded in the nest, from the variable
 * `seed` (adjoints of the nest's variables only; zeroed first). */
void rt_nest_sweep (RtNest *nest, gint32 seed);

/* ---- the function argument ---- */

typedef struct {
  Ev               *ev;
  const RtFunction *f;
  gboolean          drop;
  const TildeValue *rest;       /* the arguments passed on after the solver's own */
  int               n_rest;
  TildeValue       *rest_data;  /* the same with their values only */
  gint32            n_params;   /* the autodiff scalars of rest, in order (-1: not
                                 * counted yet) */
  gint32           *param_ids;
  double           *param_values;
  TildeArena       *scratch;    /* temporaries of nested calls (owned) */
} RtCallback;

/* `rest` must stay alive while the callback is used. */
void     rt_callback_init  (RtCallback *cb, Ev *ev, const Ex *e, const TildeValue *rest,
                            int n_rest);
/* The number of autodiff scalars in rest (param_ids, param_values are set
 * from then on). */
gint32   rt_callback_n_params (RtCallback *cb);
void     rt_callback_clear (RtCallback *cb);
/* f (lead..., rest...) on the evaluation's tape, as a call in the model
 * would run it. */
void     rt_callback_call  (RtCallback *cb, const TildeValue *lead, int n_lead, TildeValue *out);
/* f (lead..., rest...) in a nest: the lead arguments are data values whose
 * reals become variables where `diff[k]` is set, and the autodiff scalars
 * of rest become variables when `params`. Writes the flattened value
 * (at most max_out reals; *n_out the count) and, when jac is not NULL, the
 * derivatives: jac[i * n_in + j] = d value_i / d input_j with the inputs
 * in order (the differentiated lead reals, then the parameters). FALSE when
 * the function raised an error (left in the context, to be raised again
 * with rt_callback_reraise once the caller has freed what it holds). */
gboolean rt_callback_eval  (RtCallback *cb, const TildeValue *lead, int n_lead,
                            const gboolean *diff, gboolean params, double *value, gint32 max_out,
                            gint32 *n_out, double *jac);
void     rt_callback_reraise (RtCallback *cb) G_GNUC_NORETURN;
/* The number of reals among the differentiated lead arguments. */
gint32   rt_callback_n_in   (const TildeValue *lead, int n_lead, const gboolean *diff);

/* ---- helpers ---- */

/* The reals of a value of any nesting, flattened in order (ints become
 * doubles): their count, and the values when x is not NULL. */
gint32 rt_hof_flatten (RtCtx *cx, const TildeValue *v, double *x);
/* Raises Stan's error for a value of any nesting with a non-finite real. */
void   rt_hof_check_finite (RtCtx *cx, const char *what, const TildeValue *v);

/* ---- the evaluators ---- */

void rt_ex_reduce_sum   (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_map_rect     (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_integrate_1d (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_ode          (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_algebra      (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_dae          (Ev *ev, const Ex *e, TildeValue *out);
/* target () (target.c) */
void rt_ex_target (Ev *ev, const Ex *e, TildeValue *out);
/* foo_jacobian (transform/functions.c): foo_constrain, adding log |J|
 * to the target */
void rt_ex_transform_jacobian (Ev *ev, const Ex *e, TildeValue *out);

G_END_DECLS
