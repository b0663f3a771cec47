/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "test-pass-util.h"

#include <math.h>
#include <string.h>

#include "mir-test-util.h"
#include "mir/mir-print.h"
#include "mir/mir-transform.h"

MirProgram *
pass_test_program (const char *name, const char *text)
{
  g_autoptr (MirProgram) p = mir_test_lower (name, text, NULL);

  g_assert_nonnull (p);
  return mir_transform_program (p);
}

MirProgram *
pass_test_program_file (const char *path)
{
  g_autoptr (MirProgram) p = mir_test_lower_file (path, NULL);

  g_assert_nonnull (p);
  return mir_transform_program (p);
}

/* ---- canonical text ---- */

/* `part { ... }` of a printed program, or NULL. */
static char *
extract_part (const char *text, const char *part)
{
  g_autofree char *head = g_strdup_printf ("%s {", part);
  const char *start = NULL, *p;
  int depth = 0;

  for (p = text; (p = strstr (p, head)); p++)
    if (p == text || p[-1] == '\n')
      {
        start = p;
        break;
      }
  if (!start)
    return NULL;
  for (p = start; *p; p++)
    {
      if (*p == '"')
        for (p++; *p && *p != '"'; p++)
          if (*p == '\\' && p[1])
            p++;
      if (*p == '{')
        depth++;
      else if (*p == '}' && --depth == 0)
        return g_strndup (start, p - start + 1);
    }
  return g_strdup (start);
}

static char *
replace_all (const char *text, const char *pattern, const char *by)
{
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  char *out = g_strdup (text), *next;

  g_assert_nonnull (re);
  /* until nothing matches: a replacement may make another match */
  for (guint i = 0; i < 16; i++)
    {
      next = g_regex_replace (re, out, -1, 0, by, 0, NULL);
      if (strcmp (next, out) == 0)
        {
          g_free (next);
          break;
        }
      g_free (out);
      out = next;
    }
  return out;
}

/* A statement tree of the squashed text, for moving declarations. */
typedef struct Item {
  char      *text;       /* a statement with its ';', or a header before '{' */
  GPtrArray *children;   /* Item*, NULL for a statement */
  struct Item *next;     /* `else ...` after the block */
} Item;

static void
item_free (gpointer data)
{
  Item *it = data;

  if (!it)
    return;
  g_free (it->text);
  if (it->children)
    g_ptr_array_unref (it->children);
  item_free (it->next);
  g_free (it);
}

static GPtrArray *parse_items (const char **p);

static Item *
parse_item (const char **p)
{
  const char *s = *p;
  int depth = 0;
  Item *it = g_new0 (Item, 1);

  for (; **p; (*p)++)
    {
      char c = **p;
      if (c == '"')
        for ((*p)++; **p && **p != '"'; (*p)++)
          if (**p == '\\' && (*p)[1])
            (*p)++;
      if (c == '(' || c == '[')
        depth++;
      else if (c == ')' || c == ']')
        depth--;
      else if (c == ';' && depth == 0)
        {
          (*p)++;
          it->text = g_strstrip (g_strndup (s, *p - s));
          return it;
        }
      else if (c == '{' && depth == 0)
        {
          it->text = g_strstrip (g_strndup (s, *p - s));
          (*p)++;
          it->children = parse_items (p);
          if (**p == '}')
            (*p)++;
          while (**p == ' ')
            (*p)++;
          if (g_str_has_prefix (*p, "else"))
            it->next = parse_item (p);
          return it;
        }
    }
  it->text = g_strstrip (g_strdup (s));
  return it;
}

static GPtrArray *
parse_items (const char **p)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (item_free);

  for (;;)
    {
      while (**p == ' ')
        (*p)++;
      if (!**p || **p == '}')
        return items;
      g_ptr_array_add (items, parse_item (p));
    }
}

static gboolean
is_decl_text (const char *text)
{
  static const char *const types[] = {
    "data ", "int ", "real ", "complex ", "vector", "row_vector", "matrix", "array[",
    "tuple(", "complex_",
  };

  if (strchr (text, '='))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_prefix (text, types[i]))
      return TRUE;
  return FALSE;
}

static void
print_items (GString *out, GPtrArray *items, gboolean decls_first)
{
  for (int pass = decls_first ? 0 : 1; pass < 2; pass++)
    for (guint i = 0; i < items->len; i++)
      {
        Item *it = g_ptr_array_index (items, i);
        gboolean decl = !it->children && is_decl_text (it->text);
        if (decls_first && (pass == 0) != decl)
          continue;
        for (; it; it = it->next)
          {
            if (out->len && out->str[out->len - 1] != ' ')
              g_string_append_c (out, ' ');
            g_string_append (out, it->text);
            if (it->children)
              {
                g_string_append (out, " { ");
                print_items (out, it->children, decls_first);
                g_string_append (out, " }");
              }
          }
      }
}

/* The text again from its statement tree: in log_prob, a block without
 * a header directly in the part (the model block's scope) is spliced into
 * it; with `decls_first` declarations move to the front of their lists. */
static char *
reprint (const char *text, gboolean splice_blocks, gboolean decls_first)
{
  const char *p = text;
  g_autoptr (GPtrArray) items = parse_items (&p);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < items->len; i++)
    {
      Item *part = g_ptr_array_index (items, i);
      GPtrArray *flat;
      if (!splice_blocks || !part->children)
        continue;
      flat = g_ptr_array_new_with_free_func (item_free);
      for (guint k = 0; k < part->children->len; k++)
        {
          Item *it = g_ptr_array_index (part->children, k);
          if (it->children && it->text[0] == '\0' && !it->next)
            {
              for (guint j = 0; j < it->children->len; j++)
                g_ptr_array_add (flat, g_ptr_array_steal_index (it->children, j--));
              continue;
            }
          g_ptr_array_add (flat, it);
          part->children->pdata[k] = NULL;
        }
      g_ptr_array_unref (part->children);
      part->children = flat;
    }
  print_items (out, items, decls_first);
  return g_string_free (out, FALSE);
}

/* Leaves out declarations of compiler variables used nowhere else, then
 * numbers those variables in order of appearance. */
static char *
number_symbols (const char *text)
{
  g_autoptr (GRegex) re = g_regex_new ("\\b[a-z]+_sym[0-9]+__\\b", 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_autoptr (GHashTable) count = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  char *out = g_strdup (text);

  g_regex_match (re, text, 0, &m);
  while (g_match_info_matches (m))
    {
      char *name = g_match_info_fetch (m, 0);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, name));
      if (n == 0)
        g_ptr_array_add (order, g_strdup (name));
      g_hash_table_replace (count, name, GUINT_TO_POINTER (n + 1));
      g_match_info_next (m, NULL);
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = order->pdata[i];
      if (GPOINTER_TO_UINT (g_hash_table_lookup (count, name)) == 1)
        {
          g_autofree char *pat = g_strdup_printf ("(data )?[a-z]+ %s; ?", name);
          char *next = replace_all (out, pat, "");
          g_free (out);
          out = next;
        }
    }
  guint k = 0;
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = order->pdata[i];
      if (!strstr (out, name))
        continue;
      g_autofree char *pat = g_strdup_printf ("\\b%s\\b", name);
      g_autofree char *by = g_strdup_printf ("SYM%u", ++k);
      char *next = replace_all (out, pat, by);
      g_free (out);
      out = next;
    }
  return out;
}

/* promote(e, type, level) -> e */
static char *
strip_promotions (const char *text)
{
  GString *out = g_string_new (NULL);
  const char *p = text, *hit;

  while ((hit = strstr (p, "promote(")))
    {
      const char *q = hit + strlen ("promote("), *last = NULL, *before_last = NULL;
      int depth = 1;
      g_string_append_len (out, p, hit - p);
      for (; *q && depth > 0; q++)
        {
          if (*q == '(' || *q == '[')
            depth++;
          else if (*q == ')' || *q == ']')
            depth--;
          else if (*q == ',' && depth == 1)
            {
              before_last = last;
              last = q;
            }
        }
      if (!before_last)
        {
          g_string_append (out, "promote(");
          p = hit + strlen ("promote(");
          continue;
        }
      /* the promoted expression, itself without promotions */
      g_autofree char *inner = g_strndup (hit + strlen ("promote("),
                                          before_last - hit - strlen ("promote("));
      g_autofree char *stripped = strip_promotions (inner);
      g_string_append (out, stripped);
      p = q;
    }
  g_string_append (out, p);
  return g_string_free (out, FALSE);
}

char *
pass_test_canonical (const char *text, const char *part, PassTextFlags flags)
{
  g_autofree char *block = extract_part (text, part);
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
  char *out;

  if (!block)
    return g_strdup ("<no such part>");
  a = mir_test_squash (block);
  b = replace_all (a, "FnValidateSize__\\([^;]*\\); ?", "");
  c = strip_promotions (b);
  e = number_symbols (c);
  d = replace_all (e, "(^|[;{}] )((data )?[^;{}=]*? (\\w+)); \\4 = ", "\\1\\2 = ");
  g_free (e);
  if (flags & PASS_TEXT_NO_DATA)
    e = replace_all (d, "(^|[;{}] )data ", "\\1");
  else
    e = g_strdup (d);
  out = reprint (e, strcmp (part, "log_prob") == 0, flags & PASS_TEXT_DECLS_FIRST);
  return out;
}

void
pass_test_assert_documented (const MirProgram *program, const char *part, const char *documented,
                             PassTextFlags flags)
{
  g_autofree char *text = mir_print_program (program, MIR_PRINT_DEFAULT, NULL);
  g_autofree char *got = pass_test_canonical (text, part, flags);
  g_autofree char *want = pass_test_canonical (documented, part, flags);

  if (g_strcmp0 (got, want) != 0)
    g_test_message ("printed program:\n%s", text);
  mir_test_assert_text (part, got, want);
}

/* ---- the interpreter ---- */

typedef enum { V_INT, V_REAL, V_ARRAY, V_STRING } VKind;

typedef struct Value {
  VKind      kind;
  gint64     i;
  double     r;
  GPtrArray *items;    /* Value* */
  char      *s;
} Value;

static void
value_free (gpointer data)
{
  Value *v = data;

  if (!v)
    return;
  if (v->items)
    g_ptr_array_unref (v->items);
  g_free (v->s);
  g_free (v);
}

static Value *
value_int (gint64 i)
{
  Value *v = g_new0 (Value, 1);
  v->kind = V_INT;
  v->i = i;
  return v;
}

static Value *
value_real (double r)
{
  Value *v = g_new0 (Value, 1);
  v->kind = V_REAL;
  v->r = r;
  return v;
}

static Value *
value_copy (const Value *v)
{
  Value *c = g_new0 (Value, 1);

  *c = *v;
  c->s = g_strdup (v->s);
  if (v->items)
    {
      c->items = g_ptr_array_new_with_free_func (value_free);
      for (guint i = 0; i < v->items->len; i++)
        g_ptr_array_add (c->items, value_copy (g_ptr_array_index (v->items, i)));
    }
  return c;
}

static double
as_real (const Value *v)
{
  return v->kind == V_INT ? (double) v->i : v->r;
}

static void
value_append (GString *out, const Value *v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (v->kind)
    {
    case V_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v->i);
      break;
    case V_REAL:
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.10g", v->r));
      break;
    case V_STRING:
      g_string_append (out, v->s);
      break;
    case V_ARRAY:
      g_string_append_c (out, '[');
      for (guint i = 0; i < v->items->len; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          value_append (out, g_ptr_array_index (v->items, i));
        }
      g_string_append_c (out, ']');
      break;
    }
}

typedef enum { FLOW_NORMAL, FLOW_BREAK, FLOW_CONTINUE, FLOW_RETURN, FLOW_STOP } Flow;

/* A variable: its value (NULL before it has one). */
typedef struct {
  Value *v;
} Cell;

static void
cell_free (gpointer data)
{
  Cell *c = data;

  value_free (c->v);
  g_free (c);
}

typedef struct {
  const MirProgram *program;
  GHashTable       *data;
  GPtrArray        *frames;    /* per call: GPtrArray of scopes (name -> Cell*) */
  GString          *log;
  char             *error;     /* why the run stopped */
  gboolean          unknown;   /* something the interpreter cannot run */
  Value            *result;    /* of a return */
  gint64            draws;
  guint             steps;
} Run;

static Flow   exec (Run *r, const MirStmt *s);
static Value *eval (Run *r, const MirExpr *e);

static void
fail (Run *r, const char *message)
{
  if (!r->error)
    r->error = g_strdup (message);
}

static GPtrArray *
frame (Run *r)
{
  return g_ptr_array_index (r->frames, r->frames->len - 1);
}

static void
push_scope (Run *r)
{
  g_ptr_array_add (frame (r), g_hash_table_new_full (NULL, NULL, NULL, cell_free));
}

static void
pop_scope (Run *r)
{
  GPtrArray *f = frame (r);

  g_ptr_array_remove_index (f, f->len - 1);
}

static Cell *
lookup (Run *r, const char *name)
{
  GPtrArray *f = frame (r);

  for (guint i = f->len; i-- > 0;)
    {
      Cell *c = g_hash_table_lookup (g_ptr_array_index (f, i), name);
      if (c)
        return c;
    }
  return NULL;
}

static Cell *
declare (Run *r, const char *name)
{
  GPtrArray *f = frame (r);
  Cell *c = g_new0 (Cell, 1);

  g_hash_table_replace (g_ptr_array_index (f, f->len - 1), (gpointer) name, c);
  return c;
}

/* Stops on an unknown construct: the test then says nothing about it. */
static Value *
unknown (Run *r, const char *what)
{
  if (!r->unknown)
    g_test_message ("the test interpreter does not run %s", what);
  r->unknown = TRUE;
  fail (r, "unknown");
  return NULL;
}

static Value *
int_result (Run *r, gint64 v)
{
  if (v < G_MININT32 || v > G_MAXINT32)
    {
      fail (r, "integer overflow");
      return NULL;
    }
  return value_int (v);
}

static Value *
binary (Run *r, const char *op, Value *a, Value *b)
{
  gboolean ints = a->kind == V_INT && b->kind == V_INT;
  double x = as_real (a), y = as_real (b);

  if (a->kind == V_ARRAY || b->kind == V_ARRAY || a->kind == V_STRING || b->kind == V_STRING)
    return unknown (r, op);
  if (strcmp (op, "Plus__") == 0)
    return ints ? int_result (r, a->i + b->i) : value_real (x + y);
  if (strcmp (op, "Minus__") == 0)
    return ints ? int_result (r, a->i - b->i) : value_real (x - y);
  if (strcmp (op, "Times__") == 0)
    return ints ? int_result (r, a->i * b->i) : value_real (x * y);
  if (strcmp (op, "Divide__") == 0 || strcmp (op, "IntDivide__") == 0)
    {
      if (!ints)
        return value_real (x / y);
      if (b->i == 0)
        {
          fail (r, "integer division by zero");
          return NULL;
        }
      return int_result (r, a->i / b->i);
    }
  if (strcmp (op, "Modulo__") == 0 && ints)
    {
      if (b->i == 0)
        {
          fail (r, "modulus by zero");
          return NULL;
        }
      return value_int (a->i % b->i);
    }
  if (strcmp (op, "Pow__") == 0 || strcmp (op, "pow") == 0)
    return value_real (pow (x, y));
  if (strcmp (op, "Equals__") == 0)
    return value_int (x == y);
  if (strcmp (op, "NEquals__") == 0)
    return value_int (x != y);
  if (strcmp (op, "Less__") == 0)
    return value_int (x < y);
  if (strcmp (op, "Leq__") == 0)
    return value_int (x <= y);
  if (strcmp (op, "Greater__") == 0)
    return value_int (x > y);
  if (strcmp (op, "Geq__") == 0)
    return value_int (x >= y);
  if (strcmp (op, "fmin") == 0)
    return value_real (fmin (x, y));
  if (strcmp (op, "fmax") == 0)
    return value_real (fmax (x, y));
  return NULL;
}

static Value *
unary (Run *r, const char *f, Value *a)
{
  double x;

  if (a->kind == V_INT && strcmp (f, "PMinus__") == 0)
    return int_result (r, -a->i);
  if (a->kind == V_INT && strcmp (f, "PPlus__") == 0)
    return value_int (a->i);
  if (a->kind == V_ARRAY && strcmp (f, "size") == 0)
    return value_int (a->items->len);
  if (a->kind != V_INT && a->kind != V_REAL)
    return NULL;
  x = as_real (a);
  if (strcmp (f, "PNot__") == 0)
    return value_int (x == 0);
  if (strcmp (f, "PMinus__") == 0)
    return value_real (-x);
  if (strcmp (f, "PPlus__") == 0)
    return value_real (x);
  if (strcmp (f, "sqrt") == 0)
    return value_real (sqrt (x));
  if (strcmp (f, "log") == 0)
    return value_real (log (x));
  if (strcmp (f, "exp") == 0)
    return value_real (exp (x));
  if (strcmp (f, "log1m") == 0)
    return value_real (log1p (-x));
  if (strcmp (f, "log1p") == 0)
    return value_real (log1p (x));
  if (strcmp (f, "expm1") == 0)
    return value_real (expm1 (x));
  if (strcmp (f, "exp2") == 0)
    return value_real (exp2 (x));
  if (strcmp (f, "square") == 0)
    return value_real (x * x);
  if (strcmp (f, "inv") == 0)
    return value_real (1 / x);
  if (strcmp (f, "inv_sqrt") == 0)
    return value_real (1 / sqrt (x));
  if (strcmp (f, "inv_square") == 0)
    return value_real (1 / (x * x));
  if (strcmp (f, "abs") == 0 || strcmp (f, "fabs") == 0)
    return a->kind == V_INT ? value_int (a->i < 0 ? -a->i : a->i) : value_real (fabs (x));
  if (strcmp (f, "erf") == 0)
    return value_real (erf (x));
  if (strcmp (f, "erfc") == 0)
    return value_real (erfc (x));
  if (strcmp (f, "log1m_exp") == 0)
    return value_real (log1p (-exp (x)));
  if (strcmp (f, "log1p_exp") == 0)
    return value_real (log1p (exp (x)));
  return NULL;
}

static Value *
call_user (Run *r, const char *name, GPtrArray *args)
{
  const MirFunDef *def = NULL;
  GPtrArray *f;
  Value *result;
  g_autofree char *plain = NULL;

  /* foo_lupdf is foo_lpdf */
  if (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf"))
    {
      plain = g_strdup (name);
      memmove (plain + strlen (plain) - 4, plain + strlen (plain) - 3, 4);
      name = g_intern_string (plain);
    }
  for (guint i = 0; i < r->program->functions->len; i++)
    {
      const MirFunDef *d = g_ptr_array_index (r->program->functions, i);
      if (d->name == name && d->body)
        def = d;
    }
  if (!def || r->frames->len > 200)
    return unknown (r, "this call");
  f = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_ptr_array_add (r->frames, f);
  push_scope (r);
  for (guint i = 0; i < def->args->len && i < args->len; i++)
    declare (r, g_array_index (def->args, MirFunArg, i).name)->v
      = value_copy (g_ptr_array_index (args, i));
  exec (r, def->body);
  g_ptr_array_remove_index (r->frames, r->frames->len - 1);
  result = r->result;
  r->result = NULL;
  if (!result && !r->error && def->return_type != tilde_type_void ())
    fail (r, "no return");
  return result;
}

static Value *
call (Run *r, const MirExpr *e)
{
  const MirFun *fun = &e->u.call.fun;
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (value_free);
  Value *v = NULL;

  if (fun->kind == MIR_FUN_COMPILER && fun->internal == MIR_FN_READ_DATA)
    {
      const MirExpr *name = g_ptr_array_index (e->u.call.args, 0);
      const Value *d = g_hash_table_lookup (r->data, name->u.lit.text);
      if (!d)
        return unknown (r, "missing data");
      v = g_new0 (Value, 1);
      v->kind = V_ARRAY;
      v->items = g_ptr_array_new_with_free_func (value_free);
      g_ptr_array_add (v->items, value_copy (d));
      return v;
    }
  for (guint i = 0; i < e->u.call.args->len && !r->error; i++)
    {
      Value *a = eval (r, g_ptr_array_index (e->u.call.args, i));
      if (!a)
        return NULL;
      g_ptr_array_add (args, a);
    }
  if (r->error)
    return NULL;
  if (fun->kind == MIR_FUN_COMPILER && fun->internal == MIR_FN_MAKE_ARRAY)
    {
      v = g_new0 (Value, 1);
      v->kind = V_ARRAY;
      v->items = g_steal_pointer (&args);
      return v;
    }
  if (fun->kind == MIR_FUN_USER)
    return call_user (r, fun->name, args);
  if (fun->kind != MIR_FUN_STANLIB)
    return unknown (r, mir_internal_name (fun->internal));
  if (fun->suffix == MIR_SUFFIX_RNG)
    {
      r->draws++;
      return tilde_type_is_int (e->type) ? value_int (r->draws) : value_real (r->draws);
    }
  if (args->len == 1)
    v = unary (r, fun->name, g_ptr_array_index (args, 0));
  else if (args->len == 2)
    v = binary (r, fun->name, g_ptr_array_index (args, 0), g_ptr_array_index (args, 1));
  else if (args->len == 3 && strcmp (fun->name, "fma") == 0)
    v = value_real (fma (as_real (args->pdata[0]), as_real (args->pdata[1]),
                         as_real (args->pdata[2])));
  if (!v && !r->error)
    return unknown (r, fun->name);
  if (v && v->kind == V_INT && !tilde_type_is_int (e->type))
    {
      v->kind = V_REAL;
      v->r = (double) v->i;
    }
  return v;
}

static gboolean
index_of (Run *r, const MirExpr *e, const Value *base, guint *at)
{
  Value *i = eval (r, e);
  gboolean ok = FALSE;

  if (!i)
    return FALSE;
  if (i->kind != V_INT)
    unknown (r, "a non-int index");
  else if (i->i < 1 || i->i > (gint64) base->items->len)
    fail (r, "index out of range");
  else
    {
      *at = i->i - 1;
      ok = TRUE;
    }
  value_free (i);
  return ok;
}

static Value *
indexed (Run *r, const MirExpr *e)
{
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (value_free);
  Value *base = eval (r, e->u.indexed.base);
  const Value *v = base;

  if (!base)
    return NULL;
  g_ptr_array_add (keep, base);
  for (guint k = 0; k < e->u.indexed.indices->len; k++)
    {
      const MirIndex *idx = g_ptr_array_index (e->u.indexed.indices, k);
      guint at;
      if (idx->kind != MIR_INDEX_SINGLE || v->kind != V_ARRAY)
        return unknown (r, "this index");
      if (!index_of (r, idx->e, v, &at))
        return NULL;
      v = g_ptr_array_index (v->items, at);
    }
  return value_copy (v);
}

static Value *
eval (Run *r, const MirExpr *e)
{
  Value *a, *v;
  Cell *c;

  if (r->error)
    return NULL;
  switch (e->kind)
    {
    case MIR_EXPR_LIT:
      if (e->u.lit.kind == MIR_LIT_INT)
        return value_int (g_ascii_strtoll (e->u.lit.text, NULL, 10));
      if (e->u.lit.kind == MIR_LIT_REAL)
        return value_real (g_ascii_strtod (e->u.lit.text, NULL));
      if (e->u.lit.kind == MIR_LIT_STRING)
        {
          v = g_new0 (Value, 1);
          v->kind = V_STRING;
          v->s = g_strdup (e->u.lit.text);
          return v;
        }
      return unknown (r, "an imaginary literal");
    case MIR_EXPR_VAR:
      c = lookup (r, e->u.var.name);
      if (!c)
        return unknown (r, e->u.var.name);
      if (!c->v)
        {
          fail (r, "read before assignment");
          return NULL;
        }
      return value_copy (c->v);
    case MIR_EXPR_CALL:
      return call (r, e);
    case MIR_EXPR_TERNARY:
      if (!(a = eval (r, e->u.ternary.cond)))
        return NULL;
      v = eval (r, as_real (a) != 0 ? e->u.ternary.if_true : e->u.ternary.if_false);
      value_free (a);
      if (v && v->kind == V_INT && tilde_type_is_real (e->type))
        {
          v->kind = V_REAL;
          v->r = (double) v->i;
        }
      return v;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      if (!(a = eval (r, e->u.logical.lhs)))
        return NULL;
      if ((as_real (a) != 0) == (e->kind == MIR_EXPR_OR))
        {
          value_free (a);
          return value_int (e->kind == MIR_EXPR_OR);
        }
      value_free (a);
      if (!(a = eval (r, e->u.logical.rhs)))
        return NULL;
      v = value_int (as_real (a) != 0);
      value_free (a);
      return v;
    case MIR_EXPR_INDEXED:
      return indexed (r, e);
    case MIR_EXPR_PROMOTION:
      if (!(v = eval (r, e->u.promotion.expr)))
        return NULL;
      if (v->kind == V_INT && tilde_type_is_real (e->u.promotion.to))
        {
          v->kind = V_REAL;
          v->r = (double) v->i;
        }
      return v;
    default:
      return unknown (r, mir_expr_kind_name (e->kind));
    }
}

/* A default value of a declared type: NaN, or the smallest int. */
static Value *
default_value (Run *r, const MirSizedType *t, const TildeType *type)
{
  Value *v, *n;

  if (!t)
    {
      if (tilde_type_is_int (type))
        return value_int (G_MININT32);
      if (tilde_type_is_real (type))
        return value_real (NAN);
      return NULL;
    }
  switch (t->kind)
    {
    case MIR_SIZED_INT:
      return value_int (G_MININT32);
    case MIR_SIZED_REAL:
      return value_real (NAN);
    case MIR_SIZED_ARRAY:
      if (!(n = eval (r, t->dim1)))
        return NULL;
      if (n->kind != V_INT || n->i < 0 || n->i > 100000)
        {
          value_free (n);
          fail (r, "bad size");
          return NULL;
        }
      v = g_new0 (Value, 1);
      v->kind = V_ARRAY;
      v->items = g_ptr_array_new_with_free_func (value_free);
      for (gint64 i = 0; i < n->i && !r->error; i++)
        {
          Value *item = default_value (r, t->elem, NULL);
          if (!item)
            break;
          g_ptr_array_add (v->items, item);
        }
      value_free (n);
      return v;
    default:
      unknown (r, "this type");
      return NULL;
    }
}

static void
assign (Run *r, const MirLvalue *l, Value *v)
{
  Cell *c = l->proj_of ? NULL : lookup (r, l->var);
  Value **slot;

  if (!c)
    {
      value_free (v);
      unknown (r, "this assignment");
      return;
    }
  slot = &c->v;
  for (guint k = 0; l->indices && k < l->indices->len; k++)
    {
      const MirIndex *idx = g_ptr_array_index (l->indices, k);
      guint at;
      if (idx->kind != MIR_INDEX_SINGLE || !*slot || (*slot)->kind != V_ARRAY)
        {
          value_free (v);
          unknown (r, "this assignment");
          return;
        }
      if (!index_of (r, idx->e, *slot, &at))
        {
          value_free (v);
          return;
        }
      slot = (Value **) &(*slot)->items->pdata[at];
    }
  if (*slot && (*slot)->kind == V_REAL && v->kind == V_INT)
    {
      v->kind = V_REAL;
      v->r = (double) v->i;
    }
  value_free (*slot);
  *slot = v;
}

static Flow
exec_list (Run *r, const GPtrArray *stmts)
{
  for (guint i = 0; i < stmts->len; i++)
    {
      Flow f = exec (r, g_ptr_array_index (stmts, i));
      if (f != FLOW_NORMAL)
        return f;
    }
  return FLOW_NORMAL;
}

static Flow
exec_nr_call (Run *r, const MirStmt *s)
{
  const MirFun *fun = &s->u.call.fun;
  GString *line;

  if (fun->kind == MIR_FUN_COMPILER
      && (fun->internal == MIR_FN_VALIDATE_SIZE || fun->internal == MIR_FN_CHECK))
    return FLOW_NORMAL;
  if (fun->kind == MIR_FUN_COMPILER
      && (fun->internal == MIR_FN_PRINT || fun->internal == MIR_FN_REJECT
          || fun->internal == MIR_FN_FATAL_ERROR))
    {
      line = g_string_new (fun->internal == MIR_FN_PRINT ? "print: " : "reject: ");
      for (guint i = 0; i < s->u.call.args->len; i++)
        {
          Value *v = eval (r, g_ptr_array_index (s->u.call.args, i));
          if (!v)
            {
              g_string_free (line, TRUE);
              return FLOW_STOP;
            }
          value_append (line, v);
          value_free (v);
        }
      if (fun->internal == MIR_FN_PRINT)
        {
          g_string_append_printf (r->log, "%s\n", line->str);
          g_string_free (line, TRUE);
          return FLOW_NORMAL;
        }
      fail (r, line->str);
      g_string_free (line, TRUE);
      return FLOW_STOP;
    }
  if (fun->kind == MIR_FUN_USER)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (value_free);
      for (guint i = 0; i < s->u.call.args->len; i++)
        {
          Value *v = eval (r, g_ptr_array_index (s->u.call.args, i));
          if (!v)
            return FLOW_STOP;
          g_ptr_array_add (args, v);
        }
      value_free (call_user (r, fun->name, args));
      return r->error ? FLOW_STOP : FLOW_NORMAL;
    }
  unknown (r, "this call statement");
  return FLOW_STOP;
}

static Flow
exec (Run *r, const MirStmt *s)
{
  Value *v, *lo, *hi;
  Flow f;
  Cell *c;

  if (r->error)
    return FLOW_STOP;
  if (++r->steps > 1000000)
    {
      fail (r, "too many steps");
      return FLOW_STOP;
    }
  switch (s->kind)
    {
    case MIR_STMT_SKIP:
      return FLOW_NORMAL;
    case MIR_STMT_BREAK:
      return FLOW_BREAK;
    case MIR_STMT_CONTINUE:
      return FLOW_CONTINUE;
    case MIR_STMT_RETURN:
      if (s->u.ret.expr && !(r->result = eval (r, s->u.ret.expr)))
        return FLOW_STOP;
      return FLOW_RETURN;
    case MIR_STMT_DECL:
      v = s->u.decl.init ? eval (r, s->u.decl.init)
                         : default_value (r, s->u.decl.sized, s->u.decl.type);
      if (r->error)
        return FLOW_STOP;
      declare (r, s->u.decl.name)->v = v;
      return FLOW_NORMAL;
    case MIR_STMT_ASSIGN:
      if (!(v = eval (r, s->u.assign.rhs)))
        return FLOW_STOP;
      assign (r, s->u.assign.lhs, v);
      return r->error ? FLOW_STOP : FLOW_NORMAL;
    case MIR_STMT_NR_CALL:
      return exec_nr_call (r, s);
    case MIR_STMT_IF:
      if (!(v = eval (r, s->u.if_stmt.cond)))
        return FLOW_STOP;
      f = FLOW_NORMAL;
      if (as_real (v) != 0)
        f = exec (r, s->u.if_stmt.then_stmt);
      else if (s->u.if_stmt.else_stmt)
        f = exec (r, s->u.if_stmt.else_stmt);
      value_free (v);
      return f;
    case MIR_STMT_WHILE:
      for (;;)
        {
          if (!(v = eval (r, s->u.while_stmt.cond)))
            return FLOW_STOP;
          gboolean go = as_real (v) != 0;
          value_free (v);
          if (!go)
            return FLOW_NORMAL;
          f = exec (r, s->u.while_stmt.body);
          if (f == FLOW_BREAK)
            return FLOW_NORMAL;
          if (f == FLOW_RETURN || f == FLOW_STOP)
            return f;
        }
    case MIR_STMT_FOR:
      /* the bounds are evaluated once, before the loop */
      if (!(lo = eval (r, s->u.for_stmt.lower)))
        return FLOW_STOP;
      if (!(hi = eval (r, s->u.for_stmt.upper)))
        {
          value_free (lo);
          return FLOW_STOP;
        }
      f = FLOW_NORMAL;
      push_scope (r);
      c = declare (r, s->u.for_stmt.var);
      for (gint64 i = lo->i; i <= hi->i; i++)
        {
          value_free (c->v);
          c->v = value_int (i);
          f = exec (r, s->u.for_stmt.body);
          if (f == FLOW_BREAK)
            {
              f = FLOW_NORMAL;
              break;
            }
          if (f == FLOW_CONTINUE)
            f = FLOW_NORMAL;
          if (f != FLOW_NORMAL)
            break;
        }
      pop_scope (r);
      value_free (lo);
      value_free (hi);
      return f;
    case MIR_STMT_BLOCK:
    case MIR_STMT_PROFILE:
      push_scope (r);
      f = exec_list (r, s->kind == MIR_STMT_BLOCK ? s->u.block.stmts : s->u.profile.stmts);
      pop_scope (r);
      return f;
    case MIR_STMT_SLIST:
      return exec_list (r, s->u.block.stmts);
    default:
      unknown (r, mir_stmt_kind_name (s->kind));
      return FLOW_STOP;
    }
}

static gboolean
is_compiler_variable (const char *name)
{
  return strstr (name, "_sym") && g_str_has_suffix (name, "__");
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

char *
pass_test_run (const MirProgram *program, GHashTable *data)
{
  Run r = { program, data, g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref),
            g_string_new (NULL), NULL, FALSE, NULL, 0, 0 };
  GPtrArray *top = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  GHashTable *globals;
  GHashTableIter iter;
  gpointer key, value;

  g_ptr_array_add (r.frames, top);
  push_scope (&r);
  exec_list (&r, program->parts[MIR_PART_PREPARE_DATA]);
  if (r.error)
    g_string_append_printf (r.log, "error: %s\n", r.error);
  globals = g_ptr_array_index (top, 0);
  g_hash_table_iter_init (&iter, globals);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!is_compiler_variable (key))
      g_ptr_array_add (names, key);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len && !r.error; i++)
    {
      Cell *c = g_hash_table_lookup (globals, names->pdata[i]);
      g_string_append_printf (r.log, "%s = ", (const char *) names->pdata[i]);
      if (c->v)
        value_append (r.log, c->v);
      g_string_append_c (r.log, '\n');
    }
  value_free (r.result);
  g_free (r.error);
  g_ptr_array_unref (r.frames);
  if (r.unknown)
    {
      g_string_free (r.log, TRUE);
      return NULL;
    }
  return g_string_free (r.log, FALSE);
}

GHashTable *
pass_test_data (const char *spec)
{
  GHashTable *data = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_free);
  g_auto (GStrv) items = g_strsplit (spec ? spec : "", ",", -1);

  for (guint i = 0; items[i]; i++)
    {
      char *eq = strchr (items[i], '=');
      if (!eq)
        continue;
      *eq = '\0';
      g_hash_table_insert (data, g_strdup (g_strstrip (items[i])),
                           strpbrk (eq + 1, ".eE") ? value_real (g_ascii_strtod (eq + 1, NULL))
                                                   : value_int (g_ascii_strtoll (eq + 1, NULL, 10)));
    }
  return data;
}

/* ---- every node has a type and a span ---- */

typedef struct {
  const char *what;
  guint       bad;
} Census;

static void
max_child_ad (MirExpr *e, gpointer data)
{
  if (e->ad_level == TILDE_AD_AUTODIFF)
    *(TildeAdLevel *) data = TILDE_AD_AUTODIFF;
}

static void
check_expr (MirExpr *e, gpointer data)
{
  Census *c = data;
  TildeAdLevel children = TILDE_AD_DATA;

  /* a value computed from autodiff values is autodiff, unless it cannot
   * be (an int) or comes from a draw or a compiler read (whose payload
   * is lowered once for every part) */
  if (e->kind != MIR_EXPR_CALL || (e->u.call.fun.suffix != MIR_SUFFIX_RNG
                                   && e->u.call.fun.kind != MIR_FUN_COMPILER))
    mir_expr_foreach_child (e, max_child_ad, &children);
  if (children == TILDE_AD_AUTODIFF && e->ad_level == TILDE_AD_DATA && e->type
      && tilde_type_is_autodiffable (e->type) && e->kind != MIR_EXPR_TERNARY)
    {
      if (c->bad++ < 5)
        {
          g_autofree char *text = mir_print_expr (e);
          g_test_message ("%s: data expression of autodiff values: %s", c->what, text);
        }
    }

  if (!e->type || !e->span.file || e->span.begin_line < 1)
    {
      if (c->bad++ < 5)
        {
          g_autofree char *text = mir_print_expr (e);
          g_test_message ("%s: expression %s without %s", c->what, text,
                          e->type ? "a span" : "a type");
        }
    }
  mir_expr_foreach_child (e, check_expr, data);
}

static void
check_stmt (MirStmt *s, gpointer data)
{
  Census *c = data;

  if (!s->span.file || s->span.begin_line < 1)
    {
      if (c->bad++ < 5)
        {
          g_autofree char *text = mir_print_stmt (s, MIR_PRINT_DEFAULT);
          g_test_message ("%s: statement without a span: %s", c->what, text);
        }
    }
  if (s->kind == MIR_STMT_DECL && !s->u.decl.type)
    c->bad++;
  if (s->kind == MIR_STMT_ASSIGN && (!s->u.assign.lhs->type || !s->u.assign.lhs->span.file))
    c->bad++;
  /* a value assigned to a whole variable has the variable's type */
  if (s->kind == MIR_STMT_ASSIGN && !s->u.assign.lhs->proj_of
      && (!s->u.assign.lhs->indices || s->u.assign.lhs->indices->len == 0)
      && s->u.assign.rhs->type != s->u.assign.lhs->type)
    {
      if (c->bad++ < 5)
        {
          g_autofree char *text = mir_print_stmt (s, MIR_PRINT_DEFAULT);
          g_test_message ("%s: assignment of another type: %s", c->what, text);
        }
    }
  mir_stmt_foreach_expr (s, check_expr, data);
}

void
pass_test_assert_nodes (const char *what, MirProgram *program)
{
  Census c = { what, 0 };

  mir_program_walk_stmts (program, check_stmt, &c);
  if (c.bad)
    {
      g_test_message ("%s: %u nodes without a type or a span", what, c.bad);
      g_test_fail ();
    }
}
