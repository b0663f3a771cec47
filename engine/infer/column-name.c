/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "infer/column-name.h"

#include <string.h>

const char *
tilde_column_index_suffix (const char *column)
{
  for (const char *dot = strchr (column, '.'); dot != NULL; dot = strchr (dot + 1, '.'))
    {
      const char *p = dot;

      if (dot == column)
        continue;
      while (*p == '.' && g_ascii_isdigit (p[1]))
        {
          p++;
          while (g_ascii_isdigit (*p))
            p++;
        }
      if (*p == '\0')
        return dot;
    }
  return NULL;
}

char *
tilde_column_display_name (const char *column)
{
  const char *suffix = tilde_column_index_suffix (column);
  GString *out;

  if (suffix == NULL)
    return g_strdup (column);
  out = g_string_new_len (column, suffix - column);
  g_string_append_c (out, '[');
  for (const char *p = suffix + 1; *p; p++)
    g_string_append_c (out, *p == '.' ? ',' : *p);
  g_string_append_c (out, ']');
  return g_string_free (out, FALSE);
}
