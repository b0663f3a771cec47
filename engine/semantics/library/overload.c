/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "overload.h"

#include <stdlib.h>
#include <string.h>

#include "doc-private.h"

/* stanc shows this many of the closest signatures */
#define MAX_SHOWN_SIGNATURES 5

/* ---------------------------------------------------------- mismatches
 * The structure of stanc's SignatureMismatch: why one argument list does not
 * fit a parameter list, kept to order candidates and to explain them. */

typedef struct _FunMismatch FunMismatch;

typedef enum {
  DETAIL_NONE,   /* plain type mismatch */
  DETAIL_SUFFIX, /* function arguments of different kinds */
  DETAIL_RETURN, /* function arguments with different return types */
  DETAIL_INPUT,  /* function arguments with incompatible parameters */
} Detail;

typedef struct {
  gboolean data_only;
  const TildeType *expected, *found;
  Detail detail;
  TildeFunKind suffix_expected, suffix_found;
  FunMismatch *input;
} TypeMismatch;

struct _FunMismatch {
  gboolean arg_count;
  guint expected_n, found_n;
  guint index; /* 1-based */
  TypeMismatch *error;
};

static void fun_mismatch_free (FunMismatch *m);

static void
type_mismatch_free (TypeMismatch *m)
{
  if (m == NULL)
    return;
  fun_mismatch_free (m->input);
  g_free (m);
}

static void
fun_mismatch_free (FunMismatch *m)
{
  if (m == NULL)
    return;
  type_mismatch_free (m->error);
  g_free (m);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FunMismatch, fun_mismatch_free)

static TypeMismatch *
type_mismatch_new (const TildeType *expected, const TildeType *found, Detail detail)
{
  TypeMismatch *m = g_new0 (TypeMismatch, 1);

  m->expected = expected;
  m->found = found;
  m->detail = detail;
  return m;
}

static FunMismatch *
arg_error_new (guint index, TypeMismatch *error)
{
  FunMismatch *m = g_new0 (FunMismatch, 1);

  m->index = index;
  m->error = error;
  return m;
}

static FunMismatch *
arg_count_new (guint expected, guint found)
{
  FunMismatch *m = g_new0 (FunMismatch, 1);

  m->arg_count = TRUE;
  m->expected_n = expected;
  m->found_n = found;
  return m;
}

static TildeFunKind
without_propto (TildeFunKind k)
{
  return k == TILDE_FUN_LUPDF ? TILDE_FUN_LPDF : k;
}

static int
scalar_promotion (const TildeType *to, const TildeType *from)
{
  TildeTypeKind t = tilde_type_kind (to), f = tilde_type_kind (from);

  if (f == TILDE_TYPE_INT && t == TILDE_TYPE_REAL)
    return 1;
  if (f == TILDE_TYPE_INT && t == TILDE_TYPE_COMPLEX)
    return 2;
  if ((f == TILDE_TYPE_REAL && t == TILDE_TYPE_COMPLEX)
      || (f == TILDE_TYPE_VECTOR && t == TILDE_TYPE_COMPLEX_VECTOR)
      || (f == TILDE_TYPE_ROW_VECTOR && t == TILDE_TYPE_COMPLEX_ROW_VECTOR)
      || (f == TILDE_TYPE_MATRIX && t == TILDE_TYPE_COMPLEX_MATRIX))
    return 1;
  return 0;
}

/* The parameters of a function type as an array (NULL when it has none). */
static const TildeArgType *
params_of (const TildeType *fn)
{
  return tilde_type_n_args (fn) ? tilde_type_arg (fn, 0) : NULL;
}

static FunMismatch *check_arguments (int depth,
                                     const TildeArgType *typs, guint n_typs,
                                     const TildeArgType *args, guint n_args,
                                     int *cost);

/* Whether a `found` may be passed where `expected` is asked; `depth` counts
 * how deep inside function types the comparison is (promotions only at 0). */
static TypeMismatch *
check_same_type (int depth, const TildeType *expected, const TildeType *found, int *cost)
{
  TildeTypeKind ke = tilde_type_kind (expected), kf = tilde_type_kind (found);

  *cost = 0;
  if (expected == found)
    return NULL;
  if (depth < 1 && (*cost = scalar_promotion (expected, found)) > 0)
    return NULL;
  if (ke == TILDE_TYPE_ARRAY && kf == TILDE_TYPE_ARRAY)
    {
      TypeMismatch *m = check_same_type (depth, tilde_type_element (expected),
                                         tilde_type_element (found), cost);
      if (m == NULL)
        return NULL;
      /* the error names the types as written, not their elements */
      type_mismatch_free (m);
      return type_mismatch_new (expected, found, DETAIL_NONE);
    }
  if (ke == TILDE_TYPE_TUPLE && kf == TILDE_TYPE_TUPLE
      && tilde_type_n_members (expected) == tilde_type_n_members (found))
    {
      int total = 0;

      for (guint i = 0; i < tilde_type_n_members (expected); i++)
        {
          int c;
          TypeMismatch *m = check_same_type (depth, tilde_type_member (expected, i),
                                             tilde_type_member (found, i), &c);
          if (m != NULL)
            {
              type_mismatch_free (m);
              return type_mismatch_new (expected, found, DETAIL_NONE);
            }
          total += c;
        }
      *cost = total;
      return NULL;
    }
  if (ke == TILDE_TYPE_FUNCTION && kf == TILDE_TYPE_FUNCTION)
    {
      TildeFunKind se = without_propto (tilde_type_fun_kind (expected));
      TildeFunKind sf = without_propto (tilde_type_fun_kind (found));
      FunMismatch *input;
      TypeMismatch *m;
      int c;

      if (se != sf)
        {
          m = type_mismatch_new (expected, found, DETAIL_SUFFIX);
          m->suffix_expected = se;
          m->suffix_found = sf;
          return m;
        }
      if (tilde_type_return (expected) != tilde_type_return (found))
        return type_mismatch_new (expected, found, DETAIL_RETURN);
      /* the supplied function must accept what the expected one is given */
      input = check_arguments (depth + 1, params_of (found), tilde_type_n_args (found),
                               params_of (expected), tilde_type_n_args (expected), &c);
      if (input == NULL)
        return NULL;
      m = type_mismatch_new (expected, found, DETAIL_INPUT);
      m->input = input;
      return m;
    }
  return type_mismatch_new (expected, found, DETAIL_NONE);
}

static FunMismatch *
check_arguments (int depth, const TildeArgType *typs, guint n_typs,
                 const TildeArgType *args, guint n_args, int *cost)
{
  int total = 0;

  *cost = -1;
  if (n_typs != n_args)
    return arg_count_new (n_typs, n_args);
  for (guint i = 0; i < n_typs; i++)
    {
      int c;
      TypeMismatch *m = check_same_type (depth, typs[i].type, args[i].type, &c);

      if (m != NULL)
        return arg_error_new (i + 1, m);
      if (typs[i].ad != args[i].ad
          && !(depth < 2 && tilde_ad_can_convert (typs[i].ad, args[i].ad)))
        {
          TypeMismatch *d = g_new0 (TypeMismatch, 1);
          d->data_only = TRUE;
          return arg_error_new (i + 1, d);
        }
      total += c;
    }
  *cost = total;
  return NULL;
}

static FunMismatch *
check_candidate (const TildeType *fn, const TildeArgType *args, guint n_args, int *cost)
{
  return check_arguments (0, params_of (fn), tilde_type_n_args (fn), args, n_args, cost);
}

/* ------------------------------------------------------- ordering */

/* How far a supplied type is from an expected one, for listing the closest
 * signatures first: first those of the same shape, then those with the same
 * scalar, nearer dimensionality first. */
static int
closeness_compare (const TypeMismatch *a, const TypeMismatch *b)
{
  int keys[2][3];
  const TypeMismatch *m[2] = { a, b };

  for (int i = 0; i < 2; i++)
    {
      int de = (int) tilde_type_count_dims (m[i]->expected);
      int df = (int) tilde_type_count_dims (m[i]->found);

      keys[i][0] = de != df;
      keys[i][1] = tilde_type_internal_scalar (m[i]->expected)
                   != tilde_type_internal_scalar (m[i]->found);
      keys[i][2] = abs (de - df);
    }
  for (int k = 0; k < 3; k++)
    if (keys[0][k] != keys[1][k])
      return keys[0][k] < keys[1][k] ? -1 : 1;
  return 0;
}

static int
detail_rank (Detail d)
{
  switch (d)
    {
    case DETAIL_SUFFIX: return 0;
    case DETAIL_RETURN: return 1;
    case DETAIL_INPUT: return 2;
    default: return 3;
    }
}

/* stanc's order: mismatches in later arguments (closer calls) first,
 * data-only problems before type problems, wrong argument counts last. */
static int
compare_errors (const FunMismatch *a, const FunMismatch *b)
{
  const TypeMismatch *ea, *eb;

  if (a->arg_count || b->arg_count)
    return a->arg_count == b->arg_count ? 0 : a->arg_count ? 1 : -1;
  if (a->index != b->index)
    return a->index > b->index ? -1 : 1;
  ea = a->error;
  eb = b->error;
  if (ea->data_only || eb->data_only)
    return ea->data_only == eb->data_only ? 0 : ea->data_only ? -1 : 1;
  if ((ea->detail == DETAIL_NONE) != (eb->detail == DETAIL_NONE))
    return ea->detail == DETAIL_NONE ? -1 : 1;
  if (ea->detail == DETAIL_NONE)
    return closeness_compare (ea, eb);
  if (ea->detail != eb->detail)
    return detail_rank (ea->detail) < detail_rank (eb->detail) ? -1 : 1;
  if (ea->detail == DETAIL_INPUT)
    return compare_errors (ea->input, eb->input);
  return 0;
}

/* --------------------------------------------------------- candidates */

typedef struct {
  guint index;
  const TildeType *fn;
  FunMismatch *error;
  int cost;
} Candidate;

static int
candidate_by_return (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Candidate *a = pa, *b = pb;

  return tilde_type_compare (tilde_type_return (a->fn), tilde_type_return (b->fn));
}

static int
candidate_by_error (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Candidate *a = pa, *b = pb;

  return compare_errors (a->error, b->error);
}

static void
candidates_clear (GArray *cands)
{
  for (guint i = 0; i < cands->len; i++)
    fun_mismatch_free (g_array_index (cands, Candidate, i).error);
  g_array_unref (cands);
}

/* Checks every candidate, in stanc's order (by return type, stable). */
static GArray *
check_candidates (const TildeType *const *candidates, guint n,
                  const TildeArgType *args, guint n_args)
{
  GArray *cands = g_array_sized_new (FALSE, FALSE, sizeof (Candidate), n);

  for (guint i = 0; i < n; i++)
    {
      Candidate c = { i, candidates[i], NULL, -1 };

      g_return_val_if_fail (tilde_type_kind (candidates[i]) == TILDE_TYPE_FUNCTION, cands);
      c.error = check_candidate (c.fn, args, n_args, &c.cost);
      g_array_append_val (cands, c);
    }
  /* g_qsort_with_data is a stable merge sort */
  g_qsort_with_data (cands->data, cands->len, sizeof (Candidate),
                     candidate_by_return, NULL);
  return cands;
}

/* The cost of a call without building explanations: resolution runs on
 * every keystroke, explanations only for calls that fail. */
int
tilde_overload_arguments_cost (const TildeArgType *params, guint n_params,
                               const TildeArgType *args, guint n_args)
{
  int total = 0;

  if (n_params != n_args)
    return -1;
  for (guint i = 0; i < n_args; i++)
    {
      int c = tilde_type_promotion_cost (params[i].type, args[i].type);

      if (c < 0 || !tilde_ad_can_convert (params[i].ad, args[i].ad))
        return -1;
      total += c;
    }
  return total;
}

TildeMatchStatus
tilde_overload_resolve (const TildeType *const *candidates, guint n_candidates,
                        const TildeArgType *args, guint n_args, TildeMatch *match)
{
  TildeMatch m = { TILDE_MATCH_NONE, 0, NULL, NULL, 0, -1 };
  int best = -1;
  guint n_best = 0;

  /* the least cost is unique or not whatever the order of candidates */
  for (guint i = 0; i < n_candidates; i++)
    {
      const TildeType *fn = candidates[i];
      int c = tilde_overload_arguments_cost (params_of (fn), tilde_type_n_args (fn),
                                             args, n_args);

      if (c < 0)
        continue;
      if (best < 0 || c < best)
        {
          best = c;
          n_best = 1;
          m.index = i;
        }
      else if (c == best)
        n_best++;
    }
  if (n_best == 1)
    {
      m.status = TILDE_MATCH_UNIQUE;
      m.function = candidates[m.index];
      m.return_type = tilde_type_return (m.function);
      m.cost = (guint) best;
    }
  else
    {
      m.index = 0;
      if (n_best > 1)
        m.status = TILDE_MATCH_AMBIGUOUS;
    }
  if (match)
    *match = m;
  return m.status;
}

/* ------------------------------------------------------------ texts */

/* Function types in messages are named F1, F2, ... and defined in
 * `where` clauses, as stanc does. */
typedef struct {
  GHashTable *names; /* TildeType* -> name */
  GPtrArray *order;  /* the named types, in naming order */
} Ctx;

static void
ctx_init (Ctx *ctx)
{
  ctx->names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ctx->order = g_ptr_array_new ();
}

static void
ctx_clear (Ctx *ctx)
{
  g_hash_table_unref (ctx->names);
  g_ptr_array_unref (ctx->order);
}

static const char *
ctx_name (Ctx *ctx, const TildeType *t)
{
  char *name = g_hash_table_lookup (ctx->names, t);

  if (name == NULL)
    {
      name = g_strdup_printf ("F%u", ctx->order->len + 1);
      g_hash_table_insert (ctx->names, (gpointer) t, name);
      g_ptr_array_add (ctx->order, (gpointer) t);
    }
  return name;
}

static void
append_type (Ctx *ctx, GString *out, const TildeType *t)
{
  switch (tilde_type_kind (t))
    {
    case TILDE_TYPE_ARRAY:
      g_string_append (out, "array[");
      for (guint i = 1; i < tilde_type_array_dims (t); i++)
        g_string_append_c (out, ',');
      g_string_append (out, "] ");
      append_type (ctx, out, tilde_type_array_base (t));
      break;
    case TILDE_TYPE_TUPLE:
      g_string_append (out, "tuple(");
      for (guint i = 0; i < tilde_type_n_members (t); i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          append_type (ctx, out, tilde_type_member (t, i));
        }
      g_string_append (out, tilde_type_n_members (t) == 1 ? ",)" : ")");
      break;
    case TILDE_TYPE_FUNCTION:
      g_string_append_printf (out, "<%s>", ctx_name (ctx, t));
      break;
    default:
      tilde_type_append (out, t);
      break;
    }
}

static char *
type_text (Ctx *ctx, const TildeType *t)
{
  GString *s = g_string_new (NULL);

  append_type (ctx, s, t);
  return g_string_free (s, FALSE);
}

/* "(args) => ret" in a fill box, breaking after commas */
static Doc *
fundef_doc (Ctx *ctx, const TildeType *fn)
{
  Doc *outer = doc_box (DOC_HOV, 0);
  Doc *inner = doc_box (DOC_HOV, 0);
  g_autofree char *ret = NULL;

  for (guint i = 0; i < tilde_type_n_args (fn); i++)
    {
      const TildeArgType *a = tilde_type_arg (fn, i);
      g_autofree char *t = type_text (ctx, a->type);

      if (i > 0)
        doc_space (doc_text (inner, ","));
      doc_printf (inner, "%s%s", a->ad == TILDE_AD_DATA ? "data " : "", t);
    }
  ret = type_text (ctx, tilde_type_return (fn));
  doc_text (outer, "(");
  doc_add (outer, inner);
  doc_printf (outer, ") => %s", ret);
  return outer;
}

static void
where_entries (Ctx *ctx, Doc *list, guint from)
{
  guint to = ctx->order->len;
  g_autoptr (GPtrArray) fresh = g_ptr_array_new ();

  for (guint i = from; i < to; i++)
    g_ptr_array_add (fresh, g_ptr_array_index (ctx->order, i));
  /* stanc lists new names in string order */
  for (guint i = 1; i < fresh->len; i++)
    for (guint j = i; j > 0; j--)
      {
        const char *a = g_hash_table_lookup (ctx->names, g_ptr_array_index (fresh, j - 1));
        const char *b = g_hash_table_lookup (ctx->names, g_ptr_array_index (fresh, j));
        gpointer tmp;

        if (strcmp (a, b) <= 0)
          break;
        tmp = fresh->pdata[j - 1];
        fresh->pdata[j - 1] = fresh->pdata[j];
        fresh->pdata[j] = tmp;
      }
  for (guint i = 0; i < fresh->len; i++)
    {
      const TildeType *t = g_ptr_array_index (fresh, i);
      Doc *entry = doc_box (DOC_HOV, 0);

      if (i > 0)
        doc_cut (list);
      doc_printf (list, "%s = ", (const char *) g_hash_table_lookup (ctx->names, t));
      doc_add (entry, fundef_doc (ctx, t));
      doc_add (list, entry);
    }
  if (ctx->order->len > to)
    {
      doc_cut (list);
      where_entries (ctx, list, to);
    }
}

/* `x` followed by definitions of the function types it named first */
static Doc *
with_where (Ctx *ctx, Doc *x, guint named_before)
{
  Doc *box = doc_box (DOC_V, 0);

  doc_add (box, x);
  if (ctx->order->len > named_before)
    {
      Doc *list = doc_box (DOC_V, 0);

      doc_text (doc_cut (box), "where ");
      where_entries (ctx, list, named_before);
      doc_add (box, list);
    }
  return box;
}

static char *
ordinal (guint n)
{
  static const char *const words[] = { "first", "second", "third", "fourth" };

  if (n >= 1 && n <= 4)
    return g_strdup (words[n - 1]);
  return g_strdup_printf ("%uth", n);
}

static const char *
suffix_text (TildeFunKind k)
{
  switch (k)
    {
    case TILDE_FUN_RNG: return "an rng function";
    case TILDE_FUN_LPDF:
    case TILDE_FUN_LUPDF: return "a probability density or mass function";
    case TILDE_FUN_LP: return "an _lp function";
    case TILDE_FUN_JACOBIAN: return "a _jacobian function";
    case TILDE_FUN_PLAIN:
    default: return "a pure function";
    }
}

static Doc *explain (Ctx *ctx, const FunMismatch *e, gboolean nested);

/* "... must be@, T@ but got@, U" in the given box kind */
static Doc *
pair_doc (Ctx *ctx, DocBoxKind kind, const char *head, const char *middle,
          const TypeMismatch *m, gboolean as_fundef)
{
  Doc *box = doc_box (kind, 0);

  doc_cut (doc_text (box, head));
  doc_text (box, " ");
  if (as_fundef)
    doc_add (box, fundef_doc (ctx, m->expected));
  else
    {
      g_autofree char *t = type_text (ctx, m->expected);
      doc_text (box, t);
    }
  doc_cut (doc_text (doc_space (box), middle));
  doc_text (box, " ");
  if (as_fundef)
    doc_add (box, fundef_doc (ctx, m->found));
  else
    {
      g_autofree char *t = type_text (ctx, m->found);
      doc_text (box, t);
    }
  return box;
}

static Doc *
explain (Ctx *ctx, const FunMismatch *e, gboolean nested)
{
  g_autofree char *nth = NULL;
  g_autofree char *head = NULL;
  const TypeMismatch *m;
  Doc *box;

  if (e->arg_count)
    {
      box = doc_box (DOC_HOV, 0);
      if (nested)
        return doc_printf (box, "One takes %u arguments but the other takes %u arguments.",
                           e->expected_n, e->found_n);
      return doc_printf (box, "Expected %u arguments but found %u arguments.",
                         e->expected_n, e->found_n);
    }
  m = e->error;
  nth = ordinal (e->index);
  if (m->data_only)
    {
      g_autofree char *text = NULL;

      if (nested)
        text = g_strdup_printf ("The %s argument has an incompatible data-qualifier.", nth);
      else
        text = g_strdup_printf ("The %s argument must be data-only. (Local variables "
                                "are assumed to depend on parameters; same goes for "
                                "function inputs unless they are marked with the "
                                "keyword 'data'.)", nth);
      return doc_words (doc_box (DOC_HOV, 0), text);
    }
  switch (m->detail)
    {
    case DETAIL_NONE:
      if (nested)
        {
          head = g_strdup_printf ("The types for the %s argument are incompatible: one is", nth);
          return pair_doc (ctx, DOC_HV, head, "but the other is", m, FALSE);
        }
      head = g_strdup_printf ("The %s argument must be", nth);
      return pair_doc (ctx, DOC_HV, head, "but got", m, FALSE);
    case DETAIL_SUFFIX:
      box = doc_box (DOC_V, 0);
      if (nested)
        return doc_printf (box, "The %s argument is %s but the other is %s. These function "
                           "types are not compatible.", nth, suffix_text (m->suffix_expected),
                           suffix_text (m->suffix_found));
      return doc_printf (box, "The %s argument must be %s but got %s. These function types "
                         "are not compatible.", nth, suffix_text (m->suffix_expected),
                         suffix_text (m->suffix_found));
    case DETAIL_RETURN:
      head = g_strdup_printf ("The %s argument must be", nth);
      box = pair_doc (ctx, DOC_V, head, "but got", m, TRUE);
      doc_text (doc_space (box), nested ? "The return types are different."
                                        : "The return types are not compatible.");
      return box;
    case DETAIL_INPUT:
    default:
      {
        Doc *because = doc_box (DOC_V, nested ? 0 : 2);
        Doc *reason = doc_box (DOC_HOV, 0);

        if (nested)
          {
            head = g_strdup_printf ("The types for the %s argument are incompatible: one is", nth);
            box = pair_doc (ctx, DOC_V, head, "but the other is", m, TRUE);
          }
        else
          {
            head = g_strdup_printf ("The %s argument must be", nth);
            box = pair_doc (ctx, DOC_V, head, "but got", m, TRUE);
          }
        doc_add (reason, explain (ctx, m->input, TRUE));
        doc_space (doc_text (because, "These are not compatible because:"));
        doc_add (because, reason);
        doc_add (doc_space (box), because);
        return box;
      }
    }
}

typedef struct {
  const TildeType *fn; /* shown as its arguments and return type */
  const FunMismatch *error;
} ShownSignature;

static char *
mismatch_text (const char *name, const TildeArgType *args, guint n_args,
               const ShownSignature *sigs, guint n_sigs, gboolean omitted)
{
  Ctx ctx;
  g_autoptr (Doc) top = doc_box (DOC_V, 0);
  Doc *arglist = doc_box (DOC_H, 0);
  Doc *argtypes = doc_box (DOC_HOV, 0);
  GString *out = g_string_new (NULL);
  guint before;

  ctx_init (&ctx);
  doc_space (doc_printf (top, "Ill-typed arguments supplied to function '%s':", name));
  before = ctx.order->len;
  for (guint i = 0; i < n_args; i++)
    {
      g_autofree char *t = type_text (&ctx, args[i].type);

      if (i > 0)
        doc_space (doc_text (argtypes, ","));
      doc_text (argtypes, t);
    }
  doc_text (doc_add (doc_text (arglist, "("), argtypes), ")");
  doc_add (top, with_where (&ctx, arglist, before));
  doc_space (doc_text (doc_space (top), "Available signatures:"));
  for (guint i = 0; i < n_sigs; i++)
    {
      Doc *explanation = doc_box (DOC_HOV, 2);

      if (i > 0)
        doc_cut (top);
      before = ctx.order->len;
      doc_add (top, with_where (&ctx, fundef_doc (&ctx, sigs[i].fn), before));
      doc_space (top);
      doc_text (explanation, "  ");
      doc_add (explanation, explain (&ctx, sigs[i].error, FALSE));
      doc_add (top, explanation);
    }
  if (omitted)
    doc_text (doc_cut (top), "(Additional signatures omitted)");
  doc_render (top, out, 0);
  ctx_clear (&ctx);
  return g_string_free (out, FALSE);
}

char *
tilde_overload_mismatch_message (const char *name,
                                 const TildeType *const *candidates, guint n_candidates,
                                 const TildeArgType *args, guint n_args)
{
  GArray *cands = check_candidates (candidates, n_candidates, args, n_args);
  g_autoptr (GArray) failed = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_autofree ShownSignature *shown = NULL;
  guint n_shown;
  char *text;

  for (guint i = 0; i < cands->len; i++)
    if (g_array_index (cands, Candidate, i).error != NULL)
      g_array_append_val (failed, g_array_index (cands, Candidate, i));
  g_qsort_with_data (failed->data, failed->len, sizeof (Candidate),
                     candidate_by_error, NULL);
  n_shown = MIN (failed->len, MAX_SHOWN_SIGNATURES);
  shown = g_new0 (ShownSignature, MAX (n_shown, 1));
  for (guint i = 0; i < n_shown; i++)
    {
      const Candidate *c = &g_array_index (failed, Candidate, i);
      /* listed as plain signatures whatever their suffix */
      shown[i].fn = tilde_type_function_with_kind (c->fn, TILDE_FUN_PLAIN);
      shown[i].error = c->error;
    }
  text = mismatch_text (name, args, n_args, shown, n_shown, failed->len > n_shown);
  candidates_clear (cands);
  return text;
}

char *
tilde_overload_ambiguity_message (const char *name,
                                  const TildeType *const *candidates, guint n_candidates,
                                  const TildeArgType *args, guint n_args)
{
  GArray *cands = check_candidates (candidates, n_candidates, args, n_args);
  g_autoptr (Doc) top = doc_box (DOC_HOV, 0);
  Doc *argtypes = doc_box (DOC_HOV, 0);
  Doc *sigs = doc_box (DOC_V, 0);
  GString *out = g_string_new (NULL);
  gboolean first = TRUE;
  int best = -1;

  for (guint i = 0; i < cands->len; i++)
    {
      const Candidate *c = &g_array_index (cands, Candidate, i);
      if (c->error == NULL && (best < 0 || c->cost < best))
        best = c->cost;
    }
  for (guint i = 0; i < cands->len; i++)
    {
      const Candidate *c = &g_array_index (cands, Candidate, i);
      Doc *sig = doc_box (DOC_HOV, 0);
      Doc *params = doc_box (DOC_HOV, 0);
      g_autofree char *ret = NULL;

      if (c->error != NULL || c->cost != best)
        {
          doc_free (sig);
          doc_free (params);
          continue;
        }
      for (guint j = 0; j < tilde_type_n_args (c->fn); j++)
        {
          const TildeArgType *a = tilde_type_arg (c->fn, j);
          g_autofree char *t = tilde_type_to_string (a->type);

          if (j > 0)
            doc_space (doc_text (params, ","));
          doc_printf (params, "%s%s", a->ad == TILDE_AD_DATA
                      && tilde_type_kind (a->type) != TILDE_TYPE_FUNCTION ? "data " : "", t);
        }
      ret = tilde_type_to_string (tilde_type_return (c->fn));
      doc_printf (doc_add (doc_text (sig, "("), params), ") => %s", ret);
      if (!first)
        doc_cut (sigs);
      first = FALSE;
      doc_add (sigs, sig);
    }
  for (guint i = 0; i < n_args; i++)
    {
      g_autofree char *t = tilde_type_to_string (args[i].type);

      if (i > 0)
        doc_space (doc_text (argtypes, ","));
      doc_text (argtypes, t);
    }
  doc_space (doc_printf (top, "No unique minimum promotion found for function '%s'.", name));
  doc_space (doc_text (top, "Overloaded functions must not have multiple equally valid "
                       "promotion paths."));
  doc_text (doc_add (doc_text (top, "For args ("), argtypes), ")");
  doc_space (doc_text (top, ", this function has several:"));
  doc_space (doc_add (top, sigs));
  doc_space (doc_text (top, "Consider defining a new signature for the exact types needed or"));
  doc_text (top, "re-thinking existing definitions.");
  doc_render (top, out, 0);
  candidates_clear (cands);
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------ variadic */

TildeMatchStatus
tilde_overload_resolve_variadic (const char *name,
                                 const TildeArgType *control, guint n_control,
                                 const TildeType *return_type,
                                 const TildeArgType *fn_args, guint n_fn_args,
                                 const TildeType *fn_return, gboolean allow_lpdf,
                                 const TildeArgType *args, guint n_args,
                                 TildeMatch *match, char **message)
{
  const TildeType *minimal = tilde_type_function (n_fn_args, fn_args, fn_return,
                                                  TILDE_FUN_PLAIN);
  g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (TildeArgType));
  const TildeType *first = n_args ? args[0].type : NULL;
  TildeArgType lead = { TILDE_AD_AUTODIFF, minimal };
  g_autoptr (FunMismatch) err = NULL;
  TildeMatch m = { TILDE_MATCH_NONE, 0, NULL, NULL, 0, -1 };
  int cost = -1;

  if (first == NULL)
    err = arg_count_new (n_control, 0);
  else if (tilde_type_kind (first) == TILDE_TYPE_FUNCTION
           && tilde_type_kind (tilde_type_return (first)) != TILDE_TYPE_VOID)
    {
      TildeFunKind sfx = without_propto (tilde_type_fun_kind (first));
      guint n_leading = MIN (n_fn_args, tilde_type_n_args (first));
      FunMismatch *input;
      TypeMismatch *tm;
      int c;

      g_array_append_val (expected, lead);
      g_array_append_vals (expected, control, n_control);
      if (!(sfx == TILDE_FUN_PLAIN || (allow_lpdf && sfx == TILDE_FUN_LPDF)))
        {
          tm = type_mismatch_new (minimal, first, DETAIL_SUFFIX);
          tm->suffix_expected = TILDE_FUN_PLAIN;
          tm->suffix_found = sfx;
          err = arg_error_new (1, tm);
        }
      else if ((input = check_arguments (1, params_of (first), n_leading,
                                         fn_args, n_fn_args, &c)) != NULL)
        {
          tm = type_mismatch_new (minimal, first, DETAIL_INPUT);
          tm->input = input;
          err = arg_error_new (1, tm);
        }
      else if ((tm = check_same_type (1, tilde_type_return (first), fn_return, &c)) != NULL)
        {
          type_mismatch_free (tm);
          err = arg_error_new (1, type_mismatch_new (minimal, first, DETAIL_RETURN));
        }
      else
        {
          /* the function itself, the fixed arguments, then what it forwards */
          g_array_index (expected, TildeArgType, 0).type = first;
          for (guint i = n_leading; i < tilde_type_n_args (first); i++)
            g_array_append_val (expected, *tilde_type_arg (first, i));
          err = check_arguments (0, (TildeArgType *) expected->data, expected->len,
                                 args, n_args, &cost);
        }
    }
  else
    {
      g_array_append_val (expected, lead);
      g_array_append_vals (expected, control, n_control);
      err = arg_error_new (1, type_mismatch_new (minimal, first, DETAIL_NONE));
    }

  if (err != NULL)
    {
      /* stanc's specialize_loc: the argument in error, or for a count
       * mismatch the last one given (or the first one missing) */
      int which = err->arg_count
                  ? (err->expected_n > err->found_n ? (int) err->found_n - 1 : (int) err->expected_n)
                  : (int) err->index - 1;
      m.blame = which >= 0 && (guint) which < n_args ? which : -1;
    }
  if (err == NULL)
    {
      m.status = TILDE_MATCH_UNIQUE;
      m.function = tilde_type_function (expected->len, (TildeArgType *) expected->data,
                                        return_type, TILDE_FUN_PLAIN);
      m.return_type = return_type;
      m.cost = (guint) cost;
    }
  else if (message != NULL)
    {
      ShownSignature sig;

      sig.fn = tilde_type_function (expected->len, (TildeArgType *) expected->data,
                                    return_type, TILDE_FUN_PLAIN);
      sig.error = err;
      *message = mismatch_text (name, args, n_args, &sig, 1, FALSE);
    }
  if (match)
    *match = m;
  return m.status;
}

/* ------------------------------------------------------------ spelling */

guint
tilde_edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);

  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];

      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint best = MIN (row[j] + 1, row[j - 1] + 1);

          row[j] = MIN (best, diag + (a[i - 1] == b[j - 1] ? 0u : 1u));
          diag = up;
        }
    }
  return row[lb];
}
