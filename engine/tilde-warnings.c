/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * The tree's checks ask about places of the tree; the analyses answer about
 * nodes of MIR flow graphs. Lowering copies every span, so a read of a
 * variable is found again as the MIR variable expression with the same span
 * (the first one, in node order, where lowering copied it), a statement as
 * the first MIR statement with its span that is not a scope, and an
 * assignment the analyses name as the tree's assignment or declaration with
 * that span.
 */

#include "tilde-warnings.h"

#include "mir/dataflow/diagnostics.h"
#include "mir/dataflow/flow-graph.h"
#include "mir/dataflow/param-deps.h"
#include "mir/dataflow/program-info.h"
#include "mir/dataflow/reaching-defs.h"
#include "mir/dataflow/uninitialized.h"
#include "mir/mir-lower.h"
#include "semantics/pedantic.h"

/* ---- spans as keys ---- */

static guint
span_hash (gconstpointer p)
{
  const TildeSpan *s = p;

  return g_direct_hash (s->file) ^ (s->begin_offset * 31u) ^ (s->end_offset * 131u);
}

static gboolean
span_equal (gconstpointer a, gconstpointer b)
{
  const TildeSpan *x = a, *y = b;

  return x->file == y->file && x->end_file == y->end_file
         && x->begin_offset == y->begin_offset && x->end_offset == y->end_offset;
}

/* ---- where the tree's places are in the MIR ---- */

/* A graph places are found in: log_prob or a function body. */
typedef struct {
  MirFlowGraph    *graph;
  const char     **outside;    /* defined before it runs */
  MirReachingDefs *defs;       /* made at the first question */
} Region;

typedef struct {
  Region *region;
  guint   node;
} Place;

typedef struct {
  const MirProgram *mir;
  GPtrArray        *regions;     /* Region*; the first is log_prob */
  MirParamDeps     *deps;        /* of log_prob, on data and parameters */
  GHashTable       *reads;       /* TildeSpan* of a variable read -> Place* */
  GHashTable       *stmts;       /* TildeSpan* of a statement -> Place* in log_prob */
  GHashTable       *tree_stmts;  /* TildeSpan* -> TildeStmt*: assignments, declarations */
  const char      **tracked;     /* the variables asked about */
} Flow;

static void
region_free (Region *r)
{
  mir_reaching_defs_free (r->defs);
  g_free (r->outside);
  mir_flow_graph_unref (r->graph);
  g_free (r);
}

static Region *
add_region (Flow *flow, MirFlowGraph *graph, const char **outside)
{
  Region *r = g_new0 (Region, 1);

  r->graph = graph;
  r->outside = outside;
  g_ptr_array_add (flow->regions, r);
  return r;
}

typedef struct {
  GHashTable *table;
  Place       place;
} Indexing;

static void
index_read (MirExpr *e, gpointer data)
{
  Indexing *ix = data;

  if (!g_hash_table_contains (ix->table, &e->span))
    g_hash_table_insert (ix->table, &e->span, g_memdup2 (&ix->place, sizeof (Place)));
}

static gboolean
is_scope (const MirStmt *s)
{
  return s->kind == MIR_STMT_BLOCK || s->kind == MIR_STMT_SLIST || s->kind == MIR_STMT_PROFILE;
}

static void
index_region (Flow *flow, Region *r, gboolean with_stmts)
{
  for (guint v = 0; v < r->graph->n_nodes; v++)
    {
      MirStmt *s = (MirStmt *) r->graph->nodes[v].stmt;
      Indexing ix = { flow->reads, { r, v } };

      if (!s)
        continue;
      mir_stmt_foreach_variable (s, index_read, &ix);
      if (with_stmts && !is_scope (s) && !g_hash_table_contains (flow->stmts, &s->span))
        g_hash_table_insert (flow->stmts, &s->span, g_memdup2 (&ix.place, sizeof (Place)));
    }
}

static void index_tree_list (GHashTable *table, TildeStmt **stmts, int n);

static void
index_tree_stmt (GHashTable *table, TildeStmt *s)
{
  if (s == NULL)
    return;
  switch (s->kind)
    {
    case TILDE_STMT_ASSIGN:
    case TILDE_STMT_VAR_DECL:
      g_hash_table_insert (table, &s->span, s);
      break;
    case TILDE_STMT_IF:
      index_tree_stmt (table, s->u.if_stmt.then_stmt);
      index_tree_stmt (table, s->u.if_stmt.else_stmt);
      break;
    case TILDE_STMT_WHILE:
      index_tree_stmt (table, s->u.while_stmt.body);
      break;
    case TILDE_STMT_FOR:
      index_tree_stmt (table, s->u.for_stmt.body);
      break;
    case TILDE_STMT_FOREACH:
      index_tree_stmt (table, s->u.foreach_stmt.body);
      break;
    case TILDE_STMT_PROFILE:
      index_tree_list (table, s->u.profile.stmts, s->u.profile.n_stmts);
      break;
    case TILDE_STMT_BLOCK:
      index_tree_list (table, s->u.block.stmts, s->u.block.n_stmts);
      break;
    case TILDE_STMT_FUN_DEF:
      index_tree_stmt (table, s->u.fun_def.body);
      break;
    default:
      break;
    }
}

static void
index_tree_list (GHashTable *table, TildeStmt **stmts, int n)
{
  for (int i = 0; i < n; i++)
    index_tree_stmt (table, stmts[i]);
}

static void
index_tree (Flow *flow, const TildeProgram *program)
{
  static const TildeBlockKind blocks[] = {
    TILDE_BLOCK_FUNCTIONS, TILDE_BLOCK_TRANSFORMED_PARAMETERS, TILDE_BLOCK_MODEL,
  };

  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      const TildeBlock *block = program->blocks[blocks[i]];

      if (block)
        index_tree_list (flow->tree_stmts, block->stmts, block->n_stmts);
    }
}

static void
flow_init (Flow *flow, const TildeProgram *program, const MirProgram *mir)
{
  g_autofree const char **data = mir_program_data_names (mir);
  g_autofree const char **tdata = mir_program_transformed_data_names (mir);
  g_autofree const char **params = mir_program_parameter_names (mir);
  const GPtrArray *lists[] = { mir->parts[MIR_PART_LOG_PROB] };
  Region *log_prob;

  flow->mir = mir;
  flow->regions = g_ptr_array_new_with_free_func ((GDestroyNotify) region_free);
  flow->reads = g_hash_table_new_full (span_hash, span_equal, NULL, g_free);
  flow->stmts = g_hash_table_new_full (span_hash, span_equal, NULL, g_free);
  flow->tree_stmts = g_hash_table_new (span_hash, span_equal);
  log_prob = add_region (flow, mir_flow_graph_new_for_lists (lists, 1, MIR_FLOW_GRAPH_DEFAULT),
                         mir_names_concat (data, tdata, params));
  flow->deps = mir_param_dependence (log_prob->graph, log_prob->outside, FALSE);
  index_region (flow, log_prob, TRUE);
  index_tree (flow, program);
}

typedef struct {
  GHashTable *names;
  gboolean    found;
} NameSearch;

static void
find_name (MirExpr *e, gpointer data)
{
  NameSearch *search = data;

  search->found |= g_hash_table_contains (search->names, e->u.var.name);
}

static void
find_name_in_stmt (MirStmt *s, gpointer data)
{
  NameSearch *search = data;

  if (!search->found)
    mir_stmt_foreach_variable (s, find_name, data);
}

/* The bodies of the functions that read a tracked variable become regions:
 * only there can a definition be asked for. */
static void
add_function_regions (Flow *flow)
{
  g_autoptr (GHashTable) names = g_hash_table_new (NULL, NULL);

  for (guint i = 0; flow->tracked[i]; i++)
    g_hash_table_add (names, (gpointer) flow->tracked[i]);
  for (guint i = 0; flow->mir->functions && i < flow->mir->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (flow->mir->functions, i);
      NameSearch search = { names, FALSE };

      if (f->body)
        mir_stmt_walk (f->body, find_name_in_stmt, &search);
      if (search.found)
        index_region (flow, add_region (flow, mir_flow_graph_new (f->body,
                                                                  MIR_FLOW_GRAPH_DEFAULT),
                                        mir_fun_def_arg_names (f)),
                      FALSE);
    }
}

static void
flow_clear (Flow *flow)
{
  g_free (flow->tracked);
  g_hash_table_unref (flow->tree_stmts);
  g_hash_table_unref (flow->stmts);
  g_hash_table_unref (flow->reads);
  mir_param_deps_free (flow->deps);
  g_ptr_array_unref (flow->regions);
}

/* ---- the questions of the tree's checks ---- */

static void
flow_track (gpointer data, const char *const *names)
{
  Flow *flow = data;

  g_return_if_fail (flow->tracked == NULL);
  flow->tracked = g_new0 (const char *, g_strv_length ((char **) names) + 1);
  for (guint i = 0; names[i]; i++)
    flow->tracked[i] = g_intern_string (names[i]);
  add_function_regions (flow);
}

static gboolean
assigns_whole (const MirStmt *s, const char *var)
{
  const MirLvalue *lhs;

  if (s == NULL || s->kind != MIR_STMT_ASSIGN)
    return FALSE;
  lhs = s->u.assign.lhs;
  return !lhs->proj_of && (!lhs->indices || lhs->indices->len == 0)
         && g_strcmp0 (lhs->var, var) == 0;
}

static const TildeStmt *
flow_definition (gpointer data, const TildeExpr *use)
{
  Flow *flow = data;
  const Place *place = g_hash_table_lookup (flow->reads, &use->span);
  const char *name = use->u.variable.name;
  Region *r;
  g_autoptr (GArray) defs = NULL;
  const MirStmt *def;

  if (place == NULL || flow->tracked == NULL)
    return NULL;
  r = place->region;
  if (r->defs == NULL)
    r->defs = mir_reaching_definitions_of (r->graph, (const char *const *) r->outside,
                                           flow->tracked, FALSE);
  defs = mir_reaching_defs_of (r->defs, place->node, name);
  if (defs->len != 1 || g_array_index (defs, guint, 0) == r->graph->entry)
    return NULL;
  def = r->graph->nodes[g_array_index (defs, guint, 0)].stmt;
  if (!assigns_whole (def, name))
    return NULL;
  return g_hash_table_lookup (flow->tree_stmts, &def->span);
}

static void
append_names (GPtrArray *names, const char **sources)
{
  for (guint i = 0; sources[i]; i++)
    g_ptr_array_add (names, (gpointer) sources[i]);
  g_free (sources);
}

static void
flow_value_sources (gpointer data, const TildeExpr *use, GPtrArray *names)
{
  Flow *flow = data;
  const Place *place = g_hash_table_lookup (flow->reads, &use->span);

  if (place && place->region == g_ptr_array_index (flow->regions, 0))
    append_names (names, mir_param_deps_of_var (flow->deps, place->node,
                                                use->u.variable.name));
}

static void
flow_control_sources (gpointer data, const TildeStmt *stmt, GPtrArray *names)
{
  Flow *flow = data;
  const Place *place = g_hash_table_lookup (flow->stmts, &stmt->span);

  if (place)
    append_names (names, mir_param_deps_of_running (flow->deps, place->node));
}

/* ---- entry points ---- */

void
tilde_warnings_pedantic (const TildeProgram *program, GPtrArray *diagnostics)
{
  g_autoptr (GPtrArray) found = tilde_diagnostic_list_new ();
  g_autoptr (MirProgram) mir = NULL;
  Flow flow = { 0 };
  TildePedanticFlow questions = {
    &flow, flow_track, flow_definition, flow_value_sources, flow_control_sources,
  };

  g_return_if_fail (program != NULL && diagnostics != NULL);
  mir = mir_lower_program (program);
  if (mir == NULL)
    {
      /* something is untyped: the tree alone says what it can */
      tilde_pedantic_check_tree (program, NULL, found);
      mir_add_warnings (found, diagnostics);
      return;
    }
  mir_uninitialized_warnings (mir, found);
  /* in pedantic mode they are pedantic warnings like the others */
  for (guint i = 0; i < found->len; i++)
    ((TildeDiagnostic *) g_ptr_array_index (found, i))->kind = TILDE_DIAG_PEDANTIC;
  flow_init (&flow, program, mir);
  mir_param_dependence_warnings_of (mir, ((Region *) g_ptr_array_index (flow.regions, 0))->graph,
                                    flow.deps, found);
  tilde_pedantic_check_tree (program, &questions, found);
  flow_clear (&flow);
  mir_add_warnings (found, diagnostics);
}

void
tilde_warnings_uninitialized (const TildeProgram *program, GPtrArray *diagnostics)
{
  g_autoptr (MirProgram) mir = NULL;

  g_return_if_fail (program != NULL && diagnostics != NULL);
  mir = mir_lower_program (program);
  if (mir)
    mir_uninitialized_warnings (mir, diagnostics);
}
