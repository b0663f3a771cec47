/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/mir-terms.h"

#include <string.h>

/* The analysis is flow-insensitive and by name: each variable of a body has
 * one mask, the union over every assignment to it, solved by going over
 * the assignments until nothing grows. Names are unique enough for this:
 * Stan forbids shadowing, and two sibling scopes that use one name only
 * make the answer more cautious (more prior), the same at every level. */

#define BIT(i) (G_GUINT64_CONSTANT (1) << MIN ((guint) (i), 63u))

typedef struct {
  GHashTable *vars;        /* interned name -> guint64* */
} Body;

typedef struct {
  const MirFunDef *def;
  guint64          returns;   /* the arguments its value depends on */
  Body             body;
} Fn;

struct MirTermDeps {
  const MirProgram *program;
  GHashTable       *by_def;     /* MirFunDef* -> Fn* */
  GHashTable       *by_name;    /* interned "name/nargs" -> GPtrArray of Fn* (overloads) */
  Body              log_prob;
};

static void
body_init (Body *b)
{
  b->vars = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

static guint64
var_mask (const Body *b, const char *name)
{
  const guint64 *m = g_hash_table_lookup (b->vars, g_intern_string (name));
  return m ? *m : 0;
}

/* Adds `mask` to the variable's; TRUE when that grew it. */
static gboolean
var_join (Body *b, const char *name, guint64 mask)
{
  const char *key = g_intern_string (name);
  guint64 *m = g_hash_table_lookup (b->vars, key);

  if (!mask)
    return FALSE;
  if (!m)
    {
      m = g_new0 (guint64, 1);
      g_hash_table_insert (b->vars, (gpointer) key, m);
    }
  if ((*m | mask) == *m)
    return FALSE;
  *m |= mask;
  return TRUE;
}

/* foo_lupdf calls foo_lpdf */
static const char *
call_key (const char *name, guint nargs)
{
  gsize n = strlen (name);
  g_autofree char *key = NULL;

  if (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf"))
    key = g_strdup_printf ("%.*s_l%s/%u", (int) (n - 6), name, name + n - 3, nargs);
  else
    key = g_strdup_printf ("%s/%u", name, nargs);
  return g_intern_string (key);
}

static gboolean
is_size_query (const char *name)
{
  static const char *const sizes[] = { "size", "rows", "cols", "num_elements", "dims" };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (strcmp (name, sizes[i]) == 0)
      return TRUE;
  return FALSE;
}

typedef struct {
  MirTermDeps *deps;
  const Body  *body;
  guint64      mask;
} ExprScan;

static guint64 expr_deps (MirTermDeps *d, const Body *b, const MirExpr *e);

static void
join_child (MirExpr *e, gpointer data)
{
  ExprScan *scan = data;

  scan->mask |= expr_deps (scan->deps, scan->body, e);
}

static guint64
children_deps (MirTermDeps *d, const Body *b, const MirExpr *e)
{
  ExprScan scan = { d, b, 0 };

  mir_expr_foreach_child ((MirExpr *) e, join_child, &scan);
  return scan.mask;
}

static guint64
user_call_deps (MirTermDeps *d, const Body *b, const MirExpr *e)
{
  const GPtrArray *args = e->u.call.args;
  guint n = args ? args->len : 0;
  const GPtrArray *fns = g_hash_table_lookup (d->by_name, call_key (e->u.call.fun.name, n));
  guint64 uses = 0, mask = 0;

  if (!fns)
    return children_deps (d, b, e);
  for (guint k = 0; k < fns->len; k++)
    uses |= ((const Fn *) g_ptr_array_index (fns, k))->returns;
  for (guint i = 0; i < n; i++)
    if (uses & BIT (i))
      mask |= expr_deps (d, b, g_ptr_array_index (args, i));
  return mask;
}

static guint64
expr_deps (MirTermDeps *d, const Body *b, const MirExpr *e)
{
  if (!e)
    return 0;
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      return var_mask (b, e->u.var.name);
    case MIR_EXPR_LIT:
      return 0;
    case MIR_EXPR_CALL:
      switch (e->u.call.fun.kind)
        {
        case MIR_FUN_COMPILER:
          if (e->u.call.fun.internal == MIR_FN_READ_PARAM)
            return BIT (0);
          if (e->u.call.fun.internal == MIR_FN_LENGTH)
            return 0;
          break;
        case MIR_FUN_USER:
          return user_call_deps (d, b, e);
        case MIR_FUN_STANLIB:
          if (is_size_query (e->u.call.fun.name))
            return 0;
          break;
        }
      return children_deps (d, b, e);
    default:
      return children_deps (d, b, e);
    }
}

static guint64
lvalue_index_deps (MirTermDeps *d, const Body *b, const MirLvalue *l)
{
  guint64 mask = 0;

  for (; l; l = l->proj_of)
    for (guint i = 0; l->indices && i < l->indices->len; i++)
      {
        const MirIndex *ix = g_ptr_array_index (l->indices, i);
        mask |= expr_deps (d, b, ix->e) | expr_deps (d, b, ix->upper);
      }
  return mask;
}

typedef struct {
  MirTermDeps *deps;
  Body        *body;
  gboolean     grew;
  guint64      returns;
} Flow;

static void
flow_stmt (MirStmt *s, gpointer data)
{
  Flow *f = data;
  MirTermDeps *d = f->deps;
  Body *b = f->body;

  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      f->grew |= var_join (b, mir_lvalue_variable (s->u.assign.lhs),
                           expr_deps (d, b, s->u.assign.rhs)
                           | lvalue_index_deps (d, b, s->u.assign.lhs));
      break;
    case MIR_STMT_DECL:
      if (s->u.decl.init_kind == MIR_DECL_ASSIGN && s->u.decl.init)
        f->grew |= var_join (b, s->u.decl.name, expr_deps (d, b, s->u.decl.init));
      break;
    case MIR_STMT_FOR:
      f->grew |= var_join (b, s->u.for_stmt.var, expr_deps (d, b, s->u.for_stmt.lower)
                                                  | expr_deps (d, b, s->u.for_stmt.upper));
      break;
    case MIR_STMT_RETURN:
      f->returns |= expr_deps (d, b, s->u.ret.expr);
      break;
    default:
      break;
    }
  mir_stmt_foreach_child (s, flow_stmt, f);
}

/* Goes over the body until no variable grows; the arguments the return
 * values depend on. */
static guint64
solve_body (MirTermDeps *d, Body *b, GPtrArray *stmts, MirStmt *root)
{
  Flow f = { d, b, TRUE, 0 };

  while (f.grew)
    {
      f.grew = FALSE;
      f.returns = 0;
      for (guint i = 0; stmts && i < stmts->len; i++)
        flow_stmt (g_ptr_array_index (stmts, i), &f);
      if (root)
        flow_stmt (root, &f);
    }
  return f.returns;
}

static void
fn_free (gpointer p)
{
  Fn *fn = p;

  g_hash_table_unref (fn->body.vars);
  g_free (fn);
}

MirTermDeps *
mir_term_deps_new (const MirProgram *program)
{
  MirTermDeps *d = g_new0 (MirTermDeps, 1);
  gboolean changed = TRUE;

  d->program = program;
  d->by_def = g_hash_table_new_full (NULL, NULL, NULL, fn_free);
  d->by_name = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  body_init (&d->log_prob);
  for (guint i = 0; program->functions && i < program->functions->len; i++)
    {
      const MirFunDef *def = g_ptr_array_index (program->functions, i);
      guint n = def->args ? def->args->len : 0;
      const char *key = call_key (def->name, n);
      GPtrArray *list = g_hash_table_lookup (d->by_name, key);
      Fn *fn = g_new0 (Fn, 1);

      fn->def = def;
      body_init (&fn->body);
      for (guint k = 0; k < n; k++)
        var_join (&fn->body, g_array_index (def->args, MirFunArg, k).name, BIT (k));
      /* what an external function computes from is unknown: everything */
      if (!def->body)
        fn->returns = G_MAXUINT64;
      g_hash_table_insert (d->by_def, (gpointer) def, fn);
      if (!list)
        {
          list = g_ptr_array_new ();
          g_hash_table_insert (d->by_name, (gpointer) key, list);
        }
      g_ptr_array_add (list, fn);
    }
  /* the functions' summaries only grow: solved together to a fixed point
   * (recursion included) */
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; program->functions && i < program->functions->len; i++)
        {
          const MirFunDef *def = g_ptr_array_index (program->functions, i);
          Fn *fn = g_hash_table_lookup (d->by_def, def);
          guint64 returns;

          if (!def->body)
            continue;
          returns = solve_body (d, &fn->body, NULL, def->body);
          if ((fn->returns | returns) != fn->returns)
            {
              fn->returns |= returns;
              changed = TRUE;
            }
        }
    }
  for (guint i = 0; program->output_vars && i < program->output_vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (program->output_vars, i);
      if (v->block == MIR_OUT_PARAMETERS)
        var_join (&d->log_prob, v->name, BIT (0));
    }
  solve_body (d, &d->log_prob, program->parts[MIR_PART_LOG_PROB], NULL);
  return d;
}

void
mir_term_deps_free (MirTermDeps *d)
{
  if (!d)
    return;
  g_hash_table_unref (d->by_def);
  g_hash_table_unref (d->by_name);
  g_hash_table_unref (d->log_prob.vars);
  g_free (d);
}

static const Body *
body_of (MirTermDeps *d, const MirFunDef *fun)
{
  const Fn *fn = fun ? g_hash_table_lookup (d->by_def, fun) : NULL;

  return fn ? &fn->body : &d->log_prob;
}

guint64
mir_term_deps_of_expr (MirTermDeps *d, const MirFunDef *fun, const MirExpr *e)
{
  return expr_deps (d, body_of (d, fun), e);
}

/* ---- classification ---- */

static gboolean
is_density_name (const char *name)
{
  return g_str_has_suffix (name, "_lpdf") || g_str_has_suffix (name, "_lpmf")
    || g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf");
}

/* The variate of a density call: its first argument, or the sliced
 * argument of a reduce_sum over a density; NULL for anything else. */
static const MirExpr *
variate_of (const MirExpr *e)
{
  const MirFun *f;
  const GPtrArray *args;

  if (e->kind != MIR_EXPR_CALL)
    return NULL;
  f = &e->u.call.fun;
  args = e->u.call.args;
  if (!args || args->len == 0 || f->kind == MIR_FUN_COMPILER)
    return NULL;
  if (f->suffix == MIR_SUFFIX_LPDF || f->suffix == MIR_SUFFIX_LPMF)
    return g_ptr_array_index (args, 0);
  if (f->kind == MIR_FUN_STANLIB && args->len >= 2
      && (strcmp (f->name, "reduce_sum") == 0 || strcmp (f->name, "reduce_sum_static") == 0))
    {
      const MirExpr *fn = g_ptr_array_index (args, 0);
      if (fn->kind == MIR_EXPR_VAR && is_density_name (fn->u.var.name))
        return g_ptr_array_index (args, 1);
    }
  return NULL;
}

typedef struct {
  MirTermDeps *deps;
  const Body  *body;
  gboolean     any;        /* a density was found */
  gboolean     free;       /* one of them has a variate that depends on nothing */
  guint64      mask;       /* the union of the others' */
} Densities;

static void
find_densities (MirExpr *e, gpointer data)
{
  Densities *ds = data;
  const MirExpr *y = variate_of (e);

  if (y)
    {
      guint64 m = expr_deps (ds->deps, ds->body, y);
      ds->any = TRUE;
      ds->free |= m == 0;
      ds->mask |= m;
    }
  mir_expr_foreach_child (e, find_densities, data);
}

typedef struct {
  MirTermDeps *deps;
  const Body  *body;
  gboolean     in_function;
  gboolean     have_last;
  guint64      last;       /* the mask of the last `~` density */
} Classify;

static void
set_role (const Classify *k, MirStmt *s, guint64 mask)
{
  s->u.increment.role_args = 0;
  if (!mask)
    s->u.increment.role = MIR_TERM_LIKELIHOOD;
  else if (!k->in_function)
    s->u.increment.role = MIR_TERM_PRIOR;
  else
    {
      s->u.increment.role = MIR_TERM_BY_ARGUMENTS;
      s->u.increment.role_args = mask;
    }
}

static void
classify_stmt (MirStmt *s, gpointer data)
{
  Classify *k = data;

  if (s->kind == MIR_STMT_TARGET_PLUS)
    {
      MirExpr *e = s->u.increment.expr;
      const MirExpr *y = variate_of (e);
      if (y)
        {
          guint64 mask = expr_deps (k->deps, k->body, y);
          if (s->u.increment.from_tilde)
            {
              k->have_last = TRUE;
              k->last = mask;
            }
          set_role (k, s, mask);
        }
      else if (s->u.increment.from_tilde && k->have_last)
        set_role (k, s, k->last);
      else
        {
          Densities ds = { k->deps, k->body, FALSE, FALSE, 0 };
          find_densities (e, &ds);
          if (!ds.any)
            {
              s->u.increment.role = MIR_TERM_PRIOR;
              s->u.increment.role_args = 0;
            }
          else
            set_role (k, s, ds.free ? 0 : ds.mask);
        }
    }
  mir_stmt_foreach_child (s, classify_stmt, data);
}

void
mir_classify_terms (MirProgram *program)
{
  g_autoptr (MirTermDeps) d = mir_term_deps_new (program);
  GPtrArray *log_prob = program->parts[MIR_PART_LOG_PROB];
  Classify k = { d, &d->log_prob, FALSE, FALSE, 0 };

  for (guint i = 0; log_prob && i < log_prob->len; i++)
    classify_stmt (g_ptr_array_index (log_prob, i), &k);
  for (guint i = 0; program->functions && i < program->functions->len; i++)
    {
      const MirFunDef *def = g_ptr_array_index (program->functions, i);
      Classify kf = { d, body_of (d, def), TRUE, FALSE, 0 };
      if (def->body)
        classify_stmt (def->body, &kf);
    }
}

gboolean
mir_stmt_term_role (const MirStmt *s, MirTermRole *role, guint64 *args)
{
  MirTermRole r = MIR_TERM_PRIOR;
  guint64 a = 0;

  if (s->kind == MIR_STMT_TARGET_PLUS)
    {
      r = s->u.increment.role;
      a = s->u.increment.role_args;
    }
  else if (s->kind != MIR_STMT_JACOBIAN_PLUS)
    return FALSE;
  if (role)
    *role = r;
  if (args)
    *args = a;
  return TRUE;
}

const char *
mir_term_role_name (MirTermRole role)
{
  switch (role)
    {
    case MIR_TERM_PRIOR: return "prior";
    case MIR_TERM_LIKELIHOOD: return "likelihood";
    case MIR_TERM_BY_ARGUMENTS: return "by arguments";
    }
  return "prior";
}
