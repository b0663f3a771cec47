/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/diagnostics.h"

#include <string.h>

gboolean
mir_span_is_located (const TildeSpan *span)
{
  return span && span->file != NULL && span->begin_line > 0;
}

TildeDiagnostic *
mir_warning_at (TildeDiagnosticKind kind, const TildeSpan *span, char *message)
{
  int end_line = span->end_line, end_column = span->end_column;
  TildeDiagnostic *diag;

  if (span->end_file != NULL && span->end_file != span->file)
    {
      end_line = span->begin_line;
      end_column = span->begin_column;
    }
  diag = tilde_diagnostic_new (TILDE_SEVERITY_WARNING, kind,
                               span->file ? span->file->name : NULL,
                               span->begin_line, span->begin_column, end_line, end_column,
                               message);
  if (span->file)
    tilde_source_file_add_include_frames (span->file, diag);
  g_free (message);
  return diag;
}

static int
compare_warnings (gconstpointer pa, gconstpointer pb)
{
  const TildeDiagnostic *a = *(TildeDiagnostic *const *) pa;
  const TildeDiagnostic *b = *(TildeDiagnostic *const *) pb;
  int c;

  if ((c = g_strcmp0 (a->file, b->file)) != 0)
    return -c;
  if (a->begin_line != b->begin_line)
    return b->begin_line - a->begin_line;
  if (a->begin_column != b->begin_column)
    return b->begin_column - a->begin_column;
  if (a->end_line != b->end_line)
    return b->end_line - a->end_line;
  if (a->end_column != b->end_column)
    return b->end_column - a->end_column;
  return -g_strcmp0 (a->message, b->message);
}

void
mir_sort_warnings (GPtrArray *warnings)
{
  g_ptr_array_sort (warnings, compare_warnings);
}

static gboolean
same_warning (const TildeDiagnostic *a, const TildeDiagnostic *b)
{
  return g_strcmp0 (a->file, b->file) == 0 && a->begin_line == b->begin_line
         && a->begin_column == b->begin_column && a->end_line == b->end_line
         && a->end_column == b->end_column && g_strcmp0 (a->message, b->message) == 0;
}

void
mir_add_warnings (GPtrArray *found, GPtrArray *diagnostics)
{
  mir_sort_warnings (found);
  for (guint i = 0; i < found->len; i++)
    {
      TildeDiagnostic *d = g_ptr_array_index (found, i);
      if (i > 0 && same_warning (d, g_ptr_array_index (found, i - 1)))
        continue;
      g_ptr_array_add (diagnostics, tilde_diagnostic_copy (d));
    }
}

char *
mir_span_to_string (const TildeSpan *span)
{
  GString *out = g_string_new (NULL);
  const TildeSourceFile *f = span->file;

  g_string_append_printf (out, "'%s', line %d, column %d", f ? f->name : "",
                          span->begin_line, span->begin_column);
  if (f && f->included_from)
    {
      for (const TildeSourceFile *in = f; in->included_from; in = in->included_from)
        g_string_append_printf (out, ", included from\n'%s', line %d, column %d",
                                in->included_from->name, in->include_line,
                                in->include_column);
      return g_string_free (out, FALSE);
    }
  g_string_append (out, " to ");
  if (span->end_line != span->begin_line)
    g_string_append_printf (out, "line %d, ", span->end_line);
  g_string_append_printf (out, "column %d", span->end_column);
  return g_string_free (out, FALSE);
}
