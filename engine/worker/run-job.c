/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "worker/run-job.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "tilde-frontend.h"
#include "gpu/context.h"
#include "infer/laplace.h"
#include "infer/init.h"
#include "infer/rng.h"
#include "io/json-data.h"
#include "io/stan-csv-read.h"
#include "io/stan-csv-write.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "runtime/gpu-call.h"

G_DEFINE_QUARK (tilde-run-job-error-quark, tilde_run_job_error)

struct TildeRunJob {
  char             *model_name;
  char             *model_text;
  char             *data_text;
  char             *directory;
  TildeRunSettings  settings;

  GMutex            lock;          /* guards run and cancelled */
  TildeSampleRun   *run;
  gboolean          cancelled;
  GCancellable     *cancellable;   /* the optimiser's */

  GPtrArray        *diagnostics;
  GPtrArray        *outputs;       /* char *, NULL-terminated */
  TildeChainResult *chain_results; /* copies, problem and path not owned */
  guint             n_chain_results;
  char            **estimate_names;
  double           *estimates;
  gsize             n_estimates;
};

/* ---- settings ---- */

void
tilde_run_settings_init (TildeRunSettings *settings)
{
  *settings = (TildeRunSettings) { 0 };
  settings->method = TILDE_RUN_SAMPLE;
  settings->level = MIR_OPT_O0;
  settings->context = TILDE_MODEL_CONTEXT_JOINT;
  tilde_sample_options_init (&settings->sample);
  settings->sample.save_warmup = TRUE;
  tilde_optimize_options_init (&settings->optimize);
  settings->optimize.refresh = 0;
  settings->device = (TildeDeviceChoice) { FALSE, -1, -1 };
  settings->use_opencl = FALSE;
}

/* As `--device` takes it: "cpu", "opencl" or "opencl:P:D". */
static char *
device_text (const TildeDeviceChoice *device)
{
  if (!device->opencl)
    return g_strdup ("cpu");
  if (device->platform < 0)
    return g_strdup ("opencl");
  return g_strdup_printf ("opencl:%d:%d", device->platform, device->device);
}

static const char *const method_names[] = { "sample", "optimize" };
static const char *const context_names[] = { "joint", "prior", "likelihood" };
static const char *const level_names[] = { "0", "1", "experimental" };

static int
name_index (const char *const *names, guint n, const char *name)
{
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (names[i], name) == 0)
      return (int) i;
  return -1;
}

char *
tilde_run_settings_to_json (const TildeRunSettings *s)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const TildeSampleOptions *o = &s->sample;
  g_autofree char *device = device_text (&s->device);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "method");
  json_builder_add_string_value (b, method_names[s->method]);
  json_builder_set_member_name (b, "optimization_level");
  json_builder_add_string_value (b, level_names[s->level]);
  json_builder_set_member_name (b, "context");
  json_builder_add_string_value (b, context_names[s->context]);
  json_builder_set_member_name (b, "chains");
  json_builder_add_int_value (b, o->chains);
  json_builder_set_member_name (b, "warmup");
  json_builder_add_int_value (b, o->warmup);
  json_builder_set_member_name (b, "samples");
  json_builder_add_int_value (b, o->samples);
  json_builder_set_member_name (b, "thin");
  json_builder_add_int_value (b, o->thin);
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) o->seed);
  json_builder_set_member_name (b, "adapt_delta");
  json_builder_add_double_value (b, o->adapt_options.delta);
  json_builder_set_member_name (b, "max_depth");
  json_builder_add_int_value (b, o->max_depth);
  json_builder_set_member_name (b, "metric");
  json_builder_add_string_value (b, tilde_metric_kind_name (o->metric));
  json_builder_set_member_name (b, "metric_adaptation");
  json_builder_add_string_value (b, tilde_metric_adaptation_name (o->adapt_options.metric_adaptation));
  json_builder_set_member_name (b, "init_radius");
  json_builder_add_double_value (b, o->init_radius);
  json_builder_set_member_name (b, "save_warmup");
  json_builder_add_boolean_value (b, o->save_warmup);
  json_builder_set_member_name (b, "optimizer");
  json_builder_add_string_value (b, tilde_optimize_algorithm_name (s->optimize.algorithm));
  json_builder_set_member_name (b, "jacobian");
  json_builder_add_boolean_value (b, s->optimize.jacobian);
  json_builder_set_member_name (b, "iter");
  json_builder_add_int_value (b, s->optimize.iter);
  json_builder_set_member_name (b, "laplace_draws");
  json_builder_add_int_value (b, s->laplace_draws);
  json_builder_set_member_name (b, "device");
  json_builder_add_string_value (b, device);
  json_builder_set_member_name (b, "use_opencl");
  json_builder_add_boolean_value (b, s->use_opencl);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

static gboolean
read_uint (JsonObject *obj, const char *key, guint min, guint *out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  gint64 v;

  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_INT64
      || (v = json_node_get_int (node)) < min || v > G_MAXINT32)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "“%s” must be a whole number of at least %u", key, min);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
read_double (JsonObject *obj, const char *key, double *out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  GType type;

  if (node == NULL)
    return TRUE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "“%s” must be a number", key);
      return FALSE;
    }
  *out = json_node_get_double (node);
  return TRUE;
}

static gboolean
read_choice (JsonObject *obj, const char *key, const char *const *names, guint n, int *out,
             GError **error)
{
  const char *text;
  int i;

  if (!json_object_has_member (obj, key))
    return TRUE;
  text = json_object_get_string_member_with_default (obj, key, NULL);
  i = name_index (names, n, text);
  if (i < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "“%s” has an unknown value", key);
      return FALSE;
    }
  *out = i;
  return TRUE;
}

static gboolean
read_named (JsonObject *obj, TildeRunSettings *s, GError **error)
{
  int method = s->method, level = s->level, context = s->context;
  const char *metric = json_object_get_string_member_with_default (obj, "metric", NULL);
  const char *optimizer = json_object_get_string_member_with_default (obj, "optimizer", NULL);
  const char *adaptation = json_object_get_string_member_with_default (obj, "metric_adaptation", NULL);

  if (!read_choice (obj, "method", method_names, G_N_ELEMENTS (method_names), &method, error)
      || !read_choice (obj, "optimization_level", level_names, G_N_ELEMENTS (level_names), &level,
                       error)
      || !read_choice (obj, "context", context_names, G_N_ELEMENTS (context_names), &context, error))
    return FALSE;
  if ((metric && !tilde_metric_kind_parse (metric, &s->sample.metric))
      || (adaptation
          && !tilde_metric_adaptation_parse (adaptation, &s->sample.adapt_options.metric_adaptation))
      || (optimizer && !tilde_optimize_algorithm_from_name (optimizer, &s->optimize.algorithm)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "unknown metric, metric adaptation or optimizer");
      return FALSE;
    }
  s->method = (TildeRunMethod) method;
  s->level = (MirOptLevel) level;
  s->context = (TildeModelContext) context;
  return TRUE;
}

gboolean
tilde_run_settings_from_json (const char *text, TildeRunSettings *s, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  TildeSampleOptions *o = &s->sample;
  JsonObject *obj;
  JsonNode *seed;
  guint iter = (guint) s->optimize.iter;

  if (!json_parser_load_from_data (parser, text, -1, error))
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the run options are not an object");
      return FALSE;
    }
  obj = json_node_get_object (json_parser_get_root (parser));
  if (!read_named (obj, s, error)
      || !read_uint (obj, "chains", 1, &o->chains, error)
      || !read_uint (obj, "warmup", 0, &o->warmup, error)
      || !read_uint (obj, "samples", 0, &o->samples, error)
      || !read_uint (obj, "thin", 1, &o->thin, error)
      || !read_uint (obj, "max_depth", 1, &o->max_depth, error)
      || !read_uint (obj, "iter", 1, &iter, error)
      || !read_uint (obj, "laplace_draws", 0, &s->laplace_draws, error)
      || !read_double (obj, "adapt_delta", &o->adapt_options.delta, error)
      || !read_double (obj, "init_radius", &o->init_radius, error))
    return FALSE;
  s->optimize.iter = (int) iter;
  seed = json_object_get_member (obj, "seed");
  if (seed != NULL && json_node_get_value_type (seed) == G_TYPE_INT64)
    {
      o->seed = (guint64) json_node_get_int (seed);
      o->seed_given = TRUE;
    }
  o->save_warmup = json_object_get_boolean_member_with_default (obj, "save_warmup", o->save_warmup);
  s->optimize.jacobian = json_object_get_boolean_member_with_default (obj, "jacobian",
                                                                      s->optimize.jacobian);
  s->use_opencl = json_object_get_boolean_member_with_default (obj, "use_opencl", s->use_opencl);
  if (json_object_has_member (obj, "device")
      && !tilde_device_choice_parse (json_object_get_string_member_with_default (obj, "device", ""),
                                     &s->device, error))
    return FALSE;
  if (!(o->adapt_options.delta > 0 && o->adapt_options.delta < 1) || !(o->init_radius >= 0))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "adapt_delta or init_radius out of range");
      return FALSE;
    }
  return TRUE;
}

/* ---- the job ---- */

TildeRunJob *
tilde_run_job_new (const char             *model_name,
                   const char             *model_text,
                   const char             *data_text,
                   const char             *directory,
                   const TildeRunSettings *settings)
{
  TildeRunJob *job = g_new0 (TildeRunJob, 1);

  job->model_name = g_strdup (model_name ? model_name : "model");
  job->model_text = g_strdup (model_text ? model_text : "");
  job->data_text = data_text && *data_text ? g_strdup (data_text) : NULL;
  job->directory = g_strdup (directory);
  job->settings = *settings;
  job->settings.sample.inits = NULL;
  g_mutex_init (&job->lock);
  job->cancellable = g_cancellable_new ();
  job->diagnostics = tilde_diagnostic_list_new ();
  job->outputs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (job->outputs, NULL);
  return job;
}

void
tilde_run_job_free (TildeRunJob *job)
{
  if (job == NULL)
    return;
  g_free (job->model_name);
  g_free (job->model_text);
  g_free (job->data_text);
  g_free (job->directory);
  g_mutex_clear (&job->lock);
  g_clear_object (&job->cancellable);
  g_ptr_array_unref (job->diagnostics);
  g_ptr_array_unref (job->outputs);
  for (guint i = 0; i < job->n_chain_results; i++)
    {
      g_free (job->chain_results[i].problem);
      tilde_model_error_free (job->chain_results[i].problem_error);
      g_free (job->chain_results[i].output_path);
    }
  g_free (job->chain_results);
  g_strfreev (job->estimate_names);
  g_free (job->estimates);
  g_free (job);
}

const TildeRunSettings *
tilde_run_job_get_settings (const TildeRunJob *job)
{
  return &job->settings;
}

GPtrArray *
tilde_run_job_get_diagnostics (TildeRunJob *job)
{
  return job->diagnostics;
}

const char *const *
tilde_run_job_get_output_paths (TildeRunJob *job)
{
  return (const char *const *) job->outputs->pdata;
}

const TildeChainResult *
tilde_run_job_get_chain_result (TildeRunJob *job, guint index)
{
  return index < job->n_chain_results ? &job->chain_results[index] : NULL;
}

const double *
tilde_run_job_get_estimates (TildeRunJob *job, const char *const **names, gsize *n)
{
  if (names)
    *names = (const char *const *) job->estimate_names;
  if (n)
    *n = job->n_estimates;
  return job->estimates;
}

void
tilde_run_job_cancel (TildeRunJob *job)
{
  g_mutex_lock (&job->lock);
  job->cancelled = TRUE;
  if (job->run != NULL)
    tilde_sample_run_cancel (job->run);
  g_mutex_unlock (&job->lock);
  g_cancellable_cancel (job->cancellable);
}

static gboolean
is_cancelled (TildeRunJob *job, GError **error)
{
  gboolean cancelled;

  g_mutex_lock (&job->lock);
  cancelled = job->cancelled;
  g_mutex_unlock (&job->lock);
  if (cancelled)
    g_set_error_literal (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_CANCELLED,
                         "The run was stopped.");
  return cancelled;
}

static void
add_output (TildeRunJob *job, const char *path)
{
  job->outputs->pdata[job->outputs->len - 1] = g_strdup (path);
  g_ptr_array_add (job->outputs, NULL);
}

/* ---- compiling ---- */

typedef struct {
  TildeRunJob             *job;
  const TildeRunCallbacks *callbacks;
  gpointer                 user_data;
} Sink;

static void
print_message (const char *text, gpointer data)
{
  Sink *sink = data;

  if (sink->callbacks && sink->callbacks->message)
    sink->callbacks->message (0, text, sink->user_data);
}

static void
copy_errors (GPtrArray *to, GPtrArray *from)
{
  for (guint i = 0; i < from->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (from, i);

      if (tilde_diagnostic_is_error (d))
        g_ptr_array_add (to, tilde_diagnostic_copy (d));
    }
}

static TildeJsonData *
read_data (TildeRunJob *job, GError **error)
{
  g_autoptr(GError) local = NULL;
  TildeJsonData *data;

  if (job->data_text == NULL)
    return tilde_json_data_new_empty ();
  data = tilde_json_data_new_from_string (job->data_text, -1, &local);
  if (data == NULL)
    {
      g_ptr_array_add (job->diagnostics,
                       tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_DATA, "data",
                                             0, 0, 0, 0, local->message));
      g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_DATA,
                   "The data could not be read: %s", local->message);
    }
  return data;
}

static TildeModel *
compile_model (TildeRunJob *job, Sink *sink, GError **error)
{
  g_autofree char *file = g_strconcat (job->model_name, ".stan", NULL);
  g_autoptr(TildeCheckResult) check = NULL;
  g_autoptr(TildeJsonData) data = NULL;
  g_autoptr(GPtrArray) problems = tilde_diagnostic_list_new ();
  MirProgram *lowered, *transformed, *optimized;
  TildeModel *model;

  check = tilde_frontend_check_buffer (file, NULL, job->model_text, -1, NULL);
  if (tilde_check_result_has_errors (check))
    {
      copy_errors (job->diagnostics, tilde_check_result_get_diagnostics (check));
      g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_MODEL,
                   "The model has errors: %s", tilde_check_result_get_first_error (check)->message);
      return NULL;
    }
  data = read_data (job, error);
  if (data == NULL)
    return NULL;
  lowered = mir_lower_program_full (tilde_check_result_get_program (check), job->model_name);
  if (lowered == NULL)
    {
      g_set_error_literal (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_MODEL,
                           "The model could not be lowered to MIR.");
      return NULL;
    }
  transformed = mir_transform_program (lowered);
  optimized = mir_pipeline_run (transformed, job->settings.level, NULL);
  /* the transformed data's random numbers from stream 0 of the run's seed
   * (its chains take 1, 2, ...), as the command line draws them */
  gsl_rng *data_rng = tilde_rng_new_stream (job->settings.sample.seed, 0);
  model = tilde_model_new_with_rng (optimized, data, data_rng, print_message, sink, problems);
  gsl_rng_free (data_rng);
  mir_program_free (optimized);
  mir_program_free (transformed);
  mir_program_free (lowered);
  if (model == NULL)
    {
      const TildeDiagnostic *first = problems->len ? g_ptr_array_index (problems, 0) : NULL;

      copy_errors (job->diagnostics, problems);
      /* a statement's error (transformed data) has its place; the data's
       * problems have none */
      if (first && first->begin_line > 0)
        g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_DATA,
                     "Transformed data failed at line %d: %s", first->begin_line, first->message);
      else
        g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_DATA,
                     "The data do not fit the model: %s", first ? first->message : "");
      return NULL;
    }
  tilde_model_set_context (model, job->settings.context);
  return model;
}

/* ---- the device ---- */

static void
add_device_warning (TildeRunJob *job, const char *message)
{
  g_ptr_array_add (job->diagnostics,
                   tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_RUNTIME, NULL,
                                         0, 0, 0, 0, message));
}

/* The model's GLM statements on the device chosen, as the command line
 * puts them there: whatever cannot be had is a warning, and the CPU path
 * runs the model (or that statement) all the same. */
static void
use_device (TildeRunJob *job, TildeModel *model, Sink *sink)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeGpuDevice) device = NULL;
  g_autoptr(TildeGpuContext) ctx = NULL;
  g_autoptr(GPtrArray) warnings = NULL;
  g_autofree char *text = NULL;
  guint n;

  if (!job->settings.device.opencl)
    return;
  device = tilde_gpu_device_select (&job->settings.device, &error);
  ctx = device ? tilde_gpu_context_new (device, &error) : NULL;
  if (ctx == NULL)
    {
      add_device_warning (job, error->message);
      return;
    }
  warnings = tilde_diagnostic_list_new ();
  n = tilde_model_use_device (model, ctx, job->settings.use_opencl, warnings);
  for (guint i = 0; i < warnings->len; i++)
    g_ptr_array_add (job->diagnostics, tilde_diagnostic_copy (g_ptr_array_index (warnings, i)));
  if (n == 0)
    {
      text = g_strdup_printf ("No statement of the model runs on the OpenCL device '%s' (a GLM "
                              "over data annotated @gpu, or large data with “use OpenCL for "
                              "large data”, puts one there); the model runs on the CPU",
                              device->name);
      add_device_warning (job, text);
      return;
    }
  text = n == 1 ? g_strdup_printf ("1 statement runs on the OpenCL device '%s'.", device->name)
                 : g_strdup_printf ("%u statements run on the OpenCL device '%s'.", n, device->name);
  print_message (text, sink);
}

/* ---- sampling ---- */

static void
on_sample_progress (guint chain, guint iteration, guint total, gboolean warmup, gpointer data)
{
  Sink *sink = data;

  if (sink->callbacks && sink->callbacks->progress)
    sink->callbacks->progress (chain, iteration, total, warmup, sink->user_data);
}

static void
on_sample_draw (guint chain, const double *row, gsize n, gboolean warmup, gpointer data)
{
  Sink *sink = data;

  if (sink->callbacks && sink->callbacks->draw)
    sink->callbacks->draw (chain, row, n, warmup, sink->user_data);
}

static void
on_sample_message (guint chain, TildeSampleMessageKind kind, const char *text, gpointer data)
{
  Sink *sink = data;

  if (sink->callbacks && sink->callbacks->message)
    sink->callbacks->message (chain, text, sink->user_data);
}

/* ---- proposals rejected, by statement ---- */

/* "3 starting points and 69 proposals (29 in warm-up, 40 after it)". */
static char *
rejected_counts (const TildeRejections *r)
{
  guint proposals = r->warmup + r->sampling;
  g_autofree char *starts = r->start == 0 ? NULL
    : g_strdup_printf ("%u starting %s", r->start, r->start == 1 ? "point" : "points");
  g_autofree char *steps = proposals == 0 ? NULL
    : g_strdup_printf ("%u %s (%u in warm-up, %u after it)", proposals,
                       proposals == 1 ? "proposal" : "proposals", r->warmup, r->sampling);

  if (starts && steps)
    return g_strdup_printf ("%s and %s were", starts, steps);
  return g_strdup_printf ("%s %s", starts ? starts : steps,
                          r->start + proposals == 1 ? "was" : "were");
}

/* A warning at each statement whose errors rejected starting points or
 * proposals, in the order of the source: how many, and the first error's
 * message. */
static void
add_rejection_warnings (TildeRunJob *job, TildeSampleRun *run)
{
  g_autoptr(GPtrArray) all = tilde_sample_run_get_rejections (run);

  for (guint i = 0; i < all->len; i++)
    {
      const TildeRejections *r = g_ptr_array_index (all, i);
      g_autofree char *counts = rejected_counts (r);
      g_autofree char *message = g_strdup_printf ("%s rejected here; the first because: %s",
                                                  counts, r->message);

      g_ptr_array_add (job->diagnostics,
                       tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_RUNTIME, r->file,
                                             r->begin_line, r->begin_column, r->end_line,
                                             r->end_column, message));
    }
}

/* The model's error that kept a chain from starting, at its statement. */
static void
add_start_error (TildeRunJob *job, const TildeModelError *error)
{
  if (error == NULL || error->begin_line <= 0)
    return;
  g_autofree char *message = g_strdup_printf ("Initialization failed: %s", error->message);
  g_ptr_array_add (job->diagnostics,
                   tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_RUNTIME, error->file,
                                         error->begin_line, error->begin_column, error->end_line,
                                         error->end_column, message));
}

static void
keep_chain_results (TildeRunJob *job, TildeSampleRun *run)
{
  guint n = tilde_sample_run_get_n_chains (run);

  job->chain_results = g_new0 (TildeChainResult, n);
  job->n_chain_results = n;
  for (guint i = 0; i < n; i++)
    {
      job->chain_results[i] = *tilde_sample_run_get_chain_result (run, i);
      job->chain_results[i].problem = g_strdup (job->chain_results[i].problem);
      if (job->chain_results[i].problem_error)
        job->chain_results[i].problem_error =
          tilde_model_error_copy (job->chain_results[i].problem_error);
      job->chain_results[i].output_path = g_strdup (job->chain_results[i].output_path);
      if (job->chain_results[i].output_path)
        add_output (job, job->chain_results[i].output_path);
    }
  /* one place for the chains that could not start: they all fail alike */
  for (guint i = 0; i < n; i++)
    if (job->chain_results[i].problem_error)
      {
        add_start_error (job, job->chain_results[i].problem_error);
        break;
      }
}

static gboolean
run_sampler (TildeRunJob *job, TildeModel *model, Sink *sink, GError **error)
{
  static const TildeSampleCallbacks callbacks = {
    on_sample_progress, on_sample_draw, on_sample_message
  };
  g_autofree char *output = g_build_filename (job->directory, "output.csv", NULL);
  g_autofree char *name = g_strconcat (job->model_name, "_model", NULL);
  TildeSampleOptions o = job->settings.sample;
  g_autoptr(GError) local = NULL;
  TildeSampleRun *run;
  gboolean ok;

  o.output = output;
  o.model_name = name;
  o.data_file = job->data_text ? "data.json" : "";
  o.compiler_flags = job->settings.level == MIR_OPT_O1 ? "--O1"
                     : job->settings.level == MIR_OPT_EXPERIMENTAL ? "--Oexperimental" : "";
  o.keep_draws = FALSE;
  o.inits = NULL;

  g_mutex_lock (&job->lock);
  run = job->cancelled ? NULL : tilde_sample_run_start (model, &o, &callbacks, sink, &local);
  job->run = run;
  g_mutex_unlock (&job->lock);
  if (run == NULL)
    {
      if (local == NULL)
        return !is_cancelled (job, error);
      g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_FAILED, "%s", local->message);
      return FALSE;
    }
  if (sink->callbacks && sink->callbacks->columns)
    {
      gsize n;
      const char *const *names = tilde_sample_run_get_column_names (run, &n);

      sink->callbacks->columns (names, n, o.chains, tilde_sample_run_get_rows_per_chain (run),
                                sink->user_data);
    }
  ok = tilde_sample_run_wait (run, &local);
  keep_chain_results (job, run);
  add_rejection_warnings (job, run);
  g_mutex_lock (&job->lock);
  job->run = NULL;
  g_mutex_unlock (&job->lock);
  tilde_sample_run_free (run);
  if (ok)
    return TRUE;
  if (g_error_matches (local, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_CANCELLED))
    g_set_error_literal (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_CANCELLED,
                         "The run was stopped.");
  else
    g_set_error (error, TILDE_RUN_JOB_ERROR,
                 g_error_matches (local, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_INIT)
                 ? TILDE_RUN_JOB_ERROR_INIT : TILDE_RUN_JOB_ERROR_FAILED, "%s", local->message);
  return FALSE;
}

/* ---- optimising ---- */

typedef struct {
  Sink           *sink;
  TildeModel     *model;
  TildeCsvWriter *writer;
  gsl_rng        *rng;
  double         *row;
  gsize           n_row;
  guint           made, total;
} Rows;

static void
write_header (TildeCsvWriter *w, const TildeRunJob *job, const char *method)
{
  g_autofree char *name = g_strconcat (job->model_name, "_model", NULL);
  g_autofree char *seed = g_strdup_printf ("%" G_GUINT64_FORMAT, job->settings.sample.seed);

  tilde_csv_writer_config (w, 0, "model", name, FALSE);
  tilde_csv_writer_config (w, 0, "method", method, FALSE);
  if (g_str_equal (method, "optimize"))
    {
      tilde_csv_writer_config (w, 1, "optimize", NULL, FALSE);
      tilde_csv_writer_config (w, 2, "algorithm",
                               tilde_optimize_algorithm_name (job->settings.optimize.algorithm),
                               FALSE);
      tilde_csv_writer_config (w, 2, "jacobian", job->settings.optimize.jacobian ? "true" : "false",
                               !job->settings.optimize.jacobian);
    }
  tilde_csv_writer_config (w, 0, "random", NULL, FALSE);
  tilde_csv_writer_config (w, 1, "seed", seed, FALSE);
}

static void
write_names (TildeCsvWriter *w, TildeModel *model, const char *first, const char *second)
{
  const char *const *names = tilde_model_output_names (model, TRUE, TRUE);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  g_ptr_array_add (all, (gpointer) first);
  if (second)
    g_ptr_array_add (all, (gpointer) second);
  for (const char *const *n = names; *n; n++)
    g_ptr_array_add (all, (gpointer) *n);
  tilde_csv_writer_names (w, (const char *const *) all->pdata, all->len);
}

/* The optimiser and the Laplace sampler pass the rows' user data to their
 * messages too. */
static void
rows_message (const char *text, gpointer data)
{
  print_message (text, ((Rows *) data)->sink);
}

static gboolean
on_mode_row (double lp, const double *theta, gpointer data)
{
  Rows *r = data;
  g_autoptr(TildeModelError) error = NULL;

  r->row[0] = lp;
  if (!tilde_model_constrain (r->model, theta, TRUE, TRUE, r->rng, r->row + 1, &error))
    for (gsize k = 1; k < r->n_row; k++)
      r->row[k] = NAN;
  tilde_csv_writer_row (r->writer, r->row, r->n_row);
  return tilde_csv_writer_flush (r->writer, NULL);
}

static gboolean
on_laplace_row (const double *row, gsize n, const double *theta, gpointer data)
{
  Rows *r = data;
  const TildeRunCallbacks *cb = r->sink->callbacks;

  tilde_csv_writer_row (r->writer, row, n);
  r->made++;
  if (cb && cb->draw)
    cb->draw (1, row, n, FALSE, r->sink->user_data);
  if (cb && cb->progress)
    cb->progress (1, r->made, r->total, FALSE, r->sink->user_data);
  return TRUE;
}

static gboolean
close_writer (TildeCsvWriter *writer, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (tilde_csv_writer_close (writer, &local))
    return TRUE;
  g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_OUTPUT, "%s", local->message);
  return FALSE;
}

static TildeCsvWriter *
open_writer (const char *path, GError **error)
{
  g_autoptr(GError) local = NULL;
  TildeCsvWriter *w = tilde_csv_writer_open (path, -1, &local);

  if (w == NULL)
    g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_OUTPUT, "%s", local->message);
  return w;
}

static void
keep_estimates (TildeRunJob *job, TildeModel *model, const double *row, gsize n)
{
  const char *const *names = tilde_model_output_names (model, TRUE, TRUE);
  GPtrArray *all = g_ptr_array_new ();

  g_ptr_array_add (all, g_strdup ("lp__"));
  for (const char *const *p = names; *p; p++)
    g_ptr_array_add (all, g_strdup (*p));
  g_ptr_array_add (all, NULL);
  job->estimate_names = (char **) g_ptr_array_free (all, FALSE);
  job->estimates = g_memdup2 (row, n * sizeof (double));
  job->n_estimates = n;
}

static gboolean
run_laplace (TildeRunJob *job, TildeModel *model, Sink *sink, const double *mode, gsl_rng *rng,
             GError **error)
{
  g_autofree char *path = g_build_filename (job->directory, "laplace.csv", NULL);
  g_autoptr(GError) local = NULL;
  const TildeRunCallbacks *cb = sink->callbacks;
  Rows rows = { sink, model, NULL, rng, NULL, 0, 0, job->settings.laplace_draws };
  gboolean ok;

  rows.writer = open_writer (path, error);
  if (rows.writer == NULL)
    return FALSE;
  write_header (rows.writer, job, "laplace");
  write_names (rows.writer, model, "log_p__", "log_q__");
  add_output (job, path);
  if (cb && cb->columns)
    {
      const char *const *names = tilde_model_output_names (model, TRUE, TRUE);
      g_autoptr(GPtrArray) all = g_ptr_array_new ();

      g_ptr_array_add (all, (gpointer) "log_p__");
      g_ptr_array_add (all, (gpointer) "log_q__");
      for (const char *const *p = names; *p; p++)
        g_ptr_array_add (all, (gpointer) *p);
      cb->columns ((const char *const *) all->pdata, all->len, 1, job->settings.laplace_draws,
                   sink->user_data);
    }
  ok = tilde_laplace_sample (model, mode, job->settings.optimize.jacobian,
                             (int) job->settings.laplace_draws, 0, rng, on_laplace_row,
                             rows_message, &rows, job->cancellable, &local);
  if (!close_writer (rows.writer, error))
    return FALSE;
  if (!ok && !is_cancelled (job, error))
    g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_FAILED, "%s", local->message);
  return ok;
}

/* Where the optimiser starts: as sampling's initialisation finds a point,
 * judged as CmdStan's optimize method judges it (no Jacobian). */
static gboolean
initial_point (TildeRunJob *job, TildeModel *model, Sink *sink, gsl_rng *rng, double *theta,
               GError **error)
{
  g_autofree double *gradient = g_new0 (double, MAX (tilde_model_num_params_unconstrained (model), 1));
  g_autofree char *problem = NULL;
  TildeInitOptions options;
  double lp;

  g_autoptr(TildeModelError) fatal = NULL;

  tilde_init_options_init (&options);
  options.jacobian = FALSE;
  options.report_timing = FALSE;
  options.fatal = &fatal;
  if (tilde_init_find_with (model, NULL, job->settings.sample.init_radius, rng, &options, theta,
                            &lp, gradient, print_message, sink, &problem))
    return TRUE;
  add_start_error (job, fatal);
  g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_INIT, "%s",
               problem ? problem : "Initialization failed.");
  return FALSE;
}

static gboolean
run_optimizer (TildeRunJob *job, TildeModel *model, Sink *sink, GError **error)
{
  g_autofree char *path = g_build_filename (job->directory, "optimize.csv", NULL);
  gsize n = tilde_model_num_params_unconstrained (model);
  g_autofree double *theta0 = g_new0 (double, MAX (n, 1));
  TildeOptimizeResult result = { 0 };
  TildeOptimizeCallbacks callbacks;
  Rows rows = { sink, model, NULL, NULL, NULL, 0, 0, 0 };
  gboolean ok;

  if (n == 0)
    {
      g_set_error_literal (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_FAILED,
                           "The model has no parameters: there is nothing to optimize.");
      return FALSE;
    }
  rows.rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rows.rng, (unsigned long) job->settings.sample.seed);
  if (!initial_point (job, model, sink, rows.rng, theta0, error))
    {
      gsl_rng_free (rows.rng);
      return FALSE;
    }
  rows.writer = open_writer (path, error);
  if (rows.writer == NULL)
    {
      gsl_rng_free (rows.rng);
      return FALSE;
    }
  write_header (rows.writer, job, "optimize");
  write_names (rows.writer, model, "lp__", NULL);
  add_output (job, path);
  rows.n_row = 1 + tilde_model_num_outputs (model, TRUE, TRUE);
  rows.row = g_new0 (double, rows.n_row);
  callbacks = (TildeOptimizeCallbacks) { rows_message, on_mode_row, &rows, job->cancellable };
  ok = tilde_optimize_run (model, theta0, &job->settings.optimize, &callbacks, &result);
  if (!close_writer (rows.writer, error))
    ok = FALSE;
  else if (result.outcome == TILDE_OPTIMIZE_CANCELLED)
    is_cancelled (job, error);
  else if (!ok)
    g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_FAILED, "%s",
                 result.message ? result.message : "The optimization failed.");
  if (result.theta != NULL)
    keep_estimates (job, model, rows.row, rows.n_row);
  if (ok && job->settings.laplace_draws > 0)
    ok = run_laplace (job, model, sink, result.theta, rows.rng, error);
  tilde_optimize_result_clear (&result);
  g_free (rows.row);
  gsl_rng_free (rows.rng);
  return ok;
}

gboolean
tilde_run_job_run (TildeRunJob *job, const TildeRunCallbacks *callbacks, gpointer user_data,
                   GError **error)
{
  Sink sink = { job, callbacks, user_data };
  g_autoptr(TildeModel) model = NULL;
  g_autoptr(GPtrArray) failures = NULL;
  gboolean ok;

  if (is_cancelled (job, error))
    return FALSE;
  if (g_mkdir_with_parents (job->directory, 0755) != 0)
    {
      g_set_error (error, TILDE_RUN_JOB_ERROR, TILDE_RUN_JOB_ERROR_OUTPUT,
                   "The folder %s could not be made: %s", job->directory, g_strerror (errno));
      return FALSE;
    }
  model = compile_model (job, &sink, error);
  if (model == NULL || is_cancelled (job, error))
    return FALSE;
  use_device (job, model, &sink);
  if (is_cancelled (job, error))
    return FALSE;
  if (job->settings.method == TILDE_RUN_OPTIMIZE)
    ok = run_optimizer (job, model, &sink, error);
  else
    ok = run_sampler (job, model, &sink, error);
  /* kernels that failed on the way: warnings in the problems list */
  failures = tilde_model_take_device_failures (model);
  for (guint i = 0; i < failures->len; i++)
    g_ptr_array_add (job->diagnostics, tilde_diagnostic_copy (g_ptr_array_index (failures, i)));
  return ok;
}

/* ---- summaries ---- */

TildeSummary *
tilde_run_summarize_files (const char *const *paths, GError **error)
{
  static const double probs[] = { 0.05, 0.5, 0.95 };
  g_autoptr(GPtrArray) chains = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_stan_csv_free);

  for (const char *const *p = paths; *p; p++)
    {
      TildeStanCsv *csv = tilde_stan_csv_read_file (*p, error);

      if (csv == NULL)
        return NULL;
      if (csv->n_draws == 0)
        tilde_stan_csv_free (csv);
      else
        g_ptr_array_add (chains, csv);
    }
  if (chains->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "No chain has a draw after warm-up.");
      return NULL;
    }
  return tilde_summary_new ((TildeStanCsv *const *) chains->pdata, chains->len, probs,
                            G_N_ELEMENTS (probs), error);
}
