/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/stan-csv-read.h"
#include "io/decimal.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

/* Where the reader is in the file. */
typedef enum {
  IN_HEADER,        /* configuration comments, before the column names */
  IN_BODY,          /* draws and the comments between them */
  IN_DIAG_METRIC,   /* the line after "Diagonal elements of inverse mass matrix:" */
  IN_DENSE_METRIC,  /* the rows after "Elements of inverse mass matrix:" */
} Place;

typedef struct {
  TildeStanCsv *csv;
  Place         place;
  guint         line;
  GPtrArray    *sections;   /* char *: the key of the enclosing setting at each depth */
  GArray       *rows;       /* double: every data row, warmup included */
  GArray       *row_lines;  /* guint */
  GArray       *metric;     /* double */
  guint         metric_rows;
} Reader;

static gboolean
fail (GError **error, const Reader *r, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (GError **error, const Reader *r, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list ap;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (r->line > 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s:%u: %s", r->csv->name, r->line, message);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", r->csv->name, message);
  return FALSE;
}

static void
setting_free (gpointer data)
{
  TildeStanCsvSetting *s = data;

  g_free (s->key);
  g_free (s->path);
  g_free (s->value);
  g_free (s);
}

void
tilde_stan_csv_free (TildeStanCsv *csv)
{
  if (csv == NULL)
    return;
  g_free (csv->name);
  g_ptr_array_unref (csv->settings);
  g_free (csv->model);
  g_free (csv->algorithm);
  g_free (csv->engine);
  g_free (csv->metric);
  g_free (csv->seed);
  g_strfreev (csv->column_names);
  g_free (csv->inv_metric);
  g_free (csv->warmup_draws);
  g_free (csv->draws);
  g_free (csv->draw_lines);
  g_ptr_array_unref (csv->warnings);
  g_free (csv);
}

const char *
tilde_stan_csv_setting (const TildeStanCsv *csv, const char *key)
{
  for (guint i = 0; i < csv->settings->len; i++)
    {
      const TildeStanCsvSetting *s = g_ptr_array_index (csv->settings, i);

      if (g_str_equal (s->path, key))
        return s->value;
    }
  for (guint i = 0; i < csv->settings->len; i++)
    {
      const TildeStanCsvSetting *s = g_ptr_array_index (csv->settings, i);

      if (g_str_equal (s->key, key))
        return s->value;
    }
  return NULL;
}

int
tilde_stan_csv_column (const TildeStanCsv *csv, const char *name)
{
  for (guint j = 0; j < csv->n_columns; j++)
    if (g_str_equal (csv->column_names[j], name))
      return (int) j;
  return -1;
}

double
tilde_stan_csv_draw (const TildeStanCsv *csv, guint i, guint j)
{
  g_return_val_if_fail (i < csv->n_draws && j < csv->n_columns, NAN);
  return csv->draws[(gsize) i * csv->n_columns + j];
}

/* A whole field (surrounding blanks allowed) as a double: decimal or
 * exponent notation, nan, inf, +inf, -inf in any case. */
static gboolean
parse_number (const char *begin, const char *end, double *out)
{
  char buffer[64];
  g_autofree char *longer = NULL;
  const char *text;
  char *stop;
  gsize len;

  while (begin < end && g_ascii_isspace (*begin))
    begin++;
  while (end > begin && g_ascii_isspace (end[-1]))
    end--;
  len = (gsize) (end - begin);
  if (len == 0)
    return FALSE;
  /* the plain decimals CmdStan writes, without strtod where that is exact */
  if (tilde_decimal_grammar_end (begin, len, 0) == len)
    {
      TildeDecimal d;
      tilde_decimal_parse (begin, len, 0, &d);
      *out = d.d;
      return TRUE;
    }
  if (len < sizeof buffer)
    {
      memcpy (buffer, begin, len);
      buffer[len] = '\0';
      text = buffer;
    }
  else
    text = longer = g_strndup (begin, len);
  *out = g_ascii_strtod (text, &stop);
  return stop == text + len && !g_ascii_isspace (text[0]);
}

/* The comma-separated numbers of TEXT; FALSE at the first that is not. */
static gboolean
parse_number_list (const char *text, GArray *out, guint *count)
{
  const char *p = text;

  *count = 0;
  for (;;)
    {
      const char *comma = strchr (p, ',');
      const char *end = comma ? comma : p + strlen (p);
      double v;

      if (!parse_number (p, end, &v))
        return FALSE;
      g_array_append_val (out, v);
      (*count)++;
      if (comma == NULL)
        return TRUE;
      p = comma + 1;
    }
}

static gboolean
parse_int_setting (Reader *r, const TildeStanCsvSetting *s, gint64 min, gint64 *out, GError **error)
{
  gint64 v;

  if (!g_ascii_string_to_signed (s->value, 10, min, G_MAXINT64, &v, NULL))
    return fail (error, r, "%s = %s: expected a whole number of at least %" G_GINT64_FORMAT,
                 s->key, s->value, min);
  *out = v;
  return TRUE;
}

static void
set_string (char **field, const char *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

/* Copies what Tilde uses from one setting into the csv's fields. */
static gboolean
apply_setting (Reader *r, const TildeStanCsvSetting *s, GError **error)
{
  TildeStanCsv *csv = r->csv;
  const char *k = s->key;

  if (g_str_equal (k, "model"))
    set_string (&csv->model, s->value);
  else if (g_str_equal (k, "algorithm"))
    set_string (&csv->algorithm, s->value);
  else if (g_str_equal (k, "engine"))
    set_string (&csv->engine, s->value);
  else if (g_str_equal (k, "metric"))
    set_string (&csv->metric, s->value);
  else if (g_str_equal (k, "seed"))
    set_string (&csv->seed, s->value);
  else if (g_str_equal (k, "num_samples"))
    return parse_int_setting (r, s, 0, &csv->num_samples, error);
  else if (g_str_equal (k, "num_warmup"))
    return parse_int_setting (r, s, 0, &csv->num_warmup, error);
  else if (g_str_equal (k, "thin"))
    return parse_int_setting (r, s, 1, &csv->thin, error);
  else if (g_str_equal (k, "max_depth"))
    return parse_int_setting (r, s, 1, &csv->max_depth, error);
  else if (g_str_equal (k, "id"))
    return parse_int_setting (r, s, 0, &csv->chain_id, error);
  else if (g_str_equal (k, "save_warmup"))
    {
      if (g_str_equal (s->value, "1") || g_str_equal (s->value, "true"))
        csv->save_warmup = TRUE;
      else if (g_str_equal (s->value, "0") || g_str_equal (s->value, "false"))
        csv->save_warmup = FALSE;
      else
        return fail (error, r, "save_warmup = %s: expected 0 or 1", s->value);
    }
  return TRUE;
}

/* "# key = value (Default)", indented two spaces a level; a line with no
 * "=" opens a section ("#   sample"). */
static gboolean
read_setting (Reader *r, const char *text, GError **error)
{
  const char *p = text + 1;
  guint spaces = 0, depth;
  const char *eq;
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;
  TildeStanCsvSetting *s;
  GString *path;
  gboolean is_default = FALSE;

  while (*p == ' ')
    {
      spaces++;
      p++;
    }
  if (*p == '\0')
    return TRUE;
  depth = spaces > 0 ? (spaces - 1) / 2 : 0;
  eq = strchr (p, '=');
  key = g_strstrip (eq ? g_strndup (p, (gsize) (eq - p)) : g_strdup (p));
  if (eq)
    {
      value = g_strstrip (g_strdup (eq + 1));
      if (g_str_has_suffix (value, "(Default)"))
        {
          value[strlen (value) - strlen ("(Default)")] = '\0';
          g_strstrip (value);
          is_default = TRUE;
        }
    }

  g_ptr_array_set_size (r->sections, depth);
  path = g_string_new (NULL);
  for (guint i = 0; i < depth; i++)
    {
      const char *section = g_ptr_array_index (r->sections, i);

      if (section)
        g_string_append_printf (path, "%s.", section);
    }
  g_string_append (path, key);
  g_ptr_array_add (r->sections, g_strdup (key));
  if (value == NULL)
    {
      g_string_free (path, TRUE);
      return TRUE;
    }

  s = g_new0 (TildeStanCsvSetting, 1);
  s->key = g_steal_pointer (&key);
  s->value = g_steal_pointer (&value);
  s->path = g_string_free (path, FALSE);
  s->is_default = is_default;
  s->line = r->line;
  g_ptr_array_add (r->csv->settings, s);
  return apply_setting (r, s, error);
}

static gboolean
read_column_names (Reader *r, const char *text, GError **error)
{
  TildeStanCsv *csv = r->csv;
  g_auto (GStrv) names = g_strsplit (text, ",", -1);
  guint n = g_strv_length (names);
  gboolean numeric = TRUE;

  for (guint j = 0; j < n; j++)
    {
      double v;

      g_strstrip (names[j]);
      if (names[j][0] == '\0')
        return fail (error, r, "column %u has no name", j + 1);
      numeric = numeric && parse_number (names[j], names[j] + strlen (names[j]), &v);
    }
  if (numeric)
    return fail (error, r, "expected the column names, found a row of numbers "
                           "(the header line is missing)");
  for (guint j = 0; j < n; j++)
    for (guint k = 0; k < j; k++)
      if (g_str_equal (names[j], names[k]))
        return fail (error, r, "column %u repeats the name '%s' of column %u", j + 1, names[j], k + 1);
  csv->n_columns = n;
  csv->column_names = g_steal_pointer (&names);
  csv->header_line = r->line;
  r->place = IN_BODY;
  return TRUE;
}

static gboolean
read_row (Reader *r, const char *text, GError **error)
{
  guint n = r->csv->n_columns, found = 1, start = r->rows->len;
  const char *p = text;

  for (const char *q = text; (q = strchr (q, ',')) != NULL; q++)
    found++;
  if (found != n)
    return fail (error, r, "expected %u values, one for each column, found %u", n, found);
  for (guint j = 0; j < n; j++)
    {
      const char *comma = strchr (p, ',');
      const char *end = comma ? comma : p + strlen (p);
      double v;

      if (!parse_number (p, end, &v))
        {
          g_autofree char *field = g_strndup (p, (gsize) MIN (end - p, 40));

          g_array_set_size (r->rows, start);
          return fail (error, r, "value %u ('%s', column %s) is not a number",
                       j + 1, g_strstrip (field), r->csv->column_names[j]);
        }
      g_array_append_val (r->rows, v);
      p = end + 1;
    }
  g_array_append_val (r->row_lines, r->line);
  return TRUE;
}

/* The text of a comment after "#" and blanks. */
static const char *
comment_text (const char *line)
{
  const char *p = line + 1;

  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

static gboolean
read_metric_line (Reader *r, const char *line, GError **error)
{
  TildeStanCsv *csv = r->csv;
  guint count;

  if (line[0] != '#' || !parse_number_list (comment_text (line), r->metric, &count))
    return fail (error, r, "expected a line of the inverse metric");
  if (r->place == IN_DIAG_METRIC)
    {
      csv->n_metric = count;
      r->place = IN_BODY;
      return TRUE;
    }
  if (r->metric_rows == 0)
    csv->n_metric = count;
  else if (count != csv->n_metric)
    return fail (error, r, "row %u of the inverse metric has %u values, the first had %u",
                 r->metric_rows + 1, count, csv->n_metric);
  if (++r->metric_rows == csv->n_metric)
    r->place = IN_BODY;
  return TRUE;
}

/* "#  Elapsed Time: 0.005 seconds (Warm-up)", "#  0.002 seconds (Sampling)" */
static void
read_timing (TildeStanCsv *csv, const char *text)
{
  const char *p = text;
  double seconds;
  char *stop;

  if (g_str_has_prefix (p, "Elapsed Time:"))
    p += strlen ("Elapsed Time:");
  seconds = g_ascii_strtod (p, &stop);
  if (stop == p)
    return;
  if (strstr (stop, "(Warm-up)"))
    csv->warmup_seconds = seconds;
  else if (strstr (stop, "(Sampling)"))
    csv->sampling_seconds = seconds;
  else if (strstr (stop, "(Total)"))
    csv->total_seconds = seconds;
}

static gboolean
read_body_comment (Reader *r, const char *line, GError **error)
{
  TildeStanCsv *csv = r->csv;
  const char *text = comment_text (line);

  if (g_str_has_prefix (text, "Step size ="))
    {
      const char *value = text + strlen ("Step size =");

      if (!parse_number (value, value + strlen (value), &csv->step_size))
        return fail (error, r, "the step size is not a number");
    }
  else if (g_str_has_prefix (text, "Diagonal elements of inverse mass matrix"))
    {
      csv->metric_kind = TILDE_STAN_CSV_METRIC_DIAG;
      g_array_set_size (r->metric, 0);
      r->place = IN_DIAG_METRIC;
    }
  else if (g_str_has_prefix (text, "Elements of inverse mass matrix"))
    {
      csv->metric_kind = TILDE_STAN_CSV_METRIC_DENSE;
      g_array_set_size (r->metric, 0);
      r->metric_rows = 0;
      r->place = IN_DENSE_METRIC;
    }
  else if (strstr (text, "seconds ("))
    read_timing (csv, text);
  return TRUE;
}

static gboolean
read_line (Reader *r, char *line, GError **error)
{
  gsize len = strlen (line);

  if (len > 0 && line[len - 1] == '\r')
    line[--len] = '\0';
  if (r->place == IN_DIAG_METRIC || r->place == IN_DENSE_METRIC)
    return read_metric_line (r, line, error);
  if (line[0] == '#')
    return r->place == IN_HEADER ? read_setting (r, line, error) : read_body_comment (r, line, error);
  if (line[strspn (line, " \t")] == '\0')
    return TRUE;
  if (r->place == IN_HEADER)
    return read_column_names (r, line, error);
  return read_row (r, line, error);
}

/* A copy of N elements of SIZE bytes at DATA, never NULL. */
static gpointer
copy_or_empty (gconstpointer data, gsize n, gsize size)
{
  gpointer out = g_malloc0 (MAX (n, 1) * size);

  if (n > 0)
    memcpy (out, data, n * size);
  return out;
}

/* Moves the rows into warmup and sampling draws. */
static void
split_warmup (Reader *r)
{
  TildeStanCsv *csv = r->csv;
  guint n_rows = r->row_lines->len, n_warmup = 0;
  gsize width = csv->n_columns;
  const double *rows = (const double *) (void *) r->rows->data;
  const guint *lines = (const guint *) (void *) r->row_lines->data;

  if (csv->save_warmup)
    {
      /* CmdStan saves iterations 0, thin, 2 thin, ... of the warmup */
      gint64 saved = (csv->num_warmup + csv->thin - 1) / csv->thin;

      n_warmup = (guint) MIN ((gint64) n_rows, saved);
    }
  csv->n_warmup_draws = n_warmup;
  csv->n_draws = n_rows - n_warmup;
  csv->warmup_draws = copy_or_empty (rows, n_warmup * width, sizeof (double));
  csv->draws = copy_or_empty (csv->n_draws ? rows + n_warmup * width : NULL,
                              csv->n_draws * width, sizeof (double));
  csv->draw_lines = copy_or_empty (csv->n_draws ? lines + n_warmup : NULL,
                                   csv->n_draws, sizeof (guint));
  if (csv->settings->len == 0)
    {
      csv->num_samples = csv->n_draws;
      csv->num_warmup = 0;
    }
}

static TildeStanCsv *
stan_csv_new (const char *name)
{
  TildeStanCsv *csv = g_new0 (TildeStanCsv, 1);

  csv->name = g_strdup (name);
  csv->settings = g_ptr_array_new_with_free_func (setting_free);
  csv->warnings = g_ptr_array_new_with_free_func (g_free);
  /* CmdStan's defaults, for files that do not say */
  csv->algorithm = g_strdup ("hmc");
  csv->engine = g_strdup ("nuts");
  csv->metric = g_strdup ("diag_e");
  csv->num_samples = 1000;
  csv->num_warmup = 1000;
  csv->thin = 1;
  csv->max_depth = 10;
  csv->chain_id = 1;
  csv->step_size = NAN;
  csv->warmup_seconds = NAN;
  csv->sampling_seconds = NAN;
  csv->total_seconds = NAN;
  return csv;
}

static void
reader_clear (Reader *r)
{
  g_clear_pointer (&r->sections, g_ptr_array_unref);
  g_clear_pointer (&r->rows, g_array_unref);
  g_clear_pointer (&r->row_lines, g_array_unref);
  g_clear_pointer (&r->metric, g_array_unref);
}

/* CmdStan ends every line: a last line without its newline was being
 * written when the run stopped. A file with no configuration header was not
 * written by CmdStan and may just lack the final newline, so its last line
 * is kept when it reads as a whole row. */
static gboolean
keep_unterminated_line (Reader *r, char *line)
{
  g_autoptr (GArray) probe = NULL;
  guint count;

  if (r->csv->settings->len > 0 || line[0] == '#')
    return FALSE;
  if (r->place == IN_HEADER)
    return TRUE;
  if (r->place != IN_BODY)
    return FALSE;
  probe = g_array_new (FALSE, FALSE, sizeof (double));
  return parse_number_list (line, probe, &count) && count == r->csv->n_columns;
}

static gboolean
read_lines (Reader *r, char *text, gsize length, GError **error)
{
  char *p = text, *end = text + length;

  while (p < end)
    {
      char *newline = memchr (p, '\n', (gsize) (end - p));
      gboolean terminated = newline != NULL;

      if (terminated)
        *newline = '\0';
      r->line++;
      if (!terminated && !keep_unterminated_line (r, p))
        {
          g_ptr_array_add (r->csv->warnings,
                           g_strdup_printf ("%s:%u: the last line is incomplete (the run was cut short?) "
                                            "and was left out", r->csv->name, r->line));
          break;
        }
      if (!read_line (r, p, error))
        return FALSE;
      if (!terminated)
        break;
      p = newline + 1;
    }
  return TRUE;
}

TildeStanCsv *
tilde_stan_csv_read_string (const char *text, gsize length, const char *name, GError **error)
{
  g_autoptr (TildeStanCsv) csv = stan_csv_new (name);
  g_autofree char *copy = NULL;
  Reader r = { .csv = csv, .place = IN_HEADER };
  gboolean ok;

  if (length == 0)
    {
      fail (error, &r, "the file is empty");
      return NULL;
    }
  if (memchr (text, '\0', length) != NULL)
    {
      fail (error, &r, "the file holds a NUL byte: it is not a text file");
      return NULL;
    }
  r.sections = g_ptr_array_new_with_free_func (g_free);
  r.rows = g_array_new (FALSE, FALSE, sizeof (double));
  r.row_lines = g_array_new (FALSE, FALSE, sizeof (guint));
  r.metric = g_array_new (FALSE, FALSE, sizeof (double));
  copy = g_strndup (text, length);

  ok = read_lines (&r, copy, length, error);
  if (ok && r.place == IN_HEADER)
    {
      r.line = 0;
      ok = fail (error, &r, "no column names: the file has no header line");
    }
  if (ok && (r.place == IN_DIAG_METRIC || r.place == IN_DENSE_METRIC) && csv->warnings->len == 0)
    ok = fail (error, &r, "the inverse metric ends early");
  if (ok)
    {
      csv->n_metric = r.place == IN_BODY ? csv->n_metric : 0;
      csv->inv_metric = copy_or_empty (r.metric->data, r.metric->len, sizeof (double));
      if (r.place != IN_BODY)
        csv->metric_kind = TILDE_STAN_CSV_METRIC_NONE;
      split_warmup (&r);
    }
  reader_clear (&r);
  return ok ? g_steal_pointer (&csv) : NULL;
}

TildeStanCsv *
tilde_stan_csv_read_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize length;

  /* GLib's message names the file */
  if (!g_file_get_contents (path, &text, &length, error))
    return NULL;
  return tilde_stan_csv_read_string (text, length, path, error);
}
