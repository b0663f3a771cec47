/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The type checker's shared state and the entry points its files offer each
 * other: check.c drives the program, check-fun.c function definitions,
 * check-decl.c declarations, check-stmt.c statements, check-assign.c
 * assignments, check-expr.c expressions, check-call.c function applications
 * and `~`, check-message.c diagnostics and stanc's message layout.
 */
#pragma once

#include <glib.h>

#include "semantics/check.h"
#include "semantics/library/library.h"

G_BEGIN_DECLS

/* What a statement says about leaving the enclosing function, as stanc
 * computes it for "every branch returns". */
typedef enum {
  TILDE_FLOW_INCOMPLETE,   /* may fall through */
  TILDE_FLOW_COMPLETE,     /* returns or rejects on every path */
  TILDE_FLOW_NONLOCAL,     /* may leave by break */
} TildeFlow;

typedef struct {
  TildeProgram *program;
  TildeArena   *arena;
  GPtrArray    *diags;
  TildeScope   *scope;
  gboolean      allow_undefined;
  const char   *model_name;     /* interned, or NULL */
  guint         n_errors;

  /* where the checker is */
  TildeBlockKind   block;             /* FUNCTIONS inside function bodies */
  gboolean         in_toplevel_decl;  /* the sizes of a block-level declaration */
  gboolean         in_function;
  TildeFunKind     fun_kind;          /* of the function being checked (lupdf as lpdf) */
  const TildeType *fun_return;        /* NULL: void */
  int              loop_depth;
} TildeChecker;

/* ---- check-message.c ---- */

/* Reports an error at `span`. `markup` is printf-formatted, then laid out
 * like OCaml's Format: "@ " and "@," are break hints, "@[<v 2>" ... "@]"
 * boxes (h, v, hv, hov, default hov), "@@" an at sign; a newline forces a
 * line break. */
void        _tilde_check_error (TildeChecker *c, const TildeSpan *span,
                                const char *markup, ...) G_GNUC_PRINTF (3, 4);
/* Reports an error whose text is already laid out; takes `text`. */
void        _tilde_check_error_take (TildeChecker *c, const TildeSpan *span, char *text);
void        _tilde_check_warning (TildeChecker *c, const TildeSpan *span,
                                  const char *markup, ...) G_GNUC_PRINTF (3, 4);
/* Lays out `markup` (see _tilde_check_error). */
char       *_tilde_check_layout (const char *markup);
/* Stan's spelling of a type, interned. */
const char *_tilde_type_name (const TildeType *type);
/* "int", "int or real", "int, real, or complex": stanc's list of expected types. */
char       *_tilde_expected_types (const TildeType *const *types, guint n);
/* "@ Instead found type T." */
char       *_tilde_found_type (const TildeType *type);
/* The nearest name in scope or the library (stanc's edit-distance rule), or NULL. */
const char *_tilde_check_nearest_ident (TildeChecker *c, const char *name);

/* ---- check-expr.c ---- */

/* Types `e` (and everything in it); FALSE when it could not be typed. */
gboolean    _tilde_check_expr (TildeChecker *c, TildeExpr *e);
/* Types `e` and requires int; `what` names it ("Array sizes"). */
gboolean    _tilde_check_int_expr (TildeChecker *c, TildeExpr *e, const char *what);
gboolean    _tilde_check_int_or_real_expr (TildeChecker *c, TildeExpr *e, const char *what);
/* stanc's checks of an identifier's spelling (reserved words, "__", the model name). */
gboolean    _tilde_check_identifier (TildeChecker *c, const char *name, const TildeSpan *span);
/* The warning for a variable named like a keyword-to-be ("jacobian"). */
void        _tilde_check_variable_name (TildeChecker *c, const TildeIdent *id);
/* The AD level of a use of `var` in the current context. */
TildeAdLevel _tilde_check_variable_ad (TildeChecker *c, const TildeVariable *var);
/* AD level of values of `type` taken from `origin` in the current context. */
TildeAdLevel _tilde_check_origin_ad (TildeChecker *c, TildeBlockKind origin,
                                     const TildeType *type);
/* The type and AD level of `name` used as a value (variable or function),
 * or FALSE after reporting why it cannot be. */
gboolean    _tilde_check_variable (TildeChecker *c, TildeExpr *e);
/* Indexing: the type of `base` indexed by `indices` (already typed), or NULL
 * after reporting at `span`. */
const TildeType *_tilde_check_indexed_type (TildeChecker *c, const TildeSpan *span,
                                            const TildeType *base,
                                            const TildeIndex *indices, int n);
gboolean    _tilde_check_index (TildeChecker *c, TildeIndex *index);
TildeAdLevel _tilde_check_index_ad (const TildeIndex *indices, int n, TildeAdLevel base);
/* stanc's fill_adtype_for_type: discrete values are data. */
TildeAdLevel _tilde_ad_for_type (TildeAdLevel ad, const TildeType *type);

/* ---- check-call.c ---- */

gboolean    _tilde_check_call_expr (TildeChecker *c, TildeExpr *e);
void        _tilde_check_call_stmt (TildeChecker *c, TildeStmt *s);
void        _tilde_check_tilde (TildeChecker *c, TildeStmt *s);
/* Whether `name` has one of the density/mass/cumulative suffixes that
 * allow or require "|". */
gboolean    _tilde_has_conditioning_suffix (const char *name);
/* The library's signatures of `name` as the program sees them: the
 * constraint-transform functions (foo_jacobian, foo_constrain,
 * foo_unconstrain, newer than Stan 2.36) give way to user functions of the
 * same name. */
const TildeType *const *_tilde_check_library_signatures (TildeChecker *c, const char *name,
                                                         guint *n);
/* Whether the library's `name` gives way to user definitions. */
gboolean    _tilde_library_name_yields (const char *name);
/* foo_lupdf -> foo_lpdf, foo_lupmf -> foo_lpmf (interned); others unchanged. */
const char *_tilde_normalized_name (const char *name);

/* What the last "_word" of a name says. */
typedef enum {
  TILDE_SUFFIX_NONE,
  TILDE_SUFFIX_LPDF, TILDE_SUFFIX_LUPDF, TILDE_SUFFIX_LPMF, TILDE_SUFFIX_LUPMF,
  TILDE_SUFFIX_CDF, TILDE_SUFFIX_LCDF, TILDE_SUFFIX_LCCDF, TILDE_SUFFIX_CCDF,
  TILDE_SUFFIX_RNG, TILDE_SUFFIX_LP, TILDE_SUFFIX_JACOBIAN,
  TILDE_SUFFIX_CONSTRAIN, TILDE_SUFFIX_UNCONSTRAIN,
} TildeNameSuffix;

TildeNameSuffix _tilde_name_suffix (const char *name);

/* ---- check-cache.c ---- */

/* tilde_library_resolve and tilde_library_resolve_operator without the
 * explanation, remembered across calls. */
TildeMatchStatus _tilde_cached_library_resolve (const char *name, const TildeArgType *args,
                                                guint n, TildeMatch *match);
TildeMatchStatus _tilde_cached_operator_resolve (TildeOperator op, const TildeArgType *args,
                                                 guint n, TildeMatch *match);

/* ---- check-stmt.c ---- */

TildeFlow   _tilde_check_stmt (TildeChecker *c, TildeStmt *s);
/* The statements of one scope (block, profile, program block). */
TildeFlow   _tilde_check_stmt_list (TildeChecker *c, TildeStmt **stmts, int n);

/* ---- check-assign.c ---- */

void        _tilde_check_assign (TildeChecker *c, TildeStmt *s);
/* Whether a value of type `rhs` may be assigned where `lhs` is declared. */
gboolean    _tilde_assignable (const TildeType *lhs, const TildeType *rhs);
/* Reports "Cannot assign a function type ..." when `rhs` holds a function. */
gboolean    _tilde_check_not_function (TildeChecker *c, const TildeSpan *span,
                                       const char *name, const TildeType *rhs);

/* ---- check-decl.c ---- */

void        _tilde_check_var_decl (TildeChecker *c, TildeStmt *s);
/* stanc's verify_name_fresh for a variable: no variable of that name in
 * scope and no _lupdf/_lupmf suffix. */
gboolean    _tilde_check_fresh_variable (TildeChecker *c, const TildeIdent *id);
/* The unsized type of a function argument or return type. */
const TildeType *_tilde_unsized_type (const TildeUnsizedType *t);
/* The unsized type of a declaration. */
const TildeType *_tilde_sized_type (const TildeSizedType *t);

/* ---- check-fun.c ---- */

/* Adds every function of the functions block to the scope (stanc's first pass). */
void        _tilde_check_collect_functions (TildeChecker *c, TildeBlock *block);
void        _tilde_check_fun_def (TildeChecker *c, TildeStmt *s);
/* After the functions block: declarations need definitions, bodies need braces. */
void        _tilde_check_functions_defined (TildeChecker *c, TildeBlock *block);
/* Whether an annotation is one of those the compiler understands. */
gboolean    _tilde_annotation_is_known (const char *name);

G_END_DECLS
