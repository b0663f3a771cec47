/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/generate-data.h"

#include <math.h>
#include <stdlib.h>

/* What later declarations may ask of an earlier variable: its dimensions
 * (array dimensions first, then the container's) and its values in
 * row-major order. */
typedef enum { SHAPE_SCALAR, SHAPE_VECTOR, SHAPE_ROW_VECTOR, SHAPE_MATRIX, SHAPE_OTHER } ShapeKind;

typedef struct {
  ShapeKind kind;
  gboolean  is_int;
  GArray   *dims;     /* guint: array dimensions, then rows and/or columns */
  guint     n_array_dims;
  GArray   *values;   /* double */
} Known;

typedef struct {
  GRand      *rand;
  GHashTable *known;     /* name -> Known* */
  GString    *out;
  const char *name;      /* the variable being generated */
  char       *problem;
  Known      *current;
} Gen;

static void
known_free (gpointer p)
{
  Known *k = p;
  g_array_unref (k->dims);
  g_array_unref (k->values);
  g_free (k);
}

static gboolean
fail (Gen *g, const char *what)
{
  if (!g->problem)
    g->problem = g_strdup_printf ("variable %s: %s", g->name, what);
  return FALSE;
}

/* ---- sizes and bounds ---- */

static gboolean eval (Gen *g, const TildeExpr *e, double *out, gboolean *is_int);

static const Known *
known_argument (Gen *g, const TildeExpr *e)
{
  while (e->kind == TILDE_EXPR_PAREN)
    e = e->u.paren.inner;
  if (e->kind != TILDE_EXPR_VARIABLE)
    return NULL;
  return g_hash_table_lookup (g->known, e->u.variable.name);
}

static guint
dim (const Known *k, guint i)
{
  return g_array_index (k->dims, guint, i);
}

static gboolean
eval_shape_call (Gen *g, const char *fn, const Known *k, double *out)
{
  guint n_all = 1;
  for (guint i = 0; i < k->dims->len; i++)
    n_all *= dim (k, i);
  guint inner = k->n_array_dims;
  if (g_str_equal (fn, "num_elements"))
    *out = n_all;
  else if (g_str_equal (fn, "size"))
    {
      if (k->n_array_dims > 0)
        *out = dim (k, 0);
      else if (k->kind == SHAPE_SCALAR)
        return fail (g, "a size of a scalar");
      else
        *out = n_all;
    }
  else if (k->n_array_dims > 0 || k->kind == SHAPE_SCALAR || k->kind == SHAPE_OTHER)
    return fail (g, "rows or cols of something that is not a vector or matrix");
  else if (g_str_equal (fn, "rows"))
    *out = k->kind == SHAPE_ROW_VECTOR ? 1 : dim (k, inner);
  else if (g_str_equal (fn, "cols"))
    *out = k->kind == SHAPE_VECTOR ? 1 : dim (k, k->dims->len - 1);
  else
    return FALSE;
  return TRUE;
}

static gboolean
eval_call (Gen *g, const TildeExpr *e, double *out, gboolean *is_int)
{
  const char *fn = e->u.call.name.name;
  if (e->u.call.n_args == 1 && (g_str_equal (fn, "size") || g_str_equal (fn, "num_elements")
                                || g_str_equal (fn, "rows") || g_str_equal (fn, "cols")))
    {
      const Known *k = known_argument (g, e->u.call.args[0]);
      *is_int = TRUE;
      return k ? eval_shape_call (g, fn, k, out) : fail (g, "a size of something not in the data");
    }
  if (e->u.call.n_args == 2 && (g_str_equal (fn, "min") || g_str_equal (fn, "max")))
    {
      double a, b;
      gboolean ia, ib;
      if (!eval (g, e->u.call.args[0], &a, &ia) || !eval (g, e->u.call.args[1], &b, &ib))
        return FALSE;
      *is_int = ia && ib;
      *out = g_str_equal (fn, "min") ? fmin (a, b) : fmax (a, b);
      return TRUE;
    }
  return fail (g, "a size or bound that calls a function other than size, num_elements, rows, "
                  "cols, min or max");
}

static gboolean
eval_binary (Gen *g, const TildeExpr *e, double *out, gboolean *is_int)
{
  double a, b;
  gboolean ia, ib;
  if (!eval (g, e->u.binary.lhs, &a, &ia) || !eval (g, e->u.binary.rhs, &b, &ib))
    return FALSE;
  *is_int = ia && ib;
  switch (e->u.binary.op)
    {
    case TILDE_OP_PLUS: *out = a + b; return TRUE;
    case TILDE_OP_MINUS: *out = a - b; return TRUE;
    case TILDE_OP_TIMES: *out = a * b; return TRUE;
    case TILDE_OP_DIVIDE:
    case TILDE_OP_IDIVIDE:
    case TILDE_OP_MODULO:
      if (b == 0)
        return fail (g, "a size or bound divides by zero");
      if (e->u.binary.op == TILDE_OP_MODULO)
        *out = fmod (a, b);
      else
        *out = *is_int ? trunc (a / b) : a / b;
      return TRUE;
    default:
      return fail (g, "a size or bound with an operator other than + - * / %/% %");
    }
}

static gboolean
eval (Gen *g, const TildeExpr *e, double *out, gboolean *is_int)
{
  switch (e->kind)
    {
    case TILDE_EXPR_INT:
      *is_int = TRUE;
      *out = tilde_literal_value (e->u.literal.text);
      return TRUE;
    case TILDE_EXPR_REAL:
      *is_int = FALSE;
      *out = tilde_literal_value (e->u.literal.text);
      return TRUE;
    case TILDE_EXPR_PAREN:
      return eval (g, e->u.paren.inner, out, is_int);
    case TILDE_EXPR_PREFIX:
      if (e->u.prefix.op == TILDE_OP_NOT || !eval (g, e->u.prefix.operand, out, is_int))
        return e->u.prefix.op == TILDE_OP_NOT ? fail (g, "a size or bound with !") : FALSE;
      if (e->u.prefix.op == TILDE_OP_NEGATE)
        *out = -*out;
      return TRUE;
    case TILDE_EXPR_BINARY:
      return eval_binary (g, e, out, is_int);
    case TILDE_EXPR_CALL:
      return eval_call (g, e, out, is_int);
    case TILDE_EXPR_VARIABLE:
      {
        const Known *k = g_hash_table_lookup (g->known, e->u.variable.name);
        if (!k || k->kind != SHAPE_SCALAR || k->n_array_dims > 0 || k->values->len != 1)
          return fail (g, "a size or bound that uses something other than an earlier scalar");
        *is_int = k->is_int;
        *out = g_array_index (k->values, double, 0);
        return TRUE;
      }
    default:
      return fail (g, "a size or bound more complex than arithmetic on earlier data");
    }
}

static gboolean
eval_size (Gen *g, const TildeExpr *e, guint *out)
{
  double v;
  gboolean is_int;
  if (!eval (g, e, &v, &is_int))
    return FALSE;
  if (!is_int || v < 0 || v > 1000)
    return fail (g, "a size that is not a small non-negative int");
  *out = (guint) v;
  return TRUE;
}

/* An absent bound is -inf (lower) or +inf (upper). */
static gboolean
eval_bounds (Gen *g, const TildeBounds *b, double *lo, double *hi)
{
  gboolean is_int;
  *lo = -INFINITY;
  *hi = INFINITY;
  return (!b->lower || eval (g, b->lower, lo, &is_int))
         && (!b->upper || eval (g, b->upper, hi, &is_int));
}

/* ---- values ---- */

static void
emit (Gen *g, double v, gboolean is_int)
{
  if (is_int)
    g_string_append_printf (g->out, "%.0f", v);
  else
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (g->out, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
    }
  g_array_append_val (g->current->values, v);
}

static void
emit_list (Gen *g, const double *v, guint n)
{
  g_string_append_c (g->out, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append (g->out, ", ");
      emit (g, v[i], FALSE);
    }
  g_string_append_c (g->out, ']');
}

/* A matrix (row-major `v`) as an array of rows. */
static void
emit_matrix (Gen *g, const double *v, guint rows, guint cols)
{
  g_string_append_c (g->out, '[');
  for (guint i = 0; i < rows; i++)
    {
      if (i)
        g_string_append (g->out, ", ");
      emit_list (g, v + (gsize) i * cols, cols);
    }
  g_string_append_c (g->out, ']');
}

static double
draw_int (Gen *g, double lo, double hi)
{
  if (isfinite (lo) && isfinite (hi))
    return lo + g_rand_int_range (g->rand, 0, (gint32) MIN (hi - lo, 9.0) + 1);
  if (isfinite (lo))
    return MAX (lo, 3) + g_rand_int_range (g->rand, 0, 3);
  if (isfinite (hi))
    return MIN (hi, 5) - g_rand_int_range (g->rand, 0, 3);
  return g_rand_int_range (g->rand, 3, 6);
}

static double
draw_real (Gen *g, double lo, double hi)
{
  if (isfinite (lo) && isfinite (hi))
    return lo + (hi - lo) * g_rand_double_range (g->rand, 0.05, 0.95);
  if (isfinite (lo))
    return lo + g_rand_double_range (g->rand, 0.1, 3.0);
  if (isfinite (hi))
    return hi - g_rand_double_range (g->rand, 0.1, 3.0);
  return g_rand_double_range (g->rand, -2.0, 2.0);
}

/* A row-stochastic rows x cols matrix (a simplex when rows is 1). */
static double *
draw_simplexes (Gen *g, guint rows, guint cols)
{
  double *v = g_new (double, (gsize) rows * cols + 1);
  for (guint i = 0; i < rows; i++)
    {
      double sum = 0;
      for (guint j = 0; j < cols; j++)
        sum += v[i * cols + j] = g_rand_double_range (g->rand, 0.2, 1.0);
      for (guint j = 0; j < cols; j++)
        v[i * cols + j] /= sum;
    }
  return v;
}

/* Lower triangular rows x cols with a positive diagonal; with
 * `unit_rows` each row has length one (a correlation matrix's factor). */
static double *
draw_cholesky (Gen *g, guint rows, guint cols, gboolean unit_rows)
{
  double *v = g_new0 (double, (gsize) rows * cols + 1);
  for (guint i = 0; i < rows; i++)
    {
      double norm = 0;
      for (guint j = 0; j < cols && j <= i; j++)
        {
          double x = j == i ? g_rand_double_range (g->rand, 0.5, 1.5)
                            : g_rand_double_range (g->rand, -0.5, 0.5);
          v[i * cols + j] = x;
          norm += x * x;
        }
      for (guint j = 0; unit_rows && j <= i && j < cols; j++)
        v[i * cols + j] /= sqrt (norm);
    }
  return v;
}

/* L L' computed on the lower triangle and mirrored, so that it is exactly
 * symmetric; with `unit_diagonal` the diagonal is set to exactly one. */
static double *
outer_product (const double *l, guint k, gboolean unit_diagonal)
{
  double *v = g_new0 (double, (gsize) k * k + 1);
  for (guint i = 0; i < k; i++)
    for (guint j = 0; j <= i; j++)
      {
        double s = 0;
        for (guint m = 0; m <= j; m++)
          s += l[i * k + m] * l[j * k + m];
        v[i * k + j] = v[j * k + i] = (i == j && unit_diagonal) ? 1.0 : s;
      }
  return v;
}

static double *
draw_ordered (Gen *g, guint n, gboolean positive)
{
  double *v = g_new (double, n + 1);
  double x = positive ? 0 : g_rand_double_range (g->rand, -3.0, -1.0);
  for (guint i = 0; i < n; i++)
    v[i] = x += g_rand_double_range (g->rand, 0.2, 1.5);
  return v;
}

static double *
draw_sum_to_zero (Gen *g, guint rows, guint cols)
{
  gsize n = (gsize) rows * cols;
  double *v = g_new (double, n + 1);
  for (gsize i = 0; i < n; i++)
    v[i] = g_rand_double_range (g->rand, -1.0, 1.0);
  /* centring the rows, then the columns, leaves both summing to zero */
  for (guint i = 0; cols > 1 && i < rows; i++)
    {
      double mean = 0;
      for (guint j = 0; j < cols; j++)
        mean += v[i * cols + j] / cols;
      for (guint j = 0; j < cols; j++)
        v[i * cols + j] -= mean;
    }
  for (guint j = 0; j < cols; j++)
    {
      double mean = 0;
      for (guint i = 0; i < rows; i++)
        mean += v[i * cols + j] / rows;
      for (guint i = 0; i < rows; i++)
        v[i * cols + j] -= mean;
    }
  return v;
}

static double *
draw_unit_vector (Gen *g, guint n)
{
  double *v = g_new (double, n + 1);
  double norm = 0;
  for (guint i = 0; i < n; i++)
    {
      v[i] = g_rand_double_range (g->rand, -1.0, 1.0);
      norm += v[i] * v[i];
    }
  if (norm == 0 && n > 0)
    v[0] = norm = 1;
  for (guint i = 0; i < n; i++)
    v[i] /= sqrt (norm);
  return v;
}

static gboolean
emit_bounded (Gen *g, const TildeSizedType *t, guint rows, guint cols, ShapeKind kind)
{
  double lo, hi;
  if (!eval_bounds (g, &t->bounds, &lo, &hi))
    return FALSE;
  if (lo > hi)
    return fail (g, "a lower bound above the upper bound");
  gboolean is_int = t->kind == TILDE_DECL_INT;
  if (kind == SHAPE_SCALAR)
    {
      emit (g, is_int ? draw_int (g, lo, hi) : draw_real (g, lo, hi), is_int);
      return TRUE;
    }
  g_autofree double *v = g_new (double, (gsize) rows * cols + 1);
  for (gsize i = 0; i < (gsize) rows * cols; i++)
    v[i] = draw_real (g, lo, hi);
  if (kind == SHAPE_MATRIX)
    emit_matrix (g, v, rows, cols);
  else
    emit_list (g, v, rows * cols);
  return TRUE;
}

static gboolean emit_type (Gen *g, const TildeSizedType *t);
static gboolean emit_array (Gen *g, const TildeSizedType *element, const guint *dims, guint n_dims);

/* An array inside a tuple: its sizes are evaluated where it is met. */
static gboolean
emit_nested_array (Gen *g, const TildeSizedType *t)
{
  g_autofree guint *dims = g_new (guint, t->n_dims + 1);
  for (int i = 0; i < t->n_dims; i++)
    if (!eval_size (g, t->dims[i], &dims[i]))
      return FALSE;
  return emit_array (g, t->element, dims, t->n_dims);
}

/* The sizes of a non-array type, recorded in the current variable's dims
 * for the first element only. */
static gboolean
type_sizes (Gen *g, const TildeSizedType *t, guint *rows, guint *cols, ShapeKind *kind)
{
  *rows = *cols = 1;
  switch (t->kind)
    {
    case TILDE_DECL_INT:
    case TILDE_DECL_REAL:
      *kind = SHAPE_SCALAR;
      return TRUE;
    case TILDE_DECL_COMPLEX:
    case TILDE_DECL_TUPLE:
    case TILDE_DECL_ARRAY:
      *kind = SHAPE_OTHER;
      return TRUE;
    case TILDE_DECL_COMPLEX_ROW_VECTOR:
    case TILDE_DECL_ROW_VECTOR:
      *kind = SHAPE_ROW_VECTOR;
      return eval_size (g, t->size1, cols);
    case TILDE_DECL_COMPLEX_VECTOR:
    case TILDE_DECL_VECTOR:
    case TILDE_DECL_ORDERED:
    case TILDE_DECL_POSITIVE_ORDERED:
    case TILDE_DECL_SIMPLEX:
    case TILDE_DECL_UNIT_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
      *kind = SHAPE_VECTOR;
      return eval_size (g, t->size1, rows);
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
    case TILDE_DECL_CORR_MATRIX:
    case TILDE_DECL_COV_MATRIX:
      *kind = SHAPE_MATRIX;
      if (!eval_size (g, t->size1, rows))
        return FALSE;
      *cols = *rows;
      return TRUE;
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
      *kind = SHAPE_MATRIX;
      if (!eval_size (g, t->size1, rows))
        return FALSE;
      *cols = *rows;
      return !t->size2 || eval_size (g, t->size2, cols);
    default:
      *kind = SHAPE_MATRIX;
      return eval_size (g, t->size1, rows) && eval_size (g, t->size2, cols);
    }
}

static void
emit_complex (Gen *g)
{
  g_string_append_c (g->out, '[');
  emit (g, draw_real (g, -INFINITY, INFINITY), FALSE);
  g_string_append (g->out, ", ");
  emit (g, draw_real (g, -INFINITY, INFINITY), FALSE);
  g_string_append_c (g->out, ']');
}

/* Complex vectors are lists of [re, im], complex matrices rows of them. */
static void
emit_complex_container (Gen *g, guint rows, guint cols, gboolean matrix)
{
  guint outer = matrix ? rows : 1, inner = matrix ? cols : rows * cols;
  if (matrix)
    g_string_append_c (g->out, '[');
  for (guint i = 0; i < outer; i++)
    {
      g_string_append (g->out, i ? ", [" : "[");
      for (guint j = 0; j < inner; j++)
        {
          if (j)
            g_string_append (g->out, ", ");
          emit_complex (g);
        }
      g_string_append_c (g->out, ']');
    }
  if (matrix)
    g_string_append_c (g->out, ']');
}

static gboolean
emit_tuple (Gen *g, const TildeSizedType *t)
{
  g_string_append_c (g->out, '{');
  for (int i = 0; i < t->n_elements; i++)
    {
      g_string_append_printf (g->out, "%s\"%d\": ", i ? ", " : "", i + 1);
      if (!emit_type (g, t->elements[i]))
        return FALSE;
    }
  g_string_append_c (g->out, '}');
  return TRUE;
}

static gboolean
emit_constrained (Gen *g, const TildeSizedType *t, guint rows, guint cols)
{
  g_autofree double *v = NULL;
  g_autofree double *l = NULL;
  switch (t->kind)
    {
    case TILDE_DECL_ORDERED:
    case TILDE_DECL_POSITIVE_ORDERED:
      v = draw_ordered (g, rows, t->kind == TILDE_DECL_POSITIVE_ORDERED);
      break;
    case TILDE_DECL_SIMPLEX:
      v = draw_simplexes (g, 1, rows);
      break;
    case TILDE_DECL_UNIT_VECTOR:
      v = draw_unit_vector (g, rows);
      break;
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
      v = draw_sum_to_zero (g, rows, 1);
      break;
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
      v = draw_sum_to_zero (g, rows, cols);
      break;
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      v = draw_simplexes (g, rows, cols);
      break;
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
      l = draw_simplexes (g, cols, rows);
      v = g_new (double, (gsize) rows * cols + 1);
      for (guint i = 0; i < rows; i++)
        for (guint j = 0; j < cols; j++)
          v[i * cols + j] = l[j * rows + i];
      break;
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
      v = draw_cholesky (g, rows, cols, t->kind == TILDE_DECL_CHOLESKY_FACTOR_CORR);
      break;
    case TILDE_DECL_CORR_MATRIX:
    case TILDE_DECL_COV_MATRIX:
      l = draw_cholesky (g, rows, cols, t->kind == TILDE_DECL_CORR_MATRIX);
      v = outer_product (l, rows, t->kind == TILDE_DECL_CORR_MATRIX);
      break;
    default:
      g_assert_not_reached ();
    }
  if (t->kind == TILDE_DECL_ORDERED || t->kind == TILDE_DECL_POSITIVE_ORDERED
      || t->kind == TILDE_DECL_SIMPLEX || t->kind == TILDE_DECL_UNIT_VECTOR
      || t->kind == TILDE_DECL_SUM_TO_ZERO_VECTOR)
    emit_list (g, v, rows);
  else
    emit_matrix (g, v, rows, cols);
  return TRUE;
}

static gboolean
emit_type (Gen *g, const TildeSizedType *t)
{
  guint rows, cols;
  ShapeKind kind;
  if (!type_sizes (g, t, &rows, &cols, &kind))
    return FALSE;
  switch (t->kind)
    {
    case TILDE_DECL_TUPLE:
      return emit_tuple (g, t);
    case TILDE_DECL_ARRAY:
      return emit_nested_array (g, t);
    case TILDE_DECL_COMPLEX:
      emit_complex (g);
      return TRUE;
    case TILDE_DECL_COMPLEX_VECTOR:
    case TILDE_DECL_COMPLEX_ROW_VECTOR:
    case TILDE_DECL_COMPLEX_MATRIX:
      emit_complex_container (g, rows, cols, t->kind == TILDE_DECL_COMPLEX_MATRIX);
      return TRUE;
    case TILDE_DECL_INT:
    case TILDE_DECL_REAL:
    case TILDE_DECL_VECTOR:
    case TILDE_DECL_ROW_VECTOR:
    case TILDE_DECL_MATRIX:
      return emit_bounded (g, t, rows, cols, kind);
    default:
      return emit_constrained (g, t, rows, cols);
    }
}

static gboolean
emit_array (Gen *g, const TildeSizedType *element, const guint *dims, guint n_dims)
{
  if (n_dims == 0)
    return emit_type (g, element);
  g_string_append_c (g->out, '[');
  for (guint i = 0; i < dims[0]; i++)
    {
      if (i)
        g_string_append (g->out, ", ");
      if (!emit_array (g, element, dims + 1, n_dims - 1))
        return FALSE;
    }
  g_string_append_c (g->out, ']');
  return TRUE;
}

/* Records the shape of `t` in `k`, evaluating its sizes once. */
static gboolean
record_shape (Gen *g, const TildeSizedType *t, Known *k)
{
  const TildeSizedType *base = t;
  if (t->kind == TILDE_DECL_ARRAY)
    {
      for (int i = 0; i < t->n_dims; i++)
        {
          guint d;
          if (!eval_size (g, t->dims[i], &d))
            return FALSE;
          g_array_append_val (k->dims, d);
        }
      k->n_array_dims = t->n_dims;
      base = t->element;
    }
  guint rows, cols;
  if (!type_sizes (g, base, &rows, &cols, &k->kind))
    return FALSE;
  k->is_int = base->kind == TILDE_DECL_INT;
  if (k->kind == SHAPE_VECTOR || k->kind == SHAPE_MATRIX)
    g_array_append_val (k->dims, rows);
  if (k->kind == SHAPE_ROW_VECTOR || k->kind == SHAPE_MATRIX)
    g_array_append_val (k->dims, cols);
  return TRUE;
}

static gboolean
generate_variable (Gen *g, const TildeSizedType *t, const char *name)
{
  Known *k = g_new0 (Known, 1);
  k->dims = g_array_new (FALSE, FALSE, sizeof (guint));
  k->values = g_array_new (FALSE, FALSE, sizeof (double));
  g->name = name;
  g->current = k;
  if (!record_shape (g, t, k))
    {
      known_free (k);
      return FALSE;
    }
  g_string_append_printf (g->out, "%s  \"%s\": ", g->out->len > 2 ? ",\n" : "", name);
  gboolean ok = t->kind == TILDE_DECL_ARRAY
                  ? emit_array (g, t->element, (const guint *) k->dims->data, k->n_array_dims)
                  : emit_type (g, t);
  g_hash_table_insert (g->known, (gpointer) name, k);
  return ok;
}

char *
tilde_generate_data (const TildeProgram *program, guint32 seed, char **problem)
{
  Gen g = { 0 };
  g.rand = g_rand_new_with_seed (seed);
  g.known = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, known_free);
  g.out = g_string_new ("{\n");
  const TildeBlock *data = program->blocks[TILDE_BLOCK_DATA];
  gboolean ok = TRUE;
  for (int i = 0; ok && data && i < data->n_stmts; i++)
    {
      const TildeStmt *s = data->stmts[i];
      if (s->kind != TILDE_STMT_VAR_DECL)
        continue;
      for (int j = 0; ok && j < s->u.var_decl.n_items; j++)
        ok = generate_variable (&g, s->u.var_decl.type, s->u.var_decl.items[j].ident.name);
    }
  g_rand_free (g.rand);
  g_hash_table_unref (g.known);
  if (!ok)
    {
      g_string_free (g.out, TRUE);
      *problem = g.problem;
      return NULL;
    }
  g_string_append (g.out, g.out->len > 2 ? "\n}\n" : "}\n");
  return g_string_free (g.out, FALSE);
}
