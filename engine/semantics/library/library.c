/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "library.h"

#include <stdlib.h>
#include <string.h>

#include "library-private.h"

/* ------------------------------------------------------------ decoding */

static const TildeType *decode_type (const char **p);

static guint
decode_count (const char **p)
{
  return (guint) (*(*p)++ - 'A');
}

static const TildeType *
decode_signature (const char **p, TildeFunKind kind)
{
  guint n = decode_count (p);
  g_autofree TildeArgType *args = g_new0 (TildeArgType, MAX (n, 1));
  const TildeType *ret;

  for (guint i = 0; i < n; i++)
    {
      args[i].ad = TILDE_AD_AUTODIFF;
      if (**p == 'd')
        {
          args[i].ad = TILDE_AD_DATA;
          (*p)++;
        }
      args[i].type = decode_type (p);
    }
  ret = decode_type (p);
  return tilde_type_function (n, args, ret, kind);
}

static TildeFunKind
decode_kind (char c)
{
  switch (c)
    {
    case 'r': return TILDE_FUN_RNG;
    case 'l': return TILDE_FUN_LPDF;
    case 'u': return TILDE_FUN_LUPDF;
    case 't': return TILDE_FUN_LP;
    case 'j': return TILDE_FUN_JACOBIAN;
    default: return TILDE_FUN_PLAIN;
    }
}

static const TildeType *
decode_type (const char **p)
{
  char c = *(*p)++;

  switch (c)
    {
    case 'i': return tilde_type_int ();
    case 'r': return tilde_type_real ();
    case 'c': return tilde_type_complex ();
    case 'v': return tilde_type_vector ();
    case 'w': return tilde_type_row_vector ();
    case 'm': return tilde_type_matrix ();
    case 'V': return tilde_type_complex_vector ();
    case 'W': return tilde_type_complex_row_vector ();
    case 'M': return tilde_type_complex_matrix ();
    case 'x': return tilde_type_void ();
    case 'a': return tilde_type_array (decode_type (p));
    case 't':
      {
        guint n = (guint) (*(*p)++ - '0');
        g_autofree const TildeType **m = g_new (const TildeType *, n);

        for (guint i = 0; i < n; i++)
          m[i] = decode_type (p);
        return tilde_type_tuple (n, m);
      }
    case 'f':
      {
        TildeFunKind kind = decode_kind (*(*p)++);
        return decode_signature (p, kind);
      }
    default:
      g_error ("corrupt signature table at '%c'", c);
    }
}

static const TildeType *
decode (const char *code, TildeFunKind kind)
{
  return decode_signature (&code, kind);
}

/* ------------------------------------------------------------- lookup */

static int
entry_compare (const void *key, const void *elem)
{
  return strcmp (key, ((const TildeLibEntry *) elem)->name);
}

/* foo_lupdf and foo_lupmf share foo_lpdf's and foo_lpmf's signatures */
static const TildeLibEntry *
find_entry (const char *name)
{
  gsize len = strlen (name);
  char buf[256];

  if (len < sizeof buf && (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf")))
    {
      memcpy (buf, name, len - 5);
      memcpy (buf + len - 5, "lp", 2);
      memcpy (buf + len - 3, name + len - 2, 3);
      name = buf;
    }
  return bsearch (name, _tilde_lib_entries, _tilde_lib_n_entries,
                  sizeof (TildeLibEntry), entry_compare);
}

/* Decoded signature arrays, one per entry, built on first use. Decoding is
 * idempotent (types are interned), so a lost race only frees a copy. */
static gpointer *entry_sigs;

static const TildeType *const *
entry_signatures (const TildeLibEntry *e)
{
  gsize i = (gsize) (e - _tilde_lib_entries);
  const TildeType **sigs;

  if (g_once_init_enter (&entry_sigs))
    g_once_init_leave (&entry_sigs, g_new0 (gpointer, _tilde_lib_n_entries));
  sigs = g_atomic_pointer_get (&entry_sigs[i]);
  if (sigs == NULL)
    {
      TildeFunKind kind = tilde_fun_kind_from_name (e->name);

      sigs = g_new (const TildeType *, e->count + 1);
      for (guint k = 0; k < e->count; k++)
        sigs[k] = decode (_tilde_lib_codes[_tilde_lib_sig_index[e->first + k]], kind);
      sigs[e->count] = NULL;
      if (!g_atomic_pointer_compare_and_exchange (&entry_sigs[i], NULL, sigs))
        {
          g_free (sigs);
          sigs = g_atomic_pointer_get (&entry_sigs[i]);
        }
    }
  return sigs;
}

const TildeType *const *
tilde_library_signatures (const char *name, guint *n_out)
{
  const TildeLibEntry *e;

  g_return_val_if_fail (name != NULL, NULL);
  e = find_entry (name);
  if (n_out)
    *n_out = e ? e->count : 0;
  return e ? entry_signatures (e) : NULL;
}

gboolean
tilde_library_has_function (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);
  return find_entry (name) != NULL || tilde_library_variadic (name) != NULL;
}

/* Every name with signatures and every variadic name, sorted. */
static const char **all_names;
static guint n_all_names;

static int
str_ptr_compare (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
ensure_names (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      guint n = _tilde_lib_n_entries + _tilde_lib_n_variadics;
      const char **names = g_new (const char *, n);

      for (guint i = 0; i < _tilde_lib_n_entries; i++)
        names[i] = _tilde_lib_entries[i].name;
      for (guint i = 0; i < _tilde_lib_n_variadics; i++)
        names[_tilde_lib_n_entries + i] = _tilde_lib_variadics[i].name;
      qsort (names, n, sizeof (const char *), str_ptr_compare);
      all_names = names;
      n_all_names = n;
      g_once_init_leave (&once, 1);
    }
}

guint
tilde_library_n_names (void)
{
  ensure_names ();
  return n_all_names;
}

const char *
tilde_library_name (guint i)
{
  ensure_names ();
  g_return_val_if_fail (i < n_all_names, NULL);
  return all_names[i];
}

/* stanc lists signatures by return type, then by argument types */
static int
signature_compare (const void *pa, const void *pb)
{
  const TildeType *a = *(const TildeType *const *) pa;
  const TildeType *b = *(const TildeType *const *) pb;
  int c = tilde_type_compare (tilde_type_return (a), tilde_type_return (b));
  guint na = tilde_type_n_args (a), nb = tilde_type_n_args (b);

  if (c != 0)
    return c;
  for (guint i = 0; i < na && i < nb; i++)
    if ((c = tilde_arg_type_compare (tilde_type_arg (a, i), tilde_type_arg (b, i))) != 0)
      return c;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

static void
append_sorted_signatures (GString *out, const TildeType *const *sigs, guint n)
{
  g_autofree const TildeType **sorted = g_memdup2 (sigs, MAX (n, 1) * sizeof *sorted);

  qsort (sorted, n, sizeof *sorted, signature_compare);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, '\n');
      tilde_type_append (out, tilde_type_function_with_kind (sorted[i], TILDE_FUN_PLAIN));
    }
}

char *
tilde_library_format_signatures (const char *name)
{
  guint n;
  const TildeType *const *sigs = tilde_library_signatures (name, &n);
  GString *out;

  if (sigs == NULL)
    return NULL;
  out = g_string_new (NULL);
  append_sorted_signatures (out, sigs, n);
  return g_string_free (out, FALSE);
}

TildeMatchStatus
tilde_library_resolve (const char *name, const TildeArgType *args, guint n_args,
                       TildeMatch *match, char **message)
{
  const TildeVariadic *v = tilde_library_variadic (name);
  const TildeType *const *sigs;
  TildeMatchStatus status;
  guint n;

  if (message)
    *message = NULL;
  if (v != NULL)
    return tilde_variadic_resolve (v, args, n_args, match, message);
  sigs = tilde_library_signatures (name, &n);
  status = tilde_overload_resolve (sigs, n, args, n_args, match);
  if (sigs == NULL || message == NULL)
    return status;
  if (status == TILDE_MATCH_NONE)
    *message = tilde_overload_mismatch_message (name, sigs, n, args, n_args);
  else if (status == TILDE_MATCH_AMBIGUOUS)
    *message = tilde_overload_ambiguity_message (name, sigs, n, args, n_args);
  return status;
}

/* ------------------------------------------------------- distributions */

static int
family_compare (const void *key, const void *elem)
{
  return strcmp (key, ((const TildeLibFamilyDef *) elem)->name);
}

guint
tilde_library_distribution_suffixes (const char *family)
{
  const TildeLibFamilyDef *f;

  g_return_val_if_fail (family != NULL, 0);
  f = bsearch (family, _tilde_lib_families, _tilde_lib_n_families,
               sizeof (TildeLibFamilyDef), family_compare);
  return f ? f->suffixes : 0;
}

gboolean
tilde_library_is_distribution (const char *family)
{
  return (tilde_library_distribution_suffixes (family)
          & (TILDE_DIST_LPDF | TILDE_DIST_LPMF)) != 0;
}

/* ------------------------------------------------------------ variadic */

struct _TildeVariadic {
  const TildeLibVariadicDef *def;
  const TildeType *control; /* control arguments and return type */
  const TildeType *callback;
};

static TildeVariadic *variadics;

static void
ensure_variadics (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      TildeVariadic *vs = g_new0 (TildeVariadic, MAX (_tilde_lib_n_variadics, 1));

      for (guint i = 0; i < _tilde_lib_n_variadics; i++)
        {
          const TildeLibVariadicDef *d = &_tilde_lib_variadics[i];

          vs[i].def = d;
          if (d->reduce_sum)
            {
              /* the sliced type varies; show it as stanc does, array[] real */
              TildeArgType c[2] = { { TILDE_AD_AUTODIFF, tilde_type_array (tilde_type_real ()) },
                                   { TILDE_AD_AUTODIFF, tilde_type_int () } };
              TildeArgType f[3] = { c[0], { TILDE_AD_DATA, tilde_type_int () },
                                   { TILDE_AD_DATA, tilde_type_int () } };

              vs[i].control = tilde_type_function (2, c, tilde_type_real (), TILDE_FUN_PLAIN);
              vs[i].callback = tilde_type_function (3, f, tilde_type_real (), TILDE_FUN_PLAIN);
            }
          else
            {
              vs[i].control = decode (d->control, TILDE_FUN_PLAIN);
              vs[i].callback = decode (d->callback, TILDE_FUN_PLAIN);
            }
        }
      variadics = vs;
      g_once_init_leave (&once, 1);
    }
}

static int
variadic_compare (const void *key, const void *elem)
{
  return strcmp (key, ((const TildeLibVariadicDef *) elem)->name);
}

const TildeVariadic *
tilde_library_variadic (const char *name)
{
  const TildeLibVariadicDef *d;

  g_return_val_if_fail (name != NULL, NULL);
  d = bsearch (name, _tilde_lib_variadics, _tilde_lib_n_variadics,
               sizeof (TildeLibVariadicDef), variadic_compare);
  if (d == NULL)
    return NULL;
  ensure_variadics ();
  return &variadics[d - _tilde_lib_variadics];
}

const char *tilde_variadic_name (const TildeVariadic *v) { return v->def->name; }
guint tilde_variadic_n_control (const TildeVariadic *v) { return tilde_type_n_args (v->control); }
const TildeArgType *tilde_variadic_control (const TildeVariadic *v, guint i) { return tilde_type_arg (v->control, i); }
guint tilde_variadic_n_callback_args (const TildeVariadic *v) { return tilde_type_n_args (v->callback); }
const TildeArgType *tilde_variadic_callback_arg (const TildeVariadic *v, guint i) { return tilde_type_arg (v->callback, i); }
const TildeType *tilde_variadic_callback_return (const TildeVariadic *v) { return tilde_type_return (v->callback); }
const TildeType *tilde_variadic_return (const TildeVariadic *v) { return tilde_type_return (v->control); }
gboolean tilde_variadic_is_reduce_sum (const TildeVariadic *v) { return v->def->reduce_sum; }

static const TildeArgType *
args_of (const TildeType *fn)
{
  return tilde_type_n_args (fn) ? tilde_type_arg (fn, 0) : NULL;
}

TildeMatchStatus
tilde_variadic_resolve (const TildeVariadic *v, const TildeArgType *args, guint n_args,
                        TildeMatch *match, char **message)
{
  const TildeType *control = v->control, *callback = v->callback;

  g_return_val_if_fail (v != NULL, TILDE_MATCH_NONE);
  if (message)
    *message = NULL;
  if (v->def->reduce_sum && n_args > 0
      && tilde_type_kind (args[0].type) == TILDE_TYPE_FUNCTION
      && tilde_type_n_args (args[0].type) > 0
      && tilde_type_kind (tilde_type_arg (args[0].type, 0)->type) == TILDE_TYPE_ARRAY)
    {
      /* reduce_sum slices whatever array its function takes first */
      const TildeType *slice = tilde_type_arg (args[0].type, 0)->type;
      TildeArgType c[2] = { { TILDE_AD_AUTODIFF, slice }, *tilde_type_arg (control, 1) };
      TildeArgType f[3] = { { TILDE_AD_AUTODIFF, slice }, *tilde_type_arg (callback, 1),
                           *tilde_type_arg (callback, 2) };

      control = tilde_type_function (2, c, tilde_type_return (control), TILDE_FUN_PLAIN);
      callback = tilde_type_function (3, f, tilde_type_return (callback), TILDE_FUN_PLAIN);
    }
  return tilde_overload_resolve_variadic (v->def->name,
                                          args_of (control), tilde_type_n_args (control),
                                          tilde_type_return (control),
                                          args_of (callback), tilde_type_n_args (callback),
                                          tilde_type_return (callback),
                                          v->def->allow_lpdf, args, n_args, match, message);
}

/* ------------------------------------------------------------ operators */

typedef struct {
  const char *symbol;
  const char *position; /* "infix", "prefix", "postfix" */
  const char *functions[3];
} OperatorInfo;

static const OperatorInfo operators[] = {
  [TILDE_OPERATOR_ADD] = { "+", "infix", { "add" } },
  [TILDE_OPERATOR_SUBTRACT] = { "-", "infix", { "subtract" } },
  [TILDE_OPERATOR_MULTIPLY] = { "*", "infix", { "multiply" } },
  [TILDE_OPERATOR_DIVIDE] = { "/", "infix", { "mdivide_right", "divide" } },
  [TILDE_OPERATOR_INT_DIVIDE] = { "%/%", "infix", { NULL } },
  [TILDE_OPERATOR_MODULO] = { "%", "infix", { "modulus" } },
  [TILDE_OPERATOR_LEFT_DIVIDE] = { "\\", "infix", { "mdivide_left" } },
  [TILDE_OPERATOR_ELT_MULTIPLY] = { ".*", "infix", { "elt_multiply" } },
  [TILDE_OPERATOR_ELT_DIVIDE] = { "./", "infix", { "elt_divide" } },
  [TILDE_OPERATOR_POW] = { "^", "infix", { "pow" } },
  [TILDE_OPERATOR_ELT_POW] = { ".^", "infix", { "pow" } },
  [TILDE_OPERATOR_OR] = { "||", "infix", { "logical_or" } },
  [TILDE_OPERATOR_AND] = { "&&", "infix", { "logical_and" } },
  [TILDE_OPERATOR_EQUALS] = { "==", "infix", { "logical_eq" } },
  [TILDE_OPERATOR_NOT_EQUALS] = { "!=", "infix", { "logical_neq" } },
  [TILDE_OPERATOR_LESS] = { "<", "infix", { "logical_lt" } },
  [TILDE_OPERATOR_LESS_EQUAL] = { "<=", "infix", { "logical_lte" } },
  [TILDE_OPERATOR_GREATER] = { ">", "infix", { "logical_gt" } },
  [TILDE_OPERATOR_GREATER_EQUAL] = { ">=", "infix", { "logical_gte" } },
  [TILDE_OPERATOR_PLUS] = { "+", "prefix", { "plus" } },
  [TILDE_OPERATOR_MINUS] = { "-", "prefix", { "minus" } },
  [TILDE_OPERATOR_NOT] = { "!", "prefix", { "logical_negation" } },
  [TILDE_OPERATOR_TRANSPOSE] = { "'", "postfix", { "transpose" } },
};

const char *
tilde_operator_symbol (TildeOperator op)
{
  g_return_val_if_fail (op <= TILDE_OPERATOR_TRANSPOSE, NULL);
  return operators[op].symbol;
}

guint
tilde_operator_arity (TildeOperator op)
{
  g_return_val_if_fail (op <= TILDE_OPERATOR_TRANSPOSE, 0);
  return strcmp (operators[op].position, "infix") == 0 ? 2 : 1;
}

const char *const *
tilde_operator_functions (TildeOperator op)
{
  g_return_val_if_fail (op <= TILDE_OPERATOR_TRANSPOSE, NULL);
  return operators[op].functions;
}

/* %/% is no library function: stanc types it as (int, int) => int */
static const TildeType *const *
int_divide_signature (void)
{
  static const TildeType *sig[2];

  if (g_once_init_enter (&sig[0]))
    {
      TildeArgType a[2] = { { TILDE_AD_AUTODIFF, tilde_type_int () },
                           { TILDE_AD_AUTODIFF, tilde_type_int () } };
      g_once_init_leave (&sig[0], tilde_type_function (2, a, tilde_type_int (),
                                                        TILDE_FUN_PLAIN));
    }
  return sig;
}

static char *
operator_message (TildeOperator op, const TildeArgType *args, guint n_args)
{
  const OperatorInfo *info = &operators[op];
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Ill-typed arguments supplied to %s operator %s. "
                          "Available signatures: ", info->position, info->symbol);
  if (op == TILDE_OPERATOR_INT_DIVIDE)
    {
      g_string_append_c (out, '\n');
      append_sorted_signatures (out, int_divide_signature (), 1);
    }
  for (guint k = 0; info->functions[k]; k++)
    {
      guint n;
      const TildeType *const *sigs = tilde_library_signatures (info->functions[k], &n);

      /* each function's list starts on a fresh line; lists are separated
       * by a blank line */
      if (k > 0)
        g_string_append_c (out, '\n');
      g_string_append_c (out, '\n');
      append_sorted_signatures (out, sigs, n);
    }
  g_string_append_printf (out, "\nInstead supplied argument%s of incompatible type: ",
                          n_args == 1 ? "" : "s");
  for (guint i = 0; i < n_args; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      tilde_type_append (out, args[i].type);
    }
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

TildeMatchStatus
tilde_library_resolve_operator (TildeOperator op, const TildeArgType *args, guint n_args,
                                TildeMatch *match, char **message)
{
  const OperatorInfo *info;
  TildeMatch m = { TILDE_MATCH_NONE, 0, NULL, NULL, 0, -1 };

  g_return_val_if_fail (op <= TILDE_OPERATOR_TRANSPOSE, TILDE_MATCH_NONE);
  info = &operators[op];
  if (message)
    *message = NULL;
  if (op == TILDE_OPERATOR_INT_DIVIDE)
    tilde_overload_resolve (int_divide_signature (), 1, args, n_args, &m);
  for (guint k = 0; info->functions[k] && m.status != TILDE_MATCH_UNIQUE; k++)
    {
      guint n;
      const TildeType *const *sigs = tilde_library_signatures (info->functions[k], &n);

      tilde_overload_resolve (sigs, n, args, n_args, &m);
    }
  if (m.status != TILDE_MATCH_UNIQUE)
    m.status = TILDE_MATCH_NONE;
  if (m.status == TILDE_MATCH_NONE && message)
    *message = operator_message (op, args, n_args);
  if (match)
    *match = m;
  return m.status;
}

/* -------------------------------------------------------- deprecations */

static int
deprecation_compare (const void *key, const void *elem)
{
  return strcmp (key, ((const TildeLibDeprecationDef *) elem)->name);
}

/* The removed _log forms of distribution functions: foo_log, foo_cdf_log,
 * foo_ccdf_log; *replacement receives a newly allocated name. */
static gboolean
removed_distribution_form (const char *name, char **replacement)
{
  static const struct { const char *old, *new_; guint need; } forms[] = {
    { "_ccdf_log", "_lccdf", TILDE_DIST_LCCDF },
    { "_cdf_log", "_lcdf", TILDE_DIST_LCDF | TILDE_DIST_CDF },
    { "_log", NULL, TILDE_DIST_LPDF | TILDE_DIST_LPMF },
  };

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      g_autofree char *family = NULL;
      guint bits;

      if (!g_str_has_suffix (name, forms[i].old))
        continue;
      family = g_strndup (name, strlen (name) - strlen (forms[i].old));
      bits = tilde_library_distribution_suffixes (family);
      if ((bits & forms[i].need) == 0)
        return FALSE;
      if (forms[i].new_)
        *replacement = g_strconcat (family, forms[i].new_, NULL);
      else
        *replacement = g_strconcat (family, (bits & TILDE_DIST_LPDF) ? "_lpdf" : "_lpmf", NULL);
      return TRUE;
    }
  return FALSE;
}

/* Interned replacement names for the distribution forms, so that the
 * returned string outlives the call. */
static const char *
intern_name (char *owned)
{
  const char *s = g_intern_string (owned);

  g_free (owned);
  return s;
}

gboolean
tilde_library_deprecation (const char *name, const char **replacement,
                           int *major, int *minor, gboolean *removed)
{
  const TildeLibDeprecationDef *d;
  char *dist = NULL;

  g_return_val_if_fail (name != NULL, FALSE);
  d = bsearch (name, _tilde_lib_deprecations, _tilde_lib_n_deprecations,
               sizeof (TildeLibDeprecationDef), deprecation_compare);
  if (d != NULL)
    {
      if (replacement)
        *replacement = d->replacement;
      if (major)
        *major = d->major;
      if (minor)
        *minor = d->minor;
      if (removed)
        *removed = d->removed;
      return TRUE;
    }
  /* poisson_log or neg_binomial_2_log are families, not old spellings */
  if (find_entry (name) != NULL || tilde_library_distribution_suffixes (name) != 0
      || !removed_distribution_form (name, &dist))
    return FALSE;
  if (replacement)
    *replacement = intern_name (dist);
  else
    g_free (dist);
  if (major)
    *major = 2;
  if (minor)
    *minor = 33;
  if (removed)
    *removed = TRUE;
  return TRUE;
}

char *
tilde_library_deprecation_message (const char *name)
{
  const char *repl;
  int major, minor;
  gboolean removed;

  if (!tilde_library_deprecation (name, &repl, &major, &minor, &removed))
    return NULL;
  if (!removed)
    {
      if (strcmp (name, "lkj_cov") == 0)
        return g_strdup ("lkj_cov is deprecated and will be removed in Stan 3.0. Use "
                         "lkj_corr with an independent lognormal distribution on the "
                         "scales, see: https://mc-stan.org/docs/reference-manual/"
                         "deprecations.html#lkj_cov-distribution");
      if (g_str_has_prefix (name, "integrate_ode"))
        return g_strdup_printf ("%s is deprecated and will be removed in Stan %d.%d. Use %s "
                                "instead. \nThe new interface is slightly different, see: "
                                "https://mc-stan.org/users/documentation/case-studies/"
                                "convert_odes.html", name, major, minor, repl);
      return g_strdup_printf ("%s is deprecated and will be removed in Stan %d.%d. Use %s "
                              "instead. This can be automatically changed using the "
                              "canonicalize flag for stanc", name, major, minor, repl);
    }
  if (strcmp (name, "get_lp") == 0)
    return g_strdup ("The get_lp() function was removed in Stan 2.33.0. Use target() "
                     "instead. This can be done automatically with the canonicalize "
                     "flag for stanc");
  if (strcmp (name, "if_else") == 0)
    return g_strdup ("The if_else() function was removed in Stan 2.33.0. Use the "
                     "conditional operator (x ? y : z) instead; this can be "
                     "automatically changed using the canonicalize flag for stanc");
  if (strcmp (name, "increment_log_prob") == 0)
    return g_strdup ("The increment_log_prob(...); function was removed in Stan 2.33.0. "
                     "Use target += ...; instead. This can be done automatically with "
                     "the canonicalize flag for stanc");
  return g_strdup_printf ("%s was removed in Stan %d.%d. Use %s instead. This can be "
                          "automatically changed using the canonicalize flag for stanc",
                          name, major, minor, repl);
}

/* ------------------------------------------------------------ spelling */

const char *
tilde_library_suggest (const char *name)
{
  gsize len;
  guint limit, best_d = G_MAXUINT;
  const char *best = NULL;

  g_return_val_if_fail (name != NULL, NULL);
  if (tilde_library_has_function (name))
    return NULL;
  len = strlen (name);
  /* short names tolerate one edit, or every two-letter name would match */
  limit = len <= 4 ? 1 : 2;
  for (guint i = 0; i < tilde_library_n_names (); i++)
    {
      const char *cand = tilde_library_name (i);
      gsize cl = strlen (cand);
      guint d;

      if ((cl > len ? cl - len : len - cl) > limit)
        continue;
      d = tilde_edit_distance (name, cand);
      if (d > 0 && d <= limit && d < best_d)
        {
          best_d = d;
          best = cand;
        }
    }
  return best;
}
