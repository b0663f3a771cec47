/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Warnings from analyses, as diagnostics at MIR source spans. */
#pragma once

#include <glib.h>

#include "tilde-diagnostic.h"
#include "syntax/source.h"

G_BEGIN_DECLS

/* Whether a span points at source text (generated code may have none). */
gboolean         mir_span_is_located   (const TildeSpan *span);
/* A warning of `kind` at `span`; takes `message`. A span that runs into
 * another file is cut at its beginning, as the type checker does. */
TildeDiagnostic *mir_warning_at        (TildeDiagnosticKind kind, const TildeSpan *span,
                                        char *message);
/* Sorts warnings as the Stan compiler prints its analysis warnings: by
 * position, last first (then by message). */
void             mir_sort_warnings     (GPtrArray *warnings);
/* Appends copies of `found` to `diagnostics`, sorted by
 * mir_sort_warnings, leaving out repeats (same place, same message). */
void             mir_add_warnings      (GPtrArray *found, GPtrArray *diagnostics);
/* stanc's Location_span.to_string: "'f.stan', line 3, column 4 to column 9"
 * (or "to line 5, column 2"), with ", included from ..." for includes. */
char            *mir_span_to_string    (const TildeSpan *span);

G_END_DECLS
