/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Data text checked against a model's data block: each kind of problem at
 * its place in the text (lines from 1, byte columns from 0, counted by
 * hand in the fixtures below) and in its words; data that fit give none;
 * a file of 2,000 values checks clean (its time is reported).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "io/data-check.h"
#include "tilde-diagnostic.h"
#include "tilde-frontend.h"

static const char *schools =
  "data {\n"
  "  int<lower=0> J;\n"
  "  array[J] real y;\n"
  "  array[J] real<lower=0> sigma;\n"
  "}\n"
  "parameters { real mu; }\n"
  "model { y ~ normal(mu, sigma); }\n";

/* The value of y is bytes 7 to 36 of line 3, that of sigma 11 to 42 of line 4. */
static const char *good =
  "{\n"
  "  \"J\": 8,\n"
  "  \"y\": [28, 8, -3, 7, -1, 1, 18, 12],\n"
  "  \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]\n"
  "}\n";

static TildeCheckResult *model_result;

static const TildeProgram *
model (void)
{
  return tilde_check_result_get_program (model_result);
}

static GPtrArray *
check (const char *text)
{
  return tilde_data_check (text, -1, "data.json", model ());
}

/* Replaces the first `old` in `text` by `new`. */
static char *
edited (const char *text, const char *old, const char *new)
{
  const char *at = strstr (text, old);
  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, new, at + strlen (old));
}

static void
expect (GPtrArray *diags, guint i, TildeSeverity severity, int bl, int bc, int el, int ec,
        const char *message)
{
  g_assert_cmpuint (i, <, diags->len);
  const TildeDiagnostic *d = g_ptr_array_index (diags, i);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_DATA);
  g_assert_cmpint (d->severity, ==, severity);
  g_assert_cmpstr (d->message, ==, message);
  g_assert_cmpstr (d->file, ==, "data.json");
  g_assert_cmpint (d->begin_line, ==, bl);
  g_assert_cmpint (d->begin_column, ==, bc);
  g_assert_cmpint (d->end_line, ==, el);
  g_assert_cmpint (d->end_column, ==, ec);
}

static void
test_valid (void)
{
  g_autoptr (GPtrArray) diags = check (good);
  g_assert_cmpuint (diags->len, ==, 0);
  /* a key written with an escape is the same name */
  g_autofree char *escaped = edited (good, "\"J\"", "\"\\u004a\"");
  g_autoptr (GPtrArray) again = check (escaped);
  g_assert_cmpuint (again->len, ==, 0);
}

static void
test_wrong_size (void)
{
  /* y loses its last value: line 3 becomes `  "y": [28, 8, -3, 7, -1, 1, 18],` */
  g_autofree char *text = edited (good, ", 18, 12]", ", 18]");
  g_autoptr (GPtrArray) diags = check (text);
  g_assert_cmpuint (diags->len, ==, 1);
  expect (diags, 0, TILDE_SEVERITY_ERROR, 3, 7, 3, 32,
          "variable y: expected array[8] real, found an array of 7 values");
}

static void
test_size_disagrees_with_earlier_data (void)
{
  /* J = 3, but y and sigma have 8 values each */
  g_autofree char *text = edited (good, "\"J\": 8", "\"J\": 3");
  g_autoptr (GPtrArray) diags = check (text);
  g_assert_cmpuint (diags->len, ==, 2);
  expect (diags, 0, TILDE_SEVERITY_ERROR, 3, 7, 3, 36,
          "variable y: expected array[3] real, found an array of 8 values");
  expect (diags, 1, TILDE_SEVERITY_ERROR, 4, 11, 4, 42,
          "variable sigma: expected array[3] real, found an array of 8 values");
}

static void
test_wrong_type (void)
{
  /* J is not an int; the sizes of y and sigma cannot be known, so only J
   * is reported */
  g_autofree char *text = edited (good, "\"J\": 8", "\"J\": 8.5");
  g_autoptr (GPtrArray) diags = check (text);
  g_assert_cmpuint (diags->len, ==, 1);
  expect (diags, 0, TILDE_SEVERITY_ERROR, 2, 7, 2, 10, "variable J: expected int, found the real 8.5");

  g_autofree char *text2 = edited (good, "[15, 10,", "[15, \"ten\",");
  g_autoptr (GPtrArray) diags2 = check (text2);
  g_assert_cmpuint (diags2->len, ==, 1);
  expect (diags2, 0, TILDE_SEVERITY_ERROR, 4, 11, 4, 45,
          "variable sigma[2]: expected real, found the string \"ten\"");
}

static void
test_constraint (void)
{
  g_autofree char *text = edited (good, "[15, 10,", "[15, -10,");
  g_autoptr (GPtrArray) diags = check (text);
  g_assert_cmpuint (diags->len, ==, 1);
  expect (diags, 0, TILDE_SEVERITY_ERROR, 4, 11, 4, 43,
          "sigma[2] is -10, but must be greater than or equal to 0");
}

static void
test_missing (void)
{
  const char *text =
    "{\n"
    "  \"J\": 8,\n"
    "  \"y\": [28, 8, -3, 7, -1, 1, 18, 12]\n"
    "}\n";
  g_autoptr (GPtrArray) diags = check (text);
  g_assert_cmpuint (diags->len, ==, 1);
  /* at the closing brace, where it belongs */
  expect (diags, 0, TILDE_SEVERITY_ERROR, 4, 0, 4, 1,
          "variable sigma not found in the data (declared as array[J] real<lower=0>)");

  /* Blank text: every variable is missing, and there is nowhere to put it. */
  g_autoptr (GPtrArray) blank = check ("\n  \n");
  g_assert_cmpuint (blank->len, ==, 3);
  expect (blank, 0, TILDE_SEVERITY_ERROR, 0, 0, 0, 0,
          "variable J not found in the data (declared as int<lower=0>)");
  expect (blank, 2, TILDE_SEVERITY_ERROR, 0, 0, 0, 0,
          "variable sigma not found in the data (declared as array[J] real<lower=0>)");
}

static void
test_extra_and_duplicate (void)
{
  /* line 2: `  "tau": 1, "J": 8,` */
  g_autofree char *text = edited (good, "\"J\": 8,", "\"tau\": 1, \"J\": 8,");
  g_autoptr (GPtrArray) diags = check (text);
  g_assert_cmpuint (diags->len, ==, 1);
  expect (diags, 0, TILDE_SEVERITY_WARNING, 2, 2, 2, 7,
          "variable tau is not declared in the model's data block; it is ignored");

  /* J twice: the first does not count (json-glib keeps the last) */
  g_autofree char *twice = edited (good, "\"J\": 8,", "\"J\": 3, \"J\": 8,");
  g_autoptr (GPtrArray) diags2 = check (twice);
  g_assert_cmpuint (diags2->len, ==, 1);
  expect (diags2, 0, TILDE_SEVERITY_WARNING, 2, 2, 2, 5,
          "variable J appears more than once; only its last value is read");
}

static void
test_syntax_errors (void)
{
  /* A missing comma: json-glib names the 18 before it; the place is the 12. */
  g_autofree char *comma = edited (good, "18, 12", "18 12");
  g_autoptr (GPtrArray) d1 = check (comma);
  g_assert_cmpuint (d1->len, ==, 1);
  expect (d1, 0, TILDE_SEVERITY_ERROR, 3, 32, 3, 34, "expected ',' or ']', found the number 12");

  g_autofree char *trailing = edited (good, "10, 18]", "10, 18,]");
  g_autoptr (GPtrArray) d2 = check (trailing);
  expect (d2, 0, TILDE_SEVERITY_ERROR, 4, 41, 4, 42, "a comma before ']' is not allowed in JSON");

  g_autofree char *nan = edited (good, "-1, 1", "NaN, 1");
  g_autoptr (GPtrArray) d3 = check (nan);
  expect (d3, 0, TILDE_SEVERITY_ERROR, 3, 22, 3, 25, "NaN is written as a string in JSON data: \"NaN\"");

  g_autoptr (GPtrArray) d4 = check ("{\n  \"J\": 8");
  expect (d4, 0, TILDE_SEVERITY_ERROR, 2, 8, 2, 8, "expected ',' or '}', found the end of the data");

  g_autoptr (GPtrArray) d5 = check ("{\n  \"J: 8\n}\n");
  expect (d5, 0, TILDE_SEVERITY_ERROR, 2, 2, 2, 7, "the string is not closed");

  g_autoptr (GPtrArray) d6 = check ("{\"J\" 8}");
  expect (d6, 0, TILDE_SEVERITY_ERROR, 1, 5, 1, 6, "expected ':' after the name, found the number 8");

  g_autoptr (GPtrArray) d7 = check ("{\"y\": [1, 2.5.3]}");
  expect (d7, 0, TILDE_SEVERITY_ERROR, 1, 10, 1, 15, "2.5.3 is not a number");

  g_autoptr (GPtrArray) d8 = check ("{\"J\": 8} x");
  expect (d8, 0, TILDE_SEVERITY_ERROR, 1, 9, 1, 10, "expected the end of the data, found 'x'");

  /* A second object, which json-glib would read in place of the first. */
  g_autoptr (GPtrArray) d10 = check ("{\"J\": 8}\n{\"J\": 9}\n");
  g_assert_cmpuint (d10->len, ==, 1);
  expect (d10, 0, TILDE_SEVERITY_ERROR, 2, 0, 2, 1, "expected the end of the data, found '{'");

  /* What only the reader finds is placed by its byte column, whatever
   * characters of several bytes come before it on the line. */
  g_autoptr (GPtrArray) d11 = check ("{\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\": [1,2], \"x\": \"a\xff\"}");
  g_assert_cmpuint (d11->len, ==, 1);
  expect (d11, 0, TILDE_SEVERITY_ERROR, 1, 27, 1, 31, "the data is not UTF-8 text");

  /* JSON's words are lower case. */
  g_autoptr (GPtrArray) d12 = check ("{\"J\": NULL}");
  expect (d12, 0, TILDE_SEVERITY_ERROR, 1, 6, 1, 10, "expected a value, found 'NULL'");

  /* Not an object: json-data's words, over the whole value. */
  g_autoptr (GPtrArray) d9 = check ("[1, 2]\n");
  g_assert_cmpuint (d9->len, ==, 1);
  expect (d9, 0, TILDE_SEVERITY_ERROR, 1, 0, 1, 6,
          "JSON data must be an object whose members are variables");
}

static void
test_without_model (void)
{
  g_autoptr (GPtrArray) fine = tilde_data_check ("{\"anything\": [1, 2]}", -1, "data.json", NULL);
  g_assert_cmpuint (fine->len, ==, 0);
  g_autoptr (GPtrArray) broken = tilde_data_check ("{\"a\": [1 2]}", -1, "data.json", NULL);
  g_assert_cmpuint (broken->len, ==, 1);
}

static void
test_matrix_and_multiline (void)
{
  g_autoptr (TildeCheckResult) m =
    tilde_frontend_check_buffer ("m.stan", NULL,
                                 "data { int N; matrix[N, 3] X; simplex[3] p; }\n", -1, NULL);
  const char *text =
    "{\n"
    "  \"N\": 2,\n"
    "  \"X\": [\n"
    "    [1, 2, 3],\n"
    "    [4, 5]\n"
    "  ],\n"
    "  \"p\": [0.5, 0.25, 0.5]\n"
    "}\n";
  g_autoptr (GPtrArray) diags = tilde_data_check (text, -1, "data.json",
                                                  tilde_check_result_get_program (m));
  g_assert_cmpuint (diags->len, ==, 2);
  /* the whole value, over its four lines */
  expect (diags, 0, TILDE_SEVERITY_ERROR, 3, 7, 6, 3,
          "variable X[2]: expected row_vector[3], found an array of 2 values");
  expect (diags, 1, TILDE_SEVERITY_ERROR, 7, 7, 7, 23,
          "p is not a valid simplex. sum(p) = 1.25, but should be 1");
}

static void
test_two_thousand_values (void)
{
  g_autoptr (TildeCheckResult) m =
    tilde_frontend_check_buffer ("m.stan", NULL,
                                 "data {\n  int<lower=0> N;\n  vector[N] x;\n"
                                 "  array[N] int<lower=0> k;\n}\n"
                                 "parameters { real mu; }\nmodel { x ~ normal(mu, 1); }\n",
                                 -1, NULL);
  GString *text = g_string_new ("{\n  \"N\": 1000,\n  \"x\": [");
  gint64 best = G_MAXINT64;

  for (int i = 0; i < 1000; i++)
    g_string_append_printf (text, "%s%.6f", i ? ", " : "", g_random_double_range (-3, 3));
  g_string_append (text, "],\n  \"k\": [");
  for (int i = 0; i < 1000; i++)
    g_string_append_printf (text, "%s%d", i ? ", " : "", g_random_int_range (0, 20));
  g_string_append (text, "]\n}\n");

  for (int run = 0; run < 5; run++)
    {
      gint64 start = g_get_monotonic_time ();
      g_autoptr (GPtrArray) diags = tilde_data_check (text->str, (gssize) text->len, "data.json",
                                                      tilde_check_result_get_program (m));
      best = MIN (best, g_get_monotonic_time () - start);
      g_assert_cmpuint (diags->len, ==, 0);
    }
  g_test_message ("2,000 values (%" G_GSIZE_FORMAT " bytes) checked in %.2f ms", text->len,
                  best / 1000.0);
  /* The time is reported, not asserted: bench/ is where speed is judged. */
  g_string_free (text, TRUE);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  model_result = tilde_frontend_check_buffer ("schools.stan", NULL, schools, -1, NULL);
  g_assert_false (tilde_check_result_has_errors (model_result));
  g_test_add_func ("/io/data-check/valid", test_valid);
  g_test_add_func ("/io/data-check/wrong-size", test_wrong_size);
  g_test_add_func ("/io/data-check/size-disagrees-with-earlier-data",
                   test_size_disagrees_with_earlier_data);
  g_test_add_func ("/io/data-check/wrong-type", test_wrong_type);
  g_test_add_func ("/io/data-check/constraint", test_constraint);
  g_test_add_func ("/io/data-check/missing", test_missing);
  g_test_add_func ("/io/data-check/extra-and-duplicate", test_extra_and_duplicate);
  g_test_add_func ("/io/data-check/syntax-errors", test_syntax_errors);
  g_test_add_func ("/io/data-check/without-model", test_without_model);
  g_test_add_func ("/io/data-check/matrix-and-multiline", test_matrix_and_multiline);
  g_test_add_func ("/io/data-check/two-thousand-values",
                   test_two_thousand_values);
  status = g_test_run ();
  tilde_check_result_unref (model_result);
  return status;
}
