/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "format-layout.h"

#include <string.h>

/*
 * The algorithm is Oppen's, as OCaml's Format implements it: tokens wait in
 * a queue until their size (the width up to the next hint of the same box,
 * or the end of the box) is known, or until the text waiting is as wide as
 * the space left on the line, and are then laid out one by one.
 */

/* Format's "infinity": larger than any line. */
#define INFINITE_SIZE 1000000010

typedef enum {
  TOKEN_TEXT,
  TOKEN_BREAK,
  TOKEN_BEGIN,
  TOKEN_END,
  TOKEN_NEWLINE,
} TokenKind;

typedef enum {
  LAYOUT_FITS = TILDE_LAYOUT_B + 1,   /* a box known to fit on its line */
} LayoutState;

typedef struct {
  TokenKind kind;
  int       size;        /* negative while unknown */
  int       length;      /* width it adds to the line when nothing breaks */
  guint     text;        /* TEXT: offset in the pool */
  int       width;       /* BREAK: spaces when not breaking */
  int       offset;      /* BREAK: extra indentation when breaking; BEGIN: box indentation */
  int       box;         /* BEGIN */
} Token;

typedef struct {
  int left_total;
  int token;             /* index in the queue; -1 for the bottom marker */
} ScanEntry;

typedef struct {
  int box;
  int width;
} FormatEntry;

struct TildeLayout {
  GArray  *queue;        /* of Token; [head, len) waits */
  guint    head;
  GString *pool;         /* texts of TEXT tokens, NUL-separated */
  GArray  *scan;         /* of ScanEntry */
  GArray  *boxes;        /* of FormatEntry */
  GString *out;
  int      margin;
  int      min_space_left;
  int      max_indent;
  int      space_left;
  int      current_indent;
  gboolean is_new_line;
  int      left_total;
  int      right_total;
  int      depth;
};

static Token *
token_at (TildeLayout *l, int index)
{
  return &g_array_index (l->queue, Token, index);
}

static void
output_spaces (TildeLayout *l, int n)
{
  for (int i = 0; i < n; i++)
    g_string_append_c (l->out, ' ');
}

static void
output_text (TildeLayout *l, const Token *t, int size)
{
  l->space_left -= size;
  g_string_append (l->out, l->pool->str + t->text);
  l->is_new_line = FALSE;
}

static void
break_new_line (TildeLayout *l, int offset, int width)
{
  int indent;

  g_string_append_c (l->out, '\n');
  l->is_new_line = TRUE;
  indent = l->margin - width + offset;
  l->current_indent = MIN (l->max_indent, indent);
  l->space_left = l->margin - l->current_indent;
  output_spaces (l, l->current_indent);
}

static void
break_same_line (TildeLayout *l, int width)
{
  l->space_left -= width;
  output_spaces (l, width);
}

static FormatEntry *
top_box (TildeLayout *l)
{
  if (l->boxes->len == 0)
    return NULL;
  return &g_array_index (l->boxes, FormatEntry, l->boxes->len - 1);
}

static void
force_break_line (TildeLayout *l)
{
  FormatEntry *top = top_box (l);

  if (top == NULL)
    {
      g_string_append_c (l->out, '\n');
      return;
    }
  if (top->width > l->space_left && top->box != TILDE_LAYOUT_H && top->box != LAYOUT_FITS)
    {
      /* a space written before the box (before a block comment) would be left at
       * the end of the line */
      while (l->out->len > 0 && l->out->str[l->out->len - 1] == ' ')
        g_string_truncate (l->out, l->out->len - 1);
      break_new_line (l, 0, top->width);
    }
}

static void
format_break (TildeLayout *l, const Token *t, int size)
{
  FormatEntry *top = top_box (l);

  if (top == NULL)
    return;
  switch (top->box)
    {
    case TILDE_LAYOUT_HOV:
      if (size > l->space_left)
        break_new_line (l, t->offset, top->width);
      else
        break_same_line (l, t->width);
      break;
    case TILDE_LAYOUT_B:
      if (l->is_new_line)
        break_same_line (l, t->width);
      else if (size > l->space_left)
        break_new_line (l, t->offset, top->width);
      else if (l->current_indent > l->margin - top->width + t->offset)
        break_new_line (l, t->offset, top->width);
      else
        break_same_line (l, t->width);
      break;
    case TILDE_LAYOUT_HV:
    case TILDE_LAYOUT_V:
      break_new_line (l, t->offset, top->width);
      break;
    default:   /* H and FITS */
      break_same_line (l, t->width);
      break;
    }
}

static void
format_token (TildeLayout *l, const Token *t, int size)
{
  switch (t->kind)
    {
    case TOKEN_TEXT:
      output_text (l, t, size);
      break;
    case TOKEN_BEGIN:
      {
        FormatEntry entry;

        /* A box may not open past the maximum indentation. */
        if (l->margin - l->space_left > l->max_indent)
          force_break_line (l);
        entry.width = l->space_left - t->offset;
        if (t->box == TILDE_LAYOUT_V)
          entry.box = TILDE_LAYOUT_V;
        else
          entry.box = size > l->space_left ? t->box : LAYOUT_FITS;
        g_array_append_val (l->boxes, entry);
        break;
      }
    case TOKEN_END:
      if (l->boxes->len > 0)
        g_array_set_size (l->boxes, l->boxes->len - 1);
      break;
    case TOKEN_NEWLINE:
      {
        FormatEntry *top = top_box (l);

        if (top == NULL)
          g_string_append_c (l->out, '\n');
        else
          break_new_line (l, 0, top->width);
        break;
      }
    case TOKEN_BREAK:
      format_break (l, t, size);
      break;
    }
}

static void
advance (TildeLayout *l)
{
  while (l->head < l->queue->len)
    {
      Token t = *token_at (l, (int) l->head);
      int pending = l->right_total - l->left_total;

      if (t.size < 0 && pending < l->space_left)
        break;
      l->head++;
      format_token (l, &t, t.size < 0 ? INFINITE_SIZE : t.size);
      l->left_total += t.length;
    }
}

static int
enqueue (TildeLayout *l, const Token *t)
{
  l->right_total += t->length;
  g_array_append_val (l->queue, *t);
  return (int) l->queue->len - 1;
}

static void
reset_scan (TildeLayout *l)
{
  ScanEntry bottom = { -1, -1 };

  g_array_set_size (l->scan, 0);
  g_array_append_val (l->scan, bottom);
}

/* Once a box or a hint's extent is known, its size is set and it leaves the
 * scan stack; `for_break` tells which of the two is being completed. */
static void
set_size (TildeLayout *l, gboolean for_break)
{
  ScanEntry *top = &g_array_index (l->scan, ScanEntry, l->scan->len - 1);
  Token *t;

  if (top->left_total < l->left_total)
    {
      reset_scan (l);
      return;
    }
  if (top->token < 0)
    return;
  t = token_at (l, top->token);
  if ((t->kind == TOKEN_BREAK && for_break) || (t->kind == TOKEN_BEGIN && !for_break))
    {
      t->size = l->right_total + t->size;
      g_array_set_size (l->scan, l->scan->len - 1);
    }
}

static void
scan_push (TildeLayout *l, gboolean is_break, const Token *t)
{
  ScanEntry entry;

  entry.token = enqueue (l, t);
  if (is_break)
    set_size (l, TRUE);
  entry.left_total = l->right_total;
  g_array_append_val (l->scan, entry);
}

static void
open_box (TildeLayout *l, int box, int indent)
{
  Token t = { TOKEN_BEGIN, -l->right_total, 0, 0, 0, indent, box };

  l->depth++;
  scan_push (l, FALSE, &t);
}

static void
restart (TildeLayout *l)
{
  g_array_set_size (l->queue, 0);
  l->head = 0;
  l->left_total = 1;
  l->right_total = 1;
  reset_scan (l);
  g_array_set_size (l->boxes, 0);
  l->current_indent = 0;
  l->depth = 0;
  l->space_left = l->margin;
  /* Format's outermost box */
  open_box (l, TILDE_LAYOUT_HOV, 0);
}

TildeLayout *
tilde_layout_new (int margin)
{
  TildeLayout *l = g_new0 (TildeLayout, 1);
  int max_indent;

  l->queue = g_array_new (FALSE, FALSE, sizeof (Token));
  l->pool = g_string_new (NULL);
  l->scan = g_array_new (FALSE, FALSE, sizeof (ScanEntry));
  l->boxes = g_array_new (FALSE, FALSE, sizeof (FormatEntry));
  l->out = g_string_new (NULL);
  l->is_new_line = TRUE;
  /* Format's defaults, then pp_set_margin: the maximum indentation is kept
   * where it fits, else the space kept free at the right, else half the line. */
  l->margin = 78;
  l->min_space_left = 10;
  l->max_indent = 68;
  margin = CLAMP (margin, 1, INFINITE_SIZE - 1);
  l->margin = margin;
  if (l->max_indent <= margin)
    max_indent = l->max_indent;
  else
    max_indent = MAX (MAX (margin - l->min_space_left, margin / 2), 1);
  if (max_indent > 1 && margin - max_indent >= 1)
    {
      l->min_space_left = margin - max_indent;
      l->max_indent = margin - l->min_space_left;
    }
  else
    l->max_indent = MIN (l->max_indent, margin);
  restart (l);
  return l;
}

void
tilde_layout_free (TildeLayout *l)
{
  if (l == NULL)
    return;
  g_array_unref (l->queue);
  g_string_free (l->pool, TRUE);
  g_array_unref (l->scan);
  g_array_unref (l->boxes);
  g_string_free (l->out, TRUE);
  g_free (l);
}

void
tilde_layout_text (TildeLayout *l, const char *text, gssize len)
{
  Token t = { TOKEN_TEXT, 0, 0, 0, 0, 0, 0 };

  if (len < 0)
    len = (gssize) strlen (text);
  t.text = (guint) l->pool->len;
  g_string_append_len (l->pool, text, len);
  g_string_append_c (l->pool, '\0');
  t.size = (int) len;
  t.length = (int) len;
  enqueue (l, &t);
  advance (l);
}

void
tilde_layout_open (TildeLayout *l, TildeLayoutBox box, int indent)
{
  open_box (l, box, indent);
}

void
tilde_layout_close (TildeLayout *l)
{
  Token t = { TOKEN_END, 0, 0, 0, 0, 0, 0 };

  if (l->depth <= 1)
    return;
  enqueue (l, &t);
  set_size (l, TRUE);
  set_size (l, FALSE);
  l->depth--;
}

void
tilde_layout_break (TildeLayout *l, int width, int offset)
{
  Token t = { TOKEN_BREAK, -l->right_total, width, 0, width, offset, 0 };

  scan_push (l, TRUE, &t);
}

void
tilde_layout_force_newline (TildeLayout *l)
{
  Token t = { TOKEN_NEWLINE, 0, 0, 0, 0, 0, 0 };

  enqueue (l, &t);
  advance (l);
}

char *
tilde_layout_finish (TildeLayout *l)
{
  char *text;

  while (l->depth > 1)
    tilde_layout_close (l);
  l->right_total = INFINITE_SIZE;
  advance (l);
  text = g_string_free (l->out, FALSE);
  l->out = NULL;
  g_array_unref (l->queue);
  g_string_free (l->pool, TRUE);
  g_array_unref (l->scan);
  g_array_unref (l->boxes);
  g_free (l);
  return text;
}
