/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/const-prop.h"

#include <string.h>

/* Only the variables that some node gives a scalar value (x = e,
 * declarations with a value) that may be a constant can ever hold one:
 * every other one is ⊤ wherever control reaches and ⊥ where it does not.
 * A fact therefore keeps whether its point is reached and the candidates
 * that are not ⊤ there, with their values, in the order of their
 * variables: few hold a constant at any one point, so a fact, its join and
 * its comparison cost what it holds, not the number of variables. */
typedef struct {
  const MirEffects *fx;
  guint             n_vars;
  guint             n_cands;
  guint            *cand_of_var;   /* per variable: its candidate, or MIR_FLOW_NONE */
  guint            *var_of_cand;
  TildeArena       *arena;         /* every fact */
  const struct Junction *junction; /* while solving code that runs after other code */
} ConstSpace;

typedef struct {
  guint         cand;
  MirConstValue v;
} ConstEntry;

typedef struct {
  guint       n;          /* entries, by candidate; any other is ⊤ */
  guint       capacity;
  gboolean    reached;
  ConstEntry *e;
} ConstMap;

static ConstMap *
map_new (const ConstSpace *space, gboolean reached)
{
  ConstMap *m = tilde_arena_new0 (space->arena, ConstMap);

  /* with no variables at all, no point can be told unreached */
  m->reached = reached || space->n_vars == 0;
  return m;
}

static void
map_reserve (const ConstSpace *space, ConstMap *m, guint n)
{
  ConstEntry *e;

  if (n <= m->capacity)
    return;
  m->capacity = MAX (MAX (n, 4), 2 * m->capacity);
  e = tilde_arena_alloc (space->arena, m->capacity * sizeof (ConstEntry));
  if (m->n)
    memcpy (e, m->e, m->n * sizeof (ConstEntry));
  m->e = e;
}

static gpointer
map_bottom (gpointer ud)
{
  return map_new (ud, FALSE);
}

static gpointer
map_top (gpointer ud)
{
  return map_new (ud, TRUE);
}

static void
map_assign (gpointer dst, gconstpointer src, gpointer ud)
{
  ConstMap *d = dst;
  const ConstMap *m = src;

  map_reserve (ud, d, m->n);
  if (m->n)
    memcpy (d->e, m->e, m->n * sizeof (ConstEntry));
  d->n = m->n;
  d->reached = m->reached;
}

static gpointer
map_copy (gconstpointer fact, gpointer ud)
{
  ConstMap *m = map_new (ud, FALSE);

  map_assign (m, fact, ud);
  return m;
}

static void
map_free (gpointer fact, gpointer ud)
{
}

/* The value of candidate c in a reached fact. */
static MirConstValue
entry_value (const ConstMap *m, guint c)
{
  guint lo = 0, hi = m->n;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (m->e[mid].cand < c)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < m->n && m->e[lo].cand == c ? m->e[lo].v : mir_const_nac ();
}

static void
map_join (gpointer acc, gconstpointer fact, gpointer ud)
{
  ConstMap *a = acc;
  const ConstMap *b = fact;
  guint i = 0, j = 0, k = 0;

  if (!b->reached)
    return;
  if (!a->reached)
    {
      map_assign (a, b, ud);
      return;
    }
  /* a candidate missing on either side is ⊤, and so is its join */
  while (i < a->n && j < b->n)
    {
      if (a->e[i].cand < b->e[j].cand)
        i++;
      else if (a->e[i].cand > b->e[j].cand)
        j++;
      else
        {
          MirConstValue v = mir_const_join (a->e[i].v, b->e[j].v);
          if (v.kind != MIR_CONST_NAC)
            a->e[k++] = (ConstEntry) { a->e[i].cand, v };
          i++;
          j++;
        }
    }
  a->n = k;
}

static gboolean
map_equal (gconstpointer x, gconstpointer y, gpointer ud)
{
  const ConstMap *a = x, *b = y;

  if (a->reached != b->reached || a->n != b->n)
    return FALSE;
  for (guint i = 0; i < a->n; i++)
    if (a->e[i].cand != b->e[i].cand || !mir_const_equal (a->e[i].v, b->e[i].v))
      return FALSE;
  return TRUE;
}

static void
map_print (GString *out, gconstpointer fact, gpointer ud)
{
  const ConstSpace *space = ud;
  const ConstMap *m = fact;
  gboolean first = TRUE;

  if (!m->reached)
    {
      g_string_append (out, "⊥");
      return;
    }
  g_string_append_c (out, '{');
  for (guint i = 0; i < m->n; i++)
    {
      if (m->e[i].v.kind != MIR_CONST_INT && m->e[i].v.kind != MIR_CONST_REAL)
        continue;
      g_string_append_printf (out, "%s%s = ", first ? "" : ", ",
                              mir_var_index_name (space->fx->vars,
                                                  space->var_of_cand[m->e[i].cand]));
      mir_const_append (out, m->e[i].v);
      first = FALSE;
    }
  g_string_append_c (out, '}');
}

static const MirLattice const_lattice = {
  .bottom = map_bottom,
  .copy = map_copy,
  .free = map_free,
  .join = map_join,
  .equal = map_equal,
  .print = map_print,
  .assign = map_assign,
};

typedef struct {
  const ConstSpace *space;
  const ConstMap   *map;
} Lookup;

/* A variable's value in a fact (x from the variable index, or
 * MIR_FLOW_NONE for a name it does not know). */
static MirConstValue
value_of (const ConstSpace *space, const ConstMap *m, guint x)
{
  guint c;

  if (x == MIR_FLOW_NONE)
    return mir_const_nac ();
  if (!m->reached)
    return mir_const_undef ();
  c = space->cand_of_var[x];
  return c == MIR_FLOW_NONE ? mir_const_nac () : entry_value (m, c);
}

static MirConstValue
lookup_var (const char *name, gpointer data)
{
  const Lookup *l = data;

  return value_of (l->space, l->map, mir_var_index_lookup (l->space->fx->vars, name));
}

static MirConstValue
eval_in (const ConstSpace *space, const ConstMap *map, const MirExpr *e)
{
  Lookup l = { space, map };

  return mir_const_eval (e, lookup_var, &l);
}

static gboolean
is_scalar_number (const TildeType *type)
{
  return type && (tilde_type_is_int (type) || tilde_type_is_real (type));
}

/* The variable a node gives a scalar value of its right-hand side, and
 * that right-hand side, or NULL. */
static const char *
scalar_definition (const MirStmt *s, const MirExpr **rhs)
{
  const MirLvalue *lhs;

  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      lhs = s->u.assign.lhs;
      if (!lhs->proj_of && (!lhs->indices || lhs->indices->len == 0)
          && is_scalar_number (lhs->type))
        {
          *rhs = s->u.assign.rhs;
          return lhs->var;
        }
      return NULL;
    case MIR_STMT_DECL:
      if (s->u.decl.init_kind == MIR_DECL_ASSIGN && is_scalar_number (s->u.decl.type))
        {
          *rhs = s->u.decl.init;
          return s->u.decl.name;
        }
      return NULL;
    default:
      return NULL;
    }
}

/* Whether the node makes variable x ⊤ (before giving it a value). */
static gboolean
makes_unknown (const MirEffects *fx, guint node, guint x)
{
  return mir_bitset_contains (fx->writes[node], x) || mir_bitset_contains (fx->kills[node], x)
         || mir_bitset_contains (fx->scope_ends[node], x);
}

static void
set_value (const ConstSpace *space, ConstMap *m, guint c, MirConstValue v)
{
  guint i = 0;

  while (i < m->n && m->e[i].cand < c)
    i++;
  if (i < m->n && m->e[i].cand == c)
    {
      if (v.kind == MIR_CONST_NAC)
        {
          memmove (m->e + i, m->e + i + 1, (m->n - i - 1) * sizeof (ConstEntry));
          m->n--;
        }
      else
        m->e[i].v = v;
      return;
    }
  if (v.kind == MIR_CONST_NAC)
    return;
  map_reserve (space, m, m->n + 1);
  memmove (m->e + i + 1, m->e + i, (m->n - i) * sizeof (ConstEntry));
  m->e[i] = (ConstEntry) { c, v };
  m->n++;
}

static void
const_transfer (const MirFlowGraph *graph, guint node, gpointer fact, gpointer ud)
{
  const ConstSpace *space = ud;
  const MirEffects *fx = space->fx;
  const MirStmt *s = graph->nodes[node].stmt;
  ConstMap *m = fact;
  const MirExpr *rhs = NULL;
  const char *defined;
  guint x = MIR_FLOW_NONE, c = MIR_FLOW_NONE, k = 0;
  MirConstValue value = { MIR_CONST_NAC, 0, 0 };

  /* an unreached point stays unreached */
  if (!m->reached || space->n_cands == 0)
    return;
  /* the value of a scalar definition, from the input; then everything
   * written becomes ⊤ and the defined variable takes the value */
  defined = scalar_definition (s, &rhs);
  if (defined)
    x = mir_var_index_lookup (fx->vars, defined);
  if (x != MIR_FLOW_NONE)
    c = space->cand_of_var[x];
  if (c != MIR_FLOW_NONE)
    value = eval_in (space, m, rhs);
  for (guint i = 0; i < m->n; i++)
    if (!makes_unknown (fx, node, space->var_of_cand[m->e[i].cand]))
      m->e[k++] = m->e[i];
  m->n = k;
  if (c != MIR_FLOW_NONE)
    set_value (space, m, c, value);
}

/* ---- the variables that may hold a constant ----
 *
 * Names are interned (mir.h), and the sets of them compare addresses. */

typedef struct {
  GPtrArray  *vars;   /* per definition: its variable */
  GPtrArray  *rhs;    /* and its right-hand side */
  GHashTable *fixed;  /* variables that may hold a constant whatever their
                       * definitions: those that hold one on entry (or NULL) */
  GHashTable *may;    /* the variables that may hold a constant */
} Definitions;

static gboolean
any_variable (const char *name, gpointer data)
{
  return TRUE;
}

/* Notes a definition, unless its value is never a constant even when
 * every variable may be one (a call, an indexing, ...): such a definition
 * gives its variable no constant whatever the others hold. */
static void
note_definition (MirStmt *s, gpointer data)
{
  Definitions *d = data;
  const MirExpr *rhs;
  const char *x = scalar_definition (s, &rhs);

  if (x && !mir_const_never (rhs, any_variable, NULL))
    {
      g_ptr_array_add (d->vars, (gpointer) x);
      g_ptr_array_add (d->rhs, (gpointer) rhs);
    }
}

static gboolean
in_may (const char *name, gpointer data)
{
  return g_hash_table_contains (data, name);
}

/* The greatest set of defined variables each of which has a definition
 * whose value may be a constant when only the variables of the set may
 * hold one. Every other variable is ⊤ wherever control reaches. */
static void
definitions_solve (Definitions *d)
{
  gboolean changed = d->vars->len > 0;

  d->may = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < d->vars->len; i++)
    g_hash_table_add (d->may, d->vars->pdata[i]);
  if (d->fixed)
    {
      GHashTableIter iter;
      gpointer name;

      g_hash_table_iter_init (&iter, d->fixed);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        g_hash_table_add (d->may, name);
    }
  while (changed)
    {
      g_autoptr (GHashTable) possible = g_hash_table_new (NULL, NULL);
      GHashTableIter iter;
      gpointer name;

      changed = FALSE;
      for (guint i = 0; i < d->vars->len; i++)
        if (!mir_const_never (d->rhs->pdata[i], in_may, d->may))
          g_hash_table_add (possible, d->vars->pdata[i]);
      g_hash_table_iter_init (&iter, d->may);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        if (!g_hash_table_contains (possible, name)
            && !(d->fixed && g_hash_table_contains (d->fixed, name)))
          {
            g_hash_table_iter_remove (&iter);
            changed = TRUE;
          }
    }
}

static void
definitions_init (Definitions *d)
{
  d->vars = g_ptr_array_new ();
  d->rhs = g_ptr_array_new ();
  d->fixed = NULL;
  d->may = NULL;
}

static void
definitions_clear (Definitions *d)
{
  g_ptr_array_unref (d->vars);
  g_ptr_array_unref (d->rhs);
  if (d->may)
    g_hash_table_unref (d->may);
}

gboolean
mir_const_may_define (const GPtrArray *stmts)
{
  Definitions d;
  gboolean any;

  definitions_init (&d);
  for (guint i = 0; stmts && i < stmts->len; i++)
    mir_stmt_walk (g_ptr_array_index (stmts, i), note_definition, &d);
  any = d.vars->len > 0;
  if (any)
    {
      definitions_solve (&d);
      any = g_hash_table_size (d.may) > 0;
    }
  definitions_clear (&d);
  return any;
}

static ConstSpace *
const_space_new (const MirFlowGraph *graph, const MirEffects *fx, GHashTable *fixed)
{
  ConstSpace *space = g_new0 (ConstSpace, 1);
  guint n_vars = mir_var_index_size (fx->vars);
  Definitions d;

  space->fx = fx;
  space->n_vars = n_vars;
  space->cand_of_var = g_new (guint, n_vars + 1);
  space->var_of_cand = g_new (guint, n_vars + 1);
  space->arena = tilde_arena_new (0);
  definitions_init (&d);
  d.fixed = fixed;
  for (guint v = 0; v < graph->n_nodes; v++)
    if (graph->nodes[v].stmt)
      note_definition ((MirStmt *) graph->nodes[v].stmt, &d);
  definitions_solve (&d);
  for (guint x = 0; x < n_vars; x++)
    {
      space->cand_of_var[x] = MIR_FLOW_NONE;
      if (g_hash_table_contains (d.may, mir_var_index_name (fx->vars, x)))
        {
          space->cand_of_var[x] = space->n_cands;
          space->var_of_cand[space->n_cands++] = x;
        }
    }
  definitions_clear (&d);
  return space;
}

static void
const_space_free (ConstSpace *space)
{
  g_free (space->cand_of_var);
  g_free (space->var_of_cand);
  tilde_arena_free (space->arena);
  g_free (space);
}

MirConstFacts *
mir_constant_propagation (MirFlowGraph *graph, gboolean record)
{
  MirConstFacts *facts = g_new0 (MirConstFacts, 1);
  MirDataflowProblem problem = { 0 };

  facts->effects = mir_effects_new (graph, NULL);
  problem.lattice = &const_lattice;
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.transfer = const_transfer;
  problem.boundary = map_top;
  problem.user_data = const_space_new (graph, facts->effects, NULL);
  problem.record = record;
  facts->solution = mir_dataflow_solve (graph, &problem);
  return facts;
}

/* ---- code that runs after other code ---- */

/* What flows out of the end of some code into the code after it: whether
 * control gets there, and the variables that hold a constant there. */
struct Junction {
  gboolean    reached;
  GPtrArray  *names;     /* interned */
  GArray     *values;    /* MirConstValue */
  GHashTable *fixed;     /* the names, as a set */
};

static gboolean
stops_program (const MirStmt *s)
{
  const MirFun *f = &s->u.call.fun;

  return s->kind == MIR_STMT_NR_CALL && f->kind == MIR_FUN_COMPILER
         && (f->internal == MIR_FN_REJECT || f->internal == MIR_FN_FATAL_ERROR);
}

/* Per node: whether control can reach it from the entry. */
static gboolean *
reachable_nodes (const MirFlowGraph *graph)
{
  gboolean *seen = g_new0 (gboolean, graph->n_nodes);
  g_autofree guint *stack = g_new (guint, graph->n_nodes + 1);
  guint depth = 0;

  stack[depth++] = graph->entry;
  seen[graph->entry] = TRUE;
  while (depth > 0)
    {
      const MirFlowNode *node = &graph->nodes[stack[--depth]];
      for (guint i = 0; i < node->n_succs; i++)
        if (!seen[node->succs[i]])
          {
            seen[node->succs[i]] = TRUE;
            stack[depth++] = node->succs[i];
          }
    }
  return seen;
}

/* The edges into the exit of `before` are where its code ends and, from
 * a return, a reject or a fatal error, where the program stops: only the
 * others lead on. */
static void
junction_init (struct Junction *j, const MirFlowGraph *before, const MirConstFacts *facts)
{
  const MirFlowNode *exit = &before->nodes[before->exit];
  g_autofree gboolean *reachable = reachable_nodes (before);
  const ConstSpace *space = facts ? facts->solution->user_data : NULL;
  ConstMap *acc = space ? map_new (space, FALSE) : NULL;

  j->reached = FALSE;
  j->names = g_ptr_array_new ();
  j->values = g_array_new (FALSE, FALSE, sizeof (MirConstValue));
  j->fixed = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < exit->n_preds; i++)
    {
      guint p = exit->preds[i];
      const MirStmt *s = before->nodes[p].stmt;

      if (s && (s->kind == MIR_STMT_RETURN || stops_program (s)))
        continue;
      j->reached |= reachable[p];
      if (acc)
        map_join (acc, facts->solution->after[p], (gpointer) space);
    }
  if (!j->reached || !acc || !acc->reached)
    return;
  for (guint i = 0; i < acc->n; i++)
    {
      const char *name = mir_var_index_name (space->fx->vars,
                                             space->var_of_cand[acc->e[i].cand]);
      g_ptr_array_add (j->names, (gpointer) name);
      g_array_append_val (j->values, acc->e[i].v);
      g_hash_table_add (j->fixed, (gpointer) name);
    }
}

static void
junction_clear (struct Junction *j)
{
  g_ptr_array_unref (j->names);
  g_array_unref (j->values);
  g_hash_table_unref (j->fixed);
}

static gpointer
junction_boundary (gpointer ud)
{
  ConstSpace *space = ud;
  const struct Junction *j = space->junction;
  ConstMap *m = map_new (space, j->reached);

  for (guint i = 0; j->reached && i < j->names->len; i++)
    {
      guint x = mir_var_index_lookup (space->fx->vars, j->names->pdata[i]);
      if (x != MIR_FLOW_NONE && space->cand_of_var[x] != MIR_FLOW_NONE)
        set_value (space, m, space->cand_of_var[x], g_array_index (j->values, MirConstValue, i));
    }
  return m;
}

MirConstFacts *
mir_constant_propagation_after (MirFlowGraph *graph, MirFlowGraph *before,
                                const MirConstFacts *before_facts)
{
  MirConstFacts *facts = g_new0 (MirConstFacts, 1);
  MirDataflowProblem problem = { 0 };
  struct Junction j;
  ConstSpace *space;

  junction_init (&j, before, before_facts);
  facts->effects = mir_effects_new (graph, NULL);
  space = const_space_new (graph, facts->effects, j.fixed);
  space->junction = &j;
  problem.lattice = &const_lattice;
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.transfer = const_transfer;
  problem.boundary = junction_boundary;
  problem.user_data = space;
  facts->solution = mir_dataflow_solve (graph, &problem);
  space->junction = NULL;
  junction_clear (&j);
  return facts;
}

void
mir_const_facts_free (MirConstFacts *facts)
{
  if (!facts)
    return;
  if (facts->solution)
    {
      ConstSpace *space = facts->solution->user_data;
      mir_dataflow_solution_free (facts->solution);
      const_space_free (space);
    }
  mir_effects_free (facts->effects);
  g_free (facts);
}

static MirConstValue
value_in (const MirConstFacts *facts, const ConstMap *m, const char *var)
{
  const ConstSpace *space = facts->solution->user_data;

  return value_of (space, m, mir_var_index_lookup (facts->effects->vars, var));
}

MirConstValue
mir_const_facts_before (const MirConstFacts *facts, guint node, const char *var)
{
  g_return_val_if_fail (node < facts->solution->graph->n_nodes, mir_const_nac ());
  return value_in (facts, facts->solution->before[node], var);
}

MirConstValue
mir_const_facts_after (const MirConstFacts *facts, guint node, const char *var)
{
  g_return_val_if_fail (node < facts->solution->graph->n_nodes, mir_const_nac ());
  return value_in (facts, facts->solution->after[node], var);
}

MirConstValue
mir_const_facts_eval (const MirConstFacts *facts, guint node, const MirExpr *e)
{
  g_return_val_if_fail (node < facts->solution->graph->n_nodes, mir_const_nac ());
  return eval_in (facts->solution->user_data, facts->solution->before[node], e);
}
