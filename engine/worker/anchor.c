/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "worker/anchor.h"

/* A statement, or one variable of a declaration, as a stretch of the main
 * file; `in_main` is FALSE for statements of included files, which still
 * take their place in the order. */
typedef struct {
  gsize    begin;
  gsize    end;
  gboolean in_main;
} Unit;

static gboolean
span_in_main (const TildeSpan *span)
{
  return span->file != NULL && span->file->depth == 0
         && (span->end_file == NULL || span->end_file->depth == 0);
}

static void
add_units (TildeStmt *stmt, gpointer user_data)
{
  GArray *units = user_data;
  gboolean in_main = span_in_main (&stmt->span);
  int n_items = stmt->kind == TILDE_STMT_VAR_DECL ? stmt->u.var_decl.n_items : 1;

  if (n_items <= 1)
    {
      Unit unit = { stmt->span.begin_offset, stmt->span.end_offset, in_main };
      g_array_append_val (units, unit);
      return;
    }
  /* `real a, b = 1;`: a from the type to b, b from its name to the end. */
  for (int k = 0; k < n_items; k++)
    {
      const TildeVarDeclItem *items = stmt->u.var_decl.items;
      Unit unit = {
        k == 0 ? stmt->span.begin_offset : items[k].ident.span.begin_offset,
        k == n_items - 1 ? stmt->span.end_offset : items[k + 1].ident.span.begin_offset,
        in_main && span_in_main (&items[k].ident.span),
      };
      g_array_append_val (units, unit);
    }
}

static GArray *
program_units (const TildeProgram *program)
{
  GArray *units = g_array_new (FALSE, FALSE, sizeof (Unit));

  tilde_program_foreach_stmt ((TildeProgram *) program, add_units, units);
  return units;
}

typedef enum {
  ANCHOR_START,    /* counted from the start of the text */
  ANCHOR_INSIDE,   /* counted from the start of unit `index`, up to its end */
  ANCHOR_AFTER,    /* counted from the end of unit `index` */
} AnchorKind;

typedef struct {
  AnchorKind kind;
  guint      index;
} Anchor;

static Anchor
find_anchor (GArray *units, gsize offset)
{
  Anchor anchor = { ANCHOR_START, 0 };
  gsize best_end = 0;
  gboolean have_after = FALSE;

  /* Units come parents first, so the last one around the place is the innermost. */
  for (guint i = 0; i < units->len; i++)
    {
      const Unit *u = &g_array_index (units, Unit, i);

      if (u->in_main && u->begin <= offset && offset <= u->end)
        anchor = (Anchor) { ANCHOR_INSIDE, i };
    }
  if (anchor.kind == ANCHOR_INSIDE)
    return anchor;
  for (guint i = 0; i < units->len; i++)
    {
      const Unit *u = &g_array_index (units, Unit, i);

      if (u->in_main && u->end <= offset && (!have_after || u->end > best_end))
        {
          have_after = TRUE;
          best_end = u->end;
          anchor = (Anchor) { ANCHOR_AFTER, i };
        }
    }
  return anchor;
}

static gboolean
is_blank (gunichar c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static guint
count_ink (const char *text, gsize from, gsize to)
{
  guint n = 0;

  for (const char *p = text + from; p < text + to; p = g_utf8_next_char (p))
    if (!is_blank (g_utf8_get_char (p)))
      n++;
  return n;
}

/* The place `ink` non-blank characters after `from`, no further than `limit`;
 * then past blanks too when `skip_blanks`. */
static gsize
advance_ink (const char *text, gsize from, gsize limit, guint ink, gboolean skip_blanks)
{
  const char *p = text + from;
  const char *end = text + limit;

  while (ink > 0 && p < end)
    {
      if (!is_blank (g_utf8_get_char (p)))
        ink--;
      p = g_utf8_next_char (p);
    }
  if (skip_blanks)
    while (p < end && is_blank (g_utf8_get_char (p)))
      p = g_utf8_next_char (p);
  return MIN ((gsize) (p - text), limit);
}

gsize
tilde_anchor_map_offset (const TildeProgram *before, const char *before_text, gsize before_len,
                         const TildeProgram *after, const char *after_text, gsize after_len,
                         gsize offset)
{
  g_autoptr(GArray) old_units = NULL;
  g_autoptr(GArray) new_units = NULL;
  Anchor anchor;
  gsize old_from = 0, new_from = 0, new_limit = after_len;
  gboolean after_ink, before_ink;
  guint ink;

  g_return_val_if_fail (before_text != NULL && after_text != NULL, 0);
  offset = MIN (offset, before_len);
  while (offset > 0 && (before_text[offset] & 0xc0) == 0x80)
    offset--;   /* a place between the bytes of one character */

  old_units = before ? program_units (before) : g_array_new (FALSE, FALSE, sizeof (Unit));
  new_units = after ? program_units (after) : g_array_new (FALSE, FALSE, sizeof (Unit));
  anchor = find_anchor (old_units, offset);
  /* Statements that do not pair up one to one: count from the start. */
  if (old_units->len != new_units->len)
    anchor.kind = ANCHOR_START;
  if (anchor.kind != ANCHOR_START)
    {
      const Unit *o = &g_array_index (old_units, Unit, anchor.index);
      const Unit *n = &g_array_index (new_units, Unit, anchor.index);

      if (!n->in_main || n->end > after_len || o->end > before_len)
        anchor.kind = ANCHOR_START;
      else if (anchor.kind == ANCHOR_INSIDE)
        {
          old_from = o->begin;
          new_from = n->begin;
          new_limit = n->end;
        }
      else
        {
          old_from = o->end;
          new_from = n->end;
        }
    }
  if (anchor.kind == ANCHOR_START)
    old_from = new_from = 0, new_limit = after_len;

  ink = count_ink (before_text, old_from, offset);
  after_ink = offset > old_from
              && !is_blank (g_utf8_get_char (g_utf8_find_prev_char (before_text, before_text + offset)));
  before_ink = offset < before_len && !is_blank (g_utf8_get_char (before_text + offset));
  /* Right after a word and before a blank, the place stays after the word
   * (the end of a line, say); anywhere else it sticks to the next ink. */
  return advance_ink (after_text, new_from, new_limit, ink, before_ink || !after_ink);
}

gsize
tilde_text_offset_at (const char *text, gsize len, int line, int column)
{
  gsize offset = 0;

  for (int l = 1; l < line && offset < len; offset++)
    if (text[offset] == '\n')
      l++;
  for (int c = 0; c < column && offset < len && text[offset] != '\n'; c++)
    offset++;
  return offset;
}

void
tilde_text_position_at (const char *text, gsize len, gsize offset, int *line, int *column)
{
  int l = 1;
  gsize line_start = 0;

  offset = MIN (offset, len);
  for (gsize i = 0; i < offset; i++)
    if (text[i] == '\n')
      {
        l++;
        line_start = i + 1;
      }
  if (line)
    *line = l;
  if (column)
    *column = (int) (offset - line_start);
}
