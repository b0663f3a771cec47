/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pages for the plots' images mapped ahead: an image cut from the reserve
 * costs the thread that draws it no page fault (one made without it, one
 * per page); the reserve hands out page-aligned slices from its front and
 * nothing it does not hold; a fill replaces a smaller remainder and leaves
 * a large enough one be; a freed image's pages serve the next image of its
 * size, zeroed, up to a bound.
 */
#define G_LOG_DOMAIN "tilde"
#define _GNU_SOURCE /* RUSAGE_THREAD */

#include <cairo.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tilde-image-reserve.h"
#include "tilde-plot-canvas-private.h"

/* A band of rows of a plot 1200 pixels wide. */
#define IMAGE_WIDTH  1200
#define IMAGE_HEIGHT 300

static long
thread_faults (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_THREAD, &usage), ==, 0);
  return usage.ru_minflt + usage.ru_majflt;
}

static gsize
page (void)
{
  return (gsize) sysconf (_SC_PAGESIZE);
}

static gboolean
reserve_works_here (void)
{
#if defined(__linux__) && defined(MAP_POPULATE)
  return TRUE;
#else
  g_test_skip ("images are mapped ahead on Linux alone");
  return FALSE;
#endif
}

static gboolean
is_mapped (gpointer start, gsize length)
{
  unsigned char residency[64];

  g_assert_cmpuint (length / page (), <=, sizeof residency);
  if (mincore (start, length, residency) == 0)
    return TRUE;
  g_assert_cmpint (errno, ==, ENOMEM);
  return FALSE;
}

/* The page faults of making an image and painting all of it. */
static long
faults_of_an_image (cairo_surface_t **image)
{
  long before = thread_faults ();
  cairo_t *cr;

  *image = _tilde_plot_image_new (IMAGE_WIDTH, IMAGE_HEIGHT);
  cr = cairo_create (*image);
  cairo_set_source_rgba (cr, 0.2, 0.4, 0.6, 0.8);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_flush (*image);
  return thread_faults () - before;
}

static void
test_images_cost_no_faults (void)
{
  gsize bytes = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_ARGB32, IMAGE_WIDTH)
                * IMAGE_HEIGHT;
  gsize pages = (bytes + page () - 1) / page ();
  cairo_surface_t *image, *reference;
  cairo_t *cr;
  long without, with;

  if (!reserve_works_here ())
    return;
  _tilde_image_reserve_release ();
  without = faults_of_an_image (&image);
  cairo_surface_destroy (image);
  /* its pages, kept, would serve the next image of its size */
  _tilde_image_reserve_release ();

  g_assert_true (_tilde_image_reserve_fill (2 * bytes));
  g_assert_cmpuint (_tilde_image_reserve_get_size (TRUE), ==, 2 * pages * page ());
  with = faults_of_an_image (&image);
  g_printerr ("page faults of an image of %" G_GSIZE_FORMAT " pages: %ld, cut from the "
              "reserve: %ld\n", pages, without, with);
  g_assert_cmpint (without, >=, (long) pages);
  g_assert_cmpint (with, <, 16);
  g_assert_cmpuint (_tilde_image_reserve_get_size (FALSE), ==, pages * page ());
  /* it holds what was painted, as an image of cairo's own would */
  reference = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, IMAGE_WIDTH, IMAGE_HEIGHT);
  cr = cairo_create (reference);
  cairo_set_source_rgba (cr, 0.2, 0.4, 0.6, 0.8);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_flush (reference);
  g_assert_cmpmem (cairo_image_surface_get_data (image), bytes,
                   cairo_image_surface_get_data (reference), bytes);
  cairo_surface_destroy (reference);
  cairo_surface_destroy (image);
  _tilde_image_reserve_release ();
  g_assert_cmpuint (_tilde_image_reserve_get_size (FALSE), ==, 0);
}

static void
test_slices (void)
{
  gsize p = page ();
  guint8 *first, *second;

  if (!reserve_works_here ())
    return;
  _tilde_image_reserve_release ();
  g_assert_null (_tilde_image_reserve_take (1));
  g_assert_true (_tilde_image_reserve_fill (10 * p));
  g_assert_cmpuint (_tilde_image_reserve_get_size (TRUE), ==, 10 * p);

  first = _tilde_image_reserve_take (3 * p);
  g_assert_nonnull (first);
  g_assert_cmpuint ((guintptr) first % p, ==, 0);
  /* a byte takes a page of its own */
  second = _tilde_image_reserve_take (1);
  g_assert_true (second == first + 3 * p);
  g_assert_cmpuint (_tilde_image_reserve_get_size (FALSE), ==, 6 * p);
  g_assert_null (_tilde_image_reserve_take (7 * p));
  g_assert_cmpuint (_tilde_image_reserve_get_size (FALSE), ==, 6 * p);
  for (gsize i = 0; i < 3 * p; i++)
    g_assert_cmpuint (first[i], ==, 0);
  memset (first, 1, 3 * p);
  second[0] = 2;

  /* a slice unmaps alone; the next one and the reserve stay */
  g_assert_cmpint (munmap (first, 3 * p), ==, 0);
  g_assert_false (is_mapped (first, 3 * p));
  g_assert_true (is_mapped (second, p));
  g_assert_cmpuint (second[0], ==, 2);
  g_assert_true (is_mapped (second + p, 6 * p));

  /* enough held: nothing mapped; more asked for: mapped anew, the
   * remainder before unmapped */
  g_assert_false (_tilde_image_reserve_fill (5 * p));
  g_assert_true (_tilde_image_reserve_fill (8 * p));
  g_assert_cmpuint (_tilde_image_reserve_get_size (TRUE), ==, 8 * p);
  g_assert_false (is_mapped (second + p, 6 * p));
  g_assert_cmpint (munmap (second, p), ==, 0);
  _tilde_image_reserve_release ();
  g_assert_cmpuint (_tilde_image_reserve_get_size (FALSE), ==, 0);
  g_assert_null (_tilde_image_reserve_take (p));
  g_assert_false (_tilde_image_reserve_fill (0));
}

/* A freed image's pages are kept for the next image of its size, which
 * gets them zeroed and without faulting them in; an image of another size does
 * not; a release unmaps them. */
static void
test_freed_pages_kept (void)
{
  gsize p = page ();
  gsize bytes = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_ARGB32, IMAGE_WIDTH) * IMAGE_HEIGHT;
  gsize pages = (bytes + p - 1) / p;
  cairo_surface_t *image, *other;
  guint8 *pixels;
  long faults;

  if (!reserve_works_here ())
    return;
  _tilde_image_reserve_release ();
  g_assert_true (_tilde_image_reserve_fill (pages * p + 4 * p));
  _tilde_image_reserve_get_size (TRUE);
  image = _tilde_plot_image_new (IMAGE_WIDTH, IMAGE_HEIGHT);
  pixels = cairo_image_surface_get_data (image);
  g_assert_cmpuint (_tilde_image_reserve_get_size (FALSE), ==, 4 * p);
  memset (pixels, 0xa5, bytes);
  cairo_surface_mark_dirty (image);
  cairo_surface_destroy (image);
  g_assert_cmpuint (_tilde_image_reserve_get_kept (), ==, pages * p);
  g_assert_true (is_mapped (pixels, 16 * p));

  /* another size: from the reserve's front, the kept pages left alone */
  other = _tilde_plot_image_new (32, 32);
  g_assert_true (cairo_image_surface_get_data (other) != pixels);
  g_assert_cmpuint (_tilde_image_reserve_get_kept (), ==, pages * p);

  faults = thread_faults ();
  image = _tilde_plot_image_new (IMAGE_WIDTH, IMAGE_HEIGHT);
  /* a few for the surface's own allocations (more under a sanitizer),
   * where the pixels alone, faulted in, would be one a page */
  g_assert_cmpint (thread_faults () - faults, <, 16);
  g_assert_true (cairo_image_surface_get_data (image) == pixels);
  g_assert_cmpuint (_tilde_image_reserve_get_kept (), ==, 0);
  for (gsize i = 0; i < bytes; i++)
    if (pixels[i] != 0)
      g_error ("byte %" G_GSIZE_FORMAT " of a reused image is %d", i, pixels[i]);

  cairo_surface_destroy (image);
  cairo_surface_destroy (other);
  g_assert_cmpuint (_tilde_image_reserve_get_kept (), >, pages * p);
  _tilde_image_reserve_release ();
  g_assert_cmpuint (_tilde_image_reserve_get_kept (), ==, 0);
  g_assert_false (is_mapped (pixels, 16 * p));
}

/* At most 16 MiB are kept: the pages kept longest are unmapped to make
 * room (after a resize, no image has their size any more), and pages of
 * more than that are unmapped at once. */
static void
test_kept_pages_bounded (void)
{
  gsize bytes = 3u << 20, given = 0;
  GPtrArray *blocks = g_ptr_array_new ();

  if (!reserve_works_here ())
    return;
  _tilde_image_reserve_release ();
  for (guint i = 0; i < 8; i++)
    {
      void *block = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      g_assert_true (block != MAP_FAILED);
      g_ptr_array_add (blocks, block);
    }
  for (guint i = 0; i < blocks->len; i++)
    {
      _tilde_image_reserve_give_back (blocks->pdata[i], bytes);
      given += bytes;
      g_assert_cmpuint (_tilde_image_reserve_get_kept (), ==, MIN (given, (16u << 20) / bytes * bytes));
    }
  /* the last five are kept, the first three gone */
  for (guint i = 0; i < blocks->len; i++)
    g_assert_true (is_mapped (blocks->pdata[i], page ()) == (i >= 3));
  {
    gsize huge = (16u << 20) + page ();
    void *block = mmap (NULL, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    g_assert_true (block != MAP_FAILED);
    _tilde_image_reserve_give_back (block, huge);
    g_assert_false (is_mapped (block, page ()));
    g_assert_cmpuint (_tilde_image_reserve_get_kept (), ==, 5 * bytes);
    for (guint i = 3; i < blocks->len; i++)
      g_assert_true (is_mapped (blocks->pdata[i], page ()));
  }
  _tilde_image_reserve_release ();
  for (guint i = 0; i < blocks->len; i++)
    g_assert_false (is_mapped (blocks->pdata[i], page ()));
  g_ptr_array_unref (blocks);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/image-reserve/images-cost-no-faults", test_images_cost_no_faults);
  g_test_add_func ("/widgets/image-reserve/slices", test_slices);
  g_test_add_func ("/widgets/image-reserve/freed-pages-kept", test_freed_pages_kept);
  g_test_add_func ("/widgets/image-reserve/kept-pages-bounded", test_kept_pages_bounded);
  return g_test_run ();
}
