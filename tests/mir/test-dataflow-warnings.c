/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The warnings the analyses give, in the Stan compiler's words:
 * --warn-uninitialized ("The variable x may not have been assigned a value
 * before its use.", once per variable and path, at its first use, loops
 * taken to run) and the pedantic warnings about control flow that depends
 * on parameters. The programs follow the Stan compiler's own tests
 * (test/integration/cli-args/warn-uninitialized/simple.stan, the example
 * of its pull request #293, test/unit/Pedantic_analysis.ml), with the
 * positions counted in these sources.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir-test-util.h"
#include "mir/dataflow/param-deps.h"
#include "mir/dataflow/uninitialized.h"
#include "test-dataflow-util.h"
#include "tilde-diagnostic-render.h"

#define UNINIT "may not have been assigned a value before its use."

typedef struct {
  int         line;
  int         column;
  int         end_column;
  const char *message;
} Expected;

static void
assert_warnings (GPtrArray *got, TildeDiagnosticKind kind, const Expected *want, guint n)
{
  for (guint i = 0; i < got->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (got, i);
      g_test_message ("%d:%d-%d %s", d->begin_line, d->begin_column, d->end_column,
                      d->message);
    }
  g_assert_cmpuint (got->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (got, i);
      g_assert_cmpint (d->severity, ==, TILDE_SEVERITY_WARNING);
      g_assert_cmpint (d->kind, ==, kind);
      g_assert_cmpstr (d->file, ==, "test.stan");
      g_assert_cmpint (d->begin_line, ==, want[i].line);
      g_assert_cmpint (d->begin_column, ==, want[i].column);
      if (want[i].end_column >= 0)
        g_assert_cmpint (d->end_column, ==, want[i].end_column);
      g_assert_cmpstr (d->message, ==, want[i].message);
    }
}

static GPtrArray *
uninitialized (const char *src)
{
  g_autoptr (MirProgram) p = df_lower (src);
  GPtrArray *out = tilde_diagnostic_list_new ();

  mir_uninitialized_warnings (p, out);
  return out;
}

static const char simple_src[] =
  "functions {\n"                                              /* 1 */
  "  real bar(array[] real y_slice, int start, int end) {\n"   /* 2 */
  "    if (size(y_slice) > 1) {\n"                             /* 3 */
  "      return reduce_sum(bar, y_slice, 1);\n"                /* 4 */
  "    } else {\n"                                             /* 5 */
  "      return normal_lpdf(y_slice | 0, 1);\n"                /* 6 */
  "    }\n"                                                    /* 7 */
  "  }\n"                                                      /* 8 */
  "}\n"                                                        /* 9 */
  "data {\n"                                                   /* 10 */
  "  int N;\n"                                                 /* 11 */
  "}\n"                                                        /* 12 */
  "transformed data {\n"                                       /* 13 */
  "  print(N);\n"                                              /* 14 */
  "\n"                                                         /* 15 */
  "  int p;\n"                                                 /* 16 */
  "  int q;\n"                                                 /* 17 */
  "  int p2 = q + 23;\n"                                       /* 18 */
  "}\n"                                                        /* 19 */
  "parameters {\n"                                             /* 20 */
  "  array[N] real y1;\n"                                      /* 21 */
  "}\n"                                                        /* 22 */
  "transformed parameters {\n"                                 /* 23 */
  "  jacobian += p * p2;\n"                                    /* 24 */
  "\n"                                                         /* 25 */
  "  real h;\n"                                                /* 26 */
  "}\n"                                                        /* 27 */
  "model {\n"                                                  /* 28 */
  "  real theta;\n"                                            /* 29 */
  "  real zero;\n"                                             /* 30 */
  "  // should warn for both theta and zero\n"                 /* 31 */
  "  theta ~ normal(zero, 1);\n"                               /* 32 */
  "  zero = 0;\n"                                              /* 33 */
  "\n"                                                         /* 34 */
  "  // warning is not transitive\n"                           /* 35 */
  "  int x = p;\n"                                             /* 36 */
  "  print(x);\n"                                              /* 37 */
  "\n"                                                         /* 38 */
  "  real g;\n"                                                /* 39 */
  "\n"                                                         /* 40 */
  "  // this should warn for g and h, not 'target'\n"          /* 41 */
  "  target += normal_lpdf(g | h, 1);\n"                       /* 42 */
  "\n"                                                         /* 43 */
  "  // this shouldn't warn because the above does.\n"         /* 44 */
  "  print(g);\n"                                              /* 45 */
  "\n"                                                         /* 46 */
  "  // should have no warnings\n"                             /* 47 */
  "  target += reduce_sum(bar, y1, 1);\n"                      /* 48 */
  "}\n";

static void
test_uninitialized_simple (void)
{
  g_autoptr (GPtrArray) got = uninitialized (simple_src);
  /* data, parameters, function arguments and function names passed to
   * reduce_sum are never reported; p is reported at its first use only,
   * in the transformed parameters; the positions come last first, as the
   * Stan compiler lists them */
  const Expected want[] = {
    { 42, 28, 29, "The variable h " UNINIT },
    { 42, 24, 25, "The variable g " UNINIT },
    { 32, 17, 21, "The variable zero " UNINIT },
    { 32, 2, 7, "The variable theta " UNINIT },
    { 24, 14, 15, "The variable p " UNINIT },
    { 18, 11, 12, "The variable q " UNINIT },
  };

  assert_warnings (got, TILDE_DIAG_UNINITIALIZED, want, G_N_ELEMENTS (want));
}

static const char branches_src[] =
  "functions {\n"                       /* 1 */
  "  int f(int y) {\n"                  /* 2 */
  "    int x;\n"                        /* 3 */
  "    if (y > 2)\n"                    /* 4 */
  "      return y + 24;\n"              /* 5 */
  "    return y + 2;\n"                 /* 6 */
  "  }\n"                               /* 7 */
  "}\n"                                 /* 8 */
  "data {\n"                            /* 9 */
  "  real w;\n"                         /* 10 */
  "}\n"                                 /* 11 */
  "transformed data {\n"                /* 12 */
  "  real wu;\n"                        /* 13 */
  "  print(wu);\n"                      /* 14 */
  "  print(w);\n"                       /* 15 */
  "  wu = w;\n"                         /* 16 */
  "}\n"                                 /* 17 */
  "parameters {\n"                      /* 18 */
  "  real x;\n"                         /* 19 */
  "}\n"                                 /* 20 */
  "model {\n"                           /* 21 */
  "  int i;\n"                          /* 22 */
  "  int z = 0;\n"                      /* 23 */
  "  print(i);\n"                       /* 24 */
  "  print(z);\n"                       /* 25 */
  "  print(x);\n"                       /* 26 */
  "  if (z == 1) {\n"                   /* 27 */
  "    i = 1;\n"                        /* 28 */
  "  } else {}\n"                       /* 29 */
  "  print(i);\n"                       /* 30 */
  "  int j;\n"                          /* 31 */
  "  if (z == 2) {\n"                   /* 32 */
  "    j = 1;\n"                        /* 33 */
  "  } else {}\n"                       /* 34 */
  "  print(j);\n"                       /* 35 */
  "  int k;\n"                          /* 36 */
  "  if (z == 2) {\n"                   /* 37 */
  "    k = 1;\n"                        /* 38 */
  "  } else {\n"                        /* 39 */
  "    k = 2;\n"                        /* 40 */
  "  }\n"                               /* 41 */
  "  print(k);\n"                       /* 42 */
  "}\n"                                 /* 43 */
  "generated quantities {\n"            /* 44 */
  "  int m;\n"                          /* 45 */
  "  print(m);\n"                       /* 46 */
  "}\n";

static void
test_uninitialized_branches (void)
{
  g_autoptr (GPtrArray) got = uninitialized (branches_src);
  /* i was reported at line 24 already; j is assigned on one branch only;
   * k on both */
  const Expected want[] = {
    { 46, 8, 9, "The variable m " UNINIT },
    { 35, 8, 9, "The variable j " UNINIT },
    { 24, 8, 9, "The variable i " UNINIT },
    { 14, 8, 10, "The variable wu " UNINIT },
  };

  assert_warnings (got, TILDE_DIAG_UNINITIALIZED, want, G_N_ELEMENTS (want));
}

static const char loops_src[] =
  "transformed data {\n"                     /* 1 */
  "  int N = 3;\n"                           /* 2 */
  "  real s;\n"                              /* 3 */
  "  for (n in 1:N) s = n;\n"                /* 4 */
  "  print(s);\n"                            /* 5 */
  "  real t;\n"                              /* 6 */
  "  while (N > 5) { t = 1; break; }\n"      /* 7 */
  "  print(t);\n"                            /* 8 */
  "  real u;\n"                              /* 9 */
  "  if (N > 2) u = 1;\n"                    /* 10 */
  "  print(u);\n"                            /* 11 */
  "  real v;\n"                              /* 12 */
  "  for (n in 1:N) {\n"                     /* 13 */
  "    if (n > 1) break;\n"                  /* 14 */
  "    v = n;\n"                             /* 15 */
  "  }\n"                                    /* 16 */
  "  print(v);\n"                            /* 17 */
  "  {\n"                                    /* 18 */
  "    real w = 1;\n"                        /* 19 */
  "  }\n"                                    /* 20 */
  "  {\n"                                    /* 21 */
  "    real w;\n"                            /* 22 */
  "    print(w);\n"                          /* 23 */
  "  }\n"                                    /* 24 */
  "}\n";

static void
test_uninitialized_loops (void)
{
  g_autoptr (GPtrArray) got = uninitialized (loops_src);
  /* loops are taken to run their body, so s and t count as assigned; a
   * break before the assignment leaves v unassigned; a variable of the
   * same name in an earlier block does not assign w */
  const Expected want[] = {
    { 23, 10, 11, "The variable w " UNINIT },
    { 17, 8, 9, "The variable v " UNINIT },
    { 11, 8, 9, "The variable u " UNINIT },
  };

  assert_warnings (got, TILDE_DIAG_UNINITIALIZED, want, G_N_ELEMENTS (want));
}

static void
test_uninitialized_rendered (void)
{
  g_autoptr (TildeCheckResult) r = NULL;
  g_autoptr (MirProgram) p = mir_test_lower ("test.stan", branches_src, &r);
  g_autoptr (GPtrArray) got = tilde_diagnostic_list_new ();
  g_autofree char *text = NULL;

  mir_uninitialized_warnings (p, got);
  g_assert_cmpuint (got->len, >, 0);
  text = tilde_diagnostic_render_with_sources (g_ptr_array_index (got, 0),
                                               tilde_check_result_get_sources (r));
  g_assert_true (g_str_has_prefix (text, "Warning in 'test.stan', line 46, column 8"));
}

/* ---- parameter-dependent control flow ---- */

static GPtrArray *
pedantic (const char *src)
{
  g_autoptr (MirProgram) p = df_lower (src);
  GPtrArray *out = tilde_diagnostic_list_new ();

  mir_param_dependence_warnings (p, out);
  return out;
}

static const char cf_src[] =
  "parameters {\n"                 /* 1 */
  "  real a;\n"                    /* 2 */
  "  real b;\n"                    /* 3 */
  "}\n"                            /* 4 */
  "model {\n"                      /* 5 */
  "  int x;\n"                     /* 6 */
  "  int y = 0;\n"                 /* 7 */
  "  if(a > 0) {\n"                /* 8 */
  "    x = 0;\n"                   /* 9 */
  "  } else {\n"                   /* 10 */
  "    x = 1;\n"                   /* 11 */
  "  }\n"                          /* 12 */
  "  for(i in 0:x) {\n"            /* 13 */
  "    y = y + 1;\n"               /* 14 */
  "  }\n"                          /* 15 */
  "  while ( y > 0 ) {\n"          /* 16 */
  "    b ~ normal(0, 1);\n"        /* 17 */
  "  }\n"                          /* 18 */
  "  if (b > 1 && a < 0) { }\n"    /* 19 */
  "}\n";

static void
test_parameter_control_flow (void)
{
  g_autoptr (GPtrArray) got = pedantic (cf_src);
  /* x depends on a through the if, y on x through the loop bounds */
  const Expected want[] = {
    { 19, 2, -1, "A control flow statement depends on parameter(s): a, b." },
    { 16, 2, -1, "A control flow statement depends on parameter(s): a." },
    { 13, 2, -1, "A control flow statement depends on parameter(s): a." },
    { 8, 2, -1, "A control flow statement depends on parameter(s): a." },
  };

  assert_warnings (got, TILDE_DIAG_PEDANTIC, want, G_N_ELEMENTS (want));
}

static const char fundef_src[] =
  "functions {\n"                              /* 1 */
  "  real func(real b) {\n"                    /* 2 */
  "    if(b > 0.0) {\n"                        /* 3 */
  "      return(1.0);\n"                       /* 4 */
  "    } else {\n"                             /* 5 */
  "      return(0.0);\n"                       /* 6 */
  "    }\n"                                    /* 7 */
  "  }\n"                                      /* 8 */
  "}\n"                                        /* 9 */
  "data {\n"                                   /* 10 */
  "  int N;\n"                                 /* 11 */
  "  array[N] real x;\n"                       /* 12 */
  "}\n"                                        /* 13 */
  "parameters {\n"                             /* 14 */
  "  real<lower = 0.0> sigma;\n"               /* 15 */
  "}\n"                                        /* 16 */
  "model {\n"                                  /* 17 */
  "  x ~ normal(0, func(sigma));\n"            /* 18 */
  "  print(func(1.0));\n"                      /* 19 */
  "}\n";

static void
test_function_control_flow (void)
{
  g_autoptr (GPtrArray) got = pedantic (fundef_src);
  /* the call with a constant argument is not reported */
  const Expected want[] = {
    { 3, 4, -1, "A control flow statement inside function func depends on argument b. "
                "At 'test.stan', line 18, column 21 to column 26, the value of b depends "
                "on parameter(s): sigma." },
  };

  assert_warnings (got, TILDE_DIAG_PEDANTIC, want, G_N_ELEMENTS (want));
}

static void
test_no_parameters (void)
{
  g_autoptr (GPtrArray) got = pedantic ("data { int N; }\n"
                                        "parameters { real mu; }\n"
                                        "model {\n"
                                        "  for (n in 1:N) mu ~ normal(0, 1);\n"
                                        "  if (N > 2) mu ~ normal(0, 1);\n"
                                        "}\n");

  g_assert_cmpuint (got->len, ==, 0);
}

static void
test_parameter_sizes (void)
{
  /* the length of a parameter vector is data: looping over it is not
   * parameter-dependent control flow */
  g_autoptr (GPtrArray) got = pedantic ("parameters { vector[3] z; }\n"
                                        "model {\n"
                                        "  for (x in z) target += -0.5 * x ^ 2;\n"
                                        "  for (i in 1:rows(z)) target += z[i];\n"
                                        "  while (size(z) > 5) target += z[1];\n"
                                        "  if (z[1] > 0) target += 1;\n"
                                        "}\n");
  const Expected want[] = {
    { 6, 2, -1, "A control flow statement depends on parameter(s): z." },
  };

  assert_warnings (got, TILDE_DIAG_PEDANTIC, want, G_N_ELEMENTS (want));
}

/* @silent silences the warnings about a variable: its reads before it is
 * assigned, and its part in control flow (a warning that would name only
 * silent parameters goes). */
static const char silent_src[] =
  "parameters {\n"                           /* 1 */
  "  real a;\n"                              /* 2 */
  "  @silent real s;\n"                      /* 3 */
  "}\n"                                      /* 4 */
  "model {\n"                                /* 5 */
  "  @silent real quiet;\n"                  /* 6 */
  "  real loud;\n"                           /* 7 */
  "  if (s > 0) target += 1;\n"              /* 8 */
  "  if (a + s > 0) target += quiet;\n"      /* 9 */
  "  a ~ normal(loud, 1);\n"                 /* 10 */
  "}\n";

static void
test_silent (void)
{
  g_autoptr (GPtrArray) uninit = uninitialized (silent_src);
  g_autoptr (GPtrArray) control = pedantic (silent_src);
  const Expected want_uninit[] = {
    { 10, 13, 17, "The variable loud " UNINIT },
  };
  const Expected want_control[] = {
    { 9, 2, -1, "A control flow statement depends on parameter(s): a." },
  };

  assert_warnings (uninit, TILDE_DIAG_UNINITIALIZED, want_uninit, G_N_ELEMENTS (want_uninit));
  assert_warnings (control, TILDE_DIAG_PEDANTIC, want_control, G_N_ELEMENTS (want_control));
}

/* Solved on data and parameters, the dependence gives the same warnings:
 * only parameters are named. */
static void
test_control_flow_from_shared_dependence (void)
{
  static const char src[] =
    "data { int N; real d; }\n"                        /* 1 */
    "parameters { real a; }\n"                         /* 2 */
    "model {\n"                                        /* 3 */
    "  for (n in 1:N) a ~ normal(0, 1);\n"             /* 4 */
    "  if (d + a > 0) target += 1;\n"                  /* 5 */
    "}\n";
  g_autoptr (MirProgram) p = df_lower (src);
  g_autoptr (MirFlowGraph) g = df_part_graph (p, MIR_PART_LOG_PROB, MIR_FLOW_GRAPH_DEFAULT);
  const char *const sources[] = { "N", "d", "a", NULL };
  MirParamDeps *deps = mir_param_dependence (g, sources, FALSE);
  g_autoptr (GPtrArray) got = tilde_diagnostic_list_new ();
  g_autoptr (GPtrArray) alone = pedantic (src);
  g_autofree const char **running = NULL;
  const Expected want[] = {
    { 5, 2, -1, "A control flow statement depends on parameter(s): a." },
  };

  mir_param_dependence_warnings_of (p, g, deps, got);
  assert_warnings (got, TILDE_DIAG_PEDANTIC, want, G_N_ELEMENTS (want));
  assert_warnings (alone, TILDE_DIAG_PEDANTIC, want, G_N_ELEMENTS (want));
  /* whether the loop's body runs depends on the data N */
  running = mir_param_deps_of_running (deps, df_node_at (g, 4, MIR_STMT_TARGET_PLUS));
  g_assert_cmpuint (g_strv_length ((char **) running), ==, 1);
  g_assert_cmpstr (running[0], ==, "N");
  mir_param_deps_free (deps);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/dataflow/warnings/uninitialized/simple", test_uninitialized_simple);
  g_test_add_func ("/mir/dataflow/warnings/uninitialized/branches", test_uninitialized_branches);
  g_test_add_func ("/mir/dataflow/warnings/uninitialized/loops-and-scopes",
                   test_uninitialized_loops);
  g_test_add_func ("/mir/dataflow/warnings/uninitialized/rendered", test_uninitialized_rendered);
  g_test_add_func ("/mir/dataflow/warnings/pedantic/parameter-control-flow",
                   test_parameter_control_flow);
  g_test_add_func ("/mir/dataflow/warnings/pedantic/function-control-flow",
                   test_function_control_flow);
  g_test_add_func ("/mir/dataflow/warnings/pedantic/data-control-flow", test_no_parameters);
  g_test_add_func ("/mir/dataflow/warnings/pedantic/parameter-sizes", test_parameter_sizes);
  g_test_add_func ("/mir/dataflow/warnings/silent", test_silent);
  g_test_add_func ("/mir/dataflow/warnings/pedantic/shared-dependence",
                   test_control_flow_from_shared_dependence);
  return g_test_run ();
}
