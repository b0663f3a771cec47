/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "gpu-test-util.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static char *cache_dir;

static void
remove_cache (void)
{
  g_autoptr (GDir) dir = g_dir_open (cache_dir, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (cache_dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (cache_dir);
  g_clear_pointer (&cache_dir, g_free);
}

TildeGpuContext *
gpu_test_context (void)
{
  g_autoptr (GError) error = NULL;
  TildeDeviceChoice choice = { TRUE, -1, -1 };
  g_autoptr (TildeGpuDevice) device = tilde_gpu_device_select (&choice, &error);
  if (!device)
    {
      g_autofree char *why = g_strdup_printf ("no OpenCL device: %s", error->message);
      g_test_skip (why);
      return NULL;
    }
  TildeGpuContext *ctx = tilde_gpu_context_new (device, &error);
  g_assert_no_error (error);
  if (!cache_dir)
    {
      cache_dir = g_dir_make_tmp ("tilde-gpu-test-XXXXXX", &error);
      g_assert_no_error (error);
      atexit (remove_cache);
    }
  tilde_gpu_context_set_cache_dir (ctx, cache_dir);
  return ctx;
}

typedef struct {
  TildeModel   *model;
  const double *thetas, *lps, *grads;
  gsize         n;
  guint         seed;
  gboolean      same;
} ThreadWork;

static gpointer
evaluate_many (gpointer data)
{
  ThreadWork *w = data;
  g_autoptr (GRand) r = g_rand_new_with_seed (w->seed);
  g_autofree double *grad = g_new0 (double, w->n);
  w->same = TRUE;
  for (int rep = 0; rep < 40; rep++)
    {
      int t = g_rand_int_range (r, 0, GPU_TEST_THETAS);
      double lp = tilde_model_log_density (w->model, w->thetas + t * w->n, TRUE, TRUE, grad,
                                           NULL);
      if (lp != w->lps[t] || memcmp (grad, w->grads + t * w->n, w->n * sizeof (double)) != 0)
        w->same = FALSE;
    }
  return NULL;
}

gboolean
gpu_test_threads_agree (TildeModel *dev, GRand *r, gsize n)
{
  g_autofree double *thetas = g_new0 (double, GPU_TEST_THETAS * n);
  g_autofree double *grads = g_new0 (double, GPU_TEST_THETAS * n);
  double lps[GPU_TEST_THETAS];
  for (int t = 0; t < GPU_TEST_THETAS; t++)
    {
      for (gsize i = 0; i < n; i++)
        thetas[t * n + i] = g_rand_double_range (r, -0.8, 0.8);
      lps[t] = tilde_model_log_density (dev, thetas + t * n, TRUE, TRUE, grads + t * n, NULL);
    }
  ThreadWork work[4];
  GThread *threads[4];
  for (guint i = 0; i < 4; i++)
    {
      work[i] = (ThreadWork) { dev, thetas, lps, grads, n, 7 + i, FALSE };
      threads[i] = g_thread_new ("chain", evaluate_many, &work[i]);
    }
  gboolean same = TRUE;
  for (guint i = 0; i < 4; i++)
    {
      g_thread_join (threads[i]);
      same = same && work[i].same;
    }
  return same;
}
