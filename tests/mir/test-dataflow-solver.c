/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The flow graph and the monotone framework's solver, on programs whose
 * graphs and fixed points are worked out by hand: straight-line code, an
 * if/else join, while loops, nested loops with break and continue, forward
 * and backward, may and must problems, and an interval lattice of infinite
 * height that only terminates with widening. Recorded steps must replay to
 * the solution.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "mir/dataflow/dominators.h"
#include "mir/dataflow/set-facts.h"
#include "mir/dataflow/solver.h"
#include "test-dataflow-util.h"

static const char straight_src[] =
  "functions {\n"
  "  void f(int n) {\n"
  "    int a = n;\n"
  "    int b = a + 1;\n"
  "    print(b);\n"
  "  }\n"
  "}\n";

static const char if_else_src[] =
  "functions {\n"
  "  void f(int n) {\n"
  "    int a;\n"
  "    if (n > 0) a = 1; else a = 2;\n"
  "    print(a);\n"
  "  }\n"
  "}\n";

static const char while_src[] =
  "functions {\n"
  "  void f(int n) {\n"
  "    int i = 0;\n"
  "    while (i < n) i = i + 1;\n"
  "    print(i);\n"
  "  }\n"
  "}\n";

static const char nested_src[] =
  "functions {\n"
  "  void f(int n) {\n"
  "    for (i in 1:n) {\n"
  "      for (j in 1:n) {\n"
  "        if (j > i) break;\n"
  "        if (j == i) continue;\n"
  "        print(j);\n"
  "      }\n"
  "    }\n"
  "    return;\n"
  "  }\n"
  "}\n";

static const char exits_src[] =
  "functions {\n"
  "  real f(real x) {\n"
  "    if (x < 0) reject(\"negative\");\n"
  "    return x;\n"
  "    print(x);\n"
  "  }\n"
  "}\n";

static MirFlowGraph *
graph_of (const char *src, MirFlowGraphFlags flags, MirProgram **program)
{
  *program = df_lower (src);
  return df_function_graph (*program, 0, flags);
}

static void
assert_shape (const char *src, MirFlowGraphFlags flags, const char *expected)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (src, flags, &p);
  g_autofree char *shape = df_graph_shape (g);

  g_assert_cmpstr (shape, ==, expected);
}

/* Reverse postorder: every edge from a reachable node goes forward in it,
 * except the edges back to a loop head. */
static void
assert_orders (const char *src)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autofree guint *pos = g_new (guint, g->n_nodes);
  g_autofree gboolean *reached = g_new0 (gboolean, g->n_nodes);
  g_autofree guint *queue = g_new (guint, g->n_nodes);
  guint head = 0, tail = 0;

  g_assert_cmpuint (g->forward_order[0], ==, g->entry);
  g_assert_cmpuint (g->backward_order[0], ==, g->exit);
  queue[tail++] = g->entry;
  reached[g->entry] = TRUE;
  while (head < tail)
    {
      guint u = queue[head++];
      for (guint k = 0; k < g->nodes[u].n_succs; k++)
        if (!reached[g->nodes[u].succs[k]])
          {
            reached[g->nodes[u].succs[k]] = TRUE;
            queue[tail++] = g->nodes[u].succs[k];
          }
    }
  for (guint i = 0; i < g->n_nodes; i++)
    pos[g->forward_order[i]] = i;
  for (guint u = 0; u < g->n_nodes; u++)
    {
      /* the reachable nodes come first */
      g_assert_true (reached[u] == (pos[u] < tail));
      for (guint k = 0; reached[u] && k < g->nodes[u].n_succs; k++)
        {
          guint v = g->nodes[u].succs[k];
          if (pos[u] >= pos[v])
            g_assert_true (g->nodes[v].loop_head);
        }
    }
}

static void
test_graph_straight (void)
{
  assert_shape (straight_src, MIR_FLOW_GRAPH_DEFAULT,
                "0 entry -> 2\n"
                "1 block -> 7\n"
                "2 decl -> 3\n"
                "3 assign -> 4\n"
                "4 decl -> 5\n"
                "5 assign -> 6\n"
                "6 call -> 1\n"
                "7 exit ->\n");
  assert_orders (straight_src);
}

static void
test_graph_if_else (void)
{
  assert_shape (if_else_src, MIR_FLOW_GRAPH_DEFAULT,
                "0 entry -> 2\n"
                "1 block -> 7\n"
                "2 decl -> 3\n"
                "3 if -> 4 5\n"
                "4 assign -> 6\n"
                "5 assign -> 6\n"
                "6 call -> 1\n"
                "7 exit ->\n");
  assert_orders (if_else_src);
}

static void
test_graph_while (void)
{
  assert_shape (while_src, MIR_FLOW_GRAPH_DEFAULT,
                "0 entry -> 2\n"
                "1 block -> 7\n"
                "2 decl -> 3\n"
                "3 assign -> 4\n"
                "4 while -> 5 6 head\n"
                "5 assign -> 4\n"
                "6 call -> 1\n"
                "7 exit ->\n");
  /* a loop that runs at least once is left from the end of its body */
  assert_shape (while_src, MIR_FLOW_GRAPH_LOOPS_RUN,
                "0 entry -> 2\n"
                "1 block -> 7\n"
                "2 decl -> 3\n"
                "3 assign -> 4\n"
                "4 while -> 5 head\n"
                "5 assign -> 4 6\n"
                "6 call -> 1\n"
                "7 exit ->\n");
  assert_orders (while_src);
}

static void
test_graph_nested (void)
{
  /* break leaves the inner loop for the end of the outer body (3),
   * continue goes back to the inner head (4), return to exit */
  assert_shape (nested_src, MIR_FLOW_GRAPH_DEFAULT,
                "0 entry -> 2\n"
                "1 block -> 12\n"
                "2 for -> 4 11 head\n"
                "3 block -> 2\n"
                "4 for -> 6 3 head\n"
                "5 block -> 4\n"
                "6 if -> 7 8\n"
                "7 break -> 3\n"
                "8 if -> 9 10\n"
                "9 continue -> 4\n"
                "10 call -> 5\n"
                "11 return -> 12\n"
                "12 exit ->\n");
  assert_orders (nested_src);
}

static void
test_graph_exits (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (exits_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autofree char *shape = df_graph_shape (g);

  /* reject and return end the function; the print after the return and
   * the end of the body block are unreachable, and come last in forward
   * order, by number */
  g_assert_cmpstr (shape, ==,
                   "0 entry -> 2\n"
                   "1 block -> 6\n"
                   "2 if -> 3 4\n"
                   "3 call -> 6\n"
                   "4 return -> 6\n"
                   "5 call -> 1\n"
                   "6 exit ->\n");
  g_assert_cmpuint (g->forward_order[g->n_nodes - 2], ==, 1);
  g_assert_cmpuint (g->forward_order[g->n_nodes - 1], ==, 5);
  assert_orders (exits_src);
}

/* ---- may and must problems on node sets ---- */

static void
add_node (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  mir_bitset_add (fact, node);
}

static MirSetFacts *
node_sets (MirFlowGraph *g, MirDataflowDirection dir, gboolean must, gboolean record)
{
  g_auto (GStrv) labels = g_new0 (char *, g->n_nodes + 1);
  MirSetProblem problem = { 0 };

  for (guint v = 0; v < g->n_nodes; v++)
    labels[v] = g_strdup_printf ("%u", v);
  problem.direction = dir;
  problem.must = must;
  problem.n_bits = g->n_nodes;
  problem.labels = (const char *const *) labels;
  problem.transfer = add_node;
  problem.record = record;
  return mir_set_facts_solve (g, &problem);
}

static void
test_solver_forward (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (while_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autoptr (MirSetFacts) may = node_sets (g, MIR_DATAFLOW_FORWARD, FALSE, FALSE);
  g_autoptr (MirSetFacts) must = node_sets (g, MIR_DATAFLOW_FORWARD, TRUE, FALSE);

  /* statements that may have run before: the loop body may have */
  df_assert_set (may, mir_set_facts_before_node (may, 2), "{}", "may before 2");
  df_assert_set (may, mir_set_facts_before_node (may, 4), "{2, 3, 4, 5}", "may before head");
  df_assert_set (may, mir_set_facts_before_node (may, 6), "{2, 3, 4, 5}", "may before print");
  df_assert_set (may, mir_set_facts_after_node (may, 3), "{2, 3}", "may after 3");
  /* statements that have run on every path: the body need not have */
  df_assert_set (must, mir_set_facts_before_node (must, 4), "{2, 3}", "must before head");
  df_assert_set (must, mir_set_facts_before_node (must, 5), "{2, 3, 4}", "must before body");
  df_assert_set (must, mir_set_facts_after_node (must, 5), "{2, 3, 4, 5}", "must after body");
  df_assert_set (must, mir_set_facts_before_node (must, 6), "{2, 3, 4}", "must before print");
  df_assert_set (must, mir_set_facts_before_node (must, 7), "{1, 2, 3, 4, 6}", "must at exit");
  g_assert_true (may->solution->converged);
}

static void
test_solver_if_else (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (if_else_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autoptr (MirSetFacts) may = node_sets (g, MIR_DATAFLOW_FORWARD, FALSE, FALSE);
  g_autoptr (MirSetFacts) must = node_sets (g, MIR_DATAFLOW_FORWARD, TRUE, FALSE);

  /* the join after if/else: union for may, intersection for must */
  df_assert_set (may, mir_set_facts_before_node (may, 6), "{2, 3, 4, 5}", "may at join");
  df_assert_set (must, mir_set_facts_before_node (must, 6), "{2, 3}", "must at join");
}

static void
test_solver_backward (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (nested_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autoptr (MirSetFacts) may = node_sets (g, MIR_DATAFLOW_BACKWARD, FALSE, FALSE);
  g_autoptr (MirSetFacts) must = node_sets (g, MIR_DATAFLOW_BACKWARD, TRUE, FALSE);
  g_autoptr (MirSetFacts) pdom = mir_post_dominators (g, FALSE);
  g_autoptr (MirSetFacts) dom = mir_dominators (g, FALSE);

  /* what may still run after the break: both loops and the return */
  df_assert_set (may, mir_set_facts_before_node (may, 7),
                 "{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}", "may after break");
  df_assert_set (may, mir_set_facts_before_node (may, 11), "{11}", "may from return");
  df_assert_set (may, mir_set_facts_before_node (may, 1), "{1}", "unreachable block end");
  df_assert_set (may, mir_set_facts_after_node (may, 10),
                 "{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}", "may after print");
  /* what must run on the way to exit */
  df_assert_set (must, mir_set_facts_before_node (must, 7), "{2, 3, 7, 11}", "must after break");
  df_assert_set (must, mir_set_facts_before_node (must, 9), "{2, 3, 4, 9, 11}",
                 "must after continue");
  df_assert_set (must, mir_set_facts_before_node (must, 6), "{2, 3, 6, 11}", "must after if");
  df_assert_set (pdom, mir_set_facts_before_node (pdom, 7), "{2, 3, 7, 11, 12}", "pdom break");
  df_assert_set (dom, mir_set_facts_after_node (dom, 10), "{0, 2, 4, 6, 8, 10}", "dom print");
  df_assert_set (dom, mir_set_facts_after_node (dom, 11), "{0, 2, 11}", "dom return");
}

static void
test_control_dependence (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (nested_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  MirBitset **cd = mir_control_dependence (g);
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint b = 0; b < g->n_nodes; b++)
    if (!mir_bitset_is_empty (cd[b]))
      {
        g_string_append_printf (text, "%u: ", b);
        mir_bitset_append (text, cd[b], NULL);
        g_string_append_c (text, '\n');
      }
  /* the outer head decides whether it runs again and whether the inner
   * loop starts (4) and ends (3); the inner head decides only whether the
   * break's test runs; that test decides the break, and whether the inner
   * head and the continue's test run again; the continue's test decides
   * the continue and the print (5 is the end of the print's block) */
  g_assert_cmpstr (text->str, ==,
                   "2: {2, 3, 4}\n"
                   "4: {6}\n"
                   "6: {4, 7, 8}\n"
                   "8: {5, 9, 10}\n");
  mir_control_dependence_free (cd, g->n_nodes);
}

/* ---- an interval lattice, of infinite height ---- */

typedef struct {
  gboolean empty;
  double   lo, hi;
} Interval;

static gpointer
iv_bottom (gpointer ud)
{
  Interval *i = g_new (Interval, 1);

  *i = (Interval) { TRUE, 0, 0 };
  return i;
}

static gpointer
iv_copy (gconstpointer fact, gpointer ud)
{
  return g_memdup2 (fact, sizeof (Interval));
}

static void
iv_free (gpointer fact, gpointer ud)
{
  g_free (fact);
}

static void
iv_join (gpointer acc, gconstpointer fact, gpointer ud)
{
  Interval *a = acc;
  const Interval *b = fact;

  if (b->empty)
    return;
  if (a->empty)
    *a = *b;
  else
    {
      a->lo = MIN (a->lo, b->lo);
      a->hi = MAX (a->hi, b->hi);
    }
}

static gboolean
iv_equal (gconstpointer x, gconstpointer y, gpointer ud)
{
  const Interval *a = x, *b = y;

  return a->empty == b->empty && (a->empty || (a->lo == b->lo && a->hi == b->hi));
}

/* A bound that still moves jumps to infinity. */
static void
iv_widen (gpointer acc, gconstpointer next, gpointer ud)
{
  Interval *a = acc;
  const Interval *b = next;

  if (a->empty)
    {
      *a = *b;
      return;
    }
  if (b->empty)
    return;
  if (b->lo < a->lo)
    a->lo = -INFINITY;
  if (b->hi > a->hi)
    a->hi = INFINITY;
}

static void
iv_print (GString *out, gconstpointer fact, gpointer ud)
{
  const Interval *i = fact;

  if (i->empty)
    g_string_append (out, "⊥");
  else
    g_string_append_printf (out, "[%g, %g]", i->lo, i->hi);
}

/* i = <int literal> and i = (i + <int literal>) move the interval of i;
 * everything else leaves it. */
static void
iv_transfer (const MirFlowGraph *g, guint node, gpointer fact, gpointer ud)
{
  const MirStmt *s = g->nodes[node].stmt;
  Interval *i = fact;
  const MirExpr *rhs, *lit;

  if (i->empty || s->kind != MIR_STMT_ASSIGN)
    return;
  rhs = s->u.assign.rhs;
  if (rhs->kind == MIR_EXPR_LIT)
    {
      i->lo = i->hi = g_ascii_strtod (rhs->u.lit.text, NULL);
      return;
    }
  g_assert_true (rhs->kind == MIR_EXPR_CALL);
  g_assert_cmpstr (rhs->u.call.fun.name, ==, "Plus__");
  lit = g_ptr_array_index (rhs->u.call.args, 1);
  i->lo += g_ascii_strtod (lit->u.lit.text, NULL);
  i->hi += g_ascii_strtod (lit->u.lit.text, NULL);
}

static gpointer
iv_everything (gpointer ud)
{
  Interval *i = g_new (Interval, 1);

  *i = (Interval) { FALSE, -INFINITY, INFINITY };
  return i;
}

static const MirLattice interval_lattice = {
  iv_bottom, iv_copy, iv_free, iv_join, iv_equal, iv_widen, iv_print,
};

static const MirLattice interval_no_widening = {
  iv_bottom, iv_copy, iv_free, iv_join, iv_equal, NULL, iv_print,
};

static char *
fact_text (const MirDataflowSolution *s, gconstpointer fact)
{
  return mir_dataflow_fact_to_string (s, fact);
}

static void
assert_fact (const MirDataflowSolution *s, gconstpointer fact, const char *expected)
{
  g_autofree char *text = fact_text (s, fact);

  g_assert_cmpstr (text, ==, expected);
}

/* Replaying every recorded step gives the solution, node by node. */
static void
assert_replay (const MirDataflowSolution *s)
{
  g_auto (GStrv) in = NULL;
  g_auto (GStrv) out = NULL;
  const MirDataflowTrace *t = s->trace;

  g_assert_nonnull (t);
  g_assert_cmpuint (t->steps->len, ==, s->n_visits);
  mir_dataflow_trace_replay (t, G_MAXUINT, &in, &out);
  for (guint v = 0; v < s->graph->n_nodes; v++)
    {
      g_autofree char *want_in = fact_text (s, mir_dataflow_in (s, v));
      g_autofree char *want_out = fact_text (s, mir_dataflow_out (s, v));
      g_assert_cmpstr (in[v], ==, want_in);
      g_assert_cmpstr (out[v], ==, want_out);
    }
}

static MirDataflowSolution *
solve_intervals (MirFlowGraph *g, const MirLattice *lattice, guint widen_after,
                 guint max_visits)
{
  MirDataflowProblem problem = { 0 };

  problem.lattice = lattice;
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.transfer = iv_transfer;
  problem.boundary = iv_everything;
  problem.widen_after = widen_after;
  problem.max_visits = max_visits;
  problem.record = TRUE;
  return mir_dataflow_solve (g, &problem);
}

static void
test_solver_widening (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (while_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  MirDataflowSolution *s;
  const Interval *head;
  gboolean widened = FALSE;

  /* i = 0; while (i < n) i = i + 1: without widening the interval of i at
   * the loop head grows by one on every visit and never settles */
  s = solve_intervals (g, &interval_no_widening, 0, 200);
  g_assert_false (s->converged);
  g_assert_false (s->trace->converged);
  head = s->before[4];
  g_assert_false (head->empty);
  g_assert_cmpfloat (head->lo, ==, 0);
  g_assert_cmpfloat (head->hi, >=, 30);
  g_assert_true (isfinite (head->hi));
  mir_dataflow_solution_free (s);

  /* with widening it stops at [0, inf] */
  for (guint after = 1; after <= 4; after++)
    {
      s = solve_intervals (g, &interval_lattice, after, 0);
      g_assert_true (s->converged);
      assert_fact (s, s->before[3], "[-inf, inf]");
      assert_fact (s, s->after[3], "[0, 0]");
      assert_fact (s, s->before[4], "[0, inf]");
      assert_fact (s, s->before[5], "[0, inf]");
      assert_fact (s, s->after[5], "[1, inf]");
      assert_fact (s, s->before[6], "[0, inf]");
      widened = FALSE;
      for (guint k = 0; k < s->trace->steps->len; k++)
        {
          const MirDataflowStep *step = &g_array_index (s->trace->steps, MirDataflowStep, k);
          if (step->widened)
            {
              g_assert_cmpuint (step->node, ==, 4);
              widened = TRUE;
            }
        }
      g_assert_true (widened);
      assert_replay (s);
      mir_dataflow_solution_free (s);
    }
}

static void
test_solver_one_pass (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (straight_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autoptr (MirSetFacts) fwd = node_sets (g, MIR_DATAFLOW_FORWARD, FALSE, TRUE);
  g_autoptr (MirSetFacts) bwd = node_sets (g, MIR_DATAFLOW_BACKWARD, FALSE, TRUE);
  const MirDataflowTrace *t = mir_set_facts_trace (fwd);
  static const guint forward_visits[] = { 0, 2, 3, 4, 5, 6, 1, 7 };

  /* in reverse postorder straight-line code is solved in one visit per
   * node, in either direction */
  g_assert_cmpuint (fwd->solution->n_visits, ==, g->n_nodes);
  g_assert_cmpuint (bwd->solution->n_visits, ==, g->n_nodes);
  g_assert_cmpuint (t->steps->len, ==, G_N_ELEMENTS (forward_visits));
  for (guint k = 0; k < t->steps->len; k++)
    g_assert_cmpuint (g_array_index (t->steps, MirDataflowStep, k).node, ==,
                      forward_visits[k]);
  df_assert_set (fwd, mir_set_facts_before_node (fwd, 6), "{2, 3, 4, 5}", "before print");
  df_assert_set (bwd, mir_set_facts_before_node (bwd, 3), "{1, 3, 4, 5, 6}", "from 3 on");
  assert_replay (fwd->solution);
  assert_replay (bwd->solution);
}

static void
test_trace_replay (void)
{
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirFlowGraph) g = graph_of (nested_src, MIR_FLOW_GRAPH_DEFAULT, &p);
  g_autoptr (MirSetFacts) fwd = node_sets (g, MIR_DATAFLOW_FORWARD, TRUE, TRUE);
  g_autoptr (MirSetFacts) bwd = node_sets (g, MIR_DATAFLOW_BACKWARD, FALSE, TRUE);
  const MirDataflowTrace *t = mir_set_facts_trace (bwd);
  g_auto (GStrv) in = NULL;
  g_auto (GStrv) out = NULL;
  g_autofree char *listing = NULL;
  guint head_visits = 0;

  assert_replay (fwd->solution);
  assert_replay (bwd->solution);
  g_assert_true (t->backward);
  /* before any step every node has bottom */
  mir_dataflow_trace_replay (t, 0, &in, &out);
  for (guint v = 0; v < g->n_nodes; v++)
    {
      g_assert_cmpstr (in[v], ==, "{}");
      g_assert_cmpstr (out[v], ==, "{}");
    }
  /* a loop head is visited again when the facts from its body change */
  for (guint k = 0; k < t->steps->len; k++)
    head_visits += g_array_index (t->steps, MirDataflowStep, k).node == 4;
  g_assert_cmpuint (head_visits, >=, 2);
  listing = mir_dataflow_trace_print (t);
  g_assert_true (g_str_has_prefix (listing, "step 1: node 12 in {} out {}"));
}

/* A pool's sets equal the sets copied into it and stay put while more are
 * added; its empty set is empty. */
static void
test_bitset_pool (void)
{
  MirBitsetPool *pool = mir_bitset_pool_new (200);
  g_autoptr (MirBitset) set = mir_bitset_new (200);
  const MirBitset *copies[1000];
  const MirBitset *empty = mir_bitset_pool_copy (pool, set);

  g_assert_true (mir_bitset_equal (empty, set));
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      mir_bitset_clear (set);
      mir_bitset_add (set, i % 200);
      mir_bitset_add (set, (i * 7) % 200);
      copies[i] = mir_bitset_pool_copy (pool, set);
      g_assert_true (mir_bitset_equal (copies[i], set));
    }
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_assert_true (mir_bitset_contains (copies[i], i % 200));
      g_assert_true (mir_bitset_contains (copies[i], (i * 7) % 200));
      g_assert_cmpuint (mir_bitset_count (copies[i]), ==, i % 200 == (i * 7) % 200 ? 1 : 2);
    }
  g_assert_true (mir_bitset_is_empty (mir_bitset_pool_empty (pool)));
  mir_bitset_pool_free (pool);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/dataflow/graph/straight-line", test_graph_straight);
  g_test_add_func ("/mir/dataflow/graph/if-else", test_graph_if_else);
  g_test_add_func ("/mir/dataflow/graph/while", test_graph_while);
  g_test_add_func ("/mir/dataflow/graph/nested-break-continue", test_graph_nested);
  g_test_add_func ("/mir/dataflow/graph/exits", test_graph_exits);
  g_test_add_func ("/mir/dataflow/solver/forward-loop", test_solver_forward);
  g_test_add_func ("/mir/dataflow/solver/if-else-join", test_solver_if_else);
  g_test_add_func ("/mir/dataflow/solver/backward-nested", test_solver_backward);
  g_test_add_func ("/mir/dataflow/solver/control-dependence", test_control_dependence);
  g_test_add_func ("/mir/dataflow/solver/widening", test_solver_widening);
  g_test_add_func ("/mir/dataflow/solver/one-pass", test_solver_one_pass);
  g_test_add_func ("/mir/dataflow/solver/trace-replay", test_trace_replay);
  g_test_add_func ("/mir/dataflow/bitset/pool", test_bitset_pool);
  return g_test_run ();
}
