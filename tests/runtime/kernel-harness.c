/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "kernel-harness.h"

#include <string.h>

Harness *
harness_new (void)
{
  Harness *h = g_new0 (Harness, 1);
  h->cx.tape = ad_tape_new ();
  /* values outlive the tape resets between evaluations */
  h->cx.arena = tilde_arena_new (0);
  h->cx.jmp = &h->jmp;
  return h;
}

void
harness_free (Harness *h)
{
  ad_tape_free (h->cx.tape);
  tilde_arena_free (h->cx.arena);
  g_free (h->cx.err_msg);
  g_free (h);
}

gboolean
call (Harness *h, const char *name, gboolean drop, int n, const TildeValue *args, TildeValue *out)
{
  const RtBuiltin *b = rt_builtin_lookup (name, n);
  if (!b)
    g_error ("%s with %d arguments is not in the library", name, n);
  if (setjmp (h->jmp))
    return FALSE;
  h->cx.fn_name = name;
  h->cx.drop = drop;
  b->fn (&h->cx, n, args, out);
  return TRUE;
}

TildeValue
vec (Harness *h, TildeValueKind kind, gint32 rows, gint32 cols, const double *x)
{
  TildeValue v = rt_new_data (&h->cx, kind, rows, cols);
  memcpy (v.u.d, x, sizeof (double) * (gsize) (rows * cols));
  return v;
}
