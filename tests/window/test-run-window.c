/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Runs from the application's window: Run in the header bar runs the
 * eight schools example with the data loaded beside it, shows the
 * run's page with a progress bar per chain, fills the plots while the
 * chains go and the summary once they are done; Stop ends a run and keeps
 * its draws. The README's screenshots of a finished run (trace plots, the
 * summary with its warnings banner) are taken here, from a centred eight
 * schools that diverges. Run under an X server (Xvfb); screenshots go to
 * $TILDE_SCREENSHOT_DIR when it is set.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "config.h"
#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-run-plots.h"
#include "tilde-run-summary.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

#define wait_for window_test_wait_for

static TildeApplication *app;

/* The centred parameterisation: the funnel between tau and theta makes
 * NUTS diverge, which is what the warnings banner is for. */
static const char centered[] =
  "data {\n"
  "  int<lower=0> J;\n"
  "  array[J] real y;\n"
  "  array[J] real<lower=0> sigma;\n"
  "}\n"
  "parameters {\n"
  "  real mu;\n"
  "  real<lower=0> tau;\n"
  "  vector[J] theta;\n"
  "}\n"
  "model {\n"
  "  mu ~ normal(0, 5);\n"
  "  tau ~ cauchy(0, 5);\n"
  "  theta ~ normal(mu, tau);\n"
  "  y ~ normal(theta, sigma);\n"
  "}\n";

static gboolean
data_loaded (gpointer data)
{
  TildeDataPanel *panel = _tilde_window_get_data_panel (data);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (panel));

  return gtk_text_buffer_get_char_count (buffer) > 0;
}

/* The window of the eight schools example: the data beside the model is
 * loaded into the data panel, which is what a run reads. */
static TildeWindow *
open_eight_schools (void)
{
  g_autofree char *path = window_test_example_path ("eight_schools.stan");
  TildeWindow *window = window_test_open (GTK_APPLICATION (app), path);

  g_assert_true (wait_for (data_loaded, window));
  g_assert_true (tilde_run_panel_get_data_panel (_tilde_window_get_run_panel (window))
                 == _tilde_window_get_data_panel (window));
  return window;
}

static void
set_sizes (TildeWindow *window, guint chains, guint warmup, guint samples)
{
  TildeRunPanel *panel = _tilde_window_get_run_panel (window);
  TildeRunSettings s;

  tilde_run_panel_get_run_settings (panel, &s);
  s.method = TILDE_RUN_SAMPLE;
  s.sample.chains = chains;
  s.sample.warmup = warmup;
  s.sample.samples = samples;
  s.sample.seed = 4;
  s.sample.seed_given = TRUE;
  tilde_run_panel_set_run_settings (panel, &s);
}

static TildeRunController *
controller_of (TildeWindow *window)
{
  return tilde_run_panel_get_controller (_tilde_window_get_run_panel (window));
}

static GtkStack *
side_stack (TildeWindow *window)
{
  return GTK_STACK (gtk_widget_get_ancestor (GTK_WIDGET (_tilde_window_get_run_panel (window)),
                                             GTK_TYPE_STACK));
}

static gboolean
finished (gpointer data)
{
  return *(gboolean *) data;
}

static void
note_finished (TildeRunController *controller, const GError *error, gboolean *done)
{
  *done = TRUE;
}

static gboolean
has_draws (gpointer data)
{
  TildeDraws *draws = tilde_run_controller_get_draws (data);

  return draws && tilde_draws_get_n_draws (draws, 0) > 400;
}

static GtkWidget *
find_button (GtkWidget *widget, const char *action)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, action);

      if (found)
        return found;
    }
  return NULL;
}

/* Whether the header bar's button of `action` can be pressed. */
static gboolean
enabled (TildeWindow *window, const char *action)
{
  g_autofree char *name = g_strconcat ("win.", action, NULL);
  GtkWidget *button = find_button (GTK_WIDGET (window), name);

  g_assert_nonnull (button);
  return gtk_widget_get_sensitive (button);
}

static void
test_run_from_the_header_bar (void)
{
  TildeWindow *window = open_eight_schools ();
  TildeRunController *controller = controller_of (window);
  TildeRunSummary *summary;
  gboolean done = FALSE;
  gulong id = g_signal_connect (controller, "finished", G_CALLBACK (note_finished), &done);

  set_sizes (window, 2, 200, 200);
  g_assert_true (enabled (window, "run"));
  g_assert_false (enabled (window, "stop"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (tilde_run_controller_get_running (controller));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (side_stack (window)), ==, "run");
  g_assert_true (enabled (window, "stop"));
  g_assert_false (enabled (window, "run"));
  g_assert_true (window_test_wait_for_ms (finished, &done, 120000));
  g_assert_false (enabled (window, "stop"));

  g_assert_nonnull (tilde_run_panel_get_progress_bar (_tilde_window_get_run_panel (window), 1));
  g_assert_cmpfloat (gtk_progress_bar_get_fraction (
                       tilde_run_panel_get_progress_bar (_tilde_window_get_run_panel (window), 1)),
                     ==, 1.0);
  summary = TILDE_RUN_SUMMARY (gtk_stack_get_child_by_name (side_stack (window), "summary"));
  g_assert_cmpuint (tilde_summary_view_get_n_rows (tilde_run_summary_get_view (summary)), ==,
                    1 + 2 + 8 + 8);
  g_assert_cmpuint (tilde_draws_get_n_draws (tilde_run_controller_get_draws (controller), 1), ==,
                    400);
  g_signal_handler_disconnect (controller, id);
  window_test_close_all (GTK_APPLICATION (app));
}

static void
test_stop_from_the_header_bar (void)
{
  TildeWindow *window = open_eight_schools ();
  TildeRunController *controller = controller_of (window);
  gboolean done = FALSE;
  gulong id = g_signal_connect (controller, "finished", G_CALLBACK (note_finished), &done);
  TildeDraws *draws;

  set_sizes (window, 2, 300, 1000000);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (window_test_wait_for_ms (has_draws, controller, 120000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  g_assert_true (window_test_wait_for_ms (finished, &done, 120000));
  draws = tilde_run_controller_get_draws (controller);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), >, 400);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), <, 1000300);
  g_assert_true (enabled (window, "run"));
  g_signal_handler_disconnect (controller, id);
  window_test_close_all (GTK_APPLICATION (app));
}

static gboolean
window_is_wide (gpointer data)
{
  return gtk_widget_get_width (data) >= 1200;
}

/* The README's pictures: a finished run of the centred eight schools. */
static void
test_screenshots (void)
{
  static const char *const shown[] = { "mu", "tau", "theta.1", NULL };
  GSettings *settings = tilde_application_get_settings (app);
  TildeWindow *window;
  TildeRunController *controller;
  GtkPaned *workbench;
  TildeRunSummary *summary;
  TildeRunPlots *plots;
  TildeWarningsBanner *banner;
  gboolean done = FALSE;
  gulong id;

  /* The window takes its size from the settings the last one left; the
   * README's pictures are taken on a 1400 x 1000 screen (xvfb-run -s
   * "-screen 0 1400x1000x24"), where the summary's columns all fit. */
  g_settings_set_int (settings, "window-width", 1400);
  g_settings_set_int (settings, "window-height", 880);
  g_settings_set_boolean (settings, "window-maximized", FALSE);
  g_settings_set_int (settings, "workbench-position", 560);
  window = open_eight_schools ();
  controller = controller_of (window);
  workbench = _tilde_window_get_workbench_paned (window);
  summary = TILDE_RUN_SUMMARY (gtk_stack_get_child_by_name (side_stack (window), "summary"));
  plots = TILDE_RUN_PLOTS (gtk_stack_get_child_by_name (side_stack (window), "plots"));
  banner = tilde_run_summary_get_banner (summary);
  id = g_signal_connect (controller, "finished", G_CALLBACK (note_finished), &done);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 880);
  g_assert_true (wait_for (window_is_wide, window));
  gtk_paned_set_position (workbench, 330);
  gtk_paned_set_position (_tilde_window_get_model_paned (window), 640);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (tilde_window_get_buffer (window)), centered, -1);
  set_sizes (window, 4, 1000, 1000);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (window_test_wait_for_ms (finished, &done, 120000));
  g_assert_cmpuint (tilde_warnings_banner_get_n_warnings (banner), >, 0);
  g_test_message ("divergences: %s",
                  tilde_warnings_banner_has_warning (banner, TILDE_RUN_WARNING_DIVERGENCES)
                  ? tilde_warnings_banner_get_text (banner, TILDE_RUN_WARNING_DIVERGENCES) : "none");

  window_test_pointer_away (GTK_WIDGET (window));
  gtk_stack_set_visible_child_name (side_stack (window), "run");
  window_test_let_it_draw (GTK_WIDGET (window));
  window_test_screenshot (GTK_WIDGET (window), "run-progress.png");

  gtk_stack_set_visible_child_name (side_stack (window), "plots");
  tilde_run_plots_show_parameters (plots, shown);
  window_test_let_it_draw (GTK_WIDGET (window));
  window_test_screenshot (GTK_WIDGET (window), "run-plots.png");

  gtk_stack_set_visible_child_name (side_stack (window), "summary");
  window_test_let_it_draw (GTK_WIDGET (window));
  window_test_screenshot (GTK_WIDGET (window), "run-summary.png");

  /* A warning's button plots its parameters. */
  if (tilde_warnings_banner_has_warning (banner, TILDE_RUN_WARNING_DIVERGENCES))
    {
      const char *const *names = tilde_warnings_banner_get_parameters (banner,
                                                                      TILDE_RUN_WARNING_DIVERGENCES);

      g_assert_nonnull (names[0]);
      tilde_warnings_banner_activate (banner, TILDE_RUN_WARNING_DIVERGENCES);
      g_assert_cmpstr (gtk_stack_get_visible_child_name (side_stack (window)), ==, "plots");
      g_assert_cmpstr (tilde_trace_plot_get_parameters (tilde_run_plots_get_trace_plot (plots))[0],
                       ==, names[0]);
      /* the focus is on the plots asked for, not in the search entry */
      g_assert_true (gtk_window_get_focus (GTK_WINDOW (window))
                     == GTK_WIDGET (tilde_run_plots_get_trace_plot (plots)));
      tilde_trace_plot_set_view (tilde_run_plots_get_trace_plot (plots), TILDE_PLOT_VIEW_PAIRS);
      window_test_let_it_draw (GTK_WIDGET (window));
      window_test_screenshot (GTK_WIDGET (window), "run-divergences-pairs.png");
    }
  g_signal_handler_disconnect (controller, id);
  window_test_close_all (GTK_APPLICATION (app));
}

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  window_test_isolate_home ();
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  gtk_test_init (&argc, &argv, NULL);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/run-window/run-from-the-header-bar", test_run_from_the_header_bar);
  g_test_add_func ("/run-window/stop-from-the-header-bar", test_stop_from_the_header_bar);
  g_test_add_func ("/run-window/screenshots", test_screenshots);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
