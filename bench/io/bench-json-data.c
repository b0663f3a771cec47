/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading a CmdStan JSON data file with a large matrix: the time and the
 * peak memory of Tilde's reader (the text read in place) against the
 * previous version (the syntax check, then json-glib's tree of the whole
 * document, then the matrix copied out of the tree), side by side. Each
 * read runs in a child process of its own, so that its peak resident
 * memory is its own (wait4's ru_maxrss); both must give the same bits.
 *
 *   bench-json-data [--rows N] [--cols K] [--digits D]...
 *
 * The file is written to a temporary folder: an int N, an int K and X,
 * N rows of K reals printed with D significant digits (6 and 17 unless
 * given: short numbers as R writes them, and every bit as Python does).
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/json-data.h"
#include "io/json-locate.h"

typedef struct {
  double   seconds;
  guint64  checksum;
  gboolean ok;
} Result;

static void
write_file (const char *path, guint rows, guint cols, int digits)
{
  FILE *f = fopen (path, "w");
  g_assert (f);
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);
  fprintf (f, "{\n  \"N\": %u,\n  \"K\": %u,\n  \"X\": [\n", rows, cols);
  for (guint i = 0; i < rows; i++)
    {
      fputs ("    [", f);
      for (guint j = 0; j < cols; j++)
        fprintf (f, "%s%.*g", j ? ", " : "", digits, g_rand_double_range (rand, -3, 3));
      fputs (i + 1 < rows ? "],\n" : "]\n", f);
    }
  fputs ("  ]\n}\n", f);
  fclose (f);
}

static guint64
checksum (const double *x, gsize n)
{
  guint64 h = 1469598103934665603u;
  const guchar *b = (const guchar *) x;
  for (gsize i = 0; i < n * sizeof (double); i++)
    h = (h ^ b[i]) * 1099511628211u;
  return h;
}

/* Tilde's reader, as `tilde sample --data` uses it. */
static gboolean
read_tilde (const char *path, guint rows, guint cols, guint64 *sum)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_file (path, &error);
  g_autoptr (TildeArena) arena = tilde_arena_new (0);
  g_autofree char *problem = NULL;
  TildeValue v;
  if (!data)
    return FALSE;
  TildeShape *shape = tilde_shape_new (arena, TILDE_VALUE_MATRIX, (gint32) rows, (gint32) cols);
  if (!tilde_json_data_read (data, "X", shape, arena, &v, &problem))
    return FALSE;
  *sum = checksum (v.u.d, (gsize) rows * cols);
  return TRUE;
}

/* The previous version: the same syntax check, json-glib's document, and
 * the matrix taken from it row by row into column-major storage. */
static gboolean
read_previous (const char *path, guint rows, guint cols, guint64 *sum)
{
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  gsize len, begin, end;
  if (!g_file_get_contents (path, &text, &len, NULL)
      || tilde_json_find_syntax_error (text, len, &begin, &end, &message))
    return FALSE;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_mapped_file (parser, path, NULL))
    return FALSE;
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  JsonArray *X = json_node_get_array (json_object_get_member (o, "X"));
  if (json_array_get_length (X) != rows)
    return FALSE;
  g_autofree double *x = g_new (double, (gsize) rows * cols);
  for (guint i = 0; i < rows; i++)
    {
      JsonArray *row = json_node_get_array (json_array_get_element (X, i));
      if (json_array_get_length (row) != cols)
        return FALSE;
      for (guint j = 0; j < cols; j++)
        x[i + (gsize) j * rows] = json_node_get_double (json_array_get_element (row, j));
    }
  *sum = checksum (x, (gsize) rows * cols);
  return TRUE;
}

typedef gboolean (*Reader) (const char *path, guint rows, guint cols, guint64 *sum);

/* The read in a child; its peak resident memory in bytes. */
static Result
run_child (Reader reader, const char *path, guint rows, guint cols, gsize *peak)
{
  Result result = { 0 };
  int fds[2];
  g_assert (pipe (fds) == 0);
  pid_t pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0)
    {
      close (fds[0]);
      gint64 t0 = g_get_monotonic_time ();
      result.ok = reader (path, rows, cols, &result.checksum);
      result.seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
      g_assert (write (fds[1], &result, sizeof result) == (ssize_t) sizeof result);
      _exit (0);
    }
  close (fds[1]);
  g_assert (read (fds[0], &result, sizeof result) == (ssize_t) sizeof result);
  close (fds[0]);
  int status;
  struct rusage usage;
  g_assert (wait4 (pid, &status, 0, &usage) == pid);
  *peak = (gsize) usage.ru_maxrss * 1024;
  return result;
}

int
main (int argc, char **argv)
{
  gint rows = 100000, cols = 100;
  g_auto (GStrv) digit_args = NULL;
  GOptionEntry entries[] = {
    { "rows", 0, 0, G_OPTION_ARG_INT, &rows, "rows of X (100000)", "N" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "columns of X (100)", "K" },
    { "digits", 0, 0, G_OPTION_ARG_STRING_ARRAY, &digit_args, "significant digits (6 and 17)", "D" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- reading JSON data");
  g_autoptr (GError) error = NULL;
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || rows < 1 || cols < 1)
    {
      g_printerr ("bench-json-data: %s\n", error ? error->message : "rows and columns must be positive");
      return 2;
    }
  g_autofree char *dir = g_dir_make_tmp ("tilde-bench-json-XXXXXX", &error);
  g_assert_no_error (error);
  const char *default_digits[] = { "6", "17", NULL };
  const char *const *digits = digit_args ? (const char *const *) digit_args : default_digits;

  g_print ("Reading X (%d x %d reals, %.0f MB as doubles) from a CmdStan JSON data file:\n"
           "the previous version (json-glib's tree) and Tilde's reader, each in a child process.\n\n",
           rows, cols, (double) rows * cols * 8 / 1e6);
  g_print ("| digits | file (MB) | previous (s) | previous peak (MB) | Tilde (s) | Tilde peak (MB) | same bits |\n");
  g_print ("|---:|---:|---:|---:|---:|---:|---|\n");
  for (guint d = 0; digits[d]; d++)
    {
      int n = atoi (digits[d]);
      g_autofree char *path = g_strdup_printf ("%s/X-%d.json", dir, n);
      GStatBuf st;
      gsize peak_previous, peak_tilde;
      write_file (path, (guint) rows, (guint) cols, n);
      g_assert (g_stat (path, &st) == 0);
      Result previous = run_child (read_previous, path, (guint) rows, (guint) cols, &peak_previous);
      Result tilde = run_child (read_tilde, path, (guint) rows, (guint) cols, &peak_tilde);
      g_print ("| %d | %.1f | %.2f | %.0f | %.2f | %.0f | %s |\n", n, (double) st.st_size / 1e6,
               previous.seconds, (double) peak_previous / 1e6, tilde.seconds,
               (double) peak_tilde / 1e6,
               !previous.ok || !tilde.ok ? "a read failed"
               : previous.checksum == tilde.checksum ? "yes" : "NO");
      g_unlink (path);
      if (!previous.ok || !tilde.ok || previous.checksum != tilde.checksum)
        return 1;
    }
  g_rmdir (dir);
  return 0;
}
