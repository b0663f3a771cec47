/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the run shares with its CSV header writer. */
#pragma once

#include "infer/run.h"
#include "io/stan-csv-write.h"

G_BEGIN_DECLS

typedef struct {
  guint        chain_id;
  guint        threads;
  gboolean     fixed_param;
  gboolean     adapt_engaged;
  const char  *start_datetime;   /* "2023-11-29 16:52:51 UTC" */
} TildeSampleHeaderInfo;

/* CmdStan 2.33's configuration comments for a sample run, one file. */
void _tilde_sample_write_config (TildeCsvWriter              *writer,
                                 const TildeSampleOptions    *options,
                                 const TildeSampleHeaderInfo *info);

/* The first lines of every CmdStan header: stan_version_major, _minor
 * and _patch. */
void _tilde_csv_write_version_config (TildeCsvWriter *writer);

G_END_DECLS
