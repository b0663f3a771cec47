/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/flow-graph.h"

#include <string.h>

#include "mir/mir-print.h"

/* A successor in a node's list of them, which grows at its tail. */
typedef struct {
  guint to;
  guint next;     /* the following edge of the same node, or MIR_FLOW_NONE */
} Edge;

typedef struct {
  MirFlowGraph *g;
  MirFlowNode  *nodes;   /* while numbering */
  guint         n_nodes;
  guint         nodes_size;
  Edge         *edges;
  guint         n_edges;
  guint         edges_size;
  guint        *first;   /* per node: its first edge, or MIR_FLOW_NONE */
  guint        *last;
} Builder;

/* Where control goes next: a few nodes. */
typedef struct {
  guint        n;
  const guint *nodes;
} Targets;

/* Where `break` and `continue` go inside the innermost loop. */
typedef struct {
  const Targets *brk;
  const Targets *cont;
} LoopTargets;

/* ---- the node of a statement ---- */

static guint
stmt_hash (const MirStmt *s)
{
  guint64 x = (guint64) (guintptr) s;

  return (guint) ((x >> 4) ^ (x >> 20)) * 2654435761u;
}

static void
index_stmts (MirFlowGraph *g)
{
  guint size = 16;

  while (size < 2 * g->n_nodes)
    size *= 2;
  g->stmt_mask = size - 1;
  g->stmt_keys = g_new0 (const MirStmt *, size);
  g->stmt_nodes = g_new (guint, size);
  for (guint v = 0; v < g->n_nodes; v++)
    {
      const MirStmt *s = g->nodes[v].stmt;
      guint i;

      if (!s)
        continue;
      for (i = stmt_hash (s) & g->stmt_mask; g->stmt_keys[i] && g->stmt_keys[i] != s;
           i = (i + 1) & g->stmt_mask)
        ;
      /* a statement met twice is known by its last node */
      g->stmt_keys[i] = s;
      g->stmt_nodes[i] = v;
    }
}

/* ---- numbering (pass 1): nodes in source order ---- */

static guint
new_node (Builder *b, MirFlowNodeKind kind, const MirStmt *s, guint parent, guint loop)
{
  MirFlowNode *node;

  if (b->n_nodes == b->nodes_size)
    {
      b->nodes_size *= 2;
      b->nodes = g_renew (MirFlowNode, b->nodes, b->nodes_size);
    }
  node = &b->nodes[b->n_nodes];
  memset (node, 0, sizeof *node);
  node->kind = kind;
  node->stmt = s;
  node->parent = parent;
  node->loop = loop;
  if (s)
    {
      node->span = s->span;
      node->loop_head = s->kind == MIR_STMT_WHILE || s->kind == MIR_STMT_FOR;
    }
  return b->n_nodes++;
}

typedef struct {
  Builder *b;
  guint    parent;
  guint    loop;
} NumberData;

static void number_stmt (MirStmt *s, gpointer data);

static void
number_stmt (MirStmt *s, gpointer data)
{
  NumberData *d = data;
  guint id = new_node (d->b, MIR_FLOW_NODE_STMT, s, d->parent, d->loop);
  NumberData inner = { d->b, id, d->loop };

  if (s->kind == MIR_STMT_WHILE || s->kind == MIR_STMT_FOR)
    inner.loop = id;
  mir_stmt_foreach_child (s, number_stmt, &inner);
}

/* ---- edges (pass 2) ---- */

static void
add_edge (Builder *b, guint from, guint to)
{
  guint e;

  for (e = b->first[from]; e != MIR_FLOW_NONE; e = b->edges[e].next)
    if (b->edges[e].to == to)
      return;
  if (b->n_edges == b->edges_size)
    {
      b->edges_size *= 2;
      b->edges = g_renew (Edge, b->edges, b->edges_size);
    }
  e = b->n_edges++;
  b->edges[e] = (Edge) { to, MIR_FLOW_NONE };
  if (b->last[from] == MIR_FLOW_NONE)
    b->first[from] = e;
  else
    b->edges[b->last[from]].next = e;
  b->last[from] = e;
}

static void
add_edges (Builder *b, guint from, const Targets *targets)
{
  for (guint i = 0; i < targets->n; i++)
    add_edge (b, from, targets->nodes[i]);
}

static guint connect_stmt (Builder *b, const MirStmt *s, const Targets *next,
                           const LoopTargets *loop);

/* The entry of the first statement of `stmts`, each statement continuing
 * into the next and the last into `next`; MIR_FLOW_NONE when empty. */
static guint
connect_list (Builder *b, const GPtrArray *stmts, const Targets *next, const LoopTargets *loop)
{
  guint entry = MIR_FLOW_NONE;

  for (guint i = stmts ? stmts->len : 0; i-- > 0;)
    {
      guint following = entry;
      Targets then = { 1, &following };

      entry = connect_stmt (b, g_ptr_array_index (stmts, i),
                            i + 1 < stmts->len ? &then : next, loop);
    }
  return entry;
}

static gboolean
stops_program (const MirStmt *s)
{
  const MirFun *f = &s->u.call.fun;

  return s->kind == MIR_STMT_NR_CALL && f->kind == MIR_FUN_COMPILER
         && (f->internal == MIR_FN_REJECT || f->internal == MIR_FN_FATAL_ERROR);
}

static guint
connect_loop (Builder *b, guint n, const MirStmt *body, const Targets *next)
{
  gboolean runs = (b->g->flags & MIR_FLOW_GRAPH_LOOPS_RUN) != 0;
  guint small[16], *nodes = small;
  Targets body_next = { 0, NULL };
  LoopTargets inner = { next, &body_next };

  /* the body goes back to the loop head, and when the loop runs at least
   * once also on to what follows it */
  if (runs && next->n + 1 > G_N_ELEMENTS (small))
    nodes = g_new (guint, next->n + 1);
  nodes[body_next.n++] = n;
  for (guint i = 0; runs && i < next->n; i++)
    if (next->nodes[i] != n)
      nodes[body_next.n++] = next->nodes[i];
  body_next.nodes = nodes;
  add_edge (b, n, connect_stmt (b, body, &body_next, &inner));
  if (!runs)
    add_edges (b, n, next);
  if (nodes != small)
    g_free (nodes);
  return n;
}

static guint
connect_stmt (Builder *b, const MirStmt *s, const Targets *next, const LoopTargets *loop)
{
  guint n = mir_flow_graph_node_of (b->g, s);
  guint entry;
  Targets end = { 1, &n };

  switch (s->kind)
    {
    case MIR_STMT_BREAK:
      add_edges (b, n, loop ? loop->brk : next);
      return n;
    case MIR_STMT_CONTINUE:
      add_edges (b, n, loop ? loop->cont : next);
      return n;
    case MIR_STMT_RETURN:
      add_edge (b, n, b->g->exit);
      return n;
    case MIR_STMT_IF:
      add_edge (b, n, connect_stmt (b, s->u.if_stmt.then_stmt, next, loop));
      if (s->u.if_stmt.else_stmt)
        add_edge (b, n, connect_stmt (b, s->u.if_stmt.else_stmt, next, loop));
      else
        add_edges (b, n, next);
      return n;
    case MIR_STMT_WHILE:
      return connect_loop (b, n, s->u.while_stmt.body, next);
    case MIR_STMT_FOR:
      return connect_loop (b, n, s->u.for_stmt.body, next);
    case MIR_STMT_BLOCK:
    case MIR_STMT_PROFILE:
      entry = connect_list (b, s->kind == MIR_STMT_BLOCK ? s->u.block.stmts
                                                         : s->u.profile.stmts, &end, loop);
      add_edges (b, n, next);
      return entry != MIR_FLOW_NONE ? entry : n;
    case MIR_STMT_SLIST:
      entry = connect_list (b, s->u.block.stmts, next, loop);
      if (entry != MIR_FLOW_NONE)
        add_edge (b, n, entry);
      else
        add_edges (b, n, next);
      return n;
    default:
      if (stops_program (s))
        add_edge (b, n, b->g->exit);
      else
        add_edges (b, n, next);
      return n;
    }
}

/* ---- orders ---- */

/* Reverse postorder from `start` following successors (or predecessors),
 * then every node it did not reach, by number. */
static guint *
depth_first_order (const MirFlowGraph *g, guint start, gboolean backward)
{
  guint *order = g_new (guint, g->n_nodes);
  /* stack, next edge and seen per node */
  guint *work = g_new0 (guint, 3 * (gsize) g->n_nodes);
  guint *stack = work, *next_edge = work + g->n_nodes, *seen = work + 2 * g->n_nodes;
  guint n_post = 0, depth = 0;

  stack[depth++] = start;
  seen[start] = TRUE;
  while (depth > 0)
    {
      guint v = stack[depth - 1];
      const MirFlowNode *node = &g->nodes[v];
      guint n_out = backward ? node->n_preds : node->n_succs;
      const guint *out = backward ? node->preds : node->succs;

      if (next_edge[v] < n_out)
        {
          /* successors are taken last to first, so that the first (a loop
           * body, a then branch) comes first in reverse postorder */
          guint w = out[n_out - 1 - next_edge[v]++];
          if (!seen[w])
            {
              seen[w] = TRUE;
              stack[depth++] = w;
            }
          continue;
        }
      order[n_post++] = v;
      depth--;
    }
  /* reverse the postorder in place */
  for (guint i = 0; i < n_post / 2; i++)
    {
      guint t = order[i];
      order[i] = order[n_post - 1 - i];
      order[n_post - 1 - i] = t;
    }
  for (guint v = 0; v < g->n_nodes; v++)
    if (!seen[v])
      order[n_post++] = v;
  g_free (work);
  return order;
}

/* Successor and predecessor lists, all in one array. */
static void
finish_edges (MirFlowGraph *g, Builder *b)
{
  const Edge *edges = b->edges;
  guint n_edges = b->n_edges, at = 0;
  guint *n_preds = g_new0 (guint, g->n_nodes);
  guint *preds;

  g->edges = g_new (guint, 2 * (gsize) n_edges + 1);
  for (guint v = 0; v < g->n_nodes; v++)
    {
      MirFlowNode *node = &g->nodes[v];
      node->succs = g->edges + at;
      for (guint e = b->first[v]; e != MIR_FLOW_NONE; e = edges[e].next)
        {
          g->edges[at++] = edges[e].to;
          n_preds[edges[e].to]++;
        }
      node->n_succs = (guint) (g->edges + at - node->succs);
    }
  preds = g->edges + n_edges;
  for (guint v = 0; v < g->n_nodes; v++)
    {
      g->nodes[v].preds = preds;
      preds += n_preds[v];
    }
  for (guint v = 0; v < g->n_nodes; v++)
    for (guint i = 0; i < g->nodes[v].n_succs; i++)
      {
        MirFlowNode *to = &g->nodes[g->nodes[v].succs[i]];
        to->preds[to->n_preds++] = v;
      }
  g_free (n_preds);
}

static MirFlowGraph *
build (const GPtrArray *stmts, MirFlowGraphFlags flags)
{
  MirFlowGraph *g = g_new0 (MirFlowGraph, 1);
  Builder b = { 0 };
  NumberData top = { &b, MIR_FLOW_NONE, MIR_FLOW_NONE };
  guint first;
  Targets to_exit;

  b.g = g;
  b.nodes_size = 2 * stmts->len + 8;
  b.nodes = g_new (MirFlowNode, b.nodes_size);
  g->ref_count = 1;
  g->flags = flags;
  g->entry = new_node (&b, MIR_FLOW_NODE_ENTRY, NULL, MIR_FLOW_NONE, MIR_FLOW_NONE);
  for (guint i = 0; i < stmts->len; i++)
    number_stmt (g_ptr_array_index (stmts, i), &top);
  g->exit = new_node (&b, MIR_FLOW_NODE_EXIT, NULL, MIR_FLOW_NONE, MIR_FLOW_NONE);
  g->n_nodes = b.n_nodes;
  g->nodes = b.nodes;
  index_stmts (g);

  b.edges_size = 2 * g->n_nodes;
  b.edges = g_new (Edge, b.edges_size);
  b.first = g_new (guint, 2 * (gsize) g->n_nodes);
  b.last = b.first + g->n_nodes;
  memset (b.first, 0xff, 2 * (gsize) g->n_nodes * sizeof (guint));
  to_exit = (Targets) { 1, &g->exit };
  first = connect_list (&b, stmts, &to_exit, NULL);
  add_edge (&b, g->entry, first != MIR_FLOW_NONE ? first : g->exit);
  finish_edges (g, &b);
  g_free (b.edges);
  g_free (b.first);

  g->forward_order = depth_first_order (g, g->entry, FALSE);
  g->backward_order = depth_first_order (g, g->exit, TRUE);
  return g;
}

MirFlowGraph *
mir_flow_graph_new (const MirStmt *stmt, MirFlowGraphFlags flags)
{
  g_autoptr (GPtrArray) one = g_ptr_array_new ();

  g_return_val_if_fail (stmt != NULL, NULL);
  g_ptr_array_add (one, (gpointer) stmt);
  return build (one, flags);
}

MirFlowGraph *
mir_flow_graph_new_for_lists (const GPtrArray *const *lists, guint n_lists,
                              MirFlowGraphFlags flags)
{
  g_autoptr (GPtrArray) all = NULL;
  guint n = 0;

  for (guint i = 0; i < n_lists; i++)
    n += lists[i] ? lists[i]->len : 0;
  all = g_ptr_array_sized_new (n);
  g_ptr_array_set_size (all, n);
  n = 0;
  for (guint i = 0; i < n_lists; i++)
    for (guint j = 0; lists[i] && j < lists[i]->len; j++)
      all->pdata[n++] = g_ptr_array_index (lists[i], j);
  return build (all, flags);
}

MirFlowGraph *
mir_flow_graph_ref (MirFlowGraph *graph)
{
  g_atomic_int_inc (&graph->ref_count);
  return graph;
}

void
mir_flow_graph_unref (MirFlowGraph *graph)
{
  if (!graph || !g_atomic_int_dec_and_test (&graph->ref_count))
    return;
  g_free (graph->edges);
  g_free (graph->nodes);
  g_free (graph->forward_order);
  g_free (graph->backward_order);
  g_free (graph->stmt_keys);
  g_free (graph->stmt_nodes);
  g_free (graph);
}

guint
mir_flow_graph_node_of (const MirFlowGraph *graph, const MirStmt *stmt)
{
  for (guint i = stmt_hash (stmt) & graph->stmt_mask; graph->stmt_keys[i];
       i = (i + 1) & graph->stmt_mask)
    if (graph->stmt_keys[i] == stmt)
      return graph->stmt_nodes[i];
  return MIR_FLOW_NONE;
}

guint
mir_flow_graph_entry_of (const MirFlowGraph *graph, const MirStmt *stmt)
{
  const GPtrArray *stmts;

  if (stmt->kind != MIR_STMT_BLOCK && stmt->kind != MIR_STMT_PROFILE)
    return mir_flow_graph_node_of (graph, stmt);
  stmts = stmt->kind == MIR_STMT_BLOCK ? stmt->u.block.stmts : stmt->u.profile.stmts;
  if (!stmts || stmts->len == 0)
    return mir_flow_graph_node_of (graph, stmt);
  return mir_flow_graph_entry_of (graph, g_ptr_array_index (stmts, 0));
}

static void
append_stmt_label (GString *out, const MirStmt *s)
{
  g_autofree char *text = NULL;
  char *nl;

  switch (s->kind)
    {
    case MIR_STMT_IF:
      g_string_append (out, "if (");
      mir_append_expr (out, s->u.if_stmt.cond);
      g_string_append_c (out, ')');
      return;
    case MIR_STMT_WHILE:
      g_string_append (out, "while (");
      mir_append_expr (out, s->u.while_stmt.cond);
      g_string_append_c (out, ')');
      return;
    case MIR_STMT_FOR:
      g_string_append_printf (out, "for (%s in ", s->u.for_stmt.var);
      mir_append_expr (out, s->u.for_stmt.lower);
      g_string_append_c (out, ':');
      mir_append_expr (out, s->u.for_stmt.upper);
      g_string_append_c (out, ')');
      return;
    case MIR_STMT_BLOCK:
      g_string_append (out, "end of block");
      return;
    case MIR_STMT_PROFILE:
      g_string_append_printf (out, "end of profile \"%s\"", s->u.profile.name);
      return;
    case MIR_STMT_SLIST:
      g_string_append (out, "statement list");
      return;
    default:
      text = mir_print_stmt (s, MIR_PRINT_DEFAULT);
      g_strstrip (text);
      /* a statement is one line; keep the first when it is not */
      nl = strchr (text, '\n');
      if (nl)
        *nl = '\0';
      g_string_append (out, text);
      return;
    }
}

char *
mir_flow_graph_node_label (const MirFlowGraph *graph, guint node)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (node < graph->n_nodes, NULL);
  switch (graph->nodes[node].kind)
    {
    case MIR_FLOW_NODE_ENTRY:
      g_string_append (out, "entry");
      break;
    case MIR_FLOW_NODE_EXIT:
      g_string_append (out, "exit");
      break;
    case MIR_FLOW_NODE_STMT:
      append_stmt_label (out, graph->nodes[node].stmt);
      break;
    }
  return g_string_free (out, FALSE);
}

char *
mir_flow_graph_print (const MirFlowGraph *graph)
{
  GString *out = g_string_new (NULL);

  for (guint v = 0; v < graph->n_nodes; v++)
    {
      const MirFlowNode *node = &graph->nodes[v];
      g_autofree char *label = mir_flow_graph_node_label (graph, v);

      g_string_append_printf (out, "%u %s ->", v, label);
      for (guint i = 0; i < node->n_succs; i++)
        g_string_append_printf (out, " %u", node->succs[i]);
      if (node->loop_head)
        g_string_append (out, " [loop head]");
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}
