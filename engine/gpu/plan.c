/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "gpu/plan.h"
#include "mir/mir-print.h"
#include "semantics/types.h"

#include <string.h>

/* ---- matching ---- */

static const MirExpr *
arg (const MirExpr *e, guint i)
{
  return g_ptr_array_index (e->u.call.args, i);
}

static gboolean
is_call (const MirExpr *e, const char *name, guint n)
{
  return e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB
    && strcmp (e->u.call.fun.name, name) == 0 && e->u.call.args->len == n;
}

/* `base` followed by _lpdf/_lupdf (or _lpmf/_lupmf for a mass function). */
static gboolean
is_density (const MirExpr *e, const char *base, gboolean mass, guint n)
{
  if (e->kind != MIR_EXPR_CALL || e->u.call.fun.kind != MIR_FUN_STANLIB
      || e->u.call.args->len != n)
    return FALSE;
  const char *name = e->u.call.fun.name;
  gsize len = strlen (base);
  if (strncmp (name, base, len) != 0)
    return FALSE;
  const char *sfx = name + len;
  return mass ? (strcmp (sfx, "_lpmf") == 0 || strcmp (sfx, "_lupmf") == 0)
              : (strcmp (sfx, "_lpdf") == 0 || strcmp (sfx, "_lupdf") == 0);
}

static gboolean
type_is (const MirExpr *e, TildeTypeKind kind)
{
  return e->type && tilde_type_kind (e->type) == kind;
}

static gboolean
is_data_var (const MirExpr *e)
{
  return e->kind == MIR_EXPR_VAR && e->ad_level == TILDE_AD_DATA;
}

/* A real vector for the normal, an int array for the counts. */
static gboolean
outcome_fits (TildeGpuGlmFamily family, const MirExpr *y)
{
  if (!is_data_var (y))
    return FALSE;
  if (family == TILDE_GPU_GLM_NORMAL_ID)
    return type_is (y, TILDE_TYPE_VECTOR);
  return type_is (y, TILDE_TYPE_ARRAY)
    && tilde_type_kind (tilde_type_element (y->type)) == TILDE_TYPE_INT;
}

static gboolean
scalar (const MirExpr *e)
{
  return type_is (e, TILDE_TYPE_REAL) || type_is (e, TILDE_TYPE_INT);
}

/* X * beta + alpha, alpha + X * beta or X * beta. */
static gboolean
linear_predictor (const MirExpr *e, TildeGpuSite *s)
{
  const MirExpr *product = e;
  s->alpha = NULL;
  if (is_call (e, "Plus__", 2))
    {
      gboolean left = is_call (arg (e, 0), "Times__", 2);
      product = arg (e, left ? 0 : 1);
      s->alpha = arg (e, left ? 1 : 0);
    }
  if (!is_call (product, "Times__", 2) || !type_is (arg (product, 0), TILDE_TYPE_MATRIX))
    return FALSE;
  s->x = arg (product, 0);
  s->beta = arg (product, 1);
  return TRUE;
}

static gboolean
match_call (const MirExpr *e, TildeGpuSite *s)
{
  /* `scale`: the last argument is sigma or phi */
  static const struct {
    const char       *glm, *plain;
    gboolean          mass, scale;
    guint             n_glm;
    TildeGpuGlmFamily family;
  } forms[] = {
    { "normal_id_glm", "normal", FALSE, TRUE, 5, TILDE_GPU_GLM_NORMAL_ID },
    { "bernoulli_logit_glm", "bernoulli_logit", TRUE, FALSE, 4, TILDE_GPU_GLM_BERNOULLI_LOGIT },
    { "poisson_log_glm", "poisson_log", TRUE, FALSE, 4, TILDE_GPU_GLM_POISSON_LOG },
    { "neg_binomial_2_log_glm", "neg_binomial_2_log", TRUE, TRUE, 5,
      TILDE_GPU_GLM_NEG_BINOMIAL_2_LOG },
  };
  if (is_density (e, "categorical_logit_glm", TRUE, 4))
    {
      s->family = TILDE_GPU_GLM_CATEGORICAL_LOGIT;
      s->y = arg (e, 0);
      s->x = arg (e, 1);
      s->alpha = arg (e, 2);
      s->beta = arg (e, 3);
      return TRUE;
    }
  if (is_density (e, "ordered_logistic_glm", TRUE, 4))
    {
      s->family = TILDE_GPU_GLM_ORDERED_LOGISTIC;
      s->y = arg (e, 0);
      s->x = arg (e, 1);
      s->beta = arg (e, 2);
      s->cuts = arg (e, 3);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      gboolean scale = forms[i].scale;
      s->family = forms[i].family;
      if (is_density (e, forms[i].glm, forms[i].mass, forms[i].n_glm))
        {
          s->y = arg (e, 0);
          s->x = arg (e, 1);
          s->alpha = arg (e, 2);
          s->beta = arg (e, 3);
          s->sigma = scale ? arg (e, 4) : NULL;
          return TRUE;
        }
      if (is_density (e, forms[i].plain, forms[i].mass, scale ? 3 : 2)
          && linear_predictor (arg (e, 1), s))
        {
          s->y = arg (e, 0);
          s->sigma = scale ? arg (e, 2) : NULL;
          s->written_as_predictor = TRUE;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
tilde_gpu_site_match (const MirExpr *e, TildeGpuSite *s)
{
  memset (s, 0, sizeof *s);
  if (!match_call (e, s))
    return FALSE;
  s->call = e;
  /* the categorical's alpha is a vector of C, its beta a K x C matrix */
  gboolean cat = s->family == TILDE_GPU_GLM_CATEGORICAL_LOGIT;
  return outcome_fits (s->family, s->y) && is_data_var (s->x)
    && type_is (s->x, TILDE_TYPE_MATRIX)
    && type_is (s->beta, cat ? TILDE_TYPE_MATRIX : TILDE_TYPE_VECTOR)
    && (!s->alpha || (cat ? type_is (s->alpha, TILDE_TYPE_VECTOR) : scalar (s->alpha)))
    && (!s->sigma || scalar (s->sigma))
    && (!s->cuts || type_is (s->cuts, TILDE_TYPE_VECTOR));
}

/* ---- the plan ---- */

/* plans are made on the engine thread and the chains' threads too */
static gint normal_on_cpu = TRUE;

void
tilde_gpu_plan_set_normal_on_cpu (gboolean on)
{
  g_atomic_int_set (&normal_on_cpu, on);
}

static void
collect_sites (const MirStmt *s, GArray *out, GArray *ew_out)
{
  if (!s)
    return;
  switch (s->kind)
    {
    case MIR_STMT_TARGET_PLUS:
      {
        TildeGpuSite site;
        TildeGpuEwSite ew;
        if (tilde_gpu_site_match (s->u.increment.expr, &site))
          {
            site.stmt = s;
            g_array_append_val (out, site);
          }
        else if (tilde_gpu_ew_site_match (s->u.increment.expr, &ew))
          {
            ew.stmt = s;
            g_array_append_val (ew_out, ew);
          }
        break;
      }
    case MIR_STMT_BLOCK:
    case MIR_STMT_SLIST:
      for (guint i = 0; i < s->u.block.stmts->len; i++)
        collect_sites (g_ptr_array_index (s->u.block.stmts, i), out, ew_out);
      break;
    case MIR_STMT_PROFILE:
      for (guint i = 0; i < s->u.profile.stmts->len; i++)
        collect_sites (g_ptr_array_index (s->u.profile.stmts, i), out, ew_out);
      break;
    default:
      /* statements in loops and branches are left to the CPU */
      break;
    }
}

static gboolean
annotated (const MirProgram *p, const char *name)
{
  for (guint i = 0; i < p->input_vars->len; i++)
    {
      const MirInputVar *v = g_ptr_array_index (p->input_vars, i);
      if (strcmp (v->name, name) == 0 && mir_annotations_has (&v->annotations, "gpu"))
        return TRUE;
    }
  GPtrArray *prep = p->parts[MIR_PART_PREPARE_DATA];
  for (guint i = 0; i < prep->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (prep, i);
      if (s->kind == MIR_STMT_DECL && strcmp (s->u.decl.name, name) == 0
          && mir_annotations_has (&s->u.decl.annotations, "gpu"))
        return TRUE;
    }
  return FALSE;
}

gboolean
tilde_gpu_variable_is_annotated (const MirProgram *program, const char *name)
{
  return annotated (program, name);
}

gboolean
tilde_gpu_program_has_annotations (const MirProgram *p)
{
  for (guint i = 0; i < p->input_vars->len; i++)
    if (mir_annotations_has (&((const MirInputVar *) g_ptr_array_index (p->input_vars, i))
                             ->annotations, "gpu"))
      return TRUE;
  GPtrArray *prep = p->parts[MIR_PART_PREPARE_DATA];
  for (guint i = 0; i < prep->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (prep, i);
      if (s->kind == MIR_STMT_DECL && mir_annotations_has (&s->u.decl.annotations, "gpu"))
        return TRUE;
    }
  return FALSE;
}

/* The site that uses `name` as its design matrix (role 0) or outcome (1). */
static const TildeGpuSite *
site_using (GArray *sites, const char *name, int role)
{
  for (guint i = 0; i < sites->len; i++)
    {
      const TildeGpuSite *s = &g_array_index (sites, TildeGpuSite, i);
      const MirExpr *v = role == 0 ? s->x : s->y;
      if (strcmp (v->u.var.name, name) == 0)
        return s;
    }
  return NULL;
}

static char *
site_text (const TildeGpuSite *s)
{
  return g_strdup_printf ("%s at line %d", s->call->u.call.fun.name, s->stmt->span.begin_line);
}

/* The elementwise site that reads vector `name`. */
static const TildeGpuEwSite *
ew_site_using (GArray *sites, const char *name)
{
  for (guint i = 0; i < sites->len; i++)
    {
      const TildeGpuEwSite *s = &g_array_index (sites, TildeGpuEwSite, i);
      for (guint v = 0; v < s->prog.n_vectors; v++)
        if (strcmp (s->vectors[v]->u.var.name, name) == 0)
          return s;
    }
  return NULL;
}

/* A variable of the data or transformed data blocks (a local of the model
 * block may hold data too, but it has no copy that could go to the device). */
static gboolean
global_data (const MirProgram *p, const char *name)
{
  for (guint i = 0; i < p->input_vars->len; i++)
    if (strcmp (((const MirInputVar *) g_ptr_array_index (p->input_vars, i))->name, name) == 0)
      return TRUE;
  GPtrArray *prep = p->parts[MIR_PART_PREPARE_DATA];
  for (guint i = 0; i < prep->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (prep, i);
      if (s->kind == MIR_STMT_DECL && strcmp (s->u.decl.name, name) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Whether every vector of `s` lives on the device. */
static gboolean
ew_on_device (const MirProgram *p, const TildeGpuEwSite *s, gboolean use_opencl)
{
  for (guint v = 0; v < s->prog.n_vectors; v++)
    {
      const char *name = s->vectors[v]->u.var.name;
      if (!global_data (p, name) || (!use_opencl && !annotated (p, name)))
        return FALSE;
    }
  return TRUE;
}

static char *
ew_site_text (const TildeGpuEwSite *s)
{
  return g_strdup_printf ("the elementwise kernel of %s at line %d", s->call->u.call.fun.name,
                          s->stmt->span.begin_line);
}

/* The residency of a vector an elementwise site reads (no GLM reads it). */
static void
ew_residency (TildeGpuResidency *r, const MirProgram *p, const TildeGpuEwSite *ew,
              gboolean use_opencl)
{
  g_autofree char *es = ew_site_text (ew);
  gboolean mine = annotated (p, r->name);
  if (mine && ew_on_device (p, ew, use_opencl))
    {
      r->device = TRUE;
      r->reason = g_strdup_printf ("annotated @gpu; read by %s", es);
    }
  else if (mine)
    r->reason = g_strdup_printf ("annotated @gpu, but %s also reads vectors on the host, so the "
                                 "CPU path runs it and uses the host copy", es);
  else if (use_opencl)
    {
      r->device = r->chosen = TRUE;
      r->reason = g_strdup_printf ("--use-opencl: read by %s, on the device when it has at least "
                                   "%d elements", es, TILDE_GPU_AUTO_MIN_ELEMENTS);
    }
  else
    r->reason = g_strdup_printf ("read by %s; not annotated @gpu (--use-opencl would choose it)",
                                 es);
}

/* The residency of a variable that only normal linear models evaluated by
 * their sufficient statistics read (`stats`, as design matrix or outcome). */
static char *
statistics_reason (const MirProgram *p, const char *name, const TildeGpuSite *stats)
{
  g_autofree char *ss = site_text (stats);
  gboolean as_x = strcmp (stats->x->u.var.name, name) == 0;
  return g_strdup_printf ("%s%s of %s, which the CPU evaluates by its sufficient statistics "
                          "(K^2 work a gradient, no pass over %s), faster than a kernel's pass "
                          "over the data",
                          annotated (p, name) ? "annotated @gpu, but stays on the host: " : "",
                          as_x ? "design matrix" : "outcome", ss, stats->x->u.var.name);
}

static void
add_var (TildeGpuPlan *plan, const MirProgram *p, GArray *all, GArray *all_ew, GArray *stats,
         const char *name, const MirSizedType *type, gboolean use_opencl)
{
  TildeGpuResidency r = { .name = name, .type = type };
  const TildeGpuEwSite *ew = ew_site_using (all_ew, name);
  const TildeGpuSite *as_x = site_using (all, name, 0), *as_y = site_using (all, name, 1);
  const TildeGpuSite *by_stats = site_using (stats, name, 0);
  g_autofree char *xs = as_x ? site_text (as_x) : NULL;
  g_autofree char *ys = as_y ? site_text (as_y) : NULL;
  if (!by_stats)
    by_stats = site_using (stats, name, 1);
  if (ew && !as_x && !as_y)
    ew_residency (&r, p, ew, use_opencl);
  else if (by_stats && !as_x && !as_y)
    r.reason = statistics_reason (p, name, by_stats);
  else if (annotated (p, name) && as_x)
    {
      r.device = TRUE;
      r.reason = g_strdup_printf ("annotated @gpu; design matrix of %s, run as a kernel", xs);
    }
  else if (as_x && use_opencl)
    {
      r.device = r.chosen = TRUE;
      r.reason = g_strdup_printf ("--use-opencl: design matrix of %s, on the device when it has "
                                  "at least %d elements", xs, TILDE_GPU_AUTO_MIN_ELEMENTS);
    }
  else if (as_y && (annotated (p, as_y->x->u.var.name) || use_opencl))
    {
      r.device = TRUE;
      r.chosen = !annotated (p, as_y->x->u.var.name);
      r.reason = g_strdup_printf ("outcome of %s, copied with its design matrix %s", ys,
                                  as_y->x->u.var.name);
    }
  else if (annotated (p, name))
    r.reason = g_strdup ("annotated @gpu, but no kernel reads it, so it stays on the host");
  else if (as_x)
    r.reason = g_strdup_printf ("design matrix of %s; not annotated @gpu (--use-opencl would "
                                "choose it)", xs);
  else
    r.reason = g_strdup ("not annotated @gpu and read by no kernel");
  g_array_append_val (plan->vars, r);
}

TildeGpuPlan *
tilde_gpu_plan_new (const MirProgram *p, gboolean use_opencl)
{
  TildeGpuPlan *plan = g_new0 (TildeGpuPlan, 1);
  plan->vars = g_array_new (FALSE, TRUE, sizeof (TildeGpuResidency));
  plan->sites = g_array_new (FALSE, TRUE, sizeof (TildeGpuSite));
  plan->ew_sites = g_array_new (FALSE, TRUE, sizeof (TildeGpuEwSite));
  g_autoptr (GArray) all = g_array_new (FALSE, TRUE, sizeof (TildeGpuSite));
  g_autoptr (GArray) all_ew = g_array_new (FALSE, TRUE, sizeof (TildeGpuEwSite));
  GArray *stats = plan->cpu_sites = g_array_new (FALSE, TRUE, sizeof (TildeGpuSite));
  gboolean keep_normal = g_atomic_int_get (&normal_on_cpu);
  GPtrArray *lp = p->parts[MIR_PART_LOG_PROB];
  for (guint i = 0; i < lp->len; i++)
    collect_sites (g_ptr_array_index (lp, i), all, all_ew);
  for (guint i = 0; keep_normal && i < all->len;)
    if (g_array_index (all, TildeGpuSite, i).family == TILDE_GPU_GLM_NORMAL_ID)
      {
        g_array_append_val (stats, g_array_index (all, TildeGpuSite, i));
        g_array_remove_index (all, i);
      }
    else
      i++;
  for (guint i = 0; i < p->input_vars->len; i++)
    {
      const MirInputVar *v = g_ptr_array_index (p->input_vars, i);
      add_var (plan, p, all, all_ew, stats, v->name, v->type, use_opencl);
    }
  /* transformed data: the declarations of prepare_data that are not inputs */
  GPtrArray *prep = p->parts[MIR_PART_PREPARE_DATA];
  for (guint i = 0; i < prep->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (prep, i);
      gboolean input = FALSE;
      if (s->kind != MIR_STMT_DECL || !s->u.decl.sized)
        continue;
      for (guint j = 0; j < p->input_vars->len && !input; j++)
        input = strcmp (((const MirInputVar *) g_ptr_array_index (p->input_vars, j))->name,
                        s->u.decl.name) == 0;
      if (!input)
        add_var (plan, p, all, all_ew, stats, s->u.decl.name, s->u.decl.sized, use_opencl);
    }
  for (guint i = 0; i < all->len; i++)
    {
      const TildeGpuSite *s = &g_array_index (all, TildeGpuSite, i);
      const char *x = s->x->u.var.name;
      for (guint j = 0; j < plan->vars->len; j++)
        {
          const TildeGpuResidency *r = &g_array_index (plan->vars, TildeGpuResidency, j);
          if (strcmp (r->name, x) == 0 && r->device)
            g_array_append_val (plan->sites, *s);
        }
    }
  for (guint i = 0; i < all_ew->len; i++)
    {
      const TildeGpuEwSite *s = &g_array_index (all_ew, TildeGpuEwSite, i);
      if (ew_on_device (p, s, use_opencl))
        g_array_append_val (plan->ew_sites, *s);
    }
  return plan;
}

void
tilde_gpu_plan_free (TildeGpuPlan *plan)
{
  if (!plan)
    return;
  for (guint i = 0; i < plan->vars->len; i++)
    g_free (g_array_index (plan->vars, TildeGpuResidency, i).reason);
  g_array_unref (plan->vars);
  g_array_unref (plan->sites);
  g_array_unref (plan->ew_sites);
  g_array_unref (plan->cpu_sites);
  g_free (plan);
}

char *
tilde_gpu_plan_report (const TildeGpuPlan *plan)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < plan->vars->len; i++)
    {
      const TildeGpuResidency *r = &g_array_index (plan->vars, TildeGpuResidency, i);
      g_autofree char *type = mir_print_sized_type (r->type);
      g_string_append_printf (out, "%s %s: %s  // %s\n", type, r->name,
                              r->device ? "device" : "host", r->reason);
    }
  return g_string_free (out, FALSE);
}

gint32
tilde_gpu_plan_site_columns (const TildeGpuPlan *plan, const TildeGpuSite *site)
{
  const char *x = site->x->u.var.name;
  for (guint i = 0; i < plan->vars->len; i++)
    {
      const TildeGpuResidency *r = &g_array_index (plan->vars, TildeGpuResidency, i);
      if (strcmp (r->name, x) != 0)
        continue;
      const MirExpr *cols = r->type->kind == MIR_SIZED_MATRIX ? r->type->dim2 : NULL;
      if (!cols || cols->kind != MIR_EXPR_LIT || cols->u.lit.kind != MIR_LIT_INT)
        return -1;
      gint64 k = g_ascii_strtoll (cols->u.lit.text, NULL, 10);
      return k >= 0 && k <= G_MAXINT32 ? (gint32) k : -1;
    }
  return -1;
}

char *
tilde_gpu_plan_site_kernel (const TildeGpuPlan *plan, const TildeGpuSite *site, guint wg)
{
  const char *family = tilde_gpu_glm_family_name (site->family);
  const char *x = site->x->u.var.name;
  gint32 K = tilde_gpu_plan_site_columns (plan, site);
  g_autofree char *source = K >= 0 ? tilde_gpu_glm_source (site->family, K, wg)
                                   : tilde_gpu_glm_source_for_data (site->family, x, wg);
  if (K >= 0)
    return g_strdup_printf ("// OpenCL kernel for %s (K = %d)\n%s\n", family, K, source);
  return g_strdup_printf ("// OpenCL kernel for %s (K = the columns of %s, from the data)\n%s\n",
                          family, x, source);
}
