/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/optimize-init.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One parameter as its Stan CSV columns spell it: "L.2.1" is L[2, 1]. */
typedef struct {
  char   *name;
  guint   rank;
  GArray *columns;   /* guint: where its values are among the outputs */
  GArray *indices;   /* rank guints (1-based) per column */
} Variable;

static void
variable_free (gpointer p)
{
  Variable *v = p;
  g_free (v->name);
  g_array_unref (v->columns);
  g_array_unref (v->indices);
  g_free (v);
}

/* The parameters, grouped from their column names; NULL when a name is
 * not of the form base.i.j... */
static GPtrArray *
parameter_variables (TildeModel *model)
{
  const char *const *names = tilde_model_output_names (model, FALSE, FALSE);
  g_autoptr (GPtrArray) vars = g_ptr_array_new_with_free_func (variable_free);

  for (guint c = 0; names[c] != NULL; c++)
    {
      g_auto (GStrv) parts = g_strsplit (names[c], ".", -1);
      guint rank = g_strv_length (parts) - 1;
      Variable *v = vars->len ? g_ptr_array_index (vars, vars->len - 1) : NULL;

      if (v == NULL || strcmp (v->name, parts[0]) != 0)
        {
          v = g_new0 (Variable, 1);
          v->name = g_strdup (parts[0]);
          v->rank = rank;
          v->columns = g_array_new (FALSE, FALSE, sizeof (guint));
          v->indices = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (vars, v);
        }
      if (rank != v->rank)
        return NULL;
      g_array_append_val (v->columns, c);
      for (guint k = 1; k <= rank; k++)
        {
          char *end;
          guint64 index = g_ascii_strtoull (parts[k], &end, 10);
          guint i = (guint) index;
          if (*end != '\0' || index == 0 || index > G_MAXUINT)
            return NULL;
          g_array_append_val (v->indices, i);
        }
    }
  return g_steal_pointer (&vars);
}

/* A nested array of zeros with the given extents. */
static JsonNode *
zeros (const guint *extent, guint rank)
{
  JsonArray *array;

  if (rank == 0)
    return json_node_init_double (json_node_alloc (), 0.0);
  array = json_array_sized_new (extent[0]);
  for (guint i = 0; i < extent[0]; i++)
    json_array_add_element (array, zeros (extent + 1, rank - 1));
  return json_node_init_array (json_node_alloc (), array);
}

/* The variable's values among `outputs` as CmdStan JSON (arrays of rows). */
static JsonNode *
variable_json (const Variable *v, const double *outputs)
{
  g_autofree guint *extent = g_new0 (guint, MAX (v->rank, 1));
  JsonNode *root;

  for (guint c = 0; c < v->columns->len; c++)
    for (guint k = 0; k < v->rank; k++)
      extent[k] = MAX (extent[k], g_array_index (v->indices, guint, c * v->rank + k));
  root = zeros (extent, v->rank);
  for (guint c = 0; c < v->columns->len; c++)
    {
      JsonNode *node = root;
      for (guint k = 0; k < v->rank; k++)
        node = json_array_get_element (json_node_get_array (node),
                                       g_array_index (v->indices, guint, c * v->rank + k) - 1);
      json_node_set_double (node, outputs[g_array_index (v->columns, guint, c)]);
    }
  return root;
}

typedef struct {
  TildeModel              *model;
  gsize                    n;
  double                   radius;
  gsl_rng                 *rng;
  TildeOptimizeMessageFunc message;
  gpointer                 user_data;
  JsonObject              *given;      /* the init file's members, or NULL */
  GPtrArray               *missing;    /* Variables the init file leaves out */
  double                  *outputs;
} Init;

static void
say (const Init *init, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
say (const Init *init, const char *format, ...)
{
  g_autofree char *line = NULL;
  va_list ap;

  if (init->message == NULL)
    return;
  va_start (ap, format);
  line = g_strdup_vprintf (format, ap);
  va_end (ap);
  init->message (line, init->user_data);
}

static void
draw_uniform (const Init *init, double *theta)
{
  for (gsize i = 0; i < init->n; i++)
    theta[i] = init->radius * (2.0 * gsl_rng_uniform (init->rng) - 1.0);
}

/* The init file's values with the missing parameters taken from a random
 * unconstrained point, read back through the model's own transforms. */
static gboolean
merge_given (Init *init, double *theta, TildeModelError **error)
{
  g_autoptr (JsonObject) merged = json_object_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (TildeJsonData) data = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GList) members = json_object_get_members (init->given);

  for (GList *l = members; l; l = l->next)
    json_object_set_member (merged, l->data,
                            json_node_copy (json_object_get_member (init->given, l->data)));
  if (init->missing->len > 0)
    {
      draw_uniform (init, theta);
      if (!tilde_model_constrain (init->model, theta, FALSE, FALSE, NULL, init->outputs, error))
        return FALSE;
      for (guint i = 0; i < init->missing->len; i++)
        {
          const Variable *v = g_ptr_array_index (init->missing, i);
          json_object_set_member (merged, v->name, variable_json (v, init->outputs));
        }
    }
  root = json_node_init_object (json_node_alloc (), merged);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  data = tilde_json_data_new_from_string (text, -1, NULL);
  return tilde_model_unconstrain (init->model, data, theta, error);
}

static void
reject (const Init *init, const char *why, const char *detail)
{
  say (init, "Rejecting initial value:");
  say (init, "  %s", why);
  if (detail)
    say (init, "%s", detail);
}

/* One attempt; FALSE (after saying why) when the point will not do. */
static gboolean
try_point (Init *init, double *theta, double *gradient)
{
  g_autoptr (TildeModelError) error = NULL;
  double lp;

  if (init->given != NULL)
    {
      if (!merge_given (init, theta, &error))
        {
          reject (init, "Error evaluating the log probability at the initial value.", error->message);
          return FALSE;
        }
    }
  else
    draw_uniform (init, theta);

  lp = tilde_model_log_density (init->model, theta, FALSE, FALSE, NULL, &error);
  if (error != NULL)
    {
      reject (init, "Error evaluating the log probability at the initial value.", error->message);
      return FALSE;
    }
  if (!isfinite (lp))
    {
      reject (init, "Log probability evaluates to log(0), i.e. negative infinity.",
              "  Stan can't start sampling from this initial value.");
      return FALSE;
    }
  tilde_model_log_density (init->model, theta, TRUE, FALSE, gradient, &error);
  for (gsize i = 0; i < init->n && error == NULL; i++)
    if (!isfinite (gradient[i]))
      {
        reject (init, "Gradient evaluated at the initial value is not finite.",
                "  Stan can't start sampling from this initial value.");
        return FALSE;
      }
  if (error != NULL)
    {
      reject (init, "Error evaluating the log probability at the initial value.", error->message);
      return FALSE;
    }
  return TRUE;
}

/* Reads the init file and sorts the parameters into given and missing. */
static gboolean
load_given (Init *init, const char *path, JsonParser *parser, GError **error)
{
  g_autoptr (GPtrArray) vars = NULL;
  JsonNode *root;

  if (!json_parser_load_from_file (parser, path, error))
    {
      g_prefix_error (error, "Error reading init file '%s': ", path);
      return FALSE;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the init file %s does not hold a JSON object", path);
      return FALSE;
    }
  init->given = json_node_get_object (root);
  vars = parameter_variables (init->model);
  if (vars == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "the model's parameters cannot be written as CmdStan JSON inits");
      return FALSE;
    }
  for (guint i = 0; i < vars->len; i++)
    {
      Variable *v = g_ptr_array_index (vars, i);
      if (!json_object_has_member (init->given, v->name))
        g_ptr_array_add (init->missing, g_ptr_array_steal_index (vars, i--));
    }
  return TRUE;
}

gboolean
tilde_optimize_initial_point (TildeModel *model, const char *init_path, double radius, gsl_rng *rng,
                              TildeOptimizeMessageFunc message, gpointer user_data, double *theta,
                              GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GPtrArray) missing = g_ptr_array_new_with_free_func (variable_free);
  gsize n = tilde_model_num_params_unconstrained (model);
  g_autofree double *gradient = g_new0 (double, MAX (n, 1));
  g_autofree double *outputs = g_new0 (double, MAX (tilde_model_num_outputs (model, FALSE, FALSE), 1));
  Init init = {
    .model = model, .n = n, .radius = radius, .rng = rng, .message = message,
    .user_data = user_data, .missing = missing, .outputs = outputs,
  };
  gboolean all_given, any_random;
  int attempts;

  if (init_path != NULL && !load_given (&init, init_path, parser, error))
    return FALSE;
  all_given = init.given != NULL && missing->len == 0;
  any_random = !all_given && radius > 0;
  attempts = any_random ? TILDE_OPTIMIZE_INIT_ATTEMPTS : 1;
  for (int a = 0; a < attempts; a++)
    if (try_point (&init, theta, gradient))
      return TRUE;
  if (!all_given)
    {
      say (&init, "%s", "");
      say (&init, "Initialization between (-%g, %g) failed after %d attempts. ", radius, radius,
           attempts);
      say (&init, " Try specifying initial values, reducing ranges of constrained values, or "
                  "reparameterizing the model.");
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Initialization failed.");
  return FALSE;
}
