/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The draws' radix sort against a stable comparison sort: the same values
 * in the same order, bit for bit (both zeros, infinities, NaN, subnormals,
 * many ties), and equal keys left in their order.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "infer/radix-sort.h"

/* As `<` orders, NaN after everything; -0 and 0 equal. */
static gint
compare_as_less (gconstpointer a, gconstpointer b, gpointer data)
{
  double x = *(const double *) a, y = *(const double *) b;

  if (isnan (x) || isnan (y))
    return isnan (x) - isnan (y);
  return (x > y) - (x < y);
}

static double
awkward_draw (GRand *rand)
{
  static const double specials[] = { 0.0, -0.0, INFINITY, -INFINITY, 1e-310, -1e-310,
                                     DBL_MAX, -DBL_MAX, 1.0, -1.0 };

  switch (g_rand_int_range (rand, 0, 6))
    {
    case 0:
      return specials[g_rand_int_range (rand, 0, G_N_ELEMENTS (specials))];
    case 1:
      return NAN;
    case 2:   /* ties */
      return g_rand_int_range (rand, -5, 5) * 0.25;
    case 3:   /* a narrow range: passes over a shared digit are skipped */
      return 100 + g_rand_double (rand) * 1e-9;
    default:
      return (g_rand_double (rand) - 0.5) * pow (10, g_rand_int_range (rand, -300, 300));
    }
}

static void
test_as_a_stable_sort (void)
{
  static const gsize sizes[] = { 0, 1, 2, 3, 17, 1000, 40000 };
  GRand *rand = g_rand_new_with_seed (20261123);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint trial = 0; trial < 5; trial++)
      {
        gsize n = sizes[s];
        g_autofree double *x = g_new (double, MAX (n, 1));
        g_autofree double *sorted = g_new (double, MAX (n, 1));
        g_autofree double *expected = NULL;

        for (gsize i = 0; i < n; i++)
          x[i] = awkward_draw (rand);
        expected = g_memdup2 (x, MAX (n, 1) * sizeof *x);
        /* GLib's sort is a stable merge sort */
        g_qsort_with_data (expected, (gint) n, sizeof *expected, compare_as_less, NULL);
        tilde_sort_doubles (x, n, sorted);
        if (n > 0)
          g_assert_cmpmem (sorted, n * sizeof *sorted, expected, n * sizeof *expected);
      }
  g_rand_free (rand);
}

static void
test_equal_keys_keep_their_order (void)
{
  enum { N = 5000 };
  g_autofree TildeKeyed *a = g_new (TildeKeyed, N);
  g_autofree TildeKeyed *scratch = g_new (TildeKeyed, N);
  GRand *rand = g_rand_new_with_seed (7);
  TildeKeyed *sorted;

  for (gsize i = 0; i < N; i++)
    a[i] = (TildeKeyed) { tilde_sort_key (g_rand_int_range (rand, 0, 40) - 20.0), i };
  sorted = tilde_radix_sort (a, scratch, N);
  for (gsize i = 1; i < N; i++)
    {
      g_assert_cmpuint (sorted[i - 1].key, <=, sorted[i].key);
      if (sorted[i - 1].key == sorted[i].key)
        g_assert_cmpuint (sorted[i - 1].index, <, sorted[i].index);
    }
  g_rand_free (rand);
}

static void
test_keys_order_as_doubles (void)
{
  static const double ascending[] = { -INFINITY, -DBL_MAX, -1.0, -1e-310, 0.0, 1e-310, 1.0,
                                      DBL_MAX, INFINITY };

  for (guint i = 1; i < G_N_ELEMENTS (ascending); i++)
    g_assert_cmpuint (tilde_sort_key (ascending[i - 1]), <, tilde_sort_key (ascending[i]));
  g_assert_cmpuint (tilde_sort_key (-0.0), ==, tilde_sort_key (0.0));
  g_assert_cmpuint (tilde_sort_key (INFINITY), <, tilde_sort_key (NAN));
  g_assert_cmpuint (tilde_sort_key (NAN), ==, tilde_sort_key (-NAN));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/radix-sort/as-a-stable-sort", test_as_a_stable_sort);
  g_test_add_func ("/infer/radix-sort/equal-keys-keep-their-order", test_equal_keys_keep_their_order);
  g_test_add_func ("/infer/radix-sort/keys-order-as-doubles", test_keys_order_as_doubles);
  return g_test_run ();
}
