/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "tilde-diagnostic-render.h"

#include <string.h>

#define RULE "   -------------------------------------------------\n"
/* stanc wraps warnings at this width, continuing with four spaces. */
#define WARNING_MARGIN 77

/* Line `line` (1-based) of text, without its line ending. */
static gboolean
find_line (const char *text, int line, const char **start, gsize *length)
{
  const char *p = text;

  if (line < 1)
    return FALSE;
  for (int n = 1; n < line; n++)
    {
      p = strchr (p, '\n');
      if (p == NULL)
        return FALSE;
      p++;
    }
  /* Like OCaml's String.split_lines, there is no empty line after a final
   * newline. */
  if (*p == '\0')
    return FALSE;
  *start = p;
  *length = strcspn (p, "\n");
  if (*length > 0 && p[*length - 1] == '\r')
    (*length)--;
  return TRUE;
}

static void
append_numbered_line (GString *out, const char *text, int line)
{
  const char *start;
  gsize length;

  if (!find_line (text, line, &start, &length))
    return;
  g_string_append_printf (out, "%6d:  ", line);
  g_string_append_len (out, start, (gssize) length);
  g_string_append_c (out, '\n');
}

char *
tilde_diagnostic_render_excerpt (const char *text, int line, int column)
{
  GString *out = g_string_new (RULE);
  const char *start = "";
  gsize length = 0;

  append_numbered_line (out, text, line - 2);
  append_numbered_line (out, text, line - 1);
  append_numbered_line (out, text, line);
  /* Tabs are copied so that the caret lines up with the text above it. */
  g_string_append (out, "         ");
  if (!find_line (text, line, &start, &length))
    length = 0;
  for (int i = 0; i < column && (gsize) i < length; i++)
    g_string_append_c (out, start[i] == '\t' ? '\t' : ' ');
  for (gsize i = length; (gsize) column > i; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, "^\n");
  append_numbered_line (out, text, line + 1);
  append_numbered_line (out, text, line + 2);
  g_string_append (out, RULE);
  return g_string_free (out, FALSE);
}

/* "'f.stan', line 3, column 4" followed by the include chain. */
static void
append_location (GString *out, const TildeDiagnostic *diag, int column)
{
  g_string_append_printf (out, "'%s', line %d, column %d", diag->file ? diag->file : "",
                          diag->begin_line, column);
  for (guint i = 0; diag->include_frames && i < diag->include_frames->len; i++)
    {
      const TildeIncludeFrame *f = &g_array_index (diag->include_frames, TildeIncludeFrame, i);

      g_string_append_printf (out, ", included from\n'%s', line %d, column %d",
                              f->file, f->line, f->column);
    }
}

static gboolean
is_included (const TildeDiagnostic *diag)
{
  return diag->include_frames && diag->include_frames->len > 0;
}

/* A span prints its end only when it is not in an included file; the end
 * line is left out when it is the begin line. */
static void
append_span (GString *out, const TildeDiagnostic *diag)
{
  append_location (out, diag, diag->begin_column);
  if (is_included (diag))
    return;
  g_string_append (out, " to ");
  if (diag->end_line != diag->begin_line)
    g_string_append_printf (out, "line %d, ", diag->end_line);
  g_string_append_printf (out, "column %d", diag->end_column);
}

/* Fills words into lines of at most WARNING_MARGIN columns, as stanc's
 * pretty printer does; the header counts as one unbroken string. */
static void
append_wrapped (GString *out, gsize column, const char *message)
{
  g_auto(GStrv) lines = g_strsplit (message, "\n", -1);

  for (int l = 0; lines[l]; l++)
    {
      g_auto(GStrv) words = g_strsplit (lines[l], " ", -1);
      gboolean first = TRUE;

      if (l > 0)
        {
          g_string_append (out, "\n    ");
          column = 4;
        }
      for (int w = 0; words[w]; w++)
        {
          gsize len = strlen (words[w]);

          if (!first)
            {
              if (column + 1 + len > WARNING_MARGIN)
                {
                  g_string_append (out, "\n    ");
                  column = 4;
                }
              else
                {
                  g_string_append_c (out, ' ');
                  column++;
                }
            }
          g_string_append (out, words[w]);
          column += len;
          first = FALSE;
        }
    }
}

static char *
render_warning (const TildeDiagnostic *diag)
{
  GString *out = g_string_new ("Warning");

  if (diag->begin_line > 0)
    {
      g_string_append (out, " in ");
      append_location (out, diag, diag->begin_column);
    }
  g_string_append (out, ": ");
  append_wrapped (out, out->len, diag->message);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

char *
tilde_diagnostic_render (const TildeDiagnostic *diag,
                         TildeSourceLookup      lookup,
                         gpointer               user_data)
{
  GString *out;
  const char *text;

  if (!tilde_diagnostic_is_error (diag))
    return render_warning (diag);
  if (diag->begin_line <= 0)
    return g_strdup_printf ("Error: %s\n", diag->message);

  out = g_string_new (NULL);
  switch (diag->kind)
    {
    case TILDE_DIAG_LEXING:
      /* stanc prints lexing positions one column to the left of the caret. */
      g_string_append (out, "Syntax error in ");
      append_location (out, diag, diag->begin_column - 1);
      g_string_append (out, ", lexing error:");
      break;
    case TILDE_DIAG_INCLUDE:
      g_string_append (out, "Syntax error in ");
      append_location (out, diag, diag->begin_column);
      g_string_append (out, ", include error:");
      break;
    case TILDE_DIAG_PARSING:
      g_string_append (out, "Syntax error in ");
      append_span (out, diag);
      g_string_append (out, ", parsing error:");
      break;
    case TILDE_DIAG_DATA:
    case TILDE_DIAG_RUNTIME:
      /* raised while the model ran (transformed data, say), at a statement */
      g_string_append (out, "Error in ");
      append_span (out, diag);
      g_string_append_c (out, ':');
      break;
    default:
      g_string_append (out, "Semantic error in ");
      append_span (out, diag);
      g_string_append_c (out, ':');
      break;
    }
  g_string_append_c (out, '\n');
  text = lookup && diag->file ? lookup (diag->file, user_data) : NULL;
  if (text)
    {
      g_autofree char *excerpt = tilde_diagnostic_render_excerpt (text, diag->begin_line,
                                                                   diag->begin_column);
      g_string_append (out, excerpt);
    }
  g_string_append_c (out, '\n');
  g_string_append (out, diag->message);
  if (out->len == 0 || out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

static const char *
lookup_in_set (const char *file, gpointer user_data)
{
  return tilde_source_set_lookup_text (user_data, file);
}

char *
tilde_diagnostic_render_with_sources (const TildeDiagnostic *diag, TildeSourceSet *sources)
{
  return tilde_diagnostic_render (diag, sources ? lookup_in_set : NULL, sources);
}
