/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Standalone generated quantities, as CmdStan's generate_quantities
 * method runs them: for every sampling draw of a Stan CSV file, the
 * constrained parameter values are read by name, unconstrained, and the
 * transformed parameters and generated quantities are run again with a
 * random stream of the seed and the file's chain id.
 *
 * The file written has CmdStan's layout: a configuration header
 * (method = generate_quantities, fitted_params = FILE), then the input's
 * sampler columns (lp__, accept_stat__, ...) and parameters as they were,
 * followed by the model's transformed parameters and generated
 * quantities, one row per input draw.
 *
 * Errors are values. A file that lacks one of the model's parameter
 * columns, or holds an element the model's parameter has not (another
 * size), is a mismatch; a draw whose values the model cannot unconstrain
 * (a constraint violated) is an error naming its line. A draw whose
 * generated quantities raise an error (a domain error, reject()) does not
 * stop the run: its message goes to `message` and the row gets NaN for
 * the quantities, as CmdStan writes it.
 */
#pragma once

#include <glib.h>

#include "io/stan-csv-read.h"
#include "io/stan-csv-write.h"
#include "runtime/model.h"

G_BEGIN_DECLS

#define TILDE_GENERATE_ERROR (tilde_generate_error_quark ())
GQuark tilde_generate_error_quark (void);

typedef enum {
  TILDE_GENERATE_ERROR_NO_QUANTITIES, /* the model has no generated quantities */
  TILDE_GENERATE_ERROR_MISMATCH,      /* the file's parameters are not the model's */
  TILDE_GENERATE_ERROR_NO_DRAWS,      /* the file has no sampling draws */
  TILDE_GENERATE_ERROR_DRAW,          /* a draw the model cannot read */
} TildeGenerateError;

typedef struct {
  guint64     seed;
  gboolean    seed_given;      /* else the header marks the seed "(Default)" */
  int         sig_figs;        /* -1: six, as CmdStan */
  /* recorded in the header only */
  const char *model_name;      /* "bernoulli_model" */
  const char *fitted_params;   /* the input file */
  const char *data_file;       /* NULL: none */
  const char *output;          /* the file written */
  const char *compiler_flags;  /* "--O1" */
} TildeGenerateOptions;

/* Receives the message of a draw whose quantities failed (draw counts
 * from 1). */
typedef void (*TildeGenerateMessageFunc) (guint draw, const char *text, gpointer user_data);

/* Whether `csv` holds the parameters of `model`, with generated
 * quantities to compute; FALSE with `error` set otherwise. */
gboolean tilde_generate_check (TildeModel         *model,
                               const TildeStanCsv *csv,
                               GError            **error);

/* Writes the header, the names and one row per sampling draw of `csv` to
 * `writer`; the random stream is that of `options->seed` and the file's
 * chain id. `*n_failed` (may be NULL) receives the number of draws whose
 * quantities failed. */
gboolean tilde_generate_quantities (TildeModel                 *model,
                                    const TildeStanCsv         *csv,
                                    const TildeGenerateOptions *options,
                                    TildeCsvWriter             *writer,
                                    TildeGenerateMessageFunc    message,
                                    gpointer                    user_data,
                                    guint                      *n_failed,
                                    GError                    **error);

G_END_DECLS
