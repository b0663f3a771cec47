/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reaching definitions (forward, may): which assignments of each variable
 * may have produced the value it has at a point.
 *
 * A definition is a node that declares a variable or gives it a value in
 * whole or in part (x = e, x[i] = e, a declaration, a loop variable, a
 * `target +=`), plus one definition "at entry" for each variable that
 * comes from outside the graph (data, parameters, function arguments).
 * Only whole assignments, declarations and loop variables kill earlier
 * definitions: after x[i] = e, the definitions of the rest of x still reach.
 * A variable's definitions stop at the end of the block that declares it.
 *
 * Facts are sets of definitions labelled "x@5" (node 5 defines x) or
 * "x@entry".
 */
#pragma once

#include "mir/dataflow/effects.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

typedef struct {
  MirSetFacts *facts;
  MirEffects  *effects;
  guint        n_defs;
  guint       *def_var;    /* per definition: the variable's number */
  guint       *def_node;   /* per definition: its node (the graph's entry for outside) */
  /* private: the definitions of variable x are var_defs[first_of_var[x]]
   * up to var_defs[first_of_var[x + 1]], in increasing order */
  guint       *first_of_var;
  guint       *var_defs;
} MirReachingDefs;

/* `outside`: the variables defined before the graph runs (NULL-terminated;
 * may be NULL). */
MirReachingDefs *mir_reaching_definitions (MirFlowGraph *graph, const char *const *outside,
                                           gboolean record);
/* The same for the definitions of the variables in `tracked` only
 * (NULL-terminated; NULL: all), for a client that asks about a few. */
MirReachingDefs *mir_reaching_definitions_of (MirFlowGraph *graph, const char *const *outside,
                                              const char *const *tracked, gboolean record);
void             mir_reaching_defs_free   (MirReachingDefs *rd);

/* The nodes whose definitions of `var` reach just before `node`, in
 * increasing order (the entry node stands for outside). */
GArray          *mir_reaching_defs_of     (const MirReachingDefs *rd, guint node, const char *var);

G_END_DECLS
