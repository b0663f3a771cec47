/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-export.h"
#include "tilde-run-plots.h"

#define EXPORT_WIDTH  1000
#define EXPORT_HEIGHT 700

struct _TildeRunPlots
{
  GtkWidget           parent_instance;

  GtkWidget          *paned;
  TildeParameterList *list;
  TildeTracePlot     *plot;
  GtkDropDown        *view;
  GtkToggleButton    *warmup;
  TildeRunController *controller;
  /* A new run's store shown before its first rows: the controller's
   * draws held until the frame that lays it out is painted. */
  GdkFrameClock      *held_clock;
  gulong              painted_id;
  guint               hold_timeout_id;
};

/* The longest the draws are held, should no frame come (a window that
 * is not drawn). */
#define HOLD_MAX_MS 100

G_DEFINE_FINAL_TYPE (TildeRunPlots, tilde_run_plots, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_CONTROLLER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
show_draws (TildeRunPlots *self, TildeDraws *draws)
{
  tilde_trace_plot_set_draws (self->plot, draws);
  tilde_parameter_list_set_draws (self->list, draws);
  tilde_trace_plot_set_parameters (self->plot, tilde_parameter_list_get_selected (self->list));
}

static void
release_draws (TildeRunPlots *self)
{
  if (self->held_clock == NULL)
    return;
  g_clear_signal_handler (&self->painted_id, self->held_clock);
  g_clear_object (&self->held_clock);
  g_clear_handle_id (&self->hold_timeout_id, g_source_remove);
  tilde_run_controller_release_draws (self->controller);
}

static void
painted_cb (GdkFrameClock *clock, TildeRunPlots *self)
{
  release_draws (self);
}

static gboolean
hold_timeout_cb (gpointer data)
{
  TildeRunPlots *self = data;

  self->hold_timeout_id = 0;
  release_draws (self);
  return G_SOURCE_REMOVE;
}

/* The first frame of a run's draws, where none were shown, lays out the
 * plot's rows and the parameter list, makes the rows' images and draws
 * them: with the first draws as well, the slowest frame of a run. Held
 * for a frame, the draws come in the next, and the work is shared between
 * the two; the plot still says "No draws yet" in the first. (Where the
 * last run's draws are shown, its rows are kept and the new draws replace
 * them at once.) */
static void
hold_for_layout (TildeRunPlots *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self->plot));

  if (self->held_clock != NULL || clock == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self->plot)))
    return;
  tilde_run_controller_hold_draws (self->controller);
  self->held_clock = g_object_ref (clock);
  self->painted_id = g_signal_connect (clock, "after-paint", G_CALLBACK (painted_cb), self);
  self->hold_timeout_id = g_timeout_add (HOLD_MAX_MS, hold_timeout_cb, self);
}

static void
draws_changed (TildeRunPlots *self)
{
  TildeDraws *draws = tilde_run_controller_get_draws (self->controller);

  /* A run starting has no draws until its model is compiled: the last
   * run's stay on screen until its first come, so that the plots do not
   * empty and lay out their rows again between two runs of a model, and
   * the parameters chosen are chosen again in the new draws. */
  if (draws == NULL && tilde_run_controller_get_running (self->controller))
    return;
  if (draws != NULL && tilde_run_controller_get_running (self->controller)
      && tilde_parameter_list_get_draws (self->list) == NULL)
    hold_for_layout (self);
  show_draws (self, draws);
}

/* A run that ended before it had draws (its model failed, say): the last
 * run's go. On "finished", not when it stops running: a short run's chains
 * can stop before its draws are handed over, which comes after. */
static void
run_finished (TildeRunController *controller, const GError *error, TildeRunPlots *self)
{
  if (tilde_run_controller_get_draws (self->controller) == NULL
      && tilde_parameter_list_get_draws (self->list) != NULL)
    show_draws (self, NULL);
}

static void
selection_changed (TildeRunPlots *self)
{
  tilde_trace_plot_set_parameters (self->plot, tilde_parameter_list_get_selected (self->list));
}

static void
view_changed (TildeRunPlots *self)
{
  tilde_trace_plot_set_view (self->plot, (TildePlotView) gtk_drop_down_get_selected (self->view));
}

static void
warmup_toggled (TildeRunPlots *self)
{
  tilde_trace_plot_set_show_warmup (self->plot, gtk_toggle_button_get_active (self->warmup));
}

void
tilde_run_plots_show_parameters (TildeRunPlots *self, const char *const *names)
{
  g_return_if_fail (TILDE_IS_RUN_PLOTS (self));
  tilde_trace_plot_set_parameters (self->plot, names);
}

gboolean
tilde_run_plots_export (TildeRunPlots   *self,
                        const char      *path,
                        TildePlotFormat  format,
                        GError         **error)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self->plot));
  int height = gtk_widget_get_height (GTK_WIDGET (self->plot));

  if (width < 50 || height < 50)
    {
      width = EXPORT_WIDTH;
      height = EXPORT_HEIGHT;
    }
  return tilde_trace_plot_export (self->plot, path, format, width, height, error);
}

static void
export_chosen (GFile *file, gpointer data)
{
  TildeRunPlots *self = data;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;
  TildePlotFormat format;

  if (!tilde_export_plot_format_for_path (path, &format))
    {
      g_autofree char *png = g_strconcat (path, ".png", NULL);

      g_free (g_steal_pointer (&path));
      path = g_steal_pointer (&png);
      format = TILDE_PLOT_FORMAT_PNG;
    }
  if (!tilde_run_plots_export (self, path, format, &error))
    g_warning ("%s", error->message);
  g_object_unref (self);
}

static void
export_action (GtkWidget *widget, const char *name, GVariant *param)
{
  const char *filters[] = {
    _("PNG Image"), "*.png", _("SVG Image"), "*.svg", _("PDF Document"), "*.pdf", NULL
  };

  tilde_export_choose (widget, _("Export Plot"), "plot.png", FALSE, FALSE, filters,
                       export_chosen, g_object_ref (widget));
}

static GtkWidget *
make_toolbar (TildeRunPlots *self)
{
  const char *views[] = { _("Trace"), _("Rank"), _("Autocorrelation"), _("Pairs"), NULL };
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *button;

  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 6);
  self->view = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (views));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->view), _("Plot"));
  g_signal_connect_swapped (self->view, "notify::selected", G_CALLBACK (view_changed), self);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->view));

  self->warmup = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_label (_("Warm-up")));
  gtk_toggle_button_set_active (self->warmup, TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->warmup), _("Show the warm-up draws, shaded"));
  g_signal_connect_swapped (self->warmup, "toggled", G_CALLBACK (warmup_toggled), self);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->warmup));

  button = gtk_button_new_with_mnemonic (_("_Export Plot…"));
  gtk_widget_set_hexpand (button, TRUE);
  gtk_widget_set_halign (button, GTK_ALIGN_END);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "run-plots.export");
  gtk_box_append (GTK_BOX (bar), button);
  return bar;
}

TildeRunController *
tilde_run_plots_get_controller (TildeRunPlots *self)
{
  return self->controller;
}

void
tilde_run_plots_set_controller (TildeRunPlots *self, TildeRunController *controller)
{
  g_return_if_fail (TILDE_IS_RUN_PLOTS (self));
  if (self->controller == controller)
    return;
  release_draws (self);
  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_set_object (&self->controller, controller);
  if (controller)
    {
      g_signal_connect_swapped (controller, "notify::draws", G_CALLBACK (draws_changed), self);
      g_signal_connect (controller, "finished", G_CALLBACK (run_finished), self);
      draws_changed (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONTROLLER]);
}

TildeTracePlot *
tilde_run_plots_get_trace_plot (TildeRunPlots *self)
{
  return self->plot;
}

TildeParameterList *
tilde_run_plots_get_parameter_list (TildeRunPlots *self)
{
  return self->list;
}

static void
tilde_run_plots_dispose (GObject *object)
{
  TildeRunPlots *self = TILDE_RUN_PLOTS (object);

  release_draws (self);
  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_clear_object (&self->controller);
  g_clear_pointer (&self->paned, gtk_widget_unparent);
  G_OBJECT_CLASS (tilde_run_plots_parent_class)->dispose (object);
}

static void
tilde_run_plots_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeRunPlots *self = TILDE_RUN_PLOTS (object);

  switch (prop_id)
    {
    case PROP_CONTROLLER:
      g_value_set_object (value, self->controller);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_plots_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  TildeRunPlots *self = TILDE_RUN_PLOTS (object);

  switch (prop_id)
    {
    case PROP_CONTROLLER:
      tilde_run_plots_set_controller (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_plots_class_init (TildeRunPlotsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_run_plots_dispose;
  object_class->get_property = tilde_run_plots_get_property;
  object_class->set_property = tilde_run_plots_set_property;

  properties[PROP_CONTROLLER] =
    g_param_spec_object ("controller", NULL, NULL, TILDE_TYPE_RUN_CONTROLLER,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "run-plots.export", NULL, export_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "runplots");
}

static void
tilde_run_plots_init (TildeRunPlots *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->list = TILDE_PARAMETER_LIST (tilde_parameter_list_new ());
  gtk_widget_set_size_request (GTK_WIDGET (self->list), 160, -1);
  g_signal_connect_swapped (self->list, "notify::selected", G_CALLBACK (selection_changed), self);
  self->plot = TILDE_TRACE_PLOT (tilde_trace_plot_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->plot), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->plot), TRUE);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->plot));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), make_toolbar (self));
  gtk_box_append (GTK_BOX (box), scrolled);

  self->paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (self->paned), GTK_WIDGET (self->list));
  gtk_paned_set_end_child (GTK_PANED (self->paned), box);
  gtk_paned_set_shrink_start_child (GTK_PANED (self->paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (self->paned), FALSE);
  gtk_widget_set_parent (self->paned, GTK_WIDGET (self));
}

GtkWidget *
tilde_run_plots_new (void)
{
  return g_object_new (TILDE_TYPE_RUN_PLOTS, NULL);
}
