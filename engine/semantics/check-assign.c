/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

gboolean
_tilde_assignable (const TildeType *lhs, const TildeType *rhs)
{
  return lhs == rhs || tilde_type_promotion_cost (lhs, rhs) >= 0;
}

static gboolean
holds_function (const TildeType *t)
{
  TildeTypeKind k = tilde_type_kind (t);

  if (k == TILDE_TYPE_FUNCTION || k == TILDE_TYPE_MATH_FUNCTION)
    return TRUE;
  if (k == TILDE_TYPE_TUPLE)
    for (guint i = 0; i < tilde_type_n_members (t); i++)
      if (holds_function (tilde_type_member (t, i)))
        return TRUE;
  return FALSE;
}

static const TildeType *
first_function (const TildeType *t)
{
  if (tilde_type_kind (t) != TILDE_TYPE_TUPLE)
    return t;
  for (guint i = 0; i < tilde_type_n_members (t); i++)
    if (holds_function (tilde_type_member (t, i)))
      return first_function (tilde_type_member (t, i));
  return t;
}

gboolean
_tilde_check_not_function (TildeChecker *c, const TildeSpan *span, const char *name,
                           const TildeType *rhs)
{
  if (!holds_function (rhs))
    return TRUE;
  _tilde_check_error (c, span, "Cannot assign a function type '%s' to variable '%s'.",
                      _tilde_type_name (first_function (rhs)), name);
  return FALSE;
}

/* ------------------------------------------------------------ lvalues */

static const TildeExpr *
base_variable (const TildeExpr *e)
{
  for (;;)
    switch (e->kind)
      {
      case TILDE_EXPR_INDEXED: e = e->u.indexed.base; break;
      case TILDE_EXPR_TUPLE_PROJ: e = e->u.proj.base; break;
      case TILDE_EXPR_PAREN: e = e->u.paren.inner; break;
      default: return e;
      }
}

/* stanc's verify_assignable_id: declared in this block, not read-only. */
static gboolean
check_assignable (TildeChecker *c, TildeExpr *e)
{
  const char *name = e->u.variable.name;
  TildeVariable *var = tilde_scope_lookup_variable (c->scope, name);
  TildeBlockKind block;
  gboolean global;

  if (var)
    {
      block = var->block;
      global = var->role == TILDE_VAR_BLOCK;
    }
  else if (tilde_scope_lookup_function (c->scope, name))
    {
      block = TILDE_BLOCK_FUNCTIONS;
      global = TRUE;
    }
  else if (tilde_library_has_function (name))
    {
      block = TILDE_N_BLOCKS;   /* the library: never this block */
      global = TRUE;
    }
  else
    {
      const char *near = _tilde_check_nearest_ident (c, name);

      if (near)
        _tilde_check_error (c, &e->span, "@[Identifier '%s' not in scope.@ Did you mean '%s'?@]",
                            name, near);
      else
        _tilde_check_error (c, &e->span, "Identifier '%s' not in scope.", name);
      return FALSE;
    }
  if (global && block != c->block)
    {
      _tilde_check_error (c, &e->span, "Cannot assign to global variable '%s' declared in "
                          "previous blocks.", name);
      return FALSE;
    }
  if (var && var->readonly)
    {
      _tilde_check_error (c, &e->span, "Cannot assign to function argument or loop identifier "
                          "'%s'.", name);
      return FALSE;
    }
  return TRUE;
}

static gboolean check_lvalue (TildeChecker *c, TildeExpr *e);

static gboolean
is_multi (const TildeIndex *index)
{
  return !(index->kind == TILDE_INDEX_SINGLE && tilde_type_is_int (index->lower->type));
}

/* An indexed lvalue; *nested_multi says whether an inner layer of indexing
 * (not this one) has a multi-index. */
static gboolean
check_indexed_lvalue (TildeChecker *c, TildeExpr *e, gboolean *nested_multi)
{
  TildeExpr *base = e->u.indexed.base;
  gboolean ok = TRUE;

  *nested_multi = FALSE;
  if (base->kind == TILDE_EXPR_INDEXED)
    {
      gboolean inner_multi;

      if (!check_indexed_lvalue (c, base, &inner_multi))
        return FALSE;
      *nested_multi = inner_multi;
      for (int i = 0; i < base->u.indexed.n_indices; i++)
        *nested_multi |= is_multi (&base->u.indexed.indices[i]);
    }
  else if (!check_lvalue (c, base))
    return FALSE;
  for (int i = 0; i < e->u.indexed.n_indices; i++)
    ok &= _tilde_check_index (c, &e->u.indexed.indices[i]);
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
check_lvalue (TildeChecker *c, TildeExpr *e)
{
  e->type = NULL;
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      if (!_tilde_check_identifier (c, e->u.variable.name, &e->span)
          || !check_assignable (c, e))
        return FALSE;
      if (!_tilde_check_variable (c, e))
        {
          e->type = NULL;
          return FALSE;
        }
      return TRUE;
    case TILDE_EXPR_TUPLE_PROJ:
      {
        TildeExpr *base = e->u.proj.base;
        guint n;

        if (!check_lvalue (c, base))
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
            _tilde_check_error (c, &e->span, "Tried to access index %d for a tuple of length "
                                "%u.@ Only indices indices between 1 and %u are valid.",
                                e->u.proj.slot, n, n);
            return FALSE;
          }
        e->type = tilde_type_member (base->type, (guint) e->u.proj.slot - 1);
        e->ad_level = _tilde_ad_for_type (base->ad_level, e->type);
        return TRUE;
      }
    case TILDE_EXPR_INDEXED:
      {
        gboolean nested_multi;

        if (!check_indexed_lvalue (c, e, &nested_multi))
          {
            e->type = NULL;
            return FALSE;
          }
        if (nested_multi)
          {
            _tilde_check_error (c, &e->span, "Left hand side of an assignment cannot have "
                                "nested multi-indexing.");
            e->type = NULL;
            return FALSE;
          }
        return TRUE;
      }
    case TILDE_EXPR_PAREN:
      if (!check_lvalue (c, e->u.paren.inner))
        return FALSE;
      e->type = e->u.paren.inner->type;
      e->ad_level = e->u.paren.inner->ad_level;
      return TRUE;
    case TILDE_EXPR_TUPLE:
      {
        const TildeType **members = g_new (const TildeType *, MAX (e->u.list.n_items, 1));
        gboolean ok = TRUE;

        for (int i = 0; i < e->u.list.n_items; i++)
          {
            ok &= check_lvalue (c, e->u.list.items[i]);
            members[i] = e->u.list.items[i]->type;
            if (e->u.list.items[i]->ad_level == TILDE_AD_AUTODIFF)
              e->ad_level = TILDE_AD_AUTODIFF;
          }
        if (ok && e->u.list.n_items > 0)
          e->type = tilde_type_tuple ((guint) e->u.list.n_items, members);
        g_free (members);
        return e->type != NULL;
      }
    default:
      return _tilde_check_expr (c, e);
    }
}

/* ------------------------------------------------------------ unpacking */

/* What one lvalue writes, as stanc compares them: the variable and its
 * projections, indexing ignored ("x.2"), and how it is shown ("x[...].2"). */
typedef struct {
  char *path;
  char *shown;
  const TildeExpr *lvalue;
} Written;

static void
written_clear (gpointer p)
{
  Written *w = p;

  g_free (w->path);
  g_free (w->shown);
}

static void
describe_lvalue (const TildeExpr *e, GString *path, GString *shown)
{
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      g_string_append (path, e->u.variable.name);
      g_string_append (shown, e->u.variable.name);
      break;
    case TILDE_EXPR_INDEXED:
      describe_lvalue (e->u.indexed.base, path, shown);
      g_string_append (shown, "[...]");
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      describe_lvalue (e->u.proj.base, path, shown);
      g_string_append_printf (path, ".%d", e->u.proj.slot);
      g_string_append_printf (shown, ".%d", e->u.proj.slot);
      break;
    case TILDE_EXPR_PAREN:
      describe_lvalue (e->u.paren.inner, path, shown);
      break;
    default:
      break;
    }
}

/* Whole tuples stand for all their slots. */
static void
add_written (GArray *out, const TildeExpr *lv, const TildeType *type, const char *path,
             const char *shown)
{
  const TildeType *base = tilde_type_array_base (type);

  if (tilde_type_kind (base) == TILDE_TYPE_TUPLE)
    {
      for (guint i = 0; i < tilde_type_n_members (base); i++)
        {
          g_autofree char *p = g_strdup_printf ("%s.%u", path, i + 1);
          g_autofree char *s = g_strdup_printf ("%s.%u", shown, i + 1);

          add_written (out, lv, tilde_type_member (base, i), p, s);
        }
      return;
    }
  {
    Written w = { g_strdup (path), g_strdup (shown), lv };
    g_array_append_val (out, w);
  }
}

static void
collect_written (const TildeExpr *lhs, GArray *out)
{
  if (lhs->kind == TILDE_EXPR_TUPLE)
    {
      for (int i = 0; i < lhs->u.list.n_items; i++)
        collect_written (lhs->u.list.items[i], out);
      return;
    }
  {
    g_autoptr (GString) path = g_string_new (NULL);
    g_autoptr (GString) shown = g_string_new (NULL);

    describe_lvalue (lhs, path, shown);
    add_written (out, lhs, lhs->type, path->str, shown->str);
  }
}

static void
collect_ids (const TildeExpr *e, GHashTable *ids)
{
  if (e == NULL)
    return;
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      g_hash_table_add (ids, (gpointer) e->u.variable.name);
      break;
    case TILDE_EXPR_BINARY:
      collect_ids (e->u.binary.lhs, ids);
      collect_ids (e->u.binary.rhs, ids);
      break;
    case TILDE_EXPR_PREFIX:
      collect_ids (e->u.prefix.operand, ids);
      break;
    case TILDE_EXPR_TRANSPOSE:
      collect_ids (e->u.transpose.operand, ids);
      break;
    case TILDE_EXPR_TERNARY:
      collect_ids (e->u.ternary.cond, ids);
      collect_ids (e->u.ternary.if_true, ids);
      collect_ids (e->u.ternary.if_false, ids);
      break;
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      for (int i = 0; i < e->u.call.n_args; i++)
        collect_ids (e->u.call.args[i], ids);
      break;
    case TILDE_EXPR_INDEXED:
      collect_ids (e->u.indexed.base, ids);
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        {
          collect_ids (e->u.indexed.indices[i].lower, ids);
          collect_ids (e->u.indexed.indices[i].upper, ids);
        }
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      collect_ids (e->u.proj.base, ids);
      break;
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      for (int i = 0; i < e->u.list.n_items; i++)
        collect_ids (e->u.list.items[i], ids);
      break;
    case TILDE_EXPR_PAREN:
      collect_ids (e->u.paren.inner, ids);
      break;
    default:
      break;
    }
}

/* The identifiers read inside the indices of an lvalue (pack). */
static void
collect_index_reads (const TildeExpr *lhs, GHashTable *ids)
{
  switch (lhs->kind)
    {
    case TILDE_EXPR_TUPLE:
      for (int i = 0; i < lhs->u.list.n_items; i++)
        collect_index_reads (lhs->u.list.items[i], ids);
      break;
    case TILDE_EXPR_INDEXED:
      collect_index_reads (lhs->u.indexed.base, ids);
      for (int i = 0; i < lhs->u.indexed.n_indices; i++)
        {
          collect_ids (lhs->u.indexed.indices[i].lower, ids);
          collect_ids (lhs->u.indexed.indices[i].upper, ids);
        }
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      collect_index_reads (lhs->u.proj.base, ids);
      break;
    case TILDE_EXPR_PAREN:
      collect_index_reads (lhs->u.paren.inner, ids);
      break;
    default:
      break;
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* stanc's verify_lvalue_unique: nothing written twice, nothing written also
 * read in an index. */
static gboolean
check_unique (TildeChecker *c, const TildeExpr *lhs)
{
  g_autoptr (GArray) written = g_array_new (FALSE, FALSE, sizeof (Written));
  g_autoptr (GHashTable) reads = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GPtrArray) dups = g_ptr_array_new ();
  g_autoptr (GPtrArray) both = g_ptr_array_new ();
  g_autoptr (GHashTable) bases = g_hash_table_new (g_direct_hash, g_direct_equal);

  g_array_set_clear_func (written, written_clear);
  collect_written (lhs, written);
  for (guint i = 0; i < written->len; i++)
    {
      Written *w = &g_array_index (written, Written, i);
      gboolean seen = FALSE;

      for (guint j = 0; j < i && !seen; j++)
        seen = strcmp (g_array_index (written, Written, j).path, w->path) == 0;
      for (guint j = 0; j < dups->len && seen; j++)
        if (strcmp (((Written *) g_ptr_array_index (dups, j))->path, w->path) == 0)
          seen = FALSE;
      if (seen)
        g_ptr_array_add (dups, w);
      g_hash_table_add (bases, (gpointer) base_variable (w->lvalue)->u.variable.name);
    }
  if (dups->len > 0)
    {
      GString *list = g_string_new (NULL);
      g_autofree char *text = NULL;

      for (guint i = 0; i < dups->len; i++)
        g_string_append_printf (list, "%s%s", i ? ",@ " : "",
                                ((Written *) g_ptr_array_index (dups, i))->shown);
      text = g_string_free (list, FALSE);
      _tilde_check_error (c, &lhs->span, "@[<v2>The same value cannot be assigned to multiple "
                          "times in one assignment:@ @[%s@]@]", text);
      return FALSE;
    }
  collect_index_reads (lhs, reads);
  {
    GHashTableIter it;
    gpointer key;

    g_hash_table_iter_init (&it, reads);
    while (g_hash_table_iter_next (&it, &key, NULL))
      if (g_hash_table_contains (bases, key))
        g_ptr_array_add (both, key);
  }
  if (both->len > 0)
    {
      GString *list = g_string_new (NULL);
      g_autofree char *text = NULL;

      g_ptr_array_sort (both, compare_strings);
      for (guint i = 0; i < both->len; i++)
        g_string_append_printf (list, "%s%s", i ? ",@ " : "",
                                (const char *) g_ptr_array_index (both, i));
      text = g_string_free (list, FALSE);
      _tilde_check_error (c, &lhs->span, "@[<v2>The same variable cannot be both assigned to "
                          "and read from on the left hand side of an assignment:@ @[%s@]@]", text);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ assignment */

static void
report_ill_typed (TildeChecker *c, const TildeStmt *s, const char *op, const TildeType *lhs,
                  const TildeType *rhs, const char *signatures)
{
  if (signatures == NULL)
    _tilde_check_error (c, &s->span, "Ill-typed arguments supplied to assignment operator %s:@ "
                        "@[<v2>The left hand side has type@ @[%s@]@]@ @[<v2>and the right hand "
                        "side has type@ @[%s@]@]", op, _tilde_type_name (lhs),
                        _tilde_type_name (rhs));
  else
    _tilde_check_error (c, &s->span, "@[<v>Ill-typed arguments supplied to assignment operator "
                        "%s:@ @[<v2>The left hand side has type@ @[%s@]@]@ @[<v2>and the right "
                        "hand side has type@ @[%s@]@]@ Available signatures for given lhs:@]@ %s",
                        op, _tilde_type_name (lhs), _tilde_type_name (rhs), signatures);
}

/* Plain `=`, element by element through tuple unpacking; stanc names the
 * innermost part that does not fit. */
static gboolean
check_plain_assign (TildeChecker *c, const TildeStmt *s, const TildeExpr *lhs,
                    const TildeType *rhs)
{
  if (lhs->kind == TILDE_EXPR_TUPLE)
    {
      if (tilde_type_kind (rhs) != TILDE_TYPE_TUPLE
          || tilde_type_n_members (rhs) != (guint) lhs->u.list.n_items)
        {
          report_ill_typed (c, s, "=", lhs->type, rhs, NULL);
          return FALSE;
        }
      for (int i = 0; i < lhs->u.list.n_items; i++)
        if (!check_plain_assign (c, s, lhs->u.list.items[i], tilde_type_member (rhs, (guint) i)))
          return FALSE;
      return TRUE;
    }
  if (!_tilde_check_not_function (c, &s->span, base_variable (lhs)->u.variable.name, rhs))
    return FALSE;
  if (_tilde_assignable (lhs->type, rhs))
    return TRUE;
  report_ill_typed (c, s, "=", lhs->type, rhs, NULL);
  return FALSE;
}

static TildeOperator
compound_operator (TildeAssignOp op, const char **symbol)
{
  switch (op)
    {
    case TILDE_ASSIGN_PLUS: *symbol = "+="; return TILDE_OPERATOR_ADD;
    case TILDE_ASSIGN_MINUS: *symbol = "-="; return TILDE_OPERATOR_SUBTRACT;
    case TILDE_ASSIGN_TIMES: *symbol = "*="; return TILDE_OPERATOR_MULTIPLY;
    case TILDE_ASSIGN_DIVIDE: *symbol = "/="; return TILDE_OPERATOR_DIVIDE;
    case TILDE_ASSIGN_ELT_TIMES: *symbol = ".*="; return TILDE_OPERATOR_ELT_MULTIPLY;
    case TILDE_ASSIGN_ELT_DIVIDE: *symbol = "./="; return TILDE_OPERATOR_ELT_DIVIDE;
    default: *symbol = "="; return TILDE_OPERATOR_ADD;
    }
}

static gboolean
is_elementwise (TildeAssignOp op)
{
  return op == TILDE_ASSIGN_ELT_TIMES || op == TILDE_ASSIGN_ELT_DIVIDE;
}

/* The library functions behind a compound assignment: `divide` for /=. */
static const char *const *
compound_functions (TildeAssignOp op)
{
  static const char *const divide[] = { "divide", NULL };
  const char *symbol;

  if (op == TILDE_ASSIGN_DIVIDE)
    return divide;
  return tilde_operator_functions (compound_operator (op, &symbol));
}

/* stanc's assignmentoperator_stan_math_return_type: x op= y is valid when
 * x op y has the type of x (and, elementwise, is no scalar). */
static gboolean
compound_fits (TildeAssignOp op, const TildeType *lhs, const TildeArgType *rhs)
{
  TildeArgType args[2] = { { TILDE_AD_AUTODIFF, lhs }, *rhs };
  const char *const *fns = compound_functions (op);

  for (guint k = 0; fns[k]; k++)
    {
      TildeMatch m;

      if (tilde_library_resolve (fns[k], args, 2, &m, NULL) != TILDE_MATCH_UNIQUE)
        continue;
      return m.return_type == lhs && !(is_elementwise (op) && tilde_type_is_scalar (lhs));
    }
  return FALSE;
}

/* "(vector, real) => void" for each way the operator can update `lhs`. */
static char *
compound_signatures (TildeAssignOp op, const TildeType *lhs)
{
  const char *const *fns = compound_functions (op);
  GString *out = g_string_new (NULL);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean first = TRUE;

  for (guint k = 0; fns[k]; k++)
    {
      guint n;
      const TildeType *const *sigs = tilde_library_signatures (fns[k], &n);

      for (guint i = 0; i < n; i++)
        {
          const TildeType *f = sigs[i];
          const TildeType *rt = tilde_type_return (f);

          if (tilde_type_n_args (f) != 2 || tilde_type_arg (f, 0)->type != lhs || rt != lhs
              || (is_elementwise (op) && tilde_type_is_scalar (rt))
              || g_hash_table_contains (seen, tilde_type_arg (f, 1)->type))
            continue;
          g_hash_table_add (seen, (gpointer) tilde_type_arg (f, 1)->type);
          g_string_append_printf (out, "%s(%s, %s) => void", first ? "" : "@,",
                                  _tilde_type_name (lhs),
                                  _tilde_type_name (tilde_type_arg (f, 1)->type));
          first = FALSE;
        }
    }
  if (first)
    g_string_append (out, "no matching signatures");
  return g_string_free (out, FALSE);
}

void
_tilde_check_assign (TildeChecker *c, TildeStmt *s)
{
  TildeExpr *lhs = s->u.assign.lhs, *rhs = s->u.assign.rhs;
  TildeAssignOp op = s->u.assign.op;
  gboolean ok = check_lvalue (c, lhs);

  if (ok)
    ok = check_unique (c, lhs);
  if (!_tilde_check_expr (c, rhs) || !ok)
    return;
  if (op == TILDE_ASSIGN_PLAIN)
    {
      if (check_plain_assign (c, s, lhs, rhs->type))
        {
          const TildeExpr *r = rhs;

          while (r->kind == TILDE_EXPR_PAREN)
            r = r->u.paren.inner;
          if (tilde_expr_equal (lhs, r))
            _tilde_check_warning (c, &s->span, "Assignment of variable to itself.");
        }
      return;
    }
  {
    TildeArgType r = { rhs->ad_level, rhs->type };

    if (!compound_fits (op, lhs->type, &r))
      {
        const char *symbol;
        g_autofree char *sigs = NULL;
        g_autofree char *box = NULL;

        compound_operator (op, &symbol);
        sigs = compound_signatures (op, lhs->type);
        box = g_strdup_printf ("@[<v>%s@]", sigs);
        report_ill_typed (c, s, symbol, lhs->type, rhs->type, box);
      }
  }
}
