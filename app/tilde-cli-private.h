/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The subcommands behind the table in tilde-cli.c. Each gets argv with its
 * own name first and returns the process exit status. */
#pragma once

#include <glib.h>

#include "mir/passes/passes.h"
#include "runtime/model.h"

G_BEGIN_DECLS

typedef int (*TildeCliFunc) (const char *name, int argc, char **argv);

int _tilde_cli_compile   (const char *name, int argc, char **argv);
int _tilde_cli_log_prob  (const char *name, int argc, char **argv);
int _tilde_cli_diagnose  (const char *name, int argc, char **argv);
int _tilde_cli_optimize  (const char *name, int argc, char **argv);
int _tilde_cli_summary   (const char *name, int argc, char **argv);
int _tilde_cli_sample    (const char *name, int argc, char **argv);
int _tilde_cli_generate  (const char *name, int argc, char **argv);
int _tilde_cli_devices   (const char *name, int argc, char **argv);

/* --device, --use-opencl and --debug-opencl, for the subcommands that run a
 * model; _tilde_cli_load_model puts the model on the device they ask for. */
GOptionGroup *_tilde_cli_device_option_group (void);
/* --include-paths, as stanc's, for the subcommands that read a model;
 * _tilde_cli_load_model reads the model with them. */
GOptionGroup *_tilde_cli_model_option_group (void);

/* The model in MODEL_PATH with the data in DATA_PATH (may be NULL), optimised
 * at LEVEL and prepared for evaluation, the random numbers of its
 * transformed data drawn from stream 0 of SEED (the chains take 1, 2, ...,
 * as CmdStan seeds the model it builds); NULL after printing what went
 * wrong, with the exit status in *STATUS. */
TildeModel *_tilde_cli_load_model (const char  *model_path,
                                   const char  *data_path,
                                   MirOptLevel  level,
                                   guint64      seed,
                                   int         *status);
/* Prints a warning on standard error for each statement whose kernel
 * failed on the device while the model ran (it ran on the CPU from then
 * on). */
void        _tilde_cli_report_device_failures (TildeModel *model);
/* "bernoulli_model" for "path/bernoulli.stan", as CmdStan names a model
 * in its CSV headers. */
char       *_tilde_cli_model_name (const char *model_path);
/* "tilde COMMAND: " and the message on standard error; returns FALSE. */
gboolean    _tilde_cli_usage_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* One level from --O0/--O1/--Oexperimental; FALSE (after a message) for more than one. */
gboolean    _tilde_cli_parse_level (gboolean o0, gboolean o1, gboolean oexperimental,
                                    MirOptLevel *level);
/* --context joint|prior|likelihood (NULL: joint); FALSE for anything else. */
gboolean    _tilde_cli_parse_context (const char *text, TildeModelContext *context);
/* VALUE as JSON: shortest round-trip text, CmdStan's "inf", "-inf", "NaN". */
void        _tilde_cli_append_double (GString *out, double value);

G_END_DECLS
