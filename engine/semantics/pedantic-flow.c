/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * Control-flow graphs of statement lists, for pedantic mode.
 *
 * One node per statement that does something (a declaration with several
 * variables gives one node per variable), edges from each node to what can
 * run next, loops closed by back edges. What a statement reads follows the
 * Stan compiler's MIR: the right-hand side of an assignment (plus the
 * assigned variable for +=), the arguments of `~`, a condition, loop bounds;
 * indices on the left of `=` are not reads. Unlike the MIR's analysis,
 * writing one element or field of a variable does not hide the earlier
 * definitions of the rest of it.
 *
 * Both analyses are solved by sweeping the nodes in order until nothing
 * changes; structured programs settle in a few sweeps.
 */

#include "semantics/pedantic-private.h"

/* Element destructor for arrays of optional GArrays. */
static void
free_array (gpointer array)
{
  if (array)
    g_array_unref (array);
}

#include <string.h>

typedef struct {
  GArray *breaks;      /* int */
  GArray *continues;   /* int */
} Loop;

typedef struct {
  PedFlow   *flow;
  gboolean   flatten;
  GPtrArray *loops;    /* Loop*, innermost last */
} Builder;

/* ---- expressions ---- */

void
_ped_expr_foreach (const TildeExpr *e, void (*visit) (const TildeExpr *e, gpointer data),
                   gpointer data)
{
  if (e == NULL)
    return;
  visit (e, data);
  switch (e->kind)
    {
    case TILDE_EXPR_BINARY:
      _ped_expr_foreach (e->u.binary.lhs, visit, data);
      _ped_expr_foreach (e->u.binary.rhs, visit, data);
      break;
    case TILDE_EXPR_PREFIX:
      _ped_expr_foreach (e->u.prefix.operand, visit, data);
      break;
    case TILDE_EXPR_TRANSPOSE:
      _ped_expr_foreach (e->u.transpose.operand, visit, data);
      break;
    case TILDE_EXPR_TERNARY:
      _ped_expr_foreach (e->u.ternary.cond, visit, data);
      _ped_expr_foreach (e->u.ternary.if_true, visit, data);
      _ped_expr_foreach (e->u.ternary.if_false, visit, data);
      break;
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      for (int i = 0; i < e->u.call.n_args; i++)
        _ped_expr_foreach (e->u.call.args[i], visit, data);
      break;
    case TILDE_EXPR_INDEXED:
      _ped_expr_foreach (e->u.indexed.base, visit, data);
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        {
          _ped_expr_foreach (e->u.indexed.indices[i].lower, visit, data);
          _ped_expr_foreach (e->u.indexed.indices[i].upper, visit, data);
        }
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      _ped_expr_foreach (e->u.proj.base, visit, data);
      break;
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      for (int i = 0; i < e->u.list.n_items; i++)
        _ped_expr_foreach (e->u.list.items[i], visit, data);
      break;
    case TILDE_EXPR_PAREN:
      _ped_expr_foreach (e->u.paren.inner, visit, data);
      break;
    default:
      break;
    }
}

typedef struct {
  Pedantic *P;
  GArray   *uses;
} UsesData;

static void
add_use (const TildeExpr *e, gpointer data)
{
  UsesData *d = data;
  PedUse use = { NULL, &e->span };

  if (e->kind != TILDE_EXPR_VARIABLE)
    return;
  use.var = _ped_var_of_expr (d->P, e);
  if (use.var)
    g_array_append_val (d->uses, use);
}

void
_ped_expr_uses (Pedantic *P, const TildeExpr *e, GArray *uses)
{
  UsesData d = { P, uses };

  _ped_expr_foreach (e, add_use, &d);
}

/* ---- building ---- */

static GArray *
int_array (void)
{
  return g_array_new (FALSE, FALSE, sizeof (int));
}

static GArray *
int_array_of (int value)
{
  GArray *a = int_array ();

  g_array_append_val (a, value);
  return a;
}

static void
append_all (GArray *to, const GArray *from)
{
  g_array_append_vals (to, from->data, from->len);
}

static int
new_node (Builder *b, PedNodeKind kind, TildeStmt *stmt, int parent, const GArray *preds)
{
  PedNode node = { 0 };

  node.kind = kind;
  node.stmt = stmt;
  node.parent = parent;
  node.exprs = g_ptr_array_new ();
  node.uses = g_array_new (FALSE, FALSE, sizeof (PedUse));
  node.defs = g_ptr_array_new ();
  node.preds = int_array ();
  if (preds)
    append_all (node.preds, preds);
  g_array_append_val (b->flow->nodes, node);
  return (int) b->flow->nodes->len - 1;
}

/* Records an expression the node evaluates and the variables it reads. */
static void
add_expr (Builder *b, int n, TildeExpr *e)
{
  PedNode *node = _ped_flow_node (b->flow, n);

  if (e == NULL)
    return;
  g_ptr_array_add (node->exprs, e);
  _ped_expr_uses (b->flow->P, e, node->uses);
}

static PedVar *
declared_var (Builder *b, TildeStmt *stmt, const char *name)
{
  PedVar key = { 0 };

  key.stmt = stmt;
  key.name = name;
  return g_hash_table_lookup (b->flow->P->by_decl, &key);
}

static void
add_def (Builder *b, int n, PedVar *var)
{
  if (var)
    g_ptr_array_add (_ped_flow_node (b->flow, n)->defs, var);
}

/* The variable an lvalue writes; *whole when all of it. */
static PedVar *
lvalue_var (Builder *b, const TildeExpr *e, gboolean *whole)
{
  e = _ped_strip_parens (e);
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      return _ped_var_of_expr (b->flow->P, e);
    case TILDE_EXPR_INDEXED:
      *whole = FALSE;
      return lvalue_var (b, e->u.indexed.base, whole);
    case TILDE_EXPR_TUPLE_PROJ:
      *whole = FALSE;
      return lvalue_var (b, e->u.proj.base, whole);
    default:
      *whole = FALSE;
      return NULL;
    }
}

static void
add_lvalue_defs (Builder *b, int n, const TildeExpr *lhs, gboolean *strong)
{
  lhs = _ped_strip_parens (lhs);
  if (lhs->kind == TILDE_EXPR_TUPLE)
    {
      for (int i = 0; i < lhs->u.list.n_items; i++)
        add_lvalue_defs (b, n, lhs->u.list.items[i], strong);
      return;
    }
  add_def (b, n, lvalue_var (b, lhs, strong));
}

/* Index expressions of an lvalue, read by compound assignments. */
static void
add_lvalue_index_exprs (Builder *b, int n, const TildeExpr *lhs)
{
  lhs = _ped_strip_parens (lhs);
  if (lhs->kind == TILDE_EXPR_INDEXED)
    {
      for (int i = 0; i < lhs->u.indexed.n_indices; i++)
        {
          add_expr (b, n, lhs->u.indexed.indices[i].lower);
          add_expr (b, n, lhs->u.indexed.indices[i].upper);
        }
      add_lvalue_index_exprs (b, n, lhs->u.indexed.base);
    }
  else if (lhs->kind == TILDE_EXPR_TUPLE_PROJ)
    add_lvalue_index_exprs (b, n, lhs->u.proj.base);
}

static int
build_assign (Builder *b, TildeStmt *s, int parent, const GArray *preds)
{
  int n = new_node (b, PED_NODE_ASSIGN, s, parent, preds);
  PedNode *node;
  gboolean strong = TRUE;

  add_expr (b, n, s->u.assign.rhs);
  add_lvalue_defs (b, n, s->u.assign.lhs, &strong);
  node = _ped_flow_node (b->flow, n);
  node->strong = strong;
  node->assigns = TRUE;
  if (s->u.assign.op == TILDE_ASSIGN_PLAIN)
    {
      if (strong && node->defs->len == 1)
        node->value = s->u.assign.rhs;
    }
  else if (node->defs->len == 1)
    {
      /* x op= e reads x, at the statement as stanc places it. */
      PedUse use = { g_ptr_array_index (node->defs, 0), &s->span };

      g_array_append_val (node->uses, use);
      add_lvalue_index_exprs (b, n, s->u.assign.lhs);
    }
  return n;
}

static GArray *build_stmt (Builder *b, TildeStmt *s, const GArray *preds, int parent);

static GArray *
build_list (Builder *b, TildeStmt **stmts, int n, const GArray *preds, int parent)
{
  GArray *cur = int_array ();

  append_all (cur, preds);
  for (int i = 0; i < n; i++)
    {
      GArray *next = build_stmt (b, stmts[i], cur, parent);

      g_array_unref (cur);
      cur = next;
    }
  return cur;
}

static GArray *
build_decl (Builder *b, TildeStmt *s, const GArray *preds, int parent)
{
  GArray *cur = int_array ();

  append_all (cur, preds);
  for (int i = 0; i < s->u.var_decl.n_items; i++)
    {
      TildeVarDeclItem *item = &s->u.var_decl.items[i];
      PedVar *var = declared_var (b, s, item->ident.name);
      int n = new_node (b, PED_NODE_DECL, s, parent, cur);
      PedNode *node;

      add_expr (b, n, item->init);
      add_def (b, n, var);
      node = _ped_flow_node (b->flow, n);
      node->strong = TRUE;
      node->assigns = item->init != NULL;
      node->value = item->init;
      if (var)
        g_ptr_array_add (b->flow->declared, var);
      g_array_set_size (cur, 0);
      g_array_append_val (cur, n);
    }
  return cur;
}

/* A loop headed by node n; the body is built with n as its parent. */
static GArray *
build_loop (Builder *b, int n, TildeStmt *body)
{
  Loop loop = { int_array (), int_array () };
  GArray *head = int_array_of (n);
  GArray *body_exits, *exits;

  g_ptr_array_add (b->loops, &loop);
  body_exits = build_stmt (b, body, head, n);
  g_ptr_array_remove_index (b->loops, b->loops->len - 1);
  if (b->flatten)
    {
      exits = body_exits;
      append_all (exits, loop.continues);
    }
  else
    {
      PedNode *node = _ped_flow_node (b->flow, n);

      append_all (node->preds, body_exits);
      append_all (node->preds, loop.continues);
      g_array_unref (body_exits);
      exits = int_array_of (n);
    }
  append_all (exits, loop.breaks);
  g_array_unref (loop.breaks);
  g_array_unref (loop.continues);
  g_array_unref (head);
  return exits;
}

static int
build_loop_var (Builder *b, PedNodeKind kind, TildeStmt *s, const TildeIdent *var,
                int parent, const GArray *preds)
{
  int n = new_node (b, kind, s, parent, preds);
  PedNode *node;

  add_def (b, n, declared_var (b, s, var->name));
  node = _ped_flow_node (b->flow, n);
  node->strong = TRUE;
  node->assigns = TRUE;
  return n;
}

static GArray *
build_jump (Builder *b, PedNodeKind kind, TildeStmt *s, int parent, const GArray *preds)
{
  int n = new_node (b, kind, s, parent, preds);
  Loop *loop;

  if (b->loops->len == 0)
    return int_array_of (n);
  loop = g_ptr_array_index (b->loops, b->loops->len - 1);
  g_array_append_val (kind == PED_NODE_BREAK ? loop->breaks : loop->continues, n);
  return int_array ();
}

/* A statement whose node only evaluates expressions and falls through. */
static GArray *
build_simple (Builder *b, PedNodeKind kind, TildeStmt *s, TildeExpr *const *exprs, int n_exprs,
              int parent, const GArray *preds)
{
  int n = new_node (b, kind, s, parent, preds);

  for (int i = 0; i < n_exprs; i++)
    add_expr (b, n, exprs[i]);
  return int_array_of (n);
}

static GArray *
build_stmt (Builder *b, TildeStmt *s, const GArray *preds, int parent)
{
  GArray *exits;
  int n;

  if (s == NULL)
    {
      exits = int_array ();
      append_all (exits, preds);
      return exits;
    }
  switch (s->kind)
    {
    case TILDE_STMT_VAR_DECL:
      return build_decl (b, s, preds, parent);
    case TILDE_STMT_ASSIGN:
      return int_array_of (build_assign (b, s, parent, preds));
    case TILDE_STMT_TILDE:
      {
        TildeExpr *ends[2] = { s->u.tilde.trunc_lower, s->u.tilde.trunc_upper };

        exits = build_simple (b, PED_NODE_TILDE, s, &s->u.tilde.arg, 1, parent, preds);
        n = g_array_index (exits, int, 0);
        for (int i = 0; i < s->u.tilde.n_args; i++)
          add_expr (b, n, s->u.tilde.args[i]);
        add_expr (b, n, ends[0]);
        add_expr (b, n, ends[1]);
        return exits;
      }
    case TILDE_STMT_TARGET_PLUS:
      return build_simple (b, PED_NODE_TARGET, s, &s->u.increment.expr, 1, parent, preds);
    case TILDE_STMT_JACOBIAN_PLUS:
      return build_simple (b, PED_NODE_JACOBIAN, s, &s->u.increment.expr, 1, parent, preds);
    case TILDE_STMT_CALL:
      return build_simple (b, PED_NODE_CALL, s, s->u.call.args, s->u.call.n_args, parent, preds);
    case TILDE_STMT_PRINT:
      return build_simple (b, PED_NODE_PRINT, s, s->u.printables.items,
                           s->u.printables.n_items, parent, preds);
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      return build_simple (b, PED_NODE_REJECT, s, s->u.printables.items,
                           s->u.printables.n_items, parent, preds);
    case TILDE_STMT_RETURN:
      n = new_node (b, PED_NODE_RETURN, s, parent, preds);
      add_expr (b, n, s->u.ret.expr);
      return int_array ();
    case TILDE_STMT_IF:
      {
        GArray *head, *else_exits;

        n = new_node (b, PED_NODE_IF, s, parent, preds);
        add_expr (b, n, s->u.if_stmt.cond);
        head = int_array_of (n);
        exits = build_stmt (b, s->u.if_stmt.then_stmt, head, n);
        else_exits = s->u.if_stmt.else_stmt ? build_stmt (b, s->u.if_stmt.else_stmt, head, n)
                                            : g_array_ref (head);
        append_all (exits, else_exits);
        g_array_unref (else_exits);
        g_array_unref (head);
        return exits;
      }
    case TILDE_STMT_WHILE:
      n = new_node (b, PED_NODE_WHILE, s, parent, preds);
      add_expr (b, n, s->u.while_stmt.cond);
      return build_loop (b, n, s->u.while_stmt.body);
    case TILDE_STMT_FOR:
      n = build_loop_var (b, PED_NODE_FOR, s, &s->u.for_stmt.var, parent, preds);
      add_expr (b, n, s->u.for_stmt.lower);
      add_expr (b, n, s->u.for_stmt.upper);
      return build_loop (b, n, s->u.for_stmt.body);
    case TILDE_STMT_FOREACH:
      n = build_loop_var (b, PED_NODE_FOREACH, s, &s->u.foreach_stmt.var, parent, preds);
      add_expr (b, n, s->u.foreach_stmt.container);
      return build_loop (b, n, s->u.foreach_stmt.body);
    case TILDE_STMT_BREAK:
      return build_jump (b, PED_NODE_BREAK, s, parent, preds);
    case TILDE_STMT_CONTINUE:
      return build_jump (b, PED_NODE_CONTINUE, s, parent, preds);
    case TILDE_STMT_PROFILE:
      return build_list (b, s->u.profile.stmts, s->u.profile.n_stmts, preds, parent);
    case TILDE_STMT_BLOCK:
      return build_list (b, s->u.block.stmts, s->u.block.n_stmts, preds, parent);
    default:
      exits = int_array ();
      append_all (exits, preds);
      return exits;
    }
}

/* ---- bitsets ---- */

static guint
n_words (guint bits)
{
  return MAX (1, (bits + 31) / 32);
}

static inline gboolean
bit_get (const guint32 *set, guint i)
{
  return (set[i / 32] >> (i % 32)) & 1;
}

static inline void
bit_set (guint32 *set, guint i)
{
  set[i / 32] |= 1u << (i % 32);
}

static inline void
bit_clear (guint32 *set, guint i)
{
  set[i / 32] &= ~(1u << (i % 32));
}

/* ---- reaching definitions ---- */

static void
number_definitions (PedFlow *flow)
{
  guint n_vars = flow->P->vars->len;

  g_ptr_array_set_size (flow->var_defs, n_vars);
  for (guint i = 0; i < flow->nodes->len; i++)
    {
      PedNode *node = _ped_flow_node (flow, i);

      node->first_def = flow->n_defs;
      for (guint d = 0; d < node->defs->len; d++)
        {
          PedVar *var = g_ptr_array_index (node->defs, d);
          GArray *ids = g_ptr_array_index (flow->var_defs, var->index);
          guint id = flow->n_defs++;
          int at = (int) i;

          if (ids == NULL)
            {
              ids = g_array_new (FALSE, FALSE, sizeof (guint));
              g_ptr_array_index (flow->var_defs, var->index) = ids;
            }
          g_array_append_val (ids, id);
          g_array_append_val (flow->def_node, at);
        }
    }
}

static void
rd_transfer (PedFlow *flow, const PedNode *node, guint32 *set)
{
  if (node->strong)
    for (guint d = 0; d < node->defs->len; d++)
      {
        const PedVar *var = g_ptr_array_index (node->defs, d);
        GArray *ids = g_ptr_array_index (flow->var_defs, var->index);

        for (guint k = 0; k < ids->len; k++)
          bit_clear (set, g_array_index (ids, guint, k));
      }
  for (guint d = 0; d < node->defs->len; d++)
    bit_set (set, node->first_def + d);
}

static void
solve_reaching_definitions (PedFlow *flow)
{
  guint words = n_words (flow->n_defs);
  guint n_nodes = flow->nodes->len;
  guint32 *out = g_new0 (guint32, (gsize) n_nodes * words);
  guint32 *tmp = g_new0 (guint32, words);
  gboolean changed = TRUE;

  for (guint i = 0; i < n_nodes; i++)
    _ped_flow_node (flow, i)->rd_in = g_new0 (guint32, words);
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < n_nodes; i++)
        {
          PedNode *node = _ped_flow_node (flow, i);

          memset (tmp, 0, words * sizeof (guint32));
          for (guint p = 0; p < node->preds->len; p++)
            {
              const guint32 *from = out + (gsize) g_array_index (node->preds, int, p) * words;

              for (guint w = 0; w < words; w++)
                tmp[w] |= from[w];
            }
          memcpy (node->rd_in, tmp, words * sizeof (guint32));
          rd_transfer (flow, node, tmp);
          if (memcmp (tmp, out + (gsize) i * words, words * sizeof (guint32)) != 0)
            {
              memcpy (out + (gsize) i * words, tmp, words * sizeof (guint32));
              changed = TRUE;
            }
        }
    }
  g_free (tmp);
  g_free (out);
}

/* The definitions each node reads, looked up once for all the dependency
 * walks to come. */
static void
link_use_definitions (PedFlow *flow)
{
  for (guint i = 0; i < flow->nodes->len; i++)
    {
      PedNode *node = _ped_flow_node (flow, (int) i);

      node->use_defs = int_array ();
      for (guint u = 0; u < node->uses->len; u++)
        _ped_flow_reaching (flow, (int) i, g_array_index (node->uses, PedUse, u).var,
                            node->use_defs);
    }
}

/* ---- the graph ---- */

PedFlow *
_ped_flow_new (Pedantic *P, TildeStmt **const *lists, const int *lengths, guint n_lists,
               gboolean flatten_loops)
{
  PedFlow *flow = g_new0 (PedFlow, 1);
  Builder b = { flow, flatten_loops, g_ptr_array_new () };
  GArray *cur;

  flow->P = P;
  flow->nodes = g_array_new (FALSE, TRUE, sizeof (PedNode));
  flow->def_node = int_array ();
  flow->var_defs = g_ptr_array_new_with_free_func (free_array);
  flow->declared = g_ptr_array_new ();
  cur = int_array_of (new_node (&b, PED_NODE_ENTRY, NULL, -1, NULL));
  for (guint l = 0; l < n_lists; l++)
    {
      GArray *next = build_list (&b, lists[l], lengths[l], cur, -1);

      g_array_unref (cur);
      cur = next;
    }
  g_array_unref (cur);
  g_ptr_array_unref (b.loops);
  number_definitions (flow);
  solve_reaching_definitions (flow);
  link_use_definitions (flow);
  return flow;
}

void
_ped_flow_free (PedFlow *flow)
{
  if (flow == NULL)
    return;
  for (guint i = 0; i < flow->nodes->len; i++)
    {
      PedNode *node = _ped_flow_node (flow, i);

      g_ptr_array_unref (node->exprs);
      g_array_unref (node->uses);
      g_ptr_array_unref (node->defs);
      g_array_unref (node->preds);
      g_free (node->rd_in);
      if (node->use_defs)
        g_array_unref (node->use_defs);
    }
  g_array_unref (flow->nodes);
  g_array_unref (flow->def_node);
  g_ptr_array_unref (flow->var_defs);
  g_ptr_array_unref (flow->declared);
  g_free (flow);
}

void
_ped_flow_reaching (PedFlow *flow, int node, const PedVar *var, GArray *nodes)
{
  GArray *ids = var->index < flow->var_defs->len
                  ? g_ptr_array_index (flow->var_defs, var->index) : NULL;
  const guint32 *in = _ped_flow_node (flow, node)->rd_in;

  for (guint k = 0; ids && k < ids->len; k++)
    {
      guint id = g_array_index (ids, guint, k);

      if (bit_get (in, id))
        g_array_append_val (nodes, g_array_index (flow->def_node, int, id));
    }
}

/* Pushes the definitions that reach `node` of the variables in `uses`. */
static void
push_use_defs (PedFlow *flow, int node, const GArray *uses, GArray *stack)
{
  for (guint u = 0; u < uses->len; u++)
    _ped_flow_reaching (flow, node, g_array_index (uses, PedUse, u).var, stack);
}

static void
close_deps (PedFlow *flow, GArray *stack, gboolean with_parents, guint8 *visited)
{
  while (stack->len > 0)
    {
      int n = g_array_index (stack, int, stack->len - 1);
      PedNode *node;

      g_array_set_size (stack, stack->len - 1);
      if (visited[n])
        continue;
      visited[n] = 1;
      node = _ped_flow_node (flow, n);
      if (with_parents && node->parent >= 0)
        g_array_append_val (stack, node->parent);
      g_array_append_vals (stack, node->use_defs->data, node->use_defs->len);
    }
}

void
_ped_flow_node_deps (PedFlow *flow, int node, guint8 *visited)
{
  GArray *stack = int_array_of (node);

  close_deps (flow, stack, TRUE, visited);
  g_array_unref (stack);
}

void
_ped_flow_uses_deps (PedFlow *flow, int node, const GArray *uses, gboolean with_parents,
                     guint8 *visited)
{
  GArray *stack = int_array ();
  int parent = _ped_flow_node (flow, node)->parent;

  if (with_parents && parent >= 0)
    g_array_append_val (stack, parent);
  push_use_defs (flow, node, uses, stack);
  close_deps (flow, stack, with_parents, visited);
  g_array_unref (stack);
}

void
_ped_flow_marked_vars (PedFlow *flow, const guint8 *visited, guint8 *seen)
{
  for (guint i = 0; i < flow->nodes->len; i++)
    {
      const PedNode *node;

      if (!visited[i])
        continue;
      node = _ped_flow_node (flow, i);
      for (guint u = 0; u < node->uses->len; u++)
        seen[g_array_index (node->uses, PedUse, u).var->index] = 1;
    }
}

/* ---- initialisation ---- */

/* Must-be-assigned variables: the entry knows nothing, a node without
 * predecessors cannot run (so everything holds there), joins intersect. */
void
_ped_flow_uninitialized (PedFlow *flow,
                         void (*report) (const PedUse *use, gpointer data),
                         gpointer data)
{
  guint words = n_words (flow->P->vars->len);
  guint n_nodes = flow->nodes->len;
  guint32 *in = g_new0 (guint32, (gsize) n_nodes * words);
  guint32 *out = g_new (guint32, (gsize) n_nodes * words);
  guint32 *tracked = g_new0 (guint32, words);
  guint32 *next = g_new (guint32, words);
  gboolean changed = TRUE;

  for (guint i = 0; i < flow->declared->len; i++)
    bit_set (tracked, ((PedVar *) g_ptr_array_index (flow->declared, i))->index);
  memset (out, 0xff, (gsize) n_nodes * words * sizeof (guint32));
  memset (out, 0, words * sizeof (guint32));
  while (changed)
    {
      changed = FALSE;
      for (guint i = 1; i < n_nodes; i++)
        {
          PedNode *node = _ped_flow_node (flow, i);
          guint32 *node_in = in + (gsize) i * words;

          memset (node_in, 0xff, words * sizeof (guint32));
          for (guint p = 0; p < node->preds->len; p++)
            {
              const guint32 *from = out + (gsize) g_array_index (node->preds, int, p) * words;

              for (guint w = 0; w < words; w++)
                node_in[w] &= from[w];
            }
          memcpy (next, node_in, words * sizeof (guint32));
          for (guint d = 0; d < node->defs->len; d++)
            {
              guint v = ((PedVar *) g_ptr_array_index (node->defs, d))->index;

              if (node->assigns)
                bit_set (next, v);
              else
                bit_clear (next, v);
            }
          if (memcmp (next, out + (gsize) i * words, words * sizeof (guint32)) != 0)
            {
              memcpy (out + (gsize) i * words, next, words * sizeof (guint32));
              changed = TRUE;
            }
        }
    }
  for (guint i = 1; i < n_nodes; i++)
    {
      const PedNode *node = _ped_flow_node (flow, i);
      const guint32 *node_in = in + (gsize) i * words;

      for (guint u = 0; u < node->uses->len; u++)
        {
          const PedUse *use = &g_array_index (node->uses, PedUse, u);

          if (bit_get (tracked, use->var->index) && !bit_get (node_in, use->var->index))
            report (use, data);
        }
    }
  g_free (next);
  g_free (tracked);
  g_free (out);
  g_free (in);
}
