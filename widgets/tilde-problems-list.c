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
  GBinding           *spinning_binding;
  GBinding           *visible_binding;
};

G_DEFINE_FINAL_TYPE (TildeProblemsList, tilde_problems_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_EDITOR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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
      gtk_label_set_text (self->counts_label, self->editor ? _("None") : "");
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

void
tilde_problems_list_set_editor (TildeProblemsList *self, TildeEditor *editor)
{
  g_return_if_fail (TILDE_IS_PROBLEMS_LIST (self));
  g_return_if_fail (editor == NULL || TILDE_IS_EDITOR (editor));

  if (self->editor == editor)
    return;
  g_clear_pointer (&self->spinning_binding, g_binding_unbind);
  g_clear_pointer (&self->visible_binding, g_binding_unbind);
  g_set_object (&self->editor, editor);
  gtk_single_selection_set_model (self->selection,
                                  editor ? tilde_editor_get_problems (editor) : NULL);
  if (editor != NULL)
    {
      self->spinning_binding = g_object_bind_property (editor, "checking", self->spinner,
                                                       "spinning", G_BINDING_SYNC_CREATE);
      self->visible_binding = g_object_bind_property (editor, "checking", self->spinner,
                                                      "visible", G_BINDING_SYNC_CREATE);
    }
  update_counts (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITOR]);
}

static void
row_activated_cb (TildeProblemsList *self, guint position)
{
  g_autoptr(TildeProblem) problem = g_list_model_get_item (G_LIST_MODEL (self->selection), position);

  if (problem != NULL && self->editor != NULL)
    tilde_editor_go_to_problem (self->editor, problem);
}

static void
tilde_problems_list_dispose (GObject *object)
{
  TildeProblemsList *self = TILDE_PROBLEMS_LIST (object);
  GtkWidget *child;

  g_clear_pointer (&self->spinning_binding, g_binding_unbind);
  g_clear_pointer (&self->visible_binding, g_binding_unbind);
  g_clear_object (&self->editor);
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
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (TILDE_TYPE_PROBLEM);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/tilde/Workbench/ui/tilde-problems-list.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, counts_label);
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, spinner);
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, list_view);
  gtk_widget_class_bind_template_child (widget_class, TildeProblemsList, selection);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
tilde_problems_list_init (TildeProblemsList *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_object (self->selection, "items-changed",
                           G_CALLBACK (update_counts), self, G_CONNECT_SWAPPED);
}
