/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-editor.h"

G_BEGIN_DECLS

#define TILDE_TYPE_PROBLEMS_LIST (tilde_problems_list_get_type ())

G_DECLARE_FINAL_TYPE (TildeProblemsList, tilde_problems_list, TILDE, PROBLEMS_LIST, GtkWidget)

/* Problems (TildeProblem items), one row each (severity icon, line, first
 * line of the message), with a count of errors and warnings and a spinner
 * while :checking. Clicking a row or pressing Enter on it emits
 * ::problem-activated.
 *
 * Given an :editor, it shows the problems of the editor's last check,
 * spins while the editor checks, and an activated problem takes the
 * editor's cursor there. Anything else that lists problems (the data
 * panel) sets :problems and :checking itself and handles
 * ::problem-activated. */
GtkWidget   *tilde_problems_list_new          (void);
TildeEditor *tilde_problems_list_get_editor   (TildeProblemsList *self);
void         tilde_problems_list_set_editor   (TildeProblemsList *self,
                                               TildeEditor       *editor);
GListModel  *tilde_problems_list_get_problems (TildeProblemsList *self);
void         tilde_problems_list_set_problems (TildeProblemsList *self,
                                               GListModel        *problems);
gboolean     tilde_problems_list_get_checking (TildeProblemsList *self);
void         tilde_problems_list_set_checking (TildeProblemsList *self,
                                               gboolean           checking);
/* What the spinner's tooltip says ("Checking the model" unless set). */
void         tilde_problems_list_set_checking_tooltip (TildeProblemsList *self,
                                                       const char        *tooltip);

G_END_DECLS
