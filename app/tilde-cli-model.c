/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the running subcommands share: a model file and its data made into an
 * executable model, with every problem reported the way `compile` reports it. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "tilde-diagnostic-render.h"
#include "tilde-frontend.h"
#include "infer/rng.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "gpu/context.h"
#include "runtime/gpu-call.h"

static void
print_diagnostics (GPtrArray *diagnostics, TildeSourceSet *sources)
{
  for (guint i = 0; i < diagnostics->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (diagnostics, i);
      g_autofree char *text = sources ? tilde_diagnostic_render_with_sources (d, sources)
                                      : g_strdup_printf ("%s\n", d->message);

      g_printerr ("%s", text);
    }
}

/* Standard output carries the command's own result (JSON, the gradient
 * table): the model's print() lines go to standard error. */
static void
print_to_stderr (const char *text, gpointer user_data)
{
  g_printerr ("%s\n", text);
}

gboolean
_tilde_cli_usage_error (const char *command, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("tilde %s: %s\n", command, text);
  return FALSE;
}

char *
_tilde_cli_model_name (const char *model_path)
{
  g_autofree char *base = g_path_get_basename (model_path);

  if (g_str_has_suffix (base, ".stan"))
    base[strlen (base) - strlen (".stan")] = '\0';
  return g_strconcat (base, "_model", NULL);
}

/* --device, --use-opencl and --debug-opencl, shared by the running
 * subcommands (one per process). */
static struct {
  char    *device;
  gboolean use_opencl;
  gboolean debug_opencl;
} device_options;

GOptionGroup *
_tilde_cli_device_option_group (void)
{
  static const GOptionEntry entries[] = {
    { "device", 0, 0, G_OPTION_ARG_STRING, &device_options.device,
      N_("Where log densities run: cpu (the default), opencl or opencl:PLATFORM:DEVICE "
         "(see `tilde devices`)"), N_("DEVICE") },
    { "use-opencl", 0, 0, G_OPTION_ARG_NONE, &device_options.use_opencl,
      N_("Put large design matrices of GLM statements, and large data vectors of elementwise "
         "sums and normal densities, on the OpenCL device without @gpu (implies --device "
         "opencl)"), NULL },
    { "debug-opencl", 0, 0, G_OPTION_ARG_NONE, &device_options.debug_opencl,
      N_("Print the generated OpenCL source of each kernel on standard error"), NULL },
    { NULL }
  };
  GOptionGroup *group = g_option_group_new ("device", _("Device options:"),
                                            _("Show the OpenCL device options"), NULL, NULL);
  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  return group;
}

/* ---- reading the model ---- */

static char *include_paths_option;

GOptionGroup *
_tilde_cli_model_option_group (void)
{
  static const GOptionEntry entries[] = {
    { "include-paths", 0, 0, G_OPTION_ARG_STRING, &include_paths_option,
      N_("Comma-separated directories searched by #include, as stanc's option (the model's "
         "own directory first)"), N_("DIRS") },
    { NULL }
  };
  GOptionGroup *group = g_option_group_new ("model", _("Model options:"),
                                            _("Show the options for reading the model"), NULL,
                                            NULL);
  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  return group;
}

static void
print_source (const char *what, const char *source, gpointer user_data)
{
  g_printerr ("// OpenCL kernel for %s\n%s\n", what, source);
}

/* The model's GLM statements on the device asked for. A device that cannot
 * be had is a warning: the CPU path runs the model all the same. */
static gboolean
use_device (TildeModel *model, int *status)
{
  g_autoptr (GError) error = NULL;
  TildeDeviceChoice choice;
  if (!tilde_device_choice_parse (device_options.device, &choice, &error))
    {
      g_printerr ("tilde: %s\n", error->message);
      *status = TILDE_EXIT_USAGE;
      return FALSE;
    }
  if (device_options.use_opencl && device_options.device == NULL)
    choice.opencl = TRUE;
  if (!choice.opencl)
    return TRUE;
  g_autoptr (TildeGpuDevice) device = tilde_gpu_device_select (&choice, &error);
  g_autoptr (TildeGpuContext) ctx = device ? tilde_gpu_context_new (device, &error) : NULL;
  if (!ctx)
    {
      g_printerr (_("Warning: %s\n"), error->message);
      return TRUE;
    }
  if (device_options.debug_opencl)
    tilde_gpu_context_set_source_func (ctx, print_source, NULL);
  g_autoptr (GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  guint n = tilde_model_use_device (model, ctx, device_options.use_opencl, diagnostics);
  for (guint i = 0; i < diagnostics->len; i++)
    g_printerr (_("Warning: %s\n"), ((TildeDiagnostic *) g_ptr_array_index (diagnostics, i))->message);
  if (n == 0)
    g_printerr (_("Warning: no statement of the model runs on the OpenCL device '%s' (a GLM or "
                  "an elementwise sum or normal density over data annotated @gpu, or "
                  "--use-opencl, puts one there)\n"), device->name);
  return TRUE;
}

void
_tilde_cli_report_device_failures (TildeModel *model)
{
  g_autoptr (GPtrArray) failures = tilde_model_take_device_failures (model);
  for (guint i = 0; i < failures->len; i++)
    g_printerr (_("Warning: %s\n"), ((TildeDiagnostic *) g_ptr_array_index (failures, i))->message);
}

TildeModel *
_tilde_cli_load_model (const char  *model_path,
                       const char  *data_path,
                       MirOptLevel  level,
                       guint64      seed,
                       int         *status)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeCheckResult) result = NULL;
  g_autoptr(TildeJsonData) data = NULL;
  g_autoptr(GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  MirProgram *lowered, *transformed, *optimized;
  TildeModel *model;

  g_auto(GStrv) include_paths = include_paths_option
                                ? g_strsplit (include_paths_option, ",", -1) : NULL;
  TildeFrontendOptions options = { 0 };

  /* as CmdStan builds a model: its own directory searched by #include too */
  options.include_paths = (const char *const *) include_paths;
  options.search_own_directory = TRUE;
  result = tilde_frontend_check_file (model_path, &options, &error);
  if (result == NULL)
    {
      g_printerr (_("Error: file '%s' not found or cannot be opened\n"), model_path);
      *status = TILDE_EXIT_MODEL_ERROR;
      return NULL;
    }
  if (tilde_check_result_has_errors (result))
    {
      g_autofree char *text = tilde_check_result_render_first_error (result);
      g_printerr ("%s", text);
      *status = TILDE_EXIT_MODEL_ERROR;
      return NULL;
    }

  if (data_path != NULL)
    {
      data = tilde_json_data_new_from_file (data_path, &error);
      if (data == NULL)
        {
          g_printerr (_("Error reading data file '%s': %s\n"), data_path, error->message);
          *status = TILDE_EXIT_MODEL_ERROR;
          return NULL;
        }
    }

  lowered = mir_lower_program (tilde_check_result_get_program (result));
  if (lowered == NULL)
    {
      g_printerr (_("Internal compiler error: the model could not be lowered to MIR.\n"));
      *status = TILDE_EXIT_INTERNAL;
      return NULL;
    }
  transformed = mir_transform_program (lowered);
  optimized = mir_pipeline_run (transformed, level, NULL);
  gsl_rng *rng = tilde_rng_new_stream (seed, 0);
  model = tilde_model_new_with_rng (optimized, data, rng, print_to_stderr, NULL, diagnostics);
  gsl_rng_free (rng);
  mir_program_free (optimized);
  mir_program_free (transformed);
  mir_program_free (lowered);
  if (model == NULL)
    {
      print_diagnostics (diagnostics, tilde_check_result_get_sources (result));
      *status = TILDE_EXIT_MODEL_ERROR;
      return NULL;
    }
  *status = TILDE_EXIT_OK;
  if (!use_device (model, status))
    {
      tilde_model_free (model);
      return NULL;
    }
  return model;
}

gboolean
_tilde_cli_parse_level (gboolean o0, gboolean o1, gboolean oexperimental, MirOptLevel *level)
{
  if (o0 + o1 + oexperimental > 1)
    {
      g_printerr (_("tilde: choose one of --O0, --O1 and --Oexperimental\n"));
      return FALSE;
    }
  *level = oexperimental ? MIR_OPT_EXPERIMENTAL : o1 ? MIR_OPT_O1 : MIR_OPT_O0;
  return TRUE;
}

gboolean
_tilde_cli_parse_context (const char *text, TildeModelContext *context)
{
  static const char *const names[] = { "joint", "prior", "likelihood" };

  *context = TILDE_MODEL_CONTEXT_JOINT;
  if (text == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (text, names[i]))
      {
        *context = (TildeModelContext) i;
        return TRUE;
      }
  return FALSE;
}

void
_tilde_cli_append_double (GString *out, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    g_string_append (out, "\"NaN\"");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "\"inf\"" : "\"-inf\"");
  else
    g_string_append (out, g_ascii_dtostr (buffer, sizeof buffer, value));
}
