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
  index->numbers = g_hash_table_new (NULL, NULL);
  return index;
}

void
mir_var_index_free (MirVarIndex *index)
{
  if (!index)
    return;
  g_ptr_array_unref (index->names);
  g_hash_table_unref (index->numbers);
  g_free (index);
}

/* The MIR's names are interned: looking a name up by its address first
 * saves hashing its text. */
static guint
lookup_interned (const MirVarIndex *index, const char *name, const char **interned)
{
  guint number = GPOINTER_TO_UINT (g_hash_table_lookup (index->numbers, name));

  *interned = name;
  if (number)
    return number;
  *interned = g_intern_string (name);
  return *interned == name ? 0 : GPOINTER_TO_UINT (g_hash_table_lookup (index->numbers,
                                                                        *interned));
}

guint
mir_var_index_add (MirVarIndex *index, const char *name)
{
  const char *interned;
  guint number = lookup_interned (index, name, &interned);

  if (number)
    return number - 1;
  number = index->names->len - 1;
  index->names->pdata[number] = (gpointer) interned;
  g_ptr_array_add (index->names, NULL);
  g_hash_table_insert (index->numbers, (gpointer) interned, GUINT_TO_POINTER (number + 1));
  return number;
}

guint
mir_var_index_lookup (const MirVarIndex *index, const char *name)
{
  const char *interned;
  guint number;

  if (!name)
    return MIR_FLOW_NONE;
  number = lookup_interned (index, name, &interned);
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

gboolean
mir_fun_increments_target (const MirFun *fun)
{
  if (fun->kind == MIR_FUN_COMPILER)
    return FALSE;
  if (fun->suffix == MIR_SUFFIX_JACOBIAN)
    return TRUE;
  /* target() has the _lp kind too, but only reads */
  return fun->suffix == MIR_SUFFIX_TARGET && strcmp (fun->name, "target") != 0;
}

static gboolean
reads_target (const MirExpr *e)
{
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB
         && e->u.call.fun.name && strcmp (e->u.call.fun.name, "target") == 0;
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

typedef struct {
  gboolean increments;
  gboolean reads;
} TargetUse;

/* What one walk over a node's own expressions found: the variables it reads
 * (numbers, repeats possible) and whether it reads or adds to the target. */
typedef struct {
  guint     first;     /* in the walk's array of numbers */
  guint     n;
  TargetUse target;
} NodeUse;

typedef struct {
  MirVarIndex *vars;
  GArray      *numbers;
  TargetUse   *target;
} UseWalk;

static void
walk_use (MirExpr *e, gpointer data)
{
  UseWalk *w = data;

  if (mir_expr_is_variable (e))
    {
      guint x = mir_var_index_add (w->vars, e->u.var.name);
      g_array_append_val (w->numbers, x);
      return;
    }
  if (e->kind == MIR_EXPR_CALL)
    {
      w->target->increments |= mir_fun_increments_target (&e->u.call.fun);
      w->target->reads |= reads_target (e);
    }
  mir_expr_foreach_child (e, walk_use, data);
}

/* Numbers the variables of a statement in the order they appear: what it
 * declares or assigns, what it reads, then the target. */
static NodeUse
index_stmt (MirVarIndex *vars, const MirStmt *s, GArray *numbers)
{
  NodeUse use = { numbers->len, 0, { FALSE, FALSE } };
  UseWalk w = { vars, numbers, &use.target };

  switch (s->kind)
    {
    case MIR_STMT_DECL:
      mir_var_index_add (vars, s->u.decl.name);
      break;
    case MIR_STMT_FOR:
      mir_var_index_add (vars, s->u.for_stmt.var);
      break;
    case MIR_STMT_ASSIGN:
      mir_var_index_add (vars, mir_lvalue_variable (s->u.assign.lhs));
      break;
    default:
      break;
    }
  mir_stmt_foreach_expr ((MirStmt *) s, walk_use, &w);
  use.n = numbers->len - use.first;
  if (s->kind == MIR_STMT_TARGET_PLUS || s->kind == MIR_STMT_JACOBIAN_PLUS
      || (s->kind == MIR_STMT_NR_CALL && mir_fun_increments_target (&s->u.call.fun)))
    use.target.increments = TRUE;
  if (use.target.increments || use.target.reads)
    mir_var_index_add (vars, MIR_TARGET_VARIABLE);
  return use;
}

/* A node's set while it is computed, with its members noted so that telling
 * it empty and clearing it for the next node cost nothing more. */
typedef struct {
  MirBitset *set;
  GArray    *members;
} Scratch;

static void
scratch_init (Scratch *s, guint n_bits)
{
  s->set = mir_bitset_new (n_bits);
  s->members = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
scratch_clear (Scratch *s)
{
  mir_bitset_free (s->set);
  g_array_unref (s->members);
}

static void
scratch_add (Scratch *s, guint x)
{
  if (mir_bitset_contains (s->set, x))
    return;
  mir_bitset_add (s->set, x);
  g_array_append_val (s->members, x);
}

/* Copies the set into the pool and empties it for the next node. */
static MirBitset *
scratch_keep (MirBitsetPool *pool, Scratch *s)
{
  const MirBitset *copy;

  if (s->members->len == 0)
    return (MirBitset *) mir_bitset_pool_empty (pool);
  copy = mir_bitset_pool_copy (pool, s->set);
  for (guint i = 0; i < s->members->len; i++)
    mir_bitset_remove (s->set, g_array_index (s->members, guint, i));
  g_array_set_size (s->members, 0);
  return (MirBitset *) copy;
}

static void
add_var (Scratch *set, const MirVarIndex *vars, const char *name)
{
  scratch_add (set, mir_var_index_lookup (vars, name));
}

/* The declarations directly in a block's list, looking through statement
 * lists but not into nested scopes. */
static void
add_scope_decls (Scratch *set, const MirVarIndex *vars, const GPtrArray *stmts)
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

/* One node's sets while they are computed. */
typedef struct {
  Scratch reads, writes, kills, declares, scope_ends;
} NodeSets;

static void
fill_effects (const MirVarIndex *vars, NodeSets *n, const MirStmt *s,
              const NodeUse *use, const GArray *numbers)
{
  TargetUse t = use->target;
  const MirLvalue *lhs;

  for (guint i = 0; i < use->n; i++)
    scratch_add (&n->reads, g_array_index (numbers, guint, use->first + i));
  if (t.reads || t.increments)
    add_var (&n->reads, vars, MIR_TARGET_VARIABLE);
  if (t.increments)
    add_var (&n->writes, vars, MIR_TARGET_VARIABLE);
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      lhs = s->u.assign.lhs;
      add_var (&n->writes, vars, mir_lvalue_variable (lhs));
      if (!lhs->proj_of && (!lhs->indices || lhs->indices->len == 0))
        add_var (&n->kills, vars, lhs->var);
      break;
    case MIR_STMT_DECL:
      add_var (&n->declares, vars, s->u.decl.name);
      add_var (&n->kills, vars, s->u.decl.name);
      if (s->u.decl.init_kind == MIR_DECL_ASSIGN)
        add_var (&n->writes, vars, s->u.decl.name);
      break;
    case MIR_STMT_FOR:
      add_var (&n->declares, vars, s->u.for_stmt.var);
      add_var (&n->kills, vars, s->u.for_stmt.var);
      add_var (&n->writes, vars, s->u.for_stmt.var);
      break;
    case MIR_STMT_BLOCK:
      add_scope_decls (&n->scope_ends, vars, s->u.block.stmts);
      break;
    case MIR_STMT_PROFILE:
      add_scope_decls (&n->scope_ends, vars, s->u.profile.stmts);
      break;
    default:
      break;
    }
}

MirEffects *
mir_effects_new (const MirFlowGraph *graph, const char *const *extra)
{
  MirEffects *fx = g_new0 (MirEffects, 1);
  g_autoptr (GArray) numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree NodeUse *uses = g_new0 (NodeUse, graph->n_nodes);
  guint n_vars;
  NodeSets n;

  fx->vars = mir_var_index_new ();
  for (guint v = 0; v < graph->n_nodes; v++)
    if (graph->nodes[v].stmt)
      uses[v] = index_stmt (fx->vars, graph->nodes[v].stmt, numbers);
  for (guint i = 0; extra && extra[i]; i++)
    mir_var_index_add (fx->vars, extra[i]);
  n_vars = mir_var_index_size (fx->vars);

  fx->n_nodes = graph->n_nodes;
  fx->pool = mir_bitset_pool_new (n_vars);
  fx->reads = g_new (MirBitset *, graph->n_nodes);
  fx->writes = g_new (MirBitset *, graph->n_nodes);
  fx->kills = g_new (MirBitset *, graph->n_nodes);
  fx->declares = g_new (MirBitset *, graph->n_nodes);
  fx->scope_ends = g_new (MirBitset *, graph->n_nodes);
  scratch_init (&n.reads, n_vars);
  scratch_init (&n.writes, n_vars);
  scratch_init (&n.kills, n_vars);
  scratch_init (&n.declares, n_vars);
  scratch_init (&n.scope_ends, n_vars);
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      if (graph->nodes[v].stmt)
        fill_effects (fx->vars, &n, graph->nodes[v].stmt, &uses[v], numbers);
      fx->reads[v] = scratch_keep (fx->pool, &n.reads);
      fx->writes[v] = scratch_keep (fx->pool, &n.writes);
      fx->kills[v] = scratch_keep (fx->pool, &n.kills);
      fx->declares[v] = scratch_keep (fx->pool, &n.declares);
      fx->scope_ends[v] = scratch_keep (fx->pool, &n.scope_ends);
    }
  scratch_clear (&n.reads);
  scratch_clear (&n.writes);
  scratch_clear (&n.kills);
  scratch_clear (&n.declares);
  scratch_clear (&n.scope_ends);
  return fx;
}

const MirBitset *
mir_effects_empty (const MirEffects *fx)
{
  return mir_bitset_pool_empty (fx->pool);
}

void
mir_effects_free (MirEffects *fx)
{
  if (!fx)
    return;
  mir_bitset_pool_free (fx->pool);
  g_free (fx->reads);
  g_free (fx->writes);
  g_free (fx->kills);
  g_free (fx->declares);
  g_free (fx->scope_ends);
  mir_var_index_free (fx->vars);
  g_free (fx);
}
