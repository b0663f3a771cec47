/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"

#include <string.h>

static const MirPass pass_table[] = {
  { "function_inlining", MIR_OPT_O1,
    "replace calls of non-recursive user-defined functions by their bodies",
    mir_pass_function_inlining },
  { "constant_propagation", MIR_OPT_O1,
    "replace reads of variables known to hold a constant by the constant",
    mir_pass_constant_propagation },
  { "copy_propagation", MIR_OPT_O1,
    "replace reads of a copy x = y by reads of y",
    mir_pass_copy_propagation },
  { "dead_code_elimination", MIR_OPT_O1,
    "remove assignments never read, branches never taken and empty statements",
    mir_pass_dead_code_elimination },
  { "one_step_loop_unrolling", MIR_OPT_EXPERIMENTAL,
    "run the first iteration of each loop before the loop",
    mir_pass_one_step_loop_unrolling },
  { "expression_propagation", MIR_OPT_EXPERIMENTAL,
    "replace reads of x = e by e where e has no effect",
    mir_pass_expression_propagation },
  { "partial_evaluation", MIR_OPT_O1,
    "fold constants and rewrite calls into faster or more stable functions",
    mir_pass_partial_evaluation },
  { "lazy_code_motion", MIR_OPT_EXPERIMENTAL,
    "compute repeated and loop-invariant expressions once, as late as possible",
    mir_pass_lazy_code_motion },
  { "static_loop_unrolling", MIR_OPT_EXPERIMENTAL,
    "write out loops with few constant iterations",
    mir_pass_static_loop_unrolling },
  { "list_collapsing", MIR_OPT_O1,
    "splice statement lists into the lists holding them",
    mir_pass_list_collapsing },
  { "optimize_ad_levels", MIR_OPT_EXPERIMENTAL,
    "declare data the variables whose values never depend on parameters",
    mir_pass_optimize_ad_levels },
  { "allow_uninitialized_decls", MIR_OPT_O1,
    "leave uninitialised the declarations assigned in the next statement",
    mir_pass_allow_uninitialized_decls },
  { "block_fixing", MIR_OPT_O1,
    "make the bodies of conditionals and loops blocks",
    mir_pass_block_fixing },
  { "optimize_soa", MIR_OPT_O1,
    "give the struct-of-arrays memory layout to the matrices that allow it",
    mir_pass_optimize_soa },
};

const MirPass *
mir_passes (guint *n_passes)
{
  if (n_passes)
    *n_passes = G_N_ELEMENTS (pass_table);
  return pass_table;
}

const MirPass *
mir_pass_lookup (const char *name)
{
  for (guint i = 0; name && i < G_N_ELEMENTS (pass_table); i++)
    if (strcmp (pass_table[i].name, name) == 0)
      return &pass_table[i];
  return NULL;
}

const char *
mir_opt_level_name (MirOptLevel level)
{
  switch (level)
    {
    case MIR_OPT_O0: return "O0";
    case MIR_OPT_O1: return "O1";
    case MIR_OPT_EXPERIMENTAL: return "Oexperimental";
    }
  g_return_val_if_reached ("O0");
}

gboolean
mir_opt_level_parse (const char *text, MirOptLevel *level)
{
  MirOptLevel l;

  if (!text)
    return FALSE;
  if (g_str_has_prefix (text, "--"))
    text += 2;
  if (strcmp (text, "O0") == 0)
    l = MIR_OPT_O0;
  else if (strcmp (text, "O1") == 0)
    l = MIR_OPT_O1;
  else if (strcmp (text, "Oexperimental") == 0 || strcmp (text, "O") == 0)
    l = MIR_OPT_EXPERIMENTAL;
  else
    return FALSE;
  if (level)
    *level = l;
  return TRUE;
}
