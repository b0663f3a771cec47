/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "syntax/printer.h"
#include "syntax-test-util.h"

static TildeProgram *
parse_ok (const char *name, const char *text)
{
  g_autoptr(GPtrArray) diags = NULL;
  TildeProgram *program = syntax_test_parse (name, text, &diags);

  if (diags->len)
    {
      g_autofree char *all = syntax_test_render_all (diags, program);
      g_test_message ("%s\n%s", text, all);
    }
  g_assert_cmpuint (diags->len, ==, 0);
  return program;
}

static char *
format (const char *name, const char *text)
{
  g_autoptr(TildeProgram) p = parse_ok (name, text);

  return tilde_print_program (p, TILDE_PRINT_DEFAULT);
}

/* format(x) parses to the same tree as x, and format(format(x)) == format(x). */
static void
check_round_trip (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = syntax_test_model_path ("valid", name, NULL);
  g_autofree char *text = syntax_test_read (path);
  g_autoptr(TildeProgram) original = parse_ok (name, text);
  g_autofree char *once = tilde_print_program (original, TILDE_PRINT_DEFAULT);
  g_autoptr(TildeProgram) reparsed = parse_ok (name, once);
  g_autofree char *twice = tilde_print_program (reparsed, TILDE_PRINT_DEFAULT);

  g_assert_true (tilde_program_equal (original, reparsed));
  g_assert_cmpstr (twice, ==, once);
}

static void
test_layout (void)
{
  g_autofree char *out = format ("messy.stan",
    "data{int<lower=0>N;vector[N]y;}parameters{real mu;real<lower=0>sigma;}"
    "model{y~normal(mu,sigma);if(mu>0){target+=-mu;}else target+=mu;"
    "for(i in 1:N)y[i]~normal(0,1)T[,10];{real z=mu*2;}}");

  g_assert_cmpstr (out, ==,
    "data {\n"
    "  int<lower=0> N;\n"
    "  vector[N] y;\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "  real<lower=0> sigma;\n"
    "}\n"
    "model {\n"
    "  y ~ normal(mu, sigma);\n"
    "  if (mu > 0) {\n"
    "    target += -mu;\n"
    "  } else\n"
    "    target += mu;\n"
    "  for (i in 1:N)\n"
    "    y[i] ~ normal(0, 1) T[, 10];\n"
    "  {\n"
    "    real z = mu * 2;\n"
    "  }\n"
    "}\n");
}

static void
test_one_declaration_per_line (void)
{
  g_autofree char *out = format ("decls.stan",
                                 "transformed data {\n  array[2] real a = {1, 2}, b, c = a;\n}\n");

  g_assert_cmpstr (out, ==,
    "transformed data {\n"
    "  array[2] real a = {1, 2};\n"
    "  array[2] real b;\n"
    "  array[2] real c = a;\n"
    "}\n");
}

static void
test_expressions (void)
{
  g_autofree char *out = format ("e.stan",
    "model {\n"
    "  x=(a+b)*-c^2'+{1,2}[1]+[1,2]*(1,2.5).2+f(y|m,s)+g_lpdf(y)+h(y|)+t.1;\n"
    "  x=a?b:c?d:e;\n"
    "  x=v[:,2:,:3,a:b,];\n"
    "  x=2i+1.5e3i+.5+1_000;\n"
    "}\n");

  g_assert_cmpstr (out, ==,
    "model {\n"
    "  x = (a + b) * -c ^ 2' + {1, 2}[1] + [1, 2] * (1, 2.5).2 + f(y | m, s) + g_lpdf(y)"
    " + h(y |) + t.1;\n"
    "  x = a ? b : c ? d : e;\n"
    "  x = v[:, 2:, :3, a:b, :];\n"
    "  x = 2i + 1.5e3i + .5 + 1_000;\n"
    "}\n");
}

static void
test_comments_and_blank_lines (void)
{
  g_autofree char *out = format ("c.stan",
    "// top\n"
    "data {  // opening\n"
    "  int N;   // count\n"
    "\n"
    "\n"
    "  /* block */ real x;\n"
    "  real y /* inside */ ;\n"
    "}\n"
    "// end\n");

  g_assert_cmpstr (out, ==,
    "// top\n"
    "data {  // opening\n"
    "  int N;  // count\n"
    "\n"
    "  /* block */\n"
    "  real x;\n"
    "  real y;  /* inside */\n"
    "}\n"
    "// end\n");
}

static void
test_includes_kept_or_expanded (void)
{
  g_autofree char *dir = syntax_test_model_path ("included", NULL);
  g_autofree char *path = g_build_filename (dir, "keep-include.stan", NULL);
  const char *const paths[] = { dir, NULL };
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeProgram) p = tilde_parse_file (path, paths, 0, diags, &error);
  g_autofree char *kept = NULL;
  g_autofree char *expanded = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (diags->len, ==, 0);
  kept = tilde_print_program (p, TILDE_PRINT_DEFAULT);
  expanded = tilde_print_program (p, TILDE_PRINT_EXPAND_INCLUDES);
  g_assert_cmpstr (kept, ==,
    "functions {\n"
    "  // helpers\n"
    "  #include helpers.stanfunctions\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  mu ~ normal(twice(0), 1);  // prior\n"
    "}\n");
  g_assert_cmpstr (expanded, ==,
    "functions {\n"
    "  // helpers\n"
    "  real twice(real x) {\n"
    "    return 2 * x;\n"
    "  }\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  mu ~ normal(twice(0), 1);  // prior\n"
    "}\n");
}

static void
test_no_comments_flag (void)
{
  g_autoptr(TildeProgram) p = parse_ok ("n.stan", "// gone\nmodel {\n  x = 1;  // gone too\n}\n");
  g_autofree char *out = tilde_print_program (p, TILDE_PRINT_NO_COMMENTS);

  g_assert_cmpstr (out, ==, "model {\n  x = 1;\n}\n");
}

static void
test_equality_sees_differences (void)
{
  static const char *const pairs[][2] = {
    { "model { x = a - b - c; }", "model { x = a - (b - c); }" },
    { "data { real<lower=0> x; }", "data { real<upper=0> x; }" },
    { "model { x = v[1:]; }", "model { x = v[1]; }" },
    { "model { x = 1; }", "model { x = 1.0; }" },
    { "data { @a real x; }", "data { @b real x; }" },
    { "data { real x; real y; }", "data { real x; }" },
    { "model { y ~ normal(0, 1) T[0, ]; }", "model { y ~ normal(0, 1) T[, 0]; }" },
    { "functions { real f(data real x); }", "functions { real f(real x); }" },
    { "model { for (i in 1:N) x = i; }", "model { for (i in 1:M) x = i; }" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autoptr(TildeProgram) a = parse_ok ("a.stan", pairs[i][0]);
      g_autoptr(TildeProgram) b = parse_ok ("b.stan", pairs[i][1]);
      g_autoptr(TildeProgram) a2 = parse_ok ("a.stan", pairs[i][0]);

      g_assert_false (tilde_program_equal (a, b));
      g_assert_true (tilde_program_equal (a, a2));
    }
  {
    /* Splitting a declaration does not change the program. */
    g_autoptr(TildeProgram) a = parse_ok ("a.stan", "data { real x, y; }");
    g_autoptr(TildeProgram) b = parse_ok ("b.stan", "data { real x; real y; }");

    g_assert_true (tilde_program_equal (a, b));
  }
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) functions = NULL;

  g_test_init (&argc, &argv, NULL);
  names = syntax_test_list ("valid", ".stan");
  functions = syntax_test_list ("valid", ".stanfunctions");
  for (guint i = 0; i < functions->len; i++)
    g_ptr_array_add (names, g_strdup (functions->pdata[i]));
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *test = g_strdup_printf ("/engine/printer/round-trip/%s",
                                               (char *) names->pdata[i]);
      g_test_add_data_func (test, names->pdata[i], check_round_trip);
    }
  g_test_add_func ("/engine/printer/layout", test_layout);
  g_test_add_func ("/engine/printer/one-declaration-per-line", test_one_declaration_per_line);
  g_test_add_func ("/engine/printer/expressions", test_expressions);
  g_test_add_func ("/engine/printer/comments-and-blank-lines", test_comments_and_blank_lines);
  g_test_add_func ("/engine/printer/includes", test_includes_kept_or_expanded);
  g_test_add_func ("/engine/printer/no-comments", test_no_comments_flag);
  g_test_add_func ("/engine/printer/equality", test_equality_sees_differences);
  return g_test_run ();
}
