/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test-language"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

/*
 * The highlighting is observed through a probe style scheme that gives every
 * style of the Stan language its own foreground colour and nothing else, so
 * the colour of the topmost tag at a position names the style the
 * highlighter applied there.
 */

typedef struct
{
  const char *source;
  const char *needle;   /* every character of it is checked */
  guint       nth;      /* which occurrence of needle, from 0 */
  const char *style;    /* a Stan style id without "stan:", NULL for plain text */
} Expectation;

static GtkSourceLanguageManager *language_manager;
static GtkSourceLanguage *stan;
static GtkSourceStyleScheme *probe_scheme;
static GtkSourceStyleSchemeManager *probe_manager;
static char *probe_dir;
static char **style_ids;

static char *
probe_scheme_xml (void)
{
  GString *xml = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                               "<style-scheme id=\"tilde-probe\" name=\"Probe\" version=\"1.0\">\n");

  for (guint i = 0; style_ids[i] != NULL; i++)
    g_string_append_printf (xml, "  <style name=\"%s\" foreground=\"#0000%02x\"/>\n",
                            style_ids[i], i + 1);
  g_string_append (xml, "</style-scheme>\n");
  return g_string_free (xml, FALSE);
}

static void
load_probe_scheme (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *xml = probe_scheme_xml ();
  g_autofree char *path = NULL;
  const char *search_path[2] = { NULL, NULL };

  probe_dir = g_dir_make_tmp ("tilde-stan-lang-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (probe_dir, "tilde-probe.xml", NULL);
  g_file_set_contents (path, xml, -1, &error);
  g_assert_no_error (error);

  search_path[0] = probe_dir;
  probe_manager = gtk_source_style_scheme_manager_new ();
  gtk_source_style_scheme_manager_set_search_path (probe_manager, search_path);
  probe_scheme = gtk_source_style_scheme_manager_get_scheme (probe_manager, "tilde-probe");
  g_assert_nonnull (probe_scheme);
}

static void
remove_probe_scheme (void)
{
  g_autofree char *path = g_build_filename (probe_dir, "tilde-probe.xml", NULL);

  g_clear_object (&probe_manager);
  g_unlink (path);
  g_rmdir (probe_dir);
  g_clear_pointer (&probe_dir, g_free);
}

static GtkSourceBuffer *
highlight (const char *source, GtkSourceStyleScheme *scheme)
{
  GtkSourceBuffer *buffer = gtk_source_buffer_new_with_language (stan);
  GtkTextIter start, end;

  gtk_source_buffer_set_style_scheme (buffer, scheme);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), source, -1);
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (buffer), &start, &end);
  gtk_source_buffer_ensure_highlight (buffer, &start, &end);
  return buffer;
}

/* The probe style painted at @offset, or NULL where the text is plain. */
static const char *
probe_style_at (GtkSourceBuffer *buffer, int offset)
{
  GtkTextIter iter;
  GSList *tags;
  const char *style = NULL;

  gtk_text_buffer_get_iter_at_offset (GTK_TEXT_BUFFER (buffer), &iter, offset);
  tags = gtk_text_iter_get_tags (&iter);
  /* Tags come in increasing priority; a nested context's tag wins. */
  for (GSList *l = tags; l != NULL; l = l->next)
    {
      GdkRGBA *rgba = NULL;
      gboolean set = FALSE;
      guint n_ids = g_strv_length (style_ids);
      long index;

      g_object_get (l->data, "foreground-set", &set, "foreground-rgba", &rgba, NULL);
      if (set && rgba != NULL && rgba->red == 0 && rgba->green == 0)
        {
          index = lround (rgba->blue * 255.0) - 1;
          if (index >= 0 && (guint) index < n_ids)
            style = style_ids[index];
        }
      g_clear_pointer (&rgba, gdk_rgba_free);
    }
  g_slist_free (tags);
  return style;
}

static int
needle_offset (const char *source, const char *needle, guint nth)
{
  const char *at = strstr (source, needle);

  for (guint i = 0; i < nth && at != NULL; i++)
    at = strstr (at + 1, needle);
  g_assert_nonnull (at);
  return (int) g_utf8_pointer_to_offset (source, at);
}

static void
check_expectations (const Expectation *table, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      const Expectation *e = &table[i];
      g_autoptr(GtkSourceBuffer) buffer = highlight (e->source, probe_scheme);
      int start = needle_offset (e->source, e->needle, e->nth);
      int length = (int) g_utf8_strlen (e->needle, -1);
      g_autofree char *want = g_strdup_printf ("'%s' in [%s]: %s%s", e->needle, e->source,
                                               e->style ? "stan:" : "",
                                               e->style ? e->style : "plain");

      for (int k = 0; k < length; k++)
        {
          const char *got_style = probe_style_at (buffer, start + k);
          g_autofree char *got = g_strdup_printf ("'%s' in [%s]: %s", e->needle, e->source,
                                                  got_style ? got_style : "plain");
          g_assert_cmpstr (got, ==, want);
        }
    }
}

static void
test_metadata (void)
{
  g_auto(GStrv) globs = gtk_source_language_get_globs (stan);
  g_auto(GStrv) mime_types = gtk_source_language_get_mime_types (stan);
  GtkSourceLanguage *guessed;

  g_assert_cmpstr (gtk_source_language_get_id (stan), ==, "stan");
  g_assert_cmpstr (gtk_source_language_get_name (stan), ==, "Stan");
  g_assert_false (gtk_source_language_get_hidden (stan));
  g_assert_true (g_strv_contains ((const char * const *) globs, "*.stan"));
  g_assert_true (g_strv_contains ((const char * const *) globs, "*.stanfunctions"));
  g_assert_true (g_strv_contains ((const char * const *) mime_types, "text/x-stan"));
  g_assert_cmpstr (gtk_source_language_get_metadata (stan, "line-comment-start"), ==, "//");
  g_assert_cmpstr (gtk_source_language_get_metadata (stan, "block-comment-start"), ==, "/*");
  g_assert_cmpstr (gtk_source_language_get_metadata (stan, "block-comment-end"), ==, "*/");

  guessed = gtk_source_language_manager_guess_language (language_manager, "eight_schools.stan", NULL);
  g_assert_true (guessed == stan);
  guessed = gtk_source_language_manager_guess_language (language_manager, "lib/gp.stanfunctions", NULL);
  g_assert_true (guessed == stan);
  guessed = gtk_source_language_manager_guess_language (language_manager, NULL, "text/x-stan");
  g_assert_true (guessed == stan);
}

/* Follow the language's map-to chain until the scheme styles the id. */
static GtkSourceStyle *
resolve_style (GtkSourceStyleScheme *scheme, const char *style_id)
{
  GtkSourceLanguage *def = gtk_source_language_manager_get_language (language_manager, "def");
  const char *id = style_id;

  while (id != NULL)
    {
      GtkSourceStyle *style = gtk_source_style_scheme_get_style (scheme, id);

      if (style != NULL)
        return style;
      id = gtk_source_language_get_style_fallback (g_str_has_prefix (id, "stan:") ? stan : def, id);
    }
  return NULL;
}

static gboolean
style_is_visible (GtkSourceStyle *style)
{
  gboolean foreground = FALSE, background = FALSE, bold = FALSE, italic = FALSE;
  gboolean underline = FALSE;

  g_object_get (style,
                "foreground-set", &foreground, "background-set", &background,
                "bold-set", &bold, "italic-set", &italic, "underline-set", &underline,
                NULL);
  return foreground || background || bold || italic || underline;
}

/* Every Stan style falls back on a def: style, so the schemes that ship with
 * GtkSourceView colour Stan programs without knowing about Stan. */
static void
test_style_fallbacks (void)
{
  static const char * const schemes[] = { "Adwaita", "Adwaita-dark", "classic", "classic-dark" };
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();

  g_assert_cmpuint (g_strv_length (style_ids), >=, 15);
  for (guint i = 0; style_ids[i] != NULL; i++)
    {
      const char *fallback = gtk_source_language_get_style_fallback (stan, style_ids[i]);

      g_assert_nonnull (fallback);
      g_assert_true (g_str_has_prefix (fallback, "def:"));
    }

  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++)
    {
      GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (manager, schemes[s]);

      if (scheme == NULL)
        {
          g_test_message ("style scheme %s is not installed", schemes[s]);
          continue;
        }
      for (guint i = 0; style_ids[i] != NULL; i++)
        {
          GtkSourceStyle *style = resolve_style (scheme, style_ids[i]);
          g_autofree char *what = g_strdup_printf ("%s in %s", style_ids[i], schemes[s]);
          g_autofree char *visible = g_strdup_printf ("%s: %s", what,
                                                      style && style_is_visible (style) ? "styled" : "plain");
          g_autofree char *want = g_strdup_printf ("%s: styled", what);

          g_assert_cmpstr (visible, ==, want);
        }
    }
}

static const char *const model_text =
  "functions {\n"
  "  real half(data real x) { return x / 2; }\n"
  "}\n"
  "data {\n"
  "  int<lower=0> N;\n"
  "}\n"
  "transformed data {\n"
  "  real model_scale = 1;\n"
  "}\n"
  "parameters {\n"
  "  real mu;\n"
  "}\n"
  "transformed   parameters {\n"
  "  real tau = exp(mu);\n"
  "}\n"
  "model // the likelihood\n"
  "{\n"
  "  mu ~ normal(0, 1);\n"
  "}\n"
  "generated quantities {\n"
  "  real data_copy = mu;\n"
  "}\n";

static void
test_blocks (void)
{
  static const Expectation table[] = {
    { "functions {\n}\n", "functions", 0, "block" },
    { "data {\n}\n", "data", 0, "block" },
    { "transformed data {\n}\n", "transformed data", 0, "block" },
    { "parameters {\n}\n", "parameters", 0, "block" },
    { "transformed   parameters {\n}\n", "transformed   parameters", 0, "block" },
    { "model {\n}\n", "model", 0, "block" },
    { "model // the likelihood\n{\n}\n", "model", 0, "block" },
    { "model\n{\n}\n", "model", 0, "block" },
    { "generated quantities {\n}\n", "generated quantities", 0, "block" },
    /* not headers */
    { "modle {\n}\n", "modle", 0, NULL },
    { "  real model_scale = 1;\n", "model_scale", 0, NULL },
    { "  real data_copy = mu;\n", "data_copy", 0, NULL },
    { "generated_quantities {\n}\n", "generated_quantities", 0, NULL },
    /* data as the qualifier of a function argument is a keyword */
    { "  real half(data real x) { return x / 2; }\n", "data", 0, "keyword" },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_keywords (void)
{
  static const Expectation table[] = {
    { "for (n in 1:N) {\n}\n", "for", 0, "keyword" },
    { "for (n in 1:N) {\n}\n", "in", 0, "keyword" },
    { "while (x < 1) x += 1;\n", "while", 0, "keyword" },
    { "if (x) y = 1; else y = 2;\n", "if", 0, "keyword" },
    { "if (x) y = 1; else y = 2;\n", "else", 0, "keyword" },
    { "return x;\n", "return", 0, "keyword" },
    { "break;\n", "break", 0, "keyword" },
    { "continue;\n", "continue", 0, "keyword" },
    { "profile(\"lik\") {\n}\n", "profile", 0, "keyword" },
    { "print(x);\n", "print", 0, "keyword" },
    { "reject(\"bad \", x);\n", "reject", 0, "keyword" },
    { "fatal_error(\"bad\");\n", "fatal_error", 0, "keyword" },
    { "target += normal_lpdf(y | 0, 1);\n", "target", 0, "target" },
    { "real lp = target();\n", "target", 0, "target" },
    { "y ~ normal(0, 1) T[0, ];\n", "T", 0, "keyword" },
    { "jacobian += log(x);\n", "jacobian", 0, "keyword" },
    { "repeat until then true false var\n", "repeat", 0, "reserved" },
    { "repeat until then true false var\n", "until", 0, "reserved" },
    { "repeat until then true false var\n", "then", 0, "reserved" },
    { "repeat until then true false var\n", "true", 0, "reserved" },
    { "repeat until then true false var\n", "false", 0, "reserved" },
    { "repeat until then true false var\n", "var", 0, "reserved" },
    /* names that only contain or resemble keywords stay plain */
    { "real iffy = format + fortune;\n", "iffy", 0, NULL },
    { "real iffy = format + fortune;\n", "format", 0, NULL },
    { "real iffy = format + fortune;\n", "fortune", 0, NULL },
    { "real T = 1;\n", "T", 0, NULL },
    { "real jacobian = 1;\n", "jacobian", 0, NULL },
    { "real target_mean = 1;\n", "target_mean", 0, NULL },
    { "real printer = 1;\n", "printer", 0, NULL },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_types (void)
{
  static const Expectation table[] = {
    { "int N;\n", "int", 0, "type" },
    { "real x;\n", "real", 0, "type" },
    { "complex z;\n", "complex", 0, "type" },
    { "vector[N] v;\n", "vector", 0, "type" },
    { "row_vector[N] r;\n", "row_vector", 0, "type" },
    { "matrix[N, K] X;\n", "matrix", 0, "type" },
    { "complex_vector[N] cv;\n", "complex_vector", 0, "type" },
    { "complex_row_vector[N] cr;\n", "complex_row_vector", 0, "type" },
    { "complex_matrix[N, N] cm;\n", "complex_matrix", 0, "type" },
    { "simplex[K] theta;\n", "simplex", 0, "type" },
    { "unit_vector[K] u;\n", "unit_vector", 0, "type" },
    { "sum_to_zero_vector[K] z;\n", "sum_to_zero_vector", 0, "type" },
    { "sum_to_zero_matrix[K, J] Z;\n", "sum_to_zero_matrix", 0, "type" },
    { "ordered[K] c;\n", "ordered", 0, "type" },
    { "positive_ordered[K] p;\n", "positive_ordered", 0, "type" },
    { "cholesky_factor_corr[K] L;\n", "cholesky_factor_corr", 0, "type" },
    { "cholesky_factor_cov[K] L;\n", "cholesky_factor_cov", 0, "type" },
    { "corr_matrix[K] Omega;\n", "corr_matrix", 0, "type" },
    { "cov_matrix[K] Sigma;\n", "cov_matrix", 0, "type" },
    { "column_stochastic_matrix[K, K] P;\n", "column_stochastic_matrix", 0, "type" },
    { "row_stochastic_matrix[K, K] Q;\n", "row_stochastic_matrix", 0, "type" },
    { "array[N] int y;\n", "array", 0, "type" },
    { "array[N] int y;\n", "int", 0, "type" },
    { "tuple(real, vector[2]) t;\n", "tuple", 0, "type" },
    { "tuple(real, vector[2]) t;\n", "vector", 0, "type" },
    { "void f();\n", "void", 0, "type" },
    /* names built on type names are identifiers */
    { "real vector_length = intercept;\n", "vector_length", 0, NULL },
    { "real vector_length = intercept;\n", "intercept", 0, NULL },
    { "real x_real = 1;\n", "x_real", 0, NULL },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_constraints (void)
{
  static const Expectation table[] = {
    { "real<lower=0, upper=1> p;\n", "lower", 0, "constraint" },
    { "real<lower=0, upper=1> p;\n", "upper", 0, "constraint" },
    { "vector<offset=mu, multiplier=tau>[J] theta;\n", "offset", 0, "constraint" },
    { "vector<offset=mu, multiplier=tau>[J] theta;\n", "multiplier", 0, "constraint" },
    { "vector<lower = -1>[J] theta;\n", "lower", 0, "constraint" },
    { "real<lower=0, upper=1> p;\n", "<", 0, "operator" },
    /* constraint words that are not constraints */
    { "real lower_tail = 1;\n", "lower_tail", 0, NULL },
    { "real x = lower_bound_jacobian(y, 0);\n", "lower_bound_jacobian", 0, "function" },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_distributions (void)
{
  static const Expectation table[] = {
    { "y ~ normal(mu, sigma);\n", "normal", 0, "distribution" },
    { "y ~ normal(mu, sigma);\n", "~", 0, "operator" },
    { "y ~ normal(mu, sigma);\n", "mu", 0, NULL },
    { "y~student_t(3, 0, 1);\n", "student_t", 0, "distribution" },
    { "y ~ beta(a, b);\n", "beta", 0, "distribution" },
    { "theta ~ lkj_corr_cholesky(2);\n", "lkj_corr_cholesky", 0, "distribution" },
    { "y ~ poisson_log_glm(X, alpha, beta);\n", "poisson_log_glm", 0, "distribution" },
    { "y ~ my_mixture(theta);\n", "my_mixture", 0, "distribution" },
    { "target += normal_lpdf(y | mu, sigma);\n", "normal_lpdf", 0, "distribution" },
    { "target += normal_lupdf(y | mu, sigma);\n", "normal_lupdf", 0, "distribution" },
    { "target += poisson_log_lpmf(y | eta);\n", "poisson_log_lpmf", 0, "distribution" },
    { "target += poisson_log_lupmf(y | eta);\n", "poisson_log_lupmf", 0, "distribution" },
    { "target += exponential_lccdf(c | lambda);\n", "exponential_lccdf", 0, "distribution" },
    { "target += weibull_lcdf(c | a, s);\n", "weibull_lcdf", 0, "distribution" },
    { "real p = gamma_cdf(x | a, b);\n", "gamma_cdf", 0, "distribution" },
    { "int k = bernoulli_logit_rng(eta);\n", "bernoulli_logit_rng", 0, "distribution" },
    { "vector[K] z = multi_normal_cholesky_rng(mu, L);\n", "multi_normal_cholesky_rng", 0,
      "distribution" },
    /* a known family with a suffix that no function has */
    { "real q = normal_quantile(p);\n", "normal_quantile", 0, NULL },
    /* a user-defined density is not a built-in one */
    { "target += my_mixture_lpdf(y | theta);\n", "my_mixture_lpdf", 0, NULL },
    /* beta outside a distribution statement is the beta function */
    { "real b = beta(a, c);\n", "beta", 0, "function" },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_functions (void)
{
  static const Expectation table[] = {
    { "real a = exp(x);\n", "exp", 0, "function" },
    { "real a = log1p(x);\n", "log1p", 0, "function" },
    { "real a = inv_logit (x);\n", "inv_logit", 0, "function" },
    { "matrix[K, K] L = cholesky_decompose(S);\n", "cholesky_decompose", 0, "function" },
    { "real s = log_sum_exp(lp);\n", "log_sum_exp", 0, "function" },
    { "vector[N] r = rep_vector(0, N);\n", "rep_vector", 0, "function" },
    { "real m = mean(x);\n", "mean", 0, "function" },
    { "real p = pi();\n", "pi", 0, "constant" },
    { "real big = positive_infinity();\n", "positive_infinity", 0, "constant" },
    { "real l = log10(x);\n", "log10", 0, "function" },
    { "real l = log10();\n", "log10", 0, "constant" },
    /* not calls: variables named after functions */
    { "real mean = 0;\n", "mean", 0, NULL },
    { "real y = sd * z;\n", "sd", 0, NULL },
    { "real e = 2;\n", "e", 1, NULL },
    /* calls of user-defined functions */
    { "real h = half(x);\n", "half", 0, NULL },
    { "real h = exp_of(x);\n", "exp_of", 0, NULL },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_numbers (void)
{
  static const Expectation table[] = {
    { "int n = 0;\n", "0", 0, "decimal" },
    { "int n = 1_000;\n", "1_000", 0, "decimal" },
    { "int n = 1_000;\n", ";", 0, NULL },
    { "real x = 2.5e-3;\n", "2.5e-3", 0, "real" },
    { "real x = 2.5E+3;\n", "2.5E+3", 0, "real" },
    { "real x = .5;\n", ".5", 0, "real" },
    { "real x = 3.;\n", "3.", 0, "real" },
    { "real x = 1e10;\n", "1e10", 0, "real" },
    { "real x = 1_000.000_1;\n", "1_000.000_1", 0, "real" },
    { "complex z = 2i;\n", "2i", 0, "imaginary" },
    { "complex z = 3.5e2i;\n", "3.5e2i", 0, "imaginary" },
    { "complex z = 1 + .25i;\n", ".25i", 0, "imaginary" },
    { "complex z = 1 + .25i;\n", "1", 0, "decimal" },
    { "real x = -1.5;\n", "-", 0, "operator" },
    { "real x = -1.5;\n", "1.5", 0, "real" },
    /* digits inside names and tuple indices are not numbers */
    { "real x2 = y.1 + b_1;\n", "x2", 0, NULL },
    { "real x2 = y.1 + b_1;\n", "y.1", 0, NULL },
    { "real x2 = y.1 + b_1;\n", "b_1", 0, NULL },
    { "real x = t.1.2;\n", ".1.2", 0, NULL },
    { "real i = 2;\n", "i", 0, NULL },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_comments (void)
{
  static const Expectation table[] = {
    { "real x; // x is 1.5 ~ normal for real\n", "// x is 1.5 ~ normal for real", 0, "comment" },
    { "real x; // x\nreal y;\n", "real", 1, "type" },
    { "/* a\n   1_000 and data {\n*/ real x;\n", "1_000 and data {", 0, "comment" },
    { "/* a\n   1_000 and data {\n*/ real x;\n", "*/", 0, "comment" },
    { "/* a\n   1_000 and data {\n*/ real x;\n", "real", 0, "type" },
    { "/* one */ int n = 1; /* two */\n", "int", 0, "type" },
    { "/* one */ int n = 1; /* two */\n", "1", 0, "decimal" },
    { "# old style comment with real 2\n", "# old style comment with real 2", 0, "comment" },
    { "  # indented\nreal x;\n", "real", 0, "type" },
  };
  g_autoptr(GtkSourceBuffer) buffer = highlight ("real x; // note\nreal y; /* b */\n", probe_scheme);
  GtkTextIter iter;

  check_expectations (table, G_N_ELEMENTS (table));

  /* The editor relies on the comment context class, e.g. to skip spell
   * checking and bracket matching inside comments. */
  gtk_text_buffer_get_iter_at_line_offset (GTK_TEXT_BUFFER (buffer), &iter, 0, 12);
  g_assert_true (gtk_source_buffer_iter_has_context_class (buffer, &iter, "comment"));
  gtk_text_buffer_get_iter_at_line_offset (GTK_TEXT_BUFFER (buffer), &iter, 1, 11);
  g_assert_true (gtk_source_buffer_iter_has_context_class (buffer, &iter, "comment"));
  gtk_text_buffer_get_iter_at_line_offset (GTK_TEXT_BUFFER (buffer), &iter, 1, 1);
  g_assert_false (gtk_source_buffer_iter_has_context_class (buffer, &iter, "comment"));
}

static void
test_strings (void)
{
  static const Expectation table[] = {
    { "print(\"s\");\n", "\"s\"", 0, "string" },
    { "print(\"for 1.5 // not a comment\", x);\n", "\"for 1.5 // not a comment\"", 0, "string" },
    { "print(\"for 1.5 // not a comment\", x);\n", "x", 0, NULL },
    { "print(\"a\", 2, \"b\");\n", "2", 0, "decimal" },
    { "print(\"a\", 2, \"b\");\n", "\"b\"", 0, "string" },
  };
  g_autoptr(GtkSourceBuffer) buffer = highlight ("print(\"abc\", x);\n", probe_scheme);
  GtkTextIter iter;

  check_expectations (table, G_N_ELEMENTS (table));

  gtk_text_buffer_get_iter_at_offset (GTK_TEXT_BUFFER (buffer), &iter, 8);
  g_assert_true (gtk_source_buffer_iter_has_context_class (buffer, &iter, "string"));
  gtk_text_buffer_get_iter_at_offset (GTK_TEXT_BUFFER (buffer), &iter, 13);
  g_assert_false (gtk_source_buffer_iter_has_context_class (buffer, &iter, "string"));
}

static void
test_include (void)
{
  static const Expectation table[] = {
    { "#include \"a.stan\"\n", "#include", 0, "preprocessor" },
    { "#include \"a.stan\"\n", "\"a.stan\"", 0, "included-file" },
    { "#include <lib/b.stanfunctions>\n", "<lib/b.stanfunctions>", 0, "included-file" },
    { "  #include c.stan\nreal x;\n", "c.stan", 0, "included-file" },
    { "  #include c.stan\nreal x;\n", "real", 0, "type" },
    { "functions {\n#include \"gp.stanfunctions\"\n}\n", "#include", 0, "preprocessor" },
    /* any other # starts the old-style comment */
    { "#included files\n", "#included files", 0, "comment" },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_annotations (void)
{
  static const Expectation table[] = {
    { "@gpu vector[N] y;\n", "@gpu", 0, "annotation" },
    { "@gpu vector[N] y;\n", "vector", 0, "type" },
    { "@silent real x;\n", "@silent", 0, "annotation" },
    { "@gpu vector[N] y;\n", "y", 0, NULL },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

static void
test_operators (void)
{
  static const Expectation table[] = {
    { "x += a .* b ./ c;\n", "+=", 0, "operator" },
    { "x += a .* b ./ c;\n", ".*", 0, "operator" },
    { "x += a .* b ./ c;\n", "./", 0, "operator" },
    { "x .*= b;\n", ".*=", 0, "operator" },
    { "int k = n %/% 2;\n", "%/%", 0, "operator" },
    { "row_vector[N] r = v';\n", "'", 0, "operator" },
    { "if (a && !b || c != d) y = a ? b : c;\n", "&&", 0, "operator" },
    { "if (a && !b || c != d) y = a ? b : c;\n", "||", 0, "operator" },
    { "if (a && !b || c != d) y = a ? b : c;\n", "!=", 0, "operator" },
    { "if (a && !b || c != d) y = a ? b : c;\n", "?", 0, "operator" },
    { "x = A \\ b;\n", "\\", 0, "operator" },
    { "x = a ^ 2;\n", "^", 0, "operator" },
    { "x = a .^ 2;\n", ".^", 0, "operator" },
    { "x = f(a) ;\n", "(", 0, NULL },
    { "x = f(a) ;\n", ";", 0, NULL },
  };

  check_expectations (table, G_N_ELEMENTS (table));
}

/* A whole model: each bundled scheme paints the pieces that matter. */
static void
test_schemes_colour_model (void)
{
  static const char * const schemes[] = { "Adwaita", "Adwaita-dark", "classic", "classic-dark" };
  static const struct { const char *needle; guint nth; } pieces[] = {
    { "data", 0 }, { "int", 0 }, { "lower", 0 }, { "exp", 0 }, { "normal", 0 },
    { "~", 0 }, { "1", 0 }, { "// the likelihood", 0 }, { "return", 0 },
  };
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();

  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++)
    {
      GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (manager, schemes[s]);
      g_autoptr(GtkSourceBuffer) buffer = NULL;

      if (scheme == NULL)
        continue;
      buffer = highlight (model_text, scheme);
      for (guint p = 0; p < G_N_ELEMENTS (pieces); p++)
        {
          GtkTextIter iter;
          GSList *tags;
          gboolean styled = FALSE;
          g_autofree char *got = NULL;
          g_autofree char *want = g_strdup_printf ("%s in %s: styled", pieces[p].needle, schemes[s]);

          gtk_text_buffer_get_iter_at_offset (GTK_TEXT_BUFFER (buffer), &iter,
                                              needle_offset (model_text, pieces[p].needle,
                                                             pieces[p].nth));
          tags = gtk_text_iter_get_tags (&iter);
          for (GSList *l = tags; l != NULL; l = l->next)
            {
              gboolean foreground = FALSE, weight = FALSE, style = FALSE;

              g_object_get (l->data, "foreground-set", &foreground, "weight-set", &weight,
                            "style-set", &style, NULL);
              styled = styled || foreground || weight || style;
            }
          g_slist_free (tags);
          got = g_strdup_printf ("%s in %s: %s", pieces[p].needle, schemes[s],
                                 styled ? "styled" : "plain");
          g_assert_cmpstr (got, ==, want);
        }
    }
}

/* The bundled example models, read with an independent oracle: a block name
 * alone on a line before its brace is a header, and the name after every ~
 * is a distribution. */
static void
test_example_models (void)
{
  const char *examples_dir = g_getenv ("TILDE_EXAMPLES_DIR");
  static const char * const models[] = { "eight_schools.stan", "logistic_regression.stan",
                                         "poisson_glm.stan" };
  g_autoptr(GRegex) header = g_regex_new ("^(functions|data|transformed data|parameters|"
                                          "transformed parameters|model|generated quantities) \\{$",
                                          G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GRegex) tilde = g_regex_new ("~ ([a-z_]+)\\(", 0, 0, NULL);

  if (examples_dir == NULL)
    {
      g_test_skip ("TILDE_EXAMPLES_DIR is not set");
      return;
    }

  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autofree char *path = g_build_filename (examples_dir, models[m], NULL);
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GtkSourceBuffer) buffer = NULL;
      g_autoptr(GMatchInfo) match = NULL;
      guint headers = 0, statements = 0;

      g_file_get_contents (path, &text, NULL, &error);
      g_assert_no_error (error);
      buffer = highlight (text, probe_scheme);

      for (g_regex_match (header, text, 0, &match); g_match_info_matches (match);
           g_match_info_next (match, NULL))
        {
          int start, end;

          g_match_info_fetch_pos (match, 1, &start, &end);
          for (int k = start; k < end; k++)
            if (text[k] != ' ')
              g_assert_cmpstr (probe_style_at (buffer, (int) g_utf8_pointer_to_offset (text, text + k)),
                               ==, "stan:block");
          headers++;
        }
      g_clear_pointer (&match, g_match_info_free);

      for (g_regex_match (tilde, text, 0, &match); g_match_info_matches (match);
           g_match_info_next (match, NULL))
        {
          int start, end;

          g_match_info_fetch_pos (match, 1, &start, &end);
          for (int k = start; k < end; k++)
            g_assert_cmpstr (probe_style_at (buffer, (int) g_utf8_pointer_to_offset (text, text + k)),
                             ==, "stan:distribution");
          statements++;
        }

      g_assert_cmpuint (headers, >=, 3);
      g_assert_cmpuint (statements, >=, 3);
    }
}

static void
load_language (void)
{
  GtkSourceLanguageManager *system = gtk_source_language_manager_get_default ();
  const char *specs_dir = g_getenv ("TILDE_LANGUAGE_SPECS_DIR");

  if (specs_dir == NULL)
    specs_dir = TILDE_LANGUAGE_SPECS_DIR;

  /* Our directory first, then the system's for def.lang. */
  language_manager = gtk_source_language_manager_new ();
  gtk_source_language_manager_set_search_path (language_manager,
                                               gtk_source_language_manager_get_search_path (system));
  gtk_source_language_manager_prepend_search_path (language_manager, specs_dir);
  stan = gtk_source_language_manager_get_language (language_manager, "stan");
  g_assert_nonnull (stan);
  style_ids = gtk_source_language_get_style_ids (stan);
  g_assert_nonnull (style_ids);
}

int
main (int argc, char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  load_language ();
  load_probe_scheme ();

  g_test_add_func ("/language/stan/metadata", test_metadata);
  g_test_add_func ("/language/stan/style-fallbacks", test_style_fallbacks);
  g_test_add_func ("/language/stan/blocks", test_blocks);
  g_test_add_func ("/language/stan/keywords", test_keywords);
  g_test_add_func ("/language/stan/types", test_types);
  g_test_add_func ("/language/stan/constraints", test_constraints);
  g_test_add_func ("/language/stan/distributions", test_distributions);
  g_test_add_func ("/language/stan/functions", test_functions);
  g_test_add_func ("/language/stan/numbers", test_numbers);
  g_test_add_func ("/language/stan/comments", test_comments);
  g_test_add_func ("/language/stan/strings", test_strings);
  g_test_add_func ("/language/stan/include", test_include);
  g_test_add_func ("/language/stan/annotations", test_annotations);
  g_test_add_func ("/language/stan/operators", test_operators);
  g_test_add_func ("/language/stan/schemes-colour-model", test_schemes_colour_model);
  g_test_add_func ("/language/stan/example-models", test_example_models);

  status = g_test_run ();

  remove_probe_scheme ();
  g_clear_pointer (&style_ids, g_strfreev);
  g_clear_object (&language_manager);
  gtk_source_finalize ();
  return status;
}
