/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <glib.h>

#include "semantics/types.h"

static const TildeType *
T (const char *text)
{
  const TildeType *t = tilde_type_from_string (text);

  if (t == NULL)
    g_error ("cannot parse type '%s'", text);
  return t;
}

static void
assert_prints (const TildeType *t, const char *expected)
{
  g_autofree char *s = tilde_type_to_string (t);

  g_assert_cmpstr (s, ==, expected);
}

static void
test_interning (void)
{
  const TildeType *members[2] = { tilde_type_real (), tilde_type_array (tilde_type_int ()) };
  const TildeType *members2[2] = { tilde_type_real (), tilde_type_array (tilde_type_int ()) };
  TildeArgType a1[2] = { { TILDE_AD_AUTODIFF, tilde_type_real () }, { TILDE_AD_DATA, tilde_type_vector () } };
  TildeArgType a2[2] = { { TILDE_AD_AUTODIFF, tilde_type_real () }, { TILDE_AD_DATA, tilde_type_vector () } };
  TildeArgType a3[2] = { { TILDE_AD_AUTODIFF, tilde_type_real () }, { TILDE_AD_AUTODIFF, tilde_type_vector () } };

  g_assert_true (tilde_type_array (tilde_type_real ()) == tilde_type_array (tilde_type_real ()));
  g_assert_true (tilde_type_array_n (tilde_type_real (), 2)
                 == tilde_type_array (tilde_type_array (tilde_type_real ())));
  g_assert_true (tilde_type_array_n (tilde_type_matrix (), 0) == tilde_type_matrix ());
  g_assert_true (tilde_type_tuple (2, members) == tilde_type_tuple (2, members2));
  g_assert_true (tilde_type_tuple (2, members) != tilde_type_tuple (1, members));
  g_assert_true (tilde_type_function (2, a1, tilde_type_real (), TILDE_FUN_PLAIN)
                 == tilde_type_function (2, a2, tilde_type_real (), TILDE_FUN_PLAIN));
  /* the data qualifier, the return type and the suffix kind all count */
  g_assert_true (tilde_type_function (2, a1, tilde_type_real (), TILDE_FUN_PLAIN)
                 != tilde_type_function (2, a3, tilde_type_real (), TILDE_FUN_PLAIN));
  g_assert_true (tilde_type_function (2, a1, tilde_type_real (), TILDE_FUN_PLAIN)
                 != tilde_type_function (2, a1, tilde_type_int (), TILDE_FUN_PLAIN));
  g_assert_true (tilde_type_function (2, a1, tilde_type_real (), TILDE_FUN_PLAIN)
                 != tilde_type_function (2, a1, tilde_type_real (), TILDE_FUN_RNG));
  g_assert_true (tilde_type_basic (TILDE_TYPE_COMPLEX_ROW_VECTOR) == tilde_type_complex_row_vector ());
}

static gpointer
intern_in_thread (gpointer data)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint n = 0; n < 200; n++)
    {
      const TildeType *m[2] = { tilde_type_array_n (tilde_type_int (), n % 9),
                                tilde_type_array_n (tilde_type_complex_matrix (), n % 5) };
      g_ptr_array_add (out, (gpointer) tilde_type_tuple (2, m));
    }
  return out;
}

static void
test_interning_threads (void)
{
  GThread *threads[4];
  GPtrArray *results[4];

  for (guint i = 0; i < 4; i++)
    threads[i] = g_thread_new ("intern", intern_in_thread, NULL);
  for (guint i = 0; i < 4; i++)
    results[i] = g_thread_join (threads[i]);
  for (guint i = 1; i < 4; i++)
    for (guint k = 0; k < results[0]->len; k++)
      g_assert_true (g_ptr_array_index (results[0], k) == g_ptr_array_index (results[i], k));
  for (guint i = 0; i < 4; i++)
    g_ptr_array_unref (results[i]);
}

/* Spellings as stanc prints them in its messages, e.g. "lhs has type
 * array[,] real", "(data array[] real) => array[] int". */
static void
test_printing (void)
{
  const TildeType *tup[2] = { tilde_type_real (), tilde_type_array (tilde_type_int ()) };
  TildeArgType args[2] = { { TILDE_AD_AUTODIFF, tilde_type_real () },
                          { TILDE_AD_DATA, tilde_type_vector () } };
  const TildeType *fn = tilde_type_function (2, args, tilde_type_real (), TILDE_FUN_PLAIN);
  TildeArgType fnarg[1] = { { TILDE_AD_DATA, fn } };

  assert_prints (tilde_type_int (), "int");
  assert_prints (tilde_type_vector (), "vector");
  assert_prints (tilde_type_row_vector (), "row_vector");
  assert_prints (tilde_type_complex_matrix (), "complex_matrix");
  assert_prints (tilde_type_complex_row_vector (), "complex_row_vector");
  assert_prints (tilde_type_array (tilde_type_int ()), "array[] int");
  assert_prints (tilde_type_array_n (tilde_type_real (), 2), "array[,] real");
  assert_prints (tilde_type_array_n (tilde_type_vector (), 3), "array[,,] vector");
  assert_prints (tilde_type_tuple (2, tup), "tuple(real, array[] int)");
  assert_prints (tilde_type_tuple (1, tup), "tuple(real,)");
  assert_prints (tilde_type_array (tilde_type_tuple (2, tup)), "array[] tuple(real, array[] int)");
  assert_prints (fn, "(real, data vector) => real");
  assert_prints (tilde_type_function (0, NULL, tilde_type_void (), TILDE_FUN_PLAIN), "() => void");
  /* a function-typed parameter never shows a data qualifier */
  assert_prints (tilde_type_function (1, fnarg, tilde_type_real (), TILDE_FUN_PLAIN),
                 "((real, data vector) => real) => real");
  assert_prints (tilde_type_math_function (), "<Stan Math function>");
}

static void
test_parsing (void)
{
  static const char *const texts[] = {
    "int", "real", "complex", "vector", "row_vector", "matrix", "complex_vector",
    "complex_row_vector", "complex_matrix", "array[] int", "array[,,,] complex_matrix",
    "tuple(real, array[] int)", "tuple(vector,)", "tuple(tuple(int, real), matrix)",
    "array[,] tuple(real, int)", "() => real", "(real, data vector) => real",
    "((real, vector) => vector, vector, real, array[] real) => array[] vector",
    "(data array[] real) => array[] int", "(int) => void",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    assert_prints (T (texts[i]), texts[i]);
  g_assert_true (T ("array[,] real") == tilde_type_array_n (tilde_type_real (), 2));
  g_assert_true (T ("  array [ , ]  real ") == T ("array[,] real"));
  g_assert_null (tilde_type_from_string ("array[] array[] real"));
  g_assert_null (tilde_type_from_string ("vectorx"));
  g_assert_null (tilde_type_from_string ("tuple()"));
  g_assert_null (tilde_type_from_string ("(real) =>"));
  g_assert_null (tilde_type_from_string ("real real"));
}

static void
test_structure (void)
{
  const TildeType *a = T ("array[,] matrix");
  const TildeType *f = T ("(real, data vector) => int");

  g_assert_cmpint (tilde_type_kind (a), ==, TILDE_TYPE_ARRAY);
  g_assert_cmpuint (tilde_type_array_dims (a), ==, 2);
  g_assert_true (tilde_type_array_base (a) == tilde_type_matrix ());
  g_assert_true (tilde_type_element (a) == T ("array[] matrix"));
  g_assert_null (tilde_type_element (tilde_type_matrix ()));
  /* Stan counts a matrix as two dimensions and a vector as one */
  g_assert_cmpuint (tilde_type_count_dims (a), ==, 4);
  g_assert_cmpuint (tilde_type_count_dims (T ("array[] vector")), ==, 2);
  g_assert_cmpuint (tilde_type_count_dims (tilde_type_real ()), ==, 0);
  g_assert_cmpuint (tilde_type_n_args (f), ==, 2);
  g_assert_cmpint (tilde_type_arg (f, 1)->ad, ==, TILDE_AD_DATA);
  g_assert_true (tilde_type_arg (f, 1)->type == tilde_type_vector ());
  g_assert_true (tilde_type_return (f) == tilde_type_int ());
  g_assert_cmpuint (tilde_type_n_members (T ("tuple(int, real, vector)")), ==, 3);
  g_assert_true (tilde_type_member (T ("tuple(int, real, vector)"), 2) == tilde_type_vector ());
}

/* The type of x[i]: an array loses a dimension, a vector gives a real, a
 * matrix gives a row_vector (Stan Reference Manual, indexing). */
static void
test_indexing (void)
{
  g_assert_true (tilde_type_index (T ("array[,] real")) == T ("array[] real"));
  g_assert_true (tilde_type_index (T ("array[] real")) == tilde_type_real ());
  g_assert_true (tilde_type_index (tilde_type_vector ()) == tilde_type_real ());
  g_assert_true (tilde_type_index (tilde_type_row_vector ()) == tilde_type_real ());
  g_assert_true (tilde_type_index (tilde_type_matrix ()) == tilde_type_row_vector ());
  g_assert_true (tilde_type_index (tilde_type_complex_vector ()) == tilde_type_complex ());
  g_assert_true (tilde_type_index (tilde_type_complex_matrix ()) == tilde_type_complex_row_vector ());
  g_assert_null (tilde_type_index (tilde_type_real ()));
  g_assert_null (tilde_type_index (T ("tuple(int, real)")));
}

static void
test_predicates (void)
{
  g_assert_true (tilde_type_is_scalar (tilde_type_int ()));
  g_assert_true (tilde_type_is_scalar (tilde_type_real ()));
  g_assert_false (tilde_type_is_scalar (tilde_type_complex ()));
  g_assert_true (tilde_type_is_eigen (tilde_type_complex_vector ()));
  g_assert_false (tilde_type_is_eigen (T ("array[] real")));
  g_assert_true (tilde_type_is_container (T ("array[] real")));
  g_assert_true (tilde_type_is_container (T ("tuple(int, real)")));
  g_assert_false (tilde_type_is_container (tilde_type_complex ()));
  g_assert_true (tilde_type_is_int_type (T ("array[,] int")));
  g_assert_false (tilde_type_is_int_type (T ("array[,] real")));
  g_assert_true (tilde_type_is_real_type (T ("array[] matrix")));
  g_assert_false (tilde_type_is_real_type (tilde_type_complex_matrix ()));
  g_assert_true (tilde_type_is_complex_type (T ("array[] complex_row_vector")));
  g_assert_true (tilde_type_is_discrete (T ("tuple(int, array[] int)")));
  g_assert_false (tilde_type_is_discrete (T ("tuple(int, real)")));
  g_assert_true (tilde_type_contains_tuple (T ("array[] tuple(int, real)")));
  g_assert_true (tilde_type_is_autodiffable (T ("tuple(int, vector)")));
  g_assert_false (tilde_type_is_autodiffable (T ("array[] int")));
  g_assert_true (tilde_type_internal_scalar (T ("array[] matrix")) == tilde_type_real ());
  g_assert_true (tilde_type_internal_scalar (tilde_type_complex_vector ()) == tilde_type_complex ());
  g_assert_true (tilde_type_internal_scalar (T ("array[] int")) == tilde_type_int ());
}

/* The Stan Reference Manual's promotions: int to real, int or real to
 * complex, real containers to complex ones, elementwise through arrays;
 * never the other way, never between shapes. */
static void
test_promotion (void)
{
  static const struct { const char *from, *to; int cost; } cases[] = {
    { "int", "int", 0 },
    { "int", "real", 1 },
    { "int", "complex", 2 },
    { "real", "complex", 1 },
    { "real", "int", -1 },
    { "complex", "real", -1 },
    { "vector", "complex_vector", 1 },
    { "row_vector", "complex_row_vector", 1 },
    { "matrix", "complex_matrix", 1 },
    { "complex_vector", "vector", -1 },
    { "vector", "row_vector", -1 },
    { "real", "vector", -1 },
    { "array[] int", "array[] real", 1 },
    { "array[,] int", "array[,] complex", 2 },
    { "array[] vector", "array[] complex_vector", 1 },
    { "array[] real", "array[,] real", -1 },
    { "array[] real", "vector", -1 },
    { "array[] real", "array[] int", -1 },
    { "tuple(int, array[] int)", "tuple(real, array[] real)", 2 },
    { "tuple(int, real)", "tuple(real, complex)", 2 },
    { "tuple(int, real)", "tuple(int, real, real)", -1 },
    { "tuple(real, int)", "tuple(int, int)", -1 },
    { "array[] tuple(int, vector)", "array[] tuple(real, vector)", 1 },
    /* function values: exact parameter types, contravariant data qualifiers */
    { "(real) => real", "(real) => real", 0 },
    { "(real) => real", "(data real) => real", 0 },
    { "(data real) => real", "(real) => real", -1 },
    { "(int) => real", "(real) => real", -1 },
    { "(real) => int", "(real) => real", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int cost = tilde_type_promotion_cost (T (cases[i].to), T (cases[i].from));

      if (cost != cases[i].cost)
        g_error ("%s -> %s: cost %d, expected %d", cases[i].from, cases[i].to,
                 cost, cases[i].cost);
      g_assert_cmpint (tilde_type_promotes (T (cases[i].from), T (cases[i].to)), ==,
                       cases[i].cost >= 0);
    }
  /* an rng function is not a plain one, but lpdf and lupdf are alike */
  g_assert_cmpint (tilde_type_promotion_cost (
                     T ("(real) => real"),
                     tilde_type_function_with_kind (T ("(real) => real"), TILDE_FUN_RNG)), ==, -1);
  g_assert_cmpint (tilde_type_promotion_cost (
                     tilde_type_function_with_kind (T ("(real) => real"), TILDE_FUN_LPDF),
                     tilde_type_function_with_kind (T ("(real) => real"), TILDE_FUN_LUPDF)), ==, 0);
}

static void
test_common_type (void)
{
  g_assert_true (tilde_type_common (tilde_type_int (), tilde_type_real ()) == tilde_type_real ());
  g_assert_true (tilde_type_common (tilde_type_complex (), tilde_type_int ()) == tilde_type_complex ());
  g_assert_true (tilde_type_common (T ("array[] int"), T ("array[] real")) == T ("array[] real"));
  g_assert_true (tilde_type_common (tilde_type_vector (), tilde_type_complex_vector ())
                 == tilde_type_complex_vector ());
  g_assert_true (tilde_type_common (T ("tuple(int, real)"), T ("tuple(real, complex)"))
                 == T ("tuple(real, complex)"));
  g_assert_null (tilde_type_common (tilde_type_vector (), tilde_type_row_vector ()));
  g_assert_null (tilde_type_common (T ("array[] real"), T ("array[,] real")));
  g_assert_true (tilde_type_promote_scalar (T ("array[] int"), tilde_type_real ()) == T ("array[] real"));
  g_assert_true (tilde_type_promote_scalar (T ("array[] matrix"), tilde_type_complex ())
                 == T ("array[] complex_matrix"));
  g_assert_true (tilde_type_promote_scalar (tilde_type_vector (), tilde_type_real ()) == tilde_type_vector ());
}

static void
test_ad_levels (void)
{
  g_assert_false (tilde_ad_can_convert (TILDE_AD_DATA, TILDE_AD_AUTODIFF));
  g_assert_true (tilde_ad_can_convert (TILDE_AD_DATA, TILDE_AD_DATA));
  g_assert_true (tilde_ad_can_convert (TILDE_AD_AUTODIFF, TILDE_AD_DATA));
  g_assert_true (tilde_ad_can_convert (TILDE_AD_AUTODIFF, TILDE_AD_AUTODIFF));
  g_assert_cmpint (tilde_ad_lub (TILDE_AD_DATA, TILDE_AD_AUTODIFF), ==, TILDE_AD_AUTODIFF);
  g_assert_cmpint (tilde_ad_lub (TILDE_AD_DATA, TILDE_AD_DATA), ==, TILDE_AD_DATA);
}

/* The order stanc lists signatures in: by its type constructors, int, real,
 * vector, complex, row_vector, matrix, complex containers, arrays. */
static void
test_compare (void)
{
  static const char *const ascending[] = {
    "int", "real", "vector", "complex", "row_vector", "matrix", "complex_vector",
    "complex_row_vector", "complex_matrix", "array[] int", "array[] real",
    "array[,] int", "tuple(int, real)", "tuple(real, int)", "(int) => real",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ascending); i++)
    for (guint j = 0; j < G_N_ELEMENTS (ascending); j++)
      {
        int c = tilde_type_compare (T (ascending[i]), T (ascending[j]));
        g_assert_cmpint (c < 0, ==, i < j);
        g_assert_cmpint (c == 0, ==, i == j);
      }
}

static void
test_fun_kinds (void)
{
  g_assert_cmpint (tilde_fun_kind_from_name ("normal_rng"), ==, TILDE_FUN_RNG);
  g_assert_cmpint (tilde_fun_kind_from_name ("foo_lpdf"), ==, TILDE_FUN_LPDF);
  g_assert_cmpint (tilde_fun_kind_from_name ("foo_lpmf"), ==, TILDE_FUN_LPDF);
  g_assert_cmpint (tilde_fun_kind_from_name ("foo_lupmf"), ==, TILDE_FUN_LUPDF);
  g_assert_cmpint (tilde_fun_kind_from_name ("foo_lp"), ==, TILDE_FUN_LP);
  g_assert_cmpint (tilde_fun_kind_from_name ("simplex_jacobian"), ==, TILDE_FUN_JACOBIAN);
  g_assert_cmpint (tilde_fun_kind_from_name ("exp"), ==, TILDE_FUN_PLAIN);
  g_assert_true (tilde_fun_kind_equal_modulo_propto (TILDE_FUN_LPDF, TILDE_FUN_LUPDF));
  g_assert_false (tilde_fun_kind_equal_modulo_propto (TILDE_FUN_LPDF, TILDE_FUN_PLAIN));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/semantics/types/interning", test_interning);
  g_test_add_func ("/engine/semantics/types/interning-threads", test_interning_threads);
  g_test_add_func ("/engine/semantics/types/printing", test_printing);
  g_test_add_func ("/engine/semantics/types/parsing", test_parsing);
  g_test_add_func ("/engine/semantics/types/structure", test_structure);
  g_test_add_func ("/engine/semantics/types/indexing", test_indexing);
  g_test_add_func ("/engine/semantics/types/predicates", test_predicates);
  g_test_add_func ("/engine/semantics/types/promotion", test_promotion);
  g_test_add_func ("/engine/semantics/types/common-type", test_common_type);
  g_test_add_func ("/engine/semantics/types/ad-levels", test_ad_levels);
  g_test_add_func ("/engine/semantics/types/compare", test_compare);
  g_test_add_func ("/engine/semantics/types/fun-kinds", test_fun_kinds);
  return g_test_run ();
}
