/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde compile`: check a model like stanc and print the forms asked for. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "tilde-engine.h"
#include "tilde-frontend.h"
#include "tilde-diagnostic-render.h"
#include "tilde-info.h"
#include "gpu/plan.h"
#include "io/generate-data.h"
#include "mir/mir-lower.h"
#include "mir/mir-mem-pattern.h"
#include "mir/mir-print.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "syntax/printer.h"

typedef struct {
  char    *name;
  char    *output;
  char    *include_paths;
  char    *canonicalize;
  int      max_line_length;
  gboolean allow_undefined;
  gboolean standalone_functions;
  gboolean warn_pedantic;
  gboolean warn_uninitialized;
  gboolean auto_format;
  gboolean print_canonical;
  gboolean info;
  gboolean json_diagnostics;
  gboolean version;
  gboolean debug_mir;
  gboolean debug_transformed_mir;
  gboolean debug_mem_patterns;
  gboolean use_opencl;
  gboolean debug_optimized_mir;
  gboolean debug_passes;
  gboolean debug_generate_data;
  gboolean o0, o1, oexperimental;
  char    *filename_in_msg;
  char   **files;
} CompileOptions;

static void
compile_options_clear (CompileOptions *o)
{
  g_free (o->name);
  g_free (o->output);
  g_free (o->include_paths);
  g_free (o->canonicalize);
  g_free (o->filename_in_msg);
  g_strfreev (o->files);
}

static GOptionContext *
compile_option_context (CompileOptions *o)
{
  const GOptionEntry entries[] = {
    { "name", 0, 0, G_OPTION_ARG_STRING, &o->name,
      N_("Name of the model (default: the file name without .stan)"), N_("NAME") },
    { "o", 0, 0, G_OPTION_ARG_FILENAME, &o->output,
      N_("Write the output to FILE instead of standard output"), N_("FILE") },
    { "include-paths", 0, 0, G_OPTION_ARG_STRING, &o->include_paths,
      N_("Comma-separated directories searched by #include"), N_("DIRS") },
    { "allow-undefined", 0, 0, G_OPTION_ARG_NONE, &o->allow_undefined,
      N_("Accept function declarations without definitions"), NULL },
    { "standalone-functions", 0, 0, G_OPTION_ARG_NONE, &o->standalone_functions,
      N_("Accepted for compatibility with stanc (Tilde generates no C++)"), NULL },
    { "warn-pedantic", 0, 0, G_OPTION_ARG_NONE, &o->warn_pedantic,
      N_("Warn about likely mistakes in the model"), NULL },
    { "warn-uninitialized", 0, 0, G_OPTION_ARG_NONE, &o->warn_uninitialized,
      N_("Warn about variables used before they are assigned"), NULL },
    { "auto-format", 0, 0, G_OPTION_ARG_NONE, &o->auto_format,
      N_("Print the model formatted in the Stan style"), NULL },
    { "print-canonical", 0, 0, G_OPTION_ARG_NONE, &o->print_canonical,
      N_("Print the model formatted and with every canonicalization applied"), NULL },
    { "canonicalize", 0, 0, G_OPTION_ARG_STRING, &o->canonicalize,
      N_("With --auto-format: deprecations, parentheses, braces, includes"), N_("LIST") },
    { "max-line-length", 0, 0, G_OPTION_ARG_INT, &o->max_line_length,
      N_("Line length the formatter aims for (default 78)"), N_("N") },
    { "info", 0, 0, G_OPTION_ARG_NONE, &o->info,
      N_("Print the model's variables and the functions it uses as JSON"), NULL },
    { "json-diagnostics", 0, 0, G_OPTION_ARG_NONE, &o->json_diagnostics,
      N_("Print errors and warnings as a JSON array on standard output"), NULL },
    { "filename-in-msg", 0, 0, G_OPTION_ARG_STRING, &o->filename_in_msg,
      N_("The file name messages show for the main file"), N_("NAME") },
    { "debug-mir-pretty", 0, 0, G_OPTION_ARG_NONE, &o->debug_mir,
      N_("Print the MIR lowered from the model"), NULL },
    { "debug-transformed-mir-pretty", 0, 0, G_OPTION_ARG_NONE, &o->debug_transformed_mir,
      N_("Print the MIR with data reading, constraints and outputs made explicit"), NULL },
    { "debug-mem-patterns", 0, 0, G_OPTION_ARG_NONE, &o->debug_mem_patterns,
      N_("Print whether each matrix or vector is struct-of-arrays or array-of-structs, and why; "
         "with @gpu data or --use-opencl, also where each data variable lives (host or OpenCL "
         "device) and why"), NULL },
    { "use-opencl", 0, 0, G_OPTION_ARG_NONE, &o->use_opencl,
      N_("Let the compiler put large design matrices of GLM statements, and large data vectors "
         "of elementwise sums and normal densities, on the OpenCL device (see "
         "--debug-mem-patterns)"), NULL },
    { "debug-optimized-mir-pretty", 0, 0, G_OPTION_ARG_NONE, &o->debug_optimized_mir,
      N_("Print the MIR after the optimisation passes of the chosen level"), NULL },
    { "debug-passes", 0, 0, G_OPTION_ARG_NONE, &o->debug_passes,
      N_("Print the MIR after every optimisation pass that changed it"), NULL },
    { "debug-generate-data", 0, 0, G_OPTION_ARG_NONE, &o->debug_generate_data,
      N_("Print random JSON data that satisfies the data block's declarations"), NULL },
    { "O0", 0, 0, G_OPTION_ARG_NONE, &o->o0,
      N_("No optimisation (the default)"), NULL },
    { "O1", 0, 0, G_OPTION_ARG_NONE, &o->o1,
      N_("Optimisations that are always safe and cheap"), NULL },
    { "Oexperimental", 0, 0, G_OPTION_ARG_NONE, &o->oexperimental,
      N_("All optimisations, including the experimental ones"), NULL },
    { "O", 0, 0, G_OPTION_ARG_NONE, &o->oexperimental,
      N_("The same as --Oexperimental"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o->version,
      N_("Print the version"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->files, NULL, N_("MODEL.stan") },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("MODEL.stan"));

  g_option_context_set_summary (context, _("Checks a Stan model as stanc does: errors and warnings "
                                           "on standard error, exit status 0 when it compiles, 1 "
                                           "when it does not, 124 for bad usage."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_help_enabled (context, TRUE);
  return context;
}

/* --name, or the file's base name without ".stan" followed by "_model", as stanc
 * names models. */
static char *
model_name_for (const CompileOptions *o)
{
  g_autofree char *base = NULL;
  char *dot;

  if (o->name != NULL)
    return g_strdup (o->name);
  base = g_path_get_basename (o->files[0]);
  dot = strrchr (base, '.');
  if (dot != NULL)
    *dot = '\0';
  return g_strconcat (base, "_model", NULL);
}

/* Writes TEXT to --o=FILE or standard output. */
static int
emit (const CompileOptions *o, const char *text)
{
  g_autoptr(GError) error = NULL;

  if (o->output == NULL)
    {
      fputs (text, stdout);
      return TILDE_EXIT_OK;
    }
  if (!g_file_set_contents (o->output, text, -1, &error))
    {
      g_printerr (_("Error: could not write '%s': %s\n"), o->output, error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  return TILDE_EXIT_OK;
}

int
_tilde_cli_compile (const char *name, int argc, char **argv)
{
  CompileOptions o = { .max_line_length = 78 };
  g_autoptr(GOptionContext) context = compile_option_context (&o);
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeCheckResult) result = NULL;
  g_auto(GStrv) include_paths = NULL;
  TildeFrontendOptions options = { 0 };
  TildeFormatOptions format;
  MirOptLevel level;
  GPtrArray *diagnostics;
  int status = TILDE_EXIT_OK;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde compile: %s\n", error->message);
      compile_options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (o.version)
    {
      g_print ("tilde %s (Stan language %s)\n", tilde_engine_version (), tilde_engine_stan_version ());
      compile_options_clear (&o);
      return TILDE_EXIT_OK;
    }
  if (o.o0 + o.o1 + o.oexperimental > 1)
    {
      g_printerr (_("tilde compile: choose one of --O0, --O1 and --Oexperimental\n"));
      compile_options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  level = o.oexperimental ? MIR_OPT_EXPERIMENTAL : o.o1 ? MIR_OPT_O1 : MIR_OPT_O0;
  tilde_format_options_init (&format);
  if (o.max_line_length > 0)
    format.max_line_length = o.max_line_length;
  if (o.print_canonical)
    format.canonicalize = TILDE_CANONICALIZE_ALL;
  if (o.canonicalize != NULL && !tilde_format_parse_canonicalize (o.canonicalize, &format, &error))
    {
      g_printerr ("tilde compile: --canonicalize: %s\n", error->message);
      compile_options_clear (&o);
      return TILDE_EXIT_USAGE;
    }
  if (o.files == NULL || g_strv_length (o.files) != 1)
    {
      g_printerr (_("tilde compile: give exactly one model file (see tilde compile --help)\n"));
      compile_options_clear (&o);
      return TILDE_EXIT_USAGE;
    }

  if (o.include_paths != NULL)
    include_paths = g_strsplit (o.include_paths, ",", -1);
  options.include_paths = (const char *const *) include_paths;
  options.allow_undefined = o.allow_undefined;
  /* --standalone-functions asks stanc for C++ of the functions alone; Tilde
   * writes no C++, so the whole model is checked as usual. */
  options.functions_only = g_str_has_suffix (o.files[0], ".stanfunctions");
  options.pedantic = o.warn_pedantic;
  options.warn_uninitialized = o.warn_uninitialized;

  if (o.filename_in_msg != NULL)
    {
      /* Read it here so messages can name the file as asked. */
      g_autofree char *text = NULL;
      gsize length;

      if (g_file_get_contents (o.files[0], &text, &length, NULL))
        {
          g_autofree char *dir = g_path_get_dirname (o.files[0]);
          result = tilde_frontend_check_buffer (o.filename_in_msg, dir, text, (gssize) length, &options);
        }
    }
  else
    result = tilde_frontend_check_file (o.files[0], &options, &error);
  if (result == NULL)
    {
      g_printerr (_("Error: file '%s' not found or cannot be opened\n"), o.files[0]);
      compile_options_clear (&o);
      return TILDE_EXIT_MODEL_ERROR;
    }
  diagnostics = tilde_check_result_get_diagnostics (result);

  if (o.json_diagnostics)
    {
      g_autofree char *json = tilde_diagnostics_to_json (diagnostics);
      g_print ("%s\n", json);
    }
  else
    {
      /* Warnings first, then the first error alone, as stanc prints them;
       * with a semantic error, the type checker's warnings go unprinted
       * as stanc's do (they belong to a result it does not give). */
      gboolean semantic_error = FALSE;
      for (guint i = 0; i < diagnostics->len; i++)
        {
          const TildeDiagnostic *d = g_ptr_array_index (diagnostics, i);
          semantic_error |= tilde_diagnostic_is_error (d) && d->kind == TILDE_DIAG_SEMANTIC;
        }
      for (guint i = 0; i < diagnostics->len && !semantic_error; i++)
        {
          const TildeDiagnostic *d = g_ptr_array_index (diagnostics, i);
          if (!tilde_diagnostic_is_error (d))
            {
              g_autofree char *text = tilde_diagnostic_render_with_sources (d, tilde_check_result_get_sources (result));
              g_printerr ("%s", text);
            }
        }
      for (guint i = 0; i < diagnostics->len; i++)
        {
          const TildeDiagnostic *d = g_ptr_array_index (diagnostics, i);
          if (tilde_diagnostic_is_error (d))
            {
              g_autofree char *text = tilde_diagnostic_render_with_sources (d, tilde_check_result_get_sources (result));
              g_printerr ("%s", text);
              break;
            }
        }
    }
  if (tilde_check_result_has_errors (result))
    {
      compile_options_clear (&o);
      return TILDE_EXIT_MODEL_ERROR;
    }

  if (o.debug_generate_data)
    {
      g_autofree char *problem = NULL;
      g_autofree char *json = tilde_generate_data (tilde_check_result_get_program (result), 1,
                                                   &problem);
      if (json == NULL)
        {
          g_printerr (_("Error: cannot generate data: %s\n"), problem);
          status = TILDE_EXIT_MODEL_ERROR;
        }
      else
        status = emit (&o, json);
    }
  else if (o.debug_mir || o.debug_transformed_mir || o.debug_mem_patterns
      || o.debug_optimized_mir || o.debug_passes)
    {
      g_autofree char *model_name = model_name_for (&o);
      MirProgram *mir = mir_lower_program_full (tilde_check_result_get_program (result), model_name);
      MirProgram *transformed = NULL;
      g_autoptr(GString) out = g_string_new (NULL);

      if (mir == NULL)
        {
          g_printerr (_("Internal compiler error: the model could not be lowered to MIR.\n"));
          compile_options_clear (&o);
          return TILDE_EXIT_INTERNAL;
        }
      if (o.debug_mir)
        {
          g_autofree char *text = mir_print_program (mir, MIR_PRINT_DEFAULT, NULL);
          g_string_append (out, text);
        }
      if (o.debug_transformed_mir || o.debug_mem_patterns || o.debug_optimized_mir || o.debug_passes)
        transformed = mir_transform_program (mir);
      if (o.debug_transformed_mir)
        {
          g_autofree char *text = mir_print_program (transformed, MIR_PRINT_DEFAULT, NULL);
          g_string_append (out, text);
        }
      if (o.debug_optimized_mir || o.debug_passes)
        {
          g_autoptr(GPtrArray) snapshots = NULL;
          MirProgram *optimized = mir_pipeline_run (transformed, level,
                                                    o.debug_passes ? &snapshots : NULL);

          if (o.debug_passes)
            {
              g_autofree char *text = mir_pipeline_debug_text (snapshots);
              g_string_append (out, text);
            }
          if (o.debug_optimized_mir)
            {
              g_autofree char *text = mir_print_program (optimized, MIR_PRINT_DEFAULT, NULL);
              g_string_append (out, text);
            }
          mir_program_free (optimized);
        }
      if (o.debug_mem_patterns)
        {
          g_autofree char *text = mir_mem_patterns_explain (transformed);
          g_string_append (out, text);
          if (o.use_opencl || tilde_gpu_program_has_annotations (transformed))
            {
              g_autoptr (TildeGpuPlan) plan = tilde_gpu_plan_new (transformed, o.use_opencl);
              g_autofree char *where = tilde_gpu_plan_report (plan);
              g_string_append (out, where);
            }
        }
      g_clear_pointer (&transformed, mir_program_free);
      mir_program_free (mir);
      status = emit (&o, out->str);
    }
  else if (o.info)
    {
      g_autofree char *json = tilde_program_info_json (tilde_check_result_get_program (result));
      g_autofree char *text = g_strconcat (json, "\n", NULL);
      status = emit (&o, text);
    }
  else if (o.auto_format || o.print_canonical || o.canonicalize != NULL)
    {
      g_autofree char *formatted = tilde_format_program (tilde_check_result_get_program (result),
                                                         &format);
      /* stanc ends the output with one more newline. */
      g_autofree char *text = g_strconcat (formatted, "\n", NULL);
      status = emit (&o, text);
    }
  compile_options_clear (&o);
  return status;
}
