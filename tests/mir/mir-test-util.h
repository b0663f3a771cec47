/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the MIR tests. */
#pragma once

#include <glib.h>

#include "tilde-frontend.h"
#include "mir/mir.h"

G_BEGIN_DECLS

/* Checks `text` (shown as `name`) and lowers it; the test fails when the
 * program has errors. *result (may be NULL) receives the check result. */
MirProgram *mir_test_lower (const char *name, const char *text, TildeCheckResult **result);
/* The same for a file on disk. */
MirProgram *mir_test_lower_file (const char *path, TildeCheckResult **result);
/* Path of a fixture under tests/mir/models (or tests/syntax/models/valid when
 * `dir` is "syntax"). */
char       *mir_test_path (const char *dir, const char *name);
/* `text` with every run of white space made one space (none just inside
 * brackets), trimmed: stanc's folded lines joined. */
char       *mir_test_squash (const char *text);
/* Fails the test with a unified view when the texts differ. */
void        mir_test_assert_text (const char *what, const char *got, const char *expected);

G_END_DECLS
