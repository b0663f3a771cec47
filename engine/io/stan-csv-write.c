/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/stan-csv-write.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <glib/gstdio.h>

/* Whole numbers below this (tree depths, step counts, divergence flags)
 * keep their text once formatted. */
enum { SMALL_INTS = 1024, SMALL_INT_TEXT = 16 };

struct TildeCsvWriter {
  FILE    *stream;
  char    *path;      /* NULL for a stream the caller owns */
  int      sig_figs;
  int      write_errno;
  GString *line;      /* one row, written with a single fwrite */
  /* the text of k at sig_figs, its length (0 when not yet formatted) */
  char     small_ints[SMALL_INTS][SMALL_INT_TEXT];
  guint8   small_int_length[SMALL_INTS];
};

static TildeCsvWriter *
writer_new (FILE *stream, const char *path, int sig_figs)
{
  TildeCsvWriter *writer = g_new0 (TildeCsvWriter, 1);
  writer->stream = stream;
  writer->path = g_strdup (path);
  writer->sig_figs = sig_figs;
  writer->line = g_string_sized_new (256);
  return writer;
}

TildeCsvWriter *
tilde_csv_writer_open (const char *path, int sig_figs, GError **error)
{
  FILE *stream = g_fopen (path, "w");
  if (stream == NULL)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot write %s: %s", path, g_strerror (saved));
      return NULL;
    }
  return writer_new (stream, path, sig_figs);
}

TildeCsvWriter *
tilde_csv_writer_new_for_stream (FILE *stream, int sig_figs)
{
  return writer_new (stream, NULL, sig_figs);
}

/* The C locale's "%.<digits>g", which is what a C++ stream writes at
 * that precision. */
static void
format_with_printf (char *buffer, gsize size, double value, int digits)
{
  char format[8];
  g_snprintf (format, sizeof format, "%%.%dg", digits);
  g_ascii_formatd (buffer, size, format, value);
}

/* Powers of ten that a long double holds exactly. */
static const long double powers_of_ten[] = {
  1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
  1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L,
  1e27L,
};

/* a * 10^k, with one rounding; FALSE when 10^k is not exact. */
static gboolean
scale (long double a, int k, long double *out)
{
  if (k > 27 || k < -27)
    return FALSE;
  *out = k >= 0 ? a * powers_of_ten[k] : a / powers_of_ten[-k];
  return TRUE;
}

static char *
append_exponent (char *out, int e)
{
  int a = ABS (e);
  *out++ = 'e';
  *out++ = e < 0 ? '-' : '+';
  if (a >= 100)
    *out++ = (char) ('0' + a / 100);
  *out++ = (char) ('0' + a / 10 % 10);
  *out++ = (char) ('0' + a % 10);
  *out = '\0';
  return out;
}

/* frexp's exponent, read from the bits for a normal number. */
static int
binary_exponent (double value)
{
  guint64 bits;
  int biased, e;

  memcpy (&bits, &value, sizeof bits);
  biased = (int) ((bits >> 52) & 0x7ff);
  if (biased != 0)
    return biased - 1022;
  frexp (value, &e);
  return e;
}

/* floor (x) for |x| < 2^31, without a call. */
static int
floor_to_int (double x)
{
  int i = (int) x;
  return i - (x < (double) i);
}

/* "%.<digits>g" without printf, which costs more than everything else
 * in writing a draw. The value is scaled to `digits` integer digits in
 * long double arithmetic (relative error below 1e-19); when that error
 * could change how the integer rounds (the value lies within 1e-17 of
 * half a unit), printf decides instead, so the text is always printf's.
 * Returns the length written, or -1 when the value is outside the fast
 * path's range. */
static int
format_fast (char *buffer, gsize size, double value, int digits)
{
  long double a = fabsl ((long double) value), scaled, whole, frac;
  long double limit = powers_of_ten[MIN (digits, 17)];
  int e, e0, len;
  guint64 m;
  char d[24];
  char *out = buffer;

  if (value == 0 || digits > 17 || size < 32)
    return -1;
  /* the binary exponent puts the decimal one within one of its place */
  e = e0 = floor_to_int ((binary_exponent (value) - 1) * 0.30102999566398120);
  if (!scale (a, digits - 1 - e, &scaled))
    return -1;
  if (scaled >= limit)
    e++;
  else if (scaled < limit / 10)
    e--;
  if ((e != e0 && !scale (a, digits - 1 - e, &scaled)) || scaled >= limit || scaled < limit / 10)
    return -1;
  /* scaled is below 10^17 < 2^63: truncating is flooring */
  whole = (long double) (guint64) scaled;
  frac = scaled - whole;
  if (fabsl (frac - 0.5L) <= scaled * 1e-17L)
    return -1;
  m = (guint64) whole + (frac > 0.5L);
  if ((long double) m >= limit)
    {
      m /= 10;
      e++;
    }
  for (int i = digits - 1; i >= 0; i--, m /= 10)
    d[i] = (char) ('0' + m % 10);
  for (len = digits; len > 1 && d[len - 1] == '0'; len--)
    ;

  if (value < 0)
    *out++ = '-';
  if (e < -4 || e >= digits)
    {
      *out++ = d[0];
      if (len > 1)
        {
          *out++ = '.';
          memcpy (out, d + 1, (gsize) len - 1);
          out += len - 1;
        }
      return (int) (append_exponent (out, e) - buffer);
    }
  if (e < 0)
    {
      *out++ = '0';
      *out++ = '.';
      for (int i = 0; i < -e - 1; i++)
        *out++ = '0';
      memcpy (out, d, (gsize) len);
      out[len] = '\0';
      return (int) (out + len - buffer);
    }
  for (int i = 0; i <= e; i++)
    *out++ = i < len ? d[i] : '0';
  if (len > e + 1)
    {
      *out++ = '.';
      memcpy (out, d + e + 1, (gsize) (len - e - 1));
      out += len - e - 1;
    }
  *out = '\0';
  return (int) (out - buffer);
}

/* The length written. Zero is "0" or "-0" at every precision, as printf
 * writes it. */
static gsize
format_double (char *buffer, gsize size, double value, int sig_figs)
{
  int digits, len;

  if (isnan (value))
    return g_strlcpy (buffer, "nan", size);
  if (isinf (value))
    return g_strlcpy (buffer, value > 0 ? "inf" : "-inf", size);
  if (value == 0)
    return g_strlcpy (buffer, signbit (value) ? "-0" : "0", size);
  digits = sig_figs < 1 ? 6 : MIN (sig_figs, 18);
  len = format_fast (buffer, size, value, digits);
  if (len >= 0)
    return (gsize) len;
  format_with_printf (buffer, size, value, digits);
  return strlen (buffer);
}

void
tilde_csv_format_double (char *buffer, gsize size, double value, int sig_figs)
{
  format_double (buffer, size, value, sig_figs);
}

/* Writes the pending line in one call, remembering the first failure. */
static void
writer_emit (TildeCsvWriter *writer)
{
  if (writer->write_errno == 0
      && fwrite (writer->line->str, 1, writer->line->len, writer->stream) != writer->line->len)
    writer->write_errno = errno ? errno : EIO;
  g_string_truncate (writer->line, 0);
}

void
tilde_csv_writer_comment (TildeCsvWriter *writer, const char *format, ...)
{
  va_list args;
  g_string_append (writer->line, "# ");
  va_start (args, format);
  g_string_append_vprintf (writer->line, format, args);
  va_end (args);
  g_string_append_c (writer->line, '\n');
  writer_emit (writer);
}

void
tilde_csv_writer_config (TildeCsvWriter *writer, guint depth, const char *key,
                         const char *value, gboolean is_default)
{
  g_string_append (writer->line, "# ");
  for (guint i = 0; i < depth; i++)
    g_string_append (writer->line, "  ");
  g_string_append (writer->line, key);
  if (value != NULL)
    g_string_append_printf (writer->line, " = %s%s", value, is_default ? " (Default)" : "");
  g_string_append_c (writer->line, '\n');
  writer_emit (writer);
}

void
tilde_csv_writer_names (TildeCsvWriter *writer, const char *const *names, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (writer->line, ',');
      g_string_append (writer->line, names[i]);
    }
  g_string_append_c (writer->line, '\n');
  writer_emit (writer);
}

/* One number at `at` (room for G_ASCII_DTOSTR_BUF_SIZE bytes); returns
 * its length. */
static gsize
append_number (TildeCsvWriter *writer, char *at, double value)
{
  if (value >= 0 && value < SMALL_INTS && !signbit (value))
    {
      int k = (int) value;
      if ((double) k == value)
        {
          gsize len = writer->small_int_length[k];
          if (len == 0)
            {
              char text[G_ASCII_DTOSTR_BUF_SIZE];
              len = format_double (text, sizeof text, value, writer->sig_figs);
              g_assert (len > 0 && len < SMALL_INT_TEXT);
              memcpy (writer->small_ints[k], text, len);
              writer->small_int_length[k] = (guint8) len;
            }
          memcpy (at, writer->small_ints[k], len);
          at[len] = '\0';
          return len;
        }
    }
  return format_double (at, G_ASCII_DTOSTR_BUF_SIZE, value, writer->sig_figs);
}

/* The numbers are formatted straight into the line, which is made long
 * enough for all of them first: a row is written once per draw, and for
 * cheap models appending number by number cost as much as formatting. */
static void
append_numbers (TildeCsvWriter *writer, const double *values, gsize n, const char *separator)
{
  GString *line = writer->line;
  gsize start = line->len, separator_length = strlen (separator);
  char *at;

  g_string_set_size (line, start + n * (separator_length + G_ASCII_DTOSTR_BUF_SIZE));
  at = line->str + start;
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0)
        {
          memcpy (at, separator, separator_length);
          at += separator_length;
        }
      at += append_number (writer, at, values[i]);
    }
  g_string_truncate (line, (gsize) (at - line->str));
}

void
tilde_csv_writer_row (TildeCsvWriter *writer, const double *values, gsize n)
{
  append_numbers (writer, values, n, ",");
  g_string_append_c (writer->line, '\n');
  writer_emit (writer);
}

void
tilde_csv_writer_adaptation (TildeCsvWriter *writer, double step_size,
                             const double *inverse_metric, gsize n, gboolean dense)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  tilde_csv_format_double (number, sizeof number, step_size, -1);
  tilde_csv_writer_comment (writer, "Adaptation terminated");
  tilde_csv_writer_comment (writer, "Step size = %s", number);
  if (inverse_metric == NULL)
    return;
  tilde_csv_writer_comment (writer, dense ? "Elements of inverse mass matrix:"
                                          : "Diagonal elements of inverse mass matrix:");
  for (gsize row = 0; row < (dense ? n : 1); row++)
    {
      g_string_append (writer->line, "# ");
      append_numbers (writer, inverse_metric + row * n, n, ", ");
      g_string_append_c (writer->line, '\n');
      writer_emit (writer);
    }
}

void
tilde_csv_writer_timing (TildeCsvWriter *writer, double warmup_seconds, double sampling_seconds)
{
  tilde_csv_writer_comment (writer, "%s", "");
  tilde_csv_writer_comment (writer, " Elapsed Time: %.3f seconds (Warm-up)", warmup_seconds);
  tilde_csv_writer_comment (writer, "               %.3f seconds (Sampling)", sampling_seconds);
  tilde_csv_writer_comment (writer, "               %.3f seconds (Total)",
                            warmup_seconds + sampling_seconds);
  tilde_csv_writer_comment (writer, "%s", "");
}

static gboolean
writer_check (TildeCsvWriter *writer, GError **error)
{
  if (writer->write_errno == 0)
    return TRUE;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (writer->write_errno),
               "cannot write %s: %s", writer->path ? writer->path : "the output",
               g_strerror (writer->write_errno));
  return FALSE;
}

gboolean
tilde_csv_writer_flush (TildeCsvWriter *writer, GError **error)
{
  if (writer->write_errno == 0 && fflush (writer->stream) != 0)
    writer->write_errno = errno ? errno : EIO;
  return writer_check (writer, error);
}

gboolean
tilde_csv_writer_close (TildeCsvWriter *writer, GError **error)
{
  gboolean ok = tilde_csv_writer_flush (writer, error);
  if (writer->path != NULL && fclose (writer->stream) != 0 && ok)
    {
      writer->write_errno = errno ? errno : EIO;
      ok = writer_check (writer, error);
    }
  g_string_free (writer->line, TRUE);
  g_free (writer->path);
  g_free (writer);
  return ok;
}
