/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/run.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "infer/nuts.h"
#include "infer/rng.h"
#include "infer/run-private.h"
#include "io/stan-csv-write.h"

G_DEFINE_QUARK (tilde-sample-error-quark, tilde_sample_error)

static const char *const nuts_columns[] = {
  "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__",
};
enum { N_NUTS_COLUMNS = G_N_ELEMENTS (nuts_columns), N_FIXED_COLUMNS = 2 };

typedef struct {
  TildeSampleRun  *run;
  guint            index;
  TildeChainResult result;
  TildeCsvWriter  *writer;
  TildeSampleError error_code;
  /* the saved draws: rows never move, n_rows is published after each */
  double          *table;
  gsize            capacity;
  gint             n_rows;
  gsize            n_warmup_rows;
  double          *row;
  gsl_rng         *rng;
  TildeMetric     *metric;      /* kept for tilde_sample_run_get_inverse_metric */
  gboolean         warming_up;  /* where a rejection counts */
  GHashTable      *rejections;  /* place -> TildeRejections, this chain's */
} Chain;

struct TildeSampleRun {
  TildeModel          *model;
  TildeSampleOptions   options;
  char                *output, *model_name, *data_file, *init_file, *compiler_flags;
  TildeSampleCallbacks callbacks;
  gpointer             user_data;
  gboolean             fixed_param;
  gboolean             adapt;
  guint                threads;
  const char         **columns;
  gsize                n_columns, n_sampler_columns, n_params;
  gsize                rows;         /* saved by each chain that runs to the end */
  Chain               *chains;
  GThread            **workers;      /* `threads` of them */
  gint                 next_chain;    /* the next chain a worker takes */
  gint                 cancelled;
  gboolean             waited;
};

void
tilde_sample_options_init (TildeSampleOptions *o)
{
  *o = (TildeSampleOptions) {
    .chains = 4, .warmup = 1000, .samples = 1000, .thin = 1, .id = 1, .adapt = TRUE,
    .max_depth = 10, .metric = TILDE_METRIC_DIAG, .stepsize = 1.0, .init_radius = 2.0,
    .output = "output.csv", .sig_figs = -1, .refresh = 100,
    .seed = g_random_int (),
  };
  tilde_adapt_options_init (&o->adapt_options);
}

char *
tilde_sample_chain_output_path (const char *output, guint chains, guint id)
{
  g_autofree char *dir = NULL, *base = NULL;
  const char *dot;

  if (chains == 1)
    return g_strdup (output);
  dir = g_path_get_dirname (output);
  base = g_path_get_basename (output);
  dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    {
      g_autofree char *stem = g_strndup (base, (gsize) (dot - base));
      g_autofree char *name = g_strdup_printf ("%s_%u%s", stem, id, dot);
      return strchr (output, G_DIR_SEPARATOR) ? g_build_filename (dir, name, NULL) : g_steal_pointer (&name);
    }
  {
    g_autofree char *name = g_strdup_printf ("%s_%u", base, id);
    return strchr (output, G_DIR_SEPARATOR) ? g_build_filename (dir, name, NULL) : g_steal_pointer (&name);
  }
}

/* ---- checking options ---- */

static gboolean
check_options (const TildeSampleOptions *o, GError **error)
{
  const TildeAdaptOptions *a = &o->adapt_options;
  const char *problem = NULL;

  if (o->chains < 1)
    problem = "the number of chains must be at least 1";
  else if (o->thin < 1)
    problem = "thin must be at least 1";
  else if (o->max_depth < 1)
    problem = "max_depth must be at least 1";
  else if (!(o->stepsize > 0) || !isfinite (o->stepsize))
    problem = "stepsize must be positive";
  else if (!(a->delta > 0 && a->delta < 1))
    problem = "adapt delta must be between 0 and 1";
  else if (!(a->gamma > 0) || !(a->kappa > 0) || !(a->t0 > 0))
    problem = "adapt gamma, kappa and t0 must be positive";
  else if (a->metric_adaptation == TILDE_METRIC_ADAPTATION_GRADIENTS && o->metric == TILDE_METRIC_UNIT)
    problem = "the unit metric has nothing to adapt from gradients: use diag_e or dense_e";
  else if (!(o->init_radius >= 0) || !isfinite (o->init_radius))
    problem = "the init radius must be zero or positive";
  else if (o->sig_figs != -1 && (o->sig_figs < 1 || o->sig_figs > 18))
    problem = "sig_figs must be -1 or between 1 and 18";
  if (problem == NULL)
    return TRUE;
  g_set_error_literal (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_OPTIONS, problem);
  return FALSE;
}

/* ---- messages ---- */

static void
say (Chain *c, TildeSampleMessageKind kind, const char *text)
{
  TildeSampleRun *run = c->run;

  if (run->callbacks.message)
    run->callbacks.message (c->result.id, kind, text, run->user_data);
}

static void
say_init_line (const char *text, gpointer data)
{
  say (data, TILDE_SAMPLE_MESSAGE_INFO, text);
}

/* ---- rejections by statement ---- */

static void
rejections_free (gpointer data)
{
  TildeRejections *r = data;

  g_free (r->file);
  g_free (r->message);
  g_free (r);
}

/* The chain's count for the statement that raised `error`, made at its
 * first error; NULL for an error without a statement. */
static TildeRejections *
rejections_at (Chain *c, const TildeModelError *error)
{
  if (error->begin_line <= 0)
    return NULL;
  g_autofree char *key = g_strdup_printf ("%s:%d:%d:%d:%d", error->file, error->begin_line,
                                          error->begin_column, error->end_line, error->end_column);
  if (c->rejections == NULL)
    c->rejections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, rejections_free);
  TildeRejections *r = g_hash_table_lookup (c->rejections, key);
  if (r == NULL)
    {
      r = g_new0 (TildeRejections, 1);
      *r = (TildeRejections) { g_strdup (error->file), error->begin_line, error->begin_column,
                               error->end_line, error->end_column, g_strdup (error->message) };
      g_hash_table_insert (c->rejections, g_steal_pointer (&key), r);
    }
  return r;
}

static gint
by_place (gconstpointer a, gconstpointer b)
{
  const TildeRejections *x = *(TildeRejections *const *) a, *y = *(TildeRejections *const *) b;
  int order = g_strcmp0 (x->file, y->file);

  if (order == 0)
    order = x->begin_line != y->begin_line ? (x->begin_line < y->begin_line ? -1 : 1)
                                           : x->begin_column - y->begin_column;
  return order;
}

GPtrArray *
tilde_sample_run_get_rejections (const TildeSampleRun *run)
{
  g_autoptr(GHashTable) merged = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *all = g_ptr_array_new_with_free_func (rejections_free);

  g_return_val_if_fail (run->waited, all);
  for (guint i = 0; i < run->options.chains; i++)
    {
      GHashTableIter iter;
      gpointer key, value;

      if (run->chains[i].rejections == NULL)
        continue;
      g_hash_table_iter_init (&iter, run->chains[i].rejections);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const TildeRejections *r = value;
          TildeRejections *sum = g_hash_table_lookup (merged, key);
          if (sum == NULL)
            {
              sum = g_new0 (TildeRejections, 1);
              *sum = *r;
              sum->file = g_strdup (r->file);
              sum->message = g_strdup (r->message);
              sum->start = sum->warmup = sum->sampling = 0;
              g_hash_table_insert (merged, key, sum);
              g_ptr_array_add (all, sum);
            }
          sum->start += r->start;
          sum->warmup += r->warmup;
          sum->sampling += r->sampling;
        }
    }
  g_ptr_array_sort (all, by_place);
  return all;
}

static void
say_rejection (const TildeModelError *error, gpointer data)
{
  g_autofree char *described = tilde_model_error_describe (error);
  g_autofree char *text = g_strdup_printf (
    "Informational Message: The current Metropolis proposal is about to be rejected because of "
    "the following issue:\n%s\nIf this warning occurs sporadically, such as for highly constrained "
    "variable types like covariance matrices, then the sampler is fine,\nbut if this warning occurs "
    "often then your model may be either severely ill-conditioned or misspecified.\n",
    described);
  say (data, TILDE_SAMPLE_MESSAGE_REJECTION, text);
  Chain *c = data;
  TildeRejections *r = rejections_at (c, error);
  if (r && c->warming_up)
    r->warmup++;
  else if (r)
    r->sampling++;
}

static void
start_rejected (const TildeModelError *error, gpointer data)
{
  TildeRejections *r = rejections_at (data, error);
  if (r)
    r->start++;
}

static void
fail (Chain *c, TildeSampleError code, const char *problem)
{
  c->result.status = TILDE_CHAIN_FAILED;
  c->error_code = code;
  g_free (c->result.problem);
  c->result.problem = g_strdup (problem);
  say (c, TILDE_SAMPLE_MESSAGE_ERROR, problem);
}

static gboolean
cancelled (const Chain *c)
{
  return g_atomic_int_get (&c->run->cancelled) != 0;
}

/* ---- draws ---- */

/* The model's outputs at the current point go after the sampler's
 * columns; a model error there leaves them NaN, as CmdStan does. */
static void
finish_row (Chain *c, const double *theta, gboolean warmup)
{
  TildeSampleRun *run = c->run;
  double *outputs = c->row + run->n_sampler_columns;
  gsize n_outputs = run->n_columns - run->n_sampler_columns;
  g_autoptr(TildeModelError) error = NULL;

  if (!tilde_model_constrain (run->model, theta, TRUE, TRUE, c->rng, outputs, &error))
    {
      for (gsize i = 0; i < n_outputs; i++)
        outputs[i] = NAN;
      g_autofree char *described = tilde_model_error_describe (error);
      say (c, TILDE_SAMPLE_MESSAGE_INFO, described);
    }
  if (c->writer)
    tilde_csv_writer_row (c->writer, c->row, run->n_columns);
  if (c->table && (gsize) c->n_rows < c->capacity)
    {
      memcpy (c->table + (gsize) c->n_rows * run->n_columns, c->row, sizeof (double) * run->n_columns);
      g_atomic_int_set (&c->n_rows, c->n_rows + 1);
    }
  if (warmup)
    c->result.warmup_draws++;
  else
    c->result.draws++;
  if (run->callbacks.draw)
    run->callbacks.draw (c->result.id, c->row, run->n_columns, warmup, run->user_data);
}

static void
nuts_row (Chain *c, const TildeNutsStats *s)
{
  c->row[0] = s->lp;
  c->row[1] = s->accept_stat;
  c->row[2] = s->stepsize;
  c->row[3] = s->treedepth;
  c->row[4] = s->n_leapfrog;
  c->row[5] = s->divergent;
  c->row[6] = s->energy;
}

static void
progress (Chain *c, guint iteration, guint total, gboolean warmup)
{
  if (c->run->callbacks.progress)
    c->run->callbacks.progress (c->result.id, iteration, total, warmup, c->run->user_data);
}

/* ---- the samplers ---- */

static void
write_adaptation (Chain *c, TildeNuts *nuts)
{
  TildeMetric *m = c->metric;

  if (c->writer == NULL)
    return;
  if (m->kind == TILDE_METRIC_UNIT)
    {
      tilde_csv_writer_adaptation (c->writer, tilde_nuts_get_stepsize (nuts), NULL, 0, FALSE);
      tilde_csv_writer_comment (c->writer, "No free parameters for unit metric");
    }
  else
    tilde_csv_writer_adaptation (c->writer, tilde_nuts_get_stepsize (nuts), m->inverse, m->n,
                                 m->kind == TILDE_METRIC_DENSE);
}

static void
run_nuts (Chain *c, const double *theta, double lp, const double *gradient)
{
  TildeSampleRun *run = c->run;
  const TildeSampleOptions *o = &run->options;
  g_autoptr(TildeNuts) nuts = NULL;
  g_autoptr(TildeAdapter) adapter = NULL;
  guint total = o->warmup + o->samples;
  TildeNutsStats stats;
  gint64 start;

  c->metric = tilde_metric_new (o->metric, run->n_params);
  nuts = tilde_nuts_new (run->model, c->metric, o->max_depth);
  tilde_nuts_set_point (nuts, theta, lp, gradient);
  tilde_nuts_set_stepsize (nuts, o->stepsize);
  tilde_nuts_set_reject_func (nuts, say_rejection, c);
  tilde_nuts_set_timing (nuts, o->time_density);

  start = g_get_monotonic_time ();
  if (run->adapt)
    {
      g_autofree char *warning = NULL;
      g_autofree char *problem = NULL;

      adapter = tilde_adapter_new (c->metric, &o->adapt_options, o->warmup, o->stepsize, &warning);
      if (warning != NULL)
        say (c, TILDE_SAMPLE_MESSAGE_INFO, warning);
      tilde_adapter_start (adapter, nuts);
      if (!tilde_nuts_init_stepsize (nuts, c->rng, &problem) || tilde_nuts_get_fatal_error (nuts))
        {
          if (problem == NULL)
            problem = g_strdup (tilde_nuts_get_fatal_error (nuts));
          g_autofree char *text = g_strdup_printf ("Exception initializing step size.\n%s", problem);
          fail (c, TILDE_SAMPLE_ERROR_ADAPTATION, text);
          goto done;
        }
    }

  c->warming_up = TRUE;
  for (guint m = 0; m < o->warmup; m++)
    {
      if (cancelled (c))
        goto done;
      tilde_nuts_transition (nuts, c->rng, &stats);
      if (tilde_nuts_get_fatal_error (nuts))
        {
          fail (c, TILDE_SAMPLE_ERROR_MODEL, tilde_nuts_get_fatal_error (nuts));
          goto done;
        }
      c->result.warmup_divergences += stats.divergent;
      if (adapter != NULL)
        {
          g_autofree char *problem = NULL;
          if (!tilde_adapter_learn (adapter, nuts, c->rng, stats.accept_stat, &problem))
            {
              fail (c, TILDE_SAMPLE_ERROR_ADAPTATION, problem);
              goto done;
            }
        }
      if (o->save_warmup && m % o->thin == 0)
        {
          nuts_row (c, &stats);
          finish_row (c, tilde_nuts_get_position (nuts), TRUE);
        }
      progress (c, m + 1, total, TRUE);
    }
  if (adapter != NULL)
    {
      tilde_adapter_finish (adapter, nuts);
      write_adaptation (c, nuts);
    }
  c->result.stepsize = tilde_nuts_get_stepsize (nuts);
  c->result.warmup_seconds = (g_get_monotonic_time () - start) / 1e6;
  c->warming_up = FALSE;

  start = g_get_monotonic_time ();
  for (guint m = 0; m < o->samples; m++)
    {
      if (cancelled (c))
        break;
      tilde_nuts_transition (nuts, c->rng, &stats);
      if (tilde_nuts_get_fatal_error (nuts))
        {
          fail (c, TILDE_SAMPLE_ERROR_MODEL, tilde_nuts_get_fatal_error (nuts));
          break;
        }
      c->result.divergences += stats.divergent;
      c->result.max_depth_hits += stats.treedepth >= o->max_depth;
      if (m % o->thin == 0)
        {
          nuts_row (c, &stats);
          finish_row (c, tilde_nuts_get_position (nuts), FALSE);
        }
      progress (c, o->warmup + m + 1, total, FALSE);
    }
  c->result.sampling_seconds = (g_get_monotonic_time () - start) / 1e6;

done:
  c->result.gradients = tilde_nuts_get_gradient_count (nuts);
  c->result.density_seconds = tilde_nuts_get_density_seconds (nuts);
}

/* The point never moves; draws differ only in their generated quantities. */
static void
run_fixed_param (Chain *c, const double *theta)
{
  const TildeSampleOptions *o = &c->run->options;
  gint64 start = g_get_monotonic_time ();

  for (guint m = 0; m < o->samples; m++)
    {
      if (cancelled (c))
        break;
      if (m % o->thin == 0)
        {
          c->row[0] = 0;
          c->row[1] = 0;
          finish_row (c, theta, FALSE);
        }
      progress (c, m + 1, o->samples, FALSE);
    }
  c->result.sampling_seconds = (g_get_monotonic_time () - start) / 1e6;
}

static void
close_output (Chain *c)
{
  g_autoptr(GError) error = NULL;

  if (c->writer == NULL)
    return;
  if (c->result.status != TILDE_CHAIN_FAILED)
    tilde_csv_writer_timing (c->writer, c->result.warmup_seconds, c->result.sampling_seconds);
  if (!tilde_csv_writer_close (c->writer, &error) && c->result.status != TILDE_CHAIN_FAILED)
    fail (c, TILDE_SAMPLE_ERROR_OUTPUT, error->message);
  c->writer = NULL;
}

static void
chain_main (Chain *c)
{
  TildeSampleRun *run = c->run;
  gsize n = MAX (run->n_params, 1);
  g_autofree double *theta = g_new0 (double, n);
  g_autofree double *gradient = g_new0 (double, n);
  g_autofree char *problem = NULL;
  double lp = 0;

  if (cancelled (c))
    {
      c->result.status = TILDE_CHAIN_CANCELLED;
      close_output (c);
      return;
    }
  c->result.status = TILDE_CHAIN_RUNNING;
  c->rng = tilde_rng_new_stream (run->options.seed, c->result.id);
  TildeInitOptions init_options;
  tilde_init_options_init (&init_options);
  init_options.fatal = &c->result.problem_error;
  init_options.rejected = start_rejected;
  init_options.rejected_data = c;
  if (!tilde_init_find_with (run->model, run->options.inits, run->options.init_radius, c->rng,
                             &init_options, theta, &lp, gradient, say_init_line, c, &problem))
    fail (c, TILDE_SAMPLE_ERROR_INIT, problem);
  else if (run->fixed_param)
    run_fixed_param (c, theta);
  else
    run_nuts (c, theta, lp, gradient);
  if (c->result.status == TILDE_CHAIN_RUNNING)
    c->result.status = cancelled (c) ? TILDE_CHAIN_CANCELLED : TILDE_CHAIN_DONE;
  close_output (c);
}

/* Each worker takes the next chain not yet taken until none is left: the
 * chains start in order of id, and each runs whole on one thread. Plain
 * threads and an atomic counter (rather than a pool) keep every handover
 * visible to thread checkers: creating and joining a thread is all the
 * synchronisation there is. */
static gpointer
worker_main (gpointer data)
{
  TildeSampleRun *run = data;
  gint i;

  while ((i = g_atomic_int_add (&run->next_chain, 1)) < (gint) run->options.chains)
    chain_main (&run->chains[i]);
  return NULL;
}

/* ---- the run ---- */

static void
build_columns (TildeSampleRun *run)
{
  const char *const *outputs = tilde_model_output_names (run->model, TRUE, TRUE);
  gsize n_outputs = tilde_model_num_outputs (run->model, TRUE, TRUE);

  run->n_sampler_columns = run->fixed_param ? N_FIXED_COLUMNS : N_NUTS_COLUMNS;
  run->n_columns = run->n_sampler_columns + n_outputs;
  run->columns = g_new0 (const char *, run->n_columns + 1);
  for (gsize i = 0; i < run->n_sampler_columns; i++)
    run->columns[i] = nuts_columns[i];
  for (gsize i = 0; i < n_outputs; i++)
    run->columns[run->n_sampler_columns + i] = outputs[i];
}

static gsize
saved (guint iterations, guint thin)
{
  return (iterations + thin - 1) / thin;
}

static gboolean
open_output (TildeSampleRun *run, Chain *c, const char *datetime, GError **error)
{
  TildeSampleHeaderInfo info = {
    .chain_id = c->result.id, .threads = run->threads, .fixed_param = run->fixed_param,
    .adapt_engaged = run->adapt, .start_datetime = datetime,
  };

  c->result.output_path = tilde_sample_chain_output_path (run->output, run->options.chains,
                                                          c->result.id);
  c->writer = tilde_csv_writer_open (c->result.output_path, run->options.sig_figs, error);
  if (c->writer == NULL)
    return FALSE;
  _tilde_sample_write_config (c->writer, &run->options, &info);
  tilde_csv_writer_names (c->writer, run->columns, run->n_columns);
  return tilde_csv_writer_flush (c->writer, error);
}

/* The files of a run that could not start: nothing but headers. */
static void
remove_outputs (TildeSampleRun *run, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      Chain *c = &run->chains[i];
      if (c->writer == NULL)
        continue;   /* never opened: whatever is there is not ours */
      tilde_csv_writer_close (c->writer, NULL);
      c->writer = NULL;
      g_unlink (c->result.output_path);
    }
}

static void
copy_options (TildeSampleRun *run, const TildeSampleOptions *o)
{
  run->options = *o;
  run->options.output = run->output = g_strdup (o->output);
  run->options.model_name = run->model_name = g_strdup (o->model_name);
  run->options.data_file = run->data_file = g_strdup (o->data_file);
  run->options.init_file = run->init_file = g_strdup (o->init_file);
  run->options.compiler_flags = run->compiler_flags = g_strdup (o->compiler_flags);
}

static void
run_free_chains (TildeSampleRun *run)
{
  for (guint i = 0; run->chains && i < run->options.chains; i++)
    {
      Chain *c = &run->chains[i];
      if (c->writer)
        tilde_csv_writer_close (c->writer, NULL);
      g_free (c->result.problem);
      tilde_model_error_free (c->result.problem_error);
      g_clear_pointer (&c->rejections, g_hash_table_unref);
      g_free (c->result.output_path);
      g_free (c->table);
      g_free (c->row);
      if (c->rng)
        gsl_rng_free (c->rng);
      tilde_metric_free (c->metric);
    }
  g_free (run->chains);
}

static void
run_destroy (TildeSampleRun *run)
{
  run_free_chains (run);
  g_free (run->columns);
  g_free (run->output);
  g_free (run->model_name);
  g_free (run->data_file);
  g_free (run->init_file);
  g_free (run->compiler_flags);
  g_free (run);
}

TildeSampleRun *
tilde_sample_run_start (TildeModel *model, const TildeSampleOptions *options,
                        const TildeSampleCallbacks *callbacks, gpointer user_data, GError **error)
{
  TildeSampleRun *run;
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *datetime = NULL;
  gsize rows;

  if (!check_options (options, error))
    return NULL;
  run = g_new0 (TildeSampleRun, 1);
  run->model = model;
  copy_options (run, options);
  if (callbacks)
    run->callbacks = *callbacks;
  run->user_data = user_data;
  run->n_params = tilde_model_num_params_unconstrained (model);
  run->fixed_param = options->fixed_param || run->n_params == 0;
  run->adapt = options->adapt && options->warmup > 0 && !run->fixed_param;
  run->threads = options->threads > 0 ? options->threads
                                      : MIN (options->chains, g_get_num_processors ());
  run->threads = MAX (MIN (run->threads, options->chains), 1);
  build_columns (run);

  now = g_date_time_new_now_utc ();
  datetime = g_date_time_format (now, "%Y-%m-%d %H:%M:%S UTC");
  rows = saved (options->samples, options->thin)
         + (options->save_warmup && !run->fixed_param ? saved (options->warmup, options->thin) : 0);
  run->rows = rows;
  run->chains = g_new0 (Chain, options->chains);
  for (guint i = 0; i < options->chains; i++)
    {
      Chain *c = &run->chains[i];
      c->run = run;
      c->index = i;
      c->result.id = options->id + i;
      c->result.status = TILDE_CHAIN_PENDING;
      c->row = g_new0 (double, run->n_columns);
      c->n_warmup_rows = options->save_warmup && !run->fixed_param
                         ? saved (options->warmup, options->thin) : 0;
      if (options->keep_draws)
        {
          c->capacity = rows;
          c->table = g_new0 (double, MAX (rows * run->n_columns, 1));
        }
      if (options->output != NULL && !open_output (run, c, datetime, error))
        {
          remove_outputs (run, i + 1);
          run_destroy (run);
          return NULL;
        }
    }

  run->workers = g_new0 (GThread *, run->threads);
  for (guint t = 0; t < run->threads; t++)
    run->workers[t] = g_thread_new ("tilde-chain", worker_main, run);
  return run;
}

void
tilde_sample_run_cancel (TildeSampleRun *run)
{
  g_atomic_int_set (&run->cancelled, 1);
}

static void
run_join (TildeSampleRun *run)
{
  if (run->waited)
    return;
  for (guint t = 0; t < run->threads; t++)
    g_thread_join (run->workers[t]);
  g_clear_pointer (&run->workers, g_free);
  run->waited = TRUE;
}

gboolean
tilde_sample_run_wait (TildeSampleRun *run, GError **error)
{
  run_join (run);
  for (guint i = 0; i < run->options.chains; i++)
    {
      const Chain *c = &run->chains[i];
      if (c->result.status == TILDE_CHAIN_FAILED)
        {
          g_set_error (error, TILDE_SAMPLE_ERROR, c->error_code, "Chain %u: %s", c->result.id,
                       c->result.problem);
          return FALSE;
        }
    }
  if (g_atomic_int_get (&run->cancelled))
    {
      g_set_error_literal (error, TILDE_SAMPLE_ERROR, TILDE_SAMPLE_ERROR_CANCELLED,
                           "Sampling was cancelled");
      return FALSE;
    }
  return TRUE;
}

void
tilde_sample_run_free (TildeSampleRun *run)
{
  if (run == NULL)
    return;
  tilde_sample_run_cancel (run);
  run_join (run);
  run_destroy (run);
}

guint
tilde_sample_run_get_n_chains (const TildeSampleRun *run)
{
  return run->options.chains;
}

gsize
tilde_sample_run_get_rows_per_chain (const TildeSampleRun *run)
{
  return run->rows;
}

gboolean
tilde_sample_run_is_fixed_param (const TildeSampleRun *run)
{
  return run->fixed_param;
}

const char *const *
tilde_sample_run_get_column_names (const TildeSampleRun *run, gsize *n)
{
  if (n)
    *n = run->n_columns;
  return run->columns;
}

const double *
tilde_sample_run_get_draws (TildeSampleRun *run, guint index, gsize *n_rows, gsize *n_warmup)
{
  Chain *c;
  gsize rows;

  g_return_val_if_fail (index < run->options.chains, NULL);
  c = &run->chains[index];
  rows = (gsize) g_atomic_int_get (&c->n_rows);
  if (n_rows)
    *n_rows = rows;
  if (n_warmup)
    *n_warmup = MIN (c->n_warmup_rows, rows);
  return c->table;
}

const TildeChainResult *
tilde_sample_run_get_chain_result (const TildeSampleRun *run, guint index)
{
  g_return_val_if_fail (index < run->options.chains && run->waited, NULL);
  return &run->chains[index].result;
}

const double *
tilde_sample_run_get_inverse_metric (const TildeSampleRun *run, guint index,
                                     TildeMetricKind *kind, gsize *n)
{
  const Chain *c;

  g_return_val_if_fail (index < run->options.chains && run->waited, NULL);
  c = &run->chains[index];
  if (c->metric == NULL || c->metric->kind == TILDE_METRIC_UNIT)
    return NULL;
  if (kind)
    *kind = c->metric->kind;
  if (n)
    *n = c->metric->n;
  return c->metric->inverse;
}
