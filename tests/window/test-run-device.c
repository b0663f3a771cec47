/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The device of a run in the run panel: the drop-down lists the CPU and
 * each OpenCL device the ICD loader reports (PoCL's CPU device in CI); a
 * Poisson GLM over @gpu data run on the device gives draws and a summary
 * that agree with the CPU run's within their Monte Carlo standard errors;
 * a saved device that is not there any more leaves the CPU chosen; a run
 * on a device that vanished, or on one where nothing of the model can
 * run, goes on on the CPU as `tilde sample --device` does, with the reason
 * in the problems list, as it does when no OpenCL platform is installed.
 * Tests that need a device skip when there is none.
 * Run under an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include <math.h>
#include <string.h>

#include "tilde-data-panel.h"
#include "tilde-editor.h"
#include "tilde-problem.h"
#include "tilde-run-panel.h"
#include "gpu/device.h"
#include "window-test-util.h"

/* The sanitized debug build runs the sampler many times slower. */
#ifdef __SANITIZE_ADDRESS__
#define RUN_LIMIT_MS 400000
#else
#define RUN_LIMIT_MS 120000
#endif

static const char glm_model[] =
  "data {\n"
  "  int<lower=0> N;\n"
  "  @gpu matrix[N, 2] X;\n"
  "  array[N] int c;\n"
  "}\n"
  "parameters {\n"
  "  real alpha;\n"
  "  vector[2] beta;\n"
  "}\n"
  "model {\n"
  "  alpha ~ normal(0, 2);\n"
  "  beta ~ normal(0, 1);\n"
  "  c ~ poisson_log_glm(X, alpha, beta);\n"
  "}\n";

typedef struct {
  GtkWindow          *window;
  TildeEditor        *editor;
  TildeDataPanel     *data;
  TildeRunController *controller;
  TildeRunPanel      *panel;
  GSettings          *settings;
  gboolean            finished;
  GError             *error;
} Fixture;

static char *
glm_data (void)
{
  GString *x = g_string_new (NULL);
  GString *c = g_string_new (NULL);
  const int n = 120;
  char *json;

  for (int i = 0; i < n; i++)
    {
      double x1 = (i % 11) / 5.0 - 1, x2 = (i % 7) / 3.5 - 1;

      g_string_append_printf (x, "%s[%.4f, %.4f]", i ? ", " : "", x1, x2);
      /* counts near exp(0.3 + 0.5 x1 - 0.4 x2), varied by the index */
      g_string_append_printf (c, "%s%d", i ? ", " : "",
                              (int) floor (exp (0.3 + 0.5 * x1 - 0.4 * x2) + (i % 3) * 0.5));
    }
  json = g_strdup_printf ("{\"N\": %d, \"X\": [%s], \"c\": [%s]}", n, x->str, c->str);
  g_string_free (x, TRUE);
  g_string_free (c, TRUE);
  return json;
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
  g_clear_error (&f->error);
  f->error = error ? g_error_copy (error) : NULL;
}

static void
fixture_set_up (Fixture *f, gconstpointer saved_device)
{
  g_autofree char *runs = g_build_filename (window_test_home (), "runs", NULL);
  g_autofree char *json = glm_data ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  f->settings = g_settings_new ("org.tilde.Workbench");
  g_settings_set_string (f->settings, "run-device", saved_device ? saved_device : "cpu");
  g_settings_set_boolean (f->settings, "run-use-opencl", FALSE);
  g_settings_set_string (f->settings, "run-folder", runs);
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 1000, 700);
  f->editor = TILDE_EDITOR (tilde_editor_new ());
  f->data = TILDE_DATA_PANEL (tilde_data_panel_new ());
  set_text (tilde_editor_get_buffer (f->editor), glm_model);
  set_text (tilde_data_panel_get_buffer (f->data), json);
  f->controller = tilde_run_controller_new ();
  g_signal_connect (f->controller, "finished", G_CALLBACK (on_finished), f);
  f->panel = TILDE_RUN_PANEL (tilde_run_panel_new ());
  tilde_run_panel_set_settings (f->panel, f->settings);
  tilde_run_panel_set_controller (f->panel, f->controller);
  tilde_run_panel_set_editor (f->panel, f->editor);
  tilde_run_panel_set_data_panel (f->panel, f->data);
  gtk_widget_set_hexpand (GTK_WIDGET (f->panel), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->editor));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->data));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->panel));
  gtk_window_set_child (f->window, box);
  gtk_window_present (f->window);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_signal_handlers_disconnect_by_data (f->controller, f);
  gtk_window_destroy (f->window);
  g_object_unref (f->controller);
  g_object_unref (f->settings);
  g_clear_error (&f->error);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
devices_listed (gpointer data)
{
  return tilde_run_panel_get_devices_listed (data);
}

static void
list_devices (Fixture *f)
{
  tilde_run_panel_list_devices (f->panel);
  g_assert_true (window_test_wait_for_ms (devices_listed, f->panel, 30000));
}

static GtkDropDown *
device_drop_down (Fixture *f)
{
  GtkWidget *found = NULL;

  /* the only drop-down whose first item is "CPU" */
  for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (f->panel)); w; )
    {
      if (GTK_IS_DROP_DOWN (w))
        {
          GListModel *model = gtk_drop_down_get_model (GTK_DROP_DOWN (w));
          g_autoptr(GtkStringObject) first = g_list_model_get_item (model, 0);

          if (first && g_str_equal (gtk_string_object_get_string (first), "CPU"))
            found = w;
        }
      if (found)
        break;
      if (gtk_widget_get_first_child (w))
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w && !gtk_widget_get_next_sibling (w) && w != GTK_WIDGET (f->panel))
            w = gtk_widget_get_parent (w);
          w = w && w != GTK_WIDGET (f->panel) ? gtk_widget_get_next_sibling (w) : NULL;
        }
    }
  g_assert_nonnull (found);
  return GTK_DROP_DOWN (found);
}

/* The engine's first device with double precision, or NULL after a skip. */
static TildeGpuDevice *
usable_device (void)
{
  g_autoptr(GError) error = NULL;
  TildeDeviceChoice any = { TRUE, -1, -1 };
  TildeGpuDevice *device = tilde_gpu_device_select (&any, &error);

  if (device == NULL)
    {
      g_autofree char *why = g_strdup_printf ("no OpenCL device: %s", error->message);

      g_test_skip (why);
    }
  return device;
}

static char *
device_id (const TildeGpuDevice *d)
{
  return g_strdup_printf ("opencl:%u:%u", d->platform_index, d->device_index);
}

static gboolean
is_finished (gpointer data)
{
  return ((Fixture *) data)->finished;
}

static void
run_and_wait (Fixture *f, guint chains, guint warmup, guint samples)
{
  TildeRunSettings s;
  gint64 started;

  tilde_run_panel_get_run_settings (f->panel, &s);
  s.method = TILDE_RUN_SAMPLE;
  s.sample.chains = chains;
  s.sample.warmup = warmup;
  s.sample.samples = samples;
  s.sample.seed = 20261122;
  s.sample.seed_given = TRUE;
  tilde_run_panel_set_run_settings (f->panel, &s);
  f->finished = FALSE;
  started = g_get_monotonic_time ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->panel), "run-panel.run", NULL));
  g_assert_true (window_test_wait_for_ms (is_finished, f, RUN_LIMIT_MS));
  g_test_message ("run of %u × (%u + %u) iterations: %.2f s", chains, warmup, samples,
                  (g_get_monotonic_time () - started) / 1e6);
}

static guint
count_problems (Fixture *f, TildeSeverity severity, const char *containing)
{
  GListModel *problems = tilde_run_controller_get_problems (f->controller);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (problems); i++)
    {
      g_autoptr(TildeProblem) p = g_list_model_get_item (problems, i);

      g_test_message ("problem: %s", tilde_problem_get_message (p));
      if (tilde_problem_get_severity (p) == severity
          && strstr (tilde_problem_get_message (p), containing))
        n++;
    }
  return n;
}

/* ---- the list ---- */

static void
test_lists_devices (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) devices = tilde_gpu_devices_list (&error);
  GtkDropDown *drop = device_drop_down (f);
  GListModel *items = gtk_drop_down_get_model (drop);

  g_assert_false (tilde_run_panel_get_devices_listed (f->panel));
  list_devices (f);
  /* once per panel: a second call lists nothing again */
  tilde_run_panel_list_devices (f->panel);
  window_test_run_for_ms (50);
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, "cpu");
  if (devices == NULL)
    {
      g_assert_cmpuint (g_list_model_get_n_items (items), ==, 1);
      g_test_skip (error->message);
      return;
    }
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 1 + devices->len);
  for (guint i = 0; i < devices->len; i++)
    {
      const TildeGpuDevice *d = g_ptr_array_index (devices, i);
      g_autoptr(GtkStringObject) item = g_list_model_get_item (items, i + 1);
      const char *label = gtk_string_object_get_string (item);
      g_autofree char *id = device_id (d);

      g_test_message ("%s: %s", id, label);
      g_assert_nonnull (strstr (label, d->name));
      g_assert_nonnull (strstr (label, d->platform_name));
      g_assert_nonnull (strstr (label, d->fp64 ? "· double precision" : "no double precision"));
      /* choosing it chooses its id, which the settings keep */
      gtk_drop_down_set_selected (drop, i + 1);
      g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, id);
      {
        g_autofree char *saved = g_settings_get_string (f->settings, "run-device");

        g_assert_cmpstr (saved, ==, id);
      }
    }
  window_test_let_it_draw (GTK_WIDGET (f->window));
  window_test_screenshot (GTK_WIDGET (f->window), "run-device");
  gtk_drop_down_set_selected (drop, 0);
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, "cpu");
}

/* A saved device that is still there is chosen again once listed. */
static void
test_restores_saved_device (Fixture *f, gconstpointer data)
{
  g_autoptr(TildeGpuDevice) device = usable_device ();
  g_autofree char *id = NULL;
  TildeRunSettings s;

  if (device == NULL)
    return;
  id = device_id (device);
  g_settings_set_string (f->settings, "run-device", id);
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, "cpu");
  list_devices (f);
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, id);
  tilde_run_panel_get_run_settings (f->panel, &s);
  g_assert_true (s.device.opencl);
  g_assert_cmpint (s.device.platform, ==, device->platform_index);
  g_assert_cmpint (s.device.device, ==, device->device_index);
}

static void
test_stale_saved_device (Fixture *f, gconstpointer data)
{
  g_autofree char *saved = NULL;
  TildeRunSettings s;

  list_devices (f);
  g_assert_cmpuint (gtk_drop_down_get_selected (device_drop_down (f)), ==, 0);
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, "cpu");
  tilde_run_panel_get_run_settings (f->panel, &s);
  g_assert_false (s.device.opencl);
  /* the key keeps the device, should it come back */
  saved = g_settings_get_string (f->settings, "run-device");
  g_assert_cmpstr (saved, ==, "opencl:41:0");
}

/* ---- runs ---- */

static const TildeSummaryRow *
summary_row (const TildeSummary *summary, const char *name)
{
  for (guint i = 0; i < summary->rows->len; i++)
    {
      const TildeSummaryRow *row = g_ptr_array_index (summary->rows, i);

      if (g_str_equal (row->name, name))
        return row;
    }
  g_assert_not_reached ();
}

static void
test_glm_on_the_device (Fixture *f, gconstpointer data)
{
  static const char *const names[] = { "alpha", "beta[1]", "beta[2]" };
  g_autoptr(TildeGpuDevice) device = usable_device ();
  g_autofree char *id = NULL;
  g_autofree double *cpu_alpha = NULL;
  double cpu_mean[3], cpu_mcse[3];
  guint n_cpu, same = 0;
  GtkDropDown *drop;
  const TildeSummary *summary;

  if (device == NULL)
    return;
  id = device_id (device);
  list_devices (f);

  /* the CPU's run first */
  run_and_wait (f, 2, 200, 300);
  g_assert_no_error (f->error);
  summary = tilde_run_controller_get_summary (f->controller);
  g_assert_nonnull (summary);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      cpu_mean[i] = summary_row (summary, names[i])->mean;
      cpu_mcse[i] = summary_row (summary, names[i])->mcse;
    }
  {
    TildeDraws *draws = tilde_run_controller_get_draws (f->controller);
    int column = tilde_draws_find_column (draws, "alpha");

    n_cpu = tilde_draws_get_n_draws (draws, 0) - tilde_draws_get_n_warmup (draws, 0);
    cpu_alpha = g_new (double, n_cpu);
    tilde_draws_copy_column (draws, 0, (guint) column, tilde_draws_get_n_warmup (draws, 0),
                             n_cpu, cpu_alpha);
  }
  g_assert_null (strstr (tilde_run_controller_get_log (f->controller), "OpenCL"));

  /* then the device's, chosen in the drop-down */
  drop = device_drop_down (f);
  for (guint i = 1; i < g_list_model_get_n_items (gtk_drop_down_get_model (drop)); i++)
    {
      gtk_drop_down_set_selected (drop, i);
      if (g_str_equal (tilde_run_panel_get_device (f->panel), id))
        break;
    }
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, id);
  run_and_wait (f, 2, 200, 300);
  g_assert_no_error (f->error);
  g_assert_cmpuint (g_list_model_get_n_items (tilde_run_controller_get_problems (f->controller)),
                    ==, 0);
  g_assert_nonnull (strstr (tilde_run_controller_get_log (f->controller),
                            "1 statement runs on the OpenCL device"));
  g_assert_true (tilde_run_controller_get_settings (f->controller)->device.opencl);
  summary = tilde_run_controller_get_summary (f->controller);
  g_assert_nonnull (summary);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const TildeSummaryRow *row = summary_row (summary, names[i]);
      double se = sqrt (row->mcse * row->mcse + cpu_mcse[i] * cpu_mcse[i]);

      g_test_message ("%s: CPU %.5f ± %.5f, device %.5f ± %.5f", names[i], cpu_mean[i],
                      cpu_mcse[i], row->mean, row->mcse);
      g_assert_cmpfloat (row->rhat, <, 1.05);
      g_assert_cmpfloat (fabs (row->mean - cpu_mean[i]), <, 4 * se);
    }
  {
    TildeDraws *draws = tilde_run_controller_get_draws (f->controller);
    int column = tilde_draws_find_column (draws, "alpha");
    guint warmup = tilde_draws_get_n_warmup (draws, 0);
    guint n = tilde_draws_get_n_draws (draws, 0) - warmup;
    g_autofree double *alpha = g_new (double, n);

    g_assert_cmpuint (n, ==, n_cpu);
    tilde_draws_copy_column (draws, 0, (guint) column, warmup, n, alpha);
    while (same < n && alpha[same] == cpu_alpha[same])
      same++;
    g_test_message ("chain 1: %u of %u draws of alpha after warm-up identical to the CPU's",
                    same, n);
  }
}

/* A device listed once and gone since: the run says so and runs on the CPU. */
static void
test_vanished_device (Fixture *f, gconstpointer data)
{
  GtkDropDown *drop = device_drop_down (f);
  TildeDraws *draws;

  tilde_run_panel_add_device (f->panel, "opencl:41:0", "A device no longer there");
  gtk_drop_down_set_selected (drop, g_list_model_get_n_items (gtk_drop_down_get_model (drop)) - 1);
  g_assert_cmpstr (tilde_run_panel_get_device (f->panel), ==, "opencl:41:0");
  run_and_wait (f, 1, 100, 100);
  g_assert_no_error (f->error);
  g_assert_cmpuint (count_problems (f, TILDE_SEVERITY_WARNING, "platform 41"), ==, 1);
  draws = tilde_run_controller_get_draws (f->controller);
  g_assert_cmpuint (tilde_draws_get_n_draws (draws, 0), ==, 200);
  g_assert_nonnull (tilde_run_controller_get_summary (f->controller));
}

/* On a device, a model without a GLM over device data runs on the CPU. */
static void
test_nothing_on_the_device (Fixture *f, gconstpointer data)
{
  g_autoptr(TildeGpuDevice) device = usable_device ();
  g_autofree char *id = NULL;
  GtkDropDown *drop;

  if (device == NULL)
    return;
  id = device_id (device);
  list_devices (f);
  set_text (tilde_editor_get_buffer (f->editor),
            "parameters { real mu; }\nmodel { mu ~ normal(1, 2); }\n");
  set_text (tilde_data_panel_get_buffer (f->data), "{}");
  drop = device_drop_down (f);
  for (guint i = 1; i < g_list_model_get_n_items (gtk_drop_down_get_model (drop)); i++)
    {
      gtk_drop_down_set_selected (drop, i);
      if (g_str_equal (tilde_run_panel_get_device (f->panel), id))
        break;
    }
  run_and_wait (f, 1, 100, 100);
  g_assert_no_error (f->error);
  g_assert_cmpuint (count_problems (f, TILDE_SEVERITY_WARNING, "No statement of the model runs"),
                    ==, 1);
  g_assert_cmpuint (tilde_draws_get_n_draws (tilde_run_controller_get_draws (f->controller), 0),
                    ==, 200);
}

/* "Use OpenCL for large data" is --use-opencl: on a device, a design
 * matrix of 10,000 elements goes there without @gpu; on the CPU the switch
 * cannot be used. */
static void
test_use_opencl_for_large_data (Fixture *f, gconstpointer data)
{
  g_autoptr(TildeGpuDevice) device = usable_device ();
  g_autofree char *id = NULL;
  g_autofree char *model = NULL;
  /* a row a line: one long line would be too slow for the data panel's highlighting */
  GString *json = g_string_new ("{\"N\": 5000, \"X\": [");
  GtkDropDown *drop;
  TildeRunSettings s;

  if (device == NULL)
    {
      g_string_free (json, TRUE);
      return;
    }
  id = device_id (device);
  list_devices (f);
  for (int i = 0; i < 5000; i++)
    g_string_append_printf (json, "%s[%.3f, %.3f]", i ? ",\n" : "", (i % 13) / 13.0 - 0.5,
                            (i % 5) / 5.0 - 0.4);
  g_string_append (json, "], \"c\": [");
  for (int i = 0; i < 5000; i++)
    g_string_append_printf (json, "%s%d", i ? (i % 40 ? ", " : ",\n") : "", i % 3);
  g_string_append (json, "]}");
  model = g_strdup (glm_model);
  memcpy (strstr (model, "@gpu"), "    ", 4);
  set_text (tilde_editor_get_buffer (f->editor), model);
  set_text (tilde_data_panel_get_buffer (f->data), json->str);
  g_string_free (json, TRUE);

  g_settings_set_boolean (f->settings, "run-use-opencl", TRUE);
  tilde_run_panel_get_run_settings (f->panel, &s);
  g_assert_false (s.use_opencl);
  drop = device_drop_down (f);
  for (guint i = 1; i < g_list_model_get_n_items (gtk_drop_down_get_model (drop)); i++)
    {
      gtk_drop_down_set_selected (drop, i);
      if (g_str_equal (tilde_run_panel_get_device (f->panel), id))
        break;
    }
  tilde_run_panel_get_run_settings (f->panel, &s);
  g_assert_true (s.use_opencl);
  run_and_wait (f, 1, 30, 30);
  g_assert_no_error (f->error);
  g_assert_nonnull (strstr (tilde_run_controller_get_log (f->controller),
                            "1 statement runs on the OpenCL device"));
  g_assert_cmpuint (g_list_model_get_n_items (tilde_run_controller_get_problems (f->controller)),
                    ==, 0);
}

/* Without any OpenCL platform the list holds the CPU alone, says why, and a
 * run on a device saved before runs on the CPU with the loader's reason.
 * In a process of its own, whose ICD loader looks in a folder without
 * platforms. */
static void
test_no_platform (Fixture *f, gconstpointer data)
{
  GtkDropDown *drop;
  const char *tooltip;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  g_setenv ("OCL_ICD_VENDORS", window_test_home (), TRUE);
  list_devices (f);
  drop = device_drop_down (f);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (drop)), ==, 1);
  tooltip = gtk_widget_get_tooltip_text (GTK_WIDGET (drop));
  g_assert_nonnull (tooltip);
  g_assert_nonnull (strstr (tooltip, "No OpenCL platform"));
  tilde_run_panel_add_device (f->panel, "opencl:0:0", "A device of another day");
  gtk_drop_down_set_selected (drop, 1);
  run_and_wait (f, 1, 100, 100);
  g_assert_no_error (f->error);
  g_assert_cmpuint (count_problems (f, TILDE_SEVERITY_WARNING, "No OpenCL platform is installed"),
                    ==, 1);
  g_assert_cmpuint (tilde_draws_get_n_draws (tilde_run_controller_get_draws (f->controller), 0),
                    ==, 200);
}

/* A model error on a device is the model's error, as on the CPU. */
static void
test_model_error_on_a_device (Fixture *f, gconstpointer data)
{
  GtkDropDown *drop = device_drop_down (f);

  tilde_run_panel_add_device (f->panel, "opencl:41:0", "A device no longer there");
  gtk_drop_down_set_selected (drop, 1);
  set_text (tilde_editor_get_buffer (f->editor), "parameters { real mu }\n");
  run_and_wait (f, 1, 100, 100);
  g_assert_error (f->error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_MODEL);
  g_assert_cmpuint (count_problems (f, TILDE_SEVERITY_ERROR, ""), >=, 1);
  g_assert_cmpuint (count_problems (f, TILDE_SEVERITY_WARNING, ""), ==, 0);
}

/* A saved run keeps its device, in `--device`'s words. */
static void
test_settings_json (void)
{
  TildeRunSettings s, back;
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;

  tilde_run_settings_init (&s);
  g_assert_false (s.device.opencl);
  s.device = (TildeDeviceChoice) { TRUE, 1, 2 };
  s.use_opencl = TRUE;
  json = tilde_run_settings_to_json (&s);
  g_assert_nonnull (strstr (json, "\"device\" : \"opencl:1:2\""));
  tilde_run_settings_init (&back);
  g_assert_true (tilde_run_settings_from_json (json, &back, &error));
  g_assert_no_error (error);
  g_assert_true (back.device.opencl);
  g_assert_cmpint (back.device.platform, ==, 1);
  g_assert_cmpint (back.device.device, ==, 2);
  g_assert_true (back.use_opencl);
  /* a run saved before devices were kept ran on the CPU */
  tilde_run_settings_init (&back);
  g_assert_true (tilde_run_settings_from_json ("{\"chains\": 2}", &back, &error));
  g_assert_false (back.device.opencl);
  g_assert_false (back.use_opencl);
  g_assert_false (tilde_run_settings_from_json ("{\"device\": \"gpu\"}", &back, &error));
  g_assert_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_CHOICE);
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

#define ADD(path, saved, func) \
  g_test_add ("/run-device/" path, Fixture, saved, fixture_set_up, func, fixture_tear_down)
  ADD ("lists-cpu-and-opencl-devices", NULL, test_lists_devices);
  ADD ("restores-saved-device", NULL, test_restores_saved_device);
  ADD ("stale-saved-device-means-cpu", "opencl:41:0", test_stale_saved_device);
  ADD ("glm-on-the-device", NULL, test_glm_on_the_device);
  ADD ("vanished-device-runs-on-cpu", NULL, test_vanished_device);
  ADD ("nothing-on-the-device", NULL, test_nothing_on_the_device);
  ADD ("use-opencl-for-large-data", NULL, test_use_opencl_for_large_data);
  ADD ("model-error-on-a-device", NULL, test_model_error_on_a_device);
  ADD ("no-opencl-platform", NULL, test_no_platform);
#undef ADD
  g_test_add_func ("/run-device/settings-keep-the-device", test_settings_json);
  status = g_test_run ();
  window_test_remove_home ();
  return status;
}
