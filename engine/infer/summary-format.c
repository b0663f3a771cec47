/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The summary as text laid out like CmdStan's stansummary, and as JSON. */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/summary.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- numbers */

/* stansummary's rule: SIG significant figures in fixed notation need this
 * width and these decimals. */
static void
fixed_width_and_precision (double value, int sig, int *width, int *precision)
{
  double a = fabs (value);

  if (value == 0)
    {
      *width = sig;
      *precision = sig;
    }
  else if (!isfinite (value))
    {
      *width = 3;
      *precision = sig;
    }
  else if (a >= 1)
    {
      int int_part = (int) ceil (log10 (a) + 1e-6);

      *width = int_part >= sig ? int_part : sig + 1;
      *precision = int_part >= sig ? 0 : sig - int_part;
    }
  else
    {
      int frac_part = (int) fabs (floor (log10 (a)));

      *width = 1 + frac_part + sig;
      *precision = frac_part + sig - 1;
    }
  if (signbit (value) && !isnan (value))
    (*width)++;
}

typedef struct {
  gboolean scientific;
  int      width;
} ColumnFormat;

/* Fixed notation when every value fits in 8 characters, scientific
 * otherwise; two spaces of padding; never narrower than the header. */
static ColumnFormat
column_format (const double *values, guint n, const char *header, int sig)
{
  const int padding = 2, fixed_threshold = 8;
  int fixed = 0, scientific;
  gboolean negative = FALSE;

  for (guint i = 0; i < n; i++)
    {
      int w, p;

      fixed_width_and_precision (values[i], sig, &w, &p);
      fixed = MAX (fixed, w);
      negative = negative || values[i] < 0;
    }
  if (fixed + padding < fixed_threshold)
    return (ColumnFormat) { FALSE, MAX (fixed, (int) strlen (header)) + padding };
  scientific = sig + 1 + 4 + (negative ? 1 : 0);
  return (ColumnFormat) { TRUE, MAX (scientific, (int) strlen (header)) + padding };
}

static void
append_value (GString *out, double value, ColumnFormat f, int width, int sig)
{
  int w, precision;

  if (isnan (value))
    {
      g_string_append_printf (out, "%*s", width, "nan");
      return;
    }
  if (isinf (value))
    {
      g_string_append_printf (out, "%*s", width, value > 0 ? "inf" : "-inf");
      return;
    }
  if (f.scientific)
    {
      g_string_append_printf (out, "%*.*e", width, sig - 1, value);
      return;
    }
  fixed_width_and_precision (value, sig, &w, &precision);
  g_string_append_printf (out, "%*.*f", width, precision, value);
}

/* ---------------------------------------------------------------- text */

static guint
n_stats (const TildeSummary *s)
{
  return 3 + s->n_probs + 3;
}

static void
row_values (const TildeSummary *s, const TildeSummaryRow *row, double *out)
{
  guint k = 0;

  out[k++] = row->mean;
  out[k++] = row->mcse;
  out[k++] = row->sd;
  for (guint q = 0; q < s->n_probs; q++)
    out[k++] = row->quantiles[q];
  out[k++] = row->ess_bulk;
  out[k++] = row->ess_tail;
  out[k++] = row->rhat;
}

static char **
stat_headers (const TildeSummary *s)
{
  GPtrArray *h = g_ptr_array_new ();

  g_ptr_array_add (h, g_strdup ("Mean"));
  g_ptr_array_add (h, g_strdup ("MCSE"));
  g_ptr_array_add (h, g_strdup ("StdDev"));
  for (guint q = 0; q < s->n_probs; q++)
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (number, sizeof number, "%g", s->probs[q] * 100);
      g_ptr_array_add (h, g_strdup_printf ("%s%%", number));
    }
  g_ptr_array_add (h, g_strdup ("ESS_bulk"));
  g_ptr_array_add (h, g_strdup ("ESS_tail"));
  g_ptr_array_add (h, g_strdup ("R_hat"));
  g_ptr_array_add (h, NULL);
  return (char **) g_ptr_array_free (h, FALSE);
}

static gboolean
in_sampler_group (const TildeSummaryRow *row)
{
  return row->kind == TILDE_SUMMARY_SAMPLER;
}

/* Formats of the sampler's rows and of the others: stansummary sizes the
 * two groups apart and gives each column the wider of the two. */
static void
column_formats (const TildeSummary *s, char **headers, int sig,
                ColumnFormat *sampler, ColumnFormat *model, int *widths)
{
  guint n = n_stats (s), rows = s->rows->len;
  g_autofree double *values = g_new (double, (gsize) MAX (rows, 1) * n);
  g_autofree double *column = g_new (double, MAX (rows, 1));

  for (guint r = 0; r < rows; r++)
    row_values (s, g_ptr_array_index (s->rows, r), values + (gsize) r * n);
  for (guint k = 0; k < n; k++)
    {
      guint n_sampler = 0, n_model = 0;

      for (guint r = 0; r < rows; r++)
        if (in_sampler_group (g_ptr_array_index (s->rows, r)))
          column[n_sampler++] = values[(gsize) r * n + k];
      sampler[k] = column_format (column, n_sampler, headers[k], sig);
      for (guint r = 0; r < rows; r++)
        if (!in_sampler_group (g_ptr_array_index (s->rows, r)))
          column[n_model++] = values[(gsize) r * n + k];
      model[k] = column_format (column, n_model, headers[k], sig);
      widths[k] = MAX (sampler[k].width, model[k].width);
    }
}

static void
append_row (GString *out, const TildeSummary *s, const TildeSummaryRow *row, int name_width,
            const ColumnFormat *formats, const int *widths, int sig)
{
  guint n = n_stats (s);
  g_autofree double *values = g_new (double, n);

  row_values (s, row, values);
  g_string_append_printf (out, "%-*s", name_width, row->name);
  for (guint k = 0; k < n; k++)
    append_value (out, values[k], formats[k], widths[k], sig);
  g_string_append_c (out, '\n');
}

/* "1000" when every chain agrees, "(1000,998)" otherwise. */
static char *
per_chain_list (const gint64 *values, guint n)
{
  GString *out = g_string_new (NULL);
  gboolean same = TRUE;

  for (guint c = 1; c < n; c++)
    same = same && values[c] == values[0];
  if (same)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, values[0]);
  else
    {
      g_string_append_c (out, '(');
      for (guint c = 0; c < n; c++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, c ? "," : "", values[c]);
      g_string_append_c (out, ')');
    }
  return g_string_free (out, FALSE);
}

static void
append_seconds (GString *out, double seconds)
{
  int w, precision;

  fixed_width_and_precision (seconds, 2, &w, &precision);
  g_string_append_printf (out, "%.*f", precision, seconds);
}

/* "Warmup took (0.065, 0.078) seconds, 0.14 seconds total"; nothing (and
 * FALSE) when a chain did not record its time. */
static gboolean
append_timing (GString *out, const TildeSummary *s, const char *what, const double *seconds)
{
  double total = 0;
  const char *unit = "seconds";

  for (guint c = 0; c < s->n_chains; c++)
    {
      if (isnan (seconds[c]))
        return FALSE;
      total += seconds[c];
    }
  if (total / 3600 > 1)
    {
      total /= 3600;
      unit = "hours";
    }
  else if (total / 60 > 1)
    {
      total /= 60;
      unit = "minutes";
    }
  g_string_append_printf (out, "%s took ", what);
  if (s->n_chains > 1)
    {
      g_string_append_c (out, '(');
      for (guint c = 0; c < s->n_chains; c++)
        {
          if (c > 0)
            g_string_append (out, ", ");
          append_seconds (out, seconds[c]);
        }
      g_string_append (out, ") seconds, ");
    }
  append_seconds (out, total);
  g_string_append_printf (out, " %s%s\n", unit, s->n_chains > 1 ? " total" : "");
  return TRUE;
}

static void
append_run (GString *out, const TildeSummary *s)
{
  g_autofree gint64 *draws = g_new (gint64, s->n_chains);
  g_autofree char *iter = NULL;
  g_autofree char *warmup = per_chain_list (s->chain_warmup, s->n_chains);
  g_autofree char *thin = per_chain_list (s->chain_thin, s->n_chains);
  gboolean warmup_timed, sampling_timed;

  for (guint c = 0; c < s->n_chains; c++)
    draws[c] = s->chain_draws[c];
  iter = per_chain_list (draws, s->n_chains);
  g_string_append_printf (out, "Inference for Stan model: %s\n", s->model ? s->model : "(unnamed)");
  g_string_append_printf (out, "%u chains: each with iter=%s; warmup=%s; thin=%s; %u iterations saved.\n\n",
                          s->n_chains, iter, warmup, thin, s->n_chains * s->n_draws);
  warmup_timed = append_timing (out, s, "Warmup", s->warmup_seconds);
  sampling_timed = append_timing (out, s, "Sampling", s->sampling_seconds);

  /* a blank line after the timing, when there is any */
  if (warmup_timed || sampling_timed)
    g_string_append_c (out, '\n');
}

char *
tilde_summary_to_text (const TildeSummary *s, int sig_figs)
{
  GString *out = g_string_new (NULL);
  g_auto (GStrv) headers = stat_headers (s);
  guint n = n_stats (s);
  g_autofree ColumnFormat *sampler = g_new (ColumnFormat, n);
  g_autofree ColumnFormat *model = g_new (ColumnFormat, n);
  g_autofree int *widths = g_new (int, n);
  int name_width = 0;
  gboolean model_started = FALSE;

  sig_figs = CLAMP (sig_figs, 1, 18);
  append_run (out, s);

  for (guint r = 0; r < s->rows->len; r++)
    name_width = MAX (name_width, (int) strlen (((TildeSummaryRow *) g_ptr_array_index (s->rows, r))->name));
  name_width += 1;
  column_formats (s, headers, sig_figs, sampler, model, widths);

  g_string_append_printf (out, "%*s", name_width, "");
  for (guint k = 0; k < n; k++)
    g_string_append_printf (out, "%*s", widths[k], headers[k]);
  g_string_append (out, "\n\n");
  for (guint r = 0; r < s->rows->len; r++)
    {
      const TildeSummaryRow *row = g_ptr_array_index (s->rows, r);

      if (row->kind == TILDE_SUMMARY_MODEL && !model_started)
        {
          g_string_append_c (out, '\n');
          model_started = TRUE;
        }
      append_row (out, s, row, name_width, in_sampler_group (row) ? sampler : model, widths, sig_figs);
    }
  g_string_append_c (out, '\n');

  g_string_append_printf (out, "Samples were drawn using %s with %s.\n", s->algorithm, s->engine);
  g_string_append (out,
                   "ESS_bulk and ESS_tail are the effective sample sizes of the rank-normalised draws\n"
                   "and of their 5% and 95% quantiles; R_hat is the rank-normalised split R-hat, which\n"
                   "is close to 1.00 when the chains have converged.\n");
  for (guint w = 0; w < s->warnings->len; w++)
    g_string_append_printf (out, "\n%s\n", (const char *) g_ptr_array_index (s->warnings, w));
  return g_string_free (out, FALSE);
}

/* ---------------------------------------------------------------- JSON */

static void
add_number (JsonBuilder *b, double value)
{
  if (isnan (value))
    json_builder_add_string_value (b, "NaN");
  else if (isinf (value))
    json_builder_add_string_value (b, value > 0 ? "inf" : "-inf");
  else
    json_builder_add_double_value (b, value);
}

static void
add_member_number (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  add_number (b, value);
}

static void
add_per_chain (JsonBuilder *b, const char *name, const double *values, guint n)
{
  json_builder_set_member_name (b, name);
  if (values == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_array (b);
  for (guint c = 0; c < n; c++)
    add_number (b, values[c]);
  json_builder_end_array (b);
}

static void
add_per_chain_counts (JsonBuilder *b, const char *name, const guint *values, guint n)
{
  json_builder_set_member_name (b, name);
  if (values == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_array (b);
  for (guint c = 0; c < n; c++)
    json_builder_add_int_value (b, values[c]);
  json_builder_end_array (b);
}

static void
add_per_chain_ints (JsonBuilder *b, const char *name, const gint64 *values, guint n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint c = 0; c < n; c++)
    json_builder_add_int_value (b, values[c]);
  json_builder_end_array (b);
}

static void
add_row (JsonBuilder *b, const TildeSummary *s, char **headers, const TildeSummaryRow *row)
{
  const char *kinds[] = { "lp", "sampler", "parameter" };

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, row->name);
  json_builder_set_member_name (b, "column");
  json_builder_add_string_value (b, row->column);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, kinds[row->kind]);
  add_member_number (b, "mean", row->mean);
  add_member_number (b, "mcse", row->mcse);
  add_member_number (b, "sd", row->sd);
  json_builder_set_member_name (b, "quantiles");
  json_builder_begin_object (b);
  for (guint q = 0; q < s->n_probs; q++)
    add_member_number (b, headers[3 + q], row->quantiles[q]);
  json_builder_end_object (b);
  add_member_number (b, "ess_bulk", row->ess_bulk);
  add_member_number (b, "ess_tail", row->ess_tail);
  add_member_number (b, "r_hat", row->rhat);
  json_builder_end_object (b);
}

char *
tilde_summary_to_json (const TildeSummary *s)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_auto (GStrv) headers = stat_headers (s);
  g_autofree gint64 *draws = g_new (gint64, s->n_chains);

  for (guint c = 0; c < s->n_chains; c++)
    draws[c] = s->chain_draws[c];
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  if (s->model)
    json_builder_add_string_value (b, s->model);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "chains");
  json_builder_add_int_value (b, s->n_chains);
  json_builder_set_member_name (b, "draws_per_chain");
  json_builder_add_int_value (b, s->n_draws);
  add_per_chain_ints (b, "chain_draws", draws, s->n_chains);
  add_per_chain_ints (b, "warmup", s->chain_warmup, s->n_chains);
  add_per_chain_ints (b, "thin", s->chain_thin, s->n_chains);
  add_per_chain (b, "warmup_seconds", s->warmup_seconds, s->n_chains);
  add_per_chain (b, "sampling_seconds", s->sampling_seconds, s->n_chains);
  json_builder_set_member_name (b, "percentiles");
  json_builder_begin_array (b);
  for (guint q = 0; q < s->n_probs; q++)
    json_builder_add_double_value (b, s->probs[q] * 100);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "columns");
  json_builder_begin_array (b);
  for (guint r = 0; r < s->rows->len; r++)
    add_row (b, s, headers, g_ptr_array_index (s->rows, r));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "sampler");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "max_depth");
  json_builder_add_int_value (b, s->max_depth);
  add_per_chain_counts (b, "divergent", s->divergent, s->n_chains);
  add_per_chain_counts (b, "max_treedepth", s->max_treedepth, s->n_chains);
  add_per_chain (b, "ebfmi", s->ebfmi, s->n_chains);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint w = 0; w < s->warnings->len; w++)
    json_builder_add_string_value (b, g_ptr_array_index (s->warnings, w));
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  return json_generator_to_data (gen, NULL);
}
