/* SPDX-License-Identifier: GPL-3.0-or-later */
/* target(): the log density accumulated so far. */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/hof/hof-private.h"

#include <string.h>

void
rt_ex_target (Ev *ev, const Ex *e, TildeValue *out)
{
  RtCtx *cx = &ev->cx;
  double v = ev->target_const;
  for (guint i = 0; i < ev->n_terms; i++)
    v += cx->tape->val[ev->terms[i]];
  if (ev->n_terms == 0)
    {
      tilde_value_set_real (out, v);
      return;
    }
  /* the terms' list grows with later increments: the node keeps a copy */
  gint32 *ids = tilde_arena_memdup (cx->arena, ev->terms, sizeof (gint32) * ev->n_terms);
  static const double one = 1.0;
  AdOperand op = { .idx = ids, .n = (gint32) ev->n_terms, .partial = &one, .same = TRUE };
  *out = rt_reduce (cx, v, 1, &op);
}
