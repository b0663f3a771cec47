/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "tilde-line-diff.h"

#include <string.h>

/* Edit script operations, one per line of the script. */
enum {
  OP_SAME = '=',
  OP_REMOVE = '-',
  OP_ADD = '+',
};

typedef struct {
  const guint *a;     /* old lines as numbers: equal lines, equal numbers */
  const guint *b;
  GByteArray  *ops;
} Differ;

static void
emit (Differ *d, guint8 op, int count)
{
  for (int i = 0; i < count; i++)
    g_byte_array_append (d->ops, &op, 1);
}

/* Myers's middle snake of A[0..n) and B[0..m): a point (*x, *y) on a
 * shortest edit path, found by running the forward and the backward search
 * by turns until they overlap. v1 and v2 hold, per diagonal k = x - y, the
 * furthest x the forward (backward, counted from the ends) search reached.
 * Returns FALSE when the searches never met, which only happens when the
 * two have nothing in common. */
static gboolean
middle_snake (const guint *A, int n, const guint *B, int m, int *x, int *y)
{
  int max_d = (n + m + 1) / 2;
  int offset = max_d + 1;
  int len = 2 * max_d + 3;
  int delta = n - m;
  gboolean odd = (delta & 1) != 0;
  int k1_start = 0, k1_end = 0, k2_start = 0, k2_end = 0;
  g_autofree int *v1 = g_new (int, len);
  g_autofree int *v2 = g_new (int, len);

  for (int i = 0; i < len; i++)
    v1[i] = v2[i] = -1;
  v1[offset + 1] = 0;
  v2[offset + 1] = 0;

  for (int d = 0; d <= max_d; d++)
    {
      for (int k1 = -d + k1_start; k1 <= d - k1_end; k1 += 2)
        {
          int i1 = offset + k1;
          int x1, y1;

          if (k1 == -d || (k1 != d && v1[i1 - 1] < v1[i1 + 1]))
            x1 = v1[i1 + 1];
          else
            x1 = v1[i1 - 1] + 1;
          y1 = x1 - k1;
          while (x1 < n && y1 < m && A[x1] == B[y1])
            x1++, y1++;
          v1[i1] = x1;
          if (x1 > n)
            k1_end += 2;          /* ran off the right edge */
          else if (y1 > m)
            k1_start += 2;        /* ran off the bottom edge */
          else if (odd)
            {
              int i2 = offset + delta - k1;

              if (i2 >= 0 && i2 < len && v2[i2] != -1 && x1 >= n - v2[i2])
                {
                  *x = x1;
                  *y = y1;
                  return TRUE;
                }
            }
        }

      for (int k2 = -d + k2_start; k2 <= d - k2_end; k2 += 2)
        {
          int i2 = offset + k2;
          int x2, y2;

          if (k2 == -d || (k2 != d && v2[i2 - 1] < v2[i2 + 1]))
            x2 = v2[i2 + 1];
          else
            x2 = v2[i2 - 1] + 1;
          y2 = x2 - k2;
          while (x2 < n && y2 < m && A[n - x2 - 1] == B[m - y2 - 1])
            x2++, y2++;
          v2[i2] = x2;
          if (x2 > n)
            k2_end += 2;
          else if (y2 > m)
            k2_start += 2;
          else if (!odd)
            {
              int i1 = offset + delta - k2;

              if (i1 >= 0 && i1 < len && v1[i1] != -1)
                {
                  int x1 = v1[i1];
                  int y1 = x1 - (delta - k2);

                  if (x1 >= n - x2)
                    {
                      *x = x1;
                      *y = y1;
                      return TRUE;
                    }
                }
            }
        }
    }
  return FALSE;
}

/* Appends the script of a[a_lo..a_hi) against b[b_lo..b_hi). */
static void
diff_range (Differ *d, int a_lo, int a_hi, int b_lo, int b_hi)
{
  int suffix = 0;
  int x, y;

  while (a_lo < a_hi && b_lo < b_hi && d->a[a_lo] == d->b[b_lo])
    {
      emit (d, OP_SAME, 1);
      a_lo++, b_lo++;
    }
  while (a_hi > a_lo && b_hi > b_lo && d->a[a_hi - 1] == d->b[b_hi - 1])
    {
      a_hi--, b_hi--;
      suffix++;
    }

  if (a_lo == a_hi)
    emit (d, OP_ADD, b_hi - b_lo);
  else if (b_lo == b_hi)
    emit (d, OP_REMOVE, a_hi - a_lo);
  else if (middle_snake (d->a + a_lo, a_hi - a_lo, d->b + b_lo, b_hi - b_lo, &x, &y)
           && !(x == 0 && y == 0)
           && !(x == a_hi - a_lo && y == b_hi - b_lo))
    {
      diff_range (d, a_lo, a_lo + x, b_lo, b_lo + y);
      diff_range (d, a_lo + x, a_hi, b_lo + y, b_hi);
    }
  else
    {
      emit (d, OP_REMOVE, a_hi - a_lo);
      emit (d, OP_ADD, b_hi - b_lo);
    }
  emit (d, OP_SAME, suffix);
}

static void
add_row (GArray *rows, TildeDiffKind kind, int old_line, int new_line)
{
  TildeDiffRow row = { kind, old_line, new_line };

  g_array_append_val (rows, row);
}

/* Rows from the script: each run of edits between unchanged lines becomes
 * its changed pairs, then what is left of its removals, then of its
 * additions. */
static GArray *
rows_of_script (const GByteArray *ops)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (TildeDiffRow));
  int i = 0, j = 0;
  guint pos = 0;

  while (pos < ops->len)
    {
      int n_removed = 0, n_added = 0, pairs;

      if (ops->data[pos] == OP_SAME)
        {
          add_row (rows, TILDE_DIFF_SAME, i++, j++);
          pos++;
          continue;
        }
      for (; pos < ops->len && ops->data[pos] != OP_SAME; pos++)
        {
          if (ops->data[pos] == OP_REMOVE)
            n_removed++;
          else
            n_added++;
        }
      pairs = MIN (n_removed, n_added);
      for (int t = 0; t < pairs; t++)
        add_row (rows, TILDE_DIFF_CHANGED, i + t, j + t);
      for (int t = pairs; t < n_removed; t++)
        add_row (rows, TILDE_DIFF_REMOVED, i + t, -1);
      for (int t = pairs; t < n_added; t++)
        add_row (rows, TILDE_DIFF_ADDED, -1, j + t);
      i += n_removed;
      j += n_added;
    }
  return rows;
}

/* Numbers each distinct line, so that the search compares numbers. */
static guint *
number_lines (GHashTable *ids, const char *const *lines, guint n)
{
  guint *numbers = g_new (guint, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      gpointer id;

      if (!g_hash_table_lookup_extended (ids, lines[i], NULL, &id))
        {
          id = GUINT_TO_POINTER (g_hash_table_size (ids));
          g_hash_table_insert (ids, (gpointer) lines[i], id);
        }
      numbers[i] = GPOINTER_TO_UINT (id);
    }
  return numbers;
}

GArray *
tilde_line_diff (const char *const *old_lines, guint n_old,
                 const char *const *new_lines, guint n_new)
{
  g_autoptr(GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree guint *a = NULL;
  g_autofree guint *b = NULL;
  g_autoptr(GByteArray) ops = g_byte_array_sized_new (MAX (n_old, n_new));
  Differ d;

  g_return_val_if_fail (old_lines != NULL || n_old == 0, NULL);
  g_return_val_if_fail (new_lines != NULL || n_new == 0, NULL);
  g_return_val_if_fail (n_old <= G_MAXINT / 2 && n_new <= G_MAXINT / 2, NULL);

  a = number_lines (ids, old_lines, n_old);
  b = number_lines (ids, new_lines, n_new);
  d.a = a;
  d.b = b;
  d.ops = ops;
  diff_range (&d, 0, (int) n_old, 0, (int) n_new);
  return rows_of_script (ops);
}

char **
tilde_line_diff_split (const char *text, guint *n_lines)
{
  char **lines;
  guint n;

  g_return_val_if_fail (text != NULL, NULL);
  lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  /* The piece after a final newline (or of an empty text) is no line. */
  if (n > 0 && lines[n - 1][0] == '\0')
    {
      g_free (lines[n - 1]);
      lines[--n] = NULL;
    }
  if (n_lines != NULL)
    *n_lines = n;
  return lines;
}

GArray *
tilde_line_diff_texts (const char *old_text, const char *new_text)
{
  guint n_old, n_new;
  g_auto(GStrv) old_lines = tilde_line_diff_split (old_text, &n_old);
  g_auto(GStrv) new_lines = tilde_line_diff_split (new_text, &n_new);

  g_return_val_if_fail (old_lines != NULL && new_lines != NULL, NULL);
  return tilde_line_diff ((const char *const *) old_lines, n_old,
                          (const char *const *) new_lines, n_new);
}

void
tilde_line_diff_count (const GArray *rows, TildeDiffStats *stats)
{
  g_return_if_fail (rows != NULL);
  g_return_if_fail (stats != NULL);

  memset (stats, 0, sizeof *stats);
  for (guint i = 0; i < rows->len; i++)
    switch (g_array_index (rows, TildeDiffRow, i).kind)
      {
      case TILDE_DIFF_SAME:
        stats->same++;
        break;
      case TILDE_DIFF_REMOVED:
        stats->removed++;
        break;
      case TILDE_DIFF_ADDED:
        stats->added++;
        break;
      case TILDE_DIFF_CHANGED:
        stats->changed++;
        break;
      default:
        g_assert_not_reached ();
      }
}

guint
tilde_diff_stats_edits (const TildeDiffStats *stats)
{
  g_return_val_if_fail (stats != NULL, 0);
  return stats->removed + stats->added + stats->changed;
}
