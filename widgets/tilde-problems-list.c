/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-problems-list.h"

struct _TildeProblemsList
{
  GtkWidget           parent_instance;

  /* Template children */
  GtkLabel           *counts_label;
  GtkSpinner         *spinner;
  GtkListView        *list_view;
  GtkSingleSelection *selection;

  TildeEditor        *editor;
  GListModel         *problems;
  GBinding           *checking_binding;
  gboolean            checking;
};

G_DEFINE_FINAL_TYPE (TildeProblemsList, tilde_problems_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_EDITOR,
  PROP_PROBLEMS,
  PROP_CHECKING,
  N_PROPS
};

enum {
  PROBLEM_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

GtkWidget *
tilde_problems_list_new (void)
{
  return g_object_new (TILDE_TYPE_PROBLEMS_LIST, NULL);
}

TildeEditor *
tilde_problems_list_get_editor (TildeProblemsList *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEMS_LIST (self), NULL);
  return self->editor;
}

static void
update_counts (TildeProblemsList *self)
{
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model), errors = 0, warnings = 0;
  g_autofree char *error_text = NULL;
  g_autofree char *warning_text = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TildeProblem) problem = g_list_model_get_item (model, i);

      if (tilde_problem_get_severity (problem) == TILDE_SEVERITY_ERROR)
        errors++;
      else
        warnings++;
    }
  if (errors == 0 && warnings == 0)
    {
      gtk_label_set_text (self->counts_label, self->problems ? _("None") : "");
      return;
    }
  error_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u error", "%u errors", errors), errors);
  warning_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u warning", "%u warnings", warnings),
                                  warnings);
  if (errors > 0 && warnings > 0)
    /* Translators: "2 errors, 1 warning" */
    text = g_strdup_printf (_("%s, %s"), error_text, warning_text);
  gtk_label_set_text (self->counts_label,
                      text ? text : errors > 0 ? error_text : warning_text);
}

GListModel *
tilde_problems_list_get_problems (TildeProblemsList *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEMS_LIST (self), NULL);
  return self->problems;
}

void
tilde_problems_list_set_problems (TildeProblemsList *self, GListModel *problems)
{
  g_return_if_fail (TILDE_IS_PROBLEMS_LIST (self));
  g_return_if_fail (problems == NULL || G_IS_LIST_MODEL (problems));

  if (!g_set_object (&self->problems, problems))
    return;
  gtk_single_selection_set_model (self->selection, problems);
  update_counts (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROBLEMS]);
}

gboolean
tilde_problems_list_get_checking (TildeProblemsList *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEMS_LIST (self), FALSE);
  return self->checking;
}

void
tilde_problems_list_set_checking (TildeProblemsList *self, gboolean checking)
{
  g_return_if_fail (TILDE_IS_PROBLEMS_LIST (self));
  if (self->checking == !!checking)
    return;
  self->checking = !!checking;
  gtk_spinner_set_spinning (self->spinner, self->checking);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), self->checking);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKING]);
}

void
tilde_problems_list_set_checking_tooltip (TildeProblemsList *self, const char *tooltip)
{
  g_return_if_fail (TILDE_IS_PROBLEMS_LIST (self));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->spinner), tooltip);
}

void
tilde_problems_list_set_editor (TildeProblemsList *self, TildeEditor *editor)
{
  g_return_if_fail (TILDE_IS_PROBLEMS_LIST (self));
  g_return_if_fail (editor == NULL || TILDE_IS_EDITOR (editor));

  if (self->editor == editor)
    return;
  g_clear_pointer (&self->checking_binding, g_binding_unbind);
  g_set_object (&self->editor, editor);
  tilde_problems_list_set_problems (self, editor ? tilde_editor_get_problems (editor) : NULL);
  if (editor != NULL)
    self->checking_binding = g_object_bind_property (editor, "checking", self, "checking",
                                                     G_BINDING_SYNC_CREATE);
  else
    tilde_problems_list_set_checking (self, FALSE);
  update_counts (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITOR]);
}

/* ---- rows ---- */

/* The whole message, asked for only when the tooltip shows: a tooltip set
 * on every row as it is bound would have GTK ask the display where the
 * pointer is for each one. */
static gboolean
query_summary_tooltip (GtkWidget *label, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                       GtkListItem *item)
{
  TildeProblem *problem = gtk_list_item_get_item (item);

  if (problem == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, tilde_problem_get_message (problem));
  return TRUE;
}

/* Built in code, not from a template: a list view in GTK 4.8 makes up to
 * 200 rows at once, and parsing a row's XML for each was most of the time
 * a long list took to show. */
static void
setup_row_cb (TildeProblemsList *self, GtkListItem *item)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *location = gtk_label_new (NULL);
  GtkWidget *summary = gtk_label_new (NULL);

  gtk_widget_set_margin_start (row, 6);
  gtk_widget_set_margin_end (row, 6);
  gtk_widget_set_margin_top (row, 2);
  gtk_widget_set_margin_bottom (row, 2);
  gtk_label_set_xalign (GTK_LABEL (location), 0);
  gtk_label_set_width_chars (GTK_LABEL (location), 9);
  gtk_widget_add_css_class (location, "dim-label");
  gtk_widget_add_css_class (location, "numeric");
  gtk_label_set_xalign (GTK_LABEL (summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (summary, TRUE);
  gtk_widget_set_has_tooltip (summary, TRUE);
  g_signal_connect_object (summary, "query-tooltip", G_CALLBACK (query_summary_tooltip), item, 0);
  gtk_box_append (GTK_BOX (row), gtk_image_new ());
  gtk_box_append (GTK_BOX (row), location);
  gtk_box_append (GTK_BOX (row), summary);
  gtk_list_item_set_child (item, row);
}

static void
bind_row_cb (TildeProblemsList *self, GtkListItem *item)
{
  TildeProblem *problem = gtk_list_item_get_item (item);
  GtkWidget *icon = gtk_widget_get_first_child (gtk_list_item_get_child (item));
  GtkWidget *location = gtk_widget_get_next_sibling (icon);
  GtkWidget *summary = gtk_widget_get_next_sibling (location);

  gtk_image_set_from_icon_name (GTK_IMAGE (icon), tilde_problem_get_icon_name (problem));
  gtk_label_set_text (GTK_LABEL (location), tilde_problem_get_location (problem));
  gtk_label_set_text (GTK_LABEL (summary), tilde_problem_get_summary (problem));
}

static void
row_activated_cb (TildeProblemsList *self, guint position)
{
  g_autoptr(TildeProblem) problem = g_list_model_get_item (G_LIST_MODEL (self->selection), position);

  if (problem == NULL)
    return;
  g_signal_emit (self, signals[PROBLEM_ACTIVATED], 0, problem);
  if (self->editor != NULL)
    tilde_editor_go_to_problem (self->editor, problem);
}

static void
tilde_problems_list_dispose (GObject *object)
{
  TildeProblemsList *self = TILDE_PROBLEMS_LIST (object);
  GtkWidget *child;

  g_clear_pointer (&self->checking_binding, g_binding_unbind);
  g_clear_object (&self->editor);
  g_clear_object (&self->problems);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_PROBLEMS_LIST);
  /* Unnamed template children too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (tilde_problems_list_parent_class)->dispose (object);
}

static void
tilde_problems_list_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeProblemsList *self = TILDE_PROBLEMS_LIST (object);

  switch (prop_id)
    {
    case PROP_EDITOR:
      g_value_set_object (value, self->editor);
      break;
    case PROP_PROBLEMS:
      g_value_set_object (value, self->problems);
      break;
    case PROP_CHECKING:
      g_value_set_boolean (value, self->checking);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_problems_list_set_property (GObject *object, guint prop_id, const GValue *value,
                                  GParamSpec *pspec)
{
  TildeProblemsList *self = TILDE_PROBLEMS_LIST (object);

  switch (prop_id)
    {
    case PROP_EDITOR:
      tilde_problems_list_set_editor (self, g_value_get_object (value));
      break;
    case PROP_PROBLEMS:
      tilde_problems_list_set_problems (self, g_value_get_object (value));
      break;
    case PROP_CHECKING:
      tilde_problems_list_set_checking (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_problems_list_class_init (TildeProblemsListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_problems_list_dispose;
  object_class->get_property = tilde_problems_list_get_property;
  object_class->set_property = tilde_problems_list_set_property;

  properties[PROP_EDITOR] =
    g_param_spec_object ("editor", NULL, NULL, TILDE_TYPE_EDITOR,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROBLEMS] =
    g_param_spec_object ("problems", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CHECKING] =
    g_param_spec_boolean ("checking", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A row was clicked or had Enter pressed on it. */
  signals[PROBLEM_ACTIVATED] =
    g_signal_new ("problem-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, TILDE_TYPE_PROBLEM);

  g_type_ensure (TILDE_TYPE_PROBLEM);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/tilde/Workbench/ui/tilde-problems-list.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, counts_label);
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, spinner);
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, list_view);
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, selection);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, setup_row_cb);
  gtk_widget_class_bind_template_callback (widget_class, bind_row_cb);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
tilde_problems_list_init (TildeProblemsList *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);
  g_signal_connect_object (self->selection, "items-changed",
                           G_CALLBACK (update_counts), self, G_CONNECT_SWAPPED);
}
