/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/summary.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "infer/column-name.h"
#include "infer/diagnostics.h"

#define SEE_WARNINGS "See https://mc-stan.org/misc/warnings for details."

static void
row_free (gpointer data)
{
  TildeSummaryRow *row = data;

  g_free (row->name);
  g_free (row->column);
  g_free (row->quantiles);
  g_free (row);
}

void
tilde_summary_free (TildeSummary *s)
{
  if (s == NULL)
    return;
  g_free (s->model);
  g_free (s->algorithm);
  g_free (s->engine);
  g_free (s->chain_draws);
  g_free (s->chain_warmup);
  g_free (s->chain_thin);
  g_free (s->warmup_seconds);
  g_free (s->sampling_seconds);
  g_free (s->probs);
  g_ptr_array_unref (s->rows);
  g_free (s->divergent);
  g_free (s->max_treedepth);
  g_free (s->ebfmi);
  g_ptr_array_unref (s->warnings);
  g_free (s);
}

/* The indices of an element "theta.2.1" (1-based) into INDICES; FALSE for a
 * name without any. *BASE_LEN is the length of "theta". */
static gboolean
element_indices (const char *column, gsize *base_len, GArray *indices)
{
  const char *suffix = tilde_column_index_suffix (column);

  g_array_set_size (indices, 0);
  if (suffix == NULL)
    return FALSE;
  *base_len = (gsize) (suffix - column);
  for (const char *p = suffix; *p == '.'; )
    {
      guint64 v = g_ascii_strtoull (p + 1, (char **) &p, 10);
      guint i = (guint) MIN (v, G_MAXUINT);

      g_array_append_val (indices, i);
    }
  return TRUE;
}

static gboolean
same_variable (const char *a, gsize a_len, const char *b, gsize b_len)
{
  return a_len == b_len && strncmp (a, b, a_len) == 0;
}

/* Appends to ORDER the columns FIRST .. FIRST + COUNT - 1 of one container,
 * row by row when the file has them column by column (first index fastest),
 * as Stan writes them; in file order otherwise. */
static void
append_container (GArray *order, guint first, guint count, GPtrArray *all_indices)
{
  GArray *last = g_ptr_array_index (all_indices, first + count - 1);
  guint n_dims = last->len;
  guint64 size = 1;
  gboolean column_major = TRUE;

  for (guint d = 0; d < n_dims; d++)
    size *= g_array_index (last, guint, d);
  column_major = size == count;
  for (guint r = 0; column_major && r < count; r++)
    {
      GArray *idx = g_ptr_array_index (all_indices, first + r);
      guint rest = r;

      for (guint d = 0; d < n_dims && column_major; d++)
        {
          guint dim = g_array_index (last, guint, d);

          column_major = g_array_index (idx, guint, d) == rest % dim + 1;
          rest /= dim;
        }
    }
  if (!column_major)
    {
      for (guint r = 0; r < count; r++)
        {
          guint k = first + r;

          g_array_append_val (order, k);
        }
      return;
    }
  for (guint p = 0; p < count; p++)
    {
      /* position p row by row (last index fastest) -> offset column by column */
      guint rest = p, offset = 0, stride = 1, k;
      g_autofree guint *index = g_new (guint, n_dims);

      for (guint d = n_dims; d-- > 0; )
        {
          guint dim = g_array_index (last, guint, d);

          index[d] = rest % dim;
          rest /= dim;
        }
      for (guint d = 0; d < n_dims; d++)
        {
          offset += index[d] * stride;
          stride *= g_array_index (last, guint, d);
        }
      k = first + offset;
      g_array_append_val (order, k);
    }
}

/* The model's columns (indices into NAMES) in stansummary's order. */
static GArray *
model_column_order (char **names, const guint *columns, guint n)
{
  GArray *order = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) all_indices = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autofree gsize *base_len = g_new0 (gsize, MAX (n, 1));
  g_autofree gboolean *is_element = g_new0 (gboolean, MAX (n, 1));
  GArray *local = g_array_new (FALSE, FALSE, sizeof (guint));
  guint i = 0;

  for (guint k = 0; k < n; k++)
    {
      GArray *idx = g_array_new (FALSE, FALSE, sizeof (guint));

      is_element[k] = element_indices (names[columns[k]], &base_len[k], idx);
      g_ptr_array_add (all_indices, idx);
    }
  while (i < n)
    {
      guint j = i + 1;

      if (is_element[i])
        while (j < n && is_element[j]
               && same_variable (names[columns[i]], base_len[i], names[columns[j]], base_len[j])
               && ((GArray *) g_ptr_array_index (all_indices, j))->len
                  == ((GArray *) g_ptr_array_index (all_indices, i))->len)
          j++;
      g_array_set_size (local, 0);
      append_container (local, i, j - i, all_indices);
      for (guint r = 0; r < local->len; r++)
        g_array_append_val (order, columns[g_array_index (local, guint, r)]);
      i = j;
    }
  g_array_unref (local);
  return order;
}

static gboolean
check_same_columns (TildeStanCsv *const *chains, guint n_chains, GError **error)
{
  const TildeStanCsv *first = chains[0];

  for (guint c = 1; c < n_chains; c++)
    {
      const TildeStanCsv *csv = chains[c];

      if (csv->n_columns != first->n_columns)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s:%u: %u columns, but %s has %u: the files are not chains of one run",
                       csv->name, csv->header_line, csv->n_columns, first->name, first->n_columns);
          return FALSE;
        }
      for (guint j = 0; j < csv->n_columns; j++)
        if (!g_str_equal (csv->column_names[j], first->column_names[j]))
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         "%s:%u: column %u is '%s', but '%s' in %s: the files are not chains of one run",
                         csv->name, csv->header_line, j + 1, csv->column_names[j],
                         first->column_names[j], first->name);
            return FALSE;
          }
    }
  for (guint c = 0; c < n_chains; c++)
    if (chains[c]->n_draws == 0)
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: no sampling draws", chains[c]->name);
        return FALSE;
      }
  return TRUE;
}

/* Column J of every chain, chain-major, N draws each. */
static void
gather_column (const TildeSummary *s, TildeStanCsv *const *chains, guint j, double *out)
{
  for (guint c = 0; c < s->n_chains; c++)
    for (guint i = 0; i < s->n_draws; i++)
      out[(gsize) c * s->n_draws + i] = chains[c]->draws[(gsize) i * chains[c]->n_columns + j];
}

static TildeSummaryRow *
summarise_column (const TildeSummary *s, TildeStanCsv *const *chains, guint j, double *buffer)
{
  TildeSummaryRow *row = g_new0 (TildeSummaryRow, 1);
  const char *column = chains[0]->column_names[j];
  gsize C = s->n_chains, N = s->n_draws;

  gather_column (s, chains, j, buffer);
  row->column = g_strdup (column);
  row->name = tilde_column_display_name (column);
  row->kind = g_str_equal (column, "lp__") ? TILDE_SUMMARY_LP
            : g_str_has_suffix (column, "__") ? TILDE_SUMMARY_SAMPLER : TILDE_SUMMARY_MODEL;
  row->mean = tilde_draws_mean (buffer, C * N);
  row->sd = tilde_draws_sd (buffer, C * N);
  row->mcse = tilde_mcse_mean (buffer, C, N);
  row->quantiles = g_new (double, MAX (s->n_probs, 1));
  tilde_draws_quantiles (buffer, C * N, s->probs, s->n_probs, row->quantiles);
  row->ess_bulk = tilde_ess_bulk (buffer, C, N);
  row->ess_tail = tilde_ess_tail (buffer, C, N);
  row->rhat = tilde_rhat (buffer, C, N);
  return row;
}

static void
summarise_columns (TildeSummary *s, TildeStanCsv *const *chains)
{
  const TildeStanCsv *first = chains[0];
  g_autofree double *buffer = g_new (double, (gsize) s->n_chains * s->n_draws);
  g_autofree guint *model = g_new (guint, MAX (first->n_columns, 1));
  g_autoptr (GArray) order = NULL;
  int lp = tilde_stan_csv_column (first, "lp__");
  guint n_model = 0;

  if (lp >= 0)
    g_ptr_array_add (s->rows, summarise_column (s, chains, (guint) lp, buffer));
  for (guint j = 0; j < first->n_columns; j++)
    {
      if ((int) j == lp)
        continue;
      if (g_str_has_suffix (first->column_names[j], "__"))
        g_ptr_array_add (s->rows, summarise_column (s, chains, j, buffer));
      else
        model[n_model++] = j;
    }
  order = model_column_order (first->column_names, model, n_model);
  for (guint k = 0; k < order->len; k++)
    g_ptr_array_add (s->rows, summarise_column (s, chains, g_array_index (order, guint, k), buffer));
}

/* R's format(round(x), nsmall = 1), which cmdstanr prints percentages with. */
static char *
whole_percent (guint count, guint total)
{
  return g_strdup_printf ("%.1f", rint (100.0 * count / total));
}

static void
check_sampler (TildeSummary *s, TildeStanCsv *const *chains)
{
  const TildeStanCsv *first = chains[0];
  int divergent = tilde_stan_csv_column (first, "divergent__");
  int treedepth = tilde_stan_csv_column (first, "treedepth__");
  int energy = tilde_stan_csv_column (first, "energy__");
  guint total = s->n_chains * s->n_draws;
  g_autofree double *buffer = g_new (double, MAX (s->n_draws, 1));

  if (divergent >= 0)
    s->divergent = g_new0 (guint, s->n_chains);
  if (treedepth >= 0)
    s->max_treedepth = g_new0 (guint, s->n_chains);
  if (energy >= 0)
    s->ebfmi = g_new0 (double, s->n_chains);
  for (guint c = 0; c < s->n_chains; c++)
    {
      const TildeStanCsv *csv = chains[c];

      for (guint i = 0; i < s->n_draws; i++)
        {
          if (divergent >= 0 && tilde_stan_csv_draw (csv, i, (guint) divergent) > 0)
            s->divergent[c]++;
          if (treedepth >= 0 && tilde_stan_csv_draw (csv, i, (guint) treedepth) >= (double) s->max_depth)
            s->max_treedepth[c]++;
          if (energy >= 0)
            buffer[i] = tilde_stan_csv_draw (csv, i, (guint) energy);
        }
      if (energy >= 0)
        s->ebfmi[c] = tilde_ebfmi (buffer, s->n_draws);
    }

  if (s->divergent)
    {
      guint n = 0;

      for (guint c = 0; c < s->n_chains; c++)
        n += s->divergent[c];
      if (n > 0)
        {
          g_autofree char *percent = whole_percent (n, total);

          g_ptr_array_add (s->warnings,
                           g_strdup_printf ("Warning: %u of %u (%s%%) transitions ended with a divergence.\n"
                                            SEE_WARNINGS, n, total, percent));
        }
    }
  if (s->max_treedepth)
    {
      guint n = 0;

      for (guint c = 0; c < s->n_chains; c++)
        n += s->max_treedepth[c];
      if (n > 0)
        {
          g_autofree char *percent = whole_percent (n, total);

          g_ptr_array_add (s->warnings,
                           g_strdup_printf ("Warning: %u of %u (%s%%) transitions hit the maximum "
                                            "treedepth limit of %" G_GINT64_FORMAT ".\n" SEE_WARNINGS,
                                            n, total, percent, s->max_depth));
        }
    }
  if (s->ebfmi)
    {
      guint nan = 0, low = 0;

      for (guint c = 0; c < s->n_chains; c++)
        {
          nan += isnan (s->ebfmi[c]);
          low += s->ebfmi[c] < TILDE_SUMMARY_EBFMI_LIMIT;
        }
      if (nan > 0)
        g_ptr_array_add (s->warnings,
                         g_strdup_printf ("Warning: %u of %u chains have a NaN E-BFMI.\n" SEE_WARNINGS,
                                          nan, s->n_chains));
      else if (low > 0)
        g_ptr_array_add (s->warnings,
                         g_strdup_printf ("Warning: %u of %u chains had an E-BFMI less than %g.\n"
                                          SEE_WARNINGS, low, s->n_chains, TILDE_SUMMARY_EBFMI_LIMIT));
    }
}

/* Names of the model's rows that PREDICATE picks, comma-separated. */
static char *
model_rows_where (const TildeSummary *s, gboolean (*predicate) (const TildeSummary *, const TildeSummaryRow *))
{
  GString *names = g_string_new (NULL);

  for (guint k = 0; k < s->rows->len; k++)
    {
      const TildeSummaryRow *row = g_ptr_array_index (s->rows, k);

      if (row->kind == TILDE_SUMMARY_MODEL && predicate (s, row))
        g_string_append_printf (names, "%s%s", names->len ? ", " : "", row->name);
    }
  if (names->len == 0)
    {
      g_string_free (names, TRUE);
      return NULL;
    }
  return g_string_free (names, FALSE);
}

static gboolean
high_rhat (const TildeSummary *s, const TildeSummaryRow *row)
{
  return row->rhat > TILDE_SUMMARY_RHAT_LIMIT;
}

static gboolean
low_ess (const TildeSummary *s, const TildeSummaryRow *row)
{
  double limit = TILDE_SUMMARY_ESS_PER_CHAIN * (double) s->n_chains;

  return row->ess_bulk < limit || row->ess_tail < limit;
}

static void
check_convergence (TildeSummary *s)
{
  g_autofree char *rhat = model_rows_where (s, high_rhat);
  g_autofree char *ess = model_rows_where (s, low_ess);

  if (rhat)
    g_ptr_array_add (s->warnings,
                     g_strdup_printf ("Warning: The following parameters had rank-normalized split R-hat "
                                      "greater than %g:\n  %s\n"
                                      "Such high values indicate incomplete mixing and biased estimation.\n"
                                      "You should consider regularizing your model with additional prior "
                                      "information or a more effective parameterization.",
                                      TILDE_SUMMARY_RHAT_LIMIT, rhat));
  if (ess)
    g_ptr_array_add (s->warnings,
                     g_strdup_printf ("Warning: The following parameters had a bulk or tail effective "
                                      "sample size below %g (%d per chain):\n  %s\n"
                                      "Their R-hat, quantiles and Monte Carlo standard errors are not "
                                      "reliable yet: run the chains for more iterations.",
                                      TILDE_SUMMARY_ESS_PER_CHAIN * (double) s->n_chains,
                                      TILDE_SUMMARY_ESS_PER_CHAIN, ess));
}

/* Chains of different lengths (a run cut short) are cut to the shortest. */
static void
even_out_chains (TildeSummary *s)
{
  guint shortest = G_MAXUINT, longest = 0;

  for (guint c = 0; c < s->n_chains; c++)
    {
      shortest = MIN (shortest, s->chain_draws[c]);
      longest = MAX (longest, s->chain_draws[c]);
    }
  s->n_draws = shortest;
  if (shortest != longest)
    {
      GString *counts = g_string_new (NULL);

      for (guint c = 0; c < s->n_chains; c++)
        g_string_append_printf (counts, "%s%u", c ? ", " : "", s->chain_draws[c]);
      g_ptr_array_add (s->warnings,
                       g_strdup_printf ("Warning: The chains have different numbers of draws (%s); "
                                        "each is summarised by its first %u.", counts->str, shortest));
      g_string_free (counts, TRUE);
    }
}

TildeSummary *
tilde_summary_new (TildeStanCsv *const *chains, guint n_chains,
                   const double *probs, guint n_probs, GError **error)
{
  TildeSummary *s;

  g_return_val_if_fail (n_chains > 0, NULL);
  if (!check_same_columns (chains, n_chains, error))
    return NULL;

  s = g_new0 (TildeSummary, 1);
  s->model = g_strdup (chains[0]->model);
  s->algorithm = g_strdup (chains[0]->algorithm);
  s->engine = g_strdup (chains[0]->engine);
  s->max_depth = chains[0]->max_depth;
  s->n_chains = n_chains;
  s->chain_draws = g_new (guint, n_chains);
  s->chain_warmup = g_new (gint64, n_chains);
  s->chain_thin = g_new (gint64, n_chains);
  s->warmup_seconds = g_new (double, n_chains);
  s->sampling_seconds = g_new (double, n_chains);
  for (guint c = 0; c < n_chains; c++)
    {
      s->chain_draws[c] = chains[c]->n_draws;
      s->chain_warmup[c] = chains[c]->num_warmup;
      s->chain_thin[c] = chains[c]->thin;
      s->warmup_seconds[c] = chains[c]->warmup_seconds;
      s->sampling_seconds[c] = chains[c]->sampling_seconds;
    }
  s->n_probs = n_probs;
  s->probs = g_new0 (double, MAX (n_probs, 1));
  if (n_probs > 0)
    memcpy (s->probs, probs, sizeof (double) * n_probs);
  s->rows = g_ptr_array_new_with_free_func (row_free);
  s->warnings = g_ptr_array_new_with_free_func (g_free);

  even_out_chains (s);
  summarise_columns (s, chains);
  check_sampler (s, chains);
  check_convergence (s);
  return s;
}
