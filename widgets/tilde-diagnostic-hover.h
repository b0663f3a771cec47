/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

#define TILDE_TYPE_DIAGNOSTIC_HOVER (tilde_diagnostic_hover_get_type ())

G_DECLARE_FINAL_TYPE (TildeDiagnosticHover, tilde_diagnostic_hover, TILDE, DIAGNOSTIC_HOVER, GObject)

/* A hover provider that shows the full message of every problem (items of
 * `problems`, TildeProblem) under the pointer; for a call whose arguments
 * do not fit, also every signature of the function. */
TildeDiagnosticHover *tilde_diagnostic_hover_new (GListModel *problems);

/* The signatures of the built-in function a type error names, one a line
 * ("(real, real) => real"), or NULL when the message names none. For `~`
 * statements stanc names the distribution, whose density's signatures
 * are given. */
char *tilde_diagnostic_hover_signatures_for (const char *message,
                                             char      **function_name);

G_END_DECLS
