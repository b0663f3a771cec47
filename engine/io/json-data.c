/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/json-data.h"
#include "io/json-locate.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

struct TildeJsonData {
  JsonNode *root;
};

static TildeJsonData *
from_parser (JsonParser *parser, GError **error)
{
  JsonNode *root = json_parser_get_root (parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "JSON data must be an object whose members are variables");
      return NULL;
    }
  TildeJsonData *d = g_new0 (TildeJsonData, 1);
  d->root = json_node_copy (root);
  return d;
}

/* The token check of json-locate before json-glib reads the text: json-glib
 * takes several top-level values, keeping the last, and numbers such as
 * "4.", and leaks what it read when it then fails. The check's words, in
 * json-glib's form ("NAME:LINE:COLUMN: Parse error: ..."), are those the
 * editor shows. */
static gboolean
check_syntax (const char *name, const char *text, gsize len, GError **error)
{
  g_autofree char *message = NULL;
  gsize begin, end;
  int line = 1, column = 1;

  if (!tilde_json_find_syntax_error (text, len, &begin, &end, &message))
    return TRUE;
  for (gsize i = 0; i < begin; i++)
    if (text[i] == '\n')
      line++, column = 1;
    else
      column++;
  g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
               "%s:%d:%d: Parse error: %s", name, line, column, message);
  return FALSE;
}

TildeJsonData *
tilde_json_data_new_from_file (const char *path, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  gsize length;

  /* Mapped, json-glib's messages name the file. */
  if (!g_file_get_contents (path, &text, &length, error)
      || !check_syntax (path, text, length, error)
      || !json_parser_load_from_mapped_file (parser, path, error))
    return NULL;
  return from_parser (parser, error);
}

TildeJsonData *
tilde_json_data_new_from_string (const char *text, gssize len, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  gsize length = len < 0 ? strlen (text) : (gsize) len;

  if (!check_syntax ("<data>", text, length, error)
      || !json_parser_load_from_data (parser, text, (gssize) length, error))
    return NULL;
  return from_parser (parser, error);
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
  json_node_unref (data->root);
  g_free (data);
}

gboolean
tilde_json_data_has (const TildeJsonData *data, const char *name)
{
  return data && json_object_has_member (json_node_get_object (data->root), name);
}

/* ---- reading against a shape ---- */

typedef struct {
  TildeArena *arena;
  const char *name;
  GString    *path;      /* where in the variable: "y[3]" */
  char       *problem;
} Reader;

static const char *
describe_node (JsonNode *n, char *buf, gsize size)
{
  switch (JSON_NODE_TYPE (n))
    {
    case JSON_NODE_ARRAY:
      g_snprintf (buf, size, "an array of %u values", json_array_get_length (json_node_get_array (n)));
      return buf;
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_NULL:
      return "null";
    default:
      break;
    }
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    g_snprintf (buf, size, "the int %" G_GINT64_FORMAT, json_node_get_int (n));
  else if (t == G_TYPE_DOUBLE)
    g_snprintf (buf, size, "the real %.17g", json_node_get_double (n));
  else if (t == G_TYPE_STRING)
    g_snprintf (buf, size, "the string \"%s\"", json_node_get_string (n));
  else if (t == G_TYPE_BOOLEAN)
    return "a boolean";
  else
    return "a value";
  return buf;
}

static gboolean
fail (Reader *r, const TildeShape *shape, JsonNode *found, const char *why)
{
  if (r->problem)
    return FALSE;
  char buf[128];
  g_autofree char *expected = tilde_shape_describe (shape);
  const char *at = r->path->len ? r->path->str : r->name;
  if (why)
    r->problem = g_strdup_printf ("variable %s: %s", at, why);
  else if (found)
    r->problem = g_strdup_printf ("variable %s: expected %s, found %s", at, expected,
                                  describe_node (found, buf, sizeof buf));
  else
    r->problem = g_strdup_printf ("variable %s: expected %s", at, expected);
  return FALSE;
}

static gboolean
read_real (Reader *r, const TildeShape *shape, JsonNode *n, double *out)
{
  if (!JSON_NODE_HOLDS_VALUE (n))
    return fail (r, shape, n, NULL);
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    *out = (double) json_node_get_int (n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (n);
  else if (t == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (n);
      if (!g_ascii_strcasecmp (s, "inf") || !g_ascii_strcasecmp (s, "+inf")
          || !g_ascii_strcasecmp (s, "infinity") || !g_ascii_strcasecmp (s, "+infinity"))
        *out = INFINITY;
      else if (!g_ascii_strcasecmp (s, "-inf") || !g_ascii_strcasecmp (s, "-infinity"))
        *out = -INFINITY;
      else if (!g_ascii_strcasecmp (s, "nan"))
        *out = NAN;
      else
        return fail (r, shape, n, NULL);
    }
  else
    return fail (r, shape, n, NULL);
  return TRUE;
}

static gboolean
read_int (Reader *r, const TildeShape *shape, JsonNode *n, int *out)
{
  if (!JSON_NODE_HOLDS_VALUE (n))
    return fail (r, shape, n, NULL);
  GType t = json_node_get_value_type (n);
  double d;
  if (t == G_TYPE_INT64)
    {
      gint64 v = json_node_get_int (n);
      if (v > G_MAXINT || v < G_MININT)
        {
          g_autofree char *why = g_strdup_printf ("the int %" G_GINT64_FORMAT
                                                  " is out of the range of int", v);
          return fail (r, shape, n, why);
        }
      *out = (int) v;
      return TRUE;
    }
  d = t == G_TYPE_DOUBLE ? json_node_get_double (n) : NAN;
  if (d == floor (d) && fabs (d) < 2147483648.0)
    {
      /* 3.0 is written by some tools for an int; CmdStan takes it */
      *out = (int) d;
      return TRUE;
    }
  return fail (r, shape, n, NULL);
}

static gboolean read_node (Reader *r, const TildeShape *shape, JsonNode *n, TildeValue *out);

static JsonArray *
expect_array (Reader *r, const TildeShape *shape, JsonNode *n, guint len)
{
  if (!JSON_NODE_HOLDS_ARRAY (n))
    {
      fail (r, shape, n, NULL);
      return NULL;
    }
  JsonArray *a = json_node_get_array (n);
  if (json_array_get_length (a) != len)
    {
      fail (r, shape, n, NULL);
      return NULL;
    }
  return a;
}

static void
push_index (Reader *r, guint i)
{
  if (!r->path->len)
    g_string_append (r->path, r->name);
  g_string_append_printf (r->path, "[%u]", i + 1);
}

static gboolean
read_complex (Reader *r, const TildeShape *shape, JsonNode *n, double *z)
{
  JsonArray *a = expect_array (r, shape, n, 2);
  TildeShape real = { .kind = TILDE_VALUE_REAL };
  return a && read_real (r, &real, json_array_get_element (a, 0), &z[0])
    && read_real (r, &real, json_array_get_element (a, 1), &z[1]);
}

static gboolean
read_node (Reader *r, const TildeShape *shape, JsonNode *n, TildeValue *out)
{
  gsize mark = r->path->len;
  *out = (TildeValue) { .kind = (guint8) shape->kind, .rows = shape->rows, .cols = shape->cols };
  switch (shape->kind)
    {
    case TILDE_VALUE_INT:
      out->rows = out->cols = 1;
      return read_int (r, shape, n, &out->u.i);
    case TILDE_VALUE_REAL:
      out->rows = out->cols = 1;
      return read_real (r, shape, n, &out->u.r);
    case TILDE_VALUE_COMPLEX:
      out->rows = out->cols = 1;
      return read_complex (r, shape, n, out->u.z);
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
      {
        gboolean cplx = shape->kind >= TILDE_VALUE_COMPLEX_VECTOR;
        guint len = (guint) (shape->rows * shape->cols);
        JsonArray *a = expect_array (r, shape, n, len);
        if (!a)
          return FALSE;
        out->u.d = tilde_arena_alloc (r->arena, sizeof (double) * (cplx ? 2 : 1) * MAX (len, 1));
        TildeShape real = { .kind = TILDE_VALUE_REAL };
        for (guint i = 0; i < len; i++)
          {
            push_index (r, i);
            gboolean ok = cplx ? read_complex (r, &real, json_array_get_element (a, i), out->u.d + 2 * i)
              : read_real (r, &real, json_array_get_element (a, i), &out->u.d[i]);
            g_string_truncate (r->path, mark);
            if (!ok)
              return FALSE;
          }
        return TRUE;
      }
    case TILDE_VALUE_MATRIX:
    case TILDE_VALUE_COMPLEX_MATRIX:
      {
        gboolean cplx = shape->kind == TILDE_VALUE_COMPLEX_MATRIX;
        gint32 R = shape->rows, C = shape->cols;
        if (R == 0 && JSON_NODE_HOLDS_ARRAY (n) && json_array_get_length (json_node_get_array (n)) == 0)
          {
            out->u.d = tilde_arena_alloc (r->arena, sizeof (double));
            return TRUE;
          }
        JsonArray *rows = expect_array (r, shape, n, (guint) R);
        if (!rows)
          return FALSE;
        TildeShape row_shape = { .kind = TILDE_VALUE_ROW_VECTOR, .rows = 1, .cols = C };
        TildeShape real = { .kind = TILDE_VALUE_REAL };
        /* every row's length first: the storage is as large as the data
         * only once they agree with the declared columns */
        for (gint32 i = 0; i < R; i++)
          {
            push_index (r, (guint) i);
            if (!expect_array (r, &row_shape, json_array_get_element (rows, (guint) i), (guint) C))
              return FALSE;
            g_string_truncate (r->path, mark);
          }
        gsize cells = MAX ((gsize) R * (gsize) C, 1);
        out->u.d = tilde_arena_alloc (r->arena, sizeof (double) * (cplx ? 2 : 1) * cells);
        for (gint32 i = 0; i < R; i++)
          {
            push_index (r, (guint) i);
            JsonArray *row = json_node_get_array (json_array_get_element (rows, (guint) i));
            for (gint32 j = 0; j < C; j++)
              {
                gsize k = (gsize) i + (gsize) j * (gsize) R;
                JsonNode *e = json_array_get_element (row, (guint) j);
                if (!(cplx ? read_complex (r, &real, e, out->u.d + 2 * k)
                      : read_real (r, &real, e, &out->u.d[k])))
                  return FALSE;
              }
            g_string_truncate (r->path, mark);
          }
        return TRUE;
      }
    case TILDE_VALUE_ARRAY:
      {
        guint len = (guint) shape->rows;
        JsonArray *a = expect_array (r, shape, n, len);
        if (!a)
          return FALSE;
        out->cols = 1;
        out->elem = (guint8) shape->elem->kind;
        if (shape->elem->kind == TILDE_VALUE_INT)
          out->u.iv = tilde_arena_alloc (r->arena, sizeof (int) * MAX (len, 1));
        else if (shape->elem->kind == TILDE_VALUE_REAL)
          out->u.d = tilde_arena_alloc (r->arena, sizeof (double) * MAX (len, 1));
        else
          out->u.elems = tilde_arena_alloc (r->arena, sizeof (TildeValue) * MAX (len, 1));
        for (guint i = 0; i < len; i++)
          {
            push_index (r, i);
            JsonNode *e = json_array_get_element (a, i);
            gboolean ok;
            if (shape->elem->kind == TILDE_VALUE_INT)
              ok = read_int (r, shape->elem, e, &out->u.iv[i]);
            else if (shape->elem->kind == TILDE_VALUE_REAL)
              ok = read_real (r, shape->elem, e, &out->u.d[i]);
            else
              ok = read_node (r, shape->elem, e, &out->u.elems[i]);
            g_string_truncate (r->path, mark);
            if (!ok)
              return FALSE;
          }
        return TRUE;
      }
    case TILDE_VALUE_TUPLE:
      {
        if (!JSON_NODE_HOLDS_OBJECT (n))
          return fail (r, shape, n, NULL);
        JsonObject *o = json_node_get_object (n);
        out->rows = (gint32) shape->n_members;
        out->cols = 1;
        out->u.elems = tilde_arena_alloc (r->arena, sizeof (TildeValue) * MAX (shape->n_members, 1));
        for (guint i = 0; i < shape->n_members; i++)
          {
            char key[16];
            g_snprintf (key, sizeof key, "%u", i + 1);
            if (!r->path->len)
              g_string_append (r->path, r->name);
            g_string_append_printf (r->path, ".%u", i + 1);
            if (!json_object_has_member (o, key))
              {
                g_autofree char *why = g_strdup_printf ("the tuple has no member \"%s\"", key);
                g_string_truncate (r->path, mark);
                return fail (r, shape, n, why);
              }
            gboolean ok = read_node (r, shape->members[i], json_object_get_member (o, key),
                                     &out->u.elems[i]);
            g_string_truncate (r->path, mark);
            if (!ok)
              return FALSE;
          }
        return TRUE;
      }
    }
  return fail (r, shape, n, NULL);
}

gboolean
tilde_json_data_read (const TildeJsonData *data, const char *name, const TildeShape *shape,
                      TildeArena *arena, TildeValue *out, char **problem)
{
  *problem = NULL;
  if (!tilde_json_data_has (data, name))
    {
      g_autofree char *expected = tilde_shape_describe (shape);
      *problem = g_strdup_printf ("variable %s not found in the data (expected %s)", name, expected);
      return FALSE;
    }
  JsonNode *n = json_object_get_member (json_node_get_object (data->root), name);
  Reader r = { .arena = arena, .name = name, .path = g_string_new (NULL) };
  gboolean ok = read_node (&r, shape, n, out);
  g_string_free (r.path, TRUE);
  if (!ok)
    *problem = r.problem ? r.problem : g_strdup_printf ("variable %s: cannot be read", name);
  else
    g_free (r.problem);
  return ok;
}
