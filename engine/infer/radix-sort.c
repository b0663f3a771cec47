/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sorting draws. Quantiles, rank-normalised R-hat and ESS, and the rank
 * plots sort tens of thousands of draws per parameter; a least-significant
 * digit radix sort does it in linear time, several times faster than
 * qsort's comparisons through a function pointer.
 */
#include "infer/radix-sort.h"

#include <math.h>
#include <string.h>

guint64
tilde_sort_key (double x)
{
  guint64 bits;

  if (isnan (x))
    return G_MAXUINT64;
  if (x == 0)
    x = 0.0;   /* -0 == 0: one key, so that they keep their order */
  memcpy (&bits, &x, sizeof bits);
  return bits >> 63 ? ~bits : bits | G_GUINT64_CONSTANT (0x8000000000000000);
}

/* 11 bits a pass, six passes at most; a pass over a digit every key shares
 * (the sign and exponent of draws in a narrow range) is skipped. */
TildeKeyed *
tilde_radix_sort (TildeKeyed *a, TildeKeyed *scratch, gsize n)
{
  enum { BITS = 11, BUCKETS = 1 << BITS };
  g_autofree gsize *counts = NULL;

  if (n < 2)
    return a;
  counts = g_new (gsize, BUCKETS);
  for (guint shift = 0; shift < 64; shift += BITS)
    {
      gsize total = 0;
      TildeKeyed *swap;

      memset (counts, 0, BUCKETS * sizeof *counts);
      for (gsize i = 0; i < n; i++)
        counts[(a[i].key >> shift) & (BUCKETS - 1)]++;
      if (counts[(a[0].key >> shift) & (BUCKETS - 1)] == n)
        continue;
      for (guint b = 0; b < BUCKETS; b++)
        {
          gsize count = counts[b];

          counts[b] = total;
          total += count;
        }
      for (gsize i = 0; i < n; i++)
        scratch[counts[(a[i].key >> shift) & (BUCKETS - 1)]++] = a[i];
      swap = a;
      a = scratch;
      scratch = swap;
    }
  return a;
}

/* x keyed by value, sorted; free the result with g_free. */
static TildeKeyed *
sorted_keys (const double *x, gsize n)
{
  TildeKeyed *keyed = g_new (TildeKeyed, MAX (n, 1));
  TildeKeyed *scratch = g_new (TildeKeyed, MAX (n, 1));
  TildeKeyed *sorted;

  for (gsize i = 0; i < n; i++)
    keyed[i] = (TildeKeyed) { tilde_sort_key (x[i]), i };
  sorted = tilde_radix_sort (keyed, scratch, n);
  g_free (sorted == keyed ? scratch : keyed);
  return sorted;
}

void
tilde_sort_doubles (const double *x, gsize n, double *sorted)
{
  g_autofree TildeKeyed *keyed = sorted_keys (x, n);

  for (gsize i = 0; i < n; i++)
    sorted[i] = x[keyed[i].index];
}

void
tilde_average_ranks (const double *x, gsize n, double *ranks)
{
  g_autofree TildeKeyed *keyed = sorted_keys (x, n);
  gsize i = 0;

  while (i < n)
    {
      gsize j = i + 1;
      double rank;

      /* equal keys are equal values */
      while (j < n && keyed[j].key == keyed[i].key)
        j++;
      /* positions i..j-1 share the mean of ranks i+1..j */
      rank = (double) (i + 1 + j) / 2.0;
      for (gsize k = i; k < j; k++)
        ranks[keyed[k].index] = rank;
      i = j;
    }
}
