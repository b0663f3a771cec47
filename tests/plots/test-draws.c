/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The draws store: Stan CSV names grouped as Stan prints containers,
 * draws read back across chunk boundaries, warmup, divergences, and the
 * "changed" signal coalesced to one emission a frame.
 */
#define G_LOG_DOMAIN "tilde"

#include <math.h>

#include "tilde-draws.h"

static const char *const eight_schools[] = {
  "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__",
  "energy__", "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4", "theta.5", "theta.6",
  "theta.7", "theta.8", "L.1.1", "L.2.1", "L.1.2", "L.2.2", "L.1.3", "L.2.3", "z.1", "sigma",
  NULL
};

static TildeParameter *
parameter_at (GListModel *model, guint i)
{
  TildeParameter *parameter = g_list_model_get_item (model, i);

  g_object_unref (parameter);   /* the model keeps it */
  return parameter;
}

static void
test_parameters_grouped (void)
{
  g_autoptr(TildeDraws) draws = tilde_draws_new (eight_schools, 4);
  GListModel *parameters = tilde_draws_get_parameters (draws);
  static const char *const expected[] = { "mu", "tau", "theta[1..8]",
                                          "L[1..2,1..3]", "z[1]", "sigma" };
  TildeParameter *theta, *l;
  const guint *columns;
  guint n;

  g_assert_cmpuint (tilde_draws_get_n_columns (draws), ==, 25);
  g_assert_cmpuint (g_list_model_get_n_items (parameters), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (tilde_parameter_get_name (parameter_at (parameters, i)), ==, expected[i]);

  theta = parameter_at (parameters, 2);
  g_assert_true (tilde_parameter_is_group (theta));
  g_assert_cmpstr (tilde_parameter_get_variable (theta), ==, "theta");
  columns = tilde_parameter_get_columns (theta, &n);
  g_assert_cmpuint (n, ==, 8);
  g_assert_cmpuint (columns[0], ==, 9);
  g_assert_cmpuint (columns[7], ==, 16);
  g_assert_cmpuint (g_list_model_get_n_items (tilde_parameter_get_children (theta)), ==, 8);
  g_assert_cmpstr (tilde_parameter_get_name (parameter_at (tilde_parameter_get_children (theta),
                                                           2)),
                   ==, "theta[3]");

  /* Stan CSV lists matrices column-major; the children keep that order. */
  l = parameter_at (parameters, 3);
  g_assert_cmpstr (tilde_parameter_get_name (parameter_at (tilde_parameter_get_children (l), 1)),
                   ==, "L[2,1]");
  g_assert_cmpstr (tilde_parameter_get_name (parameter_at (tilde_parameter_get_children (l), 2)),
                   ==, "L[1,2]");
  g_assert_false (tilde_parameter_is_group (parameter_at (parameters, 4)));
  g_assert_null (tilde_parameter_get_children (parameter_at (parameters, 0)));

  g_assert_true (tilde_draws_is_sampler_column (draws, 0));
  g_assert_true (tilde_draws_is_sampler_column (draws, 6));
  g_assert_false (tilde_draws_is_sampler_column (draws, 7));
  g_assert_cmpint (tilde_draws_find_column (draws, "theta.3"), ==, 11);
  g_assert_cmpint (tilde_draws_find_column (draws, "theta[3]"), ==, -1);
}

/* Complex values and tuples group by their variable too, their elements
 * named as the summary names them. */
static void
test_parameters_complex_and_tuples (void)
{
  static const char *const names[] = {
    "lp__", "z.real", "z.imag", "v.1.real", "v.1.imag", "v.2.real", "v.2.imag",
    "p:1", "p:2.1", "p:2.2", "q.1:1", "q.2:1", NULL
  };
  g_autoptr(TildeDraws) draws = tilde_draws_new (names, 1);
  GListModel *parameters = tilde_draws_get_parameters (draws);
  static const char *const groups[] = { "z", "v", "p", "q" };
  static const guint sizes[] = { 2, 4, 3, 2 };

  g_assert_cmpuint (g_list_model_get_n_items (parameters), ==, G_N_ELEMENTS (groups));
  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    {
      TildeParameter *group = parameter_at (parameters, i);
      guint n;

      g_assert_cmpstr (tilde_parameter_get_name (group), ==, groups[i]);
      g_assert_cmpstr (tilde_parameter_get_variable (group), ==, groups[i]);
      tilde_parameter_get_columns (group, &n);
      g_assert_cmpuint (n, ==, sizes[i]);
    }
  g_assert_cmpstr (tilde_parameter_get_name (parameter_at (tilde_parameter_get_children (
                     parameter_at (parameters, 2)), 1)), ==, "p:2[1]");
  g_assert_cmpstr (tilde_parameter_get_name (parameter_at (tilde_parameter_get_children (
                     parameter_at (parameters, 1)), 3)), ==, "v.2.imag");
}

static double
value_at (guint chain, guint column, guint draw)
{
  return chain * 1e7 + column * 1e4 + draw;
}

static void
append_rows (TildeDraws *draws, guint chain, guint from, guint n, gboolean warmup)
{
  guint columns = tilde_draws_get_n_columns (draws);
  g_autofree double *rows = g_new (double, (gsize) n * columns);

  for (guint r = 0; r < n; r++)
    for (guint c = 0; c < columns; c++)
      rows[(gsize) r * columns + c] = value_at (chain, c, from + r);
  tilde_draws_append (draws, chain, rows, (gsize) n * columns, warmup);
}

static void
test_append_and_read_back (void)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(TildeDraws) draws = NULL;
  g_autofree double *column = g_new (double, 3000);

  /* Enough columns that a chunk holds a few hundred draws, so reads
   * cross chunk boundaries. */
  for (guint i = 0; i < 300; i++)
    g_ptr_array_add (names, g_strdup_printf ("x.%u", i + 1));
  g_ptr_array_add (names, NULL);
  draws = tilde_draws_new ((const char *const *) names->pdata, 2);

  for (guint from = 0; from < 3000; from += 37)
    append_rows (draws, 0, from, MIN (37, 3000 - from), FALSE);
  append_rows (draws, 1, 0, 5, FALSE);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 3000);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 1), ==, 5);
  g_assert_cmpuint (tilde_draws_get_max_draws (draws), ==, 3000);

  for (guint d = 0; d < 3000; d += 7)
    g_assert_cmpfloat (tilde_draws_get_value (draws, 0, 123, d), ==, value_at (0, 123, d));
  tilde_draws_copy_column (draws, 0, 299, 0, 3000, column);
  for (guint d = 0; d < 3000; d++)
    g_assert_cmpfloat (column[d], ==, value_at (0, 299, d));
  tilde_draws_copy_column (draws, 0, 5, 211, 1777, column);
  for (guint d = 0; d < 1777; d++)
    g_assert_cmpfloat (column[d], ==, value_at (0, 5, 211 + d));
  tilde_draws_copy_column (draws, 1, 0, 2, 3, column);
  g_assert_cmpfloat (column[2], ==, value_at (1, 0, 4));
}

static void
test_warmup_first (void)
{
  g_autoptr(TildeDraws) draws = tilde_draws_new (eight_schools, 1);

  append_rows (draws, 0, 0, 10, TRUE);
  append_rows (draws, 0, 10, 4, TRUE);
  append_rows (draws, 0, 14, 5, FALSE);
  g_assert_cmpuint (tilde_draws_get_n_warmup (draws, 0), ==, 14);
  g_assert_true (tilde_draws_is_warmup (draws, 0, 13));
  g_assert_false (tilde_draws_is_warmup (draws, 0, 14));

  /* Warmup after sampling draws is a caller's mistake, refused. */
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*n_warmup*");
  append_rows (draws, 0, 19, 1, TRUE);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 19);

  /* A ragged batch is refused whole. */
  g_test_expect_message (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "*n_columns*");
  tilde_draws_append (draws, 0, (const double[]) { 1, 2, 3 }, 3, FALSE);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 19);
}

static void
test_divergent_draws (void)
{
  g_autoptr(TildeDraws) draws = tilde_draws_new (eight_schools, 2);
  double rows[6][25] = { { 0 } };
  const guint *divergent;
  guint n;

  rows[1][5] = 1;
  rows[4][5] = 1;
  rows[5][5] = NAN;   /* not a divergence */
  tilde_draws_append (draws, 1, &rows[0][0], 3 * 25, TRUE);
  tilde_draws_append (draws, 1, &rows[3][0], 3 * 25, FALSE);
  divergent = tilde_draws_get_divergent (draws, 1, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (divergent[0], ==, 1);
  g_assert_cmpuint (divergent[1], ==, 4);
  g_assert_null (tilde_draws_get_divergent (draws, 0, &n));
  g_assert_cmpuint (n, ==, 0);
}

static void
record_emission (TildeDraws *draws, gpointer data)
{
  gint64 now = g_get_monotonic_time ();

  g_array_append_val ((GArray *) data, now);
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
run_for_ms (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_changed_once_a_frame (void)
{
  g_autoptr(TildeDraws) draws = tilde_draws_new (eight_schools, 4);
  g_autoptr(GArray) emissions = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint64 stamp = tilde_draws_get_stamp (draws);

  g_signal_connect (draws, "changed", G_CALLBACK (record_emission), emissions);
  /* Many batches between two turns of the main loop: one emission. */
  for (guint i = 0; i < 100; i++)
    append_rows (draws, i % 4, i / 4, 1, FALSE);
  g_assert_cmpuint (emissions->len, ==, 0);
  g_assert_cmpuint (tilde_draws_get_stamp (draws), ==, stamp + 100);
  while (emissions->len == 0)
    g_main_context_iteration (NULL, TRUE);
  run_for_ms (40);
  g_assert_cmpuint (emissions->len, ==, 1);

  /* Batches arriving one per turn of the loop, faster than frames: no
   * two emissions within 16 ms of each other. */
  for (guint i = 0; i < 200; i++)
    {
      append_rows (draws, 0, 25 + i, 1, FALSE);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (500);
    }
  run_for_ms (40);
  g_assert_cmpuint (emissions->len, >=, 3);
  for (guint i = 1; i < emissions->len; i++)
    g_assert_cmpint (g_array_index (emissions, gint64, i)
                     - g_array_index (emissions, gint64, i - 1),
                     >=, 16000);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 225);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plots/draws/parameters-grouped", test_parameters_grouped);
  g_test_add_func ("/plots/draws/parameters-complex-and-tuples", test_parameters_complex_and_tuples);
  g_test_add_func ("/plots/draws/append-and-read-back", test_append_and_read_back);
  g_test_add_func ("/plots/draws/warmup-first", test_warmup_first);
  g_test_add_func ("/plots/draws/divergent-draws", test_divergent_draws);
  g_test_add_func ("/plots/draws/changed-once-a-frame", test_changed_once_a_frame);
  return g_test_run ();
}
