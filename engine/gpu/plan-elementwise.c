/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "gpu/plan.h"
#include "mir/mir-print.h"
#include "semantics/types.h"

#include <math.h>
#include <string.h>

/* ---- the expression as a program ---- */

static const MirExpr *
arg (const MirExpr *e, guint i)
{
  return g_ptr_array_index (e->u.call.args, i);
}

static gboolean
stanlib (const MirExpr *e, const char *name, guint n)
{
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB
    && strcmp (e->u.call.fun.name, name) == 0 && e->u.call.args->len == n;
}

static gboolean
kind_is (const MirExpr *e, TildeTypeKind kind)
{
  return e->type && tilde_type_kind (e->type) == kind;
}

static gboolean
is_scalar (const MirExpr *e)
{
  return kind_is (e, TILDE_TYPE_REAL) || kind_is (e, TILDE_TYPE_INT);
}

static gboolean
is_vector (const MirExpr *e)
{
  return kind_is (e, TILDE_TYPE_VECTOR) || kind_is (e, TILDE_TYPE_ROW_VECTOR);
}

/* A number written in the program, or minus one. */
static gboolean
literal (const MirExpr *e, double *k)
{
  if (stanlib (e, "PMinus__", 1) && literal (arg (e, 0), k))
    {
      *k = -*k;
      return TRUE;
    }
  if (e->kind != MIR_EXPR_LIT || (e->u.lit.kind != MIR_LIT_INT && e->u.lit.kind != MIR_LIT_REAL))
    return FALSE;
  char *end = NULL;
  *k = g_ascii_strtod (e->u.lit.text, &end);
  return end && *end == '\0' && isfinite (*k);
}

static gint
emit (TildeGpuEwSite *s, TildeGpuEwIns ins)
{
  TildeGpuEwProgram *p = &s->prog;
  if (p->n_ins == TILDE_GPU_EW_MAX_INS)
    return -1;
  p->ins[p->n_ins] = ins;
  return (gint) p->n_ins++;
}

/* Int arithmetic of int variables and literals (N - 1): no side effects,
 * never autodiff. */
static gboolean
int_data (const MirExpr *e)
{
  static const char *const ops[] = { "Plus__", "Minus__", "Times__", "PMinus__" };
  if (!kind_is (e, TILDE_TYPE_INT))
    return FALSE;
  if (e->kind == MIR_EXPR_LIT || e->kind == MIR_EXPR_VAR)
    return TRUE;
  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_STANLIB)
    return FALSE;
  gboolean known = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    known |= strcmp (e->u.call.fun.name, ops[i]) == 0;
  for (guint i = 0; known && i < e->u.call.args->len; i++)
    known = int_data (arg (e, i));
  return known;
}

/* A scalar element of a variable at single int indices (theta[1], b[k]). */
static gboolean
indexed_scalar (const MirExpr *e)
{
  if (e->kind != MIR_EXPR_INDEXED || !is_scalar (e) || e->u.indexed.base->kind != MIR_EXPR_VAR)
    return FALSE;
  for (guint i = 0; i < e->u.indexed.indices->len; i++)
    {
      const MirIndex *ix = g_ptr_array_index (e->u.indexed.indices, i);
      if (ix->kind != MIR_INDEX_SINGLE || !int_data (ix->e))
        return FALSE;
    }
  return TRUE;
}

/* Two reads of the same value: a variable by its name, an element or int
 * arithmetic by its text. */
static gboolean
same_leaf (const MirExpr *a, const MirExpr *b)
{
  if (a->kind == MIR_EXPR_VAR || b->kind == MIR_EXPR_VAR)
    return a->kind == b->kind && strcmp (a->u.var.name, b->u.var.name) == 0;
  g_autofree char *ta = mir_print_expr (a);
  g_autofree char *tb = mir_print_expr (b);
  return strcmp (ta, tb) == 0;
}

/* The leaf reading `e` (a variable, or for a scalar an element or int
 * arithmetic), one per value. */
static gint
leaf (TildeGpuEwSite *s, const MirExpr *e, gboolean vector)
{
  TildeGpuEwProgram *p = &s->prog;
  const MirExpr **table = vector ? s->vectors : s->scalars;
  guint *n = vector ? &p->n_vectors : &p->n_scalars;
  guint max = vector ? TILDE_GPU_EW_MAX_VECTORS : TILDE_GPU_EW_MAX_SCALARS;
  guint j = 0;
  while (j < *n && !same_leaf (table[j], e))
    j++;
  if (j == *n)
    {
      if (*n == max)
        return -1;
      table[(*n)++] = e;
      if (!vector)
        p->tangent[j] = e->ad_level == TILDE_AD_DATA ? -1 : (gint8) p->n_tangents++;
    }
  return emit (s, (TildeGpuEwIns) { .op = vector ? TILDE_GPU_EW_VECTOR : TILDE_GPU_EW_SCALAR,
                                    .leaf = (guint8) j });
}

static const struct {
  const char  *name;
  guint        n;
  TildeGpuEwOp op;
} operations[] = {
  { "Plus__", 2, TILDE_GPU_EW_ADD }, { "Minus__", 2, TILDE_GPU_EW_SUB },
  { "Times__", 2, TILDE_GPU_EW_MUL }, { "EltTimes__", 2, TILDE_GPU_EW_MUL },
  { "Divide__", 2, TILDE_GPU_EW_DIV }, { "EltDivide__", 2, TILDE_GPU_EW_DIV },
  { "Pow__", 2, TILDE_GPU_EW_POW }, { "EltPow__", 2, TILDE_GPU_EW_POW },
  { "pow", 2, TILDE_GPU_EW_POW }, { "fma", 3, TILDE_GPU_EW_FMA },
  { "PMinus__", 1, TILDE_GPU_EW_NEG }, { "minus", 1, TILDE_GPU_EW_NEG },
  { "exp", 1, TILDE_GPU_EW_EXP }, { "log", 1, TILDE_GPU_EW_LOG },
  { "log1p", 1, TILDE_GPU_EW_LOG1P }, { "expm1", 1, TILDE_GPU_EW_EXPM1 },
  { "square", 1, TILDE_GPU_EW_SQUARE }, { "sqrt", 1, TILDE_GPU_EW_SQRT },
  { "inv", 1, TILDE_GPU_EW_INV }, { "inv_logit", 1, TILDE_GPU_EW_INV_LOGIT },
  { "log1p_exp", 1, TILDE_GPU_EW_LOG1P_EXP }, { "log_inv_logit", 1, TILDE_GPU_EW_LOG_INV_LOGIT },
  { "abs", 1, TILDE_GPU_EW_FABS },
};

static gint program_of (TildeGpuEwSite *s, const MirExpr *e);

static gint
operation (TildeGpuEwSite *s, const MirExpr *e)
{
  /* int arithmetic (integer division above all) is not the reals' */
  if (!is_scalar (e) && !is_vector (e))
    return -1;
  if (kind_is (e, TILDE_TYPE_INT))
    return -1;
  if (stanlib (e, "PPlus__", 1))
    return program_of (s, arg (e, 0));
  for (guint i = 0; i < G_N_ELEMENTS (operations); i++)
    {
      if (!stanlib (e, operations[i].name, operations[i].n))
        continue;
      /* a product or quotient of two vectors is not elementwise */
      if ((!strcmp (operations[i].name, "Times__") || !strcmp (operations[i].name, "Divide__"))
          && !is_scalar (arg (e, 0)) && !is_scalar (arg (e, 1)))
        return -1;
      gint ops[3] = { 0 };
      for (guint j = 0; j < operations[i].n; j++)
        if ((ops[j] = program_of (s, arg (e, j))) < 0)
          return -1;
      return emit (s, (TildeGpuEwIns) { .op = operations[i].op, .a = (guint8) ops[0],
                                        .b = (guint8) ops[1], .c = (guint8) ops[2] });
    }
  return -1;
}

/* The instruction computing e (after those of its operands), or -1 when e
 * is not elementwise over data vectors, scalar variables and literals. */
static gint
program_of (TildeGpuEwSite *s, const MirExpr *e)
{
  double k;
  if (literal (e, &k))
    return emit (s, (TildeGpuEwIns) { .op = TILDE_GPU_EW_CONST, .k = k });
  if (indexed_scalar (e) || (e->kind == MIR_EXPR_CALL && int_data (e)))
    return leaf (s, e, FALSE);
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      if (is_vector (e) && e->ad_level == TILDE_AD_DATA)
        return leaf (s, e, TRUE);
      if (is_scalar (e))
        return leaf (s, e, FALSE);
      return -1;
    case MIR_EXPR_PROMOTION:
      return is_scalar (e) ? program_of (s, e->u.promotion.expr) : -1;
    case MIR_EXPR_CALL:
      return e->u.call.fun.kind == MIR_FUN_STANLIB ? operation (s, e) : -1;
    default:
      return -1;
    }
}

/* The reduction applied to E (the scale c of `c * R(E)` and `-R(E)`). */
static const MirExpr *
reduction (const MirExpr *e, double *scale)
{
  double c;
  *scale = 1;
  if (stanlib (e, "PMinus__", 1))
    {
      *scale = -1;
      e = arg (e, 0);
    }
  else if (stanlib (e, "Times__", 2) && literal (arg (e, 0), &c))
    {
      *scale = c;
      e = arg (e, 1);
    }
  else if (stanlib (e, "Times__", 2) && literal (arg (e, 1), &c))
    {
      *scale = c;
      e = arg (e, 0);
    }
  return e;
}

static gboolean
normal_density (const MirExpr *e)
{
  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_STANLIB
      || e->u.call.args->len != 3)
    return FALSE;
  const char *name = e->u.call.fun.name;
  return !strcmp (name, "normal_lpdf") || !strcmp (name, "normal_lupdf");
}

gboolean
tilde_gpu_ew_site_match (const MirExpr *e, TildeGpuEwSite *s)
{
  memset (s, 0, sizeof *s);
  const MirExpr *r = reduction (e, &s->scale);
  static const struct {
    const char         *name;
    TildeGpuEwReduction reduction;
  } reductions[] = {
    { "sum", TILDE_GPU_EW_SUM }, { "dot_self", TILDE_GPU_EW_DOT_SELF },
    { "log_sum_exp", TILDE_GPU_EW_LOG_SUM_EXP },
  };
  const MirExpr *E = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (reductions) && !E; i++)
    if (stanlib (r, reductions[i].name, 1))
      {
        s->prog.reduction = reductions[i].reduction;
        E = arg (r, 0);
      }
  if (!E && s->scale == 1 && normal_density (r))
    {
      const MirExpr *y = arg (r, 0);
      s->prog.reduction = TILDE_GPU_EW_NORMAL;
      s->sigma = arg (r, 2);
      if (y->kind != MIR_EXPR_VAR || !is_vector (y) || y->ad_level != TILDE_AD_DATA
          || !is_scalar (s->sigma))
        return FALSE;
      gint yi = leaf (s, y, TRUE);
      s->prog.y = s->prog.ins[yi].leaf;
      s->prog.n_ins = 0;  /* only a name: the kernel reads it in the term */
      E = arg (r, 1);
    }
  if (!E || !is_vector (E))
    return FALSE;
  s->call = r;
  s->expr = E;
  if (program_of (s, E) < 0)
    return FALSE;
  /* E depends on a vector, and something depends on parameters */
  gboolean vector_in_e = FALSE;
  for (guint k = 0; k < s->prog.n_ins; k++)
    vector_in_e |= s->prog.ins[k].op == TILDE_GPU_EW_VECTOR;
  return vector_in_e
    && (s->prog.n_tangents > 0 || (s->sigma && s->sigma->ad_level != TILDE_AD_DATA));
}

/* ---- naming and showing ---- */

char *
tilde_gpu_plan_ew_what (const TildeGpuEwSite *site)
{
  return g_strdup_printf ("%s of an elementwise expression (line %d)",
                          site->call->u.call.fun.name, site->stmt->span.begin_line);
}

char *
tilde_gpu_plan_ew_kernel (const TildeGpuPlan *plan, const TildeGpuEwSite *site, guint wg)
{
  (void) plan;
  g_autofree char *what = tilde_gpu_plan_ew_what (site);
  g_autofree char *source = tilde_gpu_ew_source (&site->prog, wg);
  return g_strdup_printf ("// OpenCL kernel for %s\n%s\n", what, source);
}
