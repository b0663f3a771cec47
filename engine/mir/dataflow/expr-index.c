/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/expr-index.h"

#include "mir/mir-print.h"

/* ---- candidates ---- */

static gboolean
fun_is_pure (const MirFun *f)
{
  switch (f->kind)
    {
    case MIR_FUN_STANLIB:
      return f->suffix != MIR_SUFFIX_RNG && f->suffix != MIR_SUFFIX_TARGET
             && f->suffix != MIR_SUFFIX_JACOBIAN;
    case MIR_FUN_COMPILER:
      switch (f->internal)
        {
        case MIR_FN_MAKE_ARRAY:
        case MIR_FN_MAKE_ROW_VEC:
        case MIR_FN_MAKE_TUPLE:
        case MIR_FN_LENGTH:
        case MIR_FN_NEG_INF:
        case MIR_FN_NAN:
          return TRUE;
        default:
          return FALSE;
        }
    case MIR_FUN_USER:
    default:
      return FALSE;
    }
}

static void
check_pure (MirExpr *e, gpointer data)
{
  gboolean *pure = data;

  if (!*pure)
    return;
  if (e->kind == MIR_EXPR_VAR && !mir_expr_is_variable (e))
    *pure = FALSE;
  else if (e->kind == MIR_EXPR_CALL && !fun_is_pure (&e->u.call.fun))
    *pure = FALSE;
  else
    mir_expr_foreach_child (e, check_pure, data);
}

gboolean
mir_expr_is_candidate (const MirExpr *e)
{
  gboolean pure = TRUE;

  if (e->kind == MIR_EXPR_VAR || e->kind == MIR_EXPR_LIT)
    return FALSE;
  check_pure ((MirExpr *) e, &pure);
  return pure;
}

/* ---- structural hashing ---- */

static guint
mix (guint h, guint v)
{
  return (h ^ v) * 16777619u;
}

static void
hash_child (MirExpr *e, gpointer data)
{
  guint *h = data;

  *h = mix (*h, mir_expr_hash (e));
}

guint
mir_expr_hash (const MirExpr *e)
{
  guint h = mix (2166136261u, e->kind);

  h = mix (h, g_direct_hash (e->type));
  h = mix (h, e->ad_level);
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      h = mix (h, g_str_hash (e->u.var.name));
      break;
    case MIR_EXPR_LIT:
      h = mix (h, e->u.lit.kind);
      h = mix (h, g_str_hash (e->u.lit.text));
      break;
    case MIR_EXPR_CALL:
      h = mix (h, e->u.call.fun.kind);
      h = mix (h, e->u.call.fun.kind == MIR_FUN_COMPILER ? e->u.call.fun.internal
                                                          : g_str_hash (e->u.call.fun.name));
      break;
    case MIR_EXPR_TUPLE_PROJ:
      h = mix (h, (guint) e->u.proj.slot);
      break;
    default:
      break;
    }
  mir_expr_foreach_child ((MirExpr *) e, hash_child, &h);
  return h;
}

/* ---- the index ----
 *
 * Candidates are found and hashed in one walk per expression: the
 * children's hashes and purity come back up the recursion, so that no
 * subexpression is walked again for each expression around it. The hash
 * mixes the interned names' addresses (names are compared by address). */

/* Pointer keys to numbers (+ 1), open addressing; the structural table
 * keeps each key's hash. */
typedef MirExprTable Table;

static void
table_init (Table *t, guint expected, gboolean with_hashes)
{
  guint size = 16;

  while (size < 2 * expected + 2)
    size *= 2;
  t->mask = size - 1;
  t->n = 0;
  t->keys = g_new0 (gconstpointer, size);
  t->values = g_new (guint, size);
  t->hashes = with_hashes ? g_new (guint, size) : NULL;
}

static void
table_clear (Table *t)
{
  g_free (t->keys);
  g_free (t->values);
  g_free (t->hashes);
}

static guint
pointer_hash (gconstpointer p)
{
  guint64 x = (guint64) (guintptr) p;

  return (guint) ((x >> 3) ^ (x >> 19)) * 2654435761u;
}

static void table_put (Table *t, gconstpointer key, guint hash, guint value);

static void
table_grow (Table *t)
{
  Table old = *t;

  table_init (t, old.mask + 1, old.hashes != NULL);
  for (guint i = 0; i <= old.mask; i++)
    if (old.keys[i])
      table_put (t, old.keys[i], old.hashes ? old.hashes[i] : pointer_hash (old.keys[i]),
                 old.values[i]);
  table_clear (&old);
}

/* A new key (not in the table). */
static void
table_put (Table *t, gconstpointer key, guint hash, guint value)
{
  guint i;

  if (2 * (t->n + 1) > t->mask)
    table_grow (t);
  for (i = hash & t->mask; t->keys[i]; i = (i + 1) & t->mask)
    ;
  t->keys[i] = key;
  t->values[i] = value;
  if (t->hashes)
    t->hashes[i] = hash;
  t->n++;
}

static guint
pointer_get (const Table *t, gconstpointer key)
{
  for (guint i = pointer_hash (key) & t->mask; t->keys[i]; i = (i + 1) & t->mask)
    if (t->keys[i] == key)
      return t->values[i];
  return 0;
}

static guint
expr_get (const Table *t, const MirExpr *e, guint hash)
{
  for (guint i = hash & t->mask; t->keys[i]; i = (i + 1) & t->mask)
    if (t->hashes[i] == hash && mir_expr_equal (t->keys[i], e))
      return t->values[i];
  return 0;
}

typedef struct {
  guint    hash;
  gboolean pure;
} Shape;

typedef struct {
  const MirExpr *e;
  Shape          shape;
} Occurrence;

static Shape shape_of (MirExpr *e, GArray *occurrences);

typedef struct {
  GArray *occurrences;
  Shape  *parent;
} ChildWalk;

static void
child_shape (MirExpr *e, gpointer data)
{
  ChildWalk *w = data;
  Shape child = shape_of (e, w->occurrences);

  w->parent->hash = mix (w->parent->hash, child.hash);
  w->parent->pure &= child.pure;
}

/* The hash of `e` and whether it is pure (check_pure), its occurrence and
 * those of its subexpressions appended in preorder. */
static Shape
shape_of (MirExpr *e, GArray *occurrences)
{
  Shape shape = { mix (2166136261u, e->kind), TRUE };
  guint at = occurrences->len;
  Occurrence here = { e, { 0, FALSE } };
  ChildWalk w = { occurrences, &shape };

  g_array_append_val (occurrences, here);
  shape.hash = mix (shape.hash, pointer_hash (e->type));
  shape.hash = mix (shape.hash, e->ad_level);
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      shape.hash = mix (shape.hash, pointer_hash (e->u.var.name));
      shape.pure = mir_expr_is_variable (e);
      break;
    case MIR_EXPR_LIT:
      shape.hash = mix (shape.hash, e->u.lit.kind);
      shape.hash = mix (shape.hash, pointer_hash (e->u.lit.text));
      break;
    case MIR_EXPR_CALL:
      shape.hash = mix (shape.hash, e->u.call.fun.kind);
      shape.hash = mix (shape.hash, e->u.call.fun.kind == MIR_FUN_COMPILER
                                      ? e->u.call.fun.internal
                                      : pointer_hash (e->u.call.fun.name));
      shape.pure = fun_is_pure (&e->u.call.fun);
      break;
    case MIR_EXPR_TUPLE_PROJ:
      shape.hash = mix (shape.hash, (guint) e->u.proj.slot);
      break;
    default:
      break;
    }
  mir_expr_foreach_child (e, child_shape, &w);
  g_array_index (occurrences, Occurrence, at).shape = shape;
  return shape;
}

typedef struct {
  MirExprIndex     *index;
  GArray           *occurrences;
  MirBitset        *uses;    /* when collecting a node's uses */
} Collect;

static void
intern_occurrences (Collect *c, gboolean labels)
{
  MirExprIndex *index = c->index;

  for (guint i = 0; i < c->occurrences->len; i++)
    {
      const Occurrence *o = &g_array_index (c->occurrences, Occurrence, i);
      guint number;

      if (!o->shape.pure || o->e->kind == MIR_EXPR_VAR || o->e->kind == MIR_EXPR_LIT)
        continue;
      number = expr_get (&index->by_expr, o->e, o->shape.hash);
      if (!number)
        {
          number = index->exprs->len + 1;
          g_ptr_array_add (index->exprs, (gpointer) o->e);
          index->labels->pdata[index->labels->len - 1] = labels ? mir_print_expr (o->e) : NULL;
          g_ptr_array_add (index->labels, NULL);
          table_put (&index->by_expr, o->e, o->shape.hash, number);
        }
      table_put (&index->by_occurrence, o->e, pointer_hash (o->e), number);
    }
  g_array_set_size (c->occurrences, 0);
}

static void
collect_all (MirExpr *e, gpointer data)
{
  Collect *c = data;

  shape_of (e, c->occurrences);
}

/* The candidates evaluated whenever `e` is. */
static void
collect_uses (MirExpr *e, gpointer data)
{
  Collect *c = data;
  guint number = pointer_get (&c->index->by_occurrence, e);

  if (number)
    mir_bitset_add (c->uses, number - 1);
  switch (e->kind)
    {
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      collect_uses (e->u.logical.lhs, data);
      break;
    case MIR_EXPR_TERNARY:
      collect_uses (e->u.ternary.cond, data);
      break;
    default:
      mir_expr_foreach_child (e, collect_uses, data);
      break;
    }
}

static MirExprIndex *
index_new (const MirFlowGraph *graph, const MirEffects *effects, gboolean labels)
{
  MirExprIndex *index = g_new0 (MirExprIndex, 1);
  Collect c = { index, g_array_new (FALSE, FALSE, sizeof (Occurrence)), NULL };
  guint n_vars = mir_var_index_size (effects->vars), n_exprs, n = graph->n_nodes;
  g_autoptr (MirBitset) changed = mir_bitset_new (n_vars);
  MirBitset **readers;

  index->exprs = g_ptr_array_new ();
  index->labels = g_ptr_array_new_with_free_func (g_free);
  index->arena = tilde_arena_new (0);
  g_ptr_array_add (index->labels, NULL);
  table_init (&index->by_expr, 4 * n, TRUE);
  table_init (&index->by_occurrence, 4 * n, FALSE);
  for (guint v = 0; v < n; v++)
    if (graph->nodes[v].stmt)
      {
        mir_stmt_foreach_expr ((MirStmt *) graph->nodes[v].stmt, collect_all, &c);
        intern_occurrences (&c, labels);
      }
  g_array_unref (c.occurrences);
  n_exprs = index->exprs->len;

  /* per expression the variables it reads, and per variable the
   * expressions reading it */
  index->reads = tilde_arena_alloc (index->arena, (n_exprs + 1) * sizeof (MirBitset *));
  readers = tilde_arena_alloc (index->arena, (n_vars + 1) * sizeof (MirBitset *));
  for (guint x = 0; x < n_vars; x++)
    readers[x] = mir_bitset_new_in (index->arena, n_exprs);
  for (guint i = 0; i < n_exprs; i++)
    {
      index->reads[i] = mir_bitset_new_in (index->arena, n_vars);
      mir_expr_add_reads (g_ptr_array_index (index->exprs, i), effects->vars, index->reads[i]);
      for (int x = mir_bitset_next (index->reads[i], 0); x >= 0;
           x = mir_bitset_next (index->reads[i], (guint) x + 1))
        mir_bitset_add (readers[x], i);
    }

  index->n_nodes = n;
  index->uses = tilde_arena_alloc (index->arena, (2 * (gsize) n + 1) * sizeof (MirBitset *));
  index->kills = index->uses + n;
  for (guint v = 0; v < n; v++)
    {
      index->uses[v] = mir_bitset_new_in (index->arena, n_exprs);
      index->kills[v] = mir_bitset_new_in (index->arena, n_exprs);
      if (graph->nodes[v].stmt)
        {
          c.uses = index->uses[v];
          mir_stmt_foreach_expr ((MirStmt *) graph->nodes[v].stmt, collect_uses, &c);
        }
      mir_bitset_assign (changed, effects->writes[v]);
      mir_bitset_union (changed, effects->kills[v]);
      mir_bitset_union (changed, effects->declares[v]);
      mir_bitset_union (changed, effects->scope_ends[v]);
      for (int x = mir_bitset_next (changed, 0); x >= 0;
           x = mir_bitset_next (changed, (guint) x + 1))
        mir_bitset_union (index->kills[v], readers[x]);
    }
  return index;
}

MirExprIndex *
mir_expr_index_new (const MirFlowGraph *graph, const MirEffects *effects)
{
  return index_new (graph, effects, TRUE);
}

MirExprIndex *
mir_expr_index_new_unlabelled (const MirFlowGraph *graph, const MirEffects *effects)
{
  return index_new (graph, effects, FALSE);
}

void
mir_expr_index_free (MirExprIndex *index)
{
  if (!index)
    return;
  tilde_arena_free (index->arena);
  g_ptr_array_unref (index->exprs);
  g_ptr_array_unref (index->labels);
  table_clear (&index->by_expr);
  table_clear (&index->by_occurrence);
  g_free (index);
}

guint
mir_expr_index_size (const MirExprIndex *index)
{
  return index->exprs->len;
}

guint
mir_expr_index_lookup (const MirExprIndex *index, const MirExpr *e)
{
  g_autoptr (GArray) occurrences = g_array_new (FALSE, FALSE, sizeof (Occurrence));
  Shape shape = shape_of ((MirExpr *) e, occurrences);
  guint number = expr_get (&index->by_expr, e, shape.hash);

  return number ? number - 1 : MIR_FLOW_NONE;
}
