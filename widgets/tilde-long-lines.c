/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tilde-long-lines.h"

#include <string.h>

/* The bytes of the line at `line`, without its line break. */
static gsize
bytes_in_line (const GtkTextIter *line)
{
  GtkTextIter start = *line, end;

  gtk_text_iter_set_line_offset (&start, 0);
  end = start;
  if (!gtk_text_iter_ends_line (&end))
    gtk_text_iter_forward_to_line_end (&end);
  return (gsize) (gtk_text_iter_get_line_index (&end) - gtk_text_iter_get_line_index (&start));
}

gsize
tilde_longest_line_inserted (const GtkTextIter *end, const char *text, int len)
{
  gsize longest = 0, run = 0;
  int newlines = 0;
  GtkTextIter line = *end;

  for (int i = 0; i < len; i++)
    if (text[i] == '\n')
      newlines++, longest = MAX (longest, run), run = 0;
    else
      run++;
  longest = MAX (longest, run);
  /* the lines the insertion ends and begins on, whole */
  longest = MAX (longest, bytes_in_line (&line));
  gtk_text_iter_set_line (&line, gtk_text_iter_get_line (end) - newlines);
  return MAX (longest, bytes_in_line (&line));
}

gsize
tilde_longest_line_in_buffer (GtkTextBuffer *buffer)
{
  GtkTextIter line;
  gsize longest = 0;

  gtk_text_buffer_get_start_iter (buffer, &line);
  do
    longest = MAX (longest, bytes_in_line (&line));
  while (gtk_text_iter_forward_line (&line));
  return longest;
}

gsize
tilde_longest_line_in_text (const char *text, gsize len)
{
  gsize longest = 0;
  const char *p = text, *end = text + len;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *stop = nl ? nl : end;
      gsize n = (gsize) (stop - p);

      if (nl != NULL && n > 0 && stop[-1] == '\r')
        n--;
      longest = MAX (longest, n);
      p = stop + 1;
    }
  return longest;
}
