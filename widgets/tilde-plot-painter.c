/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "infer/radix-sort.h"
#include "infer/column-name.h"
#include "tilde-plot-canvas-private.h"

#define KDE_POINTS 512
#define RANK_BINS 20
#define MARGIN 12.0
#define ROW_GAP 20.0
#define DIVERGENT_STRIP 9.0
#define SIDE_GAP 10.0
/* Densities refitted a frame while draws stream in, in turn. */
#define DENSITY_REFITS 4

/* The finite extremes of values [from, to), extended as draws arrive. */
typedef struct
{
  gboolean valid;
  gboolean any;
  guint    from, to;
  double   min, max;
} Range;

typedef struct
{
  /* The chain's column, copied as draws arrive, with the extremes of
   * its blocks that make a trace cost its width. */
  TildeEnvelope *trace;
  Range    trace_range;
  Range    statistics_range;

  /* The statistics' draws binned on the density's grid, kept while the
   * grid still holds them all with room for the kernel. */
  gboolean grid_valid;
  guint    grid_from, grid_to;
  double   grid_lo, grid_hi;
  gsize    grid_finite;
  double   bins[KDE_POINTS];

  /* The density of the statistics' draws on KDE_POINTS points, and the
   * bandwidth last computed in full, with the draws it came from. */
  gboolean kde_valid;
  guint    kde_from, kde_to;
  double   bandwidth;
  guint    bandwidth_from, bandwidth_n;
  double   kde_lo, kde_hi, kde_peak;
  double   density[KDE_POINTS];
  guint64  kde_serial;   /* the painter's count of fits when this one was made */

  gboolean acf_valid;
  guint    acf_from, acf_to, acf_lags;
  double  *acf;      /* acf_lags + 1 values */

  guint    ranks[RANK_BINS];
} Series;

/* A row's densities as last stroked, kept while no density, the side
 * panel, the value axis or the colours changed: stroking a few hundred
 * points of a curve costs cairo far more than copying the pixels. */
typedef struct
{
  cairo_surface_t *surface;
  guint64          serial;     /* the newest of the row's fits drawn in it */
  double           x, y;       /* where it goes: whole units */
  graphene_rect_t  side;
  double           y_lo, y_hi, scale;
  GdkRGBA          chains[TILDE_PLOT_N_COLOURS];
} DensityPicture;

typedef struct
{
  guint    column;
  char    *label;
  DensityPicture densities;
  guint    n_chains;
  Series  *series;   /* one per chain */
  gboolean ranks_valid;
  guint64  ranks_stamp;
  guint    ranks_peak;
} Row;

struct _TildePlotPainter
{
  TildeDraws   *draws;
  GStrv         names;
  GPtrArray    *rows;
  guint         n_chains;
  GArray       *scratch;   /* TildeColumn */
  TildePlotLinePen pen;   /* zoomed-in traces, drawn into a raster */
  GArray       *copied;    /* double: draws on their way to the envelopes */
  /* Full bandwidth computations left to this frame. */
  int           bandwidth_budget;
  /* While live, a density already drawn is refitted only in its turn
   * (refresh_densities), from the series after `density_cursor`;
   * `unsettled` says a frame showed one older than its draws. */
  gboolean      live;
  gboolean      refitting;
  gboolean      unsettled;
  guint         density_cursor;
  guint         rows_drawn;       /* by the last picture: those in its clip */
  guint64       fits;

  TildePlotLabels labels;
};


/* ---- the painter and its copies of the draws ---- */

static void
series_clear (Series *series)
{
  g_clear_pointer (&series->trace, tilde_envelope_free);
  g_clear_pointer (&series->acf, g_free);
}


static void
row_free (gpointer data)
{
  Row *row = data;

  for (guint c = 0; c < row->n_chains; c++)
    series_clear (&row->series[c]);
  g_free (row->series);
  g_free (row->label);
  g_clear_pointer (&row->densities.surface, cairo_surface_destroy);
  g_free (row);
}

TildePlotPainter *
_tilde_plot_painter_new (void)
{
  TildePlotPainter *painter = g_new0 (TildePlotPainter, 1);

  painter->rows = g_ptr_array_new_with_free_func (row_free);
  painter->scratch = g_array_new (FALSE, FALSE, sizeof (TildeColumn));
  painter->copied = g_array_new (FALSE, FALSE, sizeof (double));
  _tilde_plot_labels_init (&painter->labels);
  return painter;
}

void
_tilde_plot_painter_free (TildePlotPainter *painter)
{
  g_ptr_array_unref (painter->rows);
  g_array_unref (painter->scratch);
  _tilde_plot_line_pen_clear (&painter->pen);
  g_array_unref (painter->copied);
  _tilde_plot_labels_clear (&painter->labels);
  g_strfreev (painter->names);
  g_clear_object (&painter->draws);
  g_free (painter);
}

/* Rows for the named columns the store has, copies empty. */
static void
rebuild_rows (TildePlotPainter *painter)
{
  g_ptr_array_set_size (painter->rows, 0);
  painter->n_chains = painter->draws ? tilde_draws_get_n_chains (painter->draws) : 0;
  if (painter->draws == NULL || painter->names == NULL)
    return;
  for (guint i = 0; painter->names[i] != NULL; i++)
    {
      int column = tilde_draws_find_column (painter->draws, painter->names[i]);
      Row *row;

      if (column < 0)
        continue;
      row = g_new0 (Row, 1);
      row->column = (guint) column;
      row->label = tilde_column_display_name (painter->names[i]);
      row->n_chains = painter->n_chains;
      row->series = g_new0 (Series, painter->n_chains);
      for (guint c = 0; c < painter->n_chains; c++)
        row->series[c].trace = tilde_envelope_new ();
      g_ptr_array_add (painter->rows, row);
    }
}

void
_tilde_plot_painter_set_draws (TildePlotPainter *painter, TildeDraws *draws)
{
  if (!g_set_object (&painter->draws, draws))
    return;
  rebuild_rows (painter);
}

void
_tilde_plot_painter_set_columns (TildePlotPainter *painter, const char *const *names)
{
  g_strfreev (painter->names);
  painter->names = g_strdupv ((char **) names);
  rebuild_rows (painter);
}

gboolean
_tilde_plot_painter_is_settled (TildePlotPainter *painter)
{
  return !painter->unsettled;
}

guint
_tilde_plot_painter_get_n_rows (TildePlotPainter *painter)
{
  return painter->rows->len;
}

void
_tilde_plot_painter_sync (TildePlotPainter *painter)
{
  for (guint r = 0; r < painter->rows->len; r++)
    {
      Row *row = g_ptr_array_index (painter->rows, r);

      for (guint c = 0; c < row->n_chains; c++)
        {
          gsize have;
          guint now = tilde_draws_get_n_draws (painter->draws, c);

          tilde_envelope_get_values (row->series[c].trace, &have);
          if (now <= have)
            continue;
          g_array_set_size (painter->copied, now - have);
          tilde_draws_copy_column (painter->draws, c, row->column, (guint) have, now - (guint) have,
                                   (double *) (void *) painter->copied->data);
          tilde_envelope_append (row->series[c].trace, (const double *) (void *) painter->copied->data,
                                 now - have);
        }
    }
}

/* A chain's copy of the column, and its length. */
static const double *
series_values (const Series *series, guint *n)
{
  gsize length;
  const double *x = tilde_envelope_get_values (series->trace, &length);

  if (n != NULL)
    *n = (guint) length;
  return x;
}

/* The draws statistics are taken from: after warmup, or the warmup
 * draws while there are no others. */
static void
statistics_draws (TildePlotPainter *painter, guint chain, guint *from, guint *to)
{
  guint n = tilde_draws_get_n_draws (painter->draws, chain);
  guint warmup = tilde_draws_get_n_warmup (painter->draws, chain);

  *from = warmup < n ? warmup : 0;
  *to = n;
}

/* The first draw of a chain the trace view shows. */
static guint
first_shown (TildePlotPainter *painter, const TildePlotOptions *options, guint chain)
{
  return options->show_warmup ? 0 : tilde_draws_get_n_warmup (painter->draws, chain);
}

void
_tilde_plot_painter_extent (TildePlotPainter *painter, const TildePlotOptions *options,
                            double *start, double *end)
{
  guint first = 0, last = 0;

  if (painter->draws != NULL)
    {
      last = tilde_draws_get_max_draws (painter->draws);
      if (!options->show_warmup)
        for (guint c = 0; c < painter->n_chains; c++)
          first = MAX (first, tilde_draws_get_n_warmup (painter->draws, c));
    }
  *start = first;
  *end = MAX (last, first + 2);
}

static void
iteration_window (TildePlotPainter *painter, const TildePlotOptions *options, double *start,
                  double *end)
{
  if (options->zoomed)
    {
      *start = options->start;
      *end = options->end;
    }
  else
    _tilde_plot_painter_extent (painter, options, start, end);
}

/* ---- statistics, kept until their draws change ---- */

static gboolean
range_of (Range *range, const double *x, guint from, guint to, double *min, double *max)
{
  double lo, hi;

  if (!range->valid || range->from != from || to < range->to)
    {
      range->valid = TRUE;
      range->from = from;
      range->to = from;
      range->any = FALSE;
    }
  if (to > range->to && tilde_plot_finite_range (x + range->to, to - range->to, &lo, &hi))
    {
      range->min = range->any ? MIN (range->min, lo) : lo;
      range->max = range->any ? MAX (range->max, hi) : hi;
      range->any = TRUE;
    }
  range->to = MAX (range->to, to);
  *min = range->min;
  *max = range->max;
  return range->any;
}

static void
ensure_density (TildePlotPainter *painter, Series *series, guint chain)
{
  guint from, to;
  const double *x;
  double lo, hi, h;

  statistics_draws (painter, chain, &from, &to);
  if (series->kde_valid && series->kde_from == from && series->kde_to == to)
    return;
  if (series->kde_valid && painter->live && !painter->refitting)
    {
      painter->unsettled = TRUE;
      return;
    }
  series->kde_valid = TRUE;
  series->kde_serial = ++painter->fits;
  series->kde_from = from;
  series->kde_to = to;
  series->kde_peak = 0;
  x = series_values (series, NULL) + from;
  /* While draws stream in, the spread barely moves between frames: the
   * bandwidth is computed in full (two selections) once the draws have
   * grown by 2 %, and in between only follows n^(-1/5). Chains grow
   * together, so a few series a frame take their turn (time-slicing, as
   * the frame must not wait for all of them), unless one has grown by a
   * tenth. */
  if (series->bandwidth_n == 0 || series->bandwidth_from != from || to - from < series->bandwidth_n
      || to - from > series->bandwidth_n * 1.1
      || (to - from > series->bandwidth_n * 1.02 && painter->bandwidth_budget > 0))
    {
      painter->bandwidth_budget--;
      series->bandwidth = tilde_kde_bandwidth (x, to - from);
      series->bandwidth_from = from;
      series->bandwidth_n = to - from;
    }
  h = series->bandwidth * pow ((double) (to - from) / series->bandwidth_n, -0.2);
  if (!(h > 0) || !range_of (&series->statistics_range, series_values (series, NULL), from, to, &lo, &hi))
    return;

  /* Bins add up, so new draws only add to them, as long as the grid holds
   * every draw with four bandwidths to spare and is not much wider than
   * it needs to be. */
  if (!series->grid_valid || series->grid_from != from || to < series->grid_to
      || lo - 4 * h < series->grid_lo || hi + 4 * h > series->grid_hi
      || series->grid_hi - series->grid_lo > 2 * (hi - lo + 16 * h))
    {
      series->grid_valid = TRUE;
      series->grid_from = from;
      series->grid_to = from;
      series->grid_lo = lo - 8 * h;
      series->grid_hi = hi + 8 * h;
      series->grid_finite = 0;
      memset (series->bins, 0, sizeof series->bins);
    }
  series->grid_finite += tilde_kde_bin (series_values (series, NULL) + series->grid_to,
                                        to - series->grid_to, series->grid_lo, series->grid_hi,
                                        KDE_POINTS, series->bins);
  series->grid_to = to;
  series->kde_lo = series->grid_lo;
  series->kde_hi = series->grid_hi;
  tilde_kde_smooth (series->bins, series->grid_finite, h, series->kde_lo, series->kde_hi,
                    KDE_POINTS, series->density);
  for (guint i = 0; i < KDE_POINTS; i++)
    series->kde_peak = MAX (series->kde_peak, series->density[i]);
}

/* Refits, a frame, the next DENSITY_REFITS densities whose draws grew,
 * going round the rows and chains: chains grow together, and refitting
 * them all in one frame would make that frame late. A density never fitted
 * is fitted when drawn. */
static void
refresh_densities (TildePlotPainter *painter)
{
  guint total = painter->rows->len * painter->n_chains, budget = DENSITY_REFITS;
  guint first = painter->density_cursor;

  if (!painter->live || total == 0)
    return;
  painter->refitting = TRUE;
  for (guint k = 0; k < total && budget > 0; k++)
    {
      guint index = (first + k) % total;
      guint chain = index % painter->n_chains;
      Row *row = g_ptr_array_index (painter->rows, index / painter->n_chains);
      Series *series = &row->series[chain];
      guint from, to;

      statistics_draws (painter, chain, &from, &to);
      if (!series->kde_valid || (series->kde_from == from && series->kde_to == to))
        continue;
      ensure_density (painter, series, chain);
      budget--;
      painter->density_cursor = (index + 1) % total;
    }
  painter->refitting = FALSE;
}

static gboolean
ensure_autocorrelation (TildePlotPainter *painter, Series *series, guint chain, guint max_lag)
{
  guint from, to, lags;

  statistics_draws (painter, chain, &from, &to);
  if (to - from < 3)
    return FALSE;
  lags = MIN (max_lag, to - from - 1);
  if (!(series->acf_valid && series->acf_from == from && series->acf_to == to
        && series->acf_lags == lags))
    {
      series->acf_from = from;
      series->acf_to = to;
      series->acf_lags = lags;
      series->acf = g_renew (double, series->acf, lags + 1);
      series->acf_valid = tilde_autocorrelation (series_values (series, NULL) + from,
                                                 to - from, lags, series->acf);
      /* A constant chain has none; remember that too. */
      if (!series->acf_valid)
        {
          series->acf_lags = G_MAXUINT;
          return FALSE;
        }
    }
  return series->acf_valid;
}

static gboolean
ensure_ranks (TildePlotPainter *painter, Row *row)
{
  guint64 stamp = tilde_draws_get_stamp (painter->draws);
  g_autofree double *pooled = NULL;
  g_autofree double *ranks = NULL;
  gsize total = 0, offset = 0;

  if (row->ranks_valid && row->ranks_stamp == stamp)
    return row->ranks_peak > 0;
  row->ranks_valid = TRUE;
  row->ranks_stamp = stamp;
  row->ranks_peak = 0;
  for (guint c = 0; c < row->n_chains; c++)
    {
      guint from, to;

      statistics_draws (painter, c, &from, &to);
      total += to - from;
    }
  if (total < RANK_BINS)
    return FALSE;
  pooled = g_new (double, total);
  ranks = g_new (double, total);
  for (guint c = 0; c < row->n_chains; c++)
    {
      guint from, to;

      statistics_draws (painter, c, &from, &to);
      memcpy (pooled + offset, series_values (&row->series[c], NULL) + from,
              (to - from) * sizeof (double));
      offset += to - from;
    }
  tilde_average_ranks (pooled, total, ranks);
  offset = 0;
  for (guint c = 0; c < row->n_chains; c++)
    {
      guint from, to;

      statistics_draws (painter, c, &from, &to);
      tilde_rank_histogram (ranks + offset, to - from, total, RANK_BINS, row->series[c].ranks);
      offset += to - from;
      for (guint b = 0; b < RANK_BINS; b++)
        row->ranks_peak = MAX (row->ranks_peak, row->series[c].ranks[b]);
    }
  return row->ranks_peak > 0;
}

/* ---- legend ---- */

/* A legend item: a swatch, a gap, the label, and the gap to the next. */
#define LEGEND_SWATCH 14.0
#define LEGEND_SPACING 6.0
#define LEGEND_GAP 16.0

static double
legend_item_width (TildePlotText *text, const char *label)
{
  return LEGEND_SWATCH + LEGEND_SPACING + _tilde_plot_text_width (text, text->small, label)
         + LEGEND_GAP;
}

static void
draw_legend (TildePlotPainter *painter, cairo_t *cr, TildePlotText *text, double width, double y,
             const TildePlotStyle *style, gboolean warmup, gboolean divergent)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  double swatch = LEGEND_SWATCH, spacing = LEGEND_SPACING, total = 0, x;
  gboolean compact = FALSE;

  for (guint c = 0; c < painter->n_chains; c++)
    /* Translators: a legend entry, one per Markov chain */
    g_ptr_array_add (labels, g_strdup_printf (_("Chain %u"), c + 1));
  for (guint pass = 0; pass < 2; pass++)
    {
      total = 0;
      for (guint c = 0; c < labels->len; c++)
        total += legend_item_width (text, labels->pdata[c]);
      if (warmup)
        total += legend_item_width (text, _("Warm-up"));
      if (divergent)
        total += legend_item_width (text, _("Divergent"));
      if (total <= width - 2 * MARGIN || compact)
        break;
      /* Too many chains for words: their numbers. */
      compact = TRUE;
      for (guint c = 0; c < labels->len; c++)
        {
          g_free (labels->pdata[c]);
          labels->pdata[c] = g_strdup_printf ("%u", c + 1);
        }
    }

  x = MAX (MARGIN, width - MARGIN - total + LEGEND_GAP);
  for (guint c = 0; c < labels->len; c++)
    {
      graphene_rect_t bar = GRAPHENE_RECT_INIT (x, y - 1.5, swatch, 3);

      _tilde_plot_rounded_rectangle (cr, &bar, 1.5);
      _tilde_plot_set_source (cr, _tilde_plot_chain_colour (style, c), 1);
      cairo_fill (cr);
      _tilde_plot_show_text (cr, text, text->small, labels->pdata[c], x + swatch + spacing, y, 0,
                             0.5, &style->foreground, 0.75);
      x += legend_item_width (text, labels->pdata[c]);
    }
  if (warmup)
    {
      graphene_rect_t square = GRAPHENE_RECT_INIT (x + 2, y - 5, 10, 10);

      _tilde_plot_rounded_rectangle (cr, &square, 2);
      _tilde_plot_set_source (cr, &style->foreground, 0.12);
      cairo_fill (cr);
      _tilde_plot_show_text (cr, text, text->small, _("Warm-up"), x + swatch + spacing, y, 0, 0.5,
                             &style->foreground, 0.75);
      x += legend_item_width (text, _("Warm-up"));
    }
  if (divergent)
    {
      cairo_move_to (cr, _tilde_plot_snap (x + swatch / 2), y - 5);
      cairo_line_to (cr, _tilde_plot_snap (x + swatch / 2), y + 5);
      cairo_set_line_width (cr, 1.5);
      _tilde_plot_set_source (cr, &style->divergent, 1);
      cairo_stroke (cr);
      _tilde_plot_show_text (cr, text, text->small, _("Divergent"), x + swatch + spacing, y, 0, 0.5,
                             &style->foreground, 0.75);
    }
}

/* ---- trace view ---- */

static gboolean
trace_axes (TildePlotPainter *painter, Row *row, const TildePlotOptions *options, double start,
            double end, double height, TildePlotAxes *axes)
{
  double lo = INFINITY, hi = -INFINITY;

  for (guint c = 0; c < row->n_chains; c++)
    {
      guint n;
      const double *values = series_values (&row->series[c], &n);
      guint shown = first_shown (painter, options, c);
      double from = MAX (MAX (floor (start), 0), shown);
      double to = MIN (ceil (end) + 1, n);
      double a = 0, b = 0;
      gboolean found;

      if (!(to > from))
        continue;
      /* Every draw shown, as while a run streams: extremes kept up to date;
       * a zoomed window's from the envelope's blocks. */
      if (from == shown && to == n)
        found = range_of (&row->series[c].trace_range, values, shown, n, &a, &b);
      else
        found = tilde_envelope_extremes (row->series[c].trace, (gsize) from, (gsize) to, &a, &b) > 0;
      if (found)
        {
          lo = MIN (lo, a);
          hi = MAX (hi, b);
        }
    }
  axes->has_data = lo <= hi;
  if (!axes->has_data)
    return FALSE;
  _tilde_plot_pad_range (&lo, &hi);
  axes->y_lo = lo;
  axes->y_hi = hi;
  _tilde_plot_pick_ticks (lo, hi, height, 30, &axes->y_ticks);
  return TRUE;
}

/* Column c of a dense trace, from value hi down to lo. */
static void
trace_bar (cairo_t *cr, TildePlotRaster *raster, const TildePlotRowLayout *r, guint c,
           double hi, double lo, double x0, double y0, double scale, guint32 pixel)
{
  /* In the panel's pixels. */
  double top = floor ((_tilde_plot_map_y (r, hi) - y0) * scale);
  double bottom = MAX (ceil ((_tilde_plot_map_y (r, lo) - y0) * scale), top + 1);

  if (raster)
    _tilde_plot_raster_bar (raster, (int) c, (int) CLAMP (top, -1, raster->height + 1),
                            (int) CLAMP (bottom, -1, raster->height + 1), pixel);
  else
    cairo_rectangle (cr, x0 + c, y0 + top, 1, bottom - top);
}

/* One chain's line: when draws outnumber pixels, one bar per pixel
 * column from the column's smallest to its largest draw (the envelope's
 * decimation: the cost of the width, not of the draws), stretched to
 * reach the previous column's last draw so that the line stays joined,
 * and the columns between two draws further apart than a column given
 * the segment that joins them (into `raster` when there is one, else as
 * rectangles); the draws
 * themselves joined by lines when zoomed in: anti-aliased into the raster
 * (tilde-plot-lines.c, a fourth of cairo's time for a trace of steep
 * segments), stroked by cairo into vector files. A stroke of the bars'
 * zigzag would make a polygon crossing every scanline thousands of times. */
static void
trace_line (TildePlotPainter *painter, cairo_t *cr, TildePlotRaster *raster,
            const TildePlotRowLayout *r, const TildeEnvelope *trace, guint from, guint32 pixel)
{
  double span = r->x_hi - r->x_lo, scale = raster ? raster->scale : 1;
  guint n_columns = (guint) MAX (ceil (r->main.size.width * scale), 1);
  gboolean started = FALSE;
  double previous_x = 0, previous_y = 0;
  gsize n;
  const double *y = tilde_envelope_get_values (trace, &n);

  if (span > n_columns / (2.0 * scale))
    {
      TildeColumn *columns;
      double x0 = floor (r->main.origin.x), y0 = floor (r->main.origin.y), previous = NAN;
      guint previous_column = 0;

      g_array_set_size (painter->scratch, n_columns);
      columns = (TildeColumn *) (void *) painter->scratch->data;
      /* Draws before `from` (hidden warmup) stay out. */
      tilde_envelope_decimate (trace, from, r->x_lo, r->x_hi, n_columns, columns);
      for (guint c = 0; c < n_columns; c++)
        {
          double lo, hi;

          if (columns[c].n == 0)
            continue;
          lo = columns[c].min;
          hi = columns[c].max;
          if (!isnan (previous) && c == previous_column + 1)
            {
              lo = MIN (lo, previous);
              hi = MAX (hi, previous);
            }
          else if (!isnan (previous) && c - previous_column <= n_columns / span + 1)
            {
              /* Fewer draws than columns: the columns between two draws
               * get the segment that joins them, as a line would (a
               * wider gap is non-finite draws, which break the line).
               * `at (k)`: the segment's value at column k's left edge. */
              double gap = c - previous_column, next = columns[c].first, edge;
#define at(k) (previous + (next - previous) * CLAMP (((k) - 0.5 - previous_column) / gap, 0, 1))
              for (guint k = previous_column + 1; k < c; k++)
                trace_bar (cr, raster, r, k, MAX (at (k), at (k + 1)), MIN (at (k), at (k + 1)),
                           x0, y0, scale, pixel);
              edge = at (c);
#undef at
              lo = MIN (lo, edge);
              hi = MAX (hi, edge);
            }
          previous = columns[c].last;
          previous_column = c;
          trace_bar (cr, raster, r, c, hi, lo, x0, y0, scale, pixel);
        }
      if (!raster)
        cairo_fill (cr);
      return;
    }

  /* Into the raster in the panel's pixels, as trace_bar()'s; else stroked. */
  if (raster)
    _tilde_plot_line_pen_begin (&painter->pen, raster, scale);
  for (gint64 i = MAX ((gint64) floor (r->x_lo) - 1, (gint64) from),
       last = MIN ((gint64) ceil (r->x_hi) + 1, (gint64) n - 1); i <= last; i++)
    {
      double x, yy;

      if (!isfinite (y[i]))
        {
          started = FALSE;
          continue;
        }
      x = _tilde_plot_map_x (r, i);
      yy = _tilde_plot_map_y (r, y[i]);
      if (raster)
        {
          x = (x - floor (r->main.origin.x)) * scale;
          yy = (yy - floor (r->main.origin.y)) * scale;
          if (started)
            _tilde_plot_line_pen_segment (&painter->pen, previous_x, previous_y, x, yy);
          previous_x = x;
          previous_y = yy;
        }
      else if (!started)
        cairo_move_to (cr, x, yy);
      else
        cairo_line_to (cr, x, yy);
      started = TRUE;
    }
  if (raster)
    _tilde_plot_line_pen_flush (&painter->pen, pixel);
  else
    cairo_stroke (cr);
}

static void
draw_warmup (TildePlotPainter *painter, Row *row, cairo_t *cr, TildePlotText *text,
             const TildePlotRowLayout *r, const TildePlotStyle *style)
{
  guint warmup = 0;
  double x0, x1;

  for (guint c = 0; c < row->n_chains; c++)
    warmup = MAX (warmup, tilde_draws_get_n_warmup (painter->draws, c));
  if (!(warmup > r->x_lo))
    return;
  x0 = MAX (_tilde_plot_map_x (r, 0), r->main.origin.x);
  x1 = MIN (_tilde_plot_map_x (r, warmup), r->main.origin.x + r->main.size.width);
  cairo_save (cr);
  _tilde_plot_rounded_rectangle (cr, &r->main, TILDE_PLOT_PANEL_RADIUS);
  cairo_clip (cr);
  cairo_rectangle (cr, x0, r->main.origin.y, x1 - x0, r->main.size.height);
  _tilde_plot_set_source (cr, &style->foreground, 0.05);
  cairo_fill (cr);
  cairo_restore (cr);
  if (x1 - x0 > _tilde_plot_text_width (text, text->small, _("Warm-up")) + 12)
    _tilde_plot_show_text (cr, text, text->small, _("Warm-up"), x0 + 6, r->main.origin.y + 4, 0, 0,
                           &style->foreground, 0.5);
}

static void
draw_chain_lines (TildePlotPainter *painter, Row *row, cairo_t *cr, const TildePlotRowLayout *r,
                  const TildePlotStyle *style, const TildePlotOptions *options)
{
  TildePlotRaster raster;
  gboolean has_raster;

  cairo_save (cr);
  _tilde_plot_clip_to (cr, &r->main);
  cairo_set_line_width (cr, 1);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  has_raster = !_tilde_plot_wants_vectors (cr)
               && _tilde_plot_raster_begin (&raster, cr, &r->main, style->scale);
  for (guint c = 0; c < row->n_chains; c++)
    {
      const GdkRGBA *colour = _tilde_plot_chain_colour (style, c);

      _tilde_plot_set_source (cr, colour, 1);
      trace_line (painter, cr, has_raster ? &raster : NULL, r, row->series[c].trace,
                  first_shown (painter, options, c), _tilde_plot_pixel_of (colour, 1));
    }
  if (has_raster)
    _tilde_plot_raster_end (&raster, cr, &r->main);
  cairo_restore (cr);
}

/* Ticks in the strip under the panel, where no line can hide them. */
static void
draw_divergences (TildePlotPainter *painter, Row *row, cairo_t *cr, const TildePlotRowLayout *r,
                  const TildePlotStyle *style, const TildePlotOptions *options)
{
  double bottom = r->main.origin.y + r->main.size.height;

  cairo_set_line_width (cr, 2);
  _tilde_plot_set_source (cr, &style->divergent, 1);
  for (guint c = 0; c < row->n_chains; c++)
    {
      guint n;
      const guint *divergent = tilde_draws_get_divergent (painter->draws, c, &n);

      for (guint i = 0; i < n; i++)
        {
          double x;

          if (divergent[i] < first_shown (painter, options, c) || divergent[i] < r->x_lo
              || divergent[i] > r->x_hi)
            continue;
          /* Two pixels wide, on pixel edges. */
          x = round (_tilde_plot_map_x (r, divergent[i]));
          cairo_move_to (cr, x, bottom + 2);
          cairo_line_to (cr, x, bottom + DIVERGENT_STRIP - 1);
        }
    }
  cairo_stroke (cr);
}

/* One chain's density turned on its side, on the trace's value axis. */
static void
density_path (cairo_t *cr, const Series *series, const TildePlotRowLayout *r, double peak)
{
  const graphene_rect_t *side = &r->side;
  guint first = 0, last = KDE_POINTS - 1;
  double last_x = 0, last_y = 0;

  /* The tails, flat along the baseline, are left out. */
  while (first < last && series->density[first] < 5e-3 * series->kde_peak)
    first++;
  while (last > first && series->density[last] < 5e-3 * series->kde_peak)
    last--;
  for (guint i = first; i <= last; i++)
    {
      double value = series->kde_lo + i * (series->kde_hi - series->kde_lo) / (KDE_POINTS - 1);
      double x = side->origin.x + 2 + series->density[i] / peak * (side->size.width - 8);
      double y = _tilde_plot_map_y (r, value);

      /* Points closer than a pixel add nothing but stroking time. */
      if (i > first && i < last && fabs (x - last_x) < 1 && fabs (y - last_y) < 1)
        continue;
      if (i == first)
        cairo_move_to (cr, x, y);
      else
        cairo_line_to (cr, x, y);
      last_x = x;
      last_y = y;
    }
}

static void
stroke_densities (cairo_t *cr, Row *row, const TildePlotRowLayout *r, const TildePlotStyle *style,
                  double peak)
{
  cairo_save (cr);
  _tilde_plot_clip_to (cr, &r->side);
  cairo_set_line_width (cr, 1.5);
  /* Cairo's faster scan converter: a third of the time, and at this
   * width no difference to see. */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_FAST);
  for (guint c = 0; c < row->n_chains; c++)
    {
      if (!(row->series[c].kde_peak > 0))
        continue;
      density_path (cr, &row->series[c], r, peak);
      _tilde_plot_set_source (cr, _tilde_plot_chain_colour (style, c), 1);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

static gboolean
density_picture_is_current (const DensityPicture *picture, guint64 serial,
                            const TildePlotRowLayout *r, const TildePlotStyle *style)
{
  return picture->surface != NULL && picture->serial == serial
         && graphene_rect_equal (&picture->side, &r->side) && picture->y_lo == r->y_lo
         && picture->y_hi == r->y_hi && picture->scale == style->scale
         && memcmp (picture->chains, style->chains, sizeof picture->chains) == 0;
}

/* The row's densities into its picture, at the target's scale. */
static void
draw_density_picture (DensityPicture *picture, guint64 serial, Row *row,
                      const TildePlotRowLayout *r, const TildePlotStyle *style, double peak)
{
  double scale = MAX (style->scale, 1);
  int width, height;
  cairo_t *cr;

  picture->x = floor (r->side.origin.x);
  picture->y = floor (r->side.origin.y);
  width = MAX ((int) ceil ((r->side.origin.x + r->side.size.width - picture->x) * scale), 1);
  height = MAX ((int) ceil ((r->side.origin.y + r->side.size.height - picture->y) * scale), 1);
  /* Refitted a few times a second while draws stream: the image of the
   * same size is cleared rather than made again, whose pages would each
   * fault when first drawn on. */
  if (picture->surface != NULL && cairo_surface_get_reference_count (picture->surface) == 1
      && cairo_image_surface_get_width (picture->surface) == width
      && cairo_image_surface_get_height (picture->surface) == height)
    {
      cr = cairo_create (picture->surface);
      cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);
      cairo_paint (cr);
      cairo_destroy (cr);
    }
  else
    {
      g_clear_pointer (&picture->surface, cairo_surface_destroy);
      picture->surface = _tilde_plot_image_new (width, height);
    }
  cairo_surface_set_device_scale (picture->surface, scale, scale);
  cr = cairo_create (picture->surface);
  cairo_translate (cr, -picture->x, -picture->y);
  stroke_densities (cr, row, r, style, peak);
  cairo_destroy (cr);
  picture->serial = serial;
  picture->side = r->side;
  picture->y_lo = r->y_lo;
  picture->y_hi = r->y_hi;
  picture->scale = style->scale;
  memcpy (picture->chains, style->chains, sizeof picture->chains);
}

static void
draw_densities (TildePlotPainter *painter, Row *row, cairo_t *cr, TildePlotText *text,
                const TildePlotRowLayout *r, const TildePlotStyle *style, double label_y)
{
  double peak = 0;
  guint64 serial = 0;

  for (guint c = 0; c < row->n_chains; c++)
    {
      ensure_density (painter, &row->series[c], c);
      peak = MAX (peak, row->series[c].kde_peak);
      serial = MAX (serial, row->series[c].kde_serial);
    }
  if (!(peak > 0))
    return;
  /* Vector files get the curves themselves. */
  if (_tilde_plot_wants_vectors (cr))
    stroke_densities (cr, row, r, style, peak);
  else
    {
      DensityPicture *picture = &row->densities;

      if (!density_picture_is_current (picture, serial, r, style))
        draw_density_picture (picture, serial, row, r, style, peak);
      cairo_set_source_surface (cr, picture->surface, picture->x, picture->y);
      cairo_paint (cr);
    }
  _tilde_plot_show_text (cr, text, text->small, _("Density"),
                         r->side.origin.x + r->side.size.width / 2, label_y, 0.5, 0,
                         &style->foreground, 0.5);
}

static void
draw_trace_row (TildePlotPainter *painter, Row *row, cairo_t *cr, TildePlotText *text,
                const TildePlotRowLayout *r, const TildePlotAxes *axes, const TildePlotStyle *style,
                const TildePlotOptions *options, double label_y, gboolean last_row)
{
  _tilde_plot_fill_panel (cr, &r->main, style);
  _tilde_plot_fill_panel (cr, &r->side, style);
  if (!axes->has_data)
    return;
  if (options->show_warmup)
    draw_warmup (painter, row, cr, text, r, style);
  _tilde_plot_draw_y_axis (cr, text, r, axes, style, r->side.origin.x + r->side.size.width);
  draw_chain_lines (painter, row, cr, r, style, options);
  draw_divergences (painter, row, cr, r, style, options);
  _tilde_plot_draw_x_axis (cr, text, r, label_y, TRUE, last_row ? _("Iteration") : NULL, style);
  draw_densities (painter, row, cr, text, r, style, label_y);
}

/* ---- rank view ---- */

static graphene_rect_t
rank_panel (const TildePlotRowLayout *r, guint chain, guint n_chains)
{
  double gap = 8, w = (r->main.size.width - gap * (n_chains - 1)) / n_chains;

  return GRAPHENE_RECT_INIT (r->main.origin.x + chain * (w + gap), r->main.origin.y, w,
                             r->main.size.height);
}

static void
draw_rank_row (TildePlotPainter *painter, Row *row, cairo_t *cr, TildePlotText *text,
               const TildePlotRowLayout *r, const TildePlotAxes *axes, const TildePlotStyle *style,
               double label_y)
{
  for (guint c = 0; c < row->n_chains; c++)
    {
      graphene_rect_t panel = rank_panel (r, c, row->n_chains);
      guint from, to;
      double expected, bar = panel.size.width / RANK_BINS;

      _tilde_plot_fill_panel (cr, &panel, style);
      if (!axes->has_data)
        continue;
      statistics_draws (painter, c, &from, &to);
      expected = (double) (to - from) / RANK_BINS;
      for (guint b = 0; b < RANK_BINS; b++)
        {
          /* On whole pixels: sharp edges, and boxes cairo fills fast. */
          double top = round (_tilde_plot_map_y (r, row->series[c].ranks[b]));
          double bottom = round (_tilde_plot_map_y (r, 0));
          double left = round (panel.origin.x + b * bar);
          double right = round (panel.origin.x + (b + 1) * bar) - 1;

          cairo_rectangle (cr, left, top, MAX (right - left, 1), bottom - top);
        }
      _tilde_plot_set_source (cr, _tilde_plot_chain_colour (style, c), 1);
      cairo_fill (cr);
      /* What a well-mixed chain would show. */
      cairo_move_to (cr, panel.origin.x, _tilde_plot_snap (_tilde_plot_map_y (r, expected)));
      cairo_line_to (cr, panel.origin.x + panel.size.width,
                     _tilde_plot_snap (_tilde_plot_map_y (r, expected)));
      cairo_set_dash (cr, (const double[]) { 4, 3 }, 2, 0);
      cairo_set_line_width (cr, 1);
      _tilde_plot_set_source (cr, &style->foreground, 0.55);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  if (!axes->has_data)
    return;
  {
    /* Counts on the left only; the grid spans every chain's panel. */
    TildePlotRowLayout first = *r;

    first.main = rank_panel (r, 0, row->n_chains);
    _tilde_plot_draw_y_axis (cr, text, &first, axes, style, first.main.origin.x);
  }
  _tilde_plot_show_text (cr, text, text->small, _("Rank (all chains)"),
                         r->main.origin.x + r->main.size.width / 2, label_y, 0.5, 0,
                         &style->foreground, 0.5);
}

/* ---- autocorrelation view ---- */

static void
draw_autocorrelation_row (TildePlotPainter *painter, Row *row, cairo_t *cr, TildePlotText *text,
                          const TildePlotRowLayout *r, const TildePlotAxes *axes,
                          const TildePlotStyle *style, const TildePlotOptions *options,
                          double label_y, gboolean last_row)
{
  _tilde_plot_fill_panel (cr, &r->main, style);
  if (!axes->has_data)
    return;
  _tilde_plot_draw_y_axis (cr, text, r, axes, style, r->main.origin.x + r->main.size.width);
  /* Zero, stronger than the grid. */
  cairo_move_to (cr, r->main.origin.x, _tilde_plot_snap (_tilde_plot_map_y (r, 0)));
  cairo_line_to (cr, r->main.origin.x + r->main.size.width,
                 _tilde_plot_snap (_tilde_plot_map_y (r, 0)));
  _tilde_plot_set_source (cr, &style->foreground, 0.3);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);

  cairo_save (cr);
  _tilde_plot_clip_to (cr, &r->main);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint c = 0; c < row->n_chains; c++)
    {
      Series *series = &row->series[c];

      if (!ensure_autocorrelation (painter, series, c, options->max_lag))
        continue;
      for (guint k = 0; k <= series->acf_lags; k++)
        {
          if (k == 0)
            cairo_move_to (cr, _tilde_plot_map_x (r, k), _tilde_plot_map_y (r, series->acf[k]));
          else
            cairo_line_to (cr, _tilde_plot_map_x (r, k), _tilde_plot_map_y (r, series->acf[k]));
        }
      _tilde_plot_set_source (cr, _tilde_plot_chain_colour (style, c), 1);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
  _tilde_plot_draw_x_axis (cr, text, r, label_y, TRUE, last_row ? _("Lag") : NULL, style);
}

static gboolean
autocorrelation_axes (TildePlotPainter *painter, Row *row, const TildePlotOptions *options,
                      double height, TildePlotAxes *axes, guint *lags)
{
  double lo = 0;

  axes->has_data = FALSE;
  *lags = 1;
  for (guint c = 0; c < row->n_chains; c++)
    {
      Series *series = &row->series[c];

      if (!ensure_autocorrelation (painter, series, c, options->max_lag))
        continue;
      axes->has_data = TRUE;
      *lags = MAX (*lags, series->acf_lags);
      for (guint k = 0; k <= series->acf_lags; k++)
        lo = MIN (lo, series->acf[k]);
    }
  if (!axes->has_data)
    return FALSE;
  axes->y_lo = lo - 0.08 * (1 - lo);
  axes->y_hi = 1 + 0.08 * (1 - lo);
  _tilde_plot_pick_ticks (lo, 1, height * (1 - lo) / (axes->y_hi - axes->y_lo), 30, &axes->y_ticks);
  return TRUE;
}

/* ---- pairs view ---- */

static void
draw_pairs (TildePlotPainter *painter, cairo_t *cr, TildePlotText *text,
            const TildePlotRowLayout *r, const TildePlotAxes *axes, const TildeTicks *x_ticks,
            const TildePlotStyle *style, double label_y)
{
  Row *x_row = g_ptr_array_index (painter->rows, 0), *y_row = g_ptr_array_index (painter->rows, 1);
  TildePlotRaster raster;
  gboolean has_raster;

  _tilde_plot_fill_panel (cr, &r->main, style);
  if (!axes->has_data)
    return;
  _tilde_plot_draw_y_axis (cr, text, r, axes, style, r->main.origin.x + r->main.size.width);
  /* Vertical grid lines at the x ticks too. */
  for (guint i = 0; i < x_ticks->n; i++)
    {
      double x = _tilde_plot_snap (_tilde_plot_map_x (r, tilde_ticks_value (x_ticks, i)));

      cairo_move_to (cr, x, r->main.origin.y);
      cairo_line_to (cr, x, r->main.origin.y + r->main.size.height);
    }
  _tilde_plot_set_source (cr, &style->foreground, 0.08);
  cairo_stroke (cr);

  cairo_save (cr);
  _tilde_plot_clip_to (cr, &r->main);
  has_raster = !_tilde_plot_wants_vectors (cr)
               && _tilde_plot_raster_begin (&raster, cr, &r->main, style->scale);
  for (guint c = 0; c < painter->n_chains; c++)
    {
      const double *x = series_values (&x_row->series[c], NULL);
      const double *y = series_values (&y_row->series[c], NULL);
      guint32 pixel = _tilde_plot_pixel_of (_tilde_plot_chain_colour (style, c), 0.55);
      double x0 = floor (r->main.origin.x), y0 = floor (r->main.origin.y);
      guint from, to;

      statistics_draws (painter, c, &from, &to);
      for (guint i = from; i < to; i++)
        {
          double px, py;

          if (!isfinite (x[i]) || !isfinite (y[i]))
            continue;
          px = _tilde_plot_map_x (r, x[i]);
          py = _tilde_plot_map_y (r, y[i]);
          if (!has_raster)
            {
              cairo_rectangle (cr, px - 1, py - 1, 2, 2);
              continue;
            }
          /* A dot of two by two units. */
          {
            int left = (int) floor ((px - x0 - 1) * raster.scale + 0.5);
            int top = (int) floor ((py - y0 - 1) * raster.scale + 0.5);
            int size = (int) round (2 * raster.scale);

            for (int dy = 0; dy < size; dy++)
              for (int dx = 0; dx < size; dx++)
                _tilde_plot_raster_blend (&raster, left + dx, top + dy, pixel);
          }
        }
      if (!has_raster)
        {
          _tilde_plot_set_source (cr, _tilde_plot_chain_colour (style, c), 0.55);
          cairo_fill (cr);
        }
    }
  if (has_raster)
    _tilde_plot_raster_end (&raster, cr, &r->main);
  /* Divergent draws on top, ringed so they stand out of a dense cloud. */
  for (guint c = 0; c < painter->n_chains; c++)
    {
      const double *x = series_values (&x_row->series[c], NULL);
      const double *y = series_values (&y_row->series[c], NULL);
      guint n, from, to;
      const guint *divergent = tilde_draws_get_divergent (painter->draws, c, &n);

      statistics_draws (painter, c, &from, &to);
      for (guint i = 0; i < n; i++)
        {
          guint d = divergent[i];

          if (d < from || d >= to || !isfinite (x[d]) || !isfinite (y[d]))
            continue;
          cairo_new_sub_path (cr);
          cairo_arc (cr, _tilde_plot_map_x (r, x[d]), _tilde_plot_map_y (r, y[d]), 3.5, 0,
                     2 * G_PI);
        }
    }
  _tilde_plot_set_source (cr, &style->divergent, 1);
  cairo_fill_preserve (cr);
  _tilde_plot_set_source (cr, &style->background, 1);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  cairo_restore (cr);

  {
    double right = -G_MAXDOUBLE;

    for (guint i = 0; i < x_ticks->n; i++)
      {
        double x = _tilde_plot_map_x (r, tilde_ticks_value (x_ticks, i));
        char label[64];
        double width;

        tilde_ticks_format (x_ticks, i, label, sizeof label);
        width = _tilde_plot_text_width (text, text->small, label);
        if (x - width / 2 < right + 6)
          continue;
        _tilde_plot_show_text (cr, text, text->small, label, x, label_y, 0.5, 0, &style->foreground,
                               0.6);
        right = x + width / 2;
      }
  }
  _tilde_plot_show_text (cr, text, text->bold, x_row->label,
                         r->main.origin.x + r->main.size.width / 2,
                         label_y + text->small_height + 4, 0.5, 0, &style->foreground, 0.9);
}

static gboolean
pairs_axes (TildePlotPainter *painter, guint row_index, double length, TildePlotAxes *axes)
{
  Row *row = g_ptr_array_index (painter->rows, row_index);
  double lo = INFINITY, hi = -INFINITY;

  for (guint c = 0; c < row->n_chains; c++)
    {
      guint from, to;
      double a, b;

      statistics_draws (painter, c, &from, &to);
      if (to > from
          && tilde_plot_finite_range (series_values (&row->series[c], NULL) + from,
                                      to - from, &a, &b))
        {
          lo = MIN (lo, a);
          hi = MAX (hi, b);
        }
    }
  axes->has_data = lo <= hi;
  if (!axes->has_data)
    return FALSE;
  _tilde_plot_pad_range (&lo, &hi);
  axes->y_lo = lo;
  axes->y_hi = hi;
  _tilde_plot_pick_ticks (lo, hi, length, 40, &axes->y_ticks);
  return TRUE;
}

/* ---- the whole picture ---- */

/* The first layout in a font waits while fontconfig sorts the fonts on
 * Pango's thread, and the first time a character is drawn cairo renders
 * its glyph: together, milliseconds that otherwise fall in the first
 * frames of a run, while the chains compete for the processors. The
 * layouts made here stay in the painter's cache. */
void
_tilde_plot_painter_warm_text (TildePlotPainter *painter, PangoLayout *layout_text,
                               const TildePlotStyle *style)
{
  static const char characters[] = "0123456789.,-+e%\u2212 ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   " abcdefghijklmnopqrstuvwxyz[]()";
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 600, 40);
  cairo_t *cr = cairo_create (surface);
  TildePlotText text;

  _tilde_plot_text_init (&text, &painter->labels, layout_text, style);
  _tilde_plot_show_text (cr, &text, text.small, characters, 0, 0, 0, 0, &style->foreground, 1);
  _tilde_plot_show_text (cr, &text, text.bold, characters, 0, 20, 0, 0, &style->foreground, 1);
  _tilde_plot_text_clear (&text);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

guint
_tilde_plot_painter_get_rows_drawn (TildePlotPainter *painter)
{
  return painter->rows_drawn;
}

guint
_tilde_plot_painter_get_n_labels (TildePlotPainter *painter)
{
  return g_hash_table_size (painter->labels.layouts);
}

static gboolean
has_any_draws (TildePlotPainter *painter)
{
  return painter->draws != NULL && tilde_draws_get_max_draws (painter->draws) > 0;
}

static gboolean
has_divergences (TildePlotPainter *painter)
{
  for (guint c = 0; c < painter->n_chains; c++)
    {
      guint n;

      tilde_draws_get_divergent (painter->draws, c, &n);
      if (n > 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_warmup (TildePlotPainter *painter)
{
  for (guint c = 0; c < painter->n_chains; c++)
    if (tilde_draws_get_n_warmup (painter->draws, c) > 0)
      return TRUE;
  return FALSE;
}

static void
draw_pairs_view (TildePlotPainter *painter, cairo_t *cr, TildePlotText *text, double width,
                 double height, double top, const TildePlotStyle *style, TildePlotLayout *layout)
{
  TildePlotAxes x_axes, y_axes;
  TildePlotRowLayout r = { 0 };
  double title_h = text->bold_height + 6;
  double bottom = height - MARGIN - text->small_height - 4 - text->bold_height - 4;
  double left;
  Row *y_row = g_ptr_array_index (painter->rows, 1);

  pairs_axes (painter, 0, width, &x_axes);
  pairs_axes (painter, 1, bottom - top - title_h, &y_axes);
  left = MARGIN + _tilde_plot_y_labels_width (text, &y_axes) + TILDE_PLOT_LABEL_GAP;
  r.main = GRAPHENE_RECT_INIT (left, top + title_h, width - MARGIN - left,
                               MAX (bottom - top - title_h, 1));
  if (x_axes.has_data)
    {
      _tilde_plot_pick_ticks (x_axes.y_lo, x_axes.y_hi, r.main.size.width, 80, &x_axes.y_ticks);
      r.x_lo = x_axes.y_lo;
      r.x_hi = x_axes.y_hi;
    }
  r.y_lo = y_axes.y_lo;
  r.y_hi = y_axes.y_hi;
  _tilde_plot_show_text (cr, text, text->bold, y_row->label, left, top, 0, 0, &style->foreground,
                         0.9);
  y_axes.has_data = y_axes.has_data && x_axes.has_data;
  draw_pairs (painter, cr, text, &r, &y_axes, &x_axes.y_ticks, style,
              r.main.origin.y + r.main.size.height + 4);
  if (layout)
    g_array_append_val (layout->rows, r);
}

void
_tilde_plot_painter_draw (TildePlotPainter *painter, cairo_t *cr, PangoLayout *layout_text,
                          double width, double height, const TildePlotStyle *style,
                          const TildePlotOptions *options, TildePlotLayout *layout)
{
  TildePlotText text;
  guint n_rows = painter->rows->len;
  g_autofree TildePlotAxes *axes = NULL;
  double start = 0, end = 1, header, row_height, title_h, label_h, strip, left, right, side_w = 0;
  double clip_x1, clip_x2, clip_top, clip_bottom;
  gboolean trace = options->view == TILDE_PLOT_VIEW_TRACE;

  painter->rows_drawn = 0;
  if (layout)
    {
      layout->width = width;
      layout->height = height;
      layout->n_row_bands = 0;
      layout->header = 0;
      layout->row_height = 0;
      g_array_set_size (layout->rows, 0);
    }
  if (style->fill_background)
    {
      gdk_cairo_set_source_rgba (cr, &style->background);
      cairo_paint (cr);
    }
  _tilde_plot_text_init (&text, &painter->labels, layout_text, style);
  painter->bandwidth_budget = 2;
  painter->live = options->live;
  painter->unsettled = FALSE;
  if (painter->draws != NULL)
    _tilde_plot_painter_sync (painter);

  /* Rows share the height below the legend; each has a title, its panel,
   * and a line of tick labels (and the divergences' strip in the trace
   * view). */
  header = MARGIN + text.small_height + 12;
  row_height = (height - header - MARGIN + ROW_GAP) / MAX (n_rows, 1);
  if (layout && n_rows > 0 && options->view != TILDE_PLOT_VIEW_PAIRS)
    {
      layout->n_row_bands = n_rows;
      layout->header = header;
      layout->row_height = row_height;
    }

  if (!has_any_draws (painter) || n_rows == 0
      || (options->view == TILDE_PLOT_VIEW_PAIRS && n_rows < 2))
    {
      _tilde_plot_draw_message (cr, &text, width, height,
                                !has_any_draws (painter) ? _("No draws yet")
                                : options->view == TILDE_PLOT_VIEW_PAIRS
                                ? _("Select two parameters to plot one against the other")
                                : _("Select parameters to plot"),
                                style);
      _tilde_plot_text_clear (&text);
      return;
    }

  draw_legend (painter, cr, &text, width, MARGIN + text.small_height / 2, style,
               trace && options->show_warmup && has_warmup (painter),
               (trace || options->view == TILDE_PLOT_VIEW_PAIRS) && has_divergences (painter));
  if (options->view == TILDE_PLOT_VIEW_PAIRS)
    {
      draw_pairs_view (painter, cr, &text, width, height, header, style, layout);
      _tilde_plot_text_clear (&text);
      return;
    }

  title_h = text.bold_height + 6;
  label_h = text.small_height + 4;
  strip = trace ? DIVERGENT_STRIP : 2;
  iteration_window (painter, options, &start, &end);
  axes = g_new0 (TildePlotAxes, n_rows);
  if (trace && !options->hold_refits)
    refresh_densities (painter);

  left = 0;
  for (guint i = 0; i < n_rows; i++)
    {
      Row *row = g_ptr_array_index (painter->rows, i);
      double panel_h = row_height - ROW_GAP - title_h - strip - label_h;
      guint lags;

      switch (options->view)
        {
        case TILDE_PLOT_VIEW_TRACE:
          trace_axes (painter, row, options, start, end, panel_h, &axes[i]);
          break;
        case TILDE_PLOT_VIEW_RANK:
          axes[i].has_data = ensure_ranks (painter, row);
          axes[i].y_lo = 0;
          axes[i].y_hi = row->ranks_peak * 1.08;
          if (axes[i].has_data)
            _tilde_plot_pick_ticks (0, row->ranks_peak, panel_h / 1.08, 30, &axes[i].y_ticks);
          break;
        case TILDE_PLOT_VIEW_AUTOCORRELATION:
          autocorrelation_axes (painter, row, options, panel_h, &axes[i], &lags);
          break;
        case TILDE_PLOT_VIEW_PAIRS:
        default:
          g_assert_not_reached ();
        }
      left = MAX (left, _tilde_plot_y_labels_width (&text, &axes[i]));
    }
  left = MARGIN + left + TILDE_PLOT_LABEL_GAP;
  right = width - MARGIN;
  if (trace)
    {
      side_w = CLAMP (0.16 * (right - left), 56, 160);
      right -= side_w + SIDE_GAP;
    }

  /* Rows outside the clip (the screen's picture holds the rows in view,
   * in bands of a row each) are laid out but not drawn; a row draws
   * nothing in its last ROW_GAP. */
  cairo_clip_extents (cr, &clip_x1, &clip_top, &clip_x2, &clip_bottom);
  for (guint i = 0; i < n_rows; i++)
    {
      Row *row = g_ptr_array_index (painter->rows, i);
      double top = header + i * row_height;
      double panel_h = MAX (row_height - ROW_GAP - title_h - strip - label_h, 1);
      TildePlotRowLayout r = { 0 };
      double label_y;

      r.main = GRAPHENE_RECT_INIT (left, top + title_h, MAX (right - left, 1), panel_h);
      if (trace)
        r.side = GRAPHENE_RECT_INIT (right + SIDE_GAP, top + title_h, side_w, panel_h);
      r.y_lo = axes[i].y_lo;
      r.y_hi = axes[i].y_hi;
      if (options->view == TILDE_PLOT_VIEW_AUTOCORRELATION)
        {
          guint lags = 1;

          for (guint c = 0; c < row->n_chains; c++)
            if (row->series[c].acf_valid)
              lags = MAX (lags, row->series[c].acf_lags);
          r.x_lo = 0;
          r.x_hi = lags;
        }
      else
        {
          r.x_lo = start;
          r.x_hi = end;
        }
      label_y = r.main.origin.y + panel_h + strip;
      if (top >= clip_bottom || top + row_height - ROW_GAP <= clip_top)
        {
          if (layout)
            g_array_append_val (layout->rows, r);
          continue;
        }
      painter->rows_drawn++;

      _tilde_plot_show_text (cr, &text, text.bold, row->label, left, top, 0, 0, &style->foreground,
                             0.9);
      switch (options->view)
        {
        case TILDE_PLOT_VIEW_TRACE:
          draw_trace_row (painter, row, cr, &text, &r, &axes[i], style, options, label_y,
                          i == n_rows - 1);
          break;
        case TILDE_PLOT_VIEW_RANK:
          draw_rank_row (painter, row, cr, &text, &r, &axes[i], style, label_y);
          break;
        case TILDE_PLOT_VIEW_AUTOCORRELATION:
          draw_autocorrelation_row (painter, row, cr, &text, &r, &axes[i], style, options, label_y,
                                    i == n_rows - 1);
          break;
        case TILDE_PLOT_VIEW_PAIRS:
        default:
          g_assert_not_reached ();
        }
      if (!axes[i].has_data)
        _tilde_plot_show_text (cr, &text, text.small, _("No finite draws"),
                               r.main.origin.x + r.main.size.width / 2,
                               r.main.origin.y + r.main.size.height / 2, 0.5, 0.5,
                               &style->foreground, 0.5);
      if (layout)
        g_array_append_val (layout->rows, r);
    }
  _tilde_plot_text_clear (&text);
}

/* ---- hit tests ---- */

void
_tilde_plot_hit_clear (TildePlotHit *hit)
{
  g_clear_pointer (&hit->text, g_free);
  memset (hit, 0, sizeof *hit);
}

static char *
format_value (double value)
{
  char text[64];

  g_snprintf (text, sizeof text, "%.4g", value);
  if (text[0] == '-')
    return g_strdup_printf ("\u2212%s", text + 1);
  return g_strdup (text);
}

static gboolean
rect_contains (const graphene_rect_t *r, double x, double y)
{
  return x >= r->origin.x && x < r->origin.x + r->size.width
         && y >= r->origin.y && y < r->origin.y + r->size.height;
}

static void
hit_trace (TildePlotPainter *painter, Row *row, const TildePlotRowLayout *r,
           const TildePlotOptions *options, double x, double y, TildePlotHit *hit)
{
  gint64 draw = (gint64) round (_tilde_plot_unmap_x (r, x));
  double best = G_MAXDOUBLE;
  g_autofree char *value = NULL;
  g_autofree char *name = NULL;
  g_autofree char *where = NULL;

  for (guint c = 0; c < row->n_chains; c++)
    {
      guint n;
      const double *values = series_values (&row->series[c], &n);
      double v, distance;

      if (draw < first_shown (painter, options, c) || draw < 0 || draw >= n)
        continue;
      v = values[draw];
      if (!isfinite (v))
        continue;
      distance = fabs (_tilde_plot_map_y (r, v) - y);
      if (distance < best)
        {
          best = distance;
          hit->chain = (int) c;
          hit->x = _tilde_plot_map_x (r, draw);
          hit->y = _tilde_plot_map_y (r, v);
        }
    }
  if (best == G_MAXDOUBLE)
    return;
  hit->found = TRUE;
  value = format_value (series_values (&row->series[hit->chain], NULL)[draw]);
  name = g_markup_escape_text (row->label, -1);
  if (tilde_draws_is_warmup (painter->draws, hit->chain, (guint) draw))
    /* Translators: a read-out: the value, then "Chain 2, warmup iteration 130" */
    where = g_strdup_printf (_("Chain %d, warmup iteration %u"), hit->chain + 1, (guint) draw);
  else
    where = g_strdup_printf (_("Chain %d, iteration %u"), hit->chain + 1, (guint) draw);
  hit->text = g_strdup_printf ("<b>%s</b>  %s\n%s", name, value, where);
}

static void
hit_autocorrelation (Row *row, const TildePlotRowLayout *r, double x, double y, TildePlotHit *hit)
{
  gint64 lag = (gint64) round (_tilde_plot_unmap_x (r, x));
  g_autofree char *name = g_markup_escape_text (row->label, -1);
  GString *text;

  if (lag < 0 || lag > r->x_hi)
    return;
  text = g_string_new (NULL);
  /* Translators: a read-out title: the parameter, then "lag 12" */
  g_string_append_printf (text, _("<b>%s</b>  lag %u"), name, (guint) lag);
  for (guint c = 0; c < row->n_chains; c++)
    {
      Series *series = &row->series[c];
      g_autofree char *value = NULL;

      if (!series->acf_valid || lag > series->acf_lags)
        continue;
      value = format_value (series->acf[lag]);
      g_string_append_c (text, '\n');
      /* Translators: a read-out line: "Chain 2: 0.518" */
      g_string_append_printf (text, _("Chain %u: %s"), c + 1, value);
    }
  hit->found = TRUE;
  hit->chain = -1;
  hit->x = _tilde_plot_map_x (r, lag);
  hit->y = y;
  hit->text = g_string_free (text, FALSE);
}

static void
hit_rank (TildePlotPainter *painter, Row *row, const TildePlotRowLayout *r, double x, double y,
          TildePlotHit *hit)
{
  g_autofree char *name = g_markup_escape_text (row->label, -1);
  guint total = 0;

  if (!row->ranks_valid || row->ranks_peak == 0)
    return;
  for (guint c = 0; c < row->n_chains; c++)
    {
      guint from, to;

      statistics_draws (painter, c, &from, &to);
      total += to - from;
    }
  for (guint c = 0; c < row->n_chains; c++)
    {
      graphene_rect_t panel = rank_panel (r, c, row->n_chains);
      guint bin;

      if (!rect_contains (&panel, x, y))
        continue;
      bin = (guint) MIN ((x - panel.origin.x) / panel.size.width * RANK_BINS, RANK_BINS - 1);
      hit->found = TRUE;
      hit->chain = (int) c;
      hit->x = panel.origin.x + (bin + 0.5) * panel.size.width / RANK_BINS;
      hit->y = _tilde_plot_map_y (r, row->series[c].ranks[bin]);
      /* Translators: a read-out: the parameter, then "Chain 2, ranks 1 to 400: 96 draws" */
      hit->text = g_strdup_printf (_("<b>%s</b>\nChain %u, ranks %u to %u: %u draws"), name, c + 1,
                                   (guint) ((guint64) bin * total / RANK_BINS) + 1,
                                   (guint) ((guint64) (bin + 1) * total / RANK_BINS),
                                   row->series[c].ranks[bin]);
      return;
    }
}

static gboolean
is_divergent (TildePlotPainter *painter, guint chain, guint draw)
{
  guint n, lo = 0, hi;
  const guint *divergent = tilde_draws_get_divergent (painter->draws, chain, &n);

  hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (divergent[mid] < draw)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && divergent[lo] == draw;
}

static void
hit_pairs (TildePlotPainter *painter, const TildePlotRowLayout *r, double x, double y,
           TildePlotHit *hit)
{
  Row *x_row = g_ptr_array_index (painter->rows, 0), *y_row = g_ptr_array_index (painter->rows, 1);
  double best = 12 * 12;
  guint best_draw = 0;
  g_autofree char *x_name = NULL;
  g_autofree char *y_name = NULL;
  g_autofree char *x_value = NULL;
  g_autofree char *y_value = NULL;
  g_autofree char *where = NULL;

  for (guint c = 0; c < painter->n_chains; c++)
    {
      const double *xs = series_values (&x_row->series[c], NULL);
      const double *ys = series_values (&y_row->series[c], NULL);
      guint from, to;

      statistics_draws (painter, c, &from, &to);
      for (guint i = from; i < to; i++)
        {
          double dx = _tilde_plot_map_x (r, xs[i]) - x, dy = _tilde_plot_map_y (r, ys[i]) - y;

          if (dx * dx + dy * dy < best)
            {
              best = dx * dx + dy * dy;
              best_draw = i;
              hit->chain = (int) c;
              hit->found = TRUE;
            }
        }
    }
  if (!hit->found)
    return;
  hit->x = _tilde_plot_map_x (r,
                              series_values (&x_row->series[hit->chain], NULL)[best_draw]);
  hit->y = _tilde_plot_map_y (r,
                              series_values (&y_row->series[hit->chain], NULL)[best_draw]);
  x_name = g_markup_escape_text (x_row->label, -1);
  y_name = g_markup_escape_text (y_row->label, -1);
  x_value = format_value (series_values (&x_row->series[hit->chain], NULL)[best_draw]);
  y_value = format_value (series_values (&y_row->series[hit->chain], NULL)[best_draw]);
  if (is_divergent (painter, hit->chain, best_draw))
    where = g_strdup_printf (_("Chain %d, iteration %u, divergent"), hit->chain + 1, best_draw);
  else
    where = g_strdup_printf (_("Chain %d, iteration %u"), hit->chain + 1, best_draw);
  hit->text = g_strdup_printf ("<b>%s</b>  %s\n<b>%s</b>  %s\n%s", x_name, x_value, y_name, y_value,
                               where);
}

void
_tilde_plot_painter_hit (TildePlotPainter *painter, const TildePlotLayout *layout,
                         const TildePlotOptions *options, double x, double y, TildePlotHit *hit)
{
  _tilde_plot_hit_clear (hit);
  if (painter->draws == NULL || layout->rows == NULL)
    return;
  for (guint i = 0; i < layout->rows->len; i++)
    {
      const TildePlotRowLayout *r = &g_array_index (layout->rows, TildePlotRowLayout, i);

      if (!rect_contains (&r->main, x, y) || !(r->y_hi > r->y_lo) || !(r->x_hi > r->x_lo))
        continue;
      hit->row = i;
      switch (options->view)
        {
        case TILDE_PLOT_VIEW_TRACE:
          if (i < painter->rows->len)
            hit_trace (painter, g_ptr_array_index (painter->rows, i), r, options, x, y, hit);
          break;
        case TILDE_PLOT_VIEW_RANK:
          if (i < painter->rows->len)
            hit_rank (painter, g_ptr_array_index (painter->rows, i), r, x, y, hit);
          break;
        case TILDE_PLOT_VIEW_AUTOCORRELATION:
          if (i < painter->rows->len)
            hit_autocorrelation (g_ptr_array_index (painter->rows, i), r, x, y, hit);
          break;
        case TILDE_PLOT_VIEW_PAIRS:
          if (painter->rows->len >= 2)
            hit_pairs (painter, r, x, y, hit);
          break;
        default:
          break;
        }
      return;
    }
}
