/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/mir-print.h"

#include <string.h>

/* ---- OCaml's string and S-expression spellings ----
 *
 * stanc prints string literals with OCaml's %S and the payload of internal
 * functions as machine-format S-expressions whose atoms are printed
 * expressions; the two helpers below reproduce both. */

static void
append_ocaml_escaped (GString *out, const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    switch (*p)
      {
      case '"': g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\t': g_string_append (out, "\\t"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\b': g_string_append (out, "\\b"); break;
      default:
        if (*p < 32 || *p > 126)
          g_string_append_printf (out, "\\%03u", *p);
        else
          g_string_append_c (out, (char) *p);
      }
}

static void
append_ocaml_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  append_ocaml_escaped (out, s);
  g_string_append_c (out, '"');
}

/* A machine-format S-expression writer: `spaced` remembers whether the
 * last thing written was a bare atom, the only case that needs a space
 * before the next bare atom. */
typedef struct {
  GString *out;
  gboolean spaced;
} Sexp;

static gboolean
atom_needs_quotes (const char *s)
{
  if (!*s)
    return TRUE;
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      if (strchr ("\"();\\ \t\n\r\f", *p) || *p < 32 || *p > 126)
        return TRUE;
      if ((*p == '|' && p[1] == '#') || (*p == '#' && p[1] == '|'))
        return TRUE;
    }
  return FALSE;
}

static void
sexp_atom (Sexp *sx, const char *s)
{
  if (atom_needs_quotes (s))
    {
      append_ocaml_string (sx->out, s);
      sx->spaced = FALSE;
      return;
    }
  if (sx->spaced)
    g_string_append_c (sx->out, ' ');
  g_string_append (sx->out, s);
  sx->spaced = TRUE;
}

static void
sexp_open (Sexp *sx)
{
  g_string_append_c (sx->out, '(');
  sx->spaced = FALSE;
}

static void
sexp_close (Sexp *sx)
{
  g_string_append_c (sx->out, ')');
  sx->spaced = FALSE;
}

static void
sexp_expr (Sexp *sx, const MirExpr *e)
{
  char *text = mir_print_expr (e);
  sexp_atom (sx, text);
  g_free (text);
}

static void
sexp_transform (Sexp *sx, const MirTransform *t)
{
  const char *name = mir_transform_kind_name (t->kind);
  if (t->kind == MIR_TRANS_TUPLE)
    {
      sexp_open (sx);
      sexp_atom (sx, name);
      sexp_open (sx);
      for (guint i = 0; i < t->members->len; i++)
        sexp_transform (sx, g_ptr_array_index (t->members, i));
      sexp_close (sx);
      sexp_close (sx);
      return;
    }
  if (!t->a)
    {
      sexp_atom (sx, name);
      return;
    }
  sexp_open (sx);
  sexp_atom (sx, name);
  sexp_expr (sx, t->a);
  if (t->b)
    sexp_expr (sx, t->b);
  sexp_close (sx);
}

static void
sexp_field_open (Sexp *sx, const char *field)
{
  sexp_open (sx);
  sexp_atom (sx, field);
}

static void
sexp_internal (Sexp *sx, MirInternal fn, const MirInternalData *d)
{
  sexp_open (sx);
  sexp_atom (sx, mir_internal_name (fn));
  switch (fn)
    {
    case MIR_FN_READ_PARAM:
      sexp_field_open (sx, "constrain");
      sexp_transform (sx, d->trans);
      sexp_close (sx);
      sexp_field_open (sx, "dims");
      sexp_open (sx);
      for (guint i = 0; d->dims && i < d->dims->len; i++)
        sexp_expr (sx, g_ptr_array_index (d->dims, i));
      sexp_close (sx);
      sexp_close (sx);
      sexp_field_open (sx, "mem_pattern");
      sexp_atom (sx, d->mem == MIR_MEM_SOA ? "SoA" : "AoS");
      sexp_close (sx);
      break;
    case MIR_FN_WRITE_PARAM:
      /* an OCaml option: () for None, (x) for Some x */
      sexp_field_open (sx, "unconstrain_opt");
      sexp_open (sx);
      if (d->trans)
        sexp_transform (sx, d->trans);
      sexp_close (sx);
      sexp_close (sx);
      sexp_field_open (sx, "var");
      sexp_expr (sx, d->var);
      sexp_close (sx);
      break;
    case MIR_FN_CHECK:
      sexp_field_open (sx, "trans");
      sexp_transform (sx, d->trans);
      sexp_close (sx);
      sexp_field_open (sx, "var_name");
      sexp_atom (sx, d->var_name);
      sexp_close (sx);
      sexp_field_open (sx, "var");
      sexp_expr (sx, d->var);
      sexp_close (sx);
      break;
    case MIR_FN_CONSTRAIN:
    case MIR_FN_UNCONSTRAIN:
      sexp_field_open (sx, "trans");
      sexp_transform (sx, d->trans);
      sexp_close (sx);
      if (fn == MIR_FN_CONSTRAIN)
        {
          sexp_field_open (sx, "jacobian");
          sexp_atom (sx, d->jacobian ? "true" : "false");
          sexp_close (sx);
        }
      break;
    default:
      break;
    }
  sexp_close (sx);
}

/* ---- expressions ---- */

static void append_index_list (GString *out, const GPtrArray *indices);

static void
append_fun_name (GString *out, const MirFun *f)
{
  if (f->kind != MIR_FUN_COMPILER)
    {
      g_string_append (out, f->name);
      return;
    }
  if (!f->data)
    {
      g_string_append (out, mir_internal_name (f->internal));
      g_string_append (out, "__");
      return;
    }
  Sexp sx = { out, FALSE };
  sexp_internal (&sx, f->internal, f->data);
  g_string_append (out, "__");
}

static void
append_args (GString *out, const GPtrArray *args)
{
  g_string_append_c (out, '(');
  for (guint i = 0; args && i < args->len; i++)
    {
      if (i)
        g_string_append (out, ", ");
      mir_append_expr (out, g_ptr_array_index (args, i));
    }
  g_string_append_c (out, ')');
}

static void
append_call (GString *out, const MirFun *f, const GPtrArray *args)
{
  const char *symbol = f->kind == MIR_FUN_STANLIB && f->suffix == MIR_SUFFIX_PLAIN
    ? mir_operator_symbol (f->name) : NULL;
  if (symbol && args->len == 2)
    {
      g_string_append_c (out, '(');
      mir_append_expr (out, g_ptr_array_index (args, 0));
      g_string_append_printf (out, " %s ", symbol);
      mir_append_expr (out, g_ptr_array_index (args, 1));
      g_string_append_c (out, ')');
      return;
    }
  append_fun_name (out, f);
  append_args (out, args);
}

static void
append_type (GString *out, const TildeType *type)
{
  if (type)
    tilde_type_append (out, type);
  else
    g_string_append (out, "<untyped>");
}

void
mir_append_expr (GString *out, const MirExpr *e)
{
  switch (e->kind)
    {
    case MIR_EXPR_VAR:
      g_string_append (out, e->u.var.name);
      break;
    case MIR_EXPR_LIT:
      if (e->u.lit.kind == MIR_LIT_STRING)
        append_ocaml_string (out, e->u.lit.text);
      else
        g_string_append (out, e->u.lit.text);
      if (e->u.lit.kind == MIR_LIT_IMAGINARY)
        g_string_append_c (out, 'i');
      break;
    case MIR_EXPR_CALL:
      append_call (out, &e->u.call.fun, e->u.call.args);
      break;
    case MIR_EXPR_TERNARY:
      g_string_append_c (out, '(');
      mir_append_expr (out, e->u.ternary.cond);
      g_string_append (out, " ? ");
      mir_append_expr (out, e->u.ternary.if_true);
      g_string_append (out, " : ");
      mir_append_expr (out, e->u.ternary.if_false);
      g_string_append_c (out, ')');
      break;
    case MIR_EXPR_AND:
    case MIR_EXPR_OR:
      mir_append_expr (out, e->u.logical.lhs);
      g_string_append (out, e->kind == MIR_EXPR_AND ? " && " : " || ");
      mir_append_expr (out, e->u.logical.rhs);
      break;
    case MIR_EXPR_INDEXED:
      mir_append_expr (out, e->u.indexed.base);
      append_index_list (out, e->u.indexed.indices);
      break;
    case MIR_EXPR_PROMOTION:
      g_string_append (out, "promote(");
      mir_append_expr (out, e->u.promotion.expr);
      g_string_append (out, ", ");
      append_type (out, e->u.promotion.to);
      g_string_append (out, e->u.promotion.ad == TILDE_AD_DATA ? ", data)" : ", var)");
      break;
    case MIR_EXPR_TUPLE_PROJ:
      mir_append_expr (out, e->u.proj.base);
      g_string_append_printf (out, ".%d", e->u.proj.slot);
      break;
    case MIR_N_EXPR_KINDS:
      g_assert_not_reached ();
    }
}

static void
append_index (GString *out, const MirIndex *i)
{
  switch (i->kind)
    {
    case MIR_INDEX_ALL:
      g_string_append_c (out, ':');
      break;
    case MIR_INDEX_SINGLE:
    case MIR_INDEX_MULTI:
      mir_append_expr (out, i->e);
      break;
    case MIR_INDEX_UPFROM:
      mir_append_expr (out, i->e);
      g_string_append_c (out, ':');
      break;
    case MIR_INDEX_BETWEEN:
      mir_append_expr (out, i->e);
      g_string_append_c (out, ':');
      mir_append_expr (out, i->upper);
      break;
    }
}

static void
append_index_list (GString *out, const GPtrArray *indices)
{
  if (!indices || indices->len == 0)
    return;
  g_string_append_c (out, '[');
  for (guint i = 0; i < indices->len; i++)
    {
      if (i)
        g_string_append (out, ", ");
      append_index (out, g_ptr_array_index (indices, i));
    }
  g_string_append_c (out, ']');
}

char *
mir_print_expr (const MirExpr *expr)
{
  GString *out = g_string_new (NULL);
  mir_append_expr (out, expr);
  return g_string_free (out, FALSE);
}

/* ---- types ---- */

static void
append_sized (GString *out, const MirSizedType *t)
{
  static const char *const names[] = {
    [MIR_SIZED_INT] = "int", [MIR_SIZED_REAL] = "real", [MIR_SIZED_COMPLEX] = "complex",
    [MIR_SIZED_VECTOR] = "vector", [MIR_SIZED_ROW_VECTOR] = "row_vector",
    [MIR_SIZED_MATRIX] = "matrix", [MIR_SIZED_COMPLEX_VECTOR] = "complex_vector",
    [MIR_SIZED_COMPLEX_ROW_VECTOR] = "complex_row_vector",
    [MIR_SIZED_COMPLEX_MATRIX] = "complex_matrix", [MIR_SIZED_ARRAY] = "array",
    [MIR_SIZED_TUPLE] = "tuple",
  };
  g_string_append (out, names[t->kind]);
  switch (t->kind)
    {
    case MIR_SIZED_INT:
    case MIR_SIZED_REAL:
    case MIR_SIZED_COMPLEX:
      break;
    case MIR_SIZED_VECTOR:
    case MIR_SIZED_ROW_VECTOR:
    case MIR_SIZED_COMPLEX_VECTOR:
    case MIR_SIZED_COMPLEX_ROW_VECTOR:
      g_string_append_c (out, '[');
      mir_append_expr (out, t->dim1);
      g_string_append_c (out, ']');
      break;
    case MIR_SIZED_MATRIX:
    case MIR_SIZED_COMPLEX_MATRIX:
      g_string_append_c (out, '[');
      mir_append_expr (out, t->dim1);
      g_string_append (out, ", ");
      mir_append_expr (out, t->dim2);
      g_string_append_c (out, ']');
      break;
    case MIR_SIZED_ARRAY:
      g_string_append_c (out, '[');
      append_sized (out, t->elem);
      g_string_append (out, ", ");
      mir_append_expr (out, t->dim1);
      g_string_append_c (out, ']');
      break;
    case MIR_SIZED_TUPLE:
      g_string_append_c (out, '(');
      for (guint i = 0; i < t->members->len; i++)
        {
          if (i)
            g_string_append (out, ", ");
          append_sized (out, g_ptr_array_index (t->members, i));
        }
      g_string_append_c (out, ')');
      break;
    }
}

char *
mir_print_sized_type (const MirSizedType *type)
{
  GString *out = g_string_new (NULL);
  append_sized (out, type);
  return g_string_free (out, FALSE);
}

char *
mir_print_transform (const MirTransform *trans)
{
  GString *out = g_string_new (NULL);
  Sexp sx = { out, FALSE };
  sexp_transform (&sx, trans);
  return g_string_free (out, FALSE);
}

/* ---- statements: a line printer ---- */

typedef struct {
  GString      *out;
  GArray       *spans;     /* TildeSpan per finished line, or NULL */
  int           indent;
  TildeSpan     span;      /* the span of the line being written */
  gboolean      line_open; /* something written on the current line */
  MirPrintFlags flags;
  const char   *comment;   /* to close the current line with, or NULL */
  char         *owned;     /* the comment, when it was made for this line */
  const MirFunDef *fun;    /* the function being printed, or NULL */
} Printer;

static const TildeSpan no_span;

/* Starts a new line at the current indentation, attributed to `span`. */
static void
end_comment (Printer *p)
{
  if (p->comment)
    g_string_append_printf (p->out, " //%s", p->comment);
  p->comment = NULL;
  g_clear_pointer (&p->owned, g_free);
}

static void
begin_line (Printer *p, const TildeSpan *span)
{
  if (p->line_open)
    {
      end_comment (p);
      g_string_append_c (p->out, '\n');
      if (p->spans)
        g_array_append_val (p->spans, p->span);
    }
  g_string_append_printf (p->out, "%*s", p->indent, "");
  p->span = span ? *span : no_span;
  p->line_open = TRUE;
}

static void
finish (Printer *p)
{
  if (!p->line_open)
    return;
  end_comment (p);
  g_string_append_c (p->out, '\n');
  if (p->spans)
    g_array_append_val (p->spans, p->span);
  p->line_open = FALSE;
}

static void
emit (Printer *p, const char *text)
{
  g_string_append (p->out, text);
}

static void print_stmt (Printer *p, const MirStmt *s);

static void
print_annotations (Printer *p, const MirAnnotations *a)
{
  if (!(p->flags & MIR_PRINT_ANNOTATIONS))
    return;
  for (guint i = 0; i < a->n; i++)
    g_string_append_printf (p->out, "@%s ", a->names[i]);
}

/* `{`, the statements one a line, `}` — continuing the current line. */
static void
print_braced (Printer *p, const GPtrArray *stmts, const TildeSpan *span)
{
  if (!stmts || stmts->len == 0)
    {
      emit (p, "{ }");
      return;
    }
  emit (p, "{");
  p->indent += 2;
  for (guint i = 0; i < stmts->len; i++)
    {
      const MirStmt *s = g_ptr_array_index (stmts, i);
      begin_line (p, &s->span);
      print_stmt (p, s);
    }
  p->indent -= 2;
  begin_line (p, span);
  emit (p, "}");
}

static void
print_lvalue (Printer *p, const MirLvalue *l)
{
  if (l->proj_of)
    {
      print_lvalue (p, l->proj_of);
      g_string_append_printf (p->out, ".%d", l->slot);
    }
  else
    emit (p, l->var);
  append_index_list (p->out, l->indices);
}

/* " by arguments y, mu": the arguments of the function being printed
 * that a term's role depends on. */
static char *
role_arguments (const Printer *p, const MirStmt *s, gboolean tilde)
{
  GString *text = g_string_new (tilde ? " ~ by arguments" : " by arguments");
  guint n = p->fun && p->fun->args ? p->fun->args->len : 0;
  const char *sep = " ";
  for (guint i = 0; i < n; i++)
    if (s->u.increment.role_args & (G_GUINT64_CONSTANT (1) << MIN (i, 63u)))
      {
        g_string_append_printf (text, "%s%s", sep, g_array_index (p->fun->args, MirFunArg, i).name);
        sep = ", ";
      }
  return g_string_free (text, FALSE);
}

/* Where a `target +=` came from, said once at the end of its line. */
static void
note_role (Printer *p, const MirStmt *s)
{
  gboolean tilde = s->u.increment.from_tilde;
  if (p->comment)
    return;
  switch (s->u.increment.role)
    {
    case MIR_TERM_PRIOR:
      p->comment = tilde ? " ~ prior" : " prior";
      break;
    case MIR_TERM_LIKELIHOOD:
      p->comment = tilde ? " ~ likelihood" : " likelihood";
      break;
    case MIR_TERM_BY_ARGUMENTS:
      p->owned = role_arguments (p, s, tilde);
      p->comment = p->owned;
      break;
    }
}

static void
print_decl (Printer *p, const MirStmt *s)
{
  print_annotations (p, &s->u.decl.annotations);
  if (s->u.decl.ad == TILDE_AD_DATA)
    emit (p, "data ");
  if (s->u.decl.sized)
    append_sized (p->out, s->u.decl.sized);
  else
    append_type (p->out, s->u.decl.type);
  g_string_append_printf (p->out, " %s", s->u.decl.name);
  if (s->u.decl.init_kind == MIR_DECL_ASSIGN && s->u.decl.init)
    {
      emit (p, " = ");
      mir_append_expr (p->out, s->u.decl.init);
    }
  emit (p, ";");
}

/* A statement continuing the current line (after `if(...) `, ...). */
static void
print_stmt (Printer *p, const MirStmt *s)
{
  GString *out = p->out;
  switch (s->kind)
    {
    case MIR_STMT_ASSIGN:
      print_lvalue (p, s->u.assign.lhs);
      emit (p, " = ");
      mir_append_expr (out, s->u.assign.rhs);
      emit (p, ";");
      break;
    case MIR_STMT_TARGET_PLUS:
    case MIR_STMT_JACOBIAN_PLUS:
      emit (p, s->kind == MIR_STMT_TARGET_PLUS ? "target += " : "jacobian += ");
      mir_append_expr (out, s->u.increment.expr);
      emit (p, ";");
      if (s->kind == MIR_STMT_TARGET_PLUS && (p->flags & MIR_PRINT_TERM_ROLES))
        note_role (p, s);
      break;
    case MIR_STMT_NR_CALL:
      append_call (out, &s->u.call.fun, s->u.call.args);
      emit (p, ";");
      break;
    case MIR_STMT_BREAK:
      emit (p, "break;");
      break;
    case MIR_STMT_CONTINUE:
      emit (p, "continue;");
      break;
    case MIR_STMT_SKIP:
      emit (p, ";");
      break;
    case MIR_STMT_RETURN:
      if (s->u.ret.expr)
        {
          emit (p, "return ");
          mir_append_expr (out, s->u.ret.expr);
          emit (p, ";");
        }
      else
        emit (p, "return;");
      break;
    case MIR_STMT_IF:
      emit (p, "if(");
      mir_append_expr (out, s->u.if_stmt.cond);
      emit (p, ") ");
      print_stmt (p, s->u.if_stmt.then_stmt);
      if (s->u.if_stmt.else_stmt)
        {
          emit (p, " else ");
          print_stmt (p, s->u.if_stmt.else_stmt);
        }
      break;
    case MIR_STMT_WHILE:
      emit (p, "while(");
      mir_append_expr (out, s->u.while_stmt.cond);
      emit (p, ") ");
      print_stmt (p, s->u.while_stmt.body);
      break;
    case MIR_STMT_FOR:
      g_string_append_printf (out, "for(%s in ", s->u.for_stmt.var);
      mir_append_expr (out, s->u.for_stmt.lower);
      emit (p, ":");
      mir_append_expr (out, s->u.for_stmt.upper);
      emit (p, ") ");
      print_stmt (p, s->u.for_stmt.body);
      break;
    case MIR_STMT_PROFILE:
      emit (p, "profile(");
      append_ocaml_string (out, s->u.profile.name);
      emit (p, ")");
      print_braced (p, s->u.profile.stmts, &s->span);
      break;
    case MIR_STMT_BLOCK:
      print_braced (p, s->u.block.stmts, &s->span);
      break;
    case MIR_STMT_SLIST:
      for (guint i = 0; i < s->u.block.stmts->len; i++)
        {
          const MirStmt *child = g_ptr_array_index (s->u.block.stmts, i);
          if (i)
            begin_line (p, &child->span);
          print_stmt (p, child);
        }
      break;
    case MIR_STMT_DECL:
      print_decl (p, s);
      break;
    case MIR_N_STMT_KINDS:
      g_assert_not_reached ();
    }
}

char *
mir_print_stmt (const MirStmt *stmt, MirPrintFlags flags)
{
  Printer p = { .out = g_string_new (NULL), .flags = flags };
  begin_line (&p, &stmt->span);
  print_stmt (&p, stmt);
  finish (&p);
  return g_string_free (p.out, FALSE);
}

/* ---- programs ---- */

/* stanc's program blocks: the header, the elements one a line indented by
 * two, and the closing brace after the last element. */
typedef void (*ElemPrinter) (Printer *p, gconstpointer elem);

static gboolean
print_part_block (Printer *p, const char *label, const GPtrArray *elems, ElemPrinter print,
                  gboolean blank_before)
{
  if (!elems || elems->len == 0)
    return FALSE;
  gboolean brace_on_own_line = strcmp (label, "output_vars") == 0;
  if (blank_before)
    {
      begin_line (p, NULL);
      finish (p);
    }
  begin_line (p, NULL);
  g_string_append_printf (p->out, "%s {", label);
  p->indent += 2;
  for (guint i = 0; i < elems->len; i++)
    print (p, g_ptr_array_index (elems, i));
  p->indent -= 2;
  if (brace_on_own_line)
    begin_line (p, NULL);
  else
    emit (p, " ");
  emit (p, "}");
  finish (p);
  return TRUE;
}

static void
print_stmt_elem (Printer *p, gconstpointer elem)
{
  const MirStmt *s = elem;
  begin_line (p, &s->span);
  print_stmt (p, s);
}

static void
print_fun_args (Printer *p, const GArray *args)
{
  emit (p, "(");
  for (guint i = 0; i < args->len; i++)
    {
      const MirFunArg *a = &g_array_index (args, MirFunArg, i);
      if (i)
        emit (p, ", ");
      if (a->ad == TILDE_AD_DATA)
        emit (p, "data ");
      append_type (p->out, a->type);
      g_string_append_printf (p->out, " %s", a->name);
    }
  emit (p, ")");
}

static void
print_fun_elem (Printer *p, gconstpointer elem)
{
  const MirFunDef *f = elem;
  begin_line (p, &f->span);
  print_annotations (p, &f->annotations);
  if (!f->body)
    emit (p, "extern ");
  append_type (p->out, f->return_type);
  g_string_append_printf (p->out, " %s", f->name);
  print_fun_args (p, f->args);
  if (!f->body)
    {
      emit (p, ";");
      return;
    }
  emit (p, " {");
  p->indent += 2;
  begin_line (p, &f->body->span);
  p->fun = f;
  print_stmt (p, f->body);
  p->fun = NULL;
  p->indent -= 2;
  begin_line (p, &f->span);
  emit (p, "}");
}

static void
print_input_elem (Printer *p, gconstpointer elem)
{
  const MirInputVar *v = elem;
  begin_line (p, &v->span);
  print_annotations (p, &v->annotations);
  append_sized (p->out, v->type);
  g_string_append_printf (p->out, " %s;", v->name);
}

static void
print_output_elem (Printer *p, gconstpointer elem)
{
  static const char *const blocks[] = {
    "parameters", "transformed_parameters", "generated_quantities",
  };
  const MirOutputVar *v = elem;
  begin_line (p, &v->span);
  g_string_append_printf (p->out, "%s ", blocks[v->block]);
  append_sized (p->out, v->constrained);
  g_string_append_printf (p->out, " %s; //", v->name);
  append_sized (p->out, v->unconstrained);
}

char *
mir_print_program (const MirProgram *program, MirPrintFlags flags, GArray **line_spans)
{
  Printer p = { .out = g_string_new (NULL), .flags = flags };
  if (line_spans)
    p.spans = g_array_new (FALSE, TRUE, sizeof (TildeSpan));

  /* Blocks are separated by a blank line, except that output_vars follows
   * the last block directly, as in stanc's output. */
  gboolean any = FALSE;
  any |= print_part_block (&p, "functions", program->functions, print_fun_elem, any);
  any |= print_part_block (&p, "input_vars", program->input_vars, print_input_elem, any);
  for (int part = 0; part < MIR_N_PARTS; part++)
    any |= print_part_block (&p, mir_part_name (part), program->parts[part],
                             print_stmt_elem, any);
  print_part_block (&p, "output_vars", program->output_vars, print_output_elem, FALSE);
  finish (&p);

  if (line_spans)
    *line_spans = p.spans;
  return g_string_free (p.out, FALSE);
}
