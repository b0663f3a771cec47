/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The numbers behind the plots, as plain functions over arrays of doubles:
 * kernel density estimates, ranks, autocorrelations, axis ticks and the
 * decimation of long series to pixel columns; and one plain struct, the
 * envelope, that keeps a growing series ready for decimation. No GTK, no
 * allocation that outlives a call but the envelope's; non-finite values
 * are skipped where a function says so.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The smallest and largest finite values of x; FALSE when none is finite. */
gboolean tilde_plot_finite_range       (const double *x,
                                        gsize         n,
                                        double       *min,
                                        double       *max);

/* Silverman's rule of thumb for a Gaussian kernel,
 * 0.9 min(sd, IQR / 1.34) n^(-1/5), over the finite values (the sd alone
 * when the IQR is 0). 0 when fewer than two finite values differ. */
double   tilde_kde_bandwidth           (const double *x,
                                        gsize         n);

/* The Gaussian kernel density estimate of the finite values of x with
 * the given bandwidth, at m >= 2 points evenly spaced from lo to hi
 * (both included). The draws are binned linearly onto the grid and the
 * bins convolved with the kernel, so the cost is O(n + m^2) at worst
 * and the error O(spacing^2 / bandwidth^2) of the exact sum. Values
 * outside [lo, hi] are left out of the bins but counted in the
 * normalisation: the estimate stays a density of all the draws. */
void     tilde_kde_grid                (const double *x,
                                        gsize         n,
                                        double        bandwidth,
                                        double        lo,
                                        double        hi,
                                        gsize         m,
                                        double       *density);

/* The two halves of tilde_kde_grid(), for estimates kept up to date as
 * draws arrive (bins add up; the grid does not depend on the bandwidth):
 * adds the finite values of x to `bins` (m of them, over [lo, hi]) by
 * linear binning, returning how many values were finite; */
gsize    tilde_kde_bin                 (const double *x,
                                        gsize         n,
                                        double        lo,
                                        double        hi,
                                        gsize         m,
                                        double       *bins);
/* and the density of n_finite binned values, from their bins. */
void     tilde_kde_smooth              (const double *bins,
                                        gsize         n_finite,
                                        double        bandwidth,
                                        double        lo,
                                        double        hi,
                                        gsize         m,
                                        double       *density);

/* Ranks for rank plots: tilde_average_ranks() (infer/radix-sort.h). */

/* Counts of the ranks (from 1 to n_total) of one chain in n_bins equal
 * bins of [1, n_total]. */
void     tilde_rank_histogram          (const double *ranks,
                                        gsize         n,
                                        gsize         n_total,
                                        guint         n_bins,
                                        guint        *counts);

/* The autocorrelation of x at lags 0..max_lag (max_lag < n):
 * rho_k = sum_{t < n-k} (x_t - mean)(x_{t+k} - mean) / sum_t (x_t - mean)^2,
 * the estimator Stan's and ArviZ's ESS start from, computed through an
 * FFT, or by the sums themselves when they are fewer operations (a few
 * lags of a long series). FALSE when n < 2, a value is not finite, or
 * the series is constant. */
gboolean tilde_autocorrelation         (const double *x,
                                        gsize         n,
                                        gsize         max_lag,
                                        double       *rho);

/* Axis ticks at multiples of a "nice" step (1, 2 or 5 times a power of
 * ten; Heckbert, Graphics Gems 1990), about `target` of them over
 * [lo, hi]: tick i is (first + i) * step for i < n, all inside [lo, hi].
 * `decimals` is the number of fractional digits that tell them apart. */
typedef struct
{
  double step;
  gint64 first;
  guint  n;
  int    decimals;
} TildeTicks;

void     tilde_ticks_nice              (double      lo,
                                        double      hi,
                                        guint       target,
                                        TildeTicks *ticks);
double   tilde_ticks_value             (const TildeTicks *ticks,
                                        guint             i);
/* Tick i as text: fixed-point with ticks->decimals digits, or
 * scientific notation for steps below 1e-4 or at least 1e6; negative
 * numbers and exponents with a true minus sign (U+2212). */
void     tilde_ticks_format            (const TildeTicks *ticks,
                                        guint             i,
                                        char             *buffer,
                                        gsize             size);

/* One pixel column of a decimated series. */
typedef struct
{
  double first;   /* the column's first value, to join the previous column's last */
  double last;
  double min;
  double max;
  guint  n;       /* values in the column; 0 leaves the column empty */
} TildeColumn;

/* Splits the window [start, end) of iterations over n_columns pixel
 * columns (iteration i goes to column floor((i - start) * n_columns /
 * (end - start))) and keeps, per column, the first, last, smallest and
 * largest of the finite values y[i], 0 <= i < n. Drawn as one vertical
 * segment per column and one segment joining neighbours, any series
 * takes at most 2 n_columns segments and keeps every spike. */
void     tilde_decimate_min_max        (const double *y,
                                        gsize         n,
                                        double        start,
                                        double        end,
                                        guint         n_columns,
                                        TildeColumn  *columns);

/* A series as it grows, with the finite extremes of its aligned blocks
 * of 16, 32, 64, ... values kept as values arrive (amortised O(1) an
 * append, about 3 bytes a value besides the value), so that the extremes
 * of any range of iterations take O(log^2 n) and a decimation to pixel
 * columns O(n_columns log^2 n), whatever the length: a plot of a long
 * series costs its width, not its draws. Appending in batches or all at
 * once gives the same envelope. */
typedef struct _TildeEnvelope TildeEnvelope;

TildeEnvelope *tilde_envelope_new              (void);
void           tilde_envelope_free             (TildeEnvelope *envelope);
void           tilde_envelope_append           (TildeEnvelope *envelope,
                                                const double  *y,
                                                gsize          n);
/* The values appended so far, in order; valid until the next append. */
const double  *tilde_envelope_get_values       (const TildeEnvelope *envelope,
                                                gsize               *n);
/* The smallest and largest finite values of [from, to), and how many of
 * them are finite (0 leaves min and max untouched). */
guint          tilde_envelope_extremes         (const TildeEnvelope *envelope,
                                                gsize                from,
                                                gsize                to,
                                                double              *min,
                                                double              *max);
/* As tilde_decimate_min_max() over the values from iteration `from` on
 * (the ones before it are left out, as if they were not finite): the
 * same columns, for the cost of the width. */
void           tilde_envelope_decimate         (const TildeEnvelope *envelope,
                                                gsize                from,
                                                double               start,
                                                double               end,
                                                guint                n_columns,
                                                TildeColumn         *columns);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeEnvelope, tilde_envelope_free)

G_END_DECLS
