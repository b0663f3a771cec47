/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The IR view's rows in its two buffers: the diff's rows with their colours
 * and gutter marks, the MIR highlighted as lines go in, and a result put in
 * a slice at a time so that a long program never stalls the window.
 */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <string.h>
#include <time.h>

#include "tilde-ir-view-internal.h"
#include "tilde-long-lines.h"

static void
tag_mir_token (TildeMirToken token, gsize start, gsize end, gpointer user_data)
{
  Side *s = ((gpointer *) user_data)[0];
  const GtkTextIter *line = ((gpointer *) user_data)[1];
  GtkTextIter b = *line, e = *line;

  gtk_text_iter_set_line_index (&b, (int) start);
  gtk_text_iter_set_line_index (&e, (int) end);
  gtk_text_buffer_apply_tag (GTK_TEXT_BUFFER (s->buffer), s->mir_tags[token], &b, &e);
}

/* Highlights inserted lines as they go in, instead of GtkSourceView's
 * context engine, which analyses again all the text after any deletion in
 * background slices of 30 ms of the main thread. A line too long to
 * highlight (a constant array of thousands of numbers) stays plain: each
 * token's place is found from the start of its line, among the pieces the
 * earlier tags cut it into, and a line of 3,000 numbers took 1.7 s. */
static void
highlight_lines (Side *s, guint first, guint n)
{
  for (guint i = first; i < first + n; i++)
    {
      const char *text = g_ptr_array_index (s->lines, i);
      GtkTextIter line;
      gpointer data[2] = { s, &line };

      if (strlen (text) > TILDE_HIGHLIGHT_LINE_LIMIT)
        continue;
      gtk_text_buffer_get_iter_at_line (GTK_TEXT_BUFFER (s->buffer), &line, (int) i);
      tilde_mir_highlight_line (text, strlen (text), tag_mir_token, data);
    }
}


/* ---- showing rows ---- */

static char
row_mark (TildeDiffKind kind, TildeIrSide side)
{
  switch (kind)
    {
    case TILDE_DIFF_CHANGED:
      return '~';
    case TILDE_DIFF_REMOVED:
      return side == TILDE_IR_SIDE_LEFT ? '-' : ' ';
    case TILDE_DIFF_ADDED:
      return side == TILDE_IR_SIDE_RIGHT ? '+' : ' ';
    case TILDE_DIFF_SAME:
    default:
      return ' ';
    }
}

static int
row_tag (TildeDiffKind kind, TildeIrSide side)
{
  switch (kind)
    {
    case TILDE_DIFF_CHANGED:
      return TAG_CHANGED;
    case TILDE_DIFF_REMOVED:
      return side == TILDE_IR_SIDE_LEFT ? TAG_REMOVED : TAG_FILLER;
    case TILDE_DIFF_ADDED:
      return side == TILDE_IR_SIDE_RIGHT ? TAG_ADDED : TAG_FILLER;
    case TILDE_DIFF_SAME:
    default:
      return -1;
    }
}

int
_tilde_ir_view_row_line (const TildeDiffRow *row, TildeIrSide side)
{
  return side == TILDE_IR_SIDE_LEFT ? row->old_line : row->new_line;
}

void
_tilde_ir_view_apply_line_tag (GtkTextBuffer *buffer, GtkTextTag *tag, int first, int last)
{
  GtkTextIter begin, end;

  gtk_text_buffer_get_iter_at_line (buffer, &begin, first);
  if (!gtk_text_buffer_get_iter_at_line (buffer, &end, last + 1))
    gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_apply_tag (buffer, tag, &begin, &end);
}

/* ---- putting rows in the buffers, a slice at a time ---- */

/* A compile of a big model puts thousands of MIR lines in each view.
 * Put in at once, they stall the window: the insertion itself, its
 * highlighting, and the text views measuring the new lines. So only the
 * rows that differ from what the buffers hold are replaced: first the old
 * rows are removed, then the new rows go in a slice at a time from an idle
 * callback below the priority of the measuring of the last slice, small
 * enough for that to keep up. A newer result takes over from wherever a
 * half-applied one stopped. At every step buffer_rows says what each
 * buffer line is, for the gutter, the links to the source and the source
 * mark: old lines not yet removed ("stale") link nowhere. The view's
 * scroll position is set again once all rows are in. */

#define APPLY_BUDGET_US 4000    /* main-thread time of one slice */
#define APPLY_CHUNK     16      /* rows an insertion */
#define APPLY_MIN_ROWS  16
#define APPLY_MAX_ROWS  512
/* What the main thread may spend between two slices: measuring the rows
 * of the last one, and drawing a frame. */
#define APPLY_AFTER_US  8000

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean
row_is_stale (const TildeDiffRow *row)
{
  return row->old_line < 0 && row->new_line < 0;
}

static const char *
target_line (TildeIrView *self, TildeIrSide side, const TildeDiffRow *row)
{
  int line = _tilde_ir_view_row_line (row, side);

  return line >= 0 ? self->sides[side].text_lines[line] : "";
}

/* The buffer line holds what the target row shows, on both sides. */
static gboolean
row_matches (TildeIrView *self, guint buffer_row, const TildeDiffRow *target)
{
  const TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, buffer_row);

  if (row_is_stale (row) || row->kind != target->kind)
    return FALSE;
  for (guint side = 0; side < 2; side++)
    if (!g_str_equal (g_ptr_array_index (self->sides[side].lines, buffer_row),
                      target_line (self, side, target)))
      return FALSE;
  return TRUE;
}

void
_tilde_ir_view_update_gutters (TildeIrView *self)
{
  for (guint side = 0; side < 2; side++)
    {
      GArray *gutter = g_array_sized_new (FALSE, FALSE, sizeof (TildeDiffGutterRow),
                                          self->buffer_rows->len);

      for (guint i = 0; i < self->buffer_rows->len; i++)
        {
          const TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, i);
          int line = _tilde_ir_view_row_line (row, side);
          TildeDiffGutterRow g = { line >= 0 ? (guint) line + 1 : 0, row_mark (row->kind, side) };

          g_array_append_val (gutter, g);
        }
      tilde_diff_gutter_set_rows (self->sides[side].gutter, gutter);
    }
}

/* Gives buffer lines first..last the diff colour of their kind, and no
 * other: an insertion or deletion next to them moved line ends. */
static void
retag_rows (TildeIrView *self, TildeIrSide side, int first, int last)
{
  Side *s = &self->sides[side];
  GtkTextBuffer *buffer = side_buffer (s);
  int run_tag = -1, run_start = first;
  GtkTextIter begin, end;

  first = MAX (first, 0);
  last = MIN (last, (int) self->buffer_rows->len - 1);
  if (first > last)
    return;
  gtk_text_buffer_get_iter_at_line (buffer, &begin, first);
  if (!gtk_text_buffer_get_iter_at_line (buffer, &end, last + 1))
    gtk_text_buffer_get_end_iter (buffer, &end);
  for (guint t = 0; t < TAG_SOURCE; t++)
    gtk_text_buffer_remove_tag (buffer, s->tags[t], &begin, &end);
  for (int i = first; i <= last + 1; i++)
    {
      int tag = i <= last ? row_tag (g_array_index (self->buffer_rows, TildeDiffRow, i).kind, side) : -1;

      if (tag == run_tag)
        continue;
      if (run_tag >= 0)
        _tilde_ir_view_apply_line_tag (buffer, s->tags[run_tag], run_start, i - 1);
      run_tag = tag;
      run_start = i;
    }
}

static void
line_end_iter (GtkTextBuffer *buffer, GtkTextIter *iter, int line)
{
  gtk_text_buffer_get_iter_at_line (buffer, iter, line);
  if (!gtk_text_iter_ends_line (iter))
    gtk_text_iter_forward_to_line_end (iter);
}

/* The next `n` rows of the apply, before buffer line insert_at: at the end
 * of the line above, so that a mark at the start of the line below stays
 * with it. */
static void
insert_rows (TildeIrView *self, guint n)
{
  Apply *a = self->apply;
  const TildeDiffRow *rows = &g_array_index (self->rows, TildeDiffRow, a->next);

  for (guint side = 0; side < 2; side++)
    {
      Side *s = &self->sides[side];
      GtkTextBuffer *buffer = side_buffer (s);
      GString *text = g_string_new (NULL);
      GtkTextIter iter;

      for (guint i = 0; i < n; i++)
        {
          const char *line = target_line (self, side, &rows[i]);

          if (a->insert_at > 0 || i > 0)
            g_string_append_c (text, '\n');
          g_string_append (text, line);
          g_ptr_array_insert (s->lines, (int) (a->insert_at + i), g_strdup (line));
        }
      if (a->insert_at > 0)
        line_end_iter (buffer, &iter, (int) a->insert_at - 1);
      else
        {
          /* Before the first line, or into the empty line of a buffer
           * whose rows were all removed. */
          if (self->buffer_rows->len > 0)
            g_string_append_c (text, '\n');
          gtk_text_buffer_get_start_iter (buffer, &iter);
        }
      gtk_text_buffer_insert (buffer, &iter, text->str, (int) text->len);
      g_string_free (text, TRUE);
      highlight_lines (s, a->insert_at, n);
    }
  g_array_insert_vals (self->buffer_rows, a->insert_at, rows, n);
  for (guint side = 0; side < 2; side++)
    retag_rows (self, side, (int) a->insert_at - 1, (int) (a->insert_at + n));
  a->next += n;
  a->insert_at += n;
}

/* Removes the last run of stale rows, or its last APPLY_CHUNK * 8 rows;
 * FALSE when there are none. Stale rows go before any new row comes in, in
 * slices like the insertions, so that no one main-loop turn deletes a whole
 * long program and the buffers never hold both versions in full. */
static gboolean
remove_stale_rows (TildeIrView *self)
{
  Apply *a = self->apply;
  guint b, e = self->buffer_rows->len;

  while (e > 0 && !row_is_stale (&g_array_index (self->buffer_rows, TildeDiffRow, e - 1)))
    e--;
  if (e == 0)
    return FALSE;
  b = e - 1;
  while (b > 0 && e - b < APPLY_CHUNK * 8 && row_is_stale (&g_array_index (self->buffer_rows, TildeDiffRow, b - 1)))
    b--;
  for (guint side = 0; side < 2; side++)
    {
      Side *s = &self->sides[side];
      GtkTextBuffer *buffer = side_buffer (s);
      GtkTextIter begin, end;

      if (b > 0)
        {
          line_end_iter (buffer, &begin, (int) b - 1);
          line_end_iter (buffer, &end, (int) e - 1);
        }
      else
        {
          gtk_text_buffer_get_start_iter (buffer, &begin);
          gtk_text_buffer_get_iter_at_line (buffer, &end, (int) e);
        }
      gtk_text_buffer_delete (buffer, &begin, &end);
      g_ptr_array_remove_range (s->lines, b, e - b);
    }
  g_array_remove_range (self->buffer_rows, b, e - b);
  for (guint side = 0; side < 2; side++)
    retag_rows (self, side, (int) b - 1, (int) b);
  if (e <= a->insert_at)
    a->insert_at -= e - b;
  return TRUE;
}

void
_tilde_ir_view_cancel_apply (TildeIrView *self)
{
  if (self->apply == NULL)
    return;
  g_clear_handle_id (&self->apply->source, g_source_remove);
  g_clear_pointer (&self->apply, g_free);
}

static void
finish_apply (TildeIrView *self)
{
  int top = self->apply->top;

  _tilde_ir_view_cancel_apply (self);
  self->last_source_row = -1;
  self->highlighted_line = -1;
  _tilde_ir_view_scroll_to_row (self, top, TRUE);
  self->last_top_row = top;
  _tilde_ir_view_update_source_highlight (self);
  if (self->result_pending)
    {
      self->result_pending = FALSE;
      _tilde_ir_view_finish_result (self);
    }
}

/* One slice: TRUE when the apply is done (and gone). */
static gboolean
apply_slice (TildeIrView *self)
{
  Apply *a = self->apply;
  gint64 start = g_get_monotonic_time ();
  guint limit = self->apply_rows > 0 ? self->apply_rows : a->rows, done = 0;
  gboolean stale = TRUE;

  self->updating = TRUE;
  while (done < limit && g_get_monotonic_time () - start < APPLY_BUDGET_US)
    {
      guint n = MIN (MIN (APPLY_CHUNK, a->end - a->next), limit - done);

      if (stale && (stale = remove_stale_rows (self)))
        done++;
      else if (n > 0)
        {
          insert_rows (self, n);
          done += n;
        }
      else
        break;
    }
  self->updating = FALSE;
  _tilde_ir_view_update_gutters (self);
  a->slice_end = thread_cpu_us ();
  if (a->next < a->end || stale)
    return FALSE;
  a->source = 0;
  finish_apply (self);
  return TRUE;
}

/* The slices follow what the main thread did since the last one (the
 * text views' measuring of the new lines, a frame): fewer rows when it was
 * more than APPLY_AFTER_US, more when it was well under. */
static void
pace_apply (Apply *a)
{
  gint64 after = thread_cpu_us () - a->slice_end;

  if (after > APPLY_AFTER_US)
    a->rows = MAX (a->rows / 2, APPLY_MIN_ROWS);
  else if (after < APPLY_AFTER_US / 2)
    a->rows = MIN (a->rows + a->rows / 2, APPLY_MAX_ROWS);
}

static gboolean
apply_idle (gpointer user_data)
{
  TildeIrView *self = user_data;

  pace_apply (self->apply);
  if (apply_slice (self))
    return G_SOURCE_REMOVE;
  if (!self->apply_hold)
    return G_SOURCE_CONTINUE;
  self->apply->source = 0;
  return G_SOURCE_REMOVE;
}

/* Below the priority of the text views' measuring and drawing. */
void
_tilde_ir_view_schedule_apply (TildeIrView *self)
{
  if (self->apply == NULL || self->apply->source != 0 || self->apply_hold)
    return;
  self->apply->source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, apply_idle, self, NULL);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->apply->source),
                            "[tilde] compiler output, a slice");
}

/* Keeps the lines at either end that already show what `rows` shows (most
 * of them after an edit; stale lines of an apply cut short are passed
 * over), marks those between stale, and applies the first slice now. New
 * rows go before the unchanged tail, once the stale ones are gone. */
void
_tilde_ir_view_begin_apply (TildeIrView *self, int top)
{
  GArray *rows = self->rows;
  guint nb = self->buffer_rows->len, nt = rows->len, i = 0, j = 0, bi = nb, bj = nt, insert_at = nb;
  Apply *a;

  while (i < nb && j < nt)
    {
      TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, i);

      if (!row_is_stale (row))
        {
          if (!row_matches (self, i, &g_array_index (rows, TildeDiffRow, j)))
            break;
          *row = g_array_index (rows, TildeDiffRow, j++);
        }
      i++;
    }
  while (bi > i && bj > j)
    {
      TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, bi - 1);

      if (!row_is_stale (row))
        {
          if (!row_matches (self, bi - 1, &g_array_index (rows, TildeDiffRow, bj - 1)))
            break;
          *row = g_array_index (rows, TildeDiffRow, --bj);
          insert_at = bi - 1;
        }
      bi--;
    }
  for (guint k = i; k < insert_at; k++)
    {
      TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, k);

      row->old_line = row->new_line = -1;
    }
  a = self->apply = g_new0 (Apply, 1);
  a->next = j;
  a->end = bj;
  a->insert_at = insert_at;
  a->top = top;
  a->rows = APPLY_CHUNK * 4;
  self->applies++;
  if (!apply_slice (self))
    _tilde_ir_view_schedule_apply (self);
}
