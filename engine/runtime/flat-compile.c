/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Building the straight-line form (flat-private.h) from the compiled
 * closures of log_prob, after preparation: the data, the cached data
 * expressions and the parameters' shapes are known by then, so every size
 * is a number and every data operand a constant. Variables are renamed as
 * they are assigned (each assignment a new range of values), so that the
 * instructions never overwrite what an earlier one read.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/flat-private.h"

#include <math.h>
#include <string.h>

static gboolean flat_on = TRUE;

void
rt_flat_set_enabled (gboolean on)
{
  flat_on = on;
}

gboolean
rt_flat_enabled (void)
{
  return flat_on;
}

typedef struct {
  GArray           *ins;      /* FlIns */
  GArray           *consts;   /* double; a constant's offset is -1 - its index */
  gint32            n_vars;
  FlReg            *slots;    /* the current value of each slot */
  gboolean         *bound;
  FlReg            *globals;  /* data slots once read */
  gboolean         *global_done;
  const TildeValue *global_values;
  int               n_globals, n_slots;
  gint32            theta_pos;
  gint32            max_n;
  gboolean          twice;    /* compiling what the general path runs as a fused form */
} FlC;

/* ---- registers ---- */

static FlReg
temp (FlC *c, gint32 n, gboolean vec)
{
  FlReg r = { .off = c->n_vars, .n = n, .vec = vec, .ad = TRUE };
  c->n_vars += MAX (n, 1);
  c->max_n = MAX (c->max_n, n);
  return r;
}

static FlReg
const_values (FlC *c, const double *x, gint32 n, gboolean vec)
{
  FlReg r = { .off = -1 - (gint32) c->consts->len, .n = n, .vec = vec, .ad = FALSE };
  c->max_n = MAX (c->max_n, n);
  g_array_append_vals (c->consts, x, (guint) n);
  if (n == 0)
    {
      double zero = 0;
      g_array_append_val (c->consts, zero);
    }
  return r;
}

static double
const_at (FlC *c, const FlReg *r, gint32 i)
{
  return g_array_index (c->consts, double, (guint) (-1 - r->off + (r->vec ? i : 0)));
}

/* A data value as constants: scalars and one-dimensional containers of
 * reals or ints. */
static gboolean
const_reg (FlC *c, const TildeValue *k, FlReg *r)
{
  if (k->ad)
    return FALSE;
  switch (k->kind)
    {
    case TILDE_VALUE_INT:
      {
        double x = k->u.i;
        *r = const_values (c, &x, 1, FALSE);
        return TRUE;
      }
    case TILDE_VALUE_REAL:
      *r = const_values (c, &k->u.r, 1, FALSE);
      return TRUE;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
      *r = const_values (c, k->u.d, k->rows * k->cols, TRUE);
      return TRUE;
    case TILDE_VALUE_ARRAY:
      if (k->elem == TILDE_VALUE_REAL)
        {
          *r = const_values (c, k->u.d, k->rows, TRUE);
          return TRUE;
        }
      if (k->elem == TILDE_VALUE_INT)
        {
          g_autofree double *x = g_new (double, MAX (k->rows, 1));
          for (gint32 i = 0; i < k->rows; i++)
            x[i] = k->u.iv[i];
          *r = const_values (c, x, k->rows, TRUE);
          return TRUE;
        }
      return FALSE;
    default:
      return FALSE;
    }
}

static gboolean
const_int (FlC *c, const Ex *e, gint32 *out)
{
  const TildeValue *k = NULL;
  if (e->fn == rt_ex_const || (e->fn == rt_ex_cached && e->ready))
    k = &e->k;
  else if (e->fn == rt_ex_var && e->slot < c->n_globals)
    k = &c->global_values[e->slot];
  if (!k || k->kind != TILDE_VALUE_INT || k->u.i < 0)
    return FALSE;
  *out = k->u.i;
  return TRUE;
}

/* The declared shape of a local: a real, or a vector, row vector or array
 * of reals with a data size. */
static gboolean
declared (FlC *c, const Sz *sz, gint32 *n, gboolean *vec)
{
  if (!sz)
    return FALSE;
  switch (sz->kind)
    {
    case TILDE_VALUE_REAL:
      *n = 1;
      *vec = FALSE;
      return TRUE;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
      *vec = TRUE;
      return const_int (c, sz->d1, n);
    case TILDE_VALUE_ARRAY:
      *vec = TRUE;
      return sz->elem && sz->elem->kind == TILDE_VALUE_REAL && const_int (c, sz->d1, n);
    default:
      return FALSE;
    }
}

/* ---- expressions ---- */

static gboolean expr (FlC *c, const Ex *e, FlReg *r);

static FlIns *
emit (FlC *c, FlOp op)
{
  FlIns ins = { .op = op };
  g_array_append_val (c->ins, ins);
  return &g_array_index (c->ins, FlIns, c->ins->len - 1);
}

static gboolean
is_real_type (const TildeType *t)
{
  if (!t)
    return FALSE;
  switch (tilde_type_kind (t))
    {
    case TILDE_TYPE_REAL:
    case TILDE_TYPE_VECTOR:
    case TILDE_TYPE_ROW_VECTOR:
      return TRUE;
    case TILDE_TYPE_ARRAY:
      return tilde_type_kind (tilde_type_element (t)) == TILDE_TYPE_REAL;
    default:
      return FALSE;
    }
}

/* Arithmetic of constants computed now, by the same code. */
static gboolean
fold (FlC *c, FlOp op, const FlReg *args, int n, gint32 size, gboolean vec, FlReg *r)
{
  guint k = c->consts->len;
  g_autofree double *v = g_new (double, k + (guint) MAX (size, 1));
  if (k > 0)
    memcpy (v, c->consts->data, sizeof (double) * k);
  FlIns ins = { .op = op, .n = size, .dst = { .off = (gint32) k, .n = size, .vec = vec },
                .twice = c->twice };
  for (int i = 0; i < n; i++)
    {
      ins.a[i] = args[i];
      ins.a[i].off = -1 - args[i].off;
    }
  rt_flat_arith (&ins, v);
  *r = const_values (c, v + k, size, vec);
  return TRUE;
}

/* An elementwise operation of n operands (scalars broadcast; containers
 * of one size). */
static gboolean
elementwise (FlC *c, FlOp op, const FlReg *args, int n, FlReg *r)
{
  gint32 size = 1;
  gboolean vec = FALSE, ad = FALSE;
  for (int i = 0; i < n; i++)
    {
      if (args[i].vec)
        {
          if (vec && args[i].n != size)
            return FALSE;
          size = args[i].n;
          vec = TRUE;
        }
      ad |= args[i].ad;
    }
  if (!ad)
    return fold (c, op, args, n, size, vec, r);
  FlReg dst = temp (c, size, vec);
  FlIns *ins = emit (c, op);
  ins->n = size;
  ins->dst = dst;
  ins->twice = c->twice;
  for (int i = 0; i < n; i++)
    ins->a[i] = args[i];
  *r = dst;
  return TRUE;
}

static const struct {
  const char *name;
  int         n;
  FlOp        op;
  gboolean    scalar_operand;   /* one operand must be a scalar (else not elementwise) */
} calls[] = {
  { "Plus__", 2, FL_ADD, FALSE }, { "add", 2, FL_ADD, FALSE },
  { "Minus__", 2, FL_SUB, FALSE }, { "subtract", 2, FL_SUB, FALSE },
  { "Times__", 2, FL_MUL, TRUE }, { "multiply", 2, FL_MUL, TRUE },
  { "EltTimes__", 2, FL_MUL, FALSE }, { "elt_multiply", 2, FL_MUL, FALSE },
  { "Divide__", 2, FL_DIV, TRUE }, { "divide", 2, FL_DIV, TRUE },
  { "EltDivide__", 2, FL_DIV, FALSE }, { "elt_divide", 2, FL_DIV, FALSE },
  { "PMinus__", 1, FL_NEG, FALSE }, { "minus", 1, FL_NEG, FALSE },
  { "fma", 3, FL_FMA, FALSE }, { "exp", 1, FL_EXP, FALSE }, { "log", 1, FL_LOG, FALSE },
  { "sqrt", 1, FL_SQRT, FALSE }, { "square", 1, FL_SQUARE, FALSE }, { "inv", 1, FL_INV, FALSE },
  { "expm1", 1, FL_EXPM1, FALSE }, { "inv_logit", 1, FL_INV_LOGIT, FALSE },
};

static gboolean
call (FlC *c, const Ex *e, FlReg *r)
{
  const MirExpr *m = e->mir;
  if (!m || m->kind != MIR_EXPR_CALL || m->u.call.fun.kind != MIR_FUN_STANLIB
      || m->u.call.fun.rewritten || !is_real_type (m->type))
    return FALSE;
  const char *name = m->u.call.fun.name;
  for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
    if (calls[i].n == e->n_kids && strcmp (calls[i].name, name) == 0)
      {
        FlReg args[3];
        gboolean scalar = FALSE;
        for (int k = 0; k < e->n_kids; k++)
          {
            if (!expr (c, e->kids[k], &args[k]))
              return FALSE;
            scalar |= !args[k].vec;
          }
        if (calls[i].scalar_operand && !scalar)
          return FALSE;
        return elementwise (c, calls[i].op, args, e->n_kids, r);
      }
  return FALSE;
}

static gboolean
fused_scalar (FlC *c, const Ex *e, FlReg *r)
{
  static const FlOp ops[] = {
    [SX_ADD] = FL_ADD, [SX_SUB] = FL_SUB, [SX_MUL] = FL_MUL, [SX_DIV] = FL_DIV,
    [SX_FMA] = FL_FMA, [SX_NEG] = FL_NEG, [SX_SQUARE] = FL_SQUARE, [SX_SQRT] = FL_SQRT,
    [SX_EXP] = FL_EXP, [SX_LOG] = FL_LOG, [SX_EXPM1] = FL_EXPM1, [SX_INV] = FL_INV,
    [SX_INV_LOGIT] = FL_INV_LOGIT,
  };
  static const int arity[] = {
    [SX_ADD] = 2, [SX_SUB] = 2, [SX_MUL] = 2, [SX_DIV] = 2, [SX_FMA] = 3, [SX_NEG] = 1,
    [SX_SQUARE] = 1, [SX_SQRT] = 1, [SX_EXP] = 1, [SX_LOG] = 1, [SX_EXPM1] = 1, [SX_INV] = 1,
    [SX_INV_LOGIT] = 1,
  };
  FlReg regs[SX_MAX_PROGRAM] = { { 0 } };
  for (int k = 0; k < e->n_sx; k++)
    {
      const Sx *x = &e->sx[k];
      if (x->op == SX_LEAF)
        {
          if (!expr (c, x->e, &regs[k]) || regs[k].vec)
            return FALSE;
          continue;
        }
      if (x->op == SX_POW)
        return FALSE;
      FlReg args[3] = { regs[x->a], regs[x->b], regs[x->c] };
      if (!elementwise (c, ops[x->op], args, arity[x->op], &regs[k]))
        return FALSE;
    }
  *r = regs[e->n_sx - 1];
  return TRUE;
}

/* What a variable holds: data as constants, read once; a local's
 * current value. */
static gboolean
slot_reg (FlC *c, int slot, FlReg *r)
{
  if (slot < 0)
    return FALSE;
  if (slot < c->n_globals)
    {
      if (!c->global_done[slot])
        {
          if (!const_reg (c, &c->global_values[slot], &c->globals[slot]))
            return FALSE;
          c->global_done[slot] = TRUE;
        }
      *r = c->globals[slot];
      return TRUE;
    }
  if (slot >= c->n_slots || !c->bound[slot])
    return FALSE;
  *r = c->slots[slot];
  return TRUE;
}

static gboolean
expr (FlC *c, const Ex *e, FlReg *r)
{
  if (e->fn == rt_ex_const || (e->fn == rt_ex_cached && e->ready))
    return const_reg (c, &e->k, r);
  if (e->fn == rt_ex_var)
    return slot_reg (c, e->slot, r);
  if (e->fn == rt_ex_index1)
    {
      /* x[i] with i a number: one element of x */
      FlReg base;
      gint32 i;
      if (!slot_reg (c, e->slot, &base) || !base.vec || !const_int (c, e->kids[0], &i) || i < 1
          || i > base.n)
        return FALSE;
      *r = base;
      r->n = 1;
      r->vec = FALSE;
      r->off = base.off >= 0 ? base.off + i - 1 : base.off - (i - 1);
      return TRUE;
    }
  if (e->fn == rt_ex_promote)
    return is_real_type (e->type) && expr (c, e->kids[0], r);
  if (e->fn == rt_ex_fused)
    {
      gboolean was = c->twice, ok;
      c->twice = TRUE;
      ok = expr (c, e->kids[0], r);
      c->twice = was;
      return ok;
    }
  if (e->fn == rt_ex_sx)
    return fused_scalar (c, e, r);
  if (e->fn == rt_ex_real_arith)
    {
      static const FlOp ops[] = { FL_ADD, FL_SUB, FL_MUL, FL_DIV };
      FlReg args[2];
      return e->op >= 0 && e->op < 4 && expr (c, e->kids[0], &args[0])
        && expr (c, e->kids[1], &args[1]) && elementwise (c, ops[e->op], args, 2, r);
    }
  if (e->fn == rt_ex_fma3)
    {
      FlReg args[3];
      for (int k = 0; k < 3; k++)
        if (!expr (c, e->kids[k], &args[k]))
          return FALSE;
      return elementwise (c, FL_FMA, args, 3, r);
    }
  if (e->fn == rt_ex_call)
    return call (c, e, r);
  return FALSE;
}

/* ---- statements ---- */

static gboolean
param (FlC *c, const Ex *e, FlReg *r)
{
  const TildeShape *shape = e->shape;
  if (e->tr || !shape)
    return FALSE;
  gint32 n;
  gboolean vec = TRUE;
  switch (shape->kind)
    {
    case TILDE_VALUE_REAL:
      n = 1;
      vec = FALSE;
      break;
    case TILDE_VALUE_VECTOR:
    case TILDE_VALUE_ROW_VECTOR:
      n = shape->rows * shape->cols;
      break;
    case TILDE_VALUE_ARRAY:
      if (shape->elem->kind != TILDE_VALUE_REAL)
        return FALSE;
      n = shape->rows;
      break;
    default:
      return FALSE;
    }
  FlReg u = { .off = c->theta_pos, .n = n, .vec = vec, .ad = TRUE };
  c->theta_pos += n;
  if (e->tkind == MIR_TRANS_IDENTITY)
    {
      *r = u;
      return TRUE;
    }
  FlOp op = e->tkind == MIR_TRANS_LOWER ? FL_LOWER : e->tkind == MIR_TRANS_UPPER ? FL_UPPER
    : FL_LUB;
  if (e->tkind != MIR_TRANS_LOWER && e->tkind != MIR_TRANS_UPPER
      && e->tkind != MIR_TRANS_LOWER_UPPER)
    return FALSE;
  /* bounds: scalar data, finite, in order */
  FlReg a, b;
  if (!e->ta || !expr (c, e->ta, &a) || a.ad || a.vec)
    return FALSE;
  double k0 = const_at (c, &a, 0), k1 = 0;
  if (op == FL_LUB)
    {
      if (!e->tb || !expr (c, e->tb, &b) || b.ad || b.vec)
        return FALSE;
      k1 = const_at (c, &b, 0);
      if (!(k0 < k1) || !isfinite (k1))
        return FALSE;
    }
  if (!isfinite (k0))
    return FALSE;
  FlIns *ins = emit (c, op);
  ins->n = n;
  ins->a[0] = u;
  ins->k0 = k0;
  ins->k1 = k1;
  ins->jacobian = TRUE;
  ins->aux = temp (c, n, vec);
  ins->dst = temp (c, n, vec);
  *r = ins->dst;
  return TRUE;
}

static gboolean
bind (FlC *c, int slot, const FlReg *r)
{
  if (slot < c->n_globals || slot >= c->n_slots)
    return FALSE;
  c->slots[slot] = *r;
  c->bound[slot] = TRUE;
  return TRUE;
}

/* A local declared without a value holds NaN until assigned. */
static gboolean
decl (FlC *c, const St *s)
{
  gint32 n;
  gboolean vec;
  if (!declared (c, s->sized, &n, &vec))
    return FALSE;
  FlReg r;
  if (s->e)
    {
      if (!expr (c, s->e, &r) || r.vec != vec || (vec && r.n != n))
        return FALSE;
      return bind (c, s->slot, &r);
    }
  g_autofree double *nan = g_new (double, MAX (n, 1));
  for (gint32 i = 0; i < n; i++)
    nan[i] = NAN;
  r = const_values (c, nan, n, vec);
  return bind (c, s->slot, &r);
}

static gboolean
assign (FlC *c, const St *s)
{
  if (s->n_lv_index || s->n_lv_levels || s->slot < c->n_globals || s->slot >= c->n_slots
      || !c->bound[s->slot])
    return FALSE;
  const FlReg *t = &c->slots[s->slot];
  FlReg r;
  if (!expr (c, s->e, &r) || r.vec != t->vec || (t->vec && r.n != t->n))
    return FALSE;
  return bind (c, s->slot, &r);
}

static gboolean
density (FlC *c, const St *s, const Ex *e)
{
  static const struct { const char *name; FlOp op; int n; } dists[] = {
    { "normal", FL_NORMAL, 3 }, { "std_normal", FL_STD_NORMAL, 1 }, { "cauchy", FL_CAUCHY, 3 },
  };
  const MirExpr *m = e->mir;
  if (e->fn != rt_ex_call || !m || m->kind != MIR_EXPR_CALL
      || m->u.call.fun.kind != MIR_FUN_STANLIB || m->u.call.fun.rewritten)
    return FALSE;
  const char *name = m->u.call.fun.name;
  gsize len = strlen (name);
  if (len < 6 || (strcmp (name + len - 5, "_lpdf") != 0 && strcmp (name + len - 6, "_lupdf") != 0))
    return FALSE;
  gsize base = len - (name[len - 5] == '_' ? 5 : 6);
  for (guint i = 0; i < G_N_ELEMENTS (dists); i++)
    if (strlen (dists[i].name) == base && strncmp (name, dists[i].name, base) == 0
        && e->n_kids == dists[i].n)
      {
        FlReg args[3];
        gint32 N = 1;
        gboolean vec = FALSE;
        for (int k = 0; k < e->n_kids; k++)
          {
            if (!expr (c, e->kids[k], &args[k]))
              return FALSE;
            if (args[k].vec)
              {
                if (vec && args[k].n != N)
                  return FALSE;
                N = args[k].n;
                vec = TRUE;
              }
          }
        if (dists[i].op == FL_STD_NORMAL && !args[0].vec)
          N = 1;
        /* a data scale is checked once */
        if (dists[i].op != FL_STD_NORMAL && !args[2].ad)
          for (gint32 k = 0; k < (args[2].vec ? N : 1); k++)
            {
              double sigma = const_at (c, &args[2], k);
              if (!(sigma > 0) || (dists[i].op == FL_CAUCHY && isinf (sigma)))
                return FALSE;
            }
        FlIns *ins = emit (c, dists[i].op);
        ins->n = N;
        for (int k = 0; k < e->n_kids; k++)
          ins->a[k] = args[k];
        ins->drop = e->drop;
        ins->jacobian = s->target_jacobian;
              return TRUE;
      }
  return FALSE;
}

static gboolean
target (FlC *c, const St *s)
{
  /* the arguments of a density with fused arguments */
  c->twice = s->fn == rt_st_target_fused;
  gboolean ok = density (c, s, s->e);
  c->twice = FALSE;
  if (ok)
    return TRUE;
  FlReg r;
  if (!expr (c, s->e, &r))
    return FALSE;
  FlIns *ins = emit (c, FL_SUM);
  ins->a[0] = r;
  ins->n = r.n;
  ins->jacobian = s->target_jacobian;
  return TRUE;
}

/* The bounds of a transformed parameter, checked where it is computed:
 * scalar or same-sized bounds of a real or a one-dimensional container.
 * The other constraints of the elementwise kinds check nothing. */
static gboolean
check_bounds (FlC *c, const St *s)
{
  MirTransformKind kind = s->tkind;
  if (kind == MIR_TRANS_IDENTITY || kind == MIR_TRANS_OFFSET || kind == MIR_TRANS_MULTIPLIER
      || kind == MIR_TRANS_OFFSET_MULTIPLIER)
    return TRUE;
  if (kind != MIR_TRANS_LOWER && kind != MIR_TRANS_UPPER && kind != MIR_TRANS_LOWER_UPPER)
    return FALSE;
  FlReg x, lo, hi;
  if (!s->e || !s->e2 || !expr (c, s->e, &x) || !expr (c, s->e2, &lo))
    return FALSE;
  hi = lo;
  if (kind == MIR_TRANS_LOWER_UPPER
      && (!s->then_s || !s->then_s->e || !expr (c, s->then_s->e, &hi)))
    return FALSE;
  if ((lo.vec && (!x.vec || lo.n != x.n)) || (hi.vec && (!x.vec || hi.n != x.n)))
    return FALSE;
  FlIns *ins = emit (c, FL_CHECK);
  ins->n = x.n;
  ins->check = kind;
  ins->a[0] = x;
  ins->a[1] = lo;
  ins->a[2] = hi;
  return TRUE;
}

/* Sizes of declarations, checked once: a size the general path refuses
 * leaves the model to it. */
static gboolean
valid_size (FlC *c, const St *s)
{
  gint32 n;
  if (!s->e || !const_int (c, s->e, &n))
    return FALSE;
  return !((s->tkind == MIR_TRANS_SIMPLEX || s->tkind == MIR_TRANS_UNIT_VECTOR) && n < 1);
}

static gboolean
stmt (FlC *c, const St *s)
{
  if (s->fn == rt_st_block)
    {
      for (int i = 0; i < s->n_body; i++)
        if (!stmt (c, s->body[i]))
          return FALSE;
      return TRUE;
    }
  if (s->fn == rt_st_skip)
    return TRUE;
  if (s->fn == rt_st_decl_read)
    {
      FlReg r;
      return s->e && s->e->fn == rt_ex_read_param && param (c, s->e, &r) && bind (c, s->slot, &r);
    }
  if (s->fn == rt_st_decl)
    return decl (c, s);
  if (s->fn == rt_st_assign)
    return assign (c, s);
  if (s->fn == rt_st_target || s->fn == rt_st_target_fused)
    return target (c, s);
  if (s->fn == rt_st_check)
    return check_bounds (c, s);
  if (s->fn == rt_st_validate)
    return valid_size (c, s);
  return FALSE;
}

/* Constants get the offsets after the variables; partials go to the
 * adjoints (after the values) or, for data, to the junk (after the
 * terms). */
static void
place_constants (RtFlat *f)
{
  gint32 junk = 2 * f->n_vals;
  for (guint k = 0; k < f->n_ins; k++)
    {
      FlIns *ins = &f->ins[k];
      FlReg *regs[8] = { &ins->dst, &ins->aux, &ins->a[0], &ins->a[1], &ins->a[2], &ins->b[0],
                         &ins->b[1], &ins->b[2] };
      for (int i = 0; i < 8; i++)
        {
          if (regs[i]->off < 0)
            regs[i]->off = f->n_vars + (-1 - regs[i]->off);
          regs[i]->goff = regs[i]->ad ? f->n_vals + regs[i]->off : junk;
        }
    }
}

/* Whether an instruction is a density or a sum of data alone. */
static gboolean
constant_term (const FlIns *ins)
{
  return (ins->op == FL_NORMAL || ins->op == FL_STD_NORMAL || ins->op == FL_CAUCHY
          || ins->op == FL_SUM) && !ins->a[0].ad && !ins->a[1].ad && !ins->a[2].ad;
}

/* The instructions of one mode: `jacobian +=` terms left out without
 * Jacobians, the flags resolved, each instruction its code. The terms of
 * data alone are the same at every evaluation: they are computed now and
 * summed in order, as the general path sums the constant terms before the
 * others. FALSE when one of them is an error (the general path raises it
 * at every evaluation). */
static gboolean
build_program (RtFlat *f, FlProg *p, gboolean propto, gboolean jacobian, const double *v,
               double *scratch)
{
  p->ins = g_new0 (FlIns, f->n_ins + 1);
  p->n_ins = 0;
  p->cst = 0;
  for (guint k = 0; k < f->n_ins; k++)
    {
      const FlIns *ins = &f->ins[k];
      if (!jacobian && ins->jacobian && ins->op >= FL_NORMAL)
        continue;
      FlIns x = *ins;
      x.drop = ins->drop && propto;
      if (ins->op <= FL_LUB)
        x.jacobian = ins->jacobian && jacobian;
      gboolean ad;
      if (constant_term (&x))
        {
          double term;
          if (!rt_flat_constant_term (f, &x, scratch, &term))
            return FALSE;
          if (rt_flat_has_term (&x, &ad))
            p->cst += term;
          continue;
        }
      rt_flat_choose (&x, v);
      p->ins[p->n_ins++] = x;
    }
  p->n_ins = rt_flat_fuse (p->ins, p->n_ins);
  p->ins[p->n_ins].fn = rt_flat_end;
  p->ins[p->n_ins].flat = f;
  return TRUE;
}

static gboolean
build_programs (RtFlat *f)
{
  double *v = rt_flat_scratch_new (f);
  double *scratch = rt_flat_scratch_new (f);
  gboolean ok = TRUE;
  for (int mode = 0; mode < 4 && ok; mode++)
    ok = build_program (f, &f->prog[mode], mode & 1, mode & 2, v, scratch);
  rt_flat_scratch_free (v);
  rt_flat_scratch_free (scratch);
  return ok;
}

/* A scalar transform's backward step reads the adjoint of its value, to
 * which only the instructions after it add, and adds to its part of theta's,
 * to which nothing else does: those steps can all come last, each a step
 * of its own. */
static void
list_backward (RtFlat *f)
{
  f->back = g_new (guint, MAX (f->n_ins, 1));
  f->back1 = g_new (FlBack1, MAX (f->n_ins, 1));
  for (guint k = 0; k < f->n_ins; k++)
    {
      const FlIns *ins = &f->ins[k];
      if (ins->op >= FL_NORMAL || !ins->dst.ad)
        continue;
      if (ins->op <= FL_LUB && ins->n == 1)
        {
          FlBack1 b = { f->n_vals + ins->a[0].off, f->n_vals + ins->dst.off, ins->aux.off };
          f->back1[f->n_back1++] = b;
        }
      else
        f->back[f->n_back++] = k;
    }
}

/* How many operands of the instructions read a value starting at off. */
static guint
readers (const GArray *code, gint32 off)
{
  guint n = 0;
  for (guint k = 0; k < code->len; k++)
    {
      const FlIns *ins = &g_array_index (code, FlIns, k);
      for (int i = 0; i < 3; i++)
        n += ins->op != FL_NOP && ins->a[i].ad && ins->a[i].off == off;
    }
  return n;
}

/* The instruction before `before` that computes r with op, if any. */
static FlIns *
producer (GArray *code, guint before, const FlReg *r, FlOp op)
{
  for (guint j = 0; r->ad && j < before; j++)
    {
      FlIns *f = &g_array_index (code, FlIns, j);
      if (f->op == op && f->dst.ad && f->dst.off == r->off)
        return f;
    }
  return NULL;
}

/* `theta = fma (tau, eta, mu); y ~ normal (theta, sigma)` (or `mu + tau *
 * eta`) with theta read nowhere else: the density computes the location
 * as it goes and hands its partials straight to the operands, so that the
 * location is neither stored nor swept back over. Only an fma that the
 * general path rounds twice (its fused forms), as the sum of a product is:
 * a call of fma () in the loop would cost more than it saves. */
static void
fold_locations (GArray *code)
{
  for (guint k = 0; k < code->len; k++)
    {
      FlIns *d = &g_array_index (code, FlIns, k), *f, *m = NULL;
      if (d->op != FL_NORMAL || !d->a[0].vec || !d->a[1].vec)
        continue;
      if ((f = producer (code, k, &d->a[1], FL_FMA)) && f->twice && f->n == d->n
          && readers (code, f->dst.off) == 1)
        memcpy (d->b, f->a, sizeof d->b);
      else if ((f = producer (code, k, &d->a[1], FL_ADD)) && f->n == d->n
               && readers (code, f->dst.off) == 1)
        {
          for (int i = 0; i < 2 && !m; i++)
            {
              m = producer (code, k, &f->a[i], FL_MUL);
              if (m && readers (code, m->dst.off) != 1)
                m = NULL;
              if (m)
                {
                  d->b[0] = m->a[0];
                  d->b[1] = m->a[1];
                  d->b[2] = f->a[1 - i];
                }
            }
          if (!m)
            continue;
          m->op = FL_NOP;
          m->dst.ad = FALSE;
        }
      else
        continue;
      d->op = FL_NORMAL_FMA;
      f->op = FL_NOP;
      f->dst.ad = FALSE;
    }
  guint n = 0;
  for (guint k = 0; k < code->len; k++)
    if (g_array_index (code, FlIns, k).op != FL_NOP)
      g_array_index (code, FlIns, n++) = g_array_index (code, FlIns, k);
  g_array_set_size (code, n);
}

/* The reciprocals of a data vector of scales of the normals of computed
 * locations, as constants: the loop's 1 / sigma, the same values. */
static void
reciprocal_scales (FlC *c)
{
  for (guint k = 0; k < c->ins->len; k++)
    {
      FlIns *ins = &g_array_index (c->ins, FlIns, k);
      if (ins->op != FL_NORMAL_FMA || ins->a[2].ad || !ins->a[2].vec)
        continue;
      gint32 n = ins->a[2].n;
      g_autofree double *inv = g_new (double, MAX (n, 1));
      for (gint32 i = 0; i < n; i++)
        inv[i] = 1 / const_at (c, &ins->a[2], i);
      ins->aux = const_values (c, inv, n, TRUE);
    }
}

RtFlat *
rt_flat_compile (const St *log_prob, const TildeValue *globals, int n_globals, int n_slots,
                 gsize n_params)
{
  if (!flat_on || !log_prob || n_params > G_MAXINT32 / 4)
    return NULL;
  FlC c = {
    .ins = g_array_new (FALSE, TRUE, sizeof (FlIns)),
    .consts = g_array_new (FALSE, FALSE, sizeof (double)),
    .n_vars = (gint32) n_params,
    .slots = g_new0 (FlReg, MAX (n_slots, 1)),
    .bound = g_new0 (gboolean, MAX (n_slots, 1)),
    .globals = g_new0 (FlReg, MAX (n_globals, 1)),
    .global_done = g_new0 (gboolean, MAX (n_globals, 1)),
    .global_values = globals,
    .n_globals = globals ? n_globals : 0,
    .n_slots = n_slots,
  };
  /* each instruction's code calls the next one's in tail position: a jump
   * when optimised, a frame each when not, which this bounds */
  gboolean ok = stmt (&c, log_prob) && c.theta_pos == (gint32) n_params && c.ins->len > 0
    && c.ins->len <= 4096;
  if (ok)
    {
      fold_locations (c.ins);
      reciprocal_scales (&c);
    }
  RtFlat *f = NULL;
  if (ok)
    {
      f = g_new0 (RtFlat, 1);
      f->n_ins = c.ins->len;
      f->ins = (FlIns *) g_array_free (c.ins, FALSE);
      f->n_params = (gint32) n_params;
      f->n_vars = c.n_vars;
      f->n_vals = c.n_vars + (gint32) c.consts->len;
      f->consts = (double *) g_array_free (c.consts, FALSE);
      f->max_n = MAX (c.max_n, (gint32) n_params);
      place_constants (f);
      list_backward (f);
      if (!build_programs (f))
        {
          rt_flat_free (f);
          f = NULL;
        }
    }
  else
    {
      g_array_free (c.ins, TRUE);
      g_array_free (c.consts, TRUE);
    }
  g_free (c.slots);
  g_free (c.bound);
  g_free (c.globals);
  g_free (c.global_done);
  return f;
}
