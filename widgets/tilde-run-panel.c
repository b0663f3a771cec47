/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "tilde-export.h"
#include "tilde-problems-list.h"
#include "tilde-run-panel.h"
#include "tilde-weak-ref.h"
#include "gpu/device.h"

struct _TildeRunPanel
{
  GtkWidget           parent_instance;

  /* Template children */
  GtkWidget          *scrolled;
  GtkDropDown        *method;
  GtkWidget          *sample_grid;
  GtkWidget          *optimize_grid;
  GtkSpinButton      *chains;
  GtkSpinButton      *warmup;
  GtkSpinButton      *samples;
  GtkSpinButton      *thin;
  GtkSpinButton      *adapt_delta;
  GtkSpinButton      *max_depth;
  GtkDropDown        *metric;
  GtkDropDown        *metric_adaptation;
  GtkSwitch          *save_warmup;
  GtkDropDown        *optimizer;
  GtkSwitch          *jacobian;
  GtkSpinButton      *laplace_draws;
  GtkSpinButton      *seed;
  GtkSpinButton      *init_radius;
  GtkDropDown        *context;
  GtkDropDown        *level;
  GtkDropDown        *device;
  GtkStringList      *device_list;
  GtkSwitch          *use_opencl;
  GtkLabel           *folder_name;
  GtkLabel           *status_label;
  GtkWidget          *progress_box;
  GtkWidget          *log_expander;
  GtkLabel           *log_label;
  TildeProblemsList  *problems_list;

  TildeRunController *controller;
  TildeEditor        *editor;
  TildeDataPanel     *data_panel;
  GSettings          *settings;
  GPtrArray          *device_ids;
  GArray             *device_usable; /* gboolean, one per id */
  gboolean            listing;       /* the devices are being listed or were */
  gboolean            devices_listed;
  GPtrArray          *bars;          /* GtkProgressBar, one per chain */
  char               *runs_folder;   /* without :settings; NULL: the cache folder */
  char               *untitled_name; /* what runs of an untitled model are named */
  gint64              started;
};

G_DEFINE_FINAL_TYPE (TildeRunPanel, tilde_run_panel, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_CONTROLLER,
  PROP_EDITOR,
  PROP_DATA_PANEL,
  PROP_SETTINGS,
  PROP_DEVICES_LISTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *const method_choices[] = { "sample", "optimize", NULL };
static const char *const metric_choices[] = { "diag", "dense", "unit", NULL };
static const char *const metric_adaptation_choices[] = { "stan", "gradients", NULL };
static const char *const optimizer_choices[] = { "lbfgs", "bfgs", "newton", NULL };
static const char *const context_choices[] = { "joint", "prior", "likelihood", NULL };
static const char *const level_choices[] = { "0", "1", "experimental", NULL };

static void show_device (TildeRunPanel *self, const TildeDeviceChoice *device);

/* ---- the options ---- */

static int
spin_int (GtkSpinButton *spin)
{
  return gtk_spin_button_get_value_as_int (spin);
}

void
tilde_run_panel_get_run_settings (TildeRunPanel *self, TildeRunSettings *s)
{
  static const TildeMetricKind metrics[] = { TILDE_METRIC_DIAG, TILDE_METRIC_DENSE,
                                             TILDE_METRIC_UNIT };
  static const TildeOptimizeAlgorithm optimizers[] = { TILDE_OPTIMIZE_LBFGS, TILDE_OPTIMIZE_BFGS,
                                                       TILDE_OPTIMIZE_NEWTON };
  guint metric = MIN (gtk_drop_down_get_selected (self->metric), 2);
  guint optimizer = MIN (gtk_drop_down_get_selected (self->optimizer), 2);
  int seed = spin_int (self->seed);

  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  tilde_run_settings_init (s);
  s->method = gtk_drop_down_get_selected (self->method) == 1 ? TILDE_RUN_OPTIMIZE : TILDE_RUN_SAMPLE;
  s->level = (MirOptLevel) MIN (gtk_drop_down_get_selected (self->level), 2);
  s->context = (TildeModelContext) MIN (gtk_drop_down_get_selected (self->context), 2);
  s->sample.chains = (guint) MAX (spin_int (self->chains), 1);
  s->sample.warmup = (guint) MAX (spin_int (self->warmup), 0);
  s->sample.samples = (guint) MAX (spin_int (self->samples), 0);
  s->sample.thin = (guint) MAX (spin_int (self->thin), 1);
  s->sample.adapt_options.delta = gtk_spin_button_get_value (self->adapt_delta);
  s->sample.max_depth = (guint) MAX (spin_int (self->max_depth), 1);
  s->sample.metric = metrics[metric];
  /* the unit metric has nothing to adapt */
  if (s->sample.metric != TILDE_METRIC_UNIT
      && gtk_drop_down_get_selected (self->metric_adaptation) == 1)
    s->sample.adapt_options.metric_adaptation = TILDE_METRIC_ADAPTATION_GRADIENTS;
  s->sample.save_warmup = gtk_switch_get_active (self->save_warmup);
  s->sample.init_radius = gtk_spin_button_get_value (self->init_radius);
  if (seed >= 0)
    {
      s->sample.seed = (guint64) seed;
      s->sample.seed_given = TRUE;
    }
  s->optimize.algorithm = optimizers[optimizer];
  s->optimize.jacobian = gtk_switch_get_active (self->jacobian);
  s->laplace_draws = (guint) MAX (spin_int (self->laplace_draws), 0);
  if (!tilde_device_choice_parse (tilde_run_panel_get_device (self), &s->device, NULL))
    s->device = (TildeDeviceChoice) { FALSE, -1, -1 };
  s->use_opencl = s->device.opencl && gtk_switch_get_active (self->use_opencl);
}

void
tilde_run_panel_set_run_settings (TildeRunPanel *self, const TildeRunSettings *s)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  gtk_drop_down_set_selected (self->method, s->method == TILDE_RUN_OPTIMIZE);
  gtk_drop_down_set_selected (self->level, s->level);
  gtk_drop_down_set_selected (self->context, s->context);
  gtk_spin_button_set_value (self->chains, s->sample.chains);
  gtk_spin_button_set_value (self->warmup, s->sample.warmup);
  gtk_spin_button_set_value (self->samples, s->sample.samples);
  gtk_spin_button_set_value (self->thin, s->sample.thin);
  gtk_spin_button_set_value (self->adapt_delta, s->sample.adapt_options.delta);
  gtk_spin_button_set_value (self->max_depth, s->sample.max_depth);
  gtk_drop_down_set_selected (self->metric, s->sample.metric == TILDE_METRIC_DENSE ? 1
                                            : s->sample.metric == TILDE_METRIC_UNIT ? 2 : 0);
  gtk_drop_down_set_selected (self->metric_adaptation, s->sample.adapt_options.metric_adaptation
                                                       == TILDE_METRIC_ADAPTATION_GRADIENTS);
  gtk_switch_set_active (self->save_warmup, s->sample.save_warmup);
  gtk_spin_button_set_value (self->init_radius, s->sample.init_radius);
  gtk_spin_button_set_value (self->seed, s->sample.seed_given ? (double) s->sample.seed : -1);
  gtk_drop_down_set_selected (self->optimizer, s->optimize.algorithm);
  gtk_switch_set_active (self->jacobian, s->optimize.jacobian);
  gtk_spin_button_set_value (self->laplace_draws, s->laplace_draws);
  show_device (self, &s->device);
  if (s->device.opencl)
    gtk_switch_set_active (self->use_opencl, s->use_opencl);
}

static void
method_changed (TildeRunPanel *self)
{
  gboolean optimize = gtk_drop_down_get_selected (self->method) == 1;

  gtk_widget_set_visible (self->sample_grid, !optimize);
  gtk_widget_set_visible (self->optimize_grid, optimize);
}

/* The unit metric has nothing to adapt. */
static void
metric_changed (TildeRunPanel *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->metric_adaptation),
                            gtk_drop_down_get_selected (self->metric) != 2);
}

/* ---- devices ---- */

static guint
device_index (TildeRunPanel *self, const char *id)
{
  for (guint i = 0; i < self->device_ids->len; i++)
    if (g_str_equal (g_ptr_array_index (self->device_ids, i), id))
      return i;
  return G_MAXUINT;
}

static gboolean
device_usable (TildeRunPanel *self, guint i)
{
  return i < self->device_usable->len && g_array_index (self->device_usable, gboolean, i);
}

/* A device without double precision is listed, but not chosen for a saved
 * choice: the run would only warn and fall back to the CPU. */
static void
add_item (TildeRunPanel *self, const char *id, const char *label, gboolean usable)
{
  g_ptr_array_add (self->device_ids, g_strdup (id));
  g_array_append_val (self->device_usable, usable);
  gtk_string_list_append (self->device_list, label);
  if (self->settings && usable)
    {
      g_autofree char *chosen = g_settings_get_string (self->settings, "run-device");

      if (g_str_equal (chosen, id))
        gtk_drop_down_set_selected (self->device, self->device_ids->len - 1);
    }
}

void
tilde_run_panel_add_device (TildeRunPanel *self, const char *id, const char *label)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  add_item (self, id, label, TRUE);
}

const char *
tilde_run_panel_get_device (TildeRunPanel *self)
{
  guint i = gtk_drop_down_get_selected (self->device);

  return i < self->device_ids->len ? g_ptr_array_index (self->device_ids, i) : "cpu";
}

/* An opened run's device, when this machine lists it; the CPU otherwise. */
static void
show_device (TildeRunPanel *self, const TildeDeviceChoice *device)
{
  g_autofree char *id = device->opencl && device->platform >= 0
                        ? g_strdup_printf ("opencl:%d:%d", device->platform, device->device)
                        : NULL;
  guint i = id ? device_index (self, id) : 0;

  if (device->opencl && device->platform < 0)
    for (i = 1; i < self->device_ids->len && !device_usable (self, i); i++)
      ;
  gtk_drop_down_set_selected (self->device,
                              i < self->device_ids->len && device_usable (self, i) ? i : 0);
}

static char *
device_label (const TildeGpuDevice *d)
{
  if (d->fp64)
    /* TRANSLATORS: an OpenCL device in the run panel: its name, its platform */
    return g_strdup_printf (_("%s · %s · double precision"), d->name, d->platform_name);
  return g_strdup_printf (_("%s · %s · no double precision, not usable"), d->name,
                          d->platform_name);
}

static void
list_devices_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *devices = tilde_gpu_devices_list (&error);

  if (devices == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, devices, (GDestroyNotify) g_ptr_array_unref);
}

static void
devices_listed (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(TildeRunPanel) self = g_weak_ref_get (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) devices = g_task_propagate_pointer (G_TASK (result), &error);

  tilde_weak_ref_free (data);
  if (self == NULL)
    return;
  if (devices == NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->device), error->message);
  for (guint i = 0; devices && i < devices->len; i++)
    {
      const TildeGpuDevice *d = g_ptr_array_index (devices, i);
      g_autofree char *id = g_strdup_printf ("opencl:%u:%u", d->platform_index, d->device_index);
      g_autofree char *label = device_label (d);

      add_item (self, id, label, d->fp64);
    }
  self->devices_listed = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEVICES_LISTED]);
}

void
tilde_run_panel_list_devices (TildeRunPanel *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  if (self->listing)
    return;
  self->listing = TRUE;
  task = g_task_new (NULL, NULL, devices_listed, tilde_weak_ref_new (self));
  g_task_set_name (task, "tilde-list-devices");
  g_task_run_in_thread (task, list_devices_thread);
}

gboolean
tilde_run_panel_get_devices_listed (TildeRunPanel *self)
{
  g_return_val_if_fail (TILDE_IS_RUN_PANEL (self), FALSE);
  return self->devices_listed;
}

/* "Use OpenCL for large data" only means something on a device. */
static void
device_changed (TildeRunPanel *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->use_opencl),
                            gtk_drop_down_get_selected (self->device) > 0);
}

/* Items ellipsized (device names are long); a device that cannot run a
 * model is shown dimmed and cannot be picked from the list. */
static void
setup_device_item (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_item_set_child (item, label);
}

static void
bind_device_item (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  TildeRunPanel *self = data;
  GtkStringObject *string = gtk_list_item_get_item (item);
  gboolean usable = device_usable (self, gtk_list_item_get_position (item));
  GtkWidget *label = gtk_list_item_get_child (item);

  gtk_label_set_text (GTK_LABEL (label), gtk_string_object_get_string (string));
  gtk_widget_set_tooltip_text (label, gtk_string_object_get_string (string));
  gtk_widget_set_sensitive (label, usable);
  gtk_list_item_set_activatable (item, usable);
  gtk_list_item_set_selectable (item, usable);
}

static void
set_device_factory (TildeRunPanel *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (setup_device_item), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_device_item), self);
  gtk_drop_down_set_factory (self->device, factory);
}

/* ---- the runs folder ---- */

static char *
chosen_folder (TildeRunPanel *self)
{
  if (self->settings)
    {
      char *folder = g_settings_get_string (self->settings, "run-folder");

      if (*folder)
        return folder;
      g_free (folder);
      return NULL;
    }
  return g_strdup (self->runs_folder);
}

static void
show_folder (TildeRunPanel *self)
{
  g_autofree char *folder = chosen_folder (self);
  g_autofree char *shown = folder ? g_filename_display_name (folder) : NULL;

  gtk_label_set_text (self->folder_name, shown ? shown : _("The cache folder"));
}

static void
folder_chosen (GFile *file, gpointer data)
{
  TildeRunPanel *self = data;
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    {
      if (self->settings)
        g_settings_set_string (self->settings, "run-folder", path);
      g_free (self->runs_folder);
      self->runs_folder = g_strdup (path);
      show_folder (self);
    }
  g_object_unref (self);
}

static void
choose_folder_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_export_choose (widget, _("Folder for Runs"), NULL, TRUE, TRUE, NULL, folder_chosen,
                       g_object_ref (widget));
}

/* ---- settings ---- */

static gboolean
choice_to_index (GValue *value, GVariant *variant, gpointer data)
{
  const char *const *choices = data;
  const char *text = g_variant_get_string (variant, NULL);

  for (guint i = 0; choices[i]; i++)
    if (g_str_equal (choices[i], text))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
index_to_choice (const GValue *value, const GVariantType *type, gpointer data)
{
  const char *const *choices = data;
  guint i = g_value_get_uint (value);

  return i < g_strv_length ((char **) choices) ? g_variant_new_string (choices[i]) : NULL;
}

/* A saved device not listed (not yet, or not any more) shows the CPU. */
static gboolean
device_to_index (GValue *value, GVariant *variant, gpointer data)
{
  TildeRunPanel *self = data;
  guint i = device_index (self, g_variant_get_string (variant, NULL));

  g_value_set_uint (value, device_usable (self, i) ? i : 0);
  return TRUE;
}

static GVariant *
index_to_device (const GValue *value, const GVariantType *type, gpointer data)
{
  TildeRunPanel *self = data;
  guint i = g_value_get_uint (value);

  return i < self->device_ids->len ? g_variant_new_string (g_ptr_array_index (self->device_ids, i))
                                   : NULL;
}

static void
bind_choice (TildeRunPanel *self, const char *key, GtkDropDown *drop, const char *const *choices)
{
  g_settings_bind_with_mapping (self->settings, key, drop, "selected", G_SETTINGS_BIND_DEFAULT,
                                choice_to_index, index_to_choice, (gpointer) choices, NULL);
}

static void
bind_settings (TildeRunPanel *self)
{
  static const struct { const char *key; gsize offset; const char *property; } plain[] = {
    { "run-chains", G_STRUCT_OFFSET (TildeRunPanel, chains), "value" },
    { "run-warmup", G_STRUCT_OFFSET (TildeRunPanel, warmup), "value" },
    { "run-samples", G_STRUCT_OFFSET (TildeRunPanel, samples), "value" },
    { "run-thin", G_STRUCT_OFFSET (TildeRunPanel, thin), "value" },
    { "run-seed", G_STRUCT_OFFSET (TildeRunPanel, seed), "value" },
    { "run-adapt-delta", G_STRUCT_OFFSET (TildeRunPanel, adapt_delta), "value" },
    { "run-max-depth", G_STRUCT_OFFSET (TildeRunPanel, max_depth), "value" },
    { "run-init-radius", G_STRUCT_OFFSET (TildeRunPanel, init_radius), "value" },
    { "run-laplace-draws", G_STRUCT_OFFSET (TildeRunPanel, laplace_draws), "value" },
    { "run-save-warmup", G_STRUCT_OFFSET (TildeRunPanel, save_warmup), "active" },
    { "run-jacobian", G_STRUCT_OFFSET (TildeRunPanel, jacobian), "active" },
    { "run-use-opencl", G_STRUCT_OFFSET (TildeRunPanel, use_opencl), "active" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    g_settings_bind (self->settings, plain[i].key,
                     G_STRUCT_MEMBER (gpointer, self, plain[i].offset), plain[i].property,
                     G_SETTINGS_BIND_DEFAULT);
  bind_choice (self, "run-method", self->method, method_choices);
  bind_choice (self, "run-metric", self->metric, metric_choices);
  bind_choice (self, "run-metric-adaptation", self->metric_adaptation, metric_adaptation_choices);
  bind_choice (self, "run-optimizer", self->optimizer, optimizer_choices);
  bind_choice (self, "run-context", self->context, context_choices);
  bind_choice (self, "optimization-level", self->level, level_choices);
  g_settings_bind_with_mapping (self->settings, "run-device", self->device, "selected",
                                G_SETTINGS_BIND_DEFAULT, device_to_index, index_to_device, self,
                                NULL);
}

static void
unbind_settings (TildeRunPanel *self)
{
  GtkWidget *widgets[] = {
    GTK_WIDGET (self->chains), GTK_WIDGET (self->warmup), GTK_WIDGET (self->samples),
    GTK_WIDGET (self->thin), GTK_WIDGET (self->seed), GTK_WIDGET (self->adapt_delta),
    GTK_WIDGET (self->max_depth), GTK_WIDGET (self->init_radius),
    GTK_WIDGET (self->laplace_draws),
  };

  for (guint i = 0; i < G_N_ELEMENTS (widgets); i++)
    g_settings_unbind (widgets[i], "value");
  g_settings_unbind (self->save_warmup, "active");
  g_settings_unbind (self->jacobian, "active");
  g_settings_unbind (self->use_opencl, "active");
  g_settings_unbind (self->method, "selected");
  g_settings_unbind (self->metric, "selected");
  g_settings_unbind (self->metric_adaptation, "selected");
  g_settings_unbind (self->optimizer, "selected");
  g_settings_unbind (self->context, "selected");
  g_settings_unbind (self->level, "selected");
  g_settings_unbind (self->device, "selected");
}

GSettings *
tilde_run_panel_get_settings (TildeRunPanel *self)
{
  return self->settings;
}

void
tilde_run_panel_set_settings (TildeRunPanel *self, GSettings *settings)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  if (self->settings == settings)
    return;
  if (self->settings)
    unbind_settings (self);
  g_set_object (&self->settings, settings);
  if (self->settings)
    bind_settings (self);
  show_folder (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

/* ---- progress ---- */

static char *
format_seconds (double seconds)
{
  int s = (int) ceil (seconds);

  if (s >= 3600)
    return g_strdup_printf ("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return g_strdup_printf ("%d:%02d", s / 60, s % 60);
}

/* A run's or a finished chain's time: milliseconds below a second (a
 * small model's chains take a few), hundredths of a second below ten,
 * tenths below a minute. */
static char *
format_duration (double seconds)
{
  if (seconds < 0.001)
    return g_strdup (_("under 1 ms"));
  if (seconds < 1)
    return g_strdup_printf (_("%.0f ms"), 1000 * seconds);
  if (seconds < 10)
    return g_strdup_printf (_("%.2f s"), seconds);
  if (seconds < 60)
    return g_strdup_printf (_("%.1f s"), seconds);
  return format_seconds (seconds);
}

static char *
progress_text (guint chain, const TildeChainProgress *p, gboolean optimize)
{
  const char *phase;
  g_autofree char *left = NULL;
  g_autofree char *rate = NULL;

  switch (p->phase)
    {
    case TILDE_CHAIN_PHASE_WARMUP: phase = _("Warm-up"); break;
    case TILDE_CHAIN_PHASE_SAMPLING: phase = optimize ? _("Laplace draws") : _("Sampling"); break;
    case TILDE_CHAIN_PHASE_DONE: phase = _("Done"); break;
    default: return g_strdup_printf (_("Chain %u · waiting"), chain + 1);
    }
  GString *text = g_string_new (NULL);
  g_string_printf (text, _("Chain %u · %s %u/%u"), chain + 1, phase, p->iteration, p->total);
  if (p->phase == TILDE_CHAIN_PHASE_DONE)
    {
      /* a finished chain's time, not a rate that would go on falling */
      g_autofree char *took = format_duration (p->seconds);
      g_string_append_printf (text, " · %s", took);
      return g_string_free (text, FALSE);
    }
  if (p->per_second > 0)
    {
      rate = g_strdup_printf (_("%.0f draws/s"), p->per_second);
      g_string_append_printf (text, " · %s", rate);
    }
  if (p->seconds_left > 0)
    {
      g_autofree char *clock = format_seconds (p->seconds_left);
      left = g_strdup_printf (_("%s left"), clock);
      g_string_append_printf (text, " · %s", left);
    }
  return g_string_free (text, FALSE);
}

static void
clear_bars (TildeRunPanel *self)
{
  for (guint i = 0; i < self->bars->len; i++)
    gtk_box_remove (GTK_BOX (self->progress_box), g_ptr_array_index (self->bars, i));
  g_ptr_array_set_size (self->bars, 0);
}

static void
update_progress (TildeRunPanel *self)
{
  guint n = tilde_run_controller_get_n_chains (self->controller);
  gboolean optimize = tilde_run_controller_get_settings (self->controller)->method
                      == TILDE_RUN_OPTIMIZE;

  while (self->bars->len < n)
    {
      GtkWidget *bar = gtk_progress_bar_new ();

      gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (bar), TRUE);
      gtk_progress_bar_set_ellipsize (GTK_PROGRESS_BAR (bar), PANGO_ELLIPSIZE_END);
      gtk_box_append (GTK_BOX (self->progress_box), bar);
      g_ptr_array_add (self->bars, bar);
    }
  for (guint c = 0; c < self->bars->len; c++)
    {
      GtkProgressBar *bar = g_ptr_array_index (self->bars, c);
      TildeChainProgress p;
      g_autofree char *text = NULL;

      tilde_run_controller_get_progress (self->controller, c, &p);
      text = progress_text (c, &p, optimize);
      gtk_progress_bar_set_fraction (bar, p.total ? (double) p.iteration / p.total : 0);
      gtk_progress_bar_set_text (bar, text);
    }
}

static void
update_actions (TildeRunPanel *self)
{
  gboolean running = self->controller && tilde_run_controller_get_running (self->controller);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "run-panel.run",
                                 !running && self->controller && self->editor);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "run-panel.stop", running);
}

static void
running_changed (TildeRunPanel *self)
{
  update_actions (self);
  if (tilde_run_controller_get_running (self->controller))
    {
      self->started = g_get_monotonic_time ();
      clear_bars (self);
      gtk_widget_set_visible (self->log_expander, FALSE);
      gtk_label_set_text (self->status_label, _("Compiling and starting…"));
    }
}

/* The sampler's and the model's messages, the last lines of a long log. */
static void
show_log (TildeRunPanel *self)
{
  const char *log = tilde_run_controller_get_log (self->controller);
  gsize len = strlen (log);
  const char *shown = len > 8192 ? g_utf8_find_next_char (log + len - 8192, NULL) : log;

  gtk_label_set_text (self->log_label, shown ? shown : "");
  gtk_widget_set_visible (self->log_expander, len > 0);
}

/* An optimisation's line: the log density at the mode (the estimates'
 * lp__), and the Laplace draws when there are any. */
static char *
optimum_text (TildeRunPanel *self, const char *took, guint n_draws)
{
  const char *const *names = NULL;
  gsize n = 0;
  const double *estimates = tilde_run_controller_get_estimates (self->controller, &names, &n);
  g_autofree char *at_mode = NULL;

  for (gsize i = 0; i < n && at_mode == NULL; i++)
    if (g_str_equal (names[i], "lp__"))
      at_mode = g_strdup_printf (_("Finished in %s: lp__ is %.6g at the optimum."), took,
                                 estimates[i]);
  if (at_mode == NULL)
    at_mode = g_strdup_printf (_("Finished in %s."), took);
  if (n_draws == 0)
    return g_steal_pointer (&at_mode);
  return g_strdup_printf (ngettext ("%s %u draw from the Laplace approximation.",
                                    "%s %u draws from the Laplace approximation.", n_draws),
                          at_mode, n_draws);
}

static void
run_finished (TildeRunPanel *self, const GError *error)
{
  GListModel *problems = tilde_run_controller_get_problems (self->controller);
  double seconds = (g_get_monotonic_time () - self->started) / 1e6;
  g_autofree char *took = format_duration (seconds);
  g_autofree char *text = NULL;
  TildeDraws *draws = tilde_run_controller_get_draws (self->controller);
  guint n_draws = 0;

  for (guint c = 0; draws && c < tilde_draws_get_n_chains (draws); c++)
    n_draws += tilde_draws_get_n_draws (draws, c) - tilde_draws_get_n_warmup (draws, c);
  if (error == NULL && tilde_run_controller_get_estimates (self->controller, NULL, NULL))
    text = optimum_text (self, took, n_draws);
  else if (error == NULL)
    text = g_strdup_printf (_("Finished in %s: %u draws after warm-up."), took, n_draws);
  else if (g_error_matches (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_CANCELLED))
    text = g_strdup_printf (_("Stopped after %s; the %u draws made so far are kept."), took,
                            n_draws);
  else
    text = g_strdup_printf (_("The run failed: %s"), error->message);
  gtk_label_set_text (self->status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->problems_list),
                          g_list_model_get_n_items (problems) > 0);
  show_log (self);
}

TildeRunController *
tilde_run_panel_get_controller (TildeRunPanel *self)
{
  return self->controller;
}

void
tilde_run_panel_set_controller (TildeRunPanel *self, TildeRunController *controller)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  if (self->controller == controller)
    return;
  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_set_object (&self->controller, controller);
  clear_bars (self);
  if (controller)
    {
      g_signal_connect_swapped (controller, "progress", G_CALLBACK (update_progress), self);
      g_signal_connect_swapped (controller, "notify::running", G_CALLBACK (running_changed), self);
      g_signal_connect_swapped (controller, "finished", G_CALLBACK (run_finished), self);
      tilde_problems_list_set_problems (self->problems_list,
                                        tilde_run_controller_get_problems (controller));
    }
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONTROLLER]);
}

GtkProgressBar *
tilde_run_panel_get_progress_bar (TildeRunPanel *self, guint chain)
{
  return chain < self->bars->len ? g_ptr_array_index (self->bars, chain) : NULL;
}

const char *
tilde_run_panel_get_status (TildeRunPanel *self)
{
  g_return_val_if_fail (TILDE_IS_RUN_PANEL (self), NULL);
  return gtk_label_get_text (self->status_label);
}

/* ---- running ---- */

static char *
buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static char *
model_name (TildeRunPanel *self)
{
  GFile *file = tilde_editor_get_file (self->editor);
  g_autofree char *base = file ? g_file_get_basename (file) : NULL;

  if (base == NULL)
    return g_strdup (self->untitled_name ? self->untitled_name : "model");
  if (g_str_has_suffix (base, ".stan"))
    base[strlen (base) - 5] = '\0';
  return g_steal_pointer (&base);
}

void
tilde_run_panel_set_untitled_name (TildeRunPanel *self, const char *name)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  g_free (self->untitled_name);
  self->untitled_name = name && *name ? g_strdup (name) : NULL;
}

gboolean
tilde_run_panel_run (TildeRunPanel *self)
{
  g_autofree char *text = NULL;
  g_autofree char *data = NULL;
  g_autofree char *name = NULL;
  TildeRunSettings settings;

  g_return_val_if_fail (TILDE_IS_RUN_PANEL (self), FALSE);
  if (self->controller == NULL || self->editor == NULL
      || tilde_run_controller_get_running (self->controller))
    return FALSE;
  tilde_run_panel_get_run_settings (self, &settings);
  text = buffer_text (GTK_TEXT_BUFFER (tilde_editor_get_buffer (self->editor)));
  if (self->data_panel)
    data = buffer_text (GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (self->data_panel)));
  name = model_name (self);
  if (self->settings || self->runs_folder)
    {
      g_autofree char *folder = chosen_folder (self);

      tilde_run_controller_set_runs_folder (self->controller, folder);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->problems_list), FALSE);
  return tilde_run_controller_start (self->controller, name, text, data, &settings);
}

static void
run_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_run_panel_run (TILDE_RUN_PANEL (widget));
}

static void
stop_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeRunPanel *self = TILDE_RUN_PANEL (widget);

  if (self->controller)
    tilde_run_controller_stop (self->controller);
}

/* A run's problem in the model takes the editor's cursor there. */
static void
problem_activated (TildeRunPanel *self, TildeProblem *problem)
{
  tilde_run_panel_go_to_problem (self, problem);
}

gboolean
tilde_run_panel_go_to_problem (TildeRunPanel *self, TildeProblem *problem)
{
  const TildeDiagnostic *d = tilde_problem_get_diagnostic (problem);

  g_return_val_if_fail (TILDE_IS_RUN_PANEL (self), FALSE);
  /* the data file's problems have no place in the model */
  if (self->editor == NULL || d->begin_line < 1
      || (d->kind == TILDE_DIAG_DATA && (d->file == NULL || g_str_equal (d->file, "data"))))
    return FALSE;
  /* the statement selected, the cursor at its start */
  tilde_editor_select_range (self->editor, d->begin_line, d->begin_column,
                             d->end_line > 0 ? d->end_line : d->begin_line,
                             d->end_line > 0 ? d->end_column : d->begin_column);
  gtk_widget_grab_focus (GTK_WIDGET (tilde_editor_get_view (self->editor)));
  return TRUE;
}

/* ---- the object ---- */

TildeEditor *
tilde_run_panel_get_editor (TildeRunPanel *self)
{
  return self->editor;
}

void
tilde_run_panel_set_editor (TildeRunPanel *self, TildeEditor *editor)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  if (g_set_object (&self->editor, editor))
    {
      update_actions (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITOR]);
    }
}

TildeDataPanel *
tilde_run_panel_get_data_panel (TildeRunPanel *self)
{
  return self->data_panel;
}

void
tilde_run_panel_set_data_panel (TildeRunPanel *self, TildeDataPanel *data_panel)
{
  g_return_if_fail (TILDE_IS_RUN_PANEL (self));
  if (g_set_object (&self->data_panel, data_panel))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATA_PANEL]);
}

static void
tilde_run_panel_dispose (GObject *object)
{
  TildeRunPanel *self = TILDE_RUN_PANEL (object);

  if (self->settings)
    unbind_settings (self);
  g_clear_object (&self->settings);
  if (self->controller)
    g_signal_handlers_disconnect_by_data (self->controller, self);
  g_clear_object (&self->controller);
  g_clear_object (&self->editor);
  g_clear_object (&self->data_panel);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_RUN_PANEL);
  G_OBJECT_CLASS (tilde_run_panel_parent_class)->dispose (object);
}

static void
tilde_run_panel_finalize (GObject *object)
{
  TildeRunPanel *self = TILDE_RUN_PANEL (object);

  g_ptr_array_unref (self->device_ids);
  g_array_unref (self->device_usable);
  g_ptr_array_unref (self->bars);
  g_free (self->runs_folder);
  g_free (self->untitled_name);
  G_OBJECT_CLASS (tilde_run_panel_parent_class)->finalize (object);
}

static void
tilde_run_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeRunPanel *self = TILDE_RUN_PANEL (object);

  switch (prop_id)
    {
    case PROP_CONTROLLER:
      g_value_set_object (value, self->controller);
      break;
    case PROP_EDITOR:
      g_value_set_object (value, self->editor);
      break;
    case PROP_DATA_PANEL:
      g_value_set_object (value, self->data_panel);
      break;
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    case PROP_DEVICES_LISTED:
      g_value_set_boolean (value, self->devices_listed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_panel_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  TildeRunPanel *self = TILDE_RUN_PANEL (object);

  switch (prop_id)
    {
    case PROP_CONTROLLER:
      tilde_run_panel_set_controller (self, g_value_get_object (value));
      break;
    case PROP_EDITOR:
      tilde_run_panel_set_editor (self, g_value_get_object (value));
      break;
    case PROP_DATA_PANEL:
      tilde_run_panel_set_data_panel (self, g_value_get_object (value));
      break;
    case PROP_SETTINGS:
      tilde_run_panel_set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_run_panel_class_init (TildeRunPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_run_panel_dispose;
  object_class->finalize = tilde_run_panel_finalize;
  object_class->get_property = tilde_run_panel_get_property;
  object_class->set_property = tilde_run_panel_set_property;

  properties[PROP_CONTROLLER] =
    g_param_spec_object ("controller", NULL, NULL, TILDE_TYPE_RUN_CONTROLLER,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EDITOR] =
    g_param_spec_object ("editor", NULL, NULL, TILDE_TYPE_EDITOR,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DATA_PANEL] =
    g_param_spec_object ("data-panel", NULL, NULL, TILDE_TYPE_DATA_PANEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DEVICES_LISTED] =
    g_param_spec_boolean ("devices-listed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "run-panel.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "run-panel.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "run-panel.choose-folder", NULL,
                                   choose_folder_action);

  g_type_ensure (TILDE_TYPE_PROBLEMS_LIST);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/tilde/Workbench/ui/tilde-run-panel.ui");
  gtk_widget_class_set_css_name (widget_class, "runpanel");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, TildeRunPanel, name)
  BIND (scrolled);
  BIND (method);
  BIND (sample_grid);
  BIND (optimize_grid);
  BIND (chains);
  BIND (warmup);
  BIND (samples);
  BIND (thin);
  BIND (adapt_delta);
  BIND (max_depth);
  BIND (metric);
  BIND (metric_adaptation);
  BIND (save_warmup);
  BIND (optimizer);
  BIND (jacobian);
  BIND (laplace_draws);
  BIND (seed);
  BIND (init_radius);
  BIND (context);
  BIND (level);
  BIND (device);
  BIND (device_list);
  BIND (use_opencl);
  BIND (folder_name);
  BIND (status_label);
  BIND (progress_box);
  BIND (log_expander);
  BIND (log_label);
  BIND (problems_list);
#undef BIND
}

static void
tilde_run_panel_init (TildeRunPanel *self)
{
  TildeRunSettings defaults;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->device_ids = g_ptr_array_new_with_free_func (g_free);
  self->device_usable = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->bars = g_ptr_array_new ();
  set_device_factory (self);
  add_item (self, "cpu", _("CPU"), TRUE);
  tilde_run_settings_init (&defaults);
  defaults.sample.seed_given = FALSE;
  tilde_run_panel_set_run_settings (self, &defaults);
  g_signal_connect_swapped (self->method, "notify::selected", G_CALLBACK (method_changed), self);
  g_signal_connect_swapped (self->metric, "notify::selected", G_CALLBACK (metric_changed), self);
  g_signal_connect_swapped (self->device, "notify::selected", G_CALLBACK (device_changed), self);
  g_signal_connect_swapped (self->problems_list, "problem-activated",
                            G_CALLBACK (problem_activated), self);
  method_changed (self);
  metric_changed (self);
  device_changed (self);
  update_actions (self);
  show_folder (self);
}

GtkWidget *
tilde_run_panel_new (void)
{
  return g_object_new (TILDE_TYPE_RUN_PANEL, NULL);
}
