/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-widgets"

#include "tilde-mir-highlight.h"

#include <string.h>

static const char *const parts[] = {
  "functions", "input_vars", "prepare_data", "log_prob",
  "generate_quantities", "transform_inits", "output_vars", NULL
};

static const char *const keywords[] = {
  "if", "else", "for", "while", "in", "return", "break", "continue", "target",
  "data", "parameters", "transformed_parameters", "generated_quantities",
  "promote", NULL
};

static const char *const types[] = {
  "int", "real", "complex", "vector", "row_vector", "matrix", "complex_vector",
  "complex_row_vector", "complex_matrix", "array", "tuple", "void", NULL
};

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

static gboolean
word_in (const char *word, gsize len, const char *const *list)
{
  for (; *list != NULL; list++)
    if (strlen (*list) == len && memcmp (*list, word, len) == 0)
      return TRUE;
  return FALSE;
}

/* A program part only counts at the start of its line, before its brace. */
static gboolean
is_part (const char *line, gsize len, gsize start, gsize end)
{
  if (start != 0 || !word_in (line, end, parts))
    return FALSE;
  while (end < len && g_ascii_isspace (line[end]))
    end++;
  return end < len && line[end] == '{';
}

/* Compiler-internal functions start with Fn or end in two underscores. */
static gboolean
is_internal (const char *word, gsize len)
{
  if (len >= 2 && word[0] == 'F' && word[1] == 'n')
    {
      gsize i = 2;
      while (i < len && g_ascii_isalpha (word[i]))
        i++;
      if (i == len)
        return TRUE;
    }
  return len >= 3 && g_ascii_isalpha (word[0])
         && word[len - 1] == '_' && word[len - 2] == '_';
}

static gboolean
classify_word (const char *line, gsize len, gsize start, gsize end,
               TildeMirToken *token)
{
  const char *word = line + start;
  gsize n = end - start;

  if (is_part (line, len, start, end))
    *token = TILDE_MIR_TOKEN_PART;
  else if (word_in (word, n, keywords))
    *token = TILDE_MIR_TOKEN_KEYWORD;
  else if (word_in (word, n, types))
    *token = TILDE_MIR_TOKEN_TYPE;
  else if (is_internal (word, n))
    *token = TILDE_MIR_TOKEN_INTERNAL;
  else
    return FALSE;
  return TRUE;
}

static gsize
skip_digits (const char *line, gsize len, gsize i)
{
  while (i < len && g_ascii_isdigit (line[i]))
    i++;
  return i;
}

static gsize
skip_exponent (const char *line, gsize len, gsize i)
{
  gsize j = i;

  if (j >= len || (line[j] != 'e' && line[j] != 'E'))
    return i;
  j++;
  if (j < len && (line[j] == '+' || line[j] == '-'))
    j++;
  if (j >= len || !g_ascii_isdigit (line[j]))
    return i;
  return skip_digits (line, len, j);
}

/* Scans a number from i; returns its end and whether it is real. A number
 * glued to a letter, digit, underscore or dot is no number (like "x1"). */
static gsize
scan_number (const char *line, gsize len, gsize i, gboolean *real)
{
  gsize end = skip_digits (line, len, i);

  *real = FALSE;
  if (end < len && line[end] == '.')
    {
      *real = TRUE;
      end = skip_digits (line, len, end + 1);
    }
  gsize exp_end = skip_exponent (line, len, end);
  if (exp_end != end)
    *real = TRUE;
  return exp_end;
}

static gboolean
starts_number (const char *line, gsize len, gsize i)
{
  if (g_ascii_isdigit (line[i]))
    return TRUE;
  return line[i] == '.' && i + 1 < len && g_ascii_isdigit (line[i + 1]);
}

static gsize
scan_string (const char *line, gsize len, gsize i)
{
  for (i++; i < len; i++)
    if (line[i] == '"')
      return i + 1;
  return len;
}

void
tilde_mir_highlight_line (const char        *line,
                          gsize              len,
                          TildeMirTokenFunc  func,
                          gpointer           user_data)
{
  gsize i = 0;

  while (i < len)
    {
      char c = line[i];

      if (c == '/' && i + 1 < len && line[i + 1] == '/')
        {
          func (TILDE_MIR_TOKEN_COMMENT, i, len, user_data);
          return;
        }
      if (c == '"')
        {
          gsize end = scan_string (line, len, i);
          func (TILDE_MIR_TOKEN_STRING, i, end, user_data);
          i = end;
        }
      else if (is_word_char (c) && !g_ascii_isdigit (c))
        {
          gsize end = i;
          TildeMirToken token;
          while (end < len && is_word_char (line[end]))
            end++;
          if (classify_word (line, len, i, end, &token))
            func (token, i, end, user_data);
          i = end;
        }
      else if (starts_number (line, len, i)
               && (i == 0 || !(is_word_char (line[i - 1]) || line[i - 1] == '.')))
        {
          gboolean real;
          gsize end = scan_number (line, len, i, &real);
          gboolean glued = end < len && (is_word_char (line[end]) || line[end] == '.');
          if (!glued)
            func (real ? TILDE_MIR_TOKEN_REAL : TILDE_MIR_TOKEN_DECIMAL, i, end, user_data);
          while (end < len && (is_word_char (line[end]) || line[end] == '.'))
            end++;
          i = end;
        }
      else
        i++;
    }
}

const char *
tilde_mir_token_style_id (TildeMirToken token)
{
  static const char *const ids[TILDE_MIR_N_TOKENS] = {
    [TILDE_MIR_TOKEN_COMMENT] = "def:comment",
    [TILDE_MIR_TOKEN_STRING] = "def:string",
    [TILDE_MIR_TOKEN_PART] = "def:preprocessor",
    [TILDE_MIR_TOKEN_KEYWORD] = "def:preprocessor",
    [TILDE_MIR_TOKEN_TYPE] = "def:identifier",
    [TILDE_MIR_TOKEN_INTERNAL] = "def:function",
    [TILDE_MIR_TOKEN_DECIMAL] = "def:decimal",
    [TILDE_MIR_TOKEN_REAL] = "def:floating-point",
  };

  g_return_val_if_fail (token < TILDE_MIR_N_TOKENS, NULL);
  return ids[token];
}
