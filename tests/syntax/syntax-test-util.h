/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the syntax tests. */
#pragma once

#include <glib.h>

#include "syntax/parser.h"

G_BEGIN_DECLS

/* Path of a fixture under tests/syntax/models. */
char         *syntax_test_model_path (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* The fixture's text; aborts the test when it cannot be read. */
char         *syntax_test_read (const char *path);
/* Parses text shown as `name`; diagnostics go to *diags (created here). */
TildeProgram *syntax_test_parse (const char *name, const char *text, GPtrArray **diags);
/* The rendered text of every diagnostic, joined. */
char         *syntax_test_render_all (GPtrArray *diags, TildeProgram *program);
/* The first error-severity diagnostic, or NULL. */
TildeDiagnostic *syntax_test_first_error (GPtrArray *diags);
/* Fixture names in tests/syntax/models/<dir> ending in `suffix`, sorted. */
GPtrArray    *syntax_test_list (const char *dir, const char *suffix);

G_END_DECLS
