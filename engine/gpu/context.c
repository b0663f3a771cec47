/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "gpu/context.h"
#include "gpu/gpu-cl.h"

#include <glib/gstdio.h>
#include <string.h>

struct TildeGpuContext {
  gint               refs;
  TildeGpuDevice    *device;
  cl_context         context;
  cl_command_queue   queue;
  GMutex             lock;
  TildeGpuSourceFunc source_func;
  gpointer           source_data;
  char              *cache_dir;
  guint              runs_left;    /* tilde_gpu_context_fail_after */
  guint64            to_device, to_host;   /* bytes copied per evaluation, summed */
};

void
tilde_gpu_set_cl_error (GError **error, int code, const char *what)
{
  gboolean memory = code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES
    || code == CL_OUT_OF_HOST_MEMORY || code == CL_INVALID_BUFFER_SIZE;
  g_set_error (error, TILDE_GPU_ERROR, memory ? TILDE_GPU_ERROR_MEMORY : TILDE_GPU_ERROR_FAILED,
               memory ? "The OpenCL device ran out of memory (%s: %s)" : "OpenCL failed (%s: %s)",
               what, tilde_gpu_cl_error_name (code));
}

TildeGpuContext *
tilde_gpu_context_new (const TildeGpuDevice *device, GError **error)
{
  cl_int rc = CL_SUCCESS;
  cl_device_id id = device->device_id;
  cl_context_properties props[] = {
    CL_CONTEXT_PLATFORM, (cl_context_properties) device->platform_id, 0
  };
  cl_context context = clCreateContext (props, 1, &id, NULL, NULL, &rc);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "creating a context");
      return NULL;
    }
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  cl_command_queue queue = clCreateCommandQueue (context, id, 0, &rc);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (rc != CL_SUCCESS)
    {
      clReleaseContext (context);
      tilde_gpu_set_cl_error (error, rc, "creating a command queue");
      return NULL;
    }
  TildeGpuContext *ctx = g_new0 (TildeGpuContext, 1);
  ctx->refs = 1;
  ctx->runs_left = G_MAXUINT;
  /* TILDE_OPENCL_FAIL_AFTER=N: kernel runs fail after N of them, as on a
   * lost device, to test what the engine and the command line do then */
  const char *fail_after = g_getenv ("TILDE_OPENCL_FAIL_AFTER");
  guint64 runs;
  if (fail_after && g_ascii_string_to_unsigned (fail_after, 10, 0, G_MAXUINT - 1, &runs, NULL))
    ctx->runs_left = (guint) runs;
  ctx->device = tilde_gpu_device_copy (device);
  ctx->context = context;
  ctx->queue = queue;
  g_mutex_init (&ctx->lock);
  return ctx;
}

TildeGpuContext *
tilde_gpu_context_ref (TildeGpuContext *ctx)
{
  g_atomic_int_inc (&ctx->refs);
  return ctx;
}

void
tilde_gpu_context_unref (TildeGpuContext *ctx)
{
  if (!ctx || !g_atomic_int_dec_and_test (&ctx->refs))
    return;
  clReleaseCommandQueue (ctx->queue);
  clReleaseContext (ctx->context);
  g_mutex_clear (&ctx->lock);
  tilde_gpu_device_free (ctx->device);
  g_free (ctx->cache_dir);
  g_free (ctx);
}

const TildeGpuDevice *
tilde_gpu_context_device (const TildeGpuContext *ctx)
{
  return ctx->device;
}

void
tilde_gpu_context_set_source_func (TildeGpuContext *ctx, TildeGpuSourceFunc func,
                                   gpointer user_data)
{
  ctx->source_func = func;
  ctx->source_data = user_data;
}

void
tilde_gpu_context_set_cache_dir (TildeGpuContext *ctx, const char *dir)
{
  g_free (ctx->cache_dir);
  ctx->cache_dir = g_strdup (dir);
}

void
tilde_gpu_program_release (gpointer program)
{
  if (program)
    clReleaseProgram (program);
}

gpointer
tilde_gpu_context_cl_context (const TildeGpuContext *ctx)
{
  return ctx->context;
}

gpointer
tilde_gpu_context_queue (const TildeGpuContext *ctx)
{
  return ctx->queue;
}

void
tilde_gpu_context_lock (TildeGpuContext *ctx)
{
  g_mutex_lock (&ctx->lock);
}

void
tilde_gpu_context_unlock (TildeGpuContext *ctx)
{
  g_mutex_unlock (&ctx->lock);
}

void
tilde_gpu_context_fail_after (TildeGpuContext *ctx, guint runs)
{
  g_mutex_lock (&ctx->lock);
  ctx->runs_left = runs;
  g_mutex_unlock (&ctx->lock);
}

int
tilde_gpu_context_run_allowed (TildeGpuContext *ctx)
{
  if (ctx->runs_left == G_MAXUINT)
    return CL_SUCCESS;
  if (ctx->runs_left == 0)
    return CL_DEVICE_NOT_AVAILABLE;
  ctx->runs_left--;
  return CL_SUCCESS;
}

/* ---- the binary cache ---- */

static char *
cache_path (const TildeGpuContext *ctx, const char *source)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  const TildeGpuDevice *d = ctx->device;
  /* the separators keep ("ab", "c") and ("a", "bc") apart */
  g_checksum_update (sum, (const guchar *) source, -1);
  g_checksum_update (sum, (const guchar *) "\n--device--\n", -1);
  g_checksum_update (sum, (const guchar *) d->name, -1);
  g_checksum_update (sum, (const guchar *) "\n--driver--\n", -1);
  g_checksum_update (sum, (const guchar *) d->driver_version, -1);
  g_checksum_update (sum, (const guchar *) "\n--platform--\n", -1);
  g_checksum_update (sum, (const guchar *) d->platform_name, -1);
  g_autofree char *name = g_strconcat (g_checksum_get_string (sum), ".bin", NULL);
  if (ctx->cache_dir)
    return g_build_filename (ctx->cache_dir, name, NULL);
  return g_build_filename (g_get_user_cache_dir (), "tilde", "opencl", name, NULL);
}

static cl_program
load_cached (TildeGpuContext *ctx, const char *path)
{
  g_autofree char *bytes = NULL;
  gsize n = 0;
  if (!g_file_get_contents (path, &bytes, &n, NULL) || n == 0)
    return NULL;
  cl_device_id id = ctx->device->device_id;
  const unsigned char *bin = (const unsigned char *) bytes;
  cl_int status = CL_SUCCESS, rc = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary (ctx->context, 1, &id, &n, &bin, &status, &rc);
  if (rc != CL_SUCCESS || status != CL_SUCCESS)
    {
      if (p)
        clReleaseProgram (p);
      return NULL;
    }
  if (clBuildProgram (p, 1, &id, "", NULL, NULL) != CL_SUCCESS)
    {
      /* a stale or foreign binary: built again from the source */
      clReleaseProgram (p);
      return NULL;
    }
  return p;
}

/* A failed write only costs the next run a build. */
static void
store_cached (cl_program p, const char *path)
{
  size_t n = 0;
  if (clGetProgramInfo (p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || n == 0)
    return;
  unsigned char *bin = g_malloc (n);
  if (clGetProgramInfo (p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *tmp = g_strconcat (path, ".tmp", NULL);
      if (g_mkdir_with_parents (dir, 0700) == 0
          && g_file_set_contents (tmp, (const char *) bin, (gssize) n, NULL))
        {
          if (g_rename (tmp, path) != 0)
            g_unlink (tmp);
        }
    }
  g_free (bin);
}

static char *
build_log (TildeGpuContext *ctx, cl_program p)
{
  size_t n = 0;
  cl_device_id id = ctx->device->device_id;
  clGetProgramBuildInfo (p, id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  char *log = g_malloc0 (n + 1);
  if (n)
    clGetProgramBuildInfo (p, id, CL_PROGRAM_BUILD_LOG, n, log, NULL);
  return g_strstrip (log);
}

gpointer
tilde_gpu_context_build (TildeGpuContext *ctx, const char *what, const char *source,
                         gboolean *from_cache, GError **error)
{
  if (ctx->source_func)
    ctx->source_func (what, source, ctx->source_data);
  g_autofree char *path = cache_path (ctx, source);
  cl_program p = load_cached (ctx, path);
  if (from_cache)
    *from_cache = p != NULL;
  if (p)
    return p;
  cl_int rc = CL_SUCCESS;
  size_t len = strlen (source);
  p = clCreateProgramWithSource (ctx->context, 1, &source, &len, &rc);
  if (rc != CL_SUCCESS)
    {
      tilde_gpu_set_cl_error (error, rc, "creating a program");
      return NULL;
    }
  cl_device_id id = ctx->device->device_id;
  rc = clBuildProgram (p, 1, &id, "-cl-std=CL1.2", NULL, NULL);
  if (rc != CL_SUCCESS)
    {
      g_autofree char *log = build_log (ctx, p);
      g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_BUILD,
                   "The OpenCL kernel for %s did not compile on '%s' (%s)%s%s", what,
                   ctx->device->name, tilde_gpu_cl_error_name (rc), *log ? ":\n" : "", log);
      clReleaseProgram (p);
      return NULL;
    }
  store_cached (p, path);
  return p;
}

void
tilde_gpu_context_count_copies (TildeGpuContext *ctx, gsize to_device, gsize to_host)
{
  ctx->to_device += to_device;
  ctx->to_host += to_host;
}

void
tilde_gpu_context_copied (TildeGpuContext *ctx, guint64 *to_device, guint64 *to_host)
{
  tilde_gpu_context_lock (ctx);
  *to_device = ctx->to_device;
  *to_host = ctx->to_host;
  tilde_gpu_context_unlock (ctx);
}
