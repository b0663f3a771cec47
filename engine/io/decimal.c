/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/decimal.h"

#include <float.h>
#include <string.h>

static gboolean
is_digit (char c)
{
  return (guchar) (c - '0') < 10;
}

gsize
tilde_decimal_grammar_end (const char *s, gsize n, gsize i)
{
  gsize start = i;
  if (i < n && s[i] == '-')
    i++;
  if (i < n && s[i] == '0')
    i++;
  else if (i < n && is_digit (s[i]))
    while (i < n && is_digit (s[i]))
      i++;
  else
    return start;
  if (i < n && s[i] == '.')
    {
      if (++i >= n || !is_digit (s[i]))
        return start;
      while (i < n && is_digit (s[i]))
        i++;
    }
  if (i < n && (s[i] == 'e' || s[i] == 'E'))
    {
      i++;
      if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
      if (i >= n || !is_digit (s[i]))
        return start;
      while (i < n && is_digit (s[i]))
        i++;
    }
  return i;
}

static const double exact_powers_of_ten[] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#if LDBL_MANT_DIG == 64
static const long double exact_long_powers_of_ten[] = {
  1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
  1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L,
  1e26L, 1e27L,
};
#endif

/* The number that starts at `pos`; returns where it ends. A mantissa of at
 * most 2^53 times a power of ten up to 10^22 is one correctly rounded
 * multiplication or division of two exact doubles, so it equals what
 * strtod gives; so, on x86, is one of up to 19 digits and 10^27 (below);
 * every other number goes to strtod. */
gsize
tilde_decimal_parse (const char *t, gsize len, gsize pos, TildeDecimal *n)
{
  gsize k = pos;
  gboolean negative = FALSE, exact = TRUE, integral = TRUE, fraction = FALSE;
  guint64 m = 0;     /* the first 19 significant digits */
  int digits = 0;
  gint64 scale = 0;  /* a digit each way, however long the number */

  if (k < len && t[k] == '-')
    negative = TRUE, k++;
  for (; k < len; k++)
    {
      char c = t[k];
      if (c >= '0' && c <= '9')
        {
          int d = c - '0';
          if (digits < 19)
            {
              m = m * 10 + (guint64) d;
              digits += m != 0;
              scale -= fraction;
            }
          else
            {
              exact &= d == 0;
              scale += !fraction;
            }
        }
      else if (c == '.' && !fraction)
        fraction = TRUE, integral = FALSE;
      else
        break;
    }
  if (k < len && (t[k] == 'e' || t[k] == 'E'))
    {
      int sign = 1, e = 0;
      integral = FALSE;
      k++;
      if (k < len && (t[k] == '+' || t[k] == '-'))
        sign = t[k++] == '-' ? -1 : 1;
      for (; k < len && g_ascii_isdigit (t[k]); k++)
        if (e < 100000)
          e = e * 10 + (t[k] - '0');
        else
          exact = FALSE;     /* past any double's range: strtod says where */
      scale += sign * e;
    }
  while (k < len && tilde_decimal_is_number_char (t[k]))
    k++;

  n->is_int = integral && exact && scale == 0
              && m <= (negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64);
  if (n->is_int)
    {
      n->i = !negative ? (gint64) m : m == (guint64) G_MAXINT64 + 1 ? G_MININT64 : -(gint64) m;
      n->d = negative && m == 0 ? -0.0 : (double) n->i;
      return k;
    }
#if FLT_EVAL_METHOD == 0
  if (m == 0 || (exact && m <= (G_GUINT64_CONSTANT (1) << 53) && scale >= -22 && scale <= 22))
    {
      double d = (double) m;
      if (m != 0)
        d = scale >= 0 ? d * exact_powers_of_ten[scale] : d / exact_powers_of_ten[-scale];
      n->d = negative ? -d : d;
      return k;
    }
#endif
#if LDBL_MANT_DIG == 64
  /* Up to 19 digits and 10^27: both exact in x87's 64-bit significand, so
   * the product or quotient is rounded once there. Rounding that to a
   * double again gives strtod's double unless it landed exactly on a
   * midpoint between two doubles (its 11 lowest bits 10000000000), which
   * only a true midpoint, or a value rounded onto one, can do; those go to
   * strtod. */
  if (exact && scale >= -27 && scale <= 27)
    {
      long double x = (long double) m;
      x = scale >= 0 ? x * exact_long_powers_of_ten[scale] : x / exact_long_powers_of_ten[-scale];
      guint64 significand;
      memcpy (&significand, &x, sizeof significand);
      if ((significand & 0x7ff) != 0x400)
        {
          n->d = negative ? -(double) x : (double) x;
          return k;
        }
    }
#endif
  char small[64];
  gsize size = k - pos;
  char *copy = size < sizeof small ? small : g_malloc (size + 1);
  memcpy (copy, t + pos, size);
  copy[size] = '\0';
  n->d = g_ascii_strtod (copy, NULL);
  if (copy != small)
    g_free (copy);
  return k;
}

