/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The abstract syntax tree of a Stan program.
 *
 * Every node lives in the program's arena and carries the span it was parsed
 * from. Identifiers are interned with g_intern_string(), so two names are the
 * same name exactly when the pointers are equal. Lists are an array plus a
 * count. Nothing here is ever freed on its own: tilde_program_free() drops
 * the whole tree at once.
 *
 * The tree keeps what was written (the keyword of a constrained type, the
 * text of a literal, parentheses, the order of bounds is the only thing
 * normalised) so that diagnostics and the formatter can show it back. The
 * type checker fills the slots marked "filled by the type checker".
 */
#pragma once

#include <glib.h>

#include "tilde-arena.h"
#include "source.h"
#include "lexer.h"

G_BEGIN_DECLS

struct TildeType;   /* engine/semantics/types.h */

typedef struct TildeExpr TildeExpr;
typedef struct TildeStmt TildeStmt;
typedef struct TildeSizedType TildeSizedType;
typedef struct TildeUnsizedType TildeUnsizedType;

typedef struct {
  const char *name;   /* interned */
  TildeSpan   span;
} TildeIdent;

/* ---- expressions ---- */

typedef enum {
  TILDE_EXPR_ERROR,        /* stands in for what a syntax error left unparsed */
  TILDE_EXPR_VARIABLE,
  TILDE_EXPR_INT,
  TILDE_EXPR_REAL,
  TILDE_EXPR_IMAG,         /* text without the trailing 'i' */
  TILDE_EXPR_STRING,       /* only in print/reject/fatal_error; text with quotes */
  TILDE_EXPR_BINARY,
  TILDE_EXPR_PREFIX,
  TILDE_EXPR_TRANSPOSE,    /* postfix ' */
  TILDE_EXPR_TERNARY,
  TILDE_EXPR_CALL,         /* f(a, b) */
  TILDE_EXPR_COND_CALL,    /* f(y | a, b); also f_lpdf(y) with one argument */
  TILDE_EXPR_TARGET,       /* target() */
  TILDE_EXPR_INDEXED,
  TILDE_EXPR_TUPLE_PROJ,   /* x.1 */
  TILDE_EXPR_ARRAY,        /* { a, b } */
  TILDE_EXPR_ROW_VECTOR,   /* [ a, b ] */
  TILDE_EXPR_TUPLE,        /* ( a, b ) */
  TILDE_EXPR_PAREN,        /* ( a ) */
} TildeExprKind;

/* In order of increasing precedence groups, as in stanc's grammar. */
typedef enum {
  TILDE_OP_OR,
  TILDE_OP_AND,
  TILDE_OP_EQUALS, TILDE_OP_NEQUALS,
  TILDE_OP_LESS, TILDE_OP_LEQ, TILDE_OP_GREATER, TILDE_OP_GEQ,
  TILDE_OP_PLUS, TILDE_OP_MINUS,
  TILDE_OP_TIMES, TILDE_OP_DIVIDE, TILDE_OP_MODULO, TILDE_OP_ELT_TIMES, TILDE_OP_ELT_DIVIDE,
  TILDE_OP_IDIVIDE, TILDE_OP_LDIVIDE,
  TILDE_OP_POW, TILDE_OP_ELT_POW,
} TildeBinaryOp;

typedef enum {
  TILDE_OP_NOT,
  TILDE_OP_NEGATE,
  TILDE_OP_PROMOTE,   /* unary + */
} TildePrefixOp;

typedef enum {
  TILDE_INDEX_ALL,       /* [:] or an empty slot */
  TILDE_INDEX_SINGLE,    /* [e] (a multi-index when e is an int array) */
  TILDE_INDEX_UPFROM,    /* [e:] */
  TILDE_INDEX_DOWNFROM,  /* [:e] */
  TILDE_INDEX_BETWEEN,   /* [a:b] */
} TildeIndexKind;

typedef struct {
  TildeIndexKind kind;
  TildeExpr     *lower;   /* SINGLE, UPFROM, BETWEEN */
  TildeExpr     *upper;   /* DOWNFROM, BETWEEN */
  TildeSpan      span;
} TildeIndex;

struct TildeExpr {
  TildeExprKind           kind;
  TildeSpan               span;
  const struct TildeType *type;      /* filled by the type checker */
  int                     ad_level;  /* filled by the type checker */
  union {
    struct { const char *name; gpointer decl; } variable;  /* decl: filled by the type checker */
    struct { const char *text; } literal;
    struct { TildeBinaryOp op; TildeExpr *lhs, *rhs; } binary;
    struct { TildePrefixOp op; TildeExpr *operand; } prefix;
    struct { TildeExpr *operand; } transpose;
    struct { TildeExpr *cond, *if_true, *if_false; } ternary;
    /* CALL and COND_CALL; for COND_CALL args[0] is the variate before "|".
     * decl: the called user function, filled by the type checker. */
    struct { TildeIdent name; TildeExpr **args; int n_args; gpointer decl; } call;
    struct { TildeExpr *base; TildeIndex *indices; int n_indices; } indexed;
    struct { TildeExpr *base; int slot; const char *text; } proj;   /* slot counts from 1 */
    struct { TildeExpr **items; int n_items; } list;    /* ARRAY, ROW_VECTOR, TUPLE */
    struct { TildeExpr *inner; } paren;
  } u;
};

/* ---- types ---- */

/* The type keyword as written in a declaration. */
typedef enum {
  TILDE_DECL_INT,
  TILDE_DECL_REAL,
  TILDE_DECL_COMPLEX,
  TILDE_DECL_VECTOR,
  TILDE_DECL_ROW_VECTOR,
  TILDE_DECL_MATRIX,
  TILDE_DECL_COMPLEX_VECTOR,
  TILDE_DECL_COMPLEX_ROW_VECTOR,
  TILDE_DECL_COMPLEX_MATRIX,
  TILDE_DECL_ORDERED,
  TILDE_DECL_POSITIVE_ORDERED,
  TILDE_DECL_SIMPLEX,
  TILDE_DECL_UNIT_VECTOR,
  TILDE_DECL_SUM_TO_ZERO_VECTOR,
  TILDE_DECL_SUM_TO_ZERO_MATRIX,
  TILDE_DECL_CHOLESKY_FACTOR_CORR,
  TILDE_DECL_CHOLESKY_FACTOR_COV,
  TILDE_DECL_CORR_MATRIX,
  TILDE_DECL_COV_MATRIX,
  TILDE_DECL_COLUMN_STOCHASTIC_MATRIX,
  TILDE_DECL_ROW_STOCHASTIC_MATRIX,
  TILDE_DECL_ARRAY,
  TILDE_DECL_TUPLE,
} TildeDeclTypeKind;

/* <lower=, upper=> and <offset=, multiplier=>; absent parts are NULL. */
typedef struct {
  TildeExpr *lower;
  TildeExpr *upper;
  TildeExpr *offset;
  TildeExpr *multiplier;
} TildeBounds;

struct TildeSizedType {
  TildeDeclTypeKind kind;
  TildeSpan         span;
  /* Sizes as written: vector-like types use size1; matrix-like types use
   * size1 and size2; cholesky_factor_cov[M] leaves size2 NULL; the square
   * types (corr_matrix[K], ...) use size1 only. */
  TildeExpr        *size1;
  TildeExpr        *size2;
  TildeBounds       bounds;        /* int, real, complex, vector, row_vector, matrix... */
  /* ARRAY: dims and the element type (never itself an array). */
  TildeExpr       **dims;
  int               n_dims;
  TildeSizedType   *element;
  /* TUPLE: the element types. */
  TildeSizedType  **elements;
  int               n_elements;
};

typedef enum {
  TILDE_UTYPE_INT,
  TILDE_UTYPE_REAL,
  TILDE_UTYPE_COMPLEX,
  TILDE_UTYPE_VECTOR,
  TILDE_UTYPE_ROW_VECTOR,
  TILDE_UTYPE_MATRIX,
  TILDE_UTYPE_COMPLEX_VECTOR,
  TILDE_UTYPE_COMPLEX_ROW_VECTOR,
  TILDE_UTYPE_COMPLEX_MATRIX,
  TILDE_UTYPE_ARRAY,
  TILDE_UTYPE_TUPLE,
  TILDE_UTYPE_VOID,     /* only as a return type */
} TildeUnsizedTypeKind;

struct TildeUnsizedType {
  TildeUnsizedTypeKind kind;
  TildeSpan            span;
  int                  n_dims;      /* ARRAY: array[,,] has 3 */
  TildeUnsizedType    *element;     /* ARRAY */
  TildeUnsizedType   **elements;    /* TUPLE */
  int                  n_elements;
};

/* ---- statements ---- */

typedef struct {
  TildeIdent  name;
  TildeExpr **args;
  int         n_args;
  gboolean    has_parens;   /* @name() rather than @name */
  TildeSpan   span;
} TildeAnnotation;

typedef struct {
  TildeIdent              ident;
  TildeExpr              *init;          /* NULL when there is no initialiser */
  const struct TildeType *checked_type;  /* filled by the type checker */
} TildeVarDeclItem;

typedef struct {
  gboolean                data_only;
  TildeUnsizedType       *type;
  TildeIdent              ident;
  TildeSpan               span;
  const struct TildeType *checked_type;  /* filled by the type checker */
} TildeFunArg;

typedef enum {
  TILDE_STMT_ERROR,          /* what a syntax error left unparsed */
  TILDE_STMT_VAR_DECL,
  TILDE_STMT_FUN_DEF,
  TILDE_STMT_ASSIGN,
  TILDE_STMT_TILDE,
  TILDE_STMT_TARGET_PLUS,    /* target += e; */
  TILDE_STMT_JACOBIAN_PLUS,  /* jacobian += e; */
  TILDE_STMT_CALL,           /* f(a, b); */
  TILDE_STMT_PRINT,
  TILDE_STMT_REJECT,
  TILDE_STMT_FATAL_ERROR,
  TILDE_STMT_BREAK,
  TILDE_STMT_CONTINUE,
  TILDE_STMT_RETURN,         /* expr may be NULL */
  TILDE_STMT_IF,
  TILDE_STMT_WHILE,
  TILDE_STMT_FOR,            /* for (i in a:b) */
  TILDE_STMT_FOREACH,        /* for (x in container) */
  TILDE_STMT_PROFILE,
  TILDE_STMT_BLOCK,
  TILDE_STMT_SKIP,           /* ; */
} TildeStmtKind;

typedef enum {
  TILDE_ASSIGN_PLAIN,        /* = */
  TILDE_ASSIGN_PLUS,         /* += */
  TILDE_ASSIGN_MINUS,
  TILDE_ASSIGN_TIMES,
  TILDE_ASSIGN_DIVIDE,
  TILDE_ASSIGN_ELT_TIMES,
  TILDE_ASSIGN_ELT_DIVIDE,
} TildeAssignOp;

typedef enum {
  TILDE_TRUNCATE_NONE,
  TILDE_TRUNCATE_LOWER,      /* T[lo, ] */
  TILDE_TRUNCATE_UPPER,      /* T[, hi] */
  TILDE_TRUNCATE_BOTH,       /* T[lo, hi] */
} TildeTruncation;

struct TildeStmt {
  TildeStmtKind kind;
  TildeSpan     span;
  union {
    struct {
      TildeAnnotation  *annotations;
      int               n_annotations;
      TildeSizedType   *type;
      TildeVarDeclItem *items;
      int               n_items;
      gboolean          is_global;   /* a top-level declaration of a block */
    } var_decl;
    struct {
      TildeAnnotation  *annotations;
      int               n_annotations;
      TildeUnsizedType *return_type;  /* kind TILDE_UTYPE_VOID for void */
      TildeIdent        name;
      TildeFunArg      *args;
      int               n_args;
      TildeStmt        *body;         /* NULL for a forward declaration */
    } fun_def;
    /* lhs is a variable, an indexed lvalue, a tuple projection of an lvalue
     * or a tuple of lvalues (unpacking); the parser checks this. */
    struct { TildeExpr *lhs; TildeAssignOp op; TildeExpr *rhs; } assign;
    struct {
      TildeExpr      *arg;
      TildeIdent      distribution;
      TildeExpr     **args;
      int             n_args;
      TildeTruncation truncation;
      TildeExpr      *trunc_lower;
      TildeExpr      *trunc_upper;
      gpointer        decl;           /* filled by the type checker */
    } tilde;
    /* TARGET_PLUS, JACOBIAN_PLUS; for the latter, `variable` is the word
     * jacobian as a variable, which the checker assigns to instead when a
     * variable of that name is in scope (as stanc 2.36 does) */
    struct { TildeExpr *expr; TildeExpr *variable; } increment;
    struct { TildeIdent name; TildeExpr **args; int n_args; gpointer decl; } call;
    struct { TildeExpr **items; int n_items; } printables;  /* PRINT, REJECT, FATAL_ERROR */
    struct { TildeExpr *expr; } ret;
    struct { TildeExpr *cond; TildeStmt *then_stmt; TildeStmt *else_stmt; } if_stmt;
    struct { TildeExpr *cond; TildeStmt *body; } while_stmt;
    struct { TildeIdent var; TildeExpr *lower; TildeExpr *upper; TildeStmt *body; } for_stmt;
    struct { TildeIdent var; TildeExpr *container; TildeStmt *body; } foreach_stmt;
    struct { const char *name; TildeSpan name_span; TildeStmt **stmts; int n_stmts; } profile;
    struct { TildeStmt **stmts; int n_stmts; } block;
  } u;
};

/* ---- programs ---- */

typedef enum {
  TILDE_BLOCK_FUNCTIONS,
  TILDE_BLOCK_DATA,
  TILDE_BLOCK_TRANSFORMED_DATA,
  TILDE_BLOCK_PARAMETERS,
  TILDE_BLOCK_TRANSFORMED_PARAMETERS,
  TILDE_BLOCK_MODEL,
  TILDE_BLOCK_GENERATED_QUANTITIES,
  TILDE_N_BLOCKS
} TildeBlockKind;

typedef struct {
  TildeBlockKind kind;
  TildeSpan      span;     /* from the header keyword to the closing brace */
  TildeStmt    **stmts;
  int            n_stmts;
} TildeBlock;

typedef struct {
  TildeArena      *arena;
  TildeSourceSet  *sources;
  TildeBlock      *blocks[TILDE_N_BLOCKS];   /* NULL when the block is absent */
  gboolean         functions_only;           /* parsed as a .stanfunctions file */
  TildeComment    *comments;                 /* in source order, every inclusion */
  int              n_comments;
} TildeProgram;

void        tilde_program_free (TildeProgram *program);

/* "functions", "transformed data", ... */
const char *tilde_block_kind_to_string (TildeBlockKind kind);
/* "||", "+", ".^", ... */
const char *tilde_binary_op_to_string (TildeBinaryOp op);
const char *tilde_prefix_op_to_string (TildePrefixOp op);
const char *tilde_assign_op_to_string (TildeAssignOp op);
/* "vector", "cholesky_factor_cov", "array", ... */
const char *tilde_decl_type_kind_to_string (TildeDeclTypeKind kind);
const char *tilde_unsized_type_kind_to_string (TildeUnsizedTypeKind kind);
const char *tilde_stmt_kind_to_string (TildeStmtKind kind);
const char *tilde_expr_kind_to_string (TildeExprKind kind);

/* TRUE for the types whose declaration carries a transform of its own
 * (simplex, ordered, cholesky_factor_corr, ...). */
gboolean    tilde_decl_type_kind_is_constrained (TildeDeclTypeKind kind);

/* Structural equality that ignores spans and the checker's slots, and treats
 * `real a, b;` like `real a; real b;` (the formatter splits declarations). */
gboolean    tilde_program_equal (const TildeProgram *a, const TildeProgram *b);
gboolean    tilde_expr_equal    (const TildeExpr *a, const TildeExpr *b);
/* The number the text of an int, real or imaginary literal stands for (the
 * imaginary one without its i); Stan lets underscores separate the digits
 * (1_000_000), which g_ascii_strtod alone would stop at. */
double      tilde_literal_value (const char *text);
gboolean    tilde_stmt_equal    (const TildeStmt *a, const TildeStmt *b);

/* Calls `visit` on every statement, depth first, parents before children. */
typedef void (*TildeStmtVisitor) (TildeStmt *stmt, gpointer user_data);
void        tilde_program_foreach_stmt (TildeProgram *program, TildeStmtVisitor visit,
                                        gpointer user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeProgram, tilde_program_free)

G_END_DECLS
