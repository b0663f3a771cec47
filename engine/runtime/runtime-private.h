/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the runtime's parts share: the evaluation context every kernel
 * receives, how kernels raise errors, and the table of library functions.
 *
 * Errors unwind with longjmp, as Lua's do: a kernel that meets a domain
 * error calls rt_raise and never returns. This is safe because everything
 * an evaluation allocates comes from arenas that are reset afterwards.
 */
#pragma once

#include <setjmp.h>
#include <gsl/gsl_rng.h>

#include "runtime/value.h"
#include "runtime/model.h"
#include "runtime/ad/tape.h"

G_BEGIN_DECLS

/* A density's result taken apart: when RtCtx.capture is set, a density that
 * ends with dist_finish records no node but leaves its value and the
 * partials of each argument here (NULL for arguments not autodiff). */
#define RT_CAPTURE_MAX_ARGS 8

typedef struct {
  gboolean done;
  double   logp;
  int      n_args;
  double  *p[RT_CAPTURE_MAX_ARGS];
  gint32   n[RT_CAPTURE_MAX_ARGS];
} RtCapture;

typedef struct {
  AdTape             *tape;       /* always present; used only for ad values */
  TildeArena         *arena;      /* where results are allocated */
  jmp_buf            *jmp;        /* where rt_raise unwinds to */
  TildeModelErrorKind err_kind;
  char               *err_msg;
  gboolean            propto;     /* the evaluation drops constants of _lupdf calls */
  gboolean            drop;       /* set for the current call: a _lupdf under propto */
  gsl_rng            *rng;
  const char         *fn_name;    /* the library function being called */
  RtCapture          *capture;    /* see RtCapture; NULL: densities record their node */
  double              rounding;   /* > 0: values to unconstrain were rounded to this
                                   * relative precision (rt_unconstrain) */
} RtCtx;

void rt_raise (RtCtx *cx, TildeModelErrorKind kind, const char *fmt, ...)
  G_GNUC_PRINTF (3, 4) G_GNUC_NORETURN;
/* Raises with a message the context takes over (nothing is left to free
 * on the way out: cleanup attributes do not run across longjmp). */
void rt_raise_take (RtCtx *cx, TildeModelErrorKind kind, char *message) G_GNUC_NORETURN;
/* The called function's name as Stan's messages give it: foo_lpdf for a
 * call of foo_lupdf (Stan's unnormalised form runs the same function). */
const char *rt_fn_name (RtCtx *cx);
/* "normal_lpdf: Scale parameter is -1, but must be positive!" */
void rt_domain_error (RtCtx *cx, const char *what, double value, const char *must)
  G_GNUC_NORETURN;

/* ---- values ---- */

static inline double *
rt_alloc_d (RtCtx *cx, gsize n)
{
  return tilde_arena_alloc (cx->arena, (n ? n : 1) * sizeof (double));
}

/* The values of a real or int value (scalar or flat container) as
 * doubles: data in place, ad values read from the tape (gathered when not
 * contiguous), ints converted. */
const double *rt_values (RtCtx *cx, const TildeValue *v);
/* rt_values for a node that reads the values again in the reverse sweep:
 * data a variable holds (which a later assignment may change) is copied,
 * and so is a data scalar's value, which lives in the value itself. */
const double *rt_stable_values (RtCtx *cx, const TildeValue *v);
/* The value as a double: an int, a real or an ad scalar. */
double        rt_scalar (RtCtx *cx, const TildeValue *v);
/* A new ad value of `kind` with `n` fresh contiguous variables. */
TildeValue    rt_new_ad (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols);
/* A new data value of a flat kind. */
TildeValue    rt_new_data (RtCtx *cx, TildeValueKind kind, gint32 rows, gint32 cols);
/* An ad scalar holding id `id`. */
static inline TildeValue
rt_ad_scalar (gint32 id)
{
  TildeValue v = tilde_value_real (0);
  v.ad = 1;
  v.start = id;
  return v;
}
/* An operand of a generic node for the ad value `v`. */
AdOperand     rt_operand (const TildeValue *v, const double *partial);
/* The ad version of `v` (constants on the tape when it is data). */
TildeValue    rt_promote_ad (RtCtx *cx, const TildeValue *v);
/* Whether any real in `v` (nested containers included) is an ad variable. */
gboolean      rt_is_ad (const TildeValue *v);
/* A scalar int argument. */
int           rt_int (RtCtx *cx, const TildeValue *v);
/* A real value or ad scalar from a double value and, when ad, its
 * dependence on the operands (a reduction). */
TildeValue    rt_reduce (RtCtx *cx, double value, guint n_ops, const AdOperand *ops);
/* Fails with an index error unless two sizes agree. */
void          rt_check_size (RtCtx *cx, const char *what, gint32 a, gint32 b);

/* ---- the library ---- */

typedef void (*RtKernel) (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out);

typedef struct {
  const char *name;
  RtKernel    fn;
  int         min_args, max_args;
} RtBuiltin;

/* NULL when the runtime does not implement `name` with `nargs` arguments. */
const RtBuiltin *rt_builtin_lookup (const char *name, int nargs);
/* The first kernel for `name` and `nargs` that is not `skip` (a kernel that
 * handles some arguments itself and passes the others on). */
const RtBuiltin *rt_builtin_lookup_other (const char *name, int nargs, RtKernel skip);

/* Each area's table, ended by an entry with a NULL name. */
extern const RtBuiltin rt_builtins_arith[];
extern const RtBuiltin rt_builtins_funs[];
extern const RtBuiltin rt_builtins_scalar[];
extern const RtBuiltin rt_builtins_containers[];
extern const RtBuiltin rt_builtins_linalg[];
extern const RtBuiltin rt_builtins_matrix[];
extern const RtBuiltin rt_builtins_gp[];
extern const RtBuiltin rt_builtins_dist[];
extern const RtBuiltin rt_builtins_dist_continuous[];
extern const RtBuiltin rt_builtins_dist_discrete[];
extern const RtBuiltin rt_builtins_dist_multivariate[];
extern const RtBuiltin rt_builtins_cdf[];
extern const RtBuiltin rt_builtins_rng[];
extern const RtBuiltin rt_builtins_rng_multi[];
extern const RtBuiltin rt_builtins_hmm[];
extern const RtBuiltin rt_builtins_sparse[];
extern const RtBuiltin rt_builtins_decomp[];
extern const RtBuiltin rt_builtins_transform[];
extern const RtBuiltin rt_builtins_complex[];
extern const RtBuiltin rt_builtins_hypergeometric[];
extern const RtBuiltin rt_builtins_lkj_cov[];
extern const RtBuiltin rt_builtins_gaussian_dlm[];
extern const RtBuiltin rt_builtins_wiener[];
extern const RtBuiltin rt_builtins_poisson_binomial[];

/* ---- elementwise maps ---- */

/* f computes a value from x[0..nargs) and writes d value / d x[k] in d[k]. */
typedef double (*RtScalarFn) (const double *x, double *d);

/* out = f applied elementwise, broadcasting scalars, over arrays of any
 * depth and over vectors and matrices. Int results are not produced here. */
void rt_map (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out, RtScalarFn f);
/* An int-valued function of int or real scalars (given as doubles), mapped
 * over arrays of them as rt_map maps, scalars broadcast: to_int, choose and
 * the factorials of ints. */
typedef int (*RtIntFn) (RtCtx *cx, const double *x);
void rt_map_int (RtCtx *cx, int nargs, const TildeValue *args, TildeValue *out, RtIntFn f);
/* Whether every argument is an int or an array of them (at any depth). */
gboolean rt_all_ints (int nargs, const TildeValue *args);

/* The sum of every real of v (nested containers too); ints stay ints. */
void rt_sum (RtCtx *cx, const TildeValue *v, TildeValue *out);

/* a + b with Stan's broadcasting (scalars, vectors, matrices). */
void rt_add (RtCtx *cx, const TildeValue *a, const TildeValue *b, TildeValue *out);

/* a op b for two scalars (op: 0 +, 1 -, 2 *, 3 /), without dispatch. */
void rt_arith_scalar (RtCtx *cx, int op, const TildeValue *a, const TildeValue *b, TildeValue *out);

G_END_DECLS
