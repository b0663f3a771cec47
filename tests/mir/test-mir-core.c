/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MIR nodes themselves: constructors, copies and equality, traversal
 * and rewriting helpers, the type of indexed expressions, and the printed
 * form of each statement and of stanc's S-expression payloads (Sexplib's
 * machine format: atoms quoted when they hold spaces or parentheses, a
 * space only between two bare atoms).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir/mir.h"
#include "mir/mir-print.h"

static const TildeSpan no_span;

static MirExpr *
var (const char *name, const TildeType *type)
{
  return mir_expr_var (&no_span, type, TILDE_AD_AUTODIFF, name);
}

static MirExpr *
plus (MirExpr *a, MirExpr *b)
{
  return mir_expr_stanlib (&no_span, a->type, TILDE_AD_AUTODIFF, "Plus__",
                           mir_expr_list_of (a, b, NULL));
}

static void
assert_printed_expr (MirExpr *e, const char *expected)
{
  g_autofree char *got = mir_print_expr (e);
  g_assert_cmpstr (got, ==, expected);
  mir_expr_free (e);
}

static void
assert_printed_stmt (MirStmt *s, const char *expected)
{
  g_autofree char *got = mir_print_stmt (s, MIR_PRINT_DEFAULT);
  g_assert_cmpstr (got, ==, expected);
  mir_stmt_free (s);
}

static void
test_expr_forms (void)
{
  const TildeType *real = tilde_type_real ();
  assert_printed_expr (plus (var ("x", real), mir_expr_int (&no_span, 1)), "(x + 1)");
  assert_printed_expr (mir_expr_stanlib (&no_span, real, TILDE_AD_AUTODIFF, "PMinus__",
                                         mir_expr_list_of (var ("x", real), NULL)),
                       "PMinus__(x)");
  assert_printed_expr (mir_expr_logical (&no_span, MIR_EXPR_AND, TILDE_AD_DATA,
                                         var ("a", tilde_type_int ()),
                                         var ("b", tilde_type_int ())), "a && b");
  assert_printed_expr (mir_expr_ternary (&no_span, real, TILDE_AD_AUTODIFF,
                                         var ("c", tilde_type_int ()), var ("x", real),
                                         var ("y", real)), "(c ? x : y)");
  assert_printed_expr (mir_expr_promotion (mir_expr_int (&no_span, 1), real, TILDE_AD_DATA),
                       "promote(1, real, data)");
  assert_printed_expr (mir_expr_promotion (var ("x", real), tilde_type_complex (),
                                           TILDE_AD_AUTODIFF), "promote(x, complex, var)");
  assert_printed_expr (mir_expr_string (&no_span, "a \"b\"\n"), "\"a \\\"b\\\"\\n\"");
  assert_printed_expr (mir_expr_lit (&no_span, tilde_type_complex (), MIR_LIT_IMAGINARY, "2"),
                       "2i");

  GPtrArray *indices = mir_index_list_new ();
  g_ptr_array_add (indices, mir_index_new (MIR_INDEX_ALL, NULL, NULL));
  g_ptr_array_add (indices, mir_index_new (MIR_INDEX_UPFROM, mir_expr_int (&no_span, 2), NULL));
  g_ptr_array_add (indices, mir_index_new (MIR_INDEX_BETWEEN, mir_expr_int (&no_span, 1),
                                           var ("N", tilde_type_int ())));
  const TildeType *arr = tilde_type_array_n (real, 3);
  assert_printed_expr (mir_expr_indexed (&no_span, arr, TILDE_AD_AUTODIFF, var ("a", arr), indices),
                       "a[:, 2:, 1:N]");
  const TildeType *members[] = { real, tilde_type_int () };
  const TildeType *tuple = tilde_type_tuple (2, members);
  assert_printed_expr (mir_expr_tuple_proj (&no_span, real, TILDE_AD_AUTODIFF,
                                            var ("t", tuple), 1), "t.1");
}

static void
test_internal_payloads (void)
{
  const TildeType *integer = tilde_type_int ();
  /* a bound that prints with spaces becomes a quoted atom */
  MirInternalData *d = mir_internal_data_new ();
  d->trans = mir_transform_new (MIR_TRANS_LOWER, plus (var ("N", integer),
                                                       mir_expr_int (&no_span, 1)), NULL);
  d->var_name = g_intern_string ("x[i]");
  d->var = var ("x", integer);
  MirStmt *check = mir_stmt_nr_call (&no_span, mir_fun_internal (MIR_FN_CHECK, d),
                                     mir_expr_list_of (var ("N", integer), NULL));
  assert_printed_stmt (check, "(FnCheck(trans(Lower\"(N + 1)\"))(var_name x[i])(var x))__(N);\n");

  d = mir_internal_data_new ();
  d->trans = mir_transform_new (MIR_TRANS_SIMPLEX, NULL, NULL);
  d->dims = mir_expr_list_of (var ("K", integer), mir_expr_int (&no_span, 2), NULL);
  assert_printed_expr (mir_expr_internal (&no_span, tilde_type_vector (), TILDE_AD_AUTODIFF,
                                          MIR_FN_READ_PARAM, d, NULL),
                       "(FnReadParam(constrain Simplex)(dims(K 2))(mem_pattern AoS))__()");

  d = mir_internal_data_new ();
  d->trans = mir_transform_new (MIR_TRANS_LOWER_UPPER, mir_expr_int (&no_span, 0),
                                mir_expr_int (&no_span, 1));
  d->jacobian = TRUE;
  assert_printed_expr (mir_expr_internal (&no_span, tilde_type_real (), TILDE_AD_AUTODIFF,
                                          MIR_FN_CONSTRAIN, d,
                                          mir_expr_list_of (var ("x", tilde_type_real ()), NULL)),
                       "(FnConstrain(trans(LowerUpper 0 1))(jacobian true))__(x)");
  assert_printed_expr (mir_expr_internal (&no_span, tilde_type_real (), TILDE_AD_DATA,
                                          MIR_FN_NEG_INF, NULL, NULL), "FnNegInf__()");
}

static MirStmt *
body_with (MirStmt *s)
{
  GPtrArray *stmts = mir_stmt_list_new ();
  g_ptr_array_add (stmts, s);
  return mir_stmt_block (&no_span, stmts);
}

static void
test_stmt_forms (void)
{
  const TildeType *real = tilde_type_real ();
  assert_printed_stmt (mir_stmt_assign_var (&no_span, "x", var ("y", real)), "x = y;\n");
  assert_printed_stmt (mir_stmt_target (&no_span, var ("x", real), FALSE, MIR_TERM_PRIOR),
                       "target += x;\n");
  assert_printed_stmt (mir_stmt_jacobian (&no_span, var ("x", real)), "jacobian += x;\n");
  assert_printed_stmt (mir_stmt_new (MIR_STMT_BREAK, NULL), "break;\n");
  assert_printed_stmt (mir_stmt_new (MIR_STMT_CONTINUE, NULL), "continue;\n");
  assert_printed_stmt (mir_stmt_new (MIR_STMT_SKIP, NULL), ";\n");
  assert_printed_stmt (mir_stmt_return (&no_span, NULL), "return;\n");
  assert_printed_stmt (mir_stmt_if (&no_span, var ("c", tilde_type_int ()),
                                    mir_stmt_new (MIR_STMT_BREAK, NULL),
                                    body_with (mir_stmt_new (MIR_STMT_CONTINUE, NULL))),
                       "if(c) break; else {\n  continue;\n}\n");
  assert_printed_stmt (mir_stmt_while (&no_span, var ("c", tilde_type_int ()),
                                       body_with (mir_stmt_new (MIR_STMT_BREAK, NULL))),
                       "while(c) {\n  break;\n}\n");
  assert_printed_stmt (mir_stmt_for (&no_span, "i", mir_expr_int (&no_span, 1),
                                     var ("N", tilde_type_int ()),
                                     body_with (mir_stmt_new (MIR_STMT_SKIP, NULL))),
                       "for(i in 1:N) {\n  ;\n}\n");
  GPtrArray *two = mir_stmt_list_new ();
  g_ptr_array_add (two, mir_stmt_new (MIR_STMT_SKIP, NULL));
  g_ptr_array_add (two, mir_stmt_new (MIR_STMT_BREAK, NULL));
  assert_printed_stmt (mir_stmt_slist (&no_span, two), ";\nbreak;\n");
  assert_printed_stmt (mir_stmt_profile (&no_span, "p", NULL), "profile(\"p\"){ }\n");
  MirSizedType *sized = mir_sized_array (mir_sized_new (MIR_SIZED_MATRIX, var ("N", tilde_type_int ()),
                                                        mir_expr_int (&no_span, 2)),
                                         var ("K", tilde_type_int ()));
  assert_printed_stmt (mir_stmt_decl (&no_span, "m", tilde_type_array (tilde_type_matrix ()), sized,
                                      TILDE_AD_DATA, MIR_DECL_DEFAULT, NULL),
                       "data array[matrix[N, 2], K] m;\n");
  assert_printed_stmt (mir_stmt_decl (&no_span, "u", tilde_type_vector (), NULL,
                                      TILDE_AD_AUTODIFF, MIR_DECL_DEFAULT, var ("v", tilde_type_vector ())),
                       "vector u = v;\n");
}

static MirStmt *
sample_stmt (void)
{
  const TildeType *real = tilde_type_real ();
  GPtrArray *body = mir_stmt_list_new ();
  g_ptr_array_add (body, mir_stmt_target (&no_span, plus (var ("x", real), mir_expr_int (&no_span, 0)),
                                          TRUE, MIR_TERM_PRIOR));
  g_ptr_array_add (body, mir_stmt_assign_var (&no_span, "y", mir_expr_int (&no_span, 0)));
  return mir_stmt_for (&no_span, "i", mir_expr_int (&no_span, 1), var ("N", tilde_type_int ()),
                       mir_stmt_block (&no_span, body));
}

static void
test_copy_equal (void)
{
  MirStmt *a = sample_stmt ();
  MirStmt *b = mir_stmt_copy (a);
  g_assert_true (mir_stmt_equal (a, b));
  g_assert_true (a->u.for_stmt.body != b->u.for_stmt.body);
  MirStmt *target = g_ptr_array_index (b->u.for_stmt.body->u.block.stmts, 0);
  target->u.increment.role = MIR_TERM_LIKELIHOOD;
  g_assert_false (mir_stmt_equal (a, b));
  target->u.increment.role = MIR_TERM_PRIOR;
  g_assert_true (mir_stmt_equal (a, b));
  b->u.for_stmt.var = g_intern_string ("j");
  g_assert_false (mir_stmt_equal (a, b));
  mir_stmt_free (a);
  mir_stmt_free (b);
}

static MirExpr *
zero_to_seven (MirExpr *e, gpointer data)
{
  guint *count = data;
  if (e->kind == MIR_EXPR_LIT && strcmp (e->u.lit.text, "0") == 0)
    {
      MirExpr *seven = mir_expr_int (&e->span, 7);
      seven->ad_level = e->ad_level;
      mir_expr_free (e);
      (*count)++;
      return seven;
    }
  return e;
}

static void
count_children (MirStmt *s, gpointer data)
{
  (*(guint *) data)++;
}

static void
test_traversal (void)
{
  MirStmt *s = sample_stmt ();
  guint children = 0;
  mir_stmt_foreach_child (s, count_children, &children);
  g_assert_cmpuint (children, ==, 1);
  guint all = 0;
  mir_stmt_walk (s, count_children, &all);
  g_assert_cmpuint (all, ==, 4);

  guint rewritten = 0;
  mir_stmt_map_exprs (s, zero_to_seven, &rewritten);
  g_assert_cmpuint (rewritten, ==, 2);
  g_autofree char *text = mir_print_stmt (s, MIR_PRINT_DEFAULT);
  g_assert_cmpstr (text, ==, "for(i in 1:N) {\n  target += (x + 7);\n  y = 7;\n}\n");
  mir_stmt_free (s);
}

static void
test_indexed_types (void)
{
  struct { const TildeType *type; MirIndexKind kinds[3]; guint n; const char *expected; } cases[] = {
    { tilde_type_matrix (), { MIR_INDEX_SINGLE }, 1, "row_vector" },
    { tilde_type_matrix (), { MIR_INDEX_ALL, MIR_INDEX_SINGLE }, 2, "vector" },
    { tilde_type_matrix (), { MIR_INDEX_SINGLE, MIR_INDEX_SINGLE }, 2, "real" },
    { tilde_type_matrix (), { MIR_INDEX_MULTI }, 1, "matrix" },
    { tilde_type_vector (), { MIR_INDEX_UPFROM }, 1, "vector" },
    { tilde_type_array_n (tilde_type_matrix (), 2), { MIR_INDEX_SINGLE }, 1, "array[] matrix" },
    { tilde_type_array (tilde_type_matrix ()), { MIR_INDEX_ALL, MIR_INDEX_SINGLE }, 2,
      "array[] row_vector" },
    { tilde_type_array (tilde_type_matrix ()),
      { MIR_INDEX_SINGLE, MIR_INDEX_SINGLE, MIR_INDEX_SINGLE }, 3, "real" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GPtrArray *indices = mir_index_list_new ();
      for (guint k = 0; k < cases[i].n; k++)
        g_ptr_array_add (indices, mir_index_new (cases[i].kinds[k],
                                                 cases[i].kinds[k] == MIR_INDEX_ALL ? NULL
                                                 : mir_expr_int (&no_span, 1), NULL));
      g_autofree char *got = tilde_type_to_string (mir_indexed_type (cases[i].type, indices));
      g_assert_cmpstr (got, ==, cases[i].expected);
      g_ptr_array_unref (indices);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/core/expr-forms", test_expr_forms);
  g_test_add_func ("/mir/core/internal-payloads", test_internal_payloads);
  g_test_add_func ("/mir/core/stmt-forms", test_stmt_forms);
  g_test_add_func ("/mir/core/copy-equal", test_copy_equal);
  g_test_add_func ("/mir/core/traversal", test_traversal);
  g_test_add_func ("/mir/core/indexed-types", test_indexed_types);
  return g_test_run ();
}
