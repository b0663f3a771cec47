/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "doc-private.h"

#include <string.h>

typedef enum { NODE_TEXT, NODE_BREAK, NODE_BOX } NodeKind;

struct _Doc {
  NodeKind kind;
  char *text;          /* NODE_TEXT */
  int spaces, offset;  /* NODE_BREAK */
  DocBoxKind box;      /* NODE_BOX */
  int indent;
  GPtrArray *children;
};

Doc *
doc_box (DocBoxKind kind, int indent)
{
  Doc *d = g_new0 (Doc, 1);

  d->kind = NODE_BOX;
  d->box = kind;
  d->indent = indent;
  d->children = g_ptr_array_new_with_free_func ((GDestroyNotify) doc_free);
  return d;
}

void
doc_free (Doc *doc)
{
  if (doc == NULL)
    return;
  g_free (doc->text);
  if (doc->children)
    g_ptr_array_unref (doc->children);
  g_free (doc);
}

Doc *
doc_add (Doc *box, Doc *child)
{
  g_ptr_array_add (box->children, child);
  return box;
}

Doc *
doc_text (Doc *box, const char *text)
{
  Doc *d = g_new0 (Doc, 1);

  d->kind = NODE_TEXT;
  d->text = g_strdup (text);
  return doc_add (box, d);
}

Doc *
doc_printf (Doc *box, const char *format, ...)
{
  va_list ap;
  Doc *d = g_new0 (Doc, 1);

  va_start (ap, format);
  d->kind = NODE_TEXT;
  d->text = g_strdup_vprintf (format, ap);
  va_end (ap);
  return doc_add (box, d);
}

Doc *
doc_break (Doc *box, int spaces, int offset)
{
  Doc *d = g_new0 (Doc, 1);

  d->kind = NODE_BREAK;
  d->spaces = spaces;
  d->offset = offset;
  return doc_add (box, d);
}

Doc *doc_space (Doc *box) { return doc_break (box, 1, 0); }
Doc *doc_cut (Doc *box) { return doc_break (box, 0, 0); }

Doc *
doc_words (Doc *box, const char *text)
{
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  gboolean first = TRUE;

  for (char **w = words; *w; w++)
    {
      if (!first)
        doc_space (box);
      first = FALSE;
      if (**w)
        doc_text (box, *w);
    }
  return box;
}

static int
flat_width (const Doc *d)
{
  int w = 0;

  switch (d->kind)
    {
    case NODE_TEXT:
      return (int) g_utf8_strlen (d->text, -1);
    case NODE_BREAK:
      return d->spaces;
    case NODE_BOX:
      for (guint i = 0; i < d->children->len; i++)
        w += flat_width (g_ptr_array_index (d->children, i));
      return w;
    }
  return 0;
}

/* What follows a break up to the next break of the same box: Format sizes a
 * break by the text before the next break or the end of the box. */
static int
lookahead (const Doc *box, guint from)
{
  int w = 0;

  for (guint i = from; i < box->children->len; i++)
    {
      const Doc *c = g_ptr_array_index (box->children, i);
      if (c->kind == NODE_BREAK)
        break;
      w += flat_width (c);
    }
  return w;
}

typedef struct {
  GString *out;
  int column;
} Render;

static void
newline (Render *r, int column)
{
  g_string_append_c (r->out, '\n');
  for (int i = 0; i < column; i++)
    g_string_append_c (r->out, ' ');
  r->column = column;
}

static void
render_box (const Doc *box, Render *r)
{
  int base = r->column + box->indent;
  gboolean fits = r->column + flat_width (box) <= DOC_WIDTH;

  for (guint i = 0; i < box->children->len; i++)
    {
      const Doc *c = g_ptr_array_index (box->children, i);
      gboolean broken;

      switch (c->kind)
        {
        case NODE_TEXT:
          g_string_append (r->out, c->text);
          r->column += (int) g_utf8_strlen (c->text, -1);
          break;
        case NODE_BOX:
          render_box (c, r);
          break;
        case NODE_BREAK:
          switch (box->box)
            {
            case DOC_V:
              broken = TRUE;
              break;
            case DOC_HV:
              broken = !fits;
              break;
            case DOC_HOV:
              broken = !fits
                       && r->column + c->spaces + lookahead (box, i + 1) > DOC_WIDTH;
              break;
            case DOC_H:
            default:
              broken = FALSE;
              break;
            }
          if (broken)
            newline (r, base + c->offset);
          else
            {
              for (int s = 0; s < c->spaces; s++)
                g_string_append_c (r->out, ' ');
              r->column += c->spaces;
            }
          break;
        }
    }
}

int
doc_render (Doc *doc, GString *out, int column)
{
  Render r = { out, column };

  if (doc->kind == NODE_BOX)
    render_box (doc, &r);
  else if (doc->kind == NODE_TEXT)
    {
      g_string_append (out, doc->text);
      r.column += (int) g_utf8_strlen (doc->text, -1);
    }
  return r.column;
}
