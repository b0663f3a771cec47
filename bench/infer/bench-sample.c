/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a sampling run costs: for each model, one chain of 1000 warm-up and
 * 1000 sampling iterations (CmdStan's defaults; --warmup changes the first)
 * with several seeds, writing its Stan CSV file as `tilde sample` does.
 * Printed per model, medians over the seeds: wall time, gradient
 * evaluations, microseconds per gradient, the share of the time spent
 * outside the log density (the sampler, the generated quantities, the CSV
 * file), and the smallest bulk ESS per second and per gradient (of the
 * whole run, and of the draws after warm-up alone). --adaptation both
 * prints a row after Stan's metric adaptation and one after the metric
 * adaptation from gradients for each model.
 *
 * The time inside is the sampler's estimate, which times every seventh
 * evaluation with the monotonic clock (reading it around every one cost
 * as much as a cheap model's gradient), against the wall time of the
 * chains. The processor time of the run (the chains' threads: the main
 * thread only waits) is printed too. Both clocks move with other work on
 * the machine, the estimate the more (a chain preempted during a timed
 * evaluation counts seven times): for figures that do not depend on the
 * load, run it under callgrind and split the instructions.
 *
 * Usage: bench-sample [--seeds N] [--chains N] [--warmup N] [--metric M]
 *                     [--adaptation stan|gradients|both] MODEL [MODEL...]
 *   MODEL: a folder holding model.stan and data.json (the reference
 *   posteriors' layout), or NAME.stan with NAME.data.json next to it (or
 *   none).
 */
#define G_LOG_DOMAIN "tilde-bench"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "infer/diagnostics.h"
#include "infer/run.h"
#include "mir/mir-lower.h"
#include "mir/mir-transform.h"
#include "tilde-frontend.h"

typedef struct {
  double wall, cpu, gradients, density, divergences, stepsize, leapfrog_per_draw, ess;
  double sampling_gradients;   /* n_leapfrog__ summed over the draws after warm-up */
} Measure;

static TildeModel *
load (const char *stan, const char *data_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TildeCheckResult) result = tilde_frontend_check_file (stan, NULL, &error);
  g_autoptr(TildeJsonData) data = NULL;
  g_autoptr(GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  MirProgram *lowered, *transformed;
  TildeModel *model;

  if (result == NULL || tilde_check_result_has_errors (result))
    {
      g_printerr ("%s: does not compile\n", stan);
      return NULL;
    }
  if (data_path && g_file_test (data_path, G_FILE_TEST_EXISTS))
    {
      data = tilde_json_data_new_from_file (data_path, &error);
      if (data == NULL)
        {
          g_printerr ("%s: %s\n", data_path, error->message);
          return NULL;
        }
    }
  lowered = mir_lower_program (tilde_check_result_get_program (result));
  transformed = mir_transform_program (lowered);
  model = tilde_model_new (transformed, data, diagnostics);
  mir_program_free (transformed);
  mir_program_free (lowered);
  if (model == NULL && diagnostics->len > 0)
    g_printerr ("%s: %s\n", stan, ((TildeDiagnostic *) g_ptr_array_index (diagnostics, 0))->message);
  return model;
}

static int
compare (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *x, guint n)
{
  qsort (x, n, sizeof *x, compare);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static gboolean no_output;
static TildeMetricAdaptation adaptation;
static int warmup = 1000;
static TildeMetricKind metric = TILDE_METRIC_DIAG;

static double
cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* The leapfrog steps of the draws after warm-up, all chains. */
static double
sampling_leapfrogs (TildeSampleRun *run, guint chains)
{
  gsize n_columns, j;
  const char *const *names = tilde_sample_run_get_column_names (run, &n_columns);
  double sum = 0;

  for (j = 0; j < n_columns && g_strcmp0 (names[j], "n_leapfrog__") != 0; j++)
    ;
  for (guint c = 0; c < chains && j < n_columns; c++)
    {
      gsize rows, warmup;
      const double *draws = tilde_sample_run_get_draws (run, c, &rows, &warmup);
      for (gsize i = warmup; i < rows; i++)
        sum += draws[i * n_columns + j];
    }
  return sum;
}

/* The smallest bulk ESS over the model's columns (after the sampler's
 * seven), all chains together. */
static double
min_ess_bulk (TildeSampleRun *run, guint chains)
{
  gsize n_columns, n_rows = 0, n_warmup;
  const char *const *names = tilde_sample_run_get_column_names (run, &n_columns);
  g_autofree double *column = NULL;
  double smallest = INFINITY;

  tilde_sample_run_get_draws (run, 0, &n_rows, &n_warmup);
  column = g_new (double, MAX (chains * n_rows, 1));
  for (gsize j = 0; j < n_columns; j++)
    {
      double ess;
      if (g_str_has_suffix (names[j], "__"))
        continue;
      for (guint c = 0; c < chains; c++)
        {
          gsize rows, warmup;
          const double *draws = tilde_sample_run_get_draws (run, c, &rows, &warmup);
          for (gsize i = 0; i < n_rows; i++)
            column[c * n_rows + i] = draws[(warmup + i) * n_columns + j];
        }
      ess = tilde_ess_bulk (column, chains, n_rows);
      if (!isnan (ess))
        smallest = MIN (smallest, ess);
    }
  return smallest;
}

static gboolean
measure (TildeModel *model, guint chains, guint64 seed, const char *dir, Measure *m)
{
  TildeSampleOptions o;
  g_autoptr(TildeSampleRun) run = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *output = g_build_filename (dir, "bench.csv", NULL);
  gint64 start;
  double cpu_start;

  tilde_sample_options_init (&o);
  o.chains = chains;
  o.seed = seed;
  o.seed_given = TRUE;
  o.output = no_output ? NULL : output;
  o.time_density = TRUE;
  o.keep_draws = TRUE;
  o.adapt_options.metric_adaptation = adaptation;
  o.warmup = (guint) warmup;
  o.metric = metric;
  start = g_get_monotonic_time ();
  cpu_start = cpu_seconds ();
  run = tilde_sample_run_start (model, &o, NULL, NULL, &error);
  if (run == NULL || !tilde_sample_run_wait (run, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  *m = (Measure) { .wall = (g_get_monotonic_time () - start) / 1e6,
                   .cpu = cpu_seconds () - cpu_start };
  for (guint i = 0; i < chains; i++)
    {
      const TildeChainResult *c = tilde_sample_run_get_chain_result (run, i);
      m->gradients += c->gradients;
      m->density += c->density_seconds;
      m->divergences += c->divergences;
      m->stepsize += c->stepsize / chains;
    }
  m->leapfrog_per_draw = m->gradients / (chains * (warmup + 1000.0));
  m->ess = min_ess_bulk (run, chains);
  m->sampling_gradients = sampling_leapfrogs (run, chains);
  for (guint i = 0; i < chains; i++)
    {
      g_autofree char *path = tilde_sample_chain_output_path (output, chains, i + 1);
      g_unlink (path);
    }
  return TRUE;
}

static void
paths_of (const char *arg, char **stan, char **data, char **name)
{
  if (g_file_test (arg, G_FILE_TEST_IS_DIR))
    {
      *stan = g_build_filename (arg, "model.stan", NULL);
      *data = g_build_filename (arg, "data.json", NULL);
      *name = g_path_get_basename (arg);
      return;
    }
  *stan = g_strdup (arg);
  *name = g_path_get_basename (arg);
  if (g_str_has_suffix (*name, ".stan"))
    (*name)[strlen (*name) - 5] = '\0';
  {
    g_autofree char *dir = g_path_get_dirname (arg);
    g_autofree char *file = g_strdup_printf ("%s.data.json", *name);
    *data = g_build_filename (dir, file, NULL);
  }
}

int
main (int argc, char **argv)
{
  int seeds = 5, chains = 1;
  g_auto(GStrv) models = NULL;
  g_autofree char *adaptations = NULL, *metric_name = NULL;
  TildeMetricAdaptation chosen[2];
  guint n_chosen = 0;
  const GOptionEntry entries[] = {
    { "seeds", 0, 0, G_OPTION_ARG_INT, &seeds, "Seeds per model (default 5)", "N" },
    { "chains", 0, 0, G_OPTION_ARG_INT, &chains, "Chains per run (default 1)", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Warm-up iterations (default 1000)", "N" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric_name, "diag (default) or dense", "M" },
    { "no-output", 0, 0, G_OPTION_ARG_NONE, &no_output, "Write no CSV file", NULL },
    { "adaptation", 0, 0, G_OPTION_ARG_STRING, &adaptations,
      "Metric adaptation: stan (default), gradients, or both (a row each)", "A" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &models, NULL, "MODEL..." },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("MODEL...");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || models == NULL || seeds < 1
      || chains < 1 || warmup < 0)
    {
      g_printerr ("usage: bench-sample [--seeds N] [--chains N] [--warmup N] [--metric M] [--adaptation A] "
                  "MODEL...\n");
      return 2;
    }
  if (metric_name != NULL && !tilde_metric_kind_parse (metric_name, &metric))
    {
      g_printerr ("bench-sample: --metric must be diag, dense or unit\n");
      return 2;
    }
  if (adaptations == NULL || g_str_equal (adaptations, "both"))
    chosen[n_chosen++] = TILDE_METRIC_ADAPTATION_STAN;
  if (adaptations != NULL && g_str_equal (adaptations, "both"))
    chosen[n_chosen++] = TILDE_METRIC_ADAPTATION_GRADIENTS;
  if (n_chosen == 0 && !tilde_metric_adaptation_parse (adaptations, &chosen[n_chosen++]))
    {
      g_printerr ("bench-sample: --adaptation must be stan, gradients or both\n");
      return 2;
    }
  dir = g_dir_make_tmp ("tilde-bench-sample-XXXXXX", NULL);
  printf ("%d chain(s) x (%d warm-up + 1000 draws), %s, median of %d seeds\n\n", chains, warmup,
          tilde_metric_kind_name (metric), seeds);
  printf ("| model | wall (s) | cpu (s) | gradients | us / gradient | leapfrog / draw | outside log density "
          "| divergences | min bulk ESS | ESS / s | ESS / 1000 gradients | warm-up gradients "
          "| ESS / 1000 gradients after warm-up |\n");
  printf ("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (guint k = 0; models[k] != NULL; k++)
    for (guint a = 0; a < n_chosen; a++)
    {
      g_autofree char *stan = NULL, *data = NULL, *name = NULL;
      g_autofree double *wall = g_new0 (double, seeds), *grads = g_new0 (double, seeds);
      g_autofree double *per = g_new0 (double, seeds), *outside = g_new0 (double, seeds);
      g_autofree double *div = g_new0 (double, seeds), *lf = g_new0 (double, seeds);
      g_autofree double *ess = g_new0 (double, seeds), *ess_s = g_new0 (double, seeds);
      g_autofree double *ess_g = g_new0 (double, seeds), *cpu = g_new0 (double, seeds);
      g_autofree double *warm = g_new0 (double, seeds), *ess_sg = g_new0 (double, seeds);
      g_autoptr(TildeModel) model = NULL;
      gboolean ok = TRUE;

      adaptation = chosen[a];
      paths_of (models[k], &stan, &data, &name);
      if (n_chosen > 1)
        {
          char *labelled = g_strdup_printf ("%s (%s)", name, tilde_metric_adaptation_name (adaptation));
          g_free (name);
          name = labelled;
        }
      model = load (stan, data);
      if (model == NULL)
        continue;
      for (int s = 0; s < seeds && ok; s++)
        {
          Measure m = { 0 };
          ok = measure (model, (guint) chains, 1000 + (guint64) s, dir, &m);
          wall[s] = m.wall;
          grads[s] = m.gradients;
          per[s] = 1e6 * m.density / m.gradients;
          outside[s] = 100.0 * (1.0 - m.density / (m.wall * chains));
          cpu[s] = m.cpu;
          div[s] = m.divergences;
          lf[s] = m.leapfrog_per_draw;
          ess[s] = m.ess;
          ess_s[s] = m.ess / m.wall;
          ess_g[s] = 1000.0 * m.ess / m.gradients;
          warm[s] = m.gradients - m.sampling_gradients;
          ess_sg[s] = 1000.0 * m.ess / m.sampling_gradients;
        }
      if (!ok)
        continue;
      printf ("| %s | %.3f | %.3f | %.0f | %.2f | %.1f | %.1f %% | %.0f | %.0f | %.0f | %.1f | %.0f | %.1f |\n", name,
              median (wall, seeds), median (cpu, seeds), median (grads, seeds), median (per, seeds), median (lf, seeds),
              median (outside, seeds), median (div, seeds), median (ess, seeds),
              median (ess_s, seeds), median (ess_g, seeds), median (warm, seeds), median (ess_sg, seeds));
      fflush (stdout);
    }
  g_rmdir (dir);
  return 0;
}
