/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading Stan CSV files as CmdStan's sample method writes them:
 *
 *   # key = value [(Default)]      configuration, nested by indentation
 *   lp__,accept_stat__,...,theta.1  column names
 *   draws                           warmup draws first when save_warmup = 1
 *   # Adaptation terminated
 *   # Step size = 0.81
 *   # Diagonal elements of inverse mass matrix:   (or "Elements of ...")
 *   # 0.59, 1.2                                   (one line per row if dense)
 *   draws
 *   #  Elapsed Time: 0.005 seconds (Warm-up)       timing
 *
 * Files without the comment header (names and rows only) are read too; all
 * their rows are sampling draws. A file cut short by a cancelled run has its
 * incomplete last line dropped, with a warning. Anything else that does not
 * fit (no column names, a row of the wrong length, a field that is not a
 * number) is a G_IO_ERROR_INVALID_DATA naming the file and line.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One "# key = value" line of the configuration header. */
typedef struct {
  char    *key;         /* "num_samples" */
  char    *path;        /* "method.sample.num_samples": keys of the enclosing lines */
  char    *value;       /* "1000"; "" for "metric_file =  (Default)" */
  gboolean is_default;  /* the line ended in "(Default)" */
  guint    line;
} TildeStanCsvSetting;

typedef enum {
  TILDE_STAN_CSV_METRIC_NONE,   /* no adaptation comments */
  TILDE_STAN_CSV_METRIC_DIAG,
  TILDE_STAN_CSV_METRIC_DENSE,
} TildeStanCsvMetricKind;

typedef struct {
  char      *name;             /* for messages: the path it was read from */

  GPtrArray *settings;         /* TildeStanCsvSetting, in file order; empty without a header */
  /* The settings the rest of Tilde needs, from `settings` or CmdStan's defaults */
  char      *model;            /* NULL if not given */
  char      *algorithm;        /* "hmc" */
  char      *engine;           /* "nuts" */
  char      *metric;           /* "diag_e" */
  gint64     num_samples;      /* 1000 */
  gint64     num_warmup;       /* 1000 */
  gboolean   save_warmup;
  gint64     thin;             /* 1 */
  gint64     max_depth;        /* 10 */
  gint64     chain_id;         /* "id"; 1 */
  gchar     *seed;             /* as written (it may not fit an int64); NULL if not given */

  guint      n_columns;
  char     **column_names;     /* as in the file: "theta.1"; NULL-terminated */
  guint      header_line;      /* line of the column names */

  /* Adaptation: step size (NaN if absent) and inverse metric, n_metric
   * values (diagonal) or n_metric x n_metric row by row (dense). */
  double     step_size;
  TildeStanCsvMetricKind metric_kind;
  guint      n_metric;
  double    *inv_metric;

  /* Draws row by row: draw i, column j at [i * n_columns + j]. */
  guint      n_warmup_draws;
  double    *warmup_draws;
  guint      n_draws;
  double    *draws;
  guint     *draw_lines;       /* the line each sampling draw was on */

  /* "Elapsed Time" comments, in seconds; NaN if absent. */
  double     warmup_seconds;
  double     sampling_seconds;
  double     total_seconds;

  GPtrArray *warnings;         /* char *: "FILE:LINE: ..." for a dropped partial line */
} TildeStanCsv;

TildeStanCsv *tilde_stan_csv_read_file   (const char *path, GError **error);
/* NAME stands for the file in messages. */
TildeStanCsv *tilde_stan_csv_read_string (const char *text, gsize length,
                                          const char *name, GError **error);
void          tilde_stan_csv_free        (TildeStanCsv *csv);

/* The value of the setting whose key or dotted path is KEY; NULL if absent. */
const char   *tilde_stan_csv_setting     (const TildeStanCsv *csv, const char *key);
/* Index of the column NAME, or -1. */
int           tilde_stan_csv_column      (const TildeStanCsv *csv, const char *name);
/* Sampling draw I of column J. */
double        tilde_stan_csv_draw        (const TildeStanCsv *csv, guint i, guint j);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeStanCsv, tilde_stan_csv_free)

G_END_DECLS
