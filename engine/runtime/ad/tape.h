/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reverse-mode automatic differentiation on a tape.
 *
 * Variables are ids into two parallel arrays, values and adjoints (struct of
 * arrays), so the variables a vectorised operation creates are one
 * contiguous range that BLAS can read directly. The arrays are reserved
 * once in virtual memory and never move: pointers into them stay valid for
 * the whole evaluation.
 *
 * A node is a backward function and its payload; payloads live in the
 * tape's arena. Nodes store everything their backward step needs (operand
 * ids and partials) when they are recorded, and never read operand values
 * later. Two generic nodes cover most of the math: a *reduction* (one output
 * depending on many operands, e.g. a distribution over N observations, with
 * its N partials), and an *elementwise* map (output i depending on element i
 * of each operand, or on a broadcast scalar).
 *
 * One tape per thread: a tape is not thread-safe, and chains each use their
 * own. Resetting keeps all memory, so a model that evaluates its log density
 * repeatedly stops allocating after the first evaluation.
 */
#pragma once

#include <glib.h>

#include "tilde-arena.h"

G_BEGIN_DECLS

typedef struct AdTape AdTape;
typedef void (*AdBackwardFn) (AdTape *tape, const void *payload);

typedef struct {
  AdBackwardFn fn;
  const void  *payload;
} AdNode;

struct AdTape {
  double     *val;
  double     *adj;
  gint32      n_vars;
  gint32      cap_vars;
  AdNode     *nodes;
  guint       n_nodes;
  guint       cap_nodes;
  guint8     *payloads;   /* node payloads, bumped (reserved like val and adj) */
  gsize       payload_used, payload_cap;
  TildeArena *arena;      /* the evaluation's temporaries, and payloads past the reserve */
};

/* One operand of a generic node: `n` ids (start .. start + n - 1, or listed
 * in idx); n == 1 broadcasts a scalar. `partial` holds one partial per
 * output element (elementwise) or per operand element (reduction). */
typedef struct {
  gint32        start;
  const gint32 *idx;
  gint32        n;
  const double *partial;
  gboolean      same;     /* one partial, partial[0], for every element */
  /* Before ad_compose only, never in a node: element i is the variable
   * start + pos[i] - 1, pos[i] a 1-based position within the span
   * variables from start (a gather from a contiguous range). */
  const int    *pos;
  gint32        span;
} AdOperand;

AdTape *ad_tape_new   (void);
void    ad_tape_free  (AdTape *tape);
/* Forgets every variable and node and resets the arena; memory is kept. */
void    ad_tape_reset (AdTape *tape);

/* n new variables (values uninitialised); the id of the first, or -1 when
 * the tape is full. */
gint32  ad_new_vars   (AdTape *tape, gint32 n);
void    ad_push       (AdTape *tape, AdBackwardFn fn, const void *payload);

static inline gint32
ad_operand_id (const AdOperand *op, gint32 i)
{
  return op->idx ? op->idx[i] : op->start + i;
}

/* A constant: a variable no node depends on. */
gint32  ad_constant   (AdTape *tape, double value);
/* out = value; d out / d a = da */
gint32  ad_unary      (AdTape *tape, double value, gint32 a, double da);
gint32  ad_binary     (AdTape *tape, double value, gint32 a, double da, gint32 b, double db);
gint32  ad_ternary    (AdTape *tape, double value, gint32 a, double da, gint32 b, double db,
                       gint32 c, double dc);
/* One output depending on every element of each operand. Operand arrays
 * and partials must stay alive for the evaluation (arena memory). */
gint32  ad_reduction  (AdTape *tape, double value, guint n_ops, const AdOperand *ops);
/* Outputs `out` .. out + n - 1 (already created, values set): output i
 * depends on element i of each operand (element 0 when the operand has
 * n == 1), with partial[i]. */
void    ad_elementwise (AdTape *tape, gint32 out, gint32 n, guint n_ops, const AdOperand *ops);

/* Folds the elementwise node at position `node` into the last node, a
 * reduction with one operand over exactly that node's outputs: the operand
 * is replaced by the elementwise node's own operands, the partials
 * multiplied through (the chain rule applied once, while recording), and
 * the elementwise node is removed. The caller guarantees that nothing else
 * reads those outputs. FALSE, and nothing changed, when the nodes are not
 * of that form. */
gboolean ad_fold_elementwise (AdTape *tape, guint node);

/* The operand `inner` (of an elementwise map over n elements) seen from a
 * reduction whose partials with respect to the map's outputs are `outer`:
 * the chain rule, with a broadcast inner summed and the ids of a short
 * list within a narrow span summed per variable. */
AdOperand ad_compose  (AdTape *tape, const AdOperand *outer, const AdOperand *inner, gint32 n);

/* Sets every adjoint to zero, the adjoint of each seed to 1 and runs the
 * reverse sweep. */
void    ad_gradient   (AdTape *tape, const gint32 *seeds, guint n_seeds);

G_END_DECLS
