/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/const-prop.h"

#include <string.h>

typedef struct {
  guint         n;
  MirConstValue v[];
} ConstMap;

static ConstMap *
map_new (guint n, MirConstKind kind)
{
  ConstMap *m = g_malloc (sizeof (ConstMap) + n * sizeof (MirConstValue));

  m->n = n;
  for (guint i = 0; i < n; i++)
    m->v[i] = (MirConstValue) { kind, 0, 0 };
  return m;
}

static guint
n_vars (gpointer ud)
{
  const MirEffects *fx = ud;

  return mir_var_index_size (fx->vars);
}

static gpointer
map_bottom (gpointer ud)
{
  return map_new (n_vars (ud), MIR_CONST_UNDEF);
}

static gpointer
map_top (gpointer ud)
{
  return map_new (n_vars (ud), MIR_CONST_NAC);
}

static gpointer
map_copy (gconstpointer fact, gpointer ud)
{
  const ConstMap *m = fact;

  return g_memdup2 (m, sizeof (ConstMap) + m->n * sizeof (MirConstValue));
}

static void
map_free (gpointer fact, gpointer ud)
{
  g_free (fact);
}

static void
map_join (gpointer acc, gconstpointer fact, gpointer ud)
{
  ConstMap *a = acc;
  const ConstMap *b = fact;

  for (guint i = 0; i < a->n; i++)
    a->v[i] = mir_const_join (a->v[i], b->v[i]);
}

static gboolean
map_equal (gconstpointer x, gconstpointer y, gpointer ud)
{
  const ConstMap *a = x, *b = y;

  for (guint i = 0; i < a->n; i++)
    if (!mir_const_equal (a->v[i], b->v[i]))
      return FALSE;
  return TRUE;
}

static gboolean
is_unreached (const ConstMap *m)
{
  for (guint i = 0; i < m->n; i++)
    if (m->v[i].kind != MIR_CONST_UNDEF)
      return FALSE;
  return m->n > 0;
}

static void
map_print (GString *out, gconstpointer fact, gpointer ud)
{
  const MirEffects *fx = ud;
  const ConstMap *m = fact;
  gboolean first = TRUE;

  if (is_unreached (m))
    {
      g_string_append (out, "⊥");
      return;
    }
  g_string_append_c (out, '{');
  for (guint i = 0; i < m->n; i++)
    {
      if (m->v[i].kind != MIR_CONST_INT && m->v[i].kind != MIR_CONST_REAL)
        continue;
      g_string_append_printf (out, "%s%s = ", first ? "" : ", ",
                              mir_var_index_name (fx->vars, i));
      mir_const_append (out, m->v[i]);
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
};

typedef struct {
  const MirEffects *fx;
  const ConstMap   *map;
} Lookup;

static MirConstValue
lookup_var (const char *name, gpointer data)
{
  const Lookup *l = data;
  guint x = mir_var_index_lookup (l->fx->vars, name);

  return x == MIR_FLOW_NONE ? mir_const_nac () : l->map->v[x];
}

static MirConstValue
eval_in (const MirEffects *fx, const ConstMap *map, const MirExpr *e)
{
  Lookup l = { fx, map };

  return mir_const_eval (e, lookup_var, &l);
}

static void
set_var (ConstMap *m, const MirEffects *fx, const char *name, MirConstValue v)
{
  guint x = mir_var_index_lookup (fx->vars, name);

  if (x != MIR_FLOW_NONE)
    m->v[x] = v;
}

static gboolean
is_scalar_number (const TildeType *type)
{
  return type && (tilde_type_is_int (type) || tilde_type_is_real (type));
}

static void
const_transfer (const MirFlowGraph *graph, guint node, gpointer fact, gpointer ud)
{
  const MirEffects *fx = ud;
  const MirStmt *s = graph->nodes[node].stmt;
  ConstMap *m = fact;
  g_autofree ConstMap *in = NULL;
  const MirLvalue *lhs;

  /* an unreached point stays unreached */
  if (is_unreached (m))
    return;
  in = map_copy (m, ud);
  /* everything written becomes ⊤, then whole assignments of scalars get
   * the value of their right-hand side, computed from the input */
  for (guint x = 0; x < m->n; x++)
    if (mir_bitset_contains (fx->writes[node], x) || mir_bitset_contains (fx->kills[node], x)
        || mir_bitset_contains (fx->scope_ends[node], x))
      m->v[x] = mir_const_nac ();
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      lhs = s->u.assign.lhs;
      if (!lhs->proj_of && (!lhs->indices || lhs->indices->len == 0)
          && is_scalar_number (lhs->type))
        set_var (m, fx, lhs->var, eval_in (fx, in, s->u.assign.rhs));
      break;
    case MIR_STMT_DECL:
      if (s->u.decl.init_kind == MIR_DECL_ASSIGN && is_scalar_number (s->u.decl.type))
        set_var (m, fx, s->u.decl.name, eval_in (fx, in, s->u.decl.init));
      break;
    default:
      break;
    }
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
  problem.user_data = facts->effects;
  problem.record = record;
  facts->solution = mir_dataflow_solve (graph, &problem);
  return facts;
}

void
mir_const_facts_free (MirConstFacts *facts)
{
  if (!facts)
    return;
  mir_dataflow_solution_free (facts->solution);
  mir_effects_free (facts->effects);
  g_free (facts);
}

static MirConstValue
value_in (const MirConstFacts *facts, const ConstMap *m, const char *var)
{
  guint x = mir_var_index_lookup (facts->effects->vars, var);

  return x == MIR_FLOW_NONE ? mir_const_nac () : m->v[x];
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
  return eval_in (facts->effects, facts->solution->before[node], e);
}
