/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-export.h"
#include "tilde-run-plots-private.h"

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
  /* Frames that lay out or bring up the plots while the chains run
   * (see step_aside): the frame clock watched until they are painted. */
  GdkFrameClock      *watched_clock;
  gulong              painted_id;
  guint               watch_timeout_id;
  guint               frames_left;     /* after-paints to wait for */
  gboolean            holding_draws;
  gboolean            pausing_chains;
  guint               watch_max_ms;
};

/* The longest the draws are held and the chains paused, should no frame
 * come (a window that is not drawn). */
#define WATCH_MAX_MS 100

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
  if (!self->holding_draws)
    return;
  self->holding_draws = FALSE;
  tilde_run_controller_release_draws (self->controller);
}

static void
end_watch (TildeRunPlots *self)
{
  if (self->watched_clock == NULL)
    return;
  g_clear_signal_handler (&self->painted_id, self->watched_clock);
  g_clear_object (&self->watched_clock);
  g_clear_handle_id (&self->watch_timeout_id, g_source_remove);
  self->frames_left = 0;
  release_draws (self);
  if (self->pausing_chains)
    {
      self->pausing_chains = FALSE;
      tilde_run_controller_resume_chains (self->controller);
    }
}

static void
painted_cb (GdkFrameClock *clock, TildeRunPlots *self)
{
  if (--self->frames_left == 0)
    {
      end_watch (self);
      return;
    }
  /* the frame that laid out the rows is on screen: the draws come in the
   * next, asked for now, as there may be too few to ask for one */
  release_draws (self);
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_PAINT);
}

static gboolean
watch_timeout_cb (gpointer data)
{
  TildeRunPlots *self = data;

  self->watch_timeout_id = 0;
  end_watch (self);
  return G_SOURCE_REMOVE;
}

/* The plots' heaviest frames come while the chains run: the one that
 * brings the page up, and the one that lays out a run's rows. On a
 * machine with no processor to spare for them (as many chains as
 * processors, or fewer), a chain at nice 10 still takes the processor
 * from the main thread or from the display server for a few milliseconds
 * in such a frame, and it misses its 16 ms. The chains step aside, for
 * that frame alone, at the end of their current iteration.
 *
 * A run's first frame, where no draws were shown, also holds the draws:
 * it lays out the plot's rows and the parameter list, makes the rows'
 * images and draws them, which with the first draws as well makes the
 * slowest frame of a run. Held for a frame, the draws come in the next,
 * and the work is shared between the two; the plot still says "No draws
 * yet" in the first. The chains step aside for both. (Where the last
 * run's draws are shown, its rows are kept and the new draws replace
 * them at once.) */
static void
step_aside (TildeRunPlots *self, gboolean hold_draws)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self->plot));

  if (clock == NULL || self->controller == NULL
      || !tilde_run_controller_get_running (self->controller))
    return;
  if (self->watched_clock != NULL)
    {
      /* the page just brought up, and the run's store arrives */
      if (hold_draws && !self->holding_draws)
        {
          self->holding_draws = TRUE;
          tilde_run_controller_hold_draws (self->controller);
          self->frames_left = 2;
        }
      return;
    }
  self->watched_clock = g_object_ref (clock);
  self->painted_id = g_signal_connect (clock, "after-paint", G_CALLBACK (painted_cb), self);
  self->watch_timeout_id = g_timeout_add (self->watch_max_ms, watch_timeout_cb, self);
  self->frames_left = hold_draws ? 2 : 1;
  self->holding_draws = hold_draws;
  if (hold_draws)
    tilde_run_controller_hold_draws (self->controller);
  self->pausing_chains = TRUE;
  tilde_run_controller_pause_chains (self->controller);
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
  if (draws != NULL && tilde_parameter_list_get_draws (self->list) == NULL
      && gtk_widget_get_mapped (GTK_WIDGET (self->plot)))
    step_aside (self, TRUE);
  show_draws (self, draws);
}

/* A run starting: the images its first frames will need are made ready
 * while the model compiles. */
static void
running_changed (TildeRunPlots *self)
{
  if (tilde_run_controller_get_running (self->controller))
    tilde_trace_plot_expect_draws (self->plot);
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
  end_watch (self);
  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_set_object (&self->controller, controller);
  if (controller)
    {
      g_signal_connect_swapped (controller, "notify::draws", G_CALLBACK (draws_changed), self);
      g_signal_connect_swapped (controller, "notify::running", G_CALLBACK (running_changed),
                                self);
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

void
_tilde_run_plots_set_watch_max_ms (TildeRunPlots *self, guint ms)
{
  self->watch_max_ms = ms;
}

static void
tilde_run_plots_dispose (GObject *object)
{
  TildeRunPlots *self = TILDE_RUN_PLOTS (object);

  end_watch (self);
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
tilde_run_plots_map (GtkWidget *widget)
{
  TildeRunPlots *self = TILDE_RUN_PLOTS (widget);

  GTK_WIDGET_CLASS (tilde_run_plots_parent_class)->map (widget);
  step_aside (self, FALSE);
}

static void
tilde_run_plots_unmap (GtkWidget *widget)
{
  end_watch (TILDE_RUN_PLOTS (widget));
  GTK_WIDGET_CLASS (tilde_run_plots_parent_class)->unmap (widget);
}

static void
tilde_run_plots_class_init (TildeRunPlotsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_run_plots_dispose;
  object_class->get_property = tilde_run_plots_get_property;
  object_class->set_property = tilde_run_plots_set_property;
  widget_class->map = tilde_run_plots_map;
  widget_class->unmap = tilde_run_plots_unmap;

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

  self->watch_max_ms = WATCH_MAX_MS;
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
