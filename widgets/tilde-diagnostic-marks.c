/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include "tilde-diagnostic-hover.h"
#include "tilde-diagnostic-marks.h"

#define MARK_ERROR "tilde-error"
#define MARK_WARNING "tilde-warning"

struct _TildeDiagnosticMarks
{
  GObject               parent_instance;

  GtkSourceView        *view;
  GtkSourceBuffer      *buffer;
  GtkTextTag           *error_tag;
  GtkTextTag           *warning_tag;
  GListStore           *problems;
  TildeDiagnosticHover *hover;
};

G_DEFINE_FINAL_TYPE (TildeDiagnosticMarks, tilde_diagnostic_marks, G_TYPE_OBJECT)

/* ---- positions: the engine counts lines from 1 and columns in bytes ---- */

void
tilde_text_iter_at_position (GtkTextBuffer *buffer, GtkTextIter *iter, int line, int column)
{
  GtkTextIter line_end;
  g_autofree char *text = NULL;
  const char *p;

  if (!gtk_text_buffer_get_iter_at_line (buffer, iter, MAX (line, 1) - 1))
    return;   /* past the last line: the end of the buffer */
  line_end = *iter;
  if (!gtk_text_iter_ends_line (&line_end))
    gtk_text_iter_forward_to_line_end (&line_end);
  text = gtk_text_iter_get_slice (iter, &line_end);
  p = text;
  while (*p != '\0' && (gsize) (p - text) + g_utf8_skip[*(const guchar *) p] <= (gsize) MAX (column, 0))
    p = g_utf8_next_char (p);
  gtk_text_iter_set_line_offset (iter, (int) g_utf8_pointer_to_offset (text, p));
}

/* ---- styles ---- */

static void
refresh_tag_style (GtkTextTag *tag, GtkSourceStyleScheme *scheme, const char *style_id,
                   const char *fallback_colour)
{
  GtkSourceStyle *style = scheme ? gtk_source_style_scheme_get_style (scheme, style_id) : NULL;
  GdkRGBA colour;

  gtk_source_style_apply (NULL, tag);
  if (style != NULL)
    {
      gtk_source_style_apply (style, tag);
      return;
    }
  /* A scheme without the style still gets a squiggle. */
  gdk_rgba_parse (&colour, fallback_colour);
  g_object_set (tag, "underline", PANGO_UNDERLINE_ERROR, "underline-rgba", &colour, NULL);
}

/* The colour a scheme gives a style's squiggle, or `fallback`. */
static GdkRGBA
squiggle_colour (GtkSourceStyleScheme *scheme, const char *style_id, const char *fallback)
{
  GtkSourceStyle *style = scheme ? gtk_source_style_scheme_get_style (scheme, style_id) : NULL;
  g_autofree char *spec = NULL;
  gboolean set = FALSE;
  GdkRGBA colour;

  if (style != NULL)
    g_object_get (style, "underline-color-set", &set, "underline-color", &spec, NULL);
  if (!set || spec == NULL || !gdk_rgba_parse (&colour, spec))
    gdk_rgba_parse (&colour, fallback);
  return colour;
}

static void
refresh_mark_background (TildeDiagnosticMarks *self, const char *category, GdkRGBA colour)
{
  GtkSourceMarkAttributes *attributes = gtk_source_view_get_mark_attributes (self->view, category, NULL);

  /* A faint band across the line, in the squiggle's colour: the gutter
   * draws its icons in one colour for all. */
  colour.alpha = 0.12f;
  if (attributes != NULL)
    gtk_source_mark_attributes_set_background (attributes, &colour);
}

static void
refresh_tag_styles (TildeDiagnosticMarks *self)
{
  GtkSourceStyleScheme *scheme = gtk_source_buffer_get_style_scheme (self->buffer);

  refresh_tag_style (self->error_tag, scheme, "def:error", "#e01b24");
  refresh_tag_style (self->warning_tag, scheme, "def:warning", "#e5a50a");
  refresh_mark_background (self, MARK_ERROR, squiggle_colour (scheme, "def:error", "#e01b24"));
  refresh_mark_background (self, MARK_WARNING, squiggle_colour (scheme, "def:warning", "#e5a50a"));
}

static char *
mark_tooltip (GtkSourceMarkAttributes *attributes, GtkSourceMark *mark, gpointer user_data)
{
  return g_strdup (g_object_get_data (G_OBJECT (mark), "tilde-message"));
}

static void
add_mark_category (TildeDiagnosticMarks *self, const char *category, const char *icon_name,
                   int priority)
{
  g_autoptr(GtkSourceMarkAttributes) attributes = gtk_source_mark_attributes_new ();

  gtk_source_mark_attributes_set_icon_name (attributes, icon_name);
  g_signal_connect (attributes, "query-tooltip-text", G_CALLBACK (mark_tooltip), NULL);
  gtk_source_view_set_mark_attributes (self->view, category, attributes, priority);
}

/* ---- placing diagnostics ---- */

/* Where a diagnostic belongs in this buffer: its own span when it is in
 * the edited file, else the #include line of the main file that led to it. */
static gboolean
diagnostic_place (const TildeDiagnostic *d, const char *main_name,
                  int *line, int *column, int *end_line, int *end_column)
{
  if (d->include_frames != NULL && d->include_frames->len > 0)
    {
      const TildeIncludeFrame *outer = &g_array_index (d->include_frames, TildeIncludeFrame,
                                                       d->include_frames->len - 1);

      if (g_strcmp0 (outer->file, main_name) != 0 || outer->line <= 0)
        return FALSE;
      *line = *end_line = outer->line;
      *column = outer->column;
      *end_column = G_MAXINT;
      return TRUE;
    }
  if (d->begin_line <= 0 || (d->file != NULL && g_strcmp0 (d->file, main_name) != 0))
    return FALSE;
  *line = d->begin_line;
  *column = d->begin_column;
  *end_line = d->end_line > 0 ? d->end_line : d->begin_line;
  *end_column = d->end_line > 0 ? d->end_column : d->begin_column;
  return TRUE;
}

static void
widen_empty_range (GtkTextIter *begin, GtkTextIter *end)
{
  if (gtk_text_iter_compare (begin, end) < 0)
    return;
  *end = *begin;
  if (!gtk_text_iter_ends_line (end))
    gtk_text_iter_forward_char (end);
  else if (!gtk_text_iter_starts_line (begin))
    gtk_text_iter_backward_char (begin);
}

/* Where a diagnostic goes: a range of the buffer, in characters, or none. */
typedef struct {
  const TildeDiagnostic *diagnostic;
  gboolean               placed;
  int                    begin;
  int                    end;
} Placement;

static void
place (TildeDiagnosticMarks *self, const TildeDiagnostic *d, const char *main_name,
       Placement *placement)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  int line, column, end_line, end_column;
  GtkTextIter begin, end;

  placement->diagnostic = d;
  placement->placed = diagnostic_place (d, main_name, &line, &column, &end_line, &end_column);
  if (!placement->placed)
    return;
  tilde_text_iter_at_position (buffer, &begin, line, column);
  tilde_text_iter_at_position (buffer, &end, end_line, end_column);
  if (gtk_text_iter_compare (&end, &begin) < 0)
    end = begin;
  widen_empty_range (&begin, &end);
  placement->begin = gtk_text_iter_get_offset (&begin);
  placement->end = gtk_text_iter_get_offset (&end);
}

static gboolean
same_frames (const GArray *a, const GArray *b)
{
  guint n = a ? a->len : 0;

  if (n != (b ? b->len : 0))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const TildeIncludeFrame *x = &g_array_index (a, TildeIncludeFrame, i);
      const TildeIncludeFrame *y = &g_array_index (b, TildeIncludeFrame, i);

      if (x->line != y->line || x->column != y->column || g_strcmp0 (x->file, y->file) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Whether `problem` shows `placement` already: the same diagnostic (so
 * the same row), and its marks where the new one goes. */
static gboolean
problem_shows (TildeProblem *problem, const Placement *placement)
{
  const TildeDiagnostic *old = tilde_problem_get_diagnostic (problem);
  const TildeDiagnostic *d = placement->diagnostic;
  GtkTextIter begin, end;

  if (old->severity != d->severity || old->kind != d->kind
      || old->begin_line != d->begin_line || old->begin_column != d->begin_column
      || old->end_line != d->end_line || old->end_column != d->end_column
      || g_strcmp0 (old->file, d->file) != 0 || g_strcmp0 (old->message, d->message) != 0
      || !same_frames (old->include_frames, d->include_frames))
    return FALSE;
  if (!tilde_problem_get_bounds (problem, &begin, &end))
    return !placement->placed;
  return placement->placed && gtk_text_iter_get_offset (&begin) == placement->begin
         && gtk_text_iter_get_offset (&end) == placement->end;
}

static gboolean
item_shows (GListModel *problems, guint position, const Placement *placement)
{
  g_autoptr(TildeProblem) problem = g_list_model_get_item (problems, position);

  return problem_shows (problem, placement);
}

static TildeProblem *
new_problem (TildeDiagnosticMarks *self, const Placement *placement)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkTextIter begin, end;

  if (!placement->placed)
    return tilde_problem_new (placement->diagnostic, NULL, NULL);
  gtk_text_buffer_get_iter_at_offset (buffer, &begin, placement->begin);
  gtk_text_buffer_get_iter_at_offset (buffer, &end, placement->end);
  return tilde_problem_new (placement->diagnostic,
                            gtk_text_buffer_create_mark (buffer, NULL, &begin, TRUE),
                            gtk_text_buffer_create_mark (buffer, NULL, &end, FALSE));
}

/* The squiggle and the gutter mark of a problem with a place. */
static void
mark_problem (TildeDiagnosticMarks *self, TildeProblem *problem)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  gboolean is_error = tilde_problem_get_severity (problem) == TILDE_SEVERITY_ERROR;
  GtkTextIter begin, end, line_start;
  GtkSourceMark *mark;

  if (!tilde_problem_get_bounds (problem, &begin, &end))
    return;
  gtk_text_buffer_apply_tag (buffer, is_error ? self->error_tag : self->warning_tag, &begin, &end);
  line_start = begin;
  gtk_text_iter_set_line_offset (&line_start, 0);
  mark = gtk_source_buffer_create_source_mark (self->buffer, NULL,
                                               is_error ? MARK_ERROR : MARK_WARNING,
                                               &line_start);
  g_object_set_data_full (G_OBJECT (mark), "tilde-message",
                          g_strdup (tilde_problem_get_message (problem)), g_free);
}

/* Squiggles above the highlighting, whose tags come and go. */
static void
raise_tags (TildeDiagnosticMarks *self)
{
  int top = gtk_text_tag_table_get_size (gtk_text_buffer_get_tag_table (GTK_TEXT_BUFFER (self->buffer))) - 1;

  if (gtk_text_tag_get_priority (self->error_tag) == top
      && gtk_text_tag_get_priority (self->warning_tag) == top - 1)
    return;
  gtk_text_tag_set_priority (self->warning_tag, top);
  gtk_text_tag_set_priority (self->error_tag, top);
}

/* Only where the tag is: removing it from the whole buffer would have the
 * view measure every line again. */
static void
remove_tag_where_applied (GtkTextBuffer *buffer, GtkTextTag *tag)
{
  GtkTextIter begin, end;

  gtk_text_buffer_get_start_iter (buffer, &begin);
  while (gtk_text_iter_starts_tag (&begin, tag) || gtk_text_iter_forward_to_tag_toggle (&begin, tag))
    {
      int offset;

      end = begin;
      gtk_text_iter_forward_to_tag_toggle (&end, tag);
      offset = gtk_text_iter_get_offset (&end);
      gtk_text_buffer_remove_tag (buffer, tag, &begin, &end);
      gtk_text_buffer_get_iter_at_offset (buffer, &begin, offset);
    }
}

static void
remove_marks (TildeDiagnosticMarks *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkTextIter start, end;

  remove_tag_where_applied (buffer, self->error_tag);
  remove_tag_where_applied (buffer, self->warning_tag);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_source_buffer_remove_source_marks (self->buffer, &start, &end, MARK_ERROR);
  gtk_source_buffer_remove_source_marks (self->buffer, &start, &end, MARK_WARNING);
}

/* The rows that show what they showed stay: a check that finds what the
 * last one found (the usual case while typing) changes no row, and one
 * that finds one problem more or less adds or removes one row, so the
 * list is not built again for every check. */
void
tilde_diagnostic_marks_show (TildeDiagnosticMarks *self, GPtrArray *diagnostics,
                             const char *main_name)
{
  GListModel *shown;
  g_autofree Placement *placements = NULL;
  g_autoptr(GPtrArray) added = NULL;
  guint n_old, n_new, same_start = 0, same_end = 0;

  g_return_if_fail (TILDE_IS_DIAGNOSTIC_MARKS (self));
  g_return_if_fail (diagnostics != NULL);

  shown = G_LIST_MODEL (self->problems);
  n_old = g_list_model_get_n_items (shown);
  n_new = diagnostics->len;
  placements = g_new0 (Placement, MAX (n_new, 1));
  for (guint i = 0; i < n_new; i++)
    place (self, diagnostics->pdata[i], main_name, &placements[i]);
  while (same_start < MIN (n_old, n_new) && item_shows (shown, same_start, &placements[same_start]))
    same_start++;
  while (same_start + same_end < MIN (n_old, n_new)
         && item_shows (shown, n_old - 1 - same_end, &placements[n_new - 1 - same_end]))
    same_end++;

  remove_marks (self);
  raise_tags (self);
  added = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = same_start; i < n_new - same_end; i++)
    g_ptr_array_add (added, new_problem (self, &placements[i]));
  if (same_start + same_end < n_old || added->len > 0)
    g_list_store_splice (self->problems, same_start, n_old - same_start - same_end,
                         added->pdata, added->len);
  for (guint i = 0; i < n_new; i++)
    {
      g_autoptr(TildeProblem) problem = g_list_model_get_item (shown, i);
      mark_problem (self, problem);
    }
}

void
tilde_diagnostic_marks_clear (TildeDiagnosticMarks *self)
{
  g_return_if_fail (TILDE_IS_DIAGNOSTIC_MARKS (self));
  remove_marks (self);
  g_list_store_remove_all (self->problems);
}

GListModel *
tilde_diagnostic_marks_get_problems (TildeDiagnosticMarks *self)
{
  g_return_val_if_fail (TILDE_IS_DIAGNOSTIC_MARKS (self), NULL);
  return G_LIST_MODEL (self->problems);
}

/* ---- life cycle ---- */

TildeDiagnosticMarks *
tilde_diagnostic_marks_new (GtkSourceView *view)
{
  TildeDiagnosticMarks *self;
  GtkTextBuffer *buffer;

  g_return_val_if_fail (GTK_SOURCE_IS_VIEW (view), NULL);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  g_return_val_if_fail (GTK_SOURCE_IS_BUFFER (buffer), NULL);

  self = g_object_new (TILDE_TYPE_DIAGNOSTIC_MARKS, NULL);
  self->view = g_object_ref (view);
  self->buffer = g_object_ref (GTK_SOURCE_BUFFER (buffer));
  self->error_tag = gtk_text_buffer_create_tag (buffer, MARK_ERROR, NULL);
  self->warning_tag = gtk_text_buffer_create_tag (buffer, MARK_WARNING, NULL);
  g_signal_connect_object (self->buffer, "notify::style-scheme",
                           G_CALLBACK (refresh_tag_styles), self, G_CONNECT_SWAPPED);

  gtk_source_view_set_show_line_marks (view, TRUE);
  add_mark_category (self, MARK_ERROR, "dialog-error-symbolic", 2);
  add_mark_category (self, MARK_WARNING, "dialog-warning-symbolic", 1);
  refresh_tag_styles (self);

  self->hover = tilde_diagnostic_hover_new (G_LIST_MODEL (self->problems));
  gtk_source_hover_add_provider (gtk_source_view_get_hover (view),
                                 GTK_SOURCE_HOVER_PROVIDER (self->hover));
  return self;
}

static void
tilde_diagnostic_marks_dispose (GObject *object)
{
  TildeDiagnosticMarks *self = TILDE_DIAGNOSTIC_MARKS (object);

  /* The problems' text marks go while their buffer is still there. */
  if (self->problems != NULL)
    g_list_store_remove_all (self->problems);
  if (self->hover != NULL && self->view != NULL)
    gtk_source_hover_remove_provider (gtk_source_view_get_hover (self->view),
                                      GTK_SOURCE_HOVER_PROVIDER (self->hover));
  g_clear_object (&self->hover);
  g_clear_object (&self->problems);
  g_clear_object (&self->buffer);
  g_clear_object (&self->view);
  G_OBJECT_CLASS (tilde_diagnostic_marks_parent_class)->dispose (object);
}

static void
tilde_diagnostic_marks_class_init (TildeDiagnosticMarksClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = tilde_diagnostic_marks_dispose;
}

static void
tilde_diagnostic_marks_init (TildeDiagnosticMarks *self)
{
  self->problems = g_list_store_new (TILDE_TYPE_PROBLEM);
}
