/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

/* ------------------------------------------------------------ types */

static const TildeType *
tuple_of (const TildeType **members, int n)
{
  return n > 0 ? tilde_type_tuple ((guint) n, members) : NULL;
}

const TildeType *
_tilde_sized_type (const TildeSizedType *t)
{
  switch (t->kind)
    {
    case TILDE_DECL_INT: return tilde_type_int ();
    case TILDE_DECL_REAL: return tilde_type_real ();
    case TILDE_DECL_COMPLEX: return tilde_type_complex ();
    case TILDE_DECL_VECTOR:
    case TILDE_DECL_ORDERED:
    case TILDE_DECL_POSITIVE_ORDERED:
    case TILDE_DECL_SIMPLEX:
    case TILDE_DECL_UNIT_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
      return tilde_type_vector ();
    case TILDE_DECL_ROW_VECTOR: return tilde_type_row_vector ();
    case TILDE_DECL_MATRIX:
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
    case TILDE_DECL_CORR_MATRIX:
    case TILDE_DECL_COV_MATRIX:
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      return tilde_type_matrix ();
    case TILDE_DECL_COMPLEX_VECTOR: return tilde_type_complex_vector ();
    case TILDE_DECL_COMPLEX_ROW_VECTOR: return tilde_type_complex_row_vector ();
    case TILDE_DECL_COMPLEX_MATRIX: return tilde_type_complex_matrix ();
    case TILDE_DECL_ARRAY:
      {
        const TildeType *e = _tilde_sized_type (t->element);
        return e ? tilde_type_array_n (e, (guint) t->n_dims) : NULL;
      }
    case TILDE_DECL_TUPLE:
      {
        g_autofree const TildeType **m = g_new (const TildeType *, MAX (t->n_elements, 1));

        for (int i = 0; i < t->n_elements; i++)
          if ((m[i] = _tilde_sized_type (t->elements[i])) == NULL)
            return NULL;
        return tuple_of (m, t->n_elements);
      }
    }
  return NULL;
}

const TildeType *
_tilde_unsized_type (const TildeUnsizedType *t)
{
  switch (t->kind)
    {
    case TILDE_UTYPE_INT: return tilde_type_int ();
    case TILDE_UTYPE_REAL: return tilde_type_real ();
    case TILDE_UTYPE_COMPLEX: return tilde_type_complex ();
    case TILDE_UTYPE_VECTOR: return tilde_type_vector ();
    case TILDE_UTYPE_ROW_VECTOR: return tilde_type_row_vector ();
    case TILDE_UTYPE_MATRIX: return tilde_type_matrix ();
    case TILDE_UTYPE_COMPLEX_VECTOR: return tilde_type_complex_vector ();
    case TILDE_UTYPE_COMPLEX_ROW_VECTOR: return tilde_type_complex_row_vector ();
    case TILDE_UTYPE_COMPLEX_MATRIX: return tilde_type_complex_matrix ();
    case TILDE_UTYPE_VOID: return tilde_type_void ();
    case TILDE_UTYPE_ARRAY:
      {
        const TildeType *e = _tilde_unsized_type (t->element);
        return e ? tilde_type_array_n (e, (guint) t->n_dims) : NULL;
      }
    case TILDE_UTYPE_TUPLE:
      {
        g_autofree const TildeType **m = g_new (const TildeType *, MAX (t->n_elements, 1));

        for (int i = 0; i < t->n_elements; i++)
          if ((m[i] = _tilde_unsized_type (t->elements[i])) == NULL)
            return NULL;
        return tuple_of (m, t->n_elements);
      }
    }
  return NULL;
}

/* ------------------------------------------------------------ names */

gboolean
_tilde_check_fresh_variable (TildeChecker *c, const TildeIdent *id)
{
  if (_tilde_name_suffix (id->name) == TILDE_SUFFIX_LUPDF
      || _tilde_name_suffix (id->name) == TILDE_SUFFIX_LUPMF)
    {
      _tilde_check_error (c, &id->span, "Identifier '%s' has a _lupdf/_lupmf suffix, which is "
                          "only allowed for functions.", id->name);
      return FALSE;
    }
  if (tilde_scope_lookup_variable (c->scope, id->name))
    {
      _tilde_check_error (c, &id->span, "Identifier '%s' is already in use.", id->name);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ sizes */

static gboolean
check_size (TildeChecker *c, TildeExpr *e, const char *what)
{
  return e == NULL || _tilde_check_int_expr (c, e, what);
}

/* stanc's check_sizedtype: the element's sizes before the array's. */
static gboolean
check_sizes (TildeChecker *c, TildeSizedType *t)
{
  switch (t->kind)
    {
    case TILDE_DECL_INT:
    case TILDE_DECL_REAL:
    case TILDE_DECL_COMPLEX:
      return TRUE;
    case TILDE_DECL_VECTOR:
    case TILDE_DECL_ORDERED:
    case TILDE_DECL_POSITIVE_ORDERED:
    case TILDE_DECL_SIMPLEX:
    case TILDE_DECL_UNIT_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
      return check_size (c, t->size1, "Vector sizes");
    case TILDE_DECL_ROW_VECTOR:
      return check_size (c, t->size1, "Row vector sizes");
    case TILDE_DECL_COMPLEX_VECTOR:
      return check_size (c, t->size1, "complex vector sizes");
    case TILDE_DECL_COMPLEX_ROW_VECTOR:
      return check_size (c, t->size1, "complex row vector sizes");
    case TILDE_DECL_COMPLEX_MATRIX:
      return check_size (c, t->size1, "Complex matrix row size")
             && check_size (c, t->size2, "Complex matrix column size");
    case TILDE_DECL_MATRIX:
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
    case TILDE_DECL_CORR_MATRIX:
    case TILDE_DECL_COV_MATRIX:
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      /* the square types repeat their one size as the column size */
      return check_size (c, t->size1, "Matrix row size")
             && (t->size2 == NULL || check_size (c, t->size2, "Matrix column size"));
    case TILDE_DECL_ARRAY:
      {
        gboolean ok = check_sizes (c, t->element);

        for (int i = 0; i < t->n_dims && ok; i++)
          ok = check_size (c, t->dims[i], "Array sizes");
        return ok;
      }
    case TILDE_DECL_TUPLE:
      {
        gboolean ok = TRUE;

        for (int i = 0; i < t->n_elements; i++)
          ok &= check_sizes (c, t->elements[i]);
        return ok;
      }
    }
  return TRUE;
}

/* ------------------------------------------------------------ bounds */

static gboolean
check_bound (TildeChecker *c, TildeExpr *e, const char *what, const TildeType *declared)
{
  if (e == NULL)
    return TRUE;
  if (!_tilde_check_expr (c, e))
    return FALSE;
  if (tilde_type_is_scalar (e->type) || e->type == declared)
    return TRUE;
  {
    g_autofree char *found = _tilde_found_type (e->type);

    if (tilde_type_is_scalar (declared) || tilde_type_is_complex (declared))
      _tilde_check_error (c, &e->span, "@[%s must be a scalar.%s@]", what, found);
    else
      _tilde_check_error (c, &e->span, "@[%s must be a scalar or of type %s.%s@]", what,
                          _tilde_type_name (declared), found);
  }
  return FALSE;
}

static gboolean
check_bounds (TildeChecker *c, TildeBounds *b, const TildeType *declared)
{
  gboolean ok = check_bound (c, b->lower, "Lower bound", declared);

  ok = ok && check_bound (c, b->upper, "Upper bound", declared);
  ok = ok && check_bound (c, b->offset, "Offset", declared);
  return ok && check_bound (c, b->multiplier, "Multiplier", declared);
}

/* stanc's check_transformation: bounds are compared with the whole
 * declared type; a tuple's members each with their own type. */
static gboolean
check_transforms (TildeChecker *c, TildeSizedType *t, const TildeType *declared)
{
  TildeSizedType *elem = t->kind == TILDE_DECL_ARRAY ? t->element : t;

  if (elem->kind == TILDE_DECL_TUPLE)
    {
      const TildeType *tuple = tilde_type_array_base (declared);
      gboolean ok = TRUE;

      for (int i = 0; i < elem->n_elements && ok; i++)
        ok = check_transforms (c, elem->elements[i], tilde_type_member (tuple, (guint) i));
      return ok;
    }
  return check_bounds (c, &elem->bounds, declared);
}

static gboolean
has_bounds (const TildeSizedType *t)
{
  const TildeSizedType *elem = t->kind == TILDE_DECL_ARRAY ? t->element : t;

  return elem->bounds.lower || elem->bounds.upper || elem->bounds.offset
         || elem->bounds.multiplier || tilde_decl_type_kind_is_constrained (elem->kind);
}

static gboolean
real_bound (const TildeExpr *e)
{
  return e && e->type && tilde_type_is_real (e->type);
}

static gboolean
contains_int (const TildeType *t)
{
  const TildeType *base = tilde_type_array_base (t);

  if (tilde_type_kind (base) == TILDE_TYPE_TUPLE)
    {
      for (guint i = 0; i < tilde_type_n_members (base); i++)
        if (contains_int (tilde_type_member (base, i)))
          return TRUE;
      return FALSE;
    }
  return tilde_type_kind (base) == TILDE_TYPE_INT;
}

/* ------------------------------------------------------------ annotations */

static void
check_var_annotations (TildeChecker *c, TildeStmt *s)
{
  for (int i = 0; i < s->u.var_decl.n_annotations; i++)
    {
      const TildeAnnotation *a = &s->u.var_decl.annotations[i];
      const char *name = a->name.name;

      if (!_tilde_annotation_is_known (name))
        _tilde_check_warning (c, &a->span, "Unknown annotation '%s' will be ignored by the "
                              "compiler", name);
      else if (strcmp (name, "gpu") == 0
               && !(s->u.var_decl.is_global && (c->block == TILDE_BLOCK_DATA
                                                || c->block == TILDE_BLOCK_TRANSFORMED_DATA)))
        _tilde_check_warning (c, &a->span, "Annotation 'gpu' only applies to variables of the "
                              "data and transformed data blocks and will be ignored by the "
                              "compiler");
      else if (strcmp (name, "extern") == 0 || strcmp (name, "inline") == 0)
        _tilde_check_warning (c, &a->span, "Annotation '%s' only applies to functions and will "
                              "be ignored by the compiler", name);
    }
}

/* ------------------------------------------------------------ declarations */

static gboolean
mentions (const TildeExpr *e, const char *name)
{
  if (e == NULL)
    return FALSE;
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      return e->u.variable.name == name;
    case TILDE_EXPR_BINARY:
      return mentions (e->u.binary.lhs, name) || mentions (e->u.binary.rhs, name);
    case TILDE_EXPR_PREFIX:
      return mentions (e->u.prefix.operand, name);
    case TILDE_EXPR_TRANSPOSE:
      return mentions (e->u.transpose.operand, name);
    case TILDE_EXPR_TERNARY:
      return mentions (e->u.ternary.cond, name) || mentions (e->u.ternary.if_true, name)
             || mentions (e->u.ternary.if_false, name);
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      for (int i = 0; i < e->u.call.n_args; i++)
        if (mentions (e->u.call.args[i], name))
          return TRUE;
      return FALSE;
    case TILDE_EXPR_INDEXED:
      if (mentions (e->u.indexed.base, name))
        return TRUE;
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        if (mentions (e->u.indexed.indices[i].lower, name)
            || mentions (e->u.indexed.indices[i].upper, name))
          return TRUE;
      return FALSE;
    case TILDE_EXPR_TUPLE_PROJ:
      return mentions (e->u.proj.base, name);
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      for (int i = 0; i < e->u.list.n_items; i++)
        if (mentions (e->u.list.items[i], name))
          return TRUE;
      return FALSE;
    case TILDE_EXPR_PAREN:
      return mentions (e->u.paren.inner, name);
    default:
      return FALSE;
    }
}

static void
check_initial_value (TildeChecker *c, TildeStmt *s, TildeVariable *var, TildeExpr *init)
{
  if (!_tilde_check_expr (c, init) || var == NULL || var->type == NULL)
    return;
  if (!_tilde_assignable (var->type, init->type))
    _tilde_check_error (c, &s->span, "Ill-typed arguments supplied to assignment operator =:@ "
                        "@[<v2>The left hand side has type@ @[%s@]@]@ @[<v2>and the right hand "
                        "side has type@ @[%s@]@]", _tilde_type_name (var->type),
                        _tilde_type_name (init->type));
}

void
_tilde_check_var_decl (TildeChecker *c, TildeStmt *s)
{
  TildeSizedType *t = s->u.var_decl.type;
  gboolean global = s->u.var_decl.is_global;
  const TildeType *type;
  gboolean ok;

  check_var_annotations (c, s);
  c->in_toplevel_decl = global;
  ok = check_sizes (c, t);
  c->in_toplevel_decl = FALSE;
  type = _tilde_sized_type (t);
  if (type == NULL)
    return;
  ok = check_transforms (c, t, type) && ok;
  for (int i = 0; i < s->u.var_decl.n_items; i++)
    {
      TildeVarDeclItem *item = &s->u.var_decl.items[i];
      TildeVariable *var = NULL;

      item->checked_type = type;
      _tilde_check_variable_name (c, &item->ident);

      if (_tilde_check_identifier (c, item->ident.name, &item->ident.span)
          && _tilde_check_fresh_variable (c, &item->ident))
        {
          var = tilde_scope_new_variable (c->scope, item->ident.name, type,
                                          global ? TILDE_VAR_BLOCK : TILDE_VAR_LOCAL,
                                          c->block, &item->ident.span, s);
          tilde_scope_add_variable (c->scope, var);
        }
      if (item->init == NULL)
        continue;
      if (mentions (item->init, item->ident.name))
        _tilde_check_warning (c, &s->span, "Assignment of variable to itself during "
                              "declaration. This is almost certainly a bug.");
      check_initial_value (c, s, var, item->init);
    }
  if (!ok)
    return;
  if (global && t->kind == TILDE_DECL_INT
      && (real_bound (t->bounds.lower) || real_bound (t->bounds.upper)))
    {
      g_autofree char *found = _tilde_found_type (tilde_type_real ());
      _tilde_check_error (c, &s->span, "@[Bounds of integer variable must be of type int.%s@]",
                          found);
      return;
    }
  if (global && tilde_type_is_complex_type (type) && has_bounds (t))
    {
      _tilde_check_error (c, &s->span, "Complex types do not support transformations.");
      return;
    }
  if (global && (c->block == TILDE_BLOCK_PARAMETERS
                 || c->block == TILDE_BLOCK_TRANSFORMED_PARAMETERS) && contains_int (type))
    _tilde_check_error (c, &s->span, "(Transformed) Parameters cannot be integers.");
}
