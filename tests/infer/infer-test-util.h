/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the inference tests: models from source text or files,
 * runs kept in memory, and the Monte Carlo summaries the tests judge. */
#pragma once

#include <glib.h>

#include "infer/run.h"

G_BEGIN_DECLS

/* A prepared model; data (JSON text) may be NULL. Fails the test on errors. */
TildeModel     *infer_test_model        (const char *source, const char *data_json);
TildeModel     *infer_test_model_file   (const char *stan_path, const char *data_path);

/* Options for a quiet run kept in memory (no files). */
void            infer_test_options      (TildeSampleOptions *options, guint chains, guint warmup,
                                         guint samples, guint64 seed);
/* Starts and waits; fails the test when the run fails. */
TildeSampleRun *infer_test_run          (TildeModel *model, const TildeSampleOptions *options);

/* The index of column `name`; fails the test when there is none. */
gsize           infer_test_column       (TildeSampleRun *run, const char *name);
/* Column `col` of the sampling draws of every chain, chain after chain;
 * `per_chain` receives the draws per chain. A new array. */
double         *infer_test_draws        (TildeSampleRun *run, gsize col, gsize *per_chain);

typedef struct {
  double mean, sd;
  double mcse;    /* batch means: the larger of batches of 50 and of 100 draws */
  double rhat;    /* classic split R-hat (BDA3) */
} InferTestSummary;

/* Summary of `chains` chains of `per_chain` draws each, stored one after
 * the other. */
void            infer_test_summarise    (const double *x, guint chains, gsize per_chain,
                                         InferTestSummary *summary);

G_END_DECLS
