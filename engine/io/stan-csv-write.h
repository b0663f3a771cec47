/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Writing Stan CSV files as CmdStan writes them: a comment header with the
 * run's configuration ("# key = value (Default)", nested by indentation),
 * the column names, comments with the adapted step size and inverse
 * metric, one row per draw, and the elapsed times at the end.
 *
 * Numbers are written like a C++ stream with `sig_figs` significant digits
 * (6 when sig_figs is -1, as CmdStan does): 0.247601, 1e-05, nan, -inf.
 * Only whole rows reach the file, so a run stopped between rows leaves a
 * file every Stan tool reads.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef struct TildeCsvWriter TildeCsvWriter;

/* Creates (truncates) `path`. sig_figs: -1 for CmdStan's default, or 1..18. */
TildeCsvWriter *tilde_csv_writer_open       (const char *path, int sig_figs, GError **error);
/* A writer on a stream the caller keeps open (stdout, a memory stream). */
TildeCsvWriter *tilde_csv_writer_new_for_stream (FILE *stream, int sig_figs);

/* "# text" (the text may be empty: "# "). */
void     tilde_csv_writer_comment    (TildeCsvWriter *writer, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* A configuration line at `depth` (two spaces each): "# key = value",
 * with " (Default)" when `is_default`; a NULL value writes the section
 * line "#   key" instead. */
void     tilde_csv_writer_config     (TildeCsvWriter *writer, guint depth, const char *key,
                                      const char *value, gboolean is_default);
void     tilde_csv_writer_names      (TildeCsvWriter *writer, const char *const *names, gsize n);
void     tilde_csv_writer_row        (TildeCsvWriter *writer, const double *values, gsize n);
/* "# Adaptation terminated", the step size, and the inverse metric: its
 * diagonal on one line, or (dense) its n rows. A NULL metric writes the
 * step size only. */
void     tilde_csv_writer_adaptation (TildeCsvWriter *writer, double step_size,
                                      const double *inverse_metric, gsize n, gboolean dense);
/* The closing block with warm-up, sampling and total seconds. */
void     tilde_csv_writer_timing     (TildeCsvWriter *writer, double warmup_seconds,
                                      double sampling_seconds);
/* Formats one number as the writer does into `buffer` (at least 32 bytes). */
void     tilde_csv_format_double     (char *buffer, gsize size, double value, int sig_figs);

/* Pushes what has been written to the file. */
gboolean tilde_csv_writer_flush      (TildeCsvWriter *writer, GError **error);
/* Flushes and closes (the file of tilde_csv_writer_open only) and frees
 * the writer; FALSE with `error` set when anything failed to be written
 * at any point. */
gboolean tilde_csv_writer_close      (TildeCsvWriter *writer, GError **error);

G_END_DECLS
