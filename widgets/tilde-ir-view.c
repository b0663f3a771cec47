/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-weak-ref.h"
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>
#include <time.h>

#include "tilde-editor-private.h"
#include "tilde-ir-pass.h"
#include "tilde-ir-view-internal.h"
#include "tilde-ir-view-private.h"

typedef enum {
  SCROLL_KEEP,          /* the same rows as before stay in view */
  SCROLL_FIRST_CHANGE,  /* the first row that differs comes into view */
} ScrollHint;

#define SCROLL_MARK "tilde-scroll"

G_DEFINE_FINAL_TYPE (TildeIrView, tilde_ir_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_EDITOR,
  PROP_LEVEL,
  PROP_LEFT_STAGE,
  PROP_RIGHT_STAGE,
  PROP_USE_OPENCL,
  PROP_HIDE_UNCHANGED,
  PROP_STEP,
  PROP_HAS_ERRORS,
  PROP_COMPILING,
  N_PROPS
};

enum {
  COMPILED,
  SHOW_MESSAGE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void refresh (TildeIrView *self, ScrollHint hint);
static void clear_source_highlight (TildeIrView *self);

GtkWidget *
tilde_ir_view_new (void)
{
  return g_object_new (TILDE_TYPE_IR_VIEW, NULL);
}

static const TildeMirStages *
shown_stages (TildeIrView *self)
{
  return self->shown ? tilde_job_result_get_mir_stages (self->shown) : NULL;
}

/* What a side shows for `stage`: the stage's text, or for an OpenCL stage
 * without a kernel the line that says why before its plan. */
static const TildeMirText *
stage_text (TildeIrView *self, const TildeMirStages *stages, guint stage)
{
  if (stage == TILDE_MIR_STAGE_OPENCL && stages->opencl_kernels == 0
      && self->opencl_note.text != NULL)
    return &self->opencl_note;
  return &stages->stages[stage];
}

static void
clear_opencl_note (TildeIrView *self)
{
  g_clear_pointer (&self->opencl_note.text, g_free);
  g_clear_pointer (&self->opencl_note.sources, g_free);
  self->opencl_note.n_lines = 0;
}

static char *
opencl_why_not (const TildeMirStages *stages)
{
  if (stages->opencl_candidate != NULL && stages->opencl_candidate_elementwise)
    return g_strdup_printf (_("No statement runs on an OpenCL device: annotate %s with @gpu (the "
                              "data vectors of the elementwise %s at line %d) to run that "
                              "statement as a kernel"),
                            stages->opencl_candidate, stages->opencl_candidate_call,
                            stages->opencl_candidate_line);
  if (stages->opencl_candidate != NULL)
    return g_strdup_printf (_("No statement runs on an OpenCL device: annotate %s with @gpu (the "
                              "design matrix of %s at line %d) to run that statement as a kernel"),
                            stages->opencl_candidate, stages->opencl_candidate_call,
                            stages->opencl_candidate_line);
  if (stages->opencl_by_statistics)
    return g_strdup_printf (_("No statement runs on an OpenCL device: %s at line %d runs on the "
                              "CPU by its sufficient statistics, K² multiply-adds a gradient "
                              "and no pass over the design matrix, which no kernel's pass over "
                              "the data can match"),
                            stages->opencl_candidate_call, stages->opencl_candidate_line);
  return g_strdup (_("No statement runs on an OpenCL device: only GLM statements over a design "
                     "matrix annotated @gpu do, such as y ~ poisson_log_glm(X, alpha, beta) "
                     "with @gpu matrix[N, K] X, and sums, dot_self, log_sum_exp and normal "
                     "densities of elementwise expressions over data vectors annotated @gpu, "
                     "such as y ~ normal(a + b * exp(x), sigma) with @gpu vector[N] x, y"));
}

/* The note's first line is the reason, the rest the stage's own lines. */
static void
make_opencl_note (TildeIrView *self, const TildeMirStages *stages)
{
  const TildeMirText *plan = &stages->stages[TILDE_MIR_STAGE_OPENCL];
  g_autofree char *why = opencl_why_not (stages);

  clear_opencl_note (self);
  if (stages->opencl_kernels > 0 || plan->text == NULL)
    return;
  self->opencl_note.text = g_strconcat ("// ", why, "\n", plan->text, NULL);
  self->opencl_note.n_lines = plan->n_lines + 1;
  self->opencl_note.sources = g_new0 (TildeMirSource, plan->n_lines + 1);
  if (plan->n_lines > 0)
    memcpy (self->opencl_note.sources + 1, plan->sources, sizeof (TildeMirSource) * plan->n_lines);
}

static const char *
stage_title (guint stage)
{
  switch (stage)
    {
    case TILDE_MIR_STAGE_AST:
      return _("Typed AST");
    case TILDE_MIR_STAGE_MIR:
      return _("MIR");
    case TILDE_MIR_STAGE_TRANSFORMED:
      return _("Transformed MIR");
    case TILDE_MIR_STAGE_OPTIMIZED:
      return _("Optimized MIR");
    case TILDE_MIR_STAGE_OPENCL:
      return _("OpenCL");
    default:
      g_return_val_if_reached ("");
    }
}

static void
set_compiling (TildeIrView *self, gboolean compiling)
{
  if (self->compiling == !!compiling)
    return;
  self->compiling = !!compiling;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPILING]);
}

static void
set_has_errors (TildeIrView *self, gboolean has_errors)
{
  gboolean banner = has_errors && self->shown != NULL;

  gtk_info_bar_set_revealed (self->error_bar, banner);
  if (banner)
    gtk_widget_add_css_class (self->diff_box, "dim-label");
  else
    gtk_widget_remove_css_class (self->diff_box, "dim-label");
  if (self->has_errors == !!has_errors)
    return;
  self->has_errors = !!has_errors;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_ERRORS]);
}

/* ---- colours: libadwaita's named colours, so dark mode works ---- */

static GdkRGBA
named_colour (TildeIrView *self, const char *const *names, const char *fallback, float alpha)
{
  GtkStyleContext *context = gtk_widget_get_style_context (GTK_WIDGET (self));
  GdkRGBA colour;
  gboolean found = FALSE;

  for (; *names != NULL && !found; names++)
    found = gtk_style_context_lookup_color (context, *names, &colour);
  if (!found)
    gdk_rgba_parse (&colour, fallback);
  colour.alpha *= alpha;
  return colour;
}

static void
refresh_colours (TildeIrView *self)
{
  static const char *const success[] = { "success_color", NULL };
  static const char *const error[] = { "error_color", NULL };
  static const char *const warning[] = { "warning_color", NULL };
  static const char *const text[] = { "view_fg_color", "theme_text_color", NULL };
  static const char *const accent[] = { "accent_bg_color", "theme_selected_bg_color", NULL };
  GdkRGBA colours[N_TAGS];
  GdkRGBA bands[3];

  colours[TAG_ADDED] = named_colour (self, success, "#26a269", 0.16f);
  colours[TAG_REMOVED] = named_colour (self, error, "#c01c28", 0.14f);
  colours[TAG_CHANGED] = named_colour (self, warning, "#cd9309", 0.16f);
  colours[TAG_FILLER] = named_colour (self, text, "#000000", 0.05f);
  colours[TAG_SOURCE] = named_colour (self, accent, "#3584e4", 0.30f);
  if (memcmp (colours, self->colours, sizeof colours) == 0)
    return;
  memcpy (self->colours, colours, sizeof colours);

  /* The gutter's band is stronger than the line's wash. */
  bands[0] = named_colour (self, success, "#26a269", 0.45f);
  bands[1] = named_colour (self, error, "#c01c28", 0.40f);
  bands[2] = named_colour (self, warning, "#cd9309", 0.45f);
  for (guint s = 0; s < 2; s++)
    {
      for (guint t = 0; t < N_TAGS; t++)
        g_object_set (self->sides[s].tags[t], "paragraph-background-rgba", &colours[t], NULL);
      if (self->sides[s].gutter != NULL)
        tilde_diff_gutter_set_colours (self->sides[s].gutter, &bands[0], &bands[1], &bands[2]);
    }
}

static void
tilde_ir_view_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (tilde_ir_view_parent_class)->css_changed (widget, change);
  refresh_colours (TILDE_IR_VIEW (widget));
}

/* The MIR tags look like what the scheme gives the language definition's
 * classes, numbers falling back on def:number as in GtkSourceView's own
 * definitions. */
static void
style_mir_tags (Side *s, GtkSourceStyleScheme *scheme)
{
  for (guint t = 0; t < TILDE_MIR_N_TOKENS; t++)
    {
      GtkSourceStyle *style = NULL;

      if (scheme != NULL)
        {
          style = gtk_source_style_scheme_get_style (scheme, tilde_mir_token_style_id (t));
          if (style == NULL && (t == TILDE_MIR_TOKEN_DECIMAL || t == TILDE_MIR_TOKEN_REAL))
            style = gtk_source_style_scheme_get_style (scheme, "def:number");
        }
      gtk_source_style_apply (style, s->mir_tags[t]);
    }
}

static void
follow_style_scheme (TildeIrView *self)
{
  GtkSourceStyleScheme *scheme = NULL;

  if (self->editor != NULL)
    scheme = gtk_source_buffer_get_style_scheme (tilde_editor_get_buffer (self->editor));
  for (guint s = 0; s < 2; s++)
    {
      gtk_source_buffer_set_style_scheme (self->sides[s].buffer, scheme);
      style_mir_tags (&self->sides[s], scheme);
    }
}

void
_tilde_ir_view_finish_result (TildeIrView *self)
{
  self->results++;
  if (!self->dirty)
    set_compiling (self, FALSE);
  g_signal_emit (self, signals[COMPILED], 0);
}

static int
first_change (GArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    if (g_array_index (rows, TildeDiffRow, i).kind != TILDE_DIFF_SAME)
      return (int) i;
  return 0;
}

/* The sides scroll together, their rows lining up: the side the person
 * scrolled last leads, and the other shows the same row at the same
 * height. Rows rather than pixels, because each view estimates the height
 * of the lines it has not laid out yet; whenever a view's height changes
 * (it laid out more lines) the other is lined up again. */
static GtkAdjustment *
side_adjustment (TildeIrView *self, TildeIrSide side)
{
  return gtk_scrolled_window_get_vadjustment (side == TILDE_IR_SIDE_LEFT ? self->left_scroller
                                                                         : self->right_scroller);
}

static gboolean
follow_scroll_now (gpointer user_data)
{
  TildeIrView *self = user_data;
  GtkTextView *leader = GTK_TEXT_VIEW (self->sides[self->scroll_leader].view);
  GtkTextView *follower = GTK_TEXT_VIEW (self->sides[!self->scroll_leader].view);
  GtkAdjustment *adjustment = side_adjustment (self, !self->scroll_leader);
  GdkRectangle visible;
  GtkTextIter iter;
  int leader_top, follower_top, height;
  double value;

  self->follow_source = 0;
  gtk_text_view_get_visible_rect (leader, &visible);
  gtk_text_view_get_line_at_y (leader, &iter, visible.y, &leader_top);
  gtk_text_view_get_line_yrange (leader, &iter, &leader_top, &height);
  /* Not laid out yet: every line is at 0. Its height will change. */
  if (height <= 0)
    return G_SOURCE_REMOVE;
  self->last_top_row = gtk_text_iter_get_line (&iter);
  gtk_text_buffer_get_iter_at_line (gtk_text_view_get_buffer (follower), &iter,
                                    gtk_text_iter_get_line (&iter));
  gtk_text_view_get_line_yrange (follower, &iter, &follower_top, &height);
  value = gtk_adjustment_get_value (side_adjustment (self, self->scroll_leader))
          + (follower_top - leader_top);
  if (value != gtk_adjustment_get_value (adjustment))
    {
      self->syncing_scroll = TRUE;
      gtk_adjustment_set_value (adjustment, value);
      self->syncing_scroll = FALSE;
    }
  return G_SOURCE_REMOVE;
}

/* Not at once: adjustments change while the views are laid out, when
 * moving the other side would ask for another layout in the middle of
 * this one; and, as in _tilde_ir_view_scroll_to_row(), once the views have measured
 * their lines. */
static void
follow_scroll (TildeIrView *self)
{
  if (self->follow_source == 0)
    self->follow_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE + 10, follow_scroll_now, self, NULL);
}

static void
side_scrolled (TildeIrView *self, TildeIrSide side)
{
  if (self->syncing_scroll)
    return;
  self->scroll_leader = side;
  follow_scroll (self);
}

static void
left_scrolled (TildeIrView *self)
{
  side_scrolled (self, TILDE_IR_SIDE_LEFT);
}

static void
right_scrolled (TildeIrView *self)
{
  side_scrolled (self, TILDE_IR_SIDE_RIGHT);
}

/* The row at the top of the view, or -1 while its lines are not laid out
 * (they are all at 0 until they are measured). */
static int
top_row (TildeIrView *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (self->right_view);
  GdkRectangle visible;
  GtkTextIter iter;
  int y, height;

  gtk_text_view_get_visible_rect (view, &visible);
  gtk_text_view_get_line_at_y (view, &iter, visible.y, NULL);
  gtk_text_view_get_line_yrange (view, &iter, &y, &height);
  return height > 0 ? gtk_text_iter_get_line (&iter) : -1;
}

static gboolean
scroll_now (gpointer user_data)
{
  TildeIrView *self = user_data;

  self->scroll_source = 0;
  for (guint side = 0; side < 2; side++)
    {
      GtkTextBuffer *buffer = side_buffer (&self->sides[side]);
      GtkTextMark *mark = gtk_text_buffer_get_mark (buffer, SCROLL_MARK);
      GtkTextIter iter;

      gtk_text_buffer_get_iter_at_line (buffer, &iter, MAX (self->scroll_row, 0));
      gtk_text_buffer_move_mark (buffer, mark, &iter);
      gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->sides[side].view), mark,
                                    self->scroll_align ? 0.0 : 0.1, self->scroll_align,
                                    0.0, self->scroll_align ? 0.0 : 0.5);
    }
  return G_SOURCE_REMOVE;
}

/* Scrolls both sides so that `row` is in view; at the top when `align`.
 * Once the views have measured their lines: a text view that scrolls
 * before that takes the line at the new position for one far below, its
 * new lines having no height yet, and keeps that one at the top. Their
 * measuring runs in idle time at a higher priority than this. */
void
_tilde_ir_view_scroll_to_row (TildeIrView *self, int row, gboolean align)
{
  self->scroll_row = row;
  self->scroll_align = align;
  if (self->scroll_source == 0)
    self->scroll_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE + 10, scroll_now, self, NULL);
}

static void
show_rows (TildeIrView *self, const TildeMirText *left, const TildeMirText *right,
           GArray *rows, ScrollHint hint)
{
  int top = hint == SCROLL_KEEP && self->rows != NULL ? top_row (self) : 0;

  /* Lines never measured (they are all at 0) are where the last scroll
   * put them. */
  if (top < 0)
    top = self->last_top_row;
  if (hint == SCROLL_FIRST_CHANGE)
    top = MAX (first_change (rows) - 3, 0);

  _tilde_ir_view_cancel_apply (self);
  clear_source_highlight (self);
  g_clear_pointer (&self->rows, g_array_unref);
  if (rows->len > 0)
    self->rows = g_array_ref (rows);
  else
    {
      /* A buffer always has a line. */
      TildeDiffRow empty = { TILDE_DIFF_SAME, -1, -1 };

      self->rows = g_array_new (FALSE, FALSE, sizeof (TildeDiffRow));
      g_array_append_val (self->rows, empty);
    }
  for (guint side = 0; side < 2; side++)
    {
      Side *s = &self->sides[side];

      s->text = side == TILDE_IR_SIDE_LEFT ? left : right;
      g_strfreev (s->text_lines);
      s->text_lines = tilde_line_diff_split (s->text->text, NULL);
    }
  gtk_stack_set_visible_child_name (self->content_stack, "diff");
  _tilde_ir_view_begin_apply (self, top);
}

static GArray *
same_rows (guint n)
{
  GArray *rows = g_array_sized_new (FALSE, FALSE, sizeof (TildeDiffRow), n);

  for (guint i = 0; i < n; i++)
    {
      TildeDiffRow row = { TILDE_DIFF_SAME, (int) i, (int) i };
      g_array_append_val (rows, row);
    }
  return rows;
}

/* Texts of different languages (Stan, MIR, OpenCL C) have nothing to
 * diff: their lines face each other in order, unmarked. */
static GArray *
facing_rows (guint n_left, guint n_right)
{
  guint n = MAX (n_left, n_right);
  GArray *rows = g_array_sized_new (FALSE, FALSE, sizeof (TildeDiffRow), n);

  for (guint i = 0; i < n; i++)
    {
      TildeDiffRow row = { TILDE_DIFF_SAME, i < n_left ? (int) i : -1, i < n_right ? (int) i : -1 };
      g_array_append_val (rows, row);
    }
  return rows;
}

static gboolean
is_mir_stage (guint stage)
{
  return stage == TILDE_MIR_STAGE_MIR || stage == TILDE_MIR_STAGE_TRANSFORMED
         || stage == TILDE_MIR_STAGE_OPTIMIZED;
}

static gboolean
stages_comparable (guint left, guint right)
{
  return left == right || (is_mir_stage (left) && is_mir_stage (right));
}

typedef struct {
  char *left;
  char *right;
} DiffTexts;

static void
diff_texts_free (gpointer data)
{
  DiffTexts *d = data;

  g_free (d->left);
  g_free (d->right);
  g_free (d);
}

static void
diff_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  DiffTexts *d = data;

  g_task_return_pointer (task, tilde_line_diff_texts (d->left, d->right),
                         (GDestroyNotify) g_array_unref);
}

static void
diff_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TildeIrView *self = TILDE_IR_VIEW (source);
  g_autoptr(GArray) rows = g_task_propagate_pointer (G_TASK (result), NULL);
  const TildeMirStages *stages;

  /* Cancelled: the view moved on, or is gone. */
  if (rows == NULL || (stages = shown_stages (self)) == NULL)
    return;
  show_rows (self, stage_text (self, stages, self->left_stage),
             stage_text (self, stages, self->right_stage), rows, GPOINTER_TO_INT (user_data));
}

/* Two whole stages: the precomputed diff of the transformed and optimized
 * MIR, the trivial diff of equal texts, the lines of texts in different
 * languages facing each other, or a diff computed off the main thread. */
static void
show_stages (TildeIrView *self, const TildeMirStages *stages, ScrollHint hint)
{
  const TildeMirText *left = stage_text (self, stages, self->left_stage);
  const TildeMirText *right = stage_text (self, stages, self->right_stage);
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GTask) task = NULL;
  DiffTexts *texts;

  gtk_stack_set_visible_child_name (self->left_title_stack, "stage");
  gtk_stack_set_visible_child_name (self->right_title_stack, "stage");
  if (self->left_stage == TILDE_MIR_STAGE_TRANSFORMED && self->right_stage == TILDE_MIR_STAGE_OPTIMIZED)
    rows = g_array_ref (stages->optimized_diff);
  else if (g_str_equal (left->text, right->text))
    rows = same_rows (left->n_lines);
  else if (!stages_comparable (self->left_stage, self->right_stage))
    rows = facing_rows (left->n_lines, right->n_lines);
  if (rows != NULL)
    {
      show_rows (self, left, right, rows, hint);
      return;
    }

  self->diff_cancellable = g_cancellable_new ();
  texts = g_new0 (DiffTexts, 1);
  texts->left = g_strdup (left->text);
  texts->right = g_strdup (right->text);
  task = g_task_new (self, self->diff_cancellable, diff_done, GINT_TO_POINTER (hint));
  g_task_set_source_tag (task, show_stages);
  g_task_set_task_data (task, texts, diff_texts_free);
  g_task_run_in_thread (task, diff_in_thread);
}

static void
show_step (TildeIrView *self, const TildeMirStages *stages, ScrollHint hint)
{
  const TildeMirStep *step = g_ptr_array_index (stages->steps, self->step);
  g_autofree char *before = g_strdup_printf (_("Before %s"), step->name);
  g_autofree char *after = g_strdup_printf (_("After %s"), step->name);

  gtk_label_set_text (self->left_title, before);
  gtk_label_set_text (self->right_title, after);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->left_title), step->description);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->right_title), step->description);
  gtk_stack_set_visible_child_name (self->left_title_stack, "pass");
  gtk_stack_set_visible_child_name (self->right_title_stack, "pass");
  show_rows (self, tilde_mir_stages_before_step (stages, (guint) self->step), &step->after,
             step->diff, hint);
}

static void
show_empty (TildeIrView *self)
{
  const char *message = "";

  if (self->has_errors)
    message = _("The model has errors; what the compiler makes of it appears here once they are fixed");
  else if (self->editor != NULL)
    message = _("Compiling…");
  gtk_label_set_text (self->empty_label, message);
  gtk_stack_set_visible_child_name (self->content_stack, "empty");
}

static void
refresh (TildeIrView *self, ScrollHint hint)
{
  const TildeMirStages *stages = shown_stages (self);

  g_cancellable_cancel (self->diff_cancellable);
  g_clear_object (&self->diff_cancellable);
  if (stages == NULL)
    {
      show_empty (self);
      return;
    }
  if (self->step >= 0 && (guint) self->step < stages->steps->len)
    show_step (self, stages, hint);
  else
    show_stages (self, stages, hint);
}

/* ---- the editor's cursor and clicks: MIR lines and their source ---- */

static gboolean
source_covers (const TildeMirSource *src, int line)
{
  return src->line > 0 && src->line <= line && line <= MAX (src->end_line, src->line);
}

/* Marks the rows of one side whose statement covers source `line`: the
 * innermost ones, so that the braces of a block around it stay plain.
 * Returns the first marked row, or -1. */
static int
highlight_side (TildeIrView *self, TildeIrSide side, int line)
{
  Side *s = &self->sides[side];
  int narrowest = G_MAXINT, first = -1;

    if (s->text == NULL || self->rows == NULL || self->apply != NULL || line <= 0)
    return -1;
  for (guint i = 0; i < self->buffer_rows->len; i++)
    {
      int l = _tilde_ir_view_row_line (&g_array_index (self->buffer_rows, TildeDiffRow, i), side);
      const TildeMirSource *src = l >= 0 ? &s->text->sources[l] : NULL;

      if (src != NULL && source_covers (src, line))
        narrowest = MIN (narrowest, src->end_line - src->line);
    }
  if (narrowest == G_MAXINT)
    return -1;
  for (guint i = 0; i < self->buffer_rows->len; i++)
    {
      int l = _tilde_ir_view_row_line (&g_array_index (self->buffer_rows, TildeDiffRow, i), side);
      const TildeMirSource *src = l >= 0 ? &s->text->sources[l] : NULL;

      if (src != NULL && source_covers (src, line) && src->end_line - src->line == narrowest)
        {
          _tilde_ir_view_apply_line_tag (side_buffer (s), s->tags[TAG_SOURCE], (int) i, (int) i);
          g_array_append_val (s->highlighted, i);
          if (first < 0)
            first = (int) i;
        }
    }
  return first;
}

/* Takes the source mark off the rows that have it, so that a keystroke
 * does not walk thousands of MIR lines. Done before the rows move. */
static void
clear_source_highlight (TildeIrView *self)
{
  for (guint s = 0; s < 2; s++)
    {
      Side *side = &self->sides[s];
      GtkTextBuffer *buffer = side_buffer (side);
      GtkTextIter begin, end;

      for (guint i = 0; i < side->highlighted->len; i++)
        {
          int row = (int) g_array_index (side->highlighted, guint, i);

          gtk_text_buffer_get_iter_at_line (buffer, &begin, row);
          end = begin;
          gtk_text_iter_forward_line (&end);
          gtk_text_buffer_remove_tag (buffer, side->tags[TAG_SOURCE], &begin, &end);
        }
      g_array_set_size (side->highlighted, 0);
    }
  self->highlighted_line = -1;
}

void
_tilde_ir_view_update_source_highlight (TildeIrView *self)
{
  int line = 0, first_right, first_left, first;

  if (self->editor_buffer != NULL)
    {
      GtkTextIter cursor;

      gtk_text_buffer_get_iter_at_mark (self->editor_buffer, &cursor,
                                        gtk_text_buffer_get_insert (self->editor_buffer));
      line = gtk_text_iter_get_line (&cursor) + 1;
    }
  /* Typing moves the cursor along its line: the same rows stay marked.
   * While new rows go in, the mark waits for them. */
  if (line == self->highlighted_line || self->apply != NULL)
    return;
  clear_source_highlight (self);
  first_left = highlight_side (self, TILDE_IR_SIDE_LEFT, line);
  first_right = highlight_side (self, TILDE_IR_SIDE_RIGHT, line);
  self->highlighted_line = line;
  first = first_right >= 0 ? first_right : first_left;
  /* Follow the cursor, but not the click that put it there. */
  if (first >= 0 && first != self->last_source_row && !self->from_click)
    _tilde_ir_view_scroll_to_row (self, first, FALSE);
  self->last_source_row = first;
}

static void
side_cursor_moved (TildeIrView *self, TildeIrSide side)
{
  Side *s = &self->sides[side];
  GtkTextIter cursor;
  const TildeMirSource *src;
  int row, line;

  if (self->updating || self->editor == NULL || self->rows == NULL || s->text == NULL)
    return;
  /* Stale rows (a new result going in) link nowhere. */
  gtk_text_buffer_get_iter_at_mark (side_buffer (s), &cursor,
                                    gtk_text_buffer_get_insert (side_buffer (s)));
  row = gtk_text_iter_get_line (&cursor);
  if (row < 0 || (guint) row >= self->buffer_rows->len)
    return;
  line = _tilde_ir_view_row_line (&g_array_index (self->buffer_rows, TildeDiffRow, row), side);
  if (line < 0 || (src = &s->text->sources[line])->line == 0)
    return;
  self->from_click = TRUE;
  tilde_editor_select_range (self->editor, src->line, src->column,
                             MAX (src->end_line, src->line), src->end_column);
  self->from_click = FALSE;
}

static void
left_cursor_moved (TildeIrView *self)
{
  side_cursor_moved (self, TILDE_IR_SIDE_LEFT);
}

static void
right_cursor_moved (TildeIrView *self)
{
  side_cursor_moved (self, TILDE_IR_SIDE_RIGHT);
}

/* ---- the pass list ---- */

static gboolean
pass_visible (gpointer item, gpointer user_data)
{
  TildeIrView *self = user_data;
  TildeIrPass *pass = item;
  const char *search = gtk_editable_get_text (GTK_EDITABLE (self->pass_search));
  g_autofree char *needle = NULL;
  g_autofree char *name = NULL;

  if (tilde_ir_pass_get_index (pass) < 0)
    return TRUE;
  if (self->hide_unchanged && tilde_ir_pass_get_edits (pass) == 0)
    return FALSE;
  if (search == NULL || search[0] == '\0')
    return TRUE;
  needle = g_utf8_casefold (search, -1);
  name = g_utf8_casefold (tilde_ir_pass_get_name (pass), -1);
  g_strdelimit (needle, " ", '_');
  return strstr (name, needle) != NULL;
}

static guint
position_of_step (TildeIrView *self, int step)
{
  GListModel *model = G_LIST_MODEL (self->selection);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TildeIrPass) pass = g_list_model_get_item (model, i);

      if (tilde_ir_pass_get_index (pass) == step)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

static void
update_step_actions (TildeIrView *self)
{
  guint selected = gtk_single_selection_get_selected (self->selection);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "ir.previous-pass",
                                 selected != GTK_INVALID_LIST_POSITION && selected > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "ir.next-pass",
                                 selected != GTK_INVALID_LIST_POSITION && selected + 1 < n);
}

static void
set_step (TildeIrView *self, int step)
{
  if (self->step == step)
    return;
  self->step = step;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
}

static void
selection_changed (TildeIrView *self)
{
  TildeIrPass *pass = gtk_single_selection_get_selected_item (self->selection);
  int step = pass ? tilde_ir_pass_get_index (pass) : -1;

  update_step_actions (self);
  if (self->rebuilding || step == self->step)
    return;
  set_step (self, step);
  refresh (self, SCROLL_FIRST_CHANGE);
}

static void
select_step_row (TildeIrView *self, int step)
{
  guint position = position_of_step (self, step);

  if (position == GTK_INVALID_LIST_POSITION)
    {
      step = -1;
      position = 0;
    }
  gtk_single_selection_set_selected (self->selection, position);
  set_step (self, step);
  update_step_actions (self);
}

/* New rows for new stages, keeping the selected step where it still
 * means the same pass. */
static void
rebuild_passes (TildeIrView *self, const TildeMirStages *stages, gboolean same_level)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (items, tilde_ir_pass_new (-1, _("Stages side by side"),
                                             _("Two stages of the compiler, chosen above each side"),
                                             0, FALSE));
  for (guint i = 0; i < stages->steps->len; i++)
    {
      const TildeMirStep *step = g_ptr_array_index (stages->steps, i);

      g_ptr_array_add (items, tilde_ir_pass_new ((int) i, step->name, step->description,
                                                 step->edits, step->changed));
    }
  self->rebuilding = TRUE;
  g_list_store_splice (self->passes, 0, g_list_model_get_n_items (G_LIST_MODEL (self->passes)),
                       items->pdata, items->len);
  select_step_row (self, same_level ? self->step : -1);
  self->rebuilding = FALSE;
}

static void
pass_row_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *edits = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (name, TRUE);
  gtk_widget_add_css_class (edits, "dim-label");
  gtk_widget_add_css_class (edits, "numeric");
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), edits);
  gtk_list_item_set_child (item, box);
}

static void
pass_row_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  TildeIrPass *pass = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *name = gtk_widget_get_first_child (box);
  GtkWidget *edits = gtk_widget_get_last_child (box);
  guint n = tilde_ir_pass_get_edits (pass);
  g_autofree char *count = NULL;

  gtk_label_set_text (GTK_LABEL (name), tilde_ir_pass_get_name (pass));
  if (tilde_ir_pass_get_index (pass) >= 0 && n == 0)
    {
      g_autofree char *tip = g_strdup_printf (_("%s (no change)"), tilde_ir_pass_get_description (pass));
      gtk_widget_set_tooltip_text (box, tip);
    }
  else
    gtk_widget_set_tooltip_text (box, tilde_ir_pass_get_description (pass));
  if (tilde_ir_pass_get_index (pass) < 0)
    count = g_strdup ("");
  else if (n > 0)
    count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u line", "%u lines", n), n);
  else
    /* The dimmed name says it. */
    count = g_strdup ("");
  gtk_label_set_text (GTK_LABEL (edits), count);
  if (tilde_ir_pass_get_index (pass) >= 0 && n == 0)
    gtk_widget_add_css_class (name, "dim-label");
  else
    gtk_widget_remove_css_class (name, "dim-label");
}

static void
pass_search_changed_cb (TildeIrView *self)
{
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

gboolean
tilde_ir_view_step_by (TildeIrView *self, int delta)
{
  guint selected, n;
  gint64 target;

  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), FALSE);
  selected = gtk_single_selection_get_selected (self->selection);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  if (selected == GTK_INVALID_LIST_POSITION)
    return FALSE;
  target = (gint64) selected + delta;
  if (target < 0 || target >= n)
    return FALSE;
  gtk_single_selection_set_selected (self->selection, (guint) target);
  gtk_widget_activate_action (GTK_WIDGET (self->pass_list), "list.scroll-to-item", "u", (guint) target);
  return TRUE;
}

static void
previous_pass_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_ir_view_step_by (TILDE_IR_VIEW (widget), -1);
}

static void
next_pass_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_ir_view_step_by (TILDE_IR_VIEW (widget), 1);
}

/* ---- copy and save ---- */

static const char *
side_text (TildeIrView *self, int side)
{
  const TildeMirText *text = side == 0 || side == 1 ? self->sides[side].text : NULL;

  return text ? text->text : NULL;
}

static void
copy_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeIrView *self = TILDE_IR_VIEW (widget);
  const char *text = side_text (self, g_variant_get_int32 (param));

  if (text == NULL)
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
  g_signal_emit (self, signals[SHOW_MESSAGE], 0, _("Copied to the clipboard"));
}

/* A name for the saved text: the model's, then what the side shows. */
static char *
suggested_name (TildeIrView *self, int side)
{
  const TildeMirStages *stages = shown_stages (self);
  GFile *file = self->editor ? tilde_editor_get_file (self->editor) : NULL;
  g_autofree char *base = file ? g_file_get_basename (file) : g_strdup ("model");
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  if (stages != NULL && self->step >= 0 && (guint) self->step < stages->steps->len)
    {
      const TildeMirStep *step = g_ptr_array_index (stages->steps, self->step);
      return g_strdup_printf ("%s-%s-%d-%s.mir", base, side == 0 ? "before" : "after",
                              self->step + 1, step->name);
    }
  else
    {
      guint stage = side == 0 ? self->left_stage : self->right_stage;

      if (stage == TILDE_MIR_STAGE_AST)
        return g_strdup_printf ("%s-typed.stan", base);
      if (stage == TILDE_MIR_STAGE_OPENCL)
        return g_strdup_printf ("%s-%s.cl", base, mir_opt_level_name ((MirOptLevel) self->level));
      if (stage == TILDE_MIR_STAGE_OPTIMIZED)
        return g_strdup_printf ("%s-%s-%s.mir", base, tilde_mir_stage_name (stage),
                                mir_opt_level_name ((MirOptLevel) self->level));
      return g_strdup_printf ("%s-%s.mir", base, tilde_mir_stage_name (stage));
    }
}

static void
save_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeIrView) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (source), result, NULL, &error))
    {
      g_autofree char *name = g_file_get_basename (G_FILE (source));
      g_autofree char *message = g_strdup_printf (_("Could not save “%s”: %s"), name, error->message);

      g_signal_emit (self, signals[SHOW_MESSAGE], 0, message);
    }
}

static void
save_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  TildeIrView *self = user_data;
  GBytes *text = g_object_get_data (G_OBJECT (dialog), "tilde-text");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      g_file_replace_contents_bytes_async (file, text, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                           NULL, save_done, g_object_ref (self));
    }
  g_object_unref (dialog);
}

static void
save_as_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeIrView *self = TILDE_IR_VIEW (widget);
  int side = g_variant_get_int32 (param);
  const char *text = side_text (self, side);
  g_autofree char *suggested = NULL;
  GtkFileChooserNative *dialog;
  GtkRoot *root = gtk_widget_get_root (widget);

  if (text == NULL)
    return;
  suggested = suggested_name (self, side);
  dialog = gtk_file_chooser_native_new (_("Save Compiler Output"),
                                        GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested);
  /* What the side shows now, not when the dialog closes. */
  g_object_set_data_full (G_OBJECT (dialog), "tilde-text", g_bytes_new (text, strlen (text)),
                          (GDestroyNotify) g_bytes_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (save_response), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- compiling ---- */

static void
compile_done (TildeJobResult *result, gpointer user_data)
{
  g_autoptr(TildeIrView) self = g_weak_ref_get (user_data);
  const TildeMirStages *stages;
  const TildeMirStages *before;
  gboolean same_level;

  /* Text changed since: its own compile is on the way. */
  if (self == NULL || tilde_job_result_get_generation (result) != self->compile_generation
      || self->compiled_stamp != self->stamp)
    return;
  stages = tilde_job_result_get_mir_stages (result);
  if (stages == NULL)
    {
      set_has_errors (self, TRUE);
      if (self->shown == NULL)
        show_empty (self);
      _tilde_ir_view_finish_result (self);
      return;
    }
  before = shown_stages (self);
  same_level = before != NULL && before->level == stages->level;
  /* The old texts go with the old result; until the new rows are in (a
   * diff may be computed first), the sides link nowhere. */
  for (guint s = 0; s < 2; s++)
    self->sides[s].text = NULL;
  g_clear_pointer (&self->shown, tilde_job_result_unref);
  self->shown = tilde_job_result_ref (result);
  make_opencl_note (self, stages);
  set_has_errors (self, FALSE);
  /* In once its rows are: finish_apply(). */
  self->result_pending = TRUE;
  rebuild_passes (self, stages, same_level);
  refresh (self, same_level ? SCROLL_KEEP : SCROLL_FIRST_CHANGE);
}

void
tilde_ir_view_compile_now (TildeIrView *self)
{
  g_autoptr(TildeJobInput) input = NULL;
  TildeWorker *worker;

  g_return_if_fail (TILDE_IS_IR_VIEW (self));
  g_clear_handle_id (&self->compile_source, g_source_remove);
  if (self->editor == NULL || (worker = _tilde_editor_get_worker (self->editor)) == NULL)
    return;
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      /* Hidden: compile once shown. */
      self->dirty = TRUE;
      return;
    }
  input = _tilde_editor_new_job_input (self->editor);
  self->compiled_stamp = self->stamp;
  self->dirty = FALSE;
  self->compile_generation = tilde_worker_compile_mir_full (worker, input,
                                                            (MirOptLevel) self->level,
                                                            self->use_opencl, compile_done,
                                                            tilde_weak_ref_new (self),
                                                            tilde_weak_ref_free);
  set_compiling (self, TRUE);
}

static gboolean
compile_timeout (gpointer user_data)
{
  TildeIrView *self = user_data;

  self->compile_source = 0;
  tilde_ir_view_compile_now (self);
  return G_SOURCE_REMOVE;
}

/* After the editor's check delay, like its checks. */
static void
schedule_compile (TildeIrView *self)
{
  self->stamp++;
  self->dirty = TRUE;
  g_clear_handle_id (&self->compile_source, g_source_remove);
  if (self->editor == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  self->compile_source = g_timeout_add_full (G_PRIORITY_DEFAULT,
                                             tilde_editor_get_check_delay (self->editor),
                                             compile_timeout, self, NULL);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->compile_source),
                            "[tilde] compile after typing");
  set_compiling (self, TRUE);
}

/* Another file: what compiled before was another model. */
static void
forget_shown (TildeIrView *self)
{
  g_cancellable_cancel (self->diff_cancellable);
  g_clear_object (&self->diff_cancellable);
  _tilde_ir_view_cancel_apply (self);
  clear_source_highlight (self);
  self->result_pending = FALSE;
  g_clear_pointer (&self->rows, g_array_unref);
  /* The text stays in the buffers until the next result replaces it, but
   * it is no one's now. */
  for (guint i = 0; i < self->buffer_rows->len; i++)
    {
      TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, i);

      row->old_line = row->new_line = -1;
    }
  _tilde_ir_view_update_gutters (self);
  for (guint s = 0; s < 2; s++)
    self->sides[s].text = NULL;
  g_clear_pointer (&self->shown, tilde_job_result_unref);
  clear_opencl_note (self);
  self->rebuilding = TRUE;
  g_list_store_remove_all (self->passes);
  self->rebuilding = FALSE;
  set_step (self, -1);
  update_step_actions (self);
  set_has_errors (self, FALSE);
  show_empty (self);
}

void
tilde_ir_view_reset (TildeIrView *self)
{
  g_return_if_fail (TILDE_IS_IR_VIEW (self));
  forget_shown (self);
  schedule_compile (self);
}

static void
tilde_ir_view_map (GtkWidget *widget)
{
  TildeIrView *self = TILDE_IR_VIEW (widget);

  GTK_WIDGET_CLASS (tilde_ir_view_parent_class)->map (widget);
  if (self->dirty)
    tilde_ir_view_compile_now (self);
}

/* ---- properties ---- */

TildeEditor *
tilde_ir_view_get_editor (TildeIrView *self)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), NULL);
  return self->editor;
}

static void
disconnect_editor (TildeIrView *self)
{
  if (self->editor == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->editor, self);
  g_signal_handlers_disconnect_by_data (self->editor_buffer, self);
  g_clear_object (&self->editor_buffer);
  g_clear_object (&self->editor);
}

void
tilde_ir_view_set_editor (TildeIrView *self, TildeEditor *editor)
{
  g_return_if_fail (TILDE_IS_IR_VIEW (self));
  g_return_if_fail (editor == NULL || TILDE_IS_EDITOR (editor));

  if (self->editor == editor)
    return;
  disconnect_editor (self);
  forget_shown (self);
  if (editor != NULL)
    {
      self->editor = g_object_ref (editor);
      self->editor_buffer = g_object_ref (GTK_TEXT_BUFFER (tilde_editor_get_buffer (editor)));
      g_signal_connect_swapped (self->editor_buffer, "changed", G_CALLBACK (schedule_compile), self);
      g_signal_connect_swapped (self->editor_buffer, "notify::cursor-position",
                                G_CALLBACK (_tilde_ir_view_update_source_highlight), self);
      g_signal_connect_swapped (self->editor_buffer, "notify::style-scheme",
                                G_CALLBACK (follow_style_scheme), self);
      g_signal_connect_swapped (self->editor, "notify::file", G_CALLBACK (tilde_ir_view_reset), self);
      follow_style_scheme (self);
      self->dirty = TRUE;
      tilde_ir_view_compile_now (self);
    }
  refresh (self, SCROLL_FIRST_CHANGE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITOR]);
}

guint
tilde_ir_view_get_level (TildeIrView *self)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), 0);
  return self->level;
}

void
tilde_ir_view_set_level (TildeIrView *self, guint level)
{
  g_return_if_fail (TILDE_IS_IR_VIEW (self));
  level = MIN (level, (guint) MIR_OPT_EXPERIMENTAL);
  if (self->level == level)
    return;
  self->level = level;
  self->dirty = TRUE;
  tilde_ir_view_compile_now (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEVEL]);
}

gboolean
tilde_ir_view_get_use_opencl (TildeIrView *self)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), FALSE);
  return self->use_opencl;
}

void
tilde_ir_view_set_use_opencl (TildeIrView *self, gboolean use_opencl)
{
  g_return_if_fail (TILDE_IS_IR_VIEW (self));
  if (self->use_opencl == !!use_opencl)
    return;
  self->use_opencl = !!use_opencl;
  self->dirty = TRUE;
  tilde_ir_view_compile_now (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USE_OPENCL]);
}

static void
set_stage (TildeIrView *self, guint *stage, guint value, GParamSpec *pspec)
{
  value = MIN (value, TILDE_N_MIR_STAGES - 1);
  if (*stage == value)
    return;
  *stage = value;
  if (self->step < 0)
    refresh (self, SCROLL_KEEP);
  g_object_notify_by_pspec (G_OBJECT (self), pspec);
}

int
tilde_ir_view_get_step (TildeIrView *self)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), -1);
  return self->step;
}

void
tilde_ir_view_select_step (TildeIrView *self, int step)
{
  guint position;

  g_return_if_fail (TILDE_IS_IR_VIEW (self));
  position = position_of_step (self, step);
  if (position != GTK_INVALID_LIST_POSITION)
    gtk_single_selection_set_selected (self->selection, position);
}

const char *
tilde_ir_view_get_text (TildeIrView *self, TildeIrSide side)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), NULL);
  return side_text (self, side);
}

gboolean
tilde_ir_view_get_has_errors (TildeIrView *self)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), FALSE);
  return self->has_errors;
}

gboolean
tilde_ir_view_get_compiling (TildeIrView *self)
{
  g_return_val_if_fail (TILDE_IS_IR_VIEW (self), FALSE);
  return self->compiling;
}

GtkSourceView *
_tilde_ir_view_get_source_view (TildeIrView *self, TildeIrSide side)
{
  return self->sides[side].view;
}

GtkSingleSelection *
_tilde_ir_view_get_pass_selection (TildeIrView *self)
{
  return self->selection;
}

GArray *
_tilde_ir_view_get_highlighted_rows (TildeIrView *self, TildeIrSide side)
{
  GArray *copy = g_array_new (FALSE, FALSE, sizeof (guint));

  g_array_append_vals (copy, self->sides[side].highlighted->data, self->sides[side].highlighted->len);
  return copy;
}

GArray *
_tilde_ir_view_get_rows (TildeIrView *self)
{
  return self->rows;
}

GtkInfoBar *
_tilde_ir_view_get_banner (TildeIrView *self)
{
  return self->error_bar;
}

guint
_tilde_ir_view_get_results (TildeIrView *self)
{
  return self->results;
}

GtkLabel *
_tilde_ir_view_get_title (TildeIrView *self, TildeIrSide side)
{
  return side == TILDE_IR_SIDE_LEFT ? self->left_title : self->right_title;
}

GtkWidget *
_tilde_ir_view_get_content (TildeIrView *self)
{
  return self->diff_box;
}

GtkPaned *
_tilde_ir_view_get_paned (TildeIrView *self)
{
  return self->paned;
}

guint
_tilde_ir_view_get_applying (TildeIrView *self)
{
  return self->apply != NULL ? self->applies : 0;
}

void
_tilde_ir_view_set_apply_limits (TildeIrView *self, guint rows, gboolean hold)
{
  self->apply_rows = rows;
  self->apply_hold = !!hold;
  _tilde_ir_view_schedule_apply (self);
}

static void
tilde_ir_view_dispose (GObject *object)
{
  TildeIrView *self = TILDE_IR_VIEW (object);
  GtkWidget *child;

  g_clear_handle_id (&self->compile_source, g_source_remove);
  g_clear_handle_id (&self->follow_source, g_source_remove);
  g_clear_handle_id (&self->scroll_source, g_source_remove);
  g_cancellable_cancel (self->diff_cancellable);
  g_clear_object (&self->diff_cancellable);
  _tilde_ir_view_cancel_apply (self);
  disconnect_editor (self);
  g_clear_pointer (&self->shown, tilde_job_result_unref);
  clear_opencl_note (self);
  g_clear_pointer (&self->rows, g_array_unref);
  g_clear_pointer (&self->buffer_rows, g_array_unref);
  for (guint s = 0; s < 2; s++)
    {
      self->sides[s].text = NULL;
      g_clear_pointer (&self->sides[s].highlighted, g_array_unref);
      g_clear_object (&self->sides[s].buffer);
      g_clear_pointer (&self->sides[s].text_lines, g_strfreev);
      g_clear_pointer (&self->sides[s].lines, g_ptr_array_unref);
    }
  if (self->pass_list != NULL)
    gtk_list_view_set_model (self->pass_list, NULL);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter);
  g_clear_object (&self->passes);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_IR_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (tilde_ir_view_parent_class)->dispose (object);
}

static void
tilde_ir_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeIrView *self = TILDE_IR_VIEW (object);

  switch (prop_id)
    {
    case PROP_EDITOR:
      g_value_set_object (value, self->editor);
      break;
    case PROP_LEVEL:
      g_value_set_uint (value, self->level);
      break;
    case PROP_LEFT_STAGE:
      g_value_set_uint (value, self->left_stage);
      break;
    case PROP_RIGHT_STAGE:
      g_value_set_uint (value, self->right_stage);
      break;
    case PROP_USE_OPENCL:
      g_value_set_boolean (value, self->use_opencl);
      break;
    case PROP_HIDE_UNCHANGED:
      g_value_set_boolean (value, self->hide_unchanged);
      break;
    case PROP_STEP:
      g_value_set_int (value, self->step);
      break;
    case PROP_HAS_ERRORS:
      g_value_set_boolean (value, self->has_errors);
      break;
    case PROP_COMPILING:
      g_value_set_boolean (value, self->compiling);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_ir_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TildeIrView *self = TILDE_IR_VIEW (object);

  switch (prop_id)
    {
    case PROP_EDITOR:
      tilde_ir_view_set_editor (self, g_value_get_object (value));
      break;
    case PROP_LEVEL:
      tilde_ir_view_set_level (self, g_value_get_uint (value));
      break;
    case PROP_LEFT_STAGE:
      set_stage (self, &self->left_stage, g_value_get_uint (value), pspec);
      break;
    case PROP_RIGHT_STAGE:
      set_stage (self, &self->right_stage, g_value_get_uint (value), pspec);
      break;
    case PROP_USE_OPENCL:
      tilde_ir_view_set_use_opencl (self, g_value_get_boolean (value));
      break;
    case PROP_HIDE_UNCHANGED:
      if (self->hide_unchanged != g_value_get_boolean (value))
        {
          self->hide_unchanged = g_value_get_boolean (value);
          gtk_filter_changed (GTK_FILTER (self->filter), self->hide_unchanged
                              ? GTK_FILTER_CHANGE_MORE_STRICT : GTK_FILTER_CHANGE_LESS_STRICT);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_STEP:
      tilde_ir_view_select_step (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_ir_view_class_init (TildeIrViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_ir_view_dispose;
  object_class->get_property = tilde_ir_view_get_property;
  object_class->set_property = tilde_ir_view_set_property;
  widget_class->map = tilde_ir_view_map;
  widget_class->css_changed = tilde_ir_view_css_changed;

  properties[PROP_EDITOR] =
    g_param_spec_object ("editor", NULL, NULL, TILDE_TYPE_EDITOR,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LEVEL] =
    g_param_spec_uint ("level", NULL, NULL, 0, MIR_OPT_EXPERIMENTAL, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LEFT_STAGE] =
    g_param_spec_uint ("left-stage", NULL, NULL, 0, TILDE_N_MIR_STAGES - 1, TILDE_MIR_STAGE_TRANSFORMED,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RIGHT_STAGE] =
    g_param_spec_uint ("right-stage", NULL, NULL, 0, TILDE_N_MIR_STAGES - 1, TILDE_MIR_STAGE_OPTIMIZED,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_USE_OPENCL] =
    g_param_spec_boolean ("use-opencl", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HIDE_UNCHANGED] =
    g_param_spec_boolean ("hide-unchanged", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STEP] =
    g_param_spec_int ("step", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_ERRORS] =
    g_param_spec_boolean ("has-errors", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COMPILING] =
    g_param_spec_boolean ("compiling", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted when a compile's result is in, whether it compiled or not. */
  signals[COMPILED] = g_signal_new ("compiled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* A short message for the person (copied, could not save), for a toast. */
  signals[SHOW_MESSAGE] = g_signal_new ("show-message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/tilde/Workbench/ui/tilde-ir-view.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, error_bar);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, paned);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, pass_search);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, hide_unchanged_check);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, pass_list);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, content_stack);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, empty_label);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, diff_box);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, left_title_stack);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, right_title_stack);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, left_stage_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, right_stage_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, left_title);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, right_title);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, left_scroller);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, right_scroller);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, left_view);
  gtk_widget_class_bind_template_child (widget_class, TildeIrView, right_view);
  gtk_widget_class_bind_template_callback (widget_class, pass_search_changed_cb);

  gtk_widget_class_install_action (widget_class, "ir.previous-pass", NULL, previous_pass_action);
  gtk_widget_class_install_action (widget_class, "ir.next-pass", NULL, next_pass_action);
  gtk_widget_class_install_action (widget_class, "ir.copy", "i", copy_action);
  gtk_widget_class_install_action (widget_class, "ir.save-as", "i", save_as_action);
  gtk_widget_class_set_css_name (widget_class, "tilde-ir-view");
}

static GtkStringList *
stage_names (void)
{
  GtkStringList *list = gtk_string_list_new (NULL);

  for (guint i = 0; i < TILDE_N_MIR_STAGES; i++)
    gtk_string_list_append (list, stage_title (i));
  return list;
}

static void
init_side (TildeIrView *self, TildeIrSide side, GtkSourceView *view, GCallback cursor_moved)
{
  Side *s = &self->sides[side];
  GtkTextBuffer *buffer;
  GtkTextIter start;

  s->view = view;
  /* Not empty before the view sees it: its mark of the top line is then
   * made before the text, where insert_rows() keeps it. */
  s->buffer = gtk_source_buffer_new (NULL);
  buffer = GTK_TEXT_BUFFER (s->buffer);
  gtk_text_buffer_set_text (buffer, " ", -1);
  s->lines = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (s->lines, g_strdup (" "));
  gtk_source_buffer_set_highlight_syntax (s->buffer, FALSE);
  /* Made first, so the diff's and the source line's colours are drawn over them. */
  for (guint t = 0; t < TILDE_MIR_N_TOKENS; t++)
    s->mir_tags[t] = gtk_text_buffer_create_tag (buffer, NULL, NULL);
  gtk_source_buffer_set_highlight_matching_brackets (s->buffer, FALSE);
  s->tags[TAG_ADDED] = gtk_text_buffer_create_tag (buffer, "diff-added", NULL);
  s->tags[TAG_REMOVED] = gtk_text_buffer_create_tag (buffer, "diff-removed", NULL);
  s->tags[TAG_CHANGED] = gtk_text_buffer_create_tag (buffer, "diff-changed", NULL);
  s->tags[TAG_FILLER] = gtk_text_buffer_create_tag (buffer, "diff-filler", NULL);
  /* Made last, so it is drawn over the diff's colours. */
  s->tags[TAG_SOURCE] = gtk_text_buffer_create_tag (buffer, "source-line", NULL);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_create_mark (buffer, SCROLL_MARK, &start, TRUE);
  gtk_text_buffer_place_cursor (buffer, &start);
  g_signal_connect_object (buffer, "notify::cursor-position", cursor_moved, self, G_CONNECT_SWAPPED);
  gtk_text_view_set_buffer (GTK_TEXT_VIEW (view), buffer);
  s->highlighted = g_array_new (FALSE, FALSE, sizeof (guint));

  s->gutter = TILDE_DIFF_GUTTER (tilde_diff_gutter_new ());
  gtk_source_gutter_insert (gtk_source_view_get_gutter (view, GTK_TEXT_WINDOW_LEFT),
                            GTK_SOURCE_GUTTER_RENDERER (s->gutter), 0);
}

static void
tilde_ir_view_init (TildeIrView *self)
{
  GtkListItemFactory *factory;
  GtkFilterListModel *filtered;
  g_autoptr(GtkStringList) left_names = stage_names ();
  g_autoptr(GtkStringList) right_names = stage_names ();

  gtk_widget_init_template (GTK_WIDGET (self));

  self->step = -1;
  self->last_source_row = -1;
  self->highlighted_line = -1;
  self->left_stage = TILDE_MIR_STAGE_TRANSFORMED;
  self->right_stage = TILDE_MIR_STAGE_OPTIMIZED;
  /* The one line of the empty buffers, stale from the start. */
  self->buffer_rows = g_array_new (FALSE, FALSE, sizeof (TildeDiffRow));
  g_array_append_val (self->buffer_rows, ((TildeDiffRow) { TILDE_DIFF_SAME, -1, -1 }));

  init_side (self, TILDE_IR_SIDE_LEFT, self->left_view, G_CALLBACK (left_cursor_moved));
  init_side (self, TILDE_IR_SIDE_RIGHT, self->right_view, G_CALLBACK (right_cursor_moved));
  /* The sides scroll together: their rows line up. (Two adjustments kept
   * equal rather than one shared, which GTK's scrollbars do not expect.) */
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->left_scroller), "value-changed",
                           G_CALLBACK (left_scrolled), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->right_scroller), "value-changed",
                           G_CALLBACK (right_scrolled), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->left_scroller), "changed",
                           G_CALLBACK (follow_scroll), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->right_scroller), "changed",
                           G_CALLBACK (follow_scroll), self, G_CONNECT_SWAPPED);
  refresh_colours (self);

  gtk_drop_down_set_model (self->left_stage_dropdown, G_LIST_MODEL (left_names));
  gtk_drop_down_set_model (self->right_stage_dropdown, G_LIST_MODEL (right_names));
  g_object_bind_property (self, "left-stage", self->left_stage_dropdown, "selected",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_object_bind_property (self, "right-stage", self->right_stage_dropdown, "selected",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_object_bind_property (self, "hide-unchanged", self->hide_unchanged_check, "active",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);

  self->passes = g_list_store_new (TILDE_TYPE_IR_PASS);
  self->filter = gtk_custom_filter_new (pass_visible, self, NULL);
  filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->passes)),
                                        GTK_FILTER (g_object_ref (self->filter)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (filtered));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  gtk_single_selection_set_can_unselect (self->selection, FALSE);
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (selection_changed), self, G_CONNECT_SWAPPED);
  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (pass_row_setup), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (pass_row_bind), NULL);
  gtk_list_view_set_factory (self->pass_list, factory);
  g_object_unref (factory);
  gtk_list_view_set_model (self->pass_list, GTK_SELECTION_MODEL (self->selection));
  update_step_actions (self);
  show_empty (self);
}
