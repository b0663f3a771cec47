/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "tilde-info.h"

#include <json-glib/json-glib.h>

#include "semantics/library/library.h"
#include "semantics/types.h"
#include "syntax/printer.h"

/* ---- variables ---- */

static const char *
decl_type_base (const TildeSizedType *type, int *dims)
{
  switch (type->kind)
    {
    case TILDE_DECL_INT:
      return "int";
    case TILDE_DECL_REAL:
      return "real";
    case TILDE_DECL_COMPLEX:
      return "complex";
    case TILDE_DECL_COMPLEX_VECTOR:
    case TILDE_DECL_COMPLEX_ROW_VECTOR:
      *dims += 1;
      return "complex";
    case TILDE_DECL_COMPLEX_MATRIX:
      *dims += 2;
      return "complex";
    case TILDE_DECL_VECTOR:
    case TILDE_DECL_ROW_VECTOR:
    case TILDE_DECL_ORDERED:
    case TILDE_DECL_POSITIVE_ORDERED:
    case TILDE_DECL_SIMPLEX:
    case TILDE_DECL_UNIT_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
      *dims += 1;
      return "real";
    case TILDE_DECL_MATRIX:
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
    case TILDE_DECL_CORR_MATRIX:
    case TILDE_DECL_COV_MATRIX:
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      *dims += 2;
      return "real";
    case TILDE_DECL_ARRAY:
    case TILDE_DECL_TUPLE:
    default:
      return NULL;
    }
}

static void add_type (JsonBuilder *b, const TildeSizedType *type);

/* "type" and "dimensions" members of a declared type. */
static void
add_type_members (JsonBuilder *b, const TildeSizedType *type)
{
  int dims = 0;
  const char *base;

  if (type->kind == TILDE_DECL_ARRAY)
    {
      dims = type->n_dims;
      type = type->element;
    }
  json_builder_set_member_name (b, "type");
  if (type->kind == TILDE_DECL_TUPLE)
    {
      json_builder_begin_array (b);
      for (int i = 0; i < type->n_elements; i++)
        add_type (b, type->elements[i]);
      json_builder_end_array (b);
    }
  else
    {
      base = decl_type_base (type, &dims);
      json_builder_add_string_value (b, base ? base : "unknown");
    }
  json_builder_set_member_name (b, "dimensions");
  json_builder_add_int_value (b, dims);
}

static void
add_type (JsonBuilder *b, const TildeSizedType *type)
{
  json_builder_begin_object (b);
  add_type_members (b, type);
  json_builder_end_object (b);
}

static void
add_expr_member (JsonBuilder *b, const char *name, const TildeExpr *expr)
{
  g_autofree char *text = tilde_print_expr (expr);

  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, text);
}

static void add_constraint (JsonBuilder *b, const TildeSizedType *type);

/* The value of a "constraint" member: a name, an object of bounds, or for
 * tuples a list of {"constraint": ...}. */
static void
add_constraint_value (JsonBuilder *b, const TildeSizedType *type)
{
  const TildeBounds *bounds;

  if (type->kind == TILDE_DECL_ARRAY)
    type = type->element;
  switch (type->kind)
    {
    case TILDE_DECL_ORDERED: json_builder_add_string_value (b, "ordered"); return;
    case TILDE_DECL_POSITIVE_ORDERED: json_builder_add_string_value (b, "positive_ordered"); return;
    case TILDE_DECL_SIMPLEX: json_builder_add_string_value (b, "simplex"); return;
    case TILDE_DECL_UNIT_VECTOR: json_builder_add_string_value (b, "unit_vector"); return;
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_MATRIX: json_builder_add_string_value (b, "sum_to_zero"); return;
    case TILDE_DECL_CHOLESKY_FACTOR_CORR: json_builder_add_string_value (b, "cholesky_corr"); return;
    case TILDE_DECL_CHOLESKY_FACTOR_COV: json_builder_add_string_value (b, "cholesky_cov"); return;
    case TILDE_DECL_CORR_MATRIX: json_builder_add_string_value (b, "correlation"); return;
    case TILDE_DECL_COV_MATRIX: json_builder_add_string_value (b, "covariance"); return;
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX: json_builder_add_string_value (b, "stochastic_row"); return;
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX: json_builder_add_string_value (b, "stochastic_column"); return;
    case TILDE_DECL_TUPLE:
      json_builder_begin_array (b);
      for (int i = 0; i < type->n_elements; i++)
        add_constraint (b, type->elements[i]);
      json_builder_end_array (b);
      return;
    default:
      break;
    }

  bounds = &type->bounds;
  if (!bounds->lower && !bounds->upper && !bounds->offset && !bounds->multiplier)
    {
      json_builder_add_string_value (b, "none");
      return;
    }
  json_builder_begin_object (b);
  if (bounds->lower)
    add_expr_member (b, "lower", bounds->lower);
  if (bounds->upper)
    add_expr_member (b, "upper", bounds->upper);
  if (bounds->offset)
    add_expr_member (b, "offset", bounds->offset);
  if (bounds->multiplier)
    add_expr_member (b, "multiplier", bounds->multiplier);
  json_builder_end_object (b);
}

static void
add_constraint (JsonBuilder *b, const TildeSizedType *type)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "constraint");
  add_constraint_value (b, type);
  json_builder_end_object (b);
}

static void
add_block_variables (JsonBuilder *b, const char *name, const TildeBlock *block)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  for (int i = 0; block && i < block->n_stmts; i++)
    {
      const TildeStmt *stmt = block->stmts[i];

      if (stmt->kind != TILDE_STMT_VAR_DECL)
        continue;
      for (int j = 0; j < stmt->u.var_decl.n_items; j++)
        {
          json_builder_set_member_name (b, stmt->u.var_decl.items[j].ident.name);
          json_builder_begin_object (b);
          add_type_members (b, stmt->u.var_decl.type);
          json_builder_set_member_name (b, "constraint");
          add_constraint_value (b, stmt->u.var_decl.type);
          json_builder_end_object (b);
        }
    }
  json_builder_end_object (b);
}

/* ---- library calls ---- */

typedef struct {
  GTree *functions;       /* sorted sets of names */
  GTree *distributions;
} Calls;

static void
add_name (GTree *set, const char *name)
{
  g_tree_insert (set, (gpointer) name, (gpointer) name);
}

static void walk_expr (Calls *calls, const TildeExpr *expr);

static void
walk_exprs (Calls *calls, TildeExpr *const *exprs, int n)
{
  for (int i = 0; i < n; i++)
    walk_expr (calls, exprs[i]);
}

static void
walk_expr (Calls *calls, const TildeExpr *expr)
{
  if (expr == NULL)
    return;
  switch (expr->kind)
    {
    case TILDE_EXPR_BINARY:
      walk_expr (calls, expr->u.binary.lhs);
      walk_expr (calls, expr->u.binary.rhs);
      break;
    case TILDE_EXPR_PREFIX:
      walk_expr (calls, expr->u.prefix.operand);
      break;
    case TILDE_EXPR_TRANSPOSE:
      walk_expr (calls, expr->u.transpose.operand);
      break;
    case TILDE_EXPR_TERNARY:
      walk_expr (calls, expr->u.ternary.cond);
      walk_expr (calls, expr->u.ternary.if_true);
      walk_expr (calls, expr->u.ternary.if_false);
      break;
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      if (expr->u.call.decl == NULL && tilde_library_has_function (expr->u.call.name.name))
        add_name (expr->kind == TILDE_EXPR_COND_CALL ? calls->distributions : calls->functions,
                  expr->u.call.name.name);
      walk_exprs (calls, expr->u.call.args, expr->u.call.n_args);
      break;
    case TILDE_EXPR_INDEXED:
      walk_expr (calls, expr->u.indexed.base);
      for (int i = 0; i < expr->u.indexed.n_indices; i++)
        {
          walk_expr (calls, expr->u.indexed.indices[i].lower);
          walk_expr (calls, expr->u.indexed.indices[i].upper);
        }
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      walk_expr (calls, expr->u.proj.base);
      break;
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      walk_exprs (calls, expr->u.list.items, expr->u.list.n_items);
      break;
    case TILDE_EXPR_PAREN:
      walk_expr (calls, expr->u.paren.inner);
      break;
    default:
      break;
    }
}

static void
walk_sized_type (Calls *calls, const TildeSizedType *type)
{
  if (type == NULL)
    return;
  walk_expr (calls, type->size1);
  walk_expr (calls, type->size2);
  walk_expr (calls, type->bounds.lower);
  walk_expr (calls, type->bounds.upper);
  walk_expr (calls, type->bounds.offset);
  walk_expr (calls, type->bounds.multiplier);
  walk_exprs (calls, type->dims, type->n_dims);
  walk_sized_type (calls, type->element);
  for (int i = 0; i < type->n_elements; i++)
    walk_sized_type (calls, type->elements[i]);
}

/* The expressions a statement holds directly; nested statements are visited
 * by tilde_program_foreach_stmt. */
static void
walk_stmt (TildeStmt *stmt, gpointer user_data)
{
  Calls *calls = user_data;

  switch (stmt->kind)
    {
    case TILDE_STMT_VAR_DECL:
      walk_sized_type (calls, stmt->u.var_decl.type);
      for (int i = 0; i < stmt->u.var_decl.n_items; i++)
        walk_expr (calls, stmt->u.var_decl.items[i].init);
      break;
    case TILDE_STMT_ASSIGN:
      walk_expr (calls, stmt->u.assign.lhs);
      walk_expr (calls, stmt->u.assign.rhs);
      break;
    case TILDE_STMT_TILDE:
      walk_expr (calls, stmt->u.tilde.arg);
      walk_exprs (calls, stmt->u.tilde.args, stmt->u.tilde.n_args);
      walk_expr (calls, stmt->u.tilde.trunc_lower);
      walk_expr (calls, stmt->u.tilde.trunc_upper);
      if (stmt->u.tilde.decl == NULL)
        {
          const char *family = stmt->u.tilde.distribution.name;
          guint suffixes = tilde_library_distribution_suffixes (family);
          g_autofree char *name = NULL;

          if (suffixes & TILDE_DIST_LPDF)
            name = g_strconcat (family, "_lupdf", NULL);
          else if (suffixes & TILDE_DIST_LPMF)
            name = g_strconcat (family, "_lupmf", NULL);
          if (name != NULL)
            add_name (calls->distributions, g_intern_string (name));
        }
      break;
    case TILDE_STMT_TARGET_PLUS:
    case TILDE_STMT_JACOBIAN_PLUS:
      walk_expr (calls, stmt->u.increment.expr);
      break;
    case TILDE_STMT_CALL:
      if (stmt->u.call.decl == NULL && tilde_library_has_function (stmt->u.call.name.name))
        add_name (calls->functions, stmt->u.call.name.name);
      walk_exprs (calls, stmt->u.call.args, stmt->u.call.n_args);
      break;
    case TILDE_STMT_PRINT:
      add_name (calls->functions, "print");
      walk_exprs (calls, stmt->u.printables.items, stmt->u.printables.n_items);
      break;
    case TILDE_STMT_REJECT:
      add_name (calls->functions, "reject");
      walk_exprs (calls, stmt->u.printables.items, stmt->u.printables.n_items);
      break;
    case TILDE_STMT_FATAL_ERROR:
      add_name (calls->functions, "fatal_error");
      walk_exprs (calls, stmt->u.printables.items, stmt->u.printables.n_items);
      break;
    case TILDE_STMT_RETURN:
      walk_expr (calls, stmt->u.ret.expr);
      break;
    case TILDE_STMT_IF:
      walk_expr (calls, stmt->u.if_stmt.cond);
      break;
    case TILDE_STMT_WHILE:
      walk_expr (calls, stmt->u.while_stmt.cond);
      break;
    case TILDE_STMT_FOR:
      walk_expr (calls, stmt->u.for_stmt.lower);
      walk_expr (calls, stmt->u.for_stmt.upper);
      break;
    case TILDE_STMT_FOREACH:
      walk_expr (calls, stmt->u.foreach_stmt.container);
      break;
    default:
      break;
    }
}

static gboolean
add_string_element (gpointer key, gpointer value, gpointer user_data)
{
  json_builder_add_string_value (user_data, key);
  return FALSE;
}

static void
add_name_list (JsonBuilder *b, const char *member, GTree *set)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  g_tree_foreach (set, add_string_element, b);
  json_builder_end_array (b);
}

char *
tilde_program_info_json (const TildeProgram *program)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  Calls calls = {
    g_tree_new ((GCompareFunc) g_strcmp0),
    g_tree_new ((GCompareFunc) g_strcmp0),
  };

  tilde_program_foreach_stmt ((TildeProgram *) program, walk_stmt, &calls);

  json_builder_begin_object (b);
  add_block_variables (b, "inputs", program->blocks[TILDE_BLOCK_DATA]);
  add_block_variables (b, "parameters", program->blocks[TILDE_BLOCK_PARAMETERS]);
  add_block_variables (b, "transformed parameters", program->blocks[TILDE_BLOCK_TRANSFORMED_PARAMETERS]);
  add_block_variables (b, "generated quantities", program->blocks[TILDE_BLOCK_GENERATED_QUANTITIES]);
  add_name_list (b, "functions", calls.functions);
  add_name_list (b, "distributions", calls.distributions);
  json_builder_set_member_name (b, "included_files");
  json_builder_begin_array (b);
  for (guint i = 1; i < tilde_source_set_get_n_files (program->sources); i++)
    json_builder_add_string_value (b, tilde_source_set_get_file (program->sources, i)->name);
  json_builder_end_array (b);
  json_builder_end_object (b);

  g_tree_unref (calls.functions);
  g_tree_unref (calls.distributions);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  return json_generator_to_data (gen, NULL);
}
