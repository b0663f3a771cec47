/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * From transformed MIR to closures: names become slots, library calls are
 * resolved once (a function the runtime lacks is an error here, not in the
 * middle of a run), literals become constants, and in log_prob the
 * expressions that depend on data only are marked for computing once.
 */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/exec-private.h"
#include "runtime/hof/hof-private.h"

#include <math.h>
#include <string.h>

typedef struct {
  const char *name;
  int         slot;
  gboolean    global;
} Binding;

struct Compiler {
  TildeArena *arena;     /* the compiled trees */
  GArray     *scope;     /* Binding */
  int         n_slots;
  int         n_globals;
  GPtrArray  *cached;
  GPtrArray  *param_reads;
  char       *error;
  gboolean    hoist;
  GPtrArray  *slot_sized;   /* Sz* by slot: the declared sizes, for reading */
  GHashTable *functions;    /* name -> GPtrArray of RtFunction* (overloads) */
  gboolean    fused;        /* fused densities and vectorised loops */
  int         as_written;   /* compiling the general form of a fused expression */
  MirTermDeps *term_deps;   /* what the arguments of _lp calls depend on; may be NULL */
  const MirFunDef *fun;     /* the function being compiled; NULL in the parts */
};

static gboolean fused_forms = TRUE;

void
rt_compiler_set_fused (gboolean on)
{
  fused_forms = on;
}

gboolean
rt_compiler_fused (void)
{
  return fused_forms;
}

static gboolean affine_normals = TRUE;

void
rt_compiler_set_affine_normal (gboolean on)
{
  affine_normals = on;
}

Compiler *
rt_compiler_new (void)
{
  Compiler *c = g_new0 (Compiler, 1);
  c->arena = tilde_arena_new (64 * 1024);
  c->scope = g_array_new (FALSE, FALSE, sizeof (Binding));
  c->cached = g_ptr_array_new ();
  c->param_reads = g_ptr_array_new ();
  c->slot_sized = g_ptr_array_new ();
  c->functions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                        (GDestroyNotify) g_ptr_array_unref);
  c->fused = fused_forms;
  return c;
}

void
rt_compiler_free (Compiler *c)
{
  if (!c)
    return;
  tilde_arena_free (c->arena);
  g_array_unref (c->scope);
  g_ptr_array_unref (c->cached);
  g_ptr_array_unref (c->param_reads);
  g_ptr_array_unref (c->slot_sized);
  g_hash_table_unref (c->functions);
  g_free (c->error);
  g_free (c);
}

void
rt_compiler_set_term_deps (Compiler *c, MirTermDeps *deps)
{
  c->term_deps = deps;
}

int rt_compiler_n_slots (const Compiler *c) { return c->n_slots; }
int rt_compiler_n_globals (const Compiler *c) { return c->n_globals; }
GPtrArray *rt_compiler_cached (const Compiler *c) { return c->cached; }
GPtrArray *rt_compiler_param_reads (const Compiler *c) { return c->param_reads; }
TildeArena *
rt_compiler_steal_arena (Compiler *c)
{
  return g_steal_pointer (&c->arena);
}

static void
c_error (Compiler *c, const MirExpr *e, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
c_error (Compiler *c, const MirExpr *e, const char *fmt, ...)
{
  if (c->error)
    return;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (e && e->span.file)
    c->error = g_strdup_printf ("line %d, column %d: %s", e->span.begin_line,
                                e->span.begin_column, msg);
  else
    c->error = g_steal_pointer (&msg);
}

static int
bind (Compiler *c, const char *name)
{
  Binding b = { .name = name, .slot = c->n_slots++ };
  g_array_append_val (c->scope, b);
  return b.slot;
}

static int
lookup (Compiler *c, const char *name, gboolean *global)
{
  for (guint i = c->scope->len; i-- > 0;)
    {
      Binding *b = &g_array_index (c->scope, Binding, i);
      if (b->name == name || strcmp (b->name, name) == 0)
        {
          if (global)
            *global = b->global;
          return b->slot;
        }
    }
  return -1;
}

static Ex *
ex_new (Compiler *c, ExFn fn, const MirExpr *m, int n_kids)
{
  Ex *e = tilde_arena_new0 (c->arena, Ex);
  e->fn = fn;
  e->mir = m;
  e->type = m ? m->type : NULL;
  e->n_kids = n_kids;
  if (n_kids)
    e->kids = tilde_arena_newv (c->arena, Ex *, n_kids);
  return e;
}

static Ex *compile_expr (Compiler *c, const MirExpr *m);
static Ex *compile_fused_expr (Compiler *c, const MirExpr *m);

Sz *
rt_compile_sized (Compiler *c, const MirSizedType *t, char **error)
{
  Sz *s = tilde_arena_new0 (c->arena, Sz);
  switch (t->kind)
    {
    case MIR_SIZED_INT: s->kind = TILDE_VALUE_INT; break;
    case MIR_SIZED_REAL: s->kind = TILDE_VALUE_REAL; break;
    case MIR_SIZED_COMPLEX: s->kind = TILDE_VALUE_COMPLEX; break;
    case MIR_SIZED_VECTOR: s->kind = TILDE_VALUE_VECTOR; break;
    case MIR_SIZED_ROW_VECTOR: s->kind = TILDE_VALUE_ROW_VECTOR; break;
    case MIR_SIZED_MATRIX: s->kind = TILDE_VALUE_MATRIX; break;
    case MIR_SIZED_COMPLEX_VECTOR: s->kind = TILDE_VALUE_COMPLEX_VECTOR; break;
    case MIR_SIZED_COMPLEX_ROW_VECTOR: s->kind = TILDE_VALUE_COMPLEX_ROW_VECTOR; break;
    case MIR_SIZED_COMPLEX_MATRIX: s->kind = TILDE_VALUE_COMPLEX_MATRIX; break;
    case MIR_SIZED_ARRAY: s->kind = TILDE_VALUE_ARRAY; break;
    case MIR_SIZED_TUPLE: s->kind = TILDE_VALUE_TUPLE; break;
    }
  if (t->dim1)
    s->d1 = compile_expr (c, t->dim1);
  if (t->dim2)
    s->d2 = compile_expr (c, t->dim2);
  if (t->elem)
    s->elem = rt_compile_sized (c, t->elem, error);
  if (t->members)
    {
      s->n_members = t->members->len;
      s->members = tilde_arena_newv (c->arena, Sz *, t->members->len);
      for (guint i = 0; i < t->members->len; i++)
        s->members[i] = rt_compile_sized (c, g_ptr_array_index (t->members, i), error);
    }
  if (error && c->error && !*error)
    *error = g_strdup (c->error);
  return s;
}


static gboolean
is_lupdf (const MirFun *f)
{
  return f->propto || g_str_has_suffix (f->name, "_lupdf") || g_str_has_suffix (f->name, "_lupmf");
}

/* Whether an expression reads only global (data) slots and literals, so it
 * may be computed once when the data are known. */
static gboolean
data_only (Compiler *c, const MirExpr *m)
{
  if (m->ad_level != TILDE_AD_DATA)
    return FALSE;
  switch (m->kind)
    {
    case MIR_EXPR_VAR:
      {
        gboolean global = FALSE;
        return lookup (c, m->u.var.name, &global) >= 0 && global;
      }
    case MIR_EXPR_LIT:
      return TRUE;
    case MIR_EXPR_CALL:
      /* a _lupdf's value depends on the evaluation's propto */
      if (m->u.call.fun.kind != MIR_FUN_STANLIB || m->u.call.fun.suffix == MIR_SUFFIX_RNG
          || is_lupdf (&m->u.call.fun))
        return FALSE;
      for (guint i = 0; i < m->u.call.args->len; i++)
        if (!data_only (c, g_ptr_array_index (m->u.call.args, i)))
          return FALSE;
      return TRUE;
    case MIR_EXPR_PROMOTION:
      return data_only (c, m->u.promotion.expr);
    case MIR_EXPR_INDEXED:
      {
        if (!data_only (c, m->u.indexed.base))
          return FALSE;
        for (guint i = 0; i < m->u.indexed.indices->len; i++)
          {
            const MirIndex *ix = g_ptr_array_index (m->u.indexed.indices, i);
            if ((ix->e && !data_only (c, ix->e)) || (ix->upper && !data_only (c, ix->upper)))
              return FALSE;
          }
        return TRUE;
      }
    default:
      return FALSE;
    }
}

static Ex *
compile_literal (Compiler *c, const MirExpr *m)
{
  Ex *e = ex_new (c, rt_ex_const, m, 0);
  switch (m->u.lit.kind)
    {
    case MIR_LIT_INT:
      e->k = tilde_value_int ((int) g_ascii_strtoll (m->u.lit.text, NULL, 10));
      break;
    case MIR_LIT_REAL:
      e->k = tilde_value_real (g_ascii_strtod (m->u.lit.text, NULL));
      break;
    case MIR_LIT_IMAGINARY:
      e->k = (TildeValue) { .kind = TILDE_VALUE_COMPLEX, .rows = 1, .cols = 1 };
      e->k.u.z[1] = g_ascii_strtod (m->u.lit.text, NULL);
      break;
    case MIR_LIT_STRING:
      e->name = m->u.lit.text;
      e->k = tilde_value_int (0);
      break;
    }
  e->ready = TRUE;
  return e;
}

static void
compile_kids (Compiler *c, Ex *e, GPtrArray *args)
{
  for (int i = 0; i < e->n_kids; i++)
    e->kids[i] = compile_expr (c, g_ptr_array_index (args, i));
}

static Tr *
compile_transform (Compiler *c, const MirTransform *t)
{
  Tr *tr = tilde_arena_new0 (c->arena, Tr);
  tr->kind = t->kind;
  tr->a = t->a ? compile_expr (c, t->a) : NULL;
  tr->b = t->b ? compile_expr (c, t->b) : NULL;
  if (t->kind == MIR_TRANS_TUPLE && t->members)
    {
      tr->n_members = t->members->len;
      tr->members = tilde_arena_newv (c->arena, Tr *, MAX (t->members->len, 1));
      for (guint i = 0; i < t->members->len; i++)
        tr->members[i] = compile_transform (c, g_ptr_array_index (t->members, i));
    }
  return tr;
}

/* The MIR gives a tuple whose members are all unconstrained the identity
 * transform; read and written member by member, it takes a tuple
 * transform of identities (NULL for types without tuples). */
static Tr *
identity_tuple_tr (Compiler *c, const TildeType *type)
{
  const TildeType *base = tilde_type_array_base (type);
  if (tilde_type_kind (base) != TILDE_TYPE_TUPLE)
    return NULL;
  Tr *tr = tilde_arena_new0 (c->arena, Tr);
  tr->kind = MIR_TRANS_TUPLE;
  tr->n_members = tilde_type_n_members (base);
  tr->members = tilde_arena_newv (c->arena, Tr *, MAX (tr->n_members, 1));
  for (guint i = 0; i < tr->n_members; i++)
    {
      tr->members[i] = identity_tuple_tr (c, tilde_type_member (base, i));
      if (!tr->members[i])
        {
          tr->members[i] = tilde_arena_new0 (c->arena, Tr);
          tr->members[i]->kind = MIR_TRANS_IDENTITY;
        }
    }
  return tr;
}

static Ex *
compile_internal (Compiler *c, const MirExpr *m)
{
  const MirFun *f = &m->u.call.fun;
  GPtrArray *args = m->u.call.args;
  int n = args ? (int) args->len : 0;
  Ex *e;
  switch (f->internal)
    {
    case MIR_FN_READ_PARAM:
      {
        e = ex_new (c, rt_ex_read_param, m, f->data->dims ? (int) f->data->dims->len : 0);
        compile_kids (c, e, f->data->dims);
        e->tkind = f->data->trans ? f->data->trans->kind : MIR_TRANS_IDENTITY;
        if (e->tkind == MIR_TRANS_TUPLE)
          e->tr = compile_transform (c, f->data->trans);
        else if (e->tkind == MIR_TRANS_IDENTITY && (e->tr = identity_tuple_tr (c, m->type)))
          e->tkind = MIR_TRANS_TUPLE;
        else if (f->data->trans && f->data->trans->a)
          e->ta = compile_expr (c, f->data->trans->a);
        if (f->data->trans && f->data->trans->b)
          e->tb = compile_expr (c, f->data->trans->b);
        gboolean sizes_are_data = TRUE;
        for (guint i = 0; f->data->dims && i < f->data->dims->len; i++)
          sizes_are_data &= data_only (c, g_ptr_array_index (f->data->dims, i));
        if (sizes_are_data)
          g_ptr_array_add (c->param_reads, e);
        return e;
      }
    case MIR_FN_LENGTH:
      e = ex_new (c, rt_ex_length, m, n);
      break;
    case MIR_FN_MAKE_ARRAY:
      e = ex_new (c, rt_ex_make_array, m, n);
      break;
    case MIR_FN_MAKE_ROW_VEC:
      e = ex_new (c, rt_ex_make_row, m, n);
      break;
    case MIR_FN_MAKE_TUPLE:
      e = ex_new (c, rt_ex_make_tuple, m, n);
      break;
    case MIR_FN_NEG_INF:
      e = ex_new (c, rt_ex_const, m, 0);
      e->k = tilde_value_real (-INFINITY);
      e->ready = TRUE;
      return e;
    case MIR_FN_NAN:
      e = ex_new (c, rt_ex_const, m, 0);
      e->k = tilde_value_real (NAN);
      e->ready = TRUE;
      return e;
    case MIR_FN_DEEP_COPY:
    case MIR_FN_RESIZE_TO_MATCH:
      e = ex_new (c, rt_ex_copy, m, n);
      break;
    default:
      c_error (c, m, "the internal function %s is not supported in an expression",
               mir_internal_name (f->internal));
      return ex_new (c, rt_ex_const, m, 0);
    }
  compile_kids (c, e, args);
  return e;
}

static gboolean
is_int_type (const TildeType *t)
{
  return t && tilde_type_kind (t) == TILDE_TYPE_INT;
}

static gboolean
is_real_scalar_type (const TildeType *t)
{
  return t && (tilde_type_kind (t) == TILDE_TYPE_INT || tilde_type_kind (t) == TILDE_TYPE_REAL);
}

/* Arithmetic and comparisons of two scalars skip the library's dispatch:
 * they are most of what loops do. */
static Ex *
compile_scalar_op (Compiler *c, const MirExpr *m)
{
  static const char *const arith[] = { "Plus__", "Minus__", "Times__", "Divide__", "EltTimes__",
                                       "EltDivide__" };
  static const int arith_op[] = { 0, 1, 2, 3, 2, 3 };
  static const char *const cmp[] = { "Less__", "Leq__", "Greater__", "Geq__", "Equals__",
                                     "NEquals__" };
  const MirFun *f = &m->u.call.fun;
  if (f->kind == MIR_FUN_STANLIB && m->u.call.args->len == 3 && strcmp (f->name, "fma") == 0
      && is_real_scalar_type (((const MirExpr *) g_ptr_array_index (m->u.call.args, 0))->type)
      && is_real_scalar_type (((const MirExpr *) g_ptr_array_index (m->u.call.args, 1))->type)
      && is_real_scalar_type (((const MirExpr *) g_ptr_array_index (m->u.call.args, 2))->type))
    {
      Ex *e = ex_new (c, rt_ex_fma3, m, 3);
      compile_kids (c, e, m->u.call.args);
      return e;
    }
  if (f->kind != MIR_FUN_STANLIB || m->u.call.args->len != 2)
    return NULL;
  const MirExpr *a = g_ptr_array_index (m->u.call.args, 0);
  const MirExpr *b = g_ptr_array_index (m->u.call.args, 1);
  if (!is_real_scalar_type (a->type) || !is_real_scalar_type (b->type))
    return NULL;
  gboolean ints = is_int_type (a->type) && is_int_type (b->type);
  for (guint i = 0; i < G_N_ELEMENTS (arith); i++)
    if (strcmp (f->name, arith[i]) == 0)
      {
        /* int division keeps its checks in the library */
        if (ints && arith_op[i] == 3)
          return NULL;
        Ex *e = ex_new (c, ints ? rt_ex_int_arith : rt_ex_real_arith, m, 2);
        e->op = arith_op[i];
        e->name = f->name;
        e->kids[0] = compile_expr (c, a);
        e->kids[1] = compile_expr (c, b);
        return e;
      }
  for (guint i = 0; i < G_N_ELEMENTS (cmp); i++)
    if (strcmp (f->name, cmp[i]) == 0)
      {
        Ex *e = ex_new (c, rt_ex_compare, m, 2);
        e->op = (int) i;
        e->kids[0] = compile_expr (c, a);
        e->kids[1] = compile_expr (c, b);
        return e;
      }
  return NULL;
}

/* ---- fused scalar expressions ---- */

/* The fused operation a call is, or SX_LEAF: real results of real or int
 * scalars, and functions the library computes without checks. */
static SxOp
sx_op (const MirExpr *m)
{
  static const struct { const char *name; guint n; SxOp op; } ops[] = {
    { "Plus__", 2, SX_ADD }, { "add", 2, SX_ADD }, { "Minus__", 2, SX_SUB },
    { "subtract", 2, SX_SUB }, { "Times__", 2, SX_MUL }, { "multiply", 2, SX_MUL },
    { "EltTimes__", 2, SX_MUL }, { "Divide__", 2, SX_DIV }, { "divide", 2, SX_DIV },
    { "EltDivide__", 2, SX_DIV }, { "fma", 3, SX_FMA }, { "Pow__", 2, SX_POW },
    { "pow", 2, SX_POW }, { "PMinus__", 1, SX_NEG }, { "minus", 1, SX_NEG },
    { "square", 1, SX_SQUARE }, { "sqrt", 1, SX_SQRT }, { "exp", 1, SX_EXP },
    { "log", 1, SX_LOG }, { "expm1", 1, SX_EXPM1 }, { "inv", 1, SX_INV },
    { "inv_logit", 1, SX_INV_LOGIT },
  };
  if (m->kind != MIR_EXPR_CALL || m->u.call.fun.kind != MIR_FUN_STANLIB
      || !m->type || tilde_type_kind (m->type) != TILDE_TYPE_REAL)
    return SX_LEAF;
  guint n = m->u.call.args->len;
  for (guint i = 0; i < n; i++)
    if (!is_real_scalar_type (((const MirExpr *) g_ptr_array_index (m->u.call.args, i))->type))
      return SX_LEAF;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (ops[i].n == n && strcmp (ops[i].name, m->u.call.fun.name) == 0)
      return ops[i].op;
  return SX_LEAF;
}

/* Operations and leaves in m counted as far as they would be fused. */
static int
sx_size (const MirExpr *m, int *leaves)
{
  if (sx_op (m) == SX_LEAF)
    {
      (*leaves)++;
      return 0;
    }
  int n = 1;
  for (guint i = 0; i < m->u.call.args->len; i++)
    n += sx_size (g_ptr_array_index (m->u.call.args, i), leaves);
  return n;
}

/* Appends m's instructions in post-order (leaves left to right); the
 * position of its own. */
static guint8
sx_emit (Compiler *c, const MirExpr *m, Sx *prog, int *n)
{
  SxOp op = sx_op (m);
  Sx ins = { .op = op };
  if (op == SX_LEAF)
    ins.e = compile_expr (c, m);
  else
    {
      guint8 *kids[3] = { &ins.a, &ins.b, &ins.c };
      for (guint i = 0; i < m->u.call.args->len; i++)
        *kids[i] = sx_emit (c, g_ptr_array_index (m->u.call.args, i), prog, n);
    }
  prog[*n] = ins;
  return (guint8) (*n)++;
}

/* A real scalar expression of four or more operations as one node (for
 * fewer, the specialised closures are as quick). */
static Ex *
compile_sx (Compiler *c, const MirExpr *m)
{
  int leaves = 0, ops;
  if (!c->fused || c->as_written || sx_op (m) == SX_LEAF)
    return NULL;
  ops = sx_size (m, &leaves);
  if (ops < 4 || leaves > SX_MAX_LEAVES || ops + leaves > SX_MAX_PROGRAM)
    return NULL;
  Ex *e = ex_new (c, rt_ex_sx, m, 0);
  e->sx = tilde_arena_newv (c->arena, Sx, ops + leaves);
  sx_emit (c, m, e->sx, &e->n_sx);
  return e;
}

/* foo_lupdf is foo_lpdf called with propto */
static const char *
definition_name (const char *name)
{
  if (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf"))
    {
      g_autofree char *base = g_strndup (name, strlen (name) - 6);
      g_autofree char *full = g_strconcat (base, g_str_has_suffix (name, "_lupdf") ? "_lpdf" : "_lpmf",
                                           NULL);
      return g_intern_string (full);
    }
  return g_intern_string (name);
}

/* The definition of `name` with `n` arguments that a call runs: the only
 * one, or among several the one whose argument types are `types` (NULL:
 * unknown). The type checker's choice is what the MIR's promotions give a
 * call's arguments and what a function argument's type carries. Sets
 * *several when more than one fits. */
static const RtFunction *
choose_overload (Compiler *c, const char *name, int n, const TildeType *const *types,
                 gboolean *several)
{
  GPtrArray *overloads = g_hash_table_lookup (c->functions, definition_name (name));
  const RtFunction *code = NULL, *typed = NULL;
  int matches = 0, typed_matches = 0;
  for (guint i = 0; overloads && i < overloads->len; i++)
    {
      const RtFunction *cand = g_ptr_array_index (overloads, i);
      if (cand->n_args != n)
        continue;
      code = cand;
      matches++;
      gboolean same = types != NULL;
      for (int k = 0; same && k < n; k++)
        same = types[k] == cand->arg_types[k];
      if (same)
        {
          typed = cand;
          typed_matches++;
        }
    }
  *several = matches > 1 && typed_matches != 1;
  return matches > 1 && typed_matches == 1 ? typed : code;
}

static Ex *
compile_user_call (Compiler *c, const MirExpr *m)
{
  const MirFun *f = &m->u.call.fun;
  int n = m->u.call.args ? (int) m->u.call.args->len : 0;
  const TildeType **types = tilde_arena_newv (c->arena, const TildeType *, MAX (n, 1));
  for (int k = 0; k < n; k++)
    types[k] = ((const MirExpr *) g_ptr_array_index (m->u.call.args, k))->type;
  gboolean several;
  const RtFunction *code = choose_overload (c, f->name, n, types, &several);
  if (!code || !code->defined)
    {
      c_error (c, m, code ? "the function %s is declared without a definition (external "
               "functions are not supported by the runtime)"
               : "the function %s has no definition", f->name);
      return ex_new (c, rt_ex_const, m, 0);
    }
  if (several)
    {
      c_error (c, m, "the overloads of %s with %d argument%s cannot be told apart by the runtime "
               "yet", f->name, n, n == 1 ? "" : "s");
      return ex_new (c, rt_ex_const, m, 0);
    }
  Ex *e = ex_new (c, rt_ex_user_call, m, n);
  e->code = code;
  e->name = f->name;
  e->drop = is_lupdf (f);
  compile_kids (c, e, m->u.call.args);
  if (code->has_terms && c->term_deps)
    {
      e->arg_deps = tilde_arena_newv (c->arena, guint64, MAX (n, 1));
      for (int i = 0; i < n; i++)
        e->arg_deps[i] = mir_term_deps_of_expr (c->term_deps, c->fun,
                                                g_ptr_array_index (m->u.call.args, i));
    }
  return e;
}

static gboolean pure_expr (const MirExpr *m);

/* add_diag (gp_exp_quad_cov (x, magnitude, length), d) (and the other
 * stationary kernels) as one kernel: the covariance is symmetric and d is
 * added in place, so neither the upper triangle nor the copy is
 * differentiated. d is evaluated before the covariance rather than after:
 * it must have no effects. */
static Ex *
compile_gp_add_diag (Compiler *c, const MirExpr *m)
{
  const MirFun *f = &m->u.call.fun;
  if (!c->fused || c->as_written || f->kind != MIR_FUN_STANLIB || strcmp (f->name, "add_diag") != 0
      || m->u.call.args->len != 2)
    return NULL;
  const MirExpr *cov = g_ptr_array_index (m->u.call.args, 0);
  const MirExpr *d = g_ptr_array_index (m->u.call.args, 1);
  if (cov->kind != MIR_EXPR_CALL || cov->u.call.fun.kind != MIR_FUN_STANLIB
      || cov->u.call.args->len != 3 || !pure_expr (d))
    return NULL;
  g_autofree char *name = g_strconcat (cov->u.call.fun.name, " add_diag", NULL);
  const RtBuiltin *b = rt_builtin_lookup (name, 4);
  if (!b)
    return NULL;
  Ex *e = ex_new (c, rt_ex_call, m, 4);
  e->builtin = b;
  e->name = cov->u.call.fun.name;
  for (int i = 0; i < 3; i++)
    e->kids[i] = compile_expr (c, g_ptr_array_index (cov->u.call.args, i));
  e->kids[3] = compile_expr (c, d);
  return e;
}

/* A higher-order function: its function argument (the first) names a
 * function of the functions block, the others are compiled as kids. */
static Ex *
compile_hof (Compiler *c, const MirExpr *m, const RtHof *h)
{
  GPtrArray *args = m->u.call.args;
  int n = (int) args->len;
  if (h->lead < 0 && n >= h->min_args && n <= h->max_args)
    {
      Ex *e = ex_new (c, h->fn, m, n);
      e->name = m->u.call.fun.name;
      e->op = h->op;
      compile_kids (c, e, args);
      return e;
    }
  const MirExpr *fa = n > 0 ? g_ptr_array_index (args, 0) : NULL;
  if (!fa || n < h->min_args || n > h->max_args || fa->kind != MIR_EXPR_VAR)
    {
      c_error (c, m, "the function %s (with %d argument%s) is not implemented by the runtime",
               m->u.call.fun.name, n, n == 1 ? "" : "s");
      return ex_new (c, rt_ex_const, m, 0);
    }
  int arity = h->fixed < 0 ? h->lead : h->lead + n - 1 - h->fixed;
  const TildeType **types = NULL;
  if (tilde_type_kind (fa->type) == TILDE_TYPE_FUNCTION
      && tilde_type_n_args (fa->type) == (guint) arity)
    {
      types = tilde_arena_newv (c->arena, const TildeType *, MAX (arity, 1));
      for (int k = 0; k < arity; k++)
        types[k] = tilde_type_arg (fa->type, (guint) k)->type;
    }
  gboolean several;
  const RtFunction *code = choose_overload (c, fa->u.var.name, arity, types, &several);
  if (several)
    {
      c_error (c, m, "the overloads of %s with %d argument%s cannot be told apart "
               "by the runtime yet", fa->u.var.name, arity, arity == 1 ? "" : "s");
      return ex_new (c, rt_ex_const, m, 0);
    }
  if (!code || !code->defined)
    {
      c_error (c, m, code ? "the function %s is declared without a definition (external "
               "functions are not supported by the runtime)"
               : "the function %s has no definition", fa->u.var.name);
      return ex_new (c, rt_ex_const, m, 0);
    }
  Ex *e = ex_new (c, h->fn, m, n - 1);
  e->code = code;
  e->name = m->u.call.fun.name;
  e->op = h->op;
  e->drop = g_str_has_suffix (fa->u.var.name, "_lupdf")
    || g_str_has_suffix (fa->u.var.name, "_lupmf");
  for (int i = 1; i < n; i++)
    e->kids[i - 1] = compile_expr (c, g_ptr_array_index (args, i));
  return e;
}

static Ex *
compile_call (Compiler *c, const MirExpr *m)
{
  const MirFun *f = &m->u.call.fun;
  if (f->kind == MIR_FUN_COMPILER)
    return compile_internal (c, m);
  if (f->kind == MIR_FUN_USER)
    return compile_user_call (c, m);
  const RtHof *hof = rt_hof_lookup (f->name);
  if (hof)
    return compile_hof (c, m, hof);
  int n = (int) m->u.call.args->len;
  Ex *gp = compile_gp_add_diag (c, m);
  if (gp)
    return gp;
  Ex *fast = compile_sx (c, m);
  if (!fast)
    fast = compile_scalar_op (c, m);
  if (fast)
    return fast;
  const RtBuiltin *b = rt_builtin_lookup (f->name, n);
  if (!b)
    {
      c_error (c, m, "the function %s (with %d argument%s) is not implemented by the runtime",
               f->name, n, n == 1 ? "" : "s");
      return ex_new (c, rt_ex_const, m, 0);
    }
  /* a density written for another keeps that one's constants (mir.h) */
  if (f->rewritten)
    {
      g_autofree char *expanded = g_strconcat (f->name, " expanded", NULL);
      const RtBuiltin *as_expanded = rt_builtin_lookup (expanded, n);
      if (as_expanded)
        b = as_expanded;
    }
  if (c->hoist && data_only (c, m))
    {
      Ex *inner = ex_new (c, rt_ex_call, m, n);
      inner->builtin = b;
      inner->name = f->name;
      inner->drop = is_lupdf (f);
      compile_kids (c, inner, m->u.call.args);
      Ex *e = ex_new (c, rt_ex_cached, m, 1);
      e->kids[0] = inner;
      g_ptr_array_add (c->cached, e);
      return e;
    }
  Ex *fused = compile_fused_expr (c, m);
  if (fused)
    return fused;
  Ex *e = ex_new (c, rt_ex_call, m, n);
  e->builtin = b;
  e->name = f->name;
  e->drop = is_lupdf (f);
  compile_kids (c, e, m->u.call.args);
  return e;
}

static Ex *
compile_indexed (Compiler *c, const MirExpr *m)
{
  GPtrArray *idx = m->u.indexed.indices;
  int n = (int) idx->len;
  const MirExpr *base = m->u.indexed.base;
  if (n == 1 && base->kind == MIR_EXPR_VAR && base->type
      && ((const MirIndex *) g_ptr_array_index (idx, 0))->kind == MIR_INDEX_SINGLE)
    {
      TildeTypeKind bk = tilde_type_kind (base->type);
      const TildeType *el = bk == TILDE_TYPE_ARRAY ? tilde_type_element (base->type) : NULL;
      gboolean flat = bk == TILDE_TYPE_VECTOR || bk == TILDE_TYPE_ROW_VECTOR
        || (el && (tilde_type_kind (el) == TILDE_TYPE_INT || tilde_type_kind (el) == TILDE_TYPE_REAL));
      int slot = lookup (c, base->u.var.name, NULL);
      if (flat && slot >= 0)
        {
          Ex *e = ex_new (c, rt_ex_index1, m, 1);
          e->slot = slot;
          e->kids[0] = compile_expr (c, ((const MirIndex *) g_ptr_array_index (idx, 0))->e);
          return e;
        }
    }
  /* kids: base, then two per index (lower/single, upper) */
  Ex *e = ex_new (c, rt_ex_indexed, m, 1 + 2 * n);
  e->kids[0] = compile_expr (c, m->u.indexed.base);
  e->n_index = n;
  e->index_kinds = tilde_arena_newv (c->arena, MirIndexKind, MAX (n, 1));
  for (int i = 0; i < n; i++)
    {
      const MirIndex *ix = g_ptr_array_index (idx, i);
      e->index_kinds[i] = ix->kind;
      e->kids[1 + 2 * i] = ix->e ? compile_expr (c, ix->e) : NULL;
      e->kids[2 + 2 * i] = ix->upper ? compile_expr (c, ix->upper) : NULL;
    }
  return e;
}

static Ex *
compile_expr (Compiler *c, const MirExpr *m)
{
  Ex *e;
  switch (m->kind)
    {
    case MIR_EXPR_VAR:
      {
        if (strcmp (m->u.var.name, "emit_transformed_parameters__") == 0)
          return ex_new (c, rt_ex_flag_tp, m, 0);
        if (strcmp (m->u.var.name, "emit_generated_quantities__") == 0)
          return ex_new (c, rt_ex_flag_gq, m, 0);
        gboolean global = FALSE;
        int slot = lookup (c, m->u.var.name, &global);
        if (slot < 0)
          {
            c_error (c, m, "unknown variable %s", m->u.var.name);
            return ex_new (c, rt_ex_const, m, 0);
          }
        e = ex_new (c, rt_ex_var, m, 0);
        e->slot = slot;
        e->op = !global;   /* a local: its storage may change after it is read */
        e->name = m->u.var.name;
        return e;
      }
    case MIR_EXPR_LIT:
      return compile_literal (c, m);
    case MIR_EXPR_CALL:
      return compile_call (c, m);
    case MIR_EXPR_TERNARY:
      e = ex_new (c, rt_ex_ternary, m, 3);
      e->kids[0] = compile_expr (c, m->u.ternary.cond);
      e->kids[1] = compile_expr (c, m->u.ternary.if_true);
      e->kids[2] = compile_expr (c, m->u.ternary.if_false);
      return e;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      e = ex_new (c, m->kind == MIR_EXPR_AND ? rt_ex_and : rt_ex_or, m, 2);
      e->kids[0] = compile_expr (c, m->u.logical.lhs);
      e->kids[1] = compile_expr (c, m->u.logical.rhs);
      return e;
    case MIR_EXPR_INDEXED:
      return compile_indexed (c, m);
    case MIR_EXPR_PROMOTION:
      {
        Ex *inner = compile_expr (c, m->u.promotion.expr);
        if (inner->fn == rt_ex_const && inner->k.kind == TILDE_VALUE_INT
            && tilde_type_kind (m->u.promotion.to) == TILDE_TYPE_REAL)
          {
            e = ex_new (c, rt_ex_const, m, 0);
            e->k = tilde_value_real (inner->k.u.i);
            e->ready = TRUE;
            return e;
          }
        e = ex_new (c, rt_ex_promote, m, 1);
        e->kids[0] = inner;
        e->type = m->u.promotion.to;
        return e;
      }
    case MIR_EXPR_TUPLE_PROJ:
      e = ex_new (c, rt_ex_proj, m, 1);
      e->kids[0] = compile_expr (c, m->u.proj.base);
      e->tuple_slot = m->u.proj.slot;
      return e;
    default:
      c_error (c, m, "unsupported expression");
      return ex_new (c, rt_ex_const, m, 0);
    }
}

/* ---- statements ---- */

static St *
st_new (Compiler *c, StFn fn, const MirStmt *m)
{
  St *s = tilde_arena_new0 (c->arena, St);
  s->fn = fn;
  s->mir = m;
  return s;
}

/* A `target +=` statement's role; a Jacobian term is the prior's. */
static void
set_term_role (St *s, const MirStmt *m)
{
  s->role = MIR_TERM_PRIOR;
  s->role_args = 0;
  if (m->kind == MIR_STMT_TARGET_PLUS)
    {
      s->role = m->u.increment.role;
      s->role_args = m->u.increment.role_args;
    }
}

/* ---- fused densities and vectorised loops (fused.c) ---- */

#define FX_MAX_DEPS 8
#define FX_MAX_ARGS 8

/* Densities whose vectorised form is the sum of the scalar one over the
 * elements, with every argument a scalar or a one-dimensional container. */
static const char *const elementwise_densities[] = {
  "normal", "std_normal", "cauchy", "student_t", "exponential", "gamma", "inv_gamma",
  "lognormal", "beta", "uniform", "bernoulli", "bernoulli_logit", "binomial", "binomial_logit",
  "poisson", "poisson_log", "neg_binomial_2", "neg_binomial_2_log", NULL,
};

typedef struct {
  const char *var;      /* the loop variable; NULL outside loops */
  int         leaves;   /* dependencies the expression may have */
} FxCtx;

static gboolean
is_scalar_type (const TildeType *t)
{
  return t && (tilde_type_kind (t) == TILDE_TYPE_INT || tilde_type_kind (t) == TILDE_TYPE_REAL);
}

static gboolean
is_flat_1d_type (const TildeType *t)
{
  if (!t)
    return FALSE;
  TildeTypeKind k = tilde_type_kind (t);
  return k == TILDE_TYPE_VECTOR || k == TILDE_TYPE_ROW_VECTOR
    || (k == TILDE_TYPE_ARRAY && is_scalar_type (tilde_type_element (t)));
}

/* The library density a `target +=` calls, when it may be fused. */
static const RtBuiltin *
fusable_density (const MirExpr *m)
{
  if (m->kind != MIR_EXPR_CALL || m->u.call.fun.kind != MIR_FUN_STANLIB
      || (m->u.call.fun.suffix != MIR_SUFFIX_LPDF && m->u.call.fun.suffix != MIR_SUFFIX_LPMF))
    return NULL;
  const char *name = m->u.call.fun.name;
  int n = (int) m->u.call.args->len;
  if (n > FX_MAX_ARGS)
    return NULL;
  const char *suffix = strrchr (name, '_');
  if (!suffix || !(strcmp (suffix, "_lpdf") == 0 || strcmp (suffix, "_lupdf") == 0
                   || strcmp (suffix, "_lpmf") == 0 || strcmp (suffix, "_lupmf") == 0))
    return NULL;
  gsize base = (gsize) (suffix - name);
  for (int i = 0; elementwise_densities[i]; i++)
    if (strlen (elementwise_densities[i]) == base
        && strncmp (elementwise_densities[i], name, base) == 0)
      return rt_builtin_lookup (name, n);
  return NULL;
}

/* Whether evaluating m has no effect but its value: it may be evaluated
 * once for many iterations, or again after a fused attempt gave up. */
static gboolean
pure_expr (const MirExpr *m)
{
  switch (m->kind)
    {
    case MIR_EXPR_VAR:
    case MIR_EXPR_LIT:
      return TRUE;
    case MIR_EXPR_CALL:
      {
        const MirFun *f = &m->u.call.fun;
        if (f->kind == MIR_FUN_USER || (f->kind == MIR_FUN_STANLIB && f->suffix == MIR_SUFFIX_RNG))
          return FALSE;
        if (f->kind == MIR_FUN_COMPILER && f->internal != MIR_FN_LENGTH
            && f->internal != MIR_FN_MAKE_ARRAY && f->internal != MIR_FN_MAKE_ROW_VEC
            && f->internal != MIR_FN_NEG_INF && f->internal != MIR_FN_NAN)
          return FALSE;
        for (guint i = 0; m->u.call.args && i < m->u.call.args->len; i++)
          if (!pure_expr (g_ptr_array_index (m->u.call.args, i)))
            return FALSE;
        return TRUE;
      }
    case MIR_EXPR_TERNARY:
      return pure_expr (m->u.ternary.cond) && pure_expr (m->u.ternary.if_true)
        && pure_expr (m->u.ternary.if_false);
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      return pure_expr (m->u.logical.lhs) && pure_expr (m->u.logical.rhs);
    case MIR_EXPR_INDEXED:
      {
        if (!pure_expr (m->u.indexed.base))
          return FALSE;
        for (guint i = 0; i < m->u.indexed.indices->len; i++)
          {
            const MirIndex *ix = g_ptr_array_index (m->u.indexed.indices, i);
            if ((ix->e && !pure_expr (ix->e)) || (ix->upper && !pure_expr (ix->upper)))
              return FALSE;
          }
        return TRUE;
      }
    case MIR_EXPR_PROMOTION:
      return pure_expr (m->u.promotion.expr);
    case MIR_EXPR_TUPLE_PROJ:
      return pure_expr (m->u.proj.base);
    default:
      return FALSE;
    }
}

/* Whether m reads the variable `var` (conservatively: TRUE when unsure). */
static gboolean
mentions (const MirExpr *m, const char *var)
{
  switch (m->kind)
    {
    case MIR_EXPR_VAR:
      return strcmp (m->u.var.name, var) == 0;
    case MIR_EXPR_LIT:
      return FALSE;
    case MIR_EXPR_CALL:
      for (guint i = 0; m->u.call.args && i < m->u.call.args->len; i++)
        if (mentions (g_ptr_array_index (m->u.call.args, i), var))
          return TRUE;
      return FALSE;
    case MIR_EXPR_TERNARY:
      return mentions (m->u.ternary.cond, var) || mentions (m->u.ternary.if_true, var)
        || mentions (m->u.ternary.if_false, var);
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      return mentions (m->u.logical.lhs, var) || mentions (m->u.logical.rhs, var);
    case MIR_EXPR_INDEXED:
      {
        if (mentions (m->u.indexed.base, var))
          return TRUE;
        for (guint i = 0; i < m->u.indexed.indices->len; i++)
          {
            const MirIndex *ix = g_ptr_array_index (m->u.indexed.indices, i);
            if ((ix->e && mentions (ix->e, var)) || (ix->upper && mentions (ix->upper, var)))
              return TRUE;
          }
        return FALSE;
      }
    case MIR_EXPR_PROMOTION:
      return mentions (m->u.promotion.expr, var);
    case MIR_EXPR_TUPLE_PROJ:
      return mentions (m->u.proj.base, var);
    default:
      return TRUE;
    }
}

/* The variable an lvalue assigns as a whole (no projection, no index), or
 * NULL. */
static const char *
whole_var (const MirLvalue *lv)
{
  return !lv->proj_of && lv->var && (!lv->indices || lv->indices->len == 0) ? lv->var : NULL;
}

/* m without the blocks of one statement around it. */
static const MirStmt *
sole_stmt (const MirStmt *m)
{
  while ((m->kind == MIR_STMT_BLOCK || m->kind == MIR_STMT_SLIST) && m->u.block.stmts
         && m->u.block.stmts->len == 1)
    m = g_ptr_array_index (m->u.block.stmts, 0);
  return m;
}

static Fx *
fx_new (Compiler *c, FxKind kind)
{
  Fx *f = tilde_arena_new0 (c->arena, Fx);
  f->kind = kind;
  f->sign = 1;
  return f;
}

/* An expression evaluated as usual, one dependency of the fused one. */
static Fx *
fx_leaf (Compiler *c, FxCtx *x, const MirExpr *m)
{
  if (!pure_expr (m) || (x->var && mentions (m, x->var))
      || (m->ad_level != TILDE_AD_DATA && ++x->leaves > FX_MAX_DEPS))
    return NULL;
  if (!x->var && !is_scalar_type (m->type) && !is_flat_1d_type (m->type))
    return NULL;
  Fx *f = fx_new (c, FX_LEAF);
  f->e = compile_expr (c, m);
  f->scalar = is_scalar_type (m->type);
  f->data = m->ad_level == TILDE_AD_DATA;
  return f;
}

static gboolean
is_call (const MirExpr *m, const char *name, guint nargs)
{
  return m->kind == MIR_EXPR_CALL && m->u.call.fun.kind == MIR_FUN_STANLIB
    && m->u.call.args->len == nargs && strcmp (m->u.call.fun.name, name) == 0;
}

static const MirExpr *
arg (const MirExpr *m, guint i)
{
  return g_ptr_array_index (m->u.call.args, i);
}

/* n, n + k, k + n or n - k with k not depending on n: the offset k (NULL
 * for none) and its sign. */
static gboolean
loop_offset (const MirExpr *ix, const char *var, const MirExpr **k, int *sign)
{
  *k = NULL;
  *sign = 1;
  if (ix->kind == MIR_EXPR_VAR)
    return strcmp (ix->u.var.name, var) == 0;
  gboolean plus = is_call (ix, "Plus__", 2), minus = is_call (ix, "Minus__", 2);
  if (!plus && !minus)
    return FALSE;
  const MirExpr *a = arg (ix, 0), *b = arg (ix, 1);
  if (plus && b->kind == MIR_EXPR_VAR && strcmp (b->u.var.name, var) == 0)
    {
      const MirExpr *t = a;
      a = b;
      b = t;
    }
  if (a->kind != MIR_EXPR_VAR || strcmp (a->u.var.name, var) != 0 || mentions (b, var)
      || !pure_expr (b) || tilde_type_kind (b->type) != TILDE_TYPE_INT)
    return FALSE;
  *k = b;
  *sign = minus ? -1 : 1;
  return TRUE;
}

static Fx *compile_fx (Compiler *c, FxCtx *x, const MirExpr *m);

/* e[...] inside a vectorised loop: a slice or a gather of an invariant
 * one-dimensional container. */
static Fx *
compile_fx_indexed (Compiler *c, FxCtx *x, const MirExpr *m)
{
  const MirExpr *base = m->u.indexed.base;
  GPtrArray *idx = m->u.indexed.indices;
  if (idx->len != 1 || mentions (base, x->var) || !pure_expr (base)
      || !is_flat_1d_type (base->type))
    return NULL;
  const MirIndex *ix = g_ptr_array_index (idx, 0);
  if (ix->kind != MIR_INDEX_SINGLE
      || (base->ad_level != TILDE_AD_DATA && ++x->leaves > FX_MAX_DEPS))
    return NULL;
  const MirExpr *k;
  int sign;
  if (loop_offset (ix->e, x->var, &k, &sign))
    {
      Fx *f = fx_new (c, FX_SLICE);
      f->e = compile_expr (c, base);
      f->off = k ? compile_expr (c, k) : NULL;
      f->sign = sign;
      return f;
    }
  if (tilde_type_kind (ix->e->type) != TILDE_TYPE_INT || !pure_expr (ix->e))
    return NULL;
  FxCtx inner = { .var = x->var };
  Fx *a = compile_fx (c, &inner, ix->e);
  if (!a || (a->kind != FX_SLICE && a->kind != FX_GATHER && a->kind != FX_LOOP_VAR))
    return NULL;
  Fx *f = fx_new (c, FX_GATHER);
  f->e = compile_expr (c, base);
  f->a = a;
  return f;
}

/* e[idx] outside loops, idx an array of ints: a gather of a one-dimensional
 * container. */
static Fx *
compile_fx_multi_index (Compiler *c, FxCtx *x, const MirExpr *m)
{
  const MirExpr *base = m->u.indexed.base;
  GPtrArray *idx = m->u.indexed.indices;
  if (idx->len != 1 || !pure_expr (base) || !is_flat_1d_type (base->type))
    return NULL;
  const MirIndex *ix = g_ptr_array_index (idx, 0);
  if (ix->kind != MIR_INDEX_MULTI || !pure_expr (ix->e)
      || (base->ad_level != TILDE_AD_DATA && ++x->leaves > FX_MAX_DEPS))
    return NULL;
  Fx *a = fx_leaf (c, x, ix->e);
  if (!a)
    return NULL;
  Fx *f = fx_new (c, FX_GATHER);
  f->e = compile_expr (c, base);
  f->a = a;
  return f;
}

/* X[n + k] * v inside a vectorised loop: rows of a matrix times a vector. */
static Fx *
compile_fx_row_times (Compiler *c, FxCtx *x, const MirExpr *m)
{
  const MirExpr *row = arg (m, 0), *v = arg (m, 1);
  if (row->kind != MIR_EXPR_INDEXED || row->u.indexed.indices->len != 1
      || tilde_type_kind (row->type) != TILDE_TYPE_ROW_VECTOR
      || tilde_type_kind (v->type) != TILDE_TYPE_VECTOR
      || tilde_type_kind (row->u.indexed.base->type) != TILDE_TYPE_MATRIX)
    return NULL;
  const MirIndex *ix = g_ptr_array_index (row->u.indexed.indices, 0);
  const MirExpr *base = row->u.indexed.base, *k;
  int sign;
  if (ix->kind != MIR_INDEX_SINGLE || !loop_offset (ix->e, x->var, &k, &sign)
      || mentions (base, x->var) || !pure_expr (base) || mentions (v, x->var) || !pure_expr (v)
      || ++x->leaves > FX_MAX_DEPS)
    return NULL;
  Fx *f = fx_new (c, FX_ROW_TIMES);
  f->e = compile_expr (c, base);
  f->off = k ? compile_expr (c, k) : NULL;
  f->sign = sign;
  f->b = fx_new (c, FX_LEAF);
  f->b->e = compile_expr (c, v);
  f->times = rt_builtin_lookup ("Times__", 2);
  return f->times ? f : NULL;
}

/* Whether m is elementwise arithmetic the fused form computes: in a loop,
 * of scalars; outside, of scalars and one-dimensional containers, with a
 * container result. */
static FxKind
fx_arith_kind (const FxCtx *x, const MirExpr *m)
{
  if (m->kind != MIR_EXPR_CALL || m->u.call.fun.kind != MIR_FUN_STANLIB)
    return FX_LEAF;
  if (x->var ? !is_scalar_type (m->type) : !is_flat_1d_type (m->type))
    return FX_LEAF;
  guint n = m->u.call.args->len;
  for (guint i = 0; i < n; i++)
    {
      const TildeType *t = arg (m, i)->type;
      if (!is_scalar_type (t) && (x->var || !is_flat_1d_type (t)))
        return FX_LEAF;
    }
  const char *name = m->u.call.fun.name;
  /* int quotients round; sums and products of ints are exact as reals */
  if (tilde_type_kind (m->type) == TILDE_TYPE_INT
      && !(n == 2 && (strcmp (name, "Plus__") == 0 || strcmp (name, "Minus__") == 0
                      || strcmp (name, "Times__") == 0)))
    return FX_LEAF;
  if (n == 2 && (strcmp (name, "Plus__") == 0 || strcmp (name, "add") == 0))
    return FX_ADD;
  if (n == 2 && (strcmp (name, "Minus__") == 0 || strcmp (name, "subtract") == 0))
    return FX_SUB;
  if (n == 1 && (strcmp (name, "PMinus__") == 0 || strcmp (name, "minus") == 0))
    return FX_NEG;
  if (n == 3 && strcmp (name, "fma") == 0)
    return FX_FMA;
  /* a product or quotient of two containers is elementwise only when it says so */
  gboolean scalar_b = n == 2 && is_scalar_type (arg (m, 1)->type);
  gboolean scalar_a = n == 2 && is_scalar_type (arg (m, 0)->type);
  if (n == 2 && (strcmp (name, "EltTimes__") == 0 || strcmp (name, "elt_multiply") == 0
                 || ((strcmp (name, "Times__") == 0 || strcmp (name, "multiply") == 0)
                     && (scalar_a || scalar_b))))
    return FX_MUL;
  if (n == 2 && (strcmp (name, "EltDivide__") == 0 || strcmp (name, "elt_divide") == 0
                 || ((strcmp (name, "Divide__") == 0 || strcmp (name, "divide") == 0)
                     && scalar_b)))
    return FX_DIV;
  return FX_LEAF;
}

static Fx *
compile_fx (Compiler *c, FxCtx *x, const MirExpr *m)
{
  if (x->var)
    {
      if (!is_scalar_type (m->type))
        return NULL;
      if (!mentions (m, x->var))
        return fx_leaf (c, x, m);
      if (m->kind == MIR_EXPR_VAR)
        return fx_new (c, FX_LOOP_VAR);
      if (m->kind == MIR_EXPR_INDEXED)
        return compile_fx_indexed (c, x, m);
      if (is_call (m, "Times__", 2) && tilde_type_kind (arg (m, 0)->type) == TILDE_TYPE_ROW_VECTOR)
        return compile_fx_row_times (c, x, m);
    }
  if (!x->var && m->kind == MIR_EXPR_INDEXED)
    {
      Fx *g = compile_fx_multi_index (c, x, m);
      if (g)
        return g;
    }
  /* int to real: the values are read as reals anyway */
  if (m->kind == MIR_EXPR_PROMOTION && is_scalar_type (m->type)
      && is_scalar_type (m->u.promotion.expr->type))
    return compile_fx (c, x, m->u.promotion.expr);
  FxKind kind = fx_arith_kind (x, m);
  if (kind == FX_LEAF)
    return x->var ? NULL : fx_leaf (c, x, m);
  Fx *f = fx_new (c, kind);
  f->ints = tilde_type_kind (m->type) == TILDE_TYPE_INT;
  f->a = compile_fx (c, x, arg (m, 0));
  f->b = m->u.call.args->len > 1 ? compile_fx (c, x, arg (m, 1)) : NULL;
  f->c = m->u.call.args->len > 2 ? compile_fx (c, x, arg (m, 2)) : NULL;
  if (!f->a || (m->u.call.args->len > 1 && !f->b) || (m->u.call.args->len > 2 && !f->c))
    return NULL;
  /* a sum with a product, `mu + tau * eta[g]`, in one pass as the fused
   * form's fma (which rounds the product and the sum apart, as written) */
  if (kind == FX_ADD && !f->ints)
    {
      Fx *p = f->b->kind == FX_MUL && !f->b->ints ? f->b
        : f->a->kind == FX_MUL && !f->a->ints ? f->a : NULL;
      if (p)
        {
          Fx *other = p == f->b ? f->a : f->b;
          f->kind = FX_FMA;
          f->a = p->a;
          f->b = p->b;
          f->c = other;
        }
    }
  return f;
}

/* Elementwise arithmetic of containers as one fused expression, with the
 * same expression compiled as usual for what the fused form gives up on. */
static Ex *
compile_fused_expr (Compiler *c, const MirExpr *m)
{
  FxCtx x = { 0 };
  if (!c->fused || c->as_written || fx_arith_kind (&x, m) == FX_LEAF)
    return NULL;
  Fx *f = compile_fx (c, &x, m);
  if (!f)
    return NULL;
  Ex *e = ex_new (c, rt_ex_fused, m, 1);
  e->fx = f;
  c->as_written++;
  e->kids[0] = compile_expr (c, m);
  c->as_written--;
  return e;
}

/* Fills s's density and fused arguments for `target += e`; in a loop
 * (var set) every argument is a scalar of the iteration and at least one
 * varies, outside one at least one argument is fused arithmetic. */
static gboolean
compile_fused_density (Compiler *c, St *s, const MirExpr *e, const char *var)
{
  const RtBuiltin *b = fusable_density (e);
  if (!b)
    return FALSE;
  int n = (int) e->u.call.args->len;
  Fx **fx = tilde_arena_newv (c->arena, Fx *, MAX (n, 1));
  gboolean worth = FALSE;
  for (int i = 0; i < n; i++)
    {
      FxCtx x = { .var = var };
      fx[i] = compile_fx (c, &x, arg (e, (guint) i));
      if (!fx[i])
        return FALSE;
      worth |= fx[i]->kind != FX_LEAF;
    }
  if (!worth)
    return FALSE;
  s->builtin = b;
  s->name = e->u.call.fun.name;
  s->drop = is_lupdf (&e->u.call.fun);
  s->fx = fx;
  s->n_fx = n;
  s->affine_normal = affine_normals && n == 3 && rt_fused_is_affine_normal (s->name, fx);
  return TRUE;
}

/* The statements of a loop body, blocks flattened; FALSE when it has
 * anything but `target +=`. */
static gboolean
collect_terms (const MirStmt *m, GPtrArray *out)
{
  switch (m->kind)
    {
    case MIR_STMT_TARGET_PLUS:
      g_ptr_array_add (out, (gpointer) m);
      return TRUE;
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      for (guint i = 0; m->u.block.stmts && i < m->u.block.stmts->len; i++)
        if (!collect_terms (g_ptr_array_index (m->u.block.stmts, i), out))
          return FALSE;
      return TRUE;
    default:
      return FALSE;
    }
}

/* The loop `general` (compiled from m) run as one vectorised density per
 * statement, or NULL when its body is not of that form. */
static St *
compile_vector_loop (Compiler *c, const MirStmt *m, St *general)
{
  g_autoptr (GPtrArray) terms = g_ptr_array_new ();
  if (!collect_terms (m->u.for_stmt.body, terms) || terms->len == 0)
    return NULL;
  St **body = tilde_arena_newv (c->arena, St *, terms->len);
  for (guint i = 0; i < terms->len; i++)
    {
      const MirStmt *t = g_ptr_array_index (terms, i);
      body[i] = st_new (c, rt_st_skip, t);
      set_term_role (body[i], t);
      if (!compile_fused_density (c, body[i], t->u.increment.expr, m->u.for_stmt.var))
        return NULL;
    }
  St *s = st_new (c, rt_st_for_vector, m);
  s->role = body[0]->role;
  s->role_args = body[0]->role_args;
  for (guint i = 1; i < terms->len; i++)
    s->mixed_roles |= body[i]->role != s->role || body[i]->role_args != s->role_args;
  s->e = general->e;
  s->e2 = general->e2;
  s->else_s = general;
  s->body = body;
  s->n_body = (int) terms->len;
  return s;
}

/* ---- loops of scalar terms (fused-loop.c) ---- */

#define LX_MAX_LOCALS 8

typedef struct {
  Compiler   *c;
  const char *var;     /* the loop variable */
  Lx         *prog;
  int         n;
  gboolean    ok;
  const char *carry;     /* a recurrence's container: x[n - 1] is the CARRY */
  /* the body's real scalars: their names and the instruction that holds
   * each one's value at this point of the body (-1: not yet assigned) */
  const char *local[LX_MAX_LOCALS];
  int         local_ins[LX_MAX_LOCALS];
  int         n_locals;
} LxBuild;

static int
lx_local (const LxBuild *b, const char *name)
{
  for (int i = 0; name && i < b->n_locals; i++)
    if (strcmp (b->local[i], name) == 0)
      return i;
  return -1;
}

/* Whether the program has a normal_lupdf, whose terms are dropped per
 * evaluation (only the loop of terms decides that). */
static gboolean
lx_drops (const LxBuild *b)
{
  for (int j = 0; j < b->n; j++)
    if (b->prog[j].drop)
      return TRUE;
  return FALSE;
}

static gboolean
lx_mentions_local (const LxBuild *b, const MirExpr *m)
{
  for (int i = 0; i < b->n_locals; i++)
    if (mentions (m, b->local[i]))
      return TRUE;
  return FALSE;
}

static int
lx_push (LxBuild *b, LxOp op, int n_args, const int *args)
{
  if (b->n >= LX_MAX_PROGRAM)
    {
      b->ok = FALSE;
      return 0;
    }
  Lx *ins = &b->prog[b->n];
  *ins = (Lx) { .op = op, .n_args = (guint8) n_args, .sign = 1 };
  for (int i = 0; i < n_args; i++)
    {
      ins->args[i] = (guint8) args[i];
      ins->varies |= b->prog[args[i]].varies;
    }
  return b->n++;
}

/* Functions of real scalars with no checks of their own: the operation. */
static gboolean
lx_function (const MirExpr *m, LxOp *op)
{
  static const struct { const char *name; guint n; LxOp op; } ops[] = {
    { "Plus__", 2, LX_ADD }, { "add", 2, LX_ADD }, { "Minus__", 2, LX_SUB },
    { "subtract", 2, LX_SUB }, { "Times__", 2, LX_MUL }, { "multiply", 2, LX_MUL },
    { "EltTimes__", 2, LX_MUL }, { "Divide__", 2, LX_DIV }, { "divide", 2, LX_DIV },
    { "EltDivide__", 2, LX_DIV }, { "fma", 3, LX_FMA }, { "Pow__", 2, LX_POW },
    { "pow", 2, LX_POW }, { "PMinus__", 1, LX_NEG }, { "minus", 1, LX_NEG },
    { "square", 1, LX_SQUARE }, { "sqrt", 1, LX_SQRT }, { "exp", 1, LX_EXP },
    { "log", 1, LX_LOG }, { "expm1", 1, LX_EXPM1 }, { "log1p", 1, LX_LOG1P },
    { "log1m", 1, LX_LOG1M }, { "inv", 1, LX_INV }, { "inv_logit", 1, LX_INV_LOGIT },
    { "log_sum_exp", 2, LX_LOG_SUM_EXP },
  };
  guint n = m->u.call.args->len;
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (ops[i].n == n && strcmp (ops[i].name, m->u.call.fun.name) == 0)
      {
        *op = ops[i].op;
        return TRUE;
      }
  return FALSE;
}

static int lx_emit (LxBuild *b, const MirExpr *m);

/* normal_lpdf (y | mu, sigma) and log_mix (theta, a, b), with what depends
 * on sigma and theta alone in instructions of their own: outside the loop
 * when those do not vary. */
static int
lx_emit_density (LxBuild *b, const MirExpr *m, gboolean mix, gboolean drop)
{
  int k[3];
  for (guint i = 0; i < 3; i++)
    k[i] = lx_emit (b, arg (m, i));
  int checked = lx_push (b, mix ? LX_CHECK_UNIT : LX_CHECK_POSITIVE, 1, &k[mix ? 0 : 2]);
  if (mix)
    {
      int lt = lx_push (b, LX_LOG, 1, &checked), l1t = lx_push (b, LX_LOG1M, 1, &checked);
      return lx_push (b, LX_LOG_MIX, 4, (int[]) { k[1], k[2], lt, l1t });
    }
  int r = lx_push (b, LX_INV, 1, &checked), l = lx_push (b, LX_LOG, 1, &checked);
  int normal = lx_push (b, LX_NORMAL, 4, (int[]) { k[0], k[1], r, l });
  b->prog[normal].drop = drop;
  return normal;
}

/* Appends m's instructions in post-order; the position of its own. */
static int
lx_emit (LxBuild *b, const MirExpr *m)
{
  if (!b->ok)
    return 0;
  if (!is_real_scalar_type (m->type))
    goto fail;
  gboolean local = lx_mentions_local (b, m) || (b->carry && mentions (m, b->carry));
  if (!local && !mentions (m, b->var))
    {
      if (!pure_expr (m))
        goto fail;
      int k = lx_push (b, LX_LEAF, 0, NULL);
      b->prog[k].e = compile_expr (b->c, m);
      return k;
    }
  if (m->kind == MIR_EXPR_INDEXED && b->carry && m->u.indexed.base->kind == MIR_EXPR_VAR
      && strcmp (m->u.indexed.base->u.var.name, b->carry) == 0)
    {
      /* x[n - 1]: the value the previous iteration gave; x[n], x[n + 1], ...:
       * values from before the loop, not yet assigned when read (a slice) */
      GPtrArray *idx = m->u.indexed.indices;
      const MirIndex *ix = idx->len == 1 ? g_ptr_array_index (idx, 0) : NULL;
      const MirExpr *off;
      int sign;
      if (!ix || ix->kind != MIR_INDEX_SINGLE || !loop_offset (ix->e, b->var, &off, &sign)
          || (off && off->kind != MIR_EXPR_LIT))
        goto fail;
      if (off && sign == -1 && strcmp (off->u.lit.text, "1") == 0)
        return 0;
      if (off && sign == -1)
        goto fail;
      local = FALSE;
    }
  if (m->kind == MIR_EXPR_VAR && local)
    {
      int i = lx_local (b, m->u.var.name);
      if (b->local_ins[i] < 0)
        goto fail;             /* read before it is assigned: NaN, as written */
      return b->local_ins[i];
    }
  if (m->kind == MIR_EXPR_VAR)
    {
      int k = lx_push (b, LX_LOOP_VAR, 0, NULL);
      b->prog[k].varies = TRUE;
      return k;
    }
  if (m->kind == MIR_EXPR_PROMOTION)
    return lx_emit (b, m->u.promotion.expr);
  if (m->kind == MIR_EXPR_INDEXED)
    {
      const MirExpr *base = m->u.indexed.base, *off;
      GPtrArray *idx = m->u.indexed.indices;
      const MirIndex *ix = idx->len == 1 ? g_ptr_array_index (idx, 0) : NULL;
      int sign;
      if (!ix || ix->kind != MIR_INDEX_SINGLE || mentions (base, b->var) || !pure_expr (base)
          || local || !is_flat_1d_type (base->type) || !loop_offset (ix->e, b->var, &off, &sign))
        goto fail;
      int k = lx_push (b, LX_SLICE, 0, NULL);
      b->prog[k].varies = TRUE;
      b->prog[k].e = compile_expr (b->c, base);
      b->prog[k].off = off ? compile_expr (b->c, off) : NULL;
      b->prog[k].sign = sign;
      return k;
    }
  if (m->kind != MIR_EXPR_CALL || m->u.call.fun.kind != MIR_FUN_STANLIB
      || tilde_type_kind (m->type) != TILDE_TYPE_REAL)
    goto fail;
  guint n = m->u.call.args->len;
  for (guint i = 0; i < n; i++)
    if (!is_real_scalar_type (arg (m, i)->type))
      goto fail;
  const char *name = m->u.call.fun.name;
  if (n == 3 && (strcmp (name, "normal_lpdf") == 0 || strcmp (name, "normal_lupdf") == 0
                 || strcmp (name, "log_mix") == 0))
    return lx_emit_density (b, m, name[0] == 'l', strcmp (name, "normal_lupdf") == 0);
  LxOp op;
  if (!lx_function (m, &op))
    goto fail;
  int k[3];
  for (guint i = 0; i < n; i++)
    k[i] = lx_emit (b, arg (m, i));
  return lx_push (b, op, (int) n, k);
fail:
  b->ok = FALSE;
  return 0;
}

/* Whether the inner program is x + a * s (either order of each) or
 * fma (a, s, x) with a not varying and s a slice: then x's partial is 1 and
 * a's is s, and the loop runs as a dot product. */
static void
lx_inner_dot (LxInner *in)
{
  const Lx *p = in->prog, *last = &p[in->n - 1];
  int prod, x;
  if (last->op == LX_FMA && last->args[2] == 0)
    prod = -1, x = 0;
  else if (last->op == LX_ADD && (last->args[0] == 0 || last->args[1] == 0))
    {
      x = 0;
      prod = last->args[0] == 0 ? last->args[1] : last->args[0];
      if (p[prod].op != LX_MUL)
        return;
    }
  else
    return;
  const guint8 *ab = prod < 0 ? last->args : p[prod].args;
  int a = ab[0], s = ab[1];
  if (p[a].op == LX_SLICE)
    {
      a = ab[1];
      s = ab[0];
    }
  if (p[s].op != LX_SLICE || p[a].varies || a == x || s == x)
    return;
  in->dot = TRUE;
  in->dot_fma = prod < 0;
  in->dot_a = a;
  in->dot_s = s;
}

/* An inner loop `for (k in lo:hi) x = f;` with x a local of the body and
 * f an expression of x, k, the outer loop's variable and what does not
 * vary, but of no other local: an instruction giving x's value after the
 * loop from its value before it, f being a program of its own (its first
 * instruction x's value before each k) run k after k over the iterations
 * of the outer loop. -1 when the loop is not of that form. */
static int
lx_emit_inner_loop (LxBuild *b, const MirStmt *m)
{
  const MirStmt *body = sole_stmt (m->u.for_stmt.body);
  if (body->kind != MIR_STMT_ASSIGN)
    return -1;
  const MirLvalue *lv = body->u.assign.lhs;
  const MirExpr *f = body->u.assign.rhs;
  const MirExpr *lo = m->u.for_stmt.lower, *hi = m->u.for_stmt.upper;
  int x = lx_local (b, whole_var (lv));
  if (x < 0 || b->local_ins[x] < 0 || mentions (lo, b->var) || mentions (hi, b->var)
      || lx_mentions_local (b, lo) || lx_mentions_local (b, hi) || !pure_expr (lo)
      || !pure_expr (hi))
    return -1;
  for (int i = 0; i < b->n_locals; i++)
    if (i != x && mentions (f, b->local[i]))
      return -1;
  Compiler *c = b->c;
  LxInner *in = tilde_arena_new0 (c->arena, LxInner);
  in->lo = compile_expr (c, lo);
  in->hi = compile_expr (c, hi);
  guint mark = c->scope->len;
  in->slot = bind (c, m->u.for_stmt.var);
  LxBuild sub = { .c = c, .var = b->var, .ok = TRUE, .n_locals = 1,
                  .prog = tilde_arena_newv (c->arena, Lx, LX_MAX_PROGRAM) };
  sub.local[0] = lv->var;
  sub.local_ins[0] = lx_push (&sub, LX_CARRY, 0, NULL);
  sub.prog[0].varies = TRUE;
  int last = lx_emit (&sub, f);
  g_array_set_size (c->scope, mark);
  if (!sub.ok || last != sub.n - 1 || !sub.prog[last].varies || lx_drops (&sub))
    return -1;
  in->prog = sub.prog;
  in->n = sub.n;
  lx_inner_dot (in);
  int k = lx_push (b, LX_INNER_LOOP, 1, &b->local_ins[x]);
  b->prog[k].varies = TRUE;
  b->prog[k].inner = in;
  b->local_ins[x] = k;
  return k;
}

/* Appends the instructions of the loop body's statement m: the terms to
 * *sum, the locals' values as they are assigned. */
static void
lx_body (LxBuild *b, St *s, const MirStmt *m, int *sum, int *n_terms)
{
  if (!b->ok)
    return;
  switch (m->kind)
    {
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      for (guint i = 0; m->u.block.stmts && i < m->u.block.stmts->len; i++)
        lx_body (b, s, g_ptr_array_index (m->u.block.stmts, i), sum, n_terms);
      return;
    case MIR_STMT_TARGET_PLUS:
      {
        St role = { 0 };
        set_term_role (&role, m);
        if ((*n_terms)++ == 0)
          {
            s->role = role.role;
            s->role_args = role.role_args;
          }
        s->mixed_roles |= role.role != s->role || role.role_args != s->role_args;
        int k = lx_emit (b, m->u.increment.expr);
        *sum = *sum < 0 ? k : lx_push (b, LX_ADD, 2, (int[]) { *sum, k });
        return;
      }
    case MIR_STMT_DECL:
      if (b->n_locals == LX_MAX_LOCALS || tilde_type_kind (m->u.decl.type) != TILDE_TYPE_REAL
          || lx_local (b, m->u.decl.name) >= 0)
        break;
      b->local[b->n_locals] = m->u.decl.name;
      b->local_ins[b->n_locals++] = -1;
      if (m->u.decl.init_kind == MIR_DECL_ASSIGN)
        b->local_ins[b->n_locals - 1] = lx_emit (b, m->u.decl.init);
      return;
    case MIR_STMT_ASSIGN:
      {
        int i = lx_local (b, whole_var (m->u.assign.lhs));
        if (i < 0)
          break;
        b->local_ins[i] = lx_emit (b, m->u.assign.rhs);
        return;
      }
    case MIR_STMT_FOR:
      if (lx_emit_inner_loop (b, m) >= 0)
        return;
      break;
    default:
      break;
    }
  b->ok = FALSE;
}

/* s, the loop `general` run as the program b built: its bounds are the
 * loop's, and the loop as written is what it falls back to. */
static St *
lx_loop (St *s, const LxBuild *b, St *general)
{
  s->lx = b->prog;
  s->n_lx = b->n;
  s->e = general->e;
  s->e2 = general->e2;
  s->else_s = general;
  return s;
}

/* The loop `general` (compiled from m) run as one program per iteration
 * over the sum of its terms, or NULL when its body is not of that form:
 * `target +=` terms, real locals assigned as a whole, and inner loops
 * updating a local (lx_emit_inner_loop). */
static St *
compile_scalar_loop (Compiler *c, const MirStmt *m, St *general)
{
  LxBuild b = { .c = c, .var = m->u.for_stmt.var, .ok = TRUE,
                .prog = tilde_arena_newv (c->arena, Lx, LX_MAX_PROGRAM) };
  St *s = st_new (c, rt_st_for_scalars, m);
  int sum = -1, n_terms = 0;
  lx_body (&b, s, m->u.for_stmt.body, &sum, &n_terms);
  /* the last instruction, the iteration's sum, is what the backward pass
   * starts from in every iteration */
  if (!b.ok || n_terms == 0 || sum != b.n - 1 || !b.prog[sum].varies)
    return NULL;
  s->lx_locals = b.n_locals > 0;
  return lx_loop (s, &b, general);
}

/* The loop `general` (compiled from m) run as a recurrence, or NULL when
 * its body is not `x[n] = f;` with x a one-dimensional real container and
 * f a real expression of x[n - 1], n, slices and what does not vary
 * (fused-loop.c, rt_st_for_recurrence). */
static St *
compile_recurrence (Compiler *c, const MirStmt *m, St *general)
{
  const MirStmt *body = sole_stmt (m->u.for_stmt.body);
  if (body->kind != MIR_STMT_ASSIGN)
    return NULL;
  const MirLvalue *lv = body->u.assign.lhs;
  const char *var = m->u.for_stmt.var;
  const MirIndex *ix = lv->indices && lv->indices->len == 1
    ? g_ptr_array_index (lv->indices, 0) : NULL;
  if (lv->proj_of || !lv->var || !ix || ix->kind != MIR_INDEX_SINGLE
      || ix->e->kind != MIR_EXPR_VAR || strcmp (ix->e->u.var.name, var) != 0
      || !is_flat_1d_type (lv->type)
      || tilde_type_kind (body->u.assign.rhs->type) != TILDE_TYPE_REAL
      || (tilde_type_kind (lv->type) == TILDE_TYPE_ARRAY
          && tilde_type_kind (tilde_type_element (lv->type)) != TILDE_TYPE_REAL))
    return NULL;
  LxBuild b = { .c = c, .var = var, .ok = TRUE, .carry = lv->var,
                .prog = tilde_arena_newv (c->arena, Lx, LX_MAX_PROGRAM) };
  lx_push (&b, LX_CARRY, 0, NULL);
  b.prog[0].varies = TRUE;
  int last = lx_emit (&b, body->u.assign.rhs);
  if (!b.ok || last != b.n - 1 || !b.prog[last].varies
      || b.prog[last].op == LX_SLICE || b.prog[last].op == LX_LOOP_VAR
      || b.prog[last].op == LX_CARRY || lx_drops (&b))
    return NULL;
  St *s = st_new (c, rt_st_for_recurrence, m);
  s->slot = lookup (c, lv->var, NULL);
  if (s->slot < 0)
    return NULL;
  s->name = lv->var;
  return lx_loop (s, &b, general);
}

static St *compile_stmt (Compiler *c, const MirStmt *m, gboolean top);

static gboolean is_read_data (const MirExpr *e);

/* `T x; x = e;` (how declarations with a value are lowered) is compiled as
 * `T x = e;`: the declaration then skips filling x with NaN. */
static gboolean
decl_then_assign (const MirStmt *d, const MirStmt *a)
{
  if (d->kind != MIR_STMT_DECL || d->u.decl.init_kind == MIR_DECL_ASSIGN || !d->u.decl.sized
      || a->kind != MIR_STMT_ASSIGN)
    return FALSE;
  const char *var = whole_var (a->u.assign.lhs);
  return var && strcmp (var, d->u.decl.name) == 0 && !is_read_data (a->u.assign.rhs)
    && !mentions (a->u.assign.rhs, d->u.decl.name);
}

static gboolean
sized_mentions (const MirSizedType *t, const char *var)
{
  if (!t)
    return FALSE;
  if ((t->dim1 && mentions (t->dim1, var)) || (t->dim2 && mentions (t->dim2, var))
      || sized_mentions (t->elem, var))
    return TRUE;
  for (guint i = 0; t->members && i < t->members->len; i++)
    if (sized_mentions (g_ptr_array_index (t->members, i), var))
      return TRUE;
  return FALSE;
}

static gboolean
list_mentions (GPtrArray *stmts, guint from, const char *var);

/* Whether statement m reads or writes `var` (conservatively: TRUE when
 * unsure). */
static gboolean
stmt_mentions (const MirStmt *m, const char *var)
{
  switch (m->kind)
    {
    case MIR_STMT_ASSIGN:
      {
        const MirLvalue *lv = m->u.assign.lhs;
        if (lv->proj_of || !lv->var || strcmp (lv->var, var) == 0
            || mentions (m->u.assign.rhs, var))
          return TRUE;
        for (guint i = 0; lv->indices && i < lv->indices->len; i++)
          {
            const MirIndex *ix = g_ptr_array_index (lv->indices, i);
            if ((ix->e && mentions (ix->e, var)) || (ix->upper && mentions (ix->upper, var)))
              return TRUE;
          }
        return FALSE;
      }
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      return mentions (m->u.increment.expr, var);
    case MIR_STMT_NR_CALL:
      if (m->u.call.fun.kind == MIR_FUN_COMPILER && m->u.call.fun.data)
        return TRUE;
      for (guint i = 0; m->u.call.args && i < m->u.call.args->len; i++)
        if (mentions (g_ptr_array_index (m->u.call.args, i), var))
          return TRUE;
      return FALSE;
    case MIR_STMT_RETURN:
      return m->u.ret.expr && mentions (m->u.ret.expr, var);
    case MIR_STMT_IF:
      return mentions (m->u.if_stmt.cond, var) || stmt_mentions (m->u.if_stmt.then_stmt, var)
        || (m->u.if_stmt.else_stmt && stmt_mentions (m->u.if_stmt.else_stmt, var));
    case MIR_STMT_WHILE:
      return mentions (m->u.while_stmt.cond, var) || stmt_mentions (m->u.while_stmt.body, var);
    case MIR_STMT_FOR:
      return strcmp (m->u.for_stmt.var, var) == 0 || mentions (m->u.for_stmt.lower, var)
        || mentions (m->u.for_stmt.upper, var) || stmt_mentions (m->u.for_stmt.body, var);
    case MIR_STMT_PROFILE:
      return list_mentions (m->u.profile.stmts, 0, var);
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      return list_mentions (m->u.block.stmts, 0, var);
    case MIR_STMT_DECL:
      return strcmp (m->u.decl.name, var) == 0 || (m->u.decl.init && mentions (m->u.decl.init, var))
        || sized_mentions (m->u.decl.sized, var);
    case MIR_STMT_BREAK:
    case MIR_STMT_CONTINUE:
    case MIR_STMT_SKIP:
      return FALSE;
    default:
      return TRUE;
    }
}

static gboolean
list_mentions (GPtrArray *stmts, guint from, const char *var)
{
  for (guint i = from; stmts && i < stmts->len; i++)
    if (stmt_mentions (g_ptr_array_index (stmts, i), var))
      return TRUE;
  return FALSE;
}

/* ---- a multivariate normal of a covariance's Cholesky factor ----
 *
 * `matrix[N, N] L = cholesky_decompose(K); ... y ~ multi_normal_cholesky(mu, L);`
 * with L read nowhere else is the multivariate normal of K: its gradient
 * with respect to K comes straight from K's inverse, with no reverse sweep
 * through the factorisation. The declaration still factors K (with the
 * library's checks, at the same point) and keeps K in L's slot and the
 * factor in a slot of its own; the density statement uses both. */

static const MirExpr *
chol_of (const MirExpr *e)
{
  return e && is_call (e, "cholesky_decompose", 1) ? arg (e, 0) : NULL;
}

static gboolean
is_mvn_of (const MirStmt *m, const char *var)
{
  if (m->kind != MIR_STMT_TARGET_PLUS)
    return FALSE;
  const MirExpr *e = m->u.increment.expr;
  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_STANLIB
      || e->u.call.args->len != 3
      || !(strcmp (e->u.call.fun.name, "multi_normal_cholesky_lpdf") == 0
           || strcmp (e->u.call.fun.name, "multi_normal_cholesky_lupdf") == 0))
    return FALSE;
  const MirExpr *l = arg (e, 2);
  return l->kind == MIR_EXPR_VAR && strcmp (l->u.var.name, var) == 0
    && !mentions (arg (e, 0), var) && !mentions (arg (e, 1), var)
    && rt_builtin_lookup (e->u.call.fun.name, 3) && rt_builtin_lookup ("cholesky_decompose", 1);
}

/* The position of the statement after `at` that is the one density of the
 * factor `var`, when nothing else after `at` reads it; -1 otherwise. */
static int
mvn_of_factor (GPtrArray *stmts, guint at, const char *var)
{
  int found = -1;
  for (guint i = at + 1; i < stmts->len; i++)
    {
      const MirStmt *m = g_ptr_array_index (stmts, i);
      if (found < 0 && is_mvn_of (m, var))
        found = (int) i;
      else if (stmt_mentions (m, var))
        return -1;
    }
  return found;
}

static St *
compile_chol_decl (Compiler *c, const MirStmt *d, const MirExpr *k)
{
  St *s = st_new (c, rt_st_decl_chol, d);
  s->sized = rt_compile_sized (c, d->u.decl.sized, NULL);
  s->e = compile_expr (c, k);
  s->builtin = rt_builtin_lookup ("cholesky_decompose", 1);
  s->slot = bind (c, d->u.decl.name);
  s->name = d->u.decl.name;
  /* the factor's slot has a name no variable can have */
  s->slot2 = bind (c, " factor");
  g_ptr_array_set_size (c->slot_sized, c->n_slots);
  return s;
}

static St *
compile_mvn_cov (Compiler *c, const MirStmt *m, const St *decl)
{
  const MirExpr *e = m->u.increment.expr;
  St *s = st_new (c, rt_st_mvn_cov, m);
  set_term_role (s, m);
  s->e = compile_expr (c, arg (e, 0));
  s->e2 = compile_expr (c, arg (e, 1));
  s->slot = decl->slot;
  s->slot2 = decl->slot2;
  s->name = e->u.call.fun.name;
  s->drop = is_lupdf (&e->u.call.fun);
  s->builtin = rt_builtin_lookup (e->u.call.fun.name, 3);
  s->else_s = (St *) decl;
  return s;
}

/* A tuple parameter's read takes its members' sizes from the declaration
 * it initialises (the read itself carries only the array sizes). */
static void
size_tuple_read (St *decl)
{
  if (decl->e && decl->e->fn == rt_ex_read_param && decl->e->tr && decl->sized)
    decl->e->psized = decl->sized;
  /* the read gives the declared shape: nothing to fill or check */
  if (decl->fn == rt_st_decl && decl->e && decl->e->fn == rt_ex_read_param)
    decl->fn = rt_st_decl_read;
}

static St *
compile_list (Compiler *c, const MirStmt *m, GPtrArray *stmts, gboolean scope, gboolean top)
{
  guint mark = c->scope->len;
  St *s = st_new (c, rt_st_block, m);
  int n = stmts ? (int) stmts->len : 0;
  s->body = tilde_arena_newv (c->arena, St *, MAX (n, 1));
  int mvn_at = -1;
  St *chol = NULL;
  for (int i = 0; i < n; i++)
    {
      const MirStmt *d = g_ptr_array_index (stmts, i);
      const MirStmt *a = i + 1 < n ? g_ptr_array_index (stmts, i + 1) : NULL;
      gboolean with_next = a && decl_then_assign (d, a);
      St *st = NULL;
      if (i == mvn_at)
        {
          st = compile_mvn_cov (c, d, chol);
          chol = NULL;
          mvn_at = -1;
        }
      else if (c->fused && !top && !chol && d->kind == MIR_STMT_DECL && d->u.decl.sized
               && d->u.decl.sized->kind == MIR_SIZED_MATRIX)
        {
          const MirExpr *k = chol_of (with_next ? a->u.assign.rhs
                                      : d->u.decl.init_kind == MIR_DECL_ASSIGN
                                      ? d->u.decl.init : NULL);
          int at = k ? mvn_of_factor (stmts, (guint) (with_next ? i + 1 : i), d->u.decl.name) : -1;
          if (at >= 0)
            {
              chol = compile_chol_decl (c, d, k);
              mvn_at = at;
              st = chol;
              i += with_next;
            }
        }
      if (!st)
        {
          st = compile_stmt (c, d, top);
          if (with_next)
            {
              st->e = compile_expr (c, a->u.assign.rhs);
              size_tuple_read (st);
              i++;
            }
        }
      s->body[s->n_body++] = st;
    }
  if (scope)
    g_array_set_size (c->scope, mark);
  return s;
}

static gboolean
is_read_data (const MirExpr *e)
{
  if (e->kind == MIR_EXPR_INDEXED)
    e = e->u.indexed.base;
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_COMPILER
    && e->u.call.fun.internal == MIR_FN_READ_DATA;
}

static const char *
read_data_name (const MirExpr *e)
{
  if (e->kind == MIR_EXPR_INDEXED)
    e = e->u.indexed.base;
  const MirExpr *lit = g_ptr_array_index (e->u.call.args, 0);
  return lit->u.lit.text;
}

static void
compile_lvalue (Compiler *c, St *s, const MirLvalue *lv)
{
  /* the levels from the variable out: x, x.2[i], x.2[i].1[j] */
  g_autoptr (GPtrArray) levels = g_ptr_array_new ();
  for (const MirLvalue *l = lv; l; l = l->proj_of)
    g_ptr_array_insert (levels, 0, (gpointer) l);
  const MirLvalue *root = g_ptr_array_index (levels, 0);
  const char *var = mir_lvalue_variable (lv);
  s->slot = var ? lookup (c, var, NULL) : -1;
  if (s->slot < 0)
    c_error (c, NULL, "unknown variable %s", var ? var : "(none)");
  int n = 0;
  for (guint k = 0; k < levels->len; k++)
    {
      const MirLvalue *l = g_ptr_array_index (levels, k);
      n += l->indices ? (int) l->indices->len : 0;
    }
  s->n_lv_index = n;
  s->lv_index = tilde_arena_newv (c->arena, Ex *, MAX (2 * n, 1));
  s->lv_kinds = tilde_arena_newv (c->arena, MirIndexKind, MAX (n, 1));
  if (levels->len > 1)
    {
      s->n_lv_levels = (int) levels->len;
      s->lv_proj = tilde_arena_newv (c->arena, int, levels->len);
      s->lv_count = tilde_arena_newv (c->arena, int, levels->len);
    }
  int i = 0;
  for (guint k = 0; k < levels->len; k++)
    {
      const MirLvalue *l = g_ptr_array_index (levels, k);
      int count = l->indices ? (int) l->indices->len : 0;
      if (s->lv_proj)
        {
          s->lv_proj[k] = l == root ? 0 : l->slot;
          s->lv_count[k] = count;
        }
      for (int j = 0; j < count; j++, i++)
        {
          const MirIndex *ix = g_ptr_array_index (l->indices, j);
          s->lv_kinds[i] = ix->kind;
          s->lv_index[2 * i] = ix->e ? compile_expr (c, ix->e) : NULL;
          s->lv_index[2 * i + 1] = ix->upper ? compile_expr (c, ix->upper) : NULL;
        }
    }
  s->name = var;
}

static St *
compile_nr_call (Compiler *c, const MirStmt *m)
{
  const MirFun *f = &m->u.call.fun;
  GPtrArray *args = m->u.call.args;
  St *s;
  if (f->kind == MIR_FUN_STANLIB && strcmp (f->name, "check_greater_or_equal") == 0
      && args && args->len == 4)
    {
      /* the lowering's check of a declaration's sizes (cholesky_factor_cov
       * L: rows >= columns), with its words as string literals */
      const MirExpr *what = g_ptr_array_index (args, 0), *which = g_ptr_array_index (args, 1);
      s = st_new (c, rt_st_check_greater_or_equal, m);
      s->name = what->kind == MIR_EXPR_LIT ? what->u.lit.text : "size";
      s->var_name = which->kind == MIR_EXPR_LIT ? which->u.lit.text : "";
      s->e = compile_expr (c, g_ptr_array_index (args, 2));
      s->e2 = compile_expr (c, g_ptr_array_index (args, 3));
      return s;
    }
  if (f->kind == MIR_FUN_STANLIB && strcmp (f->name, "check_matching_dims") == 0
      && args && args->len == 5)
    {
      /* the lowering's check that a container's bounds have its shape
       * ("constraint", "x", x, "lower", lb) */
      const MirExpr *fn = g_ptr_array_index (args, 0), *name = g_ptr_array_index (args, 1);
      const MirExpr *which = g_ptr_array_index (args, 3);
      g_autofree char *first = g_strdup_printf ("%s: %s",
                                                fn->kind == MIR_EXPR_LIT ? fn->u.lit.text : "",
                                                name->kind == MIR_EXPR_LIT ? name->u.lit.text : "");
      s = st_new (c, rt_st_check_matching_dims, m);
      s->name = tilde_arena_strdup (c->arena, first);
      s->var_name = which->kind == MIR_EXPR_LIT ? which->u.lit.text : "";
      s->e = compile_expr (c, g_ptr_array_index (args, 2));
      s->e2 = compile_expr (c, g_ptr_array_index (args, 4));
      return s;
    }
  if (f->kind != MIR_FUN_COMPILER)
    {
      /* a void library function: evaluate for its effects */
      MirExpr tmp = { .kind = MIR_EXPR_CALL, .type = tilde_type_void (), .span = m->span };
      tmp.u.call.fun = *f;
      tmp.u.call.args = args;
      s = st_new (c, rt_st_expr, m);
      s->e = compile_call (c, &tmp);
      return s;
    }
  switch (f->internal)
    {
    case MIR_FN_WRITE_PARAM:
      s = st_new (c, rt_st_write, m);
      s->e = compile_expr (c, f->data->var);
      s->tkind = f->data->trans ? f->data->trans->kind : MIR_TRANS_IDENTITY;
      s->target_jacobian = f->data->trans != NULL;   /* unconstrain */
      if (s->tkind == MIR_TRANS_TUPLE)
        s->tr = compile_transform (c, f->data->trans);
      else if (s->target_jacobian && s->tkind == MIR_TRANS_IDENTITY
               && (s->tr = identity_tuple_tr (c, f->data->var->type)))
        s->tkind = MIR_TRANS_TUPLE;
      else if (f->data->trans && f->data->trans->a)
        s->e2 = compile_expr (c, f->data->trans->a);
      if (f->data->trans && f->data->trans->b)
        {
          /* the second argument rides in then_s's expression */
          St *holder = st_new (c, rt_st_skip, m);
          holder->e = compile_expr (c, f->data->trans->b);
          s->then_s = holder;
        }
      return s;
    case MIR_FN_CHECK:
      s = st_new (c, rt_st_check, m);
      s->e = compile_expr (c, f->data->var);
      s->tkind = f->data->trans->kind;
      s->var_name = f->data->var_name;
      s->n_body = args ? (int) args->len : 0;
      if (s->n_body > 0)
        s->e2 = compile_expr (c, g_ptr_array_index (args, 0));
      if (s->n_body > 1)
        {
          St *holder = st_new (c, rt_st_skip, m);
          holder->e = compile_expr (c, g_ptr_array_index (args, 1));
          s->then_s = holder;
        }
      s->n_body = 0;
      return s;
    case MIR_FN_VALIDATE_SIZE:
    case MIR_FN_VALIDATE_SIZE_SIMPLEX:
    case MIR_FN_VALIDATE_SIZE_UNIT_VECTOR:
      s = st_new (c, rt_st_validate, m);
      s->name = ((const MirExpr *) g_ptr_array_index (args, 0))->u.lit.text;
      s->var_name = ((const MirExpr *) g_ptr_array_index (args, 1))->u.lit.text;
      s->e = compile_expr (c, g_ptr_array_index (args, 2));
      s->tkind = f->internal == MIR_FN_VALIDATE_SIZE ? MIR_TRANS_IDENTITY
        : f->internal == MIR_FN_VALIDATE_SIZE_SIMPLEX ? MIR_TRANS_SIMPLEX : MIR_TRANS_UNIT_VECTOR;
      return s;
    case MIR_FN_PRINT:
    case MIR_FN_REJECT:
    case MIR_FN_FATAL_ERROR:
      {
        s = st_new (c, f->internal == MIR_FN_PRINT ? rt_st_print : rt_st_reject, m);
        s->tkind = f->internal == MIR_FN_FATAL_ERROR ? 1 : 0;
        s->n_body = args ? (int) args->len : 0;
        s->body = tilde_arena_newv (c->arena, St *, MAX (s->n_body, 1));
        for (int i = 0; i < s->n_body; i++)
          {
            St *holder = st_new (c, rt_st_skip, m);
            holder->e = compile_expr (c, g_ptr_array_index (args, i));
            s->body[i] = holder;
          }
        return s;
      }
    default:
      c_error (c, NULL, "the internal statement %s is not supported", mir_internal_name (f->internal));
      return st_new (c, rt_st_skip, m);
    }
}

static St *
compile_stmt (Compiler *c, const MirStmt *m, gboolean top)
{
  St *s;
  switch (m->kind)
    {
    case MIR_STMT_DECL:
      {
        s = st_new (c, rt_st_decl, m);
        if (m->u.decl.sized)
          s->sized = rt_compile_sized (c, m->u.decl.sized, NULL);
        if (m->u.decl.init_kind == MIR_DECL_ASSIGN && m->u.decl.init)
          s->e = compile_expr (c, m->u.decl.init);
        size_tuple_read (s);
        s->slot = bind (c, m->u.decl.name);
        s->name = m->u.decl.name;
        if (top)
          {
            g_array_index (c->scope, Binding, c->scope->len - 1).global = TRUE;
            c->n_globals = c->n_slots;
          }
        g_ptr_array_set_size (c->slot_sized, c->n_slots);
        g_ptr_array_index (c->slot_sized, s->slot) = s->sized;
        return s;
      }
    case MIR_STMT_ASSIGN:
      if (is_read_data (m->u.assign.rhs))
        {
          s = st_new (c, rt_st_read_data, m);
          compile_lvalue (c, s, m->u.assign.lhs);
          s->var_name = read_data_name (m->u.assign.rhs);
          s->sized = s->slot >= 0 && (guint) s->slot < c->slot_sized->len
            ? g_ptr_array_index (c->slot_sized, s->slot) : NULL;
          if (!s->sized)
            c_error (c, m->u.assign.rhs, "cannot read %s: its size is unknown", s->var_name);
          return s;
        }
      s = st_new (c, rt_st_assign, m);
      s->e = compile_expr (c, m->u.assign.rhs);
      compile_lvalue (c, s, m->u.assign.lhs);
      return s;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      s = st_new (c, rt_st_target, m);
      s->target_jacobian = m->kind == MIR_STMT_JACOBIAN_PLUS;
      set_term_role (s, m);
      if (c->fused && !c->as_written && !s->target_jacobian
          && compile_fused_density (c, s, m->u.increment.expr, NULL))
        {
          /* the general form, as written, for what the fused one gives up on */
          s->fn = rt_st_target_fused;
          c->as_written++;
          s->e = compile_expr (c, m->u.increment.expr);
          c->as_written--;
        }
      else
        s->e = compile_expr (c, m->u.increment.expr);
      return s;
    case MIR_STMT_NR_CALL:
      return compile_nr_call (c, m);
    case MIR_STMT_BREAK:
      return st_new (c, rt_st_break, m);
    case MIR_STMT_CONTINUE:
      return st_new (c, rt_st_continue, m);
    case MIR_STMT_RETURN:
      if (m->u.ret.expr)
        {
          s = st_new (c, rt_st_return_value, m);
          s->e = compile_expr (c, m->u.ret.expr);
          return s;
        }
      return st_new (c, rt_st_return, m);
    case MIR_STMT_SKIP:
      return st_new (c, rt_st_skip, m);
    case MIR_STMT_IF:
      s = st_new (c, rt_st_if, m);
      s->e = compile_expr (c, m->u.if_stmt.cond);
      s->then_s = compile_stmt (c, m->u.if_stmt.then_stmt, FALSE);
      s->else_s = m->u.if_stmt.else_stmt ? compile_stmt (c, m->u.if_stmt.else_stmt, FALSE) : NULL;
      return s;
    case MIR_STMT_WHILE:
      s = st_new (c, rt_st_while, m);
      s->e = compile_expr (c, m->u.while_stmt.cond);
      s->then_s = compile_stmt (c, m->u.while_stmt.body, FALSE);
      return s;
    case MIR_STMT_FOR:
      {
        s = st_new (c, rt_st_for, m);
        s->e = compile_expr (c, m->u.for_stmt.lower);
        s->e2 = compile_expr (c, m->u.for_stmt.upper);
        guint mark = c->scope->len;
        s->slot = bind (c, m->u.for_stmt.var);
        s->then_s = compile_stmt (c, m->u.for_stmt.body, FALSE);
        g_array_set_size (c->scope, mark);
        St *v = c->fused ? compile_vector_loop (c, m, s) : NULL;
        if (!v && c->fused)
          v = compile_scalar_loop (c, m, s);
        if (!v && c->fused)
          v = compile_recurrence (c, m, s);
        return v ? v : s;
      }
    case MIR_STMT_PROFILE:
      return compile_list (c, m, m->u.profile.stmts, TRUE, FALSE);
    case MIR_STMT_BLOCK:
      return compile_list (c, m, m->u.block.stmts, TRUE, FALSE);
    case MIR_STMT_SLIST:
      return compile_list (c, m, m->u.block.stmts, FALSE, top);
    default:
      c_error (c, NULL, "unsupported statement");
      return st_new (c, rt_st_skip, m);
    }
}

gboolean
rt_compile_functions (Compiler *c, GPtrArray *functions, char **error)
{
  /* every signature first, so that bodies may call any function */
  GPtrArray *codes = g_ptr_array_new ();
  for (guint i = 0; functions && i < functions->len; i++)
    {
      const MirFunDef *def = g_ptr_array_index (functions, i);
      RtFunction *f = tilde_arena_new0 (c->arena, RtFunction);
      f->name = g_intern_string (def->name);
      f->return_type = def->return_type;
      f->is_density = def->suffix == MIR_SUFFIX_LPDF || def->suffix == MIR_SUFFIX_LPMF;
      f->has_terms = def->suffix == MIR_SUFFIX_TARGET;
      f->n_args = (int) def->args->len;
      f->arg_types = tilde_arena_newv (c->arena, const TildeType *, MAX (f->n_args, 1));
      for (int k = 0; k < f->n_args; k++)
        f->arg_types[k] = g_array_index (def->args, MirFunArg, k).type;
      f->defined = def->body != NULL;
      GPtrArray *overloads = g_hash_table_lookup (c->functions, f->name);
      if (!overloads)
        {
          overloads = g_ptr_array_new ();
          g_hash_table_insert (c->functions, (gpointer) f->name, overloads);
        }
      g_ptr_array_add (overloads, f);
      g_ptr_array_add (codes, f);
    }
  for (guint i = 0; i < codes->len; i++)
    {
      const MirFunDef *def = g_ptr_array_index (functions, i);
      RtFunction *f = g_ptr_array_index (codes, i);
      if (!def->body)
        continue;
      /* a frame of its own: arguments in the first slots */
      guint mark = c->scope->len;
      int saved = c->n_slots;
      c->n_slots = 0;
      c->hoist = FALSE;
      c->fun = def;
      for (guint k = 0; k < def->args->len; k++)
        bind (c, g_array_index (def->args, MirFunArg, k).name);
      f->body = compile_stmt (c, def->body, FALSE);
      c->fun = NULL;
      f->n_slots = c->n_slots;
      c->n_slots = saved;
      g_array_set_size (c->scope, mark);
    }
  g_ptr_array_unref (codes);
  if (c->error)
    {
      *error = g_strdup (c->error);
      return FALSE;
    }
  return TRUE;
}

St *
rt_compile_part (Compiler *c, GPtrArray *stmts, gboolean globals, gboolean hoist, char **error)
{
  guint mark = c->scope->len;
  c->hoist = hoist;
  St *s = compile_list (c, NULL, stmts, FALSE, globals);
  if (!globals)
    g_array_set_size (c->scope, mark);
  if (c->error)
    {
      *error = g_strdup (c->error);
      return NULL;
    }
  return s;
}
