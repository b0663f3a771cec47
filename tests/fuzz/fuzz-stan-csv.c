/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target for Stan CSV files: any bytes go through the reader that
 * `tilde summary`, Open Run and `tilde generate-quantities` use, and what
 * it accepts through the summary (R-hat, ESS, quantiles) as text and JSON,
 * one chain and the same file twice as two chains. Nothing may crash,
 * hang, leak or trip a sanitizer.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz-target.h"
#include "infer/summary.h"
#include "io/stan-csv-read.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const double probs[] = { 0.05, 0.5, 0.95 };
  g_autoptr(TildeStanCsv) csv = NULL;
  g_autoptr(GError) error = NULL;

  csv = tilde_stan_csv_read_string ((const char *) data, size, "fuzz.csv", &error);
  if (csv == NULL)
    return 0;
  for (guint n_chains = 1; n_chains <= 2; n_chains++)
    {
      TildeStanCsv *chains[2] = { csv, csv };
      g_autoptr(GError) summary_error = NULL;
      g_autoptr(TildeSummary) summary = tilde_summary_new (chains, n_chains, probs,
                                                           G_N_ELEMENTS (probs), &summary_error);

      if (summary != NULL)
        {
          g_autofree char *text = tilde_summary_to_text (summary, 6);
          g_autofree char *json = tilde_summary_to_json (summary);
        }
    }
  return 0;
}
