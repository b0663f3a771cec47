/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The built-in functions and distributions of Stan: every signature of the
 * Stan library (generated from library.def), the operators' functions, the
 * variadic higher-order functions, deprecations, and stanc's texts for calls
 * that do not fit. Lookups are by exact name; the unnormalised density
 * names (foo_lupdf, foo_lupmf) find the signatures of foo_lpdf / foo_lpmf.
 * Everything returned is owned by the library and lives for the process.
 * All functions are thread-safe.
 */
#pragma once

#include <glib.h>

#include "semantics/types.h"
#include "semantics/library/overload.h"

G_BEGIN_DECLS

/* ---- names and signatures ---- */

/* Whether `name` is a built-in function (including the variadic ones). */
gboolean tilde_library_has_function (const char *name);
/* Its fixed signatures as function types, NULL (and *n_out 0) when none;
 * in stanc's internal order. Variadic functions have none. */
const TildeType *const *tilde_library_signatures (const char *name, guint *n_out);

/* All built-in function names, sorted (strcmp order), for completion. */
guint       tilde_library_n_names (void);
const char *tilde_library_name (guint i);

/* Signatures one per line as stanc lists them ("(real, real) => real"),
 * sorted; NULL when `name` has none. */
char *tilde_library_format_signatures (const char *name);

/* Resolve a call of built-in `name` (variadic or not); on failure
 * *message (when not NULL) receives stanc's explanation. A name that is not
 * built in gives TILDE_MATCH_NONE with no message. */
TildeMatchStatus tilde_library_resolve (const char *name,
                                        const TildeArgType *args, guint n_args,
                                        TildeMatch *match, char **message);

/* ---- distributions ---- */

typedef enum {
  TILDE_DIST_LPDF  = 1 << 0,
  TILDE_DIST_LPMF  = 1 << 1,
  TILDE_DIST_CDF   = 1 << 2,
  TILDE_DIST_LCDF  = 1 << 3,
  TILDE_DIST_LCCDF = 1 << 4,
  TILDE_DIST_RNG   = 1 << 5,
} TildeDistSuffix;

/* Whether `family` has a density or mass function (foo_lpdf or foo_lpmf),
 * i.e. may appear on the right of `~`. */
gboolean tilde_library_is_distribution (const char *family);
/* The TildeDistSuffix bits of the functions named family_<suffix>. */
guint    tilde_library_distribution_suffixes (const char *family);

/* ---- variadic higher-order functions ---- */

typedef struct _TildeVariadic TildeVariadic;

/* ode_*, dae*, solve_* and reduce_sum*; NULL for other names. */
const TildeVariadic *tilde_library_variadic (const char *name);
const char      *tilde_variadic_name (const TildeVariadic *v);
/* The fixed arguments after the function argument (data-only flags set). */
guint              tilde_variadic_n_control (const TildeVariadic *v);
const TildeArgType *tilde_variadic_control (const TildeVariadic *v, guint i);
/* The leading parameters and return type the function argument must have. */
guint              tilde_variadic_n_callback_args (const TildeVariadic *v);
const TildeArgType *tilde_variadic_callback_arg (const TildeVariadic *v, guint i);
const TildeType   *tilde_variadic_callback_return (const TildeVariadic *v);
const TildeType   *tilde_variadic_return (const TildeVariadic *v);
/* reduce_sum: the sliced type is whatever array the function takes first */
gboolean           tilde_variadic_is_reduce_sum (const TildeVariadic *v);

TildeMatchStatus tilde_variadic_resolve (const TildeVariadic *v,
                                         const TildeArgType *args, guint n_args,
                                         TildeMatch *match, char **message);

/* ---- operators ---- */

typedef enum {
  TILDE_OPERATOR_ADD,          /* a + b */
  TILDE_OPERATOR_SUBTRACT,     /* a - b */
  TILDE_OPERATOR_MULTIPLY,     /* a * b */
  TILDE_OPERATOR_DIVIDE,       /* a / b */
  TILDE_OPERATOR_INT_DIVIDE,   /* a %/% b */
  TILDE_OPERATOR_MODULO,       /* a % b */
  TILDE_OPERATOR_LEFT_DIVIDE,  /* a \ b */
  TILDE_OPERATOR_ELT_MULTIPLY, /* a .* b */
  TILDE_OPERATOR_ELT_DIVIDE,   /* a ./ b */
  TILDE_OPERATOR_POW,          /* a ^ b */
  TILDE_OPERATOR_ELT_POW,      /* a .^ b */
  TILDE_OPERATOR_OR,           /* a || b */
  TILDE_OPERATOR_AND,          /* a && b */
  TILDE_OPERATOR_EQUALS,       /* a == b */
  TILDE_OPERATOR_NOT_EQUALS,   /* a != b */
  TILDE_OPERATOR_LESS,         /* a < b */
  TILDE_OPERATOR_LESS_EQUAL,   /* a <= b */
  TILDE_OPERATOR_GREATER,      /* a > b */
  TILDE_OPERATOR_GREATER_EQUAL,/* a >= b */
  TILDE_OPERATOR_PLUS,         /* +a */
  TILDE_OPERATOR_MINUS,        /* -a */
  TILDE_OPERATOR_NOT,          /* !a */
  TILDE_OPERATOR_TRANSPOSE,    /* a' */
} TildeOperator;

const char *tilde_operator_symbol (TildeOperator op);
/* 1 for prefix and postfix operators, 2 for infix ones */
guint       tilde_operator_arity (TildeOperator op);
/* The library functions an operator stands for, tried in order, as a
 * NULL-terminated list (empty for %/%, which has only (int, int) => int). */
const char *const *tilde_operator_functions (TildeOperator op);

/* The first of the operator's functions that fits decides; on failure
 * *message receives stanc's "Ill-typed arguments supplied to infix operator
 * ..." text listing every signature. */
TildeMatchStatus tilde_library_resolve_operator (TildeOperator op,
                                                 const TildeArgType *args, guint n_args,
                                                 TildeMatch *match, char **message);

/* ---- deprecations and spelling ---- */

/* Whether `name` is deprecated (still accepted) or removed from the
 * language; *replacement what to use instead, *major.*minor the version of
 * removal. _log, _cdf_log and _ccdf_log forms of the distributions count as
 * removed in 2.33. Out parameters may be NULL. */
gboolean tilde_library_deprecation (const char *name, const char **replacement,
                                    int *major, int *minor, gboolean *removed);
/* stanc's warning for a deprecated name, or its error for a removed one;
 * NULL for other names. */
char    *tilde_library_deprecation_message (const char *name);

/* The built-in name closest to `name` when it is close enough to be a
 * plausible typo, else NULL (also for built-in names themselves). */
const char *tilde_library_suggest (const char *name);

G_END_DECLS
