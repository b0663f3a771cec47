/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/pipeline.h"

#include "mir/mir-print.h"

/* stanc's phase order, with its reasons, is in Optimize.optimization_suite:
 * inlining first (more for everything else to work on), propagation before
 * dead code elimination, one-step unrolling before lazy code motion (so
 * that loop-invariant code can leave loops), expression propagation before
 * partial evaluation before lazy code motion, constant propagation before
 * static unrolling, dead code elimination after everything that leaves
 * dead code, and the layout passes last. */
static const char *const order[] = {
  "function_inlining",
  "constant_propagation",
  "copy_propagation",
  "constant_propagation",
  "dead_code_elimination",
  "one_step_loop_unrolling",
  "expression_propagation",
  "partial_evaluation",
  "lazy_code_motion",
  "copy_propagation",
  "constant_propagation",
  "static_loop_unrolling",
  "dead_code_elimination",
  "list_collapsing",
  "optimize_ad_levels",
  "allow_uninitialized_decls",
  "block_fixing",
  "optimize_soa",
};

const MirPass *const *
mir_pipeline_steps (MirOptLevel level, guint *n_steps)
{
  static const MirPass *steps[3][G_N_ELEMENTS (order) + 1];
  static guint counts[3];
  static gsize done = 0;

  g_return_val_if_fail (level <= MIR_OPT_EXPERIMENTAL, NULL);
  if (g_once_init_enter (&done))
    {
      for (guint l = 0; l < 3; l++)
        for (guint i = 0; i < G_N_ELEMENTS (order); i++)
          {
            const MirPass *pass = mir_pass_lookup (order[i]);
            g_assert (pass);
            if (l != MIR_OPT_O0 && pass->level <= (MirOptLevel) l)
              steps[l][counts[l]++] = pass;
          }
      g_once_init_leave (&done, 1);
    }
  if (n_steps)
    *n_steps = counts[level];
  return steps[level];
}

void
mir_pass_snapshot_free (MirPassSnapshot *snapshot)
{
  if (!snapshot)
    return;
  g_free (snapshot->text);
  if (snapshot->line_spans)
    g_array_unref (snapshot->line_spans);
  g_free (snapshot);
}

static MirPassSnapshot *
snapshot_of (const MirProgram *program, const MirPass *pass, gboolean changed)
{
  MirPassSnapshot *s = g_new0 (MirPassSnapshot, 1);

  s->pass = pass;
  s->name = pass ? pass->name : "input";
  s->changed = changed;
  s->text = mir_print_program (program, MIR_PRINT_DEFAULT, &s->line_spans);
  return s;
}

MirProgram *
mir_pipeline_run (const MirProgram *program, MirOptLevel level, GPtrArray **snapshots)
{
  MirProgram *p = mir_program_copy (program);
  guint n = 0;
  const MirPass *const *steps = mir_pipeline_steps (level, &n);
  GPtrArray *shots = NULL;

  if (snapshots)
    {
      shots = g_ptr_array_new_with_free_func ((GDestroyNotify) mir_pass_snapshot_free);
      g_ptr_array_add (shots, snapshot_of (p, NULL, FALSE));
    }
  for (guint i = 0; i < n; i++)
    {
      gboolean changed = steps[i]->run (p);
      if (shots)
        g_ptr_array_add (shots, snapshot_of (p, steps[i], changed));
    }
  if (snapshots)
    *snapshots = shots;
  return p;
}

char *
mir_pipeline_debug_text (const GPtrArray *snapshots)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; snapshots && i < snapshots->len; i++)
    {
      const MirPassSnapshot *s = g_ptr_array_index (snapshots, i);
      if (!s->pass || !s->changed)
        continue;
      g_string_append_printf (out, "--- after %s: %s ---\n", s->name, s->pass->description);
      g_string_append (out, s->text);
    }
  return g_string_free (out, FALSE);
}
