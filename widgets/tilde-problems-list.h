/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-editor.h"

G_BEGIN_DECLS

#define TILDE_TYPE_PROBLEMS_LIST (tilde_problems_list_get_type ())

G_DECLARE_FINAL_TYPE (TildeProblemsList, tilde_problems_list, TILDE, PROBLEMS_LIST, GtkWidget)

/* The problems of an editor's last check, one row each (severity icon,
 * line, first line of the message), with a count of errors and warnings.
 * Clicking a row or pressing Enter on it takes the editor's cursor there. */
GtkWidget   *tilde_problems_list_new        (void);
TildeEditor *tilde_problems_list_get_editor (TildeProblemsList *self);
void         tilde_problems_list_set_editor (TildeProblemsList *self,
                                             TildeEditor       *editor);

G_END_DECLS
