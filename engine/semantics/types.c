/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "types.h"

#include <string.h>

struct TildeType {
  TildeTypeKind kind;
  TildeFunKind fun_kind;     /* functions */
  guint hash;
  guint n;                   /* tuple members or function arguments */
  guint dims;                /* array dimensions */
  const TildeType *elem;     /* array element, function return type */
  const TildeType *base;     /* innermost non-array type of an array */
  const TildeType **members; /* tuple members */
  TildeArgType *args;         /* function arguments */
};

/* The intern table owns every type ever built; types are never freed, so the
 * pointers handed out stay valid for the life of the process. */
static GMutex intern_lock;
static GHashTable *intern_table;

static guint
mix (guint h, guint v)
{
  return (h ^ v) * 16777619u;
}

static guint
type_hash (gconstpointer p)
{
  const TildeType *t = p;
  guint h = 2166136261u;

  h = mix (h, t->kind);
  h = mix (h, t->fun_kind);
  h = mix (h, t->n);
  h = mix (h, GPOINTER_TO_UINT (t->elem));
  for (guint i = 0; t->members && i < t->n; i++)
    h = mix (h, GPOINTER_TO_UINT (t->members[i]));
  for (guint i = 0; t->args && i < t->n; i++)
    h = mix (mix (h, t->args[i].ad), GPOINTER_TO_UINT (t->args[i].type));
  return h;
}

static gboolean
type_equal (gconstpointer pa, gconstpointer pb)
{
  const TildeType *a = pa, *b = pb;

  if (a->kind != b->kind || a->fun_kind != b->fun_kind || a->n != b->n
      || a->elem != b->elem)
    return FALSE;
  for (guint i = 0; a->members && i < a->n; i++)
    if (a->members[i] != b->members[i])
      return FALSE;
  for (guint i = 0; a->args && i < a->n; i++)
    if (a->args[i].ad != b->args[i].ad || a->args[i].type != b->args[i].type)
      return FALSE;
  return TRUE;
}

/* Looks `key` up and, when it is new, stores a permanent copy of it. */
static const TildeType *
intern (const TildeType *key)
{
  TildeType *found;

  g_mutex_lock (&intern_lock);
  if (intern_table == NULL)
    intern_table = g_hash_table_new (type_hash, type_equal);
  found = g_hash_table_lookup (intern_table, key);
  if (found == NULL)
    {
      found = g_new (TildeType, 1);
      *found = *key;
      if (key->members)
        found->members = g_memdup2 (key->members, key->n * sizeof (TildeType *));
      if (key->args)
        found->args = g_memdup2 (key->args, key->n * sizeof (TildeArgType));
      found->hash = type_hash (found);
      g_hash_table_add (intern_table, found);
    }
  g_mutex_unlock (&intern_lock);
  return found;
}

const TildeType *
tilde_type_basic (TildeTypeKind kind)
{
  static const TildeType *cache[TILDE_TYPE_STRING + 1];
  const TildeType *t;

  g_return_val_if_fail (kind != TILDE_TYPE_ARRAY && kind != TILDE_TYPE_TUPLE
                        && kind != TILDE_TYPE_FUNCTION && kind <= TILDE_TYPE_STRING,
                        NULL);
  t = g_atomic_pointer_get (&cache[kind]);
  if (t == NULL)
    {
      TildeType key = { .kind = kind };

      t = intern (&key);
      g_atomic_pointer_set (&cache[kind], t);
    }
  return t;
}

const TildeType *tilde_type_int (void) { return tilde_type_basic (TILDE_TYPE_INT); }
const TildeType *tilde_type_real (void) { return tilde_type_basic (TILDE_TYPE_REAL); }
const TildeType *tilde_type_complex (void) { return tilde_type_basic (TILDE_TYPE_COMPLEX); }
const TildeType *tilde_type_vector (void) { return tilde_type_basic (TILDE_TYPE_VECTOR); }
const TildeType *tilde_type_row_vector (void) { return tilde_type_basic (TILDE_TYPE_ROW_VECTOR); }
const TildeType *tilde_type_matrix (void) { return tilde_type_basic (TILDE_TYPE_MATRIX); }
const TildeType *tilde_type_complex_vector (void) { return tilde_type_basic (TILDE_TYPE_COMPLEX_VECTOR); }
const TildeType *tilde_type_complex_row_vector (void) { return tilde_type_basic (TILDE_TYPE_COMPLEX_ROW_VECTOR); }
const TildeType *tilde_type_complex_matrix (void) { return tilde_type_basic (TILDE_TYPE_COMPLEX_MATRIX); }
const TildeType *tilde_type_void (void) { return tilde_type_basic (TILDE_TYPE_VOID); }
const TildeType *tilde_type_string (void) { return tilde_type_basic (TILDE_TYPE_STRING); }
const TildeType *tilde_type_math_function (void) { return tilde_type_basic (TILDE_TYPE_MATH_FUNCTION); }

const TildeType *
tilde_type_array (const TildeType *elem)
{
  TildeType key = { .kind = TILDE_TYPE_ARRAY };

  g_return_val_if_fail (elem != NULL, NULL);
  key.elem = elem;
  key.dims = elem->kind == TILDE_TYPE_ARRAY ? elem->dims + 1 : 1;
  key.base = elem->kind == TILDE_TYPE_ARRAY ? elem->base : elem;
  return intern (&key);
}

const TildeType *
tilde_type_array_n (const TildeType *elem, guint ndims)
{
  for (guint i = 0; i < ndims; i++)
    elem = tilde_type_array (elem);
  return elem;
}

const TildeType *
tilde_type_tuple (guint n, const TildeType *const *members)
{
  TildeType key = { .kind = TILDE_TYPE_TUPLE };

  g_return_val_if_fail (n >= 1 && members != NULL, NULL);
  key.n = n;
  key.members = (const TildeType **) members;
  return intern (&key);
}

const TildeType *
tilde_type_function (guint n_args, const TildeArgType *args,
                     const TildeType *ret, TildeFunKind kind)
{
  TildeType key = { .kind = TILDE_TYPE_FUNCTION };

  g_return_val_if_fail (ret != NULL && (n_args == 0 || args != NULL), NULL);
  key.n = n_args;
  key.args = n_args ? (TildeArgType *) args : NULL;
  key.elem = ret;
  key.fun_kind = kind;
  return intern (&key);
}

const TildeType *
tilde_type_function_with_kind (const TildeType *type, TildeFunKind kind)
{
  g_return_val_if_fail (type->kind == TILDE_TYPE_FUNCTION, NULL);
  return tilde_type_function (type->n, type->args, type->elem, kind);
}

TildeTypeKind tilde_type_kind (const TildeType *type) { return type->kind; }

const TildeType *
tilde_type_element (const TildeType *type)
{
  return type->kind == TILDE_TYPE_ARRAY ? type->elem : NULL;
}

guint tilde_type_array_dims (const TildeType *type) { return type->dims; }

const TildeType *
tilde_type_array_base (const TildeType *type)
{
  return type->kind == TILDE_TYPE_ARRAY ? type->base : type;
}

guint
tilde_type_n_members (const TildeType *type)
{
  return type->kind == TILDE_TYPE_TUPLE ? type->n : 0;
}

const TildeType *
tilde_type_member (const TildeType *type, guint i)
{
  g_return_val_if_fail (type->kind == TILDE_TYPE_TUPLE && i < type->n, NULL);
  return type->members[i];
}

guint
tilde_type_n_args (const TildeType *type)
{
  return type->kind == TILDE_TYPE_FUNCTION ? type->n : 0;
}

const TildeArgType *
tilde_type_arg (const TildeType *type, guint i)
{
  g_return_val_if_fail (type->kind == TILDE_TYPE_FUNCTION && i < type->n, NULL);
  return &type->args[i];
}

const TildeType *
tilde_type_return (const TildeType *type)
{
  return type->kind == TILDE_TYPE_FUNCTION ? type->elem : NULL;
}

TildeFunKind
tilde_type_fun_kind (const TildeType *type)
{
  return type->fun_kind;
}

/* ---- predicates ---- */

gboolean tilde_type_is_int (const TildeType *t) { return t->kind == TILDE_TYPE_INT; }
gboolean tilde_type_is_real (const TildeType *t) { return t->kind == TILDE_TYPE_REAL; }
gboolean tilde_type_is_complex (const TildeType *t) { return t->kind == TILDE_TYPE_COMPLEX; }

gboolean
tilde_type_is_scalar (const TildeType *t)
{
  return t->kind == TILDE_TYPE_INT || t->kind == TILDE_TYPE_REAL;
}

gboolean
tilde_type_is_eigen (const TildeType *t)
{
  switch (t->kind)
    {
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_MATRIX:
    case TILDE_TYPE_COMPLEX_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
    case TILDE_TYPE_COMPLEX_MATRIX:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
tilde_type_is_container (const TildeType *t)
{
  return tilde_type_is_eigen (t) || t->kind == TILDE_TYPE_ARRAY
         || t->kind == TILDE_TYPE_TUPLE;
}

gboolean
tilde_type_is_int_type (const TildeType *t)
{
  return tilde_type_array_base (t)->kind == TILDE_TYPE_INT;
}

gboolean
tilde_type_is_real_type (const TildeType *t)
{
  switch (tilde_type_array_base (t)->kind)
    {
    case TILDE_TYPE_REAL:
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_MATRIX:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
tilde_type_is_complex_type (const TildeType *t)
{
  switch (tilde_type_array_base (t)->kind)
    {
    case TILDE_TYPE_COMPLEX:
    case TILDE_TYPE_COMPLEX_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
    case TILDE_TYPE_COMPLEX_MATRIX:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
tilde_type_is_discrete (const TildeType *t)
{
  const TildeType *b = tilde_type_array_base (t);

  if (b->kind == TILDE_TYPE_TUPLE)
    {
      for (guint i = 0; i < b->n; i++)
        if (!tilde_type_is_discrete (b->members[i]))
          return FALSE;
      return TRUE;
    }
  return b->kind == TILDE_TYPE_INT;
}

gboolean
tilde_type_contains_tuple (const TildeType *t)
{
  return tilde_type_array_base (t)->kind == TILDE_TYPE_TUPLE;
}

gboolean
tilde_type_is_autodiffable (const TildeType *t)
{
  const TildeType *b = tilde_type_array_base (t);

  if (b->kind == TILDE_TYPE_TUPLE)
    {
      for (guint i = 0; i < b->n; i++)
        if (tilde_type_is_autodiffable (b->members[i]))
          return TRUE;
      return FALSE;
    }
  return b->kind == TILDE_TYPE_REAL || b->kind == TILDE_TYPE_COMPLEX
         || tilde_type_is_eigen (b);
}

guint
tilde_type_count_dims (const TildeType *t)
{
  const TildeType *b = tilde_type_array_base (t);
  guint extra = 0;

  switch (b->kind)
    {
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_COMPLEX_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
      extra = 1;
      break;
    case TILDE_TYPE_MATRIX:
    case TILDE_TYPE_COMPLEX_MATRIX:
      extra = 2;
      break;
    default:
      break;
    }
  return t->dims + extra;
}

const TildeType *
tilde_type_internal_scalar (const TildeType *t)
{
  const TildeType *b = tilde_type_array_base (t);

  switch (b->kind)
    {
    case TILDE_TYPE_INT:
      return tilde_type_int ();
    case TILDE_TYPE_REAL:
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_MATRIX:
      return tilde_type_real ();
    case TILDE_TYPE_COMPLEX:
    case TILDE_TYPE_COMPLEX_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
    case TILDE_TYPE_COMPLEX_MATRIX:
      return tilde_type_complex ();
    case TILDE_TYPE_TUPLE:
    case TILDE_TYPE_FUNCTION:
    case TILDE_TYPE_MATH_FUNCTION:
      return b;
    default:
      return NULL;
    }
}

const TildeType *
tilde_type_index (const TildeType *t)
{
  switch (t->kind)
    {
    case TILDE_TYPE_ARRAY:
      return t->elem;
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
      return tilde_type_real ();
    case TILDE_TYPE_MATRIX:
      return tilde_type_row_vector ();
    case TILDE_TYPE_COMPLEX_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
      return tilde_type_complex ();
    case TILDE_TYPE_COMPLEX_MATRIX:
      return tilde_type_complex_row_vector ();
    default:
      return NULL;
    }
}

static const TildeType *
complex_counterpart (const TildeType *t)
{
  switch (t->kind)
    {
    case TILDE_TYPE_REAL:
      return tilde_type_complex ();
    case TILDE_TYPE_VECTOR:
      return tilde_type_complex_vector ();
    case TILDE_TYPE_ROW_VECTOR:
      return tilde_type_complex_row_vector ();
    case TILDE_TYPE_MATRIX:
      return tilde_type_complex_matrix ();
    default:
      return NULL;
    }
}

const TildeType *
tilde_type_promote_scalar (const TildeType *t, const TildeType *scalar)
{
  scalar = tilde_type_array_base (scalar);
  switch (t->kind)
    {
    case TILDE_TYPE_ARRAY:
      return tilde_type_array (tilde_type_promote_scalar (t->elem, scalar));
    case TILDE_TYPE_INT:
    case TILDE_TYPE_REAL:
      if (scalar->kind == TILDE_TYPE_REAL || scalar->kind == TILDE_TYPE_COMPLEX)
        return scalar;
      return t;
    case TILDE_TYPE_TUPLE:
      return scalar->kind == TILDE_TYPE_TUPLE ? scalar : t;
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_MATRIX:
      if (scalar->kind == TILDE_TYPE_COMPLEX || scalar == complex_counterpart (t))
        return complex_counterpart (t);
      return t;
    default:
      return t;
    }
}

const TildeType *
tilde_type_common (const TildeType *a, const TildeType *b)
{
  if (a == b)
    return a;
  if (a->kind == TILDE_TYPE_ARRAY && b->kind == TILDE_TYPE_ARRAY)
    {
      const TildeType *e = tilde_type_common (a->elem, b->elem);
      return e ? tilde_type_array (e) : NULL;
    }
  if (a->kind == TILDE_TYPE_TUPLE && b->kind == TILDE_TYPE_TUPLE)
    {
      g_autofree const TildeType **m = NULL;

      if (a->n != b->n)
        return NULL;
      m = g_new (const TildeType *, a->n);
      for (guint i = 0; i < a->n; i++)
        if ((m[i] = tilde_type_common (a->members[i], b->members[i])) == NULL)
          return NULL;
      return tilde_type_tuple (a->n, m);
    }
  if (tilde_type_promotion_cost (a, b) >= 0)
    return a;
  if (tilde_type_promotion_cost (b, a) >= 0)
    return b;
  return NULL;
}

/* ---- promotion ---- */

static int promotion_cost (const TildeType *to, const TildeType *from, int depth);

/* Stan's check of a function value against a function parameter: the
 * supplied function's parameters must accept what the expected type would
 * pass, so the comparison runs from the supplied side. */
static gboolean
fun_args_compatible (const TildeType *typs, const TildeType *args2, int depth)
{
  if (typs->n != args2->n)
    return FALSE;
  for (guint i = 0; i < typs->n; i++)
    {
      const TildeArgType *p = &typs->args[i], *a = &args2->args[i];

      if (promotion_cost (p->type, a->type, depth) < 0)
        return FALSE;
      if (p->ad != a->ad && !(depth < 2 && tilde_ad_can_convert (p->ad, a->ad)))
        return FALSE;
    }
  return TRUE;
}

static int
promotion_cost (const TildeType *to, const TildeType *from, int depth)
{
  if (to == from)
    return 0;
  if (depth < 1)
    {
      if (from->kind == TILDE_TYPE_INT && to->kind == TILDE_TYPE_REAL)
        return 1;
      if (from->kind == TILDE_TYPE_INT && to->kind == TILDE_TYPE_COMPLEX)
        return 2;
      if (complex_counterpart (from) == to)
        return 1;
    }
  if (to->kind == TILDE_TYPE_ARRAY && from->kind == TILDE_TYPE_ARRAY)
    return promotion_cost (to->elem, from->elem, depth);
  if (to->kind == TILDE_TYPE_TUPLE && from->kind == TILDE_TYPE_TUPLE)
    {
      int total = 0;

      if (to->n != from->n)
        return -1;
      for (guint i = 0; i < to->n; i++)
        {
          int c = promotion_cost (to->members[i], from->members[i], depth);
          if (c < 0)
            return -1;
          total += c;
        }
      return total;
    }
  if (to->kind == TILDE_TYPE_FUNCTION && from->kind == TILDE_TYPE_FUNCTION)
    {
      if (!tilde_fun_kind_equal_modulo_propto (to->fun_kind, from->fun_kind)
          || to->elem != from->elem)
        return -1;
      return fun_args_compatible (from, to, depth + 1) ? 0 : -1;
    }
  return -1;
}

int
tilde_type_promotion_cost (const TildeType *to, const TildeType *from)
{
  g_return_val_if_fail (to != NULL && from != NULL, -1);
  return promotion_cost (to, from, 0);
}

gboolean
tilde_type_promotes (const TildeType *from, const TildeType *to)
{
  return tilde_type_promotion_cost (to, from) >= 0;
}

gboolean
tilde_ad_can_convert (TildeAdLevel required, TildeAdLevel actual)
{
  return !(required == TILDE_AD_DATA && actual == TILDE_AD_AUTODIFF);
}

TildeAdLevel
tilde_ad_lub (TildeAdLevel a, TildeAdLevel b)
{
  return (a == TILDE_AD_AUTODIFF || b == TILDE_AD_AUTODIFF) ? TILDE_AD_AUTODIFF
                                                            : TILDE_AD_DATA;
}

/* ---- printing ---- */

static const char *const basic_names[] = {
  [TILDE_TYPE_INT] = "int",
  [TILDE_TYPE_REAL] = "real",
  [TILDE_TYPE_COMPLEX] = "complex",
  [TILDE_TYPE_VECTOR] = "vector",
  [TILDE_TYPE_ROW_VECTOR] = "row_vector",
  [TILDE_TYPE_MATRIX] = "matrix",
  [TILDE_TYPE_COMPLEX_VECTOR] = "complex_vector",
  [TILDE_TYPE_COMPLEX_ROW_VECTOR] = "complex_row_vector",
  [TILDE_TYPE_COMPLEX_MATRIX] = "complex_matrix",
  [TILDE_TYPE_MATH_FUNCTION] = "<Stan Math function>",
  [TILDE_TYPE_VOID] = "void",
  [TILDE_TYPE_STRING] = "string",
};

void
tilde_type_append (GString *out, const TildeType *t)
{
  switch (t->kind)
    {
    case TILDE_TYPE_ARRAY:
      g_string_append (out, "array[");
      for (guint i = 1; i < t->dims; i++)
        g_string_append_c (out, ',');
      g_string_append (out, "] ");
      tilde_type_append (out, t->base);
      break;
    case TILDE_TYPE_TUPLE:
      g_string_append (out, "tuple(");
      for (guint i = 0; i < t->n; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          tilde_type_append (out, t->members[i]);
        }
      /* a one-member tuple keeps its comma, as in stanc */
      g_string_append (out, t->n == 1 ? ",)" : ")");
      break;
    case TILDE_TYPE_FUNCTION:
      g_string_append_c (out, '(');
      for (guint i = 0; i < t->n; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          if (t->args[i].ad == TILDE_AD_DATA
              && t->args[i].type->kind != TILDE_TYPE_FUNCTION)
            g_string_append (out, "data ");
          tilde_type_append (out, t->args[i].type);
        }
      g_string_append (out, ") => ");
      tilde_type_append (out, t->elem);
      break;
    default:
      g_string_append (out, basic_names[t->kind]);
      break;
    }
}

char *
tilde_type_to_string (const TildeType *type)
{
  GString *s = g_string_new (NULL);

  tilde_type_append (s, type);
  return g_string_free (s, FALSE);
}

/* ---- parsing ---- */

typedef struct {
  const char *p;
} Scanner;

static void
skip_space (Scanner *s)
{
  while (g_ascii_isspace (*s->p))
    s->p++;
}

static gboolean
eat (Scanner *s, const char *tok)
{
  gsize n = strlen (tok);

  skip_space (s);
  if (strncmp (s->p, tok, n) != 0)
    return FALSE;
  /* a word token must not continue as an identifier */
  if (g_ascii_isalpha (tok[0]) && (g_ascii_isalnum (s->p[n]) || s->p[n] == '_'))
    return FALSE;
  s->p += n;
  return TRUE;
}

static const TildeType *parse_type (Scanner *s);

static gboolean
parse_fun_arg (Scanner *s, TildeArgType *arg)
{
  arg->ad = eat (s, "data") ? TILDE_AD_DATA : TILDE_AD_AUTODIFF;
  arg->type = parse_type (s);
  return arg->type != NULL;
}

static const TildeType *
parse_function (Scanner *s)
{
  g_autoptr (GArray) args = g_array_new (FALSE, FALSE, sizeof (TildeArgType));
  const TildeType *ret;

  if (!eat (s, ")"))
    {
      do
        {
          TildeArgType a;
          if (!parse_fun_arg (s, &a))
            return NULL;
          g_array_append_val (args, a);
        }
      while (eat (s, ","));
      if (!eat (s, ")"))
        return NULL;
    }
  if (!eat (s, "=>"))
    return NULL;
  ret = eat (s, "void") ? tilde_type_void () : parse_type (s);
  if (ret == NULL)
    return NULL;
  return tilde_type_function (args->len, (TildeArgType *) args->data, ret,
                              TILDE_FUN_PLAIN);
}

static const TildeType *
parse_type (Scanner *s)
{
  static const TildeTypeKind order[] = {
    /* longest names first so that a prefix never wins */
    TILDE_TYPE_COMPLEX_ROW_VECTOR, TILDE_TYPE_COMPLEX_VECTOR, TILDE_TYPE_COMPLEX_MATRIX,
    TILDE_TYPE_ROW_VECTOR, TILDE_TYPE_COMPLEX, TILDE_TYPE_VECTOR, TILDE_TYPE_MATRIX,
    TILDE_TYPE_INT, TILDE_TYPE_REAL, TILDE_TYPE_STRING,
  };

  if (eat (s, "array"))
    {
      guint dims = 1;
      const TildeType *elem;

      if (!eat (s, "["))
        return NULL;
      while (eat (s, ","))
        dims++;
      if (!eat (s, "]") || (elem = parse_type (s)) == NULL
          || elem->kind == TILDE_TYPE_ARRAY)
        return NULL;
      return tilde_type_array_n (elem, dims);
    }
  if (eat (s, "tuple"))
    {
      g_autoptr (GPtrArray) m = g_ptr_array_new ();

      if (!eat (s, "("))
        return NULL;
      do
        {
          const TildeType *t;
          skip_space (s);
          if (*s->p == ')' && m->len == 1)
            break; /* tuple(T,) */
          if ((t = parse_type (s)) == NULL)
            return NULL;
          g_ptr_array_add (m, (gpointer) t);
        }
      while (eat (s, ","));
      if (!eat (s, ")"))
        return NULL;
      return tilde_type_tuple (m->len, (const TildeType *const *) m->pdata);
    }
  if (eat (s, "("))
    return parse_function (s);
  if (eat (s, "<Stan Math function>"))
    return tilde_type_math_function ();
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    if (eat (s, basic_names[order[i]]))
      return tilde_type_basic (order[i]);
  return NULL;
}

const TildeType *
tilde_type_from_string (const char *text)
{
  Scanner s = { text };
  const TildeType *t;

  g_return_val_if_fail (text != NULL, NULL);
  if (eat (&s, "void"))
    t = tilde_type_void ();
  else
    t = parse_type (&s);
  skip_space (&s);
  return (t != NULL && *s.p == '\0') ? t : NULL;
}

/* ---- ordering ---- */

/* The constructor order of stanc's UnsizedType.t */
static int
kind_rank (TildeTypeKind k)
{
  switch (k)
    {
    case TILDE_TYPE_VOID: return -1;
    case TILDE_TYPE_INT: return 0;
    case TILDE_TYPE_REAL: return 1;
    case TILDE_TYPE_VECTOR: return 2;
    case TILDE_TYPE_COMPLEX: return 3;
    case TILDE_TYPE_ROW_VECTOR: return 4;
    case TILDE_TYPE_MATRIX: return 5;
    case TILDE_TYPE_COMPLEX_VECTOR: return 6;
    case TILDE_TYPE_COMPLEX_ROW_VECTOR: return 7;
    case TILDE_TYPE_COMPLEX_MATRIX: return 8;
    case TILDE_TYPE_ARRAY: return 9;
    case TILDE_TYPE_TUPLE: return 10;
    case TILDE_TYPE_FUNCTION: return 11;
    case TILDE_TYPE_MATH_FUNCTION: return 12;
    case TILDE_TYPE_STRING: return 13;
    default: return 14;
    }
}

int
tilde_arg_type_compare (const TildeArgType *a, const TildeArgType *b)
{
  /* stanc's autodifftype lists DataOnly before AutoDiffable */
  if (a->ad != b->ad)
    return a->ad == TILDE_AD_DATA ? -1 : 1;
  return tilde_type_compare (a->type, b->type);
}

int
tilde_type_compare (const TildeType *a, const TildeType *b)
{
  int ra, rb;

  if (a == b)
    return 0;
  ra = kind_rank (a->kind);
  rb = kind_rank (b->kind);
  if (ra != rb)
    return ra < rb ? -1 : 1;
  switch (a->kind)
    {
    case TILDE_TYPE_ARRAY:
      return tilde_type_compare (a->elem, b->elem);
    case TILDE_TYPE_TUPLE:
      for (guint i = 0; i < a->n && i < b->n; i++)
        {
          int c = tilde_type_compare (a->members[i], b->members[i]);
          if (c != 0)
            return c;
        }
      return a->n < b->n ? -1 : a->n > b->n ? 1 : 0;
    case TILDE_TYPE_FUNCTION:
      for (guint i = 0; i < a->n && i < b->n; i++)
        {
          int c = tilde_arg_type_compare (&a->args[i], &b->args[i]);
          if (c != 0)
            return c;
        }
      if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
      {
        int c = tilde_type_compare (a->elem, b->elem);
        if (c != 0)
          return c;
      }
      return a->fun_kind < b->fun_kind ? -1 : a->fun_kind > b->fun_kind ? 1 : 0;
    default:
      return 0;
    }
}

/* ---- function kinds ---- */

TildeFunKind
tilde_fun_kind_from_name (const char *name)
{
  if (g_str_has_suffix (name, "_rng"))
    return TILDE_FUN_RNG;
  if (g_str_has_suffix (name, "_lpdf") || g_str_has_suffix (name, "_lpmf"))
    return TILDE_FUN_LPDF;
  if (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf"))
    return TILDE_FUN_LUPDF;
  if (g_str_has_suffix (name, "_lp"))
    return TILDE_FUN_LP;
  if (g_str_has_suffix (name, "_jacobian"))
    return TILDE_FUN_JACOBIAN;
  return TILDE_FUN_PLAIN;
}

gboolean
tilde_fun_kind_equal_modulo_propto (TildeFunKind a, TildeFunKind b)
{
  if (a == TILDE_FUN_LUPDF)
    a = TILDE_FUN_LPDF;
  if (b == TILDE_FUN_LUPDF)
    b = TILDE_FUN_LPDF;
  return a == b;
}
