/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The subcommands behind the table in tilde-cli.c. Each gets argv with its
 * own name first and returns the process exit status. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef int (*TildeCliFunc) (const char *name, int argc, char **argv);

int _tilde_cli_compile (const char *name, int argc, char **argv);

G_END_DECLS
