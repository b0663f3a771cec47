/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target for data files: any bytes go through the JSON data check
 * against a model whose data block has every kind of declaration the
 * reader handles (ints and reals with bounds, vectors, matrices, arrays of
 * them, complex values, tuples, sizes given by earlier data, constrained
 * data), as the data panel and `tilde sample --data` read them, and the
 * data reader itself. Nothing may crash, hang, leak or trip a sanitizer.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz-target.h"
#include "io/data-check.h"
#include "io/json-data.h"
#include "tilde-frontend.h"

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
  return 0;
}
