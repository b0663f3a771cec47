/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

#include "semantics/library/doc-private.h"

/* ------------------------------------------------------------ layout */

/* "<v 2>" after "@[": the box kind and indentation. */
static const char *
parse_box_spec (const char *p, DocBoxKind *kind, int *indent)
{
  *kind = DOC_HOV;
  *indent = 0;
  if (*p != '<')
    return p;
  p++;
  if (g_str_has_prefix (p, "hov"))
    p += 3;
  else if (g_str_has_prefix (p, "hv"))
    *kind = DOC_HV, p += 2;
  else if (*p == 'h')
    *kind = DOC_H, p++;
  else if (*p == 'v')
    *kind = DOC_V, p++;
  else if (*p == 'b')
    p++;
  while (*p == ' ')
    p++;
  while (g_ascii_isdigit (*p))
    *indent = *indent * 10 + (*p++ - '0');
  while (*p && *p != '>')
    p++;
  return *p == '>' ? p + 1 : p;
}

static void
flush_text (GPtrArray *stack, GString *text)
{
  if (text->len == 0)
    return;
  doc_text (g_ptr_array_index (stack, stack->len - 1), text->str);
  g_string_truncate (text, 0);
}

/* One line of markup (no forced newlines) appended to `out`. */
static void
layout_line (const char *markup, const char *end, GString *out)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  g_autoptr (GString) text = g_string_new (NULL);
  /* stanc's messages are laid out in a vertical box: a break hint outside
   * any inner box always starts a new line */
  Doc *top = doc_box (DOC_V, 0);

  g_ptr_array_add (stack, top);
  for (const char *p = markup; p < end; p++)
    {
      Doc *box = g_ptr_array_index (stack, stack->len - 1);

      if (*p != '@' || p + 1 >= end)
        {
          g_string_append_c (text, *p);
          continue;
        }
      p++;
      switch (*p)
        {
        case ' ':
        case ';':
          flush_text (stack, text);
          doc_space (box);
          break;
        case ',':
          flush_text (stack, text);
          doc_cut (box);
          break;
        case '[':
          {
            DocBoxKind kind;
            int indent;
            Doc *child;

            flush_text (stack, text);
            p = parse_box_spec (p + 1, &kind, &indent) - 1;
            child = doc_box (kind, indent);
            doc_add (box, child);
            g_ptr_array_add (stack, child);
          }
          break;
        case ']':
          flush_text (stack, text);
          if (stack->len > 1)
            g_ptr_array_set_size (stack, stack->len - 1);
          break;
        case '.':
          break;
        default:
          g_string_append_c (text, *p);
          break;
        }
    }
  flush_text (stack, text);
  doc_render (top, out, 0);
  doc_free (top);
}

char *
_tilde_check_layout (const char *markup)
{
  GString *out = g_string_new (NULL);
  const char *line = markup;

  for (;;)
    {
      const char *nl = strchr (line, '\n');
      const char *end = nl ? nl : line + strlen (line);

      layout_line (line, end, out);
      if (nl == NULL)
        break;
      g_string_append_c (out, '\n');
      line = nl + 1;
    }
  return g_string_free (out, FALSE);
}


const char *
_tilde_type_name (const TildeType *type)
{
  g_autofree char *s = type ? tilde_type_to_string (type) : g_strdup ("<error>");

  return g_intern_string (s);
}

char *
_tilde_expected_types (const TildeType *const *types, guint n)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        {
          if (n == 2)
            g_string_append (out, " or ");
          else if (i == n - 1)
            g_string_append (out, ",@ or ");
          else
            g_string_append (out, ",@ ");
        }
      g_string_append (out, _tilde_type_name (types[i]));
    }
  return g_string_free (out, FALSE);
}

char *
_tilde_found_type (const TildeType *type)
{
  return g_strdup_printf ("@ Instead found type %s.", _tilde_type_name (type));
}

/* ------------------------------------------------------------ reporting */

static void
add_diagnostic (TildeChecker *c, TildeSeverity severity, TildeDiagnosticKind kind,
                const TildeSpan *span, const char *text)
{
  TildeDiagnostic *diag;
  int end_line = span->end_line, end_column = span->end_column;

  /* a span reaching into another file is cut at the end of its first line,
   * the way stanc reports it in the including file's terms */
  if (span->end_file != NULL && span->end_file != span->file)
    {
      end_line = span->begin_line;
      end_column = span->begin_column;
    }
  diag = tilde_diagnostic_new (severity, kind, span->file ? span->file->name : NULL,
                               span->begin_line, span->begin_column,
                               end_line, end_column, text);
  if (span->file)
    tilde_source_file_add_include_frames (span->file, diag);
  g_ptr_array_add (c->diags, diag);
}

void
_tilde_check_error_take (TildeChecker *c, const TildeSpan *span, char *text)
{
  c->n_errors++;
  add_diagnostic (c, TILDE_SEVERITY_ERROR, TILDE_DIAG_SEMANTIC, span, text);
  g_free (text);
}

void
_tilde_check_error (TildeChecker *c, const TildeSpan *span, const char *markup, ...)
{
  g_autofree char *formatted = NULL;
  va_list ap;

  va_start (ap, markup);
  formatted = g_strdup_vprintf (markup, ap);
  va_end (ap);
  _tilde_check_error_take (c, span, _tilde_check_layout (formatted));
}

void
_tilde_check_warning (TildeChecker *c, const TildeSpan *span, const char *markup, ...)
{
  g_autofree char *formatted = NULL;
  g_autofree char *text = NULL;
  va_list ap;

  va_start (ap, markup);
  formatted = g_strdup_vprintf (markup, ap);
  va_end (ap);
  text = _tilde_check_layout (formatted);
  add_diagnostic (c, TILDE_SEVERITY_WARNING, TILDE_DIAG_WARNING, span, text);
}

/* ------------------------------------------------------------ suggestions */

typedef struct {
  const char *name;
  gsize       len;
  const char *best;
  guint       best_d;
} Nearest;

/* stanc compares candidates in sorted order and keeps the first of the
 * least distance below 3, skipping lengths that cannot get there. */
static void
consider (Nearest *n, const char *cand)
{
  gsize cl = strlen (cand);
  guint d;

  if ((cl > n->len ? cl - n->len : n->len - cl) > 3)
    return;
  d = tilde_edit_distance (n->name, cand);
  if (d < n->best_d || (d == n->best_d && n->best && strcmp (cand, n->best) < 0))
    {
      n->best_d = d;
      n->best = cand;
    }
}

static void
consider_variable (TildeVariable *var, gpointer data)
{
  consider (data, var->name);
}

const char *
_tilde_check_nearest_ident (TildeChecker *c, const char *name)
{
  Nearest n = { name, strlen (name), NULL, 3 };

  if (n.len == 1)
    return NULL;
  for (guint i = 0; i < tilde_library_n_names (); i++)
    consider (&n, tilde_library_name (i));
  for (guint i = 0; i < tilde_scope_n_function_names (c->scope); i++)
    consider (&n, tilde_scope_function_name (c->scope, i));
  tilde_scope_foreach_variable (c->scope, consider_variable, &n);
  if (n.best == NULL || strcmp (n.best, name) == 0)
    return NULL;
  return n.best;
}
