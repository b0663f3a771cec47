/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "syntax/lexer.h"

typedef struct {
  TildeSourceSet *set;
  GPtrArray      *diags;
  GArray         *comments;
  GArray         *tokens;     /* TildeToken */
} Lexed;

static void
lexed_free (Lexed *l)
{
  tilde_source_set_unref (l->set);
  g_ptr_array_unref (l->diags);
  g_array_unref (l->comments);
  g_array_unref (l->tokens);
  g_free (l);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Lexed, lexed_free)

static Lexed *
lex (const char *text)
{
  Lexed *l = g_new0 (Lexed, 1);
  TildeLexer *lexer;
  TildeToken tok;

  l->set = tilde_source_set_new ();
  l->diags = tilde_diagnostic_list_new ();
  l->comments = g_array_new (FALSE, FALSE, sizeof (TildeComment));
  l->tokens = g_array_new (FALSE, FALSE, sizeof (TildeToken));
  tilde_source_set_set_main_buffer (l->set, "test.stan", NULL, text, -1);
  lexer = tilde_lexer_new (l->set, tilde_source_set_get_main (l->set), l->diags, l->comments);
  do
    {
      tilde_lexer_next (lexer, &tok);
      g_array_append_val (l->tokens, tok);
    }
  while (tok.kind != TILDE_TOK_EOF && l->tokens->len < 10000);
  tilde_lexer_free (lexer);
  return l;
}

static TildeToken *
token (Lexed *l, guint i)
{
  g_assert_cmpuint (i, <, l->tokens->len);
  return &g_array_index (l->tokens, TildeToken, i);
}

static void
assert_token (Lexed *l, guint i, TildeTokenKind kind, const char *text)
{
  TildeToken *t = token (l, i);
  g_autofree char *got = g_strndup (t->text, t->length);

  g_assert_cmpstr (tilde_token_kind_to_string (t->kind), ==, tilde_token_kind_to_string (kind));
  g_assert_cmpint (t->kind, ==, kind);
  g_assert_cmpstr (got, ==, text);
}

/* Lexes `text` as exactly one token followed by the end. */
static void
assert_single (const char *text, TildeTokenKind kind)
{
  g_autoptr(Lexed) l = lex (text);

  g_assert_cmpuint (l->diags->len, ==, 0);
  g_assert_cmpuint (l->tokens->len, ==, 2);
  assert_token (l, 0, kind, text);
  g_assert_cmpint (token (l, 1)->kind, ==, TILDE_TOK_EOF);
}

static void
test_int_literals (void)
{
  assert_single ("0", TILDE_TOK_INT_LIT);
  assert_single ("42", TILDE_TOK_INT_LIT);
  assert_single ("1_000_000", TILDE_TOK_INT_LIT);
}

static void
test_real_literals (void)
{
  assert_single ("1.5", TILDE_TOK_REAL_LIT);
  assert_single ("1.", TILDE_TOK_REAL_LIT);
  assert_single ("1e3", TILDE_TOK_REAL_LIT);
  assert_single ("1E+3", TILDE_TOK_REAL_LIT);
  assert_single ("2.5e-10", TILDE_TOK_REAL_LIT);
  assert_single ("1_000.000_5e1_0", TILDE_TOK_REAL_LIT);
  assert_single (".5e3", TILDE_TOK_REAL_LIT);
  /* ".5" alone is a real literal or, after an expression, a tuple index. */
  assert_single (".5", TILDE_TOK_DOT_NUMERAL);
}

static void
test_imaginary_literals (void)
{
  assert_single ("2i", TILDE_TOK_IMAG_LIT);
  assert_single ("1.5e3i", TILDE_TOK_IMAG_LIT);
  assert_single (".5i", TILDE_TOK_IMAG_LIT);
  assert_single ("3.i", TILDE_TOK_IMAG_LIT);
}

static void
test_number_edges (void)
{
  g_autoptr(Lexed) exp = lex ("1e");
  g_autoptr(Lexed) under = lex ("1__0");
  g_autoptr(Lexed) elt = lex ("3.*x");

  /* An "e" without digits is not an exponent. */
  assert_token (exp, 0, TILDE_TOK_INT_LIT, "1");
  assert_token (exp, 1, TILDE_TOK_IDENT, "e");
  /* Underscores only separate digits. */
  assert_token (under, 0, TILDE_TOK_INT_LIT, "1");
  /* Longest match, as in stanc: "3." is a real literal. */
  assert_token (elt, 0, TILDE_TOK_REAL_LIT, "3.");
  assert_token (elt, 1, TILDE_TOK_TIMES, "*");
}

static void
test_strings (void)
{
  assert_single ("\"hello, world\"", TILDE_TOK_STRING_LIT);
  assert_single ("\"\"", TILDE_TOK_STRING_LIT);
}

static void
test_identifiers_and_keywords (void)
{
  g_autoptr(Lexed) l = lex ("x T jacobian x_1 alpha__ real vector array tuple lower "
                            "target print fatal_error sum_to_zero_matrix in profile");

  assert_token (l, 0, TILDE_TOK_IDENT, "x");
  assert_token (l, 1, TILDE_TOK_IDENT, "T");
  assert_token (l, 2, TILDE_TOK_IDENT, "jacobian");
  assert_token (l, 3, TILDE_TOK_IDENT, "x_1");
  assert_token (l, 4, TILDE_TOK_IDENT, "alpha__");
  assert_token (l, 5, TILDE_TOK_REAL, "real");
  assert_token (l, 6, TILDE_TOK_VECTOR, "vector");
  assert_token (l, 7, TILDE_TOK_ARRAY, "array");
  assert_token (l, 8, TILDE_TOK_TUPLE, "tuple");
  assert_token (l, 9, TILDE_TOK_LOWER, "lower");
  assert_token (l, 10, TILDE_TOK_TARGET, "target");
  assert_token (l, 11, TILDE_TOK_PRINT, "print");
  assert_token (l, 12, TILDE_TOK_FATAL_ERROR, "fatal_error");
  assert_token (l, 13, TILDE_TOK_SUM_TO_ZERO_MATRIX, "sum_to_zero_matrix");
  assert_token (l, 14, TILDE_TOK_IN, "in");
  assert_token (l, 15, TILDE_TOK_PROFILE, "profile");
  g_assert_true (tilde_token_kind_is_keyword (TILDE_TOK_UPPER));
  g_assert_false (tilde_token_kind_is_keyword (TILDE_TOK_IDENT));
  g_assert_true (tilde_token_kind_is_type_keyword (TILDE_TOK_COV_MATRIX));
}

static void
test_block_headers (void)
{
  g_autoptr(Lexed) l = lex ("transformed data transformed\tparameters generated  quantities "
                            "transformed\ndata transformedx");

  assert_token (l, 0, TILDE_TOK_TRANSFORMED_DATA, "transformed data");
  assert_token (l, 1, TILDE_TOK_TRANSFORMED_PARAMETERS, "transformed\tparameters");
  assert_token (l, 2, TILDE_TOK_GENERATED_QUANTITIES, "generated  quantities");
  /* A newline between the words makes two tokens. */
  assert_token (l, 3, TILDE_TOK_IDENT, "transformed");
  assert_token (l, 4, TILDE_TOK_DATA, "data");
  assert_token (l, 5, TILDE_TOK_IDENT, "transformedx");
}

static void
test_operators (void)
{
  static const struct { const char *text; TildeTokenKind kind; } ops[] = {
    { "+", TILDE_TOK_PLUS }, { "-", TILDE_TOK_MINUS }, { "*", TILDE_TOK_TIMES },
    { "/", TILDE_TOK_DIVIDE }, { "%", TILDE_TOK_MODULO }, { "%/%", TILDE_TOK_IDIVIDE },
    { "\\", TILDE_TOK_LDIVIDE }, { ".*", TILDE_TOK_ELTTIMES }, { "./", TILDE_TOK_ELTDIVIDE },
    { "^", TILDE_TOK_HAT }, { ".^", TILDE_TOK_ELTPOW }, { "'", TILDE_TOK_TRANSPOSE },
    { "!", TILDE_TOK_BANG }, { "&&", TILDE_TOK_AND }, { "||", TILDE_TOK_OR },
    { "==", TILDE_TOK_EQUALS }, { "!=", TILDE_TOK_NEQUALS }, { "<", TILDE_TOK_LABRACK },
    { "<=", TILDE_TOK_LEQ }, { ">", TILDE_TOK_RABRACK }, { ">=", TILDE_TOK_GEQ },
    { "?", TILDE_TOK_QMARK }, { ":", TILDE_TOK_COLON }, { "~", TILDE_TOK_TILDE },
    { "=", TILDE_TOK_ASSIGN }, { "+=", TILDE_TOK_PLUSASSIGN }, { "-=", TILDE_TOK_MINUSASSIGN },
    { "*=", TILDE_TOK_TIMESASSIGN }, { "/=", TILDE_TOK_DIVIDEASSIGN },
    { ".*=", TILDE_TOK_ELTTIMESASSIGN }, { "./=", TILDE_TOK_ELTDIVIDEASSIGN },
    { "(", TILDE_TOK_LPAREN }, { ")", TILDE_TOK_RPAREN }, { "[", TILDE_TOK_LBRACK },
    { "]", TILDE_TOK_RBRACK }, { "{", TILDE_TOK_LBRACE }, { "}", TILDE_TOK_RBRACE },
    { ",", TILDE_TOK_COMMA }, { ";", TILDE_TOK_SEMICOLON }, { "|", TILDE_TOK_BAR },
    { "@", TILDE_TOK_AT },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (ops); i++)
    assert_single (ops[i].text, ops[i].kind);
}

static void
test_transpose_and_arrow (void)
{
  g_autoptr(Lexed) t = lex ("x'*y''");
  g_autoptr(Lexed) a = lex ("x <-1");

  assert_token (t, 0, TILDE_TOK_IDENT, "x");
  assert_token (t, 1, TILDE_TOK_TRANSPOSE, "'");
  assert_token (t, 2, TILDE_TOK_TIMES, "*");
  assert_token (t, 4, TILDE_TOK_TRANSPOSE, "'");
  assert_token (t, 5, TILDE_TOK_TRANSPOSE, "'");
  /* The removed "<-" is two tokens; the parser explains it. */
  assert_token (a, 1, TILDE_TOK_LABRACK, "<");
  assert_token (a, 2, TILDE_TOK_MINUS, "-");
  g_assert_false (token (a, 2)->space_before);
  g_assert_true (token (a, 1)->space_before);
}

static void
test_positions (void)
{
  g_autoptr(Lexed) l = lex ("data {\n  int N;\r\n\treal x;\r  }");
  TildeToken *n = token (l, 3);
  TildeToken *x = token (l, 6);
  TildeToken *close = token (l, 8);

  g_assert_cmpint (n->span.begin_line, ==, 2);
  g_assert_cmpint (n->span.begin_column, ==, 6);
  g_assert_cmpint (n->span.end_column, ==, 7);
  g_assert_cmpint (x->span.begin_line, ==, 3);
  g_assert_cmpint (x->span.begin_column, ==, 6);       /* a tab counts one column */
  g_assert_cmpint (close->span.begin_line, ==, 4);      /* a lone \r ends a line */
  g_assert_cmpint (close->span.begin_column, ==, 2);
  g_assert_cmpuint (close->span.begin_offset, ==, strlen ("data {\n  int N;\r\n\treal x;\r  "));
}

static void
test_comments (void)
{
  g_autoptr(Lexed) l = lex ("// one\nx /* two\nlines */ y // three");
  TildeComment *c;

  g_assert_cmpuint (l->comments->len, ==, 3);
  c = &g_array_index (l->comments, TildeComment, 0);
  g_assert_cmpint (c->kind, ==, TILDE_COMMENT_LINE);
  g_assert_cmpint ((int) c->length, ==, 6);
  c = &g_array_index (l->comments, TildeComment, 1);
  g_assert_cmpint (c->kind, ==, TILDE_COMMENT_BLOCK);
  g_assert_cmpint (c->span.begin_line, ==, 2);
  g_assert_cmpint (c->span.begin_column, ==, 2);
  g_assert_cmpint (c->span.end_line, ==, 3);
  g_assert_cmpint (c->span.end_column, ==, 8);
  assert_token (l, 1, TILDE_TOK_IDENT, "y");
  g_assert_cmpint (token (l, 1)->span.begin_line, ==, 3);
  g_assert_cmpint (token (l, 1)->span.begin_column, ==, 9);
}

static void
assert_lexing_error (const char *text, int line, int column, const char *message, guint count)
{
  g_autoptr(Lexed) l = lex (text);
  TildeDiagnostic *d;

  g_assert_cmpuint (l->diags->len, ==, count);
  d = g_ptr_array_index (l->diags, 0);
  g_assert_cmpint (d->kind, ==, TILDE_DIAG_LEXING);
  g_assert_cmpint (d->begin_line, ==, line);
  g_assert_cmpint (d->begin_column, ==, column);
  g_assert_cmpstr (d->message, ==, message);
}

static void
test_lexing_errors (void)
{
  assert_lexing_error ("data {\n  # old comment\n}", 2, 2, "Invalid character found.", 1);
  assert_lexing_error ("x $ y", 1, 2, "Invalid character found.", 1);
  assert_lexing_error ("print(\"unterminated\n);", 1, 6, "Invalid character found.", 1);
  /* One diagnostic per character, not per byte. */
  assert_lexing_error ("real \xc3\xa9t\xc3\xa9;", 1, 5, "Invalid character found.", 2);
  /* stanc reports an unterminated comment at the end of the input. */
  assert_lexing_error ("model {\n/* never closed\n", 3, 0, "Unexpected end of input", 1);
  assert_lexing_error ("_x", 1, 0, "Invalid character found.", 1);
}

static void
test_reserved_identifiers (void)
{
  /* Names stanc lexes as identifiers but refuses to declare. */
  g_assert_true (tilde_identifier_is_reserved ("lp__"));
  g_assert_true (tilde_identifier_is_reserved ("y__"));
  g_assert_true (tilde_identifier_is_reserved ("true"));
  g_assert_true (tilde_identifier_is_reserved ("generated"));
  g_assert_true (tilde_identifier_is_reserved ("auto"));
  g_assert_false (tilde_identifier_is_reserved ("y_"));
  g_assert_false (tilde_identifier_is_reserved ("jacobian"));
  g_assert_false (tilde_identifier_is_reserved ("truth"));
}

static void
test_recovers_after_error (void)
{
  g_autoptr(Lexed) l = lex ("a $ b");

  assert_token (l, 0, TILDE_TOK_IDENT, "a");
  assert_token (l, 1, TILDE_TOK_IDENT, "b");
  g_assert_true (token (l, 1)->space_before);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/lexer/int-literals", test_int_literals);
  g_test_add_func ("/engine/lexer/real-literals", test_real_literals);
  g_test_add_func ("/engine/lexer/imaginary-literals", test_imaginary_literals);
  g_test_add_func ("/engine/lexer/number-edges", test_number_edges);
  g_test_add_func ("/engine/lexer/strings", test_strings);
  g_test_add_func ("/engine/lexer/identifiers-and-keywords", test_identifiers_and_keywords);
  g_test_add_func ("/engine/lexer/block-headers", test_block_headers);
  g_test_add_func ("/engine/lexer/operators", test_operators);
  g_test_add_func ("/engine/lexer/transpose-and-arrow", test_transpose_and_arrow);
  g_test_add_func ("/engine/lexer/positions", test_positions);
  g_test_add_func ("/engine/lexer/comments", test_comments);
  g_test_add_func ("/engine/lexer/errors", test_lexing_errors);
  g_test_add_func ("/engine/lexer/reserved-identifiers", test_reserved_identifiers);
  g_test_add_func ("/engine/lexer/recovers-after-error", test_recovers_after_error);
  return g_test_run ();
}
