/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every model of the syntax corpus (tests/syntax/models/valid) and of the
 * reference posteriors ($TILDE_REFERENCE_DIR/<name>/model.stan) lowers,
 * transforms and prints; every node of the result has a type and a span;
 * copies are equal to their original and survive it; the printer's line
 * spans point at the statements printed on each line.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir-test-util.h"
#include "mir/mir-lower.h"
#include "mir/mir-mem-pattern.h"
#include "mir/mir-print.h"
#include "mir/mir-transform.h"

/* ---- the node walker ---- */

typedef struct {
  const char *model;
  guint       exprs;
  guint       stmts;
  guint       bad;
} Census;

static void
bad_node (Census *c, const char *what, const char *kind, const TildeSpan *span)
{
  if (c->bad++ < 5)
    g_test_message ("%s: %s %s without %s (line %d)", c->model, what, kind,
                    span && span->file ? "a type" : "a span", span ? span->begin_line : 0);
}

static void
check_expr (MirExpr *e, gpointer data)
{
  Census *c = data;
  c->exprs++;
  if (!e->type || !e->span.file || e->span.begin_line < 1)
    bad_node (c, "expression", mir_expr_kind_name (e->kind), &e->span);
  mir_expr_foreach_child (e, check_expr, data);
}

static void
check_sized (Census *c, const MirSizedType *t)
{
  if (!t)
    return;
  if (t->dim1)
    check_expr (t->dim1, c);
  if (t->dim2)
    check_expr (t->dim2, c);
  check_sized (c, t->elem);
  for (guint i = 0; t->members && i < t->members->len; i++)
    check_sized (c, g_ptr_array_index (t->members, i));
}

static void
check_stmt (MirStmt *s, gpointer data)
{
  Census *c = data;
  c->stmts++;
  if (!s->span.file || s->span.begin_line < 1)
    bad_node (c, "statement", mir_stmt_kind_name (s->kind), NULL);
  if (s->kind == MIR_STMT_DECL && !s->u.decl.type)
    bad_node (c, "declaration", s->u.decl.name, &s->span);
  if (s->kind == MIR_STMT_ASSIGN && (!s->u.assign.lhs->type || !s->u.assign.lhs->span.file))
    bad_node (c, "assignee", mir_lvalue_variable (s->u.assign.lhs), &s->u.assign.lhs->span);
  mir_stmt_foreach_expr (s, check_expr, data);
}

static void
check_every_node (const char *model, MirProgram *p)
{
  Census c = { model, 0, 0, 0 };
  mir_program_walk_stmts (p, check_stmt, &c);
  for (guint i = 0; i < p->input_vars->len; i++)
    check_sized (&c, ((MirInputVar *) g_ptr_array_index (p->input_vars, i))->type);
  for (guint i = 0; i < p->output_vars->len; i++)
    {
      MirOutputVar *v = g_ptr_array_index (p->output_vars, i);
      check_sized (&c, v->constrained);
      check_sized (&c, v->unconstrained);
    }
  if (c.bad)
    {
      g_test_message ("%s: %u of %u expressions and %u statements lack a type or span",
                      model, c.bad, c.exprs, c.stmts);
      g_test_fail ();
    }
}

/* ---- line spans ---- */

static void
check_line_spans (const char *model, MirProgram *p)
{
  GArray *spans = NULL;
  g_autofree char *text = mir_print_program (p, MIR_PRINT_DEFAULT, &spans);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n_lines = g_strv_length (lines) - 1;   /* the text ends with a newline */
  g_assert_cmpuint (spans->len, ==, n_lines);

  /* a line that starts a declaration names the variable its span covers */
  for (guint i = 0; i < n_lines; i++)
    {
      const TildeSpan *span = &g_array_index (spans, TildeSpan, i);
      const char *line = g_strstrip (g_strdup (lines[i]));
      if (g_str_has_suffix (line, "{") && !span->file)
        ;   /* block headers come from no statement */
      else if ((g_str_has_prefix (line, "target +=") || g_str_has_prefix (line, "FnValidateSize"))
               && !span->file)
        {
          g_test_message ("%s: line %u (%s) has no span", model, i + 1, line);
          g_test_fail ();
        }
      g_free ((char *) line);
    }
  g_array_unref (spans);
}

/* ---- copies ---- */

static void
check_copy (const char *model, MirProgram *p)
{
  MirProgram *copy = mir_program_copy (p);
  g_assert_true (mir_program_equal (p, copy));
  g_autofree char *before = mir_print_program (p, MIR_PRINT_TERM_ROLES, NULL);
  g_autofree char *copied = mir_print_program (copy, MIR_PRINT_TERM_ROLES, NULL);
  g_assert_cmpstr (before, ==, copied);

  /* a change to the copy makes it differ, and leaves the original alone */
  GPtrArray *log_prob = copy->parts[MIR_PART_LOG_PROB];
  if (log_prob->len > 0)
    {
      g_ptr_array_add (log_prob, mir_stmt_new (MIR_STMT_SKIP, NULL));
      g_assert_false (mir_program_equal (p, copy));
      g_autofree char *again = mir_print_program (p, MIR_PRINT_TERM_ROLES, NULL);
      g_assert_cmpstr (before, ==, again);
    }
  mir_program_free (copy);
  (void) model;
}

static void
run_model (const char *model, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) r = tilde_frontend_check_file (path, NULL, &error);
  g_assert_no_error (error);
  if (tilde_check_result_has_errors (r))
    {
      g_autofree char *why = tilde_check_result_render_first_error (r);
      g_test_message ("%s does not type-check; not lowered:\n%s", model, why);
      return;
    }
  g_autoptr (MirProgram) p = mir_lower_program (tilde_check_result_get_program (r));
  if (!p)
    {
      g_test_message ("%s: lowering failed", model);
      g_test_fail ();
      return;
    }
  g_autoptr (MirProgram) t = mir_transform_program (p);
  g_assert_true (t->transformed);
  g_assert_false (p->transformed);
  for (MirProgram *q = p; q; q = q == p ? t : NULL)
    {
      g_autofree char *text = mir_print_program (q, MIR_PRINT_TERM_ROLES | MIR_PRINT_ANNOTATIONS,
                                                 NULL);
      g_assert_nonnull (text);
      check_every_node (model, q);
      check_line_spans (model, q);
      check_copy (model, q);
    }
  g_autofree char *patterns = mir_mem_patterns_explain (t);
  g_assert_nonnull (patterns);
  /* transforming again changes nothing */
  g_autoptr (MirProgram) tt = mir_transform_program (t);
  g_assert_true (mir_program_equal (t, tt));
}

static void
test_model (gconstpointer data)
{
  const char *path = data;
  g_autofree char *base = g_path_get_basename (path);
  run_model (base, path);
}

static GPtrArray *
list_models (const char *dir, gboolean reference)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      char *path = reference ? g_build_filename (dir, name, "model.stan", NULL)
                             : g_build_filename (dir, name, NULL);
      if ((reference || g_str_has_suffix (name, ".stan")) && g_file_test (path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
  g_ptr_array_sort (out, (GCompareFunc) g_strcmp0);
  return out;
}

static void
test_reference_absent (void)
{
  g_test_skip ("TILDE_REFERENCE_DIR is not set or holds no models");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_autofree char *syntax_dir = g_test_build_filename (G_TEST_DIST, "syntax", "models",
                                                       "valid", NULL);
  g_autoptr (GPtrArray) syntax = list_models (syntax_dir, FALSE);
  g_autofree char *mir_dir = g_test_build_filename (G_TEST_DIST, "mir", "models", NULL);
  g_autoptr (GPtrArray) own = list_models (mir_dir, FALSE);
  const char *ref_dir = g_getenv ("TILDE_REFERENCE_DIR");
  g_autoptr (GPtrArray) reference = ref_dir ? list_models (ref_dir, TRUE)
                                            : g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpuint (syntax->len, >, 10);

  for (guint i = 0; i < syntax->len; i++)
    {
      const char *path = g_ptr_array_index (syntax, i);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *test = g_strconcat ("/mir/corpus/syntax/", base, NULL);
      g_test_add_data_func (test, path, test_model);
    }
  for (guint i = 0; i < own->len; i++)
    {
      const char *path = g_ptr_array_index (own, i);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *test = g_strconcat ("/mir/corpus/fixtures/", base, NULL);
      g_test_add_data_func (test, path, test_model);
    }
  if (reference->len == 0)
    g_test_add_func ("/mir/corpus/reference", test_reference_absent);
  for (guint i = 0; i < reference->len; i++)
    {
      const char *path = g_ptr_array_index (reference, i);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (dir);
      g_autofree char *test = g_strconcat ("/mir/corpus/reference/", base, NULL);
      g_test_add_data_func (test, path, test_model);
    }
  return g_test_run ();
}
