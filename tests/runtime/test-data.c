/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CmdStan JSON data: every type a data block can declare, the special
 * values, empty containers, and each way data can fail to fit a model,
 * reported with the variable, what was expected and what was found.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <unistd.h>

#include "io/json-data.h"
#include "runtime-test-util.h"

static TildeJsonData *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  TildeJsonData *d = tilde_json_data_new_from_string (text, -1, &error);
  g_assert_no_error (error);
  return d;
}

static TildeShape *
shape (TildeArena *a, TildeValueKind k, gint32 r, gint32 c)
{
  return tilde_shape_new (a, k, r, c);
}

static TildeValue
read_ok (TildeJsonData *d, const char *name, const TildeShape *s, TildeArena *a)
{
  TildeValue v;
  g_autofree char *problem = NULL;
  if (!tilde_json_data_read (d, name, s, a, &v, &problem))
    g_error ("%s: %s", name, problem);
  return v;
}

static char *
read_fails (TildeJsonData *d, const char *name, const TildeShape *s, TildeArena *a)
{
  TildeValue v;
  char *problem = NULL;
  g_assert_false (tilde_json_data_read (d, name, s, a, &v, &problem));
  g_assert_nonnull (problem);
  return problem;
}

static void
test_types (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (
    "{\"N\": 3, \"x\": 2.5, \"i\": 4.0, \"v\": [1, 2.5, -3], \"rv\": [0.5, 1],"
    " \"M\": [[1, 2, 3], [4, 5, 6]], \"av\": [[1, 2], [3, 4], [5, 6]],"
    " \"am\": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], \"a2\": [[1, 2, 3], [4, 5, 6]],"
    " \"z\": [1.5, -2], \"zv\": [[1, 2], [3, 4]],"
    " \"t\": {\"1\": 3, \"2\": [1.5, 2.5]}, \"at\": [{\"1\": 1, \"2\": 0.5}, {\"1\": 2, \"2\": 1.5}]}");
  g_assert_cmpint (read_ok (d, "N", shape (a, TILDE_VALUE_INT, 1, 1), a).u.i, ==, 3);
  g_assert_cmpfloat (read_ok (d, "x", shape (a, TILDE_VALUE_REAL, 1, 1), a).u.r, ==, 2.5);
  /* an int written as 4.0 is still an int */
  g_assert_cmpint (read_ok (d, "i", shape (a, TILDE_VALUE_INT, 1, 1), a).u.i, ==, 4);
  /* ints are reals too */
  g_assert_cmpfloat (read_ok (d, "N", shape (a, TILDE_VALUE_REAL, 1, 1), a).u.r, ==, 3);
  TildeValue v = read_ok (d, "v", shape (a, TILDE_VALUE_VECTOR, 3, 1), a);
  g_assert_cmpfloat (v.u.d[2], ==, -3);
  v = read_ok (d, "rv", shape (a, TILDE_VALUE_ROW_VECTOR, 1, 2), a);
  g_assert_cmpint (v.cols, ==, 2);
  /* matrices are arrays of rows, stored column-major */
  v = read_ok (d, "M", shape (a, TILDE_VALUE_MATRIX, 2, 3), a);
  g_assert_cmpfloat (v.u.d[1], ==, 4);
  g_assert_cmpfloat (v.u.d[2], ==, 2);
  v = read_ok (d, "av", tilde_shape_array (a, shape (a, TILDE_VALUE_VECTOR, 2, 1), 3), a);
  g_assert_cmpfloat (v.u.elems[2].u.d[1], ==, 6);
  v = read_ok (d, "am", tilde_shape_array (a, shape (a, TILDE_VALUE_MATRIX, 2, 2), 2), a);
  g_assert_cmpfloat (v.u.elems[1].u.d[2], ==, 6);
  v = read_ok (d, "a2", tilde_shape_array (a, tilde_shape_array (a, shape (a, TILDE_VALUE_INT, 1, 1), 3), 2), a);
  g_assert_cmpint (v.u.elems[1].u.iv[0], ==, 4);
  v = read_ok (d, "z", shape (a, TILDE_VALUE_COMPLEX, 1, 1), a);
  g_assert_cmpfloat (v.u.z[0], ==, 1.5);
  g_assert_cmpfloat (v.u.z[1], ==, -2);
  v = read_ok (d, "zv", shape (a, TILDE_VALUE_COMPLEX_VECTOR, 2, 1), a);
  g_assert_cmpfloat (v.u.d[3], ==, 4);
  TildeShape *tup = shape (a, TILDE_VALUE_TUPLE, 1, 1);
  const TildeShape *members[2] = { shape (a, TILDE_VALUE_INT, 1, 1), shape (a, TILDE_VALUE_VECTOR, 2, 1) };
  tup->n_members = 2;
  tup->members = members;
  v = read_ok (d, "t", tup, a);
  g_assert_cmpint (v.u.elems[0].u.i, ==, 3);
  g_assert_cmpfloat (v.u.elems[1].u.d[1], ==, 2.5);
  TildeShape *tup2 = shape (a, TILDE_VALUE_TUPLE, 1, 1);
  const TildeShape *m2[2] = { shape (a, TILDE_VALUE_INT, 1, 1), shape (a, TILDE_VALUE_REAL, 1, 1) };
  tup2->n_members = 2;
  tup2->members = m2;
  v = read_ok (d, "at", tilde_shape_array (a, tup2, 2), a);
  g_assert_cmpfloat (v.u.elems[1].u.elems[1].u.r, ==, 1.5);
}

static void
test_special_values (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (
    "{\"y\": [\"inf\", \"-inf\", \"NaN\", \"+inf\", \"Infinity\", 1e308],"
    " \"e\": [], \"ev\": [], \"em\": [], \"ec\": [[], []], \"eav\": []}");
  TildeValue v = read_ok (d, "y", tilde_shape_array (a, shape (a, TILDE_VALUE_REAL, 1, 1), 6), a);
  g_assert_true (isinf (v.u.d[0]) && v.u.d[0] > 0);
  g_assert_true (isinf (v.u.d[1]) && v.u.d[1] < 0);
  g_assert_true (isnan (v.u.d[2]));
  g_assert_true (isinf (v.u.d[3]) && isinf (v.u.d[4]));
  g_assert_cmpint (read_ok (d, "e", tilde_shape_array (a, shape (a, TILDE_VALUE_INT, 1, 1), 0), a).rows, ==, 0);
  g_assert_cmpint (read_ok (d, "ev", shape (a, TILDE_VALUE_VECTOR, 0, 1), a).rows, ==, 0);
  g_assert_cmpint (read_ok (d, "em", shape (a, TILDE_VALUE_MATRIX, 0, 3), a).rows, ==, 0);
  g_assert_cmpint (read_ok (d, "ec", shape (a, TILDE_VALUE_MATRIX, 2, 0), a).cols, ==, 0);
  g_assert_cmpint (read_ok (d, "eav", tilde_shape_array (a, shape (a, TILDE_VALUE_VECTOR, 3, 1), 0), a).rows, ==, 0);
  /* an int cannot be infinite */
  g_autofree char *p = read_fails (d, "y", tilde_shape_array (a, shape (a, TILDE_VALUE_INT, 1, 1), 6), a);
  g_assert_cmpstr (p, ==, "variable y[1]: expected int, found the string \"inf\"");
}

static void
test_read_errors (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (
    "{\"N\": 2.5, \"y\": [1, 2, 3, 4, 5, 6, 7], \"X\": [[1, 2, 3], [4, 5]], \"s\": \"abc\","
    " \"w\": [1, \"x\"], \"t\": {\"1\": 1}}");
  char *p;
  p = read_fails (d, "N", shape (a, TILDE_VALUE_INT, 1, 1), a);
  g_assert_cmpstr (p, ==, "variable N: expected int, found the real 2.5");
  g_free (p);
  p = read_fails (d, "y", tilde_shape_array (a, shape (a, TILDE_VALUE_REAL, 1, 1), 8), a);
  g_assert_cmpstr (p, ==, "variable y: expected array[8] real, found an array of 7 values");
  g_free (p);
  p = read_fails (d, "X", shape (a, TILDE_VALUE_MATRIX, 2, 3), a);
  g_assert_cmpstr (p, ==, "variable X[2]: expected row_vector[3], found an array of 2 values");
  g_free (p);
  p = read_fails (d, "s", shape (a, TILDE_VALUE_VECTOR, 2, 1), a);
  g_assert_cmpstr (p, ==, "variable s: expected vector[2], found the string \"abc\"");
  g_free (p);
  p = read_fails (d, "w", shape (a, TILDE_VALUE_VECTOR, 2, 1), a);
  g_assert_cmpstr (p, ==, "variable w[2]: expected real, found the string \"x\"");
  g_free (p);
  p = read_fails (d, "missing", shape (a, TILDE_VALUE_VECTOR, 2, 1), a);
  g_assert_cmpstr (p, ==, "variable missing not found in the data (expected vector[2])");
  g_free (p);
  TildeShape *tup = shape (a, TILDE_VALUE_TUPLE, 1, 1);
  const TildeShape *members[2] = { shape (a, TILDE_VALUE_INT, 1, 1), shape (a, TILDE_VALUE_REAL, 1, 1) };
  tup->n_members = 2;
  tup->members = members;
  p = read_fails (d, "t", tup, a);
  g_assert_cmpstr (p, ==, "variable t: the tuple has no member \"2\"");
  g_free (p);
}

static void
test_bad_json (void)
{
  GError *error = NULL;
  g_assert_null (tilde_json_data_new_from_string ("{\"N\": ", -1, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (tilde_json_data_new_from_string ("[1, 2]", -1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* Two objects: json-glib alone would read the second and drop the first. */
  g_assert_null (tilde_json_data_new_from_string ("{\"N\": 1}\n  {\"N\": 2}", -1, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_assert_cmpstr (error->message, ==,
                   "<data>:2:3: Parse error: expected the end of the data, found '{'");
  g_clear_error (&error);

  /* A number json-glib reads, whose failure further on leaked what it read. */
  g_assert_null (tilde_json_data_new_from_string ("\n 4. [], \"EEE,", -1, &error));
  g_assert_cmpstr (error->message, ==, "<data>:2:2: Parse error: 4. is not a number");
  g_clear_error (&error);

  /* Blanks after the object are fine. */
  TildeJsonData *d = tilde_json_data_new_from_string ("{\"N\": 1}\n\n", -1, &error);
  g_assert_no_error (error);
  tilde_json_data_free (d);
}

/* The same from a file: the message names it. */
static void
test_two_objects_in_a_file (void)
{
  GError *error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("tilde-data-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, "{\"N\": 1} {\"N\": 2}\n", -1, &error));

  g_assert_null (tilde_json_data_new_from_file (path, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_autofree char *expected = g_strdup_printf (
    "%s:1:10: Parse error: expected the end of the data, found '{'", path);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);
  g_unlink (path);
}

/* ---- data checked against a model's data block ---- */

static const char *model =
  "data {\n"
  "  int<lower=0> N;\n"
  "  vector<lower=0>[N] sigma;\n"
  "  array[N] int<lower=0, upper=1> y;\n"
  "  simplex[3] p;\n"
  "}\n"
  "parameters { real mu; }\n"
  "model { mu ~ normal(0, 1); }\n";

static void
expect_data_error (const char *data, const char *fragment)
{
  g_autoptr (GPtrArray) diags = rt_test_prepare_errors (model, data);
  g_assert_cmpuint (diags->len, ==, 1);
  const TildeDiagnostic *d = g_ptr_array_index (diags, 0);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_DATA);
  g_assert_cmpint (d->severity, ==, TILDE_SEVERITY_ERROR);
  if (!strstr (d->message, fragment))
    g_error ("message \"%s\" lacks \"%s\"", d->message, fragment);
}

static void
test_model_data_errors (void)
{
  const char *good = "{\"N\": 2, \"sigma\": [1, 2], \"y\": [0, 1], \"p\": [0.2, 0.3, 0.5]}";
  g_autoptr (GPtrArray) none = rt_test_prepare_errors (model, good);
  g_assert_cmpuint (none->len, ==, 0);
  /* missing variable */
  expect_data_error ("{\"N\": 2, \"sigma\": [1, 2], \"p\": [0.2, 0.3, 0.5]}",
                     "variable y not found in the data (expected array[2] int)");
  /* sizes that disagree with N */
  expect_data_error ("{\"N\": 3, \"sigma\": [1, 2], \"y\": [0, 1, 1], \"p\": [0.2, 0.3, 0.5]}",
                     "variable sigma: expected vector[3], found an array of 2 values");
  /* wrong type */
  expect_data_error ("{\"N\": 2, \"sigma\": [1, 2], \"y\": [0, 0.5], \"p\": [0.2, 0.3, 0.5]}",
                     "variable y[2]: expected int, found the real 0.5");
  /* constraints */
  expect_data_error ("{\"N\": -1, \"sigma\": [], \"y\": [], \"p\": [0.2, 0.3, 0.5]}",
                     "N is -1, but must be greater than or equal to 0");
  expect_data_error ("{\"N\": 2, \"sigma\": [1, -2], \"y\": [0, 1], \"p\": [0.2, 0.3, 0.5]}",
                     "sigma[2] is -2, but must be greater than or equal to 0");
  expect_data_error ("{\"N\": 2, \"sigma\": [1, 2], \"y\": [0, 2], \"p\": [0.2, 0.3, 0.5]}",
                     "y[2] is 2, but must be less than or equal to 1");
  expect_data_error ("{\"N\": 2, \"sigma\": [1, 2], \"y\": [0, 1], \"p\": [0.2, 0.3, 0.6]}",
                     "p is not a valid simplex");
}

/* Every variable gets its own problem; those whose sizes need a variable
 * with a problem are not judged. */
static GPtrArray *
check_data (const char *data_json)
{
  g_autoptr (MirProgram) p = rt_test_mir_from_string (model);
  g_autoptr (TildeJsonData) data = parse (data_json);
  return tilde_model_check_data (p, data);
}

static void
expect_problem (GPtrArray *problems, guint i, TildeDataProblemKind kind, const char *name,
                const char *message)
{
  g_assert_cmpuint (i, <, problems->len);
  const TildeDataProblem *p = g_ptr_array_index (problems, i);
  g_assert_cmpint (p->kind, ==, kind);
  g_assert_cmpstr (p->name, ==, name);
  g_assert_cmpstr (p->message, ==, message);
}

static void
test_check_data (void)
{
  g_autoptr (GPtrArray) none = check_data ("{\"N\": 2, \"sigma\": [1, 2], \"y\": [0, 1], "
                                           "\"p\": [0.2, 0.3, 0.5], \"extra\": 1}");
  g_assert_cmpuint (none->len, ==, 0);

  g_autoptr (GPtrArray) three = check_data ("{\"N\": 2, \"sigma\": [1, -2], \"y\": [0, 1, 1], "
                                            "\"p\": [0.2, 0.3, 0.6]}");
  g_assert_cmpuint (three->len, ==, 3);
  expect_problem (three, 0, TILDE_DATA_PROBLEM_VALUE, "sigma",
                  "sigma[2] is -2, but must be greater than or equal to 0");
  expect_problem (three, 1, TILDE_DATA_PROBLEM_VALUE, "y",
                  "variable y: expected array[2] int, found an array of 3 values");
  expect_problem (three, 2, TILDE_DATA_PROBLEM_VALUE, "p",
                  "p is not a valid simplex. sum(p) = 1.1, but should be 1");

  /* Without N the sizes of sigma and y are unknown: only N is reported. */
  g_autoptr (GPtrArray) blocked = check_data ("{\"sigma\": [1], \"y\": [0], \"p\": [0.2, 0.3, 0.5]}");
  g_assert_cmpuint (blocked->len, ==, 1);
  expect_problem (blocked, 0, TILDE_DATA_PROBLEM_MISSING, "N",
                  "variable N not found in the data (expected int)");

  g_autoptr (GPtrArray) missing = check_data ("{\"N\": 1, \"sigma\": [1], \"p\": \"abc\"}");
  g_assert_cmpuint (missing->len, ==, 2);
  expect_problem (missing, 0, TILDE_DATA_PROBLEM_MISSING, "y",
                  "variable y not found in the data (expected array[1] int)");
  expect_problem (missing, 1, TILDE_DATA_PROBLEM_VALUE, "p",
                  "variable p: expected vector[3], found the string \"abc\"");

  /* A size typed half way is refused by the read, before any storage of
   * that size is made. */
  g_autoptr (GPtrArray) huge = check_data ("{\"N\": 1000000000, \"sigma\": [1], \"y\": [0], "
                                           "\"p\": [0.2, 0.3, 0.5]}");
  g_assert_cmpuint (huge->len, ==, 2);
  expect_problem (huge, 0, TILDE_DATA_PROBLEM_VALUE, "sigma",
                  "variable sigma: expected vector[1000000000], found an array of 1 values");

  /* Preparation reports them all too, the first being where it stopped. */
  g_autoptr (GPtrArray) diags = rt_test_prepare_errors (model, "{\"N\": 2, \"sigma\": [1, -2], "
                                                        "\"y\": [0, 1, 1], \"p\": [0.2, 0.3, 0.6]}");
  g_assert_cmpuint (diags->len, ==, 3);
  g_assert_cmpstr (((TildeDiagnostic *) g_ptr_array_index (diags, 0))->message, ==,
                   "sigma[2] is -2, but must be greater than or equal to 0");
  g_assert_cmpint (((TildeDiagnostic *) g_ptr_array_index (diags, 2))->kind, ==, TILDE_DIAG_DATA);
}

static void
test_huge_matrix_refused (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse ("{\"X\": [[1, 2], [3, 4]]}");
  /* Two rows of two: refused by their length, not by allocating 2 x 10^9. */
  g_autofree char *p = read_fails (d, "X", shape (a, TILDE_VALUE_MATRIX, 2, 1000000000), a);
  g_assert_cmpstr (p, ==, "variable X[1]: expected row_vector[1000000000], found an array of 2 values");
}


/* ---- the text read in place ---- */

/* A JSON number drawn from every form the grammar allows: a sign, 1 to 25
 * significant digits with leading zeros or not, a fraction or not, an
 * exponent from -340 to 340 or none. */
static void
append_random_number (GString *s, GRand *rand)
{
  if (g_rand_boolean (rand))
    g_string_append_c (s, '-');
  int digits = g_rand_int_range (rand, 1, 26);
  int point = g_rand_int_range (rand, 0, digits + 1);   /* digits before the point */
  if (point == 0)
    g_string_append_c (s, '0');
  for (int i = 0; i < digits; i++)
    {
      if (i == point && point > 0)
        g_string_append_c (s, '.');
      else if (i == 0 && point == 0)
        g_string_append_c (s, '.');
      int d = g_rand_int_range (rand, 0, 10);
      if (i == 0 && point > 0 && d == 0)
        d = 1;     /* no leading zero before the point */
      g_string_append_c (s, (char) ('0' + d));
    }
  if (g_rand_int_range (rand, 0, 3) > 0)
    g_string_append_printf (s, "%c%d", g_rand_boolean (rand) ? 'e' : 'E',
                            g_rand_int_range (rand, -340, 341));
}

/* Every number reads to strtod's double, bit for bit: the short cut for
 * short numbers, the long ones, the extremes, the underflows and
 * overflows. */
static void
test_numbers_as_strtod (void)
{
  static const char *edges[] = {
    "0", "-0", "0.0", "-0.0", "0e999", "1e22", "1e23", "-1e-22", "9007199254740992",
    "9007199254740993", "9007199254740993.0", "18014398509481985e-1", "123456789012345678e-5",
    "4.9406564584124654e-324", "2.4703282292062328e-324", "2.2250738585072011e-308",
    "1.7976931348623157e308", "1.7976931348623159e308", "1.8e308", "1e-400", "1e400",
    "0.1", "0.30000000000000004", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "99999999999999999999",
    "1000000000000000000000000.5", "7.0e-10", "100000000000000000000000e-22",
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (2026);
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    g_ptr_array_add (tokens, g_strdup (edges[i]));
  /* exponents and digits past any double's range: 10^100000 x 10^-1000000 is 0 */
  GString *huge = g_string_new ("1");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (huge, '0');
  g_ptr_array_add (tokens, g_strdup_printf ("%se-1000000", huge->str));
  g_ptr_array_add (tokens, g_strdup_printf ("0.%se1000010", huge->str));
  g_ptr_array_add (tokens, g_strdup ("1e-99999999999999999999"));
  g_ptr_array_add (tokens, g_strdup ("-1e99999999999999999999"));
  g_string_free (huge, TRUE);
  for (int i = 0; i < 200000; i++)
    {
      GString *t = g_string_new (NULL);
      append_random_number (t, rand);
      g_ptr_array_add (tokens, g_string_free (t, FALSE));
    }
  /* The hard cases: 17 to 19 digits next to, or on, the midpoint of two
   * neighbouring doubles, where a result rounded twice would be wrong. */
  for (int i = 0; i < 100000; i++)
    {
      double d = ldexp (g_rand_double_range (rand, 1, 2), g_rand_int_range (rand, -80, 80));
      long double mid = ((long double) d + (long double) nextafter (d, INFINITY)) / 2;
      g_ptr_array_add (tokens, g_strdup_printf ("%.*Le", g_rand_int_range (rand, 16, 19), mid));
    }
  GString *json = g_string_new ("{\"x\": [");
  for (guint i = 0; i < tokens->len; i++)
    g_string_append_printf (json, "%s%s", i ? ",\n" : "", (char *) tokens->pdata[i]);
  g_string_append (json, "]}");

  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (json->str);
  g_string_free (json, TRUE);
  TildeValue v = read_ok (d, "x", tilde_shape_array (a, shape (a, TILDE_VALUE_REAL, 1, 1), (gint32) tokens->len), a);
  for (guint i = 0; i < tokens->len; i++)
    {
      double expected = g_ascii_strtod (tokens->pdata[i], NULL);
      if (memcmp (&expected, &v.u.d[i], sizeof (double)) != 0)
        g_error ("%s read as %.17g, strtod gives %.17g", (char *) tokens->pdata[i], v.u.d[i], expected);
    }
}

/* Ints beyond 64 bits are reals, as in JavaScript; json-glib wrapped
 * them round (99999999999999999999 read as -1). */
static void
test_big_ints (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (
    "{\"big\": 99999999999999999999, \"max\": 9223372036854775807, \"min\": -9223372036854775808,"
    " \"wide\": 2147483648, \"edge\": -2147483648, \"point\": 2147483647.0}");
  g_assert_cmpfloat (read_ok (d, "big", shape (a, TILDE_VALUE_REAL, 1, 1), a).u.r, ==, 1e20);
  g_assert_cmpfloat (read_ok (d, "max", shape (a, TILDE_VALUE_REAL, 1, 1), a).u.r, ==, 9223372036854775807.0);
  g_assert_cmpint (read_ok (d, "edge", shape (a, TILDE_VALUE_INT, 1, 1), a).u.i, ==, G_MININT);
  g_assert_cmpint (read_ok (d, "point", shape (a, TILDE_VALUE_INT, 1, 1), a).u.i, ==, G_MAXINT);
  char *p = read_fails (d, "big", shape (a, TILDE_VALUE_INT, 1, 1), a);
  g_assert_cmpstr (p, ==, "variable big: expected int, found the real 1e+20");
  g_free (p);
  p = read_fails (d, "min", shape (a, TILDE_VALUE_INT, 1, 1), a);
  g_assert_cmpstr (p, ==, "variable min: the int -9223372036854775808 is out of the range of int");
  g_free (p);
  p = read_fails (d, "wide", shape (a, TILDE_VALUE_INT, 1, 1), a);
  g_assert_cmpstr (p, ==, "variable wide: the int 2147483648 is out of the range of int");
  g_free (p);
}

/* What json-glib took beyond JSON, taken still: escaped names, the last of
 * two members of one name, comments, single quotes; and the describing of
 * what is found. */
static void
test_names_comments_quotes (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (
    "/* data */ {\"\\u0078\": 1, \"y\": 1, \"y\": /* again */ [2, 3], 'q': 'NaN',"
    " \"t\": {\"2\": 5, \"1\": 4, \"1\": 6}, \"s\": \"\\ud83d\\ude00 \\ud83d \\\"x\\\"\","
    " \"long\": \"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\", \"o\": {}, \"n\": null,"
    " \"b\": true}");
  g_assert_true (tilde_json_data_has (d, "x"));
  g_assert_cmpint (read_ok (d, "x", shape (a, TILDE_VALUE_INT, 1, 1), a).u.i, ==, 1);
  TildeValue y = read_ok (d, "y", tilde_shape_array (a, shape (a, TILDE_VALUE_INT, 1, 1), 2), a);
  g_assert_cmpint (y.u.iv[1], ==, 3);
  g_assert_true (isnan (read_ok (d, "q", shape (a, TILDE_VALUE_REAL, 1, 1), a).u.r));
  TildeShape *tup = shape (a, TILDE_VALUE_TUPLE, 1, 1);
  const TildeShape *members[2] = { shape (a, TILDE_VALUE_INT, 1, 1), shape (a, TILDE_VALUE_INT, 1, 1) };
  tup->n_members = 2;
  tup->members = members;
  TildeValue t = read_ok (d, "t", tup, a);
  g_assert_cmpint (t.u.elems[0].u.i, ==, 6);
  g_assert_cmpint (t.u.elems[1].u.i, ==, 5);

  const TildeShape *real = shape (a, TILDE_VALUE_REAL, 1, 1);
  static const struct { const char *name, *message; } found[] = {
    { "s", "variable s: expected real, found the string \"\xf0\x9f\x98\x80 \xef\xbf\xbd \"x\"\"" },
    { "long", "variable long: expected real, found the string "
      "\"abcdefghijklmnopqrstuvwxyzabcdefghij…\"" },
    { "o", "variable o: expected real, found an object" },
    { "n", "variable n: expected real, found null" },
    { "b", "variable b: expected real, found a boolean" },
    { "t", "variable t: expected real, found an object" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (found); i++)
    {
      g_autofree char *p = read_fails (d, found[i].name, real, a);
      g_assert_cmpstr (p, ==, found[i].message);
    }
}

static void
expect_parse_error (const char *text, gssize len, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_assert_null (tilde_json_data_new_from_string (text, len, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_assert_cmpstr (error->message, ==, message);
}

/* Bytes that are not UTF-8, and nesting deeper than the check follows,
 * are errors with a place, not crashes. */
static void
test_not_text (void)
{
  expect_parse_error ("{\"é\": 1,\n \"x\": \"a\xff\"}", -1,
                      "<data>:2:9: Parse error: the data is not UTF-8 text");
  expect_parse_error ("{\"x\":\0 1}", 9, "<data>:1:6: Parse error: the data holds a zero byte");
  /* the first of a syntax error and a bad byte is named */
  expect_parse_error ("{\"x\": 01, \"y\": \"\xff\"}", -1, "<data>:1:7: Parse error: 01 is not a number");
  expect_parse_error ("{\"y\": \"\xff\", \"x\": 01}", -1, "<data>:1:8: Parse error: the data is not UTF-8 text");
  /* JSON's words are lower case */
  expect_parse_error ("{\"x\": True}", -1, "<data>:1:7: Parse error: expected a value, found 'True'");
  GString *deep = g_string_new ("{\"x\": ");
  for (int i = 0; i < 600; i++)
    g_string_append_c (deep, '[');
  for (int i = 0; i < 600; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  g_autoptr (GError) error = NULL;
  g_assert_null (tilde_json_data_new_from_string (deep->str, -1, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "the data nests deeper than 512 levels"));
  g_string_free (deep, TRUE);
}

/* Elements are read in the pass that counts them; a wrong length is still
 * what is reported where an element is also wrong, as when lengths were
 * checked first, and for a matrix every row's before any element. */
static void
test_lengths_before_elements (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse (
    "{\"v\": [1, \"x\", 3], \"w\": [1, \"x\"], \"M\": [[1, \"x\"], [3]], \"R\": [[1, 2], [3, 4], [5, 6]],"
    " \"A\": [[1, 2], [3, \"x\"], [5]], \"B\": [[1, 2], [3, \"x\"]], \"C\": [[1, 2], [3, \"x\", 5]],"
    " \"Z\": [[1, 2], [3]]}");
  static const struct { const char *name; TildeValueKind kind; gint32 rows, cols; const char *message; } cases[] = {
    { "v", TILDE_VALUE_VECTOR, 2, 1, "variable v: expected vector[2], found an array of 3 values" },
    { "v", TILDE_VALUE_VECTOR, 4, 1, "variable v: expected vector[4], found an array of 3 values" },
    { "v", TILDE_VALUE_VECTOR, 3, 1, "variable v[2]: expected real, found the string \"x\"" },
    { "w", TILDE_VALUE_ROW_VECTOR, 1, 2, "variable w[2]: expected real, found the string \"x\"" },
    { "M", TILDE_VALUE_MATRIX, 2, 2, "variable M[2]: expected row_vector[2], found an array of 1 values" },
    { "R", TILDE_VALUE_MATRIX, 2, 2, "variable R: expected matrix[2, 2], found an array of 3 values" },
    { "R", TILDE_VALUE_MATRIX, 4, 2, "variable R: expected matrix[4, 2], found an array of 3 values" },
    { "A", TILDE_VALUE_MATRIX, 3, 2, "variable A[3]: expected row_vector[2], found an array of 1 values" },
    { "B", TILDE_VALUE_MATRIX, 2, 2, "variable B[2][2]: expected real, found the string \"x\"" },
    { "C", TILDE_VALUE_MATRIX, 2, 2, "variable C[2]: expected row_vector[2], found an array of 3 values" },
    { "Z", TILDE_VALUE_COMPLEX_VECTOR, 2, 1, "variable Z[2]: expected complex, found an array of 1 values" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p = read_fails (d, cases[i].name, shape (a, cases[i].kind, cases[i].rows, cases[i].cols), a);
      g_assert_cmpstr (p, ==, cases[i].message);
    }
  /* arrays of arrays: the outer length first */
  const TildeShape *int_pair = tilde_shape_array (a, shape (a, TILDE_VALUE_INT, 1, 1), 2);
  g_autofree char *p = read_fails (d, "A", tilde_shape_array (a, int_pair, 2), a);
  g_assert_cmpstr (p, ==, "variable A: expected array[2, 2] int, found an array of 3 values");
  g_autofree char *q = read_fails (d, "A", tilde_shape_array (a, int_pair, 3), a);
  g_assert_cmpstr (q, ==, "variable A[2][2]: expected int, found the string \"x\"");
}

/* Sizes out of all proportion to the text are refused before storage of
 * that size is made, whatever the kind. */
static void
test_absurd_sizes_refused (void)
{
  g_autoptr (TildeArena) a = tilde_arena_new (0);
  g_autoptr (TildeJsonData) d = parse ("{\"v\": [1, 2]}");
  char *p = read_fails (d, "v", shape (a, TILDE_VALUE_VECTOR, 2000000000, 1), a);
  g_assert_cmpstr (p, ==, "variable v: expected vector[2000000000], found an array of 2 values");
  g_free (p);
  p = read_fails (d, "v", tilde_shape_array (a, shape (a, TILDE_VALUE_REAL, 1, 1), 2000000000), a);
  g_assert_cmpstr (p, ==, "variable v: expected array[2000000000] real, found an array of 2 values");
  g_free (p);
  p = read_fails (d, "v", tilde_shape_array (a, shape (a, TILDE_VALUE_VECTOR, 1000, 1), 2000000000), a);
  g_assert_cmpstr (p, ==, "variable v: expected array[2000000000] vector[1000], found an array of 2 values");
  g_free (p);
  p = read_fails (d, "v", shape (a, TILDE_VALUE_MATRIX, 2, 2000000000), a);
  g_assert_cmpstr (p, ==, "variable v[1]: expected row_vector[2000000000], found the int 1");
  g_free (p);
  /* nothing near those sizes was allocated */
  g_assert_cmpuint (tilde_arena_bytes_held (a), <, 1 << 20);
}

/* The names in the order of the text, and each value as a summary shows it. */
static void
test_names_and_descriptions (void)
{
  g_autoptr (TildeJsonData) d =
    parse ("{\"N\": 3, \"y\": [[1, 2], [3, 4], [5, 6]], \"e\": [], \"x\": [ /* c */ [[1], [2]]],"
           " \"s\": \"a string longer than forty characters, to be cut\", \"t\": {\"1\": 1},"
           " \"N\": 4, \"b\": -1.5e3, \"z\": [[], []]}");
  g_auto (GStrv) names = tilde_json_data_names (d);
  static const char *const order[] = { "y", "e", "x", "s", "t", "N", "b", "z", NULL };
  static const char *const described[] = {
    "3 × 2", "0", "1 × 2 × 1", "\"a string longer than forty characters,…", "{…}", "4", "-1.5e3",
    "2 × 0",
  };

  g_assert_cmpstrv (names, order);
  for (guint i = 0; order[i]; i++)
    {
      g_autofree char *text = tilde_json_data_describe (d, order[i]);
      g_assert_cmpstr (text, ==, described[i]);
    }
  g_assert_null (tilde_json_data_describe (d, "missing"));
  g_auto (GStrv) none = tilde_json_data_names (NULL);
  g_assert_cmpuint (g_strv_length (none), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runtime/data/types", test_types);
  g_test_add_func ("/runtime/data/special-values", test_special_values);
  g_test_add_func ("/runtime/data/read-errors", test_read_errors);
  g_test_add_func ("/runtime/data/bad-json", test_bad_json);
  g_test_add_func ("/runtime/data/two-objects-in-a-file", test_two_objects_in_a_file);
  g_test_add_func ("/runtime/data/model-errors", test_model_data_errors);
  g_test_add_func ("/runtime/data/check-every-variable", test_check_data);
  g_test_add_func ("/runtime/data/huge-matrix-refused", test_huge_matrix_refused);
  g_test_add_func ("/runtime/data/numbers-as-strtod", test_numbers_as_strtod);
  g_test_add_func ("/runtime/data/big-ints", test_big_ints);
  g_test_add_func ("/runtime/data/names-comments-quotes", test_names_comments_quotes);
  g_test_add_func ("/runtime/data/not-text", test_not_text);
  g_test_add_func ("/runtime/data/lengths-before-elements", test_lengths_before_elements);
  g_test_add_func ("/runtime/data/absurd-sizes-refused", test_absurd_sizes_refused);
  g_test_add_func ("/runtime/data/names-and-descriptions", test_names_and_descriptions);
  return g_test_run ();
}
