/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Decimal numbers in text, read exactly as strtod reads them (in the C
 * locale), mostly without strtod: a mantissa of up to 2^53 with a power of
 * ten up to 10^22 is one exact multiplication or division of doubles; on
 * x86 one of up to 19 digits with 10^27 goes through the 64-bit
 * significand of long double unless it lands on a midpoint between two
 * doubles; the rest go to g_ascii_strtod. The data reader and the Stan CSV
 * reader share it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gboolean is_int;   /* written without fraction or exponent, and within gint64 */
  gint64   i;
  double   d;        /* the value, as strtod gives it (ints too) */
} TildeDecimal;

/* A character a number token is made of: digits, signs, the point and
 * the exponent's e (a scan to where a token ends; the grammar comes
 * after). */
static inline gboolean
tilde_decimal_is_number_char (char c)
{
  static const guint8 number_chars[256] = {
    ['0' ... '9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
  };
  return number_chars[(guchar) c];
}

/* Where JSON's grammar for a number ("-1.5e3"; no "+", no ".5", no
 * leading zeros), read from `begin`, ends: `begin` where none starts. */
gsize tilde_decimal_grammar_end (const char *text, gsize len, gsize begin);

/* The number whose grammar starts at `begin` (check it first where the
 * text is not known to be JSON); returns where its characters end. */
gsize tilde_decimal_parse (const char *text, gsize len, gsize begin, TildeDecimal *out);

G_END_DECLS
