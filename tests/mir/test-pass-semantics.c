/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every pass, and every level's pipeline, keeps what a program does. Each
 * case is a `transformed data` program run by the test interpreter
 * (test-pass-util.h) before and after: the lines printed, the error that
 * stops it, the draws of the _rng functions (1, 2, 3, ... in the order
 * they are called) and the final values must all stay the same. The
 * values a case must give are worked out by hand and checked first, so
 * that a case tests what it says.
 *
 * The cases include the places where the Stan compiler's own passes are
 * known to go wrong: an arm of ?: or the right of && that must not run,
 * recursive functions, lazy code motion with one name declared in several
 * scopes and with break and continue, effects that must not move, _rng
 * calls that must not be duplicated, dropped or reordered, and int
 * expressions that must stay int.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "test-pass-util.h"
#include "mir/mir-print.h"
#include "mir/passes/passes.h"
#include "mir/passes/pipeline.h"

typedef struct {
  const char *name;
  const char *program;
  const char *data;
  const char *expected;    /* lines the run must print, in order, '|' between them */
} Case;

static const Case cases[] = {
  { "dead-arms",
    "data { int y; }\n"
    "transformed data {\n"
    "  int z = y == 1 ? 42 : 1 %/% 0;\n"
    "  int w = 0 ? 1 %/% 0 : 5;\n"
    "  int u = (y != 1) && (1 %/% 0 > 0);\n"
    "  int v = (y == 1) || (1 %/% 0 > 0);\n"
    "}\n",
    "y=1", "u = 0|v = 1|w = 5|z = 42" },
  { "dead-arms-taken",
    "data { int y; }\n"
    "transformed data {\n"
    "  int z = y == 1 ? 42 : 1 %/% 0;\n"
    "  print(\"not reached\");\n"
    "}\n",
    "y=2", "error: integer division by zero" },
  { "recursion",
    "functions {\n"
    "  int fact(int n) {\n"
    "    if (n <= 1) return 1;\n"
    "    return n * fact(n - 1);\n"
    "  }\n"
    "  int is_even(int n);\n"
    "  int is_odd(int n) {\n"
    "    if (n == 0) return 0;\n"
    "    return is_even(n - 1);\n"
    "  }\n"
    "  int is_even(int n) {\n"
    "    if (n == 0) return 1;\n"
    "    return is_odd(n - 1);\n"
    "  }\n"
    "  int twice_fact(int n) {\n"
    "    return 2 * fact(n);\n"
    "  }\n"
    "}\n"
    "transformed data {\n"
    "  int f = fact(5);\n"
    "  int e = is_even(7);\n"
    "  int t = twice_fact(3);\n"
    "}\n",
    "", "e = 0|f = 120|t = 12" },
  { "early-returns",
    "functions {\n"
    "  int first_over(array[] int xs, int limit) {\n"
    "    for (i in 1:size(xs)) {\n"
    "      if (xs[i] > limit) return i;\n"
    "    }\n"
    "    return 0;\n"
    "  }\n"
    "  int next_seventh(int start) {\n"
    "    int k = start;\n"
    "    while (1) {\n"
    "      k += 1;\n"
    "      for (j in 1:3) {\n"
    "        if (k % 7 == 0) return k;\n"
    "      }\n"
    "    }\n"
    "    return -1;\n"
    "  }\n"
    "  void say(int k) {\n"
    "    if (k > 2) {\n"
    "      print(\"big \", k);\n"
    "      return;\n"
    "    }\n"
    "    print(\"small \", k);\n"
    "  }\n"
    "}\n"
    "transformed data {\n"
    "  array[4] int xs = {1, 5, 2, 9};\n"
    "  int a = first_over(xs, 4);\n"
    "  int b = first_over(xs, 10);\n"
    "  int c = next_seventh(3);\n"
    "  say(1);\n"
    "  say(3);\n"
    "}\n",
    "", "print: small 1|print: big 3|a = 2|b = 0|c = 7" },
  { "scopes-and-jumps",
    "data { int n; }\n"
    "transformed data {\n"
    "  real total = 0;\n"
    "  {\n"
    "    real x = 2;\n"
    "    total += x * 3;\n"
    "  }\n"
    "  {\n"
    "    real x = 5;\n"
    "    total += x * 3;\n"
    "  }\n"
    "  for (i in 1:n) {\n"
    "    if (i == 2) continue;\n"
    "    if (i == 5) break;\n"
    "    total += i * 10 + n * 2;\n"
    "  }\n"
    "  total += n * 2;\n"
    "  int j = 0;\n"
    "  while (j < n) {\n"
    "    j += 1;\n"
    "    if (j > 3) break;\n"
    "    if (j == 2) continue;\n"
    "    total += (n + 1) * 2;\n"
    "  }\n"
    "  total += (n + 1) * 2;\n"
    "}\n",
    /* 6 + 15, then i = 1, 3, 4: 10 + 30 + 40 + 3 * 12, then 12,
     * then j = 1, 3: 2 * 14, then 14 */
    "n=6", "j = 4|total = 191" },
  { "loop-conditions",
    "data { int n; }\n"
    "transformed data {\n"
    "  int k = 0;\n"
    "  int s = 0;\n"
    "  while (k * 2 < n) {\n"
    "    s += k * 2;\n"
    "    k += 1;\n"
    "  }\n"
    "  int m = 0;\n"
    "  int t = 0;\n"
    "  while (m * 3 < n) {\n"
    "    m += 1;\n"
    "    if (m == 2) continue;\n"
    "    t += m * 3;\n"
    "  }\n"
    "  for (i in 1:(m * 3)) {\n"
    "    t += 1;\n"
    "  }\n"
    "}\n",
    /* k = 0..3: 0 + 2 + 4 + 6; m = 1..3 without 2: 3 + 9, then 9 more */
    "n=7", "k = 4|m = 3|n = 7|s = 12|t = 21" },
  { "effects-in-order",
    "functions {\n"
    "  real noisy(real x) {\n"
    "    print(\"noisy \", x);\n"
    "    return x * 2;\n"
    "  }\n"
    "  real quiet(real x) {\n"
    "    return x + 1;\n"
    "  }\n"
    "}\n"
    "transformed data {\n"
    "  real a = noisy(1) + noisy(2);\n"
    "  real b = quiet(1) + noisy(3);\n"
    "  real c = 0 ? noisy(4) : quiet(5);\n"
    "  real dead = noisy(6);\n"
    "  real dead2 = quiet(7);\n"
    "  print(\"end\");\n"
    "}\n",
    "", "print: noisy 1|print: noisy 2|print: noisy 3|print: noisy 6|print: end|a = 6|b = 8"
        "|c = 6|dead = 12|dead2 = 8" },
  { "failure-before-print",
    "data { int n; }\n"
    "transformed data {\n"
    "  array[3] int a = {1, 2, 3};\n"
    "  int y = 0;\n"
    "  {\n"
    "    int x = a[n] * 2;\n"
    "    print(\"after\");\n"
    "    y = x + 1;\n"
    "  }\n"
    "  int z = a[n] * 2;\n"
    "  print(\"between\");\n"
    "  int w = a[n] * 2;\n"
    "}\n",
    "n=5", "error: index out of range" },
  { "failure-after-print",
    "data { int n; int c; }\n"
    "transformed data {\n"
    "  array[3] int a = {1, 2, 3};\n"
    "  int z = 0;\n"
    "  if (c) {\n"
    "    z = a[n] * 2;\n"
    "  }\n"
    "  print(\"x\");\n"
    "  int w = a[n] * 2;\n"
    "}\n",
    "n=5,c=0", "print: x|error: index out of range" },
  { "draws",
    "transformed data {\n"
    "  real a = normal_rng(0, 1);\n"
    "  real b = a + a;\n"
    "  real c = normal_rng(0, 1) - normal_rng(0, 1);\n"
    "  real unused = normal_rng(0, 1);\n"
    "  real d = normal_rng(0, 1);\n"
    "  int k = bernoulli_rng(0.5);\n"
    "  real e;\n"
    "  for (i in 1:3) {\n"
    "    e = normal_rng(0, 1);\n"
    "  }\n"
    "}\n",
    "", "a = 1|b = 2|c = -1|d = 5|e = 9|k = 6|unused = 4" },
  { "draws-as-arguments",
    "functions {\n"
    "  real twice(real x) {\n"
    "    return x + x;\n"
    "  }\n"
    "  real ignore(real x) {\n"
    "    return 1;\n"
    "  }\n"
    "}\n"
    "transformed data {\n"
    "  real a = twice(normal_rng(0, 1));\n"
    "  real b = ignore(normal_rng(0, 1));\n"
    "  real c = normal_rng(0, 1);\n"
    "}\n",
    "", "a = 2|b = 1|c = 3" },
  { "int-stays-int",
    "transformed data {\n"
    "  int i = 3;\n"
    "  int j = 4;\n"
    "  int k = i + j * 2;\n"
    "  int m = 7 %/% 2;\n"
    "  real r = 7 %/% 2;\n"
    "  real s = 7.0 / 2;\n"
    "  int p = 2 * 3 - 1;\n"
    "}\n",
    "", "i = 3|j = 4|k = 11|m = 3|p = 5|r = 3|s = 3.5" },
  { "bounds-changed-in-body",
    "data { int n; }\n"
    "transformed data {\n"
    "  int m = n;\n"
    "  int s = 0;\n"
    "  for (i in 1:m) {\n"
    "    m = 2;\n"
    "    s += i;\n"
    "  }\n"
    "}\n",
    "n=4", "m = 2|n = 4|s = 10" },
  { "nested-constant-loops",
    "transformed data {\n"
    "  int s = 0;\n"
    "  for (i in 1:3) {\n"
    "    for (j in i:3) {\n"
    "      s += i * j;\n"
    "    }\n"
    "  }\n"
    "  for (i in 5:4) {\n"
    "    s = -1;\n"
    "  }\n"
    "}\n",
    "", "s = 25" },
  { "copies-and-expressions",
    "data { int n; }\n"
    "transformed data {\n"
    "  int a = 1;\n"
    "  int b = a;\n"
    "  a = 5;\n"
    "  int c = b + a;\n"
    "  int x = n;\n"
    "  int y = x + 1;\n"
    "  x = 10;\n"
    "  int z = y * 2;\n"
    "  int w = 0;\n"
    "  if (n > 2) {\n"
    "    w = y;\n"
    "  } else {\n"
    "    w = x;\n"
    "  }\n"
    "}\n",
    "n=3", "a = 5|b = 1|c = 6|n = 3|w = 4|x = 10|y = 4|z = 8" },
  { "rewrites",
    "data { real x; }\n"
    "transformed data {\n"
    "  real a = log(1 - x);\n"
    "  real b = log(1 + x);\n"
    "  real c = x * 3 + 1;\n"
    "  real d = 1 + x * 3;\n"
    "  real e = pow(x, 2);\n"
    "  real f = pow(2, x);\n"
    "  real g = exp(x) - 1;\n"
    "  real h = 1 - erf(x);\n"
    "  real i = inv(sqrt(x));\n"
    "  real j = pow(x, 1 / 2);\n"
    "  real k = log(1 - exp(-x));\n"
    "}\n",
    "x=0.5", "a = -0.6931471806|b = 0.4054651081|c = 2.5|d = 2.5|e = 0.25|f = 1.414213562"
             "|g = 0.6487212707|h = 0.4795001222|i = 1.414213562|j = 1|k = -0.9327521296" },
};

/* The run, as lines, or NULL when the interpreter cannot run it. */
static char *
run (const MirProgram *p, const char *data)
{
  g_autoptr (GHashTable) d = pass_test_data (data);

  return pass_test_run (p, d);
}

static gboolean
contains_in_order (const char *text, const char *expected)
{
  g_auto (GStrv) lines = g_strsplit (expected, "|", -1);
  const char *at = text;

  for (guint i = 0; lines[i]; i++)
    {
      g_autofree char *line = g_strconcat (lines[i], "\n", NULL);
      const char *hit = strstr (at, line);
      if (!hit || (hit != text && hit[-1] != '\n'))
        return FALSE;
      at = hit + strlen (line);
    }
  return TRUE;
}

static void
assert_same_run (const char *what, const char *before, const MirProgram *after,
                 const char *data)
{
  g_autofree char *got = run (after, data);

  if (!got)
    {
      g_autofree char *text = mir_print_program (after, MIR_PRINT_DEFAULT, NULL);
      g_test_message ("%s: the optimised program does not run:\n%s", what, text);
      g_test_fail ();
      return;
    }
  if (g_strcmp0 (got, before) != 0)
    {
      g_autofree char *text = mir_print_program (after, MIR_PRINT_DEFAULT, NULL);
      g_test_message ("%s changed the run:\nbefore:\n%safter:\n%s\n%s", what, before, got, text);
      g_test_fail ();
    }
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (MirProgram) p = pass_test_program (c->name, c->program);
  g_autofree char *before = run (p, c->data);
  guint n_passes;
  const MirPass *passes = mir_passes (&n_passes);

  g_assert_nonnull (before);
  if (!contains_in_order (before, c->expected))
    {
      g_test_message ("the run gives:\n%sexpected, in order: %s", before, c->expected);
      g_test_fail ();
      return;
    }
  for (guint i = 0; i < n_passes; i++)
    {
      g_autoptr (MirProgram) q = mir_program_copy (p);
      passes[i].run (q);
      assert_same_run (passes[i].name, before, q, c->data);
      pass_test_assert_nodes (passes[i].name, q);
    }
  for (MirOptLevel level = MIR_OPT_O0; level <= MIR_OPT_EXPERIMENTAL; level++)
    {
      g_autoptr (MirProgram) q = mir_pipeline_run (p, level, NULL);
      /* and the pipeline run twice */
      g_autoptr (MirProgram) qq = mir_pipeline_run (q, level, NULL);
      assert_same_run (mir_opt_level_name (level), before, q, c->data);
      assert_same_run (mir_opt_level_name (level), before, qq, c->data);
      pass_test_assert_nodes (mir_opt_level_name (level), q);
    }
}

/* ---- what the passes must leave in place ---- */

static char *
optimised_text (const char *program, MirOptLevel level)
{
  g_autoptr (MirProgram) p = pass_test_program ("t", program);
  g_autoptr (MirProgram) q = mir_pipeline_run (p, level, NULL);

  return mir_print_program (q, MIR_PRINT_DEFAULT, NULL);
}

static const char *
part_of (const char *text, const char *part)
{
  const char *at = strstr (text, part);

  g_assert_nonnull (at);
  return at;
}

/* stanc folds every arm of ?:, and turns `1 %/% 0` in an arm that does
 * not run into an unconditional reject */
static void
test_dead_arm_not_evaluated (void)
{
  for (MirOptLevel level = MIR_OPT_O1; level <= MIR_OPT_EXPERIMENTAL; level++)
    {
      g_autofree char *text = optimised_text (cases[0].program, level);
      g_assert_null (strstr (text, "FnReject__"));
      g_assert_nonnull (strstr (text, "(1 %/% 0)"));
      /* the arm that never runs goes */
      g_assert_null (strstr (part_of (text, "prepare_data"), "w = (0 ?"));
    }
}

static void
test_recursive_functions_stay (void)
{
  for (MirOptLevel level = MIR_OPT_O1; level <= MIR_OPT_EXPERIMENTAL; level++)
    {
      g_autofree char *text = optimised_text (cases[2].program, level);
      const char *data = part_of (text, "prepare_data");
      g_assert_nonnull (strstr (data, "fact("));
      g_assert_nonnull (strstr (data, "is_even("));
      g_assert_null (strstr (data, "twice_fact("));
    }
}

/* calls in an arm of ?: run only sometimes: they stay calls */
static void
test_conditional_calls_stay (void)
{
  g_autofree char *text = optimised_text ("functions {\n"
                                          "  real noisy(real x) {\n"
                                          "    print(\"noisy \", x);\n"
                                          "    return x * 2;\n"
                                          "  }\n"
                                          "  real quiet(real x) {\n"
                                          "    return x + 1;\n"
                                          "  }\n"
                                          "}\n"
                                          "data { int flag; }\n"
                                          "transformed data {\n"
                                          "  real c = flag ? noisy(4) : quiet(5);\n"
                                          "  real d = quiet(6);\n"
                                          "}\n", MIR_OPT_EXPERIMENTAL);
  const char *data = part_of (text, "prepare_data");

  g_assert_nonnull (strstr (data, "noisy("));
  g_assert_nonnull (strstr (data, "quiet(promote(5"));
  g_assert_null (strstr (data, "quiet(promote(6"));
}

/* a + b * c -> fma(b, c, a) only when that keeps the type */
static void
test_fma_keeps_types (void)
{
  g_autoptr (MirProgram) p = pass_test_program ("fma", "data { int i; int j; real x; }\n"
                                                "transformed data {\n"
                                                "  int k = i + j * 2;\n"
                                                "  real y = x + j * 2;\n"
                                                "}\n");
  g_autofree char *text = NULL;

  g_assert_true (mir_pass_partial_evaluation (p));
  text = mir_print_program (p, MIR_PRINT_DEFAULT, NULL);
  g_assert_nonnull (strstr (text, "k = (i + (j * 2));"));
  g_assert_nonnull (strstr (text, "y = fma("));
}

/* user densities inlined compute normalised densities unless called as
 * _lupdf */
static void
test_inlined_densities (void)
{
  g_autofree char *text = optimised_text ("functions {\n"
                                          "  real foo_lpdf(real y, real mu) {\n"
                                          "    return normal_lupdf(y | mu, 1);\n"
                                          "  }\n"
                                          "}\n"
                                          "parameters { real mu; }\n"
                                          "model {\n"
                                          "  target += foo_lpdf(1 | mu);\n"
                                          "  target += foo_lupdf(2 | mu);\n"
                                          "}\n", MIR_OPT_O1);
  const char *model = part_of (text, "log_prob");

  g_assert_nonnull (strstr (model, "normal_lpdf(promote(1, real, data), mu"));
  g_assert_nonnull (strstr (model, "normal_lupdf(promote(2, real, data), mu"));
  g_assert_null (strstr (model, "foo_l"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strconcat ("/mir/pass/semantics/", cases[i].name, NULL);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/mir/pass/semantics/dead-arm-not-evaluated", test_dead_arm_not_evaluated);
  g_test_add_func ("/mir/pass/semantics/recursive-functions-stay", test_recursive_functions_stay);
  g_test_add_func ("/mir/pass/semantics/conditional-calls-stay", test_conditional_calls_stay);
  g_test_add_func ("/mir/pass/semantics/fma-keeps-types", test_fma_keeps_types);
  g_test_add_func ("/mir/pass/semantics/inlined-densities", test_inlined_densities);
  return g_test_run ();
}
