/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line: `tilde SUBCOMMAND ...` scripts what the window does. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit statuses, following stanc and CmdStan. */
enum {
  TILDE_EXIT_OK = 0,
  TILDE_EXIT_MODEL_ERROR = 1,
  TILDE_EXIT_USAGE = 124,
  TILDE_EXIT_INTERNAL = 125,
};

/* TRUE when argv[1] asks for the command line rather than the window. */
gboolean tilde_cli_wants (int argc, char **argv);
/* Runs the command line; returns the process exit status. */
int      tilde_cli_run   (int argc, char **argv);

G_END_DECLS
