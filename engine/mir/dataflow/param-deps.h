/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Parameter dependence (forward, may): which of a set of source variables
 * (the parameters, or a function's arguments) each variable's value may
 * depend on, through data (x = f(a)) and through control (x assigned under
 * `if (a > 0)`, or after a `break` that depends on a), for the pedantic
 * warnings about control flow that depends on parameters.
 *
 * Sizes are fixed by the data, so what only a size query reads (size(x),
 * rows(x), the FnLength__(x) of a foreach loop over x) is not a dependence.
 *
 * Control dependence comes from post-dominators (dominators.h): a node
 * depends on the decisions of the branches it is control dependent on, and
 * a decision on what its condition (or loop bounds) reads and on what
 * controls the branch itself. As these in turn depend on the facts, the
 * analysis is solved again until the control dependences stop growing.
 *
 * A fact is a set of pairs labelled "x←a" (x may depend on a). Only the
 * pairs that some chain of reads and (controlled) writes could produce,
 * whatever the order of the statements, are members of the facts' universe,
 * and only for variables whose values some node reads: what the target
 * depends on (nothing reads it but `target +=`) is not followed.
 */
#pragma once

#include "mir/mir.h"
#include "mir/dataflow/effects.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

typedef struct {
  MirSetFacts  *facts;
  MirEffects   *effects;
  guint         n_sources;
  const char  **sources;     /* interned, NULL-terminated */
  guint         n_nodes;
  MirBitset   **control;     /* per node: the sources its running depends on */
  MirBitset   **decisions;   /* per branching node: the sources its decision
                              * depends on (empty for other nodes) */
  guint         n_rounds;    /* times the data-flow problem was solved */
  MirBitset   **reads;       /* per node: the variables whose values it reads
                              * (shared sets, not to be changed) */
  /* private: the pairs, numbered per variable */
  guint        *first_pair;  /* per variable number, and one past the last */
  guint        *pair_source;
  guint         n_pairs;
  MirBitsetPool *pool;       /* of reads */
} MirParamDeps;

MirParamDeps *mir_param_dependence (MirFlowGraph *graph, const char *const *sources,
                                    gboolean record);
void          mir_param_deps_free  (MirParamDeps *deps);

/* The sources (NULL-terminated, in source order; free the array only) that
 * a variable (one whose value some node reads, or a source), an expression
 * evaluated at `node` (with what controls the node), or a branching node's
 * decision depend on, just before `node`. */
const char  **mir_param_deps_of_var      (const MirParamDeps *deps, guint node,
                                          const char *var);
const char  **mir_param_deps_of_expr     (const MirParamDeps *deps, guint node,
                                          const MirExpr *e);
const char  **mir_param_deps_of_decision (const MirParamDeps *deps, guint node);
/* The sources on which it depends whether `node` runs. */
const char  **mir_param_deps_of_running  (const MirParamDeps *deps, guint node);

/* The pedantic warnings (TILDE_DIAG_PEDANTIC) about control flow in
 * log_prob that depends on parameters, and about control flow in functions
 * that depends on an argument whose value at a call in log_prob depends
 * on parameters, worded as the Stan compiler words them. Parameters
 * declared @silent are not named (and a warning that would name only such
 * parameters is left out). */
void          mir_param_dependence_warnings    (const MirProgram *program,
                                                GPtrArray *diagnostics);
/* The same from a dependence already solved on `log_prob`, the graph of
 * the program's log_prob, whose sources include the parameters (sources
 * that are not parameters are never named). */
void          mir_param_dependence_warnings_of (const MirProgram *program,
                                                const MirFlowGraph *log_prob,
                                                const MirParamDeps *deps,
                                                GPtrArray *diagnostics);

G_END_DECLS
