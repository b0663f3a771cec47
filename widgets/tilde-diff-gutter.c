/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include "tilde-diff-gutter.h"

struct _TildeDiffGutter
{
  GtkSourceGutterRendererText parent_instance;

  GArray  *rows;
  guint    digits;
  GdkRGBA  added;
  GdkRGBA  removed;
  GdkRGBA  changed;
};

G_DEFINE_FINAL_TYPE (TildeDiffGutter, tilde_diff_gutter, GTK_SOURCE_TYPE_GUTTER_RENDERER_TEXT)

GtkSourceGutterRenderer *
tilde_diff_gutter_new (void)
{
  return g_object_new (TILDE_TYPE_DIFF_GUTTER, NULL);
}

static const TildeDiffGutterRow *
row_at (TildeDiffGutter *self, guint line)
{
  if (self->rows == NULL || line >= self->rows->len)
    return NULL;
  return &g_array_index (self->rows, TildeDiffGutterRow, line);
}

/* Room for the widest number and the mark. */
static void
update_width (TildeDiffGutter *self)
{
  g_autofree char *widest = g_strnfill (self->digits + 2, '0');
  int width = 0;

  gtk_source_gutter_renderer_text_measure (GTK_SOURCE_GUTTER_RENDERER_TEXT (self), widest, &width, NULL);
  gtk_widget_set_size_request (GTK_WIDGET (self),
                               width + 2 * gtk_source_gutter_renderer_get_xpad (GTK_SOURCE_GUTTER_RENDERER (self)),
                               -1);
}

void
tilde_diff_gutter_set_rows (TildeDiffGutter *self, GArray *rows)
{
  guint max_line = 0;

  g_return_if_fail (TILDE_IS_DIFF_GUTTER (self));

  g_clear_pointer (&self->rows, g_array_unref);
  self->rows = rows;
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    max_line = MAX (max_line, g_array_index (rows, TildeDiffGutterRow, i).line);
  self->digits = 1;
  for (; max_line >= 10; max_line /= 10)
    self->digits++;
  update_width (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
tilde_diff_gutter_set_colours (TildeDiffGutter *self, const GdkRGBA *added,
                               const GdkRGBA *removed, const GdkRGBA *changed)
{
  g_return_if_fail (TILDE_IS_DIFF_GUTTER (self));
  self->added = *added;
  self->removed = *removed;
  self->changed = *changed;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
tilde_diff_gutter_query_data (GtkSourceGutterRenderer *renderer, GtkSourceGutterLines *lines, guint line)
{
  TildeDiffGutter *self = TILDE_DIFF_GUTTER (renderer);
  const TildeDiffGutterRow *row = row_at (self, line);
  char text[32];

  if (row == NULL || row->line == 0)
    g_snprintf (text, sizeof text, "%*s %c", (int) self->digits, "", row ? row->mark : ' ');
  else
    g_snprintf (text, sizeof text, "%*u %c", (int) self->digits, row->line, row->mark);
  gtk_source_gutter_renderer_text_set_text (GTK_SOURCE_GUTTER_RENDERER_TEXT (renderer), text, -1);
}

static void
tilde_diff_gutter_snapshot_line (GtkSourceGutterRenderer *renderer, GtkSnapshot *snapshot,
                                 GtkSourceGutterLines *lines, guint line)
{
  TildeDiffGutter *self = TILDE_DIFF_GUTTER (renderer);
  const TildeDiffGutterRow *row = row_at (self, line);
  const GdkRGBA *band = NULL;
  int y, height;

  if (row != NULL)
    band = row->mark == '+' ? &self->added
           : row->mark == '-' ? &self->removed
           : row->mark == '~' ? &self->changed
           : NULL;
  if (band != NULL)
    {
      gtk_source_gutter_lines_get_line_yrange (lines, line, GTK_SOURCE_GUTTER_RENDERER_ALIGNMENT_MODE_CELL,
                                               &y, &height);
      gtk_snapshot_append_color (snapshot, band,
                                 &GRAPHENE_RECT_INIT (0, y, gtk_widget_get_width (GTK_WIDGET (renderer)), height));
    }
  GTK_SOURCE_GUTTER_RENDERER_CLASS (tilde_diff_gutter_parent_class)->snapshot_line (renderer, snapshot,
                                                                                     lines, line);
}

static void
tilde_diff_gutter_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (tilde_diff_gutter_parent_class)->css_changed (widget, change);
  /* The font may have changed. */
  update_width (TILDE_DIFF_GUTTER (widget));
}

static void
tilde_diff_gutter_finalize (GObject *object)
{
  TildeDiffGutter *self = TILDE_DIFF_GUTTER (object);

  g_clear_pointer (&self->rows, g_array_unref);
  G_OBJECT_CLASS (tilde_diff_gutter_parent_class)->finalize (object);
}

static void
tilde_diff_gutter_class_init (TildeDiffGutterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkSourceGutterRendererClass *renderer_class = GTK_SOURCE_GUTTER_RENDERER_CLASS (klass);

  object_class->finalize = tilde_diff_gutter_finalize;
  widget_class->css_changed = tilde_diff_gutter_css_changed;
  renderer_class->query_data = tilde_diff_gutter_query_data;
  renderer_class->snapshot_line = tilde_diff_gutter_snapshot_line;
}

static void
tilde_diff_gutter_init (TildeDiffGutter *self)
{
  self->digits = 1;
  gtk_source_gutter_renderer_set_xpad (GTK_SOURCE_GUTTER_RENDERER (self), 6);
  gtk_source_gutter_renderer_set_xalign (GTK_SOURCE_GUTTER_RENDERER (self), 1.0f);
  gtk_widget_add_css_class (GTK_WIDGET (self), "line-numbers");
}
