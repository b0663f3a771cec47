/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Evaluation of constant int and real expressions with Stan's semantics,
 * for constant propagation and folding.
 *
 * - int is a 32-bit integer as in the generated C++: +, -, * and unary -
 *   are exact, and a result outside the range of int is not a constant
 *   (the C++ would overflow). `/` and `%/%` on ints divide and truncate
 *   toward zero, `%` takes the sign of its left operand, as C++ does;
 *   dividing by zero (or the minimum int by -1) is not a constant.
 * - real is a double: operations round as IEEE 754 does; a result that is
 *   infinite or NaN is not a constant (there is no literal for it). An int
 *   operand of a real operation is converted exactly first. `^` always
 *   gives a real, as in Stan.
 * - comparisons, !, && and || give the int 0 or 1; && and || and ?: look at
 *   their right operands only when they are evaluated.
 * Anything else (functions, containers, complex numbers, indexing) is not
 * evaluated.
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

typedef enum {
  MIR_CONST_UNDEF,    /* no value yet (bottom): unreached, or not yet assigned */
  MIR_CONST_INT,
  MIR_CONST_REAL,
  MIR_CONST_NAC,      /* not a constant (top) */
} MirConstKind;

typedef struct {
  MirConstKind kind;
  gint64       i;     /* INT: within the range of a 32-bit int */
  double       r;     /* REAL: finite */
} MirConstValue;

/* The value of a variable where the expression is evaluated. */
typedef MirConstValue (*MirConstLookup) (const char *name, gpointer user_data);

MirConstValue mir_const_int  (gint64 i);   /* NAC when out of the int range */
MirConstValue mir_const_real (double r);   /* NAC when not finite */
MirConstValue mir_const_nac  (void);
MirConstValue mir_const_undef (void);

/* The value of `e`; UNDEF when it needs a variable that has none yet, NAC
 * when it is not a constant. */
MirConstValue mir_const_eval  (const MirExpr *e, MirConstLookup lookup, gpointer user_data);

/* Whether `e` is NAC (or UNDEF) however the variables that `may_be_constant`
 * accepts are valued, when every other variable is NAC: an expression that
 * is nothing mir_const_eval evaluates, or that needs such a variable. */
typedef gboolean (*MirConstMayBe) (const char *name, gpointer user_data);
gboolean      mir_const_never (const MirExpr *e, MirConstMayBe may_be_constant,
                               gpointer user_data);

/* Exact equality (reals compared bit for bit, so 0.0 and -0.0 differ). */
gboolean      mir_const_equal (MirConstValue a, MirConstValue b);
/* The least upper bound in UNDEF < constants < NAC. */
MirConstValue mir_const_join  (MirConstValue a, MirConstValue b);
/* "3", "2.5", "-0.1" (reals with the shortest text that reads back the
 * same, always with a '.' or an exponent), "⊥", "⊤". */
void          mir_const_append (GString *out, MirConstValue v);

G_END_DECLS
