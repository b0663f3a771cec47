/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/json-locate.h"
#include "io/decimal.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* Deeper than any data file nests; past it the syntax check gives up
 * rather than recurse without bound. */
#define MAX_DEPTH 512

typedef TildeJsonToken Tok;

typedef struct {
  const char *text;
  gsize       len;
  gsize       pos;
  Tok         peeked;
  gboolean    has_peeked;
} Lexer;

gsize
tilde_json_string_end (const char *text, gsize len, gsize begin, gboolean *closed)
{
  char quote = text[begin];
  gsize i = begin + 1;
  while (i < len)
    {
      char c = text[i];
      if (c == '\\' && quote == '"' && i + 1 < len)
        i += 2;
      else if (c == quote)
        {
          if (closed)
            *closed = TRUE;
          return i + 1;
        }
      else
        i++;
    }
  if (closed)
    *closed = FALSE;
  return len;
}


/* The token at or after `pos`, past blanks and, unless `comments` asks
 * for them as tokens, past comments. Inline: the checks of large data
 * files spend most of their time here. */
G_ALWAYS_INLINE static inline Tok
scan (const char *text, gsize len, gsize pos, gboolean comments)
{
  Tok t;

  while (pos < len)
    {
      char c = text[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        pos++;
      else if (c == '/' && pos + 1 < len && text[pos + 1] == '*')
        {
          const char *close = g_strstr_len (text + pos + 2, (gssize) (len - pos - 2), "*/");
          t.begin = pos;
          if (!close)
            {
              t.kind = TILDE_JSON_TOKEN_OPEN_COMMENT;
              t.end = len;
              return t;
            }
          pos = (gsize) (close - text) + 2;
          if (comments)
            {
              t.kind = TILDE_JSON_TOKEN_COMMENT;
              t.end = pos;
              return t;
            }
        }
      else
        break;
    }
  t.begin = pos;
  t.end = pos + 1;
  if (pos >= len)
    {
      t.kind = TILDE_JSON_TOKEN_END;
      t.end = pos;
      return t;
    }
  char c = text[pos];
  switch (c)
    {
    case '{': t.kind = TILDE_JSON_TOKEN_OPEN_OBJECT; break;
    case '}': t.kind = TILDE_JSON_TOKEN_CLOSE_OBJECT; break;
    case '[': t.kind = TILDE_JSON_TOKEN_OPEN_ARRAY; break;
    case ']': t.kind = TILDE_JSON_TOKEN_CLOSE_ARRAY; break;
    case ':': t.kind = TILDE_JSON_TOKEN_COLON; break;
    case ',': t.kind = TILDE_JSON_TOKEN_COMMA; break;
    case '"':
    case '\'':
      {
        gboolean closed;
        t.end = tilde_json_string_end (text, len, pos, &closed);
        t.kind = closed ? TILDE_JSON_TOKEN_STRING : TILDE_JSON_TOKEN_OPEN_STRING;
        break;
      }
    default:
      if (c == '-' && t.end < len && g_ascii_isalpha (text[t.end]))
        {
          /* -Infinity: a word, so that it is named as one */
          t.kind = TILDE_JSON_TOKEN_WORD;
          while (t.end < len && g_ascii_isalnum (text[t.end]))
            t.end++;
        }
      else if (c == '-' || g_ascii_isdigit (c))
        {
          t.kind = TILDE_JSON_TOKEN_NUMBER;
          while (t.end < len && tilde_decimal_is_number_char (text[t.end]))
            t.end++;
        }
      else if (g_ascii_isalpha (c) || c == '_')
        {
          t.kind = TILDE_JSON_TOKEN_WORD;
          while (t.end < len && (g_ascii_isalnum (text[t.end]) || text[t.end] == '_'))
            t.end++;
        }
      else
        {
          t.kind = TILDE_JSON_TOKEN_OTHER;
          /* one whole character */
          while (t.end < len && ((guchar) text[t.end] & 0xc0) == 0x80)
            t.end++;
        }
    }
  return t;
}

TildeJsonToken
tilde_json_next_token (const char *text, gsize len, gsize pos, gboolean comments)
{
  return scan (text, len, pos, comments);
}

static Tok
lex (Lexer *lx)
{
  Tok t;

  if (lx->has_peeked)
    {
      lx->has_peeked = FALSE;
      return lx->peeked;
    }
  t = scan (lx->text, lx->len, lx->pos, FALSE);
  lx->pos = t.end;
  return t;
}

static Tok
peek (Lexer *lx)
{
  if (!lx->has_peeked)
    {
      lx->peeked = lex (lx);
      lx->has_peeked = TRUE;
    }
  return lx->peeked;
}

/* Past the value that starts with `first`; FALSE when the text ends, or
 * breaks off, inside it. */
static gboolean
skip_value (Lexer *lx, Tok first, gsize *end)
{
  int depth = 0;
  Tok t = first;
  for (;;)
    {
      switch (t.kind)
        {
        case TILDE_JSON_TOKEN_OPEN_OBJECT:
        case TILDE_JSON_TOKEN_OPEN_ARRAY:
          depth++;
          break;
        case TILDE_JSON_TOKEN_CLOSE_OBJECT:
        case TILDE_JSON_TOKEN_CLOSE_ARRAY:
          depth--;
          break;
        case TILDE_JSON_TOKEN_END:
        case TILDE_JSON_TOKEN_OPEN_STRING:
        case TILDE_JSON_TOKEN_OPEN_COMMENT:
          return FALSE;
        default:
          break;
        }
      if (depth <= 0)
        {
          *end = t.end;
          return depth == 0;
        }
      t = lex (lx);
    }
}

/* ---- keys ---- */

static gboolean
read_hex4 (const char *p, const char *end, gunichar *out)
{
  gunichar v = 0;
  if (end - p < 4)
    return FALSE;
  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p[i]);
      if (d < 0)
        return FALSE;
      v = v * 16 + (gunichar) d;
    }
  *out = v;
  return TRUE;
}

char *
tilde_json_string_value (const char *text, gsize begin, gsize end)
{
  const char *p = text + begin + 1, *stop = text + end - 1;
  GString *s = g_string_sized_new ((gsize) (stop - p));
  if (text[begin] == '\'')
    return g_string_free (g_string_append_len (s, p, stop - p), FALSE);
  while (p < stop)
    {
      if (*p != '\\' || p + 1 >= stop)
        {
          g_string_append_c (s, *p++);
          continue;
        }
      char e = p[1];
      p += 2;
      switch (e)
        {
        case 'b': g_string_append_c (s, '\b'); break;
        case 'f': g_string_append_c (s, '\f'); break;
        case 'n': g_string_append_c (s, '\n'); break;
        case 'r': g_string_append_c (s, '\r'); break;
        case 't': g_string_append_c (s, '\t'); break;
        case 'u':
          {
            gunichar u, low;
            if (!read_hex4 (p, stop, &u))
              break;
            p += 4;
            if (u >= 0xd800 && u < 0xdc00 && stop - p >= 6 && p[0] == '\\' && p[1] == 'u'
                && read_hex4 (p + 2, stop, &low) && low >= 0xdc00 && low < 0xe000)
              {
                u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
                p += 6;
              }
            else if (u >= 0xd800 && u < 0xe000)
              u = 0xfffd;   /* half a pair stands for no character */
            g_string_append_unichar (s, u);
            break;
          }
        default:
          g_string_append_c (s, e);
        }
    }
  return g_string_free (s, FALSE);
}

/* ---- the outline ---- */

static void
member_clear (gpointer data)
{
  g_free (((TildeJsonMember *) data)->name);
}

TildeJsonOutline *
tilde_json_outline_new (const char *text, gsize len)
{
  TildeJsonOutline *o = g_new0 (TildeJsonOutline, 1);
  Lexer lx = { .text = text, .len = len };
  Tok t;

  o->members = g_array_new (FALSE, TRUE, sizeof (TildeJsonMember));
  g_array_set_clear_func (o->members, member_clear);
  t = lex (&lx);
  o->empty = t.kind == TILDE_JSON_TOKEN_END;
  o->value_begin = o->value_end = t.begin;
  if (t.kind != TILDE_JSON_TOKEN_OPEN_OBJECT)
    {
      if (!o->empty)
        skip_value (&lx, t, &o->value_end);
      return o;
    }
  o->is_object = TRUE;
  o->close = len;
  for (;;)
    {
      TildeJsonMember m = { 0 };
      Tok key = lex (&lx);
      if (key.kind == TILDE_JSON_TOKEN_CLOSE_OBJECT)
        {
          o->close = key.begin;
          break;
        }
      if (key.kind == TILDE_JSON_TOKEN_COMMA)
        continue;
      if (key.kind != TILDE_JSON_TOKEN_STRING || lex (&lx).kind != TILDE_JSON_TOKEN_COLON)
        break;
      Tok first = lex (&lx);
      m.key_begin = key.begin;
      m.key_end = key.end;
      m.value_begin = first.begin;
      if (!skip_value (&lx, first, &m.value_end))
        break;
      m.name = tilde_json_string_value (text, key.begin, key.end);
      g_array_append_val (o->members, m);
    }
  o->value_end = MIN (o->close + 1, len);
  return o;
}

void
tilde_json_outline_free (TildeJsonOutline *outline)
{
  if (!outline)
    return;
  g_array_unref (outline->members);
  g_free (outline);
}

const TildeJsonMember *
tilde_json_outline_lookup (const TildeJsonOutline *outline, const char *name)
{
  for (guint i = outline->members->len; i-- > 0;)
    {
      const TildeJsonMember *m = &g_array_index (outline->members, TildeJsonMember, i);
      if (strcmp (m->name, name) == 0)
        return m;
    }
  return NULL;
}

/* ---- syntax ---- */

typedef struct {
  Lexer    lx;
  gboolean failed;
  gboolean gave_up;
  Tok      at;
  char    *message;
  GArray  *members;   /* the top-level object's, when asked for */
} Checker;

static char *
describe (const Checker *c, Tok t)
{
  const char *s = c->lx.text + t.begin;
  int n = (int) (t.end - t.begin);
  switch (t.kind)
    {
    case TILDE_JSON_TOKEN_END:
      return g_strdup ("the end of the data");
    case TILDE_JSON_TOKEN_STRING:
      if (n > 24)
        {
          int cut = 20;
          /* on a character boundary: messages are shown as UTF-8 */
          while (cut > 1 && ((guchar) s[cut] & 0xc0) == 0x80)
            cut--;
          return g_strdup_printf ("the string %.*s…", cut, s);
        }
      return g_strdup_printf ("the string %.*s", n, s);
    case TILDE_JSON_TOKEN_NUMBER:
      return g_strdup_printf ("the number %.*s", MIN (n, 24), s);
    default:
      return g_strdup_printf ("'%.*s'", MIN (n, 24), s);
    }
}

static void
fail_at (Checker *c, Tok t, const char *message)
{
  if (c->failed)
    return;
  c->failed = TRUE;
  c->at = t;
  c->message = g_strdup (message);
}

static void
fail_expected (Checker *c, Tok t, const char *expected)
{
  g_autofree char *found = describe (c, t);
  g_autofree char *message = g_strdup_printf ("expected %s, found %s", expected, found);
  fail_at (c, t, message);
}

/* Tokens that are wrong wherever they are. */
static gboolean
fail_if_broken (Checker *c, Tok t)
{
  if (t.kind == TILDE_JSON_TOKEN_OPEN_STRING)
    {
      /* the squiggle stays on the line the string starts on */
      const char *nl = memchr (c->lx.text + t.begin, '\n', t.end - t.begin);
      if (nl)
        t.end = (gsize) (nl - c->lx.text);
      fail_at (c, t, "the string is not closed");
      return TRUE;
    }
  if (t.kind == TILDE_JSON_TOKEN_OPEN_COMMENT)
    {
      t.end = t.begin + 2;
      fail_at (c, t, "the comment is not closed");
      return TRUE;
    }
  return FALSE;
}

static gboolean
is_digit (char c)
{
  return (guchar) (c - '0') < 10;
}

static gboolean
valid_number (const char *s, gsize n)
{
  return n > 0 && tilde_decimal_grammar_end (s, n, 0) == n;
}

/* JSON's words are lower case; True and NULL are not JSON. */
static gboolean
word_exactly (const Checker *c, Tok t, const char *word)
{
  gsize n = strlen (word);
  return t.end - t.begin == n && strncmp (c->lx.text + t.begin, word, n) == 0;
}

static gboolean
word_is (const Checker *c, Tok t, const char *word)
{
  gsize n = strlen (word);
  return t.end - t.begin == n && g_ascii_strncasecmp (c->lx.text + t.begin, word, n) == 0;
}

static void check_value (Checker *c, Tok t, int depth);

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static gboolean
starts_number (const char *t, gsize len, gsize p)
{
  return p < len && (t[p] == '-' || is_digit (t[p]));
}

/* Runs of "number," in an array, the bulk of a data file, checked without
 * a token each: the lexer is moved to the last number of the run, past
 * every valid number that a comma and another number follow. Anything
 * else is left to the tokens, which then also name what is wrong. */
static void
skip_number_run (Lexer *lx)
{
  const char *t = lx->text;
  gsize len = lx->len, p;

  if (lx->has_peeked)
    {
      if (lx->peeked.kind != TILDE_JSON_TOKEN_NUMBER)
        return;
      lx->has_peeked = FALSE;
      lx->pos = lx->peeked.begin;
    }
  p = lx->pos;
  for (;;)
    {
      gsize q = p, begin;
      while (q < len && is_blank (t[q]))
        q++;
      if (!starts_number (t, len, q))
        break;
      /* the token is the run of number characters; it must all be grammar */
      begin = q;
      q = tilde_decimal_grammar_end (t, len, q);
      if (q == begin || (q < len && tilde_decimal_is_number_char (t[q])))
        break;
      while (q < len && is_blank (t[q]))
        q++;
      if (q >= len || t[q] != ',')
        break;
      q++;
      while (q < len && is_blank (t[q]))
        q++;
      if (!starts_number (t, len, q))
        break;
      p = q;
    }
  lx->pos = p;
}

static void
check_array (Checker *c, int depth)
{
  if (peek (&c->lx).kind == TILDE_JSON_TOKEN_CLOSE_ARRAY)
    {
      lex (&c->lx);
      return;
    }
  for (;;)
    {
      skip_number_run (&c->lx);
      check_value (c, lex (&c->lx), depth + 1);
      if (c->failed || c->gave_up)
        return;
      Tok t = lex (&c->lx);
      if (t.kind == TILDE_JSON_TOKEN_CLOSE_ARRAY)
        return;
      if (fail_if_broken (c, t))
        return;
      if (t.kind != TILDE_JSON_TOKEN_COMMA)
        {
          fail_expected (c, t, "',' or ']'");
          return;
        }
      if (peek (&c->lx).kind == TILDE_JSON_TOKEN_CLOSE_ARRAY)
        {
          fail_at (c, t, "a comma before ']' is not allowed in JSON");
          return;
        }
    }
}

static void
check_object (Checker *c, int depth)
{
  if (peek (&c->lx).kind == TILDE_JSON_TOKEN_CLOSE_OBJECT)
    {
      lex (&c->lx);
      return;
    }
  for (;;)
    {
      Tok key = lex (&c->lx);
      if (fail_if_broken (c, key))
        return;
      if (key.kind != TILDE_JSON_TOKEN_STRING)
        {
          fail_expected (c, key, "a name in double quotes");
          return;
        }
      Tok colon = lex (&c->lx);
      if (fail_if_broken (c, colon))
        return;
      if (colon.kind != TILDE_JSON_TOKEN_COLON)
        {
          fail_expected (c, colon, "':' after the name");
          return;
        }
      Tok value = lex (&c->lx);
      check_value (c, value, depth + 1);
      if (c->failed || c->gave_up)
        return;
      if (depth == 0 && c->members && !c->gave_up)
        {
          TildeJsonMember m = {
            .name = tilde_json_string_value (c->lx.text, key.begin, key.end),
            .key_begin = key.begin, .key_end = key.end, .value_begin = value.begin,
            .value_end = c->lx.has_peeked ? c->lx.peeked.begin : c->lx.pos,
          };
          g_array_append_val (c->members, m);
        }
      Tok t = lex (&c->lx);
      if (t.kind == TILDE_JSON_TOKEN_CLOSE_OBJECT)
        return;
      if (fail_if_broken (c, t))
        return;
      if (t.kind != TILDE_JSON_TOKEN_COMMA)
        {
          fail_expected (c, t, "',' or '}'");
          return;
        }
      if (peek (&c->lx).kind == TILDE_JSON_TOKEN_CLOSE_OBJECT)
        {
          fail_at (c, t, "a comma before '}' is not allowed in JSON");
          return;
        }
    }
}

static void
check_value (Checker *c, Tok t, int depth)
{
  if (c->failed || c->gave_up)
    return;
  if (depth > MAX_DEPTH)
    {
      c->gave_up = TRUE;
      return;
    }
  if (fail_if_broken (c, t))
    return;
  switch (t.kind)
    {
    case TILDE_JSON_TOKEN_OPEN_OBJECT:
      check_object (c, depth);
      return;
    case TILDE_JSON_TOKEN_OPEN_ARRAY:
      check_array (c, depth);
      return;
    case TILDE_JSON_TOKEN_STRING:
      return;
    case TILDE_JSON_TOKEN_NUMBER:
      if (!valid_number (c->lx.text + t.begin, t.end - t.begin))
        {
          g_autofree char *message = g_strdup_printf ("%.*s is not a number",
                                                      (int) MIN (t.end - t.begin, 24),
                                                      c->lx.text + t.begin);
          fail_at (c, t, message);
        }
      return;
    case TILDE_JSON_TOKEN_WORD:
      if (word_exactly (c, t, "true") || word_exactly (c, t, "false") || word_exactly (c, t, "null"))
        return;
      if (word_is (c, t, "NaN"))
        fail_at (c, t, "NaN is written as a string in JSON data: \"NaN\"");
      else if (word_is (c, t, "Infinity") || word_is (c, t, "inf"))
        fail_at (c, t, "infinity is written as a string in JSON data: \"inf\"");
      else if (word_is (c, t, "-Infinity") || word_is (c, t, "-inf"))
        fail_at (c, t, "infinity is written as a string in JSON data: \"-inf\"");
      else
        fail_expected (c, t, "a value");
      return;
    default:
      fail_expected (c, t, "a value");
    }
}

static gboolean
find_syntax_error (const char *text, gsize len, GArray *members, gboolean *gave_up,
                   gsize *begin, gsize *end, char **message)
{
  Checker c = { .lx = { .text = text, .len = len }, .members = members };
  Tok t = lex (&c.lx);

  *gave_up = FALSE;
  if (t.kind == TILDE_JSON_TOKEN_END)
    return FALSE;
  check_value (&c, t, 0);
  if (c.gave_up)
    {
      g_free (c.message);
      *gave_up = TRUE;
      *begin = *end = c.lx.pos;
      return FALSE;
    }
  if (!c.failed && !c.gave_up)
    {
      t = lex (&c.lx);
      if (!fail_if_broken (&c, t) && t.kind != TILDE_JSON_TOKEN_END)
        fail_expected (&c, t, "the end of the data");
    }
  if (!c.failed)
    return FALSE;
  /* a token that is nothing is still shown */
  *begin = c.at.begin;
  *end = MAX (c.at.end, c.at.begin);
  *message = c.message;
  return TRUE;
}

gboolean
tilde_json_find_syntax_error (const char *text, gsize len, gsize *begin, gsize *end, char **message)
{
  gboolean gave_up;
  return find_syntax_error (text, len, NULL, &gave_up, begin, end, message);
}

TildeJsonOutline *
tilde_json_check (const char *text, gsize len, gsize *begin, gsize *end, char **message)
{
  TildeJsonOutline *o = g_new0 (TildeJsonOutline, 1);
  gboolean gave_up;

  o->members = g_array_new (FALSE, TRUE, sizeof (TildeJsonMember));
  g_array_set_clear_func (o->members, member_clear);
  if (find_syntax_error (text, len, o->members, &gave_up, begin, end, message))
    {
      tilde_json_outline_free (o);
      return NULL;
    }
  if (gave_up)
    {
      *message = g_strdup_printf ("the data nests deeper than %d levels", MAX_DEPTH);
      tilde_json_outline_free (o);
      return NULL;
    }
  Lexer lx = { .text = text, .len = len };
  Tok t = lex (&lx);
  o->empty = t.kind == TILDE_JSON_TOKEN_END;
  o->is_object = t.kind == TILDE_JSON_TOKEN_OPEN_OBJECT;
  o->value_begin = t.begin;
  return o;
}

gboolean
tilde_json_token_at (const char *text, gsize len, gsize offset, gsize *begin, gsize *end)
{
  Lexer lx = { .text = text, .len = len };
  for (;;)
    {
      Tok t = lex (&lx);
      if (t.kind == TILDE_JSON_TOKEN_END || t.begin > offset)
        return FALSE;
      if (offset < t.end)
        {
          *begin = t.begin;
          *end = t.end;
          return TRUE;
        }
    }
}

/* The outline of `text` from tilde_json_check, or NULL with its error
 * in json-glib's form ("NAME:LINE:COLUMN: Parse error: ..."; the
 * column counts bytes, as data-check reads it back): the first syntax
 * error, or the first byte that is not UTF-8, whichever comes first. */
TildeJsonOutline *
tilde_json_check_text (const char *name, const char *text, gsize len, GError **error)
{
  g_autofree char *message = NULL;
  TildeJsonOutline *outline = NULL;
  const char *bad;
  gsize begin, end;
  int line = 1, column = 1;

  if (g_utf8_validate_len (text, len, &bad))
    {
      if ((outline = tilde_json_check (text, len, &begin, &end, &message)))
        return outline;
    }
  else
    {
      /* a syntax error before the bad byte is named instead */
      gsize at_bad = (gsize) (bad - text);
      if (!tilde_json_find_syntax_error (text, len, &begin, &end, &message) || begin >= at_bad)
        {
          g_free (message);
          begin = at_bad;
          message = g_strdup (*bad ? "the data is not UTF-8 text" : "the data holds a zero byte");
        }
    }
  for (gsize i = 0; i < begin; i++)
    if (text[i] == '\n')
      line++, column = 1;
    else
      column++;
  g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
               "%s:%d:%d: Parse error: %s", name, line, column, message);
  return NULL;
}
