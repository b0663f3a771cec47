/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Set-valued analyses on the monotone framework: the facts are bitsets
 * over a universe (variables, expressions, definitions, copies) whose
 * members have printable labels. "May" analyses join by union from the
 * empty set; "must" analyses join by intersection from the full set (the
 * bottom of their order), like the Stan compiler's powerset and dual
 * powerset lattices.
 *
 * The transfer function is either the classic (fact − kill[n]) ∪ gen[n] or
 * a callback.
 */
#pragma once

#include <glib.h>

#include "mir/dataflow/bitset.h"
#include "mir/dataflow/effects.h"
#include "mir/dataflow/solver.h"

G_BEGIN_DECLS

typedef void (*MirSetTransferFunc) (const MirFlowGraph *graph, guint node, MirBitset *fact,
                                    gpointer user_data);

typedef struct {
  MirDataflowDirection direction;
  gboolean             must;       /* ∩ rather than ∪ */
  guint                n_bits;
  const char *const   *labels;     /* n_bits labels (copied) */
  const MirBitset     *boundary;   /* at entry, or exit going backward; NULL: empty */
  MirBitset *const    *gen;        /* per node, when transfer is NULL */
  MirBitset *const    *kill;
  MirSetTransferFunc   transfer;   /* NULL: gen/kill */
  gpointer             user_data;  /* for transfer */
  gboolean             record;
} MirSetProblem;

typedef struct {
  MirFlowGraph        *graph;
  guint                n_bits;
  gboolean             must;
  char               **labels;     /* NULL-terminated */
  MirDataflowSolution *solution;   /* facts are MirBitset* */
  /* private */
  GHashTable          *by_label;   /* made at the first lookup */
  const MirSetProblem *problem;    /* during solving only */
  TildeArena          *arena;      /* the facts and the labels */
  MirVarIndex         *vars;       /* when the members are these variables */
} MirSetFacts;

MirSetFacts     *mir_set_facts_solve  (MirFlowGraph *graph, const MirSetProblem *problem);
void             mir_set_facts_free   (MirSetFacts *facts);

/* The facts at a node (program order: just before and just after it). */
const MirBitset *mir_set_facts_before_node (const MirSetFacts *facts, guint node);
const MirBitset *mir_set_facts_after_node  (const MirSetFacts *facts, guint node);
/* The same for a statement of the graph (NULL when it is not in it). For a
 * block or a profile this is its node, the end of its scope. */
const MirBitset *mir_set_facts_before (const MirSetFacts *facts, const MirStmt *stmt);
const MirBitset *mir_set_facts_after  (const MirSetFacts *facts, const MirStmt *stmt);

/* The member with this label, or MIR_FLOW_NONE. */
guint            mir_set_facts_lookup (const MirSetFacts *facts, const char *label);
/* Whether the member labelled `label` is in a set. */
gboolean         mir_set_facts_has    (const MirSetFacts *facts, const MirBitset *set,
                                       const char *label);
/* "{x, y}" */
char            *mir_set_facts_format (const MirSetFacts *facts, const MirBitset *set);
/* The labels of the members, NULL-terminated (free the array only). */
const char     **mir_set_facts_members (const MirSetFacts *facts, const MirBitset *set);
/* The recorded trace, or NULL. */
const MirDataflowTrace *mir_set_facts_trace (const MirSetFacts *facts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MirSetFacts, mir_set_facts_free)

G_END_DECLS
