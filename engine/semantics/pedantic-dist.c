/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

/*
 * Distribution checks of pedantic mode: arguments and variates that the
 * declared constraints (or a known value) put outside what the distribution
 * allows, uniform priors, lkj_corr, small equal gamma/inv_gamma arguments,
 * and constants far from unit scale.
 *
 * Like stanc, only the distributions of `~` statements and of the _lupdf /
 * _lupmf functions are looked at, and only arguments that are a parameter
 * (by name) or a number: an indexed parameter or any other expression says
 * nothing. The table of what each argument must be is stanc's, following
 * the Stan Functions Reference.
 */

#include "semantics/pedantic-private.h"
#include "semantics/library/library.h"

#include <math.h>

typedef enum {
  C_NONE,
  C_UNIT,
  C_UNIT_OPEN,
  C_POSITIVE,
  C_NONNEGATIVE,
  C_SIMPLEX,
  C_ORDERED,
  C_CORRELATION,
  C_CHOLESKY_CORR,
  C_COVARIANCE,
  C_CHOLESKY_COV,
} Constraint;

typedef struct {
  const char  *name;           /* as the messages say it */
  gboolean     has_lower, lower_inclusive;
  double       lower;
  gboolean     has_upper, upper_inclusive;
  double       upper;
  PedTransKind accepts[2];     /* for the constraints that are not ranges */
} ConstraintInfo;

#define RANGE(name, hl, li, lo, hu, ui, up) { name, hl, li, lo, hu, ui, up, { 0, 0 } }
#define SHAPE(name, a, b) { name, FALSE, FALSE, 0, FALSE, FALSE, 0, { a, b } }

static const ConstraintInfo constraints[] = {
  [C_UNIT] = RANGE ("[0,1]", TRUE, TRUE, 0, TRUE, TRUE, 1),
  [C_UNIT_OPEN] = RANGE ("(0,1)", TRUE, FALSE, 0, TRUE, FALSE, 1),
  [C_POSITIVE] = RANGE ("strictly positive", TRUE, FALSE, 0, FALSE, FALSE, 0),
  [C_NONNEGATIVE] = RANGE ("non-negative", TRUE, TRUE, 0, FALSE, FALSE, 0),
  [C_SIMPLEX] = SHAPE ("simplex", PED_TRANS_SIMPLEX, PED_TRANS_SIMPLEX),
  [C_ORDERED] = SHAPE ("ordered", PED_TRANS_ORDERED, PED_TRANS_ORDERED),
  [C_CORRELATION] = SHAPE ("correlation", PED_TRANS_CORRELATION, PED_TRANS_CORRELATION),
  [C_CHOLESKY_CORR] = SHAPE ("Cholesky factor of correlation", PED_TRANS_CHOLESKY_CORR,
                             PED_TRANS_CHOLESKY_CORR),
  [C_COVARIANCE] = SHAPE ("covariance", PED_TRANS_COVARIANCE, PED_TRANS_CORRELATION),
  [C_CHOLESKY_COV] = SHAPE ("Cholesky factor of covariance", PED_TRANS_CHOLESKY_COV,
                            PED_TRANS_CHOLESKY_CORR),
};

static gboolean
is_range (Constraint c)
{
  return constraints[c].has_lower || constraints[c].has_upper;
}

/* One argument's requirement; argument 0 is the variate. */
typedef struct {
  int         arg;
  Constraint  constraint;
  const char *role;
} Rule;

enum {
  D_UNIFORM = 1 << 0,
  D_LKJ_CORR = 1 << 1,
  D_GAMMA = 1 << 2,
};

typedef struct {
  const char *family;
  guint       flags;
  Rule        rules[4];
} DistRules;

#define SCALE "a scale parameter"
#define SCALE_MATRIX "a scale matrix"
#define INV_SCALE "an inverse scale parameter"
#define SHAPE_PARAM "a shape parameter"
#define DOF "degrees of freedom"
#define COV_MATRIX "a covariance matrix"
#define OVERDISPERSION "an inverse overdispersion control parameter"
#define VARIATE(c) { 0, c, NULL }

static const DistRules table[] = {
  { "bernoulli", 0, { { 1, C_UNIT, "chance of success" } } },
  { "binomial", 0, { { 2, C_UNIT, "chance of success" } } },
  { "beta_binomial", 0, { { 2, C_POSITIVE, "a prior success count" },
                          { 3, C_POSITIVE, "a prior failure count" } } },
  { "categorical", 0, { { 1, C_SIMPLEX, "a vector of outcome probabilities" } } },
  { "ordered_logistic", 0, { { 2, C_ORDERED, "cutpoints" } } },
  { "ordered_probit", 0, { { 2, C_ORDERED, "cutpoints" } } },
  { "neg_binomial", 0, { { 1, C_POSITIVE, SHAPE_PARAM }, { 2, C_POSITIVE, INV_SCALE } } },
  { "neg_binomial_2", 0, { { 1, C_POSITIVE, SHAPE_PARAM },
                           { 2, C_POSITIVE, "a precision parameter" } } },
  { "neg_binomial_2_log", 0, { { 2, C_POSITIVE, OVERDISPERSION } } },
  { "neg_binomial_2_log_glm", 0, { { 4, C_POSITIVE, OVERDISPERSION } } },
  { "poisson", 0, { { 1, C_POSITIVE, "a rate parameter" } } },
  { "multinomial", 0, { { 1, C_SIMPLEX, "a distribution parameter" } } },
  { "normal", 0, { { 2, C_POSITIVE, SCALE } } },
  { "normal_id_glm", 0, { { 4, C_POSITIVE, SCALE } } },
  { "exp_mod_normal", 0, { { 2, C_POSITIVE, SCALE }, { 3, C_POSITIVE, SHAPE_PARAM } } },
  { "skew_normal", 0, { { 2, C_POSITIVE, SCALE } } },
  { "student_t", 0, { { 1, C_POSITIVE, DOF }, { 3, C_POSITIVE, SCALE } } },
  { "cauchy", 0, { { 2, C_POSITIVE, SCALE } } },
  { "double_exponential", 0, { { 2, C_POSITIVE, SCALE } } },
  { "logistic", 0, { { 2, C_POSITIVE, SCALE } } },
  { "gumbel", 0, { { 2, C_POSITIVE, SCALE } } },
  { "lognormal", 0, { VARIATE (C_POSITIVE), { 2, C_POSITIVE, SCALE } } },
  { "chi_square", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, DOF } } },
  { "inv_chi_square", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, DOF } } },
  { "scaled_inv_chi_square", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, DOF },
                                  { 2, C_POSITIVE, SCALE } } },
  { "exponential", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, SCALE } } },
  { "gamma", D_GAMMA, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, SHAPE_PARAM },
                        { 2, C_POSITIVE, INV_SCALE } } },
  { "inv_gamma", D_GAMMA, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, SHAPE_PARAM },
                            { 2, C_POSITIVE, SCALE } } },
  { "weibull", 0, { VARIATE (C_NONNEGATIVE), { 1, C_POSITIVE, SHAPE_PARAM },
                    { 2, C_POSITIVE, SCALE } } },
  { "frechet", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, SHAPE_PARAM },
                    { 2, C_POSITIVE, SCALE } } },
  { "rayleigh", 0, { VARIATE (C_NONNEGATIVE), { 1, C_POSITIVE, SCALE } } },
  { "wiener", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, "a boundary separation parameter" },
                   { 2, C_POSITIVE, "a non-decision time parameter" },
                   { 3, C_UNIT, "an a-priori bias parameter" } } },
  { "pareto", 0, { VARIATE (C_POSITIVE), { 1, C_POSITIVE, "a positive minimum parameter" },
                   { 2, C_POSITIVE, SHAPE_PARAM } } },
  { "pareto_type_2", 0, { { 2, C_POSITIVE, SCALE }, { 3, C_POSITIVE, SHAPE_PARAM } } },
  { "beta", 0, { VARIATE (C_UNIT_OPEN), { 1, C_POSITIVE, "a count parameter" },
                 { 2, C_POSITIVE, "a count parameter" } } },
  { "beta_proportion", 0, { VARIATE (C_UNIT_OPEN), { 1, C_UNIT_OPEN, "a unit mean parameter" },
                            { 2, C_POSITIVE, "a precision parameter" } } },
  { "von_mises", 0, { { 2, C_POSITIVE, SCALE } } },
  { "uniform", D_UNIFORM, { { 0 } } },
  { "multi_normal", 0, { { 2, C_COVARIANCE, COV_MATRIX } } },
  { "multi_normal_prec", 0, { { 2, C_COVARIANCE, "a precision matrix" } } },
  { "multi_normal_cholesky", 0, { { 2, C_CHOLESKY_COV, COV_MATRIX } } },
  { "multi_gp", 0, { { 1, C_COVARIANCE, "a kernel matrix" } } },
  { "multi_gp_cholesky", 0, { { 1, C_CHOLESKY_COV, "Cholesky factor of the kernel matrix" } } },
  { "multi_student_t", 0, { { 1, C_POSITIVE, DOF }, { 3, C_COVARIANCE, SCALE_MATRIX } } },
  { "multi_student_t_cholesky", 0, { { 1, C_POSITIVE, DOF },
                                     { 3, C_CHOLESKY_COV, COV_MATRIX } } },
  { "gaussian_dlm_obs", 0, { { 3, C_COVARIANCE, "observation covariance matrix" },
                             { 4, C_COVARIANCE, "system covariance matrix" } } },
  { "dirichlet", 0, { VARIATE (C_SIMPLEX), { 1, C_POSITIVE, "a count parameter" } } },
  { "lkj_corr", D_LKJ_CORR, { VARIATE (C_CORRELATION), { 1, C_POSITIVE, SHAPE_PARAM } } },
  { "lkj_corr_cholesky", 0, { VARIATE (C_CHOLESKY_CORR), { 1, C_POSITIVE, SHAPE_PARAM } } },
  { "wishart", 0, { VARIATE (C_COVARIANCE), { 1, C_POSITIVE, DOF },
                    { 2, C_COVARIANCE, SCALE_MATRIX } } },
  { "wishart_cholesky", 0, { VARIATE (C_CHOLESKY_COV), { 1, C_POSITIVE, DOF },
                             { 2, C_CHOLESKY_COV, SCALE_MATRIX } } },
  { "inv_wishart", 0, { VARIATE (C_COVARIANCE), { 1, C_POSITIVE, DOF },
                        { 2, C_COVARIANCE, SCALE_MATRIX } } },
  { "inv_wishart_cholesky", 0, { VARIATE (C_CHOLESKY_COV), { 1, C_POSITIVE, DOF },
                                 { 2, C_CHOLESKY_COV, SCALE_MATRIX } } },
};

/* A distribution as it occurs: its family, where, and what its arguments
 * are known to be (args[0] is the variate). */
typedef struct {
  const char *family;
  TildeSpan   span;
  PedValue   *args;
  int         n_args;
} Dist;

static const DistRules *
rules_of (const char *family)
{
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (g_str_equal (table[i].family, family))
      return &table[i];
  return NULL;
}

/* ---- constraint mismatches ---- */

/* Declared bounds that do not rule out values outside the range. */
static gboolean
bounds_out_of_range (const ConstraintInfo *c, const PedTransform *t)
{
  if (c->has_lower && t->lower.kind == PED_BOUND_NONE)
    return TRUE;
  if (c->has_upper && t->upper.kind == PED_BOUND_NONE)
    return TRUE;
  if (c->has_lower && t->lower.kind == PED_BOUND_LIT && t->lower.value < c->lower)
    return TRUE;
  return c->has_upper && t->upper.kind == PED_BOUND_LIT && t->upper.value > c->upper;
}

static gboolean
transform_mismatch (Constraint c, const PedVar *var)
{
  PedTransform t;

  _ped_transform (var, &t);
  if (is_range (c))
    return bounds_out_of_range (&constraints[c], &t);
  return t.kind != constraints[c].accepts[0] && t.kind != constraints[c].accepts[1];
}

static gboolean
value_out_of_range (Constraint c, double v)
{
  const ConstraintInfo *info = &constraints[c];

  if (!is_range (c))
    return FALSE;
  if (info->has_lower && (info->lower_inclusive ? v < info->lower : v <= info->lower))
    return TRUE;
  return info->has_upper && (info->upper_inclusive ? v > info->upper : v >= info->upper);
}

static void
check_rule (Pedantic *P, const Dist *d, const Rule *rule)
{
  const PedValue *v;
  const char *cname = constraints[rule->constraint].name;

  if (rule->arg >= d->n_args)
    return;
  v = &d->args[rule->arg];
  if (v->kind == PED_VALUE_PARAM && !v->var->silent
      && transform_mismatch (rule->constraint, v->var))
    {
      if (rule->arg == 0)
        _ped_warn (P, &v->span, "Parameter %s is given a %s distribution, which has %s "
                   "support, but %s was not constrained to be %s.",
                   v->var->name, d->family, cname, v->var->name, cname);
      else
        _ped_warn (P, &v->span, "A %s distribution is given parameter %s as %s (argument %d), "
                   "but %s was not constrained to be %s.", d->family, v->var->name,
                   rule->role, rule->arg, v->var->name, cname);
    }
  else if (v->kind == PED_VALUE_NUMBER && value_out_of_range (rule->constraint, v->number.value))
    {
      const char *num = v->number.text;

      if (rule->arg == 0)
        _ped_warn (P, &v->span, "Value %s is given a %s distribution, which has %s support, "
                   "but %s is not %s.", num, d->family, cname, num, cname);
      else
        _ped_warn (P, &v->span, "A %s distribution is given value %s as %s (argument %d), "
                   "but %s is not %s.", d->family, num, rule->role, rule->arg, rule->role,
                   cname);
    }
}

/* ---- particular distributions ---- */

static void
check_uniform (Pedantic *P, const Dist *d)
{
  const PedValue *x, *lo, *hi;
  PedTransform t;
  gboolean warn;

  if (d->n_args < 3 || d->args[0].kind != PED_VALUE_PARAM || d->args[0].var->silent)
    return;
  x = &d->args[0];
  lo = &d->args[1];
  hi = &d->args[2];
  _ped_transform (x->var, &t);
  if (t.lower.kind == PED_BOUND_NONE || t.upper.kind == PED_BOUND_NONE)
    warn = TRUE;
  else if (lo->kind == PED_VALUE_NUMBER && t.lower.kind == PED_BOUND_LIT)
    warn = lo->number.value != t.lower.value;
  else if (hi->kind == PED_VALUE_NUMBER && t.upper.kind == PED_BOUND_LIT)
    warn = hi->number.value != t.upper.value;
  else
    warn = FALSE;
  if (warn)
    _ped_warn (P, &d->span, "Parameter %s is given a uniform distribution. The uniform "
               "distribution is not recommended, for two reasons: (a) Except when there are "
               "logical or physical constraints, it is very unusual for you to be sure that a "
               "parameter will fall inside a specified range, and (b) The infinite gradient "
               "induced by a uniform density can cause difficulties for Stan's sampling "
               "algorithm. As a consequence, we recommend soft constraints rather than hard "
               "constraints; for example, instead of giving an elasticity parameter a "
               "uniform(0,1) distribution, try normal(0.5,0.5).", x->var->name);
}

static void
check_gamma (Pedantic *P, const Dist *d)
{
  const PedValue *a, *b;

  if (d->n_args != 3)
    return;
  a = &d->args[1];
  b = &d->args[2];
  if (a->kind == PED_VALUE_NUMBER && b->kind == PED_VALUE_NUMBER
      && a->number.value == b->number.value && a->number.value < 1)
    _ped_warn (P, &a->span, "There is a gamma or inverse-gamma distribution with parameters "
               "that are equal to each other and set to values less than 1. This is "
               "mathematically acceptable and can make sense in some problems, but typically "
               "we see this model used as an attempt to assign a noninformative prior "
               "distribution. In fact, priors such as inverse-gamma(.001,.001) can be very "
               "strong, as explained by Gelman (2006). Instead we recommend something like a "
               "normal(0,1) or student_t(4,0,1), with parameter constrained to be positive.");
}

/* Numbers of magnitude below 0.1 or above 10 (zero aside). */
static void
check_unscaled (Pedantic *P, const Dist *d)
{
  for (int i = 0; i < d->n_args; i++)
    {
      const PedValue *v = &d->args[i];
      double mag = fabs (v->number.value);

      if (v->kind == PED_VALUE_NUMBER && mag != 0 && (mag < 0.1 || mag > 10))
        _ped_warn (P, &v->span, "Argument %s suggests there may be parameters that are not "
                   "unit scale; consider rescaling with a multiplier (see manual section "
                   "22.12).", v->number.text);
    }
}

static void
check_dist (Pedantic *P, const Dist *d)
{
  const DistRules *rules = rules_of (d->family);

  check_unscaled (P, d);
  if (rules == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (rules->rules); i++)
    if (rules->rules[i].constraint != C_NONE)
      check_rule (P, d, &rules->rules[i]);
  if (rules->flags & D_UNIFORM)
    check_uniform (P, d);
  if (rules->flags & D_GAMMA)
    check_gamma (P, d);
  if (rules->flags & D_LKJ_CORR)
    _ped_warn (P, &d->span, "It is suggested to reparameterize your model to replace lkj_corr "
               "with lkj_corr_cholesky, the Cholesky factor variant. lkj_corr tends to run "
               "slower, consume more memory, and has higher risk of numerical errors.");
}

/* ---- finding distributions ---- */

static void
check_occurrence (Pedantic *P, const char *family, const TildeSpan *span,
                  TildeExpr *const *args, int n_args, const TildeExpr *variate)
{
  Dist d = { family, *span, NULL, 0 };
  int k = 0;

  d.n_args = n_args + (variate ? 1 : 0);
  d.args = g_new0 (PedValue, MAX (d.n_args, 1));
  if (variate)
    _ped_value (P, variate, &d.args[k++]);
  for (int i = 0; i < n_args; i++)
    _ped_value (P, args[i], &d.args[k++]);
  check_dist (P, &d);
  for (int i = 0; i < d.n_args; i++)
    _ped_value_clear (&d.args[i]);
  g_free (d.args);
}

/* What to do with each distribution found: check it, or note the variables
 * whose values checking it looks up. */
typedef struct {
  Pedantic   *P;
  GHashTable *seen;     /* NULL: check */
  GPtrArray  *names;
} Scan;

static void
found (Scan *scan, const char *family, const TildeSpan *span, TildeExpr *const *args,
       int n_args, const TildeExpr *variate)
{
  if (scan->seen == NULL)
    {
      check_occurrence (scan->P, family, span, args, n_args, variate);
      return;
    }
  if (variate)
    _ped_value_variables (scan->P, variate, scan->seen, scan->names);
  for (int i = 0; i < n_args; i++)
    _ped_value_variables (scan->P, args[i], scan->seen, scan->names);
}

/* Calls of built-in foo_lupdf / foo_lupmf. */
static void
scan_call (const TildeExpr *e, gpointer data)
{
  Scan *scan = data;
  gboolean unnormalized = FALSE;
  const char *family;

  if ((e->kind != TILDE_EXPR_CALL && e->kind != TILDE_EXPR_COND_CALL) || e->u.call.decl)
    return;
  family = _ped_density_family (e->u.call.name.name, &unnormalized);
  if (family && unnormalized && tilde_library_is_distribution (family))
    found (scan, family, &e->span, e->u.call.args, e->u.call.n_args, NULL);
}

static void
scan_stmt (TildeStmt *s, gpointer data)
{
  Scan *scan = data;
  g_autoptr (GPtrArray) exprs = g_ptr_array_new ();

  if (s->kind == TILDE_STMT_TILDE && s->u.tilde.decl == NULL && s->u.tilde.distribution.name
      && tilde_library_is_distribution (s->u.tilde.distribution.name))
    found (scan, s->u.tilde.distribution.name, &s->span, s->u.tilde.args, s->u.tilde.n_args,
           s->u.tilde.arg);
  _ped_stmt_exprs (s, exprs);
  for (guint k = 0; k < exprs->len; k++)
    _ped_expr_foreach (g_ptr_array_index (exprs, k), scan_call, scan);
}

static void
scan_program (Pedantic *P, Scan *scan)
{
  g_autoptr (GPtrArray) funs = _ped_function_definitions (P);

  _ped_foreach_model_stmt (P, scan_stmt, scan);
  for (guint i = 0; i < funs->len; i++)
    _ped_foreach_function_stmt (g_ptr_array_index (funs, i), scan_stmt, scan);
}

void
_ped_check_distributions (Pedantic *P)
{
  Scan scan = { P, NULL, NULL };

  scan_program (P, &scan);
}

/* The statements that may give a variable a whole value: name -> GPtrArray
 * of TildeStmt*. */
static void
add_definition (GHashTable *defs, const char *name, TildeStmt *s)
{
  GPtrArray *list = g_hash_table_lookup (defs, name);

  if (list == NULL)
    {
      list = g_ptr_array_new ();
      g_hash_table_insert (defs, (gpointer) name, list);
    }
  g_ptr_array_add (list, s);
}

static void
note_definitions (TildeStmt *s, gpointer data)
{
  GHashTable *d = data;
  const TildeExpr *lhs;

  if (s->kind == TILDE_STMT_VAR_DECL)
    for (int i = 0; i < s->u.var_decl.n_items; i++)
      add_definition (d, s->u.var_decl.items[i].ident.name, s);
  else if (s->kind == TILDE_STMT_ASSIGN && s->u.assign.op == TILDE_ASSIGN_PLAIN
           && (lhs = _ped_strip_parens (s->u.assign.lhs))->kind == TILDE_EXPR_VARIABLE)
    add_definition (d, lhs->u.variable.name, s);
}

/* The variables read by distribution arguments, and those read by whatever
 * may be assigned to these, and so on: what _ped_value may look up. */
void
_ped_track_distribution_values (Pedantic *P)
{
  g_autoptr (GHashTable) seen = NULL;
  g_autoptr (GHashTable) defs = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GPtrArray) funs = NULL;
  Scan scan = { P, NULL, NULL };

  if (P->flow == NULL || P->flow->track == NULL)
    return;
  seen = g_hash_table_new (NULL, NULL);
  names = g_ptr_array_new ();
  scan.seen = seen;
  scan.names = names;
  scan_program (P, &scan);
  defs = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  funs = _ped_function_definitions (P);
  _ped_foreach_model_stmt (P, note_definitions, defs);
  for (guint i = 0; i < funs->len; i++)
    _ped_foreach_function_stmt (g_ptr_array_index (funs, i), note_definitions, defs);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      const GPtrArray *of_name = g_hash_table_lookup (defs, name);

      for (guint k = 0; of_name && k < of_name->len; k++)
        {
          const TildeStmt *def = g_ptr_array_index (of_name, k);

          if (def->kind == TILDE_STMT_ASSIGN)
            _ped_value_variables (P, def->u.assign.rhs, seen, names);
          else
            for (int j = 0; j < def->u.var_decl.n_items; j++)
              if (def->u.var_decl.items[j].ident.name == name)
                _ped_value_variables (P, def->u.var_decl.items[j].init, seen, names);
        }
    }
  g_ptr_array_add (names, NULL);
  P->flow->track (P->flow->data, (const char *const *) names->pdata);
}
