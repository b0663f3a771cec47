/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * OpenCL devices through the ICD loader: what is installed, and which one
 * a run uses (`--device cpu|opencl[:PLATFORM:DEVICE]`).
 *
 * Nothing here is fatal: no loader, no platform, a device without double
 * precision each come back as a GError in TILDE_GPU_ERROR, and whoever
 * asked goes on on the CPU.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TILDE_GPU_ERROR (tilde_gpu_error_quark ())
GQuark tilde_gpu_error_quark (void);

typedef enum {
  TILDE_GPU_ERROR_NO_PLATFORM,  /* no OpenCL platform is installed */
  TILDE_GPU_ERROR_NO_DEVICE,    /* the platform or device asked for does not exist */
  TILDE_GPU_ERROR_NO_FP64,      /* the device has no double precision */
  TILDE_GPU_ERROR_BUILD,        /* a generated kernel did not compile */
  TILDE_GPU_ERROR_MEMORY,       /* the device ran out of memory */
  TILDE_GPU_ERROR_FAILED,       /* any other OpenCL failure */
  TILDE_GPU_ERROR_CHOICE,       /* a --device text that does not parse */
} TildeGpuError;

typedef struct {
  guint    platform_index;   /* from 0, in the loader's order */
  guint    device_index;     /* from 0 within its platform */
  char    *platform_name;
  char    *name;
  char    *vendor;
  char    *type;             /* "GPU", "CPU", "accelerator", "other" */
  char    *version;          /* "OpenCL 3.0 ..." */
  char    *driver_version;
  gboolean fp64;
  guint64  global_mem;       /* bytes */
  guint64  max_alloc;        /* bytes, the largest single buffer */
  guint    compute_units;
  gpointer platform_id;      /* cl_platform_id */
  gpointer device_id;        /* cl_device_id */
} TildeGpuDevice;

void            tilde_gpu_device_free (TildeGpuDevice *device);
TildeGpuDevice *tilde_gpu_device_copy (const TildeGpuDevice *device);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeGpuDevice, tilde_gpu_device_free)

/* Every device of every platform, in platform then device order; the
 * array frees them. NULL with TILDE_GPU_ERROR_NO_PLATFORM when there is
 * no platform at all. */
GPtrArray      *tilde_gpu_devices_list (GError **error);

/* What `--device` asks for. */
typedef struct {
  gboolean opencl;           /* FALSE: the CPU path */
  int      platform;         /* -1: the first device with double precision */
  int      device;
} TildeDeviceChoice;

/* Parses "cpu", "opencl" or "opencl:P:D" (indices from 0, as `tilde
 * devices` lists them); NULL means "cpu". FALSE with
 * TILDE_GPU_ERROR_CHOICE for anything else. */
gboolean        tilde_device_choice_parse (const char *text, TildeDeviceChoice *choice,
                                           GError **error);
/* The device a choice names (a copy), checked for double precision; NULL
 * with a message naming the culprit. Not for a CPU choice. */
TildeGpuDevice *tilde_gpu_device_select (const TildeDeviceChoice *choice, GError **error);

/* One line per device, as `tilde devices` prints them. */
char           *tilde_gpu_device_describe (const TildeGpuDevice *device);

/* The OpenCL error code's name ("CL_OUT_OF_RESOURCES"). */
const char     *tilde_gpu_cl_error_name (int code);

G_END_DECLS
