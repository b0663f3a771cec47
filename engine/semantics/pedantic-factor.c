/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * The factor graph of the log density, as stanc builds it: a factor for each
 * term of a `target +=` sum, each `~`, each call of an _lp function and each
 * reject; a factor touches the data and parameters its value or its
 * execution depends on (through local variables and transformed parameters,
 * and through the control flow around it: the MIR's dependence analysis,
 * asked through the flow). Scalar integer data are taken for sizes and left
 * out.
 *
 * A parameter that touches no factor is unused. stanc's prior of parameter
 * P is a neighbouring factor from which no data can be reached once P is
 * removed (here the factor's value must depend on P, and rejects and
 * Jacobian terms are never priors). That definition misfires in two ways,
 * which are fixed here:
 *
 *  - `x ~ normal(0, sigma)` is a prior of x, and to stanc also one of sigma,
 *    so sigma with a prior of its own has "2 priors". A factor whose variate
 *    holds a parameter is that parameter's own prior; when P has an own
 *    prior, factors where P is only a hyperparameter do not count.
 *  - `theta ~ beta(a, 1)` with `a` data, or with hyperparameters connected
 *    to data, is no prior to stanc. An own prior counts whatever its
 *    arguments are; only a variate holding real-valued data makes a factor
 *    part of the likelihood instead.
 *
 * Parameters without an own prior are judged by stanc's rule.
 */

#include "semantics/pedantic-private.h"

/* Element destructor for arrays of optional GArrays. */
static void
free_array (gpointer array)
{
  if (array)
    g_array_unref (array);
}

typedef enum {
  F_TERM,
  F_JACOBIAN,   /* a jacobian += term: part of a transform, never a prior */
  F_REJECT,
  F_LP,
} FactorKind;

typedef struct {
  FactorKind       kind;
  const TildeStmt *stmt;
  const TildeExpr *variate;       /* a density's variate, or NULL */
  GArray          *vars;          /* guint: data and parameters it touches */
  GArray          *value_vars;    /* guint: those its value depends on */
  GArray          *variate_vars;  /* guint: those its variate's value depends on */
} Factor;

typedef struct {
  Pedantic *P;
  GArray   *factors;     /* Factor */
  GPtrArray *var_map;    /* per variable: GArray of factor indices, or NULL */
  guint8   *is_size;     /* scalar int data */
  guint     n_vars;
  /* marks that need no clearing: x is marked when mark[x] == stamp */
  guint    *var_mark;
  guint    *factor_mark;
  guint     stamp;
} Graph;

static gboolean
graph_var (const PedVar *var)
{
  return var->kind == PED_VAR_PARAM || _ped_var_is_data (var);
}

static gboolean
integer_valued (const PedVar *var)
{
  const TildeSizedType *t = var->type;

  if (t && t->kind == TILDE_DECL_ARRAY)
    t = t->element;
  return t && t->kind == TILDE_DECL_INT;
}

static int
compare_indices (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

/* The data and parameters among `found` (PedVar*, repeats possible), as
 * sorted indices. */
static GArray *
graph_vars_of (Graph *g, const GPtrArray *found)
{
  GArray *vars = g_array_new (FALSE, FALSE, sizeof (guint));

  g->stamp++;
  for (guint i = 0; i < found->len; i++)
    {
      const PedVar *var = g_ptr_array_index (found, i);

      if (graph_var (var) && g->var_mark[var->index] != g->stamp)
        {
          g->var_mark[var->index] = g->stamp;
          g_array_append_val (vars, var->index);
        }
    }
  g_array_sort (vars, compare_indices);
  return vars;
}

static void
mark_expr (const TildeExpr *e, gpointer data)
{
  g_hash_table_add (data, (gpointer) e);
}

/* A factor touches what the values it reads (`direct`) depend on and what
 * decides whether `stmt` runs; its value, only the former; its variate,
 * what the variate's values depend on. */
static void
add_factor (Graph *g, FactorKind kind, const TildeStmt *stmt, const GArray *direct,
            const TildeExpr *variate)
{
  Factor f = { kind, stmt, variate, NULL, NULL, NULL };
  g_autoptr (GPtrArray) value = g_ptr_array_new ();
  g_autoptr (GPtrArray) of_variate = g_ptr_array_new ();
  g_autoptr (GHashTable) in_variate = NULL;

  if (variate)
    {
      in_variate = g_hash_table_new (NULL, NULL);
      _ped_expr_foreach (variate, mark_expr, in_variate);
    }
  for (guint u = 0; u < direct->len; u++)
    {
      const PedUse *use = &g_array_index (direct, PedUse, u);
      guint start = value->len;

      _ped_value_sources (g->P, use, value);
      if (in_variate && g_hash_table_contains (in_variate, use->expr))
        for (guint i = start; i < value->len; i++)
          g_ptr_array_add (of_variate, g_ptr_array_index (value, i));
    }
  f.value_vars = graph_vars_of (g, value);
  if (variate)
    f.variate_vars = graph_vars_of (g, of_variate);
  _ped_control_sources (g->P, stmt, value);
  f.vars = graph_vars_of (g, value);
  g_array_append_val (g->factors, f);
}

/* The variate of a density call foo_lpdf(y | ...), or NULL. */
static const TildeExpr *
density_variate (const TildeExpr *e)
{
  e = _ped_strip_parens (e);
  if ((e->kind == TILDE_EXPR_CALL || e->kind == TILDE_EXPR_COND_CALL) && e->u.call.n_args > 0
      && _ped_density_family (e->u.call.name.name, NULL))
    return e->u.call.args[0];
  return NULL;
}

static void
add_terms (Graph *g, FactorKind kind, const TildeStmt *stmt, const TildeExpr *e)
{
  g_autoptr(GArray) uses = NULL;

  e = _ped_strip_parens (e);
  if (e == NULL)
    return;
  if (e->kind == TILDE_EXPR_BINARY && e->u.binary.op == TILDE_OP_PLUS)
    {
      add_terms (g, kind, stmt, e->u.binary.lhs);
      add_terms (g, kind, stmt, e->u.binary.rhs);
      return;
    }
  uses = g_array_new (FALSE, FALSE, sizeof (PedUse));
  _ped_expr_uses (g->P, e, uses);
  add_factor (g, kind, stmt, uses, kind == F_TERM ? density_variate (e) : NULL);
}

/* The uses of everything a statement evaluates. */
static GArray *
stmt_uses (Graph *g, const TildeStmt *s)
{
  g_autoptr (GPtrArray) exprs = g_ptr_array_new ();
  GArray *uses = g_array_new (FALSE, FALSE, sizeof (PedUse));

  _ped_stmt_exprs (s, exprs);
  for (guint k = 0; k < exprs->len; k++)
    _ped_expr_uses (g->P, g_ptr_array_index (exprs, k), uses);
  return uses;
}

static void
extract_factor (TildeStmt *s, gpointer data)
{
  Graph *g = data;
  g_autoptr(GArray) uses = NULL;

  switch (s->kind)
    {
    case TILDE_STMT_TARGET_PLUS:
      add_terms (g, F_TERM, s, s->u.increment.expr);
      break;
    case TILDE_STMT_JACOBIAN_PLUS:
      add_terms (g, F_JACOBIAN, s, s->u.increment.expr);
      break;
    case TILDE_STMT_TILDE:
      uses = stmt_uses (g, s);
      add_factor (g, F_TERM, s, uses, s->u.tilde.arg);
      break;
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      uses = g_array_new (FALSE, FALSE, sizeof (PedUse));
      add_factor (g, F_REJECT, s, uses, NULL);
      break;
    case TILDE_STMT_CALL:
      if (g_str_has_suffix (s->u.call.name.name, "_lp"))
        {
          uses = stmt_uses (g, s);
          add_factor (g, F_LP, s, uses, NULL);
        }
      break;
    default:
      break;
    }
}

static void
build_var_map (Graph *g)
{
  g_ptr_array_set_size (g->var_map, g->n_vars);
  for (guint f = 0; f < g->factors->len; f++)
    {
      const Factor *factor = &g_array_index (g->factors, Factor, f);

      for (guint k = 0; k < factor->vars->len; k++)
        {
          guint v = g_array_index (factor->vars, guint, k);
          GArray *list = g_ptr_array_index (g->var_map, v);

          if (list == NULL)
            {
              list = g_array_new (FALSE, FALSE, sizeof (guint));
              g_ptr_array_index (g->var_map, v) = list;
            }
          g_array_append_val (list, f);
        }
    }
}

static gboolean
in_list (const GArray *list, guint v)
{
  for (guint i = 0; list && i < list->len; i++)
    if (g_array_index (list, guint, i) == v)
      return TRUE;
  return FALSE;
}

static gboolean
is_goal (Graph *g, guint v)
{
  return _ped_var_is_data (g_ptr_array_index (g->P->vars, v)) && !g->is_size[v];
}

/* Whether data can be reached from factor f without passing through p. */
static gboolean
reaches_data (Graph *g, const Factor *f, guint p)
{
  g_autoptr(GArray) queue = g_array_new (FALSE, FALSE, sizeof (guint));

  g->stamp++;
  g_array_append_vals (queue, f->vars->data, f->vars->len);
  while (queue->len > 0)
    {
      guint v = g_array_index (queue, guint, queue->len - 1);
      const GArray *facs;

      g_array_set_size (queue, queue->len - 1);
      if (v == p || g->is_size[v] || g->var_mark[v] == g->stamp)
        continue;
      g->var_mark[v] = g->stamp;
      if (is_goal (g, v))
        return TRUE;
      facs = g_ptr_array_index (g->var_map, v);
      for (guint k = 0; facs && k < facs->len; k++)
        {
          guint n = g_array_index (facs, guint, k);
          const Factor *next = &g_array_index (g->factors, Factor, n);

          if (g->factor_mark[n] == g->stamp)
            continue;
          g->factor_mark[n] = g->stamp;
          g_array_append_vals (queue, next->vars->data, next->vars->len);
        }
    }
  return FALSE;
}

/* The variate holds p and no real-valued data. */
static gboolean
is_own_prior (Graph *g, const Factor *f, guint p)
{
  if (f->variate == NULL || !in_list (f->variate_vars, p))
    return FALSE;
  for (guint k = 0; k < f->variate_vars->len; k++)
    {
      const PedVar *var = g_ptr_array_index (g->P->vars, g_array_index (f->variate_vars, guint, k));

      if (_ped_var_is_data (var) && !integer_valued (var))
        return FALSE;
    }
  return TRUE;
}

static int
count_priors (Graph *g, guint p, const GArray *facs)
{
  int own = 0, other = 0;

  for (guint k = 0; k < facs->len; k++)
    if (is_own_prior (g, &g_array_index (g->factors, Factor, g_array_index (facs, guint, k)), p))
      own++;
  for (guint k = 0; k < facs->len; k++)
    {
      const Factor *f = &g_array_index (g->factors, Factor, g_array_index (facs, guint, k));

      /* Rejects and Jacobian terms are no priors, nor is a term that p
       * only decides whether to run; with an own prior, hyperparameter
       * roles do not count either. */
      if (f->kind == F_REJECT || f->kind == F_JACOBIAN || !in_list (f->value_vars, p)
          || (own > 0 && f->variate))
        continue;
      if (!reaches_data (g, f, p))
        other++;
    }
  return own + other;
}

static void
report (Graph *g)
{
  for (guint v = 0; v < g->n_vars; v++)
    {
      const PedVar *var = g_ptr_array_index (g->P->vars, v);
      const GArray *facs = g_ptr_array_index (g->var_map, v);
      int n;

      if (var->kind != PED_VAR_PARAM || var->silent)
        continue;
      if (facs == NULL)
        {
          _ped_warn (g->P, NULL, "The parameter %s was declared but was not used in the "
                     "density calculation.", var->name);
          continue;
        }
      n = count_priors (g, v, facs);
      if (n == 0)
        _ped_warn (g->P, NULL, "The parameter %s has no priors. This means either no prior is "
                   "provided, or the prior(s) depend on data variables. In the later case, "
                   "this may be a false positive.", var->name);
      else if (n > 1)
        _ped_warn (g->P, NULL, "The parameter %s has %d priors.", var->name, n);
    }
}

void
_ped_check_factor_graph (Pedantic *P)
{
  Graph g = { P, g_array_new (FALSE, FALSE, sizeof (Factor)),
              g_ptr_array_new_with_free_func (free_array),
              NULL, P->vars->len };

  g.is_size = g_new0 (guint8, MAX (g.n_vars, 1));
  g.var_mark = g_new0 (guint, MAX (g.n_vars, 1));
  for (guint v = 0; v < g.n_vars; v++)
    {
      const PedVar *var = g_ptr_array_index (P->vars, v);

      g.is_size[v] = var->kind == PED_VAR_DATA && var->is_int;
    }
  _ped_foreach_model_stmt (P, extract_factor, &g);
  g.factor_mark = g_new0 (guint, MAX (g.factors->len, 1));
  build_var_map (&g);
  report (&g);
  for (guint f = 0; f < g.factors->len; f++)
    {
      Factor *factor = &g_array_index (g.factors, Factor, f);

      g_array_unref (factor->vars);
      g_array_unref (factor->value_vars);
      if (factor->variate_vars)
        g_array_unref (factor->variate_vars);
    }
  g_array_unref (g.factors);
  g_ptr_array_unref (g.var_map);
  g_free (g.is_size);
  g_free (g.var_mark);
  g_free (g.factor_mark);
}
