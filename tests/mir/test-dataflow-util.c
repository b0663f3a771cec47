/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "test-dataflow-util.h"

#include "mir-test-util.h"

MirProgram *
df_lower (const char *text)
{
  MirProgram *p = mir_test_lower ("test.stan", text, NULL);

  g_assert_nonnull (p);
  return p;
}

MirFlowGraph *
df_function_graph (const MirProgram *p, guint index, MirFlowGraphFlags flags)
{
  const MirFunDef *f;

  g_assert_cmpuint (index, <, p->functions->len);
  f = g_ptr_array_index (p->functions, index);
  g_assert_nonnull (f->body);
  return mir_flow_graph_new (f->body, flags);
}

MirFlowGraph *
df_part_graph (const MirProgram *p, MirPart part, MirFlowGraphFlags flags)
{
  const GPtrArray *lists[] = { p->parts[part] };

  return mir_flow_graph_new_for_lists (lists, 1, flags);
}

static const char *
kind_word (const MirFlowNode *node)
{
  static const char *const words[MIR_N_STMT_KINDS] = {
    [MIR_STMT_ASSIGN] = "assign",
    [MIR_STMT_TARGET_PLUS] = "target",
    [MIR_STMT_JACOBIAN_PLUS] = "jacobian",
    [MIR_STMT_NR_CALL] = "call",
    [MIR_STMT_BREAK] = "break",
    [MIR_STMT_CONTINUE] = "continue",
    [MIR_STMT_RETURN] = "return",
    [MIR_STMT_SKIP] = "skip",
    [MIR_STMT_IF] = "if",
    [MIR_STMT_WHILE] = "while",
    [MIR_STMT_FOR] = "for",
    [MIR_STMT_PROFILE] = "profile",
    [MIR_STMT_BLOCK] = "block",
    [MIR_STMT_SLIST] = "slist",
    [MIR_STMT_DECL] = "decl",
  };

  if (node->kind == MIR_FLOW_NODE_ENTRY)
    return "entry";
  if (node->kind == MIR_FLOW_NODE_EXIT)
    return "exit";
  return words[node->stmt->kind];
}

char *
df_graph_shape (const MirFlowGraph *graph)
{
  GString *out = g_string_new (NULL);

  for (guint v = 0; v < graph->n_nodes; v++)
    {
      const MirFlowNode *node = &graph->nodes[v];

      g_string_append_printf (out, "%u %s ->", v, kind_word (node));
      for (guint i = 0; i < node->n_succs; i++)
        g_string_append_printf (out, " %u", node->succs[i]);
      if (node->loop_head)
        g_string_append (out, " head");
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

guint
df_node_at (const MirFlowGraph *graph, int line, MirStmtKind kind)
{
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      const MirFlowNode *node = &graph->nodes[v];
      if (node->stmt && node->stmt->kind == kind && node->span.begin_line == line)
        return v;
    }
  g_test_message ("no %s statement at line %d", mir_stmt_kind_name (kind), line);
  g_test_fail ();
  return 0;
}

void
df_assert_set (const MirSetFacts *facts, const MirBitset *set, const char *expected,
               const char *what)
{
  g_autofree char *got = mir_set_facts_format (facts, set);

  if (g_strcmp0 (got, expected) == 0)
    return;
  g_test_message ("%s: got %s, expected %s", what, got, expected);
  g_test_fail ();
}
