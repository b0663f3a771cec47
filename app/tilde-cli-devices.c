/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde devices`: the OpenCL platforms and devices a model can run on. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "gpu/device.h"

int
_tilde_cli_devices (const char *name, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  const GOptionEntry entries[] = { { NULL } };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);

  g_option_context_set_summary (context, _("Lists the OpenCL devices, with their double "
                                           "precision support and memory; `--device "
                                           "opencl:PLATFORM:DEVICE` selects one by the "
                                           "indices shown. The CPU path (`--device cpu`) "
                                           "is always there."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde %s: %s\n", name, error->message);
      return TILDE_EXIT_USAGE;
    }
  if (argc > 1)
    {
      g_printerr (_("tilde %s: takes no arguments\n"), name);
      return TILDE_EXIT_USAGE;
    }
  g_print ("cpu  %s\n", _("the CPU path (always available)"));
  g_autoptr (GPtrArray) devices = tilde_gpu_devices_list (&error);
  if (!devices)
    {
      g_print ("%s\n", error->message);
      return TILDE_EXIT_OK;
    }
  for (guint i = 0; i < devices->len; i++)
    {
      g_autofree char *line = tilde_gpu_device_describe (g_ptr_array_index (devices, i));
      g_print ("%s\n", line);
    }
  if (devices->len == 0)
    g_print ("%s\n", _("The OpenCL platforms have no devices"));
  return TILDE_EXIT_OK;
}
