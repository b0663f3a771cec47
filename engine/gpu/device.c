/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "gpu/device.h"
#include "gpu/gpu-cl.h"

#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (tilde-gpu-error-quark, tilde_gpu_error)

const char *
tilde_gpu_cl_error_name (int code)
{
  switch (code)
    {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case -1001: /* CL_PLATFORM_NOT_FOUND_KHR, the loader's "no platform" */
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an OpenCL error";
    }
}

void
tilde_gpu_device_free (TildeGpuDevice *d)
{
  if (!d)
    return;
  g_free (d->platform_name);
  g_free (d->name);
  g_free (d->vendor);
  g_free (d->type);
  g_free (d->version);
  g_free (d->driver_version);
  g_free (d);
}

TildeGpuDevice *
tilde_gpu_device_copy (const TildeGpuDevice *d)
{
  TildeGpuDevice *c = g_memdup2 (d, sizeof *d);
  c->platform_name = g_strdup (d->platform_name);
  c->name = g_strdup (d->name);
  c->vendor = g_strdup (d->vendor);
  c->type = g_strdup (d->type);
  c->version = g_strdup (d->version);
  c->driver_version = g_strdup (d->driver_version);
  return c;
}

static char *
platform_string (cl_platform_id p, cl_platform_info what)
{
  size_t n = 0;
  if (clGetPlatformInfo (p, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return g_strdup ("");
  char *s = g_malloc0 (n + 1);
  clGetPlatformInfo (p, what, n, s, NULL);
  return g_strstrip (s);
}

static char *
device_string (cl_device_id d, cl_device_info what)
{
  size_t n = 0;
  if (clGetDeviceInfo (d, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return g_strdup ("");
  char *s = g_malloc0 (n + 1);
  clGetDeviceInfo (d, what, n, s, NULL);
  return g_strstrip (s);
}

static const char *
type_name (cl_device_type t)
{
  if (t & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (t & CL_DEVICE_TYPE_CPU)
    return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  return "other";
}

static TildeGpuDevice *
describe_device (cl_platform_id p, cl_device_id id, guint pi, guint di)
{
  TildeGpuDevice *d = g_new0 (TildeGpuDevice, 1);
  cl_device_type type = 0;
  cl_device_fp_config fp = 0;
  cl_ulong mem = 0, alloc = 0;
  cl_uint units = 0;

  d->platform_index = pi;
  d->device_index = di;
  d->platform_id = p;
  d->device_id = id;
  d->platform_name = platform_string (p, CL_PLATFORM_NAME);
  d->name = device_string (id, CL_DEVICE_NAME);
  d->vendor = device_string (id, CL_DEVICE_VENDOR);
  d->version = device_string (id, CL_DEVICE_VERSION);
  d->driver_version = device_string (id, CL_DRIVER_VERSION);
  clGetDeviceInfo (id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  d->type = g_strdup (type_name (type));
  /* a device reports no double precision with an empty configuration */
  if (clGetDeviceInfo (id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS)
    d->fp64 = fp != 0;
  clGetDeviceInfo (id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
  clGetDeviceInfo (id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
  clGetDeviceInfo (id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
  d->global_mem = mem;
  d->max_alloc = alloc;
  d->compute_units = units;
  return d;
}

GPtrArray *
tilde_gpu_devices_list (GError **error)
{
  cl_uint n_platforms = 0;
  cl_int rc = clGetPlatformIDs (0, NULL, &n_platforms);
  if (rc != CL_SUCCESS || n_platforms == 0)
    {
      g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_PLATFORM,
                   "No OpenCL platform is installed (the ICD loader found none); "
                   "models run on the CPU");
      return NULL;
    }
  cl_platform_id *platforms = g_new0 (cl_platform_id, n_platforms);
  clGetPlatformIDs (n_platforms, platforms, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_gpu_device_free);
  for (cl_uint p = 0; p < n_platforms; p++)
    {
      cl_uint n_devices = 0;
      if (clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n_devices) != CL_SUCCESS)
        continue;
      cl_device_id *devices = g_new0 (cl_device_id, n_devices);
      clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, n_devices, devices, NULL);
      for (cl_uint d = 0; d < n_devices; d++)
        g_ptr_array_add (out, describe_device (platforms[p], devices[d], p, d));
      g_free (devices);
    }
  g_free (platforms);
  return out;
}

static gboolean
parse_index (const char *text, int *out)
{
  char *end = NULL;
  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  gint64 v = g_ascii_strtoll (text, &end, 10);
  if (*end != '\0' || v > G_MAXINT)
    return FALSE;
  *out = (int) v;
  return TRUE;
}

gboolean
tilde_device_choice_parse (const char *text, TildeDeviceChoice *choice, GError **error)
{
  *choice = (TildeDeviceChoice) { FALSE, -1, -1 };
  if (text == NULL || g_str_equal (text, "cpu"))
    return TRUE;
  if (g_str_equal (text, "opencl"))
    {
      choice->opencl = TRUE;
      return TRUE;
    }
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  if (g_strv_length (parts) == 3 && g_str_equal (parts[0], "opencl")
      && parse_index (parts[1], &choice->platform) && parse_index (parts[2], &choice->device))
    {
      choice->opencl = TRUE;
      return TRUE;
    }
  *choice = (TildeDeviceChoice) { FALSE, -1, -1 };
  g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_CHOICE,
               "Unknown device '%s': expected cpu, opencl or opencl:PLATFORM:DEVICE "
               "(indices as `tilde devices` lists them)", text);
  return FALSE;
}

TildeGpuDevice *
tilde_gpu_device_select (const TildeDeviceChoice *choice, GError **error)
{
  g_autoptr (GPtrArray) all = tilde_gpu_devices_list (error);
  if (!all)
    return NULL;
  const TildeGpuDevice *found = NULL;
  if (choice->platform < 0)
    {
      for (guint i = 0; i < all->len && !found; i++)
        {
          const TildeGpuDevice *d = g_ptr_array_index (all, i);
          if (d->fp64)
            found = d;
        }
      if (!found)
        {
          g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_FP64,
                       all->len ? "No OpenCL device supports double precision (cl_khr_fp64); "
                                  "models run on the CPU"
                                : "The OpenCL platforms have no devices; models run on the CPU");
          return NULL;
        }
      return tilde_gpu_device_copy (found);
    }
  for (guint i = 0; i < all->len && !found; i++)
    {
      const TildeGpuDevice *d = g_ptr_array_index (all, i);
      if ((int) d->platform_index == choice->platform && (int) d->device_index == choice->device)
        found = d;
    }
  if (!found)
    {
      g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_DEVICE,
                   "There is no OpenCL device %d on platform %d (`tilde devices` lists them)",
                   choice->device, choice->platform);
      return NULL;
    }
  if (!found->fp64)
    {
      g_set_error (error, TILDE_GPU_ERROR, TILDE_GPU_ERROR_NO_FP64,
                   "The OpenCL device '%s' has no double precision (cl_khr_fp64), which "
                   "Tilde's kernels need; models run on the CPU", found->name);
      return NULL;
    }
  return tilde_gpu_device_copy (found);
}

char *
tilde_gpu_device_describe (const TildeGpuDevice *d)
{
  return g_strdup_printf ("opencl:%u:%u  %s (%s, %s)  platform: %s  type: %s  fp64: %s  "
                          "global memory: %.1f MiB  compute units: %u  driver: %s",
                          d->platform_index, d->device_index, d->name, d->vendor, d->version,
                          d->platform_name, d->type, d->fp64 ? "yes" : "no",
                          d->global_mem / (1024.0 * 1024.0), d->compute_units,
                          d->driver_version);
}
