/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "syntax/parser.h"
#include "syntax/printer.h"
#include "tilde-diagnostic-render.h"
#include "syntax-test-util.h"

/* ---- helpers ---- */

static TildeProgram *
parse_ok (const char *name, const char *text)
{
  g_autoptr(GPtrArray) diags = NULL;
  TildeProgram *program = syntax_test_parse (name, text, &diags);

  if (diags->len > 0)
    {
      g_autofree char *all = syntax_test_render_all (diags, program);
      g_test_message ("%s", all);
    }
  g_assert_cmpuint (diags->len, ==, 0);
  return program;
}

static TildeProgram *
parse_fixture (const char *name)
{
  g_autofree char *path = syntax_test_model_path ("valid", name, NULL);
  g_autofree char *text = syntax_test_read (path);

  return parse_ok (name, text);
}

static TildeBlock *
block (TildeProgram *program, TildeBlockKind kind)
{
  g_assert_nonnull (program->blocks[kind]);
  return program->blocks[kind];
}

static TildeStmt *
stmt (TildeProgram *program, TildeBlockKind kind, int i)
{
  TildeBlock *b = block (program, kind);

  g_assert_cmpint (i, <, b->n_stmts);
  return b->stmts[i];
}

/* Parses `expr` as the right-hand side of an assignment and prints it with
 * every operation in parentheses. */
static char *
grouped (const char *expr)
{
  g_autofree char *text = g_strdup_printf ("model {\n  r = %s;\n}\n", expr);
  g_autoptr(TildeProgram) program = parse_ok ("expr.stan", text);
  TildeStmt *s = stmt (program, TILDE_BLOCK_MODEL, 0);

  g_assert_cmpint (s->kind, ==, TILDE_STMT_ASSIGN);
  return tilde_print_expr_grouped (s->u.assign.rhs);
}

static TildeExpr *
rhs_of (TildeProgram *program, TildeBlockKind kind, int i)
{
  TildeStmt *s = stmt (program, kind, i);

  if (s->kind == TILDE_STMT_VAR_DECL)
    return s->u.var_decl.items[0].init;
  g_assert_cmpint (s->kind, ==, TILDE_STMT_ASSIGN);
  return s->u.assign.rhs;
}

/* ---- valid programs ---- */

static void
test_valid_fixtures (void)
{
  g_autoptr(GPtrArray) stan = syntax_test_list ("valid", ".stan");
  g_autoptr(GPtrArray) functions = syntax_test_list ("valid", ".stanfunctions");

  g_assert_cmpuint (stan->len, >=, 15);
  g_ptr_array_extend (stan, functions, (GCopyFunc) (void (*) (void)) g_strdup, NULL);
  for (guint i = 0; i < stan->len; i++)
    {
      g_autoptr(TildeProgram) program = parse_fixture (g_ptr_array_index (stan, i));
      int n_blocks = 0;

      for (int k = 0; k < TILDE_N_BLOCKS; k++)
        n_blocks += program->blocks[k] != NULL;
      g_assert_cmpint (n_blocks, >=, 1);
    }
}

static void
test_precedence (void)
{
  static const char *const cases[][2] = {
    { "a + b * c", "(a + (b * c))" },
    { "a - b - c", "((a - b) - c)" },
    { "a / b * c", "((a / b) * c)" },
    { "a * b %/% c", "(a * (b %/% c))" },
    { "a %/% b * c", "((a %/% b) * c)" },
    { "a * b \\ c", "(a * (b \\ c))" },
    { "a % b * c", "((a % b) * c)" },
    { "a .* b ./ c + d", "(((a .* b) ./ c) + d)" },
    { "a ^ b ^ c", "(a ^ (b ^ c))" },
    { "a .^ b .^ c", "(a .^ (b .^ c))" },
    { "-a ^ b", "(-(a ^ b))" },
    { "-a * b", "((-a) * b)" },
    { "a ^ -b", "(a ^ (-b))" },
    { "2 ^ -3 * 4", "((2 ^ (-3)) * 4)" },
    { "-a'", "(-(a'))" },
    { "a' * b'", "((a') * (b'))" },
    { "a ^ b'", "(a ^ (b'))" },
    { "!a || b && c", "((!a) || (b && c))" },
    { "a || b || c", "((a || b) || c)" },
    { "a && b || c && d", "((a && b) || (c && d))" },
    { "a == b != c", "((a == b) != c)" },
    { "a == b < c", "(a == (b < c))" },
    { "a < b + c", "(a < (b + c))" },
    { "a <= b >= c", "((a <= b) >= c)" },
    { "!a == b", "((!a) == b)" },
    { "- -a", "(-(-a))" },
    { "+a - !b", "((+a) - (!b))" },
    { "a ? b : c ? d : e", "(a ? b : (c ? d : e))" },
    { "a || b ? c + d : e", "((a || b) ? (c + d) : e)" },
    { "a ? b ? c : d : e", "(a ? (b ? c : d) : e)" },
    { "x[1] + f(y)[2]", "(x[1] + f(y)[2])" },
    { "x[i + 1, :] * v", "(x[(i + 1), :] * v)" },
    { "t.1.2 ^ 2", "(t.1.2 ^ 2)" },
    { "(a + b) * c", "((a + b) * c)" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = grouped (cases[i][0]);

      if (g_str_equal (cases[i][0], "(a + b) * c"))
        g_assert_cmpstr (got, ==, "(((a + b)) * c)");
      else
        g_assert_cmpstr (got, ==, cases[i][1]);
    }
}

static void
test_statement_kinds (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("all_statements.stan");
  static const TildeStmtKind tdata[] = {
    TILDE_STMT_VAR_DECL, TILDE_STMT_VAR_DECL, TILDE_STMT_VAR_DECL, TILDE_STMT_SKIP,
    TILDE_STMT_FOR, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN,
    TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN,
    TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN,
    TILDE_STMT_ASSIGN, TILDE_STMT_ASSIGN, TILDE_STMT_PRINT, TILDE_STMT_IF, TILDE_STMT_CALL,
    TILDE_STMT_BLOCK,
  };
  static const TildeAssignOp ops[] = {
    TILDE_ASSIGN_PLUS, TILDE_ASSIGN_MINUS, TILDE_ASSIGN_TIMES, TILDE_ASSIGN_DIVIDE,
    TILDE_ASSIGN_ELT_TIMES, TILDE_ASSIGN_ELT_DIVIDE,
  };
  TildeBlock *td = block (p, TILDE_BLOCK_TRANSFORMED_DATA);
  TildeStmt *loops = stmt (p, TILDE_BLOCK_FUNCTIONS, 2);
  TildeStmt *body, *s;

  g_assert_cmpint (td->n_stmts, ==, (int) G_N_ELEMENTS (tdata));
  for (gsize i = 0; i < G_N_ELEMENTS (tdata); i++)
    g_assert_cmpstr (tilde_stmt_kind_to_string (td->stmts[i]->kind), ==,
                     tilde_stmt_kind_to_string (tdata[i]));
  for (gsize i = 0; i < G_N_ELEMENTS (ops); i++)
    g_assert_cmpint (td->stmts[12 + i]->u.assign.op, ==, ops[i]);
  g_assert_cmpint (td->stmts[20]->u.if_stmt.then_stmt->kind, ==, TILDE_STMT_REJECT);
  g_assert_null (td->stmts[20]->u.if_stmt.else_stmt);

  /* functions: forward declaration, then the definition */
  g_assert_null (stmt (p, TILDE_BLOCK_FUNCTIONS, 0)->u.fun_def.body);
  g_assert_nonnull (stmt (p, TILDE_BLOCK_FUNCTIONS, 1)->u.fun_def.body);
  body = loops->u.fun_def.body;
  g_assert_cmpint (body->kind, ==, TILDE_STMT_BLOCK);
  s = body->u.block.stmts[1];
  g_assert_cmpint (s->kind, ==, TILDE_STMT_FOR);
  s = s->u.for_stmt.body->u.block.stmts[0];
  g_assert_cmpint (s->kind, ==, TILDE_STMT_IF);
  g_assert_cmpint (s->u.if_stmt.then_stmt->u.block.stmts[0]->kind, ==, TILDE_STMT_CONTINUE);
  g_assert_cmpint (s->u.if_stmt.else_stmt->kind, ==, TILDE_STMT_IF);
  g_assert_cmpint (s->u.if_stmt.else_stmt->u.if_stmt.then_stmt->u.block.stmts[0]->kind, ==,
                   TILDE_STMT_BREAK);
  g_assert_cmpint (body->u.block.stmts[2]->kind, ==, TILDE_STMT_WHILE);
  g_assert_cmpint (body->u.block.stmts[3]->kind, ==, TILDE_STMT_FOREACH);
  g_assert_cmpint (body->u.block.stmts[4]->kind, ==, TILDE_STMT_RETURN);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_FUNCTIONS, 4)->u.fun_def.body->u.block.stmts[0]->kind,
                   ==, TILDE_STMT_FATAL_ERROR);

  g_assert_cmpint (stmt (p, TILDE_BLOCK_TRANSFORMED_PARAMETERS, 1)->kind, ==,
                   TILDE_STMT_JACOBIAN_PLUS);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_MODEL, 0)->kind, ==, TILDE_STMT_TILDE);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_MODEL, 2)->kind, ==, TILDE_STMT_TARGET_PLUS);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_MODEL, 4)->kind, ==, TILDE_STMT_FOREACH);
  s = stmt (p, TILDE_BLOCK_MODEL, 6);
  g_assert_cmpint (s->kind, ==, TILDE_STMT_PROFILE);
  g_assert_cmpstr (s->u.profile.name, ==, "\"likelihood\"");
  g_assert_cmpint (s->u.profile.n_stmts, ==, 2);
}

/* Braces where a statement starts: an array expression when an
 * expression just inside is followed by "," or "}", else a block. */
static void
test_braces_array_or_block (void)
{
  g_autoptr(TildeProgram) p = parse_ok ("braces.stan",
    "parameters { real y; }\n"
    "model {\n"
    "  {1.0, 2.0} ~ normal(y, 1);\n"
    "  {1.0} ~ normal(y, 1);\n"
    "  { {1.0, 2.0}, {3.0} }[1] ~ normal(y, 1);\n"
    "  {1.0, 2.0}[2] - 1 ~ normal(y, 1);\n"
    "  { y ~ normal(0, 1); target += 1; }\n"
    "  { {1.0} ~ normal(y, 2); }\n"
    "  { { } }\n"
    "  { target += {1.0, 2.0}[1]; }\n"
    "}\n");
  TildeStmt *s;
  TildeExpr *e;

  s = stmt (p, TILDE_BLOCK_MODEL, 0);
  g_assert_cmpint (s->kind, ==, TILDE_STMT_TILDE);
  g_assert_cmpint (s->u.tilde.arg->kind, ==, TILDE_EXPR_ARRAY);
  g_assert_cmpint (s->u.tilde.arg->u.list.n_items, ==, 2);
  s = stmt (p, TILDE_BLOCK_MODEL, 1);
  g_assert_cmpint (s->u.tilde.arg->kind, ==, TILDE_EXPR_ARRAY);
  g_assert_cmpint (s->u.tilde.arg->u.list.n_items, ==, 1);
  e = stmt (p, TILDE_BLOCK_MODEL, 2)->u.tilde.arg;
  g_assert_cmpint (e->kind, ==, TILDE_EXPR_INDEXED);
  g_assert_cmpint (e->u.indexed.base->kind, ==, TILDE_EXPR_ARRAY);
  g_assert_cmpint (e->u.indexed.base->u.list.n_items, ==, 2);
  g_assert_cmpint (e->u.indexed.base->u.list.items[0]->kind, ==, TILDE_EXPR_ARRAY);
  e = stmt (p, TILDE_BLOCK_MODEL, 3)->u.tilde.arg;
  g_assert_cmpint (e->kind, ==, TILDE_EXPR_BINARY);
  g_assert_cmpint (e->u.binary.lhs->kind, ==, TILDE_EXPR_INDEXED);
  s = stmt (p, TILDE_BLOCK_MODEL, 4);
  g_assert_cmpint (s->kind, ==, TILDE_STMT_BLOCK);
  g_assert_cmpint (s->u.block.n_stmts, ==, 2);
  g_assert_cmpint (s->u.block.stmts[0]->kind, ==, TILDE_STMT_TILDE);
  g_assert_cmpint (s->u.block.stmts[1]->kind, ==, TILDE_STMT_TARGET_PLUS);
  s = stmt (p, TILDE_BLOCK_MODEL, 5);
  g_assert_cmpint (s->kind, ==, TILDE_STMT_BLOCK);
  g_assert_cmpint (s->u.block.stmts[0]->u.tilde.arg->kind, ==, TILDE_EXPR_ARRAY);
  s = stmt (p, TILDE_BLOCK_MODEL, 6);
  g_assert_cmpint (s->kind, ==, TILDE_STMT_BLOCK);
  g_assert_cmpint (s->u.block.stmts[0]->kind, ==, TILDE_STMT_BLOCK);
  s = stmt (p, TILDE_BLOCK_MODEL, 7);
  g_assert_cmpint (s->kind, ==, TILDE_STMT_BLOCK);
  g_assert_cmpint (s->u.block.stmts[0]->kind, ==, TILDE_STMT_TARGET_PLUS);
}

static void
test_declarations (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("all_types.stan");
  TildeStmt *s;
  TildeSizedType *t;

  s = stmt (p, TILDE_BLOCK_DATA, 3);          /* int<lower=1, upper=N> idx */
  t = s->u.var_decl.type;
  g_assert_cmpint (t->kind, ==, TILDE_DECL_INT);
  g_assert_nonnull (t->bounds.lower);
  g_assert_nonnull (t->bounds.upper);
  g_assert_true (s->u.var_decl.is_global);
  t = stmt (p, TILDE_BLOCK_DATA, 4)->u.var_decl.type;   /* <upper=5, lower=1> */
  g_assert_cmpstr (t->bounds.lower->u.literal.text, ==, "1");
  g_assert_cmpstr (t->bounds.upper->u.literal.text, ==, "5");
  t = stmt (p, TILDE_BLOCK_DATA, 11)->u.var_decl.type;  /* <multiplier=2, offset=1> */
  g_assert_cmpstr (t->bounds.offset->u.literal.text, ==, "1");
  g_assert_cmpstr (t->bounds.multiplier->u.literal.text, ==, "2");
  t = stmt (p, TILDE_BLOCK_DATA, 17)->u.var_decl.type;  /* matrix[N, 3] */
  g_assert_cmpint (t->kind, ==, TILDE_DECL_MATRIX);
  g_assert_cmpstr (t->size2->u.literal.text, ==, "3");
  t = stmt (p, TILDE_BLOCK_DATA, 24)->u.var_decl.type;  /* array[2, 3, 4] vector<lower=0>[N] */
  g_assert_cmpint (t->kind, ==, TILDE_DECL_ARRAY);
  g_assert_cmpint (t->n_dims, ==, 3);
  g_assert_cmpint (t->element->kind, ==, TILDE_DECL_VECTOR);
  g_assert_nonnull (t->element->bounds.lower);
  t = stmt (p, TILDE_BLOCK_DATA, 26)->u.var_decl.type;  /* tuple(array[2] real, tuple(...)) */
  g_assert_cmpint (t->kind, ==, TILDE_DECL_TUPLE);
  g_assert_cmpint (t->n_elements, ==, 2);
  g_assert_cmpint (t->elements[0]->kind, ==, TILDE_DECL_ARRAY);
  g_assert_cmpint (t->elements[1]->kind, ==, TILDE_DECL_TUPLE);
  g_assert_nonnull (t->elements[1]->elements[1]->bounds.lower);

  t = stmt (p, TILDE_BLOCK_PARAMETERS, 3)->u.var_decl.type;
  g_assert_cmpint (t->kind, ==, TILDE_DECL_SUM_TO_ZERO_MATRIX);
  g_assert_nonnull (t->size2);
  t = stmt (p, TILDE_BLOCK_PARAMETERS, 7)->u.var_decl.type;  /* cholesky_factor_cov[4] */
  g_assert_cmpint (t->kind, ==, TILDE_DECL_CHOLESKY_FACTOR_COV);
  g_assert_null (t->size2);
  t = stmt (p, TILDE_BLOCK_PARAMETERS, 8)->u.var_decl.type;  /* cholesky_factor_cov[5, 4] */
  g_assert_nonnull (t->size2);
  g_assert_true (tilde_decl_type_kind_is_constrained (TILDE_DECL_ROW_STOCHASTIC_MATRIX));
  g_assert_false (tilde_decl_type_kind_is_constrained (TILDE_DECL_COMPLEX_MATRIX));

  s = stmt (p, TILDE_BLOCK_MODEL, 12);        /* real a = 1, b, c = 3; */
  g_assert_false (s->u.var_decl.is_global);
  g_assert_cmpint (s->u.var_decl.n_items, ==, 3);
  g_assert_cmpstr (s->u.var_decl.items[1].ident.name, ==, "b");
  g_assert_null (s->u.var_decl.items[1].init);
  g_assert_nonnull (s->u.var_decl.items[2].init);
}

static void
test_function_signatures (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("user_functions.stan");
  TildeStmt *f = stmt (p, TILDE_BLOCK_FUNCTIONS, 6);   /* scale_all */
  g_autofree char *ret = tilde_print_unsized_type (f->u.fun_def.return_type);
  g_autofree char *arg = tilde_print_unsized_type (f->u.fun_def.args[0].type);
  g_autoptr(TildeProgram) t = parse_fixture ("tuples.stan");
  g_autofree char *tret = tilde_print_unsized_type (stmt (t, TILDE_BLOCK_FUNCTIONS, 0)
                                                      ->u.fun_def.return_type);
  g_autofree char *targ = tilde_print_unsized_type (stmt (t, TILDE_BLOCK_FUNCTIONS, 1)
                                                      ->u.fun_def.args[0].type);

  g_assert_cmpstr (f->u.fun_def.name.name, ==, "scale_all");
  g_assert_cmpstr (ret, ==, "array[] real");
  g_assert_cmpstr (arg, ==, "array[] real");
  g_assert_true (f->u.fun_def.args[0].data_only);
  g_assert_false (f->u.fun_def.args[1].data_only);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_FUNCTIONS, 4)->u.fun_def.return_type->kind, ==,
                   TILDE_UTYPE_VOID);
  g_assert_cmpstr (tret, ==, "tuple(real, real)");
  g_assert_cmpstr (targ, ==, "tuple(real, array[] int)");
}

static void
test_function_body_statement (void)
{
  /* stanc's grammar takes any statement as a body; the type checker insists
   * on braces. */
  g_autoptr(TildeProgram) p = parse_ok ("f.stan", "functions {\n  real f(real x)\n    return x;\n}\n");
  TildeStmt *f = stmt (p, TILDE_BLOCK_FUNCTIONS, 0);

  g_assert_cmpint (f->u.fun_def.body->kind, ==, TILDE_STMT_RETURN);
}

static void
test_annotations (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("annotations.stan");
  g_autoptr(TildeProgram) q = parse_ok ("a.stan", "data {\n  @note(1, 2) @flag() @gpu real x;\n}\n");
  TildeStmt *f = stmt (p, TILDE_BLOCK_FUNCTIONS, 1);
  TildeStmt *d = stmt (q, TILDE_BLOCK_DATA, 0);

  g_assert_cmpint (stmt (p, TILDE_BLOCK_FUNCTIONS, 0)->u.fun_def.n_annotations, ==, 1);
  g_assert_cmpstr (stmt (p, TILDE_BLOCK_FUNCTIONS, 0)->u.fun_def.annotations[0].name.name, ==,
                   "extern");
  g_assert_cmpint (f->u.fun_def.n_annotations, ==, 2);
  g_assert_cmpstr (f->u.fun_def.annotations[1].name.name, ==, "inline");
  g_assert_cmpint (stmt (p, TILDE_BLOCK_DATA, 1)->u.var_decl.n_annotations, ==, 1);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_MODEL, 0)->u.var_decl.n_annotations, ==, 1);
  g_assert_cmpint (d->u.var_decl.n_annotations, ==, 3);
  g_assert_cmpint (d->u.var_decl.annotations[0].n_args, ==, 2);
  g_assert_true (d->u.var_decl.annotations[1].has_parens);
  g_assert_cmpint (d->u.var_decl.annotations[1].n_args, ==, 0);
  g_assert_false (d->u.var_decl.annotations[2].has_parens);
}

static void
test_calls (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("all_expressions.stan");
  TildeBlock *td = block (p, TILDE_BLOCK_TRANSFORMED_DATA);
  TildeExpr *e = NULL;
  int found = 0;

  for (int i = 0; i < td->n_stmts; i++)
    {
      TildeStmt *s = td->stmts[i];

      if (s->kind != TILDE_STMT_ASSIGN || s->u.assign.rhs->kind == TILDE_EXPR_BINARY)
        continue;
      e = s->u.assign.rhs;
      if (e->kind == TILDE_EXPR_COND_CALL && g_str_equal (e->u.call.name.name, "normal_lpdf"))
        {
          g_assert_cmpint (e->u.call.n_args, ==, 3);
          found++;
        }
      if (e->kind == TILDE_EXPR_COND_CALL && g_str_equal (e->u.call.name.name, "std_normal_lpdf"))
        {
          /* one argument and a conditioning suffix: stanc's CondDistApp */
          g_assert_cmpint (e->u.call.n_args, ==, 1);
          found++;
        }
      if (e->kind == TILDE_EXPR_CALL && g_str_equal (e->u.call.name.name, "fma"))
        {
          g_assert_cmpint (e->u.call.n_args, ==, 3);
          found++;
        }
    }
  g_assert_cmpint (found, ==, 3);
  e = rhs_of (p, TILDE_BLOCK_MODEL, 0);
  g_assert_cmpint (e->kind, ==, TILDE_EXPR_TARGET);
}

static void
test_literals (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("all_expressions.stan");
  static const struct { int index; TildeExprKind kind; const char *text; } cases[] = {
    { 3, TILDE_EXPR_INT, "1" }, { 4, TILDE_EXPR_REAL, "1.5" }, { 5, TILDE_EXPR_REAL, "1." },
    { 6, TILDE_EXPR_REAL, ".5" }, { 7, TILDE_EXPR_REAL, "1e3" },
    { 10, TILDE_EXPR_INT, "1_000_000" }, { 12, TILDE_EXPR_IMAG, "2" },
    { 13, TILDE_EXPR_IMAG, "1.5e3" }, { 14, TILDE_EXPR_IMAG, ".5" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TildeExpr *e = rhs_of (p, TILDE_BLOCK_TRANSFORMED_DATA, cases[i].index);

      g_assert_cmpstr (tilde_expr_kind_to_string (e->kind), ==,
                       tilde_expr_kind_to_string (cases[i].kind));
      g_assert_cmpstr (e->u.literal.text, ==, cases[i].text);
    }
}

static void
test_indexes (void)
{
  g_autoptr(TildeProgram) p = parse_ok ("i.stan",
                                        "model {\n  r = x[:, , 2:, :n, a:b, i];\n  r = v[];\n}\n");
  TildeExpr *e = rhs_of (p, TILDE_BLOCK_MODEL, 0);
  TildeExpr *f = rhs_of (p, TILDE_BLOCK_MODEL, 1);
  static const TildeIndexKind kinds[] = {
    TILDE_INDEX_ALL, TILDE_INDEX_ALL, TILDE_INDEX_UPFROM, TILDE_INDEX_DOWNFROM,
    TILDE_INDEX_BETWEEN, TILDE_INDEX_SINGLE,
  };

  g_assert_cmpint (e->kind, ==, TILDE_EXPR_INDEXED);
  g_assert_cmpint (e->u.indexed.n_indices, ==, 6);
  for (int i = 0; i < 6; i++)
    g_assert_cmpint (e->u.indexed.indices[i].kind, ==, kinds[i]);
  g_assert_cmpint (f->u.indexed.n_indices, ==, 1);
  g_assert_cmpint (f->u.indexed.indices[0].kind, ==, TILDE_INDEX_ALL);
}

static void
test_tuples (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("tuples.stan");
  TildeStmt *unpack = stmt (p, TILDE_BLOCK_TRANSFORMED_DATA, 3);
  TildeExpr *z = rhs_of (p, TILDE_BLOCK_TRANSFORMED_DATA, 4)->u.binary.lhs;

  g_assert_cmpint (unpack->kind, ==, TILDE_STMT_ASSIGN);
  g_assert_cmpint (unpack->u.assign.lhs->kind, ==, TILDE_EXPR_TUPLE);
  g_assert_cmpint (unpack->u.assign.lhs->u.list.n_items, ==, 2);
  /* nested[1].2.1 */
  g_assert_cmpint (z->kind, ==, TILDE_EXPR_TUPLE_PROJ);
  g_assert_cmpint (z->u.proj.slot, ==, 1);
  g_assert_cmpint (z->u.proj.base->kind, ==, TILDE_EXPR_TUPLE_PROJ);
  g_assert_cmpint (z->u.proj.base->u.proj.slot, ==, 2);
  g_assert_cmpint (z->u.proj.base->u.proj.base->kind, ==, TILDE_EXPR_INDEXED);
  g_assert_cmpint (stmt (p, TILDE_BLOCK_GENERATED_QUANTITIES, 1)->u.assign.lhs->kind, ==,
                   TILDE_EXPR_TUPLE_PROJ);
}

static void
test_truncation (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("poisson_truncated.stan");
  TildeStmt *loop = stmt (p, TILDE_BLOCK_MODEL, 0);
  TildeStmt *upper = loop->u.for_stmt.body->u.block.stmts[0];
  TildeStmt *both = loop->u.for_stmt.body->u.block.stmts[1];
  TildeStmt *lower = stmt (p, TILDE_BLOCK_MODEL, 1);

  g_assert_cmpint (upper->u.tilde.truncation, ==, TILDE_TRUNCATE_UPPER);
  g_assert_null (upper->u.tilde.trunc_lower);
  g_assert_cmpint (both->u.tilde.truncation, ==, TILDE_TRUNCATE_BOTH);
  g_assert_cmpint (lower->u.tilde.truncation, ==, TILDE_TRUNCATE_LOWER);
  g_assert_cmpstr (lower->u.tilde.distribution.name, ==, "gamma");
}

static void
test_spans_and_names (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("eight_schools_centered.stan");
  TildeStmt *decl = stmt (p, TILDE_BLOCK_DATA, 1);      /* "  array[J] real y;" */
  TildeStmt *tilde = stmt (p, TILDE_BLOCK_MODEL, 2);    /* "  theta ~ normal(mu, tau);" */
  TildeExpr *mu = tilde->u.tilde.args[0];

  g_assert_cmpint (decl->span.begin_line, ==, 3);
  g_assert_cmpint (decl->span.begin_column, ==, 2);
  g_assert_cmpint (decl->span.end_line, ==, 3);
  g_assert_cmpint (decl->span.end_column, ==, 18);
  g_assert_cmpstr (decl->span.file->name, ==, "eight_schools_centered.stan");
  g_assert_cmpint (mu->span.begin_line, ==, 14);
  g_assert_cmpint (mu->span.begin_column, ==, 17);
  g_assert_cmpint (mu->span.end_column, ==, 19);
  /* Names are interned: the same name is the same pointer. */
  g_assert_true (mu->u.variable.name == stmt (p, TILDE_BLOCK_PARAMETERS, 0)
                                          ->u.var_decl.items[0].ident.name);
  g_assert_true (mu->u.variable.name == g_intern_string ("mu"));
  g_assert_null (mu->type);
  g_assert_null (mu->u.variable.decl);
}

static void
test_functions_only (void)
{
  g_autoptr(TildeProgram) p = parse_fixture ("library.stanfunctions");
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) bad = tilde_parse_buffer ("b.stanfunctions", NULL,
                                                    "real f();\nmodel {\n}\n", -1, NULL,
                                                    TILDE_PARSE_FUNCTIONS_ONLY, diags);

  g_assert_true (p->functions_only);
  g_assert_cmpint (block (p, TILDE_BLOCK_FUNCTIONS)->n_stmts, ==, 3);
  g_assert_null (p->blocks[TILDE_BLOCK_MODEL]);
  g_assert_nonnull (syntax_test_first_error (diags));
  g_assert_cmpstr (syntax_test_first_error (diags)->message, ==,
                   "Expected a function definition or forward declaration.");
}

/* ---- warnings ---- */

static void
test_empty_file_warning (void)
{
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) p = syntax_test_parse ("empty.stan", "// nothing but a comment\n",
                                                 &diags);
  g_autofree char *text = NULL;

  g_assert_cmpuint (diags->len, ==, 1);
  g_assert_cmpint (((TildeDiagnostic *) diags->pdata[0])->severity, ==, TILDE_SEVERITY_WARNING);
  text = syntax_test_render_all (diags, p);
  /* As printed by stanc (the message is wrapped like any stanc warning). */
  g_assert_cmpstr (text, ==, "Warning: Empty file 'empty.stan' detected; this is a valid stan model but\n"
                             "    likely unintended!\n");
}

/* ---- errors ---- */

static void
test_arrow_assignment (void)
{
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) p = syntax_test_parse ("arrow.stan", "model {\n  real x;\n  x <- 1;\n}\n",
                                                 &diags);
  TildeDiagnostic *d = syntax_test_first_error (diags);

  g_assert_nonnull (d);
  g_assert_cmpint (d->begin_line, ==, 3);
  g_assert_cmpint (d->begin_column, ==, 4);
  g_assert_cmpint (d->end_column, ==, 6);
  g_assert_true (g_str_has_prefix (d->message, "The arrow-style assignment operator '<-' was removed"));
}

static void
test_recovery_reports_each_error (void)
{
  const char *text =
    "data {\n"
    "  int N;\n"
    "  real x[N];\n"          /* old array syntax */
    "  vector[N] y;\n"
    "}\n"
    "model {\n"
    "  y ~ normal(0, 1;\n"    /* missing ) */
    "  real z = ;\n"          /* missing expression */
    "  for (i in 1:N) {\n"
    "    z += 1\n"            /* missing ; before } */
    "  }\n"
    "  z = (1 + 2;\n"         /* unclosed ( */
    "}\n"
    "generated quantities {\n"
    "  real w = 1 +;\n"       /* incomplete binary expression */
    "}\n";
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) p = syntax_test_parse ("recover.stan", text, &diags);
  static const int lines[] = { 3, 7, 8, 11, 12, 15 };

  g_assert_cmpuint (diags->len, ==, G_N_ELEMENTS (lines));
  for (gsize i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      TildeDiagnostic *d = g_ptr_array_index (diags, i);

      g_assert_cmpint (d->kind, ==, TILDE_DIAG_PARSING);
      g_assert_cmpint (d->begin_line, ==, lines[i]);
    }
  /* The statements around the errors are still there. */
  g_assert_nonnull (p->blocks[TILDE_BLOCK_GENERATED_QUANTITIES]);
  g_assert_cmpint (block (p, TILDE_BLOCK_DATA)->n_stmts, >=, 2);
}

static void
test_block_order (void)
{
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) p = syntax_test_parse ("order.stan",
                                                 "model {\n}\nparameters {\n  real x;\n  int 5;\n}\n",
                                                 &diags);

  /* The out-of-order block is reported and still searched for errors. */
  g_assert_cmpuint (diags->len, ==, 2);
  g_assert_cmpstr (((TildeDiagnostic *) diags->pdata[0])->message, ==,
                   "Expected \"generated quantities {\" or end of file after end of model block.");
  g_assert_cmpint (((TildeDiagnostic *) diags->pdata[1])->begin_line, ==, 5);
}

static void
test_missing_close_brace (void)
{
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) p = syntax_test_parse ("brace.stan",
                                                 "data {\n  int N;\nmodel {\n  x = ;\n}\n",
                                                 &diags);

  /* The block header ends the unclosed block; the next block is still read. */
  g_assert_cmpuint (diags->len, ==, 2);
  g_assert_cmpint (((TildeDiagnostic *) diags->pdata[0])->begin_line, ==, 3);
  g_assert_cmpstr (((TildeDiagnostic *) diags->pdata[0])->message, ==,
                   "Only top-level variable declarations allowed in data and parameters blocks.");
  g_assert_cmpint (((TildeDiagnostic *) diags->pdata[1])->begin_line, ==, 4);
  g_assert_nonnull (p->blocks[TILDE_BLOCK_MODEL]);
  g_assert_cmpint (p->blocks[TILDE_BLOCK_DATA]->n_stmts, ==, 1);
}

static void
assert_nesting_error (const char *text)
{
  g_autoptr(GPtrArray) diags = NULL;
  g_autoptr(TildeProgram) p = syntax_test_parse ("deep.stan", text, &diags);
  TildeDiagnostic *d = syntax_test_first_error (diags);

  g_assert_nonnull (d);
  g_assert_nonnull (strstr (d->message, "nested more than"));
  g_assert_cmpuint (diags->len, ==, 1);
}

static void
test_nesting_limit (void)
{
  GString *parens = g_string_new ("model {\n  x = ");
  GString *blocks = g_string_new ("model {\n");
  GString *powers = g_string_new ("model {\n  x = a");
  GString *ifs = g_string_new ("model {\n");
  GString *tuples = g_string_new ("data {\n  ");
  GString *prefixes = g_string_new ("model {\n  x = ");
  GString *ok = g_string_new ("model {\n  x = ");
  g_autofree char *p = NULL, *b = NULL, *w = NULL, *f = NULL, *t = NULL, *n = NULL, *k = NULL;

  for (int i = 0; i < 20000; i++)
    {
      g_string_append_c (parens, '(');
      g_string_append_c (blocks, '{');
      g_string_append (powers, "^a");
      g_string_append (ifs, "if (1) ");
      g_string_append (tuples, "tuple(real, ");
      g_string_append (prefixes, "- ");
    }
  g_string_append (parens, "1;\n}\n");
  g_string_append (blocks, "\n}\n");
  g_string_append (powers, ";\n}\n");
  g_string_append (ifs, "x = 1;\n}\n");
  g_string_append (tuples, "real) x;\n}\n");
  g_string_append (prefixes, "1;\n}\n");
  p = g_string_free (parens, FALSE);
  b = g_string_free (blocks, FALSE);
  w = g_string_free (powers, FALSE);
  f = g_string_free (ifs, FALSE);
  t = g_string_free (tuples, FALSE);
  n = g_string_free (prefixes, FALSE);
  assert_nesting_error (p);
  assert_nesting_error (b);
  assert_nesting_error (w);
  assert_nesting_error (f);
  assert_nesting_error (t);
  assert_nesting_error (n);

  /* Nesting below the limit is fine. */
  for (int i = 0; i < TILDE_PARSE_MAX_DEPTH - 10; i++)
    g_string_append_c (ok, '(');
  g_string_append_c (ok, '1');
  for (int i = 0; i < TILDE_PARSE_MAX_DEPTH - 10; i++)
    g_string_append_c (ok, ')');
  g_string_append (ok, ";\n}\n");
  k = g_string_free (ok, FALSE);
  {
    g_autoptr(GPtrArray) diags = NULL;
    g_autoptr(TildeProgram) prog = syntax_test_parse ("ok.stan", k, &diags);

    g_assert_cmpuint (diags->len, ==, 0);
  }
}

static void
test_prefixes_terminate (void)
{
  g_autoptr(GPtrArray) names = syntax_test_list ("valid", ".stan");

  /* Every truncation of every valid program must parse to the end without
   * crashing or looping: the editor sees all of them while typing. */
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = syntax_test_model_path ("valid", names->pdata[i], NULL);
      g_autofree char *text = syntax_test_read (path);
      gsize len = strlen (text);
      gsize step = len > 600 ? 3 : 1;

      for (gsize n = 0; n <= len; n += step)
        {
          g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
          g_autoptr(TildeProgram) prog = tilde_parse_buffer ("prefix.stan", NULL, text,
                                                             (gssize) n, NULL, 0, diags);

          g_assert_nonnull (prog);
          g_assert_cmpuint (diags->len, <=, TILDE_PARSE_MAX_ERRORS + 8);
        }
    }
}

static void
test_random_edits_terminate (void)
{
  g_autoptr(GPtrArray) names = syntax_test_list ("valid", ".stan");
  static const char *const junk[] = {
    "(", ")", "{", "}", "[", "]", ";", ",", "~", "=", "<", ">", "if", "for", "real", "x",
    "1", "\"", "/*", "//", "#", "'", ".1", "?", ":", "|", "@", "array", "tuple", "T[",
  };
  GRand *rand = g_rand_new_with_seed (20241203);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = syntax_test_model_path ("valid", names->pdata[i], NULL);
      g_autofree char *text = syntax_test_read (path);

      for (int round = 0; round < 40; round++)
        {
          GString *s = g_string_new (text);
          g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
          g_autoptr(TildeProgram) prog = NULL;
          g_autofree char *edited = NULL;

          for (int e = 0; e < 3; e++)
            {
              gsize at = (gsize) g_rand_int_range (rand, 0, (gint32) s->len + 1);

              if (g_rand_boolean (rand) && at < s->len)
                g_string_erase (s, (gssize) at, MIN (4, (gssize) (s->len - at)));
              else
                g_string_insert (s, (gssize) at,
                                 junk[g_rand_int_range (rand, 0, G_N_ELEMENTS (junk))]);
            }
          edited = g_string_free (s, FALSE);
          prog = tilde_parse_buffer ("edit.stan", NULL, edited, -1, NULL, 0, diags);
          g_assert_nonnull (prog);
        }
    }
  g_rand_free (rand);
}

/* ---- speed (reported, not asserted) ---- */

static double
seconds_per_parse (const char *text, int repeats)
{
  gint64 start = g_get_monotonic_time ();

  for (int i = 0; i < repeats; i++)
    {
      g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
      g_autoptr(TildeProgram) prog = tilde_parse_buffer ("speed.stan", NULL, text, -1, NULL, 0,
                                                         diags);

      g_assert_cmpuint (diags->len, ==, 0);
    }
  return (double) (g_get_monotonic_time () - start) / 1e6 / repeats;
}

static void
test_speed (void)
{
  g_autofree char *path = syntax_test_model_path ("valid", "all_statements.stan", NULL);
  g_autofree char *text = syntax_test_read (path);
  GString *small = g_string_new ("transformed data {\n  real x = 0;\n");
  GString *large = g_string_new ("transformed data {\n  real x = 0;\n");
  g_autofree char *s = NULL, *l = NULL;
  double t_model, t_small, t_large;

  for (int i = 0; i < 100; i++)
    g_string_append (small, "  x = x + normal_lpdf(x | 0, 1) * (x - 1) / 2;\n");
  for (int i = 0; i < 10000; i++)
    g_string_append (large, "  x = x + normal_lpdf(x | 0, 1) * (x - 1) / 2;\n");
  g_string_append (small, "}\n");
  g_string_append (large, "}\n");
  s = g_string_free (small, FALSE);
  l = g_string_free (large, FALSE);

  t_model = seconds_per_parse (text, 200);
  t_small = seconds_per_parse (s, 200);
  t_large = seconds_per_parse (l, 3);
  {
    int lines = 0;

    for (const char *c = text; *c; c++)
      lines += *c == '\n';
    g_test_message ("all_statements.stan (%d lines): %.1f us per parse", lines, t_model * 1e6);
  }
  g_test_message ("100 statements: %.1f us; 10000 statements: %.1f us (%.1fx for 100x the input)",
                  t_small * 1e6, t_large * 1e6, t_large / t_small);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/parser/valid-fixtures", test_valid_fixtures);
  g_test_add_func ("/engine/parser/precedence", test_precedence);
  g_test_add_func ("/engine/parser/statement-kinds", test_statement_kinds);
  g_test_add_func ("/engine/parser/braces-array-or-block", test_braces_array_or_block);
  g_test_add_func ("/engine/parser/declarations", test_declarations);
  g_test_add_func ("/engine/parser/function-signatures", test_function_signatures);
  g_test_add_func ("/engine/parser/function-body-statement", test_function_body_statement);
  g_test_add_func ("/engine/parser/annotations", test_annotations);
  g_test_add_func ("/engine/parser/calls", test_calls);
  g_test_add_func ("/engine/parser/literals", test_literals);
  g_test_add_func ("/engine/parser/indexes", test_indexes);
  g_test_add_func ("/engine/parser/tuples", test_tuples);
  g_test_add_func ("/engine/parser/truncation", test_truncation);
  g_test_add_func ("/engine/parser/spans-and-names", test_spans_and_names);
  g_test_add_func ("/engine/parser/functions-only", test_functions_only);
  g_test_add_func ("/engine/parser/empty-file-warning", test_empty_file_warning);
  g_test_add_func ("/engine/parser/arrow-assignment", test_arrow_assignment);
  g_test_add_func ("/engine/parser/recovery", test_recovery_reports_each_error);
  g_test_add_func ("/engine/parser/block-order", test_block_order);
  g_test_add_func ("/engine/parser/missing-close-brace", test_missing_close_brace);
  g_test_add_func ("/engine/parser/nesting-limit", test_nesting_limit);
  g_test_add_func ("/engine/parser/prefixes-terminate", test_prefixes_terminate);
  g_test_add_func ("/engine/parser/random-edits-terminate", test_random_edits_terminate);
  g_test_add_func ("/engine/parser/speed", test_speed);
  return g_test_run ();
}
