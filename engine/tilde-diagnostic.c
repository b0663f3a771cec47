/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "tilde-diagnostic.h"

#include <json-glib/json-glib.h>

TildeDiagnostic *
tilde_diagnostic_new (TildeSeverity       severity,
                      TildeDiagnosticKind kind,
                      const char         *file,
                      int begin_line, int begin_column,
                      int end_line, int end_column,
                      const char         *message)
{
  TildeDiagnostic *diag = g_new0 (TildeDiagnostic, 1);

  diag->severity = severity;
  diag->kind = kind;
  diag->file = g_strdup (file);
  diag->begin_line = begin_line;
  diag->begin_column = begin_column;
  diag->end_line = end_line;
  diag->end_column = end_column;
  diag->message = g_strdup (message ? message : "");
  return diag;
}

static void
include_frame_clear (gpointer data)
{
  TildeIncludeFrame *frame = data;

  g_free (frame->file);
}

void
tilde_diagnostic_add_include_frame (TildeDiagnostic *diag,
                                    const char      *file,
                                    int              line,
                                    int              column)
{
  TildeIncludeFrame frame = { g_strdup (file), line, column };

  if (diag->include_frames == NULL)
    {
      diag->include_frames = g_array_new (FALSE, FALSE, sizeof (TildeIncludeFrame));
      g_array_set_clear_func (diag->include_frames, include_frame_clear);
    }
  g_array_append_val (diag->include_frames, frame);
}

TildeDiagnostic *
tilde_diagnostic_copy (const TildeDiagnostic *diag)
{
  TildeDiagnostic *copy = tilde_diagnostic_new (diag->severity, diag->kind, diag->file,
                                                diag->begin_line, diag->begin_column,
                                                diag->end_line, diag->end_column,
                                                diag->message);

  for (guint i = 0; diag->include_frames && i < diag->include_frames->len; i++)
    {
      const TildeIncludeFrame *f = &g_array_index (diag->include_frames, TildeIncludeFrame, i);
      tilde_diagnostic_add_include_frame (copy, f->file, f->line, f->column);
    }
  return copy;
}

void
tilde_diagnostic_free (TildeDiagnostic *diag)
{
  if (diag == NULL)
    return;
  g_free (diag->file);
  g_free (diag->message);
  g_clear_pointer (&diag->include_frames, g_array_unref);
  g_free (diag);
}

gboolean
tilde_diagnostic_is_error (const TildeDiagnostic *diag)
{
  return diag->severity == TILDE_SEVERITY_ERROR;
}

GPtrArray *
tilde_diagnostic_list_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_diagnostic_free);
}

gboolean
tilde_diagnostic_list_has_errors (GPtrArray *list)
{
  for (guint i = 0; list && i < list->len; i++)
    if (tilde_diagnostic_is_error (g_ptr_array_index (list, i)))
      return TRUE;
  return FALSE;
}

const char *
tilde_severity_to_string (TildeSeverity severity)
{
  switch (severity)
    {
    case TILDE_SEVERITY_ERROR: return "error";
    case TILDE_SEVERITY_WARNING: return "warning";
    case TILDE_SEVERITY_INFO: return "info";
    default: return "unknown";
    }
}

const char *
tilde_diagnostic_kind_to_string (TildeDiagnosticKind kind)
{
  switch (kind)
    {
    case TILDE_DIAG_LEXING: return "lexing";
    case TILDE_DIAG_PARSING: return "parsing";
    case TILDE_DIAG_INCLUDE: return "include";
    case TILDE_DIAG_SEMANTIC: return "semantic";
    case TILDE_DIAG_WARNING: return "warning";
    case TILDE_DIAG_PEDANTIC: return "pedantic";
    case TILDE_DIAG_UNINITIALIZED: return "uninitialized";
    case TILDE_DIAG_DATA: return "data";
    case TILDE_DIAG_RUNTIME: return "runtime";
    default: return "unknown";
    }
}

char *
tilde_diagnostics_to_json (GPtrArray *list)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_array (builder);
  for (guint i = 0; list && i < list->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (list, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "severity");
      json_builder_add_string_value (builder, tilde_severity_to_string (d->severity));
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, tilde_diagnostic_kind_to_string (d->kind));
      json_builder_set_member_name (builder, "file");
      if (d->file)
        json_builder_add_string_value (builder, d->file);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "begin_line");
      json_builder_add_int_value (builder, d->begin_line);
      json_builder_set_member_name (builder, "begin_column");
      json_builder_add_int_value (builder, d->begin_column);
      json_builder_set_member_name (builder, "end_line");
      json_builder_add_int_value (builder, d->end_line);
      json_builder_set_member_name (builder, "end_column");
      json_builder_add_int_value (builder, d->end_column);
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, d->message);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, NULL);
}
