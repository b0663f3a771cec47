/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target for data files: any bytes go through the JSON data check
 * against a model whose data block has every kind of declaration the
 * reader handles (ints and reals with bounds, vectors, matrices, arrays of
 * them, complex values, tuples, sizes given by earlier data, constrained
 * data), as the data panel and `tilde sample --data` read them, and the
 * data reader itself, each variable also read as every other kind of
 * value, described as the data panel's summary does; text that reads is
 * laid out (io/json-format.h), which must read the same and lay out the
 * same again. Nothing may crash, hang, leak or trip a sanitizer.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz-target.h"
#include "io/data-check.h"
#include "io/json-data.h"
#include "io/json-format.h"
#include "tilde-frontend.h"

#include <string.h>

static const char model[] =
  "data {\n"
  "  int<lower=0> N;\n"
  "  int<lower=1, upper=4> K;\n"
  "  array[N] int<lower=0, upper=1> y;\n"
  "  vector[N] x;\n"
  "  matrix[N, K] X;\n"
  "  array[2, K] real<lower=-1, upper=1> r;\n"
  "  array[N] vector[K] v;\n"
  "  complex z;\n"
  "  complex_vector[2] zv;\n"
  "  tuple(int, array[2] real) t;\n"
  "  simplex[K] s;\n"
  "  cov_matrix[2] S;\n"
  "  real<lower=0> sigma;\n"
  "}\n"
  "parameters { real mu; }\n"
  "model { x ~ normal(mu, sigma); }\n";

static TildeCheckResult *result;

/* Each variable of the model read as other shapes too: the reader's paths
 * for every kind, whatever the text holds. */
static void
read_in_other_shapes (const TildeJsonData *json)
{
  static const char *names[] = { "N", "K", "y", "x", "X", "r", "v", "z", "zv", "t", "s", "S", "sigma" };
  g_autoptr (TildeArena) arena = tilde_arena_new (0);
  TildeShape *real = tilde_shape_new (arena, TILDE_VALUE_REAL, 1, 1);
  TildeShape *integer = tilde_shape_new (arena, TILDE_VALUE_INT, 1, 1);
  TildeShape *tuple = tilde_shape_new (arena, TILDE_VALUE_TUPLE, 1, 1);
  const TildeShape *members[2] = { integer, tilde_shape_array (arena, real, 2) };
  tuple->n_members = 2;
  tuple->members = members;
  const TildeShape *shapes[] = {
    real, integer, tuple,
    tilde_shape_new (arena, TILDE_VALUE_COMPLEX, 1, 1),
    tilde_shape_new (arena, TILDE_VALUE_VECTOR, 3, 1),
    tilde_shape_new (arena, TILDE_VALUE_ROW_VECTOR, 1, 0),
    tilde_shape_new (arena, TILDE_VALUE_COMPLEX_VECTOR, 2, 1),
    tilde_shape_new (arena, TILDE_VALUE_MATRIX, 2, 2),
    tilde_shape_new (arena, TILDE_VALUE_MATRIX, 0, 3),
    tilde_shape_new (arena, TILDE_VALUE_COMPLEX_MATRIX, 1, 2),
    tilde_shape_new (arena, TILDE_VALUE_MATRIX, 1000000, 1000),
    tilde_shape_array (arena, integer, 3),
    tilde_shape_array (arena, real, 1000000000),
    tilde_shape_array (arena, tilde_shape_array (arena, real, 2), 2),
    tilde_shape_array (arena, tilde_shape_new (arena, TILDE_VALUE_VECTOR, 2, 1), 2),
    tilde_shape_array (arena, tuple, 2),
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
      {
        TildeValue value;
        g_autofree char *problem = NULL;
        tilde_json_data_read (json, names[i], shapes[k], arena, &value, &problem);
      }
}

/* The summary's descriptions, and the layout: it reads, as the same
 * variables, and laying it out again changes nothing. */
static void
lay_out (const TildeJsonData *json, const char *text, size_t size)
{
  g_auto(GStrv) names = tilde_json_data_names (json);
  g_autoptr(GError) error = NULL;
  gsize len, again_len;

  for (guint i = 0; names[i]; i++)
    g_free (tilde_json_data_describe (json, names[i]));
  g_autofree char *formatted = tilde_json_format (text, size, &len, &error);
  g_assert_no_error (error);
  g_autoptr(TildeJsonData) reread = tilde_json_data_new_from_string (formatted, (gssize) len, &error);
  g_assert_no_error (error);
  g_auto(GStrv) names_again = tilde_json_data_names (reread);
  g_assert_true (g_strv_equal ((const char *const *) names, (const char *const *) names_again));
  g_autofree char *again = tilde_json_format (formatted, len, &again_len, &error);
  g_assert_no_error (error);
  g_assert_true (again_len == len && memcmp (again, formatted, len) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GPtrArray) diagnostics = NULL;
  g_autoptr(TildeJsonData) json = NULL;
  g_autoptr(GError) error = NULL;

  if (result == NULL)
    {
      result = tilde_frontend_check_buffer ("fuzz.stan", NULL, model, -1, NULL);
      g_assert_false (tilde_check_result_has_errors (result));
    }
  diagnostics = tilde_data_check ((const char *) data, (gssize) size, "fuzz.json",
                                  tilde_check_result_get_program (result));
  json = tilde_json_data_new_from_string ((const char *) data, (gssize) size, &error);
  if (json)
    {
      read_in_other_shapes (json);
      lay_out (json, (const char *) data, size);
    }
  return 0;
}
