/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Runs from the run panel, with the plots and the summary of the same
 * controller beside it, on the eight schools example: the progress bars
 * and the trace plot move while the chains run, Stop ends a run at once
 * and keeps its draws (the store holds what the files hold), the summary
 * table shows what `tilde summary --json` computes from the same files,
 * plots export to PNG, SVG and PDF, a run saved to a folder opens again
 * with the same numbers, an optimisation shows its estimates and Laplace
 * draws, and a bad model or bad data end in the problems list. Run under
 * an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <errno.h>
#include <math.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include "tilde-data-panel.h"
#include "tilde-editor.h"
#include "tilde-export.h"
#include "tilde-image-reserve.h"
#include "tilde-run-panel.h"
#include "tilde-run-plots.h"
#include "tilde-run-summary.h"
#include "tilde-run-controller-private.h"
#include "tilde-run-plots-private.h"
#include "tilde-trace-plot-private.h"
#include "io/stan-csv-read.h"
#include "window-test-util.h"

typedef struct {
  GtkWindow          *window;
  TildeEditor        *editor;
  TildeDataPanel     *data;
  TildeRunController *controller;
  TildeRunPanel      *panel;
  TildeRunPlots      *plots;
  TildeRunSummary    *summary;
  gboolean            finished;
  GError             *error;
  gint64              finished_at;
  gint64              stopped_at;
} Fixture;

static char *
example_text (const char *name)
{
  g_autofree char *path = window_test_example_path (name);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
set_text (GtkSourceBuffer *buffer, const char *text)
{
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), text, -1);
}

static void
on_finished (TildeRunController *controller, const GError *error, Fixture *f)
{
  f->finished = TRUE;
  f->finished_at = g_get_monotonic_time ();
  g_clear_error (&f->error);
  f->error = error ? g_error_copy (error) : NULL;
}

static void
on_running (TildeRunController *controller, GParamSpec *pspec, Fixture *f)
{
  if (!tilde_run_controller_get_running (controller))
    f->stopped_at = g_get_monotonic_time ();
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *model = example_text ("eight_schools.stan");
  g_autofree char *json = example_text ("eight_schools.data.json");
  g_autofree char *runs = g_build_filename (window_test_home (), "runs", NULL);
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 1200, 800);
  f->editor = TILDE_EDITOR (tilde_editor_new ());
  f->data = TILDE_DATA_PANEL (tilde_data_panel_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (f->editor), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (f->data), TRUE);
  gtk_box_append (GTK_BOX (left), GTK_WIDGET (f->editor));
  gtk_box_append (GTK_BOX (left), GTK_WIDGET (f->data));
  set_text (tilde_editor_get_buffer (f->editor), model);
  set_text (tilde_data_panel_get_buffer (f->data), json);

  f->controller = tilde_run_controller_new ();
  tilde_run_controller_set_runs_folder (f->controller, runs);
  g_signal_connect (f->controller, "finished", G_CALLBACK (on_finished), f);
  g_signal_connect (f->controller, "notify::running", G_CALLBACK (on_running), f);
  f->panel = TILDE_RUN_PANEL (tilde_run_panel_new ());
  tilde_run_panel_set_controller (f->panel, f->controller);
  tilde_run_panel_set_editor (f->panel, f->editor);
  tilde_run_panel_set_data_panel (f->panel, f->data);
  f->plots = TILDE_RUN_PLOTS (tilde_run_plots_new ());
  tilde_run_plots_set_controller (f->plots, f->controller);
  f->summary = TILDE_RUN_SUMMARY (tilde_run_summary_new ());
  tilde_run_summary_set_controller (f->summary, f->controller);
  tilde_run_summary_set_plots (f->summary, f->plots);

  gtk_stack_add_titled (GTK_STACK (stack), GTK_WIDGET (f->panel), "run", "Run");
  gtk_stack_add_titled (GTK_STACK (stack), GTK_WIDGET (f->plots), "plots", "Plots");
  gtk_stack_add_titled (GTK_STACK (stack), GTK_WIDGET (f->summary), "summary", "Summary");
  gtk_paned_set_start_child (GTK_PANED (paned), left);
  gtk_paned_set_end_child (GTK_PANED (paned), stack);
  gtk_paned_set_position (GTK_PANED (paned), 360);
  gtk_window_set_child (f->window, paned);
  gtk_window_present (f->window);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_signal_handlers_disconnect_by_data (f->controller, f);
  gtk_window_destroy (f->window);
  g_object_unref (f->controller);
  g_clear_error (&f->error);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
set_sizes (Fixture *f, guint chains, guint warmup, guint samples)
{
  TildeRunSettings s;

  tilde_run_panel_get_run_settings (f->panel, &s);
  s.method = TILDE_RUN_SAMPLE;
  s.sample.chains = chains;
  s.sample.warmup = warmup;
  s.sample.samples = samples;
  s.sample.seed = 20261122;
  s.sample.seed_given = TRUE;
  s.sample.save_warmup = TRUE;
  tilde_run_panel_set_run_settings (f->panel, &s);
}

static gboolean
is_finished (gpointer data)
{
  return ((Fixture *) data)->finished;
}

static void
run_and_wait (Fixture *f)
{
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (tilde_run_controller_get_running (f->controller));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 60000));
}

/* ---- streaming ---- */

typedef struct {
  Fixture *f;
  double   fractions[2];
  guint    advances;         /* times chain 1's bar moved forward while running */
  gboolean drawn_while_running;
  guint    draws_while_running;  /* chain 1's when first drawn */
  guint    rates_shown;          /* bar texts with a rate and the time left */
} Watch;

/* A running chain's bar: "Chain 1 · Warm-up 120/6500", then its draws a
 * second and the time left once known; never an empty part. */
static gboolean
running_text_is_well_formed (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, " · ", -1);
  guint n = g_strv_length (parts);

  if (n < 2 || n > 4 || !g_str_equal (parts[0], "Chain 1"))
    return FALSE;
  if (!g_str_has_prefix (parts[1], "Warm-up ") && !g_str_has_prefix (parts[1], "Sampling "))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (*parts[i] == '\0')
      return FALSE;
  return n < 3 || g_str_has_suffix (parts[2], " draws/s");
}

static gboolean
watch_cb (gpointer data)
{
  Watch *w = data;
  Fixture *f = w->f;
  GtkProgressBar *bar = tilde_run_panel_get_progress_bar (f->panel, 0);
  TildeDraws *draws = tilde_run_controller_get_draws (f->controller);
  TildeTracePlot *plot = tilde_run_plots_get_trace_plot (f->plots);

  if (!tilde_run_controller_get_running (f->controller))
    return G_SOURCE_CONTINUE;
  if (bar != NULL)
    {
      double fraction = gtk_progress_bar_get_fraction (bar);

      const char *text = gtk_progress_bar_get_text (bar);

      if (fraction > w->fractions[0] && fraction < 1)
        w->advances++;
      w->fractions[0] = fraction;
      if (fraction < 1)
        {
          if (!running_text_is_well_formed (text))
            g_error ("a running chain's bar reads \"%s\"", text);
          if (strstr (text, " left"))
            w->rates_shown++;
        }
    }
  /* rows with draws on screen (while draws stream, some of them may be a
   * frame behind the store) */
  if (draws != NULL && tilde_draws_get_n_draws (draws, 0) > 0
      && _tilde_trace_plot_get_rows_drawn (plot) > 0)
    {
      if (!w->drawn_while_running)
        w->draws_while_running = tilde_draws_get_n_draws (draws, 0);
      w->drawn_while_running = TRUE;
    }
  return G_SOURCE_CONTINUE;
}

static void
test_streams_while_running (Fixture *f, gconstpointer data)
{
  GtkWidget *stack = gtk_widget_get_parent (GTK_WIDGET (f->plots));
  Watch w = { f, { 0, 0 }, 0, FALSE, 0, 0 };
  TildeDraws *draws;
  guint id;

  g_autofree char *model = example_text ("eight_schools.stan");
  g_autofree char *slow = NULL;

  /* Eight schools samples 6,500 draws in a blink; draws of many random
   * numbers each make the run last long enough for the bars (updated ten
   * times a second) to be seen moving, whatever the machine. */
  slow = g_strconcat (model, "generated quantities {\n  real s = 0;\n"
                      "  for (i in 1:3000)\n    s += normal_rng(0, 1);\n}\n", NULL);
  set_text (tilde_editor_get_buffer (f->editor), slow);
  gtk_stack_set_visible_child (GTK_STACK (stack), GTK_WIDGET (f->panel));
  set_sizes (f, 2, 500, 6000);
  id = g_timeout_add (20, watch_cb, &w);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  /* the plots are on screen half of the time, the bars the other half */
  while (!f->finished)
    {
      window_test_run_for_ms (150);
      gtk_stack_set_visible_child (GTK_STACK (stack),
                                   gtk_stack_get_visible_child (GTK_STACK (stack))
                                   == GTK_WIDGET (f->panel) ? GTK_WIDGET (f->plots)
                                                            : GTK_WIDGET (f->panel));
    }
  g_source_remove (id);
  g_assert_no_error (f->error);
  g_test_message ("bar advanced %u times; first drawn with %u draws of chain 1", w.advances,
                  w.draws_while_running);
  g_assert_cmpuint (w.advances, >=, 2);
  g_assert_true (w.drawn_while_running);
  draws = tilde_run_controller_get_draws (f->controller);
  g_assert_cmpuint (w.draws_while_running, <, tilde_draws_get_n_draws (draws, 0));
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 6500);
  g_assert_cmpuint (tilde_draws_get_n_warmup (draws, 1), ==, 500);
  g_assert_cmpfloat (gtk_progress_bar_get_fraction (tilde_run_panel_get_progress_bar (f->panel, 1)),
                     ==, 1.0);
  g_assert_cmpuint (w.rates_shown, >=, 1);
  g_assert_true (g_str_has_prefix (tilde_run_panel_get_status (f->panel), "Finished in "));
  g_assert_true (g_str_has_suffix (tilde_run_panel_get_status (f->panel),
                                   ": 12000 draws after warm-up."));
  /* a finished chain shows the time it took, and no rate that would fall
   * as the clock moved on */
  {
    const char *text = gtk_progress_bar_get_text (tilde_run_panel_get_progress_bar (f->panel, 1));
    g_autoptr (GRegex) done = g_regex_new ("^Chain 2 · Done 6500/6500 · ([0-9]+\\.[0-9]+ s|[0-9]+ ms|under 1 ms)$", 0, 0,
                                           NULL);
    g_test_message ("chain 2 finished: \"%s\"", text);
    g_assert_true (g_regex_match (done, text, 0, NULL));
  }
}

/* ---- stopping ---- */

static gboolean
has_draws (gpointer data)
{
  Fixture *f = data;
  TildeDraws *draws = tilde_run_controller_get_draws (f->controller);

  return draws && tilde_draws_get_n_draws (draws, 0) > 400
         && tilde_draws_get_n_draws (draws, 1) > 400;
}

static void
test_stop_keeps_draws (Fixture *f, gconstpointer data)
{
  const char *const *paths;
  TildeDraws *draws;
  gint64 asked;
  guint i;

  set_sizes (f, 2, 300, 1000000);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (has_draws, f, 120000));
  asked = g_get_monotonic_time ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
  /* How soon is measured, not asserted: bench-run-live times Stop (a
   * loaded machine once took 144 ms here). That the run was cut short is
   * asserted below: far fewer draws than the million asked for. */
  g_test_message ("Stop to the chains stopped: %.1f ms; to ::finished (summary made): %.1f ms",
                  (f->stopped_at - asked) / 1000.0, (f->finished_at - asked) / 1000.0);
  g_assert_cmpint (f->stopped_at, >=, asked);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_CANCELLED);
  g_assert_false (tilde_run_controller_get_running (f->controller));
  {
    TildeDraws *kept = tilde_run_controller_get_draws (f->controller);
    guint n_kept = tilde_draws_get_n_draws (kept, 0) + tilde_draws_get_n_draws (kept, 1) - 600;
    g_autofree char *tail = g_strdup_printf ("; the %u draws made so far are kept.", n_kept);

    g_assert_true (g_str_has_prefix (tilde_run_panel_get_status (f->panel), "Stopped after "));
    g_assert_true (g_str_has_suffix (tilde_run_panel_get_status (f->panel), tail));
  }

  /* every draw made is in the store, as in the files */
  draws = tilde_run_controller_get_draws (f->controller);
  paths = tilde_run_controller_get_output_paths (f->controller);
  for (i = 0; paths[i]; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(TildeStanCsv) csv = tilde_stan_csv_read_file (paths[i], &error);

      g_assert_no_error (error);
      g_assert_cmpuint (csv->n_warmup_draws, ==, 300);
      g_assert_cmpuint (csv->n_draws, >, 0);
      g_assert_cmpuint (csv->n_draws, <, 1000000);
      g_assert_cmpuint (tilde_draws_get_n_draws (draws, i), ==,
                        csv->n_warmup_draws + csv->n_draws);
    }
  g_assert_cmpuint (i, ==, 2);
  /* and the summary covers them */
  g_assert_nonnull (tilde_run_controller_get_summary (f->controller));
  g_assert_cmpuint (tilde_summary_view_get_n_rows (tilde_run_summary_get_view (f->summary)), ==,
                    1 + 2 + 8 + 8);
}

/* ---- the summary against `tilde summary` ---- */

static JsonArray *
cli_summary (const char *const *paths, JsonParser *parser)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  g_ptr_array_add (argv, (gpointer) g_getenv ("TILDE_CLI"));
  g_ptr_array_add (argv, (gpointer) "summary");
  g_ptr_array_add (argv, (gpointer) "--json");
  for (guint i = 0; paths[i]; i++)
    g_ptr_array_add (argv, (gpointer) paths[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  return json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                       "columns");
}

static double
json_number (JsonObject *obj, const char *key)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_ascii_strtod (json_node_get_string (node), NULL);
  return json_node_get_double (node);
}

/* The shown text, to the digits it shows, is the number. */
static void
assert_shown (const char *text, TildeSummaryColumn column, double value)
{
  double shown = g_ascii_strtod (text, NULL);
  double tolerance;

  if (isnan (value))
    {
      g_assert_true (g_str_has_prefix (text, "NaN"));
      return;
    }
  tolerance = column == TILDE_SUMMARY_COLUMN_RHAT ? 0.0005
              : column == TILDE_SUMMARY_COLUMN_ESS_BULK || column == TILDE_SUMMARY_COLUMN_ESS_TAIL
              ? 0.5 : 0.0005 * fabs (value) + 1e-12;
  g_assert_cmpfloat_with_epsilon (shown, value, tolerance);
  /* flagged with a word, not only a colour */
  if (column == TILDE_SUMMARY_COLUMN_RHAT && value > 1.01)
    g_assert_nonnull (strstr (text, " high"));
  if ((column == TILDE_SUMMARY_COLUMN_ESS_BULK || column == TILDE_SUMMARY_COLUMN_ESS_TAIL)
      && value < 400)
    g_assert_nonnull (strstr (text, " low"));
}

static void
test_summary_equals_cli (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  TildeSummaryView *view = tilde_run_summary_get_view (f->summary);
  const char *const *paths;
  JsonArray *columns;
  guint row = 0;

  set_sizes (f, 2, 200, 200);
  run_and_wait (f);
  g_assert_no_error (f->error);
  paths = tilde_run_controller_get_output_paths (f->controller);
  g_assert_cmpuint (g_strv_length ((char **) paths), ==, 2);
  columns = cli_summary (paths, parser);

  for (guint i = 0; i < json_array_get_length (columns); i++)
    {
      JsonObject *c = json_array_get_object_element (columns, i);
      JsonObject *q = json_object_get_object_member (c, "quantiles");
      g_autofree char *name = NULL;
      double expected[TILDE_SUMMARY_N_COLUMNS];

      if (g_str_equal (json_object_get_string_member (c, "kind"), "sampler"))
        continue;
      name = tilde_summary_view_get_cell_text (view, row, TILDE_SUMMARY_COLUMN_NAME);
      g_assert_cmpstr (name, ==, json_object_get_string_member (c, "name"));
      expected[TILDE_SUMMARY_COLUMN_MEAN] = json_number (c, "mean");
      expected[TILDE_SUMMARY_COLUMN_MCSE] = json_number (c, "mcse");
      expected[TILDE_SUMMARY_COLUMN_SD] = json_number (c, "sd");
      expected[TILDE_SUMMARY_COLUMN_Q5] = json_number (q, "5%");
      expected[TILDE_SUMMARY_COLUMN_Q50] = json_number (q, "50%");
      expected[TILDE_SUMMARY_COLUMN_Q95] = json_number (q, "95%");
      expected[TILDE_SUMMARY_COLUMN_ESS_BULK] = json_number (c, "ess_bulk");
      expected[TILDE_SUMMARY_COLUMN_ESS_TAIL] = json_number (c, "ess_tail");
      expected[TILDE_SUMMARY_COLUMN_RHAT] = json_number (c, "r_hat");
      for (guint k = TILDE_SUMMARY_COLUMN_MEAN; k < TILDE_SUMMARY_N_COLUMNS; k++)
        {
          g_autofree char *text = tilde_summary_view_get_cell_text (view, row, k);

          assert_shown (text, k, expected[k]);
        }
      row++;
    }
  g_assert_cmpuint (row, ==, tilde_summary_view_get_n_rows (view));
  g_assert_cmpuint (row, ==, 19);
}

/* ---- export ---- */

typedef struct {
  gboolean svg_seen;
} SvgCheck;

static void
svg_start (GMarkupParseContext *context, const char *element, const char **names,
           const char **values, gpointer data, GError **error)
{
  SvgCheck *check = data;

  if (g_markup_parse_context_get_element_stack (context)->next == NULL)
    check->svg_seen = g_str_equal (element, "svg");
}

static void
assert_svg (const char *path)
{
  static const GMarkupParser parser = { svg_start, NULL, NULL, NULL, NULL };
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GMarkupParseContext) context = NULL;
  SvgCheck check = { FALSE };
  const char *start;
  gsize len;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  /* past the XML declaration, which GMarkup does not take */
  start = strstr (text, "<svg");
  g_assert_nonnull (start);
  context = g_markup_parse_context_new (&parser, 0, &check, NULL);
  g_assert_true (g_markup_parse_context_parse (context, start, -1, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_assert_true (check.svg_seen);
}

static void
test_export (Fixture *f, gconstpointer data)
{
  g_autofree char *png = g_build_filename (window_test_home (), "plot.png", NULL);
  g_autofree char *svg = g_build_filename (window_test_home (), "plot.svg", NULL);
  g_autofree char *pdf = g_build_filename (window_test_home (), "plot.pdf", NULL);
  g_autofree char *csv = g_build_filename (window_test_home (), "summary.csv", NULL);
  g_autofree char *draws_path = g_build_filename (window_test_home (), "exported.csv", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GtkWidget *stack = gtk_widget_get_parent (GTK_WIDGET (f->plots));
  TildePlotFormat format;

  set_sizes (f, 2, 200, 200);
  run_and_wait (f);
  g_assert_no_error (f->error);
  gtk_stack_set_visible_child (GTK_STACK (stack), GTK_WIDGET (f->plots));
  window_test_let_it_draw (GTK_WIDGET (f->plots));

  g_assert_true (tilde_export_plot_format_for_path (png, &format));
  g_assert_cmpint (format, ==, TILDE_PLOT_FORMAT_PNG);
  g_assert_true (tilde_run_plots_export (f->plots, png, format, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==,
                   gtk_widget_get_width (GTK_WIDGET (tilde_run_plots_get_trace_plot (f->plots))));

  g_assert_true (tilde_export_plot_format_for_path (svg, &format));
  g_assert_true (tilde_run_plots_export (f->plots, svg, format, &error));
  assert_svg (svg);

  g_assert_true (tilde_export_plot_format_for_path (pdf, &format));
  g_assert_true (tilde_run_plots_export (f->plots, pdf, format, &error));
  g_assert_true (g_file_get_contents (pdf, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "%PDF"));
  g_clear_pointer (&contents, g_free);

  /* the summary as CSV: a header and a line per row */
  g_assert_true (tilde_summary_view_write_csv (tilde_run_summary_get_view (f->summary), csv,
                                               &error));
  g_assert_true (g_file_get_contents (csv, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "name,Mean,MCSE,StdDev,5%,50%,95%,ESS_bulk,ESS_tail,R_hat");
  g_assert_true (g_str_has_prefix (lines[1], "lp__,"));
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 19 + 1);

  /* the draws as Stan CSV, one file a chain, as CmdStan names them */
  g_assert_true (tilde_export_draws (tilde_run_controller_get_output_paths (f->controller),
                                     draws_path, &error));
  for (guint c = 1; c <= 2; c++)
    {
      g_autofree char *name = g_strdup_printf ("exported_%u.csv", c);
      g_autofree char *path = g_build_filename (window_test_home (), name, NULL);
      g_autoptr(TildeStanCsv) read = tilde_stan_csv_read_file (path, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (read->n_draws, ==, 200);
      g_assert_cmpuint (read->n_warmup_draws, ==, 200);
    }
}

/* ---- saving and opening ---- */

static void
test_save_and_open (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (window_test_home (), "saved-run", NULL);
  g_autofree char *mean = NULL;
  g_autofree char *reopened = NULL;
  g_autoptr(GError) error = NULL;
  TildeSummaryView *view = tilde_run_summary_get_view (f->summary);
  TildeRunSettings s;

  set_sizes (f, 2, 200, 200);
  run_and_wait (f);
  mean = tilde_summary_view_get_cell_text (view, 1, TILDE_SUMMARY_COLUMN_MEAN);
  g_assert_true (tilde_run_controller_save (f->controller, folder, &error));
  g_assert_no_error (error);

  /* another panel's run in between */
  set_sizes (f, 1, 100, 100);
  run_and_wait (f);
  g_assert_cmpuint (tilde_draws_get_n_chains (tilde_run_controller_get_draws (f->controller)), ==,
                    1);

  f->finished = FALSE;
  g_assert_true (tilde_run_controller_open (f->controller, folder));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 120000));
  g_assert_no_error (f->error);
  reopened = tilde_summary_view_get_cell_text (view, 1, TILDE_SUMMARY_COLUMN_MEAN);
  g_assert_cmpstr (reopened, ==, mean);
  g_assert_cmpuint (tilde_draws_get_n_chains (tilde_run_controller_get_draws (f->controller)), ==,
                    2);
  g_assert_cmpuint (tilde_draws_get_n_draws (tilde_run_controller_get_draws (f->controller), 1),
                    ==, 400);
  s = *tilde_run_controller_get_settings (f->controller);
  g_assert_cmpuint (s.sample.chains, ==, 2);
  g_assert_cmpuint (s.sample.seed, ==, 20261122);
  g_assert_nonnull (strstr (tilde_run_controller_get_model_text (f->controller), "theta_tilde"));
  g_assert_nonnull (strstr (tilde_run_controller_get_data_text (f->controller), "\"J\""));
}

/* ---- the metric adaptation from gradients ---- */

/* Chosen in the panel, it reaches the run and its files, and a saved run
 * keeps it; the unit metric has nothing to adapt. */
static void
test_metric_adaptation (Fixture *f, gconstpointer data)
{
  const char *const *paths;
  TildeRunSettings s, back;
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  guint i;

  tilde_run_panel_get_run_settings (f->panel, &s);
  g_assert_cmpint (s.sample.adapt_options.metric_adaptation, ==, TILDE_METRIC_ADAPTATION_STAN);
  s.sample.metric = TILDE_METRIC_DIAG;
  s.sample.adapt_options.metric_adaptation = TILDE_METRIC_ADAPTATION_GRADIENTS;
  tilde_run_panel_set_run_settings (f->panel, &s);
  set_sizes (f, 2, 200, 200);
  tilde_run_panel_get_run_settings (f->panel, &s);
  g_assert_cmpint (s.sample.adapt_options.metric_adaptation, ==, TILDE_METRIC_ADAPTATION_GRADIENTS);
  run_and_wait (f);
  g_assert_no_error (f->error);
  paths = tilde_run_controller_get_output_paths (f->controller);
  for (i = 0; paths[i]; i++)
    {
      g_autofree char *text = NULL;

      g_assert_true (g_file_get_contents (paths[i], &text, NULL, NULL));
      g_assert_nonnull (strstr (text, "metric_adaptation = gradients\n"));
      g_assert_nonnull (strstr (text, "# Adaptation terminated\n"));
    }
  g_assert_cmpuint (i, ==, 2);

  json = tilde_run_settings_to_json (&s);
  tilde_run_settings_init (&back);
  g_assert_true (tilde_run_settings_from_json (json, &back, &error));
  g_assert_no_error (error);
  g_assert_cmpint (back.sample.adapt_options.metric_adaptation, ==, TILDE_METRIC_ADAPTATION_GRADIENTS);

  /* the unit metric is left alone */
  s.sample.metric = TILDE_METRIC_UNIT;
  tilde_run_panel_set_run_settings (f->panel, &s);
  tilde_run_panel_get_run_settings (f->panel, &back);
  g_assert_cmpint (back.sample.adapt_options.metric_adaptation, ==, TILDE_METRIC_ADAPTATION_STAN);
}

/* What the editor has selected (a problem's statement once activated). */
static char *
selected_text (Fixture *f)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (tilde_editor_get_buffer (f->editor));
  GtkTextIter begin, end;

  g_assert_true (gtk_text_buffer_get_selection_bounds (buffer, &begin, &end));
  return gtk_text_buffer_get_text (buffer, &begin, &end, FALSE);
}

/* ---- proposals rejected, by statement ---- */

/* A statement whose errors reject proposals gets one warning in the run's
 * problems, at its place: how many it rejected and the first message. */
static void
test_rejections_by_statement (Fixture *f, gconstpointer data)
{
  GListModel *problems = tilde_run_controller_get_problems (f->controller);
  guint found = 0;

  set_sizes (f, 2, 150, 150);
  set_text (tilde_data_panel_get_buffer (f->data), "{}");
  set_text (tilde_editor_get_buffer (f->editor),
            "parameters { real mu; real s; }\n"
            "model {\n"
            "  mu ~ normal(0, 1);\n"
            "  s ~ normal(1, 0.5);\n"
            "  0.5 ~ normal(mu, s);\n"
            "}\n");
  run_and_wait (f);
  g_assert_no_error (f->error);
  for (guint i = 0; i < g_list_model_get_n_items (problems); i++)
    {
      g_autoptr(TildeProblem) p = g_list_model_get_item (problems, i);
      const TildeDiagnostic *d = tilde_problem_get_diagnostic (p);
      g_autoptr(GRegex) counts = g_regex_new (
        "^(?:([0-9]+) starting points? and )?([0-9]+) proposals \\(([0-9]+) in warm-up, "
        "([0-9]+) after it\\) were rejected here; the first because: normal_lpdf: Scale "
        "parameter is [-0-9.e]+, but must be positive!$", 0, 0, NULL);
      g_autoptr(GMatchInfo) match = NULL;

      g_test_message ("%s", d->message);
      g_assert_cmpint (tilde_problem_get_severity (p), ==, TILDE_SEVERITY_WARNING);
      g_assert_cmpint (d->begin_line, ==, 5);
      g_assert_cmpint (d->begin_column, ==, 2);
      g_assert_cmpint (d->end_column, ==, 22);
      g_assert_true (g_regex_match (counts, d->message, 0, &match));
      {
        g_autofree char *n = g_match_info_fetch (match, 2);
        g_autofree char *warmup = g_match_info_fetch (match, 3);
        g_autofree char *after = g_match_info_fetch (match, 4);

        g_assert_cmpint (atoi (n), ==, atoi (warmup) + atoi (after));
        g_assert_cmpint (atoi (n), >, 1);
      }
      /* activated, it selects its statement in the editor */
      g_assert_true (tilde_run_panel_go_to_problem (f->panel, p));
      {
        g_autofree char *selected = selected_text (f);
        g_assert_cmpstr (selected, ==, "0.5 ~ normal(mu, s);");
      }
      found++;
    }
  g_assert_cmpuint (found, ==, 1);

  /* starting points rejected count as well, apart */
  found = 0;
  set_text (tilde_editor_get_buffer (f->editor),
            "parameters { real x; }\n"
            "model {\n"
            "  if (x < 1.9) reject(\"x is \", x);\n"
            "}\n");
  run_and_wait (f);
  for (guint i = 0; i < g_list_model_get_n_items (problems); i++)
    {
      g_autoptr(TildeProblem) p = g_list_model_get_item (problems, i);
      const TildeDiagnostic *d = tilde_problem_get_diagnostic (p);
      guint starts = 0;

      g_test_message ("%s", d->message);
      if (d->begin_line != 3)
        continue;
      g_assert_cmpint (sscanf (d->message, "%u starting point", &starts), ==, 1);
      g_assert_cmpuint (starts, >=, 1);
      g_assert_nonnull (strstr (d->message, "rejected here; the first because: x is "));
      found++;
    }
  g_assert_cmpuint (found, ==, 1);
}

/* ---- optimisation ---- */

static void
test_optimize_with_laplace (Fixture *f, gconstpointer data)
{
  TildeSummaryView *view = tilde_run_summary_get_view (f->summary);
  TildeRunSettings s;
  const char *const *names;
  const double *values;
  g_autofree char *first = NULL;
  gsize n;

  tilde_run_panel_get_run_settings (f->panel, &s);
  s.method = TILDE_RUN_OPTIMIZE;
  s.optimize.jacobian = TRUE;
  s.laplace_draws = 300;
  s.sample.seed = 3;
  s.sample.seed_given = TRUE;
  tilde_run_panel_set_run_settings (f->panel, &s);
  run_and_wait (f);
  g_assert_no_error (f->error);
  values = tilde_run_controller_get_estimates (f->controller, &names, &n);
  g_assert_nonnull (values);
  g_assert_cmpuint (n, ==, 1 + 1 + 1 + 8 + 8);
  g_assert_cmpstr (names[0], ==, "lp__");
  g_assert_cmpuint (tilde_summary_view_get_n_rows (view), ==, n);
  first = tilde_summary_view_get_cell_text (view, 1, TILDE_SUMMARY_COLUMN_NAME);
  g_assert_cmpstr (first, ==, "mu");
  /* the Laplace draws are in the plots */
  g_assert_cmpuint (tilde_draws_get_n_draws (tilde_run_controller_get_draws (f->controller), 0),
                    ==, 300);
  g_assert_cmpint (tilde_draws_find_column (tilde_run_controller_get_draws (f->controller),
                                            "log_p__"), ==, 0);
  /* the line under the settings tells the optimum, not draws after warm-up */
  {
    g_autofree char *lp = g_strdup_printf ("lp__ is %.6g at the optimum.", values[0]);
    const char *status = tilde_run_panel_get_status (f->panel);

    g_test_message ("%s", status);
    g_assert_true (g_str_has_prefix (status, "Finished in "));
    g_assert_nonnull (strstr (status, lp));
    g_assert_true (g_str_has_suffix (status, " 300 draws from the Laplace approximation."));
  }
}

/* ---- the main thread ---- */

static void
note_thread (TildeRunController *controller, GParamSpec *pspec, GThread **thread)
{
  *thread = g_thread_self ();
}

/* A run that ends while the main thread is away from its main loop (a
 * long frame, a test between two assertions) stays running for the
 * controller until the loop turns: its end is delivered on the main
 * thread, never on the run's. */
static void
test_ends_on_the_main_thread (Fixture *f, gconstpointer data)
{
  GThread *notified = NULL;
  gulong id;

  set_sizes (f, 1, 20, 20);
  id = g_signal_connect (f->controller, "notify::running", G_CALLBACK (note_thread), &notified);
  f->finished = FALSE;
  g_assert_true (tilde_run_panel_run (f->panel));
  g_assert_true (notified == g_thread_self ());
  notified = NULL;
  /* far longer than the run of 40 iterations takes */
  g_usleep (2 * G_USEC_PER_SEC);
  g_assert_null (notified);
  g_assert_true (tilde_run_controller_get_running (f->controller));
  g_assert_false (f->finished);
  g_assert_true (window_test_wait_for_ms (is_finished, f, 60000));
  g_assert_no_error (f->error);
  g_assert_true (notified == g_thread_self ());
  g_assert_false (tilde_run_controller_get_running (f->controller));
  g_signal_handler_disconnect (f->controller, id);
}

/* ---- problems ---- */

/* Run again: until the new run's draws come (its model compiling), the
 * plots keep the last run's, and then show the same parameters in the new
 * ones; a run whose model fails leaves no plots of the last. */
static void
test_again_keeps_the_plots (Fixture *f, gconstpointer data)
{
  TildeTracePlot *plot = tilde_run_plots_get_trace_plot (f->plots);
  TildeParameterList *list = tilde_run_plots_get_parameter_list (f->plots);
  GtkSelectionModel *rows = tilde_parameter_list_get_model (list);
  TildeDraws *first;
  const char *const *shown;

  set_sizes (f, 2, 100, 100);
  run_and_wait (f);
  first = tilde_run_controller_get_draws (f->controller);
  g_assert_nonnull (first);
  g_assert_true (tilde_trace_plot_get_draws (plot) == first);
  /* the rows: mu, tau, theta[1..8], ... */
  g_assert_true (gtk_selection_model_select_item (rows, 1, TRUE));
  g_assert_cmpstr (tilde_trace_plot_get_parameters (plot)[0], ==, "tau");

  g_object_ref (first);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  /* the new run has no draws yet; the plots still show the last */
  g_assert_null (tilde_run_controller_get_draws (f->controller));
  g_assert_true (tilde_trace_plot_get_draws (plot) == first);
  g_assert_true (tilde_parameter_list_get_draws (list) == first);
  g_assert_cmpstr (tilde_trace_plot_get_parameters (plot)[0], ==, "tau");
  g_assert_true (window_test_wait_for_ms (is_finished, f, 60000));
  g_assert_no_error (f->error);
  g_assert_true (tilde_trace_plot_get_draws (plot) != first);
  g_assert_true (tilde_trace_plot_get_draws (plot)
                 == tilde_run_controller_get_draws (f->controller));
  shown = tilde_trace_plot_get_parameters (plot);
  g_assert_cmpuint (g_strv_length ((char **) shown), ==, 1);
  g_assert_cmpstr (shown[0], ==, "tau");
  g_object_unref (first);

  set_text (tilde_editor_get_buffer (f->editor), "parameters { real mu }\nmodel { }\n");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_MODEL);
  g_assert_null (tilde_trace_plot_get_draws (plot));
  g_assert_null (tilde_parameter_list_get_draws (list));
}

/* ---- draws held while a view lays out ---- */

static gboolean
chain_has_drawn (gpointer data)
{
  Fixture *f = data;
  TildeChainProgress progress;

  return tilde_run_controller_get_draws (f->controller) != NULL
         && tilde_run_controller_get_progress (f->controller, 0, &progress)
         && progress.iteration > 50;
}

static gboolean
store_has_draws (gpointer data)
{
  Fixture *f = data;
  TildeDraws *draws = tilde_run_controller_get_draws (f->controller);

  return draws != NULL && tilde_draws_get_n_draws (draws, 0) > 0;
}

static void
test_held_draws (Fixture *f, gconstpointer data)
{
  TildeDraws *draws;

  /* held: the chains draw, the store stays empty; released, they come */
  set_sizes (f, 2, 100, 1000000);
  tilde_run_controller_hold_draws (f->controller);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (chain_has_drawn, f, 60000));
  window_test_run_for_ms (100);
  draws = tilde_run_controller_get_draws (f->controller);
  g_assert_nonnull (draws);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 0);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 1), ==, 0);
  tilde_run_controller_release_draws (f->controller);
  g_assert_true (window_test_wait_for_ms (store_has_draws, f, 10000));
  g_assert_true (tilde_run_controller_get_running (f->controller));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));

  /* a run that ends while held hands every draw over all the same */
  set_sizes (f, 2, 100, 200);
  tilde_run_controller_hold_draws (f->controller);
  run_and_wait (f);
  g_assert_no_error (f->error);
  draws = tilde_run_controller_get_draws (f->controller);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 300);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 1), ==, 300);
  tilde_run_controller_release_draws (f->controller);
  window_test_run_for_ms (50);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 300);
}

static gboolean
both_chains_in_store (gpointer data)
{
  Fixture *f = data;
  TildeDraws *draws = tilde_run_controller_get_draws (f->controller);

  return draws != NULL && tilde_draws_get_n_draws (draws, 0) > 0
         && tilde_draws_get_n_draws (draws, 1) > 0;
}

/* A thread holding a chain's lock, as the chain does while it hands a
 * draw over, until told to let go. */
typedef struct {
  GMutex  *chain_lock;
  GMutex   lock;
  GCond    cond;
  gboolean holding, let_go;
} LockHolder;

static gpointer
hold_chain_lock (gpointer data)
{
  LockHolder *h = data;

  g_mutex_lock (h->chain_lock);
  g_mutex_lock (&h->lock);
  h->holding = TRUE;
  g_cond_signal (&h->cond);
  while (!h->let_go)
    g_cond_wait (&h->cond, &h->lock);
  g_mutex_unlock (&h->lock);
  g_mutex_unlock (h->chain_lock);
  return NULL;
}

static gboolean
chain_progress_read (gpointer data)
{
  Fixture *f = data;
  TildeChainProgress progress;

  return tilde_run_controller_get_progress (f->controller, 0, &progress)
         && progress.iteration > 0;
}

/* The main thread never waits for a chain: while one holds its lock (as
 * when it is preempted handing a draw over), the other's draws still come,
 * its own progress is the last read, and its draws come once it lets go,
 * none lost. */
static void
test_chain_lock_taken (Fixture *f, gconstpointer data)
{
  TildeDraws *draws;
  TildeChainProgress progress;
  TildeRunSettings s;
  LockHolder h = { 0 };
  GThread *holder;
  guint first_then, second_then, iteration_then;

  set_sizes (f, 2, 100, 1000000);
  tilde_run_panel_get_run_settings (f->panel, &s);
  s.sample.threads = 2;     /* the two chains side by side on any machine */
  tilde_run_panel_set_run_settings (f->panel, &s);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (both_chains_in_store, f, 60000));
  g_assert_true (window_test_wait_for_ms (chain_progress_read, f, 10000));
  draws = tilde_run_controller_get_draws (f->controller);

  h.chain_lock = _tilde_run_controller_get_chain_lock (f->controller, 0);
  g_assert_nonnull (h.chain_lock);
  g_mutex_init (&h.lock);
  g_cond_init (&h.cond);
  holder = g_thread_new ("test-chain-lock", hold_chain_lock, &h);
  g_mutex_lock (&h.lock);
  while (!h.holding)
    g_cond_wait (&h.cond, &h.lock);
  g_mutex_unlock (&h.lock);

  g_assert_true (tilde_run_controller_get_progress (f->controller, 0, &progress));
  iteration_then = progress.iteration;
  window_test_run_for_ms (50);
  first_then = tilde_draws_get_n_draws (draws, 0);
  second_then = tilde_draws_get_n_draws (draws, 1);
  window_test_run_for_ms (200);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, first_then);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 1), >, second_then);
  g_assert_true (tilde_run_controller_get_progress (f->controller, 0, &progress));
  g_assert_cmpuint (progress.iteration, ==, iteration_then);

  g_mutex_lock (&h.lock);
  h.let_go = TRUE;
  g_cond_signal (&h.cond);
  g_mutex_unlock (&h.lock);
  g_thread_join (holder);
  g_mutex_clear (&h.lock);
  g_cond_clear (&h.cond);
  window_test_run_for_ms (200);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), >, first_then);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
  g_assert_false (_tilde_run_controller_get_chains_paused (f->controller));
  /* every draw a chain made is in the store (warm-up saved, no thinning) */
  for (guint c = 0; c < 2; c++)
    {
      g_assert_true (tilde_run_controller_get_progress (f->controller, c, &progress));
      g_assert_cmpuint (tilde_draws_get_n_draws (draws, c), ==, progress.iteration);
    }
}

static gboolean
chains_resumed (gpointer data)
{
  return !_tilde_run_controller_get_chains_paused (((Fixture *) data)->controller);
}

typedef struct {
  Fixture  *f;
  gboolean  seen;            /* a frame painted the run's store */
  guint     draws_then;      /* chain 1's draws in it */
  guint     items_then;      /* the parameter list's rows then */
  gboolean  paused_then;     /* whether the chains had stepped aside */
} FirstFrame;

static void
first_frame_painted (GdkFrameClock *clock, FirstFrame *first)
{
  TildeTracePlot *plot = tilde_run_plots_get_trace_plot (first->f->plots);
  TildeDraws *draws = tilde_run_controller_get_draws (first->f->controller);
  GtkSelectionModel *rows = tilde_parameter_list_get_model (tilde_run_plots_get_parameter_list (first->f->plots));

  if (first->seen || draws == NULL || tilde_trace_plot_get_draws (plot) != draws)
    return;
  first->seen = TRUE;
  first->draws_then = tilde_draws_get_n_draws (draws, 0);
  first->items_then = g_list_model_get_n_items (G_LIST_MODEL (rows));
  first->paused_then = _tilde_run_controller_get_chains_paused (first->f->controller);
}

/* A first run on screen: the frame that lays its rows out shows no
 * draws yet, and they come in the frames after. (A run long enough not to
 * end before the first frame, whose last draws would be handed over.) */
static gboolean
first_draws_drawn (gpointer data)
{
  FirstFrame *first = data;
  TildeTracePlot *plot = tilde_run_plots_get_trace_plot (first->f->plots);

  return first->seen && store_has_draws (first->f) && _tilde_trace_plot_get_rows_drawn (plot) > 0;
}

static void
test_first_frame_lays_out (Fixture *f, gconstpointer data)
{
  GtkWidget *stack = gtk_widget_get_parent (GTK_WIDGET (f->plots));
  TildeTracePlot *plot = tilde_run_plots_get_trace_plot (f->plots);
  FirstFrame first = { f, FALSE, 0, 0, FALSE };
  GdkFrameClock *clock;
  gulong id;

  /* (frames come however slow the machine: only they end the hold) */
  _tilde_run_controller_set_pause_max_ms (f->controller, 3600 * 1000);
  _tilde_run_plots_set_watch_max_ms (f->plots, 3600 * 1000);
  gtk_stack_set_visible_child (GTK_STACK (stack), GTK_WIDGET (f->plots));
  window_test_let_it_draw (GTK_WIDGET (f->plots));
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (plot));
  g_assert_nonnull (clock);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (first_frame_painted), &first);
  set_sizes (f, 2, 1000, 1000000);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (first_draws_drawn, &first, 60000));
  /* the frames painted, the plots lift the pause themselves */
  g_assert_true (window_test_wait_for_ms (chains_resumed, f, 10000));
  g_assert_true (tilde_run_controller_get_running (f->controller));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
  g_signal_handler_disconnect (clock, id);
  g_test_message ("first frame of the run: %u draws of chain 1, %u rows in the list",
                  first.draws_then, first.items_then);
  g_assert_cmpuint (first.draws_then, ==, 0);
  g_assert_cmpuint (first.items_then, >, 0);
  /* the chains stepped aside for it (the handler above runs before the
   * plots' own, which lifts the pause a frame later) */
  g_assert_true (first.paused_then);
}

static gboolean
rows_drawn (gpointer data)
{
  Fixture *f = data;

  return store_has_draws (f)
         && _tilde_trace_plot_get_rows_drawn (tilde_run_plots_get_trace_plot (f->plots)) > 0;
}

/* A first run's rows are drawn into images whose pages were mapped when
 * the run started, off the main thread, rather than in the frame that
 * lays the rows out. */
static void
test_images_mapped_ahead (Fixture *f, gconstpointer data)
{
  GtkWidget *stack = gtk_widget_get_parent (GTK_WIDGET (f->plots));
  TildeTracePlot *plot = tilde_run_plots_get_trace_plot (f->plots);
  GtkWidget *viewport;
  gsize in_view, reserved, left;
  guint drawn, made_before, made;
  int scale;

  _tilde_run_controller_set_pause_max_ms (f->controller, 3600 * 1000);
  _tilde_run_plots_set_watch_max_ms (f->plots, 3600 * 1000);
  gtk_stack_set_visible_child (GTK_STACK (stack), GTK_WIDGET (f->plots));
  window_test_let_it_draw (GTK_WIDGET (f->plots));
  _tilde_image_reserve_release ();
  viewport = gtk_widget_get_ancestor (GTK_WIDGET (plot), GTK_TYPE_VIEWPORT);
  g_assert_nonnull (viewport);
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (plot));
  in_view = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_ARGB32,
                                                   gtk_widget_get_width (GTK_WIDGET (plot)) * scale)
            * (gsize) (gtk_widget_get_height (viewport) * scale);
  g_assert_cmpuint (in_view, >, 0);
  _tilde_trace_plot_get_picture_counts (plot, &drawn, &made_before);

  set_sizes (f, 2, 1000, 1000000);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  /* the bands in view and their spares, mapped while the model compiles */
  reserved = _tilde_image_reserve_get_size (TRUE);
  g_test_message ("picture in view %" G_GSIZE_FORMAT " bytes, mapped ahead %" G_GSIZE_FORMAT,
                  in_view, reserved);
  g_assert_cmpuint (reserved, >=, 2 * in_view);
  g_assert_true (window_test_wait_for_ms (rows_drawn, f, 60000));
  _tilde_trace_plot_get_picture_counts (plot, &drawn, &made);
  left = _tilde_image_reserve_get_size (FALSE);
  g_test_message ("%u images made, %" G_GSIZE_FORMAT " bytes of the reserve left", made - made_before,
                  left);
  g_assert_cmpuint (made, >, made_before);
  /* the rows' images were cut from it, at least the picture in view */
  g_assert_cmpuint (reserved - left, >=, in_view);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
  _tilde_image_reserve_release ();
}

/* ---- the chains stepping aside ---- */

static guint
iterations (Fixture *f)
{
  TildeChainProgress progress;
  guint sum = 0;

  for (guint c = 0; tilde_run_controller_get_progress (f->controller, c, &progress); c++)
    sum += progress.iteration;
  return sum;
}

static gboolean
all_chains_wait (gpointer data)
{
  Fixture *f = data;

  return _tilde_run_controller_get_waiting_chains (f->controller)
         == tilde_run_controller_get_n_chains (f->controller);
}

static gboolean
no_chain_waits (gpointer data)
{
  return _tilde_run_controller_get_waiting_chains (((Fixture *) data)->controller) == 0;
}

typedef struct {
  Fixture *f;
  guint    since;
} Iterated;

static gboolean
chains_go_on (gpointer data)
{
  Iterated *it = data;

  return iterations (it->f) > it->since;
}

/* Two chains of `draws` each, both sampling. */
static void
start_run_of (Fixture *f, guint draws)
{
  set_sizes (f, 2, 100, draws);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (chain_has_drawn, f, 60000));
  g_assert_cmpuint (tilde_run_controller_get_n_chains (f->controller), ==, 2);
}

/* ... long enough not to end during the test */
static void
start_long_run (Fixture *f)
{
  start_run_of (f, 1000000);
}

static void
test_paused_chains (Fixture *f, gconstpointer data)
{
  Iterated it = { f, 0 };

  /* paused, every chain waits and none goes on; resumed, they do */
  _tilde_run_controller_set_pause_max_ms (f->controller, 3600 * 1000);
  start_long_run (f);
  tilde_run_controller_pause_chains (f->controller);
  tilde_run_controller_pause_chains (f->controller);
  g_assert_true (_tilde_run_controller_get_chains_paused (f->controller));
  g_assert_true (window_test_wait_for_ms (all_chains_wait, f, 30000));
  it.since = iterations (f);
  window_test_run_for_ms (200);
  g_assert_cmpuint (iterations (f), ==, it.since);
  /* pauses count */
  tilde_run_controller_resume_chains (f->controller);
  window_test_run_for_ms (100);
  g_assert_cmpuint (iterations (f), ==, it.since);
  g_assert_true (all_chains_wait (f));
  tilde_run_controller_resume_chains (f->controller);
  g_assert_false (_tilde_run_controller_get_chains_paused (f->controller));
  g_assert_true (window_test_wait_for_ms (chains_go_on, &it, 10000));

  /* Stop reaches waiting chains (the pause would last an hour) */
  tilde_run_controller_pause_chains (f->controller);
  g_assert_true (window_test_wait_for_ms (all_chains_wait, f, 30000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_false (_tilde_run_controller_get_chains_paused (f->controller));
  tilde_run_controller_resume_chains (f->controller);
  /* and a pause asked for after Stop pauses nothing */
  tilde_run_controller_pause_chains (f->controller);
  g_assert_false (_tilde_run_controller_get_chains_paused (f->controller));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
  tilde_run_controller_resume_chains (f->controller);
  g_assert_cmpuint (tilde_draws_get_n_draws (tilde_run_controller_get_draws (f->controller), 0), >, 0);

  /* a pause not lifted lets the chains go on after its longest (a run
   * long enough not to end while the main loop is busy with the last
   * one, some 7 s under the sanitizers, and stopped early, so that its
   * summary stays short) */
  _tilde_run_controller_set_pause_max_ms (f->controller, 50);
  start_run_of (f, 200000);
  tilde_run_controller_pause_chains (f->controller);
  it.since = iterations (f);
  g_assert_true (window_test_wait_for_ms (chains_go_on, &it, 10000));
  g_assert_true (window_test_wait_for_ms (no_chain_waits, f, 10000));
  g_assert_true (_tilde_run_controller_get_chains_paused (f->controller));
  tilde_run_controller_resume_chains (f->controller);
  tilde_run_controller_stop (f->controller);
  g_assert_true (window_test_wait_for_ms (is_finished, f, 60000));
}

typedef struct {
  Fixture  *f;
  guint     frames;
  gboolean  paused_first;    /* in the first frame painted */
} Painted;

static void
count_painted (GdkFrameClock *clock, Painted *p)
{
  if (p->frames++ == 0)
    p->paused_first = _tilde_run_controller_get_chains_paused (p->f->controller);
}

/* The plots brought up while the chains run: they step aside for the
 * frame that paints the page, and go on after it. */
static void
test_plots_brought_up (Fixture *f, gconstpointer data)
{
  GtkWidget *stack = gtk_widget_get_parent (GTK_WIDGET (f->plots));
  Painted painted = { f, 0, FALSE };
  GdkFrameClock *clock;
  gulong id;

  _tilde_run_controller_set_pause_max_ms (f->controller, 3600 * 1000);
  _tilde_run_plots_set_watch_max_ms (f->plots, 3600 * 1000);
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (f->plots)));
  start_long_run (f);
  g_assert_false (_tilde_run_controller_get_chains_paused (f->controller));
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (stack));
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (count_painted), &painted);
  gtk_stack_set_visible_child (GTK_STACK (stack), GTK_WIDGET (f->plots));
  g_assert_true (_tilde_run_controller_get_chains_paused (f->controller));
  g_assert_true (window_test_wait_for_ms (chains_resumed, f, 10000));
  g_signal_handler_disconnect (clock, id);
  g_assert_cmpuint (painted.frames, >=, 1);
  g_assert_true (painted.paused_first);
  g_assert_true (tilde_run_controller_get_running (f->controller));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
}

/* ---- the chains in the background ---- */

#ifdef __linux__

/* The lowest nice value of this process's threads named NAME (the one
 * scheduled first), or G_MAXINT for none; `count` of them. */
static int
nice_of_threads (const char *name, guint *count)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/task", 0, NULL);
  const char *tid;
  int lowest = G_MAXINT;

  *count = 0;
  if (dir == NULL)
    return lowest;
  while ((tid = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/task", tid, "comm", NULL);
      g_autofree char *comm = NULL;
      int value;

      if (!g_file_get_contents (path, &comm, NULL, NULL) || strcmp (g_strstrip (comm), name) != 0)
        continue;
      errno = 0;
      value = getpriority (PRIO_PROCESS, (id_t) g_ascii_strtoll (tid, NULL, 10));
      if (errno != 0)
        continue;
      (*count)++;
      lowest = MIN (lowest, value);
    }
  return lowest;
}

static void
test_chains_in_the_background (Fixture *f, gconstpointer data)
{
  int before = getpriority (PRIO_PROCESS, 0);
  guint count = 0;
  int nice;

  set_sizes (f, 2, 100, 1000000);
  f->finished = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (chain_has_drawn, f, 60000));
  nice = nice_of_threads ("tilde-chain", &count);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.stop", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, 10000));
  g_assert_cmpuint (count, >=, 1);
  g_assert_cmpint (nice, ==, MAX (before, 10));
  /* and the window's own thread is left as it was */
  g_assert_cmpint (getpriority (PRIO_PROCESS, 0), ==, before);
}
#endif

static void
test_bad_model_and_data (Fixture *f, gconstpointer data)
{
  g_autofree char *model = example_text ("eight_schools.stan");
  GListModel *problems = tilde_run_controller_get_problems (f->controller);
  g_autoptr(TildeProblem) problem = NULL;
  g_autoptr(TildeProblem) data_problem = NULL;

  set_sizes (f, 1, 100, 100);
  set_text (tilde_editor_get_buffer (f->editor), "parameters { real mu }\nmodel { mu ~ normal(0, 1); }\n");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_MODEL);
  g_assert_cmpuint (g_list_model_get_n_items (problems), >=, 1);
  problem = g_list_model_get_item (problems, 0);
  g_assert_cmpint (tilde_problem_get_diagnostic (problem)->begin_line, ==, 1);
  g_assert_cmpint (tilde_problem_get_severity (problem), ==, TILDE_SEVERITY_ERROR);

  set_text (tilde_editor_get_buffer (f->editor), model);
  set_text (tilde_data_panel_get_buffer (f->data), "{\"J\": 8, \"y\": [1, 2]}");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_DATA);
  g_assert_cmpuint (g_list_model_get_n_items (problems), >=, 1);
  data_problem = g_list_model_get_item (problems, 0);
  g_assert_cmpint (tilde_problem_get_diagnostic (data_problem)->kind, ==, TILDE_DIAG_DATA);
  g_assert_false (tilde_run_panel_go_to_problem (f->panel, data_problem));
  g_test_message ("%s", tilde_problem_get_message (data_problem));

  set_text (tilde_data_panel_get_buffer (f->data), "{\"J\": ");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_DATA);

  /* data that fit, transformed data that fail: the problem is at the
   * statement that raised it */
  set_text (tilde_data_panel_get_buffer (f->data), "{\"N\": 3}");
  set_text (tilde_editor_get_buffer (f->editor),
            "data { int N; }\ntransformed data {\n  vector[N] v = rep_vector(1, N);\n"
            "  real s = v[N + 1];\n}\nparameters { real mu; }\nmodel { mu ~ normal(0, 1); }\n");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_DATA);
  g_assert_cmpstr (f->error->message, ==, "Transformed data failed at line 4: index 4 out of "
                   "range; expecting index to be between 1 and 3");
  g_assert_cmpuint (g_list_model_get_n_items (problems), ==, 1);
  {
    g_autoptr(TildeProblem) td = g_list_model_get_item (problems, 0);
    const TildeDiagnostic *d = tilde_problem_get_diagnostic (td);

    g_assert_cmpint (d->begin_line, ==, 4);
    g_assert_cmpint (d->begin_column, ==, 2);
    g_assert_cmpint (d->end_column, ==, 20);
    g_assert_true (tilde_run_panel_go_to_problem (f->panel, td));
    {
      g_autofree char *selected = selected_text (f);
      g_assert_cmpstr (selected, ==, "real s = v[N + 1];");
    }
  }

  /* no starting point: the failure without a place, in CmdStan's words,
   * and a warning at the statement that rejected every point tried */
  set_text (tilde_data_panel_get_buffer (f->data), "{}");
  set_text (tilde_editor_get_buffer (f->editor),
            "parameters { real x; }\nmodel { reject(\"no start\"); }\n");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_INIT);
  g_assert_cmpuint (g_list_model_get_n_items (problems), ==, 2);
  {
    g_autoptr(TildeProblem) rejected = g_list_model_get_item (problems, 0);
    g_autoptr(TildeProblem) init = g_list_model_get_item (problems, 1);

    g_assert_cmpint (tilde_problem_get_severity (rejected), ==, TILDE_SEVERITY_WARNING);
    g_assert_cmpint (tilde_problem_get_diagnostic (rejected)->begin_line, ==, 2);
    g_assert_cmpstr (tilde_problem_get_diagnostic (rejected)->message, ==,
                     "100 starting points were rejected here; the first because: no start");
    g_assert_cmpint (tilde_problem_get_severity (init), ==, TILDE_SEVERITY_ERROR);
    g_assert_cmpint (tilde_problem_get_diagnostic (init)->begin_line, ==, 0);
    g_assert_nonnull (strstr (tilde_problem_get_message (init), "Initialization failed"));
  }
  /* the reasons, line by line, are in the run's messages */
  g_assert_nonnull (strstr (tilde_run_controller_get_log (f->controller), "no start"));

  /* an error that ends the search at once has its place */
  set_text (tilde_data_panel_get_buffer (f->data), "{\"y\": [1, 2]}");
  set_text (tilde_editor_get_buffer (f->editor),
            "data { array[2] real y; }\nparameters { real x; }\nmodel { target += y[3] * x; }\n");
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_INIT);
  g_assert_cmpuint (g_list_model_get_n_items (problems), ==, 1);
  {
    g_autoptr(TildeProblem) start = g_list_model_get_item (problems, 0);
    const TildeDiagnostic *d = tilde_problem_get_diagnostic (start);
    g_autofree char *selected = NULL;

    g_assert_cmpint (d->begin_line, ==, 3);
    g_assert_cmpstr (d->message, ==, "Initialization failed: index 3 out of range; expecting "
                     "index to be between 1 and 2");
    g_assert_true (tilde_run_panel_go_to_problem (f->panel, start));
    selected = selected_text (f);
    g_assert_cmpstr (selected, ==, "target += y[3] * x;");
  }

  /* and so for an optimisation */
  {
    TildeRunSettings s;

    tilde_run_panel_get_run_settings (f->panel, &s);
    s.method = TILDE_RUN_OPTIMIZE;
    tilde_run_panel_set_run_settings (f->panel, &s);
  }
  run_and_wait (f);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_INIT);
  g_assert_cmpuint (g_list_model_get_n_items (problems), ==, 1);
  {
    g_autoptr(TildeProblem) start = g_list_model_get_item (problems, 0);

    g_assert_cmpint (tilde_problem_get_diagnostic (start)->begin_line, ==, 3);
  }
}

int
main (int argc, char *argv[])
{
  int status;

  window_test_isolate_home ();
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  g_type_ensure (TILDE_TYPE_EDITOR);

#define ADD(path, func) \
  g_test_add ("/run/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("streams-while-running", test_streams_while_running);
  ADD ("stop-keeps-draws", test_stop_keeps_draws);
  ADD ("summary-equals-tilde-summary", test_summary_equals_cli);
  ADD ("export", test_export);
  ADD ("save-and-open", test_save_and_open);
  ADD ("metric-adaptation", test_metric_adaptation);
  ADD ("rejections-by-statement", test_rejections_by_statement);
  ADD ("optimize-with-laplace", test_optimize_with_laplace);
  ADD ("again-keeps-the-plots", test_again_keeps_the_plots);
  ADD ("held-draws", test_held_draws);
  ADD ("chain-lock-taken", test_chain_lock_taken);
  ADD ("first-frame-lays-out", test_first_frame_lays_out);
  ADD ("images-mapped-ahead", test_images_mapped_ahead);
  ADD ("paused-chains", test_paused_chains);
  ADD ("plots-brought-up", test_plots_brought_up);
#ifdef __linux__
  ADD ("chains-in-the-background", test_chains_in_the_background);
#endif
  ADD ("bad-model-and-data", test_bad_model_and_data);
  ADD ("ends-on-the-main-thread", test_ends_on_the_main_thread);
#undef ADD
  status = g_test_run ();
  window_test_remove_home ();
  return status;
}
