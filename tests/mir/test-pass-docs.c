/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The worked examples of the Stan documentation's chapter on the
 * compiler's optimisations ("Using the Stan Compiler", Optimization), one
 * per pass: the Stan program is checked, lowered and transformed, the one
 * pass runs, and the part of the program the documentation lists must read
 * as its listing "after", with only the differences test-pass-util.h
 * allows. The listings are copied from the documentation as they are.
 * Where the documentation's program uses the removed array syntax
 * (`int a[n]`), it is written `array[n] int a`.
 */
#define G_LOG_DOMAIN "tilde-test"

#include "test-pass-util.h"
#include "mir/passes/passes.h"

typedef struct {
  const char   *pass;
  const char   *program;
  const char   *part;
  const char   *before;      /* the documentation's listing before the pass */
  const char   *after;       /* and after */
  PassTextFlags flags;
} Example;

static const Example examples[] = {
  { "dead_code_elimination",
    "model {\n"
    "  int i;\n"
    "  i = 5;\n"
    "  for (j in 1:10);\n"
    "  if (0) {\n"
    "    print(\"Dead code\");\n"
    "  } else {\n"
    "    print(\"Hi!\");\n"
    "  }\n"
    "}\n",
    "log_prob",
    "log_prob {\n"
    "  int i = 5;\n"
    "  for(j in 1:10) {\n"
    "    ;\n"
    "  }\n"
    "  if(0) {\n"
    "    FnPrint__(\"Dead code\");\n"
    "  } else {\n"
    "    FnPrint__(\"Hi!\");\n"
    "  }\n"
    "}\n",
    "log_prob {\n"
    "  int i;\n"
    "  FnPrint__(\"Hi!\");\n"
    "}\n",
    PASS_TEXT_DEFAULT },
  { "constant_propagation",
    "transformed data {\n"
    "  int n = 100;\n"
    "  array[n] int a;\n"
    "  for (i in 1:n) {\n"
    "    a[i] = i;\n"
    "  }\n"
    "}\n",
    "prepare_data",
    "prepare_data {\n"
    "  data int n = 100;\n"
    "  data array[int, n] a;\n"
    "  for(i in 1:n) {\n"
    "    a[i] = i;\n"
    "  }\n"
    "}\n",
    "prepare_data {\n"
    "  data int n = 100;\n"
    "  data array[int, 100] a;\n"
    "  for(i in 1:100) {\n"
    "    a[i] = i;\n"
    "  }\n"
    "}\n",
    PASS_TEXT_DEFAULT },
  { "copy_propagation",
    "model {\n"
    "  int i = 1;\n"
    "  int j = i;\n"
    "  int k = i + j;\n"
    "}\n",
    "log_prob",
    "log_prob {\n"
    "    int i = 1;\n"
    "    int j = i;\n"
    "    int k = (i + j);\n"
    "}\n",
    "log_prob {\n"
    "  int i = 1;\n"
    "  int j = i;\n"
    "  int k = (i + i);\n"
    "}\n",
    PASS_TEXT_DEFAULT },
  { "partial_evaluation",
    "model {\n"
    "  real a = 1 + 1;\n"
    "  real b = log(1 - a);\n"
    "  real c = a + b * 5;\n"
    "}\n",
    "log_prob",
    "log_prob {\n"
    "  real a = (1 + 1);\n"
    "  real b = log((1 - a));\n"
    "  real c = (a + (b * 5));\n"
    "}\n",
    "log_prob {\n"
    "  real a = 2;\n"
    "  real b = log1m(a);\n"
    "  real c = fma(b, 5, a);\n"
    "}\n",
    PASS_TEXT_DEFAULT },
  { "optimize_ad_levels",
    "data {\n"
    "  real y;\n"
    "}\n"
    "model {\n"
    "  real x = y + 1;\n"
    "}\n",
    "log_prob",
    "log_prob {\n"
    "  real x = (y + 1);\n"
    "}\n",
    "log_prob {\n"
    "  data real x = (y + 1);\n"
    "}\n",
    PASS_TEXT_DEFAULT },
  { "one_step_loop_unrolling",
    "data {\n"
    "  int n;\n"
    "}\n"
    "transformed data {\n"
    "  int x = 0;\n"
    "  for (i in 1:n) {\n"
    "    x += i;\n"
    "  }\n"
    "}\n",
    "prepare_data",
    "prepare_data {\n"
    "  data int n = FnReadData__(\"n\")[1];\n"
    "  data int x = 0;\n"
    "  for(i in 1:n) {\n"
    "    x = (x + i);\n"
    "  }\n"
    "}\n",
    "prepare_data {\n"
    "  data int n = FnReadData__(\"n\")[1];\n"
    "  int x = 0;\n"
    "  if((n >= 1)) {\n"
    "    x = (x + 1);\n"
    "    for(i in (1 + 1):n) {\n"
    "      x = (x + i);\n"
    "    }\n"
    "  }\n"
    "}\n",
    PASS_TEXT_NO_DATA },
  { "expression_propagation",
    "data {\n"
    "  int m;\n"
    "}\n"
    "transformed data {\n"
    "  int n = m+1;\n"
    "  array[n] int a;\n"
    "  for (i in 1:n-1) {\n"
    "    a[i] = i;\n"
    "  }\n"
    "}\n",
    "prepare_data",
    "prepare_data {\n"
    "  data int m = FnReadData__(\"m\")[1];\n"
    "  data int n = (m + 1);\n"
    "  data array[int, n] a;\n"
    "  for(i in 1:(n - 1)) {\n"
    "    a[i] = i;\n"
    "  }\n"
    "}\n",
    "prepare_data {\n"
    "  data int m = FnReadData__(\"m\")[1];\n"
    "  data int n = (m + 1);\n"
    "  data array[int, (m + 1)] a;\n"
    "  for(i in 1:((m + 1) - 1)) {\n"
    "    a[i] = i;\n"
    "  }\n"
    "}\n",
    PASS_TEXT_DEFAULT },
  { "lazy_code_motion",
    "model {\n"
    "  real x;\n"
    "  real y;\n"
    "  real z;\n"
    "\n"
    "  for (i in 1:10) {\n"
    "    x = sqrt(10);\n"
    "    y = sqrt(i);\n"
    "  }\n"
    "  z = sqrt(10);\n"
    "}\n",
    "log_prob",
    "log_prob {\n"
    "  real x;\n"
    "  real y;\n"
    "  real z;\n"
    "  for(i in 1:10) {\n"
    "    x = sqrt(10);\n"
    "    y = sqrt(i);\n"
    "  }\n"
    "  z = sqrt(10);\n"
    "}\n",
    "log_prob {\n"
    "  data real lcm_sym4__;\n"
    "  data real lcm_sym3__;\n"
    "  real x;\n"
    "  real y;\n"
    "  lcm_sym4__ = sqrt(10);\n"
    "  real z;\n"
    "  for(i in 1:10) {\n"
    "    x = lcm_sym4__;\n"
    "    y = sqrt(i);\n"
    "  }\n"
    "  z = lcm_sym4__;\n"
    "}\n",
    PASS_TEXT_DECLS_FIRST },
  { "function_inlining",
    "functions {\n"
    "  int incr(int x) {\n"
    "    int y = 1;\n"
    "    return x + y;\n"
    "  }\n"
    "}\n"
    "transformed data {\n"
    "  int a = 2;\n"
    "  int b = incr(a);\n"
    "}\n",
    "prepare_data",
    "prepare_data {\n"
    "  data int a = 2;\n"
    "  data int b = incr(a);\n"
    "}\n",
    "prepare_data {\n"
    "  data int a;\n"
    "  a = 2;\n"
    "  data int b;\n"
    "  data int inline_sym1__;\n"
    "  data int inline_sym3__;\n"
    "  inline_sym3__ = 0;\n"
    "  for(inline_sym4__ in 1:1) {\n"
    "    int inline_sym2__;\n"
    "    inline_sym2__ = 1;\n"
    "    inline_sym3__ = 1;\n"
    "    inline_sym1__ = (a + inline_sym2__);\n"
    "    break;\n"
    "  }\n"
    "  b = inline_sym1__;\n"
    "}\n",
    PASS_TEXT_NO_DATA },
  { "static_loop_unrolling",
    "transformed data {\n"
    "  int x = 0;\n"
    "  for (i in 1:4) {\n"
    "    x += i;\n"
    "  }\n"
    "}\n",
    "prepare_data",
    "prepare_data {\n"
    "  data int x = 0;\n"
    "  for(i in 1:4) {\n"
    "    x = (x + i);\n"
    "  }\n"
    "}\n",
    "prepare_data {\n"
    "  data int x;\n"
    "  x = 0;\n"
    "  x = (x + 1);\n"
    "  x = (x + 2);\n"
    "  x = (x + 3);\n"
    "  x = (x + 4);\n"
    "}\n",
    PASS_TEXT_DEFAULT },
};

static void
test_example (gconstpointer data)
{
  const Example *ex = data;
  const MirPass *pass = mir_pass_lookup (ex->pass);
  g_autoptr (MirProgram) p = pass_test_program (ex->pass, ex->program);

  g_assert_nonnull (pass);
  /* the program before the pass reads as the listing "before" */
  pass_test_assert_documented (p, ex->part, ex->before, ex->flags);
  g_assert_true (pass->run (p));
  pass_test_assert_documented (p, ex->part, ex->after, ex->flags);
  pass_test_assert_nodes (ex->pass, p);
}

/* The canonical form itself: the documented differences, and nothing
 * else, are allowed. */
static void
test_canonical_form (void)
{
  g_autofree char *a = pass_test_canonical ("log_prob {\n  {\n    int i;\n    i = 5;\n"
                                            "    x = promote(5, real, data);\n  } }\n",
                                            "log_prob", PASS_TEXT_DEFAULT);
  g_autofree char *b = pass_test_canonical ("log_prob {\n  int i = 5;\n  x = 5;\n}\n",
                                            "log_prob", PASS_TEXT_DEFAULT);
  g_autofree char *c = pass_test_canonical ("log_prob {\n  int i = 6;\n  x = 5;\n}\n",
                                            "log_prob", PASS_TEXT_DEFAULT);
  g_autofree char *d = pass_test_canonical ("log_prob {\n  real lcm_sym9__;\n  real lcm_sym2__;\n"
                                            "  lcm_sym2__ = 1;\n}\n", "log_prob",
                                            PASS_TEXT_DEFAULT);
  g_autofree char *e = pass_test_canonical ("log_prob {\n  real inline_sym1__;\n"
                                            "  inline_sym1__ = 1;\n}\n", "log_prob",
                                            PASS_TEXT_DEFAULT);
  g_autofree char *f = pass_test_canonical ("log_prob {\n  x = 1;\n  real y;\n  if(c) {\n"
                                            "    z = 2;\n    real w;\n  }\n}\n", "log_prob",
                                            PASS_TEXT_DECLS_FIRST);

  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, !=, c);
  g_assert_cmpstr (d, ==, e);
  g_assert_cmpstr (f, ==, "log_prob { real y; x = 1; if(c) { real w; z = 2; } }");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/pass/docs/canonical-form", test_canonical_form);
  for (guint i = 0; i < G_N_ELEMENTS (examples); i++)
    {
      g_autofree char *path = g_strconcat ("/mir/pass/docs/", examples[i].pass, NULL);
      g_test_add_data_func (path, &examples[i], test_example);
    }
  return g_test_run ();
}
