/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/json-data.h"
#include "io/decimal.h"
#include "io/json-locate.h"

#include <json-glib/json-glib.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* The text is kept and read in place: each variable's numbers go straight
 * from the text into its storage, without a tree of the document between
 * them (a tree costs about a hundred bytes a number; a data file of 10^7
 * numbers made a gigabyte of one). The text has passed the syntax check
 * before anything here reads it, so the reading below can take its
 * grammar for granted; it still never reads past the end. */
struct TildeJsonData {
  char       *text;
  gsize       len;
  GHashTable *members;   /* name -> GSIZE_TO_POINTER (where its value starts) */
};

/* ---- moving through checked text ---- */

static gsize
skip_blanks (const char *t, gsize len, gsize pos)
{
  while (pos < len)
    {
      char c = t[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        pos++;
      else if (c == '/' && pos + 1 < len && t[pos + 1] == '*')
        {
          const char *close = g_strstr_len (t + pos + 2, (gssize) (len - pos - 2), "*/");
          pos = close ? (gsize) (close - t) + 2 : len;
        }
      else
        break;
    }
  return pos;
}

static gsize
scalar_end (const char *t, gsize len, gsize pos)
{
  if (pos >= len)
    return len;
  if (t[pos] == '"' || t[pos] == '\'')
    return tilde_json_string_end (t, len, pos, NULL);
  gsize end = pos + 1;
  if (t[pos] == '-' || g_ascii_isdigit (t[pos]))
    while (end < len && tilde_decimal_is_number_char (t[end]))
      end++;
  else
    while (end < len && g_ascii_isalnum (t[end]))
      end++;
  return end;
}

/* The bytes value_end stops at; every other byte is passed over. */
static const guint8 structural[256] = {
  ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1, [','] = 1, ['"'] = 1, ['\''] = 1, ['/'] = 1,
};

/* Past the value at `pos`; with `count` (for an array), how many elements
 * it holds. One pass over the bytes, whatever the nesting. */
static gsize
value_end (const char *t, gsize len, gsize pos, guint64 *count)
{
  if (count)
    *count = 0;
  if (pos >= len || (t[pos] != '[' && t[pos] != '{'))
    return scalar_end (t, len, pos);
  gsize first = skip_blanks (t, len, pos + 1);
  if (count && first < len && t[first] != ']')
    *count = 1;
  int depth = 0;
  gsize i = pos;
  while (i < len)
    {
      while (i < len && !structural[(guchar) t[i]])
        i++;
      if (i >= len)
        break;
      switch (t[i])
        {
        case '[':
        case '{':
          depth++;
          i++;
          break;
        case ']':
        case '}':
          i++;
          if (--depth == 0)
            return i;
          break;
        case ',':
          if (depth == 1 && count)
            (*count)++;
          i++;
          break;
        case '/':
          i = t[i + 1 < len ? i + 1 : i] == '*' ? skip_blanks (t, len, i) : i + 1;
          break;
        default:      /* a quote */
          i = tilde_json_string_end (t, len, i, NULL);
        }
    }
  return len;
}

static gboolean
starts_number (char c)
{
  return c == '-' || (guchar) (c - '0') < 10;
}

static gboolean
starts_string (char c)
{
  return c == '"' || c == '\'';
}

/* ---- reading against a shape ---- */

typedef struct {
  const char *t;
  gsize       len;
  TildeArena *arena;
  const char *name;
  GString    *path;      /* where in the variable: "y[3]" */
  char       *problem;
} Reader;

static char
at (const Reader *r, gsize pos)
{
  return pos < r->len ? r->t[pos] : '\0';
}

static char *
string_at (const Reader *r, gsize pos)
{
  return tilde_json_string_value (r->t, pos, tilde_json_string_end (r->t, r->len, pos, NULL));
}

static char *
describe_value (const Reader *r, gsize pos)
{
  char c = at (r, pos);
  if (c == '[')
    {
      guint64 count;
      value_end (r->t, r->len, pos, &count);
      return g_strdup_printf ("an array of %" G_GUINT64_FORMAT " values", count);
    }
  if (c == '{')
    return g_strdup ("an object");
  if (c == 'n')
    return g_strdup ("null");
  if (c == 't' || c == 'f')
    return g_strdup ("a boolean");
  if (starts_string (c))
    {
      g_autofree char *s = string_at (r, pos);
      if (g_utf8_strlen (s, -1) > 40)
        {
          g_autofree char *cut = g_utf8_substring (s, 0, 36);
          return g_strdup_printf ("the string \"%s…\"", cut);
        }
      return g_strdup_printf ("the string \"%s\"", s);
    }
  if (starts_number (c))
    {
      TildeDecimal n;
      tilde_decimal_parse (r->t, r->len, pos, &n);
      if (n.is_int)
        return g_strdup_printf ("the int %" G_GINT64_FORMAT, n.i);
      return g_strdup_printf ("the real %.17g", n.d);
    }
  return g_strdup ("a value");
}

static gboolean
fail (Reader *r, const TildeShape *shape, gsize found, const char *why)
{
  if (r->problem)
    return FALSE;
  const char *where = r->path->len ? r->path->str : r->name;
  if (why)
    r->problem = g_strdup_printf ("variable %s: %s", where, why);
  else
    {
      g_autofree char *expected = tilde_shape_describe (shape);
      g_autofree char *what = describe_value (r, found);
      r->problem = g_strdup_printf ("variable %s: expected %s, found %s", where, expected, what);
    }
  return FALSE;
}

static gboolean
special_real (const char *s, double *out)
{
  if (!g_ascii_strcasecmp (s, "inf") || !g_ascii_strcasecmp (s, "+inf")
      || !g_ascii_strcasecmp (s, "infinity") || !g_ascii_strcasecmp (s, "+infinity"))
    *out = INFINITY;
  else if (!g_ascii_strcasecmp (s, "-inf") || !g_ascii_strcasecmp (s, "-infinity"))
    *out = -INFINITY;
  else if (!g_ascii_strcasecmp (s, "nan"))
    *out = NAN;
  else
    return FALSE;
  return TRUE;
}

/* Each read_ function reads the value at `*pos` and leaves `*pos` just
 * past it. */
static gboolean
read_real (Reader *r, const TildeShape *shape, gsize *pos, double *out)
{
  char c = at (r, *pos);
  if (starts_number (c))
    {
      TildeDecimal n;
      *pos = tilde_decimal_parse (r->t, r->len, *pos, &n);
      *out = n.d;
      return TRUE;
    }
  if (starts_string (c))
    {
      g_autofree char *s = string_at (r, *pos);
      if (special_real (s, out))
        {
          *pos = tilde_json_string_end (r->t, r->len, *pos, NULL);
          return TRUE;
        }
    }
  return fail (r, shape, *pos, NULL);
}

static gboolean
read_int (Reader *r, const TildeShape *shape, gsize *pos, int *out)
{
  if (!starts_number (at (r, *pos)))
    return fail (r, shape, *pos, NULL);
  TildeDecimal n;
  gsize end = tilde_decimal_parse (r->t, r->len, *pos, &n);
  if (n.is_int && (n.i > G_MAXINT || n.i < G_MININT))
    {
      g_autofree char *why = g_strdup_printf ("the int %" G_GINT64_FORMAT
                                              " is out of the range of int", n.i);
      return fail (r, shape, *pos, why);
    }
  /* 3.0 is written by some tools for an int; CmdStan takes it */
  if (!n.is_int && !(n.d == floor (n.d) && fabs (n.d) < 2147483648.0))
    return fail (r, shape, *pos, NULL);
  *out = (int) n.d;
  *pos = end;
  return TRUE;
}

/* Inside an array: from the start of an element (or from just inside the
 * bracket) to the start of the next one, past blanks and the comma. */
static gsize
next_element (const Reader *r, gsize pos)
{
  pos = skip_blanks (r->t, r->len, pos);
  if (at (r, pos) == ',')
    pos = skip_blanks (r->t, r->len, pos + 1);
  return pos;
}

/* The array at `pos` has `len` elements: TRUE with `*first` at the first
 * of them. */
static gboolean
expect_array (Reader *r, const TildeShape *shape, gsize pos, guint64 len, gsize *first,
              gsize *end)
{
  guint64 count;
  if (at (r, pos) != '[')
    return fail (r, shape, pos, NULL);
  gsize past = value_end (r->t, r->len, pos, &count);
  if (count != len)
    return fail (r, shape, pos, NULL);
  *first = skip_blanks (r->t, r->len, pos + 1);
  if (end)
    *end = past;
  return TRUE;
}

static void
push_index (Reader *r, guint64 i)
{
  if (!r->path->len)
    g_string_append (r->path, r->name);
  g_string_append_printf (r->path, "[%" G_GUINT64_FORMAT "]", i + 1);
}

static gboolean
read_complex (Reader *r, const TildeShape *shape, gsize *pos, double *z)
{
  TildeShape real = { .kind = TILDE_VALUE_REAL };
  gsize p;
  if (!expect_array (r, shape, *pos, 2, &p, NULL)
      || !read_real (r, &real, &p, &z[0]))
    return FALSE;
  p = next_element (r, p);
  if (!read_real (r, &real, &p, &z[1]))
    return FALSE;
  *pos = skip_blanks (r->t, r->len, p) + 1;
  return TRUE;
}

/* Reading an array's elements in the same pass that checks their number:
 * a wrong number is found where the elements run out, or go on, and only
 * then is the array measured again for the message. An element that does
 * not read leaves its own message, which a wrong number overrides, as a
 * length checked first would. */
typedef enum {
  READ_OK,
  READ_SHAPE,     /* fewer or more elements than the shape has */
  READ_ELEMENT,   /* an element did not read; r->problem says why */
} ReadStatus;

/* Can `n` elements fit in the text from `pos`? Each takes a byte and a
 * comma at least, so storage of n values is bounded by the text itself,
 * and a size out of all proportion (typed half way) is refused unmade. */
static gboolean
might_hold (const Reader *r, gsize pos, guint64 n)
{
  return n <= (r->len - MIN (pos, r->len)) / 2 + 1;
}

/* Between elements: past the comma, or FALSE where there is none. */
static gboolean
past_comma (const Reader *r, gsize *p)
{
  if (at (r, *p) != ',')
    return FALSE;
  *p = skip_blanks (r->t, r->len, *p + 1);
  return TRUE;
}

/* Past the closing bracket at `*p`, or FALSE where there is none. */
static gboolean
past_close (const Reader *r, gsize *p)
{
  if (at (r, *p) != ']')
    return FALSE;
  *p = *p + 1;
  return TRUE;
}

/* The `n` real or complex elements of the array at `*pos`, `stride`
 * doubles apart; with READ_OK, `*pos` is left past it. */
static ReadStatus
read_reals (Reader *r, gsize *pos, guint64 n, gboolean cplx, double *out, gsize stride)
{
  TildeShape element = { .kind = cplx ? TILDE_VALUE_COMPLEX : TILDE_VALUE_REAL, .rows = 1, .cols = 1 };
  gsize mark = r->path->len, p = skip_blanks (r->t, r->len, *pos + 1);
  for (guint64 i = 0; i < n; i++)
    {
      if (i > 0 && !past_comma (r, &p))
        return READ_SHAPE;
      double *x = out + i * stride;
      if (G_LIKELY (!cplx && starts_number (at (r, p))))
        {
          TildeDecimal num;
          p = skip_blanks (r->t, r->len, tilde_decimal_parse (r->t, r->len, p, &num));
          *x = num.d;
          continue;
        }
      if (at (r, p) == ']')
        return READ_SHAPE;
      push_index (r, i);
      gboolean ok = cplx ? read_complex (r, &element, &p, x) : read_real (r, &element, &p, x);
      g_string_truncate (r->path, mark);
      if (!ok)
        return READ_ELEMENT;
      p = skip_blanks (r->t, r->len, p);
    }
  if (!past_close (r, &p))
    return READ_SHAPE;
  *pos = p;
  return READ_OK;
}

static gboolean read_value (Reader *r, const TildeShape *shape, gsize *pos, TildeValue *out);

/* The shape of the array at `pos`, checked as a whole: FALSE with the
 * message that a wrong number of elements, or of a row's, deserves. A
 * matrix is checked row by row. */
static gboolean
check_lengths (Reader *r, const TildeShape *shape, gsize pos, guint64 len, gboolean matrix)
{
  gsize mark = r->path->len, p, row;
  if (!expect_array (r, shape, pos, len, &p, NULL))
    return FALSE;
  if (!matrix)
    return TRUE;
  TildeShape row_shape = { .kind = TILDE_VALUE_ROW_VECTOR, .rows = 1, .cols = shape->cols };
  for (guint64 i = 0; i < len; i++)
    {
      if (i > 0)
        p = next_element (r, p);
      push_index (r, i);
      if (!expect_array (r, &row_shape, p, (guint64) shape->cols, &row, &p))
        return FALSE;
      g_string_truncate (r->path, mark);
    }
  return TRUE;
}

/* What to say when a read in one pass failed: a wrong length if there is
 * one, else the element's own problem. */
static gboolean
explain (Reader *r, const TildeShape *shape, gsize pos, guint64 len, gboolean matrix,
         ReadStatus status)
{
  char *element = status == READ_ELEMENT ? g_steal_pointer (&r->problem) : NULL;
  if (!check_lengths (r, shape, pos, len, matrix))
    {
      g_free (element);
      return FALSE;
    }
  if (element)
    r->problem = element;
  else
    fail (r, shape, pos, NULL);     /* not reached: the lengths differed */
  return FALSE;
}

static gboolean
read_vector (Reader *r, const TildeShape *shape, gsize *pos, TildeValue *out)
{
  gboolean cplx = shape->kind >= TILDE_VALUE_COMPLEX_VECTOR;
  guint64 len = (guint64) shape->rows * (guint64) shape->cols;
  if (at (r, *pos) != '[' || !might_hold (r, *pos, len))
    return explain (r, shape, *pos, len, FALSE, READ_SHAPE);
  out->u.d = tilde_arena_alloc (r->arena, sizeof (double) * (cplx ? 2 : 1) * MAX (len, 1));
  ReadStatus status = read_reals (r, pos, len, cplx, out->u.d, cplx ? 2 : 1);
  return status == READ_OK || explain (r, shape, *pos, len, FALSE, status);
}

static gboolean
read_matrix (Reader *r, const TildeShape *shape, gsize *pos, TildeValue *out)
{
  gboolean cplx = shape->kind == TILDE_VALUE_COMPLEX_MATRIX;
  gsize R = (gsize) shape->rows, C = (gsize) shape->cols, width = cplx ? 2 : 1;
  gsize mark = r->path->len, start = *pos, p;

  if (R == 0 && at (r, start) == '[')
    {
      guint64 count;
      gsize end = value_end (r->t, r->len, start, &count);
      if (count == 0)
        {
          out->u.d = tilde_arena_alloc (r->arena, sizeof (double));
          *pos = end;
          return TRUE;
        }
    }
  if (at (r, start) != '[' || !might_hold (r, start, (guint64) R * C))
    return explain (r, shape, start, R, TRUE, READ_SHAPE);
  out->u.d = tilde_arena_alloc (r->arena, sizeof (double) * width * MAX (R * C, 1));
  p = skip_blanks (r->t, r->len, start + 1);
  for (gsize i = 0; i < R; i++)
    {
      if ((i > 0 && !past_comma (r, &p)) || at (r, p) != '[')
        return explain (r, shape, start, R, TRUE, READ_SHAPE);
      push_index (r, i);
      /* row i of a column-major matrix: every R-th value from the i-th */
      ReadStatus status = read_reals (r, &p, C, cplx, out->u.d + width * i, width * R);
      g_string_truncate (r->path, mark);
      if (status != READ_OK)
        return explain (r, shape, start, R, TRUE, status);
      p = skip_blanks (r->t, r->len, p);
    }
  if (!past_close (r, &p))
    return explain (r, shape, start, R, TRUE, READ_SHAPE);
  *pos = p;
  return TRUE;
}

static gboolean
read_array (Reader *r, const TildeShape *shape, gsize *pos, TildeValue *out)
{
  const TildeShape *elem = shape->elem;
  guint64 len = (guint64) shape->rows;
  gsize mark = r->path->len, start = *pos, p;

  if (at (r, start) != '[' || !might_hold (r, start, len))
    return explain (r, shape, start, len, FALSE, READ_SHAPE);
  out->cols = 1;
  out->elem = (guint8) elem->kind;
  if (elem->kind == TILDE_VALUE_REAL)
    {
      out->u.d = tilde_arena_alloc (r->arena, sizeof (double) * MAX (len, 1));
      ReadStatus status = read_reals (r, pos, len, FALSE, out->u.d, 1);
      return status == READ_OK || explain (r, shape, start, len, FALSE, status);
    }
  if (elem->kind == TILDE_VALUE_INT)
    out->u.iv = tilde_arena_alloc (r->arena, sizeof (int) * MAX (len, 1));
  else
    out->u.elems = tilde_arena_alloc (r->arena, sizeof (TildeValue) * MAX (len, 1));
  p = skip_blanks (r->t, r->len, start + 1);
  for (guint64 i = 0; i < len; i++)
    {
      if ((i > 0 && !past_comma (r, &p)) || at (r, p) == ']')
        return explain (r, shape, start, len, FALSE, READ_SHAPE);
      push_index (r, i);
      gboolean ok = elem->kind == TILDE_VALUE_INT ? read_int (r, elem, &p, &out->u.iv[i])
        : read_value (r, elem, &p, &out->u.elems[i]);
      g_string_truncate (r->path, mark);
      if (!ok)
        return explain (r, shape, start, len, FALSE, READ_ELEMENT);
      p = skip_blanks (r->t, r->len, p);
    }
  if (!past_close (r, &p))
    return explain (r, shape, start, len, FALSE, READ_SHAPE);
  *pos = p;
  return TRUE;
}

/* Where the value of the object's last member named `key` starts, or
 * G_MAXSIZE. */
static gsize
member_value (const Reader *r, gsize object, const char *key)
{
  gsize found = G_MAXSIZE, p = skip_blanks (r->t, r->len, object + 1);
  while (starts_string (at (r, p)))
    {
      gsize key_end = tilde_json_string_end (r->t, r->len, p, NULL);
      g_autofree char *name = tilde_json_string_value (r->t, p, key_end);
      p = skip_blanks (r->t, r->len, key_end);          /* the colon */
      p = skip_blanks (r->t, r->len, p + 1);
      if (strcmp (name, key) == 0)
        found = p;
      p = next_element (r, value_end (r->t, r->len, p, NULL));
    }
  return found;
}

static gboolean
read_tuple (Reader *r, const TildeShape *shape, gsize *pos, TildeValue *out)
{
  gsize mark = r->path->len;
  if (at (r, *pos) != '{')
    return fail (r, shape, *pos, NULL);
  out->rows = (gint32) shape->n_members;
  out->cols = 1;
  out->u.elems = tilde_arena_alloc (r->arena, sizeof (TildeValue) * MAX (shape->n_members, 1));
  for (guint i = 0; i < shape->n_members; i++)
    {
      char key[16];
      g_snprintf (key, sizeof key, "%u", i + 1);
      gsize value = member_value (r, *pos, key);
      if (value == G_MAXSIZE)
        {
          g_autofree char *why = g_strdup_printf ("the tuple has no member \"%s\"", key);
          return fail (r, shape, *pos, why);
        }
      if (!r->path->len)
        g_string_append (r->path, r->name);
      g_string_append_printf (r->path, ".%u", i + 1);
      gboolean ok = read_value (r, shape->members[i], &value, &out->u.elems[i]);
      g_string_truncate (r->path, mark);
      if (!ok)
        return FALSE;
    }
  *pos = value_end (r->t, r->len, *pos, NULL);
  return TRUE;
}

static gboolean
read_value (Reader *r, const TildeShape *shape, gsize *pos, TildeValue *out)
{
  *out = (TildeValue) { .kind = (guint8) shape->kind, .rows = shape->rows, .cols = shape->cols };
  if (shape->rows < 0 || shape->cols < 0)
    return fail (r, shape, *pos, NULL);     /* no data fit; sizes are checked before */
  switch (shape->kind)
    {
    case TILDE_VALUE_INT:
      out->rows = out->cols = 1;
      return read_int (r, shape, pos, &out->u.i);
    case TILDE_VALUE_REAL:
      out->rows = out->cols = 1;
      return read_real (r, shape, pos, &out->u.r);
    case TILDE_VALUE_COMPLEX:
      out->rows = out->cols = 1;
      return read_complex (r, shape, pos, out->u.z);
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
      return read_vector (r, shape, pos, out);
    case TILDE_VALUE_MATRIX:
    case TILDE_VALUE_COMPLEX_MATRIX:
      return read_matrix (r, shape, pos, out);
    case TILDE_VALUE_ARRAY:
      return read_array (r, shape, pos, out);
    case TILDE_VALUE_TUPLE:
      return read_tuple (r, shape, pos, out);
    }
  return fail (r, shape, *pos, NULL);
}

gboolean
tilde_json_data_read (const TildeJsonData *data, const char *name, const TildeShape *shape,
                      TildeArena *arena, TildeValue *out, char **problem)
{
  gpointer where;
  *problem = NULL;
  if (!data || !g_hash_table_lookup_extended (data->members, name, NULL, &where))
    {
      g_autofree char *expected = tilde_shape_describe (shape);
      *problem = g_strdup_printf ("variable %s not found in the data (expected %s)", name, expected);
      return FALSE;
    }
  Reader r = { .t = data->text, .len = data->len, .arena = arena, .name = name,
               .path = g_string_new (NULL) };
  gsize pos = GPOINTER_TO_SIZE (where);
  gboolean ok = read_value (&r, shape, &pos, out);
  g_string_free (r.path, TRUE);
  if (!ok)
    *problem = r.problem ? r.problem : g_strdup_printf ("variable %s: cannot be read", name);
  else
    g_free (r.problem);
  return ok;
}

/* ---- the text ---- */

/* Takes `text`; its members are those of `outline`. */
static TildeJsonData *
data_new (char *text, gsize len, TildeJsonOutline *outline, GError **error)
{
  g_autoptr (TildeJsonOutline) o = outline;
  if (!o->is_object)
    {
      g_free (text);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "JSON data must be an object whose members are variables");
      return NULL;
    }
  TildeJsonData *d = g_new0 (TildeJsonData, 1);
  d->text = text;
  d->len = len;
  d->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < o->members->len; i++)
    {
      TildeJsonMember *m = &g_array_index (o->members, TildeJsonMember, i);
      /* the last of a name counts, as in json-glib */
      g_hash_table_insert (d->members, g_steal_pointer (&m->name),
                           GSIZE_TO_POINTER (m->value_begin));
    }
  return d;
}

TildeJsonData *
tilde_json_data_new_from_file (const char *path, GError **error)
{
  char *text = NULL;
  gsize length;

  TildeJsonOutline *outline;

  if (!g_file_get_contents (path, &text, &length, error))
    return NULL;
  if (!(outline = tilde_json_check_text (path, text, length, error)))
    {
      g_free (text);
      return NULL;
    }
  return data_new (text, length, outline, error);
}

TildeJsonData *
tilde_json_data_new_from_string (const char *text, gssize len, GError **error)
{
  gsize length = len < 0 ? strlen (text) : (gsize) len;

  TildeJsonOutline *outline = tilde_json_check_text ("<data>", text, length, error);
  if (!outline)
    return NULL;
  char *copy = g_malloc (length + 1);
  memcpy (copy, text, length);
  copy[length] = '\0';
  return data_new (copy, length, outline, error);
}

TildeJsonData *
tilde_json_data_new_empty (void)
{
  return tilde_json_data_new_from_string ("{}", -1, NULL);
}

void
tilde_json_data_free (TildeJsonData *data)
{
  if (!data)
    return;
  g_hash_table_unref (data->members);
  g_free (data->text);
  g_free (data);
}

gboolean
tilde_json_data_has (const TildeJsonData *data, const char *name)
{
  return data && g_hash_table_contains (data->members, name);
}

static gint
by_position (gconstpointer a, gconstpointer b, gpointer user_data)
{
  GHashTable *members = user_data;
  gsize pa = GPOINTER_TO_SIZE (g_hash_table_lookup (members, *(const char *const *) a));
  gsize pb = GPOINTER_TO_SIZE (g_hash_table_lookup (members, *(const char *const *) b));
  return pa < pb ? -1 : pa > pb;
}

GStrv
tilde_json_data_names (const TildeJsonData *data)
{
  guint n = 0;
  g_autofree const char **keys = NULL;

  if (!data)
    return g_new0 (char *, 1);
  keys = (const char **) g_hash_table_get_keys_as_array (data->members, &n);
  g_qsort_with_data (keys, (gint) n, sizeof *keys, by_position, data->members);
  GStrv names = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    names[i] = g_strdup (keys[i]);
  return names;
}

#define DESCRIBE_MAX_CHARS 40

char *
tilde_json_data_describe (const TildeJsonData *data, const char *name)
{
  gpointer where;

  if (!data || !g_hash_table_lookup_extended (data->members, name, NULL, &where))
    return NULL;
  const char *t = data->text;
  gsize len = data->len, pos = GPOINTER_TO_SIZE (where);
  if (t[pos] == '{')
    return g_strdup ("{…}");
  if (t[pos] != '[')
    {
      g_autofree char *token = g_strndup (t + pos, scalar_end (t, len, pos) - pos);
      if (g_utf8_strlen (token, -1) <= DESCRIBE_MAX_CHARS)
        return g_steal_pointer (&token);
      g_autofree char *cut = g_utf8_substring (token, 0, DESCRIBE_MAX_CHARS - 1);
      return g_strconcat (cut, "…", NULL);
    }
  GString *lengths = g_string_new (NULL);
  while (pos < len && t[pos] == '[')
    {
      guint64 count;
      value_end (t, len, pos, &count);
      if (lengths->len)
        g_string_append (lengths, " × ");
      g_string_append_printf (lengths, "%" G_GUINT64_FORMAT, count);
      if (count == 0)
        break;
      pos = skip_blanks (t, len, pos + 1);
    }
  return g_string_free (lengths, FALSE);
}
