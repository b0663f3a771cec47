/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where things are in JSON text, which json-glib does not say: the members
 * of the top-level object (each key and value as byte ranges) and the
 * first syntax error, named by the token that is out of place rather than
 * by the one before it.
 *
 * The tokens are JSON's, plus what json-glib also takes: strings in single
 * quotes and comments between slashes and stars. Offsets are bytes from
 * the start of the text; an `end` is the offset just after the last byte.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char  *name;          /* the key, unescaped */
  gsize  key_begin;     /* the key with its quotes */
  gsize  key_end;
  gsize  value_begin;
  gsize  value_end;
} TildeJsonMember;

typedef struct {
  gboolean empty;        /* nothing but blanks and comments */
  gboolean is_object;    /* the top-level value is an object */
  gsize    value_begin;  /* the top-level value */
  gsize    value_end;
  gsize    close;        /* its closing brace (is_object) */
  GArray  *members;      /* TildeJsonMember in the order of the text */
} TildeJsonOutline;

/* The outline of text that json-glib parsed. Text that is not valid JSON
 * gives an outline of what could be read before the first error. */
TildeJsonOutline *tilde_json_outline_new  (const char *text, gsize len);
void              tilde_json_outline_free (TildeJsonOutline *outline);
/* The last member named `name` (json-glib keeps the last), or NULL. */
const TildeJsonMember *tilde_json_outline_lookup (const TildeJsonOutline *outline,
                                                  const char             *name);

/* The tokens of JSON text as these checks read them. */
typedef enum {
  TILDE_JSON_TOKEN_END,
  TILDE_JSON_TOKEN_OPEN_OBJECT,
  TILDE_JSON_TOKEN_CLOSE_OBJECT,
  TILDE_JSON_TOKEN_OPEN_ARRAY,
  TILDE_JSON_TOKEN_CLOSE_ARRAY,
  TILDE_JSON_TOKEN_COLON,
  TILDE_JSON_TOKEN_COMMA,
  TILDE_JSON_TOKEN_STRING,
  TILDE_JSON_TOKEN_NUMBER,        /* a run of number characters, valid or not */
  TILDE_JSON_TOKEN_WORD,          /* true, NaN, -Infinity or any other word */
  TILDE_JSON_TOKEN_COMMENT,       /* only when asked for */
  TILDE_JSON_TOKEN_OPEN_STRING,   /* a string that runs to the end of the text */
  TILDE_JSON_TOKEN_OPEN_COMMENT,  /* a comment that does */
  TILDE_JSON_TOKEN_OTHER,         /* a character that starts no token */
} TildeJsonTokenKind;

typedef struct {
  TildeJsonTokenKind kind;
  gsize              begin;
  gsize              end;
} TildeJsonToken;

/* The token at or after `pos`: blanks are skipped, and so are comments
 * unless `comments` is TRUE, when each whole comment is a token. The next
 * token starts at or after the returned `end`. */
TildeJsonToken tilde_json_next_token (const char *text,
                                      gsize       len,
                                      gsize       pos,
                                      gboolean    comments);

/* Just past the string whose opening quote is at `begin`, or the end of
 * the text where it is not closed (`closed` says which, when not NULL).
 * Strings in single quotes have no escapes. */
gsize tilde_json_string_end (const char *text, gsize len, gsize begin, gboolean *closed);

/* The string that the string token from `begin` (its opening quote) to
 * `end` (just after its closing one) stands for, escapes decoded; half a
 * surrogate pair becomes U+FFFD. */
char *tilde_json_string_value (const char *text, gsize begin, gsize end);

/* The first syntax error of `text`: TRUE, with the range of the offending
 * token and a message ("expected ',' or ']', found the number 12"); FALSE
 * when the text reads as JSON (blank text included). */
gboolean tilde_json_find_syntax_error (const char *text,
                                       gsize       len,
                                       gsize      *begin,
                                       gsize      *end,
                                       char      **message);

/* The syntax check and the outline in one pass, for text that is to be
 * read: NULL with the error's range and message as above (or, for text
 * nested too deep to check, a message saying so), else an outline with
 * `empty`, `is_object`, `value_begin` and the top-level members. */
TildeJsonOutline *tilde_json_check (const char *text,
                                    gsize       len,
                                    gsize      *begin,
                                    gsize      *end,
                                    char      **message);

/* tilde_json_check for text to be read from a file or a string named
 * `name`, which must also be UTF-8: NULL with the first error in
 * json-glib's form ("NAME:LINE:COLUMN: Parse error: ...", the column in
 * bytes; JSON_PARSER_ERROR_INVALID_DATA), which the editor places. */
TildeJsonOutline *tilde_json_check_text (const char *name,
                                         const char *text,
                                         gsize       len,
                                         GError    **error);

/* The token that ends at, or contains, byte `offset`: where json-glib's
 * error positions point. FALSE when there is none there. */
gboolean tilde_json_token_at (const char *text,
                              gsize       len,
                              gsize       offset,
                              gsize      *begin,
                              gsize      *end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeJsonOutline, tilde_json_outline_free)

G_END_DECLS
