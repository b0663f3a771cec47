/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-plot-data.h"

#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/radix-sort.h"

gboolean
tilde_plot_finite_range (const double *x, gsize n, double *min, double *max)
{
  double lo = INFINITY, hi = -INFINITY;

  for (gsize i = 0; i < n; i++)
    if (isfinite (x[i]))
      {
        lo = MIN (lo, x[i]);
        hi = MAX (hi, x[i]);
      }
  if (lo > hi)
    return FALSE;
  *min = lo;
  *max = hi;
  return TRUE;
}

/* ---- bandwidth ---- */

/* Moves the k-th smallest of a[0..n) to a[k], smaller ones before it and
 * larger ones after (Wirth's selection), in expected linear time. */
static void
select_kth (double *a, gsize n, gsize k)
{
  gssize left = 0, right = (gssize) n - 1, kk = (gssize) k;

  while (left < right)
    {
      double pivot = a[kk];
      gssize i = left, j = right;

      do
        {
          while (a[i] < pivot)
            i++;
          while (pivot < a[j])
            j--;
          if (i <= j)
            {
              double t = a[i];

              a[i] = a[j];
              a[j] = t;
              i++;
              j--;
            }
        }
      while (i <= j);
      if (j < kk)
        left = i;
      if (kk < i)
        right = j;
    }
}

/* The p-quantile of a[0..n) by linear interpolation between order
 * statistics (R's type 7); reorders a. */
static double
quantile (double *a, gsize n, double p)
{
  double h = (n - 1) * p;
  gsize k = (gsize) floor (h);
  double below, above;

  select_kth (a, n, k);
  below = a[k];
  if (k + 1 >= n)
    return below;
  above = a[k + 1];
  for (gsize i = k + 2; i < n; i++)
    above = MIN (above, a[i]);
  return below + (h - k) * (above - below);
}

double
tilde_kde_bandwidth (const double *x, gsize n)
{
  g_autofree double *finite = g_new (double, MAX (n, 1));
  gsize m = 0;
  double mean = 0, ss = 0, sd, iqr, spread;

  for (gsize i = 0; i < n; i++)
    if (isfinite (x[i]))
      {
        double delta;

        finite[m++] = x[i];
        /* Welford's update: no cancellation for draws far from zero. */
        delta = x[i] - mean;
        mean += delta / m;
        ss += delta * (x[i] - mean);
      }
  if (m < 2)
    return 0;
  sd = sqrt (ss / (m - 1));
  iqr = quantile (finite, m, 0.75) - quantile (finite, m, 0.25);
  spread = iqr > 0 ? MIN (sd, iqr / 1.34) : sd;
  return 0.9 * spread * pow ((double) m, -0.2);
}

/* ---- density ---- */

gsize
tilde_kde_bin (const double *x, gsize n, double lo, double hi, gsize m, double *bins)
{
  double per_bin = (m - 1) / (hi - lo);
  gsize n_finite = 0;

  g_return_val_if_fail (m >= 2 && hi > lo, 0);
  for (gsize i = 0; i < n; i++)
    {
      double u, frac;
      gsize j;

      if (!isfinite (x[i]))
        continue;
      n_finite++;
      u = (x[i] - lo) * per_bin;
      if (u < 0 || u > m - 1)
        continue;
      j = (gsize) u;
      frac = u - j;
      bins[j] += 1 - frac;
      if (j + 1 < m)
        bins[j + 1] += frac;
    }
  return n_finite;
}

void
tilde_kde_smooth (const double *bins, gsize n_finite, double bandwidth, double lo, double hi,
                  gsize m, double *density)
{
  double delta = (hi - lo) / (m - 1);
  g_autofree double *kernel = NULL;
  gsize reach;

  g_return_if_fail (m >= 2);
  memset (density, 0, m * sizeof *density);
  if (!(bandwidth > 0) || !(hi > lo) || n_finite == 0)
    return;
  /* The kernel is below 4e-6 of its peak beyond five bandwidths. */
  reach = (gsize) MIN (ceil (5 * bandwidth / delta), (double) (m - 1));
  kernel = g_new (double, reach + 1);
  for (gsize d = 0; d <= reach; d++)
    {
      double z = d * delta / bandwidth;

      kernel[d] = exp (-0.5 * z * z) / (bandwidth * sqrt (2 * G_PI) * n_finite);
    }
  for (gsize j = 0; j < m; j++)
    {
      gsize from, to;

      if (bins[j] == 0)
        continue;
      from = j >= reach ? j - reach : 0;
      to = MIN (j + reach, m - 1);
      /* Two plain loops, one each side, that the compiler vectorises. */
      for (gsize i = from; i < j; i++)
        density[i] += bins[j] * kernel[j - i];
      for (gsize i = j; i <= to; i++)
        density[i] += bins[j] * kernel[i - j];
    }
}

void
tilde_kde_grid (const double *x, gsize n, double bandwidth, double lo, double hi, gsize m,
                double *density)
{
  g_autofree double *bins = g_new0 (double, m);
  gsize n_finite;

  g_return_if_fail (m >= 2);
  memset (density, 0, m * sizeof *density);
  if (!(bandwidth > 0) || !(hi > lo))
    return;
  n_finite = tilde_kde_bin (x, n, lo, hi, m, bins);
  tilde_kde_smooth (bins, n_finite, bandwidth, lo, hi, m, density);
}

/* ---- ranks ---- */

void
tilde_rank_histogram (const double *ranks, gsize n, gsize n_total, guint n_bins, guint *counts)
{
  memset (counts, 0, n_bins * sizeof *counts);
  if (n_total == 0 || n_bins == 0)
    return;
  for (gsize i = 0; i < n; i++)
    {
      double bin = floor ((ranks[i] - 1) * n_bins / n_total);

      counts[(guint) CLAMP (bin, 0, n_bins - 1)]++;
    }
}

/* ---- autocorrelation ---- */

static gboolean
autocorrelation_direct (const double *x, gsize n, double mean, gsize max_lag, double *rho)
{
  g_autofree double *centred = g_new (double, n);
  double variance = 0;

  for (gsize t = 0; t < n; t++)
    {
      centred[t] = x[t] - mean;
      variance += centred[t] * centred[t];
    }
  if (!(variance > 0))
    return FALSE;
  for (gsize k = 0; k <= max_lag; k++)
    {
      /* Four sums side by side, which the processor overlaps. */
      double sum[4] = { 0, 0, 0, 0 };
      const double *ahead = centred + k;
      gsize t = 0, length = n - k;

      for (; t + 4 <= length; t += 4)
        {
          sum[0] += centred[t] * ahead[t];
          sum[1] += centred[t + 1] * ahead[t + 1];
          sum[2] += centred[t + 2] * ahead[t + 2];
          sum[3] += centred[t + 3] * ahead[t + 3];
        }
      for (; t < length; t++)
        sum[0] += centred[t] * ahead[t];
      rho[k] = (sum[0] + sum[1] + sum[2] + sum[3]) / variance;
    }
  return TRUE;
}

gboolean
tilde_autocorrelation (const double *x, gsize n, gsize max_lag, double *rho)
{
  g_autofree double *data = NULL;
  double mean = 0;
  gsize size = 1;

  g_return_val_if_fail (max_lag < n || n < 2, FALSE);
  if (n < 2)
    return FALSE;
  for (gsize t = 0; t < n; t++)
    {
      if (!isfinite (x[t]))
        return FALSE;
      mean += (x[t] - mean) / (t + 1);
    }

  /* Padding to twice the length keeps the circular correlation of the
   * FFT from wrapping the end of the series onto its start. */
  while (size < 2 * n)
    size <<= 1;
  /* A few lags of a long series: the sums themselves cost less than the
   * two transforms. */
  if ((double) (max_lag + 1) * n < 4.0 * size * log2 ((double) size))
    return autocorrelation_direct (x, n, mean, max_lag, rho);
  data = g_new0 (double, size);
  for (gsize t = 0; t < n; t++)
    data[t] = x[t] - mean;
  gsl_fft_real_radix2_transform (data, 1, size);
  /* Half-complex order: real parts at k, imaginary parts at size - k. */
  data[0] *= data[0];
  data[size / 2] *= data[size / 2];
  for (gsize k = 1; k < size / 2; k++)
    {
      double re = data[k], im = data[size - k];

      data[k] = re * re + im * im;
      data[size - k] = 0;
    }
  gsl_fft_halfcomplex_radix2_inverse (data, 1, size);
  if (!(data[0] > 0))
    return FALSE;
  for (gsize k = 0; k <= max_lag; k++)
    rho[k] = data[k] / data[0];
  return TRUE;
}

/* ---- ticks ---- */

/* A 1, 2 or 5 times a power of ten near x: the nearest one when `round`,
 * else the smallest at least x (Heckbert's nicenum). */
static double
nice_number (double x, gboolean round)
{
  double exponent = floor (log10 (x));
  double power = pow (10, exponent);
  double fraction = x / power, nice;

  if (round)
    nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  else
    nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

void
tilde_ticks_nice (double lo, double hi, guint target, TildeTicks *ticks)
{
  double step, first, last;

  g_return_if_fail (isfinite (lo) && isfinite (hi));
  if (!(hi > lo))
    {
      double pad = lo != 0 ? fabs (lo) * 0.1 : 1;

      lo -= pad;
      hi += pad;
    }
  target = MAX (target, 2);
  step = nice_number (nice_number (hi - lo, FALSE) / (target - 1), TRUE);
  /* A tick within rounding of an end still counts as inside. */
  first = ceil (lo / step - 1e-9);
  last = floor (hi / step + 1e-9);
  ticks->step = step;
  ticks->first = (gint64) first;
  ticks->n = last >= first ? (guint) (last - first + 1) : 0;
  ticks->decimals = (int) MAX (-floor (log10 (step)), 0);
}

double
tilde_ticks_value (const TildeTicks *ticks, guint i)
{
  return (double) (ticks->first + (gint64) i) * ticks->step;
}

void
tilde_ticks_format (const TildeTicks *ticks, guint i, char *buffer, gsize size)
{
  double value = tilde_ticks_value (ticks, i);
  char text[64];

  if (value == 0)
    g_snprintf (text, sizeof text, "%.*f",
                ticks->step < 1e-4 || ticks->step >= 1e6 ? 0 : ticks->decimals, 0.0);
  else if (ticks->step < 1e-4 || ticks->step >= 1e6)
    {
      int digits = (int) (floor (log10 (fabs (value))) - floor (log10 (ticks->step)));

      g_snprintf (text, sizeof text, "%.*e", MAX (digits, 0), value);
    }
  else
    g_snprintf (text, sizeof text, "%.*f", ticks->decimals, value);

  /* Minus signs, not hyphens, in the mantissa and the exponent. */
  {
    GString *out = g_string_sized_new (sizeof text);

    for (const char *p = text; *p != '\0'; p++)
      if (*p == '-')
        g_string_append (out, "\u2212");
      else
        g_string_append_c (out, *p);
    g_strlcpy (buffer, out->str, size);
    g_string_free (out, TRUE);
  }
}

/* ---- decimation ---- */

/* The column of iteration i, exactly as the header defines it. */
static double
column_of (double i, double start, double span, guint n_columns)
{
  return floor ((i - start) * n_columns / span);
}

/* The first iteration of column c + 1, at or after i and at most `to`: a
 * guess from the boundary, settled with the exact mapping, so that the
 * columns' loops only compare. */
static gsize
column_stop (guint c, gsize i, gsize to, double start, double span, guint n_columns)
{
  double guess;
  gsize stop;

  if (c + 1 == n_columns)
    return to;
  guess = ceil (start + (c + 1) * span / n_columns);
  stop = guess <= (double) i ? i : guess >= (double) to ? to : (gsize) guess;
  while (stop > i && column_of ((double) (stop - 1), start, span, n_columns) >= c + 1)
    stop--;
  while (stop < to && column_of ((double) stop, start, span, n_columns) < c + 1)
    stop++;
  return stop;
}

void
tilde_decimate_min_max (const double *y, gsize n, double start, double end, guint n_columns,
                        TildeColumn *columns)
{
  double span = end - start;
  gsize from, to, i;

  memset (columns, 0, n_columns * sizeof *columns);
  if (n_columns == 0 || !(span > 0))
    return;
  from = start > 0 ? (gsize) ceil (start) : 0;
  to = end < (double) n ? (gsize) ceil (end) : n;
  i = from;
  for (guint c = 0; c < n_columns && i < to; c++)
    {
      TildeColumn *column = &columns[c];
      gsize stop = column_stop (c, i, to, start, span, n_columns);

      for (; i < stop; i++)
        {
          double v = y[i];

          if (!isfinite (v))
            continue;
          if (column->n++ == 0)
            column->first = column->min = column->max = v;
          else if (v < column->min)
            column->min = v;
          else if (v > column->max)
            column->max = v;
          column->last = v;
        }
    }
}

/* ---- envelope ---- */

typedef struct
{
  double min;
  double max;
  guint  n;
} Block;

/* The smallest blocks kept are of 2^FIRST_LEVEL values: a range reads at
 * most that many values one by one at each end, and the blocks take about
 * 3 bytes a value (24 for blocks of 2 and up), which a plot of many
 * parameters and long chains writes as fresh memory while the draws
 * arrive. */
#define FIRST_LEVEL 4

struct _TildeEnvelope
{
  GArray    *values;   /* double */
  /* levels->pdata[k] holds the complete blocks of 2^(k+FIRST_LEVEL)
   * values: block j covers values [j 2^(k+FIRST_LEVEL), (j+1)
   * 2^(k+FIRST_LEVEL)). */
  GPtrArray *levels;
};

TildeEnvelope *
tilde_envelope_new (void)
{
  TildeEnvelope *envelope = g_new0 (TildeEnvelope, 1);

  envelope->values = g_array_new (FALSE, FALSE, sizeof (double));
  envelope->levels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  return envelope;
}

void
tilde_envelope_free (TildeEnvelope *envelope)
{
  if (envelope == NULL)
    return;
  g_array_unref (envelope->values);
  g_ptr_array_unref (envelope->levels);
  g_free (envelope);
}

static void
block_add (Block *block, double v)
{
  if (!isfinite (v))
    return;
  block->min = block->n == 0 ? v : MIN (block->min, v);
  block->max = block->n == 0 ? v : MAX (block->max, v);
  block->n++;
}

static void
block_merge (Block *block, const Block *other)
{
  if (other->n == 0)
    return;
  block->min = block->n == 0 ? other->min : MIN (block->min, other->min);
  block->max = block->n == 0 ? other->max : MAX (block->max, other->max);
  block->n += other->n;
}

static GArray *
envelope_level (TildeEnvelope *envelope, guint k)
{
  while (envelope->levels->len <= k)
    g_ptr_array_add (envelope->levels, g_array_new (FALSE, FALSE, sizeof (Block)));
  return envelope->levels->pdata[k];
}

void
tilde_envelope_append (TildeEnvelope *envelope, const double *y, gsize n)
{
  const gsize size = (gsize) 1 << FIRST_LEVEL;
  gsize start = envelope->values->len;
  const double *values;

  g_array_append_vals (envelope->values, y, n);
  values = (const double *) (void *) envelope->values->data;
  /* Each smallest block the new values complete may complete one twice
   * its size, and so on up. */
  for (gsize length = (start / size + 1) * size; length <= start + n; length += size)
    {
      Block block = { 0, 0, 0 };

      for (gsize i = length - size; i < length; i++)
        block_add (&block, values[i]);
      for (guint k = 0;; k++)
        {
          GArray *level = envelope_level (envelope, k);

          g_array_append_val (level, block);
          if (level->len % 2 != 0)
            break;
          block = g_array_index (level, Block, level->len - 2);
          block_merge (&block, &g_array_index (level, Block, level->len - 1));
        }
    }
}

const double *
tilde_envelope_get_values (const TildeEnvelope *envelope, gsize *n)
{
  *n = envelope->values->len;
  return (const double *) (void *) envelope->values->data;
}

/* Whether the block of 2^k values at `from` (aligned) is kept and ends by
 * `to`. */
static gboolean
has_block (const TildeEnvelope *envelope, guint k, gsize from, gsize to)
{
  return k >= FIRST_LEVEL && k - FIRST_LEVEL < envelope->levels->len
         && from + ((gsize) 1 << k) <= to
         && (from >> k) < ((GArray *) envelope->levels->pdata[k - FIRST_LEVEL])->len;
}

/* The extremes of [from, to) from the largest aligned, complete blocks
 * that fit: block sizes climb while `from` stays aligned, then come down
 * as the end nears, O(log n) steps in all. A short range costs less read
 * value by value. */
static Block
envelope_block (const TildeEnvelope *envelope, gsize from, gsize to)
{
  const double *values = (const double *) (void *) envelope->values->data;
  Block total = { 0, 0, 0 };
  guint k;

  to = MIN (to, envelope->values->len);
  if (from >= to)
    return total;
  if (to - from <= 64)
    {
      for (; from < to; from++)
        block_add (&total, values[from]);
      return total;
    }
  /* Value by value up to the first kept block, */
  while ((from & (((gsize) 1 << FIRST_LEVEL) - 1)) != 0 && from < to)
    block_add (&total, values[from++]);
  k = FIRST_LEVEL;
  while (from < to)
    {
      /* then blocks, */
      while ((from & (((gsize) 2 << k) - 1)) == 0 && has_block (envelope, k + 1, from, to))
        k++;
      while (k > FIRST_LEVEL && !has_block (envelope, k, from, to))
        k--;
      if (!has_block (envelope, k, from, to))
        break;
      block_merge (&total, &g_array_index ((GArray *) envelope->levels->pdata[k - FIRST_LEVEL],
                                           Block, from >> k));
      from += (gsize) 1 << k;
    }
  /* and the values after the last. */
  for (; from < to; from++)
    block_add (&total, values[from]);
  return total;
}

guint
tilde_envelope_extremes (const TildeEnvelope *envelope, gsize from, gsize to, double *min,
                         double *max)
{
  Block block = envelope_block (envelope, from, to);

  if (block.n > 0)
    {
      *min = block.min;
      *max = block.max;
    }
  return block.n;
}

void
tilde_envelope_decimate (const TildeEnvelope *envelope, gsize from, double start, double end,
                         guint n_columns, TildeColumn *columns)
{
  const double *y = (const double *) (void *) envelope->values->data;
  gsize n = envelope->values->len, to, i;
  double span = end - start;

  memset (columns, 0, n_columns * sizeof *columns);
  if (n_columns == 0 || !(span > 0))
    return;
  i = start > 0 ? (gsize) ceil (start) : 0;
  i = MAX (i, from);
  to = end < (double) n ? (gsize) ceil (end) : n;
  for (guint c = 0; c < n_columns && i < to; c++)
    {
      TildeColumn *column = &columns[c];
      gsize stop = column_stop (c, i, to, start, span, n_columns);
      Block block;

      /* A few draws a column, as at most zooms: one pass over them. */
      if (stop - i <= 64)
        {
          for (; i < stop; i++)
            {
              double v = y[i];

              if (!isfinite (v))
                continue;
              if (column->n++ == 0)
                column->first = column->min = column->max = v;
              else if (v < column->min)
                column->min = v;
              else if (v > column->max)
                column->max = v;
              column->last = v;
            }
          continue;
        }
      block = envelope_block (envelope, i, stop);
      if (block.n > 0)
        {
          gsize first = i, last = stop - 1;

          /* Non-finite values are rare: the ends are found by a short walk. */
          while (!isfinite (y[first]))
            first++;
          while (!isfinite (y[last]))
            last--;
          column->first = y[first];
          column->last = y[last];
          column->min = block.min;
          column->max = block.max;
          column->n = block.n;
        }
      i = stop;
    }
}
