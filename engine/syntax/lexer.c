/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "lexer.h"

#include <string.h>

typedef struct {
  const TildeSourceFile *file;
  const char            *text;
  gsize                  length;
  gsize                  pos;
  int                    line;
  gsize                  line_start;
} Frame;

struct TildeLexer {
  TildeSourceSet *set;
  GArray         *frames;        /* Frame, innermost last */
  GPtrArray      *diagnostics;
  GArray         *comments;
};

typedef struct {
  const char    *word;
  TildeTokenKind kind;
} Keyword;

/* Reserved words of Stan 2.36. "T" and "jacobian" are identifiers that the
 * parser treats specially where they mean truncation or the Jacobian. */
static const Keyword keywords[] = {
  { "functions", TILDE_TOK_FUNCTIONS },
  { "data", TILDE_TOK_DATA },
  { "parameters", TILDE_TOK_PARAMETERS },
  { "model", TILDE_TOK_MODEL },
  { "return", TILDE_TOK_RETURN },
  { "if", TILDE_TOK_IF },
  { "else", TILDE_TOK_ELSE },
  { "while", TILDE_TOK_WHILE },
  { "for", TILDE_TOK_FOR },
  { "in", TILDE_TOK_IN },
  { "break", TILDE_TOK_BREAK },
  { "continue", TILDE_TOK_CONTINUE },
  { "profile", TILDE_TOK_PROFILE },
  { "void", TILDE_TOK_VOID },
  { "int", TILDE_TOK_INT },
  { "real", TILDE_TOK_REAL },
  { "complex", TILDE_TOK_COMPLEX },
  { "vector", TILDE_TOK_VECTOR },
  { "row_vector", TILDE_TOK_ROW_VECTOR },
  { "matrix", TILDE_TOK_MATRIX },
  { "complex_vector", TILDE_TOK_COMPLEX_VECTOR },
  { "complex_row_vector", TILDE_TOK_COMPLEX_ROW_VECTOR },
  { "complex_matrix", TILDE_TOK_COMPLEX_MATRIX },
  { "array", TILDE_TOK_ARRAY },
  { "tuple", TILDE_TOK_TUPLE },
  { "ordered", TILDE_TOK_ORDERED },
  { "positive_ordered", TILDE_TOK_POSITIVE_ORDERED },
  { "simplex", TILDE_TOK_SIMPLEX },
  { "unit_vector", TILDE_TOK_UNIT_VECTOR },
  { "sum_to_zero_vector", TILDE_TOK_SUM_TO_ZERO_VECTOR },
  { "sum_to_zero_matrix", TILDE_TOK_SUM_TO_ZERO_MATRIX },
  { "cholesky_factor_corr", TILDE_TOK_CHOLESKY_FACTOR_CORR },
  { "cholesky_factor_cov", TILDE_TOK_CHOLESKY_FACTOR_COV },
  { "corr_matrix", TILDE_TOK_CORR_MATRIX },
  { "cov_matrix", TILDE_TOK_COV_MATRIX },
  { "column_stochastic_matrix", TILDE_TOK_COLUMN_STOCHASTIC_MATRIX },
  { "row_stochastic_matrix", TILDE_TOK_ROW_STOCHASTIC_MATRIX },
  { "lower", TILDE_TOK_LOWER },
  { "upper", TILDE_TOK_UPPER },
  { "offset", TILDE_TOK_OFFSET },
  { "multiplier", TILDE_TOK_MULTIPLIER },
  { "target", TILDE_TOK_TARGET },
  { "print", TILDE_TOK_PRINT },
  { "reject", TILDE_TOK_REJECT },
  { "fatal_error", TILDE_TOK_FATAL_ERROR },
};

static const char *const token_strings[TILDE_N_TOKEN_KINDS] = {
  [TILDE_TOK_EOF] = "<EOF>",
  [TILDE_TOK_IDENT] = "identifier",
  [TILDE_TOK_INT_LIT] = "integer literal",
  [TILDE_TOK_REAL_LIT] = "real literal",
  [TILDE_TOK_DOT_NUMERAL] = "real literal",
  [TILDE_TOK_IMAG_LIT] = "imaginary literal",
  [TILDE_TOK_STRING_LIT] = "string literal",
  [TILDE_TOK_FUNCTIONS] = "functions",
  [TILDE_TOK_DATA] = "data",
  [TILDE_TOK_TRANSFORMED_DATA] = "transformed data",
  [TILDE_TOK_PARAMETERS] = "parameters",
  [TILDE_TOK_TRANSFORMED_PARAMETERS] = "transformed parameters",
  [TILDE_TOK_MODEL] = "model",
  [TILDE_TOK_GENERATED_QUANTITIES] = "generated quantities",
  [TILDE_TOK_LBRACE] = "{", [TILDE_TOK_RBRACE] = "}",
  [TILDE_TOK_LPAREN] = "(", [TILDE_TOK_RPAREN] = ")",
  [TILDE_TOK_LBRACK] = "[", [TILDE_TOK_RBRACK] = "]",
  [TILDE_TOK_LABRACK] = "<", [TILDE_TOK_RABRACK] = ">",
  [TILDE_TOK_COMMA] = ",", [TILDE_TOK_SEMICOLON] = ";",
  [TILDE_TOK_BAR] = "|", [TILDE_TOK_AT] = "@",
  [TILDE_TOK_RETURN] = "return", [TILDE_TOK_IF] = "if", [TILDE_TOK_ELSE] = "else",
  [TILDE_TOK_WHILE] = "while", [TILDE_TOK_FOR] = "for", [TILDE_TOK_IN] = "in",
  [TILDE_TOK_BREAK] = "break", [TILDE_TOK_CONTINUE] = "continue",
  [TILDE_TOK_PROFILE] = "profile",
  [TILDE_TOK_VOID] = "void", [TILDE_TOK_INT] = "int", [TILDE_TOK_REAL] = "real",
  [TILDE_TOK_COMPLEX] = "complex", [TILDE_TOK_VECTOR] = "vector",
  [TILDE_TOK_ROW_VECTOR] = "row_vector", [TILDE_TOK_MATRIX] = "matrix",
  [TILDE_TOK_COMPLEX_VECTOR] = "complex_vector",
  [TILDE_TOK_COMPLEX_ROW_VECTOR] = "complex_row_vector",
  [TILDE_TOK_COMPLEX_MATRIX] = "complex_matrix",
  [TILDE_TOK_ARRAY] = "array", [TILDE_TOK_TUPLE] = "tuple",
  [TILDE_TOK_ORDERED] = "ordered", [TILDE_TOK_POSITIVE_ORDERED] = "positive_ordered",
  [TILDE_TOK_SIMPLEX] = "simplex", [TILDE_TOK_UNIT_VECTOR] = "unit_vector",
  [TILDE_TOK_SUM_TO_ZERO_VECTOR] = "sum_to_zero_vector",
  [TILDE_TOK_SUM_TO_ZERO_MATRIX] = "sum_to_zero_matrix",
  [TILDE_TOK_CHOLESKY_FACTOR_CORR] = "cholesky_factor_corr",
  [TILDE_TOK_CHOLESKY_FACTOR_COV] = "cholesky_factor_cov",
  [TILDE_TOK_CORR_MATRIX] = "corr_matrix", [TILDE_TOK_COV_MATRIX] = "cov_matrix",
  [TILDE_TOK_COLUMN_STOCHASTIC_MATRIX] = "column_stochastic_matrix",
  [TILDE_TOK_ROW_STOCHASTIC_MATRIX] = "row_stochastic_matrix",
  [TILDE_TOK_LOWER] = "lower", [TILDE_TOK_UPPER] = "upper",
  [TILDE_TOK_OFFSET] = "offset", [TILDE_TOK_MULTIPLIER] = "multiplier",
  [TILDE_TOK_TARGET] = "target", [TILDE_TOK_PRINT] = "print",
  [TILDE_TOK_REJECT] = "reject", [TILDE_TOK_FATAL_ERROR] = "fatal_error",
  [TILDE_TOK_QMARK] = "?", [TILDE_TOK_COLON] = ":", [TILDE_TOK_BANG] = "!",
  [TILDE_TOK_MINUS] = "-", [TILDE_TOK_PLUS] = "+", [TILDE_TOK_HAT] = "^",
  [TILDE_TOK_ELTPOW] = ".^", [TILDE_TOK_TRANSPOSE] = "'", [TILDE_TOK_TIMES] = "*",
  [TILDE_TOK_DIVIDE] = "/", [TILDE_TOK_MODULO] = "%", [TILDE_TOK_IDIVIDE] = "%/%",
  [TILDE_TOK_LDIVIDE] = "\\", [TILDE_TOK_ELTTIMES] = ".*", [TILDE_TOK_ELTDIVIDE] = "./",
  [TILDE_TOK_OR] = "||", [TILDE_TOK_AND] = "&&", [TILDE_TOK_EQUALS] = "==",
  [TILDE_TOK_NEQUALS] = "!=", [TILDE_TOK_LEQ] = "<=", [TILDE_TOK_GEQ] = ">=",
  [TILDE_TOK_TILDE] = "~",
  [TILDE_TOK_ASSIGN] = "=", [TILDE_TOK_PLUSASSIGN] = "+=", [TILDE_TOK_MINUSASSIGN] = "-=",
  [TILDE_TOK_TIMESASSIGN] = "*=", [TILDE_TOK_DIVIDEASSIGN] = "/=",
  [TILDE_TOK_ELTTIMESASSIGN] = ".*=", [TILDE_TOK_ELTDIVIDEASSIGN] = "./=",
};

const char *
tilde_token_kind_to_string (TildeTokenKind kind)
{
  if ((guint) kind >= TILDE_N_TOKEN_KINDS || token_strings[kind] == NULL)
    return "?";
  return token_strings[kind];
}

gboolean
tilde_token_kind_is_keyword (TildeTokenKind kind)
{
  return (kind >= TILDE_TOK_FUNCTIONS && kind <= TILDE_TOK_GENERATED_QUANTITIES)
         || (kind >= TILDE_TOK_RETURN && kind <= TILDE_TOK_FATAL_ERROR);
}

gboolean
tilde_token_kind_is_type_keyword (TildeTokenKind kind)
{
  return kind >= TILDE_TOK_INT && kind <= TILDE_TOK_ROW_STOCHASTIC_MATRIX;
}

gboolean
tilde_identifier_is_reserved (const char *name)
{
  static const char *const words[] = {
    "generated", "quantities", "transformed", "repeat", "until", "then", "true", "false",
    "typedef", "struct", "var", "export", "extern", "static", "auto",
  };

  if (g_str_has_suffix (name, "__"))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (strcmp (name, words[i]) == 0)
      return TRUE;
  return FALSE;
}

static TildeTokenKind
keyword_kind (const char *word, gsize length)
{
  /* Keywords are 2 to 24 characters long, lower case, and rare among the
   * words of a program: most words fail the first two tests. */
  if (length < 2 || length > 24 || word[0] < 'a' || word[0] > 'w')
    return TILDE_TOK_IDENT;
  for (gsize i = 0; i < G_N_ELEMENTS (keywords); i++)
    if (keywords[i].word[0] == word[0] && strncmp (keywords[i].word, word, length) == 0
        && keywords[i].word[length] == '\0')
      return keywords[i].kind;
  return TILDE_TOK_IDENT;
}

TildeLexer *
tilde_lexer_new (TildeSourceSet        *set,
                 const TildeSourceFile *file,
                 GPtrArray             *diagnostics,
                 GArray                *comments)
{
  TildeLexer *lexer = g_new0 (TildeLexer, 1);
  Frame frame = { file, file->text, file->length, 0, 1, 0 };

  lexer->set = tilde_source_set_ref (set);
  lexer->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_array_append_val (lexer->frames, frame);
  lexer->diagnostics = diagnostics;
  lexer->comments = comments;
  return lexer;
}

void
tilde_lexer_free (TildeLexer *lexer)
{
  if (lexer == NULL)
    return;
  g_array_unref (lexer->frames);
  tilde_source_set_unref (lexer->set);
  g_free (lexer);
}

static Frame *
top (TildeLexer *lexer)
{
  return &g_array_index (lexer->frames, Frame, lexer->frames->len - 1);
}

static int
column_of (const Frame *f, gsize pos)
{
  return (int) (pos - f->line_start);
}

static void
mark (const Frame *f, gsize pos, int line, int column, TildeSpan *span, gboolean begin)
{
  if (begin)
    {
      span->file = f->file;
      span->begin_line = line;
      span->begin_column = column;
      span->begin_offset = (guint) pos;
    }
  else
    {
      span->end_file = f->file;
      span->end_line = line;
      span->end_column = column;
      span->end_offset = (guint) pos;
    }
}

static void
report (TildeLexer *lexer, TildeDiagnosticKind kind, const Frame *f,
        int line, int column, int end_column, const char *message)
{
  TildeDiagnostic *diag = tilde_diagnostic_new (TILDE_SEVERITY_ERROR, kind, f->file->name,
                                                line, column, line, end_column, message);

  tilde_source_file_add_include_frames (f->file, diag);
  g_ptr_array_add (lexer->diagnostics, diag);
}

/* Consumes one newline (\n, \r, or \r...\r\n) at f->pos. */
static void
take_newline (Frame *f)
{
  if (f->text[f->pos] == '\r')
    {
      gsize p = f->pos;

      while (p < f->length && f->text[p] == '\r')
        p++;
      f->pos = (p < f->length && f->text[p] == '\n') ? p + 1 : f->pos + 1;
    }
  else
    f->pos++;
  f->line++;
  f->line_start = f->pos;
}

static gboolean
is_newline (char c)
{
  return c == '\n' || c == '\r';
}

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\f';
}

static void
add_comment (TildeLexer *lexer, TildeCommentKind kind, const Frame *f,
             gsize start, int line, int column)
{
  TildeComment comment = { kind, { 0 }, f->text + start, (guint) (f->pos - start) };

  if (lexer->comments == NULL)
    return;
  mark (f, start, line, column, &comment.span, TRUE);
  mark (f, f->pos, f->line, column_of (f, f->pos), &comment.span, FALSE);
  g_array_append_val (lexer->comments, comment);
}

static void
line_comment (TildeLexer *lexer, Frame *f)
{
  gsize start = f->pos;
  int line = f->line, column = column_of (f, start);

  while (f->pos < f->length && !is_newline (f->text[f->pos]))
    f->pos++;
  add_comment (lexer, TILDE_COMMENT_LINE, f, start, line, column);
}

static void
block_comment (TildeLexer *lexer, Frame *f)
{
  gsize start = f->pos;
  int line = f->line, column = column_of (f, start);

  f->pos += 2;
  while (f->pos < f->length)
    {
      if (f->text[f->pos] == '*' && f->pos + 1 < f->length && f->text[f->pos + 1] == '/')
        {
          f->pos += 2;
          add_comment (lexer, TILDE_COMMENT_BLOCK, f, start, line, column);
          return;
        }
      if (is_newline (f->text[f->pos]))
        take_newline (f);
      else
        f->pos++;
    }
  report (lexer, TILDE_DIAG_LEXING, f, f->line, column_of (f, f->pos),
          column_of (f, f->pos), "Unexpected end of input");
}

static gboolean
looking_at (const Frame *f, const char *word)
{
  gsize n = strlen (word);

  return f->pos + n <= f->length && memcmp (f->text + f->pos, word, n) == 0;
}

/* Reads the target of an #include that starts at f->pos (just after the
 * white space), as stanc does: "name", <name> or a run of non-blanks. */
static char *
include_target (Frame *f)
{
  gsize start = f->pos;
  char close = 0;

  if (f->text[f->pos] == '"')
    close = '"';
  else if (f->text[f->pos] == '<')
    close = '>';
  if (close)
    {
      gsize p = f->pos + 1;

      while (p < f->length && f->text[p] != close && !is_newline (f->text[p]))
        p++;
      if (p < f->length && f->text[p] == close)
        {
          f->pos = p + 1;
          return g_strndup (f->text + start + 1, p - start - 1);
        }
    }
  while (f->pos < f->length && !is_space (f->text[f->pos]) && !is_newline (f->text[f->pos]))
    f->pos++;
  /* A bare name written with quotes that do not close still loses them,
   * like stanc's maybe_remove_quotes. */
  if (f->pos - start >= 2 && f->text[start] == '"' && f->text[f->pos - 1] == '"')
    return g_strndup (f->text + start + 1, f->pos - start - 2);
  return g_strndup (f->text + start, f->pos - start);
}

/* Handles "#include" at f->pos; returns FALSE when the # starts no directive. */
static gboolean
include_directive (TildeLexer *lexer)
{
  Frame *f = top (lexer);
  gsize start = f->pos;
  int line = f->line, column = column_of (f, start);
  gsize after = start + strlen ("#include");
  g_autofree char *target = NULL;
  g_autofree char *message = NULL;
  const TildeSourceFile *included = NULL;
  TildeIncludeStatus status;

  if (!looking_at (f, "#include") || after >= f->length
      || !(is_space (f->text[after]) || is_newline (f->text[after])))
    return FALSE;
  f->pos = after;
  while (f->pos < f->length && (is_space (f->text[f->pos]) || is_newline (f->text[f->pos])))
    {
      if (is_newline (f->text[f->pos]))
        take_newline (f);
      else
        f->pos++;
    }
  target = include_target (f);
  add_comment (lexer, TILDE_COMMENT_INCLUDE, f, start, line, column);
  status = tilde_source_set_open_include (lexer->set, f->file, line, column, start,
                                          target, &included, &message);
  if (status != TILDE_INCLUDE_FOUND)
    {
      report (lexer, TILDE_DIAG_INCLUDE, f, line, column, column + (int) strlen ("#include"),
              message);
      return TRUE;
    }
  {
    Frame frame = { included, included->text, included->length, 0, 1, 0 };
    g_array_append_val (lexer->frames, frame);
  }
  return TRUE;
}

/* Skips blanks, newlines, comments and include directives; returns TRUE
 * when anything was skipped. Leaves the lexer at a token or at the end. */
static gboolean
skip_trivia (TildeLexer *lexer)
{
  gboolean skipped = FALSE;

  for (;;)
    {
      Frame *f = top (lexer);

      if (f->pos >= f->length)
        {
          if (lexer->frames->len == 1)
            return skipped;
          g_array_set_size (lexer->frames, lexer->frames->len - 1);
          skipped = TRUE;
          continue;
        }
      if (is_space (f->text[f->pos]))
        f->pos++;
      else if (is_newline (f->text[f->pos]))
        take_newline (f);
      else if (f->text[f->pos] == '/' && f->pos + 1 < f->length && f->text[f->pos + 1] == '/')
        line_comment (lexer, f);
      else if (f->text[f->pos] == '/' && f->pos + 1 < f->length && f->text[f->pos + 1] == '*')
        block_comment (lexer, f);
      else if (f->text[f->pos] == '#' && include_directive (lexer))
        ;
      else
        return skipped;
      skipped = TRUE;
    }
}

static gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

static gboolean
is_alpha (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Digits with single underscores between them: 1_000_000. */
static gsize
scan_integer (const Frame *f, gsize p)
{
  if (p >= f->length || !is_digit (f->text[p]))
    return p;
  while (p < f->length && is_digit (f->text[p]))
    p++;
  while (p + 1 < f->length && f->text[p] == '_' && is_digit (f->text[p + 1]))
    {
      p++;
      while (p < f->length && is_digit (f->text[p]))
        p++;
    }
  return p;
}

static gsize
scan_exponent (const Frame *f, gsize p)
{
  gsize q;

  if (p >= f->length || (f->text[p] != 'e' && f->text[p] != 'E'))
    return p;
  q = p + 1;
  if (q < f->length && (f->text[q] == '+' || f->text[q] == '-'))
    q++;
  if (q < f->length && is_digit (f->text[q]))
    return scan_integer (f, q);
  return p;
}

/* Longest match over stanc's integer, real and imaginary literal forms. */
static TildeTokenKind
scan_number (Frame *f)
{
  gsize p = f->pos;
  TildeTokenKind kind = TILDE_TOK_INT_LIT;
  gsize q;

  if (f->text[p] == '.')
    {
      p = scan_integer (f, p + 1);
      kind = TILDE_TOK_DOT_NUMERAL;
    }
  else
    {
      p = scan_integer (f, p);
      if (p < f->length && f->text[p] == '.')
        {
          p = scan_integer (f, p + 1);
          kind = TILDE_TOK_REAL_LIT;
        }
    }
  q = scan_exponent (f, p);
  if (q != p)
    {
      p = q;
      kind = TILDE_TOK_REAL_LIT;
    }
  if (p < f->length && f->text[p] == 'i')
    {
      p++;
      kind = TILDE_TOK_IMAG_LIT;
    }
  f->pos = p;
  return kind;
}

/* Longest match over the operators and punctuation. */
static gboolean
scan_operator (Frame *f, TildeTokenKind *kind)
{
  const char *t = f->text + f->pos;
  char next = f->pos + 1 < f->length ? t[1] : '\0';
  char after = f->pos + 2 < f->length ? t[2] : '\0';
  gsize n = 1;

  switch (t[0])
    {
    case '{': *kind = TILDE_TOK_LBRACE; break;
    case '}': *kind = TILDE_TOK_RBRACE; break;
    case '(': *kind = TILDE_TOK_LPAREN; break;
    case ')': *kind = TILDE_TOK_RPAREN; break;
    case '[': *kind = TILDE_TOK_LBRACK; break;
    case ']': *kind = TILDE_TOK_RBRACK; break;
    case ',': *kind = TILDE_TOK_COMMA; break;
    case ';': *kind = TILDE_TOK_SEMICOLON; break;
    case '@': *kind = TILDE_TOK_AT; break;
    case '?': *kind = TILDE_TOK_QMARK; break;
    case ':': *kind = TILDE_TOK_COLON; break;
    case '^': *kind = TILDE_TOK_HAT; break;
    case '\'': *kind = TILDE_TOK_TRANSPOSE; break;
    case '\\': *kind = TILDE_TOK_LDIVIDE; break;
    case '~': *kind = TILDE_TOK_TILDE; break;
    case '|':
      if (next == '|') { *kind = TILDE_TOK_OR; n = 2; }
      else *kind = TILDE_TOK_BAR;
      break;
    case '&':
      if (next != '&')
        return FALSE;
      *kind = TILDE_TOK_AND;
      n = 2;
      break;
    case '=':
      if (next == '=') { *kind = TILDE_TOK_EQUALS; n = 2; }
      else *kind = TILDE_TOK_ASSIGN;
      break;
    case '!':
      if (next == '=') { *kind = TILDE_TOK_NEQUALS; n = 2; }
      else *kind = TILDE_TOK_BANG;
      break;
    case '<':
      if (next == '=') { *kind = TILDE_TOK_LEQ; n = 2; }
      else *kind = TILDE_TOK_LABRACK;
      break;
    case '>':
      if (next == '=') { *kind = TILDE_TOK_GEQ; n = 2; }
      else *kind = TILDE_TOK_RABRACK;
      break;
    case '+':
      if (next == '=') { *kind = TILDE_TOK_PLUSASSIGN; n = 2; }
      else *kind = TILDE_TOK_PLUS;
      break;
    case '-':
      if (next == '=') { *kind = TILDE_TOK_MINUSASSIGN; n = 2; }
      else *kind = TILDE_TOK_MINUS;
      break;
    case '*':
      if (next == '=') { *kind = TILDE_TOK_TIMESASSIGN; n = 2; }
      else *kind = TILDE_TOK_TIMES;
      break;
    case '/':
      if (next == '=') { *kind = TILDE_TOK_DIVIDEASSIGN; n = 2; }
      else *kind = TILDE_TOK_DIVIDE;
      break;
    case '%':
      if (next == '/' && after == '%') { *kind = TILDE_TOK_IDIVIDE; n = 3; }
      else *kind = TILDE_TOK_MODULO;
      break;
    case '.':
      if (next == '*' && after == '=') { *kind = TILDE_TOK_ELTTIMESASSIGN; n = 3; }
      else if (next == '/' && after == '=') { *kind = TILDE_TOK_ELTDIVIDEASSIGN; n = 3; }
      else if (next == '*') { *kind = TILDE_TOK_ELTTIMES; n = 2; }
      else if (next == '/') { *kind = TILDE_TOK_ELTDIVIDE; n = 2; }
      else if (next == '^') { *kind = TILDE_TOK_ELTPOW; n = 2; }
      else
        return FALSE;
      break;
    default:
      return FALSE;
    }
  f->pos += n;
  return TRUE;
}

/* "transformed data", "transformed parameters" and "generated quantities"
 * are single tokens when the words are separated by blanks only. */
static TildeTokenKind
two_word_keyword (Frame *f, gsize word_end)
{
  static const struct { const char *first, *second; TildeTokenKind kind; } pairs[] = {
    { "transformed", "data", TILDE_TOK_TRANSFORMED_DATA },
    { "transformed", "parameters", TILDE_TOK_TRANSFORMED_PARAMETERS },
    { "generated", "quantities", TILDE_TOK_GENERATED_QUANTITIES },
  };
  gsize word_len = word_end - f->pos;

  for (gsize i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      gsize n1 = strlen (pairs[i].first), n2 = strlen (pairs[i].second), p = word_end;

      if (word_len != n1 || memcmp (f->text + f->pos, pairs[i].first, n1) != 0)
        continue;
      while (p < f->length && is_space (f->text[p]))
        p++;
      if (p == word_end || p + n2 > f->length || memcmp (f->text + p, pairs[i].second, n2) != 0)
        continue;
      if (p + n2 < f->length && (is_alpha (f->text[p + n2]) || is_digit (f->text[p + n2])
                                 || f->text[p + n2] == '_'))
        continue;
      f->pos = p + n2;
      return pairs[i].kind;
    }
  return TILDE_TOK_EOF;
}

static TildeTokenKind
scan_word (Frame *f)
{
  gsize p = f->pos;
  TildeTokenKind kind;

  while (p < f->length && (is_alpha (f->text[p]) || is_digit (f->text[p]) || f->text[p] == '_'))
    p++;
  kind = two_word_keyword (f, p);
  if (kind != TILDE_TOK_EOF)
    return kind;
  kind = keyword_kind (f->text + f->pos, p - f->pos);
  f->pos = p;
  return kind;
}

static gboolean
scan_string (Frame *f)
{
  gsize p = f->pos + 1;

  while (p < f->length && f->text[p] != '"' && !is_newline (f->text[p]))
    p++;
  if (p >= f->length || f->text[p] != '"')
    return FALSE;
  f->pos = p + 1;
  return TRUE;
}

/* Length of the (possibly malformed) UTF-8 sequence starting at p, so that
 * one bad character yields one diagnostic. */
static gsize
bad_character_length (const Frame *f, gsize p)
{
  guchar c = (guchar) f->text[p];
  gsize n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  gsize len = 1;

  while (len < n && p + len < f->length && ((guchar) f->text[p + len] & 0xC0) == 0x80)
    len++;
  return len;
}

static gboolean
scan_token (TildeLexer *lexer, Frame *f, TildeTokenKind *kind)
{
  char c = f->text[f->pos];

  if (is_alpha (c))
    *kind = scan_word (f);
  else if (is_digit (c) || (c == '.' && f->pos + 1 < f->length && is_digit (f->text[f->pos + 1])))
    *kind = scan_number (f);
  else if (c == '"' && scan_string (f))
    *kind = TILDE_TOK_STRING_LIT;
  else if (c != '"' && scan_operator (f, kind))
    ;
  else
    {
      int column = column_of (f, f->pos);

      report (lexer, TILDE_DIAG_LEXING, f, f->line, column, column + 1,
              "Invalid character found.");
      f->pos += bad_character_length (f, f->pos);
      return FALSE;
    }
  return TRUE;
}

void
tilde_lexer_next (TildeLexer *lexer, TildeToken *token)
{
  gboolean space = FALSE;

  for (;;)
    {
      Frame *f;
      gsize start;
      int line, column;

      space |= skip_trivia (lexer);
      f = top (lexer);
      start = f->pos;
      line = f->line;
      column = column_of (f, start);
      memset (token, 0, sizeof *token);
      mark (f, start, line, column, &token->span, TRUE);
      if (start >= f->length)
        {
          token->kind = TILDE_TOK_EOF;
          token->text = f->text + start;
          mark (f, start, line, column, &token->span, FALSE);
          token->space_before = space;
          return;
        }
      if (!scan_token (lexer, f, &token->kind))
        {
          space = TRUE;
          continue;
        }
      token->text = f->text + start;
      token->length = (guint) (f->pos - start);
      mark (f, f->pos, line, column_of (f, f->pos), &token->span, FALSE);
      token->space_before = space;
      return;
    }
}
