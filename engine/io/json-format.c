/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/json-format.h"
#include "io/json-locate.h"

#include <string.h>

#define WIDTH 80
#define INDENT 2

typedef TildeJsonToken Tok;

typedef struct {
  const char *t;
  gsize       len;
  gsize       pos;
  GString    *out;
  gsize       line_start;   /* where the output's last line begins */
  GString    *comments;     /* read, not yet written: each with a space after */
} Fmt;

/* ---- tokens of checked text ---- */

/* The next token, the comments before it kept in f->comments. */
static Tok
next (Fmt *f)
{
  Tok tok = tilde_json_next_token (f->t, f->len, f->pos, TRUE);

  while (tok.kind == TILDE_JSON_TOKEN_COMMENT)
    {
      g_string_append_len (f->comments, f->t + tok.begin, (gssize) (tok.end - tok.begin));
      g_string_append_c (f->comments, ' ');
      tok = tilde_json_next_token (f->t, f->len, tok.end, TRUE);
    }
  f->pos = tok.end;
  return tok;
}

/* ---- writing ---- */

static gsize
column (const Fmt *f)
{
  return f->out->len - f->line_start;
}

static void
newline (Fmt *f, int indent)
{
  g_string_append_c (f->out, '\n');
  f->line_start = f->out->len;
  for (int i = 0; i < indent; i++)
    g_string_append_c (f->out, ' ');
}

static void
flush_comments (Fmt *f)
{
  char last = f->out->len ? f->out->str[f->out->len - 1] : ' ';

  if (f->comments->len == 0)
    return;
  if (last != ' ' && last != '\n' && last != '[' && last != '{')
    g_string_append_c (f->out, ' ');
  g_string_append_len (f->out, f->comments->str, (gssize) f->comments->len);
  g_string_truncate (f->comments, 0);
}

static void
emit (Fmt *f, Tok tok)
{
  flush_comments (f);
  g_string_append_len (f->out, f->t + tok.begin, (gssize) (tok.end - tok.begin));
}

static void write_value (Fmt *f, Tok tok, int indent);

static void
write_object (Fmt *f, Tok open, int indent)
{
  emit (f, open);
  Tok tok = next (f);
  if (tok.kind == TILDE_JSON_TOKEN_CLOSE_OBJECT)
    {
      emit (f, tok);
      return;
    }
  while (tok.kind == TILDE_JSON_TOKEN_STRING)   /* a key */
    {
      newline (f, indent + INDENT);
      emit (f, tok);                    /* the key */
      next (f);                         /* its colon */
      flush_comments (f);
      g_string_append (f->out, ": ");
      write_value (f, next (f), indent + INDENT);
      tok = next (f);
      if (tok.kind == TILDE_JSON_TOKEN_COMMA)
        {
          emit (f, tok);                /* after any comment before it */
          tok = next (f);
        }
    }
  newline (f, indent);
  emit (f, tok);                        /* the closing brace */
}

/* The elements of the array whose '[' was just read, when they are all
 * scalars with no comment between: their tokens, the closing bracket
 * last. NULL (and the place untouched) otherwise. */
static GArray *
scalar_elements (Fmt *f)
{
  gsize start = f->pos;
  GArray *tokens = g_array_new (FALSE, FALSE, sizeof (Tok));

  for (;;)
    {
      Tok tok = next (f);
      if (f->comments->len > 0 || tok.kind == TILDE_JSON_TOKEN_OPEN_ARRAY || tok.kind == TILDE_JSON_TOKEN_OPEN_OBJECT
          || tok.kind == TILDE_JSON_TOKEN_END)
        break;
      if (tok.kind == TILDE_JSON_TOKEN_COMMA)
        continue;
      g_array_append_val (tokens, tok);
      if (tok.kind == TILDE_JSON_TOKEN_CLOSE_ARRAY)
        return tokens;
    }
  g_string_truncate (f->comments, 0);
  f->pos = start;
  g_array_unref (tokens);
  return NULL;
}

static void
write_scalar_array (Fmt *f, GArray *tokens, int indent)
{
  guint n = tokens->len - 1;
  gsize inline_width = 2;

  for (guint i = 0; i < n; i++)
    {
      Tok tok = g_array_index (tokens, Tok, i);
      inline_width += tok.end - tok.begin + (i > 0 ? 2 : 0);
    }
  g_string_append_c (f->out, '[');
  if (n > 0 && column (f) - 1 + inline_width > WIDTH)
    {
      newline (f, indent + INDENT);
      for (guint i = 0; i < n; i++)
        {
          Tok tok = g_array_index (tokens, Tok, i);
          gsize w = tok.end - tok.begin;
          if (i > 0)
            {
              g_string_append_c (f->out, ',');
              /* room for this one and its comma */
              if (column (f) + 1 + w + 1 > WIDTH)
                newline (f, indent + INDENT);
              else
                g_string_append_c (f->out, ' ');
            }
          emit (f, tok);
        }
      newline (f, indent);
    }
  else
    for (guint i = 0; i < n; i++)
      {
        if (i > 0)
          g_string_append (f->out, ", ");
        emit (f, g_array_index (tokens, Tok, i));
      }
  emit (f, g_array_index (tokens, Tok, n));   /* the closing bracket */
}

/* The '[' has been read; it is written here, after the comments before it. */
static void
write_array (Fmt *f, int indent)
{
  g_autoptr(GArray) scalars = NULL;

  flush_comments (f);
  if ((scalars = scalar_elements (f)) != NULL)
    {
      write_scalar_array (f, scalars, indent);
      return;
    }
  g_string_append_c (f->out, '[');
  Tok tok = next (f);
  while (tok.kind != TILDE_JSON_TOKEN_CLOSE_ARRAY && tok.kind != TILDE_JSON_TOKEN_END)
    {
      newline (f, indent + INDENT);
      write_value (f, tok, indent + INDENT);
      tok = next (f);
      if (tok.kind == TILDE_JSON_TOKEN_COMMA)
        {
          emit (f, tok);
          tok = next (f);
        }
    }
  newline (f, indent);
  emit (f, tok);
}

static void
write_value (Fmt *f, Tok tok, int indent)
{
  if (tok.kind == TILDE_JSON_TOKEN_OPEN_OBJECT)
    write_object (f, tok, indent);
  else if (tok.kind == TILDE_JSON_TOKEN_OPEN_ARRAY)
    write_array (f, indent);
  else
    emit (f, tok);
}

char *
tilde_json_format (const char *text, gsize len, gsize *out_len, GError **error)
{
  g_autoptr(TildeJsonOutline) outline = tilde_json_check_text ("<data>", text, len, error);
  Fmt f = { .t = text, .len = len };

  if (outline == NULL)
    return NULL;
  f.out = g_string_sized_new (len + len / 8 + 16);
  f.comments = g_string_new (NULL);
  Tok tok = next (&f);
  if (tok.kind != TILDE_JSON_TOKEN_END)
    {
      write_value (&f, tok, 0);
      next (&f);
      if (f.comments->len > 0)
        {
          g_string_append_c (f.out, ' ');
          flush_comments (&f);
          g_string_truncate (f.out, f.out->len - 1);
        }
      g_string_append_c (f.out, '\n');
    }
  else if (f.comments->len > 0)
    {
      /* only comments */
      flush_comments (&f);
      g_string_truncate (f.out, f.out->len - 1);
      g_string_append_c (f.out, '\n');
    }
  g_string_free (f.comments, TRUE);
  *out_len = f.out->len;
  return g_string_free (f.out, FALSE);
}
