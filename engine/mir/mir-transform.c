/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/mir-transform.h"

#include <string.h>

static const MirOutputVar *
find_output (const MirProgram *p, const char *name, MirOutBlock block)
{
  for (guint i = 0; i < p->output_vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (p->output_vars, i);
      if (v->name == name && v->block == block)
        return v;
    }
  return NULL;
}

static gboolean
is_input (const MirProgram *p, const char *name)
{
  for (guint i = 0; i < p->input_vars->len; i++)
    if (((const MirInputVar *) g_ptr_array_index (p->input_vars, i))->name == name)
      return TRUE;
  return FALSE;
}

static gboolean
is_scalar_type (const TildeType *t)
{
  TildeTypeKind k = tilde_type_kind (t);
  return k == TILDE_TYPE_INT || k == TILDE_TYPE_REAL || k == TILDE_TYPE_COMPLEX;
}

/* FnReadData__("x")[1] for scalars, FnReadData__("x") otherwise. */
static MirExpr *
read_data (const TildeSpan *span, const char *name, const TildeType *type)
{
  GPtrArray *args = mir_expr_list_of (mir_expr_string (span, name), NULL);
  if (!is_scalar_type (type))
    return mir_expr_internal (span, type, TILDE_AD_DATA, MIR_FN_READ_DATA, NULL, args);
  MirExpr *all = mir_expr_internal (span, tilde_type_array (type), TILDE_AD_DATA,
                                    MIR_FN_READ_DATA, NULL, args);
  GPtrArray *first = mir_index_list_new ();
  g_ptr_array_add (first, mir_index_new (MIR_INDEX_SINGLE, mir_expr_int (span, 1), NULL));
  return mir_expr_indexed (span, type, TILDE_AD_DATA, all, first);
}

/* The sizes a parameter is read with: array dimensions outermost first,
 * then the vector or matrix sizes. */
static GPtrArray *
io_dims (const MirSizedType *t)
{
  GPtrArray *dims = mir_expr_list_new ();
  for (; t; t = t->kind == MIR_SIZED_ARRAY ? t->elem : NULL)
    {
      if (t->dim1)
        g_ptr_array_add (dims, mir_expr_copy (t->dim1));
      if (t->dim2)
        g_ptr_array_add (dims, mir_expr_copy (t->dim2));
    }
  return dims;
}

static MirExpr *
read_param (const MirStmt *decl, const MirOutputVar *v, TildeAdLevel ad)
{
  MirInternalData *d = mir_internal_data_new ();
  d->trans = mir_transform_copy (v->trans);
  d->dims = io_dims (v->constrained);
  d->mem = MIR_MEM_AOS;
  return mir_expr_internal (&decl->span, decl->u.decl.type, ad, MIR_FN_READ_PARAM, d, NULL);
}

static MirStmt *
write_param (const TildeSpan *span, const char *name, const TildeType *type, TildeAdLevel ad,
             const MirTransform *unconstrain)
{
  MirInternalData *d = mir_internal_data_new ();
  d->trans = mir_transform_copy (unconstrain);
  d->var = mir_expr_var (span, type, ad, name);
  return mir_stmt_nr_call (span, mir_fun_internal (MIR_FN_WRITE_PARAM, d), NULL);
}

/* Bodies of conditionals and loops become blocks, everywhere. */
static MirStmt *
ensure_block (MirStmt *s)
{
  if (!s || s->kind == MIR_STMT_BLOCK)
    return s;
  GPtrArray *one = mir_stmt_list_new ();
  g_ptr_array_add (one, s);
  return mir_stmt_block (&s->span, one);
}

static void
block_bodies (MirStmt *s, gpointer data)
{
  switch (s->kind)
    {
    case MIR_STMT_IF:
      s->u.if_stmt.then_stmt = ensure_block (s->u.if_stmt.then_stmt);
      s->u.if_stmt.else_stmt = ensure_block (s->u.if_stmt.else_stmt);
      break;
    case MIR_STMT_WHILE:
      s->u.while_stmt.body = ensure_block (s->u.while_stmt.body);
      break;
    case MIR_STMT_FOR:
      s->u.for_stmt.body = ensure_block (s->u.for_stmt.body);
      break;
    default:
      break;
    }
}

static void
read_inputs (MirProgram *p)
{
  GPtrArray *stmts = p->parts[MIR_PART_PREPARE_DATA];
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind != MIR_STMT_DECL || !is_input (p, s->u.decl.name))
        continue;
      MirExpr *rhs = read_data (&s->span, s->u.decl.name, s->u.decl.type);
      g_ptr_array_insert (stmts, (gint) ++i, mir_stmt_assign_var (&s->span, s->u.decl.name, rhs));
    }
}

static void
read_params (MirProgram *p, GPtrArray *stmts, TildeAdLevel ad, gboolean write)
{
  for (guint i = 0; i < stmts->len; i++)
    {
      MirStmt *s = g_ptr_array_index (stmts, i);
      if (s->kind != MIR_STMT_DECL)
        continue;
      const MirOutputVar *v = find_output (p, s->u.decl.name, MIR_OUT_PARAMETERS);
      if (!v || s->u.decl.init_kind == MIR_DECL_ASSIGN)
        continue;
      s->u.decl.init = read_param (s, v, ad);
      s->u.decl.init_kind = MIR_DECL_ASSIGN;
      if (write)
        g_ptr_array_insert (stmts, (gint) ++i, write_param (&s->span, s->u.decl.name,
                                                            s->u.decl.type, ad, NULL));
    }
}

static gboolean
is_gq_early_return (const MirStmt *s)
{
  if (s->kind != MIR_STMT_IF || s->u.if_stmt.else_stmt)
    return FALSE;
  const MirExpr *c = s->u.if_stmt.cond;
  if (c->kind != MIR_EXPR_CALL || c->u.call.fun.kind != MIR_FUN_STANLIB
      || strcmp (c->u.call.fun.name, "PNot__") != 0 || c->u.call.args->len != 1)
    return FALSE;
  const MirExpr *flag = g_ptr_array_index (c->u.call.args, 0);
  return flag->kind == MIR_EXPR_VAR
    && strcmp (flag->u.var.name, "emit_generated_quantities__") == 0;
}

static MirStmt *
write_block (const MirProgram *p, MirOutBlock block, const TildeSpan *span)
{
  GPtrArray *writes = mir_stmt_list_new ();
  for (guint i = 0; i < p->output_vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (p->output_vars, i);
      if (v->block == block)
        g_ptr_array_add (writes, write_param (&v->span, v->name,
                                              mir_sized_to_type (v->constrained),
                                              TILDE_AD_DATA, NULL));
    }
  return mir_stmt_block (span, writes);
}

static gboolean
has_outputs (const MirProgram *p, MirOutBlock block)
{
  for (guint i = 0; i < p->output_vars->len; i++)
    if (((const MirOutputVar *) g_ptr_array_index (p->output_vars, i))->block == block)
      return TRUE;
  return FALSE;
}

static void
write_outputs (MirProgram *p)
{
  GPtrArray *gq = p->parts[MIR_PART_GENERATE_QUANTITIES];
  read_params (p, gq, TILDE_AD_DATA, TRUE);
  if (has_outputs (p, MIR_OUT_TRANSFORMED_PARAMETERS))
    for (guint i = 0; i < gq->len; i++)
      {
        MirStmt *s = g_ptr_array_index (gq, i);
        if (!is_gq_early_return (s))
          continue;
        MirExpr *flag = mir_expr_var (&s->span, tilde_type_int (), TILDE_AD_DATA,
                                      "emit_transformed_parameters__");
        MirStmt *writes = write_block (p, MIR_OUT_TRANSFORMED_PARAMETERS, &s->span);
        g_ptr_array_insert (gq, (gint) i, mir_stmt_if (&s->span, flag, writes, NULL));
        break;
      }
  for (guint i = 0; i < p->output_vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (p->output_vars, i);
      if (v->block == MIR_OUT_GENERATED_QUANTITIES)
        g_ptr_array_add (gq, write_param (&v->span, v->name, mir_sized_to_type (v->constrained),
                                          TILDE_AD_DATA, NULL));
    }
}

static void
build_transform_inits (MirProgram *p)
{
  GPtrArray *out = p->parts[MIR_PART_TRANSFORM_INITS];
  for (guint i = 0; i < p->output_vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (p->output_vars, i);
      if (v->block != MIR_OUT_PARAMETERS)
        continue;
      const TildeType *type = mir_sized_to_type (v->constrained);
      g_ptr_array_add (out, mir_stmt_decl (&v->span, v->name, type,
                                           mir_sized_copy (v->constrained), TILDE_AD_AUTODIFF,
                                           MIR_DECL_DEFAULT, NULL));
      MirExpr *value = read_data (&v->span, v->name, type);
      g_ptr_array_add (out, mir_stmt_assign (&v->span,
                                             mir_lvalue_var (&v->span, type, TILDE_AD_AUTODIFF,
                                                             v->name, NULL), value));
      g_ptr_array_add (out, write_param (&v->span, v->name, type, TILDE_AD_AUTODIFF, v->trans));
    }
}

MirProgram *
mir_transform_program (const MirProgram *program)
{
  MirProgram *p = mir_program_copy (program);
  if (program->transformed)
    return p;
  read_inputs (p);
  read_params (p, p->parts[MIR_PART_LOG_PROB], TILDE_AD_AUTODIFF, FALSE);
  write_outputs (p);
  g_ptr_array_set_size (p->parts[MIR_PART_TRANSFORM_INITS], 0);
  build_transform_inits (p);
  mir_program_walk_stmts (p, block_bodies, NULL);
  p->transformed = TRUE;
  return p;
}
