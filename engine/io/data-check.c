/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/data-check.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "io/json-data.h"
#include "io/json-locate.h"
#include "mir/mir-lower.h"
#include "runtime/model.h"
#include "syntax/printer.h"
#include "tilde-diagnostic.h"

#define NOWHERE G_MAXSIZE

typedef struct {
  const char *text;
  gsize       len;
  const char *file;
  GArray     *line_starts;   /* gsize: offset of each line's first byte */
  GArray     *found;         /* Found, in the order found */
} Check;

/* A diagnostic and the byte range it covers (NOWHERE: no place). */
typedef struct {
  gsize            begin;
  gsize            end;
  guint            order;
  TildeDiagnostic *diag;
} Found;

static void
index_lines (Check *c)
{
  gsize zero = 0;
  c->line_starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_array_append_val (c->line_starts, zero);
  for (gsize i = 0; i < c->len; i++)
    if (c->text[i] == '\n')
      {
        gsize next = i + 1;
        g_array_append_val (c->line_starts, next);
      }
}

static void
position_of (const Check *c, gsize offset, int *line, int *column)
{
  guint lo = 0, hi = c->line_starts->len;
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (c->line_starts, gsize, mid) <= offset)
        lo = mid;
      else
        hi = mid;
    }
  *line = (int) lo + 1;
  *column = (int) (offset - g_array_index (c->line_starts, gsize, lo));
}

static void
report (Check *c, TildeSeverity severity, gsize begin, gsize end, const char *message)
{
  Found f = { begin, end, c->found->len, NULL };
  int bl = 0, bc = 0, el = 0, ec = 0;
  if (begin != NOWHERE)
    {
      position_of (c, begin, &bl, &bc);
      position_of (c, MAX (end, begin), &el, &ec);
    }
  f.diag = tilde_diagnostic_new (severity, TILDE_DIAG_DATA, c->file, bl, bc, el, ec, message);
  g_array_append_val (c->found, f);
}

static gint
found_compare (gconstpointer pa, gconstpointer pb)
{
  const Found *a = pa, *b = pb;
  /* Problems with no place first: they are about the whole file. */
  gsize ka = a->begin == NOWHERE ? 0 : a->begin + 1, kb = b->begin == NOWHERE ? 0 : b->begin + 1;
  if (ka != kb)
    return ka < kb ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* ---- syntax ---- */

/* The reader's "<data>:3:31: Parse error: ..." (json-glib's form) as a
 * line, a column and the words after "Parse error: ". */
static gboolean
parse_glib_position (const char *message, int *line, int *column, const char **rest)
{
  const char *p = strstr (message, ">:");
  char *end;
  if (!p)
    return FALSE;
  *line = (int) g_ascii_strtoll (p + 2, &end, 10);
  if (*end != ':')
    return FALSE;
  *column = (int) g_ascii_strtoll (end + 1, &end, 10);
  if (*end != ':')
    return FALSE;
  *rest = end + 1 + strspn (end + 1, " ");
  if (g_str_has_prefix (*rest, "Parse error: "))
    *rest += strlen ("Parse error: ");
  return TRUE;
}

static void
report_syntax_error (Check *c, const GError *error)
{
  gsize begin, end, offset;
  g_autofree char *message = NULL;
  const char *rest;
  int line, column;

  if (tilde_json_find_syntax_error (c->text, c->len, &begin, &end, &message))
    {
      report (c, TILDE_SEVERITY_ERROR, begin, end, message);
      return;
    }
  /* The reader found what the token check did not (bytes that are not
   * UTF-8, nesting too deep to check): its words and place, the token
   * at the column it names (in bytes). */
  if (!parse_glib_position (error->message, &line, &column, &rest) || line < 1
      || (guint) line > c->line_starts->len)
    {
      report (c, TILDE_SEVERITY_ERROR, NOWHERE, NOWHERE, error->message);
      return;
    }
  offset = g_array_index (c->line_starts, gsize, line - 1) + (gsize) MAX (column - 1, 0);
  if (!tilde_json_token_at (c->text, c->len, MIN (offset, c->len), &begin, &end))
    begin = end = MIN (offset, c->len);
  report (c, TILDE_SEVERITY_ERROR, begin, end, rest);
}

/* ---- the data block ---- */

typedef struct {
  const char *name;
  char       *declared;   /* the type as the model writes it */
} DataVar;

static void
data_var_clear (gpointer p)
{
  g_free (((DataVar *) p)->declared);
}

static GArray *
data_vars_of (const TildeProgram *program)
{
  GArray *vars = g_array_new (FALSE, TRUE, sizeof (DataVar));
  const TildeBlock *block = program ? program->blocks[TILDE_BLOCK_DATA] : NULL;

  g_array_set_clear_func (vars, data_var_clear);
  for (int i = 0; block && i < block->n_stmts; i++)
    {
      const TildeStmt *s = block->stmts[i];
      if (s->kind != TILDE_STMT_VAR_DECL)
        continue;
      for (int k = 0; k < s->u.var_decl.n_items; k++)
        {
          DataVar v = { g_intern_string (s->u.var_decl.items[k].ident.name),
                        tilde_print_sized_type (s->u.var_decl.type) };
          g_array_append_val (vars, v);
        }
    }
  return vars;
}

static gboolean
declares (GArray *vars, const char *name)
{
  for (guint i = 0; i < vars->len; i++)
    if (strcmp (g_array_index (vars, DataVar, i).name, name) == 0)
      return TRUE;
  return FALSE;
}

static void
report_keys (Check *c, const TildeJsonOutline *o, GArray *vars, gboolean have_model)
{
  for (guint i = 0; i < o->members->len; i++)
    {
      const TildeJsonMember *m = &g_array_index (o->members, TildeJsonMember, i);
      if (tilde_json_outline_lookup (o, m->name) != m)
        {
          g_autofree char *message =
            g_strdup_printf ("variable %s appears more than once; only its last value is read", m->name);
          report (c, TILDE_SEVERITY_WARNING, m->key_begin, m->key_end, message);
        }
      else if (have_model && !declares (vars, m->name))
        {
          g_autofree char *message =
            g_strdup_printf ("variable %s is not declared in the model's data block; it is ignored",
                             m->name);
          report (c, TILDE_SEVERITY_WARNING, m->key_begin, m->key_end, message);
        }
    }
}

static void
report_missing (Check *c, const TildeJsonOutline *o, GArray *vars)
{
  for (guint i = 0; i < vars->len; i++)
    {
      const DataVar *v = &g_array_index (vars, DataVar, i);
      if (tilde_json_outline_lookup (o, v->name))
        continue;
      g_autofree char *message = g_strdup_printf ("variable %s not found in the data (declared as %s)",
                                                  v->name, v->declared);
      if (o->is_object)
        report (c, TILDE_SEVERITY_ERROR, o->close, MIN (o->close + 1, c->len), message);
      else
        report (c, TILDE_SEVERITY_ERROR, NOWHERE, NOWHERE, message);
    }
}

static void
report_values (Check *c, const TildeJsonOutline *o, const TildeProgram *program,
               const TildeJsonData *data)
{
  g_autoptr (MirProgram) mir = mir_lower_program (program);
  if (!mir)
    return;
  g_autoptr (GPtrArray) problems = tilde_model_check_data (mir, data);
  for (guint i = 0; i < problems->len; i++)
    {
      const TildeDataProblem *p = g_ptr_array_index (problems, i);
      const TildeJsonMember *m = p->name ? tilde_json_outline_lookup (o, p->name) : NULL;
      if (p->kind == TILDE_DATA_PROBLEM_MISSING && !m)
        continue;   /* report_missing says so, with the declared type */
      if (m)
        report (c, TILDE_SEVERITY_ERROR, m->value_begin, m->value_end, p->message);
      else
        report (c, TILDE_SEVERITY_ERROR, NOWHERE, NOWHERE, p->message);
    }
}

static void
check_against (Check *c, const TildeJsonOutline *o, const TildeJsonData *data,
               const TildeProgram *program)
{
  g_autoptr (GArray) vars = data_vars_of (program);

  report_keys (c, o, vars, program != NULL);
  if (!program)
    return;
  report_values (c, o, program, data);
  report_missing (c, o, vars);
}

GPtrArray *
tilde_data_check (const char *text, gssize len, const char *file, const TildeProgram *program)
{
  Check c = { .text = text, .len = len < 0 ? strlen (text) : (gsize) len, .file = file };
  GPtrArray *out = tilde_diagnostic_list_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeJsonData) data = NULL;
  g_autoptr (TildeJsonOutline) outline = tilde_json_outline_new (text, c.len);

  index_lines (&c);
  c.found = g_array_new (FALSE, FALSE, sizeof (Found));
  if (outline->empty)
    data = tilde_json_data_new_empty ();
  else
    data = tilde_json_data_new_from_string (text, (gssize) c.len, &error);
  if (error && error->domain == JSON_PARSER_ERROR)
    report_syntax_error (&c, error);
  else if (error)
    report (&c, TILDE_SEVERITY_ERROR, outline->value_begin, outline->value_end, error->message);
  else
    check_against (&c, outline, data, program);

  g_array_sort (c.found, found_compare);
  for (guint i = 0; i < c.found->len; i++)
    g_ptr_array_add (out, g_array_index (c.found, Found, i).diag);
  g_array_unref (c.found);
  g_array_unref (c.line_starts);
  return out;
}
