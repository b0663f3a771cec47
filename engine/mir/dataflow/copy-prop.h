/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Copy propagation facts (forward, must): the copies x = y (x and y
 * variables of the same type, written as an assignment or a declaration's
 * value) that hold at a point on every path, so that a read of x there may
 * read y instead. Any write to x or to y, in whole or in part, a new
 * declaration of either, or the end of either's scope ends a copy.
 *
 * Facts are sets of copies labelled "x = y".
 */
#pragma once

#include "mir/dataflow/effects.h"
#include "mir/dataflow/set-facts.h"

G_BEGIN_DECLS

typedef struct {
  MirSetFacts *facts;
  MirEffects  *effects;
  guint        n_copies;
  guint       *dst;       /* per copy: the variable numbers of x ... */
  guint       *src;       /* ... and y */
  /* private: per variable x, the copies x = y */
  MirBitset  **by_dst;
  guint        n_vars;
} MirCopyFacts;

MirCopyFacts *mir_copy_propagation  (MirFlowGraph *graph, gboolean record);
/* Whether a statement of `stmts` (or one nested in them) makes a copy:
 * without one there are no facts. */
gboolean      mir_copy_any          (const GPtrArray *stmts);
void          mir_copy_facts_free   (MirCopyFacts *facts);
/* y when the copy var = y holds just before `node`, or NULL. */
const char   *mir_copy_facts_source (const MirCopyFacts *facts, guint node, const char *var);

G_END_DECLS
