/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-trace-plot.h"

G_BEGIN_DECLS

/* Writing a run's results where people ask for them. */

/* The format a file name's extension asks for (.png, .svg, .pdf, any
 * case); FALSE for others. */
gboolean tilde_export_plot_format_for_path (const char      *path,
                                            TildePlotFormat *format);
/* Copies the Stan CSV files of a run's chains (`paths`, NULL-terminated,
 * in chain order) as CmdStan names them for `path`: the name itself for
 * one chain, out_1.csv, out_2.csv, ... for out.csv otherwise. */
gboolean tilde_export_draws                (const char *const *paths,
                                            const char        *path,
                                            GError           **error);

typedef void (*TildeExportFileFunc) (GFile *file, gpointer user_data);

/* Asks for a file to write (or, with `folder`, a folder to choose) with
 * a native dialog over `parent`'s window, then calls `func` with it
 * (not when cancelled). `filters` (may be NULL) alternate names and
 * patterns: { _("PNG Image"), "*.png", NULL }. */
void     tilde_export_choose               (GtkWidget            *parent,
                                            const char           *title,
                                            const char           *suggested_name,
                                            gboolean              folder,
                                            gboolean              open,
                                            const char *const    *filters,
                                            TildeExportFileFunc   func,
                                            gpointer              user_data);

G_END_DECLS
