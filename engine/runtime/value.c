/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/value.h"

#include <math.h>
#include <string.h>

TildeValue
tilde_value_new_data (TildeArena *arena, const TildeShape *shape)
{
  TildeValue v = { .kind = (guint8) shape->kind, .rows = shape->rows, .cols = shape->cols };
  switch (shape->kind)
    {
    case TILDE_VALUE_INT:
      v.rows = v.cols = 1;
      v.u.i = G_MININT;
      break;
    case TILDE_VALUE_REAL:
      v.rows = v.cols = 1;
      v.u.r = NAN;
      break;
    case TILDE_VALUE_COMPLEX:
      v.rows = v.cols = 1;
      v.u.z[0] = v.u.z[1] = NAN;
      break;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_MATRIX:
    case TILDE_VALUE_COMPLEX_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_MATRIX:
      {
        gsize n = (gsize) MAX (shape->rows, 0) * (gsize) MAX (shape->cols, 0);
        if (tilde_value_kind_is_complex (shape->kind))
          n *= 2;
        v.u.d = tilde_arena_alloc (arena, n * sizeof (double));
        for (gsize i = 0; i < n; i++)
          v.u.d[i] = NAN;
        break;
      }
    case TILDE_VALUE_ARRAY:
      v.cols = 1;
      v.elem = (guint8) shape->elem->kind;
      if (shape->elem->kind == TILDE_VALUE_INT)
        {
          v.u.iv = tilde_arena_alloc (arena, sizeof (int) * (gsize) MAX (shape->rows, 0));
          for (gint32 i = 0; i < shape->rows; i++)
            v.u.iv[i] = G_MININT;
        }
      else if (shape->elem->kind == TILDE_VALUE_REAL)
        {
          v.u.d = tilde_arena_alloc (arena, sizeof (double) * (gsize) MAX (shape->rows, 0));
          for (gint32 i = 0; i < shape->rows; i++)
            v.u.d[i] = NAN;
        }
      else
        {
          v.u.elems = tilde_arena_alloc (arena, sizeof (TildeValue) * (gsize) MAX (shape->rows, 0));
          for (gint32 i = 0; i < shape->rows; i++)
            v.u.elems[i] = tilde_value_new_data (arena, shape->elem);
        }
      break;
    case TILDE_VALUE_TUPLE:
      v.rows = (gint32) shape->n_members;
      v.cols = 1;
      v.u.elems = tilde_arena_alloc (arena, sizeof (TildeValue) * shape->n_members);
      for (guint i = 0; i < shape->n_members; i++)
        v.u.elems[i] = tilde_value_new_data (arena, shape->members[i]);
      break;
    }
  return v;
}

TildeValue
tilde_value_copy (TildeArena *arena, const TildeValue *v)
{
  TildeValue c = *v;
  if (tilde_value_kind_is_scalar ((TildeValueKind) v->kind))
    return c;
  if (v->kind == TILDE_VALUE_TUPLE || (v->kind == TILDE_VALUE_ARRAY && !tilde_value_is_flat (v)))
    {
      c.u.elems = tilde_arena_alloc (arena, sizeof (TildeValue) * (gsize) MAX (v->rows, 0));
      for (gint32 i = 0; i < v->rows; i++)
        c.u.elems[i] = tilde_value_copy (arena, &v->u.elems[i]);
      return c;
    }
  gsize n = (gsize) MAX (tilde_value_flat_size (v), 0);
  if (v->ad && tilde_value_kind_is_complex ((TildeValueKind) v->kind))
    n *= 2;   /* the ids of both parts */
  if (v->ad)
    {
      c.idx = tilde_arena_alloc (arena, sizeof (gint32) * n);
      for (gsize i = 0; i < n; i++)
        c.idx[i] = tilde_value_var (v, (gint32) i);
      c.start = 0;
    }
  else if (v->kind == TILDE_VALUE_ARRAY && v->elem == TILDE_VALUE_INT)
    c.u.iv = tilde_arena_memdup (arena, v->u.iv, n * sizeof (int));
  else
    c.u.d = tilde_arena_memdup (arena, v->u.d,
                                n * sizeof (double) * (tilde_value_kind_is_complex ((TildeValueKind) v->kind) ? 2 : 1));
  return c;
}

gsize
tilde_value_count_scalars (const TildeValue *v)
{
  switch ((TildeValueKind) v->kind)
    {
    case TILDE_VALUE_INT:
    case TILDE_VALUE_REAL:
      return 1;
    case TILDE_VALUE_COMPLEX:
      return 2;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_MATRIX:
      return (gsize) v->rows * (gsize) v->cols;
    case TILDE_VALUE_COMPLEX_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_MATRIX:
      return 2 * (gsize) v->rows * (gsize) v->cols;
    case TILDE_VALUE_ARRAY:
      if (tilde_value_is_flat (v))
        return (gsize) v->rows;
      /* fall through */
    case TILDE_VALUE_TUPLE:
      {
        gsize n = 0;
        for (gint32 i = 0; i < v->rows; i++)
          n += tilde_value_count_scalars (&v->u.elems[i]);
        return n;
      }
    }
  return 0;
}

TildeShape *
tilde_shape_new (TildeArena *arena, TildeValueKind kind, gint32 rows, gint32 cols)
{
  TildeShape *s = tilde_arena_new0 (arena, TildeShape);
  s->kind = kind;
  s->rows = rows;
  s->cols = cols;
  return s;
}

TildeShape *
tilde_shape_array (TildeArena *arena, const TildeShape *elem, gint32 n)
{
  TildeShape *s = tilde_shape_new (arena, TILDE_VALUE_ARRAY, n, 1);
  s->elem = elem;
  return s;
}

const char *
tilde_value_kind_name (TildeValueKind kind)
{
  static const char *const names[] = {
    "int", "real", "complex", "vector", "row_vector", "matrix", "complex_vector",
    "complex_row_vector", "complex_matrix", "array", "tuple",
  };
  return names[kind];
}

static void
describe (GString *s, const TildeShape *shape)
{
  switch (shape->kind)
    {
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_COMPLEX_VECTOR:
      g_string_append_printf (s, "%s[%d]", tilde_value_kind_name (shape->kind), shape->rows);
      break;
    case TILDE_VALUE_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
      g_string_append_printf (s, "%s[%d]", tilde_value_kind_name (shape->kind), shape->cols);
      break;
    case TILDE_VALUE_MATRIX:
    case TILDE_VALUE_COMPLEX_MATRIX:
      g_string_append_printf (s, "%s[%d, %d]", tilde_value_kind_name (shape->kind),
                              shape->rows, shape->cols);
      break;
    case TILDE_VALUE_ARRAY:
      {
        /* array[2, 3] real rather than array[2] array[3] real */
        const TildeShape *t = shape;
        g_string_append (s, "array[");
        for (gboolean first = TRUE; t->kind == TILDE_VALUE_ARRAY; t = t->elem, first = FALSE)
          g_string_append_printf (s, first ? "%d" : ", %d", t->rows);
        g_string_append (s, "] ");
        describe (s, t);
        break;
      }
    case TILDE_VALUE_TUPLE:
      g_string_append (s, "tuple(");
      for (guint i = 0; i < shape->n_members; i++)
        {
          if (i)
            g_string_append (s, ", ");
          describe (s, shape->members[i]);
        }
      g_string_append_c (s, ')');
      break;
    default:
      g_string_append (s, tilde_value_kind_name (shape->kind));
      break;
    }
}

char *
tilde_shape_describe (const TildeShape *shape)
{
  GString *s = g_string_new (NULL);
  describe (s, shape);
  return g_string_free (s, FALSE);
}

TildeShape *
tilde_shape_of_value (TildeArena *arena, const TildeValue *v)
{
  TildeShape *s = tilde_shape_new (arena, (TildeValueKind) v->kind, v->rows, v->cols);
  if (v->kind == TILDE_VALUE_ARRAY)
    {
      if (tilde_value_is_flat (v))
        s->elem = tilde_shape_new (arena, (TildeValueKind) v->elem, 1, 1);
      else if (v->rows > 0)
        s->elem = tilde_shape_of_value (arena, &v->u.elems[0]);
      else
        s->elem = tilde_shape_new (arena, (TildeValueKind) v->elem, 0, 0);
    }
  else if (v->kind == TILDE_VALUE_TUPLE)
    {
      s->n_members = (guint) v->rows;
      s->members = tilde_arena_alloc (arena, sizeof (TildeShape *) * (gsize) v->rows);
      for (gint32 i = 0; i < v->rows; i++)
        s->members[i] = tilde_shape_of_value (arena, &v->u.elems[i]);
    }
  return s;
}
