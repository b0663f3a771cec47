/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/mir-lower.h"
#include "mir/mir-terms.h"

#include <string.h>

#include "syntax/printer.h"
#include "mir/mir-print.h"
#include "semantics/check.h"
#include "semantics/library/library.h"

/* What lowering does with the constraint of a declaration (stanc's
 * transform_action): check it after the statements that set the variable,
 * leave it to the parameter read (only shapes are checked), or ignore it. */
typedef enum {
  ACTION_IGNORE,
  ACTION_CHECK,
  ACTION_CONSTRAIN,
} TransformAction;

typedef struct {
  TransformAction action;
  TildeAdLevel    ad;          /* of the variables declared */
} DeclContext;

typedef struct {
  const TildeProgram *ast;
  MirProgram         *prog;
  gboolean            failed;  /* something untyped was met */
  int                 gensym;  /* sym1__, sym2__, ... as stanc's Gensym */
  const TildeType    *fun_return;  /* of the function being lowered, or NULL */
} Lower;

static const TildeSpan no_span;

static const TildeType *unsized_to_type (const TildeUnsizedType *t);

/* Lowering cannot go on with a part of the tree the checker left untyped;
 * the caller gets NULL. */
static void
fail (Lower *L, const TildeSpan *span, const char *what)
{
  if (!L->failed)
    g_debug ("MIR lowering: %s at line %d", what, span ? span->begin_line : 0);
  L->failed = TRUE;
}

/* ---- small helpers ---- */

static const char *
gensym_enter (Lower *L)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "sym%d__", ++L->gensym);
  return g_intern_string (buf);
}

static void
gensym_reset (Lower *L)
{
  L->gensym--;
}

static TildeAdLevel
ad_for_type (TildeAdLevel ad, const TildeType *type)
{
  return type && tilde_type_is_discrete (type) ? TILDE_AD_DATA : ad;
}

static TildeAdLevel
ad_lub (TildeAdLevel a, TildeAdLevel b)
{
  return tilde_ad_lub (a, b);
}

static TildeExpr *
strip_parens (TildeExpr *e)
{
  while (e->kind == TILDE_EXPR_PAREN)
    e = e->u.paren.inner;
  return e;
}

/* stanc's format_number: no underscores, no leading zeros. */
static char *
format_number (const char *text)
{
  GString *s = g_string_new (NULL);
  for (const char *p = text; *p; p++)
    if (*p != '_')
      g_string_append_c (s, *p);
  gsize p = 0;
  while (p < s->len && s->str[p] == '0')
    p++;
  if (p == s->len)
    {
      g_string_free (s, TRUE);
      return g_strdup ("0");
    }
  if (p > 0)
    {
      char c = s->str[p];
      g_string_erase (s, 0, (c == 'e' || c == 'E' || c == '.') ? p - 1 : p);
    }
  return g_string_free (s, FALSE);
}

static gboolean
int_literal_value (const TildeExpr *e, gint64 *value)
{
  e = strip_parens ((TildeExpr *) e);
  if (e->kind != TILDE_EXPR_INT)
    return FALSE;
  g_autofree char *digits = format_number (e->u.literal.text);
  *value = g_ascii_strtoll (digits, NULL, 10);
  return TRUE;
}

/* The source text of an expression as stanc's printer writes it. */
static char *
source_text (const TildeExpr *e)
{
  return tilde_print_expr (e);
}

static void
suffix_of_name (const char *name, MirSuffix *suffix, gboolean *propto)
{
  *propto = FALSE;
  switch (tilde_fun_kind_from_name (name))
    {
    case TILDE_FUN_PLAIN: *suffix = MIR_SUFFIX_PLAIN; return;
    case TILDE_FUN_RNG: *suffix = MIR_SUFFIX_RNG; return;
    case TILDE_FUN_LP: *suffix = MIR_SUFFIX_TARGET; return;
    case TILDE_FUN_JACOBIAN: *suffix = MIR_SUFFIX_JACOBIAN; return;
    case TILDE_FUN_LUPDF:
      *propto = TRUE;
      /* fall through */
    case TILDE_FUN_LPDF:
      *suffix = g_str_has_suffix (name, "mf") ? MIR_SUFFIX_LPMF : MIR_SUFFIX_LPDF;
      return;
    }
  *suffix = MIR_SUFFIX_PLAIN;
}

static MirFun
fun_for_name (const char *name, gboolean user)
{
  MirSuffix suffix;
  gboolean propto;
  suffix_of_name (name, &suffix, &propto);
  return user ? mir_fun_user (name, suffix, propto) : mir_fun_stanlib (name, suffix, propto);
}

static MirExpr *promote (MirExpr *e, const TildeType *to);

/* The type an item of an array, row-vector or tuple expression of type
 * `whole` must have. */
static const TildeType *
item_type (MirInternal fn, const TildeType *whole, guint i)
{
  switch (tilde_type_kind (whole))
    {
    case TILDE_TYPE_ARRAY:
      return fn == MIR_FN_MAKE_ARRAY ? tilde_type_element (whole) : NULL;
    case TILDE_TYPE_TUPLE:
      return fn == MIR_FN_MAKE_TUPLE && i < tilde_type_n_members (whole)
        ? tilde_type_member (whole, i) : NULL;
    case TILDE_TYPE_ROW_VECTOR:
    case TILDE_TYPE_COMPLEX_ROW_VECTOR:
      return fn == MIR_FN_MAKE_ROW_VEC ? tilde_type_internal_scalar (whole) : NULL;
    case TILDE_TYPE_MATRIX:
      return fn == MIR_FN_MAKE_ROW_VEC ? tilde_type_row_vector () : NULL;
    case TILDE_TYPE_COMPLEX_MATRIX:
      return fn == MIR_FN_MAKE_ROW_VEC ? tilde_type_complex_row_vector () : NULL;
    default:
      return NULL;
    }
}

/* A literal array, row vector or tuple is promoted item by item, as stanc
 * does, so that `{1, 2}` assigned to reals reads {promote(1, ...), ...}. */
static gboolean
promote_items (MirExpr *e, const TildeType *to)
{
  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_COMPILER)
    return FALSE;
  MirInternal fn = e->u.call.fun.internal;
  if (fn != MIR_FN_MAKE_ARRAY && fn != MIR_FN_MAKE_ROW_VEC && fn != MIR_FN_MAKE_TUPLE)
    return FALSE;
  GPtrArray *items = e->u.call.args;
  for (guint i = 0; i < items->len; i++)
    if (!item_type (fn, to, i))
      return FALSE;
  for (guint i = 0; i < items->len; i++)
    items->pdata[i] = promote (items->pdata[i], item_type (fn, to, i));
  e->type = to;
  return TRUE;
}

/* Wraps `e` in a Promotion when its type is not `to` but converts to it. */
static MirExpr *
promote (MirExpr *e, const TildeType *to)
{
  if (!to || !e->type || e->type == to)
    return e;
  if (tilde_type_kind (to) == TILDE_TYPE_FUNCTION || tilde_type_promotion_cost (to, e->type) <= 0)
    return e;
  if (promote_items (e, to))
    return e;
  return mir_expr_promotion (e, to, e->ad_level);
}

static MirExpr *
stanlib2 (const TildeSpan *span, const TildeType *type, const char *name, MirExpr *a, MirExpr *b)
{
  TildeAdLevel ad = b ? ad_lub (a->ad_level, b->ad_level) : a->ad_level;
  return mir_expr_stanlib (span, type, ad_for_type (ad, type), name, mir_expr_list_of (a, b, NULL));
}

/* ---- expressions ---- */

static MirExpr *lower_expr (Lower *L, TildeExpr *e);

static const char *
binary_op_function (TildeBinaryOp op)
{
  switch (op)
    {
    case TILDE_OP_OR: return "Or__";
    case TILDE_OP_AND: return "And__";
    case TILDE_OP_EQUALS: return "Equals__";
    case TILDE_OP_NEQUALS: return "NEquals__";
    case TILDE_OP_LESS: return "Less__";
    case TILDE_OP_LEQ: return "Leq__";
    case TILDE_OP_GREATER: return "Greater__";
    case TILDE_OP_GEQ: return "Geq__";
    case TILDE_OP_PLUS: return "Plus__";
    case TILDE_OP_MINUS: return "Minus__";
    case TILDE_OP_TIMES: return "Times__";
    case TILDE_OP_DIVIDE: return "Divide__";
    case TILDE_OP_MODULO: return "Modulo__";
    case TILDE_OP_ELT_TIMES: return "EltTimes__";
    case TILDE_OP_ELT_DIVIDE: return "EltDivide__";
    case TILDE_OP_IDIVIDE: return "IntDivide__";
    case TILDE_OP_LDIVIDE: return "LDivide__";
    case TILDE_OP_POW: return "Pow__";
    case TILDE_OP_ELT_POW: return "EltPow__";
    }
  g_return_val_if_reached ("Plus__");
}

static const char *
prefix_op_function (TildePrefixOp op)
{
  switch (op)
    {
    case TILDE_OP_NOT: return "PNot__";
    case TILDE_OP_NEGATE: return "PMinus__";
    case TILDE_OP_PROMOTE: return "PPlus__";
    }
  g_return_val_if_reached ("PPlus__");
}

static GPtrArray *
lower_exprs (Lower *L, TildeExpr **items, int n)
{
  GPtrArray *out = mir_expr_list_new ();
  for (int i = 0; i < n; i++)
    g_ptr_array_add (out, lower_expr (L, items[i]));
  return out;
}

/* The parameter types of the signature a call resolves to, or NULL. */
static const TildeType *
call_signature (TildeExpr *call_or_null, const char *name, gpointer decl, GPtrArray *args)
{
  TildeFunction *user = tilde_decl_as_function (decl);
  if (user)
    return user->type;
  if (tilde_library_variadic (name))
    return NULL;
  guint n = args->len;
  TildeArgType *types = g_newa (TildeArgType, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      MirExpr *a = g_ptr_array_index (args, i);
      if (!a->type)
        return NULL;
      types[i].ad = a->ad_level;
      types[i].type = a->type;
    }
  TildeMatch match;
  if (tilde_library_resolve (name, types, n, &match, NULL) != TILDE_MATCH_UNIQUE)
    return NULL;
  return match.function;
}

static void
promote_args (GPtrArray *args, const TildeType *fn)
{
  if (!fn || tilde_type_kind (fn) != TILDE_TYPE_FUNCTION || tilde_type_n_args (fn) != args->len)
    return;
  for (guint i = 0; i < args->len; i++)
    args->pdata[i] = promote (args->pdata[i], tilde_type_arg (fn, i)->type);
}

static MirExpr *
lower_call (Lower *L, TildeExpr *e)
{
  const char *name = e->u.call.name.name;
  gpointer decl = e->u.call.decl;
  GPtrArray *args = lower_exprs (L, e->u.call.args, e->u.call.n_args);
  promote_args (args, call_signature (e, name, decl, args));
  return mir_expr_call (&e->span, e->type, e->ad_level,
                        fun_for_name (name, tilde_decl_as_function (decl) != NULL), args);
}

static MirIndex *
lower_index (Lower *L, TildeIndex *i)
{
  switch (i->kind)
    {
    case TILDE_INDEX_ALL:
      return mir_index_new (MIR_INDEX_ALL, NULL, NULL);
    case TILDE_INDEX_SINGLE:
      {
        MirExpr *e = lower_expr (L, i->lower);
        gboolean multi = e->type && tilde_type_kind (e->type) == TILDE_TYPE_ARRAY;
        return mir_index_new (multi ? MIR_INDEX_MULTI : MIR_INDEX_SINGLE, e, NULL);
      }
    case TILDE_INDEX_UPFROM:
      return mir_index_new (MIR_INDEX_UPFROM, lower_expr (L, i->lower), NULL);
    case TILDE_INDEX_DOWNFROM:
      return mir_index_new (MIR_INDEX_BETWEEN, mir_expr_int (&i->span, 1),
                            lower_expr (L, i->upper));
    case TILDE_INDEX_BETWEEN:
      return mir_index_new (MIR_INDEX_BETWEEN, lower_expr (L, i->lower),
                            lower_expr (L, i->upper));
    }
  g_return_val_if_reached (NULL);
}

static GPtrArray *
lower_indices (Lower *L, TildeIndex *indices, int n)
{
  GPtrArray *out = mir_index_list_new ();
  for (int i = 0; i < n; i++)
    g_ptr_array_add (out, lower_index (L, &indices[i]));
  return out;
}

/* Array, row-vector and tuple expressions: the items promoted to the type
 * the checker gave the whole. */
static MirExpr *
lower_container (Lower *L, TildeExpr *e, MirInternal fn)
{
  GPtrArray *items = lower_exprs (L, e->u.list.items, e->u.list.n_items);
  for (guint i = 0; e->type && i < items->len; i++)
    {
      const TildeType *want = NULL;
      switch (tilde_type_kind (e->type))
        {
        case TILDE_TYPE_ARRAY: want = tilde_type_element (e->type); break;
        case TILDE_TYPE_TUPLE: want = tilde_type_member (e->type, i); break;
        case TILDE_TYPE_ROW_VECTOR:
        case TILDE_TYPE_COMPLEX_ROW_VECTOR: want = tilde_type_internal_scalar (e->type); break;
        case TILDE_TYPE_MATRIX: want = tilde_type_row_vector (); break;
        case TILDE_TYPE_COMPLEX_MATRIX: want = tilde_type_complex_row_vector (); break;
        default: break;
        }
      items->pdata[i] = promote (items->pdata[i], want);
    }
  return mir_expr_internal (&e->span, e->type, e->ad_level, fn, NULL, items);
}

static MirExpr *
lower_literal (TildeExpr *e, MirLitKind kind)
{
  g_autofree char *text = format_number (e->u.literal.text);
  return mir_expr_lit (&e->span, e->type, kind, text);
}

static MirExpr *
untyped (Lower *L, TildeExpr *e)
{
  fail (L, &e->span, e->type ? tilde_expr_kind_to_string (e->kind) : "untyped expression");
  return mir_expr_lit (&e->span, tilde_type_int (), MIR_LIT_INT, "0");
}

static MirExpr *
lower_expr (Lower *L, TildeExpr *e)
{
  if (e->kind == TILDE_EXPR_PAREN)
    return lower_expr (L, e->u.paren.inner);
  if (!e->type || e->kind == TILDE_EXPR_ERROR)
    return untyped (L, e);
  switch (e->kind)
    {
    case TILDE_EXPR_VARIABLE:
      return mir_expr_var (&e->span, e->type, e->ad_level, e->u.variable.name);
    case TILDE_EXPR_INT:
      return lower_literal (e, MIR_LIT_INT);
    case TILDE_EXPR_REAL:
      return lower_literal (e, MIR_LIT_REAL);
    case TILDE_EXPR_IMAG:
      return lower_literal (e, MIR_LIT_IMAGINARY);
    case TILDE_EXPR_STRING:
      {
        const char *text = e->u.literal.text;
        gsize n = strlen (text);
        g_autofree char *inner = n >= 2 && text[0] == '"' ? g_strndup (text + 1, n - 2)
                                                          : g_strdup (text);
        return mir_expr_lit (&e->span, e->type, MIR_LIT_STRING, inner);
      }
    case TILDE_EXPR_BINARY:
      {
        MirExpr *lhs = lower_expr (L, e->u.binary.lhs);
        MirExpr *rhs = lower_expr (L, e->u.binary.rhs);
        if (e->u.binary.op == TILDE_OP_AND || e->u.binary.op == TILDE_OP_OR)
          return mir_expr_logical (&e->span, e->u.binary.op == TILDE_OP_AND ? MIR_EXPR_AND
                                                                             : MIR_EXPR_OR,
                                   e->ad_level, lhs, rhs);
        return mir_expr_stanlib (&e->span, e->type, e->ad_level,
                                 binary_op_function (e->u.binary.op),
                                 mir_expr_list_of (lhs, rhs, NULL));
      }
    case TILDE_EXPR_PREFIX:
      return mir_expr_stanlib (&e->span, e->type, e->ad_level,
                               prefix_op_function (e->u.prefix.op),
                               mir_expr_list_of (lower_expr (L, e->u.prefix.operand), NULL));
    case TILDE_EXPR_TRANSPOSE:
      return mir_expr_stanlib (&e->span, e->type, e->ad_level, "Transpose__",
                               mir_expr_list_of (lower_expr (L, e->u.transpose.operand), NULL));
    case TILDE_EXPR_TERNARY:
      return mir_expr_ternary (&e->span, e->type, e->ad_level,
                               lower_expr (L, e->u.ternary.cond),
                               promote (lower_expr (L, e->u.ternary.if_true), e->type),
                               promote (lower_expr (L, e->u.ternary.if_false), e->type));
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      return lower_call (L, e);
    case TILDE_EXPR_TARGET:
      return mir_expr_call (&e->span, e->type, e->ad_level,
                            mir_fun_stanlib ("target", MIR_SUFFIX_TARGET, FALSE), NULL);
    case TILDE_EXPR_INDEXED:
      return mir_expr_indexed (&e->span, e->type, e->ad_level,
                               lower_expr (L, e->u.indexed.base),
                               lower_indices (L, e->u.indexed.indices, e->u.indexed.n_indices));
    case TILDE_EXPR_TUPLE_PROJ:
      return mir_expr_tuple_proj (&e->span, e->type, e->ad_level,
                                  lower_expr (L, e->u.proj.base), e->u.proj.slot);
    case TILDE_EXPR_ARRAY:
      return lower_container (L, e, MIR_FN_MAKE_ARRAY);
    case TILDE_EXPR_ROW_VECTOR:
      return lower_container (L, e, MIR_FN_MAKE_ROW_VEC);
    case TILDE_EXPR_TUPLE:
      return lower_container (L, e, MIR_FN_MAKE_TUPLE);
    case TILDE_EXPR_ERROR:
    case TILDE_EXPR_PAREN:
      break;
    }
  return untyped (L, e);
}

/* ---- sized types and transformations ---- */

static gboolean
is_vector_like_decl (TildeDeclTypeKind k)
{
  switch (k)
    {
    case TILDE_DECL_VECTOR: case TILDE_DECL_ORDERED: case TILDE_DECL_POSITIVE_ORDERED:
    case TILDE_DECL_SIMPLEX: case TILDE_DECL_UNIT_VECTOR: case TILDE_DECL_SUM_TO_ZERO_VECTOR:
      return TRUE;
    default:
      return FALSE;
    }
}

static MirTransform *
bounds_transform (Lower *L, const TildeBounds *b)
{
  MirExpr *lo = b->lower ? lower_expr (L, b->lower) : NULL;
  MirExpr *hi = b->upper ? lower_expr (L, b->upper) : NULL;
  MirExpr *off = b->offset ? lower_expr (L, b->offset) : NULL;
  MirExpr *mul = b->multiplier ? lower_expr (L, b->multiplier) : NULL;
  if (lo && hi)
    return mir_transform_new (MIR_TRANS_LOWER_UPPER, lo, hi);
  if (lo)
    return mir_transform_new (MIR_TRANS_LOWER, lo, NULL);
  if (hi)
    return mir_transform_new (MIR_TRANS_UPPER, hi, NULL);
  if (off && mul)
    return mir_transform_new (MIR_TRANS_OFFSET_MULTIPLIER, off, mul);
  if (off)
    return mir_transform_new (MIR_TRANS_OFFSET, off, NULL);
  if (mul)
    return mir_transform_new (MIR_TRANS_MULTIPLIER, mul, NULL);
  return mir_transform_new (MIR_TRANS_IDENTITY, NULL, NULL);
}

static MirTransform *
lower_transform (Lower *L, const TildeSizedType *t)
{
  switch (t->kind)
    {
    case TILDE_DECL_ARRAY:
      return lower_transform (L, t->element);
    case TILDE_DECL_TUPLE:
      {
        MirTransform *tuple = mir_transform_new (MIR_TRANS_TUPLE, NULL, NULL);
        gboolean any = FALSE;
        for (int i = 0; i < t->n_elements; i++)
          {
            MirTransform *m = lower_transform (L, t->elements[i]);
            any |= m->kind != MIR_TRANS_IDENTITY;
            g_ptr_array_add (tuple->members, m);
          }
        if (any)
          return tuple;
        mir_transform_free (tuple);
        return mir_transform_new (MIR_TRANS_IDENTITY, NULL, NULL);
      }
    case TILDE_DECL_ORDERED: return mir_transform_new (MIR_TRANS_ORDERED, NULL, NULL);
    case TILDE_DECL_POSITIVE_ORDERED:
      return mir_transform_new (MIR_TRANS_POSITIVE_ORDERED, NULL, NULL);
    case TILDE_DECL_SIMPLEX: return mir_transform_new (MIR_TRANS_SIMPLEX, NULL, NULL);
    case TILDE_DECL_UNIT_VECTOR: return mir_transform_new (MIR_TRANS_UNIT_VECTOR, NULL, NULL);
    case TILDE_DECL_SUM_TO_ZERO_VECTOR:
    case TILDE_DECL_SUM_TO_ZERO_MATRIX:
      return mir_transform_new (MIR_TRANS_SUM_TO_ZERO, NULL, NULL);
    case TILDE_DECL_CHOLESKY_FACTOR_CORR:
      return mir_transform_new (MIR_TRANS_CHOLESKY_CORR, NULL, NULL);
    case TILDE_DECL_CHOLESKY_FACTOR_COV:
      return mir_transform_new (MIR_TRANS_CHOLESKY_COV, NULL, NULL);
    case TILDE_DECL_CORR_MATRIX: return mir_transform_new (MIR_TRANS_CORRELATION, NULL, NULL);
    case TILDE_DECL_COV_MATRIX: return mir_transform_new (MIR_TRANS_COVARIANCE, NULL, NULL);
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX:
      return mir_transform_new (MIR_TRANS_STOCHASTIC_COLUMN, NULL, NULL);
    case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      return mir_transform_new (MIR_TRANS_STOCHASTIC_ROW, NULL, NULL);
    default:
      return bounds_transform (L, &t->bounds);
    }
}

static gboolean
transform_has_check (const MirTransform *t)
{
  switch (t->kind)
    {
    case MIR_TRANS_IDENTITY: case MIR_TRANS_OFFSET: case MIR_TRANS_MULTIPLIER:
    case MIR_TRANS_OFFSET_MULTIPLIER:
      return FALSE;
    case MIR_TRANS_TUPLE:
      for (guint i = 0; i < t->members->len; i++)
        if (transform_has_check (g_ptr_array_index (t->members, i)))
          return TRUE;
      return FALSE;
    default:
      return TRUE;
    }
}

/* How sizes are validated: declarations inside blocks validate each
 * non-literal size where they stand (stanc's check_sizedtype); top-level
 * declarations of parameters, transformed parameters and generated
 * quantities validate them up front, naming a temporary for each size that
 * is neither a literal nor a variable (trans_sizedtype_decl). */
typedef enum {
  SIZES_LOCAL,
  SIZES_GLOBAL,
} SizeMode;

typedef struct {
  Lower            *L;
  SizeMode          mode;
  TransformAction   action;
  const MirTransform *trans;   /* decides FnValidateSizeSimplex / UnitVector */
  const char       *name;
  GPtrArray        *checks;    /* out: MirStmt* */
} SizeCtx;

static MirStmt *
validate_size_stmt (MirInternal fn, const char *name, const TildeExpr *src, MirExpr *size)
{
  g_autofree char *text = source_text (src);
  GPtrArray *args = mir_expr_list_of (mir_expr_string (&size->span, name),
                                      mir_expr_string (&size->span, text),
                                      size, NULL);
  return mir_stmt_nr_call (&size->span, mir_fun_internal (fn, NULL), args);
}

/* One size of a declaration: the expression to put in the type, with its
 * checks appended to ctx->checks. `n` numbers the dimensions from 1. */
static MirExpr *
grab_size (SizeCtx *ctx, MirInternal fn, int n, TildeExpr *src)
{
  MirExpr *e = lower_expr (ctx->L, src);
  gint64 value = 0;
  gboolean literal = int_literal_value (src, &value);
  TildeExpr *bare = strip_parens (src);

  if (ctx->mode == SIZES_LOCAL)
    {
      if (!(literal && value >= 0))
        g_ptr_array_add (ctx->checks,
                         validate_size_stmt (fn, ctx->name, src, mir_expr_copy (e)));
      return e;
    }
  if (literal && value >= 2)
    return e;
  if (literal || bare->kind == TILDE_EXPR_VARIABLE)
    {
      g_ptr_array_add (ctx->checks, validate_size_stmt (fn, ctx->name, src, mir_expr_copy (e)));
      return e;
    }
  g_autofree char *escaped = g_strdup (ctx->name);
  GString *decl_name = g_string_new (NULL);
  for (const char *p = escaped; *p; p++)
    {
      if (p[0] == '[' && p[1] == ']')
        {
          g_string_append (decl_name, "_brack");
          p++;
        }
      else if (*p == '.')
        g_string_append (decl_name, "_dot");
      else
        g_string_append_c (decl_name, *p);
    }
  g_string_append_printf (decl_name, "_%ddim__", n);
  const char *id = g_intern_string (decl_name->str);
  g_string_free (decl_name, TRUE);
  const TildeSpan *span = &e->span;
  g_ptr_array_add (ctx->checks, mir_stmt_decl (span, id, tilde_type_int (),
                                               mir_sized_new (MIR_SIZED_INT, NULL, NULL),
                                               TILDE_AD_DATA, MIR_DECL_DEFAULT, NULL));
  g_ptr_array_add (ctx->checks, mir_stmt_assign_var (span, id, e));
  MirExpr *var = mir_expr_var (span, tilde_type_int (), TILDE_AD_DATA, id);
  g_ptr_array_add (ctx->checks, validate_size_stmt (fn, ctx->name, src, mir_expr_copy (var)));
  return var;
}

static MirInternal
vector_size_check (SizeCtx *ctx)
{
  if (ctx->mode == SIZES_GLOBAL && ctx->action == ACTION_CONSTRAIN && ctx->trans)
    {
      if (ctx->trans->kind == MIR_TRANS_SIMPLEX)
        return MIR_FN_VALIDATE_SIZE_SIMPLEX;
      if (ctx->trans->kind == MIR_TRANS_UNIT_VECTOR)
        return MIR_FN_VALIDATE_SIZE_UNIT_VECTOR;
    }
  return MIR_FN_VALIDATE_SIZE;
}

static MirSizedType *sized_with_checks (SizeCtx *ctx, const TildeSizedType *t, int n);

static MirSizedType *
matrix_with_checks (SizeCtx *ctx, const TildeSizedType *t, int n, MirSizedKind kind)
{
  gboolean square = t->kind == TILDE_DECL_CHOLESKY_FACTOR_CORR
    || t->kind == TILDE_DECL_CORR_MATRIX || t->kind == TILDE_DECL_COV_MATRIX
    || (t->kind == TILDE_DECL_CHOLESKY_FACTOR_COV && !t->size2);
  TildeExpr *cols_src = square ? t->size1 : t->size2;
  MirExpr *rows = grab_size (ctx, MIR_FN_VALIDATE_SIZE, n, t->size1);
  MirExpr *cols = grab_size (ctx, MIR_FN_VALIDATE_SIZE, n + 1, cols_src);
  if (ctx->mode == SIZES_GLOBAL && ctx->action == ACTION_CONSTRAIN
      && t->kind == TILDE_DECL_CHOLESKY_FACTOR_COV)
    {
      g_autofree char *what = g_strconcat ("cholesky_factor_cov ", ctx->name, NULL);
      GPtrArray *args = mir_expr_list_of (
        mir_expr_string (&rows->span, what),
        mir_expr_string (&rows->span, "num rows (must be greater or equal to num cols)"),
        mir_expr_copy (rows), mir_expr_copy (cols), NULL);
      g_ptr_array_add (ctx->checks,
                       mir_stmt_nr_call (&rows->span,
                                         mir_fun_stanlib ("check_greater_or_equal",
                                                          MIR_SUFFIX_PLAIN, FALSE), args));
    }
  return mir_sized_new (kind, rows, cols);
}

static MirSizedType *
sized_with_checks (SizeCtx *ctx, const TildeSizedType *t, int n)
{
  switch (t->kind)
    {
    case TILDE_DECL_INT: return mir_sized_new (MIR_SIZED_INT, NULL, NULL);
    case TILDE_DECL_REAL: return mir_sized_new (MIR_SIZED_REAL, NULL, NULL);
    case TILDE_DECL_COMPLEX: return mir_sized_new (MIR_SIZED_COMPLEX, NULL, NULL);
    case TILDE_DECL_ROW_VECTOR:
      return mir_sized_new (MIR_SIZED_ROW_VECTOR,
                            grab_size (ctx, MIR_FN_VALIDATE_SIZE, n, t->size1), NULL);
    case TILDE_DECL_COMPLEX_VECTOR:
      return mir_sized_new (MIR_SIZED_COMPLEX_VECTOR,
                            grab_size (ctx, MIR_FN_VALIDATE_SIZE, n, t->size1), NULL);
    case TILDE_DECL_COMPLEX_ROW_VECTOR:
      return mir_sized_new (MIR_SIZED_COMPLEX_ROW_VECTOR,
                            grab_size (ctx, MIR_FN_VALIDATE_SIZE, n, t->size1), NULL);
    case TILDE_DECL_COMPLEX_MATRIX:
      return matrix_with_checks (ctx, t, n, MIR_SIZED_COMPLEX_MATRIX);
    case TILDE_DECL_MATRIX: case TILDE_DECL_SUM_TO_ZERO_MATRIX:
    case TILDE_DECL_CHOLESKY_FACTOR_CORR: case TILDE_DECL_CHOLESKY_FACTOR_COV:
    case TILDE_DECL_CORR_MATRIX: case TILDE_DECL_COV_MATRIX:
    case TILDE_DECL_COLUMN_STOCHASTIC_MATRIX: case TILDE_DECL_ROW_STOCHASTIC_MATRIX:
      return matrix_with_checks (ctx, t, n, MIR_SIZED_MATRIX);
    case TILDE_DECL_ARRAY:
      {
        /* array[a, b] T is array[a] (array[b] T) */
        MirExpr **sizes = g_newa (MirExpr *, MAX (t->n_dims, 1));
        for (int i = 0; i < t->n_dims; i++)
          sizes[i] = grab_size (ctx, MIR_FN_VALIDATE_SIZE, n + i, t->dims[i]);
        MirSizedType *inner = sized_with_checks (ctx, t->element, n + t->n_dims);
        for (int i = t->n_dims - 1; i >= 0; i--)
          inner = mir_sized_array (inner, sizes[i]);
        return inner;
      }
    case TILDE_DECL_TUPLE:
      {
        GPtrArray *members = g_ptr_array_new_with_free_func ((GDestroyNotify) mir_sized_free);
        for (int i = 0; i < t->n_elements; i++)
          {
            SizeCtx sub = *ctx;
            const MirTransform *mt = ctx->trans && ctx->trans->kind == MIR_TRANS_TUPLE
              ? g_ptr_array_index (ctx->trans->members, i) : NULL;
            g_autofree char *name = NULL;
            if (ctx->mode == SIZES_GLOBAL)
              {
                GString *s = g_string_new (ctx->name);
                for (int k = 1; k < n; k++)
                  g_string_append (s, "[]");
                g_string_append_printf (s, ".%d", i + 1);
                name = g_string_free (s, FALSE);
                sub.name = name;
              }
            sub.trans = mt;
            g_ptr_array_add (members, sized_with_checks (&sub, t->elements[i],
                                                         ctx->mode == SIZES_GLOBAL ? 1 : n));
          }
        return mir_sized_tuple (members);
      }
    default:
      if (is_vector_like_decl (t->kind))
        return mir_sized_new (MIR_SIZED_VECTOR,
                              grab_size (ctx, vector_size_check (ctx), n, t->size1), NULL);
      break;
    }
  g_return_val_if_reached (mir_sized_new (MIR_SIZED_REAL, NULL, NULL));
}

/* ---- constraint checks of declarations ---- */

/* `a` for the variable `var`: indexed like `var` when the bound is a
 * container and `var` is an element reached through loops (stanc's
 * copy_indices). */
static MirExpr *
bound_for (const MirExpr *var, const MirExpr *a)
{
  MirExpr *copy = mir_expr_copy (a);
  if (!copy->type || tilde_type_is_scalar (copy->type) || var->kind != MIR_EXPR_INDEXED)
    return copy;
  GPtrArray *indices = g_ptr_array_new_with_free_func ((GDestroyNotify) mir_index_free);
  const GPtrArray *from = var->u.indexed.indices;
  for (guint i = 0; i < from->len; i++)
    g_ptr_array_add (indices, mir_index_copy (g_ptr_array_index (from, i)));
  const TildeType *type = mir_indexed_type (copy->type, indices);
  return mir_expr_indexed (&copy->span, type ? type : copy->type, copy->ad_level, copy, indices);
}

static GPtrArray *
transform_args (const MirExpr *var, const MirTransform *t)
{
  GPtrArray *args = mir_expr_list_new ();
  switch (t->kind)
    {
    case MIR_TRANS_LOWER: case MIR_TRANS_UPPER:
      g_ptr_array_add (args, bound_for (var, t->a));
      break;
    case MIR_TRANS_OFFSET:
      g_ptr_array_add (args, bound_for (var, t->a));
      g_ptr_array_add (args, mir_expr_int (&t->a->span, 1));
      break;
    case MIR_TRANS_MULTIPLIER:
      g_ptr_array_add (args, mir_expr_int (&t->a->span, 0));
      g_ptr_array_add (args, bound_for (var, t->a));
      break;
    case MIR_TRANS_LOWER_UPPER: case MIR_TRANS_OFFSET_MULTIPLIER:
      g_ptr_array_add (args, bound_for (var, t->a));
      g_ptr_array_add (args, bound_for (var, t->b));
      break;
    default:
      break;
    }
  return args;
}

static MirStmt *
check_stmt (const TildeSpan *span, const MirExpr *var, const MirTransform *t)
{
  MirInternalData *d = mir_internal_data_new ();
  g_autofree char *name = mir_print_expr (var);
  d->trans = mir_transform_copy (t);
  d->var_name = g_intern_string (name);
  d->var = mir_expr_copy (var);
  return mir_stmt_nr_call (span, mir_fun_internal (MIR_FN_CHECK, d), transform_args (var, t));
}

static MirStmt *
make_for (Lower *L, const TildeSpan *span, MirExpr *upper, const char **loopvar_out)
{
  const char *var = gensym_enter (L);
  *loopvar_out = var;
  return mir_stmt_for (span, var, mir_expr_int (span, 1), upper,
                       mir_stmt_block (span, mir_stmt_list_new ()));
}

static MirExpr *
add_index (MirExpr *e, MirExpr *index)
{
  GPtrArray *one = mir_index_list_new ();
  g_ptr_array_add (one, mir_index_new (MIR_INDEX_SINGLE, index, NULL));
  const TildeType *type = mir_indexed_type (e->type, one);
  TildeAdLevel ad = ad_for_type (e->ad_level, type);
  if (e->kind == MIR_EXPR_INDEXED)
    {
      g_ptr_array_add (e->u.indexed.indices, g_ptr_array_steal_index (one, 0));
      g_ptr_array_unref (one);
      type = mir_indexed_type (e->u.indexed.base->type, e->u.indexed.indices);
      e->type = type ? type : e->type;
      e->ad_level = ad;
      return e;
    }
  return mir_expr_indexed (&e->span, type ? type : e->type, ad, e, one);
}

static MirExpr *
tuple_member (MirExpr *e, int slot)
{
  const TildeType *type = e->type && tilde_type_kind (e->type) == TILDE_TYPE_TUPLE
    ? tilde_type_member (e->type, slot - 1) : e->type;
  return mir_expr_tuple_proj (&e->span, type, ad_for_type (e->ad_level, type), e, slot);
}

static void check_decl (Lower *L, const TildeSpan *span, MirExpr *var, const MirSizedType *st,
                        const MirTransform *t, GPtrArray *out);

static void
check_tuple_members (Lower *L, const TildeSpan *span, MirExpr *var, const MirSizedType *st,
                     const MirTransform *t, GPtrArray *out)
{
  for (guint i = 0; i < t->members->len; i++)
    {
      MirExpr *member = tuple_member (mir_expr_copy (var), (int) i + 1);
      const MirSizedType *mst = st && st->kind == MIR_SIZED_TUPLE
        ? g_ptr_array_index (st->members, i) : NULL;
      check_decl (L, span, member, mst, g_ptr_array_index (t->members, i), out);
      mir_expr_free (member);
    }
}

/* stanc's check_decl: FnCheck__ of a constraint, both bounds separately,
 * tuples member by member (inside loops over their array dimensions). */
static void
check_decl (Lower *L, const TildeSpan *span, MirExpr *var, const MirSizedType *st,
            const MirTransform *t, GPtrArray *out)
{
  if (t->kind == MIR_TRANS_LOWER_UPPER)
    {
      MirTransform lo = { MIR_TRANS_LOWER, t->a, NULL, NULL };
      MirTransform hi = { MIR_TRANS_UPPER, t->b, NULL, NULL };
      check_decl (L, span, var, st, &lo, out);
      check_decl (L, span, var, st, &hi, out);
      return;
    }
  if (!transform_has_check (t))
    return;
  if (t->kind != MIR_TRANS_TUPLE)
    {
      g_ptr_array_add (out, check_stmt (span, var, t));
      return;
    }
  if (!st || st->kind != MIR_SIZED_ARRAY)
    {
      check_tuple_members (L, span, var, st, t, out);
      return;
    }
  /* loops over the array dimensions, outermost first */
  MirStmt *outer = NULL;
  GPtrArray *body = out;
  MirExpr *elem = mir_expr_copy (var);
  int depth = 0;
  for (const MirSizedType *a = st; a->kind == MIR_SIZED_ARRAY; a = a->elem, depth++)
    {
      const char *lv;
      MirStmt *loop = make_for (L, span, mir_expr_copy (a->dim1), &lv);
      elem = add_index (elem, mir_expr_var (span, tilde_type_int (), TILDE_AD_DATA, lv));
      g_ptr_array_add (body, loop);
      if (!outer)
        outer = loop;
      body = loop->u.for_stmt.body->u.block.stmts;
      st = a->elem;
    }
  check_tuple_members (L, span, elem, st, t, body);
  mir_expr_free (elem);
  for (int i = 0; i < depth; i++)
    gensym_reset (L);
}

static void
shape_check (const char *decl_id, const MirExpr *var, const char *what, const MirExpr *bound,
             const TildeSpan *span, GPtrArray *out)
{
  if (!bound->type || tilde_type_is_scalar (bound->type) || tilde_type_is_complex (bound->type))
    return;
  GPtrArray *args = mir_expr_list_of (mir_expr_string (span, "constraint"),
                                      mir_expr_string (span, decl_id), mir_expr_copy (var),
                                      mir_expr_string (span, what), mir_expr_copy (bound), NULL);
  g_ptr_array_add (out, mir_stmt_nr_call (span, mir_fun_stanlib ("check_matching_dims",
                                                                  MIR_SUFFIX_PLAIN, FALSE),
                                          args));
}

static void
check_transform_shape (const char *decl_id, const MirExpr *var, const MirTransform *t,
                       const TildeSpan *span, GPtrArray *out)
{
  switch (t->kind)
    {
    case MIR_TRANS_OFFSET: shape_check (decl_id, var, "offset", t->a, span, out); break;
    case MIR_TRANS_MULTIPLIER: shape_check (decl_id, var, "multiplier", t->a, span, out); break;
    case MIR_TRANS_LOWER: shape_check (decl_id, var, "lower", t->a, span, out); break;
    case MIR_TRANS_UPPER: shape_check (decl_id, var, "upper", t->a, span, out); break;
    case MIR_TRANS_OFFSET_MULTIPLIER:
      shape_check (decl_id, var, "offset", t->a, span, out);
      shape_check (decl_id, var, "multiplier", t->b, span, out);
      break;
    case MIR_TRANS_LOWER_UPPER:
      shape_check (decl_id, var, "lower", t->a, span, out);
      shape_check (decl_id, var, "upper", t->b, span, out);
      break;
    default:
      break;
    }
}

static gboolean
is_user_ident (const char *name)
{
  return !g_str_has_suffix (name, "__");
}

static void
set_annotations (MirAnnotations *a, const TildeAnnotation *anns, int n)
{
  for (int i = 0; i < n; i++)
    mir_annotations_add (a, anns[i].name.name);
}

/* stanc's create_decl_with_assign: the declaration, the assignment of the
 * initial value, then the checks the context asks for. */
static void
decl_with_assign (Lower *L, DeclContext dc, const char *id, MirSizedType *sized,
                  const TildeType *type, TildeExpr *init, const MirTransform *trans,
                  const TildeSpan *span, const TildeStmt *ast_decl, GPtrArray *out)
{
  /* stanc's fill_adtype_for_type: the context's level, whatever the type */
  TildeAdLevel ad = dc.ad;
  MirStmt *decl = mir_stmt_decl (span, id, type, sized, ad, MIR_DECL_DEFAULT, NULL);
  if (ast_decl)
    set_annotations (&decl->u.decl.annotations, ast_decl->u.var_decl.annotations,
                     ast_decl->u.var_decl.n_annotations);
  g_ptr_array_add (out, decl);
  if (init)
    {
      MirExpr *rhs = promote (lower_expr (L, init), type);
      MirLvalue *lhs = mir_lvalue_var (span, type, ad, id, NULL);
      g_ptr_array_add (out, mir_stmt_assign (span, lhs, rhs));
    }
  if (!is_user_ident (id) || !trans || dc.action == ACTION_IGNORE)
    return;
  MirExpr *var = mir_expr_var (span, type, ad, id);
  check_transform_shape (id, var, trans, span, out);
  if (dc.action == ACTION_CHECK)
    check_decl (L, span, var, sized, trans, out);
  mir_expr_free (var);
}

/* ---- statements ---- */

static void lower_stmt (Lower *L, DeclContext dc, TildeStmt *s, GPtrArray *out);

static MirStmt *
lower_single (Lower *L, DeclContext dc, TildeStmt *s)
{
  GPtrArray *list = mir_stmt_list_new ();
  lower_stmt (L, dc, s, list);
  if (list->len == 1)
    {
      MirStmt *only = g_ptr_array_steal_index (list, 0);
      g_ptr_array_unref (list);
      return only;
    }
  return mir_stmt_slist (&s->span, list);
}

static void
lower_stmt_list (Lower *L, DeclContext dc, TildeStmt **stmts, int n, GPtrArray *out)
{
  for (int i = 0; i < n; i++)
    lower_stmt (L, dc, stmts[i], out);
}

/* The lvalue of an assignment, with runs of indices grouped as stanc does
 * (x[1][2].1[3] is x[1, 2].1[3]). */
static MirLvalue *
lower_lvalue (Lower *L, TildeExpr *e)
{
  e = strip_parens (e);
  GPtrArray *indices = mir_index_list_new ();
  TildeExpr *base = e;
  while (base->kind == TILDE_EXPR_INDEXED)
    {
      GPtrArray *inner = lower_indices (L, base->u.indexed.indices, base->u.indexed.n_indices);
      for (guint i = 0; i < indices->len; i++)
        g_ptr_array_add (inner, indices->pdata[i]);
      g_ptr_array_set_free_func (indices, NULL);
      g_ptr_array_unref (indices);
      indices = inner;
      base = strip_parens (base->u.indexed.base);
    }
  if (!base->type)
    fail (L, &base->span, "untyped assignee");
  if (base->kind == TILDE_EXPR_TUPLE_PROJ)
    return mir_lvalue_proj (&e->span, base->type, base->ad_level,
                            lower_lvalue (L, base->u.proj.base), base->u.proj.slot, indices);
  const char *name = base->kind == TILDE_EXPR_VARIABLE ? base->u.variable.name : "?";
  if (base->kind != TILDE_EXPR_VARIABLE)
    fail (L, &base->span, "assignee that is not a variable");
  return mir_lvalue_var (&e->span, base->type, base->ad_level, name, indices);
}

/* The value an lvalue denotes, as an expression. */
static MirExpr *
expr_of_lvalue (const MirLvalue *l)
{
  MirExpr *base = l->proj_of
    ? mir_expr_tuple_proj (&l->span, l->type, l->ad_level, expr_of_lvalue (l->proj_of), l->slot)
    : mir_expr_var (&l->span, l->type, l->ad_level, l->var);
  if (l->indices->len == 0)
    return base;
  GPtrArray *indices = g_ptr_array_new_with_free_func ((GDestroyNotify) mir_index_free);
  for (guint i = 0; i < l->indices->len; i++)
    g_ptr_array_add (indices, mir_index_copy (g_ptr_array_index (l->indices, i)));
  const TildeType *type = mir_indexed_type (l->type, indices);
  type = type ? type : l->type;
  return mir_expr_indexed (&l->span, type, ad_for_type (l->ad_level, type), base, indices);
}

static const char *
assign_op_function (TildeAssignOp op)
{
  switch (op)
    {
    case TILDE_ASSIGN_PLUS: return "Plus__";
    case TILDE_ASSIGN_MINUS: return "Minus__";
    case TILDE_ASSIGN_TIMES: return "Times__";
    case TILDE_ASSIGN_DIVIDE: return "Divide__";
    case TILDE_ASSIGN_ELT_TIMES: return "EltTimes__";
    case TILDE_ASSIGN_ELT_DIVIDE: return "EltDivide__";
    case TILDE_ASSIGN_PLAIN: break;
    }
  return NULL;
}

static void
lower_single_assign (Lower *L, const TildeSpan *span, TildeExpr *lhs_ast, TildeAssignOp op,
                     MirExpr *rhs, GPtrArray *out)
{
  MirLvalue *lhs = lower_lvalue (L, lhs_ast);
  const TildeType *target = strip_parens (lhs_ast)->type;
  const char *fn = assign_op_function (op);
  if (fn)
    {
      MirExpr *current = expr_of_lvalue (lhs);
      TildeAdLevel ad = ad_for_type (ad_lub (current->ad_level, rhs->ad_level), target);
      rhs = mir_expr_stanlib (span, target, ad, fn, mir_expr_list_of (current, rhs, NULL));
    }
  else
    rhs = promote (rhs, target);
  g_ptr_array_add (out, mir_stmt_assign (span, lhs, rhs));
}

/* (a, b) = e: a temporary holds e, then each lvalue takes its member. */
static void
lower_unpacking (Lower *L, TildeStmt *s, GPtrArray *out)
{
  TildeExpr *lhs = strip_parens (s->u.assign.lhs);
  MirExpr *rhs = lower_expr (L, s->u.assign.rhs);
  const char *sym = gensym_enter (L);
  const TildeSpan *span = &rhs->span;
  GPtrArray *body = mir_stmt_list_new ();
  const TildeType *type = rhs->type;
  TildeAdLevel ad = rhs->ad_level;

  g_ptr_array_add (body, mir_stmt_decl (span, sym, type, NULL, ad, MIR_DECL_UNINIT, NULL));
  g_ptr_array_add (body, mir_stmt_assign_var (span, sym, rhs));
  for (int i = 0; i < lhs->u.list.n_items; i++)
    {
      TildeExpr *item = strip_parens (lhs->u.list.items[i]);
      MirExpr *member = tuple_member (mir_expr_var (span, type, ad, sym), i + 1);
      if (item->kind == TILDE_EXPR_TUPLE)
        {
          /* nested unpacking: assign the member to the nested lvalues one by one */
          for (int k = 0; k < item->u.list.n_items; k++)
            lower_single_assign (L, &s->span, item->u.list.items[k], s->u.assign.op,
                                 tuple_member (mir_expr_copy (member), k + 1), body);
          mir_expr_free (member);
        }
      else
        lower_single_assign (L, &s->span, item, s->u.assign.op, member, body);
    }
  gensym_reset (L);
  g_ptr_array_add (out, mir_stmt_block (&s->span, body));
}

static void
lower_assign (Lower *L, TildeStmt *s, GPtrArray *out)
{
  if (strip_parens (s->u.assign.lhs)->kind == TILDE_EXPR_TUPLE)
    {
      lower_unpacking (L, s, out);
      return;
    }
  lower_single_assign (L, &s->span, s->u.assign.lhs, s->u.assign.op,
                       lower_expr (L, s->u.assign.rhs), out);
}

static GPtrArray *
lower_printables (Lower *L, TildeStmt *s)
{
  return lower_exprs (L, s->u.printables.items, s->u.printables.n_items);
}

/* ---- ~ statements and truncation ---- */

static TildeStmt *
find_user_function (Lower *L, const char *name)
{
  const TildeBlock *fb = L->ast->blocks[TILDE_BLOCK_FUNCTIONS];
  const char *interned = g_intern_string (name);
  for (int i = 0; fb && i < fb->n_stmts; i++)
    {
      TildeStmt *f = fb->stmts[i];
      if (f->kind == TILDE_STMT_FUN_DEF && f->u.fun_def.name.name == interned)
        return f;
    }
  return NULL;
}

static TildeArgType *
arg_types_of (GPtrArray *args)
{
  TildeArgType *types = g_new0 (TildeArgType, MAX (args->len, 1));
  for (guint i = 0; i < args->len; i++)
    {
      MirExpr *a = g_ptr_array_index (args, i);
      types[i].ad = a->ad_level;
      types[i].type = a->type;
    }
  return types;
}

/* The library density a `~` statement resolves to: foo_lpmf when it fits,
 * else foo_lpdf (the order the checker tries them in). */
static const TildeType *
library_density (const char *family, GPtrArray *args, gboolean *is_pmf)
{
  g_autofree TildeArgType *types = arg_types_of (args);
  static const char *const suffixes[] = { "_lpmf", "_lpdf" };
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *name = g_strconcat (family, suffixes[k], NULL);
      TildeMatch match;
      if (tilde_library_resolve (name, types, args->len, &match, NULL) == TILDE_MATCH_UNIQUE)
        {
          *is_pmf = k == 0;
          return match.function;
        }
    }
  *is_pmf = tilde_library_distribution_suffixes (family) & TILDE_DIST_LPMF;
  return NULL;
}

static void
mark_tilde_terms (MirStmt *s, gpointer data)
{
  if (s->kind == MIR_STMT_TARGET_PLUS)
    s->u.increment.from_tilde = TRUE;
}

typedef struct {
  Lower       *L;
  TildeStmt   *s;
  MirExpr     *variate;     /* lowered `y` */
  GPtrArray   *params;      /* lowered arguments after `y` */
  gboolean     variate_container;
  int          container_param;  /* index of the first container parameter, or -1 */
} Trunc;

static MirExpr *
neg_target (const TildeSpan *span, MirExpr *e)
{
  return mir_expr_stanlib (span, tilde_type_real (), e->ad_level, "PMinus__",
                           mir_expr_list_of (e, NULL));
}

/* The cdf family function for a bound: user-defined when the program
 * defines it, else the library's; `discrete` when its first argument is an
 * int. */
static MirFun
cdf_function (Trunc *t, const char *suffix, gboolean *discrete)
{
  const char *dist = t->s->u.tilde.distribution.name;
  g_autofree char *name = g_strconcat (dist, suffix, NULL);
  TildeStmt *user = find_user_function (t->L, name);
  if (user)
    {
      const TildeType *first = user->u.fun_def.n_args > 0
        ? unsized_to_type (user->u.fun_def.args[0].type) : NULL;
      *discrete = first && tilde_type_is_int (first);
      return mir_fun_user (name, MIR_SUFFIX_PLAIN, FALSE);
    }
  g_autofree char *pmf = g_strconcat (dist, "_lpmf", NULL);
  *discrete = tilde_library_has_function (pmf);
  return mir_fun_stanlib (name, MIR_SUFFIX_PLAIN, FALSE);
}

static MirExpr *
promote_to_real_unless (gboolean discrete, MirExpr *bound)
{
  if (!discrete && bound->type == tilde_type_int ())
    return mir_expr_promotion (bound, tilde_type_real (), bound->ad_level);
  return bound;
}

/* A lower bound is inclusive: for a discrete variate the ccdf/cdf is taken
 * at bound - 1. */
static MirExpr *
inclusive_bound (gboolean discrete, MirExpr *bound)
{
  if (discrete)
    return stanlib2 (&bound->span, bound->type, "Minus__", bound, mir_expr_int (&bound->span, 1));
  return promote_to_real_unless (discrete, bound);
}

static MirExpr *
cdf_call (Trunc *t, MirFun fun, MirExpr *bound, GPtrArray *params)
{
  GPtrArray *args = mir_expr_list_of (bound, NULL);
  TildeAdLevel ad = bound->ad_level;
  for (guint i = 0; i < params->len; i++)
    {
      MirExpr *p = g_ptr_array_index (params, i);
      ad = ad_lub (ad, p->ad_level);
      g_ptr_array_add (args, mir_expr_copy (p));
    }
  g_ptr_array_unref (params);
  return mir_expr_call (&bound->span, tilde_type_real (), ad, fun, args);
}

/* A container variate with scalar parameters counts the term once per element. */
static MirExpr *
size_adjust (Trunc *t, MirExpr *e)
{
  if (!t->variate_container || t->container_param >= 0)
    return e;
  MirExpr *len = mir_expr_internal (&e->span, tilde_type_int (), TILDE_AD_DATA, MIR_FN_LENGTH,
                                    NULL, mir_expr_list_of (mir_expr_copy (t->variate), NULL));
  return stanlib2 (&e->span, tilde_type_real (), "Times__", e, len);
}

static GPtrArray *
params_copy (GPtrArray *params)
{
  return mir_expr_list_copy (params);
}

/* if (y < lb) target += negative infinity; else <otherwise> — with min(y)
 * or max(y) for a container variate. */
static MirStmt *
truncation_guard (Trunc *t, const char *op, const char *extremum, MirExpr *bound,
                  MirStmt *otherwise)
{
  MirExpr *obs = mir_expr_copy (t->variate);
  const TildeSpan *span = &bound->span;
  if (t->variate_container)
    {
      const TildeType *type = tilde_type_is_int_type (obs->type) ? tilde_type_int ()
                                                                : tilde_type_real ();
      obs = mir_expr_stanlib (span, type, obs->ad_level, extremum, mir_expr_list_of (obs, NULL));
    }
  MirExpr *cond = stanlib2 (span, tilde_type_int (), op, obs, mir_expr_copy (bound));
  MirExpr *ninf = mir_expr_internal (span, tilde_type_real (), TILDE_AD_DATA, MIR_FN_NEG_INF,
                                     NULL, NULL);
  return mir_stmt_if (span, cond, mir_stmt_target (span, ninf, TRUE, MIR_TERM_PRIOR), otherwise);
}

static MirExpr *
between_term (Trunc *t, MirFun fun, gboolean discrete, MirExpr *lb, MirExpr *ub,
              GPtrArray *params)
{
  MirExpr *upper = cdf_call (t, mir_fun_copy (&fun), promote_to_real_unless (discrete, ub),
                             params_copy (params));
  MirExpr *lower = cdf_call (t, fun, inclusive_bound (discrete, lb), params_copy (params));
  g_ptr_array_unref (params);
  TildeAdLevel ad = ad_lub (upper->ad_level, lower->ad_level);
  return mir_expr_stanlib (&ub->span, tilde_type_real (), ad, "log_diff_exp",
                           mir_expr_list_of (upper, lower, NULL));
}

/* T[lb, ub] with a container parameter: the terms are summed in a loop over
 * its elements, the parameters bound once to temporaries. */
static MirStmt *
between_loop (Trunc *t, MirFun fun, gboolean discrete, MirExpr *lb, MirExpr *ub)
{
  const TildeSpan *span = &ub->span;
  GPtrArray *body = mir_stmt_list_new ();
  GPtrArray *vars = mir_expr_list_new ();
  int made = 0;
  for (guint i = 0; i < t->params->len; i++)
    {
      MirExpr *p = g_ptr_array_index (t->params, i);
      if (p->kind == MIR_EXPR_VAR)
        {
          g_ptr_array_add (vars, mir_expr_copy (p));
          continue;
        }
      const char *sym = gensym_enter (t->L);
      made++;
      g_ptr_array_add (body, mir_stmt_decl (&p->span, sym, p->type, NULL, p->ad_level,
                                            MIR_DECL_DEFAULT, NULL));
      g_ptr_array_add (body, mir_stmt_assign_var (&p->span, sym, mir_expr_copy (p)));
      g_ptr_array_add (vars, mir_expr_var (&p->span, p->type, p->ad_level, sym));
    }
  MirExpr *container = g_ptr_array_index (vars, t->container_param);
  MirExpr *len = mir_expr_internal (span, tilde_type_int (), TILDE_AD_DATA, MIR_FN_LENGTH, NULL,
                                    mir_expr_list_of (mir_expr_copy (container), NULL));
  const char *lv;
  MirStmt *loop = make_for (t->L, span, len, &lv);
  GPtrArray *indexed = mir_expr_list_new ();
  for (guint i = 0; i < vars->len; i++)
    {
      MirExpr *v = mir_expr_copy (g_ptr_array_index (vars, i));
      if (v->type && tilde_type_is_container (v->type))
        v = add_index (v, mir_expr_var (span, tilde_type_int (), TILDE_AD_DATA, lv));
      g_ptr_array_add (indexed, v);
    }
  MirExpr *term = between_term (t, fun, discrete, mir_expr_copy (lb), mir_expr_copy (ub),
                                indexed);
  g_ptr_array_unref (vars);
  g_ptr_array_add (loop->u.for_stmt.body->u.block.stmts,
                   mir_stmt_target (span, neg_target (span, size_adjust (t, term)), TRUE,
                                    MIR_TERM_PRIOR));
  gensym_reset (t->L);
  for (int i = 0; i < made; i++)
    gensym_reset (t->L);
  g_ptr_array_add (body, loop);
  return mir_stmt_block (span, body);
}

static void
lower_truncation (Lower *L, TildeStmt *s, MirExpr *variate, GPtrArray *params, GPtrArray *out)
{
  Trunc t = { L, s, variate, params, FALSE, -1 };
  t.variate_container = variate->type && tilde_type_is_container (variate->type);
  for (guint i = 0; i < params->len; i++)
    {
      MirExpr *p = g_ptr_array_index (params, i);
      if (p->type && tilde_type_is_container (p->type) && t.container_param < 0)
        t.container_param = (int) i;
    }
  gboolean discrete;
  MirStmt *stmt = NULL;
  switch (s->u.tilde.truncation)
    {
    case TILDE_TRUNCATE_NONE:
      return;
    case TILDE_TRUNCATE_LOWER:
      {
        MirFun fun = cdf_function (&t, "_lccdf", &discrete);
        MirExpr *lb = lower_expr (L, s->u.tilde.trunc_lower);
        MirExpr *term = cdf_call (&t, fun, inclusive_bound (discrete, mir_expr_copy (lb)),
                                  params_copy (params));
        MirStmt *add = mir_stmt_target (&lb->span, neg_target (&lb->span, size_adjust (&t, term)),
                                        TRUE, MIR_TERM_PRIOR);
        stmt = truncation_guard (&t, "Less__", "min", lb, add);
        mir_expr_free (lb);
        break;
      }
    case TILDE_TRUNCATE_UPPER:
      {
        MirFun fun = cdf_function (&t, "_lcdf", &discrete);
        MirExpr *ub = lower_expr (L, s->u.tilde.trunc_upper);
        MirExpr *term = cdf_call (&t, fun, promote_to_real_unless (discrete, mir_expr_copy (ub)),
                                  params_copy (params));
        MirStmt *add = mir_stmt_target (&ub->span, neg_target (&ub->span, size_adjust (&t, term)),
                                        TRUE, MIR_TERM_PRIOR);
        stmt = truncation_guard (&t, "Greater__", "max", ub, add);
        mir_expr_free (ub);
        break;
      }
    case TILDE_TRUNCATE_BOTH:
      {
        MirFun fun = cdf_function (&t, "_lcdf", &discrete);
        MirExpr *lb = lower_expr (L, s->u.tilde.trunc_lower);
        MirExpr *ub = lower_expr (L, s->u.tilde.trunc_upper);
        MirStmt *inner;
        if (t.container_param >= 0)
          inner = between_loop (&t, fun, discrete, lb, ub);
        else
          {
            MirExpr *term = between_term (&t, fun, discrete, mir_expr_copy (lb),
                                          mir_expr_copy (ub), params_copy (params));
            inner = mir_stmt_target (&ub->span, neg_target (&ub->span, size_adjust (&t, term)),
                                     TRUE, MIR_TERM_PRIOR);
          }
        stmt = truncation_guard (&t, "Less__", "min", lb,
                                 truncation_guard (&t, "Greater__", "max", ub, inner));
        mir_expr_free (lb);
        mir_expr_free (ub);
        break;
      }
    }
  g_ptr_array_add (out, stmt);
}

/* foo_lpdf -> foo_lupdf, foo_lpmf -> foo_lupmf */
static char *
unnormalized_name (const char *name)
{
  gsize n = strlen (name);
  if (g_str_has_suffix (name, "_lpdf") || g_str_has_suffix (name, "_lpmf"))
    return g_strdup_printf ("%.*s_lu%s", (int) (n - 5), name, name + n - 3);
  return g_strdup (name);
}

/* y ~ foo(a, b): target += foo_lupdf(y, a, b) (or _lupmf), then the
 * truncation terms; all of them marked as coming from `~`. */
static void
lower_tilde (Lower *L, TildeStmt *s, GPtrArray *out)
{
  MirExpr *variate = lower_expr (L, s->u.tilde.arg);
  GPtrArray *params = lower_exprs (L, s->u.tilde.args, s->u.tilde.n_args);
  GPtrArray *args = mir_expr_list_of (mir_expr_copy (variate), NULL);
  TildeAdLevel ad = variate->ad_level;
  for (guint i = 0; i < params->len; i++)
    {
      MirExpr *p = g_ptr_array_index (params, i);
      ad = ad_lub (ad, p->ad_level);
      g_ptr_array_add (args, mir_expr_copy (p));
    }
  TildeFunction *user = tilde_decl_as_function (s->u.tilde.decl);
  const TildeType *signature;
  g_autofree char *name = NULL;
  if (user)
    {
      signature = user->type;
      name = unnormalized_name (user->name);
    }
  else
    {
      gboolean pmf;
      signature = library_density (s->u.tilde.distribution.name, args, &pmf);
      name = g_strconcat (s->u.tilde.distribution.name, pmf ? "_lupmf" : "_lupdf", NULL);
    }
  promote_args (args, signature);
  MirExpr *call = mir_expr_call (&s->span, tilde_type_real (), ad, fun_for_name (name, user != NULL),
                                 args);
  g_ptr_array_add (out, mir_stmt_target (&s->span, call, TRUE, MIR_TERM_PRIOR));
  guint first = out->len;
  lower_truncation (L, s, variate, params, out);
  for (guint i = first; i < out->len; i++)
    mir_stmt_walk (g_ptr_array_index (out, i), mark_tilde_terms, NULL);
  mir_expr_free (variate);
  g_ptr_array_unref (params);
}

/* ---- foreach loops ---- */

typedef struct {
  Lower           *L;
  const TildeSpan *span;
  const char      *loopvar;
  const TildeType *elem_type;
  TildeAdLevel     elem_ad;
  GPtrArray       *body;      /* the loop body's statements, used once */
} ForEach;

static MirStmt *
foreach_body (ForEach *fe, MirExpr *elem)
{
  GPtrArray *stmts = mir_stmt_list_new ();
  g_ptr_array_add (stmts, mir_stmt_decl (fe->span, fe->loopvar, fe->elem_type, NULL,
                                         fe->elem_ad, MIR_DECL_DEFAULT, NULL));
  MirLvalue *lhs = mir_lvalue_var (fe->span, fe->elem_type, fe->elem_ad, fe->loopvar, NULL);
  g_ptr_array_add (stmts, mir_stmt_assign (fe->span, lhs, elem));
  for (guint i = 0; i < fe->body->len; i++)
    g_ptr_array_add (stmts, fe->body->pdata[i]);
  g_ptr_array_set_free_func (fe->body, NULL);
  g_ptr_array_set_size (fe->body, 0);
  return mir_stmt_block (fe->span, stmts);
}

/* stanc's for_each: scalars are the element; vectors and arrays loop over
 * FnLength__, matrices over rows() and then the row. */
static MirStmt *
for_each (ForEach *fe, MirExpr *iteratee)
{
  TildeTypeKind kind = tilde_type_kind (iteratee->type);
  if (kind == TILDE_TYPE_INT || kind == TILDE_TYPE_REAL || kind == TILDE_TYPE_COMPLEX)
    return foreach_body (fe, iteratee);
  MirExpr *upper;
  if (kind == TILDE_TYPE_MATRIX || kind == TILDE_TYPE_COMPLEX_MATRIX)
    upper = mir_expr_stanlib (fe->span, tilde_type_int (), TILDE_AD_DATA, "rows",
                              mir_expr_list_of (mir_expr_copy (iteratee), NULL));
  else
    upper = mir_expr_internal (fe->span, tilde_type_int (), TILDE_AD_DATA, MIR_FN_LENGTH, NULL,
                               mir_expr_list_of (mir_expr_copy (iteratee), NULL));
  const char *lv;
  MirStmt *loop = make_for (fe->L, fe->span, upper, &lv);
  MirExpr *elem = add_index (iteratee, mir_expr_var (fe->span, tilde_type_int (),
                                                     TILDE_AD_DATA, lv));
  MirStmt *inner = (kind == TILDE_TYPE_MATRIX || kind == TILDE_TYPE_COMPLEX_MATRIX)
    ? for_each (fe, elem) : foreach_body (fe, elem);
  g_ptr_array_add (loop->u.for_stmt.body->u.block.stmts, inner);
  gensym_reset (fe->L);
  return loop;
}

static void
lower_foreach (Lower *L, TildeStmt *s, GPtrArray *out)
{
  MirExpr *iteratee = lower_expr (L, s->u.foreach_stmt.container);
  if (!iteratee->type)
    {
      fail (L, &s->span, "untyped foreach container");
      mir_expr_free (iteratee);
      return;
    }
  DeclContext inner = { ACTION_IGNORE, TILDE_AD_AUTODIFF };
  MirStmt *body = lower_single (L, inner, s->u.foreach_stmt.body);
  GPtrArray *body_stmts;
  if (body->kind == MIR_STMT_BLOCK)
    {
      body_stmts = g_steal_pointer (&body->u.block.stmts);
      body->u.block.stmts = mir_stmt_list_new ();
      mir_stmt_free (body);
    }
  else
    {
      body_stmts = mir_stmt_list_new ();
      g_ptr_array_add (body_stmts, body);
    }

  TildeTypeKind kind = tilde_type_kind (iteratee->type);
  const TildeType *elem_type = (kind == TILDE_TYPE_MATRIX) ? tilde_type_real ()
    : (kind == TILDE_TYPE_COMPLEX_MATRIX) ? tilde_type_complex ()
    : tilde_type_index (iteratee->type);
  if (!elem_type)
    elem_type = iteratee->type;
  ForEach fe = { L, &s->span, g_intern_string (s->u.foreach_stmt.var.name), elem_type,
                 iteratee->ad_level, body_stmts };

  if (iteratee->kind == MIR_EXPR_VAR)
    g_ptr_array_add (out, for_each (&fe, iteratee));
  else
    {
      const char *sym = gensym_enter (L);
      GPtrArray *stmts = mir_stmt_list_new ();
      const TildeSpan *span = &iteratee->span;
      MirExpr *var = mir_expr_var (span, iteratee->type, iteratee->ad_level, sym);
      g_ptr_array_add (stmts, mir_stmt_decl (span, sym, iteratee->type, NULL,
                                             iteratee->ad_level, MIR_DECL_DEFAULT, NULL));
      g_ptr_array_add (stmts, mir_stmt_assign_var (span, sym, iteratee));
      g_ptr_array_add (stmts, for_each (&fe, var));
      gensym_reset (L);
      g_ptr_array_add (out, mir_stmt_block (&s->span, stmts));
    }
  g_ptr_array_unref (body_stmts);
}

/* ---- declarations and the statement dispatcher ---- */

static void
lower_local_decl (Lower *L, DeclContext dc, TildeStmt *s, GPtrArray *out)
{
  for (int i = 0; i < s->u.var_decl.n_items; i++)
    {
      TildeVarDeclItem *item = &s->u.var_decl.items[i];
      MirTransform *trans = lower_transform (L, s->u.var_decl.type);
      SizeCtx ctx = { L, SIZES_LOCAL, dc.action, trans, item->ident.name, out };
      MirSizedType *sized = sized_with_checks (&ctx, s->u.var_decl.type, 1);
      decl_with_assign (L, dc, item->ident.name, sized, mir_sized_to_type (sized), item->init,
                        trans, &s->span, s, out);
      mir_transform_free (trans);
    }
}

static void
lower_nr_call (Lower *L, TildeStmt *s, GPtrArray *out)
{
  const char *name = s->u.call.name.name;
  GPtrArray *args = lower_exprs (L, s->u.call.args, s->u.call.n_args);
  promote_args (args, call_signature (NULL, name, s->u.call.decl, args));
  g_ptr_array_add (out, mir_stmt_nr_call (&s->span,
                                          fun_for_name (name, tilde_decl_as_function (
                                                                s->u.call.decl) != NULL),
                                          args));
}

static MirStmt *
as_block (MirStmt *s)
{
  if (s->kind == MIR_STMT_BLOCK)
    return s;
  GPtrArray *one = mir_stmt_list_new ();
  g_ptr_array_add (one, s);
  return mir_stmt_block (&s->span, one);
}

static char *
unquote (const char *s)
{
  gsize n = strlen (s);
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
    return g_strndup (s + 1, n - 2);
  return g_strdup (s);
}

static void
lower_stmt (Lower *L, DeclContext dc, TildeStmt *s, GPtrArray *out)
{
  /* only the block-level declarations get the context's checks */
  DeclContext nested = { ACTION_IGNORE, dc.ad };
  const TildeSpan *span = &s->span;
  switch (s->kind)
    {
    case TILDE_STMT_VAR_DECL:
      lower_local_decl (L, dc, s, out);
      return;
    case TILDE_STMT_ASSIGN:
      lower_assign (L, s, out);
      return;
    case TILDE_STMT_TILDE:
      lower_tilde (L, s, out);
      return;
    case TILDE_STMT_TARGET_PLUS:
      {
        MirExpr *e = lower_expr (L, s->u.increment.expr);
        g_ptr_array_add (out, mir_stmt_target (span, e, FALSE, MIR_TERM_PRIOR));
        return;
      }
    case TILDE_STMT_JACOBIAN_PLUS:
      g_ptr_array_add (out, mir_stmt_jacobian (span, lower_expr (L, s->u.increment.expr)));
      return;
    case TILDE_STMT_CALL:
      lower_nr_call (L, s, out);
      return;
    case TILDE_STMT_PRINT:
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      {
        MirInternal fn = s->kind == TILDE_STMT_PRINT ? MIR_FN_PRINT
          : s->kind == TILDE_STMT_REJECT ? MIR_FN_REJECT : MIR_FN_FATAL_ERROR;
        g_ptr_array_add (out, mir_stmt_nr_call (span, mir_fun_internal (fn, NULL),
                                                lower_printables (L, s)));
        return;
      }
    case TILDE_STMT_BREAK:
      g_ptr_array_add (out, mir_stmt_new (MIR_STMT_BREAK, span));
      return;
    case TILDE_STMT_CONTINUE:
      g_ptr_array_add (out, mir_stmt_new (MIR_STMT_CONTINUE, span));
      return;
    case TILDE_STMT_SKIP:
      g_ptr_array_add (out, mir_stmt_new (MIR_STMT_SKIP, span));
      return;
    case TILDE_STMT_RETURN:
      {
        MirExpr *e = s->u.ret.expr ? promote (lower_expr (L, s->u.ret.expr), L->fun_return)
                                   : NULL;
        g_ptr_array_add (out, mir_stmt_return (span, e));
        return;
      }
    case TILDE_STMT_IF:
      {
        MirExpr *cond = lower_expr (L, s->u.if_stmt.cond);
        MirStmt *then_stmt = lower_single (L, nested, s->u.if_stmt.then_stmt);
        MirStmt *else_stmt = s->u.if_stmt.else_stmt
          ? lower_single (L, nested, s->u.if_stmt.else_stmt) : NULL;
        g_ptr_array_add (out, mir_stmt_if (span, cond, then_stmt, else_stmt));
        return;
      }
    case TILDE_STMT_WHILE:
      {
        MirExpr *cond = lower_expr (L, s->u.while_stmt.cond);
        g_ptr_array_add (out, mir_stmt_while (span, cond,
                                              lower_single (L, nested, s->u.while_stmt.body)));
        return;
      }
    case TILDE_STMT_FOR:
      {
        MirExpr *lower = lower_expr (L, s->u.for_stmt.lower);
        MirExpr *upper = lower_expr (L, s->u.for_stmt.upper);
        MirStmt *body = as_block (lower_single (L, nested, s->u.for_stmt.body));
        g_ptr_array_add (out, mir_stmt_for (span, s->u.for_stmt.var.name, lower, upper, body));
        return;
      }
    case TILDE_STMT_FOREACH:
      lower_foreach (L, s, out);
      return;
    case TILDE_STMT_PROFILE:
      {
        GPtrArray *stmts = mir_stmt_list_new ();
        lower_stmt_list (L, nested, s->u.profile.stmts, s->u.profile.n_stmts, stmts);
        g_autofree char *name = unquote (s->u.profile.name);
        g_ptr_array_add (out, mir_stmt_profile (span, name, stmts));
        return;
      }
    case TILDE_STMT_BLOCK:
      {
        GPtrArray *stmts = mir_stmt_list_new ();
        lower_stmt_list (L, nested, s->u.block.stmts, s->u.block.n_stmts, stmts);
        g_ptr_array_add (out, mir_stmt_block (span, stmts));
        return;
      }
    case TILDE_STMT_FUN_DEF:
    case TILDE_STMT_ERROR:
      break;
    }
  fail (L, span, tilde_stmt_kind_to_string (s->kind));
}

/* ---- program blocks ---- */

static MirExpr *
int_binop (const char *op, MirExpr *a, MirExpr *b)
{
  return stanlib2 (&a->span, tilde_type_int (), op, a, b);
}

/* k * (k - 1) / 2 */
static MirExpr *
k_choose_2 (const MirExpr *k)
{
  const TildeSpan *sp = &k->span;
  MirExpr *km1 = int_binop ("Minus__", mir_expr_copy (k), mir_expr_int (sp, 1));
  return int_binop ("Divide__", int_binop ("Times__", mir_expr_copy (k), km1),
                    mir_expr_int (sp, 2));
}

static MirExpr *
minus_one (MirExpr *d)
{
  return int_binop ("Minus__", d, mir_expr_int (&d->span, 1));
}

/* The shape of the unconstrained values of a declaration (stanc's
 * transform_sizedtype): simplexes lose an element, correlation matrices
 * become vectors of k choose 2, ... Takes `t`. */
static MirSizedType *
unconstrained_type (const MirTransform *trans, MirSizedType *t)
{
  if (t->kind == MIR_SIZED_ARRAY)
    {
      t->elem = unconstrained_type (trans, t->elem);
      return t;
    }
  if (t->kind == MIR_SIZED_TUPLE)
    {
      for (guint i = 0; trans && trans->kind == MIR_TRANS_TUPLE && i < t->members->len; i++)
        t->members->pdata[i] = unconstrained_type (g_ptr_array_index (trans->members, i),
                                                   t->members->pdata[i]);
      return t;
    }
  if (!trans)
    return t;
  gboolean matrix = t->kind == MIR_SIZED_MATRIX;
  switch (trans->kind)
    {
    case MIR_TRANS_SUM_TO_ZERO:
      t->dim1 = minus_one (t->dim1);
      if (matrix)
        t->dim2 = minus_one (t->dim2);
      return t;
    case MIR_TRANS_SIMPLEX:
    case MIR_TRANS_STOCHASTIC_COLUMN:
      t->dim1 = minus_one (t->dim1);
      return t;
    case MIR_TRANS_STOCHASTIC_ROW:
      if (matrix)
        t->dim2 = minus_one (t->dim2);
      return t;
    case MIR_TRANS_CHOLESKY_CORR:
    case MIR_TRANS_CORRELATION:
    case MIR_TRANS_COVARIANCE:
    case MIR_TRANS_CHOLESKY_COV:
      {
        MirExpr *size;
        if (trans->kind == MIR_TRANS_COVARIANCE)
          size = int_binop ("Plus__", mir_expr_copy (t->dim1), k_choose_2 (t->dim1));
        else if (trans->kind == MIR_TRANS_CHOLESKY_COV)
          {
            MirExpr *m = t->dim1, *n = t->dim2;
            MirExpr *tri = int_binop ("Plus__", k_choose_2 (n), mir_expr_copy (n));
            MirExpr *rest = int_binop ("Times__",
                                       int_binop ("Minus__", mir_expr_copy (m), mir_expr_copy (n)),
                                       mir_expr_copy (n));
            size = int_binop ("Plus__", tri, rest);
          }
        else
          size = k_choose_2 (t->dim1);
        MirSizedType *v = mir_sized_new (MIR_SIZED_VECTOR, size, NULL);
        v->mem = t->mem;
        mir_sized_free (t);
        return v;
      }
    default:
      return t;
    }
}

typedef struct {
  GPtrArray *outvars;   /* MirOutputVar*, or NULL */
  GPtrArray *sizes;     /* size checks, or NULL */
  GPtrArray *stmts;
} BlockParts;

/* stanc's trans_block: the top-level declarations of parameters,
 * transformed parameters or generated quantities, and their statements. */
static void
lower_block (Lower *L, DeclContext dc, TildeBlockKind kind, MirOutBlock out_block,
             BlockParts *parts)
{
  const TildeBlock *block = L->ast->blocks[kind];
  for (int i = 0; block && i < block->n_stmts; i++)
    {
      TildeStmt *s = block->stmts[i];
      if (s->kind != TILDE_STMT_VAR_DECL || !s->u.var_decl.is_global)
        {
          lower_stmt (L, dc, s, parts->stmts);
          continue;
        }
      for (int k = 0; k < s->u.var_decl.n_items; k++)
        {
          TildeVarDeclItem *item = &s->u.var_decl.items[k];
          MirTransform *trans = lower_transform (L, s->u.var_decl.type);
          GPtrArray *sizes = mir_stmt_list_new ();
          SizeCtx ctx = { L, SIZES_GLOBAL, dc.action, trans, item->ident.name, sizes };
          MirSizedType *sized = sized_with_checks (&ctx, s->u.var_decl.type, 1);
          if (parts->outvars)
            {
              MirOutputVar *v = g_new0 (MirOutputVar, 1);
              v->name = g_intern_string (item->ident.name);
              v->constrained = mir_sized_copy (sized);
              v->unconstrained = unconstrained_type (trans, mir_sized_copy (sized));
              v->block = out_block;
              v->trans = mir_transform_copy (trans);
              v->span = s->span;
              g_ptr_array_add (parts->outvars, v);
            }
          if (parts->sizes)
            g_ptr_array_extend_and_steal (parts->sizes, sizes);
          else
            g_ptr_array_unref (sizes);
          decl_with_assign (L, dc, item->ident.name, sized, mir_sized_to_type (sized),
                            item->init, trans, &s->span, s, parts->stmts);
          mir_transform_free (trans);
        }
    }
}

static gboolean
contains_check_visit (MirStmt *s, gboolean *found)
{
  if (s->kind == MIR_STMT_NR_CALL && s->u.call.fun.kind == MIR_FUN_COMPILER
      && s->u.call.fun.internal == MIR_FN_CHECK)
    *found = TRUE;
  return *found;
}

static void
contains_check_cb (MirStmt *s, gpointer data)
{
  contains_check_visit (s, data);
}

static gboolean
stmt_contains_check (MirStmt *s)
{
  gboolean found = FALSE;
  mir_stmt_walk (s, contains_check_cb, &found);
  return found;
}

/* Statements holding constraint checks go after all the others. */
static void
migrate_checks_to_end (GPtrArray *stmts)
{
  GPtrArray *checks = g_ptr_array_new ();
  guint k = 0;
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      if (stmt_contains_check (s))
        g_ptr_array_add (checks, s);
      else
        stmts->pdata[k++] = s;
    }
  for (guint i = 0; i < checks->len; i++)
    stmts->pdata[k++] = checks->pdata[i];
  g_ptr_array_unref (checks);
}

static void
append_all (GPtrArray *to, GPtrArray *from)
{
  g_ptr_array_extend_and_steal (to, from);
}

/* The span of block `kind`, or of the first block after it that exists:
 * compiler-made statements are attributed to the block they stand for. */
static const TildeSpan *
block_span (Lower *L, TildeBlockKind kind)
{
  for (int k = kind; k < TILDE_N_BLOCKS; k++)
    if (L->ast->blocks[k])
      return &L->ast->blocks[k]->span;
  for (int k = kind - 1; k >= 0; k--)
    if (L->ast->blocks[k])
      return &L->ast->blocks[k]->span;
  return &no_span;
}

static MirExpr *
flag_var (const TildeSpan *span, const char *name)
{
  return mir_expr_var (span, tilde_type_int (), TILDE_AD_DATA, name);
}

/* if(PNot__(cond)) return; */
static MirStmt *
early_return (const TildeSpan *span, MirExpr *cond)
{
  MirExpr *neg = mir_expr_stanlib (span, tilde_type_int (), TILDE_AD_DATA, "PNot__",
                                   mir_expr_list_of (cond, NULL));
  return mir_stmt_if (span, neg, mir_stmt_return (span, NULL), NULL);
}

static void
lower_data (Lower *L)
{
  const TildeBlock *data = L->ast->blocks[TILDE_BLOCK_DATA];
  DeclContext check = { ACTION_CHECK, TILDE_AD_DATA };
  GPtrArray *prepare = L->prog->parts[MIR_PART_PREPARE_DATA];

  for (int i = 0; data && i < data->n_stmts; i++)
    {
      TildeStmt *s = data->stmts[i];
      if (s->kind == TILDE_STMT_VAR_DECL)
        for (int k = 0; k < s->u.var_decl.n_items; k++)
          {
            GPtrArray *discard = mir_stmt_list_new ();
            SizeCtx ctx = { L, SIZES_LOCAL, ACTION_IGNORE, NULL, s->u.var_decl.items[k].ident.name,
                            discard };
            MirInputVar *v = g_new0 (MirInputVar, 1);
            v->name = g_intern_string (s->u.var_decl.items[k].ident.name);
            v->type = sized_with_checks (&ctx, s->u.var_decl.type, 1);
            v->span = s->span;
            set_annotations (&v->annotations, s->u.var_decl.annotations,
                             s->u.var_decl.n_annotations);
            g_ptr_array_add (L->prog->input_vars, v);
            g_ptr_array_unref (discard);
          }
      lower_stmt (L, check, s, prepare);
    }

  const TildeBlock *tdata = L->ast->blocks[TILDE_BLOCK_TRANSFORMED_DATA];
  GPtrArray *td = mir_stmt_list_new ();
  for (int i = 0; tdata && i < tdata->n_stmts; i++)
    lower_stmt (L, check, tdata->stmts[i], td);
  migrate_checks_to_end (td);
  append_all (prepare, td);
}

static void
lower_model_parts (Lower *L)
{
  DeclContext constrain_ad = { ACTION_CONSTRAIN, TILDE_AD_AUTODIFF };
  DeclContext constrain_data = { ACTION_CONSTRAIN, TILDE_AD_DATA };
  DeclContext check_ad = { ACTION_CHECK, TILDE_AD_AUTODIFF };
  DeclContext check_data = { ACTION_CHECK, TILDE_AD_DATA };
  MirProgram *p = L->prog;

  /* log_prob: parameters, transformed parameters, the model block */
  GPtrArray *log_prob = p->parts[MIR_PART_LOG_PROB];
  BlockParts param = { NULL, NULL, mir_stmt_list_new () };
  lower_block (L, constrain_ad, TILDE_BLOCK_PARAMETERS, MIR_OUT_PARAMETERS, &param);
  append_all (log_prob, param.stmts);
  BlockParts tparam = { NULL, NULL, mir_stmt_list_new () };
  lower_block (L, check_ad, TILDE_BLOCK_TRANSFORMED_PARAMETERS,
               MIR_OUT_TRANSFORMED_PARAMETERS, &tparam);
  migrate_checks_to_end (tparam.stmts);
  append_all (log_prob, tparam.stmts);
  const TildeBlock *model = L->ast->blocks[TILDE_BLOCK_MODEL];
  if (model && model->n_stmts > 0)
    {
      DeclContext local = { ACTION_IGNORE, TILDE_AD_AUTODIFF };
      GPtrArray *stmts = mir_stmt_list_new ();
      lower_stmt_list (L, local, model->stmts, model->n_stmts, stmts);
      if (stmts->len > 0)
        g_ptr_array_add (log_prob, mir_stmt_block (&model->span, stmts));
      else
        g_ptr_array_unref (stmts);
    }

  /* generate_quantities, with the sizes of every output validated in prepare_data */
  GPtrArray *gq = p->parts[MIR_PART_GENERATE_QUANTITIES];
  GPtrArray *prepare = p->parts[MIR_PART_PREPARE_DATA];
  BlockParts param_gq = { p->output_vars, mir_stmt_list_new (), mir_stmt_list_new () };
  lower_block (L, constrain_data, TILDE_BLOCK_PARAMETERS, MIR_OUT_PARAMETERS, &param_gq);
  BlockParts tparam_gq = { p->output_vars, mir_stmt_list_new (), mir_stmt_list_new () };
  lower_block (L, check_data, TILDE_BLOCK_TRANSFORMED_PARAMETERS,
               MIR_OUT_TRANSFORMED_PARAMETERS, &tparam_gq);
  BlockParts gq_parts = { p->output_vars, mir_stmt_list_new (), mir_stmt_list_new () };
  lower_block (L, check_data, TILDE_BLOCK_GENERATED_QUANTITIES,
               MIR_OUT_GENERATED_QUANTITIES, &gq_parts);
  append_all (prepare, param_gq.sizes);
  append_all (prepare, tparam_gq.sizes);
  append_all (prepare, gq_parts.sizes);

  append_all (gq, param_gq.stmts);
  GPtrArray *tp_decls = mir_stmt_list_new ();
  GPtrArray *tp_checks = mir_stmt_list_new ();
  GPtrArray *tp_other = mir_stmt_list_new ();
  for (guint i = 0; i < tparam_gq.stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (tparam_gq.stmts, i);
      GPtrArray *to = s->kind == MIR_STMT_DECL ? tp_decls
        : stmt_contains_check (s) ? tp_checks : tp_other;
      g_ptr_array_add (to, s);
    }
  g_ptr_array_set_free_func (tparam_gq.stmts, NULL);
  g_ptr_array_unref (tparam_gq.stmts);

  const TildeSpan *tp_span = block_span (L, TILDE_BLOCK_TRANSFORMED_PARAMETERS);
  const TildeSpan *gq_span = block_span (L, TILDE_BLOCK_GENERATED_QUANTITIES);
  append_all (gq, tp_decls);
  g_ptr_array_add (gq, early_return (tp_span, mir_expr_logical (
                                       tp_span, MIR_EXPR_OR, TILDE_AD_DATA,
                                       flag_var (tp_span, "emit_transformed_parameters__"),
                                       flag_var (tp_span, "emit_generated_quantities__"))));
  append_all (gq, tp_other);
  append_all (gq, tp_checks);
  g_ptr_array_add (gq, early_return (gq_span, flag_var (gq_span, "emit_generated_quantities__")));
  migrate_checks_to_end (gq_parts.stmts);
  append_all (gq, gq_parts.stmts);
}

static const TildeType *
unsized_to_type (const TildeUnsizedType *t)
{
  switch (t->kind)
    {
    case TILDE_UTYPE_INT: return tilde_type_int ();
    case TILDE_UTYPE_REAL: return tilde_type_real ();
    case TILDE_UTYPE_COMPLEX: return tilde_type_complex ();
    case TILDE_UTYPE_VECTOR: return tilde_type_vector ();
    case TILDE_UTYPE_ROW_VECTOR: return tilde_type_row_vector ();
    case TILDE_UTYPE_MATRIX: return tilde_type_matrix ();
    case TILDE_UTYPE_COMPLEX_VECTOR: return tilde_type_complex_vector ();
    case TILDE_UTYPE_COMPLEX_ROW_VECTOR: return tilde_type_complex_row_vector ();
    case TILDE_UTYPE_COMPLEX_MATRIX: return tilde_type_complex_matrix ();
    case TILDE_UTYPE_VOID: return tilde_type_void ();
    case TILDE_UTYPE_ARRAY:
      return tilde_type_array_n (unsized_to_type (t->element), (guint) t->n_dims);
    case TILDE_UTYPE_TUPLE:
      {
        const TildeType **members = g_newa (const TildeType *, MAX (t->n_elements, 1));
        for (int i = 0; i < t->n_elements; i++)
          members[i] = unsized_to_type (t->elements[i]);
        return tilde_type_tuple ((guint) t->n_elements, members);
      }
    }
  g_return_val_if_reached (tilde_type_void ());
}

static gboolean
same_signature (const TildeStmt *a, const TildeStmt *b)
{
  if (a->u.fun_def.name.name != b->u.fun_def.name.name || a->u.fun_def.n_args != b->u.fun_def.n_args)
    return FALSE;
  for (int i = 0; i < a->u.fun_def.n_args; i++)
    if (unsized_to_type (a->u.fun_def.args[i].type) != unsized_to_type (b->u.fun_def.args[i].type))
      return FALSE;
  return TRUE;
}

static gboolean
has_definition (const TildeBlock *fb, const TildeStmt *decl)
{
  for (int i = 0; i < fb->n_stmts; i++)
    {
      const TildeStmt *f = fb->stmts[i];
      if (f->kind == TILDE_STMT_FUN_DEF && f->u.fun_def.body && same_signature (f, decl))
        return TRUE;
    }
  return FALSE;
}

static void
lower_functions (Lower *L)
{
  const TildeBlock *fb = L->ast->blocks[TILDE_BLOCK_FUNCTIONS];
  DeclContext dc = { ACTION_IGNORE, TILDE_AD_AUTODIFF };
  for (int i = 0; fb && i < fb->n_stmts; i++)
    {
      TildeStmt *s = fb->stmts[i];
      if (s->kind != TILDE_STMT_FUN_DEF)
        continue;
      if (!s->u.fun_def.body && has_definition (fb, s))
        continue;
      MirFunDef *f = g_new0 (MirFunDef, 1);
      gboolean propto;
      f->name = g_intern_string (s->u.fun_def.name.name);
      f->return_type = unsized_to_type (s->u.fun_def.return_type);
      suffix_of_name (f->name, &f->suffix, &propto);
      f->args = g_array_new (FALSE, TRUE, sizeof (MirFunArg));
      for (int k = 0; k < s->u.fun_def.n_args; k++)
        {
          TildeFunArg *a = &s->u.fun_def.args[k];
          MirFunArg arg = {
            a->data_only ? TILDE_AD_DATA : TILDE_AD_AUTODIFF,
            g_intern_string (a->ident.name),
            unsized_to_type (a->type),
          };
          g_array_append_val (f->args, arg);
        }
      f->span = s->span;
      set_annotations (&f->annotations, s->u.fun_def.annotations, s->u.fun_def.n_annotations);
      if (s->u.fun_def.body)
        {
          L->fun_return = f->return_type == tilde_type_void () ? NULL : f->return_type;
          f->body = as_block (lower_single (L, dc, s->u.fun_def.body));
          L->fun_return = NULL;
        }
      g_ptr_array_add (L->prog->functions, f);
    }
}

static char *
default_model_name (const TildeProgram *ast)
{
  const TildeSourceFile *main = ast->sources ? tilde_source_set_get_main (ast->sources) : NULL;
  g_autofree char *base = g_path_get_basename (main && main->name ? main->name : "model");
  char *dot = strrchr (base, '.');
  if (dot && dot != base)
    *dot = '\0';
  GString *name = g_string_new (NULL);
  if (!g_ascii_isalpha (base[0]))
    g_string_append_c (name, '_');
  for (const char *p = base; *p; p++)
    g_string_append_c (name, g_ascii_isalnum (*p) || *p == '_' ? *p : '_');
  g_string_append (name, "_model");
  return g_string_free (name, FALSE);
}

MirProgram *
mir_lower_program_full (const TildeProgram *typed, const char *model_name)
{
  g_return_val_if_fail (typed != NULL, NULL);
  g_autofree char *name = model_name ? g_strdup (model_name) : default_model_name (typed);
  const TildeSourceFile *main = typed->sources ? tilde_source_set_get_main (typed->sources)
                                               : NULL;
  Lower L = { .ast = typed };
  L.prog = mir_program_new (name, main ? main->name : "", typed->sources);
  lower_functions (&L);
  lower_data (&L);
  lower_model_parts (&L);
  if (L.failed)
    {
      mir_program_free (L.prog);
      return NULL;
    }
  mir_classify_terms (L.prog);
  return L.prog;
}

MirProgram *
mir_lower_program (const TildeProgram *typed)
{
  return mir_lower_program_full (typed, NULL);
}
