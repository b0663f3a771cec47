/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

/* Enough for any sensible call; longer argument lists go to the heap. */
#define SMALL_ARGS 16

/* ------------------------------------------------------------ names */

static const struct { const char *word; TildeNameSuffix suffix; } suffix_words[] = {
  { "lpdf", TILDE_SUFFIX_LPDF }, { "lupdf", TILDE_SUFFIX_LUPDF },
  { "lpmf", TILDE_SUFFIX_LPMF }, { "lupmf", TILDE_SUFFIX_LUPMF },
  { "cdf", TILDE_SUFFIX_CDF }, { "lcdf", TILDE_SUFFIX_LCDF },
  { "lccdf", TILDE_SUFFIX_LCCDF }, { "ccdf", TILDE_SUFFIX_CCDF },
  { "rng", TILDE_SUFFIX_RNG }, { "lp", TILDE_SUFFIX_LP },
  { "jacobian", TILDE_SUFFIX_JACOBIAN }, { "constrain", TILDE_SUFFIX_CONSTRAIN },
  { "unconstrain", TILDE_SUFFIX_UNCONSTRAIN },
};

TildeNameSuffix
_tilde_name_suffix (const char *name)
{
  const char *us = strrchr (name, '_');

  if (us == NULL)
    return TILDE_SUFFIX_NONE;
  for (guint i = 0; i < G_N_ELEMENTS (suffix_words); i++)
    if (strcmp (us + 1, suffix_words[i].word) == 0)
      return suffix_words[i].suffix;
  return TILDE_SUFFIX_NONE;
}

gboolean
_tilde_has_conditioning_suffix (const char *name)
{
  switch (_tilde_name_suffix (name))
    {
    case TILDE_SUFFIX_LPDF: case TILDE_SUFFIX_LUPDF: case TILDE_SUFFIX_LPMF:
    case TILDE_SUFFIX_LUPMF: case TILDE_SUFFIX_CDF: case TILDE_SUFFIX_LCDF:
    case TILDE_SUFFIX_LCCDF:
      return TRUE;
    default:
      return FALSE;
    }
}

const char *
_tilde_normalized_name (const char *name)
{
  TildeNameSuffix sfx = _tilde_name_suffix (name);
  gsize len;
  char buf[256];

  if (sfx != TILDE_SUFFIX_LUPDF && sfx != TILDE_SUFFIX_LUPMF)
    return name;
  len = strlen (name);
  if (len >= sizeof buf)
    return name;
  /* foo_lupdf -> foo_lpdf */
  memcpy (buf, name, len - 5);
  memcpy (buf + len - 5, "lp", 2);
  memcpy (buf + len - 3, name + len - 2, 3);
  return g_intern_string (buf);
}

gboolean
_tilde_library_name_yields (const char *name)
{
  TildeNameSuffix sfx = _tilde_name_suffix (name);

  return sfx == TILDE_SUFFIX_JACOBIAN || sfx == TILDE_SUFFIX_CONSTRAIN
         || sfx == TILDE_SUFFIX_UNCONSTRAIN;
}

const TildeType *const *
_tilde_check_library_signatures (TildeChecker *c, const char *name, guint *n)
{
  if (_tilde_library_name_yields (name)
      && tilde_scope_lookup_function (c->scope, g_intern_string (name)))
    {
      *n = 0;
      return NULL;
    }
  return tilde_library_signatures (name, n);
}

static char *
concat_name (const char *a, const char *b)
{
  return g_strconcat (a, b, NULL);
}

/* Whether anything (variable, user or library function) answers to `name`. */
static gboolean
name_known (TildeChecker *c, const char *name)
{
  const char *key = g_intern_string (name);

  return tilde_scope_lookup_variable (c->scope, key) != NULL
         || tilde_scope_lookup_function (c->scope, key) != NULL
         || tilde_library_has_function (key);
}

/* ------------------------------------------------------------ arguments */

typedef struct {
  TildeArgType  small[SMALL_ARGS];
  TildeArgType *args;
  guint         n;
} ArgList;

static void
args_init (ArgList *a, TildeExpr *const *exprs, guint n)
{
  a->n = n;
  a->args = n <= SMALL_ARGS ? a->small : g_new (TildeArgType, n);
  for (guint i = 0; i < n; i++)
    {
      a->args[i].ad = exprs[i]->ad_level;
      a->args[i].type = exprs[i]->type;
    }
}

static void
args_clear (ArgList *a)
{
  if (a->args != a->small)
    g_free (a->args);
}

static gboolean
check_args (TildeChecker *c, TildeExpr **args, int n)
{
  gboolean ok = TRUE;

  for (int i = 0; i < n; i++)
    ok &= _tilde_check_expr (c, args[i]);
  return ok;
}

static TildeAdLevel
call_ad (const TildeType *type, TildeExpr **args, int n)
{
  TildeAdLevel ad = TILDE_AD_DATA;

  for (int i = 0; i < n; i++)
    ad = tilde_ad_lub (ad, args[i]->ad_level);
  return _tilde_ad_for_type (ad, type);
}

/* ------------------------------------------------------------ resolution */

typedef struct {
  TildeMatch     match;
  TildeFunction *user;      /* the chosen user overload, or NULL */
  gboolean       exists;    /* some function of that name exists */
} Resolution;

/* Overload resolution among the user's overloads of `key` and the
 * library's; `shown` is the name messages use. On failure *message gets
 * stanc's explanation when `message` is not NULL. */
static void
resolve (TildeChecker *c, const char *key, const char *shown, const TildeArgType *args,
         guint n, Resolution *r, char **message)
{
  TildeFunction *user = tilde_scope_lookup_function (c->scope, g_intern_string (key));
  guint n_lib = 0, n_user = 0, k = 0;
  const TildeType *const *lib = _tilde_check_library_signatures (c, key, &n_lib);
  g_autofree const TildeType **cands = NULL;
  GPtrArray *order;

  memset (r, 0, sizeof *r);
  if (message)
    *message = NULL;
  if (user == NULL)
    {
      r->exists = lib != NULL;
      if (lib)
        _tilde_cached_library_resolve (key, args, n, &r->match);
      else
        tilde_overload_resolve (NULL, 0, args, n, &r->match);
      if (message && r->match.status == TILDE_MATCH_NONE && lib)
        *message = tilde_overload_mismatch_message (shown, lib, n_lib, args, n);
      else if (message && r->match.status == TILDE_MATCH_AMBIGUOUS)
        *message = tilde_overload_ambiguity_message (shown, lib, n_lib, args, n);
      return;
    }
  /* stanc's environment lists the newest user overload first, then the library */
  order = g_ptr_array_new ();
  for (TildeFunction *f = user; f; f = f->next)
    g_ptr_array_insert (order, 0, f);
  n_user = order->len;
  cands = g_new (const TildeType *, n_user + n_lib);
  for (guint i = 0; i < n_user; i++)
    cands[k++] = ((TildeFunction *) g_ptr_array_index (order, i))->type;
  for (guint i = 0; i < n_lib; i++)
    cands[k++] = lib[i];
  r->exists = TRUE;
  tilde_overload_resolve (cands, k, args, n, &r->match);
  if (r->match.status == TILDE_MATCH_UNIQUE && r->match.index < n_user)
    r->user = g_ptr_array_index (order, r->match.index);
  if (message && r->match.status == TILDE_MATCH_NONE)
    *message = tilde_overload_mismatch_message (shown, cands, k, args, n);
  else if (message && r->match.status == TILDE_MATCH_AMBIGUOUS)
    *message = tilde_overload_ambiguity_message (shown, cands, k, args, n);
  g_ptr_array_unref (order);
}

/* A deprecation of `name`, or of its family for a density (lkj_cov for
 * lkj_cov_lpdf), from the library's table. */
static void
warn_deprecated (TildeChecker *c, const TildeSpan *span, const char *name)
{
  gboolean removed = FALSE;
  g_autofree char *family = NULL;

  switch (_tilde_name_suffix (name))
    {
    case TILDE_SUFFIX_LPDF: case TILDE_SUFFIX_LUPDF:
    case TILDE_SUFFIX_LPMF: case TILDE_SUFFIX_LUPMF:
      family = g_strndup (name, (gsize) (strrchr (name, '_') - name));
      if (tilde_library_deprecation (family, NULL, NULL, NULL, NULL))
        name = family;
      break;
    default:
      break;
    }
  if (tilde_library_deprecation (name, NULL, NULL, NULL, &removed) && !removed)
    {
      g_autofree char *msg = tilde_library_deprecation_message (name);
      g_autofree char *escaped = NULL;
      GString *s = g_string_new (NULL);

      for (const char *p = msg; *p; p++)
        {
          if (*p == '@')
            g_string_append_c (s, '@');
          g_string_append_c (s, *p);
        }
      escaped = g_string_free (s, FALSE);
      _tilde_check_warning (c, span, "%s", escaped);
    }
}

/* ------------------------------------------------------------ not found */

/* The _cdf_log and _ccdf_log suffixes went with Stan 2.33: such a name is
 * an undeclared identifier like any other. */
static const char *const cumulative_suffixes[] = {
  "cdf", "lcdf", "lccdf", "rng",
};

/* "foo_lcdf" -> ("foo", "lcdf"): the part after the last underscore. */
static gboolean
split_suffix (const char *name, char **prefix, const char **suffix)
{
  const char *us = strrchr (name, '_');

  if (us == NULL)
    return FALSE;
  *prefix = g_strndup (name, (gsize) (us - name));
  *suffix = us + 1;
  return TRUE;
}

static const char *
other_density_suffix (const char *suffix)
{
  if (strcmp (suffix, "lpdf") == 0) return "lpmf";
  if (strcmp (suffix, "lupdf") == 0) return "lupmf";
  if (strcmp (suffix, "lpmf") == 0) return "lpdf";
  if (strcmp (suffix, "lupmf") == 0) return "lupdf";
  return NULL;
}

static void
report_unknown_function (TildeChecker *c, const TildeSpan *span, const char *name,
                         gboolean returning)
{
  g_autofree char *prefix = NULL;
  const char *suffix = NULL;
  const char *near;

  if (returning && split_suffix (name, &prefix, &suffix))
    {
      const char *other = other_density_suffix (suffix);

      if (other)
        {
          g_autofree char *alt = concat_name (prefix, strstr (suffix, "pmf") ? "_lpdf"
                                                               : "_lpmf");

          if (name_known (c, alt))
            {
              /* laid out as stanc does: the last two names may go to a new line */
              _tilde_check_error (c, span, "@[<hov>Function '%s_%s' is not implemented for "
                                  "distribution@ '%s',@ use@ '%s_%s' instead.@]",
                                  prefix, suffix, prefix, prefix, other);
              return;
            }
        }
      else if (tilde_library_distribution_suffixes (prefix) != 0)
        for (guint i = 0; i < G_N_ELEMENTS (cumulative_suffixes); i++)
          if (strcmp (suffix, cumulative_suffixes[i]) == 0)
            {
              if (strcmp (suffix, "rng") == 0)
                _tilde_check_error (c, span, "@[<hov>Function '%s_rng' is not implemented for "
                                    "distribution@ '%s'.@]", prefix, prefix);
              else
                _tilde_check_error (c, span, "Function '%s_%s' is not implemented for "
                                    "distribution '%s'.", prefix, suffix, prefix);
              return;
            }
    }
  near = _tilde_check_nearest_ident (c, name);
  _tilde_check_error (c, span, "@[A %s function was expected but an undeclared identifier "
                      "'%s' was supplied.%s%s%s@]", returning ? "returning" : "non-returning",
                      name, near ? "@ Did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* ------------------------------------------------------------ higher order */

static void
report_variadic_ambiguity (TildeChecker *c, const TildeSpan *span, const char *fname,
                           const TildeType *const *sigs, guint n)
{
  GString *list = g_string_new (NULL);
  g_autofree char *text = NULL;

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (list, "@,");
      g_string_append_printf (list, "@[<hov>%s@]", _tilde_type_name (sigs[i]));
    }
  text = g_string_free (list, FALSE);
  _tilde_check_error (c, span, "No unique minimum promotion found for function '%s'.@ "
                      "Overloaded functions must not have multiple equally valid promotion "
                      "paths.@ This function has several:@ @[<v>%s@]@ Consider defining a new "
                      "signature for the exact types needed or@ re-thinking existing "
                      "definitions.", fname, text);
}

static gboolean
reduce_sum_slice_ok (const TildeType *t)
{
  TildeTypeKind k = tilde_type_kind (t);

  return k == TILDE_TYPE_INT || k == TILDE_TYPE_REAL || k == TILDE_TYPE_VECTOR
         || k == TILDE_TYPE_ROW_VECTOR || k == TILDE_TYPE_MATRIX;
}

static gboolean
check_reduce_sum_slice (TildeChecker *c, TildeExpr *slice)
{
  const TildeType *inner = tilde_type_array_base (slice->type);

  if (tilde_type_array_dims (slice->type) == 0)
    {
      g_autofree char *found = _tilde_found_type (slice->type);
      _tilde_check_error (c, &slice->span,
                          "The second argument to reduce_sum must be an array.%s", found);
      return FALSE;
    }
  if (!reduce_sum_slice_ok (inner))
    {
      const TildeType *expected[5] = { tilde_type_int (), tilde_type_real (),
                                       tilde_type_vector (), tilde_type_row_vector (),
                                       tilde_type_matrix () };
      g_autofree char *list = _tilde_expected_types (expected, 5);
      g_autofree char *found = _tilde_found_type (inner);

      _tilde_check_error (c, &slice->span,
                          "The inner type in reduce_sum array must be %s.%s", list, found);
      return FALSE;
    }
  return TRUE;
}

/* The candidate function types a function argument may stand for. */
static GPtrArray *
callback_candidates (TildeChecker *c, TildeExpr *fexpr, GPtrArray **users)
{
  const char *key = _tilde_normalized_name (fexpr->u.variable.name);
  GPtrArray *cands = g_ptr_array_new ();
  TildeVariable *var = tilde_scope_lookup_variable (c->scope, key);
  TildeFunction *user = tilde_scope_lookup_function (c->scope, key);
  guint n_lib = 0;
  const TildeType *const *lib = _tilde_check_library_signatures (c, key, &n_lib);

  *users = g_ptr_array_new ();
  if (var)
    {
      g_ptr_array_add (cands, (gpointer) var->type);
      g_ptr_array_add (*users, NULL);
    }
  for (TildeFunction *f = user; f; f = f->next)
    {
      const TildeType *t = f->type;

      if (tilde_type_fun_kind (t) == TILDE_FUN_LPDF || tilde_type_fun_kind (t) == TILDE_FUN_LUPDF)
        t = tilde_type_function_with_kind (t, tilde_fun_kind_from_name (fexpr->u.variable.name));
      g_ptr_array_insert (cands, var ? 1 : 0, (gpointer) t);
      g_ptr_array_insert (*users, var ? 1 : 0, f);
    }
  for (guint i = 0; i < n_lib; i++)
    {
      g_ptr_array_add (cands, (gpointer) lib[i]);
      g_ptr_array_add (*users, NULL);
    }
  return cands;
}

static gboolean
check_variadic_call (TildeChecker *c, TildeExpr *e, const TildeVariadic *v)
{
  TildeExpr **exprs = e->u.call.args;
  int n = e->u.call.n_args;
  const char *name = e->u.call.name.name;
  ArgList a;
  TildeMatch m;
  g_autofree char *message = NULL;

  args_init (&a, exprs, (guint) n);
  if (n > 0 && exprs[0]->kind == TILDE_EXPR_VARIABLE
      && (!tilde_variadic_is_reduce_sum (v) || n > 1))
    {
      TildeExpr *fexpr = exprs[0];
      g_autoptr (GPtrArray) users = NULL;
      g_autoptr (GPtrArray) cands = NULL;
      g_autoptr (GPtrArray) best = g_ptr_array_new ();
      int best_cost = -1, chosen = -1;
      char *first_message = NULL;
      int first_blame = -1;

      if (tilde_variadic_is_reduce_sum (v) && !check_reduce_sum_slice (c, exprs[1]))
        {
          args_clear (&a);
          return FALSE;
        }
      cands = callback_candidates (c, fexpr, &users);
      for (guint i = 0; i < cands->len; i++)
        {
          const TildeType *ft = g_ptr_array_index (cands, i);
          char *msg = NULL;

          a.args[0].type = ft;
          a.args[0].ad = _tilde_check_origin_ad (c, TILDE_BLOCK_FUNCTIONS, ft);
          if (tilde_variadic_resolve (v, a.args, a.n, &m,
                                      first_message ? NULL : &msg) == TILDE_MATCH_UNIQUE)
            {
              if (best_cost < 0 || (int) m.cost < best_cost)
                {
                  best_cost = (int) m.cost;
                  g_ptr_array_set_size (best, 0);
                  chosen = (int) i;
                }
              if ((int) m.cost == best_cost)
                g_ptr_array_add (best, (gpointer) ft);
            }
          else if (first_message == NULL)
            {
              first_message = msg;
              first_blame = m.blame;
            }
        }
      if (best->len == 1)
        {
          g_free (first_message);
          fexpr->type = g_ptr_array_index (cands, chosen);
          fexpr->u.variable.decl = g_ptr_array_index (users, chosen);
          a.args[0].type = fexpr->type;
          e->type = tilde_variadic_return (v);
          e->ad_level = call_ad (e->type, exprs, n);
          args_clear (&a);
          return TRUE;
        }
      args_clear (&a);
      if (best->len > 1)
        {
          g_free (first_message);
          report_variadic_ambiguity (c, &e->span, fexpr->u.variable.name,
                                     (const TildeType *const *) best->pdata, best->len);
          return FALSE;
        }
      _tilde_check_error_take (c, first_blame >= 0 ? &exprs[first_blame]->span : &e->span,
                               first_message ? first_message
                               : g_strdup_printf ("Ill-typed arguments supplied to function '%s'.",
                                                  name));
      return FALSE;
    }
  tilde_variadic_resolve (v, a.args, a.n, &m, &message);
  args_clear (&a);
  _tilde_check_error_take (c, m.blame >= 0 ? &exprs[m.blame]->span : &e->span,
                           g_steal_pointer (&message));
  return FALSE;
}

/* ------------------------------------------------------------ ordinary calls */

static gboolean
check_normal_call (TildeChecker *c, TildeExpr *e)
{
  const char *name = e->u.call.name.name;
  const char *key = _tilde_normalized_name (name);
  TildeVariable *var = tilde_scope_lookup_variable (c->scope, key);
  gboolean lib = tilde_library_has_function (key);
  Resolution r;
  ArgList a;
  char *message = NULL;

  if (var && !lib)
    {
      _tilde_check_error (c, &e->span, "A returning function was expected but a non-function "
                          "value '%s' was supplied.", name);
      return FALSE;
    }
  if (!lib && tilde_scope_lookup_function (c->scope, key) == NULL)
    {
      report_unknown_function (c, &e->span, name, TRUE);
      return FALSE;
    }
  args_init (&a, e->u.call.args, (guint) e->u.call.n_args);
  resolve (c, key, name, a.args, a.n, &r, &message);
  args_clear (&a);
  if (r.match.status != TILDE_MATCH_UNIQUE)
    {
      _tilde_check_error_take (c, &e->span, message ? message : g_strdup_printf (
                                 "Ill-typed arguments supplied to function '%s'.", name));
      return FALSE;
    }
  if (tilde_type_kind (r.match.return_type) == TILDE_TYPE_VOID)
    {
      _tilde_check_error (c, &e->span, "A returning function was expected but a "
                          "non-returning function '%s' was supplied.", name);
      return FALSE;
    }
  e->u.call.decl = r.user;
  e->type = r.match.return_type;
  e->ad_level = call_ad (e->type, e->u.call.args, e->u.call.n_args);
  if (r.user == NULL)
    warn_deprecated (c, &e->span, name);
  return TRUE;
}

/* ------------------------------------------------------------ suffix rules */

static gboolean
in_kind (const TildeChecker *c, TildeFunKind kind)
{
  return c->in_function && c->fun_kind == kind;
}

/* stanc's verify_fn_target_plus_equals, verify_fn_jacobian_plus_equals and
 * verify_fn_rng, in that order. */
static gboolean
check_suffix_rules (TildeChecker *c, const TildeSpan *span, const char *name,
                    TildeExpr **args, int n)
{
  TildeNameSuffix sfx = _tilde_name_suffix (name);

  if (sfx == TILDE_SUFFIX_LP)
    {
      if (c->block == TILDE_BLOCK_TRANSFORMED_PARAMETERS && !c->in_function)
        _tilde_check_warning (c, span, "Using _lp functions in transformed parameters is "
                              "deprecated and will be disallowed in Stan 2.39. Use an _jacobian "
                              "function instead, as this allows change of variable adjustments "
                              "which are conditionally enabled by the algorithms.");
      else if (!(in_kind (c, TILDE_FUN_LP) || c->block == TILDE_BLOCK_MODEL))
        {
          _tilde_check_error (c, span, "Target can only be accessed in the model block or in "
                              "definitions of functions with the suffix _lp.");
          return FALSE;
        }
    }
  if (sfx == TILDE_SUFFIX_JACOBIAN)
    {
      gboolean any_ad = FALSE;

      if (!(in_kind (c, TILDE_FUN_JACOBIAN)
            || (c->block == TILDE_BLOCK_TRANSFORMED_PARAMETERS && !c->in_function)))
        {
          _tilde_check_error (c, span, "The jacobian adjustment can only be applied in the "
                              "transformed parameters block or in functions ending with "
                              "_jacobian");
          return FALSE;
        }
      for (int i = 0; i < n; i++)
        any_ad |= args[i]->ad_level == TILDE_AD_AUTODIFF;
      if (!any_ad)
        {
          g_autofree char *base = g_strndup (name, strlen (name) - strlen ("_jacobian"));
          g_autofree char *alt = concat_name (base, "_constrain");

          _tilde_check_warning (c, span, "Calling a _jacobian function without any parameter "
                                "arguments still applies the Jacobian adjustments, ensure this "
                                "is intentional!%s%s%s", name_known (c, alt)
                                ? " Consider using " : "", name_known (c, alt) ? alt : "",
                                name_known (c, alt) ? " instead." : "");
        }
    }
  if (sfx == TILDE_SUFFIX_RNG)
    {
      if (c->in_toplevel_decl)
        {
          _tilde_check_error (c, span, "Random number generators are not allowed in top level "
                              "size declarations.");
          return FALSE;
        }
      if (!(in_kind (c, TILDE_FUN_RNG) || c->block == TILDE_BLOCK_GENERATED_QUANTITIES
            || c->block == TILDE_BLOCK_TRANSFORMED_DATA))
        {
          _tilde_check_error (c, span,
                          "Random number generators are only allowed in transformed data "
                                "block, generated quantities block or user-defined functions "
                                "with names ending in _rng.");
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
_tilde_check_call_expr (TildeChecker *c, TildeExpr *e)
{
  const char *name = e->u.call.name.name;
  gboolean cond = e->kind == TILDE_EXPR_COND_CALL;
  const TildeVariadic *v;
  gboolean ok;

  if (!check_args (c, e->u.call.args, e->u.call.n_args))
    return FALSE;
  v = tilde_library_variadic (name);
  ok = v ? check_variadic_call (c, e, v) : check_normal_call (c, e);
  if (!ok)
    return FALSE;
  if (!_tilde_check_identifier (c, name, &e->u.call.name.span))
    return FALSE;
  if (cond && !_tilde_has_conditioning_suffix (name))
    {
      _tilde_check_error (c, &e->span,
                          "Only functions with names ending in _lpdf, _lupdf, _lpmf, _lupmf, "
                            "_cdf, _lcdf, _lccdf can make use of conditional notation.");
      return FALSE;
    }
  if (!cond && _tilde_has_conditioning_suffix (name))
    {
      _tilde_check_error (c, &e->span,
                          "Probability functions with suffixes _lpdf, _lupdf, _lpmf, _lupmf, "
                            "_cdf, _lcdf and _lccdf, require a vertical bar (|) between the "
                            "first two arguments.");
      return FALSE;
    }
  if (!check_suffix_rules (c, &e->span, name, e->u.call.args, e->u.call.n_args))
    return FALSE;
  if ((_tilde_name_suffix (name) == TILDE_SUFFIX_LUPDF
       || _tilde_name_suffix (name) == TILDE_SUFFIX_LUPMF)
      && !(in_kind (c, TILDE_FUN_LPDF) || c->block == TILDE_BLOCK_MODEL))
    {
      _tilde_check_error (c, &e->span,
                          "Functions with names ending in _lupdf and _lupmf can only be used "
                            "in the model block or user-defined functions with names ending in "
                            "_lpdf or _lpmf.");
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ call statements */

void
_tilde_check_call_stmt (TildeChecker *c, TildeStmt *s)
{
  const char *name = s->u.call.name.name;
  TildeVariable *var;
  Resolution r;
  ArgList a;
  char *message = NULL;

  if (!check_args (c, s->u.call.args, s->u.call.n_args))
    return;
  if (!_tilde_check_identifier (c, name, &s->u.call.name.span))
    return;
  if (!check_suffix_rules (c, &s->span, name, s->u.call.args, s->u.call.n_args))
    return;
  var = tilde_scope_lookup_variable (c->scope, name);
  if (var && !tilde_library_has_function (name))
    {
      _tilde_check_error (c, &s->span, "A non-returning function was expected but a "
                          "non-function value '%s' was supplied.", name);
      return;
    }
  if (!tilde_library_has_function (name) && tilde_scope_lookup_function (c->scope, name) == NULL)
    {
      report_unknown_function (c, &s->span, name, FALSE);
      return;
    }
  if (tilde_library_variadic (name))
    {
      _tilde_check_error (c, &s->span, "A non-returning function was expected but a returning "
                          "function '%s' was supplied.", name);
      return;
    }
  args_init (&a, s->u.call.args, (guint) s->u.call.n_args);
  resolve (c, name, name, a.args, a.n, &r, &message);
  args_clear (&a);
  if (r.match.status != TILDE_MATCH_UNIQUE)
    {
      _tilde_check_error_take (c, &s->span, message ? message : g_strdup_printf (
                                 "Ill-typed arguments supplied to function '%s'.", name));
      return;
    }
  if (tilde_type_kind (r.match.return_type) != TILDE_TYPE_VOID)
    {
      _tilde_check_error (c, &s->span, "A non-returning function was expected but a returning "
                          "function '%s' was supplied.", name);
      return;
    }
  s->u.call.decl = r.user;
  if (r.user == NULL)
    warn_deprecated (c, &s->span, name);
}

/* ------------------------------------------------------------ ~ statements */

/* Ranks match results the way stanc picks between foo_lpmf and foo_lpdf. */
static int
rank (const Resolution *r)
{
  switch (r->match.status)
    {
    case TILDE_MATCH_UNIQUE: return 0;
    case TILDE_MATCH_AMBIGUOUS: return 1;
    default: return r->exists ? 2 : 3;
    }
}

static gboolean
cumulative_defined (TildeChecker *c, const char *family, const ArgList *a)
{
  static const char *const suffixes[2] = { "_lcdf", "_lccdf" };

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *fn = concat_name (family, suffixes[i]);
      Resolution r;

      resolve (c, fn, fn, a->args, a->n, &r, NULL);
      if (r.match.status != TILDE_MATCH_UNIQUE || !tilde_type_is_real (r.match.return_type))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_truncation_bound (TildeChecker *c, TildeStmt *s, TildeExpr *bound, const ArgList *rest)
{
  ArgList a;
  gboolean ok;

  a.n = rest->n;
  a.args = g_new (TildeArgType, a.n);
  memcpy (a.args, rest->args, sizeof (TildeArgType) * a.n);
  a.args[0].ad = bound->ad_level;
  a.args[0].type = bound->type;
  ok = cumulative_defined (c, s->u.tilde.distribution.name, &a);
  if (!ok)
    {
      GString *list = g_string_new (NULL);
      g_autofree char *text = NULL;

      for (guint i = 0; i < a.n; i++)
        {
          if (i > 0)
            g_string_append (list, ",@ ");
          g_string_append_printf (list, "%s%s", a.args[i].ad == TILDE_AD_DATA ? "data " : "",
                                  _tilde_type_name (a.args[i].type));
        }
      text = g_string_free (list, FALSE);
      _tilde_check_error (c, &s->span, "Truncation is only defined if distribution has _lcdf "
                          "and _lccdf functions implemented with appropriate signature.\n"
                          "No matching signature for arguments: \n@[(%s)@]", text);
    }
  g_free (a.args);
  return ok;
}

void
_tilde_check_tilde (TildeChecker *c, TildeStmt *s)
{
  const char *dist = s->u.tilde.distribution.name;
  int n = s->u.tilde.n_args + 1;
  g_autofree TildeExpr **all = g_new (TildeExpr *, n);
  gboolean ok;
  Resolution best = { 0 }, r;
  g_autofree char *best_message = NULL;
  ArgList a;

  all[0] = s->u.tilde.arg;
  if (s->u.tilde.n_args > 0)
    memcpy (all + 1, s->u.tilde.args, sizeof (TildeExpr *) * (gsize) s->u.tilde.n_args);
  ok = check_args (c, all, n);
  if (s->u.tilde.trunc_lower)
    ok &= _tilde_check_int_or_real_expr (c, s->u.tilde.trunc_lower, "Truncation bound");
  if (s->u.tilde.trunc_upper)
    ok &= _tilde_check_int_or_real_expr (c, s->u.tilde.trunc_upper, "Truncation bound");
  if (!ok || !_tilde_check_identifier (c, dist, &s->u.tilde.distribution.span))
    return;
  if (g_str_has_suffix (dist, "_lpdf") || g_str_has_suffix (dist, "_lpmf")
      || g_str_has_suffix (dist, "_lupdf") || g_str_has_suffix (dist, "_lupmf"))
    {
      _tilde_check_error (c, &s->u.tilde.distribution.span,
                          "~ statement should refer to a distribution without its "
                          "\"_lpdf/_lupdf\" or \"_lpmf/_lupmf\" suffix.\nFor example, "
                          "\"target += normal_lpdf(y, 0, 1)\" should become \"y ~ normal(0, 1).\"");
      return;
    }
  if (!(in_kind (c, TILDE_FUN_LP) || c->block == TILDE_BLOCK_MODEL))
    {
      _tilde_check_error (c, &s->span, "Target can only be accessed in the model block or in "
                          "definitions of functions with the suffix _lp.");
      return;
    }
  if (g_str_has_suffix (dist, "_cdf") || g_str_has_suffix (dist, "_ccdf"))
    {
      gboolean ccdf = g_str_has_suffix (dist, "_ccdf");
      g_autofree char *base = g_strndup (dist, strlen (dist) - (ccdf ? 5 : 4));

      _tilde_check_error (c, &s->span, "CDF and CCDF functions may not be used with distribution "
                          "notation (~). Use target += %s%s(...) instead.", base,
                          ccdf ? "_lccdf" : "_lcdf");
      return;
    }
  args_init (&a, all, (guint) n);
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *fn = concat_name (dist, k == 0 ? "_lpmf" : "_lpdf");
      char *msg = NULL;

      resolve (c, fn, dist, a.args, a.n, &r, &msg);
      if (k == 0 || rank (&r) < rank (&best))
        {
          best = r;
          g_free (best_message);
          best_message = msg;
        }
      else
        g_free (msg);
    }
  if (best.match.status != TILDE_MATCH_UNIQUE)
    {
      if (!best.exists)
        {
          if (tilde_type_is_int_type (all[0]->type))
            _tilde_check_error (c, &s->span, "Ill-typed arguments to distribution statement (~). "
                                "No function '%s_lpmf' or '%s_lpdf' was found when looking for "
                                "distribution '%s'.", dist, dist, dist);
          else
            _tilde_check_error (c, &s->span, "Ill-typed arguments to '~'-statement. No function "
                                "'%s_lpdf' was found when looking for distribution '%s'.",
                                dist, dist);
        }
      else
        _tilde_check_error_take (c, &s->span, g_steal_pointer (&best_message));
      args_clear (&a);
      return;
    }
  s->u.tilde.decl = best.user;
  if (best.user == NULL)
    warn_deprecated (c, &s->u.tilde.distribution.span, dist);
  if (s->u.tilde.trunc_lower && !check_truncation_bound (c, s, s->u.tilde.trunc_lower, &a))
    {
      args_clear (&a);
      return;
    }
  if (s->u.tilde.trunc_upper)
    check_truncation_bound (c, s, s->u.tilde.trunc_upper, &a);
  args_clear (&a);
}
