/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "syntax/printer.h"
#include "syntax-test-util.h"

/*
 * The formatter against stanc's own expected output (models/format: each
 * `<model>.<options>.expected` holds what stanc printed for `<model>.stan`),
 * and, over every model we have, the properties --auto-format promises:
 * formatting twice changes nothing, the output parses to the same program,
 * and no comment is lost or doubled.
 */

static TildeProgram *
parse_ok (const char *name, const char *text)
{
  g_autoptr(GPtrArray) diags = NULL;
  TildeProgram *program = syntax_test_parse (name, text, &diags);

  if (diags->len)
    {
      g_autofree char *all = syntax_test_render_all (diags, program);
      g_test_message ("%s\n%s", text, all);
    }
  g_assert_cmpuint (diags->len, ==, 0);
  return program;
}

static char *
format (const char *name, const char *text)
{
  g_autoptr(TildeProgram) p = parse_ok (name, text);

  return tilde_format_program (p, NULL);
}

static char *
format_with (const char *name, const char *text, TildeCanonicalizeFlags canon, int width)
{
  g_autoptr(TildeProgram) p = parse_ok (name, text);
  TildeFormatOptions opts;

  tilde_format_options_init (&opts);
  opts.canonicalize = canon;
  opts.max_line_length = width;
  return tilde_format_program (p, &opts);
}

/* ---- stanc's expected output ---- */

typedef struct {
  const char            *tag;
  TildeCanonicalizeFlags canon;
  int                    width;
} ExpectedMode;

static const ExpectedMode expected_modes[] = {
  { "auto", TILDE_CANONICALIZE_NONE, 78 },                               /* --auto-format */
  { "canonical", TILDE_CANONICALIZE_ALL, 78 },                           /* --print-canonical */
  { "braces-parentheses",
    TILDE_CANONICALIZE_BRACES | TILDE_CANONICALIZE_PARENTHESES, 78 },
  { "deprecations", TILDE_CANONICALIZE_DEPRECATIONS, 78 },
  { "w40", TILDE_CANONICALIZE_NONE, 40 },                                /* --max-line-length=40 */
  { "w120", TILDE_CANONICALIZE_NONE, 120 },
};

static void
check_expected (gconstpointer data)
{
  const char *expected_name = data;
  const char *dot = strchr (expected_name, '.');
  g_autofree char *stem = g_strndup (expected_name, (gsize) (dot - expected_name));
  g_autofree char *tag = g_strndup (dot + 1, strlen (dot + 1) - strlen (".expected"));
  g_autofree char *model_name = g_strconcat (stem, ".stan", NULL);
  g_autofree char *model_path = syntax_test_model_path ("format", model_name, NULL);
  g_autofree char *expected_path = syntax_test_model_path ("format", expected_name, NULL);
  g_autofree char *model = syntax_test_read (model_path);
  g_autofree char *expected = syntax_test_read (expected_path);
  const ExpectedMode *mode = NULL;
  g_autofree char *out = NULL;
  g_autofree char *printed = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (expected_modes); i++)
    if (strcmp (expected_modes[i].tag, tag) == 0)
      mode = &expected_modes[i];
  g_assert_nonnull (mode);
  out = format_with (model_name, model, mode->canon, mode->width);
  /* stanc prints the formatted text and a newline */
  printed = g_strconcat (out, "\n", NULL);
  g_assert_cmpstr (printed, ==, expected);
}

/* ---- properties over a corpus ---- */

typedef struct {
  char  *name;       /* test name */
  char  *path;
} CorpusModel;

static void
corpus_model_free (gpointer data)
{
  CorpusModel *m = data;

  g_free (m->name);
  g_free (m->path);
  g_free (m);
}

static TildeProgram *
parse_text (const char *path, const char *text, GPtrArray *diags)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  const char *const includes[] = { dir, NULL };
  TildeParseFlags flags = g_str_has_suffix (path, ".stanfunctions")
                            ? TILDE_PARSE_FUNCTIONS_ONLY : TILDE_PARSE_DEFAULT;

  return tilde_parse_buffer (base, dir, text, -1, includes, flags, diags);
}

static void
assert_no_errors (GPtrArray *diags, TildeProgram *p, const char *what, const char *text)
{
  if (syntax_test_first_error (diags))
    {
      g_autofree char *all = syntax_test_render_all (diags, p);

      g_test_message ("%s:\n%s\n%s", what, text, all);
      g_assert_null (syntax_test_first_error (diags));
    }
}

/* Canonicalization changes the tree in three ways only; undoing them on both
 * sides lets tilde_program_equal() check that nothing else changed. */
typedef struct {
  gboolean parens;
  gboolean blocks;
} Normalize;

static void norm_expr (TildeExpr **slot, const Normalize *n);
static void norm_stmt (TildeStmt *s, const Normalize *n);

static void
norm_exprs (TildeExpr **list, int count, const Normalize *n)
{
  for (int i = 0; i < count; i++)
    norm_expr (&list[i], n);
}

static void
norm_sized_type (TildeSizedType *t, const Normalize *n)
{
  if (t == NULL)
    return;
  norm_expr (&t->size1, n);
  norm_expr (&t->size2, n);
  norm_expr (&t->bounds.lower, n);
  norm_expr (&t->bounds.upper, n);
  norm_expr (&t->bounds.offset, n);
  norm_expr (&t->bounds.multiplier, n);
  norm_exprs (t->dims, t->n_dims, n);
  norm_sized_type (t->element, n);
  for (int i = 0; i < t->n_elements; i++)
    norm_sized_type (t->elements[i], n);
}

static void
norm_expr (TildeExpr **slot, const Normalize *n)
{
  TildeExpr *e;

  if (*slot == NULL)
    return;
  while (n->parens && (*slot)->kind == TILDE_EXPR_PAREN)
    *slot = (*slot)->u.paren.inner;
  e = *slot;
  switch (e->kind)
    {
    case TILDE_EXPR_BINARY:
      norm_expr (&e->u.binary.lhs, n);
      norm_expr (&e->u.binary.rhs, n);
      break;
    case TILDE_EXPR_PREFIX:
      norm_expr (&e->u.prefix.operand, n);
      break;
    case TILDE_EXPR_TRANSPOSE:
      norm_expr (&e->u.transpose.operand, n);
      break;
    case TILDE_EXPR_TERNARY:
      norm_expr (&e->u.ternary.cond, n);
      norm_expr (&e->u.ternary.if_true, n);
      norm_expr (&e->u.ternary.if_false, n);
      break;
    case TILDE_EXPR_CALL:
    case TILDE_EXPR_COND_CALL:
      norm_exprs (e->u.call.args, e->u.call.n_args, n);
      break;
    case TILDE_EXPR_INDEXED:
      norm_expr (&e->u.indexed.base, n);
      for (int i = 0; i < e->u.indexed.n_indices; i++)
        {
          norm_expr (&e->u.indexed.indices[i].lower, n);
          norm_expr (&e->u.indexed.indices[i].upper, n);
        }
      break;
    case TILDE_EXPR_TUPLE_PROJ:
      norm_expr (&e->u.proj.base, n);
      break;
    case TILDE_EXPR_ARRAY:
    case TILDE_EXPR_ROW_VECTOR:
    case TILDE_EXPR_TUPLE:
      norm_exprs (e->u.list.items, e->u.list.n_items, n);
      break;
    case TILDE_EXPR_PAREN:
      norm_expr (&e->u.paren.inner, n);
      break;
    default:
      break;
    }
}

static void
norm_body (TildeStmt **slot, const Normalize *n)
{
  if (*slot == NULL)
    return;
  norm_stmt (*slot, n);
  while (n->blocks && (*slot)->kind == TILDE_STMT_BLOCK && (*slot)->u.block.n_stmts == 1)
    *slot = (*slot)->u.block.stmts[0];
}

static void
norm_stmt (TildeStmt *s, const Normalize *n)
{
  switch (s->kind)
    {
    case TILDE_STMT_VAR_DECL:
      norm_sized_type (s->u.var_decl.type, n);
      for (int i = 0; i < s->u.var_decl.n_items; i++)
        norm_expr (&s->u.var_decl.items[i].init, n);
      break;
    case TILDE_STMT_FUN_DEF:
      if (s->u.fun_def.body)
        norm_stmt (s->u.fun_def.body, n);
      break;
    case TILDE_STMT_ASSIGN:
      norm_expr (&s->u.assign.lhs, n);
      norm_expr (&s->u.assign.rhs, n);
      break;
    case TILDE_STMT_TILDE:
      norm_expr (&s->u.tilde.arg, n);
      norm_exprs (s->u.tilde.args, s->u.tilde.n_args, n);
      norm_expr (&s->u.tilde.trunc_lower, n);
      norm_expr (&s->u.tilde.trunc_upper, n);
      break;
    case TILDE_STMT_TARGET_PLUS:
    case TILDE_STMT_JACOBIAN_PLUS:
      norm_expr (&s->u.increment.expr, n);
      break;
    case TILDE_STMT_CALL:
      norm_exprs (s->u.call.args, s->u.call.n_args, n);
      break;
    case TILDE_STMT_PRINT:
    case TILDE_STMT_REJECT:
    case TILDE_STMT_FATAL_ERROR:
      norm_exprs (s->u.printables.items, s->u.printables.n_items, n);
      break;
    case TILDE_STMT_RETURN:
      norm_expr (&s->u.ret.expr, n);
      break;
    case TILDE_STMT_IF:
      norm_expr (&s->u.if_stmt.cond, n);
      norm_body (&s->u.if_stmt.then_stmt, n);
      norm_body (&s->u.if_stmt.else_stmt, n);
      break;
    case TILDE_STMT_WHILE:
      norm_expr (&s->u.while_stmt.cond, n);
      norm_body (&s->u.while_stmt.body, n);
      break;
    case TILDE_STMT_FOR:
      norm_expr (&s->u.for_stmt.lower, n);
      norm_expr (&s->u.for_stmt.upper, n);
      norm_body (&s->u.for_stmt.body, n);
      break;
    case TILDE_STMT_FOREACH:
      norm_expr (&s->u.foreach_stmt.container, n);
      norm_body (&s->u.foreach_stmt.body, n);
      break;
    case TILDE_STMT_PROFILE:
      for (int i = 0; i < s->u.profile.n_stmts; i++)
        norm_stmt (s->u.profile.stmts[i], n);
      break;
    case TILDE_STMT_BLOCK:
      for (int i = 0; i < s->u.block.n_stmts; i++)
        norm_stmt (s->u.block.stmts[i], n);
      break;
    default:
      break;
    }
}

static gboolean
same_signature (const TildeStmt *a, const TildeStmt *b)
{
  if (a->u.fun_def.name.name != b->u.fun_def.name.name
      || a->u.fun_def.n_args != b->u.fun_def.n_args)
    return FALSE;
  for (int i = 0; i < a->u.fun_def.n_args; i++)
    {
      g_autofree char *ta = tilde_print_unsized_type (a->u.fun_def.args[i].type);
      g_autofree char *tb = tilde_print_unsized_type (b->u.fun_def.args[i].type);

      if (a->u.fun_def.args[i].data_only != b->u.fun_def.args[i].data_only
          || strcmp (ta, tb) != 0)
        return FALSE;
    }
  return TRUE;
}

/* stanc 2.36's deprecation rewrite: forward declarations of defined
 * functions go. */
static void
drop_forward_declarations (TildeProgram *p)
{
  TildeBlock *fb = p->blocks[TILDE_BLOCK_FUNCTIONS];
  int kept = 0;

  if (fb == NULL)
    return;
  for (int i = 0; i < fb->n_stmts; i++)
    {
      TildeStmt *s = fb->stmts[i];
      gboolean defined = FALSE;

      if (s->kind == TILDE_STMT_FUN_DEF && s->u.fun_def.body == NULL)
        for (int j = 0; j < fb->n_stmts; j++)
          {
            const TildeStmt *d = fb->stmts[j];

            if (d->kind == TILDE_STMT_FUN_DEF && d->u.fun_def.body && same_signature (d, s))
              defined = TRUE;
          }
      if (!defined)
        fb->stmts[kept++] = s;
    }
  fb->n_stmts = kept;
}

static void
normalize (TildeProgram *p, TildeCanonicalizeFlags canon)
{
  Normalize n = { (canon & TILDE_CANONICALIZE_PARENTHESES) != 0,
                  (canon & TILDE_CANONICALIZE_BRACES) != 0 };

  if (canon & TILDE_CANONICALIZE_DEPRECATIONS)
    drop_forward_declarations (p);
  for (int k = 0; k < TILDE_N_BLOCKS; k++)
    if (p->blocks[k])
      for (int i = 0; i < p->blocks[k]->n_stmts; i++)
        norm_stmt (p->blocks[k]->stmts[i], &n);
}

/* The texts of the comments (whitespace aside: block comments are
 * re-indented), sorted; of the main file only unless `all_files`. */
static GPtrArray *
comment_texts (const TildeProgram *p, gboolean all_files, int *n_includes)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  const TildeSourceFile *main_file = tilde_source_set_get_main (p->sources);

  *n_includes = 0;
  for (int i = 0; i < p->n_comments; i++)
    {
      const TildeComment *c = &p->comments[i];
      GString *s;

      if (!all_files && c->span.file != main_file)
        continue;
      if (c->kind == TILDE_COMMENT_INCLUDE)
        {
          ++*n_includes;
          continue;
        }
      s = g_string_new (NULL);
      for (guint k = 0; k < c->length; k++)
        if (!g_ascii_isspace (c->text[k]))
          g_string_append_c (s, c->text[k]);
      g_ptr_array_add (texts, g_string_free (s, FALSE));
    }
  g_ptr_array_sort (texts, (GCompareFunc) g_strcmp0);
  return texts;
}

static int
compare_text_ptrs (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static void
assert_same_comments (const TildeProgram *before, const TildeProgram *after,
                      gboolean expanded, gboolean stripped)
{
  int includes_before, includes_after;
  g_autoptr(GPtrArray) a = comment_texts (before, expanded, &includes_before);
  g_autoptr(GPtrArray) b = comment_texts (after, TRUE, &includes_after);

  g_ptr_array_sort (a, compare_text_ptrs);
  g_ptr_array_sort (b, compare_text_ptrs);
  if (stripped)
    g_assert_cmpuint (b->len, ==, 0);
  else
    {
      g_assert_cmpuint (a->len, ==, b->len);
      for (guint i = 0; i < a->len; i++)
        g_assert_cmpstr (a->pdata[i], ==, b->pdata[i]);
    }
  g_assert_cmpint (includes_after, ==, expanded ? 0 : includes_before);
}

static const int widths[] = { 40, 78, 200 };

static void
check_with_options (const char *path, const char *text, const TildeFormatOptions *opts)
{
  g_autoptr(GPtrArray) d0 = tilde_diagnostic_list_new ();
  g_autoptr(GPtrArray) d1 = tilde_diagnostic_list_new ();
  g_autoptr(GPtrArray) d2 = tilde_diagnostic_list_new ();
  g_autoptr(TildeProgram) original = parse_text (path, text, d0);
  g_autofree char *once = NULL;
  g_autofree char *twice = NULL;
  g_autoptr(TildeProgram) reparsed = NULL;
  g_autoptr(TildeProgram) pristine = NULL;

  assert_no_errors (d0, original, "original", text);
  once = tilde_format_program (original, opts);
  reparsed = parse_text (path, once, d1);
  assert_no_errors (d1, reparsed, "formatted", once);
  twice = tilde_format_program (reparsed, opts);
  if (g_strcmp0 (once, twice) != 0)
    g_test_message ("canonicalize %x, width %d:\n%s\n----\n%s", opts->canonicalize,
                    opts->max_line_length, once, twice);
  g_assert_cmpstr (twice, ==, once);
  assert_same_comments (original, reparsed,
                        (opts->canonicalize & TILDE_CANONICALIZE_INCLUDES) != 0,
                        opts->strip_comments);
  /* compared last: normalizing rewires the trees */
  pristine = parse_text (path, text, d2);
  normalize (pristine, opts->canonicalize);
  normalize (reparsed, opts->canonicalize);
  g_assert_true (tilde_program_equal (pristine, reparsed));
}

/* Every canonicalization subset, at three line lengths, with and without
 * comments. */
static void
check_model (gconstpointer data)
{
  const CorpusModel *m = data;
  g_autofree char *text = syntax_test_read (m->path);

  for (int canon = 0; canon <= TILDE_CANONICALIZE_ALL; canon++)
    for (gsize w = 0; w < G_N_ELEMENTS (widths); w++)
      for (int strip = 0; strip < 2; strip++)
        {
          TildeFormatOptions opts;

          tilde_format_options_init (&opts);
          opts.canonicalize = canon;
          opts.max_line_length = widths[w];
          opts.strip_comments = strip;
          check_with_options (m->path, text, &opts);
        }
}

static void
skip_missing (gconstpointer data)
{
  g_test_skip (data);
}

/* Models in `dir` ending in `suffix` (`pattern` picks a file inside each
 * subfolder instead when not NULL). */
static void
add_corpus (GPtrArray *models, const char *label, const char *dir, const char *suffix,
            const char *pattern)
{
  g_autoptr(GDir) d = dir ? g_dir_open (dir, 0, NULL) : NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    {
      g_autofree char *test = g_strdup_printf ("/engine/format/%s", label);

      g_test_add_data_func_full (test, g_strdup_printf ("%s not available", label),
                                 skip_missing, g_free);
      return;
    }
  while ((name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_text_ptrs);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = names->pdata[i];
      g_autofree char *path = pattern ? g_build_filename (dir, n, pattern, NULL)
                                      : g_build_filename (dir, n, NULL);
      CorpusModel *m;

      if (!pattern && !g_str_has_suffix (n, suffix))
        continue;
      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      m = g_new0 (CorpusModel, 1);
      m->name = g_strdup_printf ("/engine/format/%s/%s", label, n);
      m->path = g_steal_pointer (&path);
      g_ptr_array_add (models, m);
    }
}

/* ---- behaviours ---- */

static void
test_layout (void)
{
  g_autofree char *out = format ("messy.stan",
    "data{int<lower=0>N;vector[N]y;}parameters{real mu;real<lower=0>sigma;}"
    "model{y~normal(mu,sigma);if(mu>0){target+=-mu;}else target+=mu;"
    "for(i in 1:N)y[i]~normal(0,1)T[,10];{real z=mu*2;}}");

  /* stanc: "for (i in 1 : N)", " T[ , 10]", a space after ") " before a
   * body on the next line */
  g_assert_cmpstr (out, ==,
    "data {\n"
    "  int<lower=0> N;\n"
    "  vector[N] y;\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "  real<lower=0> sigma;\n"
    "}\n"
    "model {\n"
    "  y ~ normal(mu, sigma);\n"
    "  if (mu > 0) {\n"
    "    target += -mu;\n"
    "  } else \n"
    "    target += mu;\n"
    "  for (i in 1 : N) \n"
    "    y[i] ~ normal(0, 1) T[ , 10];\n"
    "  {\n"
    "    real z = mu * 2;\n"
    "  }\n"
    "}\n");
}

static void
test_declarations_kept_together (void)
{
  g_autofree char *out = format ("decls.stan",
                                 "transformed data {\n  array[2] real a = {1, 2}, b, c = a;\n}\n");

  /* stanc keeps `int a, b;` as written since 2.30 */
  g_assert_cmpstr (out, ==,
    "transformed data {\n"
    "  array[2] real a = {1, 2}, b, c = a;\n"
    "}\n");
}

static void
test_expressions (void)
{
  g_autofree char *out = format ("e.stan",
    "model {\n"
    "  x=(a+b)*-c^2'+{1,2}[1]+[1,2]*(1,2.5).2;\n"
    "  x=f(y|m,s)+g_lpdf(y)+h(y|)+t.1;\n"
    "  x=a?b:c?d:e;\n"
    "  x=v[:,2:,:3,a:b,];\n"
    "  x=2i+1.5e3i+.5+1_000;\n"
    "}\n");

  g_assert_cmpstr (out, ==,
    "model {\n"
    "  x = (a + b) * -c ^ 2' + {1, 2}[1] + [1, 2] * (1, 2.5).2;\n"
    "  x = f(y | m, s) + g_lpdf(y | ) + h(y | ) + t.1;\n"
    "  x = a ? b : c ? d : e;\n"
    "  x = v[ : , 2 : ,  : 3, a : b,  : ];\n"
    "  x = 2i + 1.5e3i + .5 + 1_000;\n"
    "}\n");
}

static void
test_comments_and_blank_lines (void)
{
  g_autofree char *out = format ("c.stan",
    "// top\n"
    "data {  // opening\n"
    "  int N;   // count\n"
    "\n"
    "\n"
    "  /* block */ real x;\n"
    "  real y /* inside */ ;\n"
    "}\n"
    "// end\n");

  /* As stanc: one space before a trailing comment, a comment after "{"
   * moves to the first line of the block, a comment before a statement
   * gets a line of its own, a blank line keeps its indentation, and the
   * text ends where the last comment does (stanc's print adds the final
   * newline). */
  g_assert_cmpstr (out, ==,
    "// top\n"
    "data {\n"
    "  // opening\n"
    "  int N; // count\n"
    "  \n"
    "  /* block */\n"
    "  real x;\n"
    "  real y; /* inside */\n"
    "}\n"
    "// end");
}

static void
test_comments_in_lists (void)
{
  g_autofree char *out = format ("l.stan",
    "model {\n"
    "  y ~ normal(mu, // location\n"
    "             sigma /* scale */);\n"
    "  x = f(/* none */);\n"
    "}\n");

  g_assert_cmpstr (out, ==,
    "model {\n"
    "  y ~ normal(mu, // location\n"
    "             sigma /* scale */);\n"
    "  x = f( /* none */);\n"
    "}\n");
}

static void
test_block_comment_reindented (void)
{
  g_autofree char *out = format ("b.stan",
    "model {\n"
    "      /* first\n"
    "       * second\n"
    "       */\n"
    "  x = 1;\n"
    "}\n");

  /* the later lines keep their place relative to the opening */
  g_assert_cmpstr (out, ==,
    "model {\n"
    "  /* first\n"
    "   * second\n"
    "   */\n"
    "  x = 1;\n"
    "}\n");
}

/* A block comment after a long statement, past the column where a box
 * may open: a one-line comment stays whole on its line, one of several
 * lines moves whole to a line of its own, and a second pass changes
 * nothing (the text after "/" "*" used to move to a new line, and a blank
 * line was added at every pass). */
static void
test_block_comment_past_max_indent (void)
{
  const char *text =
    "generated quantities {\n"
    "  real abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_abcdefgh = 1; /* one */\n"
    "  real abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_abcdefgi = 2; /* two\n"
    "        lines */\n"
    "}\n";
  g_autofree char *once = format ("c.stan", text);
  g_autofree char *twice = format ("c.stan", once);

  g_assert_cmpstr (once, ==,
    "generated quantities {\n"
    "  real abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_abcdefgh = 1; /* one */\n"
    "  real abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz_abcdefgi = 2;\n"
    "  /* two\n"
    "  lines */\n"
    "}\n");
  g_assert_cmpstr (twice, ==, once);
}

static void
test_line_length (void)
{
  const char *text =
    "model {\n"
    "  target += normal_lpdf(y | alpha + beta * x, sigma) + cauchy_lpdf(sigma | 0, 2.5);\n"
    "}\n";
  g_autofree char *at78 = format_with ("w.stan", text, 0, 78);
  g_autofree char *at40 = format_with ("w.stan", text, 0, 40);
  g_autofree char *at200 = format_with ("w.stan", text, 0, 200);

  /* a long sum breaks before its operator, aligned with its first operand */
  g_assert_cmpstr (at78, ==,
    "model {\n"
    "  target += normal_lpdf(y | alpha + beta * x, sigma)\n"
    "            + cauchy_lpdf(sigma | 0, 2.5);\n"
    "}\n");
  g_assert_cmpstr (at200, ==,
    "model {\n"
    "  target += normal_lpdf(y | alpha + beta * x, sigma) + cauchy_lpdf(sigma | 0, 2.5);\n"
    "}\n");
  g_assert_nonnull (strstr (at40, "\n            + cauchy_lpdf(sigma | 0, 2.5);\n"));
}

static void
test_includes_kept_or_expanded (void)
{
  g_autofree char *dir = syntax_test_model_path ("included", NULL);
  g_autofree char *path = g_build_filename (dir, "keep-include.stan", NULL);
  const char *const paths[] = { dir, NULL };
  g_autoptr(GPtrArray) diags = tilde_diagnostic_list_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeProgram) p = tilde_parse_file (path, paths, 0, diags, &error);
  g_autofree char *kept = NULL;
  g_autofree char *expanded = NULL;
  TildeFormatOptions opts;

  g_assert_no_error (error);
  g_assert_cmpuint (diags->len, ==, 0);
  kept = tilde_format_program (p, NULL);
  tilde_format_options_init (&opts);
  opts.canonicalize = TILDE_CANONICALIZE_INCLUDES;
  expanded = tilde_format_program (p, &opts);
  g_assert_cmpstr (kept, ==,
    "functions {\n"
    "  // helpers\n"
    "  #include helpers.stanfunctions\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  mu ~ normal(twice(0), 1); // prior\n"
    "}\n");
  g_assert_cmpstr (expanded, ==,
    "functions {\n"
    "  // helpers\n"
    "  \n"
    "  real twice(real x) {\n"
    "    return 2 * x;\n"
    "  }\n"
    "}\n"
    "parameters {\n"
    "  real mu;\n"
    "}\n"
    "model {\n"
    "  mu ~ normal(twice(0), 1); // prior\n"
    "}\n");
}

static void
test_no_comments (void)
{
  g_autoptr(TildeProgram) p = parse_ok ("n.stan", "// gone\nmodel {\n  x = 1;  // gone too\n}\n");
  g_autofree char *out = tilde_print_program (p, TILDE_PRINT_NO_COMMENTS);
  TildeFormatOptions opts;
  g_autofree char *stripped = NULL;

  g_assert_cmpstr (out, ==, "model {\n  x = 1;\n}\n");
  tilde_format_options_init (&opts);
  g_assert_true (tilde_format_parse_canonicalize ("strip-comments", &opts, NULL));
  stripped = tilde_format_program (p, &opts);
  g_assert_cmpstr (stripped, ==, out);
}

static void
test_forward_declarations (void)
{
  const char *text =
    "functions {\n"
    "  real f(real x);\n"
    "  real g(data real x);\n"
    "  real h(real x);\n"
    "  real f(real x) {\n"
    "    return x;\n"
    "  }\n"
    "  real g(real x) {\n"
    "    return x;\n"
    "  }\n"
    "}\n";
  g_autofree char *auto_out = format_with ("f.stan", text, 0, 78);
  g_autofree char *canon = format_with ("f.stan", text, TILDE_CANONICALIZE_DEPRECATIONS, 78);

  g_assert_cmpstr (auto_out, ==, text);
  /* stanc 2.36 drops a declaration only when a definition has the same
   * argument types, data qualifiers included, and keeps undefined ones */
  g_assert_cmpstr (canon, ==,
    "functions {\n"
    "  real g(data real x);\n"
    "  real h(real x);\n"
    "  real f(real x) {\n"
    "    return x;\n"
    "  }\n"
    "  real g(real x) {\n"
    "    return x;\n"
    "  }\n"
    "}\n");
}

static void
test_parse_canonicalize (void)
{
  TildeFormatOptions opts;
  g_autoptr(GError) error = NULL;

  tilde_format_options_init (&opts);
  g_assert_cmpint (opts.max_line_length, ==, 78);
  g_assert_true (tilde_format_parse_canonicalize ("deprecations,parentheses", &opts, NULL));
  g_assert_true (tilde_format_parse_canonicalize ("braces,includes", &opts, NULL));
  g_assert_cmpint (opts.canonicalize, ==, TILDE_CANONICALIZE_ALL);
  g_assert_false (opts.strip_comments);
  g_assert_false (tilde_format_parse_canonicalize ("spaces", &opts, &error));
  g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
}

static void
test_equality_sees_differences (void)
{
  static const char *const pairs[][2] = {
    { "model { x = a - b - c; }", "model { x = a - (b - c); }" },
    { "data { real<lower=0> x; }", "data { real<upper=0> x; }" },
    { "model { x = v[1:]; }", "model { x = v[1]; }" },
    { "model { x = 1; }", "model { x = 1.0; }" },
    { "data { @a real x; }", "data { @b real x; }" },
    { "data { real x; real y; }", "data { real x; }" },
    { "model { y ~ normal(0, 1) T[0, ]; }", "model { y ~ normal(0, 1) T[, 0]; }" },
    { "functions { real f(data real x); }", "functions { real f(real x); }" },
    { "model { for (i in 1:N) x = i; }", "model { for (i in 1:M) x = i; }" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autoptr(TildeProgram) a = parse_ok ("a.stan", pairs[i][0]);
      g_autoptr(TildeProgram) b = parse_ok ("b.stan", pairs[i][1]);
      g_autoptr(TildeProgram) a2 = parse_ok ("a.stan", pairs[i][0]);

      g_assert_false (tilde_program_equal (a, b));
      g_assert_true (tilde_program_equal (a, a2));
    }
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) models = g_ptr_array_new_with_free_func (corpus_model_free);
  g_autoptr(GPtrArray) expected = NULL;
  g_autofree char *valid = NULL;
  g_autofree char *formats = NULL;
  g_autofree char *included = NULL;

  g_test_init (&argc, &argv, NULL);
  valid = syntax_test_model_path ("valid", NULL);
  formats = syntax_test_model_path ("format", NULL);
  included = syntax_test_model_path ("included", NULL);
  add_corpus (models, "valid", valid, ".stan", NULL);
  add_corpus (models, "valid", valid, ".stanfunctions", NULL);
  add_corpus (models, "format", formats, ".stan", NULL);
  add_corpus (models, "included", included, "keep-include.stan", NULL);
  add_corpus (models, "reference", g_getenv ("TILDE_REFERENCE_DIR"), NULL, "model.stan");
  add_corpus (models, "examples", g_getenv ("TILDE_EXAMPLES_DIR"), ".stan", NULL);
  for (guint i = 0; i < models->len; i++)
    {
      CorpusModel *m = models->pdata[i];

      g_test_add_data_func (m->name, m, check_model);
    }
  expected = syntax_test_list ("format", ".expected");
  for (guint i = 0; i < expected->len; i++)
    {
      g_autofree char *test = g_strdup_printf ("/engine/format/stanc/%s",
                                               (char *) expected->pdata[i]);

      g_test_add_data_func (test, expected->pdata[i], check_expected);
    }
  g_test_add_func ("/engine/format/layout", test_layout);
  g_test_add_func ("/engine/format/declarations-kept-together", test_declarations_kept_together);
  g_test_add_func ("/engine/format/expressions", test_expressions);
  g_test_add_func ("/engine/format/comments-and-blank-lines", test_comments_and_blank_lines);
  g_test_add_func ("/engine/format/comments-in-lists", test_comments_in_lists);
  g_test_add_func ("/engine/format/block-comment-reindented", test_block_comment_reindented);
  g_test_add_func ("/engine/format/block-comment-past-max-indent",
                   test_block_comment_past_max_indent);
  g_test_add_func ("/engine/format/line-length", test_line_length);
  g_test_add_func ("/engine/format/includes", test_includes_kept_or_expanded);
  g_test_add_func ("/engine/format/no-comments", test_no_comments);
  g_test_add_func ("/engine/format/forward-declarations", test_forward_declarations);
  g_test_add_func ("/engine/format/parse-canonicalize", test_parse_canonicalize);
  g_test_add_func ("/engine/printer/equality", test_equality_sees_differences);
  return g_test_run ();
}
