/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <stdlib.h>
#include <string.h>

#include "syntax/printer.h"

/* ------------------------------------------------------------ identifiers */

gboolean
_tilde_check_identifier (TildeChecker *c, const char *name, const TildeSpan *span)
{
  if (c->model_name && strcmp (name, c->model_name) == 0)
    {
      _tilde_check_error (c, span, "Identifier '%s' clashes with model name.", name);
      return FALSE;
    }
  if (tilde_identifier_is_reserved (name))
    {
      _tilde_check_error (c, span, "Identifier '%s' clashes with reserved keyword.", name);
      return FALSE;
    }
  return TRUE;
}

void
_tilde_check_variable_name (TildeChecker *c, const TildeIdent *id)
{
  if (strcmp (id->name, "jacobian") == 0)
    _tilde_check_warning (c, &id->span, "Variable name 'jacobian' will be a reserved word "
                          "starting in Stan 2.38.0. Please rename it!");
}

/* ------------------------------------------------------------ AD levels */

TildeAdLevel
_tilde_ad_for_type (TildeAdLevel ad, const TildeType *type)
{
  return type && tilde_type_is_discrete (type) ? TILDE_AD_DATA : ad;
}

TildeAdLevel
_tilde_check_origin_ad (TildeChecker *c, TildeBlockKind origin, const TildeType *type)
{
  const TildeType *base = tilde_type_array_base (type);

  if (tilde_type_kind (base) == TILDE_TYPE_TUPLE)
    {
      /* a tuple is summarised by its most demanding member */
      for (guint i = 0; i < tilde_type_n_members (base); i++)
        if (_tilde_check_origin_ad (c, origin, tilde_type_member (base, i)) == TILDE_AD_AUTODIFF)
          return TILDE_AD_AUTODIFF;
      return TILDE_AD_DATA;
    }
  switch (origin)
    {
    case TILDE_BLOCK_PARAMETERS:
    case TILDE_BLOCK_TRANSFORMED_PARAMETERS:
    case TILDE_BLOCK_MODEL:
    case TILDE_BLOCK_FUNCTIONS:
      if (!tilde_type_is_discrete (base) && c->block != TILDE_BLOCK_GENERATED_QUANTITIES)
        return TILDE_AD_AUTODIFF;
      return TILDE_AD_DATA;
    default:
      return TILDE_AD_DATA;
    }
}

TildeAdLevel
_tilde_check_variable_ad (TildeChecker *c, const TildeVariable *var)
{
  return _tilde_check_origin_ad (c, var->origin, var->type);
}

static TildeAdLevel
lub (TildeAdLevel a, TildeAdLevel b)
{
  return tilde_ad_lub (a, b);
}

/* ------------------------------------------------------------ variables */

static gboolean
in_udf_distribution (const TildeChecker *c)
{
  return c->in_function && c->fun_kind == TILDE_FUN_LPDF;
}

static gboolean
is_unnormalized (const char *name)
{
  TildeNameSuffix sfx = _tilde_name_suffix (name);

  return sfx == TILDE_SUFFIX_LUPDF || sfx == TILDE_SUFFIX_LUPMF;
}

gboolean
_tilde_check_variable (TildeChecker *c, TildeExpr *e)
{
  const char *name = e->u.variable.name;
  const char *key = _tilde_normalized_name (name);
  TildeVariable *var = tilde_scope_lookup_variable (c->scope, key);
  TildeFunction *fn = var ? NULL : tilde_scope_lookup_function (c->scope, key);

  if (var == NULL && fn == NULL)
    {
      if (tilde_library_has_function (key))
        {
          e->type = tilde_type_math_function ();
          e->ad_level = TILDE_AD_DATA;
          return TRUE;
        }
      {
        const char *near = _tilde_check_nearest_ident (c, name);

        if (near)
          _tilde_check_error (c, &e->span, "@[Identifier '%s' not in scope.@ Did you mean '%s'?@]",
                              name, near);
        else
          _tilde_check_error (c, &e->span, "Identifier '%s' not in scope.", name);
      }
      return FALSE;
    }
  if (var && c->in_toplevel_decl
      && (var->origin == TILDE_BLOCK_PARAMETERS
          || var->origin == TILDE_BLOCK_TRANSFORMED_PARAMETERS
          || var->origin == TILDE_BLOCK_GENERATED_QUANTITIES)
      && var->role != TILDE_VAR_ARGUMENT)
    {
      _tilde_check_error (c, &e->span,
                          "Non-data variables are not allowed in top level size declarations.");
      return FALSE;
    }
  if (is_unnormalized (name)
      && !(in_udf_distribution (c) || (c->in_function && c->fun_kind == TILDE_FUN_LP)
           || c->block == TILDE_BLOCK_MODEL))
    {
      _tilde_check_error (c, &e->span,
                          "Functions with names ending in _lupdf and _lupmf can only be used "
                            "in the model block or user-defined functions with names ending in "
                            "_lpdf or _lpmf.");
      return FALSE;
    }
  if (var)
    {
      e->u.variable.decl = var;
      e->type = var->type;
      e->ad_level = _tilde_check_variable_ad (c, var);
      return TRUE;
    }
  e->u.variable.decl = fn;
  e->type = fn->type;
  if (tilde_type_fun_kind (fn->type) == TILDE_FUN_LPDF
      || tilde_type_fun_kind (fn->type) == TILDE_FUN_LUPDF)
    e->type = tilde_type_function_with_kind (fn->type, tilde_fun_kind_from_name (name));
  e->ad_level = _tilde_check_origin_ad (c, TILDE_BLOCK_FUNCTIONS, e->type);
  return TRUE;
}

/* ------------------------------------------------------------ typed helpers */

gboolean
_tilde_check_int_expr (TildeChecker *c, TildeExpr *e, const char *what)
{
  if (!_tilde_check_expr (c, e))
    return FALSE;
  if (!tilde_type_is_int (e->type))
    {
      g_autofree char *found = _tilde_found_type (e->type);
      _tilde_check_error (c, &e->span, "@[%s must be of type int.%s@]", what, found);
      return FALSE;
    }
  return TRUE;
}

gboolean
_tilde_check_int_or_real_expr (TildeChecker *c, TildeExpr *e, const char *what)
{
  if (!_tilde_check_expr (c, e))
    return FALSE;
  if (!tilde_type_is_scalar (e->type))
    {
      g_autofree char *found = _tilde_found_type (e->type);
      _tilde_check_error (c, &e->span, "@[%s must be of type int or real.%s@]", what, found);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ operators */

static TildeOperator
binary_operator (TildeBinaryOp op)
{
  switch (op)
    {
    case TILDE_OP_OR: return TILDE_OPERATOR_OR;
    case TILDE_OP_AND: return TILDE_OPERATOR_AND;
    case TILDE_OP_EQUALS: return TILDE_OPERATOR_EQUALS;
    case TILDE_OP_NEQUALS: return TILDE_OPERATOR_NOT_EQUALS;
    case TILDE_OP_LESS: return TILDE_OPERATOR_LESS;
    case TILDE_OP_LEQ: return TILDE_OPERATOR_LESS_EQUAL;
    case TILDE_OP_GREATER: return TILDE_OPERATOR_GREATER;
    case TILDE_OP_GEQ: return TILDE_OPERATOR_GREATER_EQUAL;
    case TILDE_OP_PLUS: return TILDE_OPERATOR_ADD;
    case TILDE_OP_MINUS: return TILDE_OPERATOR_SUBTRACT;
    case TILDE_OP_TIMES: return TILDE_OPERATOR_MULTIPLY;
    case TILDE_OP_DIVIDE: return TILDE_OPERATOR_DIVIDE;
    case TILDE_OP_MODULO: return TILDE_OPERATOR_MODULO;
    case TILDE_OP_ELT_TIMES: return TILDE_OPERATOR_ELT_MULTIPLY;
    case TILDE_OP_ELT_DIVIDE: return TILDE_OPERATOR_ELT_DIVIDE;
    case TILDE_OP_IDIVIDE: return TILDE_OPERATOR_INT_DIVIDE;
    case TILDE_OP_LDIVIDE: return TILDE_OPERATOR_LEFT_DIVIDE;
    case TILDE_OP_POW: return TILDE_OPERATOR_POW;
    case TILDE_OP_ELT_POW: return TILDE_OPERATOR_ELT_POW;
    default: return TILDE_OPERATOR_ADD;
    }
}

static gboolean
is_comparison (TildeBinaryOp op)
{
  return op >= TILDE_OP_EQUALS && op <= TILDE_OP_GEQ;
}

static const TildeExpr *
strip_parens (const TildeExpr *e)
{
  while (e->kind == TILDE_EXPR_PAREN)
    e = e->u.paren.inner;
  return e;
}

/* stanc's hint for an int division: "x / y" becomes "x * 1.0 / y". */
static void
warn_int_division (TildeChecker *c, const TildeExpr *e)
{
  const TildeExpr *l = e->u.binary.lhs, *r = e->u.binary.rhs;
  g_autofree char *whole = tilde_print_expr (e);
  g_autofree char *ls = tilde_print_expr (l);
  g_autofree char *rs = tilde_print_expr (r);
  g_autofree char *hint = NULL;

  if (l->kind == TILDE_EXPR_INT)
    hint = g_strdup_printf ("%s.0 / %s", l->u.literal.text, rs);
  else if (r->kind == TILDE_EXPR_INT)
    hint = g_strdup_printf ("%s / %s.0", ls, r->u.literal.text);
  else
    hint = g_strdup_printf ("%s * 1.0 / %s", ls, rs);
  _tilde_check_warning (c, &l->span,
                        "@[<v>Found int division:@,    @[<hov 2>%s@]@,Values will be rounded "
                        "towards zero. If rounding is not desired you can write the division "
                        "as@,    @[<hov 2>%s@]@,If rounding is intended please use the integer "
                        "division operator %%/%%.@]", whole, hint);
}

static void
warn_matrix_power (TildeChecker *c, const TildeExpr *e)
{
  g_autofree char *whole = tilde_print_expr (e);
  g_autofree char *ls = tilde_print_expr (e->u.binary.lhs);
  g_autofree char *rs = tilde_print_expr (e->u.binary.rhs);

  _tilde_check_warning (c, &e->u.binary.lhs->span,
                        "@[<v>Found matrix^scalar:@,    @[<hov 2>%s@]@,matrix ^ number is "
                        "interpreted as element-wise exponentiation. If this is intended, you "
                        "can silence this warning by using elementwise operator .^@ If you "
                        "intended matrix exponentiation, use@,    @[<hov 2>matrix_power(%s, "
                        "%s)@]@,instead.@]", whole, ls, rs);
}

static void
warn_chained_comparison (TildeChecker *c, const TildeExpr *e)
{
  const TildeExpr *inner = e->u.binary.lhs;
  g_autofree char *whole = tilde_print_expr (e);
  g_autofree char *l = tilde_print_expr (inner);
  g_autofree char *r = tilde_print_expr (e->u.binary.rhs);
  g_autofree char *a = tilde_print_expr (inner->u.binary.lhs);
  g_autofree char *b = tilde_print_expr (inner->u.binary.rhs);
  const char *op = tilde_binary_op_to_string (e->u.binary.op);
  const char *op2 = tilde_binary_op_to_string (inner->u.binary.op);

  _tilde_check_warning (c, &e->span,
                        "@[<v>Found chained comparison@,    @[<hov 2>%s@]@,This is interpreted "
                        "as@,    @[<hov 2>(%s) %s %s@]@,Consider if the intended meaning "
                        "was@,    @[<hov 2>%s %s %s && %s %s %s@]@,instead. You can silence "
                        "this warning by adding explicit parentheses. This can be automatically "
                        "changed using the canonicalize flag for stanc@]",
                        whole, l, op, r, a, op2, b, b, op, r);
}

static void
binary_warnings (TildeChecker *c, const TildeExpr *e)
{
  const TildeType *lt = e->u.binary.lhs->type, *rt = e->u.binary.rhs->type;
  TildeBinaryOp op = e->u.binary.op;

  if (op == TILDE_OP_DIVIDE && tilde_type_is_int (lt) && tilde_type_is_int (rt))
    warn_int_division (c, e);
  else if (op == TILDE_OP_POW && tilde_type_is_scalar (rt)
           && (lt == tilde_type_matrix () || lt == tilde_type_array (tilde_type_matrix ())))
    warn_matrix_power (c, e);
  else if (is_comparison (op) && e->u.binary.lhs->kind == TILDE_EXPR_BINARY
           && is_comparison (e->u.binary.lhs->u.binary.op))
    warn_chained_comparison (c, e);
}

static gboolean
check_operator (TildeChecker *c, TildeExpr *e, TildeOperator op, TildeExpr **operands, guint n)
{
  TildeArgType args[2];
  TildeMatch match;
  char *message = NULL;

  for (guint i = 0; i < n; i++)
    {
      args[i].ad = operands[i]->ad_level;
      args[i].type = operands[i]->type;
    }
  if (_tilde_cached_operator_resolve (op, args, n, &match) != TILDE_MATCH_UNIQUE)
    {
      tilde_library_resolve_operator (op, args, n, &match, &message);
      _tilde_check_error_take (c, &e->span, message ? message
                               : g_strdup ("Ill-typed arguments supplied to operator."));
      return FALSE;
    }
  e->type = match.return_type;
  e->ad_level = n == 2 ? lub (args[0].ad, args[1].ad) : args[0].ad;
  return TRUE;
}

static gboolean
check_binary (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *operands[2] = { e->u.binary.lhs, e->u.binary.rhs };
  gboolean ok = _tilde_check_expr (c, operands[0]);

  ok &= _tilde_check_expr (c, operands[1]);
  if (!ok)
    return FALSE;
  binary_warnings (c, e);
  return check_operator (c, e, binary_operator (e->u.binary.op), operands, 2);
}

static gboolean
check_prefix (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *operand = e->u.prefix.operand;
  TildeOperator op = e->u.prefix.op == TILDE_OP_NOT ? TILDE_OPERATOR_NOT
                     : e->u.prefix.op == TILDE_OP_NEGATE ? TILDE_OPERATOR_MINUS
                     : TILDE_OPERATOR_PLUS;

  if (!_tilde_check_expr (c, operand))
    return FALSE;
  return check_operator (c, e, op, &operand, 1);
}

static gboolean
check_transpose (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *operand = e->u.transpose.operand;

  if (!_tilde_check_expr (c, operand))
    return FALSE;
  return check_operator (c, e, TILDE_OPERATOR_TRANSPOSE, &operand, 1);
}

static gboolean
is_function_type (const TildeType *t)
{
  return tilde_type_kind (t) == TILDE_TYPE_FUNCTION
         || tilde_type_kind (t) == TILDE_TYPE_MATH_FUNCTION;
}

static gboolean
check_ternary (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *cond = e->u.ternary.cond, *t = e->u.ternary.if_true, *f = e->u.ternary.if_false;
  gboolean ok = _tilde_check_expr (c, cond);
  const TildeType *common;

  ok &= _tilde_check_expr (c, t);
  ok &= _tilde_check_expr (c, f);
  if (!ok)
    return FALSE;
  common = tilde_type_common (t->type, f->type);
  if (tilde_type_is_int (cond->type) && common && !is_function_type (common))
    {
      e->type = common;
      e->ad_level = lub (cond->ad_level, lub (t->ad_level, f->ad_level));
      return TRUE;
    }
  if (!tilde_type_is_int (cond->type))
    {
      g_autofree char *found = _tilde_found_type (cond->type);
      _tilde_check_error (c, &e->span,
                          "@[Condition in ternary expression must be type int.%s@]", found);
    }
  else if (is_function_type (t->type))
    _tilde_check_error (c, &e->span, "Ternary expression cannot have a function type: %s",
                        _tilde_type_name (t->type));
  else
    _tilde_check_error (c, &e->span,
                        "Type mismatch in ternary expression, expression when true is: %s; "
                        "expression when false is: %s",
                        _tilde_type_name (t->type), _tilde_type_name (f->type));
  return FALSE;
}

/* ------------------------------------------------------------ literals */

static gboolean
check_int_literal (TildeChecker *c, TildeExpr *e)
{
  double v = tilde_literal_value (e->u.literal.text);

  if (!(v < 2147483648.0))
    {
      _tilde_check_error (c, &e->span, "Integer literal cannot be larger than 2_147_483_647.");
      return FALSE;
    }
  e->type = tilde_type_int ();
  e->ad_level = TILDE_AD_DATA;
  return TRUE;
}

static gboolean
check_items (TildeChecker *c, TildeExpr *e)
{
  gboolean ok = TRUE;

  for (int i = 0; i < e->u.list.n_items; i++)
    ok &= _tilde_check_expr (c, e->u.list.items[i]);
  return ok;
}

/* stanc's get_consistent_types: the common type of `start` and every item;
 * on failure *bad is the first item that does not fit. */
static const TildeType *
consistent_type (TildeExpr *e, const TildeType *start, TildeAdLevel *ad, TildeExpr **bad,
                 const TildeType **so_far)
{
  const TildeType *t = start;

  *ad = TILDE_AD_DATA;
  for (int i = 0; i < e->u.list.n_items; i++)
    {
      TildeExpr *item = e->u.list.items[i];
      const TildeType *next = tilde_type_common (t, item->type);

      if (next == NULL)
        {
          *bad = item;
          *so_far = t;
          return NULL;
        }
      t = next;
      *ad = lub (*ad, item->ad_level);
    }
  return t;
}

static gboolean
check_array_expr (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *bad = NULL;
  const TildeType *so_far = NULL, *t;
  TildeAdLevel ad;

  if (!check_items (c, e))
    return FALSE;
  if (e->u.list.n_items == 0)
    {
      _tilde_check_error (c, &e->span, "Array expressions must contain at least one element.");
      return FALSE;
    }
  t = consistent_type (e, e->u.list.items[0]->type, &ad, &bad, &so_far);
  if (t == NULL)
    {
      _tilde_check_error (c, &bad->span,
                          "Array expression must have entries of consistent type. Expected %s "
                          "but found %s.", _tilde_type_name (so_far), _tilde_type_name (bad->type));
      return FALSE;
    }
  e->type = tilde_type_array (t);
  /* the items' least upper bound, as stanc has it, even for ints: {a > 2}
   * depends on the parameter a and is not data */
  e->ad_level = ad;
  return TRUE;
}

static gboolean
check_row_vector_expr (TildeChecker *c, TildeExpr *e)
{
  const TildeType *first = e->u.list.n_items ? e->u.list.items[0]->type : NULL;
  const TildeType *start, *t, *so_far = NULL;
  TildeExpr *bad = NULL;
  TildeAdLevel ad;
  gboolean rows;

  if (!check_items (c, e))
    return FALSE;
  first = e->u.list.n_items ? e->u.list.items[0]->type : NULL;
  rows = first == tilde_type_row_vector () || first == tilde_type_complex_row_vector ();
  start = rows ? first : tilde_type_real ();
  t = consistent_type (e, start, &ad, &bad, &so_far);
  if (t == NULL)
    {
      const TildeType *expected[3];
      g_autofree char *list = NULL;
      g_autofree char *found = _tilde_found_type (bad->type);

      if (rows)
        {
          expected[0] = tilde_type_row_vector ();
          expected[1] = tilde_type_complex_row_vector ();
          list = _tilde_expected_types (expected, 2);
          _tilde_check_error (c, &bad->span, "@[Matrix expression must have all %s entries.%s@]",
                              list, found);
        }
      else
        {
          expected[0] = tilde_type_int ();
          expected[1] = tilde_type_real ();
          expected[2] = tilde_type_complex ();
          list = _tilde_expected_types (expected, 3);
          _tilde_check_error (c, &bad->span,
                              "@[Row vector expression must have all %s entries.%s@]", list, found);
        }
      return FALSE;
    }
  if (rows)
    e->type = t == tilde_type_complex_row_vector () ? tilde_type_complex_matrix ()
                                                    : tilde_type_matrix ();
  else
    e->type = t == tilde_type_complex () ? tilde_type_complex_row_vector ()
                                         : tilde_type_row_vector ();
  e->ad_level = ad;
  return TRUE;
}

static gboolean
check_tuple_expr (TildeChecker *c, TildeExpr *e)
{
  const TildeType *small[8] = { NULL };
  const TildeType **members;
  TildeAdLevel ad = TILDE_AD_DATA;
  int n = e->u.list.n_items;

  if (!check_items (c, e))
    return FALSE;
  if (n == 0)
    {
      _tilde_check_error (c, &e->span, "Tuple expressions must contain at least one element.");
      return FALSE;
    }
  members = n <= 8 ? small : g_new (const TildeType *, n);
  for (int i = 0; i < n; i++)
    {
      members[i] = e->u.list.items[i]->type;
      ad = lub (ad, e->u.list.items[i]->ad_level);
    }
  e->type = tilde_type_tuple ((guint) n, members);
  e->ad_level = ad;
  if (members != small)
    g_free (members);
  return TRUE;
}

/* ------------------------------------------------------------ indexing */

gboolean
_tilde_check_index (TildeChecker *c, TildeIndex *index)
{
  switch (index->kind)
    {
    case TILDE_INDEX_ALL:
      return TRUE;
    case TILDE_INDEX_SINGLE:
      if (!_tilde_check_expr (c, index->lower))
        return FALSE;
      if (tilde_type_is_int (index->lower->type)
          || index->lower->type == tilde_type_array (tilde_type_int ()))
        return TRUE;
      {
        const TildeType *expected[2] = { tilde_type_int (), tilde_type_array (tilde_type_int ()) };
        g_autofree char *list = _tilde_expected_types (expected, 2);
        g_autofree char *found = _tilde_found_type (index->lower->type);

        _tilde_check_error (c, &index->lower->span,
                            "@[Index must be of type %s or must be a range (int:int).%s@]",
                            list, found);
      }
      return FALSE;
    case TILDE_INDEX_UPFROM:
      return _tilde_check_int_expr (c, index->lower, "Range bound");
    case TILDE_INDEX_DOWNFROM:
      return _tilde_check_int_expr (c, index->upper, "Range bound");
    case TILDE_INDEX_BETWEEN:
      {
        gboolean ok = _tilde_check_int_expr (c, index->lower, "Range bound");

        return _tilde_check_int_expr (c, index->upper, "Range bound") && ok;
      }
    }
  return FALSE;
}

static gboolean
is_single (const TildeIndex *index)
{
  return index->kind == TILDE_INDEX_SINGLE && tilde_type_is_int (index->lower->type);
}

static gboolean
is_vector_like (const TildeType *t)
{
  TildeTypeKind k = tilde_type_kind (t);

  return k == TILDE_TYPE_VECTOR || k == TILDE_TYPE_ROW_VECTOR
         || k == TILDE_TYPE_COMPLEX_VECTOR || k == TILDE_TYPE_COMPLEX_ROW_VECTOR;
}

static gboolean
is_matrix_like (const TildeType *t)
{
  return tilde_type_kind (t) == TILDE_TYPE_MATRIX
         || tilde_type_kind (t) == TILDE_TYPE_COMPLEX_MATRIX;
}

/* stanc's inferred_unsizedtype_of_indexed; NULL when not indexable. */
static const TildeType *
indexed_type (const TildeType *t, const TildeIndex *idx, int n)
{
  gboolean complex = tilde_type_is_complex_type (t);
  const TildeType *scalar = complex ? tilde_type_complex () : tilde_type_real ();
  const TildeType *vec = complex ? tilde_type_complex_vector () : tilde_type_vector ();
  const TildeType *rowvec = complex ? tilde_type_complex_row_vector () : tilde_type_row_vector ();

  if (n == 0)
    return t;
  if (tilde_type_kind (t) == TILDE_TYPE_ARRAY)
    {
      const TildeType *inner = indexed_type (tilde_type_element (t), idx + 1, n - 1);

      if (inner == NULL)
        return NULL;
      return is_single (&idx[0]) ? inner : tilde_type_array (inner);
    }
  if (is_vector_like (t))
    {
      if (n != 1)
        return NULL;
      return is_single (&idx[0]) ? scalar : t;
    }
  if (is_matrix_like (t))
    {
      if (n == 1)
        return is_single (&idx[0]) ? rowvec : t;
      if (n != 2)
        return NULL;
      if (is_single (&idx[0]))
        return is_single (&idx[1]) ? scalar : rowvec;
      return is_single (&idx[1]) ? vec : t;
    }
  return NULL;
}

const TildeType *
_tilde_check_indexed_type (TildeChecker *c, const TildeSpan *span, const TildeType *base,
                           const TildeIndex *indices, int n)
{
  const TildeType *t = indexed_type (base, indices, n);

  if (t)
    return t;
  if (tilde_type_is_scalar (base))
    _tilde_check_error (c, span, "Tried to index a scalar type. Expression has type %s.",
                        _tilde_type_name (base));
  else
    _tilde_check_error (c, span, "Too many indexes, expression dimensions=%u, indexes found=%d.",
                        tilde_type_count_dims (base), n);
  return NULL;
}

TildeAdLevel
_tilde_check_index_ad (const TildeIndex *indices, int n, TildeAdLevel base)
{
  TildeAdLevel ad = base;

  for (int i = 0; i < n; i++)
    {
      if (indices[i].lower)
        ad = lub (ad, indices[i].lower->ad_level);
      if (indices[i].upper)
        ad = lub (ad, indices[i].upper->ad_level);
    }
  return ad;
}

static gboolean
check_indexed (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *base = e->u.indexed.base;
  gboolean ok = TRUE;

  /* stanc checks the indices before what they index */
  for (int i = 0; i < e->u.indexed.n_indices; i++)
    ok &= _tilde_check_index (c, &e->u.indexed.indices[i]);
  ok &= _tilde_check_expr (c, base);
  if (!ok)
    return FALSE;
  e->type = _tilde_check_indexed_type (c, &e->span, base->type, e->u.indexed.indices,
                                       e->u.indexed.n_indices);
  if (e->type == NULL)
    return FALSE;
  e->ad_level = _tilde_ad_for_type (_tilde_check_index_ad (e->u.indexed.indices,
                                                           e->u.indexed.n_indices,
                                                           base->ad_level), e->type);
  return TRUE;
}

static gboolean
check_projection (TildeChecker *c, TildeExpr *e)
{
  TildeExpr *base = e->u.proj.base;
  guint n;

  if (!_tilde_check_expr (c, base))
    return FALSE;
  if (tilde_type_kind (base->type) != TILDE_TYPE_TUPLE)
    {
      _tilde_check_error (c, &e->span,
                          "Tried to index a non-tuple type. Expression has type %s.",
                          _tilde_type_name (base->type));
      return FALSE;
    }
  n = tilde_type_n_members (base->type);
  if (e->u.proj.slot < 1 || (guint) e->u.proj.slot > n)
    {
      _tilde_check_error (c, &e->span, "Tried to access index %d for a tuple of length %u.@ "
                          "Only indices indices between 1 and %u are valid.",
                          e->u.proj.slot, n, n);
      return FALSE;
    }
  e->type = tilde_type_member (base->type, (guint) e->u.proj.slot - 1);
  /* a tuple's level summarises its members; a literal still knows each one */
  if (strip_parens (base)->kind == TILDE_EXPR_TUPLE)
    e->ad_level = strip_parens (base)->u.list.items[e->u.proj.slot - 1]->ad_level;
  else
    e->ad_level = _tilde_ad_for_type (base->ad_level, e->type);
  return TRUE;
}

/* ------------------------------------------------------------ dispatch */

static gboolean
check_target (TildeChecker *c, TildeExpr *e)
{
  if (!((c->in_function && c->fun_kind == TILDE_FUN_LP) || c->block == TILDE_BLOCK_MODEL
        || c->block == TILDE_BLOCK_TRANSFORMED_PARAMETERS))
    {
      _tilde_check_error (c, &e->span, "Target can only be accessed in the model block or in "
                          "definitions of functions with the suffix _lp.");
      return FALSE;
    }
  e->type = tilde_type_real ();
  e->ad_level = _tilde_check_origin_ad (c, c->block, e->type);
  return TRUE;
}

static gboolean
check_expr_kind (TildeChecker *c, TildeExpr *e)
{
  switch (e->kind)
    {
    case TILDE_EXPR_ERROR:
      return FALSE;
    case TILDE_EXPR_VARIABLE:
      if (!_tilde_check_identifier (c, e->u.variable.name, &e->span))
        return FALSE;
      return _tilde_check_variable (c, e);
    case TILDE_EXPR_INT:
      return check_int_literal (c, e);
    case TILDE_EXPR_REAL:
      e->type = tilde_type_real ();
      return TRUE;
    case TILDE_EXPR_IMAG:
      e->type = tilde_type_complex ();
      return TRUE;
    case TILDE_EXPR_STRING:
      e->type = tilde_type_string ();
      return TRUE;
    case TILDE_EXPR_BINARY:
      return check_binary (c, e);
    case TILDE_EXPR_PREFIX:
      return check_prefix (c, e);
    case TILDE_EXPR_TRANSPOSE:
      return check_transpose (c, e);
    case TILDE_EXPR_TERNARY:
      return check_ternary (c, e);
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      return _tilde_check_call_expr (c, e);
    case TILDE_EXPR_TARGET:
      return check_target (c, e);
    case TILDE_EXPR_INDEXED:
      return check_indexed (c, e);
    case TILDE_EXPR_TUPLE_PROJ:
      return check_projection (c, e);
    case TILDE_EXPR_ARRAY:
      return check_array_expr (c, e);
    case TILDE_EXPR_ROW_VECTOR:
      return check_row_vector_expr (c, e);
    case TILDE_EXPR_TUPLE:
      return check_tuple_expr (c, e);
    case TILDE_EXPR_PAREN:
      if (!_tilde_check_expr (c, e->u.paren.inner))
        return FALSE;
      e->type = e->u.paren.inner->type;
      e->ad_level = e->u.paren.inner->ad_level;
      return TRUE;
    }
  return FALSE;
}

gboolean
_tilde_check_expr (TildeChecker *c, TildeExpr *e)
{
  e->type = NULL;
  e->ad_level = TILDE_AD_DATA;
  if (!check_expr_kind (c, e))
    {
      e->type = NULL;
      return FALSE;
    }
  return TRUE;
}
