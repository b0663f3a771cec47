/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Compile time from text to optimized MIR, at each optimisation level, side by
 * side: the front end alone (parse + check), then lowering, the transformed
 * MIR and the pass pipeline of O0, O1 and Oexperimental (snapshots off, as the
 * command line runs it, and on, as the IR viewer runs it).
 *
 * Usage: bench-compile MODEL.stan...
 */
#include <stdio.h>
#include <string.h>

#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "tilde-frontend.h"

typedef enum { FRONT, O0, O1, OEXP, O1_SNAPSHOTS, N_COLUMNS } Column;

static const char *column_names[N_COLUMNS] = { "check", "O0", "O1", "Oexp", "O1+snaps" };

static gboolean
compile_once (Column column, const char *name, const char *text)
{
  g_autoptr(TildeCheckResult) result = tilde_frontend_check_buffer (name, NULL, text, -1, NULL);
  MirProgram *lowered, *transformed, *optimized;
  GPtrArray *snapshots = NULL;
  MirOptLevel level = column == O0 ? MIR_OPT_O0 : column == OEXP ? MIR_OPT_EXPERIMENTAL : MIR_OPT_O1;

  if (tilde_check_result_has_errors (result))
    return FALSE;
  if (column == FRONT)
    return TRUE;
  lowered = mir_lower_program (tilde_check_result_get_program (result));
  if (lowered == NULL)
    return FALSE;
  transformed = mir_transform_program (lowered);
  optimized = mir_pipeline_run (transformed, level, column == O1_SNAPSHOTS ? &snapshots : NULL);
  g_clear_pointer (&snapshots, g_ptr_array_unref);
  mir_program_free (optimized);
  mir_program_free (transformed);
  mir_program_free (lowered);
  return TRUE;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median milliseconds over repeated runs filling about 0.2 s. */
static double
time_column (Column column, const char *name, const char *text, gboolean *ok)
{
  double samples[15];
  gint64 start = g_get_monotonic_time ();
  int reps = 1;

  *ok = compile_once (column, name, text);
  while (g_get_monotonic_time () - start < 13000 && reps < 1 << 16)
    {
      compile_once (column, name, text);
      reps++;
    }
  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      gint64 t0 = g_get_monotonic_time ();
      for (int r = 0; r < reps; r++)
        compile_once (column, name, text);
      samples[s] = (g_get_monotonic_time () - t0) / 1e3 / reps;
    }
  qsort (samples, G_N_ELEMENTS (samples), sizeof (double), compare_doubles);
  return samples[G_N_ELEMENTS (samples) / 2];
}

int
main (int argc, char *argv[])
{
  printf ("Compile time, text to optimized MIR (median milliseconds per model)\n\n");
  printf ("| %-36s | %5s |", "model", "lines");
  for (int c = 0; c < N_COLUMNS; c++)
    printf (" %8s |", column_names[c]);
  printf ("\n|--------------------------------------|-------|");
  for (int c = 0; c < N_COLUMNS; c++)
    printf ("----------|");
  printf ("\n");

  for (int i = 1; i < argc; i++)
    {
      g_autofree char *text = NULL;
      g_autofree char *base = g_path_get_basename (argv[i]);
      g_autofree char *dir = g_path_get_dirname (argv[i]);
      g_autofree char *dir_base = g_path_get_basename (dir);
      g_autofree char *label = g_str_equal (base, "model.stan") ? g_strdup_printf ("%s/model.stan", dir_base)
                                                                : g_strdup (base);
      int lines = 0;
      gboolean ok = TRUE;

      if (!g_file_get_contents (argv[i], &text, NULL, NULL))
        continue;
      for (const char *p = text; *p; p++)
        lines += *p == '\n';
      printf ("| %-36s | %5d |", label, lines);
      for (int c = 0; c < N_COLUMNS; c++)
        {
          gboolean column_ok;
          printf (" %8.3f |", time_column (c, base, text, &column_ok));
          ok &= column_ok;
        }
      printf ("%s\n", ok ? "" : " (did not compile)");
    }
  return 0;
}
