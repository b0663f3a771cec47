/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The middle intermediate representation (MIR) of a Stan program, after the
 * Stan compiler's (stanc3 src/middle: Program, Stmt, Expr, Index, Fun_kind,
 * Internal_fun, Transformation, SizedType).
 *
 * A program is a set of statement lists (prepare_data, log_prob,
 * generate_quantities, transform_inits) plus the functions and the input and
 * output variables. Every expression carries its unsized type (a hash-consed
 * TildeType), its AD level and the source span it came from; every statement
 * carries its span. Rewrites must keep all three.
 *
 * Ownership is a plain tree: every node owns its children, lists are
 * GPtrArrays that free their elements, and mir_*_free releases a node with
 * everything under it. Names, literal texts and function names are interned
 * (g_intern_string), so they are compared by pointer and never freed. Spans
 * point into the program's TildeSourceSet, which the program keeps alive.
 * Nothing is shared between two nodes, so copying is a deep copy and any
 * subtree may be moved or replaced in place.
 */
#pragma once

#include <glib.h>

#include "syntax/source.h"
#include "semantics/types.h"

G_BEGIN_DECLS

typedef struct MirExpr MirExpr;
typedef struct MirStmt MirStmt;
typedef struct MirIndex MirIndex;
typedef struct MirLvalue MirLvalue;
typedef struct MirSizedType MirSizedType;
typedef struct MirTransform MirTransform;
typedef struct MirInternalData MirInternalData;

/* Struct of arrays (one autodiff object holding a whole matrix) or array of
 * structs (a matrix of autodiff scalars); stanc's Mem_pattern. */
typedef enum {
  MIR_MEM_AOS,
  MIR_MEM_SOA,
} MirMemPattern;

/* ---- transformations (constraints of top-level declarations) ---- */

typedef enum {
  MIR_TRANS_IDENTITY,
  MIR_TRANS_LOWER,              /* a */
  MIR_TRANS_UPPER,              /* a */
  MIR_TRANS_LOWER_UPPER,        /* a, b */
  MIR_TRANS_OFFSET,             /* a */
  MIR_TRANS_MULTIPLIER,         /* a */
  MIR_TRANS_OFFSET_MULTIPLIER,  /* a, b */
  MIR_TRANS_ORDERED,
  MIR_TRANS_POSITIVE_ORDERED,
  MIR_TRANS_SIMPLEX,
  MIR_TRANS_UNIT_VECTOR,
  MIR_TRANS_SUM_TO_ZERO,
  MIR_TRANS_CHOLESKY_CORR,
  MIR_TRANS_CHOLESKY_COV,
  MIR_TRANS_CORRELATION,
  MIR_TRANS_COVARIANCE,
  MIR_TRANS_STOCHASTIC_COLUMN,
  MIR_TRANS_STOCHASTIC_ROW,
  MIR_TRANS_TUPLE,              /* members, one per tuple slot */
} MirTransformKind;

struct MirTransform {
  MirTransformKind kind;
  MirExpr         *a;
  MirExpr         *b;
  GPtrArray       *members;     /* TUPLE: MirTransform* */
};

/* ---- sized types ---- */

typedef enum {
  MIR_SIZED_INT,
  MIR_SIZED_REAL,
  MIR_SIZED_COMPLEX,
  MIR_SIZED_VECTOR,              /* dim1 */
  MIR_SIZED_ROW_VECTOR,          /* dim1 */
  MIR_SIZED_MATRIX,              /* dim1 x dim2 */
  MIR_SIZED_COMPLEX_VECTOR,
  MIR_SIZED_COMPLEX_ROW_VECTOR,
  MIR_SIZED_COMPLEX_MATRIX,
  MIR_SIZED_ARRAY,               /* array[dim1] elem */
  MIR_SIZED_TUPLE,               /* members */
} MirSizedKind;

struct MirSizedType {
  MirSizedKind  kind;
  MirExpr      *dim1;
  MirExpr      *dim2;
  MirSizedType *elem;
  GPtrArray    *members;         /* MirSizedType* */
  MirMemPattern mem;             /* VECTOR, ROW_VECTOR, MATRIX */
};

/* ---- functions ---- */

typedef enum {
  MIR_FUN_STANLIB,     /* a library function or an operator (Plus__, ...) */
  MIR_FUN_COMPILER,    /* a compiler-internal function (FnReadData__, ...) */
  MIR_FUN_USER,        /* a function of the functions block */
} MirFunKind;

/* stanc's Fun_kind.suffix */
typedef enum {
  MIR_SUFFIX_PLAIN,
  MIR_SUFFIX_RNG,
  MIR_SUFFIX_LPDF,
  MIR_SUFFIX_LPMF,
  MIR_SUFFIX_TARGET,     /* _lp */
  MIR_SUFFIX_JACOBIAN,   /* _jacobian */
} MirSuffix;

/* stanc's Internal_fun */
typedef enum {
  MIR_FN_LENGTH,
  MIR_FN_MAKE_ARRAY,
  MIR_FN_MAKE_ROW_VEC,
  MIR_FN_MAKE_TUPLE,
  MIR_FN_NEG_INF,
  MIR_FN_READ_DATA,
  MIR_FN_READ_DATA_SERIALIZER,
  MIR_FN_READ_PARAM,         /* data: constrain, dims, mem */
  MIR_FN_WRITE_PARAM,        /* data: unconstrain (may be NULL), var */
  MIR_FN_VALIDATE_SIZE,
  MIR_FN_VALIDATE_SIZE_SIMPLEX,
  MIR_FN_VALIDATE_SIZE_UNIT_VECTOR,
  MIR_FN_CHECK,              /* data: trans, var_name, var */
  MIR_FN_CONSTRAIN,          /* data: trans, jacobian */
  MIR_FN_UNCONSTRAIN,        /* data: trans */
  MIR_FN_PRINT,
  MIR_FN_REJECT,
  MIR_FN_FATAL_ERROR,
  MIR_FN_RESIZE_TO_MATCH,
  MIR_FN_NAN,
  MIR_FN_DEEP_COPY,
  MIR_N_INTERNALS
} MirInternal;

/* The arguments some internal functions carry besides their call arguments. */
struct MirInternalData {
  MirTransform *trans;        /* READ_PARAM (constrain), WRITE_PARAM (unconstrain,
                               * NULL: write as is), CHECK, CONSTRAIN, UNCONSTRAIN */
  GPtrArray    *dims;         /* READ_PARAM: MirExpr* */
  MirMemPattern mem;          /* READ_PARAM */
  MirExpr      *var;          /* WRITE_PARAM, CHECK */
  const char   *var_name;     /* CHECK: the checked expression as printed; interned */
  gboolean      jacobian;     /* CONSTRAIN: add the log Jacobian to the target */
};

typedef struct {
  MirFunKind       kind;
  const char      *name;      /* STANLIB, USER; interned */
  MirSuffix        suffix;    /* STANLIB, USER */
  gboolean         propto;    /* LPDF/LPMF: the unnormalised (_lupdf/_lupmf) form */
  gboolean         rewritten; /* STANLIB: a density the optimiser wrote for another (a GLM
                               * for the density of its linear predictor), which under
                               * propto keeps the constants of the one it stands for */
  MirMemPattern    mem;       /* STANLIB */
  MirInternal      internal;  /* COMPILER */
  MirInternalData *data;      /* COMPILER: READ_PARAM, WRITE_PARAM, CHECK, (UN)CONSTRAIN */
} MirFun;

/* ---- indices ---- */

typedef enum {
  MIR_INDEX_ALL,        /* [:] */
  MIR_INDEX_SINGLE,     /* [e] */
  MIR_INDEX_UPFROM,     /* [e:] */
  MIR_INDEX_BETWEEN,    /* [e:upper]; [:e] is lowered to [1:e] */
  MIR_INDEX_MULTI,      /* [e] with e an int array */
} MirIndexKind;

struct MirIndex {
  MirIndexKind kind;
  MirExpr     *e;        /* SINGLE, UPFROM, MULTI, BETWEEN (lower) */
  MirExpr     *upper;    /* BETWEEN */
};

/* ---- expressions ---- */

typedef enum {
  MIR_EXPR_VAR,
  MIR_EXPR_LIT,
  MIR_EXPR_CALL,         /* FunApp */
  MIR_EXPR_TERNARY,
  MIR_EXPR_AND,          /* && (short-circuit) */
  MIR_EXPR_OR,           /* || (short-circuit) */
  MIR_EXPR_INDEXED,
  MIR_EXPR_PROMOTION,
  MIR_EXPR_TUPLE_PROJ,
  MIR_N_EXPR_KINDS
} MirExprKind;

typedef enum {
  MIR_LIT_INT,
  MIR_LIT_REAL,
  MIR_LIT_IMAGINARY,     /* text without the trailing i */
  MIR_LIT_STRING,        /* text without quotes, escapes kept as written */
} MirLitKind;

struct MirExpr {
  MirExprKind      kind;
  const TildeType *type;
  TildeAdLevel     ad_level;
  TildeSpan        span;
  union {
    struct { const char *name; } var;
    struct { MirLitKind kind; const char *text; } lit;
    struct { MirFun fun; GPtrArray *args; } call;             /* args: MirExpr* */
    struct { MirExpr *cond, *if_true, *if_false; } ternary;
    struct { MirExpr *lhs, *rhs; } logical;                    /* AND, OR */
    struct { MirExpr *base; GPtrArray *indices; } indexed;     /* MirIndex* */
    struct { MirExpr *expr; const TildeType *to; TildeAdLevel ad; } promotion;
    struct { MirExpr *base; int slot; } proj;                  /* slot from 1 */
  } u;
};

/* ---- statements ---- */

typedef enum {
  MIR_STMT_ASSIGN,
  MIR_STMT_TARGET_PLUS,
  MIR_STMT_JACOBIAN_PLUS,
  MIR_STMT_NR_CALL,      /* NRFunApp */
  MIR_STMT_BREAK,
  MIR_STMT_CONTINUE,
  MIR_STMT_RETURN,
  MIR_STMT_SKIP,
  MIR_STMT_IF,
  MIR_STMT_WHILE,
  MIR_STMT_FOR,
  MIR_STMT_PROFILE,
  MIR_STMT_BLOCK,        /* a scope */
  MIR_STMT_SLIST,        /* a sequence that is not a scope */
  MIR_STMT_DECL,
  MIR_N_STMT_KINDS
} MirStmtKind;

/* x, x[i, j], x.2, x.2[i].1[j]: a variable, tuple projections, indices. */
struct MirLvalue {
  const char      *var;        /* the variable, when proj_of is NULL */
  MirLvalue       *proj_of;    /* a tuple projection: proj_of.slot */
  int              slot;
  GPtrArray       *indices;    /* MirIndex*, possibly empty */
  const TildeType *type;       /* of the lvalue before its own indices */
  TildeAdLevel     ad_level;
  TildeSpan        span;
};

/* Whether a `target +=` term belongs to the prior or the likelihood
 * (mir-terms.h says how it is decided). */
typedef enum {
  MIR_TERM_PRIOR,          /* the variate depends on parameters */
  MIR_TERM_LIKELIHOOD,     /* the variate is data */
  MIR_TERM_BY_ARGUMENTS,   /* in a function: prior when one of the arguments in
                            * role_args depends on parameters at the call */
} MirTermRole;

typedef enum {
  MIR_DECL_DEFAULT,      /* default-initialised (NaN / minimum int) */
  MIR_DECL_UNINIT,       /* left uninitialised (assigned right after) */
  MIR_DECL_ASSIGN,       /* initialised with `init` */
} MirDeclInit;

/* @gpu, @inline, @extern, @silent, and any other name, as written. */
typedef struct {
  const char **names;    /* interned */
  guint        n;
} MirAnnotations;

struct MirStmt {
  MirStmtKind kind;
  TildeSpan   span;
  union {
    struct { MirLvalue *lhs; MirExpr *rhs; } assign;
    /* TARGET_PLUS, JACOBIAN_PLUS */
    struct {
      MirExpr    *expr;
      gboolean    from_tilde;
      MirTermRole role;
      guint64     role_args;   /* BY_ARGUMENTS: bit i for argument i (63: any later one) */
    } increment;
    struct { MirFun fun; GPtrArray *args; } call;
    struct { MirExpr *expr; } ret;                             /* expr may be NULL */
    struct { MirExpr *cond; MirStmt *then_stmt, *else_stmt; } if_stmt;  /* else may be NULL */
    struct { MirExpr *cond; MirStmt *body; } while_stmt;
    struct { const char *var; MirExpr *lower, *upper; MirStmt *body; } for_stmt;
    struct { const char *name; GPtrArray *stmts; } profile;    /* name without quotes */
    struct { GPtrArray *stmts; } block;                        /* BLOCK, SLIST */
    struct {
      const char      *name;
      const TildeType *type;       /* unsized */
      MirSizedType    *sized;      /* NULL for an unsized declaration */
      TildeAdLevel     ad;
      MirDeclInit      init_kind;
      MirExpr         *init;       /* ASSIGN */
      MirAnnotations   annotations;
    } decl;
  } u;
};

/* ---- programs ---- */

typedef struct {
  TildeAdLevel     ad;        /* DATA for a `data` argument */
  const char      *name;
  const TildeType *type;
} MirFunArg;

typedef struct {
  const char      *name;
  const TildeType *return_type;  /* tilde_type_void () for void */
  MirSuffix        suffix;
  GArray          *args;         /* MirFunArg */
  MirStmt         *body;         /* NULL: defined outside the program (@extern) */
  TildeSpan        span;
  MirAnnotations   annotations;
} MirFunDef;

typedef struct {
  const char     *name;
  MirSizedType   *type;
  TildeSpan       span;
  MirAnnotations  annotations;
} MirInputVar;

typedef enum {
  MIR_OUT_PARAMETERS,
  MIR_OUT_TRANSFORMED_PARAMETERS,
  MIR_OUT_GENERATED_QUANTITIES,
} MirOutBlock;

typedef struct {
  const char    *name;
  MirSizedType  *constrained;
  MirSizedType  *unconstrained;
  MirOutBlock    block;
  MirTransform  *trans;
  TildeSpan      span;
} MirOutputVar;

typedef enum {
  MIR_PART_PREPARE_DATA,
  MIR_PART_LOG_PROB,
  MIR_PART_GENERATE_QUANTITIES,
  MIR_PART_TRANSFORM_INITS,
  MIR_N_PARTS
} MirPart;

typedef struct {
  char           *name;        /* the model's name, "<file>_model" */
  char           *path;        /* the main file as given */
  TildeSourceSet *sources;     /* keeps the spans' files alive; may be NULL */
  GPtrArray      *functions;   /* MirFunDef* */
  GPtrArray      *input_vars;  /* MirInputVar* */
  GPtrArray      *parts[MIR_N_PARTS];  /* MirStmt* each */
  GPtrArray      *output_vars; /* MirOutputVar* */
  gboolean        transformed; /* after mir_transform_program () */
} MirProgram;

/* ---- constructors ---- */

/* Each takes ownership of the nodes and arrays passed to it. `args` and
 * `indices`/`stmts` may be NULL for an empty list. */
MirExpr   *mir_expr_var        (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, const char *name);
MirExpr   *mir_expr_lit        (const TildeSpan *span, const TildeType *type,
                                MirLitKind kind, const char *text);
MirExpr   *mir_expr_int        (const TildeSpan *span, gint64 value);
MirExpr   *mir_expr_string     (const TildeSpan *span, const char *text);
MirExpr   *mir_expr_call       (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, MirFun fun, GPtrArray *args);
/* A call of a library function or an operator function (FnPlain, AoS). */
MirExpr   *mir_expr_stanlib    (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, const char *name, GPtrArray *args);
MirExpr   *mir_expr_internal   (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, MirInternal fn, MirInternalData *data,
                                GPtrArray *args);
MirExpr   *mir_expr_ternary    (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, MirExpr *cond, MirExpr *t, MirExpr *f);
MirExpr   *mir_expr_logical    (const TildeSpan *span, MirExprKind and_or,
                                TildeAdLevel ad, MirExpr *lhs, MirExpr *rhs);
MirExpr   *mir_expr_indexed    (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, MirExpr *base, GPtrArray *indices);
MirExpr   *mir_expr_promotion  (MirExpr *expr, const TildeType *to, TildeAdLevel ad);
MirExpr   *mir_expr_tuple_proj (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, MirExpr *base, int slot);
/* Lists of expressions: a GPtrArray that frees its elements. */
GPtrArray *mir_expr_list_new   (void);
GPtrArray *mir_expr_list_of    (MirExpr *first, ...) G_GNUC_NULL_TERMINATED;

MirIndex  *mir_index_new       (MirIndexKind kind, MirExpr *e, MirExpr *upper);
GPtrArray *mir_index_list_new  (void);

MirFun     mir_fun_stanlib     (const char *name, MirSuffix suffix, gboolean propto);
MirFun     mir_fun_user        (const char *name, MirSuffix suffix, gboolean propto);
MirFun     mir_fun_internal    (MirInternal fn, MirInternalData *data);
MirInternalData *mir_internal_data_new (void);

MirTransform *mir_transform_new (MirTransformKind kind, MirExpr *a, MirExpr *b);
MirSizedType *mir_sized_new     (MirSizedKind kind, MirExpr *dim1, MirExpr *dim2);
MirSizedType *mir_sized_array   (MirSizedType *elem, MirExpr *size);
MirSizedType *mir_sized_tuple   (GPtrArray *members);

MirLvalue *mir_lvalue_var      (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, const char *var, GPtrArray *indices);
MirLvalue *mir_lvalue_proj     (const TildeSpan *span, const TildeType *type,
                                TildeAdLevel ad, MirLvalue *of, int slot,
                                GPtrArray *indices);

MirStmt   *mir_stmt_new        (MirStmtKind kind, const TildeSpan *span);
MirStmt   *mir_stmt_assign     (const TildeSpan *span, MirLvalue *lhs, MirExpr *rhs);
/* x = rhs for a plain variable x of rhs's type. */
MirStmt   *mir_stmt_assign_var (const TildeSpan *span, const char *var, MirExpr *rhs);
MirStmt   *mir_stmt_target     (const TildeSpan *span, MirExpr *expr, gboolean from_tilde,
                                MirTermRole role);
MirStmt   *mir_stmt_jacobian   (const TildeSpan *span, MirExpr *expr);
MirStmt   *mir_stmt_nr_call    (const TildeSpan *span, MirFun fun, GPtrArray *args);
MirStmt   *mir_stmt_return     (const TildeSpan *span, MirExpr *expr);
MirStmt   *mir_stmt_if         (const TildeSpan *span, MirExpr *cond, MirStmt *then_stmt,
                                MirStmt *else_stmt);
MirStmt   *mir_stmt_while      (const TildeSpan *span, MirExpr *cond, MirStmt *body);
MirStmt   *mir_stmt_for        (const TildeSpan *span, const char *var, MirExpr *lower,
                                MirExpr *upper, MirStmt *body);
MirStmt   *mir_stmt_profile    (const TildeSpan *span, const char *name, GPtrArray *stmts);
MirStmt   *mir_stmt_block      (const TildeSpan *span, GPtrArray *stmts);
MirStmt   *mir_stmt_slist      (const TildeSpan *span, GPtrArray *stmts);
MirStmt   *mir_stmt_decl       (const TildeSpan *span, const char *name,
                                const TildeType *type, MirSizedType *sized,
                                TildeAdLevel ad, MirDeclInit init_kind, MirExpr *init);
/* Lists of statements: a GPtrArray that frees its elements. */
GPtrArray *mir_stmt_list_new   (void);

MirProgram *mir_program_new    (const char *name, const char *path, TildeSourceSet *sources);

void       mir_annotations_set (MirAnnotations *a, const char *const *names, guint n);
void       mir_annotations_add (MirAnnotations *a, const char *name);
gboolean   mir_annotations_has (const MirAnnotations *a, const char *name);

/* ---- freeing, copying, comparing ---- */

void          mir_expr_free         (MirExpr *e);
void          mir_stmt_free         (MirStmt *s);
void          mir_index_free        (MirIndex *i);
void          mir_lvalue_free       (MirLvalue *l);
void          mir_transform_free    (MirTransform *t);
void          mir_sized_free        (MirSizedType *t);
void          mir_internal_data_free (MirInternalData *d);
void          mir_fun_clear         (MirFun *f);
void          mir_program_free      (MirProgram *p);

MirExpr      *mir_expr_copy         (const MirExpr *e);
MirStmt      *mir_stmt_copy         (const MirStmt *s);
MirIndex     *mir_index_copy        (const MirIndex *i);
MirLvalue    *mir_lvalue_copy       (const MirLvalue *l);
MirTransform *mir_transform_copy    (const MirTransform *t);
MirSizedType *mir_sized_copy        (const MirSizedType *t);
MirFun        mir_fun_copy          (const MirFun *f);
GPtrArray    *mir_expr_list_copy    (const GPtrArray *list);
GPtrArray    *mir_stmt_list_copy    (const GPtrArray *list);
MirProgram   *mir_program_copy      (const MirProgram *p);

/* Structural equality: kinds, names, literals, types, AD levels, flags and
 * children. Spans are ignored (a rewritten node compares equal to the node
 * it replaced when it means the same). */
gboolean      mir_expr_equal        (const MirExpr *a, const MirExpr *b);
gboolean      mir_stmt_equal        (const MirStmt *a, const MirStmt *b);
gboolean      mir_lvalue_equal      (const MirLvalue *a, const MirLvalue *b);
gboolean      mir_transform_equal   (const MirTransform *a, const MirTransform *b);
gboolean      mir_sized_equal       (const MirSizedType *a, const MirSizedType *b);
gboolean      mir_fun_equal         (const MirFun *a, const MirFun *b);
gboolean      mir_program_equal     (const MirProgram *a, const MirProgram *b);

/* ---- traversal ---- */

/* Calls `visit` on each direct child statement of `s` (bodies, branches, list
 * elements), in order. */
typedef void (*MirStmtVisitor) (MirStmt *child, gpointer user_data);
void mir_stmt_foreach_child (MirStmt *s, MirStmtVisitor visit, gpointer user_data);

/* Calls `visit` on each expression held directly by `s` (not those inside
 * child statements): right-hand sides, conditions, bounds, call arguments,
 * lvalue indices, declaration sizes and initial values. */
typedef void (*MirExprVisitor) (MirExpr *e, gpointer user_data);
void mir_stmt_foreach_expr  (MirStmt *s, MirExprVisitor visit, gpointer user_data);
/* Calls `visit` on each direct subexpression of `e` (arguments, operands,
 * indices, the payload of internal functions). */
void mir_expr_foreach_child (MirExpr *e, MirExprVisitor visit, gpointer user_data);

/* Depth-first, parents before children: every statement of the tree. */
void mir_stmt_walk          (MirStmt *s, MirStmtVisitor visit, gpointer user_data);
/* Every statement of every part and every function body of `p`. */
void mir_program_walk_stmts (MirProgram *p, MirStmtVisitor visit, gpointer user_data);

/* Rewrites bottom-up: every subexpression of `e` is replaced by f(child),
 * then `e` itself by f(e). `f` receives ownership of its argument and
 * returns the node to put in its place (the same one to keep it). */
typedef MirExpr *(*MirExprMapper) (MirExpr *e, gpointer user_data);
MirExpr *mir_expr_map        (MirExpr *e, MirExprMapper f, gpointer user_data);
/* Applies mir_expr_map with `f` to every expression held by `s` and its
 * child statements. */
void     mir_stmt_map_exprs  (MirStmt *s, MirExprMapper f, gpointer user_data);

/* ---- helpers ---- */

/* The unsized type of a sized type. */
const TildeType *mir_sized_to_type (const MirSizedType *t);
/* The type of `type` indexed by `indices` (stanc's infer_type_of_indexed). */
const TildeType *mir_indexed_type  (const TildeType *type, const GPtrArray *indices);
/* stanc's names: "Plus__", "FnReadData__" without the payload, "Lower". */
const char *mir_internal_name      (MirInternal fn);
const char *mir_transform_kind_name (MirTransformKind kind);
const char *mir_expr_kind_name     (MirExprKind kind);
const char *mir_stmt_kind_name     (MirStmtKind kind);
const char *mir_part_name          (MirPart part);   /* "prepare_data", ... */
/* stanc's operator functions: "Plus__" gives "+", "PMinus__" "-",
 * "Transpose__" "'"; NULL when `name` is not an operator's. */
const char *mir_operator_symbol    (const char *name);
/* The variable an lvalue assigns to. */
const char *mir_lvalue_variable    (const MirLvalue *l);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MirProgram, mir_program_free)

G_END_DECLS
