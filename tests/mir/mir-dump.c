/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Prints the MIR of a model: mir-dump [--transformed] FILE */
#define G_LOG_DOMAIN "tilde-test"

#include <stdio.h>
#include <string.h>

#include "tilde-frontend.h"
#include "mir/mir-lower.h"
#include "mir/mir-print.h"
#include "mir/mir-transform.h"

int
main (int argc, char **argv)
{
  const char *path = argv[argc - 1];
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, NULL, &error);
  if (!r || tilde_check_result_has_errors (r))
    {
      g_autofree char *text = r ? tilde_check_result_render_all (r) : g_strdup (error->message);
      fprintf (stderr, "%s\n", text);
      return 1;
    }
  g_autoptr (MirProgram) p = mir_lower_program (tilde_check_result_get_program (r));
  if (p && argc > 2 && strstr (argv[1], "t"))
    {
      MirProgram *t = mir_transform_program (p);
      mir_program_free (g_steal_pointer (&p));
      p = t;
    }
  if (!p)
    return 2;
  g_autofree char *text = mir_print_program (p, argc > 2 && strstr (argv[1], "r")
                                                ? MIR_PRINT_TERM_ROLES : 0, NULL);
  fputs (text, stdout);
  return 0;
}
