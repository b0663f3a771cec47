/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde devices`, `--device`, `--use-opencl` and `--debug-mem-patterns` from
 * the command line. */
#define G_LOG_DOMAIN "tilde-test"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

static char *tmp_dir;
/* Where the ICD loader looks for platforms (NULL: where it usually does). */
static const char *icd_vendors;
/* TILDE_OPENCL_FAIL_AFTER for the run (NULL: unset) */
static const char *fail_after;

typedef struct {
  int   status;
  char *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

static void
run_tilde (Run *r, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("TILDE_BIN"));
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  /* kernels cached in the test's own directory, not the user's */
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "XDG_CACHE_HOME", tmp_dir, TRUE);
  if (icd_vendors)
    env = g_environ_setenv (env, "OCL_ICD_VENDORS", icd_vendors, TRUE);
  if (fail_after)
    env = g_environ_setenv (env, "TILDE_OPENCL_FAIL_AFTER", fail_after, TRUE);
  g_autoptr (GError) error = NULL;
  int wait = 0;
  g_assert_true (g_spawn_sync (tmp_dir, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL,
                               NULL, &r->out, &r->err, &wait, &error));
  g_assert_no_error (error);
  r->status = g_spawn_check_wait_status (wait, NULL) ? 0 : WEXITSTATUS (wait);
}

static const char *model =
  "data {\n"
  "  int<lower=0> N;\n"
  "  @gpu matrix[N, 2] X;\n"
  "  matrix[N, 2] Z;\n"
  "  array[N] int c;\n"
  "}\n"
  "parameters {\n"
  "  real alpha;\n"
  "  vector[2] beta;\n"
  "}\n"
  "model {\n"
  "  c ~ poisson_log(X * beta + alpha);\n"
  "  c ~ poisson_log_glm(Z, alpha, beta);\n"
  "}\n";

static void
write_files (void)
{
  GString *d = g_string_new ("{\"N\": 40, \"X\": [");
  GString *z = g_string_new ("");
  GString *c = g_string_new ("");
  for (int n = 0; n < 40; n++)
    {
      g_string_append_printf (d, "%s[%.3f, %.3f]", n ? ", " : "", (n % 7) / 7.0,
                              (n % 5) / 5.0 - 0.4);
      g_string_append_printf (z, "%s[%.3f, %.3f]", n ? ", " : "", (n % 3) / 3.0, (n % 4) / 4.0);
      g_string_append_printf (c, "%s%d", n ? ", " : "", n % 4);
    }
  g_string_append_printf (d, "], \"Z\": [%s], \"c\": [%s]}", z->str, c->str);
  g_autofree char *mp = g_build_filename (tmp_dir, "glm.stan", NULL);
  g_autofree char *dp = g_build_filename (tmp_dir, "glm.json", NULL);
  g_autofree char *pp = g_build_filename (tmp_dir, "params.json", NULL);
  g_assert_true (g_file_set_contents (mp, model, -1, NULL));
  g_assert_true (g_file_set_contents (dp, d->str, -1, NULL));
  g_assert_true (g_file_set_contents (pp, "{\"alpha\": 0.2, \"beta\": [0.3, -0.1]}", -1, NULL));
  g_string_free (d, TRUE);
  g_string_free (z, TRUE);
  g_string_free (c, TRUE);
}

static void
test_devices (void)
{
  Run r;
  run_tilde (&r, "devices", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "cpu "));
  /* each device by the index --device takes, or why there is none */
  g_assert_true (strstr (r.out, "\nopencl:0:0 ") || strstr (r.out, "No OpenCL platform"));
  run_clear (&r);
  run_tilde (&r, "devices", "extra", NULL);
  g_assert_cmpint (r.status, ==, 124);
  run_clear (&r);
}

static void
test_device_option (void)
{
  Run cpu, dev, r;
  run_tilde (&cpu, "log-prob", "--data", "glm.json", "--params", "params.json", "glm.stan", NULL);
  g_assert_cmpint (cpu.status, ==, 0);
  run_tilde (&r, "log-prob", "--device", "gpu", "--data", "glm.json", "--params", "params.json",
             "glm.stan", NULL);
  g_assert_cmpint (r.status, ==, 124);
  g_assert_nonnull (strstr (r.err, "Unknown device 'gpu'"));
  run_clear (&r);
  /* a device that is not there: a warning, and the CPU's numbers */
  run_tilde (&r, "log-prob", "--device", "opencl:41:0", "--data", "glm.json", "--params",
             "params.json", "glm.stan", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.err, "Warning: "));
  g_assert_cmpstr (r.out, ==, cpu.out);
  run_clear (&r);
  run_tilde (&dev, "log-prob", "--device", "opencl", "--debug-opencl", "--data", "glm.json",
             "--params", "params.json", "glm.stan", NULL);
  g_assert_cmpint (dev.status, ==, 0);
  if (strstr (dev.err, "Warning: No OpenCL"))
    g_test_skip ("no OpenCL device");
  else
    {
      g_assert_nonnull (strstr (dev.err, "// OpenCL kernel for poisson_log_glm (K = 2)"));
      g_assert_nonnull (strstr (dev.err, "__kernel"));
      g_assert_true (g_str_has_prefix (dev.out, "{\"log_density\": "));
    }
  run_clear (&cpu);
  run_clear (&dev);
}

/* No OpenCL platform at all (the loader pointed at an empty directory): the
 * list says so, and a model asked onto a device runs on the CPU. */
static void
test_no_platform (void)
{
  Run cpu, r;
  run_tilde (&cpu, "log-prob", "--data", "glm.json", "--params", "params.json", "glm.stan", NULL);
  icd_vendors = tmp_dir;
  run_tilde (&r, "devices", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "cpu  the CPU path (always available)\n"
                              "No OpenCL platform is installed (the ICD loader found none); "
                              "models run on the CPU\n");
  run_clear (&r);
  run_tilde (&r, "log-prob", "--device", "opencl", "--data", "glm.json", "--params",
             "params.json", "glm.stan", NULL);
  icd_vendors = NULL;
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "Warning: No OpenCL platform is installed (the ICD loader found "
                              "none); models run on the CPU\n");
  g_assert_cmpstr (r.out, ==, cpu.out);
  run_clear (&r);
  run_clear (&cpu);
}

static void
test_mem_patterns (void)
{
  Run r;
  run_tilde (&r, "compile", "--debug-mem-patterns", "glm.stan", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "matrix[N, 2] X: device  // annotated @gpu; design matrix of "
                                   "poisson_log_lupmf at line 12"));
  g_assert_nonnull (strstr (r.out, "matrix[N, 2] Z: host  // design matrix of "
                                   "poisson_log_glm_lupmf at line 13; not annotated @gpu"));
  run_clear (&r);
  run_tilde (&r, "compile", "--debug-mem-patterns", "--use-opencl", "glm.stan", NULL);
  g_assert_nonnull (strstr (r.out, "matrix[N, 2] Z: device  // --use-opencl: design matrix of "
                                   "poisson_log_glm_lupmf at line 13"));
  run_clear (&r);
}

/* A reduction of an elementwise expression: its vectors' places, and its
 * kernel printed when a device builds it. */
static void
test_elementwise (void)
{
  static const char ew_model[] =
    "data {\n"
    "  int N;\n"
    "  @gpu vector[N] x;\n"
    "  vector[N] w;\n"
    "}\n"
    "parameters {\n"
    "  real a;\n"
    "}\n"
    "model {\n"
    "  target += -0.5 * dot_self(x - exp(a * x));\n"
    "  target += sum(a * w);\n"
    "}\n";
  g_autofree char *mp = g_build_filename (tmp_dir, "ew.stan", NULL);
  g_autofree char *dp = g_build_filename (tmp_dir, "ew.json", NULL);
  g_autofree char *pp = g_build_filename (tmp_dir, "ew-params.json", NULL);
  g_assert_true (g_file_set_contents (mp, ew_model, -1, NULL));
  g_assert_true (g_file_set_contents (dp, "{\"N\": 3, \"x\": [0.5, -1, 2], "
                                          "\"w\": [1, 2, 3]}", -1, NULL));
  g_assert_true (g_file_set_contents (pp, "{\"a\": 0.3}", -1, NULL));
  Run r;
  run_tilde (&r, "compile", "--debug-mem-patterns", "ew.stan", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "vector[N] x: device  // annotated @gpu; read by the "
                                   "elementwise kernel of dot_self at line 10\n"));
  g_assert_nonnull (strstr (r.out, "vector[N] w: host  // read by the elementwise kernel of sum "
                                   "at line 11; not annotated @gpu (--use-opencl would choose "
                                   "it)\n"));
  run_clear (&r);
  run_tilde (&r, "log-prob", "--device", "opencl", "--debug-opencl", "--data", "ew.json",
             "--params", "ew-params.json", "ew.stan", NULL);
  g_assert_cmpint (r.status, ==, 0);
  if (strstr (r.err, "Warning: No OpenCL"))
    g_test_skip ("no OpenCL device");
  else
    {
      g_assert_nonnull (strstr (r.err, "// OpenCL kernel for dot_self of an elementwise "
                                       "expression (line 10)\n"));
      g_assert_null (strstr (r.err, "line 11"));
      g_assert_true (g_str_has_prefix (r.out, "{\"log_density\": "));
    }
  run_clear (&r);
}

/* A device lost on the way: a warning naming the statement, once, and the
 * CPU's numbers from then on. */
static void
test_device_lost (void)
{
  Run cpu, r;
  run_tilde (&cpu, "log-prob", "--data", "glm.json", "--params", "params.json", "glm.stan", NULL);
  g_assert_cmpint (cpu.status, ==, 0);
  fail_after = "0";
  run_tilde (&r, "log-prob", "--device", "opencl", "--data", "glm.json", "--params",
             "params.json", "glm.stan", NULL);
  fail_after = NULL;
  g_assert_cmpint (r.status, ==, 0);
  if (strstr (r.err, "Warning: No OpenCL"))
    {
      g_test_skip ("no OpenCL device");
      run_clear (&r);
      run_clear (&cpu);
      return;
    }
  /* lost before the statement's first run (preparation runs it once) */
  g_assert_true (g_str_has_prefix (r.err, "Warning: poisson_log_lupmf at line 12 runs on the "
                                          "CPU: OpenCL failed (running a kernel: "
                                          "CL_DEVICE_NOT_AVAILABLE)\n"));
  g_assert_cmpstr (r.out, ==, cpu.out);
  run_clear (&r);
  /* lost at the evaluation */
  fail_after = "1";
  run_tilde (&r, "log-prob", "--device", "opencl", "--data", "glm.json", "--params",
             "params.json", "glm.stan", NULL);
  fail_after = NULL;
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "Warning: poisson_log_lupmf at line 12 failed on the OpenCL "
                              "device: OpenCL failed (running a kernel: "
                              "CL_DEVICE_NOT_AVAILABLE); it runs on the CPU from now on\n");
  g_assert_cmpstr (r.out, ==, cpu.out);
  run_clear (&r);

  /* sampling: the kernel works for a while, then the warning comes once */
  fail_after = "25";
  run_tilde (&r, "sample", "--device", "opencl", "--chains", "1", "--warmup", "40",
             "--samples", "40", "--seed", "3", "--refresh", "0", "--data", "glm.json",
             "--output", "lost.csv", "glm.stan", NULL);
  fail_after = NULL;
  g_assert_cmpint (r.status, ==, 0);
  static const char lost[] = " at line 12 failed on the OpenCL device: ";
  const char *w = strstr (r.err, lost);
  g_assert_nonnull (w);
  g_assert_null (strstr (w + strlen (lost), lost));
  g_autofree char *csv_path = g_build_filename (tmp_dir, "lost.csv", NULL);
  g_autofree char *csv = NULL;
  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  g_assert_nonnull (strstr (csv, "lp__,"));
  run_clear (&r);
  run_clear (&cpu);
}

static void
remove_tmp (void)
{
  g_autofree char *argv0 = g_find_program_in_path ("rm");
  if (argv0)
    {
      const char *argv[] = { argv0, "-rf", tmp_dir, NULL };
      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, NULL,
                    NULL);
    }
  g_free (tmp_dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("tilde-gpu-cli-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  write_files ();
  g_test_add_func ("/gpu/cli/devices", test_devices);
  g_test_add_func ("/gpu/cli/device-option", test_device_option);
  g_test_add_func ("/gpu/cli/no-platform", test_no_platform);
  g_test_add_func ("/gpu/cli/mem-patterns", test_mem_patterns);
  g_test_add_func ("/gpu/cli/elementwise", test_elementwise);
  g_test_add_func ("/gpu/cli/device-lost", test_device_lost);
  int status = g_test_run ();
  remove_tmp ();
  return status;
}
