/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/passes/passes.h"
#include "mir/passes/passes-private.h"

#include "mir/mir-mem-pattern.h"

typedef struct {
  GHashTable *soa;       /* names the analysis finds SoA */
  GHashTable *aos;       /* names it finds AoS */
  gboolean    changed;
} Layout;

static void
set_mem (Layout *l, MirMemPattern *slot, MirMemPattern mem)
{
  if (*slot != mem)
    {
      *slot = mem;
      l->changed = TRUE;
    }
}

static void
set_sized (Layout *l, MirSizedType *t, MirMemPattern mem)
{
  for (; t; t = t->elem)
    if (t->kind == MIR_SIZED_VECTOR || t->kind == MIR_SIZED_ROW_VECTOR
        || t->kind == MIR_SIZED_MATRIX)
      set_mem (l, &t->mem, mem);
}

/* The names of the matrix-like variables `e` reads. */
static void
eigen_vars (MirExpr *e, gpointer data)
{
  if (e->kind == MIR_EXPR_VAR && e->type
      && tilde_type_is_eigen (tilde_type_array_base (e->type)))
    g_ptr_array_add (data, (gpointer) e->u.var.name);
  mir_expr_foreach_child (e, eigen_vars, data);
}

/* A library call works on SoA values when it has such a signature and
 * every matrix it reads is SoA. */
static gboolean
call_is_soa (const Layout *l, const MirExpr *e)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree const TildeType **types = g_new0 (const TildeType *, e->u.call.args->len + 1);
  gboolean any = FALSE;

  for (guint i = 0; i < e->u.call.args->len; i++)
    {
      MirExpr *a = g_ptr_array_index (e->u.call.args, i);
      types[i] = a->type;
      eigen_vars (a, names);
    }
  if (!mir_mem_pattern_supports_soa (e->u.call.fun.name, types, e->u.call.args->len))
    return FALSE;
  for (guint i = 0; i < names->len; i++)
    {
      if (g_hash_table_contains (l->aos, names->pdata[i]))
        return FALSE;
      any |= g_hash_table_contains (l->soa, names->pdata[i]);
    }
  return any;
}

static MirExpr *
mark_call (MirExpr *e, gpointer data)
{
  Layout *l = data;

  if (e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_STANLIB)
    set_mem (l, &e->u.call.fun.mem, call_is_soa (l, e) ? MIR_MEM_SOA : MIR_MEM_AOS);
  return e;
}

/* A parameter read gives the pattern of the variable it initialises. */
static void
mark_read (Layout *l, const char *name, MirExpr *e)
{
  if (e && e->kind == MIR_EXPR_CALL && e->u.call.fun.kind == MIR_FUN_COMPILER
      && e->u.call.fun.internal == MIR_FN_READ_PARAM && e->u.call.fun.data)
    set_mem (l, &e->u.call.fun.data->mem,
             g_hash_table_contains (l->soa, name) ? MIR_MEM_SOA : MIR_MEM_AOS);
}

static void
mark_stmt (MirStmt *s, gpointer data)
{
  Layout *l = data;

  if (s->kind == MIR_STMT_DECL)
    {
      if (s->u.decl.sized && (g_hash_table_contains (l->soa, s->u.decl.name)
                              || g_hash_table_contains (l->aos, s->u.decl.name)))
        set_sized (l, s->u.decl.sized, g_hash_table_contains (l->soa, s->u.decl.name)
                                         ? MIR_MEM_SOA : MIR_MEM_AOS);
      mark_read (l, s->u.decl.name, s->u.decl.init);
    }
  else if (s->kind == MIR_STMT_ASSIGN)
    mark_read (l, mir_lvalue_variable (s->u.assign.lhs), s->u.assign.rhs);
}

gboolean
mir_pass_optimize_soa (MirProgram *program)
{
  GArray *entries = mir_mem_patterns_analyze (program);
  Layout l = { g_hash_table_new (NULL, NULL), g_hash_table_new (NULL, NULL), FALSE };
  GPtrArray *log_prob = program->parts[MIR_PART_LOG_PROB];

  /* a name is SoA only if no declaration of it is AoS */
  for (guint i = 0; i < entries->len; i++)
    {
      const MirMemPatternEntry *e = &g_array_index (entries, MirMemPatternEntry, i);
      if (e->pattern == MIR_MEM_AOS)
        g_hash_table_add (l.aos, (gpointer) e->name);
    }
  for (guint i = 0; i < entries->len; i++)
    {
      const MirMemPatternEntry *e = &g_array_index (entries, MirMemPatternEntry, i);
      if (e->pattern == MIR_MEM_SOA && !g_hash_table_contains (l.aos, e->name))
        g_hash_table_add (l.soa, (gpointer) e->name);
    }
  g_array_unref (entries);
  for (guint i = 0; i < log_prob->len; i++)
    {
      MirStmt *s = g_ptr_array_index (log_prob, i);
      mir_stmt_walk (s, mark_stmt, &l);
      mir_stmt_map_exprs (s, mark_call, &l);
    }
  g_hash_table_unref (l.soa);
  g_hash_table_unref (l.aos);
  return l.changed;
}
