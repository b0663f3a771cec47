/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scratch folders for the tests and the benchmarks: made under the
 * system's temporary folder, and gone, with everything in them, when the
 * program that made them ends normally (a failed test's are left to look
 * at).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A new empty folder, named `prefix` and six random characters, removed
 * when this process exits (not by a child forked from it). Aborts when
 * none can be made. */
char *tilde_scratch_folder_new    (const char *prefix);

/* Removes `path` and everything in it now; a symbolic link inside is
 * removed, not followed. */
void  tilde_scratch_folder_remove (const char *path);

G_END_DECLS
