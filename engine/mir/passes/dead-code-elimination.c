/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include <string.h>

#include "mir/dataflow/effects.h"
#include "mir/dataflow/program-info.h"
#include "mir/dataflow/set-facts.h"


/* Removing a dead assignment can make others dead; the pass repeats until
 * nothing changes (at most this many times). */
#define MAX_ROUNDS 16

typedef struct {
  PassEffects  fx;
  MirSetFacts *live;         /* of the graph being rewritten: its candidates */
  GHashTable  *candidates;   /* variable -> its member of `live` + 1 */
  gboolean    *reachable;
  MirFlowGraph *graph;
  GHashTable  *unused;       /* temporaries that could go and no statement uses */
  gboolean     changed;
} Dead;

static gboolean
is_empty (const MirStmt *s)
{
  GPtrArray *list;

  if (!s || s->kind == MIR_STMT_SKIP)
    return TRUE;
  list = pass_stmt_list ((MirStmt *) s);
  return list && list->len == 0 && s->kind != MIR_STMT_PROFILE;
}

static gboolean
is_only_break (const MirStmt *s)
{
  GPtrArray *list = pass_stmt_list ((MirStmt *) s);

  if (s->kind == MIR_STMT_BREAK)
    return TRUE;
  return list && list->len == 1 && s->kind != MIR_STMT_PROFILE
         && is_only_break (g_ptr_array_index (list, 0));
}

static gboolean
is_live_after (Dead *d, const MirStmt *s, const char *var)
{
  guint node = mir_flow_graph_node_of (d->graph, s);

  guint member = GPOINTER_TO_UINT (g_hash_table_lookup (d->candidates, var));

  if (node == MIR_FLOW_NONE || !d->reachable[node])
    return TRUE;
  return member && mir_bitset_contains (mir_set_facts_after_node (d->live, node), member - 1);
}

static gboolean
indices_have_effects (Dead *d, const MirLvalue *l)
{
  for (; l; l = l->proj_of)
    for (guint i = 0; l->indices && i < l->indices->len; i++)
      {
        const MirIndex *idx = g_ptr_array_index (l->indices, i);
        if ((idx->e && pass_expr_has_effects (idx->e, &d->fx))
            || (idx->upper && pass_expr_has_effects (idx->upper, &d->fx)))
          return TRUE;
      }
  return FALSE;
}

/* Whether an assignment, or a declaration's value, goes when the
 * variable is dead after it: it has no effect. */
static gboolean
assignment_may_go (Dead *d, const MirStmt *s)
{
  if (s->kind == MIR_STMT_ASSIGN)
    return !pass_expr_has_effects (s->u.assign.rhs, &d->fx)
           && !indices_have_effects (d, s->u.assign.lhs);
  return s->kind == MIR_STMT_DECL && s->u.decl.init_kind == MIR_DECL_ASSIGN && s->u.decl.init
         && !pass_expr_has_effects (s->u.decl.init, &d->fx);
}

/* ---- liveness of the variables that removable assignments assign ----
 *
 * Liveness is a problem of each variable on its own (a node makes a
 * variable live or dead whatever the others do), so it is solved for the
 * candidates alone: the variables that an assignment or declaration
 * without effects gives a value, the only ones asked about. */

static void
find_candidate (MirStmt *s, gpointer data)
{
  Dead *d = data;
  const char *x;

  if (!assignment_may_go (d, s))
    return;
  x = s->kind == MIR_STMT_ASSIGN ? mir_lvalue_variable (s->u.assign.lhs) : s->u.decl.name;
  if (!g_hash_table_contains (d->candidates, x))
    g_hash_table_insert (d->candidates, (gpointer) x,
                         GUINT_TO_POINTER (g_hash_table_size (d->candidates) + 1));
}

/* The candidates of the tree of `roots` or `body` (d->candidates, a new
 * table); whether there are any. */
static gboolean
find_candidates (Dead *d, GPtrArray *roots, MirStmt *body)
{
  d->candidates = g_hash_table_new (NULL, NULL);
  if (body)
    mir_stmt_walk (body, find_candidate, d);
  for (guint i = 0; roots && i < roots->len; i++)
    mir_stmt_walk (g_ptr_array_index (roots, i), find_candidate, d);
  return g_hash_table_size (d->candidates) > 0;
}

typedef struct {
  GHashTable *candidates;
  MirBitset  *set;
} Mark;

static void
mark_candidate (Mark *m, const char *name)
{
  guint member = GPOINTER_TO_UINT (g_hash_table_lookup (m->candidates, name));

  if (member)
    mir_bitset_add (m->set, member - 1);
}

static void
mark_read (MirExpr *e, gpointer data)
{
  mark_candidate (data, e->u.var.name);
}

static gboolean
is_target_read (MirExpr *e)
{
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB
         && e->u.call.fun.name && strcmp (e->u.call.fun.name, MIR_TARGET_VARIABLE) == 0;
}

static void
find_target_use (MirExpr *e, gpointer data)
{
  gboolean *found = data;

  if (*found)
    return;
  if (is_target_read (e) || mir_expr_increments_target (e))
    *found = TRUE;
  else
    mir_expr_foreach_child (e, find_target_use, data);
}

/* Whether a node reads the target (effects.h): adds to it or reads it. */
static gboolean
uses_target (const MirStmt *s)
{
  gboolean found = s->kind == MIR_STMT_TARGET_PLUS || s->kind == MIR_STMT_JACOBIAN_PLUS
                   || (s->kind == MIR_STMT_NR_CALL && mir_fun_increments_target (&s->u.call.fun));

  if (!found)
    mir_stmt_foreach_expr ((MirStmt *) s, find_target_use, &found);
  return found;
}

/* The declarations directly in a block's list (effects.h's scope ends). */
static void
mark_scope_decls (Mark *m, const GPtrArray *stmts)
{
  for (guint i = 0; stmts && i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind == MIR_STMT_DECL)
        mark_candidate (m, s->u.decl.name);
      else if (s->kind == MIR_STMT_SLIST)
        mark_scope_decls (m, s->u.block.stmts);
    }
}

/* mir_liveness restricted to d->candidates: a node makes live what it
 * reads, and dead what it replaces as a whole and what dies at its end. */
static MirSetFacts *
candidate_liveness (Dead *d, MirFlowGraph *graph, const char *const *live_at_exit)
{
  guint n = graph->n_nodes, n_bits = g_hash_table_size (d->candidates);
  gpointer target = g_hash_table_lookup (d->candidates, g_intern_static_string (MIR_TARGET_VARIABLE));
  g_autoptr (TildeArena) arena = tilde_arena_new (2 * (gsize) n * (mir_bitset_size (n_bits) + 16)
                                                  + 2 * (gsize) n * sizeof (MirBitset *) + 1024);
  MirBitset **gen = tilde_arena_alloc (arena, 2 * (gsize) n * sizeof (MirBitset *));
  MirBitset **kill = gen + n;
  g_autoptr (MirBitset) boundary = mir_bitset_new (n_bits);
  const char **labels = g_new0 (const char *, n_bits + 1);
  MirSetProblem problem = { 0 };
  GHashTableIter iter;
  gpointer name, member;
  MirSetFacts *facts;
  Mark m = { d->candidates, NULL };

  g_hash_table_iter_init (&iter, d->candidates);
  while (g_hash_table_iter_next (&iter, &name, &member))
    labels[GPOINTER_TO_UINT (member) - 1] = name;
  for (guint v = 0; v < n; v++)
    {
      const MirStmt *s = graph->nodes[v].stmt;
      const MirLvalue *lhs;

      gen[v] = mir_bitset_new_in (arena, n_bits);
      kill[v] = mir_bitset_new_in (arena, n_bits);
      if (!s)
        continue;
      m.set = gen[v];
      mir_stmt_foreach_variable (s, mark_read, &m);
      if (target && uses_target (s))
        mir_bitset_add (gen[v], GPOINTER_TO_UINT (target) - 1);
      m.set = kill[v];
      switch (s->kind)
        {
        case MIR_STMT_ASSIGN:
          lhs = s->u.assign.lhs;
          if (!lhs->proj_of && (!lhs->indices || lhs->indices->len == 0))
            mark_candidate (&m, lhs->var);
          break;
        case MIR_STMT_DECL:
          mark_candidate (&m, s->u.decl.name);
          break;
        case MIR_STMT_FOR:
          mark_candidate (&m, s->u.for_stmt.var);
          break;
        case MIR_STMT_BLOCK:
          mark_scope_decls (&m, s->u.block.stmts);
          break;
        case MIR_STMT_PROFILE:
          mark_scope_decls (&m, s->u.profile.stmts);
          break;
        default:
          break;
        }
    }
  m.set = boundary;
  for (guint i = 0; live_at_exit && live_at_exit[i]; i++)
    mark_candidate (&m, g_intern_string (live_at_exit[i]));
  problem.direction = MIR_DATAFLOW_BACKWARD;
  problem.n_bits = n_bits;
  problem.labels = labels;
  problem.boundary = boundary;
  problem.gen = gen;
  problem.kill = kill;
  facts = mir_set_facts_solve (graph, &problem);
  g_free (labels);
  return facts;
}

/* A branch that is a block declaring nothing needs no scope: its
 * statements take the place of the conditional. */
static MirStmt *
take_branch (MirStmt *branch, const TildeSpan *span)
{
  if (!branch)
    return mir_stmt_new (MIR_STMT_SKIP, span);
  if (branch->kind == MIR_STMT_BLOCK && !pass_list_declares (branch->u.block.stmts))
    branch->kind = MIR_STMT_SLIST;
  return branch;
}

static void
replace (Dead *d, MirStmt **slot, MirStmt *by)
{
  mir_stmt_free (*slot);
  *slot = by;
  d->changed = TRUE;
}

static void
drop_empty (Dead *d, GPtrArray *list)
{
  for (guint i = list->len; i-- > 0;)
    if (is_empty (g_ptr_array_index (list, i)))
      {
        g_ptr_array_remove_index (list, i);
        d->changed = TRUE;
      }
}

static void
eliminate (MirStmt **slot, gpointer data)
{
  Dead *d = data;
  MirStmt *s = *slot;
  const TildeSpan *span = &s->span;
  double c;
  GPtrArray *list;

  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      if (assignment_may_go (d, s)
          && !is_live_after (d, s, mir_lvalue_variable (s->u.assign.lhs)))
        replace (d, slot, mir_stmt_new (MIR_STMT_SKIP, span));
      break;
    case MIR_STMT_DECL:
      if (assignment_may_go (d, s) && !is_live_after (d, s, s->u.decl.name))
        {
          g_clear_pointer (&s->u.decl.init, mir_expr_free);
          s->u.decl.init_kind = MIR_DECL_DEFAULT;
          d->changed = TRUE;
        }
      break;
    case MIR_STMT_IF:
      if (pass_lit_value (s->u.if_stmt.cond, &c))
        {
          MirStmt **taken = c != 0 ? &s->u.if_stmt.then_stmt : &s->u.if_stmt.else_stmt;
          MirStmt *branch = take_branch (*taken, span);
          *taken = NULL;
          replace (d, slot, branch);
        }
      else if (is_empty (s->u.if_stmt.then_stmt) && is_empty (s->u.if_stmt.else_stmt)
               && !pass_expr_has_effects (s->u.if_stmt.cond, &d->fx))
        replace (d, slot, mir_stmt_new (MIR_STMT_SKIP, span));
      break;
    case MIR_STMT_WHILE:
      if ((pass_lit_value (s->u.while_stmt.cond, &c) && c == 0)
          || (is_only_break (s->u.while_stmt.body)
              && !pass_expr_has_effects (s->u.while_stmt.cond, &d->fx)))
        replace (d, slot, mir_stmt_new (MIR_STMT_SKIP, span));
      break;
    case MIR_STMT_FOR:
      if (is_empty (s->u.for_stmt.body)
          && !pass_expr_has_effects (s->u.for_stmt.lower, &d->fx)
          && !pass_expr_has_effects (s->u.for_stmt.upper, &d->fx))
        replace (d, slot, mir_stmt_new (MIR_STMT_SKIP, span));
      break;
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
    case MIR_STMT_PROFILE:
      list = pass_stmt_list (s);
      drop_empty (d, list);
      if (list->len == 0 && s->kind != MIR_STMT_SLIST)
        replace (d, slot, mir_stmt_new (MIR_STMT_SKIP, span));
      break;
    default:
      break;
    }
}

/* ---- temporaries no statement uses ---- */

/* A use of a variable takes it out of d->unused. */
static void
note_use (GHashTable *unused, const char *name)
{
  g_hash_table_remove (unused, name);
}

static void
count_expr_uses (MirExpr *e, gpointer data)
{
  if (g_hash_table_size (data) == 0)
    return;
  if (e->kind == MIR_EXPR_VAR)
    note_use (data, e->u.var.name);
  mir_expr_foreach_child (e, count_expr_uses, data);
}

static void
count_uses (MirStmt *s, gpointer data)
{
  if (g_hash_table_size (data) == 0)
    return;
  if (s->kind == MIR_STMT_ASSIGN)
    note_use (data, mir_lvalue_variable (s->u.assign.lhs));
  else if (s->kind == MIR_STMT_FOR)
    note_use (data, s->u.for_stmt.var);
  mir_stmt_foreach_expr (s, count_expr_uses, data);
}

/* Sizes that cost nothing and cannot fail to evaluate. */
static gboolean
sizes_are_trivial (const MirSizedType *t)
{
  if (!t)
    return TRUE;
  if ((t->dim1 && !pass_expr_is_trivial (t->dim1)) || (t->dim2 && !pass_expr_is_trivial (t->dim2)))
    return FALSE;
  for (guint i = 0; t->members && i < t->members->len; i++)
    if (!sizes_are_trivial (g_ptr_array_index (t->members, i)))
      return FALSE;
  return sizes_are_trivial (t->elem);
}

static gboolean
is_droppable_temporary (const MirStmt *s)
{
  return s->kind == MIR_STMT_DECL && pass_is_temporary (s->u.decl.name) && !s->u.decl.init
         && sizes_are_trivial (s->u.decl.sized);
}

static void
find_droppable (MirStmt *s, gpointer data)
{
  if (is_droppable_temporary (s))
    g_hash_table_add (data, (gpointer) s->u.decl.name);
}

static void
drop_unused_temporary (MirStmt **slot, gpointer data)
{
  Dead *d = data;
  MirStmt *s = *slot;

  if (is_droppable_temporary (s) && g_hash_table_contains (d->unused, s->u.decl.name))
    replace (d, slot, mir_stmt_new (MIR_STMT_SKIP, &s->span));
}

static void
drop_unused_temporaries (Dead *d, GPtrArray *roots, MirStmt **body)
{
  /* the temporaries that could go, then those no statement uses: only
   * their uses are worth looking for */
  d->unused = g_hash_table_new (NULL, NULL);
  if (body)
    mir_stmt_walk (*body, find_droppable, d->unused);
  for (guint i = 0; roots && i < roots->len; i++)
    mir_stmt_walk (g_ptr_array_index (roots, i), find_droppable, d->unused);
  if (body)
    mir_stmt_walk (*body, count_uses, d->unused);
  for (guint i = 0; roots && i < roots->len; i++)
    mir_stmt_walk (g_ptr_array_index (roots, i), count_uses, d->unused);
  if (g_hash_table_size (d->unused) > 0)
    {
      if (body)
        pass_map_stmt_post (body, drop_unused_temporary, d);
      for (guint i = 0; roots && i < roots->len; i++)
        pass_map_stmt_post ((MirStmt **) &roots->pdata[i], drop_unused_temporary, d);
    }
  g_clear_pointer (&d->unused, g_hash_table_unref);
}

static void
eliminate_graph (Dead *d, MirFlowGraph *graph, MirSetFacts *live, GPtrArray *roots,
                 MirStmt **body)
{
  d->graph = graph;
  d->live = live;
  d->reachable = graph ? pass_reachable (graph) : NULL;
  if (body)
    pass_map_stmt_post (body, eliminate, d);
  for (guint i = 0; roots && i < roots->len; i++)
    pass_map_stmt_post ((MirStmt **) &roots->pdata[i], eliminate, d);
  drop_unused_temporaries (d, roots, body);
  if (roots)
    drop_empty (d, roots);
  g_clear_pointer (&d->reachable, g_free);
  g_clear_pointer (&d->candidates, g_hash_table_unref);
}

static void
eliminate_part (Dead *d, MirProgram *p, MirPart part)
{
  const GPtrArray *lists[] = { p->parts[part] };
  g_autoptr (MirFlowGraph) graph = NULL;
  const char *const target[] = { "target", NULL };
  g_autofree const char **data = NULL, **tdata = NULL, **live_out = NULL;
  g_autoptr (MirSetFacts) live = NULL;

  if (!find_candidates (d, p->parts[part], NULL))
    {
      eliminate_graph (d, NULL, NULL, p->parts[part], NULL);
      return;
    }
  graph = mir_flow_graph_new_for_lists (lists, 1, MIR_FLOW_GRAPH_DEFAULT);

  /* what prepare_data leaves is read by the other parts */
  if (part == MIR_PART_PREPARE_DATA)
    {
      data = mir_program_data_names (p);
      tdata = mir_program_transformed_data_names (p);
    }
  /* the passes' own variables are never read by another part */
  if (tdata)
    {
      guint k = 0;
      for (guint i = 0; tdata[i]; i++)
        if (!pass_is_temporary (tdata[i]))
          tdata[k++] = tdata[i];
      tdata[k] = NULL;
    }
  live_out = mir_names_concat (target, data, tdata);
  live = candidate_liveness (d, graph, live_out);
  eliminate_graph (d, graph, live, p->parts[part], NULL);
}

/* One round over the graphs marked in `dirty` (the function bodies, then
 * the parts), marking those it changed. A graph depends on nothing but its
 * own statements, so one that a round left unchanged is a fixed point and
 * needs no further round. */
static gboolean
eliminate_once (Dead *d, MirProgram *p, gboolean *dirty)
{
  gboolean any = FALSE;
  guint n_functions = p->functions->len;

  for (guint i = 0; i < n_functions; i++)
    {
      MirFunDef *f = g_ptr_array_index (p->functions, i);
      if (!dirty[i])
        continue;
      dirty[i] = FALSE;
      if (!f->body)
        continue;
      d->changed = FALSE;
      g_autoptr (MirFlowGraph) graph = NULL;
      g_autoptr (MirSetFacts) live = NULL;
      GPtrArray *list = pass_stmt_list (f->body);

      if (find_candidates (d, NULL, f->body))
        {
          graph = mir_flow_graph_new (f->body, MIR_FLOW_GRAPH_DEFAULT);
          live = candidate_liveness (d, graph, NULL);
        }
      /* the body itself stays, even empty */
      if (list)
        eliminate_graph (d, graph, live, list, NULL);
      else
        eliminate_graph (d, graph, live, NULL, &f->body);
      dirty[i] = d->changed;
      any |= d->changed;
    }
  for (int part = 0; part < MIR_N_PARTS; part++)
    {
      if (!dirty[n_functions + part])
        continue;
      d->changed = FALSE;
      eliminate_part (d, p, part);
      dirty[n_functions + part] = d->changed;
      any |= d->changed;
    }
  return any;
}

gboolean
mir_pass_dead_code_elimination (MirProgram *program)
{
  Dead d = { { NULL } };
  gboolean changed = FALSE;
  guint n_graphs = program->functions->len + MIR_N_PARTS;
  g_autofree gboolean *dirty = g_new (gboolean, n_graphs);

  for (guint i = 0; i < n_graphs; i++)
    dirty[i] = TRUE;
  pass_effects_init (&d.fx, program);
  for (guint round = 0; round < MAX_ROUNDS && eliminate_once (&d, program, dirty); round++)
    changed = TRUE;
  pass_effects_clear (&d.fx);
  return changed;
}
