/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/solver.h"

#include "mir/dataflow/bitset.h"

typedef struct {
  MirFlowGraph             *graph;
  const MirDataflowProblem *problem;
  const MirLattice         *lattice;
  gpointer                  ud;
  gboolean                  backward;
  guint                     start;
  gpointer                  boundary;
  gpointer                 *in;
  gpointer                 *out;
  guint                    *position;   /* of each node in the visiting order */
  const guint              *order;
  guint                    *visits;
  MirBitset                *pending;    /* positions still to visit */
  MirDataflowTrace         *trace;
  /* with L->assign: a bottom to start empty joins from, and facts to
   * compute into (swapped with the node's own when they change) */
  gpointer                  bottom;
  gpointer                  scratch_in;
  gpointer                  scratch_out;
  guint                     lowest;     /* no pending position is below it */
} Solver;

static char *
fact_text (const Solver *s, gconstpointer fact)
{
  GString *out = g_string_new (NULL);

  s->lattice->print (out, fact, s->ud);
  return g_string_free (out, FALSE);
}

static void
flow_sources (const Solver *s, guint v, const guint **nodes, guint *n)
{
  const MirFlowNode *node = &s->graph->nodes[v];

  *nodes = s->backward ? node->succs : node->preds;
  *n = s->backward ? node->n_succs : node->n_preds;
}

static void
flow_targets (const Solver *s, guint v, const guint **nodes, guint *n)
{
  const MirFlowNode *node = &s->graph->nodes[v];

  *nodes = s->backward ? node->preds : node->succs;
  *n = s->backward ? node->n_preds : node->n_succs;
}

/* The join of everything flowing into v, widened against v's previous
 * input when v is a loop head that has been visited often enough. */
static gpointer
joined_input (Solver *s, guint v, gboolean *widened)
{
  const MirLattice *L = s->lattice;
  gpointer joined = L->bottom (s->ud);
  const guint *from;
  guint n_from, widen_after = s->problem->widen_after;

  if (v == s->start)
    L->join (joined, s->boundary, s->ud);
  flow_sources (s, v, &from, &n_from);
  for (guint i = 0; i < n_from; i++)
    L->join (joined, s->out[from[i]], s->ud);
  *widened = FALSE;
  if (widen_after == 0)
    widen_after = MIR_DATAFLOW_WIDEN_AFTER;
  if (L->widen && s->graph->nodes[v].loop_head && s->visits[v] > widen_after)
    {
      gpointer widened_input = L->copy (s->in[v], s->ud);
      L->widen (widened_input, joined, s->ud);
      *widened = !L->equal (widened_input, joined, s->ud);
      L->free (joined, s->ud);
      joined = widened_input;
    }
  return joined;
}

static void
add_pending (Solver *s, guint position)
{
  mir_bitset_add (s->pending, position);
  s->lowest = MIN (s->lowest, position);
}

/* joined_input, computed into s->scratch_in. */
static void
join_input_in_place (Solver *s, guint v, gboolean *widened)
{
  const MirLattice *L = s->lattice;
  const guint *from;
  guint n_from, widen_after = s->problem->widen_after;
  gpointer joined = s->scratch_in;
  gboolean empty = TRUE;

  /* the join starts from the first fact flowing in (bottom ⊔ x = x) */
  if (v == s->start)
    {
      L->assign (joined, s->boundary, s->ud);
      empty = FALSE;
    }
  flow_sources (s, v, &from, &n_from);
  for (guint i = 0; i < n_from; i++)
    {
      if (empty)
        L->assign (joined, s->out[from[i]], s->ud);
      else
        L->join (joined, s->out[from[i]], s->ud);
      empty = FALSE;
    }
  if (empty)
    L->assign (joined, s->bottom, s->ud);
  *widened = FALSE;
  if (widen_after == 0)
    widen_after = MIR_DATAFLOW_WIDEN_AFTER;
  if (L->widen && s->graph->nodes[v].loop_head && s->visits[v] > widen_after)
    {
      /* the previous input, widened, goes in scratch_out for a moment */
      gpointer widened_input = s->scratch_out;
      L->assign (widened_input, s->in[v], s->ud);
      L->widen (widened_input, joined, s->ud);
      *widened = !L->equal (widened_input, joined, s->ud);
      s->scratch_in = widened_input;
      s->scratch_out = joined;
    }
}

static void
swap (gpointer *a, gpointer *b)
{
  gpointer t = *a;

  *a = *b;
  *b = t;
}

/* visit, without making new facts. */
static void
visit_in_place (Solver *s, guint v)
{
  const MirLattice *L = s->lattice;
  gboolean widened, in_changed, out_changed;
  const guint *to;
  guint n_to;

  s->visits[v]++;
  join_input_in_place (s, v, &widened);
  in_changed = !L->equal (s->scratch_in, s->in[v], s->ud);
  if (in_changed)
    swap (&s->scratch_in, &s->in[v]);

  L->assign (s->scratch_out, s->in[v], s->ud);
  if (s->graph->nodes[v].kind == MIR_FLOW_NODE_STMT)
    s->problem->transfer (s->graph, v, s->scratch_out, s->ud);
  out_changed = !L->equal (s->scratch_out, s->out[v], s->ud);
  if (out_changed)
    {
      swap (&s->scratch_out, &s->out[v]);
      flow_targets (s, v, &to, &n_to);
      for (guint i = 0; i < n_to; i++)
        add_pending (s, s->position[to[i]]);
    }
  if (s->trace)
    mir_dataflow_trace_add (s->trace, v, fact_text (s, s->in[v]), fact_text (s, s->out[v]),
                            in_changed, out_changed, widened);
}

static void
visit (Solver *s, guint v)
{
  const MirLattice *L = s->lattice;
  gboolean widened, in_changed, out_changed;
  gpointer input, output;
  const guint *to;
  guint n_to;

  s->visits[v]++;
  input = joined_input (s, v, &widened);
  in_changed = !L->equal (input, s->in[v], s->ud);
  L->free (s->in[v], s->ud);
  s->in[v] = input;

  output = L->copy (input, s->ud);
  if (s->graph->nodes[v].kind == MIR_FLOW_NODE_STMT)
    s->problem->transfer (s->graph, v, output, s->ud);
  out_changed = !L->equal (output, s->out[v], s->ud);
  L->free (s->out[v], s->ud);
  s->out[v] = output;

  if (out_changed)
    {
      flow_targets (s, v, &to, &n_to);
      for (guint i = 0; i < n_to; i++)
        add_pending (s, s->position[to[i]]);
    }
  if (s->trace)
    mir_dataflow_trace_add (s->trace, v, fact_text (s, input), fact_text (s, output),
                            in_changed, out_changed, widened);
}

static void
start_trace (Solver *s)
{
  s->trace = mir_dataflow_trace_new (s->backward, s->graph->n_nodes);
  for (guint v = 0; v < s->graph->n_nodes; v++)
    {
      s->trace->initial_in[v] = fact_text (s, s->in[v]);
      s->trace->initial_out[v] = fact_text (s, s->out[v]);
    }
}

MirDataflowSolution *
mir_dataflow_solve (MirFlowGraph *graph, const MirDataflowProblem *problem)
{
  const MirLattice *L = problem->lattice;
  guint n = graph->n_nodes, total = 0;
  gboolean converged = TRUE;
  Solver s = { 0 };
  MirDataflowSolution *sol;
  int next;

  g_return_val_if_fail (L && L->bottom && L->copy && L->free && L->join && L->equal, NULL);
  g_return_val_if_fail (problem->transfer != NULL, NULL);
  g_return_val_if_fail (!problem->record || L->print, NULL);

  s.graph = graph;
  s.problem = problem;
  s.lattice = L;
  s.ud = problem->user_data;
  s.backward = problem->direction == MIR_DATAFLOW_BACKWARD;
  s.start = s.backward ? graph->exit : graph->entry;
  s.boundary = problem->boundary ? problem->boundary (s.ud) : L->bottom (s.ud);
  s.order = s.backward ? graph->backward_order : graph->forward_order;
  s.in = g_new (gpointer, n);
  s.out = g_new (gpointer, n);
  s.position = g_new (guint, n);
  s.visits = g_new0 (guint, n);
  s.pending = mir_bitset_new_full (n);
  for (guint i = 0; i < n; i++)
    {
      s.in[i] = L->bottom (s.ud);
      s.out[i] = L->bottom (s.ud);
      s.position[s.order[i]] = i;
    }
  if (problem->record)
    start_trace (&s);
  if (L->assign)
    {
      s.bottom = L->bottom (s.ud);
      s.scratch_in = L->bottom (s.ud);
      s.scratch_out = L->bottom (s.ud);
    }

  /* the pending node first in the order is visited next */
  while ((next = mir_bitset_next (s.pending, s.lowest)) >= 0)
    {
      if (problem->max_visits && total >= problem->max_visits)
        {
          converged = FALSE;
          break;
        }
      mir_bitset_remove (s.pending, (guint) next);
      s.lowest = (guint) next;
      if (L->assign)
        visit_in_place (&s, s.order[next]);
      else
        visit (&s, s.order[next]);
      total++;
    }
  if (L->assign)
    {
      L->free (s.bottom, s.ud);
      L->free (s.scratch_in, s.ud);
      L->free (s.scratch_out, s.ud);
    }

  sol = g_new0 (MirDataflowSolution, 1);
  sol->graph = mir_flow_graph_ref (graph);
  sol->lattice = L;
  sol->user_data = s.ud;
  sol->direction = problem->direction;
  sol->before = s.backward ? s.out : s.in;
  sol->after = s.backward ? s.in : s.out;
  sol->n_visits = total;
  sol->converged = converged;
  sol->trace = s.trace;
  if (s.trace)
    s.trace->converged = converged;
  L->free (s.boundary, s.ud);
  g_free (s.position);
  g_free (s.visits);
  mir_bitset_free (s.pending);
  return sol;
}

void
mir_dataflow_solution_free (MirDataflowSolution *solution)
{
  if (!solution)
    return;
  for (guint v = 0; v < solution->graph->n_nodes; v++)
    {
      solution->lattice->free (solution->before[v], solution->user_data);
      solution->lattice->free (solution->after[v], solution->user_data);
    }
  g_free (solution->before);
  g_free (solution->after);
  mir_dataflow_trace_free (solution->trace);
  mir_flow_graph_unref (solution->graph);
  g_free (solution);
}

gconstpointer
mir_dataflow_in (const MirDataflowSolution *solution, guint node)
{
  g_return_val_if_fail (node < solution->graph->n_nodes, NULL);
  return solution->direction == MIR_DATAFLOW_BACKWARD ? solution->after[node]
                                                      : solution->before[node];
}

gconstpointer
mir_dataflow_out (const MirDataflowSolution *solution, guint node)
{
  g_return_val_if_fail (node < solution->graph->n_nodes, NULL);
  return solution->direction == MIR_DATAFLOW_BACKWARD ? solution->before[node]
                                                      : solution->after[node];
}

char *
mir_dataflow_fact_to_string (const MirDataflowSolution *solution, gconstpointer fact)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (solution->lattice->print != NULL, NULL);
  solution->lattice->print (out, fact, solution->user_data);
  return g_string_free (out, FALSE);
}

char *
mir_dataflow_solution_print (const MirDataflowSolution *solution)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (solution->lattice->print != NULL, NULL);
  for (guint v = 0; v < solution->graph->n_nodes; v++)
    {
      g_autofree char *label = mir_flow_graph_node_label (solution->graph, v);

      g_string_append_printf (out, "%u %s | in ", v, label);
      solution->lattice->print (out, mir_dataflow_in (solution, v), solution->user_data);
      g_string_append (out, " | out ");
      solution->lattice->print (out, mir_dataflow_out (solution, v), solution->user_data);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}
