/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The optimisation levels against each other: every model of the test
 * corpora, compiled at O0, O1 and Oexperimental, must behave the same: the
 * same log density and gradient at random unconstrained points (propto and
 * jacobian on and off; the joint density, the prior and the likelihood, so
 * that every pass keeps which terms are which), the same transformed parameters and generated
 * quantities from the same RNG seed (which also shows the transformed
 * data), the same lines from print(), and an error at every level when one level raises it.
 *
 * A model without a data file runs on data generated from its data block.
 * A model the runtime cannot prepare at all is skipped, naming why; at
 * least MIN_MODELS must run.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "runtime-test-util.h"
#include "tilde-frontend.h"
#include "io/generate-data.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"

#define MIN_MODELS 25
/* Without the shared reference models (a checkout on its own) fewer can run. */
#define MIN_MODELS_WITHOUT_REFERENCE 18
#define N_POINTS 3
#define DATA_SEED 20240601u
#define RNG_SEED 987654321ul

/* The passes rewrite some expressions into forms that round differently
 * (and more accurately): fma for a*b+c, log1m for log(1-x), log1p_exp,
 * log_sum_exp and the like. Values may therefore differ in the last bits;
 * anything beyond a relative 1e-12 (absolute below magnitude one) is a
 * real disagreement. */
#define TOLERANCE 1e-12

static const MirOptLevel levels[] = { MIR_OPT_O0, MIR_OPT_O1, MIR_OPT_EXPERIMENTAL };
#define N_LEVELS G_N_ELEMENTS (levels)

typedef struct {
  char *name;        /* the test path's last part: "examples/eight_schools" */
  char *model_path;
  char *data_path;   /* NULL: generate */
} Case;

/* Models whose O0 build cannot be prepared because a statement that fails
 * on every data set is dead: the optimised levels drop it, which is what
 * dead code elimination is for. For these, O0 must fail to prepare, the
 * optimised levels must prepare, and they are compared with each other. */
static const char *const fails_only_while_dead_code_runs[] = {
  /* its transformed data assign slices of two sizes to w, so no data lets
   * it run at O0 */
  "syntax/all_expressions",
  /* likewise (w = A[2:, 1] into vector[N] w) */
  "mir/expressions",
  NULL,
};

/* Models the runtime cannot prepare without crashing, at any level. */
static const struct { const char *model; const char *why; } unpreparable[] = {
  { NULL, NULL },
};

static guint n_models_run;

static gboolean
fails_only_while_dead_code_runs_at_o0 (const char *model)
{
  for (guint i = 0; fails_only_while_dead_code_runs[i]; i++)
    if (g_str_equal (fails_only_while_dead_code_runs[i], model))
      return TRUE;
  return FALSE;
}

typedef struct {
  const Case  *cs;
  TildeModel  *models[N_LEVELS];
  GString     *printed[N_LEVELS];   /* what print() wrote at each level */
  guint        base;                /* the level the others are compared with */
  gsize        n_params;
  gsize        n_outputs;
  GString     *disagreements;
} Diff;

static void
disagree (Diff *d, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
disagree (Diff *d, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  if (d->disagreements->len < 4000)
    {
      g_string_append_vprintf (d->disagreements, format, ap);
      g_string_append_c (d->disagreements, '\n');
    }
  va_end (ap);
}

static void
append_printed (const char *text, gpointer user_data)
{
  GString *out = user_data;
  if (out->len < 100000)
    g_string_append_printf (out, "%s\n", text);
}

static TildeJsonData *
case_data (const Case *cs, TildeProgram *typed, char **skip_reason)
{
  g_autoptr (GError) error = NULL;
  if (cs->data_path)
    {
      TildeJsonData *data = tilde_json_data_new_from_file (cs->data_path, &error);
      g_assert_no_error (error);
      return data;
    }
  g_autofree char *problem = NULL;
  g_autofree char *json = tilde_generate_data (typed, DATA_SEED, &problem);
  if (!json)
    {
      *skip_reason = g_strdup_printf ("no data can be generated: %s", problem);
      return NULL;
    }
  TildeJsonData *data = tilde_json_data_new_from_string (json, -1, &error);
  g_assert_no_error (error);
  return data;
}

static const char *
first_message (GPtrArray *diags)
{
  return diags->len ? ((const TildeDiagnostic *) g_ptr_array_index (diags, 0))->message : "?";
}

/* A message without its leading "line L, column C: ". */
static const char *
without_location (const char *message)
{
  const char *colon = g_str_has_prefix (message, "line ") ? strstr (message, ": ") : NULL;
  return colon ? colon + 2 : message;
}

/* Prepares the model at every level; FALSE (with the reason) when no level
 * can. A level that prepares while another fails is a disagreement, except
 * for the models whose dead code fails at O0 (then O0 alone must fail, and
 * the comparison starts at O1). */
static gboolean
prepare_all (Diff *d, MirProgram *const *programs, const TildeJsonData *data, char **skip_reason)
{
  char *messages[N_LEVELS] = { NULL };
  guint n_prepared = 0;
  gboolean all_prepared = FALSE;
  for (guint l = 0; l < N_LEVELS; l++)
    {
      g_autoptr (GPtrArray) diags = tilde_diagnostic_list_new ();
      d->models[l] = tilde_model_new_full (programs[l], data, append_printed, d->printed[l],
                                           diags);
      if (d->models[l])
        n_prepared++;
      else
        messages[l] = g_strdup (first_message (diags));
    }
  if (fails_only_while_dead_code_runs_at_o0 (d->cs->name))
    {
      if (d->models[0])
        disagree (d, "O0 prepares: the model is no longer one whose dead code fails");
      else if (n_prepared != N_LEVELS - 1)
        for (guint l = 1; l < N_LEVELS; l++)
          if (!d->models[l])
            disagree (d, "%s fails too, so the failure is not only dead code's: %s",
                      mir_opt_level_name (levels[l]), messages[l]);
      d->base = 1;
      all_prepared = d->models[0] == NULL && n_prepared == N_LEVELS - 1;
    }
  else if (n_prepared == 0)
    {
      *skip_reason = g_strdup_printf ("the runtime cannot prepare it: %s", messages[0]);
      /* where the error points may move with code the passes moved */
      for (guint l = 1; l < N_LEVELS; l++)
        if (g_strcmp0 (without_location (messages[l]), without_location (messages[0])) != 0)
          disagree (d, "preparation fails differently at %s: %s", mir_opt_level_name (levels[l]),
                    messages[l]);
    }
  else
    for (guint l = 0; l < N_LEVELS; l++)
      if (!d->models[l])
        disagree (d, "preparation fails only at %s: %s", mir_opt_level_name (levels[l]), messages[l]);
  if (d->base == 0)
    all_prepared = n_prepared == N_LEVELS;
  for (guint l = 0; l < N_LEVELS; l++)
    g_free (messages[l]);
  return all_prepared;
}

static void
compare_printed (Diff *d)
{
  for (guint l = d->base + 1; l < N_LEVELS; l++)
    if (!g_str_equal (d->printed[l]->str, d->printed[d->base]->str))
      disagree (d, "print() at %s:\n%s\nat %s:\n%s", mir_opt_level_name (levels[d->base]), d->printed[d->base]->str,
                mir_opt_level_name (levels[l]), d->printed[l]->str);
}

static void
compare_shapes (Diff *d)
{
  d->n_params = tilde_model_num_params_unconstrained (d->models[d->base]);
  d->n_outputs = tilde_model_num_outputs (d->models[d->base], TRUE, TRUE);
  const char *const *names0 = tilde_model_output_names (d->models[d->base], TRUE, TRUE);
  for (guint l = d->base + 1; l < N_LEVELS; l++)
    {
      g_assert_cmpuint (tilde_model_num_params_unconstrained (d->models[l]), ==, d->n_params);
      g_assert_cmpuint (tilde_model_num_outputs (d->models[l], TRUE, TRUE), ==, d->n_outputs);
      const char *const *names = tilde_model_output_names (d->models[l], TRUE, TRUE);
      for (gsize i = 0; i < d->n_outputs; i++)
        g_assert_cmpstr (names[i], ==, names0[i]);
    }
}

static const char *const context_names[] = { "joint", "prior", "likelihood" };

static void
compare_log_density (Diff *d, const double *theta, guint point, TildeModelContext context,
                     gboolean propto, gboolean jacobian)
{
  gsize P = d->n_params;
  g_autofree double *grad0 = g_new0 (double, P + 1);
  g_autofree double *grad = g_new0 (double, P + 1);
  g_autoptr (TildeModelError) err0 = NULL;
  const char *base_name = mir_opt_level_name (levels[d->base]);
  double lp0 = tilde_model_log_density (d->models[d->base], theta, propto, jacobian, grad0, &err0);
  for (guint l = d->base + 1; l < N_LEVELS; l++)
    {
      g_autoptr (TildeModelError) err = NULL;
      const char *level = mir_opt_level_name (levels[l]);
      double lp = tilde_model_log_density (d->models[l], theta, propto, jacobian, grad, &err);
      const char *cx = context_names[context];
      if ((err0 == NULL) != (err == NULL) || (err && err->kind != err0->kind))
        {
          disagree (d, "point %u %s propto %d jacobian %d: %s %s, %s %s", point, cx, propto,
                    jacobian, base_name, err0 ? err0->message : "evaluates", level,
                    err ? err->message : "evaluates");
          continue;
        }
      if (err)
        continue;
      if (!rt_test_close (lp, lp0, TOLERANCE))
        disagree (d, "point %u %s propto %d jacobian %d: log density %s %.17g, %s %.17g", point,
                  cx, propto, jacobian, base_name, lp0, level, lp);
      for (gsize i = 0; i < P; i++)
        if (!rt_test_close (grad[i], grad0[i], TOLERANCE))
          disagree (d, "point %u %s propto %d jacobian %d: gradient[%" G_GSIZE_FORMAT "] %s "
                    "%.17g, %s %.17g", point, cx, propto, jacobian, i, base_name, grad0[i], level, grad[i]);
    }
}

static gboolean
constrain (TildeModel *model, const double *theta, double *out, TildeModelError **error)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, RNG_SEED);
  gboolean ok = tilde_model_constrain (model, theta, TRUE, TRUE, rng, out, error);
  gsl_rng_free (rng);
  return ok;
}

static void
compare_outputs (Diff *d, const double *theta, guint point)
{
  gsize N = d->n_outputs;
  g_autofree double *out0 = g_new0 (double, N + 1);
  g_autofree double *out = g_new0 (double, N + 1);
  g_autoptr (TildeModelError) err0 = NULL;
  gboolean ok0 = constrain (d->models[d->base], theta, out0, &err0);
  const char *base_name = mir_opt_level_name (levels[d->base]);
  const char *const *names = tilde_model_output_names (d->models[d->base], TRUE, TRUE);
  for (guint l = d->base + 1; l < N_LEVELS; l++)
    {
      g_autoptr (TildeModelError) err = NULL;
      const char *level = mir_opt_level_name (levels[l]);
      gboolean ok = constrain (d->models[l], theta, out, &err);
      if (ok != ok0 || (!ok && err->kind != err0->kind))
        {
          disagree (d, "point %u outputs: %s %s, %s %s", point, base_name, ok0 ? "computes" : err0->message,
                    level, ok ? "computes" : err->message);
          continue;
        }
      for (gsize i = 0; ok && i < N; i++)
        if (!rt_test_close (out[i], out0[i], TOLERANCE))
          disagree (d, "point %u output %s: %s %.17g, %s %.17g", point, names[i], base_name, out0[i], level,
                    out[i]);
    }
}

static void
compare_levels (Diff *d)
{
  compare_shapes (d);
  g_autoptr (GRand) rand = g_rand_new_with_seed (DATA_SEED);
  g_autofree double *theta = g_new0 (double, d->n_params + 1);
  for (guint point = 0; point < N_POINTS; point++)
    {
      for (gsize i = 0; i < d->n_params; i++)
        theta[i] = g_rand_double_range (rand, -2.0, 2.0);
      /* Where the whole model fails at a point, only the joint density is
       * compared there: the optimiser may move the failing computation into a
       * term that the prior or likelihood context then never runs. */
      g_autoptr (TildeModelError) joint_error = NULL;
      tilde_model_log_density (d->models[d->base], theta, FALSE, TRUE, NULL, &joint_error);
      int n_contexts = joint_error ? 1 : (int) G_N_ELEMENTS (context_names);
      for (int context = 0; context < n_contexts; context++)
        {
          for (guint l = d->base; l < N_LEVELS; l++)
            tilde_model_set_context (d->models[l], (TildeModelContext) context);
          for (int propto = 0; propto < 2; propto++)
            for (int jacobian = 0; jacobian < 2; jacobian++)
              compare_log_density (d, theta, point, (TildeModelContext) context, propto, jacobian);
        }
      for (guint l = d->base; l < N_LEVELS; l++)
        tilde_model_set_context (d->models[l], TILDE_MODEL_CONTEXT_JOINT);
      compare_outputs (d, theta, point);
    }
  compare_printed (d);
}

static void
check_model (gconstpointer user_data)
{
  const Case *cs = user_data;
  if (!g_file_test (cs->model_path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("model file absent");
      return;
    }
  for (guint i = 0; unpreparable[i].model; i++)
    if (g_str_equal (unpreparable[i].model, cs->name))
      {
        g_autofree char *msg = g_strdup_printf ("%s skipped: %s", cs->name, unpreparable[i].why);
        g_test_message ("%s", msg);
        g_test_skip (msg);
        return;
      }
  g_autoptr (GError) error = NULL;
  g_autoptr (TildeCheckResult) checked = tilde_frontend_check_file (cs->model_path, NULL, &error);
  g_assert_no_error (error);
  if (tilde_check_result_has_errors (checked))
    {
      g_test_skip ("not a complete model");
      return;
    }
  TildeProgram *typed = tilde_check_result_get_program (checked);
  g_autoptr (MirProgram) lowered = mir_lower_program (typed);
  g_assert_nonnull (lowered);
  g_autoptr (MirProgram) transformed = mir_transform_program (lowered);
  MirProgram *programs[N_LEVELS];
  for (guint l = 0; l < N_LEVELS; l++)
    programs[l] = mir_pipeline_run (transformed, levels[l], NULL);

  Diff d = { .cs = cs, .disagreements = g_string_new (NULL) };
  for (guint l = 0; l < N_LEVELS; l++)
    d.printed[l] = g_string_new (NULL);
  g_autofree char *skip_reason = NULL;
  g_autoptr (TildeJsonData) data = case_data (cs, typed, &skip_reason);
  gboolean ran = FALSE;
  if (!skip_reason && prepare_all (&d, programs, data, &skip_reason))
    {
      compare_levels (&d);
      ran = TRUE;
    }
  for (guint l = 0; l < N_LEVELS; l++)
    {
      tilde_model_free (d.models[l]);
      mir_program_free (programs[l]);
      g_string_free (d.printed[l], TRUE);
    }
  g_autofree char *disagreements = g_string_free (d.disagreements, FALSE);
  if (*disagreements)
    g_error ("%s: the optimisation levels disagree:\n%s", cs->name, disagreements);
  if (!ran)
    {
      g_autofree char *msg = g_strdup_printf ("%s skipped: %s", cs->name, skip_reason);
      g_test_message ("%s", msg);
      g_test_skip (msg);
      return;
    }
  n_models_run++;
}

static void
check_enough_models (void)
{
  g_test_message ("%u models compared at every level", n_models_run);
  {
    const char *ref = g_getenv ("TILDE_REFERENCE_DIR");
    gboolean have_reference = ref != NULL && g_file_test (ref, G_FILE_TEST_IS_DIR);

    g_assert_cmpuint (n_models_run, >=, have_reference ? MIN_MODELS : MIN_MODELS_WITHOUT_REFERENCE);
  }
}

/* ---- the corpus ---- */

static void
add_case (GPtrArray *cases, const char *group, const char *stem, const char *model_path,
          const char *data_path)
{
  Case *cs = g_new0 (Case, 1);
  cs->name = g_strdup_printf ("%s/%s", group, stem);
  cs->model_path = g_strdup (model_path);
  cs->data_path = data_path && g_file_test (data_path, G_FILE_TEST_EXISTS) ? g_strdup (data_path)
                                                                           : NULL;
  g_ptr_array_add (cases, cs);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The entries of `dir` (sorted), or none when it is absent. */
static GPtrArray *
list_dir (const char *dir)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = dir ? g_dir_open (dir, 0, NULL) : NULL;
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* The .stan files of `dir`, each with `dir`/<stem>.data.json when there is one. */
static void
add_stan_files (GPtrArray *cases, const char *group, const char *dir)
{
  g_autoptr (GPtrArray) names = list_dir (dir);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      if (!g_str_has_suffix (name, ".stan"))
        continue;
      g_autofree char *stem = g_strndup (name, strlen (name) - strlen (".stan"));
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *data_name = g_strconcat (stem, ".data.json", NULL);
      g_autofree char *data = g_build_filename (dir, data_name, NULL);
      add_case (cases, group, stem, path, data);
    }
}

/* `dir`/<name>/model.stan with `dir`/<name>/data.json. */
static void
add_reference (GPtrArray *cases, const char *dir)
{
  g_autoptr (GPtrArray) names = list_dir (dir);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir, name, "model.stan", NULL);
      g_autofree char *data = g_build_filename (dir, name, "data.json", NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        add_case (cases, "reference", name, path, data);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *root = g_getenv ("TILDE_SOURCE_ROOT");
  g_autofree char *valid = root ? g_build_filename (root, "tests", "syntax", "models", "valid", NULL) : NULL;
  g_autofree char *mir = root ? g_build_filename (root, "tests", "mir", "models", NULL) : NULL;
  GPtrArray *cases = g_ptr_array_new ();
  if (valid)
    add_stan_files (cases, "syntax", valid);
  if (mir)
    add_stan_files (cases, "mir", mir);
  add_stan_files (cases, "examples", g_getenv ("TILDE_EXAMPLES_DIR"));
  add_reference (cases, g_getenv ("TILDE_REFERENCE_DIR"));
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *cs = g_ptr_array_index (cases, i);
      g_autofree char *path = g_strconcat ("/runtime/differential/models/", cs->name, NULL);
      g_test_add_data_func (path, cs, check_model);
    }
  /* last: GLib runs the cases in the order they were added */
  g_test_add_func ("/runtime/differential/summary/enough-models", check_enough_models);
  return g_test_run ();
}
