/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "tilde-engine.h"

typedef struct {
  const char  *name;
  const char  *summary;
  TildeCliFunc run;
} TildeCliCommand;

/* Every subcommand, in the order `tilde --help` lists them. */
static const TildeCliCommand commands[] = {
  { "compile",  N_("Check a model and print its compiled forms (stanc-compatible)"), _tilde_cli_compile },
  { "sample",   N_("Draw from the posterior with NUTS and write Stan CSV files"), _tilde_cli_sample },
  { "optimize", N_("Find the posterior mode with L-BFGS, BFGS or Newton"), _tilde_cli_optimize },
  { "log-prob", N_("Print the log density and its gradient at given parameters"), _tilde_cli_log_prob },
  { "diagnose", N_("Check the gradient against finite differences"), _tilde_cli_diagnose },
  { "generate-quantities", N_("Run generated quantities again over the draws of Stan CSV files"),
    _tilde_cli_generate },
  { "summary",  N_("Summarise Stan CSV files: means, quantiles, R-hat and ESS"), _tilde_cli_summary },
};

static const TildeCliCommand *
find_command (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_strcmp0 (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static void
print_usage (FILE *stream)
{
  fprintf (stream, "%s", _("Usage:\n"
                           "  tilde [FILE.stan ...]             open the workbench window\n"
                           "  tilde COMMAND [OPTIONS] ARGS...   run a command without the window\n"
                           "  tilde COMMAND --help              help on one command\n"
                           "\nCommands:\n"));
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stream, "  %-20s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (stream, "%s", _("\nOptions:\n"
                           "  -h, --help       show this help\n"
                           "  -V, --version    show the version of Tilde and of the Stan language it reads\n"));
}

gboolean
tilde_cli_wants (int argc, char **argv)
{
  const char *first;

  if (argc < 2)
    return FALSE;
  first = argv[1];
  return find_command (first) != NULL
         || g_str_equal (first, "--help") || g_str_equal (first, "-h")
         || g_str_equal (first, "--version") || g_str_equal (first, "-V")
         || g_str_equal (first, "help");
}

int
tilde_cli_run (int argc, char **argv)
{
  const char *first = argv[1];
  const TildeCliCommand *cmd;

  if (g_str_equal (first, "--version") || g_str_equal (first, "-V"))
    {
      g_print ("tilde %s (Stan language %s)\n", tilde_engine_version (), tilde_engine_stan_version ());
      return TILDE_EXIT_OK;
    }
  if (g_str_equal (first, "--help") || g_str_equal (first, "-h"))
    {
      print_usage (stdout);
      return TILDE_EXIT_OK;
    }
  if (g_str_equal (first, "help"))
    {
      if (argc < 3)
        {
          print_usage (stdout);
          return TILDE_EXIT_OK;
        }
      cmd = find_command (argv[2]);
      if (cmd == NULL)
        {
          g_printerr (_("tilde: unknown command '%s'\n\n"), argv[2]);
          print_usage (stderr);
          return TILDE_EXIT_USAGE;
        }
      {
        char *help_argv[] = { argv[0], (char *) "--help", NULL };
        return cmd->run (cmd->name, 2, help_argv);
      }
    }

  cmd = find_command (first);
  g_assert (cmd != NULL);
  return cmd->run (cmd->name, argc - 1, argv + 1);
}
