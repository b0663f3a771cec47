/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/param-json-private.h"

#include <math.h>
#include <string.h>

/* One parameter variable: its values are values[offset .. offset+count)
 * of the constrained parameters, element k at indices idx[k * rank ...]. */
typedef struct {
  char  *name;
  gsize  offset, count;
  guint  rank;
  guint *dims;
  guint *idx;
} Variable;

static void
variable_clear (Variable *v)
{
  g_free (v->name);
  g_free (v->dims);
  g_free (v->idx);
}

/* "theta.2.1" -> base "theta", indices 2 1; a complex value's parts are
 * one more index, innermost, as JSON writes them ("z.3.imag" -> 3 2).
 * FALSE for names this cannot rebuild (tuples). */
static gboolean
split_name (const char *full, char **base, guint *indices, guint max, guint *rank)
{
  g_auto(GStrv) parts = NULL;

  if (strchr (full, ':') != NULL)
    return FALSE;
  parts = g_strsplit (full, ".", -1);
  *rank = 0;
  for (guint i = 1; parts[i] != NULL; i++)
    {
      char *end;
      guint64 k = g_ascii_strtoull (parts[i], &end, 10);
      if (parts[i + 1] == NULL && (strcmp (parts[i], "real") == 0 || strcmp (parts[i], "imag") == 0))
        {
          k = parts[i][0] == 'r' ? 1 : 2;
          end = parts[i] + strlen (parts[i]);
        }
      if (*end != '\0' || k == 0 || *rank >= max)
        return FALSE;
      indices[(*rank)++] = (guint) k;
    }
  *base = g_strdup (parts[0]);
  return TRUE;
}

/* The parameter variables, from the model's constrained names. FALSE when
 * a name cannot be rebuilt into a JSON value. */
static gboolean
parameter_variables (TildeModel *model, GArray *vars)
{
  const char *const *names = tilde_model_output_names (model, FALSE, FALSE);
  gsize total = tilde_model_num_outputs (model, FALSE, FALSE);
  enum { MAX_RANK = 16 };
  guint indices[MAX_RANK];

  for (gsize k = 0; k < total; k++)
    {
      char *base = NULL;
      guint rank;
      Variable *v;

      if (!split_name (names[k], &base, indices, MAX_RANK, &rank))
        return FALSE;
      v = vars->len > 0 ? &g_array_index (vars, Variable, vars->len - 1) : NULL;
      if (v == NULL || strcmp (v->name, base) != 0)
        {
          Variable fresh = { .name = base, .offset = k, .rank = rank };
          fresh.dims = g_new0 (guint, MAX (rank, 1));
          g_array_append_val (vars, fresh);
          v = &g_array_index (vars, Variable, vars->len - 1);
        }
      else
        g_free (base);
      if (v->rank != rank)
        return FALSE;
      v->idx = g_renew (guint, v->idx, (v->count + 1) * MAX (rank, 1));
      for (guint r = 0; r < rank; r++)
        {
          v->idx[v->count * rank + r] = indices[r];
          v->dims[r] = MAX (v->dims[r], indices[r]);
        }
      v->count++;
    }
  return TRUE;
}

static void
append_number (GString *out, double x)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (x))
    g_string_append (out, "\"NaN\"");
  else if (isinf (x))
    g_string_append (out, x > 0 ? "\"inf\"" : "\"-inf\"");
  else
    g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.17g", x));
}

/* Nested arrays of `flat` (row-major over dims[from..rank)). */
static void
append_nested (GString *out, const double *flat, const guint *dims, guint rank, guint from)
{
  gsize stride = 1;

  if (from == rank)
    {
      append_number (out, flat[0]);
      return;
    }
  for (guint r = from + 1; r < rank; r++)
    stride *= dims[r];
  g_string_append_c (out, '[');
  for (guint i = 0; i < dims[from]; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      append_nested (out, flat + i * stride, dims, rank, from + 1);
    }
  g_string_append_c (out, ']');
}

static void
append_variable (GString *out, const Variable *v, const double *values)
{
  gsize size = 1;
  g_autofree double *flat = NULL;

  for (guint r = 0; r < v->rank; r++)
    size *= v->dims[r];
  flat = g_new0 (double, MAX (size, 1));
  for (gsize k = 0; k < v->count; k++)
    {
      gsize at = 0;
      for (guint r = 0; r < v->rank; r++)
        at = at * v->dims[r] + (v->idx[k * v->rank + r] - 1);
      flat[at] = values[v->offset + k];
    }
  append_nested (out, flat, v->dims, v->rank, 0);
}

struct TildeParamJson {
  GArray *vars;   /* Variable */
};

void
_tilde_param_json_free (TildeParamJson *pj)
{
  if (pj == NULL)
    return;
  for (guint i = 0; i < pj->vars->len; i++)
    variable_clear (&g_array_index (pj->vars, Variable, i));
  g_array_free (pj->vars, TRUE);
  g_free (pj);
}

TildeParamJson *
_tilde_param_json_new (TildeModel *model)
{
  TildeParamJson *pj = g_new0 (TildeParamJson, 1);

  pj->vars = g_array_new (FALSE, TRUE, sizeof (Variable));
  if (!parameter_variables (model, pj->vars))
    {
      _tilde_param_json_free (pj);
      return NULL;
    }
  return pj;
}

guint
_tilde_param_json_n_vars (const TildeParamJson *pj)
{
  return pj->vars->len;
}

const char *
_tilde_param_json_var_name (const TildeParamJson *pj, guint var)
{
  return g_array_index (pj->vars, Variable, var).name;
}

void
_tilde_param_json_append (const TildeParamJson *pj, guint var, const double *constrained,
                          GString *out)
{
  const Variable *v = &g_array_index (pj->vars, Variable, var);
  g_autofree char *quoted = g_strescape (v->name, NULL);

  g_string_append_printf (out, "\"%s\":", quoted);
  append_variable (out, v, constrained);
}
