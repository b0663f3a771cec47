/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <math.h>

#include "tilde-plot-canvas-private.h"

/* Anti-aliased polylines written into a raster. Cairo's stroker turns a
 * trace of a few hundred steep segments into a polygon that crosses each
 * scanline many times, and fills it at about 4 µs a segment; here each
 * segment costs only the pixels near it.
 *
 * A pixel's coverage is the share of its footprint across the line that
 * the line covers: the pixel seen along the segment's normal is an
 * interval as wide as the normal's |nx| + |ny| (one pixel for a level or
 * upright segment, 1.41 on a diagonal), centred at the pixel centre's
 * distance from the segment, and the line is the interval of the pen's
 * width around zero. Level and upright lines get their exact areas, and
 * every line its width's worth of ink. The distance is to the segment, not
 * its line, so a segment ends in a round cap and the line's segments meet
 * in round joins, as cairo's are drawn in the trace; each pixel keeps the
 * largest coverage of any of the line's segments, so that a join is no
 * darker than the line, and the line is blended in once at the end. */

static void
pen_reserve (TildePlotLinePen *pen, int width, int height)
{
  gsize pixels = (gsize) width * (gsize) height;

  if (pixels > pen->capacity)
    {
      g_free (pen->coverage);
      pen->coverage = g_malloc0 (pixels);
      pen->capacity = pixels;
    }
  if ((guint) width > pen->columns)
    {
      pen->top = g_renew (int, pen->top, width);
      pen->bottom = g_renew (int, pen->bottom, width);
      pen->columns = (guint) width;
    }
  for (int x = 0; x < width; x++)
    {
      pen->top[x] = height;
      pen->bottom[x] = 0;
    }
}

void
_tilde_plot_line_pen_begin (TildePlotLinePen *pen, TildePlotRaster *raster, double line_width)
{
  pen->raster = raster;
  pen->half_width = MAX (line_width, 0) / 2;
  pen_reserve (pen, raster->width, raster->height);
}

/* One segment's geometry, from a to a + d. */
typedef struct
{
  double ax, ay, dx, dy, inverse_length2;
  double footprint, inverse_footprint;   /* a pixel's width along the normal */
  double reach2;                         /* no pixel this far (squared) is covered */
} Segment;

/* The coverage of pixel (x, y) by the segment. */
static inline void
cover (TildePlotLinePen *pen, const Segment *s, int x, int y)
{
  const TildePlotRaster *raster = pen->raster;
  double cx = x + 0.5 - s->ax, cy = y + 0.5 - s->ay;
  double t = CLAMP ((cx * s->dx + cy * s->dy) * s->inverse_length2, 0, 1);
  double ex = cx - t * s->dx, ey = cy - t * s->dy, distance2 = ex * ex + ey * ey;
  double distance, covered;
  guint8 *p, value;

  if (distance2 >= s->reach2)
    return;
  distance = sqrt (distance2);
  covered = MIN (distance + s->footprint / 2, pen->half_width)
            - MAX (distance - s->footprint / 2, -pen->half_width);
  value = (guint8) (MIN (covered * s->inverse_footprint, 1) * 255 + 0.5);
  if (value == 0)
    return;
  p = pen->coverage + (gsize) y * (gsize) raster->width + x;
  if (value > *p)
    *p = value;
  if (y < pen->top[x])
    pen->top[x] = y;
  if (y >= pen->bottom[x])
    pen->bottom[x] = y + 1;
}

/* The part of the segment within [left, right] x [top, bottom] (Liang and
 * Barsky's clipping): FALSE when none is. */
static gboolean
clip (double *x0, double *y0, double *x1, double *y1, double left, double top, double right,
      double bottom)
{
  double dx = *x1 - *x0, dy = *y1 - *y0, t0 = 0, t1 = 1;
  const double p[4] = { -dx, dx, -dy, dy };
  const double q[4] = { *x0 - left, right - *x0, *y0 - top, bottom - *y0 };

  for (int i = 0; i < 4; i++)
    {
      if (p[i] == 0)
        {
          if (q[i] < 0)
            return FALSE;
          continue;
        }
      if (p[i] < 0)
        t0 = MAX (t0, q[i] / p[i]);
      else
        t1 = MIN (t1, q[i] / p[i]);
    }
  if (t0 > t1)
    return FALSE;
  *x1 = *x0 + t1 * dx;
  *y1 = *y0 + t1 * dy;
  *x0 += t0 * dx;
  *y0 += t0 * dy;
  return TRUE;
}

/* The segment from (x0, y0) to (x1, y1), in the raster's pixels. Along its
 * longer axis, each row (or column) is visited once, across the few pixels
 * the line can reach there. */
void
_tilde_plot_line_pen_segment (TildePlotLinePen *pen, double x0, double y0, double x1, double y1)
{
  const TildePlotRaster *raster = pen->raster;
  /* a margin wider than the line reaches, so that what is cut off no
   * pixel would see */
  double margin = pen->half_width + 2;
  double dx, dy, length2, u0, u1, v0, v1, slope, u_lo, u_hi, reach, first, last;
  gboolean steep;
  int u_size, v_size;
  Segment s;

  if (!isfinite (x0) || !isfinite (y0) || !isfinite (x1) || !isfinite (y1)
      || !clip (&x0, &y0, &x1, &y1, -margin, -margin, raster->width + margin,
                raster->height + margin))
    return;
  dx = x1 - x0;
  dy = y1 - y0;
  length2 = dx * dx + dy * dy;
  s = (Segment) { x0, y0, dx, dy, 0, 1, 1, 0 };
  if (length2 > 0)
    {
      s.inverse_length2 = 1 / length2;
      s.footprint = (fabs (dx) + fabs (dy)) / sqrt (length2);
      s.inverse_footprint = 1 / s.footprint;
    }
  /* beyond this distance from the segment no pixel is covered */
  reach = pen->half_width + s.footprint / 2;
  s.reach2 = reach * reach;

  /* the long axis: u; the other: v */
  steep = fabs (dy) >= fabs (dx);
  u0 = steep ? y0 : x0;
  u1 = steep ? y1 : x1;
  v0 = steep ? x0 : y0;
  v1 = steep ? x1 : y1;
  u_size = steep ? raster->height : raster->width;
  v_size = steep ? raster->width : raster->height;
  slope = u1 != u0 ? (v1 - v0) / (u1 - u0) : 0;
  u_lo = MIN (u0, u1);
  u_hi = MAX (u0, u1);
  first = MAX (floor (u_lo - reach), 0);
  last = MIN (ceil (u_hi + reach), u_size - 1);
  for (double u = first; u <= last; u++)
    {
      /* the segment's v over this row's reach, widened by the reach */
      double a = CLAMP (u + 0.5 - reach, u_lo, u_hi), b = CLAMP (u + 0.5 + reach, u_lo, u_hi);
      double va = v0 + slope * (a - u0), vb = v0 + slope * (b - u0);
      int v_first = (int) MAX (floor (MIN (va, vb) - reach), 0);
      int v_last = (int) MIN (ceil (MAX (va, vb) + reach), v_size - 1);

      for (int v = v_first; v <= v_last; v++)
        {
          if (steep)
            cover (pen, &s, v, (int) u);
          else
            cover (pen, &s, (int) u, v);
        }
    }
}

/* The line so far, blended over the raster in `pixel` (premultiplied),
 * and the pen cleared for the next line. */
void
_tilde_plot_line_pen_flush (TildePlotLinePen *pen, guint32 pixel)
{
  TildePlotRaster *raster = pen->raster;

  for (int x = 0; x < raster->width; x++)
    {
      for (int y = pen->top[x]; y < pen->bottom[x]; y++)
        {
          guint8 *c = pen->coverage + (gsize) y * raster->width + x;
          guint32 *p = raster->data + (gsize) y * raster->stride + x;

          if (*c == 0)
            continue;
          *p = _tilde_plot_pixel_over (pixel, *c, *p);
          *c = 0;
        }
      pen->top[x] = raster->height;
      pen->bottom[x] = 0;
    }
}

void
_tilde_plot_line_pen_clear (TildePlotLinePen *pen)
{
  g_clear_pointer (&pen->coverage, g_free);
  g_clear_pointer (&pen->top, g_free);
  g_clear_pointer (&pen->bottom, g_free);
  pen->capacity = 0;
  pen->columns = 0;
  pen->raster = NULL;
}
