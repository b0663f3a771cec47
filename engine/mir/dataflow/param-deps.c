/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/param-deps.h"

#include <string.h>

#include "mir/dataflow/diagnostics.h"
#include "mir/dataflow/dominators.h"
#include "mir/dataflow/program-info.h"

/* The pairs (x, s) a fact may hold are numbered per variable: x's are
 * first_pair[x] .. first_pair[x + 1] - 1, and pair_source gives the source
 * of each. Only the pairs that some chain of reads, writes and controlled
 * writes can produce are numbered (see may_depend), which keeps the facts
 * small: most variables depend on a few sources or none. A variable whose
 * value no node reads (the target, which is only ever added to) has no
 * pairs: nothing can follow from what it depends on. */

/* What a node does to a variable. */
enum {
  CHANGE_ENDS = 1 << 0,      /* kills it or ends its scope */
  CHANGE_WRITES = 1 << 1,    /* gives it a value, in whole or in part */
  CHANGE_WHOLE = 1 << 2,     /* kills it */
};

typedef struct {
  guint var;
  guint how;
} Change;

typedef struct {
  MirParamDeps *deps;
  guint         n_vars;
  guint        *source_of_var;   /* per variable: its source number, or MIR_FLOW_NONE */
  GArray      **read_vars;       /* per node: guint variables it reads the values of */
  MirBitset    *read;            /* the variables some node reads the value of */
  GArray      **changes;         /* per node: Change */
  guint        *self_update;     /* per node: the one variable it changes, only adding
                                  * to it what it reads, as `target +=` does; or
                                  * MIR_FLOW_NONE */
  MirBitset    *from;            /* the transfer's, reused */
  gboolean      from_dirty;      /* `from` may hold members */
  gboolean     *controlled;      /* per node: its control is not empty */
} Context;

/* ---- a variable's slice of the fact ---- */

static void
var_sources (const MirParamDeps *d, const MirBitset *fact, guint x, MirBitset *out)
{
  for (guint k = d->first_pair[x]; k < d->first_pair[x + 1]; k++)
    if (mir_bitset_contains (fact, k))
      mir_bitset_add (out, d->pair_source[k]);
}

static void
var_clear (const MirParamDeps *d, MirBitset *fact, guint x)
{
  for (guint k = d->first_pair[x]; k < d->first_pair[x + 1]; k++)
    mir_bitset_remove (fact, k);
}

/* The pair (x, s), or MIR_FLOW_NONE when it is not numbered. A variable's
 * pairs are in the order of their sources. */
static guint
find_pair (const MirParamDeps *d, guint x, guint s)
{
  guint lo = d->first_pair[x], hi = d->first_pair[x + 1];

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (d->pair_source[mid] < s)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < d->first_pair[x + 1] && d->pair_source[lo] == s ? lo : MIR_FLOW_NONE;
}

static void
var_add (const MirParamDeps *d, MirBitset *fact, guint x, const MirBitset *sources)
{
  guint first = d->first_pair[x], last = d->first_pair[x + 1];

  /* a variable that may depend on many sources is updated by going
   * through the few sources at hand */
  if (last - first > 64)
    {
      for (int s = mir_bitset_next (sources, 0); s >= 0;
           s = mir_bitset_next (sources, (guint) s + 1))
        {
          guint k = find_pair (d, x, (guint) s);
          if (k != MIR_FLOW_NONE)
            mir_bitset_add (fact, k);
        }
      return;
    }
  for (guint k = first; k < last; k++)
    if (mir_bitset_contains (sources, d->pair_source[k]))
      mir_bitset_add (fact, k);
}

/* The pair (x, s), which must be numbered. */
static guint
pair_of (const MirParamDeps *d, guint x, guint s)
{
  guint k = find_pair (d, x, s);

  g_return_val_if_fail (k != MIR_FLOW_NONE, 0);
  return k;
}

/* The sources of what node v reads, leaving out the variable `skip`. */
static void
sources_of_reads (const Context *c, const MirBitset *fact, guint v, guint skip, MirBitset *out)
{
  const GArray *reads = c->read_vars[v];

  for (guint i = 0; i < reads->len; i++)
    if (g_array_index (reads, guint, i) != skip)
      var_sources (c->deps, fact, g_array_index (reads, guint, i), out);
}

typedef struct {
  const MirVarIndex *vars;
  MirBitset         *set;
} ValueReads;

static void
add_value_reads (MirExpr *e, gpointer data)
{
  ValueReads *r = data;

  mir_expr_add_value_reads (e, r->vars, r->set);
}

/* Whether some variable node v reads may depend on a source. */
static gboolean
reads_have_pairs (const Context *c, guint v)
{
  const MirParamDeps *d = c->deps;
  const GArray *reads = c->read_vars[v];

  for (guint i = 0; i < reads->len; i++)
    {
      guint x = g_array_index (reads, guint, i);
      if (d->first_pair[x] != d->first_pair[x + 1])
        return TRUE;
    }
  return FALSE;
}

static void
deps_transfer (const MirFlowGraph *graph, guint node, MirBitset *fact, gpointer ud)
{
  Context *c = ud;
  const MirParamDeps *d = c->deps;
  const GArray *changes = c->changes[node];
  MirBitset *from = c->from;
  gboolean any = FALSE;

  /* nothing to do when no variable it changes has pairs (`target +=`) */
  for (guint i = 0; i < changes->len && !any; i++)
    any = d->first_pair[g_array_index (changes, Change, i).var]
          != d->first_pair[g_array_index (changes, Change, i).var + 1];
  if (!any)
    return;
  if (c->controlled[node])
    mir_bitset_assign (from, d->control[node]);
  else if (c->from_dirty)
    mir_bitset_clear (from);
  c->from_dirty = c->controlled[node] || reads_have_pairs (c, node);
  /* what x already depends on, x keeps: no need to read it */
  sources_of_reads (c, fact, node, c->self_update[node], from);
  for (guint i = 0; i < changes->len; i++)
    {
      const Change *change = &g_array_index (changes, Change, i);
      guint x = change->var;
      gboolean whole = change->how & CHANGE_WHOLE;
      gboolean written = change->how & CHANGE_WRITES;

      if (change->how & CHANGE_ENDS)
        var_clear (d, fact, x);
      if (written)
        var_add (d, fact, x, from);
      if ((whole || written) && c->source_of_var[x] != MIR_FLOW_NONE)
        {
          /* a source depends on itself, whatever it is computed from */
          var_clear (d, fact, x);
          mir_bitset_add (fact, pair_of (d, x, c->source_of_var[x]));
        }
    }
}

/* ---- the pairs that can hold ---- */

/* Per variable, the sources it may depend on anywhere, whatever the order
 * of the statements: what a node reads and what controls it flow into what
 * it writes, until nothing changes. The facts of a round never hold more.
 * NULL for a variable that depends on none. */
static MirBitset **
may_depend (const Context *c, const MirFlowGraph *graph)
{
  const MirParamDeps *d = c->deps;
  MirBitset **src = g_new (MirBitset *, c->n_vars);
  g_autofree gboolean *any = g_new0 (gboolean, c->n_vars);   /* src[x] is not empty */
  g_autoptr (MirBitset) in = mir_bitset_new (d->n_sources);
  gboolean changed = TRUE, dirty = FALSE;   /* dirty: `in` may hold members */

  for (guint x = 0; x < c->n_vars; x++)
    {
      src[x] = mir_bitset_new (d->n_sources);
      any[x] = c->source_of_var[x] != MIR_FLOW_NONE;
      if (any[x])
        mir_bitset_add (src[x], c->source_of_var[x]);
    }
  while (changed)
    {
      changed = FALSE;
      for (guint v = 0; v < graph->n_nodes; v++)
        {
          const GArray *reads = c->read_vars[v], *changes = c->changes[v];
          gboolean some = FALSE;

          if (changes->len == 0)
            continue;
          /* most of these sets are empty: they are only looked at when not */
          if (c->controlled[v])
            {
              mir_bitset_assign (in, d->control[v]);
              some = TRUE;
            }
          else if (dirty)
            mir_bitset_clear (in);
          dirty = some;
          for (guint i = 0; i < reads->len; i++)
            if (any[g_array_index (reads, guint, i)])
              {
                mir_bitset_union (in, src[g_array_index (reads, guint, i)]);
                some = dirty = TRUE;
              }
          for (guint i = 0; some && i < changes->len; i++)
            {
              const Change *change = &g_array_index (changes, Change, i);
              if ((change->how & CHANGE_WRITES) && mir_bitset_contains (c->read, change->var)
                  && mir_bitset_union (src[change->var], in))
                changed = any[change->var] = TRUE;
            }
        }
    }
  for (guint x = 0; x < c->n_vars; x++)
    if (!any[x])
      g_clear_pointer (&src[x], mir_bitset_free);
  return src;
}

static void
number_pairs (const Context *c, const MirFlowGraph *graph)
{
  MirParamDeps *d = c->deps;
  MirBitset **src = may_depend (c, graph);
  GArray *sources = g_array_new (FALSE, FALSE, sizeof (guint));

  g_free (d->first_pair);
  d->first_pair = g_new (guint, c->n_vars + 1);
  for (guint x = 0; x < c->n_vars; x++)
    {
      d->first_pair[x] = sources->len;
      if (!src[x])
        continue;
      for (int s = mir_bitset_next (src[x], 0); s >= 0;
           s = mir_bitset_next (src[x], (guint) s + 1))
        {
          guint source = (guint) s;
          g_array_append_val (sources, source);
        }
      mir_bitset_free (src[x]);
    }
  d->first_pair[c->n_vars] = sources->len;
  d->n_pairs = sources->len;
  g_free (d->pair_source);
  d->pair_source = (guint *) g_array_free (sources, FALSE);
  g_free (src);
}

/* "x←a" for every numbered pair. */
static GPtrArray *
pair_labels (const Context *c)
{
  const MirParamDeps *d = c->deps;
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);

  for (guint x = 0; x < c->n_vars; x++)
    for (guint k = d->first_pair[x]; k < d->first_pair[x + 1]; k++)
      g_ptr_array_add (labels, g_strconcat (mir_var_index_name (d->effects->vars, x), "←",
                                            d->sources[d->pair_source[k]], NULL));
  g_ptr_array_add (labels, NULL);
  return labels;
}

static MirSetFacts *
solve_round (MirFlowGraph *graph, Context *c, gboolean record)
{
  MirParamDeps *d = c->deps;
  MirSetProblem problem = { 0 };
  g_autoptr (GPtrArray) labels = NULL;
  g_autoptr (MirBitset) boundary = NULL;

  number_pairs (c, graph);
  /* at entry each source depends on itself */
  boundary = mir_bitset_new (d->n_pairs);
  for (guint x = 0; x < c->n_vars; x++)
    if (c->source_of_var[x] != MIR_FLOW_NONE)
      mir_bitset_add (boundary, pair_of (d, x, c->source_of_var[x]));
  labels = pair_labels (c);
  problem.direction = MIR_DATAFLOW_FORWARD;
  problem.n_bits = d->n_pairs;
  problem.labels = (const char *const *) labels->pdata;
  problem.boundary = boundary;
  problem.transfer = deps_transfer;
  problem.user_data = c;
  problem.record = record;
  return mir_set_facts_solve (graph, &problem);
}

/* New decisions and control from the current facts; TRUE when the control
 * of some node grew. */
static gboolean
update_control (const Context *c, const MirFlowGraph *graph, GArray **cd)
{
  MirParamDeps *d = c->deps;
  gboolean grew = FALSE;

  for (guint b = 0; b < graph->n_nodes; b++)
    if (graph->nodes[b].n_succs > 1)
      {
        mir_bitset_assign (d->decisions[b], d->control[b]);
        sources_of_reads (c, mir_set_facts_before_node (d->facts, b), b, MIR_FLOW_NONE,
                          d->decisions[b]);
      }
  /* only branching nodes decide anything */
  for (guint b = 0; b < graph->n_nodes; b++)
    {
      if (graph->nodes[b].n_succs < 2 || mir_bitset_is_empty (d->decisions[b]))
        continue;
      for (guint i = 0; i < cd[b]->len; i++)
        {
          guint n = g_array_index (cd[b], guint, i);
          grew |= mir_bitset_union (d->control[n], d->decisions[b]);
          c->controlled[n] = TRUE;
        }
    }
  return grew;
}

static void
set_sources (MirParamDeps *d, const char *const *sources)
{
  GPtrArray *names = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; sources && sources[i]; i++)
    {
      const char *name = g_intern_string (sources[i]);
      if (g_hash_table_add (seen, (gpointer) name))
        g_ptr_array_add (names, (gpointer) name);
    }
  d->n_sources = names->len;
  g_ptr_array_add (names, NULL);
  d->sources = (const char **) g_ptr_array_free (names, FALSE);
}

static GArray *
members (const MirBitset *set)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));

  for (int x = mir_bitset_next (set, 0); x >= 0; x = mir_bitset_next (set, (guint) x + 1))
    {
      guint member = (guint) x;
      g_array_append_val (out, member);
    }
  return out;
}

/* What node v does to each variable it changes. */
static GArray *
node_changes (const MirEffects *fx, guint v, MirBitset *changed)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Change));
  const MirBitset *none = mir_effects_empty (fx);

  if (fx->writes[v] == none && fx->kills[v] == none && fx->scope_ends[v] == none)
    return out;
  mir_bitset_assign (changed, fx->writes[v]);
  mir_bitset_union (changed, fx->kills[v]);
  mir_bitset_union (changed, fx->scope_ends[v]);
  for (int x = mir_bitset_next (changed, 0); x >= 0; x = mir_bitset_next (changed, (guint) x + 1))
    {
      Change change = { (guint) x, 0 };
      if (mir_bitset_contains (fx->kills[v], change.var))
        change.how |= CHANGE_WHOLE | CHANGE_ENDS;
      if (mir_bitset_contains (fx->scope_ends[v], change.var))
        change.how |= CHANGE_ENDS;
      if (mir_bitset_contains (fx->writes[v], change.var))
        change.how |= CHANGE_WRITES;
      g_array_append_val (out, change);
    }
  return out;
}

static void
init_node_sets (MirParamDeps *d, Context *c, const MirFlowGraph *graph)
{
  const MirEffects *fx = d->effects;
  g_autoptr (MirBitset) changed = mir_bitset_new (c->n_vars);
  g_autoptr (MirBitset) reads = mir_bitset_new (c->n_vars);

  d->n_nodes = graph->n_nodes;
  d->pool = mir_bitset_pool_new (c->n_vars);
  d->reads = g_new (MirBitset *, graph->n_nodes);
  d->control = g_new (MirBitset *, graph->n_nodes);
  d->decisions = g_new (MirBitset *, graph->n_nodes);
  c->read_vars = g_new (GArray *, graph->n_nodes);
  c->changes = g_new (GArray *, graph->n_nodes);
  c->self_update = g_new (guint, graph->n_nodes);
  c->from = mir_bitset_new (d->n_sources);
  c->read = mir_bitset_new (c->n_vars);
  c->controlled = g_new0 (gboolean, graph->n_nodes);
  for (guint v = 0; v < graph->n_nodes; v++)
    {
      ValueReads r = { fx->vars, reads };
      if (graph->nodes[v].stmt)
        mir_stmt_foreach_expr ((MirStmt *) graph->nodes[v].stmt, add_value_reads, &r);
      c->read_vars[v] = members (reads);
      mir_bitset_union (c->read, reads);
      d->reads[v] = (MirBitset *) (c->read_vars[v]->len ? mir_bitset_pool_copy (d->pool, reads)
                                                        : mir_bitset_pool_empty (d->pool));
      d->control[v] = mir_bitset_new (d->n_sources);
      d->decisions[v] = mir_bitset_new (d->n_sources);
      c->changes[v] = node_changes (fx, v, changed);
      c->self_update[v] = MIR_FLOW_NONE;
      if (c->changes[v]->len == 1
          && g_array_index (c->changes[v], Change, 0).how == CHANGE_WRITES
          && mir_bitset_contains (reads, g_array_index (c->changes[v], Change, 0).var))
        c->self_update[v] = g_array_index (c->changes[v], Change, 0).var;
      for (guint i = 0; i < c->read_vars[v]->len; i++)
        mir_bitset_remove (reads, g_array_index (c->read_vars[v], guint, i));
    }
}

static void
context_clear (Context *c, guint n_nodes)
{
  for (guint v = 0; v < n_nodes; v++)
    {
      g_array_unref (c->read_vars[v]);
      g_array_unref (c->changes[v]);
    }
  g_free (c->read_vars);
  g_free (c->changes);
  g_free (c->self_update);
  mir_bitset_free (c->read);
  g_free (c->controlled);
  mir_bitset_free (c->from);
  g_free (c->source_of_var);
}

MirParamDeps *
mir_param_dependence (MirFlowGraph *graph, const char *const *sources, gboolean record)
{
  MirParamDeps *d = g_new0 (MirParamDeps, 1);
  Context c = { .deps = d };
  GArray **cd = mir_control_dependence_lists (graph);

  d->effects = mir_effects_new (graph, sources);
  set_sources (d, sources);
  c.n_vars = mir_var_index_size (d->effects->vars);
  c.source_of_var = g_new (guint, c.n_vars);
  for (guint x = 0; x < c.n_vars; x++)
    c.source_of_var[x] = MIR_FLOW_NONE;
  for (guint s = 0; s < d->n_sources; s++)
    c.source_of_var[mir_var_index_lookup (d->effects->vars, d->sources[s])] = s;
  init_node_sets (d, &c, graph);
  for (;;)
    {
      d->facts = solve_round (graph, &c, record);
      d->n_rounds++;
      if (!update_control (&c, graph, cd))
        break;
      mir_set_facts_free (d->facts);
    }
  mir_control_dependence_lists_free (cd, graph->n_nodes);
  context_clear (&c, graph->n_nodes);
  return d;
}

void
mir_param_deps_free (MirParamDeps *d)
{
  if (!d)
    return;
  for (guint v = 0; v < d->n_nodes; v++)
    {
      mir_bitset_free (d->control[v]);
      mir_bitset_free (d->decisions[v]);
    }
  mir_bitset_pool_free (d->pool);
  g_free (d->reads);
  g_free (d->control);
  g_free (d->decisions);
  mir_set_facts_free (d->facts);
  mir_effects_free (d->effects);
  g_free (d->sources);
  g_free (d->first_pair);
  g_free (d->pair_source);
  g_free (d);
}

static const char **
names_of (const MirParamDeps *d, const MirBitset *set)
{
  const char **names = g_new0 (const char *, mir_bitset_count (set) + 1);
  guint n = 0;

  for (int s = mir_bitset_next (set, 0); s >= 0; s = mir_bitset_next (set, (guint) s + 1))
    names[n++] = d->sources[s];
  return names;
}

const char **
mir_param_deps_of_var (const MirParamDeps *d, guint node, const char *var)
{
  guint x = mir_var_index_lookup (d->effects->vars, var);
  const MirBitset *fact;
  const char **names;
  guint n = 0;

  g_return_val_if_fail (node < d->n_nodes, NULL);
  if (x == MIR_FLOW_NONE)
    return g_new0 (const char *, 1);
  /* a variable's pairs are in the order of their sources */
  fact = mir_set_facts_before_node (d->facts, node);
  names = g_new0 (const char *, d->first_pair[x + 1] - d->first_pair[x] + 1);
  for (guint k = d->first_pair[x]; k < d->first_pair[x + 1]; k++)
    if (mir_bitset_contains (fact, k))
      names[n++] = d->sources[d->pair_source[k]];
  return names;
}

/* The sources of `e` evaluated at `node` and of what controls the node. */
static MirBitset *
expr_sources (const MirParamDeps *d, guint node, const MirExpr *e)
{
  MirBitset *set = mir_bitset_copy (d->control[node]);
  g_autoptr (MirBitset) vars = mir_bitset_new (mir_var_index_size (d->effects->vars));
  const MirBitset *fact = mir_set_facts_before_node (d->facts, node);

  mir_expr_add_value_reads (e, d->effects->vars, vars);
  for (int x = mir_bitset_next (vars, 0); x >= 0; x = mir_bitset_next (vars, (guint) x + 1))
    var_sources (d, fact, (guint) x, set);
  return set;
}

const char **
mir_param_deps_of_expr (const MirParamDeps *d, guint node, const MirExpr *e)
{
  g_autoptr (MirBitset) set = NULL;

  g_return_val_if_fail (node < d->n_nodes, NULL);
  set = expr_sources (d, node, e);
  return names_of (d, set);
}

const char **
mir_param_deps_of_running (const MirParamDeps *d, guint node)
{
  g_return_val_if_fail (node < d->n_nodes, NULL);
  return names_of (d, d->control[node]);
}

const char **
mir_param_deps_of_decision (const MirParamDeps *d, guint node)
{
  g_return_val_if_fail (node < d->n_nodes, NULL);
  return names_of (d, d->decisions[node]);
}

/* ---- warnings ---- */

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* "a, b", sorted as the Stan compiler sorts sets of names. */
static char *
name_list (const char **names)
{
  guint n = g_strv_length ((char **) names);

  qsort (names, n, sizeof (char *), compare_names);
  return g_strjoinv (", ", (char **) names);
}

static gboolean
is_control_flow (const MirStmt *s)
{
  return s && (s->kind == MIR_STMT_IF || s->kind == MIR_STMT_WHILE || s->kind == MIR_STMT_FOR);
}

/* The names in `sources` of the sources that warnings name. */
static const char **
named_only (const MirParamDeps *d, const MirBitset *sources, const MirBitset *named)
{
  g_autoptr (MirBitset) set = mir_bitset_copy (sources);

  mir_bitset_intersect (set, named);
  return names_of (d, set);
}

static void
warn_parameter_control (const MirParamDeps *d, const MirFlowGraph *graph,
                        const MirBitset *named, GPtrArray *out)
{
  for (guint b = 0; b < graph->n_nodes; b++)
    {
      const MirStmt *s = graph->nodes[b].stmt;
      g_autofree const char **names = NULL;
      g_autofree char *list = NULL;

      if (!is_control_flow (s) || !mir_bitset_intersects (d->decisions[b], named)
          || !mir_span_is_located (&s->span))
        continue;
      names = named_only (d, d->decisions[b], named);
      list = name_list (names);
      g_ptr_array_add (out, mir_warning_at (TILDE_DIAG_PEDANTIC, &s->span,
                                            g_strdup_printf ("A control flow statement "
                                                             "depends on parameter(s): %s.",
                                                             list)));
    }
}

/* The name of the function a call calls: foo_lupdf and foo_lpdf name the
 * same one. */
static const char *
called_function (const char *called)
{
  gsize n = strlen (called);
  g_autofree char *normalized = NULL;

  if (n <= 6 || !(g_str_has_suffix (called, "_lupdf") || g_str_has_suffix (called, "_lupmf")))
    return called;
  normalized = g_strdup_printf ("%.*s_l%s", (int) (n - 6), called, called + n - 3);
  return g_intern_string (normalized);
}

/* A call of a user function in log_prob. */
typedef struct {
  guint            node;
  const GPtrArray *args;
} Call;

typedef struct {
  GHashTable *calls;    /* function name -> GArray of Call */
  guint       node;
} CallScan;

static void
add_call (CallScan *scan, const MirFun *fun, const GPtrArray *args)
{
  const char *name = called_function (fun->name);
  GArray *list = g_hash_table_lookup (scan->calls, name);
  Call call = { scan->node, args };

  if (!list)
    {
      list = g_array_new (FALSE, FALSE, sizeof (Call));
      g_hash_table_insert (scan->calls, (gpointer) name, list);
    }
  g_array_append_val (list, call);
}

static void
find_calls (MirExpr *e, gpointer data)
{
  if (e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_USER)
    add_call (data, &e->u.call.fun, e->u.call.args);
  mir_expr_foreach_child (e, find_calls, data);
}

/* The calls of user functions in log_prob, by the name of the function. */
static GHashTable *
user_calls (const MirFlowGraph *log_prob)
{
  CallScan scan = { g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref),
                    0 };

  for (guint v = 0; v < log_prob->n_nodes; v++)
    {
      const MirStmt *s = log_prob->nodes[v].stmt;
      if (!s)
        continue;
      scan.node = v;
      if (s->kind == MIR_STMT_NR_CALL && s->u.call.fun.kind == MIR_FUN_USER)
        add_call (&scan, &s->u.call.fun, s->u.call.args);
      mir_stmt_foreach_expr ((MirStmt *) s, find_calls, &scan);
    }
  return scan.calls;
}

typedef struct {
  const MirFunDef    *fun;
  const MirParamDeps *inside;     /* the function body, sources its arguments */
  const MirFlowGraph *body;
  const MirParamDeps *caller;     /* log_prob */
  const MirBitset    *named;      /* the caller's sources that warnings name */
  GPtrArray          *out;
} CallCheck;

static void
check_call_args (const CallCheck *k, const Call *call)
{
  const GPtrArray *args = call->args;

  for (guint b = 0; b < k->body->n_nodes; b++)
    {
      const MirStmt *cf = k->body->nodes[b].stmt;
      const MirBitset *on = k->inside->decisions[b];

      if (!is_control_flow (cf) || !mir_span_is_located (&cf->span))
        continue;
      for (int a = mir_bitset_next (on, 0); a >= 0; a = mir_bitset_next (on, (guint) a + 1))
        {
          const MirExpr *arg;
          g_autofree const char **params = NULL;
          g_autofree char *list = NULL, *at = NULL;
          g_autoptr (MirBitset) set = NULL;

          if (!args || (guint) a >= args->len)
            continue;
          arg = g_ptr_array_index (args, a);
          set = expr_sources (k->caller, call->node, arg);
          params = named_only (k->caller, set, k->named);
          if (!params[0])
            continue;
          list = name_list (params);
          at = mir_span_to_string (&arg->span);
          g_ptr_array_add (k->out,
                           mir_warning_at (TILDE_DIAG_PEDANTIC, &cf->span,
                                           g_strdup_printf ("A control flow statement inside "
                                                            "function %s depends on argument "
                                                            "%s. At %s, the value of %s "
                                                            "depends on parameter(s): %s.",
                                                            k->fun->name,
                                                            k->inside->sources[a], at,
                                                            k->inside->sources[a], list)));
        }
    }
}

static void
find_control_flow (MirStmt *s, gpointer data)
{
  gboolean *found = data;

  *found |= is_control_flow (s);
}

static void
warn_function_control (const MirFunDef *fun, const GArray *calls, const MirParamDeps *caller,
                       const MirBitset *named, GPtrArray *out)
{
  g_autofree const char **args = NULL;
  g_autoptr (MirFlowGraph) body = NULL;
  MirParamDeps *inside;
  gboolean branches = FALSE;

  mir_stmt_walk (fun->body, find_control_flow, &branches);
  if (!branches)
    return;
  args = mir_fun_def_arg_names (fun);
  body = mir_flow_graph_new (fun->body, MIR_FLOW_GRAPH_DEFAULT);
  inside = mir_param_dependence (body, args, FALSE);
  for (guint i = 0; i < calls->len; i++)
    {
      CallCheck k = { fun, inside, body, caller, named, out };
      check_call_args (&k, &g_array_index (calls, Call, i));
    }
  mir_param_deps_free (inside);
}

void
mir_param_dependence_warnings_of (const MirProgram *program, const MirFlowGraph *log_prob,
                                  const MirParamDeps *deps, GPtrArray *diagnostics)
{
  g_autofree const char **params = mir_program_parameter_names (program);
  g_autofree const char **silent = mir_program_silent_names (program);
  g_autoptr (GHashTable) quiet = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) is_param = g_hash_table_new (NULL, NULL);
  g_autoptr (MirBitset) named = mir_bitset_new (deps->n_sources);
  g_autoptr (GPtrArray) found = tilde_diagnostic_list_new ();
  g_autoptr (GHashTable) calls = NULL;

  for (guint i = 0; params[i]; i++)
    g_hash_table_add (is_param, (gpointer) params[i]);
  for (guint i = 0; silent[i]; i++)
    g_hash_table_add (quiet, (gpointer) silent[i]);
  /* sources and names are interned */
  for (guint s = 0; s < deps->n_sources; s++)
    if (g_hash_table_contains (is_param, deps->sources[s])
        && !g_hash_table_contains (quiet, deps->sources[s]))
      mir_bitset_add (named, s);
  warn_parameter_control (deps, log_prob, named, found);
  calls = user_calls (log_prob);
  for (guint i = 0; program->functions && i < program->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (program->functions, i);
      const GArray *to_f = g_hash_table_lookup (calls, g_intern_string (f->name));
      if (f->body && to_f)
        warn_function_control (f, to_f, deps, named, found);
    }
  mir_add_warnings (found, diagnostics);
}

void
mir_param_dependence_warnings (const MirProgram *program, GPtrArray *diagnostics)
{
  g_autofree const char **params = mir_program_parameter_names (program);
  const GPtrArray *lists[] = { program->parts[MIR_PART_LOG_PROB] };
  g_autoptr (MirFlowGraph) graph = mir_flow_graph_new_for_lists (lists, 1,
                                                                 MIR_FLOW_GRAPH_DEFAULT);
  MirParamDeps *deps = mir_param_dependence (graph, params, FALSE);

  mir_param_dependence_warnings_of (program, graph, deps, diagnostics);
  mir_param_deps_free (deps);
}
