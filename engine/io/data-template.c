/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "io/data-template.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "io/generate-data.h"
#include "io/json-data.h"
#include "io/json-locate.h"
#include "mir/mir-lower.h"
#include "runtime/model.h"

#define SEED 20250101u

static void
append_number (GString *out, JsonNode *n, gboolean round)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double v;

  if (json_node_get_value_type (n) != G_TYPE_DOUBLE)
    {
      g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (n));
      return;
    }
  v = json_node_get_double (n);
  if (isnan (v))
    g_string_append (out, "\"NaN\"");
  else if (isinf (v))
    g_string_append (out, v > 0 ? "\"inf\"" : "\"-inf\"");
  else if (!round)
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
  else if (fabs (v) >= 1000 && fabs (v) < 1e15)
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.0f", v));
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.3g", v));
}

static gboolean
all_scalars (JsonNode *n)
{
  GList *values;
  gboolean scalars = TRUE;

  if (JSON_NODE_HOLDS_ARRAY (n))
    values = json_array_get_elements (json_node_get_array (n));
  else
    values = json_object_get_values (json_node_get_object (n));
  for (GList *l = values; l && scalars; l = l->next)
    scalars = JSON_NODE_HOLDS_VALUE ((JsonNode *) l->data);
  g_list_free (values);
  return scalars;
}

static void append_node (GString *out, JsonNode *n, gboolean round, int indent);

/* Short containers on one line; containers of containers one element a
 * line, so that a matrix reads as its rows. */
static void
append_container (GString *out, JsonNode *n, gboolean round, int indent)
{
  gboolean array = JSON_NODE_HOLDS_ARRAY (n);
  gboolean inline_ = all_scalars (n);
  GList *members = array ? json_array_get_elements (json_node_get_array (n))
                         : json_object_get_members (json_node_get_object (n));

  g_string_append_c (out, array ? '[' : '{');
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *child = array ? l->data : json_object_get_member (json_node_get_object (n), l->data);
      if (inline_)
        g_string_append (out, l->prev ? ", " : "");
      else
        g_string_append_printf (out, "%s\n%*s", l->prev ? "," : "", indent + 2, "");
      if (!array)
        g_string_append_printf (out, "\"%s\": ", (const char *) l->data);
      append_node (out, child, round, indent + 2);
    }
  if (!inline_ && members)
    g_string_append_printf (out, "\n%*s", indent, "");
  g_string_append_c (out, array ? ']' : '}');
  g_list_free (members);
}

static void
append_node (GString *out, JsonNode *n, gboolean round, int indent)
{
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    g_string_append_printf (out, "\"%s\"", json_node_get_string (n));
  else if (JSON_NODE_HOLDS_VALUE (n))
    append_number (out, n, round);
  else if (JSON_NODE_HOLDS_ARRAY (n) || JSON_NODE_HOLDS_OBJECT (n))
    append_container (out, n, round, indent);
  else
    g_string_append (out, "null");
}

/* The document, each variable rounded unless it is in `exact`. */
static char *
layout (JsonObject *root, const TildeJsonOutline *order, GHashTable *exact)
{
  GString *out = g_string_new ("{");

  for (guint i = 0; i < order->members->len; i++)
    {
      const char *name = g_array_index (order->members, TildeJsonMember, i).name;
      g_string_append_printf (out, "%s\n  \"%s\": ", i ? "," : "", name);
      append_node (out, json_object_get_member (root, name),
                   !g_hash_table_contains (exact, g_intern_string (name)), 2);
    }
  g_string_append (out, order->members->len ? "\n}\n" : "}\n");
  return g_string_free (out, FALSE);
}

/* Adds to `exact` the variables that do not fit as laid out; FALSE when
 * there were none. */
static gboolean
unfit_variables (const MirProgram *mir, const char *text, GHashTable *exact)
{
  g_autoptr (TildeJsonData) data = tilde_json_data_new_from_string (text, -1, NULL);
  g_autoptr (GPtrArray) problems = NULL;
  gboolean any = FALSE;

  if (!data)
    return FALSE;
  problems = tilde_model_check_data (mir, data);
  for (guint i = 0; i < problems->len; i++)
    {
      const TildeDataProblem *p = g_ptr_array_index (problems, i);
      if (p->name && !g_hash_table_contains (exact, p->name))
        {
          g_hash_table_add (exact, (gpointer) p->name);
          any = TRUE;
        }
    }
  return any;
}

char *
tilde_data_template (const TildeProgram *program, char **problem)
{
  g_autofree char *generated = tilde_generate_data (program, SEED, problem);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GHashTable) exact = g_hash_table_new (NULL, NULL);
  g_autoptr (TildeJsonOutline) order = NULL;
  g_autoptr (MirProgram) mir = NULL;
  JsonNode *root;
  char *text;

  if (!generated)
    return NULL;
  root = json_parser_load_from_data (parser, generated, -1, NULL) ? json_parser_get_root (parser) : NULL;
  mir = mir_lower_program (program);
  if (!root || !JSON_NODE_HOLDS_OBJECT (root) || !mir)
    return g_steal_pointer (&generated);
  order = tilde_json_outline_new (generated, strlen (generated));
  text = layout (json_node_get_object (root), order, exact);
  /* Rounding can break a constraint (a simplex, an ordered vector): those
   * variables keep every digit. */
  if (unfit_variables (mir, text, exact))
    {
      g_free (text);
      text = layout (json_node_get_object (root), order, exact);
      if (unfit_variables (mir, text, exact))
        {
          g_free (text);
          return g_steal_pointer (&generated);
        }
    }
  return text;
}
