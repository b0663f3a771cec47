/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/effects.h"

#include <string.h>

/* ---- variable index ---- */

MirVarIndex *
mir_var_index_new (void)
{
  MirVarIndex *index = g_new0 (MirVarIndex, 1);

  index->names = g_ptr_array_new ();
  g_ptr_array_add (index->names, NULL);
  index->mask = 15;
  index->keys = g_new0 (const char *, index->mask + 1);
  index->numbers = g_new (guint, index->mask + 1);
  return index;
}

void
mir_var_index_free (MirVarIndex *index)
{
  if (!index)
    return;
  g_ptr_array_unref (index->names);
  g_free (index->keys);
  g_free (index->numbers);
  g_free (index);
}

static guint
name_hash (const char *name)
{
  guint64 x = (guint64) (guintptr) name;

  return (guint) ((x >> 3) ^ (x >> 17)) * 2654435761u;
}

/* The slot of `name` in the table: where it is, or the empty one where it
 * would go. */
static guint
slot_of (const MirVarIndex *index, const char *name)
{
  guint i = name_hash (name) & index->mask;

  while (index->keys[i] && index->keys[i] != name)
    i = (i + 1) & index->mask;
  return i;
}

/* Names in the MIR are interned, so most lookups find their key by
 * pointer; a name that is not interned is interned first. */
static guint
number_of (const MirVarIndex *index, const char *name)
{
  guint i;

  if (!name)
    return index->null_number;
  i = slot_of (index, name);
  if (index->keys[i])
    return index->numbers[i];
  name = g_intern_string (name);
  i = slot_of (index, name);
  return index->keys[i] ? index->numbers[i] : 0;
}

static void
grow (MirVarIndex *index)
{
  const char **keys = index->keys;
  guint *numbers = index->numbers, size = index->mask + 1;

  index->mask = 2 * size - 1;
  index->keys = g_new0 (const char *, 2 * size);
  index->numbers = g_new (guint, 2 * size);
  for (guint i = 0; i < size; i++)
    if (keys[i])
      {
        guint j = slot_of (index, keys[i]);
        index->keys[j] = keys[i];
        index->numbers[j] = numbers[i];
      }
  g_free (keys);
  g_free (numbers);
}

guint
mir_var_index_add (MirVarIndex *index, const char *name)
{
  guint number = number_of (index, name), i;
  const char *interned;

  if (number)
    return number - 1;
  interned = g_intern_string (name);
  number = index->names->len - 1;
  index->names->pdata[number] = (gpointer) interned;
  g_ptr_array_add (index->names, NULL);
  if (!interned)
    {
      index->null_number = number + 1;
      return number;
    }
  /* at most half full */
  if (2 * (number + 1) > index->mask)
    grow (index);
  i = slot_of (index, interned);
  index->keys[i] = interned;
  index->numbers[i] = number + 1;
  return number;
}

/* mir_var_index_add for a name known to be interned (every name a MIR
 * node holds is), which needs no interning when it is new. */
static guint
add_interned (MirVarIndex *index, const char *name)
{
  guint i, number;

  if (!name)
    return mir_var_index_add (index, name);
  i = slot_of (index, name);
  if (index->keys[i])
    return index->numbers[i] - 1;
  number = index->names->len - 1;
  index->names->pdata[number] = (gpointer) name;
  g_ptr_array_add (index->names, NULL);
  if (2 * (number + 1) > index->mask)
    {
      grow (index);
      i = slot_of (index, name);
    }
  index->keys[i] = name;
  index->numbers[i] = number + 1;
  return number;
}

guint
mir_var_index_lookup (const MirVarIndex *index, const char *name)
{
  guint number;

  if (!name)
    return MIR_FLOW_NONE;
  number = number_of (index, name);
  return number ? number - 1 : MIR_FLOW_NONE;
}

guint
mir_var_index_size (const MirVarIndex *index)
{
  return index->names->len - 1;
}

const char *
mir_var_index_name (const MirVarIndex *index, guint number)
{
  g_return_val_if_fail (number < mir_var_index_size (index), NULL);
  return g_ptr_array_index (index->names, number);
}

const char *const *
mir_var_index_names (const MirVarIndex *index)
{
  return (const char *const *) index->names->pdata;
}

MirBitset *
mir_var_index_set_of (const MirVarIndex *index, const char *const *names)
{
  MirBitset *set = mir_bitset_new (mir_var_index_size (index));

  for (guint i = 0; names && names[i]; i++)
    {
      guint v = mir_var_index_lookup (index, names[i]);
      if (v != MIR_FLOW_NONE)
        mir_bitset_add (set, v);
    }
  return set;
}

/* ---- expressions ---- */

gboolean
mir_expr_is_variable (const MirExpr *e)
{
  TildeTypeKind kind;

  if (e->kind != MIR_EXPR_VAR)
    return FALSE;
  if (!e->type)
    return TRUE;
  kind = tilde_type_kind (e->type);
  return kind != TILDE_TYPE_FUNCTION && kind != TILDE_TYPE_MATH_FUNCTION;
}

/* Whether a name is "target"; names are mostly interned, which makes this
 * a pointer comparison, and only names starting with 't' are compared as
 * strings. */
static gboolean
is_target_name (const char *name)
{
  static const char *interned;
  const char *target = g_atomic_pointer_get (&interned);

  if (!target)
    {
      target = g_intern_static_string (MIR_TARGET_VARIABLE);
      g_atomic_pointer_set (&interned, target);
    }
  return name == target || (name[0] == 't' && strcmp (name, MIR_TARGET_VARIABLE) == 0);
}

gboolean
mir_fun_increments_target (const MirFun *fun)
{
  if (fun->kind == MIR_FUN_COMPILER)
    return FALSE;
  if (fun->suffix == MIR_SUFFIX_JACOBIAN)
    return TRUE;
  /* target() has the _lp kind too, but only reads */
  return fun->suffix == MIR_SUFFIX_TARGET && !is_target_name (fun->name);
}

static gboolean
reads_target (const MirExpr *e)
{
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB
         && e->u.call.fun.name && is_target_name (e->u.call.fun.name);
}

typedef struct {
  MirExprVisitor visit;
  gpointer       user_data;
} VarWalk;

static void
walk_variables (MirExpr *e, gpointer data)
{
  VarWalk *w = data;

  if (mir_expr_is_variable (e))
    w->visit (e, w->user_data);
  mir_expr_foreach_child (e, walk_variables, data);
}

void
mir_expr_foreach_variable (const MirExpr *e, MirExprVisitor visit, gpointer user_data)
{
  VarWalk w = { visit, user_data };

  walk_variables ((MirExpr *) e, &w);
}

void
mir_stmt_foreach_variable (const MirStmt *s, MirExprVisitor visit, gpointer user_data)
{
  VarWalk w = { visit, user_data };

  mir_stmt_foreach_expr ((MirStmt *) s, walk_variables, &w);
}

typedef struct {
  const MirVarIndex *vars;
  MirBitset         *set;
} AddReads;

static void
add_read (MirExpr *e, gpointer data)
{
  AddReads *a = data;
  guint v = mir_var_index_lookup (a->vars, e->u.var.name);

  if (v != MIR_FLOW_NONE)
    mir_bitset_add (a->set, v);
}

void
mir_expr_add_reads (const MirExpr *e, const MirVarIndex *vars, MirBitset *set)
{
  AddReads a = { vars, set };

  mir_expr_foreach_variable (e, add_read, &a);
}

gboolean
mir_fun_is_size_query (const MirFun *fun)
{
  static const char *const names[] = { "size", "rows", "cols", "num_elements", "dims" };

  if (fun->kind == MIR_FUN_COMPILER)
    return fun->internal == MIR_FN_LENGTH;
  if (fun->kind != MIR_FUN_STANLIB || !fun->name)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (fun->name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
add_value_read (MirExpr *e, gpointer data)
{
  if (e->kind == MIR_EXPR_CALL && mir_fun_is_size_query (&e->u.call.fun))
    return;
  if (mir_expr_is_variable (e))
    add_read (e, data);
  mir_expr_foreach_child (e, add_value_read, data);
}

void
mir_expr_add_value_reads (const MirExpr *e, const MirVarIndex *vars, MirBitset *set)
{
  AddReads a = { vars, set };

  add_value_read ((MirExpr *) e, &a);
}

static void
find_increment (MirExpr *e, gpointer data)
{
  gboolean *found = data;

  if (*found)
    return;
  if (e->kind == MIR_EXPR_CALL && mir_fun_increments_target (&e->u.call.fun))
    *found = TRUE;
  else
    mir_expr_foreach_child (e, find_increment, data);
}

gboolean
mir_expr_increments_target (const MirExpr *e)
{
  gboolean found = FALSE;

  find_increment ((MirExpr *) e, &found);
  return found;
}

/* ---- per-statement effects ---- */

/* One walk over a node's own expressions: the variables read, numbered
 * (and numbered in order of first appearance), and how it uses the
 * target. */
typedef struct {
  MirVarIndex *vars;
  GArray      *read;         /* guint: every variable read, in order */
  gboolean     increments;
  gboolean     reads_target;
} NodeScan;

static void
scan_expr (MirExpr *e, gpointer data)
{
  NodeScan *scan = data;

  if (mir_expr_is_variable (e))
    {
      guint x = add_interned (scan->vars, e->u.var.name);
      g_array_append_val (scan->read, x);
    }
  else if (e->kind == MIR_EXPR_CALL)
    {
      if (mir_fun_increments_target (&e->u.call.fun))
        scan->increments = TRUE;
      if (reads_target (e))
        scan->reads_target = TRUE;
    }
  mir_expr_foreach_child (e, scan_expr, data);
}

static void
scan_stmt (NodeScan *scan, const MirStmt *s)
{
  switch (s->kind)
    {
    case MIR_STMT_DECL:
      add_interned (scan->vars, s->u.decl.name);
      break;
    case MIR_STMT_FOR:
      add_interned (scan->vars, s->u.for_stmt.var);
      break;
    case MIR_STMT_ASSIGN:
      add_interned (scan->vars, mir_lvalue_variable (s->u.assign.lhs));
      break;
    default:
      break;
    }
  scan->increments = FALSE;
  scan->reads_target = FALSE;
  mir_stmt_foreach_expr ((MirStmt *) s, scan_expr, scan);
  if (s->kind == MIR_STMT_TARGET_PLUS || s->kind == MIR_STMT_JACOBIAN_PLUS
      || (s->kind == MIR_STMT_NR_CALL && mir_fun_increments_target (&s->u.call.fun)))
    scan->increments = TRUE;
  if (scan->increments || scan->reads_target)
    mir_var_index_add (scan->vars, MIR_TARGET_VARIABLE);
}

static void
add_var (MirBitset *set, const MirVarIndex *vars, const char *name)
{
  mir_bitset_add (set, mir_var_index_lookup (vars, name));
}

/* The declarations directly in a block's list, looking through statement
 * lists but not into nested scopes. */
static void
add_scope_decls (MirBitset *set, const MirVarIndex *vars, const GPtrArray *stmts)
{
  for (guint i = 0; stmts && i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_DECL)
        add_var (set, vars, s->u.decl.name);
      else if (s->kind == MIR_STMT_SLIST)
        add_scope_decls (set, vars, s->u.block.stmts);
    }
}

/* Whether the declarations directly in a block's list (add_scope_decls)
 * are any. */
static gboolean
has_scope_decls (const GPtrArray *stmts)
{
  for (guint i = 0; stmts && i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_DECL
          || (s->kind == MIR_STMT_SLIST && has_scope_decls (s->u.block.stmts)))
        return TRUE;
    }
  return FALSE;
}

/* Which of a node's sets (reads, writes, kills, declares, scope ends:
 * bits 0 to 4) fill_effects may add to. */
static guint8
kinds_of (const MirStmt *s, gboolean reads, gboolean increments)
{
  guint8 kinds = (reads ? 1 : 0) | (increments ? 2 : 0);
  const MirLvalue *lhs;

  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      lhs = s->u.assign.lhs;
      kinds |= 2;
      if (!lhs->proj_of && (!lhs->indices || lhs->indices->len == 0))
        kinds |= 4;
      break;
    case MIR_STMT_DECL:
      kinds |= 4 | 8 | (s->u.decl.init_kind == MIR_DECL_ASSIGN ? 2 : 0);
      break;
    case MIR_STMT_FOR:
      kinds |= 2 | 4 | 8;
      break;
    case MIR_STMT_BLOCK:
      kinds |= has_scope_decls (s->u.block.stmts) ? 16 : 0;
      break;
    case MIR_STMT_PROFILE:
      kinds |= has_scope_decls (s->u.profile.stmts) ? 16 : 0;
      break;
    default:
      break;
    }
  return kinds;
}

static void
fill_effects (MirEffects *fx, guint v, const MirStmt *s, const guint *read, guint n_read,
              guint target_use, guint target)
{
  const MirVarIndex *vars = fx->vars;
  const MirLvalue *lhs;

  for (guint i = 0; i < n_read; i++)
    mir_bitset_add (fx->reads[v], read[i]);
  if (target_use)
    mir_bitset_add (fx->reads[v], target);
  if (target_use & 1)
    mir_bitset_add (fx->writes[v], target);
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      lhs = s->u.assign.lhs;
      add_var (fx->writes[v], vars, mir_lvalue_variable (lhs));
      if (!lhs->proj_of && (!lhs->indices || lhs->indices->len == 0))
        add_var (fx->kills[v], vars, lhs->var);
      break;
    case MIR_STMT_DECL:
      add_var (fx->declares[v], vars, s->u.decl.name);
      add_var (fx->kills[v], vars, s->u.decl.name);
      if (s->u.decl.init_kind == MIR_DECL_ASSIGN)
        add_var (fx->writes[v], vars, s->u.decl.name);
      break;
    case MIR_STMT_FOR:
      add_var (fx->declares[v], vars, s->u.for_stmt.var);
      add_var (fx->kills[v], vars, s->u.for_stmt.var);
      add_var (fx->writes[v], vars, s->u.for_stmt.var);
      break;
    case MIR_STMT_BLOCK:
      add_scope_decls (fx->scope_ends[v], vars, s->u.block.stmts);
      break;
    case MIR_STMT_PROFILE:
      add_scope_decls (fx->scope_ends[v], vars, s->u.profile.stmts);
      break;
    default:
      break;
    }
}

MirEffects *
mir_effects_new (const MirFlowGraph *graph, const char *const *extra)
{
  MirEffects *fx = g_new0 (MirEffects, 1);
  guint n = graph->n_nodes, n_vars, target, n_sets = 0;
  gsize stride;
  MirBitset **sets, *empty;
  guint8 *at;
  g_autofree guint8 *kinds = g_new (guint8, n + 1);
  /* per node: where its reads start in scan.read, and its use of the
   * target (1: increments, 2: reads only) */
  g_autofree guint *start = g_new (guint, 2 * (gsize) n + 1);
  guint *target_use = start + n + 1;
  NodeScan scan = { NULL, g_array_sized_new (FALSE, FALSE, sizeof (guint), 4 * n), FALSE, FALSE };

  fx->vars = scan.vars = mir_var_index_new ();
  for (guint v = 0; v < n; v++)
    {
      start[v] = scan.read->len;
      target_use[v] = 0;
      if (graph->nodes[v].stmt)
        {
          scan_stmt (&scan, graph->nodes[v].stmt);
          target_use[v] = scan.increments ? 1 : scan.reads_target ? 2 : 0;
        }
    }
  start[n] = scan.read->len;
  for (guint i = 0; extra && extra[i]; i++)
    mir_var_index_add (fx->vars, extra[i]);
  n_vars = mir_var_index_size (fx->vars);
  target = mir_var_index_lookup (fx->vars, MIR_TARGET_VARIABLE);

  fx->n_nodes = n;
  /* the sets that can hold something in one zeroed block; every other one
   * is the same empty set (nothing changes a node's sets once made) */
  stride = (mir_bitset_size (n_vars) + 7) / 8 * 8;
  for (guint v = 0; v < n; v++)
    {
      kinds[v] = graph->nodes[v].stmt
                   ? kinds_of (graph->nodes[v].stmt, start[v + 1] > start[v] || target_use[v],
                               (target_use[v] & 1) != 0)
                   : 0;
      n_sets += (guint) __builtin_popcount (kinds[v]);
    }
  fx->block = g_malloc0 (5 * (gsize) n * sizeof (MirBitset *) + (n_sets + 1) * stride);
  sets = (MirBitset **) fx->block;
  fx->reads = sets;
  fx->writes = sets + n;
  fx->kills = sets + 2 * n;
  fx->declares = sets + 3 * n;
  fx->scope_ends = sets + 4 * n;
  at = (guint8 *) (sets + 5 * n);
  empty = (MirBitset *) at;
  empty->n_bits = n_vars;
  empty->n_words = (n_vars + 63) / 64;
  fx->empty = empty;
  at += stride;
  for (guint k = 0; k < 5; k++)
    for (guint v = 0; v < n; v++)
      {
        MirBitset *set = empty;
        if (kinds[v] & (1u << k))
          {
            set = (MirBitset *) at;
            set->n_bits = n_vars;
            set->n_words = (n_vars + 63) / 64;
            at += stride;
          }
        sets[k * n + v] = set;
      }
  for (guint v = 0; v < n; v++)
    if (graph->nodes[v].stmt)
      fill_effects (fx, v, graph->nodes[v].stmt, &g_array_index (scan.read, guint, start[v]),
                    start[v + 1] - start[v], target_use[v], target);
  g_array_unref (scan.read);
  return fx;
}

const MirBitset *
mir_effects_empty (const MirEffects *fx)
{
  return fx->empty;
}

void
mir_effects_free (MirEffects *fx)
{
  if (!fx)
    return;
  g_free (fx->block);
  mir_var_index_free (fx->vars);
  g_free (fx);
}
