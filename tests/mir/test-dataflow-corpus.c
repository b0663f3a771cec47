/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every analysis on every model of the corpora: the valid models of the
 * syntax tests, the MIR test fixtures and the reference posteriors
 * ($TILDE_REFERENCE_DIR/<name>/model.stan; skipped when absent), on the
 * MIR as lowered and as transformed, for every program part and function.
 * Each solution must have converged, agree with itself at every join
 * (what flows into a node is the join of what flows out of its sources),
 * and replay from its recorded steps; liveness must satisfy its equations
 * node by node; the warnings must be well-formed.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir-test-util.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/dataflow/ad-levels.h"
#include "mir/dataflow/available-exprs.h"
#include "mir/dataflow/const-prop.h"
#include "mir/dataflow/copy-prop.h"
#include "mir/dataflow/dominators.h"
#include "mir/dataflow/effects.h"
#include "mir/dataflow/lazy-code-motion.h"
#include "mir/dataflow/liveness.h"
#include "mir/dataflow/param-deps.h"
#include "mir/dataflow/program-info.h"
#include "mir/dataflow/reaching-defs.h"
#include "mir/dataflow/uninitialized.h"

/* Converged, joins consistent, and (when recorded) replayable. */
static void
check_solution (const MirDataflowSolution *s)
{
  const MirFlowGraph *g = s->graph;
  const MirLattice *L = s->lattice;
  gboolean backward = s->direction == MIR_DATAFLOW_BACKWARD;
  guint start = backward ? g->exit : g->entry;

  g_assert_true (s->converged);
  for (guint v = 0; v < g->n_nodes; v++)
    {
      const MirFlowNode *node = &g->nodes[v];
      const guint *from = backward ? node->succs : node->preds;
      guint n_from = backward ? node->n_succs : node->n_preds;
      gpointer joined;

      if (v == start)
        continue;
      joined = L->bottom (s->user_data);
      for (guint i = 0; i < n_from; i++)
        L->join (joined, mir_dataflow_out (s, from[i]), s->user_data);
      g_assert_true (L->equal (joined, mir_dataflow_in (s, v), s->user_data));
      L->free (joined, s->user_data);
    }
  if (s->trace)
    {
      g_auto (GStrv) in = NULL;
      g_auto (GStrv) out = NULL;

      mir_dataflow_trace_replay (s->trace, G_MAXUINT, &in, &out);
      for (guint v = 0; v < g->n_nodes; v++)
        {
          g_autofree char *want_in = mir_dataflow_fact_to_string (s, mir_dataflow_in (s, v));
          g_autofree char *want_out = mir_dataflow_fact_to_string (s, mir_dataflow_out (s, v));
          g_assert_cmpstr (in[v], ==, want_in);
          g_assert_cmpstr (out[v], ==, want_out);
        }
    }
}

/* live-before = reads ∪ (live-after − kills − scope ends), node by node. */
static void
check_liveness (MirFlowGraph *g)
{
  g_autoptr (MirSetFacts) live = mir_liveness (g, NULL, TRUE);
  MirEffects *fx = mir_effects_new (g, NULL);

  check_solution (live->solution);
  for (guint v = 0; v < g->n_nodes; v++)
    {
      g_autoptr (MirBitset) want = mir_bitset_copy (mir_set_facts_after_node (live, v));

      if (g->nodes[v].kind != MIR_FLOW_NODE_STMT)
        continue;
      mir_bitset_subtract (want, fx->kills[v]);
      mir_bitset_subtract (want, fx->scope_ends[v]);
      mir_bitset_union (want, fx->reads[v]);
      g_assert_true (mir_bitset_equal (want, mir_set_facts_before_node (live, v)));
    }
  mir_effects_free (fx);
}

/* Control dependence is what the post-dominator sets say it is: y depends
 * on a branching b when it post-dominates a successor of b and does not
 * strictly post-dominate b. */
static void
check_control_dependence (MirFlowGraph *g, const MirSetFacts *pdom)
{
  MirBitset **cd = mir_control_dependence (g);
  g_autoptr (MirBitset) want = mir_bitset_new (g->n_nodes);
  g_autoptr (MirBitset) strict = mir_bitset_new (g->n_nodes);

  for (guint b = 0; b < g->n_nodes; b++)
    {
      mir_bitset_clear (want);
      if (g->nodes[b].n_succs >= 2)
        {
          for (guint i = 0; i < g->nodes[b].n_succs; i++)
            mir_bitset_union (want, mir_set_facts_before_node (pdom, g->nodes[b].succs[i]));
          mir_bitset_assign (strict, mir_set_facts_before_node (pdom, b));
          mir_bitset_remove (strict, b);
          mir_bitset_subtract (want, strict);
        }
      g_assert_true (mir_bitset_equal (cd[b], want));
    }
  mir_control_dependence_free (cd, g->n_nodes);
}

static void
analyse_graph (MirFlowGraph *g, const char *const *outside)
{
  MirReachingDefs *rd = mir_reaching_definitions (g, outside, TRUE);
  MirConstFacts *cp = mir_constant_propagation (g, TRUE);
  MirCopyFacts *copies = mir_copy_propagation (g, TRUE);
  MirAvailableExprs *ae = mir_available_expressions (g, TRUE);
  MirLazyCodeMotion *lcm = mir_lazy_code_motion (g, TRUE);
  MirAdLevels *ad = mir_ad_levels (g, outside, TRUE);
  MirParamDeps *deps = mir_param_dependence (g, outside, TRUE);
  g_autoptr (MirSetFacts) assigned = mir_assigned_variables (g, outside, TRUE);
  g_autoptr (MirSetFacts) dom = mir_dominators (g, FALSE);
  g_autoptr (MirSetFacts) pdom = mir_post_dominators (g, FALSE);
  g_autofree const char **ad_vars = NULL;

  check_liveness (g);
  check_control_dependence (g, pdom);
  check_solution (rd->facts->solution);
  check_solution (cp->solution);
  check_solution (copies->facts->solution);
  check_solution (ae->facts->solution);
  check_solution (lcm->anticipated->solution);
  check_solution (lcm->available->solution);
  check_solution (lcm->postponable->solution);
  check_solution (lcm->used->solution);
  check_solution (ad->facts->solution);
  check_solution (deps->facts->solution);
  check_solution (assigned->solution);
  check_solution (dom->solution);
  check_solution (pdom->solution);
  /* every reachable node is dominated by entry */
  for (guint v = 0; v < g->n_nodes; v++)
    if (mir_set_facts_after_node (dom, v) && mir_bitset_count (mir_set_facts_after_node (dom, v))
        < g->n_nodes)
      g_assert_true (mir_bitset_contains (mir_set_facts_after_node (dom, v), g->entry));
  ad_vars = mir_ad_levels_variables (ad);
  for (guint i = 0; outside && outside[i]; i++)
    {
      gboolean seen = FALSE;
      for (guint j = 0; ad_vars[j]; j++)
        seen |= strcmp (ad_vars[j], outside[i]) == 0;
      g_assert_true (seen);
    }
  mir_reaching_defs_free (rd);
  mir_const_facts_free (cp);
  mir_copy_facts_free (copies);
  mir_available_exprs_free (ae);
  mir_lazy_code_motion_free (lcm);
  mir_ad_levels_free (ad);
  mir_param_deps_free (deps);
}

static void
check_warnings (GPtrArray *warnings)
{
  for (guint i = 0; i < warnings->len; i++)
    {
      const TildeDiagnostic *d = g_ptr_array_index (warnings, i);
      g_assert_cmpint (d->severity, ==, TILDE_SEVERITY_WARNING);
      g_assert_cmpint (d->begin_line, >, 0);
      g_assert_true (d->message && *d->message);
      g_test_message ("%d:%d %s", d->begin_line, d->begin_column, d->message);
    }
}

static void
analyse_program (const MirProgram *p)
{
  g_autofree const char **params = mir_program_parameter_names (p);
  g_autoptr (GPtrArray) uninit = tilde_diagnostic_list_new ();
  g_autoptr (GPtrArray) pedantic = tilde_diagnostic_list_new ();

  for (guint part = 0; part < MIR_N_PARTS; part++)
    for (guint flags = 0; flags < 2; flags++)
      {
        const GPtrArray *lists[] = { p->parts[part] };
        g_autoptr (MirFlowGraph) g = mir_flow_graph_new_for_lists (lists, 1, flags);
        analyse_graph (g, part == MIR_PART_LOG_PROB ? params : NULL);
      }
  for (guint i = 0; p->functions && i < p->functions->len; i++)
    {
      const MirFunDef *f = g_ptr_array_index (p->functions, i);
      g_autofree const char **args = NULL;
      g_autoptr (MirFlowGraph) g = NULL;
      MirAdLevels *ad;

      if (!f->body)
        continue;
      args = mir_fun_def_arg_names (f);
      g = mir_flow_graph_new (f->body, MIR_FLOW_GRAPH_DEFAULT);
      analyse_graph (g, args);
      ad = mir_ad_levels_of_function (f);
      mir_ad_levels_free (ad);
    }
  for (guint part = 0; part < MIR_N_PARTS; part++)
    {
      MirAdLevels *ad = mir_ad_levels_of_part (p, part);
      g_autoptr (MirSetFacts) live = mir_liveness_of_part (p, part);
      check_solution (ad->facts->solution);
      check_solution (live->solution);
      mir_ad_levels_free (ad);
    }
  mir_uninitialized_warnings (p, uninit);
  mir_param_dependence_warnings (p, pedantic);
  check_warnings (uninit);
  check_warnings (pedantic);
}

static void
test_model (gconstpointer data)
{
  const char *path = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, NULL, &error);
  g_autoptr (MirProgram) p = NULL;
  g_autoptr (MirProgram) t = NULL;

  g_assert_no_error (error);
  if (tilde_check_result_has_errors (r))
    {
      /* the front end's business; there is no MIR to analyse */
      g_autofree char *why = tilde_check_result_render_first_error (r);
      g_test_skip_printf ("does not type-check:\n%s", why);
      return;
    }
  p = mir_lower_program (tilde_check_result_get_program (r));
  g_assert_nonnull (p);
  analyse_program (p);
  t = mir_transform_program (p);
  analyse_program (t);
}

static GPtrArray *
list_models (const char *dir, gboolean reference)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      char *path = reference ? g_build_filename (dir, name, "model.stan", NULL)
                             : g_build_filename (dir, name, NULL);
      if ((reference || g_str_has_suffix (name, ".stan")) && g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
  g_ptr_array_sort (out, (GCompareFunc) g_strcmp0);
  return out;
}

static void
add_tests (GPtrArray *paths, const char *prefix, gboolean by_directory)
{
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (by_directory ? dir : path);
      g_autofree char *name = g_strconcat (prefix, base, NULL);
      g_test_add_data_func (name, path, test_model);
    }
}

static void
test_reference_absent (void)
{
  g_test_skip ("TILDE_REFERENCE_DIR is not set or holds no models");
}

int
main (int argc, char **argv)
{
  g_autofree char *syntax_dir = NULL, *fixture_dir = NULL;
  g_autoptr (GPtrArray) syntax = NULL;
  g_autoptr (GPtrArray) fixtures = NULL;
  g_autoptr (GPtrArray) reference = NULL;
  const char *ref_dir;

  g_test_init (&argc, &argv, NULL);
  syntax_dir = g_test_build_filename (G_TEST_DIST, "syntax", "models", "valid", NULL);
  fixture_dir = g_test_build_filename (G_TEST_DIST, "mir", "models", NULL);
  ref_dir = g_getenv ("TILDE_REFERENCE_DIR");
  syntax = list_models (syntax_dir, FALSE);
  fixtures = list_models (fixture_dir, FALSE);
  reference = ref_dir ? list_models (ref_dir, TRUE) : g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpuint (syntax->len, >, 10);
  add_tests (syntax, "/mir/dataflow/corpus/syntax/", FALSE);
  add_tests (fixtures, "/mir/dataflow/corpus/fixtures/", FALSE);
  if (reference->len == 0)
    g_test_add_func ("/mir/dataflow/corpus/reference", test_reference_absent);
  add_tests (reference, "/mir/dataflow/corpus/reference/", TRUE);
  return g_test_run ();
}
