/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-export.h"
#include "tilde-run-summary.h"

struct _TildeRunSummary
{
  GtkWidget            parent_instance;

  GtkWidget           *box;
  TildeWarningsBanner *banner;
  TildeSummaryView    *view;
  GtkLabel            *status;
  TildeRunController  *controller;
  TildeRunPlots       *plots;
};

G_DEFINE_FINAL_TYPE (TildeRunSummary, tilde_run_summary, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_CONTROLLER,
  PROP_PLOTS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_OPEN_RUN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_actions (TildeRunSummary *self)
{
  gboolean running = self->controller == NULL || tilde_run_controller_get_running (self->controller);
  gboolean has_files = self->controller
                       && tilde_run_controller_get_output_paths (self->controller)[0] != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "run-summary.export-summary",
                                 !running && tilde_summary_view_get_n_rows (self->view) > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "run-summary.export-draws",
                                 !running && has_files);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "run-summary.save-run", !running && has_files);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "run-summary.open-run", !running);
}

static void
run_finished (TildeRunSummary *self, const GError *error)
{
  const TildeSummary *summary = tilde_run_controller_get_summary (self->controller);
  const char *const *names;
  const double *estimates;
  gsize n;

  estimates = tilde_run_controller_get_estimates (self->controller, &names, &n);
  if (estimates != NULL)
    tilde_summary_view_set_estimates (self->view, names, estimates, n);
  else
    tilde_summary_view_set_summary (self->view, summary);
  tilde_warnings_banner_set_summary (self->banner, summary,
                                     tilde_run_controller_get_draws (self->controller));
  if (summary == NULL && estimates == NULL)
    gtk_label_set_text (self->status, error ? error->message : _("The run has no draws after warm-up."));
  else
    gtk_label_set_text (self->status, "");
  update_actions (self);
}

static void
running_changed (TildeRunSummary *self)
{
  if (tilde_run_controller_get_running (self->controller))
    gtk_label_set_text (self->status, _("The summary follows when the run ends."));
  update_actions (self);
}

static void
select_parameters (TildeRunSummary *self, const char *const *names)
{
  GtkWidget *stack;

  if (self->plots == NULL)
    return;
  tilde_run_plots_show_parameters (self->plots, names);
  stack = gtk_widget_get_ancestor (GTK_WIDGET (self->plots), GTK_TYPE_STACK);
  if (stack != NULL)
    {
      GtkWidget *child = GTK_WIDGET (self->plots);

      while (gtk_widget_get_parent (child) != stack)
        child = gtk_widget_get_parent (child);
      gtk_stack_set_visible_child (GTK_STACK (stack), child);
    }
  /* The focus goes to the plots asked for (their keys zoom and pan), not
   * where the stack would move it from the button, the first focusable
   * widget of the page: the parameters' search entry, whose cursor would
   * blink and, in GTK 4.8, have the window laid out again every frame. */
  gtk_widget_grab_focus (GTK_WIDGET (tilde_run_plots_get_trace_plot (self->plots)));
}

/* ---- actions ---- */

static void
report (TildeRunSummary *self, const GError *error)
{
  gtk_label_set_text (self->status, error->message);
}

static void
summary_chosen (GFile *file, gpointer data)
{
  TildeRunSummary *self = data;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  if (!tilde_summary_view_write_csv (self->view, path, &error))
    report (self, error);
  g_object_unref (self);
}

static void
draws_chosen (GFile *file, gpointer data)
{
  TildeRunSummary *self = data;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  if (!tilde_export_draws (tilde_run_controller_get_output_paths (self->controller), path, &error))
    report (self, error);
  g_object_unref (self);
}

static void
save_chosen (GFile *file, gpointer data)
{
  TildeRunSummary *self = data;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  if (!tilde_run_controller_save (self->controller, path, &error))
    report (self, error);
  g_object_unref (self);
}

static void
open_chosen (GFile *file, gpointer data)
{
  TildeRunSummary *self = data;
  g_autofree char *path = g_file_get_path (file);
  gboolean handled = FALSE;

  g_signal_emit (self, signals[SIGNAL_OPEN_RUN], 0, path, &handled);
  if (!handled && self->controller != NULL)
    tilde_run_controller_open (self->controller, path);
  g_object_unref (self);
}

static void
export_summary_action (GtkWidget *widget, const char *name, GVariant *param)
{
  const char *filters[] = { _("CSV File"), "*.csv", NULL };

  tilde_export_choose (widget, _("Export Summary"), "summary.csv", FALSE, FALSE, filters,
                       summary_chosen, g_object_ref (widget));
}

static void
export_draws_action (GtkWidget *widget, const char *name, GVariant *param)
{
  const char *filters[] = { _("Stan CSV File"), "*.csv", NULL };

  tilde_export_choose (widget, _("Export Draws"), "output.csv", FALSE, FALSE, filters,
                       draws_chosen, g_object_ref (widget));
}

static void
save_run_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_export_choose (widget, _("Save Run to Folder"), NULL, TRUE, FALSE, NULL, save_chosen,
                       g_object_ref (widget));
}

static void
open_run_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_export_choose (widget, _("Open a Saved Run"), NULL, TRUE, TRUE, NULL, open_chosen,
                       g_object_ref (widget));
}

/* ---- the object ---- */

TildeRunController *
tilde_run_summary_get_controller (TildeRunSummary *self)
{
  return self->controller;
}

void
tilde_run_summary_set_controller (TildeRunSummary *self, TildeRunController *controller)
{
  g_return_if_fail (TILDE_IS_RUN_SUMMARY (self));
  if (self->controller == controller)
    return;
  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_set_object (&self->controller, controller);
  if (controller)
    {
      g_signal_connect_swapped (controller, "finished", G_CALLBACK (run_finished), self);
      g_signal_connect_swapped (controller, "notify::running", G_CALLBACK (running_changed), self);
    }
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONTROLLER]);
}

TildeRunPlots *
tilde_run_summary_get_plots (TildeRunSummary *self)
{
  return self->plots;
}

void
tilde_run_summary_set_plots (TildeRunSummary *self, TildeRunPlots *plots)
{
  g_return_if_fail (TILDE_IS_RUN_SUMMARY (self));
  if (g_set_weak_pointer (&self->plots, plots))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLOTS]);
}

TildeSummaryView *
tilde_run_summary_get_view (TildeRunSummary *self)
{
  return self->view;
}

TildeWarningsBanner *
tilde_run_summary_get_banner (TildeRunSummary *self)
{
  return self->banner;
}

static void
tilde_run_summary_dispose (GObject *object)
{
  TildeRunSummary *self = TILDE_RUN_SUMMARY (object);

  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_clear_object (&self->controller);
  g_clear_weak_pointer (&self->plots);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (tilde_run_summary_parent_class)->dispose (object);
}

static void
tilde_run_summary_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeRunSummary *self = TILDE_RUN_SUMMARY (object);

  switch (prop_id)
    {
    case PROP_CONTROLLER:
      g_value_set_object (value, self->controller);
      break;
    case PROP_PLOTS:
      g_value_set_object (value, self->plots);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_summary_set_property (GObject *object, guint prop_id, const GValue *value,
                                GParamSpec *pspec)
{
  TildeRunSummary *self = TILDE_RUN_SUMMARY (object);

  switch (prop_id)
    {
    case PROP_CONTROLLER:
      tilde_run_summary_set_controller (self, g_value_get_object (value));
      break;
    case PROP_PLOTS:
      tilde_run_summary_set_plots (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_summary_class_init (TildeRunSummaryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_run_summary_dispose;
  object_class->get_property = tilde_run_summary_get_property;
  object_class->set_property = tilde_run_summary_set_property;

  properties[PROP_CONTROLLER] =
    g_param_spec_object ("controller", NULL, NULL, TILDE_TYPE_RUN_CONTROLLER,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PLOTS] =
    g_param_spec_object ("plots", NULL, NULL, TILDE_TYPE_RUN_PLOTS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_OPEN_RUN] =
    g_signal_new ("open-run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "run-summary.export-summary", NULL,
                                   export_summary_action);
  gtk_widget_class_install_action (widget_class, "run-summary.export-draws", NULL,
                                   export_draws_action);
  gtk_widget_class_install_action (widget_class, "run-summary.save-run", NULL, save_run_action);
  gtk_widget_class_install_action (widget_class, "run-summary.open-run", NULL, open_run_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "runsummary");
}

static GtkWidget *
action_button (const char *label, const char *action)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  return button;
}

static void
tilde_run_summary_init (TildeRunSummary *self)
{
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  self->banner = TILDE_WARNINGS_BANNER (tilde_warnings_banner_new ());
  g_signal_connect_swapped (self->banner, "select-parameters", G_CALLBACK (select_parameters),
                            self);
  self->view = TILDE_SUMMARY_VIEW (tilde_summary_view_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->view), TRUE);
  self->status = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->status, TRUE);
  gtk_label_set_xalign (self->status, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (self->status), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "dim-label");

  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 6);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->status));
  gtk_box_append (GTK_BOX (bar), action_button (_("Export _Summary…"), "run-summary.export-summary"));
  gtk_box_append (GTK_BOX (bar), action_button (_("Export _Draws…"), "run-summary.export-draws"));
  gtk_box_append (GTK_BOX (bar), action_button (_("Save _Run…"), "run-summary.save-run"));
  gtk_box_append (GTK_BOX (bar), action_button (_("_Open Run…"), "run-summary.open-run"));

  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->banner));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->view));
  gtk_box_append (GTK_BOX (self->box), bar);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  update_actions (self);
}

GtkWidget *
tilde_run_summary_new (void)
{
  return g_object_new (TILDE_TYPE_RUN_SUMMARY, NULL);
}

void
tilde_run_summary_show_status (TildeRunSummary *self, const char *text)
{
  g_return_if_fail (TILDE_IS_RUN_SUMMARY (self));
  gtk_label_set_text (self->status, text ? text : "");
}
