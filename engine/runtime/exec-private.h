/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The executable form of a program part: a tree of closures. Each
 * expression node evaluates into a TildeValue, each statement node runs and
 * says how control leaves it. Variables live in slots numbered at compile
 * time; the data block's variables are the first slots and are shared
 * (read only) by every part.
 */
#pragma once

#include "runtime/runtime-private.h"
#include "runtime/transform/transform.h"
#include "io/json-data.h"
#include "mir/mir.h"
#include "mir/mir-terms.h"

G_BEGIN_DECLS

typedef struct Ex Ex;
typedef struct St St;
typedef struct Sz Sz;
typedef struct Ev Ev;
typedef struct RtFunction RtFunction;
typedef struct Fx Fx;
typedef struct Sx Sx;
typedef struct Tr Tr;

typedef enum {
  FLOW_NEXT,
  FLOW_BREAK,
  FLOW_CONTINUE,
  FLOW_RETURN,
} Flow;

typedef void (*ExFn) (Ev *ev, const Ex *e, TildeValue *out);
typedef Flow (*StFn) (Ev *ev, const St *s);

/* A sized type with its size expressions. */
struct Sz {
  TildeValueKind kind;
  Ex            *d1, *d2;
  Sz            *elem;
  Sz           **members;
  guint          n_members;
};

struct Ex {
  ExFn             fn;
  const MirExpr   *mir;
  TildeValue       k;          /* literals and cached values */
  gboolean         ready;      /* k holds the value (cached data expressions) */
  int              slot;
  Ex             **kids;
  int              n_kids;
  const RtBuiltin *builtin;
  const char      *name;
  gboolean         drop;       /* a _lupdf / _lupmf call */
  MirIndexKind    *index_kinds;
  int              n_index;
  MirTransformKind tkind;
  Ex              *ta, *tb;    /* transform arguments */
  const TildeType *type;
  int              tuple_slot;
  int              op;         /* specialised scalar arithmetic */
  const RtFunction *code;      /* a user-defined function */
  guint64         *arg_deps;   /* a call of an _lp function: per argument, what it
                                * depends on (Ev.param_args) */
  const TildeShape *shape;     /* a parameter's shape, when its sizes were computed once */
  Tr               *tr;        /* reading a tuple parameter: its transform */
  const Sz         *psized;    /* reading a tuple parameter: the declared sizes */
  Fx               *fx;        /* a fused expression (kids[0]: the same, compiled as usual) */
  Sx               *sx;        /* a fused scalar expression: n_sx instructions */
  int               n_sx;
};

/* A transform with its arguments; a tuple's, one per member. */
struct Tr {
  MirTransformKind kind;
  Ex              *a, *b;
  Tr             **members;
  guint            n_members;
};

/* A fused elementwise expression (fused.c): arithmetic over scalars and
 * equal-sized one-dimensional containers, computed in one pass together
 * with its partials (forward mode over its leaves) and recorded as at most
 * one node. An argument of a density that is such an expression is then
 * folded into the density's own node. In a vectorised loop the elements
 * are the loop's iterations: slices and gathers of containers by the loop
 * variable are the leaves. */
typedef enum {
  FX_LEAF,       /* e, evaluated as usual: a scalar, or (outside loops) a container */
  FX_SLICE,      /* loops: e[n + sign * off] of a one-dimensional container e
                  * (off NULL: 0) */
  FX_GATHER,     /* loops: e[a] with a an int-valued Fx */
  FX_LOOP_VAR,   /* loops: n */
  FX_ROW_TIMES,  /* loops: e[n + sign * off] * b->e, a row of a matrix times a vector */
  FX_ADD,
  FX_SUB,
  FX_MUL,
  FX_DIV,
  FX_FMA,
  FX_NEG,
} FxKind;

struct Fx {
  FxKind           kind;
  Ex              *e, *off;
  int              sign;
  gboolean         ints;      /* arithmetic of ints: an overflow is the general path's error */
  gboolean         scalar;    /* LEAF: of a scalar type */
  gboolean         data;      /* LEAF: its value depends on no parameter */
  Fx              *a, *b, *c;
  const RtBuiltin *times;     /* ROW_TIMES: the library's product */
};

/* A fused scalar expression (fused.c): real arithmetic and elementary
 * functions of scalars as a short program, each instruction reading
 * earlier ones; run forward for the value and the local partials, then
 * backward over the program for the partials with respect to the leaves,
 * and recorded as one node. The leaves are evaluated as usual, in the
 * order the expression names them. */
#define SX_MAX_LEAVES 8
#define SX_MAX_PROGRAM 24

typedef enum {
  SX_LEAF,
  SX_ADD,
  SX_SUB,
  SX_MUL,
  SX_DIV,
  SX_FMA,
  SX_POW,
  SX_NEG,
  SX_SQUARE,
  SX_SQRT,
  SX_EXP,
  SX_LOG,
  SX_EXPM1,
  SX_INV,
  SX_INV_LOGIT,
} SxOp;

struct Sx {
  SxOp  op;
  guint8 a, b, c;  /* the instructions whose values it reads */
  Ex   *e;         /* LEAF */
};

/* A loop of scalar terms (fused-loop.c): `for (n in lo:hi) target += e;`
 * with e a real expression of scalars, run as one program per iteration
 * (forward for the value and local partials, backward to the leaves)
 * whose instructions that do not depend on n run once before the loop,
 * and recorded as one node over all the iterations. */
#define LX_MAX_PROGRAM 64
#define LX_MAX_OPERANDS 4

typedef enum {
  LX_LEAF,        /* e, not depending on n: evaluated once */
  LX_SLICE,       /* e[n + sign * off] of a one-dimensional container e */
  LX_LOOP_VAR,    /* n */
  LX_ADD,
  LX_SUB,
  LX_MUL,
  LX_DIV,
  LX_FMA,
  LX_POW,
  LX_NEG,
  LX_SQUARE,
  LX_SQRT,
  LX_EXP,
  LX_LOG,
  LX_EXPM1,
  LX_LOG1P,
  LX_LOG1M,
  LX_INV,
  LX_INV_LOGIT,
  LX_LOG_SUM_EXP,
  LX_CHECK_POSITIVE,   /* its operand, once it is > 0 */
  LX_CHECK_UNIT,       /* its operand, once it is in [0, 1] */
  LX_NORMAL,           /* normal_lpdf (y | mu, sigma) from y, mu, 1 / sigma, log sigma */
  LX_LOG_MIX,          /* log_mix (theta, a, b) from a, b, log theta, log1m theta */
  /* normal_lupdf under propto, chosen per evaluation: without the constant;
   * also without log sigma (sigma data); nothing (all of it data) */
  LX_NORMAL_NO_CONST,
  LX_NORMAL_KERNEL,
  LX_NORMAL_NONE,
  /* a local updated by an inner loop, `for (k in lo:hi) x = f (x, k, n);`:
   * its operand is x's value before the loop, f the inner program */
  LX_INNER_LOOP,
  LX_CARRY,            /* in an inner program, x's value before this k; in a
                        * recurrence x[n] = f, x[n - 1] */
} LxOp;

typedef struct LxInner LxInner;

typedef struct {
  LxOp     op;
  guint8   n_args;
  guint8   args[LX_MAX_OPERANDS];  /* the instructions whose values it reads */
  gboolean varies;                 /* depends on n: computed in every iteration */
  gboolean drop;                   /* NORMAL of normal_lupdf: drops constants under propto */
  Ex      *e, *off;                /* LEAF: e; SLICE: e and its offset (NULL: 0) */
  int      sign;
  const LxInner *inner;            /* INNER_LOOP */
} Lx;

/* The inner loop of an INNER_LOOP: its bounds, the slot of its variable
 * (which the program's leaves and offsets read) and the program of the
 * local's new value, whose first instruction is the CARRY and whose
 * leaves are evaluated once for each k. */
struct LxInner {
  Ex       *lo, *hi;
  int       slot;
  const Lx *prog;
  int       n;
  /* x = x + a * s or fma (a, s, x), a not varying and s a slice (a dot
   * product over k): the positions of a and s, and whether fma */
  gboolean  dot, dot_fma;
  int       dot_a, dot_s;
};

/* A compiled function of the functions block: its own frame of slots. */
struct RtFunction {
  const char      *name;
  const TildeType *return_type;
  gboolean         is_density;  /* _lpdf / _lpmf */
  gboolean         has_terms;   /* _lp: adds to the target */
  gboolean         defined;     /* has a body (compiled after every signature) */
  int              n_args;
  const TildeType **arg_types;  /* n_args of them: what tells overloads apart */
  int              n_slots;
  St              *body;
};

struct St {
  StFn           fn;
  const MirStmt *mir;
  Ex            *e, *e2;
  St           **body;
  int            n_body;
  St            *then_s, *else_s;
  int            slot;
  Sz            *sized;
  /* assignments */
  Ex           **lv_index;     /* index expressions of the lvalue */
  MirIndexKind  *lv_kinds;
  int            n_lv_index;
  /* an lvalue with tuple projections (x.2[i].1[j]) in levels: the variable
   * and its indices, then per level the member it projects (from 1) and
   * that level's indices, all indices in lv_index in order */
  int            n_lv_levels;
  int           *lv_proj;
  int           *lv_count;
  gboolean       target_jacobian;
  const char    *name;
  const char    *var_name;
  MirTransformKind tkind;
  Tr            *tr;           /* writing a tuple parameter unconstrained */
  /* a density with fused arguments (and each term of a vectorised loop) */
  const RtBuiltin *builtin;
  gboolean       drop;
  Fx           **fx;
  int            n_fx;
  gboolean       affine_normal;  /* normal (y | a + b * v, sigma): rt_fused_is_affine_normal */
  int            slot2;        /* a covariance's Cholesky factor */
  /* a term of the target: prior or likelihood (a vectorised loop: of all
   * its terms, unless mixed_roles) */
  MirTermRole    role;
  guint64        role_args;
  gboolean       mixed_roles;
  gpointer       gpu;          /* run by an OpenCL kernel (gpu-call.c): its site */
  struct RtNormalStats *normal_stats;  /* by sufficient statistics (normal-stats.c) */
  /* a loop of scalar terms: its program, the last instruction the sum of
   * the terms of an iteration */
  Lx            *lx;
  int            n_lx;
  gboolean       lx_locals;    /* the body also sets locals: never skipped whole */
};

/* The call sites an error names, outermost first. */
#define RT_MAX_CALL_SITES 16

/* What one evaluation works with. */
struct Ev {
  RtCtx               cx;
  TildeValue         *slots;
  /* target */
  double              target_const;
  gint32             *terms;        /* the ad terms' ids */
  guint               n_terms, cap_terms;
  gboolean            jacobian;
  gboolean            in_log_prob;
  /* parameters */
  const TildeValue   *theta;        /* the unconstrained values (ad or data), flat */
  gint32              theta_pos;
  /* outputs */
  double             *out;
  gsize               n_out, cap_out;
  gboolean            emit_tp, emit_gq;
  const TildeJsonData *data;        /* prepare_data reads data, transform_inits inits */
  GPtrArray          *diagnostics;  /* data errors while preparing */
  TildeValue          retval;       /* what a function's return statement gave */
  int                 depth;        /* nested function calls */
  /* Where an error is: the statement running (set by rt_exec) and the
   * statements whose user-function calls led to it, outermost first (the
   * first RT_MAX_CALL_SITES of them). A longjmp leaves both as they were
   * at the raise. */
  const St           *stmt;
  const St           *call_sites[RT_MAX_CALL_SITES];
  TildeModelContext   context;      /* which terms of the target count */
  TildeModelPrintFunc print_func;   /* where print() goes; NULL: standard output */
  gpointer            print_data;
  GMutex             *print_lock;   /* the model's: print calls one at a time */
  guint64             param_args;   /* in a function: the arguments that depend on
                                     * parameters; in log_prob bit 0 */
};

/* Whether the target term `s` counts in the evaluation's context. */
static inline gboolean
rt_term_counts (const Ev *ev, const St *s)
{
  if (G_LIKELY (ev->context == TILDE_MODEL_CONTEXT_JOINT))
    return TRUE;
  gboolean prior = s->role == MIR_TERM_PRIOR
    || (s->role == MIR_TERM_BY_ARGUMENTS && (s->role_args & ev->param_args) != 0);
  return prior == (ev->context == TILDE_MODEL_CONTEXT_PRIOR);
}

/* Compilation */
typedef struct Compiler Compiler;
Compiler *rt_compiler_new    (void);
void      rt_compiler_free   (Compiler *c);
/* Compiles a part; `globals` TRUE keeps its top-level declarations visible
 * to later parts. NULL with `error` set (a function the runtime lacks). */
St       *rt_compile_part    (Compiler *c, GPtrArray *stmts, gboolean globals, gboolean hoist,
                              char **error);
/* What the arguments of calls of _lp functions depend on (owned by the
 * caller, for as long as the compiler compiles). */
void      rt_compiler_set_term_deps (Compiler *c, MirTermDeps *deps);
/* Compiles the functions block (before any part); FALSE with `error` set
 * when a body uses what the runtime lacks. */
gboolean  rt_compile_functions (Compiler *c, GPtrArray *functions, char **error);
Sz       *rt_compile_sized   (Compiler *c, const MirSizedType *t, char **error);
/* Whether compilers made from now on use the fused and vectorised forms
 * (the default); off, every statement runs as written (for tests that
 * compare the two). */
void      rt_compiler_set_fused (gboolean on);
gboolean  rt_compiler_fused     (void);
/* Whether fused normals of an affine location take their one pass (the
 * default); off, they run as the other fused densities (for tests). */
void      rt_compiler_set_affine_normal (gboolean on);
/* The memory of the compiled trees, for whoever keeps them. */
TildeArena *rt_compiler_steal_arena (Compiler *c);
int       rt_compiler_n_slots   (const Compiler *c);
int       rt_compiler_n_globals (const Compiler *c);
/* The data-only expressions of log_prob that may be computed once. */
GPtrArray *rt_compiler_cached (const Compiler *c);
/* The parameter reads whose sizes are data (their shapes may be computed
 * once, with rt_param_shape, into Ex.shape). */
GPtrArray *rt_compiler_param_reads (const Compiler *c);

/* Execution */
Flow        rt_exec        (Ev *ev, const St *s);
void        rt_eval        (Ev *ev, const Ex *e, TildeValue *out);
TildeShape *rt_eval_sized  (Ev *ev, const Sz *sz);
/* The shape of the parameter a read_param expression reads. */
const TildeShape *rt_param_shape (Ev *ev, const Ex *e);
/* Appends the scalars of v in Stan CSV order (column-major over all
 * dimensions). */
void        rt_write_value (Ev *ev, const TildeValue *v);
void        rt_out_push    (Ev *ev, double x);

/* The evaluators (exec.c). */
void rt_ex_const     (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_var       (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_call      (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_cached    (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_ternary   (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_and       (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_or        (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_indexed   (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_promote   (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_proj      (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_flag_tp   (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_flag_gq   (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_read_param (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_length    (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_make_array (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_make_row  (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_make_tuple (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_copy      (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_int_arith  (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_real_arith (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_compare    (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_index1     (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_fma3       (Ev *ev, const Ex *e, TildeValue *out);
void rt_ex_user_call  (Ev *ev, const Ex *e, TildeValue *out);
/* A frame for a call of f, its arguments to be written in the first slots;
 * the call itself (drop: called as _lupdf). `arg_deps` (may be NULL: the
 * caller's roles hold) says, per argument, what it depends on, so that the
 * terms of an _lp function get their prior/likelihood role at this call. */
TildeValue *rt_function_frame (Ev *ev, const RtFunction *f);
void rt_call_function (Ev *ev, const RtFunction *f, TildeValue *frame, gboolean drop,
                       const guint64 *arg_deps, int n_args, TildeValue *out);

Flow rt_st_block     (Ev *ev, const St *s);
Flow rt_st_decl      (Ev *ev, const St *s);
/* A declaration whose value is a parameter read (sizes and constraint are
 * the read's own). */
Flow rt_st_decl_read (Ev *ev, const St *s);
Flow rt_st_assign    (Ev *ev, const St *s);
Flow rt_st_read_data (Ev *ev, const St *s);
Flow rt_st_target    (Ev *ev, const St *s);
Flow rt_st_if        (Ev *ev, const St *s);
Flow rt_st_while     (Ev *ev, const St *s);
Flow rt_st_for       (Ev *ev, const St *s);
Flow rt_st_break     (Ev *ev, const St *s);
Flow rt_st_continue  (Ev *ev, const St *s);
Flow rt_st_return    (Ev *ev, const St *s);
Flow rt_st_skip      (Ev *ev, const St *s);
Flow rt_st_write     (Ev *ev, const St *s);
Flow rt_st_check     (Ev *ev, const St *s);
Flow rt_st_validate  (Ev *ev, const St *s);
/* check_greater_or_equal (what, which, a, b): s->e >= s->e2, else an error
 * naming s->name and s->var_name */
Flow rt_st_check_greater_or_equal (Ev *ev, const St *s);
/* check_matching_dims (function, name, x, which, bound): the dimensions of
 * s->e and s->e2 agree, else an error "s->name (dims) and s->var_name (dims)
 * must match in size" */
Flow rt_st_check_matching_dims (Ev *ev, const St *s);
Flow rt_st_print     (Ev *ev, const St *s);
Flow rt_st_reject    (Ev *ev, const St *s);
Flow rt_st_expr      (Ev *ev, const St *s);
Flow rt_st_return_value (Ev *ev, const St *s);
/* fused.c: `target += density (...)` with fused arguments (s->e is the
 * same statement compiled as usual, for what the fused form does not
 * cover); a loop of such statements run once over all its iterations
 * (s->else_s is the loop compiled as usual, run instead when the
 * vectorised form raises an error, so that errors are the loop's own). */
Flow rt_st_target_fused (Ev *ev, const St *s);
/* `matrix L = cholesky_decompose (K)` keeping K in L's slot and the factor
 * (data) in slot2; `y ~ multi_normal_cholesky (mu, L)` of such an L. */
Flow rt_st_decl_chol    (Ev *ev, const St *s);
Flow rt_st_mvn_cov      (Ev *ev, const St *s);
/* An elementwise expression of containers computed as one node. */
void rt_ex_fused        (Ev *ev, const Ex *e, TildeValue *out);
/* A scalar expression computed as one node. */
void rt_ex_sx           (Ev *ev, const Ex *e, TildeValue *out);
Flow rt_st_for_vector   (Ev *ev, const St *s);
/* fused-loop.c: a loop of scalar terms (s->lx), s->else_s as above. */
Flow rt_st_for_scalars  (Ev *ev, const St *s);
Flow rt_st_for_recurrence (Ev *ev, const St *s);
/* Elements pos .. pos + n - 1 (from 0) of the flat real container t become
 * the variables first .. first + n - 1, t made autodiff if it was data. */
void rt_write_vars (Ev *ev, TildeValue *t, gint32 pos, gint32 n, gint32 first);
/* What a fused attempt may have to undo, and undoing it (the caller then
 * runs the statement as written). */
typedef struct {
  jmp_buf *outer;
  gint32   n_vars;
  guint    n_nodes;
  guint    n_terms;
  double   target_const;
  /* what a user function called inside the attempt changes until it returns */
  TildeValue *slots;
  int         depth;
  const St   *stmt;
  gboolean    propto;
  guint64     param_args;
} RtFusedMark;
void rt_fused_mark   (Ev *ev, RtFusedMark *m);
void rt_fused_rewind (Ev *ev, const RtFusedMark *m);
/* How often, in this process, a fused form gave way to the general one. */
guint rt_fused_fallbacks (void);
/* Whether the fused arguments fx of density `name` read normal (y | b0 *
 * b1 + b2, sigma) with one of b0 and b1 a container (or a gather) and the
 * others scalars (after compile.c's rewrite of a + b * v as an fma): such
 * a statement runs in one pass, the location not stored. */
gboolean rt_fused_is_affine_normal (const char *name, Fx *const *fx);
/* How often, in this process, that pass ran. */
guint rt_fused_affine_normal_runs (void);

/* model.c: the statements and expressions of log_prob in a fused or
 * vectorised form. */
guint rt_model_count_fused (const TildeModel *m);
/* The statements of log_prob computed by sufficient statistics. */
guint rt_model_count_normal_stats (const TildeModel *m);
/* The bytes taken from the arena that lives as long as the model: the
 * transformed data and what preparing them allocated (tests). */
gsize rt_model_persist_bytes (const TildeModel *m);

/* exec.c: the compiled expression of `mir` inside e (NULL if none), and
 * the value of a variable of the data or transformed data blocks that e
 * reads (NULL for anything else), for the forms attached after
 * preparation (gpu-call.c, normal-stats.c). */
const Ex         *rt_ex_find      (const Ex *e, const MirExpr *mir);
const TildeValue *rt_global_value (const Ex *e, const TildeValue *globals, int n_globals);

/* fused.c: not for a fused form; the caller rewinds and runs the statement
 * as written. */
G_GNUC_NORETURN void rt_fused_give_up (Ev *ev);

/* exec.c, for fused.c */
void rt_add_term (Ev *ev, const TildeValue *v);
/* v[lo:hi] along the first dimension (1-based, inclusive). */
TildeValue rt_index_range (Ev *ev, const TildeValue *v, int lo, int hi);

G_END_DECLS
