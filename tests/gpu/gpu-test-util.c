/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include "gpu-test-util.h"

#include <glib/gstdio.h>
#include <stdlib.h>

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
