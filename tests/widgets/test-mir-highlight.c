/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-tests"

#include <string.h>

#include "tilde-mir-highlight.h"

/* Renders a line's tokens as "class:text" words, so each case reads as the
 * classes the MIR language definition gives those pieces of text. */
static const char *const names[TILDE_MIR_N_TOKENS] = {
  "comment", "string", "part", "keyword", "type", "internal", "decimal", "real",
};

static void
append_token (TildeMirToken token, gsize start, gsize end, gpointer user_data)
{
  GString **pair = user_data;

  if (pair[1]->len > 0)
    g_string_append_c (pair[1], ' ');
  g_string_append_printf (pair[1], "%s:%.*s", names[token],
                          (int) (end - start), pair[0]->str + start);
}

static char *
tokens_of (const char *line)
{
  GString *pair[2] = { g_string_new (line), g_string_new (NULL) };

  tilde_mir_highlight_line (line, strlen (line), append_token, pair);
  g_string_free (pair[0], TRUE);
  return g_string_free (pair[1], FALSE);
}

static void
check (const char *line, const char *expected)
{
  g_autofree char *got = tokens_of (line);
  g_assert_cmpstr (got, ==, expected);
}

static void
test_parts (void)
{
  check ("log_prob {", "part:log_prob");
  check ("prepare_data{", "part:prepare_data");
  /* Not at the start of the line, or with no brace: a plain name. */
  check ("  log_prob {", "");
  check ("log_prob = 1;", "decimal:1");
}

static void
test_keywords_and_types (void)
{
  check ("  for(i in 1:N) {", "keyword:for keyword:in decimal:1");
  check ("  if (x) return; else break;", "keyword:if keyword:return keyword:else keyword:break");
  check ("  data array[int, N] y;", "keyword:data type:array type:int");
  check ("  vector[K] beta_vector;", "type:vector");
  check ("  complex_row_vector z; intx realy;", "type:complex_row_vector");
}

static void
test_internal_functions (void)
{
  check ("  y = FnReadData__(\"y\");", "internal:FnReadData__ string:\"y\"");
  check ("  FnValidateSize(N);", "internal:FnValidateSize");
  check ("  target += PNot__(a) + Plus__(b);", "keyword:target internal:PNot__ internal:Plus__");
  /* One underscore, or a Fn prefix glued to digits, is a user's name. */
  check ("  foo_(x); Fn2(y); Fnord_x(z);", "");
}

static void
test_numbers (void)
{
  check ("x = 42;", "decimal:42");
  check ("x = 3.25 + .5 + 1e-3 + 2.;", "real:3.25 real:.5 real:1e-3 real:2.");
  check ("x = 6.02E+23;", "real:6.02E+23");
  /* Digits inside a name or glued to one are not numbers. */
  check ("x1 = y_2 + 3x + a.5;", "");
  check ("sigma2e = 1e;", "");
}

static void
test_comments_and_strings (void)
{
  check ("x = 1; // 2 for while", "decimal:1 comment:// 2 for while");
  check ("print(\"for // 1\"); // tail", "string:\"for // 1\" comment:// tail");
  check ("reject(\"open", "string:\"open");
  check ("", "");
}

static void
test_style_ids (void)
{
  g_assert_cmpstr (tilde_mir_token_style_id (TILDE_MIR_TOKEN_COMMENT), ==, "def:comment");
  g_assert_cmpstr (tilde_mir_token_style_id (TILDE_MIR_TOKEN_INTERNAL), ==, "def:function");
  for (int t = 0; t < TILDE_MIR_N_TOKENS; t++)
    g_assert_true (g_str_has_prefix (tilde_mir_token_style_id (t), "def:"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/mir-highlight/parts", test_parts);
  g_test_add_func ("/widgets/mir-highlight/keywords-and-types", test_keywords_and_types);
  g_test_add_func ("/widgets/mir-highlight/internal-functions", test_internal_functions);
  g_test_add_func ("/widgets/mir-highlight/numbers", test_numbers);
  g_test_add_func ("/widgets/mir-highlight/comments-and-strings", test_comments_and_strings);
  g_test_add_func ("/widgets/mir-highlight/style-ids", test_style_ids);
  return g_test_run ();
}
