/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "tilde-summary-view.h"

#include "infer/column-name.h"

#define RHAT_LIMIT TILDE_SUMMARY_RHAT_LIMIT
#define ESS_LIMIT  400.0

/* ---- rows ---- */

#define TILDE_TYPE_SUMMARY_ITEM (tilde_summary_item_get_type ())
G_DECLARE_FINAL_TYPE (TildeSummaryItem, tilde_summary_item, TILDE, SUMMARY_ITEM, GObject)

struct _TildeSummaryItem
{
  GObject parent_instance;
  char   *name;
  guint   index;                            /* the summary's order */
  double  values[TILDE_SUMMARY_N_COLUMNS];  /* [NAME] unused */
};

G_DEFINE_FINAL_TYPE (TildeSummaryItem, tilde_summary_item, G_TYPE_OBJECT)

static void
tilde_summary_item_finalize (GObject *object)
{
  g_free (TILDE_SUMMARY_ITEM (object)->name);
  G_OBJECT_CLASS (tilde_summary_item_parent_class)->finalize (object);
}

static void
tilde_summary_item_class_init (TildeSummaryItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = tilde_summary_item_finalize;
}

static void
tilde_summary_item_init (TildeSummaryItem *self)
{
}

static TildeSummaryItem *
summary_item_new (const char *name, guint index)
{
  TildeSummaryItem *item = g_object_new (TILDE_TYPE_SUMMARY_ITEM, NULL);

  item->name = g_strdup (name);
  item->index = index;
  for (guint i = 0; i < TILDE_SUMMARY_N_COLUMNS; i++)
    item->values[i] = NAN;
  return item;
}

/* ---- the view ---- */

struct _TildeSummaryView
{
  GtkWidget          parent_instance;

  GtkWidget         *scrolled;
  GtkColumnView     *view;
  GListStore        *store;
  GtkSortListModel  *sorted;
  GtkColumnViewColumn *columns[TILDE_SUMMARY_N_COLUMNS];
  gboolean           estimates;
};

G_DEFINE_FINAL_TYPE (TildeSummaryView, tilde_summary_view, GTK_TYPE_WIDGET)

static gboolean
is_flagged (TildeSummaryColumn column, double value)
{
  switch (column)
    {
    case TILDE_SUMMARY_COLUMN_RHAT:
      return value > RHAT_LIMIT;
    case TILDE_SUMMARY_COLUMN_ESS_BULK:
    case TILDE_SUMMARY_COLUMN_ESS_TAIL:
      return value < ESS_LIMIT;
    default:
      return FALSE;
    }
}

static const char *
flag_word (TildeSummaryColumn column)
{
  /* Translators: shown after an R-hat above 1.01 or an ESS under 400 */
  return column == TILDE_SUMMARY_COLUMN_RHAT ? C_("summary flag", "high") : C_("summary flag", "low");
}

static char *
format_value (TildeSummaryColumn column, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    return g_strdup ("NaN");
  if (isinf (value))
    return g_strdup (value > 0 ? "inf" : "-inf");
  switch (column)
    {
    case TILDE_SUMMARY_COLUMN_ESS_BULK:
    case TILDE_SUMMARY_COLUMN_ESS_TAIL:
      return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.0f", value));
    case TILDE_SUMMARY_COLUMN_RHAT:
      return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.3f", value));
    default:
      return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.4g", value));
    }
}

static char *
cell_text (TildeSummaryItem *item, TildeSummaryColumn column, gboolean estimates)
{
  g_autofree char *value = NULL;

  if (column == TILDE_SUMMARY_COLUMN_NAME)
    return g_strdup (item->name);
  value = format_value (column, item->values[column]);
  if (!estimates && is_flagged (column, item->values[column]))
    return g_strdup_printf ("%s %s", value, flag_word (column));
  return g_steal_pointer (&value);
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer data)
{
  TildeSummaryColumn column = GPOINTER_TO_UINT (data);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_set_visible (icon, FALSE);
  gtk_widget_add_css_class (icon, "warning");
  gtk_label_set_xalign (GTK_LABEL (label), column == TILDE_SUMMARY_COLUMN_NAME ? 0 : 1);
  gtk_widget_set_hexpand (label, TRUE);
  if (column != TILDE_SUMMARY_COLUMN_NAME)
    gtk_widget_add_css_class (label, "numeric");
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  gtk_list_item_set_child (list_item, box);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *list_item, gpointer data)
{
  TildeSummaryColumn column = GPOINTER_TO_UINT (data);
  TildeSummaryItem *item = gtk_list_item_get_item (list_item);
  GtkWidget *box = gtk_list_item_get_child (list_item);
  GtkWidget *icon = gtk_widget_get_first_child (box);
  GtkWidget *label = gtk_widget_get_last_child (box);
  TildeSummaryView *self = g_object_get_data (G_OBJECT (factory), "view");
  g_autofree char *text = cell_text (item, column, self->estimates);
  gboolean flagged = column != TILDE_SUMMARY_COLUMN_NAME && !self->estimates
                     && is_flagged (column, item->values[column]);

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_visible (icon, flagged);
  gtk_widget_set_tooltip_text (box, !flagged ? NULL
                               : column == TILDE_SUMMARY_COLUMN_RHAT
                               ? _("R-hat above 1.01: the chains disagree, so they have not converged")
                               : _("ESS under 400: too few effective draws for reliable estimates"));
}

static int
compare_items (gconstpointer a, gconstpointer b, gpointer data)
{
  TildeSummaryColumn column = GPOINTER_TO_UINT (data);
  const TildeSummaryItem *x = a, *y = b;
  double u, v;

  if (column == TILDE_SUMMARY_COLUMN_NAME)
    return x->index < y->index ? GTK_ORDERING_SMALLER
           : x->index > y->index ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
  u = x->values[column];
  v = y->values[column];
  if (isnan (u) || isnan (v))
    return isnan (u) && isnan (v) ? GTK_ORDERING_EQUAL
           : isnan (u) ? GTK_ORDERING_LARGER : GTK_ORDERING_SMALLER;
  return u < v ? GTK_ORDERING_SMALLER : u > v ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static const char *
column_title (TildeSummaryColumn column)
{
  switch (column)
    {
    case TILDE_SUMMARY_COLUMN_NAME: return _("Name");
    case TILDE_SUMMARY_COLUMN_MEAN: return _("Mean");
    case TILDE_SUMMARY_COLUMN_MCSE: return _("MCSE");
    case TILDE_SUMMARY_COLUMN_SD: return _("SD");
    case TILDE_SUMMARY_COLUMN_Q5: return _("5 %");
    case TILDE_SUMMARY_COLUMN_Q50: return _("50 %");
    case TILDE_SUMMARY_COLUMN_Q95: return _("95 %");
    case TILDE_SUMMARY_COLUMN_ESS_BULK: return _("Bulk ESS");
    case TILDE_SUMMARY_COLUMN_ESS_TAIL: return _("Tail ESS");
    case TILDE_SUMMARY_COLUMN_RHAT: return _("R-hat");
    default: return "";
    }
}

static void
add_column (TildeSummaryView *self, TildeSummaryColumn column)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *c;
  g_autoptr(GtkSorter) sorter = NULL;

  g_object_set_data (G_OBJECT (factory), "view", self);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GUINT_TO_POINTER (column));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GUINT_TO_POINTER (column));
  c = gtk_column_view_column_new (column_title (column), factory);
  sorter = GTK_SORTER (gtk_custom_sorter_new (compare_items, GUINT_TO_POINTER (column), NULL));
  gtk_column_view_column_set_sorter (c, sorter);
  gtk_column_view_column_set_resizable (c, TRUE);
  if (column == TILDE_SUMMARY_COLUMN_NAME)
    gtk_column_view_column_set_expand (c, TRUE);
  gtk_column_view_append_column (self->view, c);
  self->columns[column] = c;
  g_object_unref (c);
}

static void
show_columns (TildeSummaryView *self, gboolean estimates)
{
  self->estimates = estimates;
  for (guint i = 1; i < TILDE_SUMMARY_N_COLUMNS; i++)
    gtk_column_view_column_set_visible (self->columns[i],
                                        !estimates || i == TILDE_SUMMARY_COLUMN_MEAN);
  gtk_column_view_column_set_title (self->columns[TILDE_SUMMARY_COLUMN_MEAN],
                                    estimates ? _("Estimate") : _("Mean"));
}

void
tilde_summary_view_set_summary (TildeSummaryView *self, const TildeSummary *summary)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (TILDE_IS_SUMMARY_VIEW (self));
  show_columns (self, FALSE);
  for (guint i = 0; summary && i < summary->rows->len; i++)
    {
      const TildeSummaryRow *r = g_ptr_array_index (summary->rows, i);
      TildeSummaryItem *item;

      if (r->kind == TILDE_SUMMARY_SAMPLER)
        continue;
      item = summary_item_new (r->name, i);
      item->values[TILDE_SUMMARY_COLUMN_MEAN] = r->mean;
      item->values[TILDE_SUMMARY_COLUMN_MCSE] = r->mcse;
      item->values[TILDE_SUMMARY_COLUMN_SD] = r->sd;
      for (guint q = 0; q < 3 && q < summary->n_probs; q++)
        item->values[TILDE_SUMMARY_COLUMN_Q5 + q] = r->quantiles[q];
      item->values[TILDE_SUMMARY_COLUMN_ESS_BULK] = r->ess_bulk;
      item->values[TILDE_SUMMARY_COLUMN_ESS_TAIL] = r->ess_tail;
      item->values[TILDE_SUMMARY_COLUMN_RHAT] = r->rhat;
      g_ptr_array_add (items, item);
    }
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       items->pdata, items->len);
}

void
tilde_summary_view_set_estimates (TildeSummaryView  *self,
                                  const char *const *names,
                                  const double      *values,
                                  gsize              n)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (TILDE_IS_SUMMARY_VIEW (self));
  show_columns (self, TRUE);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *name = tilde_column_display_name (names[i]);
      TildeSummaryItem *item = summary_item_new (name, (guint) i);

      item->values[TILDE_SUMMARY_COLUMN_MEAN] = values[i];
      g_ptr_array_add (items, item);
    }
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       items->pdata, items->len);
}

GtkColumnView *
tilde_summary_view_get_column_view (TildeSummaryView *self)
{
  return self->view;
}

guint
tilde_summary_view_get_n_rows (TildeSummaryView *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
}

char *
tilde_summary_view_get_cell_text (TildeSummaryView *self, guint row, TildeSummaryColumn column)
{
  g_autoptr(TildeSummaryItem) item = g_list_model_get_item (G_LIST_MODEL (self->sorted), row);

  return item ? cell_text (item, column, self->estimates) : NULL;
}

static void
append_csv_value (GString *out, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    g_string_append (out, "NaN");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "inf" : "-inf");
  else
    g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.9g", value));
}

static void
append_csv_name (GString *out, const char *name)
{
  if (strpbrk (name, ",\"") == NULL)
    {
      g_string_append (out, name);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = name; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

gboolean
tilde_summary_view_write_csv (TildeSummaryView *self, const char *path, GError **error)
{
  static const char *const header[] = {
    "name", "Mean", "MCSE", "StdDev", "5%", "50%", "95%", "ESS_bulk", "ESS_tail", "R_hat"
  };
  g_autoptr(GString) out = g_string_new (NULL);
  guint n = tilde_summary_view_get_n_rows (self);
  guint n_columns = self->estimates ? 2 : TILDE_SUMMARY_N_COLUMNS;

  for (guint c = 0; c < n_columns; c++)
    g_string_append_printf (out, "%s%s", c ? "," : "",
                            self->estimates && c == 1 ? "estimate" : header[c]);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TildeSummaryItem) item = g_list_model_get_item (G_LIST_MODEL (self->sorted), i);

      append_csv_name (out, item->name);
      for (guint c = 1; c < n_columns; c++)
        {
          g_string_append_c (out, ',');
          append_csv_value (out, item->values[c]);
        }
      g_string_append_c (out, '\n');
    }
  return g_file_set_contents (path, out->str, (gssize) out->len, error);
}

static void
tilde_summary_view_dispose (GObject *object)
{
  TildeSummaryView *self = TILDE_SUMMARY_VIEW (object);

  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (tilde_summary_view_parent_class)->dispose (object);
}

static void
tilde_summary_view_class_init (TildeSummaryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_summary_view_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "summaryview");
}

static void
tilde_summary_view_init (TildeSummaryView *self)
{
  GtkSelectionModel *selection;

  self->store = g_list_store_new (TILDE_TYPE_SUMMARY_ITEM);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  for (guint i = 0; i < TILDE_SUMMARY_N_COLUMNS; i++)
    add_column (self, i);
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                          g_object_ref (gtk_column_view_get_sorter (self->view)));
  selection = GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (self->sorted)));
  gtk_column_view_set_model (self->view, selection);
  g_object_unref (selection);
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  gtk_column_view_set_reorderable (self->view, FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->view), "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Summary of the draws"), -1);

  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), GTK_WIDGET (self->view));
  gtk_widget_set_parent (self->scrolled, GTK_WIDGET (self));
}

GtkWidget *
tilde_summary_view_new (void)
{
  return g_object_new (TILDE_TYPE_SUMMARY_VIEW, NULL);
}
