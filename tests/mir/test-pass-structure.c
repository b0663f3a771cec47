/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What each pass does to the shape of a program, beyond the documented
 * examples: which calls inlining takes and which it leaves, what dead code
 * elimination removes and keeps, the bounds of loop unrolling, statement
 * lists and bodies, declarations left uninitialised, and the memory
 * layouts the memory-pattern analysis allows.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "test-pass-util.h"
#include "mir/mir-mem-pattern.h"
#include "mir/mir-print.h"
#include "mir/passes/passes.h"

static char *
after_pass (const char *program, gboolean (*pass) (MirProgram *), gboolean *changed)
{
  g_autoptr (MirProgram) p = pass_test_program ("structure", program);
  gboolean c = pass (p);

  if (changed)
    *changed = c;
  pass_test_assert_nodes ("structure", p);
  return mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
}

/* One part of a printed program (up to the blank line after it). */
static char *
part (const char *text, const char *name)
{
  const char *start = strstr (text, name), *end;

  g_assert_nonnull (start);
  end = strstr (start, "\n\n");
  return end ? g_strndup (start, end - start) : g_strdup (start);
}

static guint
count (const char *text, const char *what)
{
  guint n = 0;

  for (const char *p = text; (p = strstr (p, what)); p += strlen (what))
    n++;
  return n;
}

/* ---- function inlining ---- */

static void
test_inline_which_calls (void)
{
  g_autofree char *text = after_pass (
    "functions {\n"
    "  real sq(real x) { return x * x; }\n"
    "  real sq(vector x) { return dot_self(x); }\n"
    "  real loud(real x) { print(x); return x; }\n"
    "  int lim(int n) { return n + 1; }\n"
    "}\n"
    "data { int n; vector[2] v; }\n"
    "transformed data {\n"
    "  real a = sq(1.5) + sq(v);\n"
    "  real b = normal_rng(0, 1) + loud(2);\n"
    "  real c = loud(3) + normal_rng(0, 1);\n"
    "  real d = 0;\n"
    "  while (d < lim(n)) d += 1;\n"
    "  for (i in 1:lim(n)) d += 1;\n"
    "}\n", mir_pass_function_inlining, NULL);
  g_autofree char *data = part (text, "prepare_data");

  /* overloaded functions stay calls */
  g_assert_nonnull (strstr (data, "sq(1.5)"));
  g_assert_nonnull (strstr (data, "sq(v)"));
  /* a call with an effect is not moved before a draw */
  g_assert_nonnull (strstr (data, "b = (normal_rng(0, 1) + loud(promote(2, real, data)));"));
  /* but it is when it comes first */
  g_assert_null (strstr (data, "loud(promote(3"));
  g_assert_nonnull (strstr (data, "FnPrint__(promote(3, real, data));"));
  /* loop conditions and bounds keep their calls */
  g_assert_cmpuint (count (data, "lim(n)"), ==, 2);
}

static void
test_inline_arguments_once (void)
{
  g_autofree char *text = after_pass (
    "functions {\n"
    "  real twice(real x) { return x + x; }\n"
    "}\n"
    "transformed data {\n"
    "  real a = twice(normal_rng(0, 1));\n"
    "}\n", mir_pass_function_inlining, NULL);

  /* the draw is made once, into a variable the body reads twice */
  g_assert_cmpuint (count (text, "normal_rng("), ==, 1);
  g_assert_null (strstr (strstr (text, "prepare_data"), "twice("));
}

/* ---- dead code elimination ---- */

static void
test_dead_code (void)
{
  gboolean changed;
  g_autofree char *text = after_pass (
    "functions {\n"
    "  real loud(real x) { print(x); return x; }\n"
    "}\n"
    "data { int n; }\n"
    "transformed data {\n"
    "  real a = 1;\n"
    "  real b;\n"
    "  b = loud(1);\n"
    "  real c;\n"
    "  c = normal_rng(0, 1);\n"
    "  while (0) { print(\"never\"); }\n"
    "  while (n > 0) { break; }\n"
    "  if (n > 1) { } else { }\n"
    "  {\n"
    "    real d = 2;\n"
    "    d = 3;\n"
    "  }\n"
    "  int used = n;\n"
    "  print(used);\n"
    "}\n", mir_pass_dead_code_elimination, &changed);
  g_autofree char *data = part (text, "prepare_data");

  g_assert_true (changed);
  /* a and b are transformed data: read by the other parts */
  g_assert_nonnull (strstr (data, "a = promote(1, real, data);"));
  g_assert_nonnull (strstr (data, "b = loud("));
  g_assert_nonnull (strstr (data, "c = normal_rng("));
  g_assert_null (strstr (data, "never"));
  g_assert_null (strstr (data, "while"));
  g_assert_null (strstr (data, "if("));
  /* the block only assigned its own variable: nothing of it is left */
  g_assert_null (strstr (data, " d = "));
  g_assert_nonnull (strstr (data, "FnPrint__(used);"));
}

static void
test_dead_locals (void)
{
  g_autofree char *text = after_pass (
    "functions {\n"
    "  real loud(real x) { print(x); return x; }\n"
    "}\n"
    "parameters { real mu; }\n"
    "model {\n"
    "  real a = mu * 2;\n"
    "  real b = loud(mu);\n"
    "  real c = normal_lpdf(mu | 0, 1);\n"
    "  target += mu;\n"
    "}\n", mir_pass_dead_code_elimination, NULL);
  g_autofree char *model = part (text, "log_prob");

  g_assert_null (strstr (model, " a = "));
  g_assert_nonnull (strstr (model, "b = loud(mu);"));
  g_assert_null (strstr (model, " c = "));
  /* declarations stay, as in stanc */
  g_assert_nonnull (strstr (model, "real a;"));
}

/* ---- unrolling ---- */

static void
test_static_unrolling_bound (void)
{
  g_autofree char *small = after_pass ("transformed data {\n"
                                       "  int s = 0;\n"
                                       "  for (i in 0:32) s += i;\n"
                                       "}\n", mir_pass_static_loop_unrolling, NULL);
  g_autofree char *large = after_pass ("transformed data {\n"
                                       "  int s = 0;\n"
                                       "  for (i in 0:33) s += i;\n"
                                       "}\n", mir_pass_static_loop_unrolling, NULL);
  g_autofree char *jumps = after_pass ("transformed data {\n"
                                       "  int s = 0;\n"
                                       "  for (i in 1:3) { if (i == 2) break; s += i; }\n"
                                       "}\n", mir_pass_static_loop_unrolling, NULL);

  g_assert_null (strstr (small, "for("));
  g_assert_cmpuint (count (small, "s = (s + "), ==, 33);
  g_assert_nonnull (strstr (large, "for(i in 0:33)"));
  g_assert_nonnull (strstr (jumps, "for(i in 1:3)"));
}

static void
test_one_step_unrolling (void)
{
  gboolean changed;
  g_autofree char *jumps = after_pass ("data { int n; }\n"
                                       "transformed data {\n"
                                       "  int s = 0;\n"
                                       "  for (i in 1:n) { if (i == 2) continue; s += i; }\n"
                                       "  while (s < 10) { s += 1; if (s == 5) break; }\n"
                                       "}\n", mir_pass_one_step_loop_unrolling, &changed);
  g_autofree char *loops = after_pass ("data { int n; }\n"
                                       "transformed data {\n"
                                       "  int s = 0;\n"
                                       "  while (s < n) { real t = s; s += 2; }\n"
                                       "}\n", mir_pass_one_step_loop_unrolling, NULL);

  g_assert_false (changed);
  g_assert_cmpuint (count (jumps, "if((n >= 1))"), ==, 0);
  /* the body that declares keeps its block, before the loop */
  g_assert_nonnull (strstr (loops, "if((s < n)) {\n    {\n      data real t;"));
  g_assert_cmpuint (count (loops, "while((s < n))"), ==, 1);
}

/* ---- lists, bodies, declarations ---- */

static void
test_list_collapsing (void)
{
  g_autoptr (MirProgram) p = pass_test_program ("lists", "transformed data {\n"
                                                "  int a = 1;\n"
                                                "  int b = 2;\n"
                                                "  int c = 3;\n"
                                                "}\n");
  GPtrArray *data = p->parts[MIR_PART_PREPARE_DATA];
  g_autofree char *before = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_autofree char *after = NULL;
  guint n = data->len;
  GPtrArray *inner = mir_stmt_list_new ();
  GPtrArray *outer = mir_stmt_list_new ();

  /* [s0, [s1, [s2, s3]], [], s4...] */
  g_ptr_array_add (inner, g_ptr_array_steal_index (data, 2));
  g_ptr_array_add (inner, g_ptr_array_steal_index (data, 2));
  g_ptr_array_add (outer, g_ptr_array_steal_index (data, 1));
  g_ptr_array_add (outer, mir_stmt_slist (&((MirStmt *) inner->pdata[0])->span, inner));
  g_ptr_array_insert (data, 1, mir_stmt_slist (&((MirStmt *) outer->pdata[0])->span, outer));
  g_ptr_array_insert (data, 2, mir_stmt_slist (&((MirStmt *) data->pdata[0])->span, NULL));

  g_assert_true (mir_pass_list_collapsing (p));
  g_assert_cmpuint (data->len, ==, n);
  for (guint i = 0; i < data->len; i++)
    g_assert_cmpint (((MirStmt *) data->pdata[i])->kind, !=, MIR_STMT_SLIST);
  after = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (mir_pass_list_collapsing (p));
}

static void
test_block_fixing (void)
{
  g_autoptr (MirProgram) p = pass_test_program ("bodies", "data { int n; }\n"
                                                "transformed data {\n"
                                                "  int s = 0;\n"
                                                "  if (n > 0) s = 1;\n"
                                                "}\n");
  GPtrArray *data = p->parts[MIR_PART_PREPARE_DATA];
  MirStmt *cond = g_ptr_array_index (data, data->len - 1);

  g_assert_cmpint (cond->kind, ==, MIR_STMT_IF);
  /* a body that is a statement list becomes a block */
  cond->u.if_stmt.then_stmt->kind = MIR_STMT_SLIST;
  g_assert_true (mir_pass_block_fixing (p));
  g_assert_cmpint (cond->u.if_stmt.then_stmt->kind, ==, MIR_STMT_BLOCK);
  g_assert_false (mir_pass_block_fixing (p));
}

static void
test_uninitialized_decls (void)
{
  g_autoptr (MirProgram) p = pass_test_program ("uninit", "data { int n; }\n"
                                                "transformed data {\n"
                                                "  real a = 1;\n"
                                                "  vector[3] v;\n"
                                                "  v[1] = 1;\n"
                                                "  vector[3] w = rep_vector(0, 3);\n"
                                                "  real b;\n"
                                                "  print(b);\n"
                                                "}\n");
  GPtrArray *data = p->parts[MIR_PART_PREPARE_DATA];

  g_assert_true (mir_pass_allow_uninitialized_decls (p));
  for (guint i = 0; i < data->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (data, i);
      if (s->kind != MIR_STMT_DECL)
        continue;
      gboolean whole = strcmp (s->u.decl.name, "a") == 0 || strcmp (s->u.decl.name, "w") == 0
                       || strcmp (s->u.decl.name, "n") == 0;
      g_assert_cmpint (s->u.decl.init_kind == MIR_DECL_UNINIT, ==, whole);
    }
  g_assert_false (mir_pass_allow_uninitialized_decls (p));
}

/* ---- memory layout ---- */

static void
note_read (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_DECL && s->u.decl.init && s->u.decl.init->kind == MIR_EXPR_CALL
      && s->u.decl.init->u.call.fun.kind == MIR_FUN_COMPILER
      && s->u.decl.init->u.call.fun.internal == MIR_FN_READ_PARAM)
    g_hash_table_insert (data, (gpointer) s->u.decl.name,
                         GINT_TO_POINTER (s->u.decl.init->u.call.fun.data->mem + 1));
}

static void
test_optimize_soa (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "mir", "models",
                                                 "mem_patterns.stan", NULL);
  g_autoptr (MirProgram) p = pass_test_program_file (path);
  g_autoptr (GHashTable) reads = g_hash_table_new (NULL, NULL);
  GArray *entries = mir_mem_patterns_analyze (p);
  guint soa = 0;

  g_assert_true (mir_pass_optimize_soa (p));
  g_assert_false (mir_pass_optimize_soa (p));
  for (guint i = 0; i < p->parts[MIR_PART_LOG_PROB]->len; i++)
    mir_stmt_walk (g_ptr_array_index (p->parts[MIR_PART_LOG_PROB], i), note_read, reads);
  /* every declaration has the layout the analysis gives it, and so has
   * its parameter read */
  for (guint i = 0; i < entries->len; i++)
    {
      const MirMemPatternEntry *e = &g_array_index (entries, MirMemPatternEntry, i);
      gpointer read = g_hash_table_lookup (reads, e->name);
      g_assert_cmpint (e->type->mem, ==, e->pattern);
      if (read)
        g_assert_cmpint (GPOINTER_TO_INT (read) - 1, ==, e->pattern);
      soa += e->pattern == MIR_MEM_SOA;
    }
  g_assert_cmpuint (soa, >, 0);
  g_assert_cmpuint (soa, <, entries->len);
  g_array_unref (entries);
  /* the other parts keep the default layout */
  g_autofree char *text = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_assert_null (strstr (strstr (text, "generate_quantities"), "SoA"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/pass/structure/inline-which-calls", test_inline_which_calls);
  g_test_add_func ("/mir/pass/structure/inline-arguments-once", test_inline_arguments_once);
  g_test_add_func ("/mir/pass/structure/dead-code", test_dead_code);
  g_test_add_func ("/mir/pass/structure/dead-locals", test_dead_locals);
  g_test_add_func ("/mir/pass/structure/static-unrolling-bound", test_static_unrolling_bound);
  g_test_add_func ("/mir/pass/structure/one-step-unrolling", test_one_step_unrolling);
  g_test_add_func ("/mir/pass/structure/list-collapsing", test_list_collapsing);
  g_test_add_func ("/mir/pass/structure/block-fixing", test_block_fixing);
  g_test_add_func ("/mir/pass/structure/uninitialized-decls", test_uninitialized_decls);
  g_test_add_func ("/mir/pass/structure/optimize-soa", test_optimize_soa);
  return g_test_run ();
}
