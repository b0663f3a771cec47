/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Front-end speed: lexing alone (the floor any front end pays to read the
 * text), parsing, parsing plus type checking (what the editor runs on every
 * pause in typing), and that plus the pedantic checks (lowering to the MIR
 * and its analyses included), side by side, for generated models of
 * growing size and for every model of the corpora.
 *
 * Usage: bench-frontend GENERATED.stan... -- CORPUS.stan...
 */
#include <stdio.h>
#include <string.h>

#include "semantics/check.h"
#include "syntax/lexer.h"
#include "syntax/parser.h"
#include "tilde-warnings.h"

typedef enum { STAGE_LEX, STAGE_PARSE, STAGE_CHECK, STAGE_PEDANTIC, N_STAGES } Stage;

static const char *stage_names[N_STAGES] = { "lex", "parse", "parse+check", "+pedantic" };

static gboolean
run_once (Stage stage, const char *name, const char *text)
{
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  gboolean ok = TRUE;

  if (stage == STAGE_LEX)
    {
      g_autoptr(TildeSourceSet) set = tilde_source_set_new ();
      const TildeSourceFile *main_file = tilde_source_set_set_main_buffer (set, name, NULL, text, -1);
      TildeLexer *lexer = tilde_lexer_new (set, main_file, diags, NULL);
      TildeToken token;

      do
        tilde_lexer_next (lexer, &token);
      while (token.kind != TILDE_TOK_EOF);
      tilde_lexer_free (lexer);
    }
  else
    {
      TildeProgram *program = tilde_parse_buffer (name, NULL, text, -1, NULL, 0, diags);

      ok = !tilde_diagnostic_list_has_errors (diags);
      if (ok && stage >= STAGE_CHECK)
        ok = tilde_check_program (program, NULL, diags);
      if (ok && stage == STAGE_PEDANTIC)
        tilde_warnings_pedantic (program, diags);
      tilde_program_free (program);
    }
  return ok;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median seconds per run over enough repetitions to fill about 0.3 s. */
static double
time_stage (Stage stage, const char *name, const char *text, gboolean *ok)
{
  double samples[31];
  int n_samples = G_N_ELEMENTS (samples);
  gint64 start = g_get_monotonic_time ();
  int reps = 1;

  *ok = run_once (stage, name, text);
  while (g_get_monotonic_time () - start < 10000 && reps < 1 << 20)
    {
      run_once (stage, name, text);
      reps++;
    }
  reps = MAX (1, reps / 3);
  for (int s = 0; s < n_samples; s++)
    {
      gint64 t0 = g_get_monotonic_time ();
      for (int r = 0; r < reps; r++)
        run_once (stage, name, text);
      samples[s] = (g_get_monotonic_time () - t0) / 1e6 / reps;
    }
  qsort (samples, n_samples, sizeof (double), compare_doubles);
  return samples[n_samples / 2];
}

static int
count_lines (const char *text)
{
  int lines = 0;

  for (const char *p = text; *p; p++)
    lines += *p == '\n';
  return lines;
}

static void
bench_file (const char *path, gboolean show_per_line)
{
  g_autofree char *text = NULL;
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *dir_base = g_path_get_basename (dir);
  g_autofree char *label = g_str_equal (base, "model.stan") ? g_strdup_printf ("%s/model.stan", dir_base)
                                                            : g_strdup (base);
  double t[N_STAGES];
  gboolean ok[N_STAGES];
  int lines;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    {
      fprintf (stderr, "cannot read %s\n", path);
      return;
    }
  lines = count_lines (text);
  for (int s = 0; s < N_STAGES; s++)
    t[s] = time_stage (s, base, text, &ok[s]);
  if (show_per_line)
    printf ("| %-36s | %6d | %9.3f | %9.3f | %11.3f | %8.2f | %9.3f |%s\n", label, lines,
            t[STAGE_LEX] * 1e3, t[STAGE_PARSE] * 1e3, t[STAGE_CHECK] * 1e3,
            t[STAGE_CHECK] * 1e6 / MAX (lines, 1), t[STAGE_PEDANTIC] * 1e3,
            ok[STAGE_CHECK] ? "" : " (errors)");
  else
    printf ("| %-36s | %6d | %9.1f | %9.1f | %11.1f | %9.1f |%s\n", label, lines,
            t[STAGE_LEX] * 1e6, t[STAGE_PARSE] * 1e6, t[STAGE_CHECK] * 1e6, t[STAGE_PEDANTIC] * 1e6,
            ok[STAGE_CHECK] ? "" : " (errors)");
}

int
main (int argc, char *argv[])
{
  int i = 1;

  printf ("Generated models (median ms per run; last column: microseconds per line)\n\n");
  printf ("| %-36s | %6s | %9s | %9s | %11s | %8s | %9s |\n", "model", "lines",
          stage_names[0], stage_names[1], stage_names[2], "us/line", stage_names[3]);
  printf ("|--------------------------------------|--------|-----------|-----------|-------------|----------|-----------|\n");
  for (; i < argc && strcmp (argv[i], "--") != 0; i++)
    bench_file (argv[i], TRUE);

  printf ("\nCorpus (median microseconds per run)\n\n");
  printf ("| %-36s | %6s | %9s | %9s | %11s | %9s |\n", "model", "lines",
          stage_names[0], stage_names[1], stage_names[2], stage_names[3]);
  printf ("|--------------------------------------|--------|-----------|-----------|-------------|-----------|\n");
  for (i++; i < argc; i++)
    bench_file (argv[i], FALSE);
  return 0;
}
