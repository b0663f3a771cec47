/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>

#include "tilde-application.h"
#include "tilde-cli.h"
#include "tilde-heap-policy.h"
#include "tilde-renderer-policy.h"

int
main (int argc, char *argv[])
{
  g_autoptr(TildeApplication) app = NULL;

  setlocale (LC_ALL, "");
  /* Numbers in files and on the command line are always written the C way. */
  setlocale (LC_NUMERIC, "C");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (tilde_cli_wants (argc, argv))
    return tilde_cli_run (argc, argv);

  /* Frames and runs write to memory the window already has. */
  tilde_heap_policy_apply ();
  /* No OpenGL in software: its threads would take the chains' processors. */
  tilde_renderer_policy_apply ();

  if (!gtk_init_check ())
    {
      fprintf (stderr, "%s",
               _("tilde: no display is available, so the workbench window cannot open.\n"
                 "Start it from a desktop session, or use the command line, which needs none:\n"
                 "  tilde --help\n"
                 "  tilde compile model.stan\n"));
      return 1;
    }

  app = tilde_application_new (G_APPLICATION_DEFAULT_FLAGS);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
