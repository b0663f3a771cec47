/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/param-json-private.h"

#include <math.h>
#include <string.h>

/* A parameter's values as JSON nests them: arrays (of elements, rows,
 * columns or a complex value's two parts) and tuples (of members), down
 * to numbers, each the position of its value among the constrained
 * parameters. */
typedef enum { NODE_NUMBER, NODE_ARRAY, NODE_TUPLE } NodeKind;

typedef struct Node Node;
struct Node {
  NodeKind   kind;
  gsize      value;   /* NUMBER */
  GPtrArray *kids;    /* ARRAY, TUPLE: element or member i + 1 at i */
};

static void
node_free (Node *node)
{
  if (node == NULL)
    return;
  if (node->kids)
    g_ptr_array_unref (node->kids);
  g_free (node);
}

static Node *
node_new (NodeKind kind)
{
  Node *node = g_new0 (Node, 1);
  node->kind = kind;
  if (kind != NODE_NUMBER)
    node->kids = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
  return node;
}

typedef struct {
  char *name;
  Node *root;
} Variable;

static void
variable_clear (Variable *v)
{
  g_free (v->name);
  node_free (v->root);
}

/* Places value k at the path that follows the variable's name in a
 * column name: ".2" an element (row, column), ":2" a tuple member, and a
 * last ".real" or ".imag" the part of a complex value ("q.1:2.imag" is
 * element 1, member 2, part 2). FALSE for a path that does not fit the
 * variable's earlier names. */
static gboolean
insert_path (Node **at, const char *path, gsize k)
{
  while (*path != '\0')
    {
      NodeKind kind = *path == ':' ? NODE_TUPLE : NODE_ARRAY;
      const char *token = path + 1;
      gsize length = strcspn (token, ".:");
      guint64 index;

      if (*path != '.' && *path != ':')
        return FALSE;
      if (kind == NODE_ARRAY && token[length] == '\0'
          && (strcmp (token, "real") == 0 || strcmp (token, "imag") == 0))
        index = token[0] == 'r' ? 1 : 2;
      else
        {
          char *end;
          index = g_ascii_strtoull (token, &end, 10);
          if (end != token + length || index == 0 || index > G_MAXINT32)
            return FALSE;
        }
      if (*at == NULL)
        *at = node_new (kind);
      else if ((*at)->kind != kind)
        return FALSE;
      if ((*at)->kids->len < index)
        g_ptr_array_set_size ((*at)->kids, (guint) index);
      at = (Node **) &g_ptr_array_index ((*at)->kids, index - 1);
      path = token + length;
    }
  if (*at != NULL)
    return FALSE;
  *at = node_new (NODE_NUMBER);
  (*at)->value = k;
  return TRUE;
}

/* The parameter variables, from the model's constrained names. FALSE when
 * a name cannot be rebuilt into a JSON value. */
static gboolean
parameter_variables (TildeModel *model, GArray *vars)
{
  const char *const *names = tilde_model_output_names (model, FALSE, FALSE);
  gsize total = tilde_model_num_outputs (model, FALSE, FALSE);

  for (gsize k = 0; k < total; k++)
    {
      gsize base_length = strcspn (names[k], ".:");
      Variable *v = vars->len > 0 ? &g_array_index (vars, Variable, vars->len - 1) : NULL;

      if (v == NULL || strlen (v->name) != base_length
          || strncmp (v->name, names[k], base_length) != 0)
        {
          Variable fresh = { .name = g_strndup (names[k], base_length) };
          g_array_append_val (vars, fresh);
          v = &g_array_index (vars, Variable, vars->len - 1);
        }
      if (!insert_path (&v->root, names[k] + base_length, k))
        return FALSE;
    }
  return TRUE;
}

static void
append_number (GString *out, double x)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (x))
    g_string_append (out, "\"NaN\"");
  else if (isinf (x))
    g_string_append (out, x > 0 ? "\"inf\"" : "\"-inf\"");
  else
    g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.17g", x));
}

static void
append_node (GString *out, const Node *node, const double *values)
{
  if (node == NULL)
    {
      /* an element no column names: it cannot be told, so it is not a number */
      g_string_append (out, "\"NaN\"");
      return;
    }
  if (node->kind == NODE_NUMBER)
    {
      append_number (out, values[node->value]);
      return;
    }
  g_string_append_c (out, node->kind == NODE_ARRAY ? '[' : '{');
  for (guint i = 0; i < node->kids->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      if (node->kind == NODE_TUPLE)
        g_string_append_printf (out, "\"%u\":", i + 1);
      append_node (out, g_ptr_array_index (node->kids, i), values);
    }
  g_string_append_c (out, node->kind == NODE_ARRAY ? ']' : '}');
}

struct TildeParamJson {
  GArray *vars;   /* Variable */
};

void
_tilde_param_json_free (TildeParamJson *pj)
{
  if (pj == NULL)
    return;
  for (guint i = 0; i < pj->vars->len; i++)
    variable_clear (&g_array_index (pj->vars, Variable, i));
  g_array_free (pj->vars, TRUE);
  g_free (pj);
}

TildeParamJson *
_tilde_param_json_new (TildeModel *model)
{
  TildeParamJson *pj = g_new0 (TildeParamJson, 1);

  pj->vars = g_array_new (FALSE, TRUE, sizeof (Variable));
  if (!parameter_variables (model, pj->vars))
    {
      _tilde_param_json_free (pj);
      return NULL;
    }
  return pj;
}

guint
_tilde_param_json_n_vars (const TildeParamJson *pj)
{
  return pj->vars->len;
}

const char *
_tilde_param_json_var_name (const TildeParamJson *pj, guint var)
{
  return g_array_index (pj->vars, Variable, var).name;
}

void
_tilde_param_json_append (const TildeParamJson *pj, guint var, const double *constrained,
                          GString *out)
{
  const Variable *v = &g_array_index (pj->vars, Variable, var);
  g_autofree char *quoted = g_strescape (v->name, NULL);

  g_string_append_printf (out, "\"%s\":", quoted);
  append_node (out, v->root, constrained);
}
