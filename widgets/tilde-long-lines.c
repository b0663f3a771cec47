/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tilde-long-lines.h"

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
  longest = MAX (longest, (gsize) gtk_text_iter_get_bytes_in_line (&line));
  gtk_text_iter_set_line (&line, gtk_text_iter_get_line (end) - newlines);
  return MAX (longest, (gsize) gtk_text_iter_get_bytes_in_line (&line));
}

gsize
tilde_longest_line_in_buffer (GtkTextBuffer *buffer)
{
  GtkTextIter line;
  gsize longest = 0;

  gtk_text_buffer_get_start_iter (buffer, &line);
  do
    longest = MAX (longest, (gsize) gtk_text_iter_get_bytes_in_line (&line));
  while (gtk_text_iter_forward_line (&line));
  return longest;
}
