/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * The formatter behind --auto-format and --print-canonical. It follows the
 * layout of stanc's pretty printer: the same boxes and break hints, laid out
 * by the same line breaker (format-layout.c), so that lines wrap where
 * stanc's do. Comments are not part of the tree; like stanc, the formatter
 * walks the program's comment list alongside the statements and expressions
 * and prints each comment when it reaches the position it came from.
 *
 * Canonicalizations are applied while printing, so the tree is never
 * changed: redundant parentheses are skipped, bodies are printed as blocks,
 * forward declarations with a definition are left out, and included files
 * are printed in place of their #include.
 */

#include "printer.h"
#include "format-layout.h"

#include <string.h>

/* A position in the stream of text the lexer saw, across inclusions. */
typedef struct {
  const TildeSourceFile *file;
  int                    line;
  int                    column;
  guint                  offset;
} Pos;

typedef struct {
  const TildeComment *comment;
  Pos                 begin;
  Pos                 end;
} Item;

/* How parentheses written in the source are treated (canonical mode). */
typedef enum {
  PARENS_AS_WRITTEN,
  PARENS_DROP,      /* stanc's no_parens */
  PARENS_KEEP,      /* stanc's keep_parens: only around operations */
} ParenMode;

typedef struct {
  TildeLayout           *out;
  const TildeProgram    *program;
  const TildeSourceFile *main;
  TildeCanonicalizeFlags canon;
  gboolean               inline_includes;
  Item                  *items;       /* comments and directives to print, in order */
  int                    n_items;
  int                    next;        /* first item not yet printed */
  GPtrArray             *skipped;     /* items passed over inside a statement */
} Fmt;

static void print_expr (Fmt *f, const TildeExpr *e, ParenMode mode);
static void print_stmt (Fmt *f, const TildeStmt *s);

/* ---- positions ---- */

static Pos
pos_begin (const TildeSpan *span)
{
  Pos p = { span->file, span->begin_line, span->begin_column, span->begin_offset };

  return p;
}

static Pos
pos_end (const TildeSpan *span)
{
  Pos p = { span->end_file ? span->end_file : span->file, span->end_line, span->end_column,
            span->end_offset };

  return p;
}

static int
file_chain (const TildeSourceFile *file, const TildeSourceFile **chain, int max)
{
  int n = 0;

  for (const TildeSourceFile *f = file; f != NULL && n < max; f = f->included_from)
    chain[n++] = f;
  /* outermost first */
  for (int i = 0; i < n / 2; i++)
    {
      const TildeSourceFile *t = chain[i];

      chain[i] = chain[n - 1 - i];
      chain[n - 1 - i] = t;
    }
  return n;
}

/* Where `p` stands in the file at `level` of its chain: itself, or the
 * directive that leads to it. */
static void
pos_at_level (const Pos *p, const TildeSourceFile *const *chain, int n, int level,
              int *line, int *column)
{
  if (level == n - 1)
    {
      *line = p->line;
      *column = p->column;
    }
  else
    {
      *line = chain[level + 1]->include_line;
      *column = chain[level + 1]->include_column;
    }
}

static int
pos_compare (const Pos *a, const Pos *b)
{
  const TildeSourceFile *ca[64], *cb[64];
  int na, nb, k = 0;
  int la, ka, lb, kb;

  if (a->file == b->file || a->file == NULL || b->file == NULL)
    return a->offset < b->offset ? -1 : a->offset > b->offset;
  na = file_chain (a->file, ca, G_N_ELEMENTS (ca));
  nb = file_chain (b->file, cb, G_N_ELEMENTS (cb));
  while (k + 1 < na && k + 1 < nb && ca[k + 1] == cb[k + 1])
    k++;
  pos_at_level (a, ca, na, k, &la, &ka);
  pos_at_level (b, cb, nb, k, &lb, &kb);
  if (la != lb)
    return la < lb ? -1 : 1;
  if (ka != kb)
    return ka < kb ? -1 : 1;
  /* a directive comes before the text it brings in */
  return (na > nb) - (na < nb);
}

/* The line of `p` in the main file: an included position counts as the line
 * of its outermost #include. */
static int
main_line (const Pos *p)
{
  const TildeSourceFile *f = p->file;

  if (f == NULL || f->included_from == NULL)
    return p->line;
  while (f->included_from && f->included_from->included_from)
    f = f->included_from;
  return f->include_line;
}

static gboolean
should_skip (const Fmt *f, const Pos *p)
{
  return !f->inline_includes && p->file != NULL && p->file != f->main;
}

/* ---- layout shorthands ---- */

static void
text (Fmt *f, const char *s)
{
  tilde_layout_text (f->out, s, -1);
}

static void
space (Fmt *f)
{
  tilde_layout_break (f->out, 1, 0);
}

static void
cut (Fmt *f)
{
  tilde_layout_break (f->out, 0, 0);
}

static void
open_box (Fmt *f, TildeLayoutBox box, int indent)
{
  tilde_layout_open (f->out, box, indent);
}

static void
close_box (Fmt *f)
{
  tilde_layout_close (f->out);
}

/* stanc's indented_box: two spaces, then a box. */
static void
open_indented (Fmt *f)
{
  open_box (f, TILDE_LAYOUT_H, 0);
  text (f, "  ");
  open_box (f, TILDE_LAYOUT_B, 0);
}

static void
close_indented (Fmt *f)
{
  close_box (f);
  close_box (f);
}

/* ---- comments ---- */

static gboolean
is_line_like (const Item *it)
{
  return it->comment->kind != TILDE_COMMENT_BLOCK;
}

/* Leading spaces of a line, or -1 for a blank one. */
static int
leading_spaces (const char *line, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      return (int) i;
  return -1;
}

static void
text_trimmed_cr (Fmt *f, const char *s, gsize len)
{
  while (len > 0 && s[len - 1] == '\r')
    len--;
  tilde_layout_text (f->out, s, (gssize) len);
}

/* A block comment keeps the indentation of its later lines relative to its
 * opening, so that moving it to another column and back changes nothing. */
static void
print_block_comment (Fmt *f, const Item *it)
{
  const char *s = it->comment->text + 2;
  gsize len = it->comment->length >= 4 ? it->comment->length - 4 : 0;
  g_auto(GStrv) lines = NULL;
  g_autofree char *body = g_strndup (s, len);
  int pad = it->begin.column;

  lines = g_strsplit (body, "\n", -1);
  if (lines[0] == NULL || lines[1] == NULL)
    {
      /* One line: text that never breaks, and no box, which past the
       * maximum indentation would begin a new line inside the comment. */
      text (f, "/*");
      text_trimmed_cr (f, body, len);
      text (f, "*/");
      return;
    }
  for (int i = 1; lines[i]; i++)
    {
      int lead = leading_spaces (lines[i], strlen (lines[i]));

      if (lead >= 0)
        pad = MIN (pad, lead);
    }
  /* The box opens before the comment, so that where a box may not open
   * (past the maximum indentation) the whole comment moves to a new line,
   * rather than its text after the opening. */
  open_box (f, TILDE_LAYOUT_V, 0);
  text (f, "/*");
  for (int i = 0; lines[i]; i++)
    {
      const char *line = lines[i];
      gsize n = strlen (line);

      if (i > 0)
        {
          gsize drop = MIN ((gsize) pad, n);

          cut (f);
          line += drop;
          n -= drop;
        }
      text_trimmed_cr (f, line, n);
    }
  close_box (f);
  text (f, "*/");
}

static void
print_comment (Fmt *f, const Item *it)
{
  const TildeComment *c = it->comment;

  switch (c->kind)
    {
    case TILDE_COMMENT_LINE:
      text_trimmed_cr (f, c->text, c->length);
      break;
    case TILDE_COMMENT_BLOCK:
      print_block_comment (f, it);
      break;
    case TILDE_COMMENT_INCLUDE:
      {
        gsize n = c->length;

        while (n > 0 && g_ascii_isspace (c->text[n - 1]))
          n--;
        open_box (f, TILDE_LAYOUT_B, 0);
        tilde_layout_text (f->out, c->text, (gssize) n);
        close_box (f);
        break;
      }
    }
}

/* The items before `limit` that are still to print. */
static GPtrArray *
take_comments (Fmt *f, const Pos *limit)
{
  GPtrArray *taken = g_ptr_array_new ();

  while (f->next < f->n_items && pos_compare (&f->items[f->next].begin, limit) < 0)
    g_ptr_array_add (taken, &f->items[f->next++]);
  return taken;
}

/* Items left behind inside a statement are printed after it. An #include
 * inside a statement has its text printed in place already. */
static void
skip_comments (Fmt *f, const Pos *limit)
{
  g_autoptr(GPtrArray) taken = take_comments (f, limit);

  for (guint i = 0; i < taken->len; i++)
    {
      Item *it = taken->pdata[i];

      if (it->comment->kind != TILDE_COMMENT_INCLUDE)
        g_ptr_array_add (f->skipped, it);
    }
}

/* Separation between two things on the statement level: a blank line where
 * the source had one (or where the file changes), else a new line when
 * asked or when the source had one, else a space. */
static void
separate (Fmt *f, gboolean newline, const Pos *prev, const Pos *next)
{
  gboolean other_file;
  int prev_line, next_line;

  if (should_skip (f, next))
    return;
  if (f->inline_includes)
    {
      other_file = prev->file && next->file && prev->file != next->file
                   && g_strcmp0 (prev->file->name, next->file->name) != 0;
      prev_line = prev->line;
      next_line = next->line;
    }
  else
    {
      other_file = FALSE;
      prev_line = main_line (prev);
      next_line = main_line (next);
    }
  if (other_file || prev_line + 1 < next_line)
    {
      cut (f);
      cut (f);
    }
  else if (newline || prev_line < next_line)
    cut (f);
  else
    text (f, " ");
}

/* stanc's pp_spacing: the comments `items` between `prev` and `next`, each
 * placed as in the source, then the separation before `next`. */
static void
spacing (Fmt *f, gboolean newline, const Pos *prev, const Pos *next, GPtrArray *items)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  Pos at;
  gboolean have_at = prev != NULL;

  for (guint i = 0; i < f->skipped->len; i++)
    g_ptr_array_add (all, f->skipped->pdata[i]);
  g_ptr_array_set_size (f->skipped, 0);
  for (guint i = 0; items && i < items->len; i++)
    g_ptr_array_add (all, items->pdata[i]);
  if (all->len > 0 && is_line_like (all->pdata[all->len - 1]))
    newline = TRUE;
  if (prev)
    at = *prev;
  for (guint i = 0; i < all->len; i++)
    {
      const Item *it = all->pdata[i];

      if (have_at)
        separate (f, FALSE, &at, &it->begin);
      print_comment (f, it);
      if (!have_at || pos_compare (&it->end, &at) > 0)
        at = it->end;
      have_at = TRUE;
    }
  if (next && have_at)
    separate (f, newline, &at, next);
}

/* stanc's pp_comments_spacing, for comments inside expressions and lists. */
static void
comments_inline (Fmt *f, gboolean space_before, GPtrArray *items)
{
  gboolean was_block = TRUE;
  guint shown = 0;

  for (guint i = 0; i < items->len; i++)
    {
      const Item *it = items->pdata[i];

      if (it->comment->kind == TILDE_COMMENT_INCLUDE)
        continue;
      if (shown++ == 0 && space_before)
        space (f);
      print_comment (f, it);
      was_block = it->comment->kind == TILDE_COMMENT_BLOCK;
      if (!was_block)
        tilde_layout_force_newline (f->out);
    }
  if (shown > 0 && was_block && !space_before)
    space (f);
}

static void
comments_before (Fmt *f, gboolean space_before, const Pos *limit)
{
  g_autoptr(GPtrArray) items = take_comments (f, limit);

  comments_inline (f, space_before, items);
}

/* The position of `word` ("," or "else") between two positions of one file,
 * outside comments; FALSE when there is none. */
static gboolean
find_separator (const Pos *from, const Pos *to, const char *word, Pos *found)
{
  const char *s;
  gsize wlen = strlen (word);
  int line, column;

  if (from->file == NULL || from->file != to->file || from->offset > to->offset)
    return FALSE;
  s = from->file->text;
  line = from->line;
  column = from->column;
  for (guint i = from->offset; i < to->offset; i++)
    {
      if (s[i] == '/' && s[i + 1] == '/')
        {
          while (i < to->offset && s[i] != '\n')
            i++;
        }
      else if (s[i] == '/' && s[i + 1] == '*')
        {
          i += 2;
          while (i < to->offset && !(s[i] == '*' && s[i + 1] == '/'))
            {
              if (s[i] == '\n')
                {
                  line++;
                  column = -1;
                }
              i++;
              column++;
            }
          i++;
          column += 3;
          continue;
        }
      if (i >= to->offset)
        break;
      if (strncmp (s + i, word, wlen) == 0 && i + wlen <= to->offset
          && (wlen == 1 || ((i == 0 || !g_ascii_isalnum (s[i - 1]))
                            && !g_ascii_isalnum (s[i + wlen]) && s[i + wlen] != '_')))
        {
          found->file = from->file;
          found->line = line;
          found->column = column;
          found->offset = i;
          return TRUE;
        }
      if (s[i] == '\n')
        {
          line++;
          column = 0;
        }
      else
        column++;
    }
  return FALSE;
}

/* Comments up to the separator between `prev_end` and `next` (all of those
 * before `next` when there is no separator). */
static void
comments_before_separator (Fmt *f, gboolean space_before, const Pos *prev_end,
                           const Pos *next, const char *word)
{
  Pos sep;

  if (prev_end && find_separator (prev_end, next, word, &sep))
    comments_before (f, space_before, &sep);
  else
    comments_before (f, space_before, next);
}

/* ---- lists ---- */

typedef void (*PrintItem) (Fmt *f, gconstpointer item, gpointer data);
typedef TildeSpan (*ItemSpan) (gconstpointer item);

/* stanc's pp_list_of: items separated by ",@ ", with the comments between
 * them kept on their side of the comma. */
static void
print_list (Fmt *f, gconstpointer const *list, int n, const TildeSpan *whole,
            PrintItem print, ItemSpan span_of, gpointer data)
{
  Pos begin = pos_begin (whole);
  Pos end = pos_end (whole);

  skip_comments (f, &begin);
  for (int i = 0; i < n; i++)
    {
      TildeSpan s = span_of (list[i]);
      Pos b = pos_begin (&s);

      if (i == 0)
        comments_before (f, FALSE, &b);
      else
        {
          TildeSpan ps = span_of (list[i - 1]);
          Pos pe = pos_end (&ps);

          comments_before_separator (f, TRUE, &pe, &b, ",");
          text (f, ",");
          space (f);
          comments_before (f, FALSE, &b);
        }
      print (f, list[i], data);
    }
  comments_before (f, TRUE, &end);
}

static TildeSpan
expr_span (gconstpointer item)
{
  return ((const TildeExpr *) item)->span;
}

static void
print_expr_item (Fmt *f, gconstpointer item, gpointer data)
{
  print_expr (f, item, GPOINTER_TO_INT (data));
}

static void
print_expr_list (Fmt *f, TildeExpr *const *items, int n, const TildeSpan *whole, ParenMode mode)
{
  print_list (f, (gconstpointer const *) items, n, whole, print_expr_item, expr_span,
              GINT_TO_POINTER (mode));
}

/* ---- expressions ---- */

static ParenMode
inner_mode (const Fmt *f, ParenMode wanted)
{
  return (f->canon & TILDE_CANONICALIZE_PARENTHESES) ? wanted : PARENS_AS_WRITTEN;
}

static gboolean
is_operation (const TildeExpr *e)
{
  return e->kind == TILDE_EXPR_BINARY || e->kind == TILDE_EXPR_PREFIX
         || e->kind == TILDE_EXPR_TRANSPOSE || e->kind == TILDE_EXPR_TERNARY;
}

static gboolean
is_comparison (TildeBinaryOp op)
{
  return op >= TILDE_OP_EQUALS && op <= TILDE_OP_GEQ;
}

static void
print_index (Fmt *f, const TildeIndex *ix)
{
  ParenMode keep = inner_mode (f, PARENS_KEEP);

  switch (ix->kind)
    {
    case TILDE_INDEX_ALL:
      text (f, " : ");
      break;
    case TILDE_INDEX_SINGLE:
      print_expr (f, ix->lower, inner_mode (f, PARENS_DROP));
      break;
    case TILDE_INDEX_UPFROM:
      print_expr (f, ix->lower, keep);
      text (f, " : ");
      break;
    case TILDE_INDEX_DOWNFROM:
      text (f, " : ");
      print_expr (f, ix->upper, keep);
      break;
    case TILDE_INDEX_BETWEEN:
      print_expr (f, ix->lower, keep);
      text (f, " : ");
      print_expr (f, ix->upper, keep);
      break;
    }
}

/* name(args): the arguments in a box of their own that may start on the
 * next line, inside a box that breaks the line before "(" when it would
 * open too far to the right. */
static void
print_call_args (Fmt *f, TildeExpr *const *args, int n, const TildeSpan *whole, ParenMode mode)
{
  open_box (f, TILDE_LAYOUT_B, 0);
  text (f, "(");
  open_box (f, TILDE_LAYOUT_B, 0);
  cut (f);
  print_expr_list (f, args, n, whole, mode);
  text (f, ")");
  close_box (f);
  close_box (f);
}

static void
print_cond_call (Fmt *f, const TildeExpr *e, ParenMode mode)
{
  TildeExpr *const *args = e->u.call.args;
  int n = e->u.call.n_args;

  open_box (f, TILDE_LAYOUT_H, 0);
  text (f, e->u.call.name.name);
  text (f, "(");
  if (n > 0)
    {
      print_expr (f, args[0], mode);
      if (n > 1)
        {
          Pos b = pos_begin (&args[1]->span);
          TildeSpan rest = e->span;

          comments_before (f, TRUE, &b);
          text (f, " | ");
          comments_before (f, FALSE, &b);
          rest.begin_line = args[1]->span.begin_line;
          rest.begin_column = args[1]->span.begin_column;
          rest.begin_offset = args[1]->span.begin_offset;
          rest.file = args[1]->span.file;
          print_expr_list (f, args + 1, n - 1, &rest, mode);
        }
      else
        {
          Pos end = pos_end (&e->span);

          /* as stanc prints a conditional call with nothing after the bar,
           * std_normal_lpdf(x) among them */
          comments_before (f, TRUE, &end);
          text (f, " | ");
        }
    }
  text (f, ")");
  close_box (f);
}

static void
print_expr_inner (Fmt *f, const TildeExpr *e, ParenMode mode)
{
  ParenMode keep = inner_mode (f, PARENS_KEEP);
  ParenMode drop = inner_mode (f, PARENS_DROP);

  switch (e->kind)
    {
    case TILDE_EXPR_ERROR:
      text (f, "/* error */");
      break;
    case TILDE_EXPR_VARIABLE:
      text (f, e->u.variable.name);
      break;
    case TILDE_EXPR_INT:
    case TILDE_EXPR_REAL:
    case TILDE_EXPR_STRING:
      text (f, e->u.literal.text);
      break;
    case TILDE_EXPR_IMAG:
      {
        g_autofree char *s = g_strconcat (e->u.literal.text, "i", NULL);

        text (f, s);
        break;
      }
    case TILDE_EXPR_BINARY:
      {
        const TildeExpr *lhs = e->u.binary.lhs, *rhs = e->u.binary.rhs;
        Pos rhs_begin = pos_begin (&rhs->span);
        /* a < b < c reads as (a < b) < c; canonical form says so */
        gboolean chained = mode == PARENS_DROP && lhs->kind == TILDE_EXPR_BINARY
                           && is_comparison (lhs->u.binary.op) && is_comparison (e->u.binary.op);

        open_box (f, TILDE_LAYOUT_B, 0);
        if (chained)
          {
            text (f, "(");
            print_expr (f, lhs, PARENS_DROP);
            text (f, ")");
          }
        else
          print_expr (f, lhs, keep);
        space (f);
        comments_before (f, FALSE, &rhs_begin);
        text (f, tilde_binary_op_to_string (e->u.binary.op));
        text (f, " ");
        comments_before (f, FALSE, &rhs_begin);
        print_expr (f, rhs, keep);
        close_box (f);
        break;
      }
    case TILDE_EXPR_PREFIX:
      {
        Pos b = pos_begin (&e->u.prefix.operand->span);

        comments_before (f, FALSE, &b);
        text (f, tilde_prefix_op_to_string (e->u.prefix.op));
        print_expr (f, e->u.prefix.operand, keep);
        break;
      }
    case TILDE_EXPR_TRANSPOSE:
      print_expr (f, e->u.transpose.operand, keep);
      text (f, "'");
      break;
    case TILDE_EXPR_TERNARY:
      {
        const TildeExpr *c = e->u.ternary.cond;
        const TildeExpr *t = e->u.ternary.if_true, *x = e->u.ternary.if_false;
        Pos t_begin = pos_begin (&t->span), x_begin = pos_begin (&x->span);

        open_box (f, TILDE_LAYOUT_B, 0);
        print_expr (f, c, keep);
        space (f);
        comments_before (f, FALSE, &t_begin);
        text (f, "? ");
        comments_before (f, FALSE, &t_begin);
        print_expr (f, t, keep);
        space (f);
        comments_before (f, FALSE, &x_begin);
        text (f, ": ");
        comments_before (f, FALSE, &x_begin);
        print_expr (f, x, keep);
        close_box (f);
        break;
      }
    case TILDE_EXPR_CALL:
      text (f, e->u.call.name.name);
      print_call_args (f, e->u.call.args, e->u.call.n_args, &e->span, drop);
      break;
    case TILDE_EXPR_COND_CALL:
      print_cond_call (f, e, drop);
      break;
    case TILDE_EXPR_TARGET:
      text (f, "target()");
      break;
    case TILDE_EXPR_INDEXED:
      print_expr (f, e->u.indexed.base, keep);
      text (f, "[");
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        {
          if (i)
            text (f, ", ");
          print_index (f, &e->u.indexed.indices[i]);
        }
      text (f, "]");
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      print_expr (f, e->u.proj.base, keep);
      if (e->u.proj.text)
        text (f, e->u.proj.text);
      else
        {
          g_autofree char *s = g_strdup_printf (".%d", e->u.proj.slot);

          text (f, s);
        }
      break;
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      {
        static const char *const open[] = { "{", "[", "(" };
        static const char *const close[] = { "}", "]", ")" };
        int k = e->kind == TILDE_EXPR_ARRAY ? 0 : e->kind == TILDE_EXPR_ROW_VECTOR ? 1 : 2;

        text (f, open[k]);
        open_box (f, TILDE_LAYOUT_B, 0);
        print_expr_list (f, e->u.list.items, e->u.list.n_items, &e->span, drop);
        text (f, close[k]);
        close_box (f);
        break;
      }
    case TILDE_EXPR_PAREN:
      text (f, "(");
      print_expr (f, e->u.paren.inner, mode == PARENS_AS_WRITTEN ? mode : PARENS_DROP);
      text (f, ")");
      break;
    }
}

static void
print_expr (Fmt *f, const TildeExpr *e, ParenMode mode)
{
  if (e == NULL)
    return;
  if (mode != PARENS_AS_WRITTEN && e->kind == TILDE_EXPR_PAREN)
    {
      const TildeExpr *inner = e->u.paren.inner;

      /* keep_parens keeps one pair around an operation; everything else
       * loses its parentheses */
      if (mode == PARENS_KEEP && inner->kind == TILDE_EXPR_PAREN)
        {
          print_expr (f, inner, PARENS_KEEP);
          return;
        }
      if (mode == PARENS_KEEP && is_operation (inner))
        {
          print_expr_inner (f, e, PARENS_KEEP);
          return;
        }
      print_expr (f, inner, PARENS_DROP);
      return;
    }
  print_expr_inner (f, e, mode);
}

/* ---- types ---- */

static void
print_bounds (Fmt *f, const TildeBounds *b)
{
  const char *names[] = { "lower=", "upper=", "offset=", "multiplier=" };
  const TildeExpr *exprs[] = { b->lower, b->upper, b->offset, b->multiplier };
  gboolean any = FALSE;

  for (int i = 0; i < 4; i++)
    {
      if (exprs[i] == NULL)
        continue;
      if (any)
        {
          text (f, ",");
          space (f);
        }
      else
        {
          text (f, "<");
          open_box (f, TILDE_LAYOUT_B, 0);
        }
      text (f, names[i]);
      print_expr (f, exprs[i], inner_mode (f, PARENS_KEEP));
      any = TRUE;
    }
  if (any)
    {
      close_box (f);
      text (f, ">");
    }
}

static void print_sized_type (Fmt *f, const TildeSizedType *t);

static void
print_array_dims (Fmt *f, TildeExpr *const *dims, int n)
{
  TildeSpan whole;

  if (n == 0)
    return;
  whole = tilde_span_join (&dims[0]->span, &dims[n - 1]->span);
  text (f, "array[");
  open_box (f, TILDE_LAYOUT_B, 0);
  print_expr_list (f, dims, n, &whole, inner_mode (f, PARENS_DROP));
  close_box (f);
  text (f, "]");
  space (f);
}

static void
print_sized_type (Fmt *f, const TildeSizedType *t)
{
  ParenMode drop = inner_mode (f, PARENS_DROP);

  if (t->kind == TILDE_DECL_ARRAY)
    {
      print_array_dims (f, t->dims, t->n_dims);
      if (t->element)
        print_sized_type (f, t->element);
      return;
    }
  if (t->kind == TILDE_DECL_TUPLE)
    {
      text (f, "tuple(");
      open_box (f, TILDE_LAYOUT_B, 0);
      for (int i = 0; i < t->n_elements; i++)
        {
          if (i)
            {
              text (f, ",");
              space (f);
            }
          print_sized_type (f, t->elements[i]);
        }
      close_box (f);
      text (f, ")");
      return;
    }
  text (f, tilde_decl_type_kind_to_string (t->kind));
  print_bounds (f, &t->bounds);
  if (t->size1)
    {
      text (f, "[");
      print_expr (f, t->size1, drop);
      if (t->size2)
        {
          text (f, ", ");
          print_expr (f, t->size2, drop);
        }
      text (f, "]");
    }
}

static void
print_unsized_type (Fmt *f, const TildeUnsizedType *t)
{
  switch (t->kind)
    {
    case TILDE_UTYPE_ARRAY:
      {
        GString *s = g_string_new ("array[");

        for (int i = 1; i < t->n_dims; i++)
          g_string_append_c (s, ',');
        g_string_append (s, "] ");
        text (f, s->str);
        g_string_free (s, TRUE);
        if (t->element)
          print_unsized_type (f, t->element);
        break;
      }
    case TILDE_UTYPE_TUPLE:
      text (f, "tuple(");
      open_box (f, TILDE_LAYOUT_B, 0);
      for (int i = 0; i < t->n_elements; i++)
        {
          if (i)
            {
              text (f, ",");
              space (f);
            }
          print_unsized_type (f, t->elements[i]);
        }
      close_box (f);
      text (f, ")");
      break;
    default:
      text (f, tilde_unsized_type_kind_to_string (t->kind));
      break;
    }
}

/* ---- statements ---- */

static void
print_annotations (Fmt *f, const TildeAnnotation *a, int n)
{
  for (int i = 0; i < n; i++)
    {
      g_autofree char *name = g_strconcat ("@", a[i].name.name, NULL);

      text (f, name);
      if (a[i].has_parens)
        print_call_args (f, a[i].args, a[i].n_args, &a[i].span, inner_mode (f, PARENS_DROP));
      text (f, " ");
    }
}

static void
print_statements (Fmt *f, TildeStmt *const *stmts, int n, const Pos *end);

/* "{", the statements, "}" on a line of its own. */
static void
print_braced (Fmt *f, TildeStmt *const *stmts, int n, const Pos *end)
{
  text (f, "{");
  cut (f);
  open_indented (f);
  print_statements (f, stmts, n, end);
  close_indented (f);
  cut (f);
  text (f, "}");
}

static gboolean
wants_braces (const Fmt *f, const TildeStmt *body)
{
  return (f->canon & TILDE_CANONICALIZE_BRACES) && body->kind != TILDE_STMT_BLOCK;
}

/* A body under if/for/while as a statement: with BRACES, a single statement
 * is printed as a block holding it. */
static void
print_body_stmt (Fmt *f, const TildeStmt *body)
{
  if (wants_braces (f, body))
    {
      TildeStmt *one[1] = { (TildeStmt *) body };
      Pos end = pos_end (&body->span);

      print_braced (f, one, 1, &end);
    }
  else
    print_stmt (f, body);
}

/* stanc's pp_indent_unless_block */
static void
print_body (Fmt *f, const TildeStmt *body, const Pos *after)
{
  if (body->kind == TILDE_STMT_BLOCK || wants_braces (f, body))
    {
      print_body_stmt (f, body);
      return;
    }
  {
    Pos b = pos_begin (&body->span);
    g_autoptr(GPtrArray) items = take_comments (f, &b);

    spacing (f, TRUE, after, &b, items);
    open_indented (f);
    print_stmt (f, body);
    close_indented (f);
  }
}

/* With BRACES, `else { if ... }` is printed as `else if ...`. */
static const TildeStmt *
else_branch (const Fmt *f, const TildeStmt *e)
{
  if ((f->canon & TILDE_CANONICALIZE_BRACES) && e->kind == TILDE_STMT_BLOCK
      && e->u.block.n_stmts == 1 && e->u.block.stmts[0]->kind == TILDE_STMT_IF)
    return e->u.block.stmts[0];
  return e;
}

static void
print_if_chain (Fmt *f, const TildeStmt *s, const Pos *after)
{
  const TildeStmt *then_stmt, *else_stmt;
  Pos cond_end, then_end, else_begin, next_line;

  if (s->kind != TILDE_STMT_IF)
    {
      print_body (f, s, after);
      return;
    }
  then_stmt = s->u.if_stmt.then_stmt;
  else_stmt = s->u.if_stmt.else_stmt;
  cond_end = pos_end (&s->u.if_stmt.cond->span);
  text (f, "if (");
  print_expr (f, s->u.if_stmt.cond, inner_mode (f, PARENS_DROP));
  text (f, ") ");
  print_body (f, then_stmt, &cond_end);
  if (else_stmt == NULL)
    return;
  else_stmt = else_branch (f, else_stmt);
  then_end = pos_end (&then_stmt->span);
  else_begin = pos_begin (&else_stmt->span);
  {
    gboolean newline = !(then_stmt->kind == TILDE_STMT_BLOCK || wants_braces (f, then_stmt));
    Pos sep;
    g_autoptr(GPtrArray) items = NULL;

    if (find_separator (&then_end, &else_begin, "else", &sep))
      items = take_comments (f, &sep);
    else
      items = take_comments (f, &else_begin);
    spacing (f, newline, &then_end, &then_end, items);
  }
  text (f, "else ");
  comments_before (f, FALSE, &else_begin);
  next_line = then_end;
  next_line.line++;
  print_if_chain (f, else_stmt, &next_line);
}

static void
print_var_decl (Fmt *f, const TildeStmt *s)
{
  const TildeSizedType *type = s->u.var_decl.type;

  open_box (f, TILDE_LAYOUT_H, 0);
  print_annotations (f, s->u.var_decl.annotations, s->u.var_decl.n_annotations);
  print_sized_type (f, type);
  text (f, " ");
  for (int i = 0; i < s->u.var_decl.n_items; i++)
    {
      const TildeVarDeclItem *item = &s->u.var_decl.items[i];

      if (i)
        {
          text (f, ",");
          space (f);
        }
      text (f, item->ident.name);
      if (item->init)
        {
          text (f, " = ");
          print_expr (f, item->init, inner_mode (f, PARENS_DROP));
        }
    }
  text (f, ";");
  close_box (f);
}

static TildeSpan
arg_span (gconstpointer item)
{
  return ((const TildeFunArg *) item)->span;
}

static void
print_arg (Fmt *f, gconstpointer item, gpointer data)
{
  const TildeFunArg *arg = item;

  if (arg->data_only)
    text (f, "data ");
  print_unsized_type (f, arg->type);
  text (f, " ");
  text (f, arg->ident.name);
}

static void
print_fun_def (Fmt *f, const TildeStmt *s)
{
  const TildeStmt *body = s->u.fun_def.body;
  gconstpointer *args = g_new (gconstpointer, s->u.fun_def.n_args + 1);
  TildeSpan whole = s->span;

  for (int i = 0; i < s->u.fun_def.n_args; i++)
    args[i] = &s->u.fun_def.args[i];
  if (body)
    {
      whole.end_file = body->span.file;
      whole.end_line = body->span.begin_line;
      whole.end_column = body->span.begin_column;
      whole.end_offset = body->span.begin_offset;
    }
  print_annotations (f, s->u.fun_def.annotations, s->u.fun_def.n_annotations);
  print_unsized_type (f, s->u.fun_def.return_type);
  text (f, " ");
  text (f, s->u.fun_def.name.name);
  text (f, "(");
  open_box (f, TILDE_LAYOUT_B, 0);
  print_list (f, args, s->u.fun_def.n_args, &whole, print_arg, arg_span, NULL);
  close_box (f);
  g_free (args);
  if (body == NULL)
    text (f, ");");
  else
    {
      text (f, ") ");
      print_stmt (f, body);
    }
}

static void
print_printables (Fmt *f, const char *keyword, const TildeStmt *s)
{
  text (f, keyword);
  text (f, "(");
  open_box (f, TILDE_LAYOUT_HOV, 0);
  for (int i = 0; i < s->u.printables.n_items; i++)
    {
      if (i)
        {
          text (f, ",");
          space (f);
        }
      print_expr (f, s->u.printables.items[i], inner_mode (f, PARENS_DROP));
    }
  close_box (f);
  text (f, ");");
}

static void
print_tilde (Fmt *f, const TildeStmt *s)
{
  ParenMode drop = inner_mode (f, PARENS_DROP);

  print_expr (f, s->u.tilde.arg, drop);
  text (f, " ~ ");
  text (f, s->u.tilde.distribution.name);
  print_call_args (f, s->u.tilde.args, s->u.tilde.n_args, &s->span, drop);
  switch (s->u.tilde.truncation)
    {
    case TILDE_TRUNCATE_NONE:
      break;
    case TILDE_TRUNCATE_LOWER:
      text (f, " T[");
      print_expr (f, s->u.tilde.trunc_lower, drop);
      text (f, ", ]");
      break;
    case TILDE_TRUNCATE_UPPER:
      text (f, " T[ , ");
      print_expr (f, s->u.tilde.trunc_upper, drop);
      text (f, "]");
      break;
    case TILDE_TRUNCATE_BOTH:
      text (f, " T[");
      print_expr (f, s->u.tilde.trunc_lower, drop);
      text (f, ", ");
      print_expr (f, s->u.tilde.trunc_upper, drop);
      text (f, "]");
      break;
    }
  text (f, ";");
}

static void
print_stmt (Fmt *f, const TildeStmt *s)
{
  ParenMode drop = inner_mode (f, PARENS_DROP);

  switch (s->kind)
    {
    case TILDE_STMT_ERROR:
      text (f, "/* error */;");
      break;
    case TILDE_STMT_VAR_DECL:
      print_var_decl (f, s);
      break;
    case TILDE_STMT_FUN_DEF:
      print_fun_def (f, s);
      break;
    case TILDE_STMT_ASSIGN:
      open_box (f, TILDE_LAYOUT_H, 0);
      print_expr (f, s->u.assign.lhs, drop);
      text (f, " ");
      text (f, tilde_assign_op_to_string (s->u.assign.op));
      text (f, " ");
      print_expr (f, s->u.assign.rhs, drop);
      text (f, ";");
      close_box (f);
      break;
    case TILDE_STMT_TILDE:
      print_tilde (f, s);
      break;
    case TILDE_STMT_TARGET_PLUS:
    case TILDE_STMT_JACOBIAN_PLUS:
      text (f, s->kind == TILDE_STMT_TARGET_PLUS ? "target += " : "jacobian += ");
      print_expr (f, s->u.increment.expr, drop);
      text (f, ";");
      break;
    case TILDE_STMT_CALL:
      text (f, s->u.call.name.name);
      print_call_args (f, s->u.call.args, s->u.call.n_args, &s->span, drop);
      text (f, ";");
      break;
    case TILDE_STMT_PRINT:
      print_printables (f, "print", s);
      break;
    case TILDE_STMT_REJECT:
      print_printables (f, "reject", s);
      break;
    case TILDE_STMT_FATAL_ERROR:
      print_printables (f, "fatal_error", s);
      break;
    case TILDE_STMT_BREAK:
      text (f, "break;");
      break;
    case TILDE_STMT_CONTINUE:
      text (f, "continue;");
      break;
    case TILDE_STMT_RETURN:
      if (s->u.ret.expr == NULL)
        {
          text (f, "return;");
          break;
        }
      text (f, "return ");
      open_box (f, TILDE_LAYOUT_H, 0);
      print_expr (f, s->u.ret.expr, drop);
      close_box (f);
      text (f, ";");
      break;
    case TILDE_STMT_IF:
      open_box (f, TILDE_LAYOUT_V, 0);
      print_if_chain (f, s, NULL);
      close_box (f);
      break;
    case TILDE_STMT_WHILE:
      text (f, "while (");
      print_expr (f, s->u.while_stmt.cond, drop);
      text (f, ") ");
      print_body_stmt (f, s->u.while_stmt.body);
      break;
    case TILDE_STMT_FOR:
      {
        Pos after = pos_end (&s->u.for_stmt.upper->span);
        ParenMode keep = inner_mode (f, PARENS_KEEP);

        open_box (f, TILDE_LAYOUT_V, 0);
        text (f, "for (");
        text (f, s->u.for_stmt.var.name);
        text (f, " in ");
        print_expr (f, s->u.for_stmt.lower, keep);
        text (f, " : ");
        print_expr (f, s->u.for_stmt.upper, keep);
        text (f, ") ");
        print_body (f, s->u.for_stmt.body, &after);
        close_box (f);
        break;
      }
    case TILDE_STMT_FOREACH:
      {
        Pos after = pos_end (&s->u.foreach_stmt.container->span);

        text (f, "for (");
        text (f, s->u.foreach_stmt.var.name);
        text (f, " in ");
        print_expr (f, s->u.foreach_stmt.container, drop);
        text (f, ") ");
        print_body (f, s->u.foreach_stmt.body, &after);
        break;
      }
    case TILDE_STMT_PROFILE:
      {
        Pos end = pos_end (&s->span);

        text (f, "profile(");
        text (f, s->u.profile.name);
        text (f, ") ");
        print_braced (f, s->u.profile.stmts, s->u.profile.n_stmts, &end);
        break;
      }
    case TILDE_STMT_BLOCK:
      {
        Pos end = pos_end (&s->span);

        print_braced (f, s->u.block.stmts, s->u.block.n_stmts, &end);
        break;
      }
    case TILDE_STMT_SKIP:
      text (f, ";");
      break;
    }
}

/* ---- statement lists ---- */

static gboolean
same_arguments (const TildeStmt *a, const TildeStmt *b)
{
  if (a->u.fun_def.n_args != b->u.fun_def.n_args)
    return FALSE;
  for (int i = 0; i < a->u.fun_def.n_args; i++)
    {
      const TildeFunArg *x = &a->u.fun_def.args[i], *y = &b->u.fun_def.args[i];
      g_autofree char *tx = NULL, *ty = NULL;

      if (x->data_only != y->data_only)
        return FALSE;
      tx = tilde_print_unsized_type (x->type);
      ty = tilde_print_unsized_type (y->type);
      if (strcmp (tx, ty) != 0)
        return FALSE;
    }
  return TRUE;
}

/* stanc's remove_unneeded_forward_decls: a declaration without a body is
 * dropped when a definition with the same name and argument types exists. */
static gboolean
is_redundant_forward_decl (const Fmt *f, const TildeStmt *s)
{
  const TildeBlock *functions = f->program->blocks[TILDE_BLOCK_FUNCTIONS];

  if (!(f->canon & TILDE_CANONICALIZE_DEPRECATIONS) || s->kind != TILDE_STMT_FUN_DEF
      || s->u.fun_def.body != NULL || functions == NULL)
    return FALSE;
  for (int i = 0; i < functions->n_stmts; i++)
    {
      const TildeStmt *d = functions->stmts[i];

      if (d->kind == TILDE_STMT_FUN_DEF && d->u.fun_def.body != NULL
          && d->u.fun_def.name.name == s->u.fun_def.name.name && same_arguments (d, s))
        return TRUE;
    }
  return FALSE;
}

/* stanc's pp_list_of_statements: a vertical box of statements with the
 * comments and blank lines between them; `end` is where the list ends. */
static void
print_statements (Fmt *f, TildeStmt *const *stmts, int n, const Pos *end)
{
  Pos prev;
  gboolean first = TRUE;

  open_box (f, TILDE_LAYOUT_V, 0);
  for (int i = 0; i < n; i++)
    {
      const TildeStmt *s = stmts[i];
      Pos b = pos_begin (&s->span);
      g_autoptr(GPtrArray) items = NULL;

      if (is_redundant_forward_decl (f, s))
        continue;
      if (!first)
        skip_comments (f, &prev);
      items = take_comments (f, &b);
      spacing (f, TRUE, first ? NULL : &prev, &b, items);
      if (!should_skip (f, &b))
        print_stmt (f, s);
      prev = pos_end (&s->span);
      first = FALSE;
    }
  if (!first)
    skip_comments (f, &prev);
  {
    g_autoptr(GPtrArray) items = take_comments (f, end);

    spacing (f, TRUE, first ? NULL : &prev, NULL, items);
  }
  close_box (f);
}

/* ---- programs ---- */

static int
compare_items (gconstpointer a, gconstpointer b)
{
  const Item *x = a, *y = b;
  int c = pos_compare (&x->begin, &y->begin);

  if (c != 0)
    return c;
  return x->comment < y->comment ? -1 : x->comment > y->comment;
}

static void
collect_items (Fmt *f, gboolean strip_comments)
{
  const TildeProgram *p = f->program;
  int n = 0;

  f->items = g_new (Item, p->n_comments + 1);
  for (int i = 0; i < p->n_comments; i++)
    {
      const TildeComment *c = &p->comments[i];
      gboolean included = c->span.file != f->main;

      if (c->kind == TILDE_COMMENT_INCLUDE ? f->inline_includes : strip_comments)
        continue;
      if (included && !f->inline_includes)
        continue;
      f->items[n].comment = c;
      f->items[n].begin = pos_begin (&c->span);
      f->items[n].end = pos_end (&c->span);
      n++;
    }
  qsort (f->items, (gsize) n, sizeof (Item), compare_items);
  f->n_items = n;
}

static void
print_remaining (Fmt *f)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new ();

  while (f->next < f->n_items)
    g_ptr_array_add (items, &f->items[f->next++]);
  spacing (f, TRUE, NULL, NULL, items);
}

static void
print_blocks (Fmt *f)
{
  const TildeProgram *p = f->program;

  for (int k = 0; k < TILDE_N_BLOCKS; k++)
    {
      const TildeBlock *block = p->blocks[k];
      Pos b, e;
      g_autoptr(GPtrArray) items = NULL;

      if (block == NULL)
        continue;
      b = pos_begin (&block->span);
      e = pos_end (&block->span);
      if (should_skip (f, &e))
        continue;
      items = take_comments (f, &b);
      spacing (f, TRUE, NULL, &b, items);
      text (f, tilde_block_kind_to_string (block->kind));
      text (f, " {");
      cut (f);
      open_indented (f);
      print_statements (f, block->stmts, block->n_stmts, &e);
      close_indented (f);
      cut (f);
      text (f, "}");
      cut (f);
    }
  print_remaining (f);
}

void
tilde_format_options_init (TildeFormatOptions *opts)
{
  g_return_if_fail (opts != NULL);
  memset (opts, 0, sizeof *opts);
  opts->max_line_length = TILDE_FORMAT_DEFAULT_LINE_LENGTH;
}

char *
tilde_format_program (const TildeProgram *program, const TildeFormatOptions *opts)
{
  TildeFormatOptions defaults;
  Fmt f = { 0 };
  char *result;

  g_return_val_if_fail (program != NULL, NULL);
  if (opts == NULL)
    {
      tilde_format_options_init (&defaults);
      opts = &defaults;
    }
  f.program = program;
  f.main = program->sources ? tilde_source_set_get_main (program->sources) : NULL;
  f.canon = opts->canonicalize;
  f.inline_includes = (opts->canonicalize & TILDE_CANONICALIZE_INCLUDES) != 0;
  f.skipped = g_ptr_array_new ();
  f.out = tilde_layout_new (opts->max_line_length > 0 ? opts->max_line_length
                                                      : TILDE_FORMAT_DEFAULT_LINE_LENGTH);
  collect_items (&f, opts->strip_comments);
  open_box (&f, TILDE_LAYOUT_V, 0);
  if (program->functions_only)
    {
      const TildeBlock *block = program->blocks[TILDE_BLOCK_FUNCTIONS];
      Pos end = { NULL, G_MAXINT, 0, G_MAXUINT };

      open_box (&f, TILDE_LAYOUT_H, 0);
      open_box (&f, TILDE_LAYOUT_B, 0);
      if (f.n_items > 0)
        end = f.items[f.n_items - 1].end;
      if (block)
        {
          if (block->n_stmts > 0)
            {
              Pos last = pos_end (&block->stmts[block->n_stmts - 1]->span);

              if (f.n_items == 0 || pos_compare (&last, &end) > 0)
                end = last;
            }
          end.offset++;
          print_statements (&f, block->stmts, block->n_stmts, &end);
        }
      else
        print_remaining (&f);
      close_box (&f);
      close_box (&f);
    }
  else
    print_blocks (&f);
  close_box (&f);
  result = tilde_layout_finish (f.out);
  g_free (f.items);
  g_ptr_array_unref (f.skipped);
  return result;
}

char *
tilde_print_program (const TildeProgram *program, TildePrintFlags flags)
{
  TildeFormatOptions opts;

  tilde_format_options_init (&opts);
  if (flags & TILDE_PRINT_EXPAND_INCLUDES)
    opts.canonicalize |= TILDE_CANONICALIZE_INCLUDES;
  opts.strip_comments = (flags & TILDE_PRINT_NO_COMMENTS) != 0;
  return tilde_format_program (program, &opts);
}

char *
tilde_print_stmt (const TildeStmt *stmt)
{
  Fmt f = { 0 };

  f.skipped = g_ptr_array_new ();
  f.inline_includes = TRUE;
  f.out = tilde_layout_new (TILDE_FORMAT_DEFAULT_LINE_LENGTH);
  open_box (&f, TILDE_LAYOUT_V, 0);
  print_stmt (&f, stmt);
  close_box (&f);
  g_ptr_array_unref (f.skipped);
  return tilde_layout_finish (f.out);
}

static const struct {
  const char            *name;
  TildeCanonicalizeFlags flag;
} canonicalize_names[] = {
  { "deprecations", TILDE_CANONICALIZE_DEPRECATIONS },
  { "parentheses", TILDE_CANONICALIZE_PARENTHESES },
  { "parenthesis", TILDE_CANONICALIZE_PARENTHESES },
  { "braces", TILDE_CANONICALIZE_BRACES },
  { "includes", TILDE_CANONICALIZE_INCLUDES },
};

gboolean
tilde_format_parse_canonicalize (const char *list, TildeFormatOptions *opts, GError **error)
{
  g_auto(GStrv) parts = NULL;

  g_return_val_if_fail (list != NULL && opts != NULL, FALSE);
  parts = g_strsplit (list, ",", -1);
  for (int i = 0; parts[i]; i++)
    {
      const char *word = g_strstrip (parts[i]);
      gboolean known = FALSE;

      if (*word == '\0')
        continue;
      if (strcmp (word, "strip-comments") == 0)
        {
          opts->strip_comments = TRUE;
          continue;
        }
      for (gsize k = 0; k < G_N_ELEMENTS (canonicalize_names); k++)
        if (strcmp (word, canonicalize_names[k].name) == 0)
          {
            opts->canonicalize |= canonicalize_names[k].flag;
            known = TRUE;
          }
      if (!known)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "Unrecognized canonicalization option '%s'", word);
          return FALSE;
        }
    }
  return TRUE;
}
