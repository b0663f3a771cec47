/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/init.h"

#include <gio/gio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "infer/param-json-private.h"
#include "io/json-data.h"
#include "io/json-locate.h"

struct TildeInits {
  GHashTable *members;   /* name -> the member's value as JSON text */
  char       *text;      /* the whole object */
};

/* Takes `text`. Each member's value is kept as its own text, to be put
 * with the random values of the rest when the inits are partial. */
static TildeInits *
inits_from_text (const char *name, char *text, gsize len, GError **error)
{
  g_autoptr(TildeJsonOutline) outline = tilde_json_check_text (name, text, len, error);
  TildeInits *inits;

  if (outline == NULL || !outline->is_object)
    {
      if (outline != NULL)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                             "JSON inits must be an object whose members are variables");
      g_free (text);
      return NULL;
    }
  inits = g_new0 (TildeInits, 1);
  inits->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < outline->members->len; i++)
    {
      const TildeJsonMember *m = &g_array_index (outline->members, TildeJsonMember, i);
      /* the last of a name counts, as in the data */
      g_hash_table_replace (inits->members, g_strdup (m->name),
                            g_strndup (text + m->value_begin, m->value_end - m->value_begin));
    }
  inits->text = text;
  return inits;
}

TildeInits *
tilde_inits_new_from_file (const char *path, GError **error)
{
  char *text;
  gsize len;

  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  return inits_from_text (path, text, len, error);
}

TildeInits *
tilde_inits_new_from_string (const char *text, GError **error)
{
  return inits_from_text ("<inits>", g_strdup (text), strlen (text), error);
}

void
tilde_inits_free (TildeInits *inits)
{
  if (inits == NULL)
    return;
  g_hash_table_unref (inits->members);
  g_free (inits->text);
  g_free (inits);
}

/* ---- the search ---- */

typedef struct {
  TildeModel          *model;
  const TildeInits    *inits;
  TildeParamJson      *vars;       /* NULL unless the inits are partial */
  double               radius;
  gsl_rng             *rng;
  gsize                n;
  double              *constrained;
  gboolean             jacobian;
  gboolean             report_timing;
  TildeModelError    **fatal;
  void               (*rejected) (const TildeModelError *error, gpointer user_data);
  gpointer             rejected_data;
  TildeInitMessageFunc message;
  gpointer             user_data;
} Search;

static void
say (const Search *s, const char *line)
{
  if (s->message)
    s->message (line, s->user_data);
}

/* The given values and the random draws for the rest as one JSON object. */
static char *
merged_inits (const Search *s, const double *theta, TildeModelError **error)
{
  GString *out = g_string_new ("{");
  GHashTableIter iter;
  gpointer key, value;
  gboolean first = TRUE;

  if (!tilde_model_constrain (s->model, theta, FALSE, FALSE, s->rng, s->constrained, error))
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  g_hash_table_iter_init (&iter, s->inits->members);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *quoted = g_strescape (key, NULL);
      g_string_append_printf (out, "%s\"%s\":%s", first ? "" : ",", quoted, (char *) value);
      first = FALSE;
    }
  for (guint i = 0; i < _tilde_param_json_n_vars (s->vars); i++)
    {
      if (g_hash_table_contains (s->inits->members, _tilde_param_json_var_name (s->vars, i)))
        continue;
      if (!first)
        g_string_append_c (out, ',');
      _tilde_param_json_append (s->vars, i, s->constrained, out);
      first = FALSE;
    }
  g_string_append_c (out, '}');
  return g_string_free (out, FALSE);
}

/* The unconstrained values of the given inits (with random draws for the
 * rest when partial). */
static gboolean
unconstrain_inits (const Search *s, double *theta, TildeModelError **error)
{
  g_autoptr(TildeJsonData) data = NULL;
  g_autoptr(GError) parse_error = NULL;
  g_autofree char *text = NULL;

  text = s->vars ? merged_inits (s, theta, error) : g_strdup (s->inits->text);
  if (text == NULL)
    return FALSE;
  data = tilde_json_data_new_from_string (text, -1, &parse_error);
  if (data == NULL)
    {
      *error = g_new0 (TildeModelError, 1);
      (*error)->kind = TILDE_MODEL_ERROR_DATA;
      (*error)->message = g_strdup (parse_error->message);
      return FALSE;
    }
  return tilde_model_unconstrain (s->model, data, theta, error);
}

static double
now_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static gboolean
recoverable (const TildeModelError *error)
{
  /* Stan retries on std::domain_error (which reject() throws) only: an
   * index out of range or a size mismatch (std::out_of_range,
   * std::invalid_argument) ends the search */
  return error->kind == TILDE_MODEL_ERROR_DOMAIN || error->kind == TILDE_MODEL_ERROR_REJECT;
}

typedef enum { TRY_OK, TRY_REJECTED, TRY_FATAL } TryResult;

/* A model error at a starting point: a domain error rejects the point, any
 * other ends the search, as in Stan. */
static TryResult
model_error (const Search *s, const TildeModelError *error, char **problem)
{
  g_autofree char *described = tilde_model_error_describe (error);
  if (!recoverable (error))
    {
      say (s, "Unrecoverable error evaluating the log probability at the initial value.");
      say (s, described);
      *problem = g_strdup (described);
      if (s->fatal && *s->fatal == NULL)
        *s->fatal = tilde_model_error_copy (error);
      return TRY_FATAL;
    }
  say (s, "Rejecting initial value:");
  say (s, "  Error evaluating the log probability at the initial value.");
  say (s, described);
  if (s->rejected)
    s->rejected (error, s->rejected_data);
  return TRY_REJECTED;
}

static TryResult
not_finite (const Search *s, const char *what)
{
  say (s, "Rejecting initial value:");
  say (s, what);
  say (s, "  Stan can't start sampling from this initial value.");
  return TRY_REJECTED;
}

static void
say_timing (const Search *s, double seconds)
{
  char line[160];

  say (s, "");
  g_snprintf (line, sizeof line, "Gradient evaluation took %g seconds", seconds);
  say (s, line);
  g_snprintf (line, sizeof line, "1000 transitions using 10 leapfrog steps per transition "
              "would take %g seconds.", 1e4 * seconds);
  say (s, line);
  say (s, "Adjust your expectations accordingly!");
  say (s, "");
  say (s, "");
}

/* Like Stan, the density with every constant is judged first, then the
 * density up to a constant and its gradient. */
static TryResult
try_point (const Search *s, double *theta, double *lp, double *gradient, char **problem)
{
  g_autoptr(TildeModelError) error = NULL;
  double start, seconds, full;

  for (gsize i = 0; i < s->n; i++)
    theta[i] = s->radius > 0 ? s->radius * (2.0 * gsl_rng_uniform (s->rng) - 1.0) : 0.0;
  if (s->inits != NULL && !unconstrain_inits (s, theta, &error))
    return model_error (s, error, problem);

  full = tilde_model_log_density (s->model, theta, FALSE, s->jacobian, NULL, &error);
  if (error != NULL)
    return model_error (s, error, problem);
  if (!isfinite (full))
    return not_finite (s, "  Log probability evaluates to log(0), i.e. negative infinity.");

  start = now_seconds ();
  *lp = tilde_model_log_density (s->model, theta, TRUE, s->jacobian, gradient, &error);
  seconds = now_seconds () - start;
  if (error != NULL)
    return model_error (s, error, problem);
  if (!isfinite (*lp))
    return not_finite (s, "  Log probability evaluates to log(0), i.e. negative infinity.");
  for (gsize i = 0; i < s->n; i++)
    if (!isfinite (gradient[i]))
      return not_finite (s, "  Gradient evaluated at the initial value is not finite.");
  if (s->report_timing)
    say_timing (s, seconds);
  return TRY_OK;
}

void
tilde_init_options_init (TildeInitOptions *options)
{
  *options = (TildeInitOptions) { .jacobian = TRUE, .report_timing = TRUE };
}

gboolean
tilde_init_find (TildeModel *model, const TildeInits *inits, double radius, gsl_rng *rng,
                 double *theta, double *lp, double *gradient,
                 TildeInitMessageFunc message, gpointer user_data, char **problem)
{
  TildeInitOptions options;

  tilde_init_options_init (&options);
  return tilde_init_find_with (model, inits, radius, rng, &options, theta, lp, gradient, message,
                               user_data, problem);
}

gboolean
tilde_init_find_with (TildeModel *model, const TildeInits *inits, double radius, gsl_rng *rng,
                      const TildeInitOptions *options, double *theta, double *lp,
                      double *gradient, TildeInitMessageFunc message, gpointer user_data,
                      char **problem)
{
  Search s = {
    .model = model, .inits = inits, .radius = radius, .rng = rng,
    .n = tilde_model_num_params_unconstrained (model),
    .jacobian = options->jacobian, .report_timing = options->report_timing,
    .fatal = options->fatal,
    .rejected = options->rejected, .rejected_data = options->rejected_data,
    .message = message, .user_data = user_data,
  };
  gboolean all_given = TRUE, any_given = FALSE;
  guint tries;
  TryResult result = TRY_REJECTED;

  if (inits != NULL)
    {
      /* NULL for names that cannot be rebuilt: everything must come from the file */
      s.vars = _tilde_param_json_new (model);
      for (guint i = 0; s.vars && i < _tilde_param_json_n_vars (s.vars); i++)
        {
          gboolean given = g_hash_table_contains (inits->members,
                                                  _tilde_param_json_var_name (s.vars, i));
          all_given = all_given && given;
          any_given = any_given || given;
        }
      if (s.vars && !any_given)
        s.inits = NULL;
      if (s.vars && all_given)
        g_clear_pointer (&s.vars, _tilde_param_json_free);
      if (s.vars)
        s.constrained = g_new0 (double, MAX (tilde_model_num_outputs (model, FALSE, FALSE), 1));
    }
  /* nothing random to draw again: one try */
  tries = (s.inits != NULL && s.vars == NULL) || radius == 0 ? 1 : 100;

  for (guint t = 0; t < tries && result == TRY_REJECTED; t++)
    result = try_point (&s, theta, lp, gradient, problem);

  _tilde_param_json_free (s.vars);
  g_free (s.constrained);
  if (result == TRY_OK)
    return TRUE;
  if (result == TRY_REJECTED)
    {
      if (radius != 0)
        {
          char line[200];
          say (&s, "");
          g_snprintf (line, sizeof line, "Initialization between (-%g, %g) failed after %u attempts. ",
                      radius, radius, tries);
          say (&s, line);
          say (&s, " Try specifying initial values, reducing ranges of constrained values, "
                   "or reparameterizing the model.");
        }
      *problem = g_strdup ("Initialization failed.");
    }
  return FALSE;
}
