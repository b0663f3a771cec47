/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde summary` run as a user runs it: the table and warnings on standard
 * output, problems with the files on standard error, the exit status. The
 * numbers come from tests/infer/data/reference-summary.json, computed
 * independently of Tilde by tests/infer/make-diagnostics-reference.py. */
#define G_LOG_DOMAIN "tilde-test"

#include <json-glib/json-glib.h>
#include <math.h>
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

/* Runs `tilde summary ARGS...` (ARGV NULL-terminated). */
static void
run_summary (Run *run, const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *bin = g_getenv ("TILDE_BIN");
  int wait_status;

  g_assert_nonnull (bin);
  g_ptr_array_add (argv, (char *) bin);
  g_ptr_array_add (argv, (char *) "summary");
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (char *) *a);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run->status = WEXITSTATUS (wait_status);
}

static char *
reference_chain (int i)
{
  g_autofree char *name = g_strdup_printf ("chain-%d.csv", i);

  return g_test_build_filename (G_TEST_DIST, "infer", "data", "reference-run", name, NULL);
}

static char *
write_file (const char *name, const char *text)
{
  g_autofree char *dir = tilde_scratch_folder_new ("tilde-summary");
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static JsonObject *
load_json (JsonParser *parser, const char *text)
{
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static double
number (JsonObject *o, const char *member)
{
  JsonNode *node = json_object_get_member (o, member);

  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_str_equal (json_node_get_string (node), "NaN") ? NAN : INFINITY;
  return json_node_get_double (node);
}

static void
test_reference_run_table (void)
{
  g_autofree char *c1 = reference_chain (1), *c2 = reference_chain (2);
  g_autofree char *c3 = reference_chain (3), *c4 = reference_chain (4);
  g_auto(Run) run = { 0 };

  run_summary (&run, (const char *[]) { c1, c2, c3, c4, NULL });
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_true (g_str_has_prefix (run.out, "Inference for Stan model: reference_model\n"
                                            "4 chains: each with iter=400; warmup=20; thin=1; "
                                            "1600 iterations saved.\n"));
  g_assert_nonnull (strstr (run.out, "    Mean     MCSE  StdDev     5%       50%   95%  ESS_bulk  ESS_tail  R_hat\n"));
  g_assert_nonnull (strstr (run.out, "\nL[1,2] "));
  g_assert_true (strstr (run.out, "\nL[1,2] ") < strstr (run.out, "\nL[2,1] "));
  g_assert_nonnull (strstr (run.out, "Warning: 3 of 1600 (0.0%) transitions ended with a divergence.\n"
                                     "See https://mc-stan.org/misc/warnings for details.\n"));
  g_assert_nonnull (strstr (run.out, "Warning: 1 of 4 chains had an E-BFMI less than 0.3.\n"));
  g_assert_nonnull (strstr (run.out, "R-hat greater than 1.01:\n  theta[3]\n"));
}

static void
test_reference_run_json (void)
{
  g_autofree char *c1 = reference_chain (1), *c2 = reference_chain (2);
  g_autofree char *c3 = reference_chain (3), *c4 = reference_chain (4);
  g_autofree char *ref_path = g_test_build_filename (G_TEST_DIST, "infer", "data",
                                                     "reference-summary.json", NULL);
  g_autofree char *ref_text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) ref_parser = json_parser_new ();
  g_auto(Run) run = { 0 };
  JsonObject *root, *ref;
  JsonArray *columns, *ref_columns;

  run_summary (&run, (const char *[]) { "--json", c1, c2, c3, c4, NULL });
  g_assert_cmpint (run.status, ==, 0);
  root = load_json (parser, run.out);
  g_assert_true (g_file_get_contents (ref_path, &ref_text, NULL, NULL));
  ref = load_json (ref_parser, ref_text);
  columns = json_object_get_array_member (root, "columns");
  ref_columns = json_object_get_array_member (ref, "columns");
  g_assert_cmpuint (json_array_get_length (columns), ==, json_array_get_length (ref_columns));
  for (guint i = 0; i < json_array_get_length (columns); i++)
    {
      JsonObject *got = json_array_get_object_element (columns, i);
      JsonObject *want = json_array_get_object_element (ref_columns, i);
      const char *pairs[][2] = { { "mean", "mean" }, { "r_hat", "rhat" }, { "ess_bulk", "ess_bulk" },
                                 { "ess_tail", "ess_tail" }, { "mcse", "mcse" }, { "sd", "sd" } };

      g_assert_cmpstr (json_object_get_string_member (got, "name"), ==,
                       json_object_get_string_member (want, "name"));
      for (guint k = 0; k < G_N_ELEMENTS (pairs); k++)
        {
          double g = number (got, pairs[k][0]), w = number (want, pairs[k][1]);

          if (isnan (w))
            g_assert_true (isnan (g));
          else if (isinf (w))
            g_assert_cmpfloat (g, ==, w);
          else
            g_assert_cmpfloat (fabs (g - w), <=, 1e-9 * MAX (fabs (w), 1e-12));
        }
      g_assert_cmpfloat (fabs (number (json_object_get_object_member (got, "quantiles"), "5%")
                               - number (want, "q5")), <=, 1e-9 * MAX (fabs (number (want, "q5")), 1e-12));
    }
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "warnings")), ==, 5);
}

static void
test_options (void)
{
  g_autofree char *c1 = reference_chain (1), *c2 = reference_chain (2);
  g_auto(Run) help = { 0 };
  g_auto(Run) figs = { 0 };
  g_auto(Run) pcts = { 0 };
  g_auto(Run) none = { 0 };
  g_auto(Run) bad_pcts = { 0 };
  g_auto(Run) bad_figs = { 0 };
  g_auto(Run) no_files = { 0 };
  g_auto(Run) bad_option = { 0 };

  run_summary (&help, (const char *[]) { "--help", NULL });
  g_assert_cmpint (help.status, ==, 0);
  g_assert_nonnull (strstr (help.out, "--percentiles"));
  g_assert_nonnull (strstr (help.out, "--sig-figs"));
  g_assert_nonnull (strstr (help.out, "--json"));

  run_summary (&figs, (const char *[]) { "--sig-figs", "4", c1, c2, NULL });
  g_assert_cmpint (figs.status, ==, 0);
  /* the mean of stepsize__ over chains 1 and 2 is 0.79: 4 figures */
  g_assert_nonnull (strstr (figs.out, "\nstepsize__ "));
  g_assert_nonnull (strstr (figs.out, "7.900e-01"));

  run_summary (&pcts, (const char *[]) { "--percentiles", "2.5,97.5", c1, c2, NULL });
  g_assert_cmpint (pcts.status, ==, 0);
  g_assert_nonnull (strstr (pcts.out, " 2.5% "));
  g_assert_nonnull (strstr (pcts.out, " 97.5% "));
  g_assert_null (strstr (pcts.out, " 50% "));

  run_summary (&none, (const char *[]) { "--percentiles", "", c1, NULL });
  g_assert_cmpint (none.status, ==, 0);
  g_assert_nonnull (strstr (none.out, "StdDev  ESS_bulk"));

  run_summary (&bad_pcts, (const char *[]) { "--percentiles", "50,5", c1, NULL });
  g_assert_cmpint (bad_pcts.status, ==, 124);
  g_assert_nonnull (strstr (bad_pcts.err, "--percentiles"));
  run_summary (&bad_figs, (const char *[]) { "--sig-figs", "0", c1, NULL });
  g_assert_cmpint (bad_figs.status, ==, 124);
  run_summary (&no_files, (const char *[]) { NULL });
  g_assert_cmpint (no_files.status, ==, 124);
  run_summary (&bad_option, (const char *[]) { "--no-such-option", c1, NULL });
  g_assert_cmpint (bad_option.status, ==, 124);
}

/* A bad file stops the summary with a message that names it (and the line
 * where there is one) and status 1; a run cut short is summarised with a
 * warning about the dropped line. */
static void
test_bad_files (void)
{
  g_autofree char *c1 = reference_chain (1);
  g_autofree char *ragged = write_file ("ragged.csv", "lp__,mu\n-1,0.5\n-2\n");
  g_autofree char *text = write_file ("text.csv", "lp__,mu\n-1,zero\n");
  g_autofree char *other = write_file ("other.csv", "lp__,mu\n-1,0.5\n-2,0.25\n");
  g_autofree char *cut = write_file ("cut.csv", "# model = cut_model\nlp__,mu\n-1,0.5\n-2,0.25\n-1.5,0.2");
  g_auto(Run) missing = { 0 };
  g_auto(Run) bad_row = { 0 };
  g_auto(Run) bad_value = { 0 };
  g_auto(Run) mismatch = { 0 };
  g_auto(Run) truncated = { 0 };
  g_autofree char *want = NULL;

  run_summary (&missing, (const char *[]) { "/nonexistent/chain-1.csv", NULL });
  g_assert_cmpint (missing.status, ==, 1);
  g_assert_nonnull (strstr (missing.err, "/nonexistent/chain-1.csv"));
  g_assert_cmpstr (missing.out, ==, "");

  run_summary (&bad_row, (const char *[]) { ragged, NULL });
  g_assert_cmpint (bad_row.status, ==, 1);
  want = g_strdup_printf ("%s:3: expected 2 values", ragged);
  g_assert_nonnull (strstr (bad_row.err, want));

  run_summary (&bad_value, (const char *[]) { text, NULL });
  g_assert_cmpint (bad_value.status, ==, 1);
  g_assert_nonnull (strstr (bad_value.err, text));
  g_assert_nonnull (strstr (bad_value.err, "'zero'"));

  run_summary (&mismatch, (const char *[]) { c1, other, NULL });
  g_assert_cmpint (mismatch.status, ==, 1);
  g_assert_nonnull (strstr (mismatch.err, other));
  g_assert_nonnull (strstr (mismatch.err, "not chains of one run"));

  run_summary (&truncated, (const char *[]) { cut, NULL });
  g_assert_cmpint (truncated.status, ==, 0);
  g_assert_nonnull (strstr (truncated.err, "incomplete"));
  g_assert_nonnull (strstr (truncated.out, "Inference for Stan model: cut_model\n"
                                           "1 chains: each with iter=2;"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/summary/reference-run-table", test_reference_run_table);
  g_test_add_func ("/cli/summary/reference-run-json", test_reference_run_json);
  g_test_add_func ("/cli/summary/options", test_options);
  g_test_add_func ("/cli/summary/bad-files", test_bad_files);
  return g_test_run ();
}
