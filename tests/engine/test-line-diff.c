/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The line diff against examples worked by hand, against the example of
 * Myers's paper ("An O(ND) Difference Algorithm and Its Variations", 1986:
 * ABCABBA against CBABAC, D = 5), and against a longest common subsequence
 * computed by the textbook dynamic programme on random inputs.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "tilde-line-diff.h"

typedef struct {
  TildeDiffKind kind;
  int           old_line;
  int           new_line;
} Row;

static void
assert_rows (GArray *rows, const Row *expected, guint n)
{
  g_assert_cmpuint (rows->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      TildeDiffRow *r = &g_array_index (rows, TildeDiffRow, i);

      g_assert_cmpint (r->kind, ==, expected[i].kind);
      g_assert_cmpint (r->old_line, ==, expected[i].old_line);
      g_assert_cmpint (r->new_line, ==, expected[i].new_line);
    }
}

/* One character a line. */
static GArray *
diff_chars (const char *old_chars, const char *new_chars, char ***old_out, char ***new_out)
{
  guint n_old = strlen (old_chars), n_new = strlen (new_chars);
  char **a = g_new0 (char *, n_old + 1);
  char **b = g_new0 (char *, n_new + 1);

  for (guint i = 0; i < n_old; i++)
    a[i] = g_strndup (old_chars + i, 1);
  for (guint i = 0; i < n_new; i++)
    b[i] = g_strndup (new_chars + i, 1);
  *old_out = a;
  *new_out = b;
  return tilde_line_diff ((const char *const *) a, n_old, (const char *const *) b, n_new);
}

/* The rows use every line of both sides once, in order; SAME rows pair
 * equal lines and CHANGED rows different ones. */
static void
assert_consistent (GArray *rows, char **a, guint n_old, char **b, guint n_new)
{
  int next_old = 0, next_new = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      TildeDiffRow *r = &g_array_index (rows, TildeDiffRow, i);

      if (r->kind != TILDE_DIFF_ADDED)
        g_assert_cmpint (r->old_line, ==, next_old++);
      else
        g_assert_cmpint (r->old_line, ==, -1);
      if (r->kind != TILDE_DIFF_REMOVED)
        g_assert_cmpint (r->new_line, ==, next_new++);
      else
        g_assert_cmpint (r->new_line, ==, -1);
      if (r->kind == TILDE_DIFF_SAME)
        g_assert_cmpstr (a[r->old_line], ==, b[r->new_line]);
      if (r->kind == TILDE_DIFF_CHANGED)
        g_assert_cmpstr (a[r->old_line], !=, b[r->new_line]);
    }
  g_assert_cmpint (next_old, ==, (int) n_old);
  g_assert_cmpint (next_new, ==, (int) n_new);
}

static void
test_identical (void)
{
  g_autoptr(GArray) rows = tilde_line_diff_texts ("a\nb\nc\n", "a\nb\nc\n");
  static const Row expected[] = {
    { TILDE_DIFF_SAME, 0, 0 }, { TILDE_DIFF_SAME, 1, 1 }, { TILDE_DIFF_SAME, 2, 2 },
  };

  assert_rows (rows, expected, G_N_ELEMENTS (expected));
}

static void
test_changed_line (void)
{
  g_autoptr(GArray) rows = tilde_line_diff_texts ("a\nb\nc\nd\n", "a\nx\nc\nd\n");
  static const Row expected[] = {
    { TILDE_DIFF_SAME, 0, 0 }, { TILDE_DIFF_CHANGED, 1, 1 },
    { TILDE_DIFF_SAME, 2, 2 }, { TILDE_DIFF_SAME, 3, 3 },
  };
  TildeDiffStats stats;

  assert_rows (rows, expected, G_N_ELEMENTS (expected));
  tilde_line_diff_count (rows, &stats);
  g_assert_cmpuint (stats.same, ==, 3);
  g_assert_cmpuint (stats.changed, ==, 1);
  g_assert_cmpuint (tilde_diff_stats_edits (&stats), ==, 1);
}

static void
test_removed_line (void)
{
  g_autoptr(GArray) rows = tilde_line_diff_texts ("a\nb\nc\n", "a\nc\n");
  static const Row expected[] = {
    { TILDE_DIFF_SAME, 0, 0 }, { TILDE_DIFF_REMOVED, 1, -1 }, { TILDE_DIFF_SAME, 2, 1 },
  };

  assert_rows (rows, expected, G_N_ELEMENTS (expected));
}

static void
test_added_lines (void)
{
  g_autoptr(GArray) rows = tilde_line_diff_texts ("a\nd\n", "a\nb\nc\nd\n");
  static const Row expected[] = {
    { TILDE_DIFF_SAME, 0, 0 }, { TILDE_DIFF_ADDED, -1, 1 }, { TILDE_DIFF_ADDED, -1, 2 },
    { TILDE_DIFF_SAME, 1, 3 },
  };

  assert_rows (rows, expected, G_N_ELEMENTS (expected));
}

/* x a b y -> x c y: one removal and one addition pair up; the other
 * removal stays alone, after the pair. */
static void
test_uneven_run (void)
{
  g_autoptr(GArray) rows = tilde_line_diff_texts ("x\na\nb\ny\n", "x\nc\ny\n");
  static const Row expected[] = {
    { TILDE_DIFF_SAME, 0, 0 }, { TILDE_DIFF_CHANGED, 1, 1 }, { TILDE_DIFF_REMOVED, 2, -1 },
    { TILDE_DIFF_SAME, 3, 2 },
  };

  assert_rows (rows, expected, G_N_ELEMENTS (expected));
}

static void
test_empty_sides (void)
{
  g_autoptr(GArray) added = tilde_line_diff_texts ("", "a\nb\n");
  g_autoptr(GArray) removed = tilde_line_diff_texts ("a\nb", "");
  g_autoptr(GArray) none = tilde_line_diff_texts ("", "");
  static const Row expected_added[] = { { TILDE_DIFF_ADDED, -1, 0 }, { TILDE_DIFF_ADDED, -1, 1 } };
  static const Row expected_removed[] = { { TILDE_DIFF_REMOVED, 0, -1 }, { TILDE_DIFF_REMOVED, 1, -1 } };

  assert_rows (added, expected_added, 2);
  assert_rows (removed, expected_removed, 2);
  g_assert_cmpuint (none->len, ==, 0);
}

/* Nothing in common: every line is changed, and the longer side's rest is
 * added. */
static void
test_disjoint (void)
{
  g_autoptr(GArray) rows = tilde_line_diff_texts ("a\nb\n", "c\nd\ne\n");
  static const Row expected[] = {
    { TILDE_DIFF_CHANGED, 0, 0 }, { TILDE_DIFF_CHANGED, 1, 1 }, { TILDE_DIFF_ADDED, -1, 2 },
  };

  assert_rows (rows, expected, G_N_ELEMENTS (expected));
}

static void
test_split (void)
{
  guint n;
  g_auto(GStrv) one = tilde_line_diff_split ("a\n", &n);
  g_auto(GStrv) same = NULL;
  g_auto(GStrv) none = NULL;
  g_auto(GStrv) blank = NULL;

  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (one[0], ==, "a");
  same = tilde_line_diff_split ("a", &n);
  g_assert_cmpuint (n, ==, 1);
  none = tilde_line_diff_split ("", &n);
  g_assert_cmpuint (n, ==, 0);
  blank = tilde_line_diff_split ("a\n\nb", &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpstr (blank[1], ==, "");
}

/* Myers's paper, figure 1: the shortest script turning ABCABBA into
 * CBABAC has 5 edits, 3 deletions and 2 insertions, and the longest
 * common subsequence has length 4 (CABA, among others). */
static void
test_myers_example (void)
{
  char **a, **b;
  g_autoptr(GArray) rows = diff_chars ("ABCABBA", "CBABAC", &a, &b);
  TildeDiffStats stats;

  assert_consistent (rows, a, 7, b, 6);
  tilde_line_diff_count (rows, &stats);
  g_assert_cmpuint (stats.same, ==, 4);
  g_assert_cmpuint (stats.removed + stats.changed, ==, 3);
  g_assert_cmpuint (stats.added + stats.changed, ==, 2);
  g_strfreev (a);
  g_strfreev (b);
}

/* A line that repeats: ab against ba keeps one of them. */
static void
test_swap (void)
{
  char **a, **b;
  g_autoptr(GArray) rows = diff_chars ("ab", "ba", &a, &b);
  TildeDiffStats stats;

  assert_consistent (rows, a, 2, b, 2);
  tilde_line_diff_count (rows, &stats);
  g_assert_cmpuint (stats.same, ==, 1);
  g_assert_cmpuint (stats.removed, ==, 1);
  g_assert_cmpuint (stats.added, ==, 1);
  g_strfreev (a);
  g_strfreev (b);
}

/* The textbook O(NM) programme for the length of a longest common
 * subsequence. */
static guint
lcs_length (char **a, guint n, char **b, guint m)
{
  g_autofree guint *table = g_new0 (guint, (gsize) (n + 1) * (m + 1));

  #define T(i, j) table[(gsize) (i) * (m + 1) + (j)]
  for (guint i = 1; i <= n; i++)
    for (guint j = 1; j <= m; j++)
      T (i, j) = g_str_equal (a[i - 1], b[j - 1]) ? T (i - 1, j - 1) + 1
                                                  : MAX (T (i - 1, j), T (i, j - 1));
  return T (n, m);
  #undef T
}

static char *
random_string (guint max_len, guint alphabet)
{
  guint len = (guint) g_test_rand_int_range (0, (gint32) max_len + 1);
  char *s = g_new0 (char, len + 1);

  for (guint i = 0; i < len; i++)
    s[i] = (char) ('a' + g_test_rand_int_range (0, (gint32) alphabet));
  return s;
}

static void
test_minimal_on_random_inputs (void)
{
  for (int round = 0; round < 2000; round++)
    {
      guint alphabet = round % 3 == 0 ? 2 : round % 3 == 1 ? 4 : 12;
      g_autofree char *old_chars = random_string (round < 1000 ? 12 : 60, alphabet);
      g_autofree char *new_chars = random_string (round < 1000 ? 12 : 60, alphabet);
      char **a, **b;
      g_autoptr(GArray) rows = diff_chars (old_chars, new_chars, &a, &b);
      guint n = strlen (old_chars), m = strlen (new_chars);
      TildeDiffStats stats;

      assert_consistent (rows, a, n, b, m);
      tilde_line_diff_count (rows, &stats);
      if (stats.same != lcs_length (a, n, b, m))
        g_error ("%s -> %s: %u lines kept, the longest common subsequence has %u",
                 old_chars, new_chars, stats.same, lcs_length (a, n, b, m));
      g_strfreev (a);
      g_strfreev (b);
    }
}

/* Long texts with a few edits stay quick (linear space, O(ND) time). */
static void
test_long_texts (void)
{
  GString *old_text = g_string_new (NULL);
  GString *new_text = g_string_new (NULL);
  g_autoptr(GArray) rows = NULL;
  TildeDiffStats stats;

  for (int i = 0; i < 20000; i++)
    {
      g_string_append_printf (old_text, "line %d\n", i);
      if (i % 1000 == 7)
        g_string_append_printf (new_text, "edited %d\n", i);
      else if (i % 1000 != 500)
        g_string_append_printf (new_text, "line %d\n", i);
    }
  rows = tilde_line_diff_texts (old_text->str, new_text->str);
  tilde_line_diff_count (rows, &stats);
  g_assert_cmpuint (stats.changed, ==, 20);
  g_assert_cmpuint (stats.removed, ==, 20);
  g_assert_cmpuint (stats.added, ==, 0);
  g_assert_cmpuint (stats.same, ==, 20000 - 40);
  g_string_free (old_text, TRUE);
  g_string_free (new_text, TRUE);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/line-diff/identical", test_identical);
  g_test_add_func ("/engine/line-diff/changed-line", test_changed_line);
  g_test_add_func ("/engine/line-diff/removed-line", test_removed_line);
  g_test_add_func ("/engine/line-diff/added-lines", test_added_lines);
  g_test_add_func ("/engine/line-diff/uneven-run", test_uneven_run);
  g_test_add_func ("/engine/line-diff/empty-sides", test_empty_sides);
  g_test_add_func ("/engine/line-diff/disjoint", test_disjoint);
  g_test_add_func ("/engine/line-diff/split", test_split);
  g_test_add_func ("/engine/line-diff/myers-example", test_myers_example);
  g_test_add_func ("/engine/line-diff/swap", test_swap);
  g_test_add_func ("/engine/line-diff/minimal-on-random-inputs", test_minimal_on_random_inputs);
  g_test_add_func ("/engine/line-diff/long-texts", test_long_texts);
  return g_test_run ();
}
