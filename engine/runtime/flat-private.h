/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The straight-line form of a small log density. When every statement of
 * log_prob is one the form covers (parameter reads with identity or
 * scalar-bound transforms, declarations, whole assignments of elementwise
 * arithmetic, `target +=` of normal, std_normal and cauchy densities or of
 * expressions), the whole part becomes one flat array of instructions over
 * numbered doubles: theta, then the temporaries, then the constants (data
 * and literals copied in once); after them in the scratch, the adjoints
 * and junk where partials of data go. Each mode (propto, Jacobian) has its
 * copy of the array, each instruction with the code chosen for its
 * operands, which runs it and then the next (FlFn). An evaluation runs the
 * array forward, adding each density's partials to the adjoints of its
 * arguments as it goes (every term's adjoint is 1), then backward over the
 * arithmetic and the transforms; no tape, no arena, no values.
 *
 * The form only computes: anything out of the ordinary (a domain error, a
 * value that is not finite) makes the run give up, and the model then
 * evaluates the general way, which raises the error with its own message.
 */
#pragma once

#include "runtime/exec-private.h"

G_BEGIN_DECLS

typedef struct RtFlat RtFlat;

/* The flat form of a compiled log_prob, or NULL where it does not cover a
 * statement. `globals` are the data block's values (the first n_globals
 * slots), read once; the parameter reads' shapes must have been computed
 * (Ex.shape); `n_params` is the length of theta. */
RtFlat  *rt_flat_compile (const St *log_prob, const TildeValue *globals, int n_globals,
                          int n_slots, gsize n_params);
void     rt_flat_free    (RtFlat *f);
/* Scratch memory for one evaluating thread, the constants filled in and
 * the adjoints 0 (as every run leaves them); freed with
 * rt_flat_scratch_free. */
double  *rt_flat_scratch_new (const RtFlat *f);
void     rt_flat_scratch_free (double *scratch);
/* The log density at theta, and its gradient into `gradient` when that
 * is not NULL; NaN when the general path must evaluate instead, after
 * rt_flat_gave_way. */
double   rt_flat_run (const RtFlat *f, double *scratch, const double *theta, gboolean propto,
                      gboolean jacobian, double *gradient);
/* After a run that gave way: the scratch made ready for the next run,
 * and the count of rt_flat_fallbacks. */
void     rt_flat_gave_way (const RtFlat *f, double *scratch);
/* The number of instructions (for tests and the benchmark's notes). */
guint    rt_flat_size    (const RtFlat *f);
/* How often, in this process, a run gave way to the general path. */
guint    rt_flat_fallbacks (void);
/* Whether models prepared from now on get the flat form where it covers
 * log_prob (the default; the fused forms must be on too). Off, they
 * evaluate the general way (for tests that compare the two). */
void     rt_flat_set_enabled (gboolean on);
gboolean rt_flat_enabled     (void);

/* model.c: whether log_prob of m runs in the flat form. */
gboolean rt_model_has_flat (const TildeModel *m);

/* What the two files of the form share. */
typedef enum {
  FL_LOWER,        /* parameters: a constrained; bounds k0 (k1) */
  FL_UPPER,
  FL_LUB,
  FL_ADD,          /* elementwise, scalars broadcast */
  FL_SUB,
  FL_MUL,
  FL_DIV,
  FL_FMA,
  FL_NEG,
  FL_EXP,
  FL_LOG,
  FL_SQRT,
  FL_SQUARE,
  FL_INV,
  FL_EXPM1,
  FL_INV_LOGIT,
  FL_NORMAL,       /* terms of the target */
  FL_STD_NORMAL,
  FL_CAUCHY,
  FL_SUM,
  FL_NORMAL_FMA,   /* normal (y | b0 * b1 + b2, sigma): the location not stored */
  FL_CHECK,        /* a[0] within the bounds a[1] (lower or upper) and a[2] (upper):
                    * else the general path raises the error */
  FL_NOP,          /* an instruction folded into a later one */
  FL_FMA_TWICE,    /* flat.c's loops: FL_FMA with `twice` */
} FlOp;

typedef struct {
  gint32   off;    /* first value */
  gint32   goff;   /* where its partials go: its adjoints, or junk for data */
  gint32   n;      /* values */
  gboolean vec;    /* a container (broadcast when not); 1 or 0, a stride */
  gboolean ad;     /* depends on the parameters */
} FlReg;

typedef struct FlIns FlIns;

/* One instruction's code, chosen when the form is built for the operands'
 * kinds and the mode (flat.c): v the values (the scratch), g the adjoints,
 * `total` the sum of the terms before it. It runs the instructions after
 * it and returns the sum of all the terms, or NaN to give way to the
 * general path. */
typedef double (*FlFn) (const FlIns *restrict ins, double *v, double *g, double total);

struct FlIns {
  FlOp     op;
  FlFn     fn;
  gint32   n;          /* elements computed (a density: its common size) */
  FlReg    dst;        /* the result (not for terms) */
  FlReg    aux;        /* transforms: the derivative of each element; FL_NORMAL_FMA
                        * of a data vector sigma: 1 / sigma */
  FlReg    a[3];
  FlReg    b[3];       /* FL_NORMAL_FMA: the location's operands; scalar runs
                        * (rt_flat_fuse): their densities' variates */
  gboolean drop;       /* a _lupdf call: constants dropped under propto */
  gboolean twice;      /* FL_FMA, FL_NORMAL_FMA: x * y + z rounded twice, as the general
                        * path's fused forms compute it (else fma ()) */
  gboolean jacobian;   /* transforms: add the log Jacobian; terms: `jacobian +=` */
  double   k0, k1;     /* transforms: the bounds */
  MirTransformKind check;  /* FL_CHECK: lower, upper or both */
  const RtFlat *flat;  /* the instruction that ends a run: its form */
  double   c[3];       /* what the chosen code precomputes from data */
  double   pc[3];      /* FL_NORMAL_FMA: c of the density folded into it; scalar runs:
                        * c of their second density (rt_flat_fuse) */
  gboolean pdrop;      /* scalar runs (rt_flat_fuse): drop of their second density */
};

/* The instructions of one mode (propto, jacobian): the terms that the mode
 * leaves out gone, and those of data alone, which are constants; the
 * others' flags resolved, each its code, and after them one whose code
 * ends the run (rt_flat_end). */
typedef struct {
  FlIns  *ins;
  guint   n_ins;
  double  cst;         /* the sum of the constant terms, in order, from 0 */
} FlProg;

/* The backward step of a scalar transform: scratch[u] += scratch[x] *
 * scratch[d] (the adjoints of theta and of the value, the derivative). */
typedef struct {
  gint32 u, x, d;
} FlBack1;

struct RtFlat {
  FlIns  *ins;
  guint   n_ins;
  gint32  n_params;
  gint32  n_vars;      /* theta and the temporaries: the adjoints zeroed */
  gint32  n_vals;      /* and the constants after them */
  double *consts;      /* n_vals - n_vars */
  gint32  max_n;       /* the longest operand */
  FlProg  prog[4];     /* by propto | jacobian << 1 */
  guint  *back;        /* the instructions with a backward pass, in order, */
  guint   n_back;
  FlBack1 *back1;      /* but for the scalar transforms', which run after them */
  guint   n_back1;
};

/* flat.c: the values of an arithmetic instruction (FL_ADD .. FL_INV_LOGIT). */
void rt_flat_arith (const FlIns *ins, double *v);
/* flat.c: the code of an instruction whose operands are placed and whose
 * flags are the mode's: ins->fn, and ins->c from the constants v. */
void rt_flat_choose (FlIns *ins, const double *v);
/* flat.c: whether an instruction adds a term in its mode, and whether the
 * term depends on the parameters. */
gboolean rt_flat_has_term (const FlIns *ins, gboolean *ad);
/* flat.c: the term of a density or sum of data alone (0 when its mode
 * drops it) into *x; FALSE where the general path raises an error. */
gboolean rt_flat_constant_term (const RtFlat *f, const FlIns *ins, double *scratch, double *x);
/* flat.c: a program's instructions (their codes chosen) with a density
 * of a container folded into a normal after it whose location's one
 * container it is (`eta ~ std_normal (); y ~ normal (mu + tau * eta,
 * sigma)`): one loop for both; and scalar steps that follow each other
 * (a scalar lower bound, normal and cauchy of data location and scale)
 * in one code. The new number of instructions. */
guint    rt_flat_fuse (FlIns *ins, guint n);
/* flat.c: the code of the instruction that ends a run. */
extern const FlFn rt_flat_end;

G_END_DECLS
