/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The summary of a run: the chains of one or more Stan CSV files (one chain
 * a file, as CmdStan writes them) combined, every column summarised as
 * CmdStan's stansummary lists it, the sampler checked as cmdstanr checks it.
 *
 * Rows come in stansummary's order: lp__, the sampler's other columns (names
 * ending in "__"), then the model's, with matrices and arrays row by row
 * ("L[1,2]" before "L[2,1]") although the file has them column by column.
 * Each row has the mean, MCSE of the mean, sd, the requested quantiles, bulk
 * and tail ESS and R-hat of engine/infer/diagnostics.h.
 *
 * Warnings, in cmdstanr's words where it has them:
 *   Warning: 12 of 4000 (0.0%) transitions ended with a divergence.
 *   Warning: 3 of 4000 (0.0%) transitions hit the maximum treedepth limit of 10.
 *   Warning: 1 of 4 chains had an E-BFMI less than 0.3.
 * each followed by "See https://mc-stan.org/misc/warnings for details.";
 * then the model's quantities with R-hat above 1.01 and those with a bulk or
 * tail ESS under 100 per chain. Chains of different lengths are cut to the
 * shortest, with a warning.
 */
#pragma once

#include <glib.h>

#include "io/stan-csv-read.h"

G_BEGIN_DECLS

#define TILDE_SUMMARY_RHAT_LIMIT       1.01
#define TILDE_SUMMARY_ESS_PER_CHAIN    100
#define TILDE_SUMMARY_EBFMI_LIMIT      0.3

typedef enum {
  TILDE_SUMMARY_LP,        /* lp__ */
  TILDE_SUMMARY_SAMPLER,   /* accept_stat__, stepsize__, ... */
  TILDE_SUMMARY_MODEL,     /* parameters, transformed parameters, generated quantities */
} TildeSummaryKind;

typedef struct {
  char            *name;        /* "L[2,1]", as stansummary shows it */
  char            *column;      /* "L.2.1", as the file has it */
  TildeSummaryKind kind;
  double           mean;
  double           mcse;        /* of the mean */
  double           sd;
  double          *quantiles;   /* one per probability of the summary */
  double           ess_bulk;
  double           ess_tail;
  double           rhat;
} TildeSummaryRow;

typedef struct {
  char      *model;              /* NULL when the files do not say */
  char      *algorithm;
  char      *engine;
  guint      n_chains;
  guint      n_draws;            /* per chain, as summarised */
  guint     *chain_draws;        /* sampling draws each file held */
  gint64    *chain_warmup;       /* num_warmup of each file */
  gint64    *chain_thin;
  double    *warmup_seconds;     /* per chain; NaN where not written */
  double    *sampling_seconds;

  guint      n_probs;
  double    *probs;              /* in (0, 1), increasing */
  GPtrArray *rows;               /* TildeSummaryRow */

  gint64     max_depth;
  guint     *divergent;          /* per chain; NULL without divergent__ */
  guint     *max_treedepth;      /* per chain; NULL without treedepth__ */
  double    *ebfmi;              /* per chain; NULL without energy__ */

  GPtrArray *warnings;           /* char *, each a paragraph without final newline */
} TildeSummary;

/* Summarises CHAINS (N_CHAINS >= 1). Fails, naming the file and line, when
 * a file's columns differ from the first file's or a file has no sampling
 * draws. */
TildeSummary *tilde_summary_new     (TildeStanCsv *const *chains, guint n_chains,
                                     const double *probs, guint n_probs, GError **error);
void          tilde_summary_free    (TildeSummary *summary);

/* The table as stansummary prints it, values to SIG_FIGS significant
 * figures, then the warnings. */
char         *tilde_summary_to_text (const TildeSummary *summary, int sig_figs);
/* The same numbers as JSON; NaN and infinities as "NaN", "inf", "-inf". */
char         *tilde_summary_to_json (const TildeSummary *summary);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeSummary, tilde_summary_free)

G_END_DECLS
