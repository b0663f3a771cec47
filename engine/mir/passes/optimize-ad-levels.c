/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include <string.h>

#include "mir/dataflow/ad-levels.h"

/* The analysis (dataflow/ad-levels.h) gives the variables that hold an
 * autodiff value somewhere; every other local variable of log_prob (and of
 * a function body) is declared data, as stanc's optimize_ad_levels does,
 * and the expressions reading them get the level of what they read. AD
 * levels are only ever lowered. */

typedef struct {
  GHashTable *autodiff;   /* variables that hold autodiff values */
  GHashTable *levels;     /* variables declared here -> their AD level + 1 */
  gboolean    changed;
} Levels;

static void
demote_decl (MirStmt *s, gpointer data)
{
  Levels *l = data;
  guint old;

  if (s->kind != MIR_STMT_DECL)
    return;
  if (s->u.decl.ad == TILDE_AD_AUTODIFF && !g_hash_table_contains (l->autodiff, s->u.decl.name))
    {
      s->u.decl.ad = TILDE_AD_DATA;
      l->changed = TRUE;
    }
  /* the same name declared in several scopes: autodiff if any is */
  old = GPOINTER_TO_UINT (g_hash_table_lookup (l->levels, s->u.decl.name));
  if (old != TILDE_AD_AUTODIFF + 1)
    g_hash_table_insert (l->levels, (gpointer) s->u.decl.name,
                         GUINT_TO_POINTER (s->u.decl.ad + 1));
}

static gboolean
autodiff_by_itself (const MirExpr *e)
{
  const MirFun *f = &e->u.call.fun;

  if (f->kind == MIR_FUN_COMPILER)
    return f->internal == MIR_FN_READ_PARAM || f->internal == MIR_FN_CONSTRAIN;
  return f->suffix == MIR_SUFFIX_TARGET || f->suffix == MIR_SUFFIX_JACOBIAN
         || strcmp (f->name, "target") == 0;
}

static void
lub_child (MirExpr *e, gpointer data)
{
  *(TildeAdLevel *) data = tilde_ad_lub (*(TildeAdLevel *) data, e->ad_level);
}

static TildeAdLevel
level_of (Levels *l, const MirExpr *e)
{
  TildeAdLevel level = TILDE_AD_DATA;
  guint declared;

  if (e->type && !tilde_type_is_autodiffable (e->type))
    return TILDE_AD_DATA;
  switch (e->kind)
    {
    case MIR_EXPR_LIT:
      return TILDE_AD_DATA;
    case MIR_EXPR_VAR:
      declared = GPOINTER_TO_UINT (g_hash_table_lookup (l->levels, e->u.var.name));
      return declared ? (TildeAdLevel) (declared - 1) : e->ad_level;
    case MIR_EXPR_CALL:
      if (autodiff_by_itself (e))
        return e->ad_level;
      break;
    case MIR_EXPR_PROMOTION:
      if (e->u.promotion.ad == TILDE_AD_AUTODIFF)
        return e->ad_level;
      break;
    case MIR_EXPR_TERNARY:
      return tilde_ad_lub (e->u.ternary.if_true->ad_level, e->u.ternary.if_false->ad_level);
    case MIR_EXPR_INDEXED:
      return e->u.indexed.base->ad_level;
    default:
      break;
    }
  mir_expr_foreach_child ((MirExpr *) e, lub_child, &level);
  return level;
}

static MirExpr *
lower_expr (MirExpr *e, gpointer data)
{
  Levels *l = data;

  if (e->ad_level == TILDE_AD_AUTODIFF && level_of (l, e) == TILDE_AD_DATA)
    {
      e->ad_level = TILDE_AD_DATA;
      l->changed = TRUE;
    }
  return e;
}

static void
lower_lvalue (MirStmt *s, gpointer data)
{
  Levels *l = data;
  MirLvalue *lhs;
  guint declared;

  if (s->kind != MIR_STMT_ASSIGN)
    return;
  for (lhs = s->u.assign.lhs; lhs->proj_of; lhs = lhs->proj_of)
    ;
  declared = GPOINTER_TO_UINT (g_hash_table_lookup (l->levels, lhs->var));
  if (declared == TILDE_AD_DATA + 1)
    for (lhs = s->u.assign.lhs; lhs; lhs = lhs->proj_of)
      if (lhs->ad_level != TILDE_AD_DATA)
        {
          lhs->ad_level = TILDE_AD_DATA;
          l->changed = TRUE;
        }
}

static void
lower_all (Levels *l, MirAdLevels *ad, MirStmt **roots, guint n_roots)
{
  g_autofree const char **vars = mir_ad_levels_variables (ad);

  l->autodiff = g_hash_table_new (NULL, NULL);
  l->levels = g_hash_table_new (NULL, NULL);
  for (guint i = 0; vars[i]; i++)
    g_hash_table_add (l->autodiff, (gpointer) vars[i]);
  for (guint i = 0; i < n_roots; i++)
    mir_stmt_walk (roots[i], demote_decl, l);
  for (guint i = 0; i < n_roots; i++)
    {
      mir_stmt_map_exprs (roots[i], lower_expr, l);
      mir_stmt_walk (roots[i], lower_lvalue, l);
    }
  g_hash_table_unref (l->autodiff);
  g_hash_table_unref (l->levels);
  mir_ad_levels_free (ad);
}

gboolean
mir_pass_optimize_ad_levels (MirProgram *program)
{
  Levels l = { NULL, NULL, FALSE };
  GPtrArray *log_prob = program->parts[MIR_PART_LOG_PROB];

  for (guint i = 0; i < program->functions->len; i++)
    {
      MirFunDef *f = g_ptr_array_index (program->functions, i);
      if (f->body)
        lower_all (&l, mir_ad_levels_of_function (f), &f->body, 1);
    }
  lower_all (&l, mir_ad_levels_of_part (program, MIR_PART_LOG_PROB),
             (MirStmt **) log_prob->pdata, log_prob->len);
  return l.changed;
}
