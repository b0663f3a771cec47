/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Data laid out by io/json-format.h: the layout of a small file to the
 * character; long arrays filled to 80 columns; and, for the example data,
 * the reference data sets where they are beside the checkout, and
 * generated documents, that only whitespace outside strings and comments
 * changed, that the result reads as the same data, and that laying it out
 * again changes nothing. Also the tokens the layout reads, with and
 * without comments.
 */
#include <json-glib/json-glib.h>
#include <string.h>

#include "io/json-data.h"
#include "io/json-format.h"
#include "io/json-locate.h"

static char *
format (const char *text)
{
  g_autoptr(GError) error = NULL;
  gsize len;
  char *out = tilde_json_format (text, strlen (text), &len, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (strlen (out), ==, len);
  return out;
}

/* The text without the blanks between tokens: strings and comments as
 * they are. */
static char *
tokens_of (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p; p++)
    {
      if (*p == '"' || *p == '\'')
        {
          char quote = *p;
          g_string_append_c (out, *p++);
          while (*p && *p != quote)
            {
              if (*p == '\\' && quote == '"' && p[1])
                g_string_append_c (out, *p++);
              g_string_append_c (out, *p++);
            }
          if (!*p)
            break;
          g_string_append_c (out, *p);
        }
      else if (p[0] == '/' && p[1] == '*')
        {
          const char *end = strstr (p + 2, "*/");
          end = end ? end + 2 : p + strlen (p);
          g_string_append_len (out, p, end - p);
          p = end - 1;
        }
      else if (!g_ascii_isspace (*p))
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static void
assert_longest_line_at_most (const char *text, gsize width)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i]; i++)
    if (strlen (lines[i]) > width)
      g_error ("line %u has %zu characters: %s", i + 1, strlen (lines[i]), lines[i]);
}

/* Same tokens, same data (each variable as the summary describes it and
 * as json-glib reads it), and a second layout changes nothing. */
static void
assert_only_layout_changed (const char *text)
{
  g_autofree char *formatted = format (text);
  g_autofree char *again = format (formatted);
  g_autofree char *before = tokens_of (text);
  g_autofree char *after = tokens_of (formatted);

  g_assert_cmpstr (before, ==, after);
  g_assert_cmpstr (again, ==, formatted);

  g_autoptr(TildeJsonData) a = tilde_json_data_new_from_string (text, -1, NULL);
  g_autoptr(TildeJsonData) b = tilde_json_data_new_from_string (formatted, -1, NULL);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_auto(GStrv) names_a = tilde_json_data_names (a);
  g_auto(GStrv) names_b = tilde_json_data_names (b);
  g_assert_cmpstrv (names_a, names_b);
  for (guint i = 0; names_a[i]; i++)
    {
      g_autofree char *da = tilde_json_data_describe (a, names_a[i]);
      g_autofree char *db = tilde_json_data_describe (b, names_a[i]);
      g_assert_cmpstr (da, ==, db);
    }

  /* an independent reader: the same tree, printed the same */
  g_autoptr(JsonParser) pa = json_parser_new ();
  g_autoptr(JsonParser) pb = json_parser_new ();
  g_assert_true (json_parser_load_from_data (pa, text, -1, NULL));
  g_assert_true (json_parser_load_from_data (pb, formatted, -1, NULL));
  g_autofree char *ta = json_to_string (json_parser_get_root (pa), FALSE);
  g_autofree char *tb = json_to_string (json_parser_get_root (pb), FALSE);
  g_assert_cmpstr (ta, ==, tb);
}

static void
test_layout (void)
{
  g_autofree char *out =
    format ("{\"N\":3,\"y\":[1,2.50,-3e2],\"X\":[[1,2],[3,4]],\"e\":[],\"o\":{},"
            "\"t\":{\"1\":1,\"2\":[true,null]},\"s\":'it is'}");

  g_assert_cmpstr (out, ==,
                   "{\n"
                   "  \"N\": 3,\n"
                   "  \"y\": [1, 2.50, -3e2],\n"
                   "  \"X\": [\n"
                   "    [1, 2],\n"
                   "    [3, 4]\n"
                   "  ],\n"
                   "  \"e\": [],\n"
                   "  \"o\": {},\n"
                   "  \"t\": {\n"
                   "    \"1\": 1,\n"
                   "    \"2\": [true, null]\n"
                   "  },\n"
                   "  \"s\": 'it is'\n"
                   "}\n");
}

/* A file on one line, as JSON writers make them, comes out in lines of 80
 * columns at most, numbers filled one level in. */
static void
test_long_arrays_filled (void)
{
  g_autoptr(GString) text = g_string_new ("{\"N\": 1000, \"y\": [");

  for (int i = 0; i < 1000; i++)
    g_string_append_printf (text, "%s%.6f", i ? ", " : "", (i * 37 % 1001) / 7.0 - 70);
  g_string_append (text, "], \"M\": [");
  for (int r = 0; r < 20; r++)
    {
      g_string_append (text, r ? ", [" : "[");
      for (int k = 0; k < 30; k++)
        g_string_append_printf (text, "%s%d", k ? ", " : "", r * 1000 + k);
      g_string_append (text, "]");
    }
  g_string_append (text, "]}");

  g_autofree char *out = format (text->str);
  assert_longest_line_at_most (out, 80);
  g_assert_true (g_str_has_prefix (out, "{\n  \"N\": 1000,\n  \"y\": [\n    -70.000000, "));
  g_assert_nonnull (strstr (out, "  \"M\": [\n    [\n      0, 1, 2, "));
  assert_only_layout_changed (text->str);
}

/* A comment stays before the token it came before; blank text stays
 * blank, comments alone stay. */
static void
test_comments_kept (void)
{
  g_autofree char *out = format ("/* data */ {\"N\": /* rows */ 2, \"y\": [1, /* two */ 2]} /* end */");

  g_assert_cmpstr (out, ==,
                   "/* data */ {\n"
                   "  \"N\": /* rows */ 2,\n"
                   "  \"y\": [\n"
                   "    1,\n"
                   "    /* two */ 2\n"
                   "  ]\n"
                   "} /* end */\n");
  assert_only_layout_changed ("/* data */ {\"N\": /* rows */ 2, \"y\": [1, /* two */ 2]} /* end */");
  /* comments before commas, colons and closing brackets stay before them */
  g_autofree char *odd = format ("{\"a\" /*k*/ : [1 /*c*/, 2 /*e*/], \"b\": {\"c\": 1 /*f*/} /*g*/, \"d\": 2}");
  g_assert_cmpstr (odd, ==,
                   "{\n"
                   "  \"a\" /*k*/ : [\n"
                   "    1 /*c*/ ,\n"
                   "    2\n"
                   "  /*e*/ ],\n"
                   "  \"b\": {\n"
                   "    \"c\": 1\n"
                   "  /*f*/ } /*g*/ ,\n"
                   "  \"d\": 2\n"
                   "}\n");
  assert_only_layout_changed ("{\"a\" /*k*/ : [1 /*c*/, 2 /*e*/], \"b\": {\"c\": 1 /*f*/} /*g*/, \"d\": 2}");
  g_autofree char *blank = format ("  \n ");
  g_assert_cmpstr (blank, ==, "");
  g_autofree char *only = format ("/* nothing yet */");
  g_assert_cmpstr (only, ==, "/* nothing yet */\n");
}

/* Text that is not data is refused with the check's error and place. */
static void
test_errors (void)
{
  g_autoptr(GError) error = NULL;
  gsize len;

  g_assert_null (tilde_json_format ("{\"N\": 1,\n \"y\": [1 2]}", 22, &len, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_assert_true (g_str_has_prefix (error->message, "<data>:2:"));
}

static void
test_example_and_reference_data (void)
{
  const char *dirs[] = { g_getenv ("TILDE_EXAMPLES_DIR"), g_getenv ("TILDE_REFERENCE_DIR") };
  guint n = 0;

  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autoptr(GDir) dir = dirs[d] ? g_dir_open (dirs[d], 0, NULL) : NULL;
      const char *name;

      while (dir && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (dirs[d], name, NULL);
          g_autofree char *inner = g_build_filename (path, "data.json", NULL);
          const char *file = g_str_has_suffix (name, ".json") ? path : inner;
          g_autofree char *text = NULL;

          if (!g_file_get_contents (file, &text, NULL, NULL))
            continue;
          assert_only_layout_changed (text);
          n++;
        }
    }
  g_test_message ("%u data files laid out", n);
  g_assert_cmpuint (n, >=, 3);
}

/* Nested documents of every kind of value, with comments here and there,
 * from a fixed seed. */
static void
generate (GRand *rand, GString *out, int depth)
{
  /* now and then a comment before the value */
  if (g_rand_int_range (rand, 0, 10) == 0)
    g_string_append (out, g_rand_boolean (rand) ? "/* c */ " : "/*d*/");
  int kind = g_rand_int_range (rand, 0, depth > 4 ? 3 : depth > 2 ? 4 : 6);

  switch (kind)
    {
    case 0:
      g_string_append_printf (out, "%d", g_rand_int_range (rand, -1000, 1000));
      break;
    case 1:
      g_string_append_printf (out, "%.17g", g_rand_double_range (rand, -1e6, 1e6));
      break;
    case 2:
      g_string_append (out, g_rand_boolean (rand) ? "\"a \\\"b\\\" \\u00e9\"" : "null");
      break;
    case 3:
    case 4:
      {
        int n = g_rand_int_range (rand, 0, kind == 3 ? 40 : 5);
        g_string_append_c (out, '[');
        for (int i = 0; i < n; i++)
          {
            if (i)
              g_string_append (out, g_rand_int_range (rand, 0, 10) == 0 ? " /* e */," :
                                    g_rand_boolean (rand) ? "," : " ,\n ");
            generate (rand, out, depth + 1);
          }
        g_string_append_c (out, ']');
        break;
      }
    default:
      {
        int n = g_rand_int_range (rand, 0, 4);
        g_string_append_c (out, '{');
        for (int i = 0; i < n; i++)
          {
            g_string_append_printf (out, "%s\"k%d\":", i ? "," : "", i);
            generate (rand, out, depth + 1);
          }
        g_string_append_c (out, '}');
      }
    }
}

static void
test_generated_documents (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261124);

  for (int i = 0; i < 500; i++)
    {
      g_autoptr(GString) text = g_string_new ("{\"v\": ");
      generate (rand, text, 0);
      g_string_append (text, ", \"w\": ");
      generate (rand, text, 0);
      g_string_append_c (text, '}');
      assert_only_layout_changed (text->str);
    }
}

/* The kinds and texts of the tokens of `text`, one "KIND:text" a line. */
static char *
token_list (const char *text, gboolean comments)
{
  static const char *const names[] = {
    [TILDE_JSON_TOKEN_END] = "end", [TILDE_JSON_TOKEN_OPEN_OBJECT] = "{",
    [TILDE_JSON_TOKEN_CLOSE_OBJECT] = "}", [TILDE_JSON_TOKEN_OPEN_ARRAY] = "[",
    [TILDE_JSON_TOKEN_CLOSE_ARRAY] = "]", [TILDE_JSON_TOKEN_COLON] = ":",
    [TILDE_JSON_TOKEN_COMMA] = ",", [TILDE_JSON_TOKEN_STRING] = "string",
    [TILDE_JSON_TOKEN_NUMBER] = "number", [TILDE_JSON_TOKEN_WORD] = "word",
    [TILDE_JSON_TOKEN_COMMENT] = "comment", [TILDE_JSON_TOKEN_OPEN_STRING] = "open-string",
    [TILDE_JSON_TOKEN_OPEN_COMMENT] = "open-comment", [TILDE_JSON_TOKEN_OTHER] = "other",
  };
  GString *out = g_string_new (NULL);
  gsize len = strlen (text), pos = 0;

  for (;;)
    {
      TildeJsonToken t = tilde_json_next_token (text, len, pos, comments);
      g_assert_cmpuint (t.begin, >=, pos);
      g_assert_cmpuint (t.end, >=, t.begin);
      g_string_append_printf (out, "%s:%.*s\n", names[t.kind],
                              (int) (t.end - t.begin), text + t.begin);
      if (t.kind == TILDE_JSON_TOKEN_END)
        break;
      pos = t.end;
    }
  return g_string_free (out, FALSE);
}

static void
test_tokens (void)
{
  const char *text = "{ /* n */ \"N\": 3, 'y' : [-1.5e3,/*a*/-Infinity, NaN] } @";
  g_autofree char *plain = token_list (text, FALSE);
  g_autofree char *with_comments = token_list (text, TRUE);
  g_autofree char *open_comment = token_list ("[1, /* unclosed", TRUE);
  g_autofree char *open_string = token_list ("\"abc", FALSE);

  g_assert_cmpstr (plain, ==,
                   "{:{\nstring:\"N\"\n:::\nnumber:3\n,:,\nstring:'y'\n:::\n[:[\n"
                   "number:-1.5e3\n,:,\nword:-Infinity\n,:,\nword:NaN\n]:]\n}:}\n"
                   "other:@\nend:\n");
  g_assert_cmpstr (with_comments, ==,
                   "{:{\ncomment:/* n */\nstring:\"N\"\n:::\nnumber:3\n,:,\nstring:'y'\n"
                   ":::\n[:[\nnumber:-1.5e3\n,:,\ncomment:/*a*/\nword:-Infinity\n,:,\n"
                   "word:NaN\n]:]\n}:}\nother:@\nend:\n");
  g_assert_cmpstr (open_comment, ==, "[:[\nnumber:1\n,:,\nopen-comment:/* unclosed\nend:\n");
  g_assert_cmpstr (open_string, ==, "open-string:\"abc\nend:\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/io/json-format/tokens", test_tokens);
  g_test_add_func ("/io/json-format/layout", test_layout);
  g_test_add_func ("/io/json-format/long-arrays-filled", test_long_arrays_filled);
  g_test_add_func ("/io/json-format/comments-kept", test_comments_kept);
  g_test_add_func ("/io/json-format/errors", test_errors);
  g_test_add_func ("/io/json-format/example-and-reference-data", test_example_and_reference_data);
  g_test_add_func ("/io/json-format/generated-documents", test_generated_documents);
  return g_test_run ();
}
