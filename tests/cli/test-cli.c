/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The `tilde` command line, run as a user runs it: exit statuses, what goes to
 * standard output and to standard error. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scratch.h"

typedef struct {
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *run)
{
  g_free (run->out);
  g_free (run->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs `tilde ARGS...` (NULL-terminated). */
static void
run_tilde (Run *run, ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *bin = g_getenv ("TILDE_BIN");
  const char *arg;
  va_list ap;
  int wait_status;

  g_assert_nonnull (bin);
  g_ptr_array_add (argv, (char *) bin);
  va_start (ap, run);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run->status = WEXITSTATUS (wait_status);
}

/* TEXT with every run of white space made one space: line breaks of wrapped
 * warnings depend on the length of the file name. */
static char *
squash (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p; p++)
    if (g_ascii_isspace (*p))
      {
        if (out->len == 0 || out->str[out->len - 1] != ' ')
          g_string_append_c (out, ' ');
      }
    else
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

static char *
write_model (const char *name, const char *text)
{
  g_autofree char *dir = tilde_scratch_folder_new ("tilde-cli");
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static char *
example (const char *name)
{
  return g_build_filename (g_getenv ("TILDE_EXAMPLES_DIR"), name, NULL);
}

static void
test_version_and_help (void)
{
  g_auto(Run) version = { 0 };
  g_auto(Run) help = { 0 };
  g_auto(Run) compile_help = { 0 };

  run_tilde (&version, "--version", NULL);
  g_assert_cmpint (version.status, ==, 0);
  g_assert_true (g_str_has_prefix (version.out, "tilde "));
  g_assert_nonnull (strstr (version.out, "Stan language"));

  run_tilde (&help, "--help", NULL);
  g_assert_cmpint (help.status, ==, 0);
  for (const char *const *c = (const char *const[]) { "compile", "sample", "optimize", "log-prob", "summary", NULL };
       *c; c++)
    g_assert_nonnull (strstr (help.out, *c));

  run_tilde (&compile_help, "compile", "--help", NULL);
  g_assert_cmpint (compile_help.status, ==, 0);
  g_assert_nonnull (strstr (compile_help.out, "--warn-pedantic"));
  g_assert_nonnull (strstr (compile_help.out, "--include-paths"));
}

static void
test_usage_errors (void)
{
  g_auto(Run) no_file = { 0 };
  g_auto(Run) bad_option = { 0 };
  g_auto(Run) missing = { 0 };

  run_tilde (&no_file, "compile", NULL);
  g_assert_cmpint (no_file.status, ==, 124);
  run_tilde (&bad_option, "compile", "--no-such-option", "m.stan", NULL);
  g_assert_cmpint (bad_option.status, ==, 124);
  run_tilde (&missing, "compile", "/nonexistent/model.stan", NULL);
  g_assert_cmpint (missing.status, ==, 1);
  g_assert_nonnull (strstr (missing.err, "/nonexistent/model.stan"));
}

static void
test_compile_good_model (void)
{
  g_autofree char *path = example ("eight_schools.stan");
  g_auto(Run) run = { 0 };

  run_tilde (&run, "compile", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
}

/* A syntax error: stanc's header and excerpt on standard error, the first
 * error only, nothing on standard output, status 1. The exact wording of each
 * message is checked against stanc's own outputs in tests/syntax. */
static void
test_compile_syntax_error (void)
{
  g_autofree char *path = write_model ("old.stan", "data {\n  int N;\n  real x[N];\n}\n");
  g_autofree char *header = NULL;
  g_auto(Run) run = { 0 };

  run_tilde (&run, "compile", path, NULL);
  header = g_strdup_printf ("Syntax error in '%s', line 3, column ", path);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_true (g_str_has_prefix (run.err, header));
  g_assert_nonnull (strstr (run.err, "     3:    real x[N];\n"));
  g_assert_nonnull (strstr (run.err, "array[N] real x;"));
  g_assert_cmpstr (run.out, ==, "");
}

static void
test_compile_semantic_error_first_only (void)
{
  g_autofree char *path = write_model ("two.stan",
                                       "parameters {\n  real y;\n}\nmodel {\n"
                                       "  real half = 1 / 2;\n"
                                       "  y ~ normal(0, undefined_a);\n"
                                       "  y ~ normal(0, undefined_b);\n}\n");
  g_auto(Run) run = { 0 };
  g_auto(Run) json = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *array;

  run_tilde (&run, "compile", path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  /* the warning about 1 / 2 is the type checker's, which stanc leaves out
   * when there is an error */
  g_assert_true (g_str_has_prefix (run.err, "Semantic error in '"));
  g_assert_nonnull (strstr (run.err, "Identifier 'undefined_a' not in scope."));
  g_assert_null (strstr (run.err, "Identifier 'undefined_b'"));
  g_assert_null (strstr (run.err + 1, "Semantic error"));

  /* The JSON form carries every error, for the editor. */
  run_tilde (&json, "compile", "--json-diagnostics", path, NULL);
  g_assert_cmpint (json.status, ==, 1);
  g_assert_true (json_parser_load_from_data (parser, json.out, -1, NULL));
  array = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (array), ==, 3);
  {
    GString *seen = g_string_new (NULL);

    for (guint i = 0; i < 3; i++)
      {
        JsonObject *d = json_array_get_object_element (array, i);
        g_string_append_printf (seen, "%s:%" G_GINT64_FORMAT " ",
                                json_object_get_string_member (d, "severity"),
                                json_object_get_int_member (d, "begin_line"));
      }
    g_assert_nonnull (strstr (seen->str, "warning:5 "));
    g_assert_nonnull (strstr (seen->str, "error:6 "));
    g_assert_nonnull (strstr (seen->str, "error:7 "));
    g_string_free (seen, TRUE);
  }
}

static void
test_filename_in_msg (void)
{
  g_autofree char *path = write_model ("real.stan", "model {\n  y ~ normal(0, 1);\n}\n");
  g_auto(Run) run = { 0 };

  run_tilde (&run, "compile", "--filename-in-msg=shown.stan", path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_true (g_str_has_prefix (run.err, "Semantic error in 'shown.stan', line 2, column 2 to column 3:"));
}

static void
test_info (void)
{
  g_autofree char *path = example ("eight_schools.stan");
  g_auto(Run) run = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *tau;
  JsonArray *distributions;

  run_tilde (&run, "compile", "--info", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, run.out, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_has_member (json_object_get_object_member (root, "inputs"), "sigma"));
  tau = json_object_get_object_member (json_object_get_object_member (root, "parameters"), "tau");
  g_assert_cmpstr (json_object_get_string_member (tau, "type"), ==, "real");
  g_assert_cmpint (json_object_get_int_member (tau, "dimensions"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (tau, "constraint"), "lower"), ==, "0");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                     json_object_get_object_member (root, "transformed parameters"), "theta"), "dimensions"), ==, 1);
  distributions = json_object_get_array_member (root, "distributions");
  g_assert_cmpuint (json_array_get_length (distributions), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (distributions, 0), ==, "cauchy_lupdf");
  g_assert_cmpstr (json_array_get_string_element (distributions, 1), ==, "normal_lupdf");
  g_assert_cmpstr (json_array_get_string_element (distributions, 2), ==, "std_normal_lupdf");
}

static void
test_auto_format_to_file (void)
{
  g_autofree char *path = write_model ("ugly.stan", "parameters{real y;}model{y~normal(0,1);}\n");
  g_autofree char *out_path = g_strconcat (path, ".formatted", NULL);
  g_autofree char *formatted = NULL;
  g_auto(Run) run = { 0 };
  g_auto(Run) again = { 0 };

  run_tilde (&run, "compile", "--auto-format", "--o", out_path, path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_get_contents (out_path, &formatted, NULL, NULL));
  g_assert_cmpstr (formatted, ==, "parameters {\n  real y;\n}\nmodel {\n  y ~ normal(0, 1);\n}\n\n");
  /* Formatting formatted output changes nothing. */
  run_tilde (&again, "compile", "--auto-format", out_path, NULL);
  g_assert_cmpstr (again.out, ==, formatted);
}

static void
test_canonicalize (void)
{
  g_autofree char *path = write_model ("canon.stan",
                                       "parameters {\n  real y;\n}\nmodel {\n"
                                       "  if (1) y ~ normal(((0)), 1);\n}\n");
  g_auto(Run) braces = { 0 };
  g_auto(Run) canonical = { 0 };
  g_auto(Run) bad = { 0 };

  run_tilde (&braces, "compile", "--auto-format", "--canonicalize=braces", path, NULL);
  g_assert_cmpint (braces.status, ==, 0);
  g_assert_nonnull (strstr (braces.out, "if (1) {\n    y ~ normal(((0)), 1);\n  }"));
  run_tilde (&canonical, "compile", "--print-canonical", path, NULL);
  g_assert_nonnull (strstr (canonical.out, "if (1) {\n    y ~ normal(0, 1);\n  }"));
  run_tilde (&bad, "compile", "--canonicalize=everything", path, NULL);
  g_assert_cmpint (bad.status, ==, 124);
}

static void
test_pedantic_and_uninitialized (void)
{
  g_autofree char *path = write_model ("ped.stan",
                                       "parameters {\n  real sigma;\n  real mu;\n}\nmodel {\n"
                                       "  real z;\n  mu ~ normal(z, sigma);\n"
                                       "  sigma ~ normal(0, 1);\n}\n");
  g_auto(Run) plain = { 0 };
  g_auto(Run) pedantic = { 0 };
  g_auto(Run) uninit = { 0 };
  g_autofree char *pedantic_text = NULL;
  g_autofree char *uninit_text = NULL;

  run_tilde (&plain, "compile", path, NULL);
  g_assert_cmpint (plain.status, ==, 0);
  g_assert_cmpstr (plain.err, ==, "");

  run_tilde (&pedantic, "compile", "--warn-pedantic", path, NULL);
  g_assert_cmpint (pedantic.status, ==, 0);
  pedantic_text = squash (pedantic.err);
  g_assert_nonnull (strstr (pedantic_text, "line 7, column 17: A normal distribution is given parameter "
                                           "sigma as a scale parameter (argument 2), but sigma was not "
                                           "constrained to be strictly positive."));
  g_assert_nonnull (strstr (pedantic_text, "line 7, column 14: The variable z may not have been "
                                           "assigned a value before its use."));

  run_tilde (&uninit, "compile", "--warn-uninitialized", path, NULL);
  g_assert_cmpint (uninit.status, ==, 0);
  uninit_text = squash (uninit.err);
  g_assert_nonnull (strstr (uninit_text, "The variable z may not have been assigned"));
  g_assert_null (strstr (uninit_text, "strictly positive"));
}

static void
test_debug_mir (void)
{
  g_autofree char *path = example ("eight_schools.stan");
  g_auto(Run) mir = { 0 };
  g_auto(Run) transformed = { 0 };
  g_auto(Run) patterns = { 0 };

  run_tilde (&mir, "compile", "--debug-mir-pretty", path, NULL);
  g_assert_cmpint (mir.status, ==, 0);
  g_assert_nonnull (strstr (mir.out, "log_prob {"));
  g_assert_nonnull (strstr (mir.out, "target += cauchy_lupdf(tau"));

  /* Reading data and constraining parameters are explicit. */
  run_tilde (&transformed, "compile", "--debug-transformed-mir-pretty", path, NULL);
  g_assert_cmpint (transformed.status, ==, 0);
  g_assert_nonnull (strstr (transformed.out, "prepare_data {"));
  g_assert_nonnull (strstr (transformed.out, "FnReadData__(\"J\")"));
  g_assert_nonnull (strstr (transformed.out, "FnReadParam(constrain(Lower 0))"));

  run_tilde (&patterns, "compile", "--debug-mem-patterns", path, NULL);
  g_assert_cmpint (patterns.status, ==, 0);
  g_assert_nonnull (strstr (patterns.out, "vector[J] theta_tilde: SoA"));
}

static void
test_optimization_levels (void)
{
  g_autofree char *path = write_model ("opt.stan",
                                       "parameters {\n  real mu;\n}\nmodel {\n"
                                       "  target += log(1 - inv_logit(mu));\n}\n");
  g_auto(Run) o0 = { 0 };
  g_auto(Run) o1 = { 0 };
  g_auto(Run) passes = { 0 };
  g_auto(Run) both = { 0 };

  run_tilde (&o0, "compile", "--debug-optimized-mir-pretty", path, NULL);
  g_assert_cmpint (o0.status, ==, 0);
  g_assert_nonnull (strstr (o0.out, "log((1 - inv_logit(mu)))"));

  /* The documented rewrite of log(1 - inv_logit(x)). */
  run_tilde (&o1, "compile", "--O1", "--debug-optimized-mir-pretty", path, NULL);
  g_assert_cmpint (o1.status, ==, 0);
  g_assert_nonnull (strstr (o1.out, "target += log1m_inv_logit(mu);"));

  run_tilde (&passes, "compile", "--O1", "--debug-passes", path, NULL);
  g_assert_cmpint (passes.status, ==, 0);
  g_assert_nonnull (strstr (passes.out, "--- after partial_evaluation:"));
  g_assert_null (strstr (passes.out, "--- after static_loop_unrolling:"));

  run_tilde (&both, "compile", "--O1", "--Oexperimental", path, NULL);
  g_assert_cmpint (both.status, ==, 124);
}

static gboolean
close_enough (double actual, double expected, double rel)
{
  return fabs (actual - expected) <= rel * MAX (1.0, fabs (expected));
}

/* Every case of every reference model's logprob.json (CmdStan's log_prob
 * method), through the command line, at every optimisation level. */
static void
test_log_prob_reference (void)
{
  const char *ref = g_getenv ("TILDE_REFERENCE_DIR");
  g_autoptr(GDir) dir = NULL;
  const char *entry;
  int n_checked = 0;

  if (ref == NULL || !g_file_test (ref, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no reference models");
      return;
    }
  dir = g_dir_open (ref, 0, NULL);
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *model = g_build_filename (ref, entry, "model.stan", NULL);
      g_autofree char *data = g_build_filename (ref, entry, "data.json", NULL);
      g_autofree char *logprob = g_build_filename (ref, entry, "logprob.json", NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonArray *cases;

      if (!g_file_test (logprob, G_FILE_TEST_EXISTS))
        continue;
      g_assert_true (json_parser_load_from_file (parser, logprob, NULL));
      cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
      for (guint c = 0; c < json_array_get_length (cases); c++)
        {
          JsonObject *kase = json_array_get_object_element (cases, c);
          g_autoptr(JsonGenerator) gen = json_generator_new ();
          g_autofree char *params_text = NULL;
          g_autofree char *params = NULL;
          const char *level = (const char *[]) { "--O0", "--O1", "--Oexperimental" }[c % 3];
          gboolean propto = json_object_get_boolean_member (kase, "propto");
          gboolean jacobian = json_object_get_boolean_member (kase, "jacobian");
          g_auto(Run) run = { 0 };
          g_autoptr(JsonParser) out = json_parser_new ();
          JsonObject *result;
          JsonArray *expected_gradient, *gradient;

          json_generator_set_root (gen, json_object_get_member (kase, "params"));
          params_text = json_generator_to_data (gen, NULL);
          params = write_model ("params.json", params_text);
          run_tilde (&run, "log-prob", model, "--data", data, "--params", params, level,
                     propto ? "--propto" : level, jacobian ? level : "--no-jacobian", NULL);
          if (run.status != 0)
            g_error ("%s case %u: %s", entry, c, run.err);
          g_assert_true (json_parser_load_from_data (out, run.out, -1, NULL));
          result = json_node_get_object (json_parser_get_root (out));
          g_assert_true (close_enough (json_object_get_double_member (result, "log_density"),
                                       json_object_get_double_member (kase, "log_density"), 1e-7));
          expected_gradient = json_object_get_array_member (kase, "gradient");
          gradient = json_object_get_array_member (result, "gradient");
          g_assert_cmpuint (json_array_get_length (gradient), ==, json_array_get_length (expected_gradient));
          for (guint i = 0; i < json_array_get_length (gradient); i++)
            g_assert_true (close_enough (json_array_get_double_element (gradient, i),
                                         json_array_get_double_element (expected_gradient, i), 1e-6));
          n_checked++;
        }
    }
  g_assert_cmpint (n_checked, >, 30);
}


static double
log_density_of (const Run *run)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_cmpint (run->status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, run->out, -1, NULL));
  return json_object_get_double_member (json_node_get_object (json_parser_get_root (parser)),
                                        "log_density");
}

/* --context: the prior (with the Jacobian) and the likelihood of a normal
 * model with a normal prior on its mean, against their closed forms; its
 * print() lines on standard error. */
static void
test_log_prob_context (void)
{
  g_autofree char *model = write_model ("nn.stan",
                                        "data { int N; vector[N] y; }\n"
                                        "parameters { real mu; real<lower=0> sigma; }\n"
                                        "model {\n"
                                        "  mu ~ normal(1, 2);\n"
                                        "  sigma ~ exponential(1);\n"
                                        "  y ~ normal(mu, sigma);\n"
                                        "  print(\"sigma = \", sigma);\n"
                                        "}\n");
  g_autofree char *data = write_model ("nn.json", "{\"N\": 2, \"y\": [0.5, -1]}");
  g_autofree char *params = write_model ("p.json", "{\"mu\": 0.25, \"sigma\": 2}");
  const double mu = 0.25, sigma = 2, y[2] = { 0.5, -1 };
  double prior, likelihood = 0;
  g_auto(Run) joint = { 0 };
  g_auto(Run) prior_run = { 0 };
  g_auto(Run) likelihood_run = { 0 };
  g_auto(Run) bad = { 0 };

  /* normal(mu | 1, 2), exponential(sigma | 1), log Jacobian log(sigma) */
  prior = -0.5 * log (2 * G_PI) - log (2) - 0.5 * pow ((mu - 1) / 2, 2) - sigma + log (sigma);
  for (int n = 0; n < 2; n++)
    likelihood += -0.5 * log (2 * G_PI) - log (sigma) - 0.5 * pow ((y[n] - mu) / sigma, 2);
  run_tilde (&joint, "log-prob", model, "--data", data, "--params", params, NULL);
  run_tilde (&prior_run, "log-prob", model, "--data", data, "--params", params, "--context",
             "prior", "--O1", NULL);
  run_tilde (&likelihood_run, "log-prob", model, "--data", data, "--params", params,
             "--context=likelihood", NULL);
  /* print() goes to standard error: standard output stays JSON */
  g_assert_nonnull (strstr (joint.err, "sigma = 2\n"));
  g_assert_true (close_enough (log_density_of (&joint), prior + likelihood, 1e-12));
  g_assert_true (close_enough (log_density_of (&prior_run), prior, 1e-12));
  g_assert_true (close_enough (log_density_of (&likelihood_run), likelihood, 1e-12));
  run_tilde (&bad, "log-prob", model, "--data", data, "--params", params, "--context", "both",
             NULL);
  g_assert_cmpint (bad.status, ==, 124);
  g_assert_nonnull (strstr (bad.err, "joint, prior or likelihood"));
}

/* A model that #includes functions from its own directory and from one
 * named by --include-paths, as CmdStan builds it: log-prob reads both. */
static void
test_log_prob_includes (void)
{
  g_autofree char *model = write_model ("model.stan",
                                        "functions {\n"
                                        "#include twice.stanfunctions\n"
                                        "#include half.stanfunctions\n"
                                        "}\n"
                                        "parameters { real x; }\n"
                                        "model { x ~ normal(twice(half(3)), 1); }\n");
  g_autofree char *dir = g_path_get_dirname (model);
  g_autofree char *half = g_build_filename (dir, "half.stanfunctions", NULL);
  g_autofree char *lib_file = write_model ("twice.stanfunctions",
                                           "real twice(real x) { return 2 * x; }\n");
  g_autofree char *lib = g_path_get_dirname (lib_file);
  g_autofree char *paths = g_strconcat ("--include-paths=", lib, NULL);
  g_autofree char *params = write_model ("params.json", "{\"x\": 1}");
  g_auto(Run) without = { 0 };
  g_auto(Run) with = { 0 };

  g_assert_true (g_file_set_contents (half, "real half(real x) { return x / 2; }\n", -1, NULL));
  run_tilde (&without, "log-prob", model, "--params", params, NULL);
  g_assert_cmpint (without.status, ==, 1);
  g_assert_nonnull (strstr (without.err, "Could not find include file 'twice.stanfunctions'"));
  run_tilde (&with, "log-prob", paths, model, "--params", params, NULL);
  g_assert_cmpint (with.status, ==, 0);
  /* normal (1 | 3, 1): -log sqrt (2 pi) - 2 */
  g_assert_nonnull (strstr (with.out, "\"log_density\": -2.918938533204672"));
}

static void
test_log_prob_errors (void)
{
  g_autofree char *model = example ("eight_schools.stan");
  g_autofree char *params = write_model ("p.json", "{\"mu\": 1, \"tau\": -1, \"theta_tilde\": [0,0,0,0,0,0,0,0]}");
  g_autofree char *bad_data = write_model ("d.json", "{\"J\": 8, \"y\": [1, 2]}");
  g_auto(Run) no_params = { 0 };
  g_auto(Run) data_error = { 0 };
  g_auto(Run) missing_data = { 0 };

  run_tilde (&no_params, "log-prob", model, NULL);
  g_assert_cmpint (no_params.status, ==, 124);

  /* Data that do not fit the data block are named in the message. */
  run_tilde (&data_error, "log-prob", model, "--data", bad_data, "--params", params, NULL);
  g_assert_cmpint (data_error.status, ==, 1);
  g_assert_nonnull (strstr (data_error.err, "y"));

  run_tilde (&missing_data, "log-prob", model, "--data", "/nonexistent.json", "--params", params, NULL);
  g_assert_cmpint (missing_data.status, ==, 1);
  g_assert_nonnull (strstr (missing_data.err, "/nonexistent.json"));
}

/* The data --debug-generate-data makes for a model fit its data block: the
 * log density of the eight schools model is computed from them. */
static void
test_debug_generate_data (void)
{
  g_autofree char *model = example ("eight_schools.stan");
  g_auto(Run) gen = { 0 };
  g_auto(Run) lp = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  run_tilde (&gen, "compile", "--debug-generate-data", model, NULL);
  g_assert_cmpint (gen.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, gen.out, -1, &error));
  g_assert_no_error (error);
  JsonObject *data = json_node_get_object (json_parser_get_root (parser));
  gint64 J = json_object_get_int_member (data, "J");
  g_assert_cmpint (J, >=, 0);
  JsonArray *sigma = json_object_get_array_member (data, "sigma");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (data, "y")), ==, J);
  g_assert_cmpuint (json_array_get_length (sigma), ==, J);
  for (guint i = 0; i < J; i++)
    g_assert_cmpfloat (json_array_get_double_element (sigma, i), >, 0);

  g_autofree char *data_path = write_model ("data.json", gen.out);
  g_autoptr(GString) params = g_string_new ("{\"mu\": 0.5, \"tau\": 2, \"theta_tilde\": [");
  for (gint64 i = 0; i < J; i++)
    g_string_append_printf (params, "%s0.25", i ? ", " : "");
  g_string_append (params, "]}");
  g_autofree char *params_path = write_model ("params.json", params->str);
  run_tilde (&lp, "log-prob", model, "--data", data_path, "--params", params_path, NULL);
  g_assert_cmpstr (lp.err, ==, "");
  g_assert_cmpint (lp.status, ==, 0);
}


/* Generated sum-to-zero data sum to zero and are not all zero: a vector,
 * each vector of an array, and a matrix by rows and by columns; sizes and
 * bounds written with underscores (1_0) are read whole. */
static void
test_debug_generate_sum_to_zero (void)
{
  g_autofree char *model = write_model ("stz.stan",
                                        "data {\n"
                                        "  sum_to_zero_vector[5] z;\n"
                                        "  array[2] sum_to_zero_vector[3] za;\n"
                                        "  sum_to_zero_matrix[3, 4] zm;\n"
                                        "  vector<lower=1_0>[1_2] v;\n"
                                        "}\n");
  g_auto(Run) gen = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *vectors[3];

  run_tilde (&gen, "compile", "--debug-generate-data", model, NULL);
  g_assert_cmpint (gen.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, gen.out, -1, &error));
  g_assert_no_error (error);
  JsonObject *data = json_node_get_object (json_parser_get_root (parser));
  JsonArray *za = json_object_get_array_member (data, "za");
  vectors[0] = json_object_get_array_member (data, "z");
  vectors[1] = json_array_get_array_element (za, 0);
  vectors[2] = json_array_get_array_element (za, 1);
  for (guint k = 0; k < G_N_ELEMENTS (vectors); k++)
    {
      double sum = 0, abs_sum = 0;
      for (guint i = 0; i < json_array_get_length (vectors[k]); i++)
        {
          double x = json_array_get_double_element (vectors[k], i);
          sum += x;
          abs_sum += fabs (x);
        }
      g_assert_cmpfloat (fabs (sum), <, 1e-6);
      g_assert_cmpfloat (abs_sum, >, 0.1);
    }
  JsonArray *zm = json_object_get_array_member (data, "zm");
  double col_sums[4] = { 0 }, abs_sum = 0;
  for (guint i = 0; i < 3; i++)
    {
      JsonArray *row = json_array_get_array_element (zm, i);
      double row_sum = 0;
      for (guint j = 0; j < 4; j++)
        {
          double x = json_array_get_double_element (row, j);
          row_sum += x;
          col_sums[j] += x;
          abs_sum += fabs (x);
        }
      g_assert_cmpfloat (fabs (row_sum), <, 1e-6);
    }
  for (guint j = 0; j < 4; j++)
    g_assert_cmpfloat (fabs (col_sums[j]), <, 1e-6);
  g_assert_cmpfloat (abs_sum, >, 0.1);

  /* sizes and bounds written with underscores */
  JsonArray *v = json_object_get_array_member (data, "v");
  g_assert_cmpuint (json_array_get_length (v), ==, 12);
  for (guint i = 0; i < 12; i++)
    g_assert_cmpfloat (json_array_get_double_element (v, i), >=, 10);
}

/* ---- tilde sample ---- */

static const char *const bernoulli_model =
  "data { int N; array[N] int<lower=0, upper=1> y; }\n"
  "parameters { real<lower=0, upper=1> theta; }\n"
  "model { theta ~ beta(1, 1); y ~ bernoulli(theta); }\n";
static const char *const bernoulli_data = "{\"N\": 10, \"y\": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]}";

/* A model and its data in a fresh folder; the folder is returned. */
static char *
write_bernoulli (char **model, char **data)
{
  g_autofree char *dir = NULL;

  *model = write_model ("bernoulli.stan", bernoulli_model);
  dir = g_path_get_dirname (*model);
  *data = g_build_filename (dir, "bernoulli.data.json", NULL);
  g_assert_true (g_file_set_contents (*data, bernoulli_data, -1, NULL));
  return g_steal_pointer (&dir);
}

static char *
first_line (const char *path)
{
  g_autofree char *text = NULL;
  char *nl;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  nl = strchr (text, '\n');
  return g_strndup (text, nl ? (gsize) (nl - text) : strlen (text));
}

/* Two chains: one Stan CSV file each (out.csv -> out_1.csv, out_2.csv),
 * CmdStan's progress lines on standard error, the files named at the
 * end on standard output. */
static void
test_sample_files_and_progress (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  g_autofree char *output = g_build_filename (dir, "out.csv", NULL);
  g_autofree char *one = g_build_filename (dir, "out_1.csv", NULL);
  g_autofree char *two = g_build_filename (dir, "out_2.csv", NULL);
  g_autofree char *line = NULL;
  g_auto(Run) run = { 0 };

  run_tilde (&run, "sample", model, "--data", data, "--chains", "2", "--warmup", "100",
             "--samples", "100", "--seed", "3", "--refresh", "50", "--output", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_test (one, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (two, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  line = first_line (two);
  g_assert_cmpstr (line, ==, "# stan_version_major = 2");
  g_assert_nonnull (strstr (run.err, "Chain [1] Iteration:   1 / 200 [  0%]  (Warmup)\n"));
  g_assert_nonnull (strstr (run.err, "Chain [2] Iteration:  50 / 200 [ 25%]  (Warmup)\n"));
  g_assert_nonnull (strstr (run.err, "Chain [2] Iteration: 101 / 200 [ 50%]  (Sampling)\n"));
  g_assert_nonnull (strstr (run.err, "Chain [1] Iteration: 200 / 200 [100%]  (Sampling)\n"));
  g_assert_nonnull (strstr (run.out, one));
  g_assert_nonnull (strstr (run.out, two));
  g_assert_nonnull (strstr (run.out, "divergences"));
}

/* The mean of the last column over the draws of a Stan CSV file. */
static double
mean_of_last_column (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  double sum = 0;
  guint n = 0;
  gboolean header = TRUE;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (**l == '#' || **l == '\0')
        continue;
      if (header)
        {
          header = FALSE;
          continue;
        }
      sum += g_ascii_strtod (strrchr (*l, ',') + 1, NULL);
      n++;
    }
  g_assert_cmpuint (n, >, 0);
  return sum / n;
}

/* --context prior drops y ~ bernoulli(theta): theta is then uniform (mean
 * 1/2, sd 0.29, so 2,000 draws put the mean within 0.03 of it), where the
 * posterior beta(3, 9) has mean 1/4; the summary table follows the run. */
static void
test_sample_context (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  g_autofree char *prior = g_build_filename (dir, "prior.csv", NULL);
  g_autofree char *joint = g_build_filename (dir, "joint.csv", NULL);
  g_auto(Run) run = { 0 };
  g_auto(Run) run_joint = { 0 };
  g_auto(Run) bad = { 0 };

  run_tilde (&run, "sample", model, "--data", data, "--chains", "1", "--samples", "2000",
             "--seed", "11", "--refresh", "0", "--context", "prior", "--output", prior, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpfloat (fabs (mean_of_last_column (prior) - 0.5), <, 0.03);
  g_assert_nonnull (strstr (run.out, "ESS_bulk"));
  g_assert_nonnull (strstr (run.out, "theta "));

  run_tilde (&run_joint, "sample", model, "--data", data, "--chains", "1", "--samples", "2000",
             "--seed", "11", "--refresh", "0", "--output", joint, NULL);
  g_assert_cmpint (run_joint.status, ==, 0);
  g_assert_cmpfloat (fabs (mean_of_last_column (joint) - 0.25), <, 0.03);

  run_tilde (&bad, "sample", model, "--data", data, "--context", "posterior", NULL);
  g_assert_cmpint (bad.status, ==, 124);
  g_assert_nonnull (strstr (bad.err, "--context must be joint, prior or likelihood"));
}

/* --metric-adaptation gradients samples, and says so in the files'
 * header, which leaves the line out after Stan's adaptation as CmdStan
 * does not know it. */
static void
test_sample_metric_adaptation (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  const char *const kinds[] = { "gradients", "stan" };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *output = g_build_filename (dir, "draws.csv", NULL);
      g_autofree char *text = NULL;
      g_auto(Run) run = { 0 };

      run_tilde (&run, "sample", model, "--data", data, "--chains", "1", "--samples", "2000", "--seed", "3",
                 "--refresh", "0",
                 "--metric-adaptation", kinds[k], "--output", output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_true (g_file_get_contents (output, &text, NULL, NULL));
      g_assert_nonnull (strstr (text, "# Adaptation terminated\n# Step size = "));
      g_assert_cmpfloat (fabs (mean_of_last_column (output) - 0.25), <, 0.03);
      if (k == 0)
        g_assert_nonnull (strstr (text, "\n#       window = 25 (Default)\n#       metric_adaptation = gradients\n"));
      else
        g_assert_null (strstr (text, "metric_adaptation"));
    }
}

/* One chain writes exactly the name given, and its lines carry no chain. */
static void
test_sample_one_chain (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  g_autofree char *output = g_build_filename (dir, "draws.csv", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0 };
  guint rows = 0;

  run_tilde (&run, "sample", model, "--data", data, "--chains", "1", "--num-warmup", "100",
             "--num-samples", "30", "--output", output, "--refresh", "100", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "Iteration:   1 / 130 [  0%]  (Warmup)\n"));
  g_assert_null (strstr (run.err, "Chain ["));
  g_assert_true (g_file_get_contents (output, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0] != '#' && lines[i][0] != '\0' && !g_str_has_prefix (lines[i], "lp__"))
      rows++;
  g_assert_cmpuint (rows, ==, 30);
}

static void
test_sample_usage_errors (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  const char *bad[][2] = {
    { "--chains", "0" }, { "--metric", "euclid" }, { "--adapt-delta", "1.5" }, { "--thin", "0" },
    { "--max-depth", "0" }, { "--sig-figs", "30" }, { "--no-such-flag", NULL },
    { "--metric-adaptation", "fisher" },
  };
  g_auto(Run) none = { 0 };
  g_auto(Run) help = { 0 };
  g_auto(Run) unit = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto(Run) run = { 0 };
      run_tilde (&run, "sample", model, "--data", data, bad[i][0], bad[i][1], NULL);
      g_assert_cmpint (run.status, ==, 124);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_true (g_str_has_prefix (run.err, "tilde sample: "));
    }
  run_tilde (&unit, "sample", model, "--data", data, "--metric", "unit", "--metric-adaptation",
             "gradients", NULL);
  g_assert_cmpint (unit.status, ==, 124);
  g_assert_nonnull (strstr (unit.err, "use it with --metric diag or dense"));
  run_tilde (&none, "sample", NULL);
  g_assert_cmpint (none.status, ==, 124);
  run_tilde (&help, "sample", "--help", NULL);
  g_assert_cmpint (help.status, ==, 0);
  for (const char *const *flag = (const char *const[]) { "--data", "--init", "--chains", "--threads",
                                                         "--warmup", "--samples", "--thin", "--seed",
                                                         "--adapt-delta", "--max-depth", "--metric",
                                                         "--metric-adaptation", "--save-warmup", "--output", "--refresh",
                                                         "--sig-figs", NULL };
       *flag; flag++)
    g_assert_nonnull (strstr (help.out, *flag));
}

/* Errors in the model, the data or the inits: status 1 and a message. */
static void
test_sample_model_errors (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  g_autofree char *bad_data = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *missing_init = g_build_filename (dir, "missing-init.json", NULL);
  g_auto(Run) no_data = { 0 };
  g_auto(Run) wrong_data = { 0 };
  g_auto(Run) no_model = { 0 };
  g_auto(Run) no_init = { 0 };

  g_assert_true (g_file_set_contents (bad_data, "{\"N\": 2, \"y\": [0, 1, 1]}", -1, NULL));
  run_tilde (&no_data, "sample", model, NULL);
  g_assert_cmpint (no_data.status, ==, 1);
  g_assert_nonnull (strstr (no_data.err, "N"));
  run_tilde (&wrong_data, "sample", model, "--data", bad_data, NULL);
  g_assert_cmpint (wrong_data.status, ==, 1);
  g_assert_nonnull (strstr (wrong_data.err, "y"));
  run_tilde (&no_model, "sample", "/nonexistent/model.stan", NULL);
  g_assert_cmpint (no_model.status, ==, 1);
  run_tilde (&no_init, "sample", model, "--data", data, "--init", missing_init, NULL);
  g_assert_cmpint (no_init.status, ==, 1);
  g_assert_nonnull (strstr (no_init.err, "missing-init.json"));
}

/* Proposals rejected on the model's errors: CmdStan's message with the
 * statement's place, and at the end their count by statement. */
static void
test_sample_rejections (void)
{
  g_autofree char *model = write_model ("scale.stan", "parameters { real mu; real s; }\n"
                                                      "model {\n"
                                                      "  mu ~ normal(0, 1);\n"
                                                      "  s ~ normal(1, 0.5);\n"
                                                      "  0.5 ~ normal(mu, s);\n"
                                                      "}\n");
  g_autofree char *dir = g_path_get_dirname (model);
  g_autofree char *output = g_build_filename (dir, "scale.csv", NULL);
  g_autofree char *place = g_strdup_printf ("'%s', line 5, column 2", model);
  g_autofree char *located = g_strdup_printf (", but must be positive! (in %s to column 22)\n",
                                              place);
  g_autofree char *count_line = NULL;
  g_auto(Run) run = { 0 };
  guint total = 0, at_place = 0;
  const char *p;

  run_tilde (&run, "sample", model, "--chains", "2", "--seed", "5", "--output", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "is about to be rejected because of the following issue:\n"
                                     "Chain [1] Exception: normal_lpdf: Scale parameter is "));
  g_assert_nonnull (strstr (run.err, located));
  p = strstr (run.err, " proposals were rejected because the model raised an error (warm-up "
                       "included).\n");
  g_assert_nonnull (p);
  while (p > run.err && g_ascii_isdigit (p[-1]))
    p--;
  g_assert_cmpint (sscanf (p, "%u proposals", &total), ==, 1);
  count_line = g_strdup_printf (" at %s\n", place);
  p = strstr (p, "\n  ");
  g_assert_nonnull (p);
  g_assert_cmpint (sscanf (p, "\n  %u at ", &at_place), ==, 1);
  g_assert_true (g_str_has_prefix (strchr (p + 3, ' '), count_line));
  /* every rejection came from that statement */
  g_assert_cmpuint (at_place, ==, total);
  g_assert_cmpuint (total, >, 0);
}

/* No starting point: CmdStan's account of the attempts, then status 1. */
static void
test_sample_init_failure (void)
{
  g_autofree char *model = write_model ("never.stan", "parameters { real x; }\n"
                                                      "model { target += negative_infinity(); }\n");
  g_autofree char *dir = g_path_get_dirname (model);
  g_autofree char *output = g_build_filename (dir, "never.csv", NULL);
  g_auto(Run) run = { 0 };

  run_tilde (&run, "sample", model, "--chains", "1", "--output", output, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "Rejecting initial value:\n"
                                     "  Log probability evaluates to log(0), i.e. negative infinity.\n"));
  g_assert_nonnull (strstr (run.err, "Initialization between (-2, 2) failed after 100 attempts."));
  g_assert_nonnull (strstr (run.err, "Initialization failed."));
}

/* Inits by name on the constrained scale: with fixed_param every draw is
 * the starting point. */
static void
test_sample_init_file (void)
{
  g_autofree char *model = NULL, *data = NULL, *dir = write_bernoulli (&model, &data);
  g_autofree char *init = g_build_filename (dir, "init.json", NULL);
  g_autofree char *output = g_build_filename (dir, "fixed.csv", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0 };
  guint rows = 0;

  g_assert_true (g_file_set_contents (init, "{\"theta\": 0.25}", -1, NULL));
  run_tilde (&run, "sample", model, "--data", data, "--init", init, "--fixed-param",
             "--chains", "1", "--samples", "5", "--output", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_get_contents (output, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\n#     algorithm = fixed_param\n"));
  g_assert_nonnull (strstr (text, "\n# init = "));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0] != '#' && lines[i][0] != '\0' && !g_str_has_prefix (lines[i], "lp__"))
      {
        g_assert_cmpstr (lines[i], ==, "0,0,0.25");
        rows++;
      }
  g_assert_cmpuint (rows, ==, 5);
}

/* A model without parameters runs the fixed_param sampler, and says so. */
/* The first draw's column `name` of a Stan CSV file, as text. */
static char *
first_draw_column (const char *path, const char *name)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  int column = -1;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      g_auto(GStrv) fields = g_strsplit (lines[i], ",", -1);
      if (column < 0)
        {
          for (int k = 0; fields[k]; k++)
            if (strcmp (fields[k], name) == 0)
              column = k;
          g_assert_cmpint (column, >=, 0);
          continue;
        }
      return g_strdup (fields[column]);
    }
  g_assert_not_reached ();
}

/* Random numbers in transformed data come from the run's seed: the same
 * seed gives the same data, another seed other data. */
static void
test_sample_transformed_data_rng (void)
{
  g_autofree char *model = write_model ("rng.stan",
                                        "transformed data { real z = normal_rng(0, 1); }\n"
                                        "parameters { real mu; }\n"
                                        "model { mu ~ normal(z, 1); }\n"
                                        "generated quantities { real zz = z; }\n");
  g_autofree char *dir = g_path_get_dirname (model);
  const char *seeds[3] = { "11", "11", "12" };
  char *z[3];

  for (int k = 0; k < 3; k++)
    {
      g_autofree char *output = g_strdup_printf ("%s/run%d.csv", dir, k);
      g_auto(Run) run = { 0 };

      run_tilde (&run, "sample", model, "--chains", "1", "--warmup", "20", "--samples", "3",
                 "--seed", seeds[k], "--output", output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      z[k] = first_draw_column (output, "zz");
    }
  g_assert_cmpstr (z[0], ==, z[1]);
  g_assert_cmpstr (z[0], !=, z[2]);
  for (int k = 0; k < 3; k++)
    g_free (z[k]);
}

static void
test_sample_no_parameters (void)
{
  g_autofree char *model = write_model ("gq.stan", "generated quantities { real y = normal_rng(0, 1); }\n");
  g_autofree char *dir = g_path_get_dirname (model);
  g_autofree char *output = g_build_filename (dir, "gq.csv", NULL);
  g_auto(Run) run = { 0 };

  run_tilde (&run, "sample", model, "--chains", "1", "--samples", "10", "--output", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "Model contains no parameters, running fixed_param sampler, "
                                     "no updates to Markov chain"));
  /* CmdStan pads to ceil(log10(10)) = 1 place */
  g_assert_nonnull (strstr (run.err, "Iteration: 1 / 10 [ 10%]  (Sampling)\n"));
  g_assert_nonnull (strstr (run.err, "Iteration: 10 / 10 [100%]  (Sampling)\n"));
  g_assert_true (g_file_test (output, G_FILE_TEST_EXISTS));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/version-and-help", test_version_and_help);
  g_test_add_func ("/cli/usage-errors", test_usage_errors);
  g_test_add_func ("/cli/compile/good-model", test_compile_good_model);
  g_test_add_func ("/cli/compile/syntax-error", test_compile_syntax_error);
  g_test_add_func ("/cli/compile/semantic-error-first-only", test_compile_semantic_error_first_only);
  g_test_add_func ("/cli/compile/filename-in-msg", test_filename_in_msg);
  g_test_add_func ("/cli/compile/info", test_info);
  g_test_add_func ("/cli/compile/auto-format-to-file", test_auto_format_to_file);
  g_test_add_func ("/cli/compile/canonicalize", test_canonicalize);
  g_test_add_func ("/cli/compile/pedantic-and-uninitialized", test_pedantic_and_uninitialized);
  g_test_add_func ("/cli/compile/debug-mir", test_debug_mir);
  g_test_add_func ("/cli/compile/optimization-levels", test_optimization_levels);
  g_test_add_func ("/cli/log-prob/reference", test_log_prob_reference);
  g_test_add_func ("/cli/log-prob/errors", test_log_prob_errors);
  g_test_add_func ("/cli/log-prob/includes", test_log_prob_includes);
  g_test_add_func ("/cli/log-prob/context", test_log_prob_context);
  g_test_add_func ("/cli/compile/debug-generate-data", test_debug_generate_data);
  g_test_add_func ("/cli/compile/debug-generate-sum-to-zero", test_debug_generate_sum_to_zero);
  g_test_add_func ("/cli/sample/files-and-progress", test_sample_files_and_progress);
  g_test_add_func ("/cli/sample/transformed-data-rng", test_sample_transformed_data_rng);
  g_test_add_func ("/cli/sample/one-chain", test_sample_one_chain);
  g_test_add_func ("/cli/sample/context", test_sample_context);
  g_test_add_func ("/cli/sample/usage-errors", test_sample_usage_errors);
  g_test_add_func ("/cli/sample/metric-adaptation", test_sample_metric_adaptation);
  g_test_add_func ("/cli/sample/model-errors", test_sample_model_errors);
  g_test_add_func ("/cli/sample/init-failure", test_sample_init_failure);
  g_test_add_func ("/cli/sample/rejections", test_sample_rejections);
  g_test_add_func ("/cli/sample/init-file", test_sample_init_file);
  g_test_add_func ("/cli/sample/no-parameters", test_sample_no_parameters);
  return g_test_run ();
}
