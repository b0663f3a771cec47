/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stan's unsized types, as the type checker and the built-in signature table
 * see them (the Stan compiler calls these UnsizedType).
 *
 * Types are immutable and hash-consed: every constructor returns the one
 * shared instance of that type, so two types are equal exactly when their
 * pointers are equal, and a `const TildeType *` may be stored anywhere without
 * ownership. Instances live for the life of the process. All functions are
 * thread-safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TILDE_TYPE_INT,
  TILDE_TYPE_REAL,
  TILDE_TYPE_COMPLEX,
  TILDE_TYPE_VECTOR,
  TILDE_TYPE_ROW_VECTOR,
  TILDE_TYPE_MATRIX,
  TILDE_TYPE_COMPLEX_VECTOR,
  TILDE_TYPE_COMPLEX_ROW_VECTOR,
  TILDE_TYPE_COMPLEX_MATRIX,
  TILDE_TYPE_ARRAY,
  TILDE_TYPE_TUPLE,
  TILDE_TYPE_FUNCTION,
  TILDE_TYPE_MATH_FUNCTION, /* a bare library function name used as a value */
  TILDE_TYPE_VOID,          /* only as a function's return type */
  TILDE_TYPE_STRING,        /* only as an argument of print/reject */
} TildeTypeKind;

/* Whether a value may depend on parameters. A tuple expression whose members
 * differ is summarised as TILDE_AD_AUTODIFF when any member is. */
typedef enum {
  TILDE_AD_DATA,
  TILDE_AD_AUTODIFF,
} TildeAdLevel;

/* What a function's name suffix says about it. */
typedef enum {
  TILDE_FUN_PLAIN,
  TILDE_FUN_RNG,      /* _rng */
  TILDE_FUN_LPDF,     /* _lpdf, _lpmf */
  TILDE_FUN_LUPDF,    /* _lupdf, _lupmf: the unnormalised forms */
  TILDE_FUN_LP,       /* _lp: may access target */
  TILDE_FUN_JACOBIAN, /* _jacobian */
} TildeFunKind;

/* The tag matches the forward declaration in syntax/ast.h. */
typedef struct TildeType TildeType;

/* One parameter of a function type. */
typedef struct {
  TildeAdLevel ad; /* TILDE_AD_DATA: the parameter is declared `data` */
  const TildeType *type;
} TildeArgType;

const TildeType *tilde_type_int (void);
const TildeType *tilde_type_real (void);
const TildeType *tilde_type_complex (void);
const TildeType *tilde_type_vector (void);
const TildeType *tilde_type_row_vector (void);
const TildeType *tilde_type_matrix (void);
const TildeType *tilde_type_complex_vector (void);
const TildeType *tilde_type_complex_row_vector (void);
const TildeType *tilde_type_complex_matrix (void);
const TildeType *tilde_type_void (void);
const TildeType *tilde_type_string (void);
const TildeType *tilde_type_math_function (void);
/* The basic (non-array, non-tuple, non-function) type of a kind. */
const TildeType *tilde_type_basic (TildeTypeKind kind);

/* array[] elem; arrays of arrays are arrays with more dimensions. */
const TildeType *tilde_type_array (const TildeType *elem);
/* elem with ndims more array dimensions; ndims 0 returns elem. */
const TildeType *tilde_type_array_n (const TildeType *elem, guint ndims);
/* tuple(members[0], ...); n >= 1. */
const TildeType *tilde_type_tuple (guint n, const TildeType *const *members);
/* (args) => ret, with ret tilde_type_void() for a void function. */
const TildeType *tilde_type_function (guint n_args, const TildeArgType *args,
                                      const TildeType *ret, TildeFunKind kind);

TildeTypeKind    tilde_type_kind (const TildeType *type);
/* array: the type one dimension down; NULL for non-arrays */
const TildeType *tilde_type_element (const TildeType *type);
/* number of array dimensions (0 for non-arrays) */
guint            tilde_type_array_dims (const TildeType *type);
/* the innermost non-array type (the type itself for non-arrays) */
const TildeType *tilde_type_array_base (const TildeType *type);
/* tuple members, function arguments, function return and kind */
guint              tilde_type_n_members (const TildeType *type);
const TildeType   *tilde_type_member (const TildeType *type, guint i);
guint              tilde_type_n_args (const TildeType *type);
const TildeArgType *tilde_type_arg (const TildeType *type, guint i);
const TildeType   *tilde_type_return (const TildeType *type);
TildeFunKind       tilde_type_fun_kind (const TildeType *type);
/* The same function type with another suffix kind. */
const TildeType   *tilde_type_function_with_kind (const TildeType *type, TildeFunKind kind);

gboolean tilde_type_is_int (const TildeType *type);       /* int */
gboolean tilde_type_is_real (const TildeType *type);      /* real */
gboolean tilde_type_is_complex (const TildeType *type);   /* complex */
gboolean tilde_type_is_scalar (const TildeType *type);    /* int or real */
gboolean tilde_type_is_eigen (const TildeType *type);     /* (complex) vector, row_vector, matrix */
gboolean tilde_type_is_container (const TildeType *type); /* eigen, array or tuple */
gboolean tilde_type_is_int_type (const TildeType *type);  /* int or array of int */
/* real, vector, row_vector, matrix or arrays of them */
gboolean tilde_type_is_real_type (const TildeType *type);
/* complex or a complex container, or arrays of them */
gboolean tilde_type_is_complex_type (const TildeType *type);
/* int, arrays of int, tuples of those: admissible variates of _lpmf */
gboolean tilde_type_is_discrete (const TildeType *type);
gboolean tilde_type_contains_tuple (const TildeType *type);
gboolean tilde_type_is_autodiffable (const TildeType *type);

/* Dimensions as Stan counts them: arrays plus 1 for vectors, 2 for matrices. */
guint            tilde_type_count_dims (const TildeType *type);
/* int, real or complex for numeric types (and their containers); the type
 * itself for tuples and functions; NULL for void and string. */
const TildeType *tilde_type_internal_scalar (const TildeType *type);
/* The type of x[i] for one single index: arrays lose a dimension, vectors
 * give their scalar, matrices give a row. NULL when not indexable. */
const TildeType *tilde_type_index (const TildeType *type);
/* Stan's promote_container: replace the scalar inside `type` by `scalar`
 * (int->real->complex, real containers -> complex containers). */
const TildeType *tilde_type_promote_scalar (const TildeType *type, const TildeType *scalar);
/* The least type both convert to (for ?: and array expressions), or NULL. */
const TildeType *tilde_type_common (const TildeType *a, const TildeType *b);

/* Number of promotions needed to pass a `from` where a `to` is expected:
 * 0 when equal, int->real 1, real->complex 1, int->complex 2, applied
 * elementwise through arrays and tuples (costs add up), real containers to
 * their complex counterparts 1; -1 when impossible. Function types must match
 * exactly up to the data-only rules of their parameters. */
int      tilde_type_promotion_cost (const TildeType *to, const TildeType *from);
gboolean tilde_type_promotes (const TildeType *from, const TildeType *to);

/* Whether a value at level `actual` may be passed where `required` is asked. */
gboolean     tilde_ad_can_convert (TildeAdLevel required, TildeAdLevel actual);
TildeAdLevel tilde_ad_lub (TildeAdLevel a, TildeAdLevel b);

/* Stan's spelling, as stanc prints types in messages: `array[,] real`,
 * `tuple(real, array[] int)`, `(real, data vector) => real`. */
char *tilde_type_to_string (const TildeType *type);
void  tilde_type_append (GString *out, const TildeType *type);
/* The inverse of tilde_type_to_string (NULL on malformed text). */
const TildeType *tilde_type_from_string (const char *text);

/* The structural order of the Stan compiler's types (int < real < vector <
 * complex < row_vector < matrix < complex containers < array < tuple <
 * function), used to list signatures in the same order stanc does. */
int tilde_type_compare (const TildeType *a, const TildeType *b);
int tilde_arg_type_compare (const TildeArgType *a, const TildeArgType *b);

/* The kind a function name's suffix implies. */
TildeFunKind tilde_fun_kind_from_name (const char *name);
/* lpdf and lupdf are one kind for compatibility purposes */
gboolean     tilde_fun_kind_equal_modulo_propto (TildeFunKind a, TildeFunKind b);

G_END_DECLS
