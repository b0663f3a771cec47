/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A draw and where it came from, for sorting by value. */
typedef struct
{
  guint64 key;
  gsize   index;
} TildeKeyed;

/* An unsigned key that orders as the double does: both zeros get the same
 * key, NaN sorts above everything. */
guint64     tilde_sort_key         (double x);
/* Sorts `a` by key, stably, in linear time; `scratch` holds as many.
 * Returns the array that holds the result: `a` or `scratch`. */
TildeKeyed *tilde_radix_sort       (TildeKeyed *a,
                                    TildeKeyed *scratch,
                                    gsize       n);
/* x's n values into `sorted` in ascending order, NaN last; equal values
 * (the two zeros among them) keep their order, as a stable sort by `<`
 * leaves them. */
void        tilde_sort_doubles     (const double *x,
                                    gsize         n,
                                    double       *sorted);
/* The rank of each x among them, 1 to n, ties (both zeros, every NaN)
 * sharing the mean of their ranks. */
void        tilde_average_ranks    (const double *x,
                                    gsize         n,
                                    double       *ranks);

G_END_DECLS
