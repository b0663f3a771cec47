/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `tilde sample`: NUTS chains as CmdStan's sample method runs them, one
 * Stan CSV file per chain, progress and messages on standard error, and a
 * short account of the run on standard output. */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilde-cli.h"
#include "tilde-cli-private.h"
#include "infer/run.h"
#include "infer/summary.h"
#include "io/stan-csv-read.h"

/* A run stopped by an interrupt exits as a shell reports SIGINT. */
enum { EXIT_INTERRUPTED = 130 };

/* Full rejection messages per chain before they are only counted, and
 * then at most one every this many seconds. */
enum { REJECTIONS_IN_FULL = 3, REJECTION_INTERVAL_S = 10 };

typedef struct {
  char    *data;
  char    *init;
  double   init_radius;
  int      chains;
  int      threads;
  int      warmup;
  int      samples;
  int      thin;
  gint64   seed;
  double   adapt_delta;
  int      max_depth;
  char    *metric;
  char    *metric_adaptation;
  char    *context;
  double   stepsize;
  gboolean save_warmup;
  gboolean fixed_param;
  char    *output;
  int      refresh;
  int      sig_figs;
  gboolean o0, o1, oexperimental;
  char   **files;
} SampleArgs;

static void
args_clear (SampleArgs *a)
{
  g_free (a->data);
  g_free (a->init);
  g_free (a->metric);
  g_free (a->metric_adaptation);
  g_free (a->context);
  g_free (a->output);
  g_strfreev (a->files);
}

static GOptionContext *
option_context (SampleArgs *a)
{
  const GOptionEntry entries[] = {
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &a->data, N_("Data file (CmdStan JSON)"), N_("FILE") },
    { "init", 0, 0, G_OPTION_ARG_FILENAME, &a->init,
      N_("Initial values (CmdStan JSON, by name; missing ones drawn at random), "
         "or a number R: draw them in (-R, R); 0 starts every parameter at zero"), N_("FILE|R") },
    { "init-radius", 0, 0, G_OPTION_ARG_DOUBLE, &a->init_radius,
      N_("Draw initial values uniformly in (-R, R) on the unconstrained scale (default 2)"), N_("R") },
    { "chains", 0, 0, G_OPTION_ARG_INT, &a->chains, N_("Number of chains (default 4)"), N_("N") },
    { "num-chains", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &a->chains, NULL, NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &a->threads,
      N_("Chains run at once (default: the chains, at most one per processor)"), N_("N") },
    { "num-threads", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &a->threads, NULL, NULL },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &a->warmup, N_("Warm-up iterations per chain (default 1000)"), N_("N") },
    { "num-warmup", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &a->warmup, NULL, NULL },
    { "samples", 0, 0, G_OPTION_ARG_INT, &a->samples, N_("Draws per chain after warm-up (default 1000)"), N_("N") },
    { "num-samples", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &a->samples, NULL, NULL },
    { "thin", 0, 0, G_OPTION_ARG_INT, &a->thin, N_("Keep every Nth draw (default 1)"), N_("N") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &a->seed, N_("Random seed (default: from the clock)"), N_("S") },
    { "adapt-delta", 0, 0, G_OPTION_ARG_DOUBLE, &a->adapt_delta,
      N_("Target acceptance of the step size adaptation (default 0.8)"), N_("D") },
    { "delta", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_DOUBLE, &a->adapt_delta, NULL, NULL },
    { "max-depth", 0, 0, G_OPTION_ARG_INT, &a->max_depth, N_("Maximum tree depth (default 10)"), N_("D") },
    { "max-treedepth", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &a->max_depth, NULL, NULL },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &a->metric,
      N_("Metric: diag (default), dense or unit (also diag_e, dense_e, unit_e)"), N_("M") },
    { "metric-adaptation", 0, 0, G_OPTION_ARG_STRING, &a->metric_adaptation,
      N_("How warm-up estimates the metric: stan (the draws' (co)variance in Stan's windows, the "
         "default) or gradients (from the (co)variances of the draws and of the log "
         "density's gradients, which settles in fewer iterations)"), N_("A") },
    { "context", 0, 0, G_OPTION_ARG_STRING, &a->context,
      N_("What the density holds: joint (default), prior (no likelihood terms: the prior and "
         "prior predictive) or likelihood (no prior terms)"), N_("C") },
    { "stepsize", 0, 0, G_OPTION_ARG_DOUBLE, &a->stepsize,
      N_("Step size where the adaptation starts (default 1)"), N_("E") },
    { "save-warmup", 0, 0, G_OPTION_ARG_NONE, &a->save_warmup, N_("Write the warm-up draws too"), NULL },
    { "fixed-param", 0, 0, G_OPTION_ARG_NONE, &a->fixed_param,
      N_("Keep the parameters at their initial values and draw only generated quantities"), NULL },
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &a->output,
      N_("Output file (default output.csv; with several chains out.csv gives out_1.csv, ...)"), N_("FILE") },
    { "refresh", 0, 0, G_OPTION_ARG_INT, &a->refresh,
      N_("Report progress every N iterations; 0 for none (default 100)"), N_("N") },
    { "sig-figs", 0, 0, G_OPTION_ARG_INT, &a->sig_figs,
      N_("Significant digits of the draws, 1 to 18 (default 6)"), N_("N") },
    { "O0", 0, 0, G_OPTION_ARG_NONE, &a->o0, N_("No optimisation (the default)"), NULL },
    { "O1", 0, 0, G_OPTION_ARG_NONE, &a->o1, N_("Optimise at level 1"), NULL },
    { "Oexperimental", 0, 0, G_OPTION_ARG_NONE, &a->oexperimental, N_("All optimisations"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->files, NULL, NULL },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("MODEL.stan"));

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_group (context, _tilde_cli_model_option_group ());
  g_option_context_add_group (context, _tilde_cli_device_option_group ());
  g_option_context_set_summary (context, _("Draws from the posterior with NUTS, adapting its step "
                                           "size and metric during warm-up as CmdStan does, and "
                                           "writes one Stan CSV file per chain."));
  return context;
}

/* ---- checking the arguments ---- */

#define usage_error(...) _tilde_cli_usage_error ("sample", __VA_ARGS__)

static gboolean
parse_radius (const char *text, double *radius)
{
  char *end;
  double r = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0')
    return FALSE;
  *radius = r;
  return TRUE;
}

/* The arguments into run options; FALSE after a message on a bad one. */
static gboolean
fill_options (SampleArgs *a, TildeSampleOptions *o)
{
  if (a->files == NULL || g_strv_length (a->files) != 1)
    return usage_error (_("give one model file (see tilde sample --help)"));
  if (a->chains < 1)
    return usage_error (_("--chains must be at least 1, not %d"), a->chains);
  if (a->threads < 0)
    return usage_error (_("--threads must be at least 1, not %d"), a->threads);
  if (a->warmup < 0)
    return usage_error (_("--warmup must be 0 or more, not %d"), a->warmup);
  if (a->samples < 0)
    return usage_error (_("--samples must be 0 or more, not %d"), a->samples);
  if (a->thin < 1)
    return usage_error (_("--thin must be at least 1, not %d"), a->thin);
  if (a->seed != -1 && (a->seed < 0 || a->seed > G_MAXUINT32))
    return usage_error (_("--seed must be between 0 and 4294967295"));
  if (!(a->adapt_delta > 0 && a->adapt_delta < 1))
    return usage_error (_("--adapt-delta must be between 0 and 1 (exclusive), not %g"), a->adapt_delta);
  if (a->max_depth < 1)
    return usage_error (_("--max-depth must be at least 1, not %d"), a->max_depth);
  if (!(a->stepsize > 0) || !isfinite (a->stepsize))
    return usage_error (_("--stepsize must be positive, not %g"), a->stepsize);
  if (!(a->init_radius >= 0) || !isfinite (a->init_radius))
    return usage_error (_("--init-radius must be 0 or more, not %g"), a->init_radius);
  if (a->refresh < 0)
    return usage_error (_("--refresh must be 0 or more, not %d"), a->refresh);
  if (a->sig_figs != -1 && (a->sig_figs < 1 || a->sig_figs > 18))
    return usage_error (_("--sig-figs must be between 1 and 18, not %d"), a->sig_figs);
  if (a->metric != NULL && !tilde_metric_kind_parse (a->metric, &o->metric))
    return usage_error (_("--metric must be diag, dense or unit, not '%s'"), a->metric);
  if (a->metric_adaptation != NULL
      && !tilde_metric_adaptation_parse (a->metric_adaptation, &o->adapt_options.metric_adaptation))
    return usage_error (_("--metric-adaptation must be stan or gradients, not '%s'"),
                        a->metric_adaptation);
  if (o->adapt_options.metric_adaptation == TILDE_METRIC_ADAPTATION_GRADIENTS
      && o->metric == TILDE_METRIC_UNIT)
    return usage_error (_("--metric-adaptation gradients needs a metric to estimate: use it "
                          "with --metric diag or dense"));

  o->chains = (guint) a->chains;
  o->threads = (guint) a->threads;
  o->warmup = (guint) a->warmup;
  o->samples = (guint) a->samples;
  o->thin = (guint) a->thin;
  if (a->seed != -1)
    {
      o->seed = (guint64) a->seed;
      o->seed_given = TRUE;
    }
  o->adapt_options.delta = a->adapt_delta;
  o->max_depth = (guint) a->max_depth;
  o->stepsize = a->stepsize;
  o->save_warmup = a->save_warmup;
  o->fixed_param = a->fixed_param;
  o->init_radius = a->init_radius;
  o->output = a->output ? a->output : "output.csv";
  o->refresh = (guint) a->refresh;
  o->sig_figs = a->sig_figs;
  o->data_file = a->data;
  return TRUE;
}

/* The seed argument keeps -1 for "not given": G_OPTION_ARG_INT64 has no
 * other way to tell. */
static void
args_init (SampleArgs *a)
{
  *a = (SampleArgs) {
    .init_radius = 2.0, .chains = 4, .threads = 0, .warmup = 1000, .samples = 1000, .thin = 1,
    .seed = -1, .adapt_delta = 0.8, .max_depth = 10, .stepsize = 1.0, .refresh = 100,
    .sig_figs = -1,
  };
}

/* ---- what the chains say ---- */

typedef struct {
  guint  rejections;
  gint64 last_rejection_shown;   /* monotonic microseconds */
} ChainNotes;

typedef struct {
  guint       chains;
  guint       samples;
  guint       refresh;
  guint       first_id;
  ChainNotes *notes;             /* each touched only by its own chain's thread */
} Reporter;

static const char *
chain_prefix (const Reporter *r, guint chain, char *buffer, gsize size)
{
  if (r->chains == 1)
    return "";
  g_snprintf (buffer, size, "Chain [%u] ", chain);
  return buffer;
}

/* CmdStan's progress line: at the first iteration of each phase, every
 * `refresh` iterations within a phase, and at the last. */
static void
on_progress (guint chain, guint iteration, guint total, gboolean warmup, gpointer data)
{
  const Reporter *r = data;
  /* (fixed_param runs no warm-up at all) */
  guint in_phase = warmup ? iteration : iteration - (total - r->samples);
  int width = (int) ceil (log10 ((double) total));
  char prefix[32];

  if (r->refresh == 0)
    return;
  if (!(in_phase == 1 || in_phase % r->refresh == 0 || iteration == total))
    return;
  g_printerr ("%sIteration: %*u / %u [%3d%%]  (%s)\n", chain_prefix (r, chain, prefix, sizeof prefix),
              width, iteration, total, (int) (100.0 * iteration / total),
              warmup ? "Warmup" : "Sampling");
}

static void
print_lines (const Reporter *r, guint chain, const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  char prefix[32];
  guint n = g_strv_length (lines);

  if (n == 0)
    {
      g_printerr ("\n");   /* CmdStan's empty lines */
      g_string_free (out, TRUE);
      return;
    }
  /* a trailing newline ends the text, it does not add an empty line */
  if (lines[n - 1][0] == '\0' && n > 1)
    n--;
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s\n", chain_prefix (r, chain, prefix, sizeof prefix), lines[i]);
  g_printerr ("%s", out->str);
  g_string_free (out, TRUE);
}

static gint
by_count (gconstpointer a, gconstpointer b)
{
  const TildeRejections *x = *(TildeRejections *const *) a, *y = *(TildeRejections *const *) b;
  guint nx = x->warmup + x->sampling, ny = y->warmup + y->sampling;

  return nx != ny ? (nx > ny ? -1 : 1) : 0;
}

/* "  608 at 'm.stan', line 5, column 2": the proposals rejected at each
 * statement over all chains, most first (starting points are reported as
 * CmdStan reports them). */
static void
print_rejection_places (TildeSampleRun *run)
{
  g_autoptr(GPtrArray) all = tilde_sample_run_get_rejections (run);

  g_ptr_array_sort (all, by_count);
  for (guint i = 0; i < all->len; i++)
    {
      const TildeRejections *r = g_ptr_array_index (all, i);
      g_autofree char *place = g_strdup_printf ("'%s', line %d, column %d", r->file,
                                                r->begin_line, r->begin_column);

      if (r->warmup + r->sampling > 0)
        g_printerr (_("  %u at %s\n"), r->warmup + r->sampling, place);
    }
}

static void
on_message (guint chain, TildeSampleMessageKind kind, const char *text, gpointer data)
{
  const Reporter *r = data;
  ChainNotes *notes = &r->notes[chain - r->first_id];
  gint64 now;

  if (kind != TILDE_SAMPLE_MESSAGE_REJECTION)
    {
      if (kind != TILDE_SAMPLE_MESSAGE_ERROR)
        print_lines (r, chain, text);
      return;
    }
  notes->rejections++;
  now = g_get_monotonic_time ();
  if (notes->rejections > REJECTIONS_IN_FULL
      && now - notes->last_rejection_shown < REJECTION_INTERVAL_S * G_USEC_PER_SEC)
    return;
  notes->last_rejection_shown = now;
  print_lines (r, chain, text);
  if (notes->rejections == REJECTIONS_IN_FULL)
    print_lines (r, chain, _("(Further such messages of this chain are shown at most every "
                             "10 seconds; the summary counts them.)"));
}

/* ---- interruption ---- */

static TildeSampleRun *volatile interrupted_run;

/* The first interrupt stops the chains after their current iteration; a
 * second one ends the process at once. */
static void
on_interrupt (int signum)
{
  TildeSampleRun *run = interrupted_run;

  if (run != NULL)
    tilde_sample_run_cancel (run);
  signal (SIGINT, SIG_DFL);
}

/* ---- the account of the run ---- */

static void
print_times (TildeSampleRun *run)
{
  guint n = tilde_sample_run_get_n_chains (run);

  printf ("\n%-7s %12s %12s %12s %12s\n", "chain", "warm-up (s)", "sampling (s)", "total (s)",
          "divergences");
  for (guint i = 0; i < n; i++)
    {
      const TildeChainResult *c = tilde_sample_run_get_chain_result (run, i);
      printf ("%-7u %12.3f %12.3f %12.3f %12u\n", c->id, c->warmup_seconds, c->sampling_seconds,
              c->warmup_seconds + c->sampling_seconds, c->divergences);
    }
}

/* The sampler's warnings, worded as cmdstanr words them. */
static void
print_warnings (TildeSampleRun *run, const TildeSampleOptions *o, const Reporter *r,
                gboolean transitions)
{
  guint n = tilde_sample_run_get_n_chains (run);
  guint64 draws = 0, divergences = 0, depth_hits = 0, rejections = 0;

  for (guint i = 0; i < n; i++)
    {
      const TildeChainResult *c = tilde_sample_run_get_chain_result (run, i);
      draws += c->draws * o->thin;
      divergences += c->divergences;
      depth_hits += c->max_depth_hits;
      rejections += r->notes[i].rejections;
    }
  if (tilde_sample_run_is_fixed_param (run))
    return;
  if (transitions && divergences > 0)
    g_printerr (_("Warning: %llu of %llu (%.1f%%) transitions ended with a divergence.\n"),
                (unsigned long long) divergences, (unsigned long long) draws,
                draws ? 100.0 * divergences / draws : 0.0);
  if (transitions && depth_hits > 0)
    g_printerr (_("Warning: %llu of %llu (%.1f%%) transitions hit the maximum treedepth limit "
                  "of %u.\n"),
                (unsigned long long) depth_hits, (unsigned long long) draws,
                draws ? 100.0 * depth_hits / draws : 0.0, o->max_depth);
  if (rejections > 0)
    {
      g_printerr (_("%llu proposals were rejected because the model raised an error "
                    "(warm-up included).\n"), (unsigned long long) rejections);
      print_rejection_places (run);
    }
}

/* The table `tilde summary` prints for the files just written, with its
 * warnings; FALSE when there is nothing to summarise. */
static gboolean
print_summary (TildeSampleRun *run)
{
  static const double probs[] = { 0.05, 0.5, 0.95 };
  guint n = tilde_sample_run_get_n_chains (run);
  g_autoptr(GPtrArray) chains = g_ptr_array_new_with_free_func ((GDestroyNotify) tilde_stan_csv_free);
  g_autoptr(TildeSummary) summary = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < n; i++)
    {
      const char *path = tilde_sample_run_get_chain_result (run, i)->output_path;
      TildeStanCsv *csv = path ? tilde_stan_csv_read_file (path, &error) : NULL;
      if (csv == NULL)
        break;
      if (csv->n_draws == 0)
        {
          tilde_stan_csv_free (csv);
          break;
        }
      g_ptr_array_add (chains, csv);
    }
  if (chains->len != n)
    return FALSE;
  summary = tilde_summary_new ((TildeStanCsv *const *) chains->pdata, n, probs,
                               G_N_ELEMENTS (probs), &error);
  if (summary == NULL)
    {
      g_printerr ("tilde sample: %s\n", error->message);
      return FALSE;
    }
  text = tilde_summary_to_text (summary, 2);
  printf ("\n%s", text);
  return TRUE;
}

static void
print_outputs (TildeSampleRun *run)
{
  guint n = tilde_sample_run_get_n_chains (run);

  printf ("\n%s", n == 1 ? _("Output file:") : _("Output files:"));
  for (guint i = 0; i < n; i++)
    printf (" %s", tilde_sample_run_get_chain_result (run, i)->output_path);
  printf ("\n");
}

/* ---- the command ---- */

static const char *
level_flag (const SampleArgs *a)
{
  return a->oexperimental ? "--Oexperimental" : a->o1 ? "--O1" : "";
}

/* --init is a radius when it reads as a number, else a file. */
static int
read_inits (SampleArgs *a, TildeSampleOptions *o, TildeInits **inits)
{
  g_autoptr(GError) error = NULL;
  double radius;

  if (a->init == NULL)
    return TILDE_EXIT_OK;
  if (parse_radius (a->init, &radius))
    {
      if (!(radius >= 0) || !isfinite (radius))
        {
          usage_error (_("--init must be a file or a number 0 or more, not %s"), a->init);
          return TILDE_EXIT_USAGE;
        }
      o->init_radius = radius;
      return TILDE_EXIT_OK;
    }
  *inits = tilde_inits_new_from_file (a->init, &error);
  if (*inits == NULL)
    {
      g_printerr (_("Error reading init file '%s': %s\n"), a->init, error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  o->inits = *inits;
  o->init_file = a->init;
  return TILDE_EXIT_OK;
}

static int
sample (SampleArgs *a, TildeSampleOptions *o)
{
  g_autoptr(TildeModel) model = NULL;
  g_autoptr(TildeInits) inits = NULL;
  g_autoptr(TildeSampleRun) run = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = _tilde_cli_model_name (a->files[0]);
  g_autofree ChainNotes *notes = NULL;
  TildeSampleCallbacks callbacks = { on_progress, NULL, on_message };
  Reporter reporter;
  struct sigaction action = { 0 }, previous;
  MirOptLevel level;
  TildeModelContext context;
  int status;
  gboolean ok;

  if (!_tilde_cli_parse_level (a->o0, a->o1, a->oexperimental, &level))
    return TILDE_EXIT_USAGE;
  status = read_inits (a, o, &inits);
  if (status != TILDE_EXIT_OK)
    return status;
  if (!_tilde_cli_parse_context (a->context, &context))
    {
      g_printerr (_("tilde sample: --context must be joint, prior or likelihood, not '%s'\n"),
                  a->context);
      return TILDE_EXIT_USAGE;
    }
  model = _tilde_cli_load_model (a->files[0], a->data, level, o->seed, &status);
  if (model == NULL)
    return status;
  tilde_model_set_context (model, context);
  o->model_name = name;
  o->compiler_flags = level_flag (a);
  if (tilde_model_num_params_unconstrained (model) == 0 && !o->fixed_param)
    g_printerr ("%s", _("Model contains no parameters, running fixed_param sampler, "
                        "no updates to Markov chain\n"));

  notes = g_new0 (ChainNotes, o->chains);
  reporter = (Reporter) { o->chains, o->samples, o->refresh, o->id, notes };
  run = tilde_sample_run_start (model, o, &callbacks, &reporter, &error);
  if (run == NULL)
    {
      g_printerr ("tilde sample: %s\n", error->message);
      return error->domain == TILDE_SAMPLE_ERROR ? TILDE_EXIT_USAGE : TILDE_EXIT_MODEL_ERROR;
    }

  interrupted_run = run;
  action.sa_handler = on_interrupt;
  sigemptyset (&action.sa_mask);
  sigaction (SIGINT, &action, &previous);
  ok = tilde_sample_run_wait (run, &error);
  sigaction (SIGINT, &previous, NULL);
  interrupted_run = NULL;
  _tilde_cli_report_device_failures (model);

  if (!ok && !g_error_matches (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_CANCELLED))
    {
      g_printerr ("%s\n", error->message);
      return TILDE_EXIT_MODEL_ERROR;
    }
  print_times (run);
  if (!print_summary (run))
    print_warnings (run, o, &reporter, TRUE);
  else
    print_warnings (run, o, &reporter, FALSE);
  print_outputs (run);
  if (!ok)
    {
      g_printerr ("%s", _("Sampling was interrupted; the files hold every draw made until then.\n"));
      return EXIT_INTERRUPTED;
    }
  return TILDE_EXIT_OK;
}

int
_tilde_cli_sample (const char *name, int argc, char **argv)
{
  SampleArgs a;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  TildeSampleOptions o;
  int status;

  args_init (&a);
  context = option_context (&a);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("tilde %s: %s\n", name, error->message);
      args_clear (&a);
      return TILDE_EXIT_USAGE;
    }
  tilde_sample_options_init (&o);
  if (!fill_options (&a, &o))
    {
      args_clear (&a);
      return TILDE_EXIT_USAGE;
    }
  status = sample (&a, &o);
  args_clear (&a);
  return status;
}
