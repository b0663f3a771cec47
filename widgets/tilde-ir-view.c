/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-weak-ref.h"
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>
#include <time.h>

#include "tilde-diff-gutter.h"
#include "tilde-editor-private.h"
#include "tilde-ir-pass.h"
#include "tilde-mir-highlight.h"
#include "tilde-ir-view-private.h"
#include "tilde-line-diff.h"
#include "worker/mir-stages.h"

enum {
  TAG_ADDED,
  TAG_REMOVED,
  TAG_CHANGED,
  TAG_FILLER,
  TAG_SOURCE,
  N_TAGS
};

typedef enum {
  SCROLL_KEEP,          /* the same rows as before stay in view */
  SCROLL_FIRST_CHANGE,  /* the first row that differs comes into view */
} ScrollHint;

typedef struct {
  GtkSourceView   *view;
  GtkSourceBuffer *buffer;
  TildeDiffGutter *gutter;
  GtkTextTag      *tags[N_TAGS];
  GtkTextTag      *mir_tags[TILDE_MIR_N_TOKENS];
  GArray          *highlighted;   /* guint: buffer lines under TAG_SOURCE */
  const TildeMirText *text;       /* what the side shows; owned by `shown` */
  char           **text_lines;    /* `text` split into lines */
  GPtrArray       *lines;         /* char *: what each buffer line holds */
} Side;

/* A result being put in the views a slice at a time (see apply_slice()). */
typedef struct {
  guint next, end;                /* rows of `rows` still to insert */
  guint insert_at;                /* the buffer line they go before */
  int   top;                      /* the row to scroll to once done */
  guint rows;                     /* rows the next slice may insert */
  gint64 slice_end;               /* main-thread CPU time, µs, at the last slice's end */
  guint source;
} Apply;

#define SCROLL_MARK "tilde-scroll"

static GtkTextBuffer *
side_buffer (Side *s)
{
  return GTK_TEXT_BUFFER (s->buffer);
}

struct _TildeIrView
{
  GtkWidget parent_instance;

  /* Template children */
  GtkInfoBar         *error_bar;
  GtkPaned           *paned;
  GtkSearchEntry     *pass_search;
  GtkCheckButton     *hide_unchanged_check;
  GtkListView        *pass_list;
  GtkStack           *content_stack;
  GtkLabel           *empty_label;
  GtkWidget          *diff_box;
  GtkStack           *left_title_stack;
  GtkStack           *right_title_stack;
  GtkDropDown        *left_stage_dropdown;
  GtkDropDown        *right_stage_dropdown;
  GtkLabel           *left_title;
  GtkLabel           *right_title;
  GtkScrolledWindow  *left_scroller;
  GtkScrolledWindow  *right_scroller;
  GtkSourceView      *left_view;
  GtkSourceView      *right_view;

  Side                sides[2];
  TildeEditor        *editor;
  GtkTextBuffer      *editor_buffer;
  GListStore         *passes;
  GtkCustomFilter    *filter;
  GtkSingleSelection *selection;

  /* The last result that compiled, whose stages are shown. */
  TildeJobResult     *shown;
  GArray             *rows;           /* TildeDiffRow of what is shown */
  /* What each buffer line is: rows of `rows` already in, and lines of what
   * was shown before (no line on either side, "stale") until removed. */
  GArray             *buffer_rows;
  Apply              *apply;
  guint               applies;
  guint               apply_rows;     /* rows a slice, for the tests; 0: default */
  GCancellable       *diff_cancellable;
  guint               follow_source;
  guint               scroll_source;
  int                 scroll_row;
  gboolean            scroll_align;
  guint64             compile_generation;
  /* Counts edits; a result is shown only for the text it compiled. */
  guint64             stamp;
  guint64             compiled_stamp;
  guint               compile_source;
  guint               results;
  int                 step;
  int                 last_source_row;
  int                 highlighted_line;  /* the editor line marked; -1 after new text */
  int                 last_top_row;
  guint               level;
  guint               left_stage;
  guint               right_stage;
  gboolean            use_opencl;
  /* The OpenCL stage of `shown` when it has no kernel: why, then the plan. */
  TildeMirText        opencl_note;
  GdkRGBA             colours[N_TAGS];

  guint               hide_unchanged : 1;
  guint               has_errors : 1;
  guint               compiling : 1;
  guint               dirty : 1;
  guint               updating : 1;
  guint               rebuilding : 1;
  guint               from_click : 1;
  guint               syncing_scroll : 1;
  guint               result_pending : 1;   /* a compile's result waits for its apply */
  guint               apply_hold : 1;
  guint               scroll_leader : 1;    /* TildeIrSide */
};

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
static void update_source_highlight (TildeIrView *self);
static void clear_source_highlight (TildeIrView *self);
static void scroll_to_row (TildeIrView *self, int row, gboolean align);

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
  if (stages->opencl_candidate != NULL)
    return g_strdup_printf (_("No statement runs on an OpenCL device: annotate %s with @gpu (the "
                              "design matrix of %s at line %d) to run that statement as a kernel"),
                            stages->opencl_candidate, stages->opencl_candidate_call,
                            stages->opencl_candidate_line);
  return g_strdup (_("No statement runs on an OpenCL device: only GLM statements over a design "
                     "matrix annotated @gpu do, such as y ~ poisson_log_glm(X, alpha, beta) "
                     "with @gpu matrix[N, K] X"));
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
 * background slices of 30 ms. */
static void
highlight_lines (Side *s, guint first, guint n)
{
  for (guint i = first; i < first + n; i++)
    {
      const char *text = g_ptr_array_index (s->lines, i);
      GtkTextIter line;
      gpointer data[2] = { s, &line };

      gtk_text_buffer_get_iter_at_line (GTK_TEXT_BUFFER (s->buffer), &line, (int) i);
      tilde_mir_highlight_line (text, strlen (text), tag_mir_token, data);
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

static int
row_line (const TildeDiffRow *row, TildeIrSide side)
{
  return side == TILDE_IR_SIDE_LEFT ? row->old_line : row->new_line;
}

static void
apply_line_tag (GtkTextBuffer *buffer, GtkTextTag *tag, int first, int last)
{
  GtkTextIter begin, end;

  gtk_text_buffer_get_iter_at_line (buffer, &begin, first);
  if (!gtk_text_buffer_get_iter_at_line (buffer, &end, last + 1))
    gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_apply_tag (buffer, tag, &begin, &end);
}

/* ---- putting rows in the buffers, a slice at a time ---- */

/* A compile of a big model puts thousands of MIR lines in each view.
 * Put in at once, they stall the window: the insertion itself, the text
 * views measuring the new lines, and GtkSourceView analysing them, which
 * it does in a short first idle callback after each change and leaves
 * what that did not get to for a background one that takes 30 ms of
 * wall-clock time at a time, per buffer, both buffers' in the same
 * iteration of the main loop. So only the rows that differ from what the
 * buffers hold are replaced: first the old rows are removed (a deletion
 * has GtkSourceView analyse all the text after it again), then the new
 * rows go in a slice at a time from an idle callback below the priority
 * of the analysing and measuring of the last slice, small enough for
 * those to keep up. A newer result takes over from wherever a
 * half-applied one stopped. At every step buffer_rows says what each
 * buffer line is, for the gutter, the links to the source and the source
 * mark: old lines not yet removed ("stale") link nowhere. The view's
 * scroll position is set again once all rows are in. */

#define APPLY_BUDGET_US 4000    /* main-thread time of one slice */
#define APPLY_CHUNK     16      /* rows an insertion */
#define APPLY_MIN_ROWS  16
#define APPLY_MAX_ROWS  512
/* What the main thread may spend between two slices: analysing and
 * measuring the rows of the last one, and drawing a frame. */
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
  int line = row_line (row, side);

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

static void
update_gutters (TildeIrView *self)
{
  for (guint side = 0; side < 2; side++)
    {
      GArray *gutter = g_array_sized_new (FALSE, FALSE, sizeof (TildeDiffGutterRow),
                                          self->buffer_rows->len);

      for (guint i = 0; i < self->buffer_rows->len; i++)
        {
          const TildeDiffRow *row = &g_array_index (self->buffer_rows, TildeDiffRow, i);
          int line = row_line (row, side);
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
        apply_line_tag (buffer, s->tags[run_tag], run_start, i - 1);
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

static void
cancel_apply (TildeIrView *self)
{
  if (self->apply == NULL)
    return;
  g_clear_handle_id (&self->apply->source, g_source_remove);
  g_clear_pointer (&self->apply, g_free);
}

static void
finish_result (TildeIrView *self)
{
  self->results++;
  if (!self->dirty)
    set_compiling (self, FALSE);
  g_signal_emit (self, signals[COMPILED], 0);
}

static void
finish_apply (TildeIrView *self)
{
  int top = self->apply->top;

  cancel_apply (self);
  self->last_source_row = -1;
  self->highlighted_line = -1;
  scroll_to_row (self, top, TRUE);
  self->last_top_row = top;
  update_source_highlight (self);
  if (self->result_pending)
    {
      self->result_pending = FALSE;
      finish_result (self);
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
  update_gutters (self);
  a->slice_end = thread_cpu_us ();
  if (a->next < a->end || stale)
    return FALSE;
  a->source = 0;
  finish_apply (self);
  return TRUE;
}

/* GtkSourceView analyses what a slice inserted in a first idle callback
 * of its own, of at most 10 ms (of wall-clock time: less on a busy
 * machine), and leaves what it did not get to for a background one that
 * takes 30 ms at a time. So the slices follow what the main thread did
 * since the last one (that analysis, the text views' measuring of the new
 * lines, a frame): fewer rows when it was more than APPLY_AFTER_US, more
 * when it was well under. */
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

/* Below the priority of the text views' measuring and of GtkSourceView's
 * first analysis of an edit, above that of its background analysis. */
static void
schedule_apply (TildeIrView *self)
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
static void
begin_apply (TildeIrView *self, int top)
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
    schedule_apply (self);
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
 * this one; and, as in scroll_to_row(), once the views have measured
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
static void
scroll_to_row (TildeIrView *self, int row, gboolean align)
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

  cancel_apply (self);
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
  begin_apply (self, top);
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
 * MIR, the trivial diff of equal texts, or a diff computed off the main
 * thread. */
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
      int l = row_line (&g_array_index (self->buffer_rows, TildeDiffRow, i), side);
      const TildeMirSource *src = l >= 0 ? &s->text->sources[l] : NULL;

      if (src != NULL && source_covers (src, line))
        narrowest = MIN (narrowest, src->end_line - src->line);
    }
  if (narrowest == G_MAXINT)
    return -1;
  for (guint i = 0; i < self->buffer_rows->len; i++)
    {
      int l = row_line (&g_array_index (self->buffer_rows, TildeDiffRow, i), side);
      const TildeMirSource *src = l >= 0 ? &s->text->sources[l] : NULL;

      if (src != NULL && source_covers (src, line) && src->end_line - src->line == narrowest)
        {
          apply_line_tag (side_buffer (s), s->tags[TAG_SOURCE], (int) i, (int) i);
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

static void
update_source_highlight (TildeIrView *self)
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
    scroll_to_row (self, first, FALSE);
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
  line = row_line (&g_array_index (self->buffer_rows, TildeDiffRow, row), side);
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
      finish_result (self);
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
  cancel_apply (self);
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
  update_gutters (self);
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
                                G_CALLBACK (update_source_highlight), self);
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
  schedule_apply (self);
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
  cancel_apply (self);
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
