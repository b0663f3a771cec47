/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "tilde-parameter-list.h"

struct _TildeParameterList
{
  GtkWidget           parent_instance;

  /* Template children */
  GtkSearchEntry     *search_entry;
  GtkListView        *list_view;

  TildeDraws         *draws;
  GtkCustomFilter    *filter;
  /* One filter per expanded group: its elements are all shown when the
   * group's own name matches. */
  GPtrArray          *child_filters;
  GtkMultiSelection  *selection;
  char               *search;   /* casefolded; NULL shows everything */
  GStrv               selected;
  /* The rows chosen, kept when the draws go (a run starting) and chosen
   * again in the next run's draws: their keys (kept_key()), and the
   * variables of the groups their elements were in. */
  GHashTable         *kept;
  GHashTable         *kept_open;
  gboolean            restoring;
};

/* How a row is found again: an element or not, then a group by its
 * variable (its size may have changed), anything else by its name. */
static char *
kept_key (GtkTreeListRow *row, TildeParameter *parameter)
{
  gboolean group = tilde_parameter_is_group (parameter);

  return g_strdup_printf ("%c%c%s", gtk_tree_list_row_get_depth (row) > 0 ? 'e' : 'r',
                          group ? 'g' : 'p',
                          group ? tilde_parameter_get_variable (parameter)
                                : tilde_parameter_get_name (parameter));
}

G_DEFINE_FINAL_TYPE (TildeParameterList, tilde_parameter_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_DRAWS,
  PROP_SELECTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct
{
  TildeParameterList *list;   /* not a reference: the list owns the filter */
  TildeParameter     *group;
} ChildFilter;

GtkWidget *
tilde_parameter_list_new (void)
{
  return g_object_new (TILDE_TYPE_PARAMETER_LIST, NULL);
}

TildeDraws *
tilde_parameter_list_get_draws (TildeParameterList *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER_LIST (self), NULL);
  return self->draws;
}

const char *const *
tilde_parameter_list_get_selected (TildeParameterList *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER_LIST (self), NULL);
  return (const char *const *) self->selected;
}

GtkSelectionModel *
tilde_parameter_list_get_model (TildeParameterList *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER_LIST (self), NULL);
  return GTK_SELECTION_MODEL (self->selection);
}

/* ---- search ---- */

static gboolean
contains_folded (const char *haystack, const char *needle)
{
  g_autofree char *folded = g_utf8_casefold (haystack, -1);

  return strstr (folded, needle) != NULL;
}

/* Whether one parameter's own names match: as shown ("theta[3]") or as
 * in Stan CSV ("theta.3"). */
static gboolean
parameter_matches (TildeParameterList *self, TildeParameter *parameter)
{
  guint n;
  const guint *columns;

  if (self->search == NULL)
    return TRUE;
  if (contains_folded (tilde_parameter_get_name (parameter), self->search))
    return TRUE;
  if (tilde_parameter_is_group (parameter) || self->draws == NULL)
    return FALSE;
  columns = tilde_parameter_get_columns (parameter, &n);
  return n == 1 && contains_folded (tilde_draws_get_column_name (self->draws, columns[0]),
                                    self->search);
}

static gboolean
group_matches (TildeParameterList *self, TildeParameter *parameter)
{
  GListModel *children = tilde_parameter_get_children (parameter);

  if (parameter_matches (self, parameter))
    return TRUE;
  for (guint i = 0; children != NULL && i < g_list_model_get_n_items (children); i++)
    {
      g_autoptr(TildeParameter) child = g_list_model_get_item (children, i);

      if (parameter_matches (self, child))
        return TRUE;
    }
  return FALSE;
}

static gboolean
filter_root (gpointer item, gpointer user_data)
{
  return group_matches (user_data, item);
}

static gboolean
filter_child (gpointer item, gpointer user_data)
{
  ChildFilter *filter = user_data;

  return parameter_matches (filter->list, filter->group) || parameter_matches (filter->list, item);
}

static void
child_filter_free (gpointer data)
{
  ChildFilter *filter = data;

  g_object_unref (filter->group);
  g_free (filter);
}

static GListModel *
create_children (gpointer item, gpointer user_data)
{
  TildeParameterList *self = user_data;
  GListModel *children = tilde_parameter_get_children (item);
  ChildFilter *data;
  GtkCustomFilter *filter;

  if (children == NULL)
    return NULL;
  data = g_new0 (ChildFilter, 1);
  data->list = self;
  data->group = g_object_ref (item);
  filter = gtk_custom_filter_new (filter_child, data, child_filter_free);
  g_ptr_array_add (self->child_filters, g_object_ref (filter));
  return G_LIST_MODEL (gtk_filter_list_model_new (g_object_ref (children), GTK_FILTER (filter)));
}

static void
apply_search (TildeParameterList *self, const char *text)
{
  GtkTreeListModel *tree;

  g_clear_pointer (&self->search, g_free);
  if (text != NULL && text[0] != '\0')
    self->search = g_utf8_casefold (text, -1);
  for (guint i = 0; i < self->child_filters->len; i++)
    gtk_filter_changed (self->child_filters->pdata[i], GTK_FILTER_CHANGE_DIFFERENT);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);

  /* Groups open while searching, to show the elements that matched, and
   * close again after. */
  tree = GTK_TREE_LIST_MODEL (gtk_multi_selection_get_model (self->selection));
  if (tree == NULL)
    return;
  gtk_tree_list_model_set_autoexpand (tree, self->search != NULL);
  for (guint i = 0; i < g_list_model_get_n_items (gtk_tree_list_model_get_model (tree)); i++)
    {
      g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_child_row (tree, i);

      if (row != NULL && gtk_tree_list_row_is_expandable (row))
        gtk_tree_list_row_set_expanded (row, self->search != NULL);
    }
}

static void
search_changed_cb (TildeParameterList *self)
{
  apply_search (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

void
tilde_parameter_list_set_search (TildeParameterList *self, const char *text)
{
  g_return_if_fail (TILDE_IS_PARAMETER_LIST (self));

  /* Setting the entry's text empties it first, which would search for
   * nothing at once. */
  g_signal_handlers_block_by_func (self->search_entry, search_changed_cb, self);
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text ? text : "");
  g_signal_handlers_unblock_by_func (self->search_entry, search_changed_cb, self);
  apply_search (self, text);
}

/* ---- selection ---- */

static void
update_selected (TildeParameterList *self)
{
  GtkSelectionModel *model = GTK_SELECTION_MODEL (self->selection);
  g_autoptr(GtkBitset) bitset = gtk_selection_model_get_selection (model);
  g_autofree gboolean *chosen = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  GtkBitsetIter iter;
  guint position, n_columns;
  g_auto(GStrv) selected = NULL;
  gboolean keep = self->draws != NULL && !self->restoring && self->kept != NULL;

  if (keep)
    {
      g_hash_table_remove_all (self->kept);
      g_hash_table_remove_all (self->kept_open);
    }
  if (self->draws != NULL)
    {
      n_columns = tilde_draws_get_n_columns (self->draws);
      chosen = g_new0 (gboolean, n_columns);
      for (gboolean more = gtk_bitset_iter_init_first (&iter, bitset, &position); more;
           more = gtk_bitset_iter_next (&iter, &position))
        {
          g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection),
                                                                 position);
          g_autoptr(TildeParameter) parameter = gtk_tree_list_row_get_item (row);
          const guint *columns;
          guint n;

          if (keep)
            {
              g_hash_table_add (self->kept, kept_key (row, parameter));
              if (gtk_tree_list_row_get_depth (row) > 0)
                g_hash_table_add (self->kept_open,
                                  g_strdup (tilde_parameter_get_variable (parameter)));
            }
          columns = tilde_parameter_get_columns (parameter, &n);
          for (guint i = 0; i < n; i++)
            chosen[columns[i]] = TRUE;
        }
      for (guint c = 0; c < n_columns; c++)
        if (chosen[c])
          g_strv_builder_add (builder, tilde_draws_get_column_name (self->draws, c));
    }
  selected = g_strv_builder_end (builder);
  if (self->selected != NULL
      && g_strv_equal ((const char *const *) self->selected, (const char *const *) selected))
    return;
  g_strfreev (self->selected);
  self->selected = g_steal_pointer (&selected);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
}

/* The rows chosen before, in new draws: the groups their elements were in
 * opened again. FALSE when the draws have none of them. */
static gboolean
choose_kept (TildeParameterList *self, GtkTreeListModel *tree)
{
  GListModel *top = gtk_tree_list_model_get_model (tree);
  GListModel *rows = G_LIST_MODEL (tree);
  g_autoptr(GtkBitset) chosen = gtk_bitset_new_empty ();
  g_autoptr(GtkBitset) everything = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (top); i++)
    {
      g_autoptr(TildeParameter) parameter = g_list_model_get_item (top, i);

      if (tilde_parameter_is_group (parameter)
          && g_hash_table_contains (self->kept_open, tilde_parameter_get_variable (parameter)))
        {
          g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_child_row (tree, i);

          if (row != NULL)
            gtk_tree_list_row_set_expanded (row, TRUE);
        }
    }
  for (guint position = 0; position < g_list_model_get_n_items (rows); position++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, position);
      g_autoptr(TildeParameter) parameter = gtk_tree_list_row_get_item (row);
      g_autofree char *key = kept_key (row, parameter);

      if (g_hash_table_contains (self->kept, key))
        gtk_bitset_add (chosen, position);
    }
  if (gtk_bitset_is_empty (chosen))
    return FALSE;
  everything = gtk_bitset_new_range (0, g_list_model_get_n_items (rows));
  gtk_selection_model_set_selection (GTK_SELECTION_MODEL (self->selection), chosen, everything);
  return TRUE;
}

void
tilde_parameter_list_set_draws (TildeParameterList *self, TildeDraws *draws)
{
  GtkFilterListModel *filtered;
  GtkTreeListModel *tree;

  g_return_if_fail (TILDE_IS_PARAMETER_LIST (self));
  g_return_if_fail (draws == NULL || TILDE_IS_DRAWS (draws));

  if (!g_set_object (&self->draws, draws))
    return;
  g_ptr_array_set_size (self->child_filters, 0);
  if (draws == NULL)
    {
      gtk_multi_selection_set_model (self->selection, NULL);
    }
  else
    {
      filtered = gtk_filter_list_model_new (g_object_ref (tilde_draws_get_parameters (draws)),
                                            g_object_ref (GTK_FILTER (self->filter)));
      tree = gtk_tree_list_model_new (G_LIST_MODEL (filtered), FALSE, self->search != NULL,
                                      create_children, self, NULL);
      /* the rows chosen in the last draws (a run of the same model again),
       * else the first */
      self->restoring = TRUE;
      gtk_multi_selection_set_model (self->selection, G_LIST_MODEL (tree));
      if (!choose_kept (self, tree) && g_list_model_get_n_items (G_LIST_MODEL (self->selection)) > 0)
        gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), 0, TRUE);
      self->restoring = FALSE;
      g_object_unref (tree);
    }
  update_selected (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DRAWS]);
}

/* ---- object ---- */

static void
tilde_parameter_list_dispose (GObject *object)
{
  TildeParameterList *self = TILDE_PARAMETER_LIST (object);
  GtkWidget *child;

  if (self->selection != NULL)
    gtk_multi_selection_set_model (self->selection, NULL);
  g_clear_pointer (&self->child_filters, g_ptr_array_unref);
  g_clear_pointer (&self->kept, g_hash_table_unref);
  g_clear_pointer (&self->kept_open, g_hash_table_unref);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter);
  g_clear_object (&self->draws);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_PARAMETER_LIST);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (tilde_parameter_list_parent_class)->dispose (object);
}

static void
tilde_parameter_list_finalize (GObject *object)
{
  TildeParameterList *self = TILDE_PARAMETER_LIST (object);

  g_free (self->search);
  g_strfreev (self->selected);
  G_OBJECT_CLASS (tilde_parameter_list_parent_class)->finalize (object);
}

static void
tilde_parameter_list_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeParameterList *self = TILDE_PARAMETER_LIST (object);

  switch (prop_id)
    {
    case PROP_DRAWS:
      g_value_set_object (value, self->draws);
      break;
    case PROP_SELECTED:
      g_value_set_boxed (value, self->selected);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_parameter_list_set_property (GObject *object, guint prop_id, const GValue *value,
                                   GParamSpec *pspec)
{
  TildeParameterList *self = TILDE_PARAMETER_LIST (object);

  switch (prop_id)
    {
    case PROP_DRAWS:
      tilde_parameter_list_set_draws (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_parameter_list_class_init (TildeParameterListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_parameter_list_dispose;
  object_class->finalize = tilde_parameter_list_finalize;
  object_class->get_property = tilde_parameter_list_get_property;
  object_class->set_property = tilde_parameter_list_set_property;

  properties[PROP_DRAWS] =
    g_param_spec_object ("draws", NULL, NULL, TILDE_TYPE_DRAWS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED] =
    g_param_spec_boxed ("selected", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (TILDE_TYPE_PARAMETER);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/tilde/Workbench/ui/tilde-parameter-list.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeParameterList, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TildeParameterList, list_view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
tilde_parameter_list_init (TildeParameterList *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->child_filters = g_ptr_array_new_with_free_func (g_object_unref);
  self->kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->kept_open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->filter = gtk_custom_filter_new (filter_root, self, NULL);
  self->selection = gtk_multi_selection_new (NULL);
  self->selected = g_new0 (char *, 1);
  g_signal_connect_object (self->selection, "selection-changed",
                           G_CALLBACK (update_selected), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->selection, "items-changed",
                           G_CALLBACK (update_selected), self, G_CONNECT_SWAPPED);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));
}
