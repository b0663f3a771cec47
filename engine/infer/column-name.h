/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Stan CSV column names ("theta.2.1") as Stan prints elements
 * ("theta[2,1]"), for the summary, its table and the plots alike. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The ".2.1" that ends an element's name, or NULL. */
const char *tilde_column_index_suffix (const char *column);
/* "theta.1" -> "theta[1]", "L.2.1" -> "L[2,1]", "bar:2.1" -> "bar:2[1]";
 * other names unchanged. */
char       *tilde_column_display_name (const char *column);

G_END_DECLS
