/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Each analysis on small Stan programs, checked and lowered, against facts
 * worked out by hand for the statements named by their source lines.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir/dataflow/ad-levels.h"
#include "mir/dataflow/available-exprs.h"
#include "mir/dataflow/const-prop.h"
#include "mir/dataflow/copy-prop.h"
#include "mir/dataflow/lazy-code-motion.h"
#include "mir/dataflow/liveness.h"
#include "mir/dataflow/param-deps.h"
#include "mir/dataflow/reaching-defs.h"
#include "mir/dataflow/uninitialized.h"
#include "test-dataflow-util.h"

static char *
joined (const char **names)
{
  return g_strjoinv (", ", (char **) names);
}

static void
assert_names (const char **names, const char *expected)
{
  g_autofree char *text = joined (names);

  g_free (names);
  g_assert_cmpstr (text, ==, expected);
}

/* ---- reaching definitions and liveness ---- */

static const char defs_src[] =
  "functions {\n"                              /* 1 */
  "  int f(int n) {\n"                         /* 2 */
  "    int x = 1;\n"                           /* 3 */
  "    int y;\n"                               /* 4 */
  "    if (n > 0) x = 2;\n"                    /* 5 */
  "    y = x;\n"                               /* 6 */
  "    while (y < n) y = y + x;\n"             /* 7 */
  "    return y;\n"                            /* 8 */
  "  }\n"
  "}\n";

static void
assert_defs (const MirReachingDefs *rd, guint node, const char *var, const guint *want,
             guint n_want)
{
  g_autoptr (GArray) got = mir_reaching_defs_of (rd, node, var);

  g_assert_cmpuint (got->len, ==, n_want);
  for (guint i = 0; i < n_want; i++)
    g_assert_cmpuint (g_array_index (got, guint, i), ==, want[i]);
}

static void
test_reaching_definitions (void)
{
  g_autoptr (MirProgram) p = df_lower (defs_src);
  g_autoptr (MirFlowGraph) g = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  const char *const outside[] = { "n", NULL };
  MirReachingDefs *rd = mir_reaching_definitions (g, outside, TRUE);
  guint x1 = df_node_at (g, 3, MIR_STMT_ASSIGN), x2 = df_node_at (g, 5, MIR_STMT_ASSIGN);
  guint y_x = df_node_at (g, 6, MIR_STMT_ASSIGN), loop = df_node_at (g, 7, MIR_STMT_WHILE);
  guint body = df_node_at (g, 7, MIR_STMT_ASSIGN), ret = df_node_at (g, 8, MIR_STMT_RETURN);
  const guint want_x[] = { x1, x2 }, want_y[] = { y_x, body }, want_n[] = { g->entry };
  const guint want_y_decl[] = { df_node_at (g, 4, MIR_STMT_DECL) };

  /* x = 1 may reach y = x through the missing else; the declaration of x
   * is killed by x = 1 */
  assert_defs (rd, y_x, "x", want_x, 2);
  assert_defs (rd, y_x, "y", want_y_decl, 1);
  /* in the loop both definitions of y reach */
  assert_defs (rd, body, "y", want_y, 2);
  assert_defs (rd, loop, "y", want_y, 2);
  assert_defs (rd, ret, "y", want_y, 2);
  assert_defs (rd, ret, "x", want_x, 2);
  assert_defs (rd, body, "n", want_n, 1);
  df_assert_set (rd->facts, mir_set_facts_before_node (rd->facts, y_x),
                 "{n@entry, x@3, y@4, x@6}", "before y = x");
  df_assert_set (rd->facts, mir_set_facts_before_node (rd->facts, body),
                 "{n@entry, x@3, x@6, y@7, y@9}", "in the loop");
  g_assert_cmpuint (x1, ==, 3);
  g_assert_cmpuint (x2, ==, 6);
  g_assert_cmpuint (body, ==, 9);
  mir_reaching_defs_free (rd);
}

/* Tracking some variables gives their definitions as tracking all does, and
 * none of the others. */
static void
test_reaching_definitions_tracked (void)
{
  g_autoptr (MirProgram) p = df_lower (defs_src);
  g_autoptr (MirFlowGraph) g = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  const char *const outside[] = { "n", NULL };
  const char *const tracked[] = { "x", NULL };
  MirReachingDefs *rd = mir_reaching_definitions_of (g, outside, tracked, FALSE);
  guint x1 = df_node_at (g, 3, MIR_STMT_ASSIGN), x2 = df_node_at (g, 5, MIR_STMT_ASSIGN);
  guint y_x = df_node_at (g, 6, MIR_STMT_ASSIGN), ret = df_node_at (g, 8, MIR_STMT_RETURN);
  const guint want_x[] = { x1, x2 };

  assert_defs (rd, y_x, "x", want_x, 2);
  assert_defs (rd, ret, "x", want_x, 2);
  assert_defs (rd, ret, "y", NULL, 0);
  assert_defs (rd, ret, "n", NULL, 0);
  df_assert_set (rd->facts, mir_set_facts_before_node (rd->facts, y_x), "{x@3, x@6}",
                 "before y = x");
  mir_reaching_defs_free (rd);
}

static void
test_liveness (void)
{
  g_autoptr (MirProgram) p = df_lower (defs_src);
  g_autoptr (MirFlowGraph) g = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  g_autoptr (MirSetFacts) live = mir_liveness (g, NULL, TRUE);
  const MirFunDef *f = g_ptr_array_index (p->functions, 0);
  g_autoptr (MirSetFacts) same = mir_liveness_of_stmt (f->body);
  struct { int line; MirStmtKind kind; const char *before, *after; } want[] = {
    { 3, MIR_STMT_DECL, "{n}", "{n}" },
    { 3, MIR_STMT_ASSIGN, "{n}", "{x, n}" },
    { 4, MIR_STMT_DECL, "{x, n}", "{x, n}" },
    { 5, MIR_STMT_IF, "{x, n}", "{x, n}" },
    { 5, MIR_STMT_ASSIGN, "{n}", "{x, n}" },
    { 6, MIR_STMT_ASSIGN, "{x, n}", "{x, y, n}" },
    { 7, MIR_STMT_WHILE, "{x, y, n}", "{x, y, n}" },
    { 7, MIR_STMT_ASSIGN, "{x, y, n}", "{x, y, n}" },
    { 8, MIR_STMT_RETURN, "{y}", "{}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      guint v = df_node_at (g, want[i].line, want[i].kind);
      g_autofree char *what = g_strdup_printf ("line %d %s", want[i].line,
                                               mir_stmt_kind_name (want[i].kind));
      df_assert_set (live, mir_set_facts_before_node (live, v), want[i].before, what);
      df_assert_set (live, mir_set_facts_after_node (live, v), want[i].after, what);
      /* the same through the statement API */
      df_assert_set (same, mir_set_facts_before (same, g->nodes[v].stmt), want[i].before, what);
    }
  /* the end of the body is unreachable: nothing is live there */
  df_assert_set (live, mir_set_facts_before_node (live, 1), "{}", "end of body");
  g_assert_true (mir_set_facts_has (live, mir_set_facts_before_node (live, 8), "y"));
  g_assert_false (mir_set_facts_has (live, mir_set_facts_before_node (live, 7), "y"));
  g_assert_cmpuint (df_node_at (g, 7, MIR_STMT_WHILE), ==, 8);
}

static const char tdata_src[] =
  "transformed data {\n"     /* 1 */
  "  int a = 1;\n"           /* 2 */
  "  int b = 2;\n"           /* 3 */
  "  int c = a + 1;\n"       /* 4 */
  "}\n"
  "parameters { real mu; }\n"
  "model { mu ~ normal(a + b, c); }\n";

static void
test_liveness_of_part (void)
{
  g_autoptr (MirProgram) p = df_lower (tdata_src);
  g_autoptr (MirSetFacts) part = mir_liveness_of_part (p, MIR_PART_PREPARE_DATA);
  g_autoptr (MirFlowGraph) g = df_part_graph (p, MIR_PART_PREPARE_DATA, MIR_FLOW_GRAPH_DEFAULT);
  g_autoptr (MirSetFacts) alone = mir_liveness (g, NULL, FALSE);
  const MirStmt *assign_b = g->nodes[df_node_at (g, 3, MIR_STMT_ASSIGN)].stmt;
  const MirStmt *assign_c = g->nodes[df_node_at (g, 4, MIR_STMT_ASSIGN)].stmt;

  /* transformed data are read by the other parts, so b stays live */
  df_assert_set (part, mir_set_facts_before (part, assign_c), "{a, b, target}", "before c");
  df_assert_set (part, mir_set_facts_after (part, assign_c), "{a, b, c, target}", "after c");
  df_assert_set (part, mir_set_facts_before (part, assign_b), "{a, target}", "before b");
  /* on its own, prepare_data reads b nowhere */
  df_assert_set (alone, mir_set_facts_after (alone, assign_b), "{a}", "b dead alone");
  /* a statement of another part is not in the graph */
  g_assert_null (mir_set_facts_before (alone, g_ptr_array_index (p->parts[MIR_PART_LOG_PROB], 0)));
}

/* ---- constant propagation ---- */

static const char const_src[] =
  "transformed data {\n"                                   /* 1 */
  "  int n = 7;\n"                                         /* 2 */
  "  int k = n %/% 2;\n"                                   /* 3 */
  "  int m = -7 %/% 2;\n"                                  /* 4 */
  "  int r = -7 % 2;\n"                                    /* 5 */
  "  int q = n / 2;\n"                                     /* 6 */
  "  real h = 1.0 / 4;\n"                                  /* 7 */
  "  real p = k ^ 2;\n"                                    /* 8 */
  "  int c;\n"                                             /* 9 */
  "  if (n > 5) c = 1; else c = 1;\n"                      /* 10 */
  "  int d;\n"                                             /* 11 */
  "  if (k > 100) d = 1; else d = 2;\n"                    /* 12 */
  "  int big = 2147483647;\n"                              /* 13 */
  "  int over = big + 1;\n"                                /* 14 */
  "  int lo = -2147483647 - 1;\n"                          /* 15 */
  "  int quo = lo %/% -1;\n"                               /* 16 */
  "  int rem = lo % -1;\n"                                 /* 17 */
  "  int zero = n %/% 0;\n"                                /* 18 */
  "  real t = 0.1 + 0.2;\n"                                /* 19 */
  "  real inf = 1.0 / 0;\n"                                /* 20 */
  "  int s = (n > 100 && 1 %/% 0 > 0) ? 5 : 6;\n"          /* 21 */
  "  int w = 0;\n"                                         /* 22 */
  "  while (w < 3) w = w + 1;\n"                           /* 23 */
  "  real e = -0.0;\n"                                     /* 24 */
  "}\n";

static void
assert_const (const MirConstFacts *cp, guint node, gboolean after, const char *var,
              const char *expected)
{
  MirConstValue v = after ? mir_const_facts_after (cp, node, var)
                          : mir_const_facts_before (cp, node, var);
  g_autoptr (GString) text = g_string_new (NULL);

  mir_const_append (text, v);
  if (g_strcmp0 (text->str, expected) != 0)
    {
      g_test_message ("%s at node %u: got %s, expected %s", var, node, text->str, expected);
      g_test_fail ();
    }
}

static void
test_constant_propagation (void)
{
  g_autoptr (MirProgram) p = df_lower (const_src);
  g_autoptr (MirFlowGraph) g = df_part_graph (p, MIR_PART_PREPARE_DATA, MIR_FLOW_GRAPH_DEFAULT);
  MirConstFacts *cp = mir_constant_propagation (g, TRUE);
  g_autofree char *at_exit = mir_dataflow_fact_to_string (cp->solution,
                                                          cp->solution->before[g->exit]);
  guint loop = df_node_at (g, 23, MIR_STMT_WHILE);
  guint w0 = df_node_at (g, 22, MIR_STMT_ASSIGN);

  /* int division truncates toward zero, % takes the dividend's sign; k ^ 2
   * is real; both branches give c the same value; d gets two; overflow,
   * division by zero and a non-finite real are not constants; && does not
   * evaluate its right operand when the left is false */
  g_assert_cmpstr (at_exit, ==,
                   "{n = 7, k = 3, m = -3, r = -1, q = 3, h = 0.25, p = 9.0, c = 1, "
                   "big = 2147483647, lo = -2147483648, t = 0.30000000000000004, s = 6, "
                   "e = -0.0}");
  assert_const (cp, g->exit, FALSE, "d", "⊤");
  assert_const (cp, g->exit, FALSE, "over", "⊤");
  assert_const (cp, g->exit, FALSE, "quo", "⊤");
  assert_const (cp, g->exit, FALSE, "rem", "⊤");
  assert_const (cp, g->exit, FALSE, "zero", "⊤");
  assert_const (cp, g->exit, FALSE, "inf", "⊤");
  /* the loop counter is a constant before the loop only */
  assert_const (cp, w0, TRUE, "w", "0");
  assert_const (cp, loop, FALSE, "w", "⊤");
  assert_const (cp, loop, FALSE, "n", "7");
  /* d before its assignments: the declaration left it without a value */
  assert_const (cp, df_node_at (g, 12, MIR_STMT_IF), FALSE, "d", "⊤");
  g_assert_nonnull (cp->solution->trace);
  mir_const_facts_free (cp);
}

static void
test_constant_evaluation (void)
{
  g_autoptr (MirProgram) p = df_lower (const_src);
  g_autoptr (MirFlowGraph) g = df_part_graph (p, MIR_PART_PREPARE_DATA, MIR_FLOW_GRAPH_DEFAULT);
  MirConstFacts *cp = mir_constant_propagation (g, FALSE);
  guint v = df_node_at (g, 3, MIR_STMT_ASSIGN);
  const MirExpr *rhs = g->nodes[v].stmt->u.assign.rhs;
  MirConstValue value = mir_const_facts_eval (cp, v, rhs);
  g_autoptr (GString) text = g_string_new (NULL);

  g_assert_cmpint (value.kind, ==, MIR_CONST_INT);
  g_assert_cmpint (value.i, ==, 3);
  /* joins in the per-variable lattice */
  g_assert_true (mir_const_equal (mir_const_join (mir_const_undef (), mir_const_int (2)),
                                  mir_const_int (2)));
  g_assert_cmpint (mir_const_join (mir_const_int (2), mir_const_int (3)).kind, ==,
                   MIR_CONST_NAC);
  g_assert_cmpint (mir_const_join (mir_const_real (0.0), mir_const_real (-0.0)).kind, ==,
                   MIR_CONST_NAC);
  g_assert_cmpint (mir_const_int (G_MAXINT32 + (gint64) 1).kind, ==, MIR_CONST_NAC);
  mir_const_append (text, mir_const_real (1e300));
  g_assert_cmpstr (text->str, ==, "1e+300");
  mir_const_facts_free (cp);
}

/* ---- copies and expressions ---- */

static const char copy_src[] =
  "functions {\n"                                     /* 1 */
  "  real f(real a, real b) {\n"                      /* 2 */
  "    real x = a;\n"                                 /* 3 */
  "    real y = x;\n"                                 /* 4 */
  "    real z;\n"                                     /* 5 */
  "    if (a > 0) z = x; else z = y;\n"               /* 6 */
  "    x = b;\n"                                      /* 7 */
  "    return y + z;\n"                               /* 8 */
  "  }\n"
  "}\n";

static void
test_copy_propagation (void)
{
  g_autoptr (MirProgram) p = df_lower (copy_src);
  g_autoptr (MirFlowGraph) g = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  MirCopyFacts *cp = mir_copy_propagation (g, FALSE);
  guint branch = df_node_at (g, 6, MIR_STMT_IF), x_b = df_node_at (g, 7, MIR_STMT_ASSIGN);
  guint ret = df_node_at (g, 8, MIR_STMT_RETURN);

  g_assert_cmpuint (cp->n_copies, ==, 5);
  df_assert_set (cp->facts, mir_set_facts_before_node (cp->facts, branch),
                 "{x = a, y = x}", "before if");
  /* the branches copy different variables into z: neither copy holds */
  df_assert_set (cp->facts, mir_set_facts_before_node (cp->facts, x_b),
                 "{x = a, y = x}", "after the join");
  /* x = b ends x = a and y = x */
  df_assert_set (cp->facts, mir_set_facts_before_node (cp->facts, ret), "{x = b}",
                 "before return");
  g_assert_cmpstr (mir_copy_facts_source (cp, ret, "x"), ==, "b");
  g_assert_null (mir_copy_facts_source (cp, ret, "y"));
  g_assert_cmpstr (mir_copy_facts_source (cp, x_b, "y"), ==, "x");
  mir_copy_facts_free (cp);
}

static const char avail_src[] =
  "functions {\n"                                            /* 1 */
  "  real f(real a0, real b, int n) {\n"                     /* 2 */
  "    real a = a0;\n"                                       /* 3 */
  "    real x = a * b;\n"                                    /* 4 */
  "    real y;\n"                                            /* 5 */
  "    if (n > 0) y = a - b; else y = a + b;\n"              /* 6 */
  "    real z = a * b + (a - b);\n"                          /* 7 */
  "    a = z;\n"                                             /* 8 */
  "    return a * b;\n"                                      /* 9 */
  "  }\n"
  "}\n";

static void
test_available_expressions (void)
{
  g_autoptr (MirProgram) p = df_lower (avail_src);
  g_autoptr (MirFlowGraph) g = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  MirAvailableExprs *ae = mir_available_expressions (g, TRUE);
  const MirSetFacts *f = ae->facts;
  guint branch = df_node_at (g, 6, MIR_STMT_IF), z = df_node_at (g, 7, MIR_STMT_ASSIGN);
  guint a_z = df_node_at (g, 8, MIR_STMT_ASSIGN), ret = df_node_at (g, 9, MIR_STMT_RETURN);
  const MirExpr *a_times_b = g->nodes[ret].stmt->u.ret.expr;

  g_assert_cmpuint (mir_expr_index_size (ae->exprs), ==, 5);
  df_assert_set (f, mir_set_facts_before_node (f, branch), "{(a * b)}", "before if");
  df_assert_set (f, mir_set_facts_after_node (f, branch), "{(a * b), (n > 0)}", "after if");
  /* a - b is computed on one branch only */
  df_assert_set (f, mir_set_facts_before_node (f, z), "{(a * b), (n > 0)}", "at the join");
  df_assert_set (f, mir_set_facts_after_node (f, z),
                 "{(a * b), (n > 0), (a - b), ((a * b) + (a - b))}", "after z");
  /* a = z changes a: everything reading a is gone */
  df_assert_set (f, mir_set_facts_after_node (f, a_z), "{(n > 0)}", "after a = z");
  g_assert_true (mir_available_before (ae, z, a_times_b));
  g_assert_false (mir_available_before (ae, ret, a_times_b));
  mir_available_exprs_free (ae);
}

static const char lcm_src[] =
  "functions {\n"                              /* 1 */
  "  real f(real a, real b, int n) {\n"        /* 2 */
  "    real s = 0.0;\n"                        /* 3 */
  "    for (i in 1:n) {\n"                     /* 4 */
  "      s = s + a * b;\n"                     /* 5 */
  "    }\n"                                    /* 6 */
  "    return s + a * b;\n"                    /* 7 */
  "  }\n"
  "}\n";

static void
test_lazy_code_motion (void)
{
  g_autoptr (MirProgram) p = df_lower (lcm_src);
  g_autoptr (MirFlowGraph) g = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  MirLazyCodeMotion *lcm = mir_lazy_code_motion (g, TRUE);
  guint decl = df_node_at (g, 3, MIR_STMT_DECL), init = df_node_at (g, 3, MIR_STMT_ASSIGN);
  guint loop = df_node_at (g, 4, MIR_STMT_FOR), body = df_node_at (g, 5, MIR_STMT_ASSIGN);
  guint end = df_node_at (g, 4, MIR_STMT_BLOCK), ret = df_node_at (g, 7, MIR_STMT_RETURN);
  const MirSetFacts *ant = lcm->anticipated, *av = lcm->available;
  const MirSetFacts *post = lcm->postponable, *used = lcm->used;

  g_assert_cmpuint (mir_expr_index_size (lcm->exprs), ==, 2);
  df_assert_set (ant, mir_set_facts_before_node (ant, decl), "{(a * b)}", "ant decl");
  df_assert_set (ant, mir_set_facts_before_node (ant, init), "{(a * b)}", "ant init");
  df_assert_set (ant, mir_set_facts_before_node (ant, loop), "{(s + (a * b)), (a * b)}",
                 "ant loop");
  df_assert_set (ant, mir_set_facts_before_node (ant, end), "{(s + (a * b)), (a * b)}",
                 "ant end");
  df_assert_set (av, mir_set_facts_before_node (av, init), "{(a * b)}", "av init");
  df_assert_set (av, mir_set_facts_before_node (av, loop), "{(a * b)}", "av loop");
  df_assert_set (av, mir_set_facts_before_node (av, body), "{(s + (a * b)), (a * b)}",
                 "av body");
  df_assert_set (ant, lcm->earliest[g->entry], "{(a * b)}", "earliest entry");
  df_assert_set (ant, lcm->earliest[decl], "{(a * b)}", "earliest decl");
  df_assert_set (ant, lcm->earliest[init], "{}", "earliest init");
  df_assert_set (ant, lcm->earliest[loop], "{(s + (a * b))}", "earliest loop");
  df_assert_set (ant, lcm->earliest[body], "{}", "earliest body");
  df_assert_set (post, mir_set_facts_before_node (post, init), "{(a * b)}", "post init");
  df_assert_set (post, mir_set_facts_before_node (post, loop), "{}", "post loop");
  df_assert_set (post, mir_set_facts_before_node (post, body), "{(s + (a * b))}", "post body");
  df_assert_set (post, mir_set_facts_before_node (post, ret), "{(s + (a * b))}", "post ret");
  /* a * b is computed once, before the loop, and reused in the loop and
   * at the return; s + a * b where it is used */
  df_assert_set (ant, lcm->latest[g->entry], "{}", "latest entry");
  df_assert_set (ant, lcm->latest[decl], "{}", "latest decl");
  df_assert_set (ant, lcm->latest[init], "{(a * b)}", "latest init");
  df_assert_set (ant, lcm->latest[loop], "{}", "latest loop");
  df_assert_set (ant, lcm->latest[body], "{(s + (a * b))}", "latest body");
  df_assert_set (ant, lcm->latest[ret], "{(s + (a * b))}", "latest ret");
  df_assert_set (used, mir_set_facts_after_node (used, init), "{(a * b)}", "used init");
  df_assert_set (used, mir_set_facts_after_node (used, loop), "{(a * b)}", "used loop");
  df_assert_set (used, mir_set_facts_after_node (used, body), "{(a * b)}", "used body");
  df_assert_set (used, mir_set_facts_after_node (used, ret), "{}", "used ret");
  df_assert_set (used, mir_set_facts_before_node (used, init), "{}", "used before init");
  mir_lazy_code_motion_free (lcm);
}

/* ---- AD levels ---- */

static const char ad_src[] =
  "functions {\n"                                          /* 1 */
  "  real g(real u, data real v) {\n"                      /* 2 */
  "    real w = v * 2;\n"                                  /* 3 */
  "    real z = u * w;\n"                                  /* 4 */
  "    return z;\n"                                        /* 5 */
  "  }\n"
  "}\n"
  "data { real x; }\n"                                     /* 8 */
  "parameters { real mu; }\n"                              /* 9 */
  "model {\n"                                              /* 10 */
  "  real a = x * 2;\n"                                    /* 11 */
  "  real b = mu + a;\n"                                   /* 12 */
  "  real c = a;\n"                                        /* 13 */
  "  real d;\n"                                            /* 14 */
  "  d = b;\n"                                             /* 15 */
  "  d = 1.0;\n"                                           /* 16 */
  "  int k = 3;\n"                                         /* 17 */
  "  array[2] real e;\n"                                   /* 18 */
  "  e[1] = x;\n"                                          /* 19 */
  "  e[2] = mu;\n"                                         /* 20 */
  "  mu ~ normal(c + g(mu, x), 1);\n"                      /* 21 */
  "}\n"
  "generated quantities {\n"
  "  real y = mu * 2;\n"
  "}\n";

static void
test_ad_levels (void)
{
  g_autoptr (MirProgram) p = df_lower (ad_src);
  MirAdLevels *lp = mir_ad_levels_of_part (p, MIR_PART_LOG_PROB);
  MirAdLevels *gq = mir_ad_levels_of_part (p, MIR_PART_GENERATE_QUANTITIES);
  MirAdLevels *fn = mir_ad_levels_of_function (g_ptr_array_index (p->functions, 0));
  const MirFlowGraph *g = lp->facts->graph;
  guint d_b = df_node_at (g, 15, MIR_STMT_ASSIGN), d_1 = df_node_at (g, 16, MIR_STMT_ASSIGN);
  guint c_a = df_node_at (g, 13, MIR_STMT_ASSIGN);
  guint e_mu = df_node_at (g, 20, MIR_STMT_ASSIGN);

  /* b reads mu; d holds b for a while; e gets mu in one element; a, c and
   * the int k never hold a parameter's value */
  assert_names (mir_ad_levels_variables (lp), "mu, b, d, e");
  g_assert_true (mir_set_facts_has (lp->facts, mir_set_facts_after_node (lp->facts, d_b), "d"));
  g_assert_false (mir_set_facts_has (lp->facts, mir_set_facts_after_node (lp->facts, d_1), "d"));
  g_assert_true (mir_set_facts_has (lp->facts, mir_set_facts_after_node (lp->facts, e_mu), "e"));
  g_assert_cmpint (mir_ad_levels_of_expr (lp, c_a, g->nodes[c_a].stmt->u.assign.rhs), ==,
                   TILDE_AD_DATA);
  g_assert_cmpint (mir_ad_levels_of_expr (lp, d_b, g->nodes[d_b].stmt->u.assign.rhs), ==,
                   TILDE_AD_AUTODIFF);
  /* in generated quantities the parameters are data */
  assert_names (mir_ad_levels_variables (gq), "");
  /* in a function, the arguments not declared data */
  assert_names (mir_ad_levels_variables (fn), "z, u");
  mir_ad_levels_free (lp);
  mir_ad_levels_free (gq);
  mir_ad_levels_free (fn);
}

/* ---- definite assignment ---- */

static const char assigned_src[] =
  "functions {\n"                                               /* 1 */
  "  real f(real a, int n) {\n"                                 /* 2 */
  "    real x;\n"                                               /* 3 */
  "    real y;\n"                                               /* 4 */
  "    if (n > 0) { x = 1; y = 2; } else { x = 3; }\n"          /* 5 */
  "    for (i in 1:n) y = a;\n"                                 /* 6 */
  "    return x + y;\n"                                         /* 7 */
  "  }\n"
  "}\n";

static void
test_assigned_variables (void)
{
  g_autoptr (MirProgram) p = df_lower (assigned_src);
  g_autoptr (MirFlowGraph) may_skip = df_function_graph (p, 0, MIR_FLOW_GRAPH_DEFAULT);
  g_autoptr (MirFlowGraph) runs = df_function_graph (p, 0, MIR_FLOW_GRAPH_LOOPS_RUN);
  const char *const args[] = { "a", "n", NULL };
  g_autoptr (MirSetFacts) skip_facts = mir_assigned_variables (may_skip, args, FALSE);
  g_autoptr (MirSetFacts) run_facts = mir_assigned_variables (runs, args, TRUE);
  g_autoptr (GPtrArray) skip_warn = tilde_diagnostic_list_new ();
  g_autoptr (GPtrArray) run_warn = tilde_diagnostic_list_new ();
  guint ret = df_node_at (may_skip, 7, MIR_STMT_RETURN);
  guint loop = df_node_at (may_skip, 6, MIR_STMT_FOR);
  const TildeDiagnostic *d;

  /* x is assigned on both branches, y on one; the loop assigns y only if
   * it runs */
  df_assert_set (skip_facts, mir_set_facts_before_node (skip_facts, loop), "{x, n, a}",
                 "before loop");
  df_assert_set (skip_facts, mir_set_facts_before_node (skip_facts, ret), "{x, n, i, a}",
                 "before return");
  df_assert_set (run_facts, mir_set_facts_before_node (run_facts, ret), "{x, y, n, i, a}",
                 "before return, loop runs");
  mir_uninitialized_uses (may_skip, args, skip_warn);
  mir_uninitialized_uses (runs, args, run_warn);
  g_assert_cmpuint (run_warn->len, ==, 0);
  g_assert_cmpuint (skip_warn->len, ==, 1);
  d = g_ptr_array_index (skip_warn, 0);
  g_assert_cmpstr (d->message, ==,
                   "The variable y may not have been assigned a value before its use.");
  g_assert_cmpint (d->begin_line, ==, 7);
  g_assert_cmpint (d->begin_column, ==, 15);
  g_assert_cmpint (d->end_column, ==, 16);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_UNINITIALIZED);
  g_assert_cmpint (d->severity, ==, TILDE_SEVERITY_WARNING);
}

/* ---- parameter dependence ---- */

static const char deps_src[] =
  "parameters { real a; real b; }\n"             /* 1 */
  "model {\n"                                    /* 2 */
  "  real x = a * 2;\n"                          /* 3 */
  "  real y = 1;\n"                              /* 4 */
  "  if (b > 0) y = 2;\n"                        /* 5 */
  "  real z = y;\n"                              /* 6 */
  "  for (i in 1:3) {\n"                         /* 7 */
  "    if (x > 0) break;\n"                      /* 8 */
  "    z = 3;\n"                                 /* 9 */
  "  }\n"                                        /* 10 */
  "  a ~ normal(z, 1);\n"                        /* 11 */
  "}\n";

static void
test_param_dependence (void)
{
  g_autoptr (MirProgram) p = df_lower (deps_src);
  g_autoptr (MirFlowGraph) g = df_part_graph (p, MIR_PART_LOG_PROB, MIR_FLOW_GRAPH_DEFAULT);
  const char *const params[] = { "a", "b", NULL };
  MirParamDeps *d = mir_param_dependence (g, params, TRUE);
  guint z_y = df_node_at (g, 6, MIR_STMT_ASSIGN), loop = df_node_at (g, 7, MIR_STMT_FOR);
  guint test = df_node_at (g, 8, MIR_STMT_IF), z_3 = df_node_at (g, 9, MIR_STMT_ASSIGN);
  guint tilde = df_node_at (g, 11, MIR_STMT_TARGET_PLUS);

  /* x through data, y through control (assigned under b > 0) */
  assert_names (mir_param_deps_of_var (d, z_y, "x"), "a");
  assert_names (mir_param_deps_of_var (d, z_y, "y"), "b");
  assert_names (mir_param_deps_of_var (d, z_y, "z"), "");
  /* z = 3 runs only if the break did not happen, which depends on a */
  assert_names (mir_param_deps_of_var (d, tilde, "z"), "a, b");
  assert_names (mir_param_deps_of_decision (d, df_node_at (g, 5, MIR_STMT_IF)), "b");
  assert_names (mir_param_deps_of_decision (d, test), "a");
  assert_names (mir_param_deps_of_decision (d, loop), "a");
  assert_names (mir_param_deps_of_decision (d, z_3), "");
  /* the control dependences took more than one round to settle */
  g_assert_cmpuint (d->n_rounds, >=, 2);
  mir_param_deps_free (d);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/dataflow/reaching-definitions", test_reaching_definitions);
  g_test_add_func ("/mir/dataflow/reaching-definitions/tracked",
                   test_reaching_definitions_tracked);
  g_test_add_func ("/mir/dataflow/liveness/function", test_liveness);
  g_test_add_func ("/mir/dataflow/liveness/program-part", test_liveness_of_part);
  g_test_add_func ("/mir/dataflow/constants/propagation", test_constant_propagation);
  g_test_add_func ("/mir/dataflow/constants/evaluation", test_constant_evaluation);
  g_test_add_func ("/mir/dataflow/copy-propagation", test_copy_propagation);
  g_test_add_func ("/mir/dataflow/available-expressions", test_available_expressions);
  g_test_add_func ("/mir/dataflow/lazy-code-motion", test_lazy_code_motion);
  g_test_add_func ("/mir/dataflow/ad-levels", test_ad_levels);
  g_test_add_func ("/mir/dataflow/assigned-variables", test_assigned_variables);
  g_test_add_func ("/mir/dataflow/parameter-dependence", test_param_dependence);
  return g_test_run ();
}
