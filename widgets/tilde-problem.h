/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-diagnostic.h"

G_BEGIN_DECLS

#define TILDE_TYPE_PROBLEM (tilde_problem_get_type ())

G_DECLARE_FINAL_TYPE (TildeProblem, tilde_problem, TILDE, PROBLEM, GObject)

/* One diagnostic of the editor's last check, as an item of its problems
 * model. `begin` and `end` mark where it is in the buffer, so the place
 * follows later edits; both are NULL for a diagnostic with no place in the
 * buffer (a pedantic warning about the whole model, say). The problem owns
 * the marks and deletes them when it goes. */
TildeProblem          *tilde_problem_new            (const TildeDiagnostic *diagnostic,
                                                     GtkTextMark           *begin,
                                                     GtkTextMark           *end);
const TildeDiagnostic *tilde_problem_get_diagnostic (TildeProblem *self);
TildeSeverity          tilde_problem_get_severity   (TildeProblem *self);
/* The whole message, possibly several lines. */
const char            *tilde_problem_get_message    (TildeProblem *self);
/* The message on one line. */
const char            *tilde_problem_get_summary    (TildeProblem *self);
/* "Line 12" for the edited model, "other.stan:3" for an included file,
 * "" when there is no place. */
const char            *tilde_problem_get_location   (TildeProblem *self);
const char            *tilde_problem_get_icon_name  (TildeProblem *self);
/* Where it now is in the buffer; FALSE when it has no place there. */
gboolean               tilde_problem_get_bounds     (TildeProblem *self,
                                                     GtkTextIter  *begin,
                                                     GtkTextIter  *end);

G_END_DECLS
