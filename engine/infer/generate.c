/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Generated quantities over the draws of a Stan CSV file. A draw is read
 * back through the model's own transform_inits (the values by name, as an
 * init file gives them), so every constraint is undone exactly as the
 * sampler's initialisation would. */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/param-json-private.h"
#include "infer/rng.h"
#include "infer/run-private.h"
#include "io/json-data.h"
#include "tilde-engine.h"

G_DEFINE_QUARK (tilde-generate-error-quark, tilde_generate_error)

/* Where the file keeps each of the model's parameter values. */
typedef struct {
  TildeParamJson *json;
  gsize           n_params;   /* the model's constrained parameter values */
  int            *columns;    /* the file's column of each, in the model's order */
  int             digits;     /* the significant digits its values were printed with */
} ParamLayout;

static void
layout_clear (ParamLayout *layout)
{
  g_clear_pointer (&layout->json, _tilde_param_json_free);
  g_clear_pointer (&layout->columns, g_free);
}

static gboolean
mismatch (const TildeStanCsv *csv, GError **error, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* CmdStan's words, then what does not fit. */
static gboolean
mismatch (const TildeStanCsv *csv, GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *detail = NULL;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_MISMATCH,
               "Mismatch between model and fitted_parameters csv file \"%s\": %s", csv->name, detail);
  return FALSE;
}

/* A column of the file named like an element of a parameter that the
 * model's parameter has not: the sizes differ. */
static gboolean
check_extra_elements (const ParamLayout *layout, const char *const *names,
                      const TildeStanCsv *csv, GError **error)
{
  for (guint j = 0; j < csv->n_columns; j++)
    {
      const char *column = csv->column_names[j];
      gsize base_length = strcspn (column, ".:");

      if (g_strv_contains (names, column))
        continue;
      for (guint v = 0; v < _tilde_param_json_n_vars (layout->json); v++)
        {
          const char *var = _tilde_param_json_var_name (layout->json, v);
          if (strlen (var) == base_length && strncmp (var, column, base_length) == 0)
            return mismatch (csv, error, "column \"%s\" is not an element of the model's "
                             "parameter %s", column, var);
        }
    }
  return TRUE;
}

static gboolean
layout_init (ParamLayout *layout, TildeModel *model, const TildeStanCsv *csv, GError **error)
{
  const char *const *names = tilde_model_output_names (model, FALSE, FALSE);

  const char *sig_figs = tilde_stan_csv_setting (csv, "output.sig_figs");
  int digits = sig_figs ? atoi (sig_figs) : -1;

  /* -1 is the stream's default, 6 */
  layout->digits = digits > 0 ? MIN (digits, 18) : 6;
  layout->n_params = tilde_model_num_outputs (model, FALSE, FALSE);
  layout->json = _tilde_param_json_new (model);
  if (layout->json == NULL)
    return mismatch (csv, error, "the model's parameters cannot be read back by name");
  layout->columns = g_new (int, MAX (layout->n_params, 1));
  for (gsize k = 0; k < layout->n_params; k++)
    {
      layout->columns[k] = tilde_stan_csv_column (csv, names[k]);
      if (layout->columns[k] < 0)
        return mismatch (csv, error, "it has no column \"%s\"", names[k]);
    }
  return check_extra_elements (layout, names, csv, error);
}

/* ---- one draw as an init file ---- */

static void
draw_to_json (GString *out, const ParamLayout *layout, const double *row, double *constrained)
{
  for (gsize k = 0; k < layout->n_params; k++)
    constrained[k] = row[layout->columns[k]];
  g_string_truncate (out, 0);
  g_string_append_c (out, '{');
  for (guint v = 0; v < _tilde_param_json_n_vars (layout->json); v++)
    {
      if (v > 0)
        g_string_append_c (out, ',');
      _tilde_param_json_append (layout->json, v, constrained, out);
    }
  g_string_append_c (out, '}');
}

static gboolean
unconstrain_draw (TildeModel *model, const TildeStanCsv *csv, const ParamLayout *layout,
                  guint i, GString *json, double *constrained, double *theta, GError **error)
{
  g_autoptr(TildeJsonData) inits = NULL;
  g_autoptr(TildeModelError) model_error = NULL;
  g_autoptr(GError) json_error = NULL;

  draw_to_json (json, layout, csv->draws + (gsize) i * csv->n_columns, constrained);
  inits = tilde_json_data_new_from_string (json->str, (gssize) json->len, &json_error);
  if (inits == NULL)
    {
      g_set_error (error, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_DRAW, "%s:%u: %s",
                   csv->name, csv->draw_lines[i], json_error->message);
      return FALSE;
    }
  if (!tilde_model_unconstrain_rounded (model, inits, layout->digits, theta, &model_error))
    {
      g_set_error (error, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_DRAW,
                   "%s:%u: the draw's parameter values do not fit the model: %s",
                   csv->name, csv->draw_lines[i], model_error->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- the file written ---- */

static void
write_header (TildeCsvWriter *w, const TildeStanCsv *csv, const TildeGenerateOptions *o)
{
  g_autofree char *compiler = g_strdup_printf ("tilde %s", tilde_engine_version ());
  char text[32];

  _tilde_csv_write_version_config (w);
  tilde_csv_writer_config (w, 0, "model", o->model_name ? o->model_name : "model", FALSE);
  tilde_csv_writer_config (w, 0, "method", "generate_quantities", FALSE);
  tilde_csv_writer_config (w, 1, "generate_quantities", NULL, FALSE);
  tilde_csv_writer_config (w, 2, "fitted_params", o->fitted_params ? o->fitted_params : csv->name,
                           FALSE);
  g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, csv->chain_id);
  tilde_csv_writer_config (w, 0, "id", text, csv->chain_id == 1);
  tilde_csv_writer_config (w, 0, "data", NULL, FALSE);
  tilde_csv_writer_config (w, 1, "file", o->data_file ? o->data_file : "", o->data_file == NULL);
  tilde_csv_writer_config (w, 0, "init", "2", TRUE);
  tilde_csv_writer_config (w, 0, "random", NULL, FALSE);
  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, o->seed);
  tilde_csv_writer_config (w, 1, "seed", text, !o->seed_given);
  tilde_csv_writer_config (w, 0, "output", NULL, FALSE);
  tilde_csv_writer_config (w, 1, "file", o->output ? o->output : "output.csv",
                           o->output == NULL || g_str_equal (o->output, "output.csv"));
  tilde_csv_writer_config (w, 1, "diagnostic_file", "", TRUE);
  tilde_csv_writer_config (w, 1, "refresh", "100", TRUE);
  g_snprintf (text, sizeof text, "%d", o->sig_figs);
  tilde_csv_writer_config (w, 1, "sig_figs", text, o->sig_figs == -1);
  tilde_csv_writer_config (w, 1, "profile_file", "profile.csv", TRUE);
  tilde_csv_writer_config (w, 0, "num_threads", "1", TRUE);
  tilde_csv_writer_config (w, 0, "stanc_version", compiler, FALSE);
  tilde_csv_writer_config (w, 0, "stancflags", o->compiler_flags ? o->compiler_flags : "", FALSE);
}

/* The input's sampler columns ("lp__", ...), in its order. */
static GArray *
sampler_columns (const TildeStanCsv *csv)
{
  GArray *columns = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint j = 0; j < csv->n_columns; j++)
    if (g_str_has_suffix (csv->column_names[j], "__"))
      g_array_append_val (columns, j);
  return columns;
}

static void
write_names (TildeCsvWriter *w, const TildeStanCsv *csv, const GArray *sampler,
             TildeModel *model)
{
  const char *const *outputs = tilde_model_output_names (model, TRUE, TRUE);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint k = 0; k < sampler->len; k++)
    g_ptr_array_add (names, csv->column_names[g_array_index (sampler, guint, k)]);
  for (const char *const *p = outputs; *p != NULL; p++)
    g_ptr_array_add (names, (gpointer) *p);
  tilde_csv_writer_names (w, (const char *const *) names->pdata, names->len);
}

gboolean
tilde_generate_check (TildeModel *model, const TildeStanCsv *csv, GError **error)
{
  ParamLayout layout = { 0 };
  gboolean ok;

  if (tilde_model_num_outputs (model, TRUE, TRUE) == tilde_model_num_outputs (model, TRUE, FALSE))
    {
      g_set_error_literal (error, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_NO_QUANTITIES,
                           "Model doesn't generate any quantities of interest.");
      return FALSE;
    }
  ok = layout_init (&layout, model, csv, error);
  layout_clear (&layout);
  if (ok && csv->n_draws == 0)
    {
      g_set_error (error, TILDE_GENERATE_ERROR, TILDE_GENERATE_ERROR_NO_DRAWS,
                   "Empty set of draws from fitted model: \"%s\" holds no sampling draws.",
                   csv->name);
      return FALSE;
    }
  return ok;
}

typedef struct {
  TildeModel         *model;
  const TildeStanCsv *csv;
  ParamLayout         layout;
  GArray             *sampler;
  gsize               n_outputs;
  gsize               n_row;
  GString            *json;
  double             *theta;
  double             *outputs;
  double             *row;
  double             *constrained;
  gsl_rng            *rng;
} Generator;

static void
generator_clear (Generator *g)
{
  layout_clear (&g->layout);
  g_clear_pointer (&g->sampler, g_array_unref);
  if (g->json != NULL)
    g_string_free (g->json, TRUE);
  g_free (g->theta);
  g_free (g->outputs);
  g_free (g->row);
  g_free (g->constrained);
  g_clear_pointer (&g->rng, gsl_rng_free);
}

/* Row i: sampler columns and parameters as the file has them, then the
 * recomputed transformed parameters and quantities (NaN when they fail). */
static gboolean
generate_row (Generator *g, guint i, TildeGenerateMessageFunc message, gpointer user_data,
              guint *n_failed, GError **error)
{
  const double *input = g->csv->draws + (gsize) i * g->csv->n_columns;
  g_autoptr(TildeModelError) model_error = NULL;
  gsize k = 0;

  if (!unconstrain_draw (g->model, g->csv, &g->layout, i, g->json, g->constrained, g->theta,
                         error))
    return FALSE;
  for (guint s = 0; s < g->sampler->len; s++)
    g->row[k++] = input[g_array_index (g->sampler, guint, s)];
  if (!tilde_model_constrain (g->model, g->theta, TRUE, TRUE, g->rng, g->outputs, &model_error))
    {
      for (gsize j = 0; j < g->n_outputs; j++)
        g->outputs[j] = NAN;
      (*n_failed)++;
      if (message != NULL)
        {
          g_autofree char *described = tilde_model_error_describe (model_error);
          message (i + 1, described, user_data);
        }
    }
  memcpy (g->row + k, g->outputs, g->n_outputs * sizeof (double));
  /* the parameters themselves are the file's */
  memcpy (g->row + k, g->constrained, g->layout.n_params * sizeof (double));
  return TRUE;
}

gboolean
tilde_generate_quantities (TildeModel *model, const TildeStanCsv *csv,
                           const TildeGenerateOptions *options, TildeCsvWriter *writer,
                           TildeGenerateMessageFunc message, gpointer user_data,
                           guint *n_failed, GError **error)
{
  Generator g = { model, csv };
  guint failed = 0;
  gboolean ok = TRUE;

  if (!tilde_generate_check (model, csv, error) || !layout_init (&g.layout, model, csv, error))
    {
      generator_clear (&g);
      return FALSE;
    }
  g.sampler = sampler_columns (csv);
  g.n_outputs = tilde_model_num_outputs (model, TRUE, TRUE);
  g.n_row = g.sampler->len + g.n_outputs;
  g.json = g_string_new (NULL);
  g.theta = g_new0 (double, MAX (tilde_model_num_params_unconstrained (model), 1));
  g.outputs = g_new0 (double, g.n_outputs);
  g.row = g_new0 (double, g.n_row);
  g.rng = tilde_rng_new_stream (options->seed, (guint64) csv->chain_id);
  g.constrained = g_new0 (double, MAX (g.layout.n_params, 1));

  write_header (writer, csv, options);
  write_names (writer, csv, g.sampler, model);
  for (guint i = 0; i < csv->n_draws && ok; i++)
    {
      ok = generate_row (&g, i, message, user_data, &failed, error);
      if (ok)
        tilde_csv_writer_row (writer, g.row, g.n_row);
    }
  if (n_failed != NULL)
    *n_failed = failed;
  generator_clear (&g);
  return ok;
}
