/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/nuts.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* A point of phase space. g is the gradient of the potential V = -lp. */
typedef struct {
  double *q, *p, *g;
  double  V;
} Point;

/* What a draw keeps of a point: enough to start the next transition
 * without evaluating the model again, and its energy. */
typedef struct {
  double *q, *g;
  double  V, H;
} Proposal;

/* The storage of one inner node of the tree; a node of depth d uses
 * frames[d], as only one node per depth is under construction at a time.
 * Each half writes its summed momentum (rather than adding to zeros). */
typedef struct {
  double  *p_init_end, *v_init_end, *rho_init;
  double  *p_final_beg, *v_final_beg, *rho_final;
  Proposal propose_final;
} Frame;

/* The transition under way. */
typedef struct {
  gsl_rng *rng;
  double   H0;
  guint    n_leapfrog;
  double   sum_metro_prob;
  gboolean divergent;
} Walk;

struct TildeNuts {
  TildeModel  *model;
  TildeMetric *metric;
  gsize        n;
  guint        max_depth;
  double       epsilon;
  double       max_delta_h;

  Point        z_fwd, z_bck;      /* the trajectory's two ends */
  Proposal     sample, propose;
  /* momenta and velocities at the ends of the backward and forward
   * subtrees of the top level: p_bck_fwd is the forward end of the
   * backward subtree */
  double      *p_fwd_fwd, *p_fwd_bck, *p_bck_fwd, *p_bck_bck;
  double      *v_fwd_fwd, *v_fwd_bck, *v_bck_fwd, *v_bck_bck;
  double      *rho, *rho_fwd, *rho_bck;
  double      *v_step;            /* velocity inside a leapfrog step */
  Frame       *frames;            /* max_depth + 1; frames[0] unused */
  double      *storage;

  char               *fatal_error;
  TildeNutsRejectFunc reject_func;
  gpointer            reject_data;
  gboolean            timing;
  guint64             n_gradients;
  double              density_seconds;
};

TildeNuts *
tilde_nuts_new (TildeModel *model, TildeMetric *metric, guint max_depth)
{
  TildeNuts *nuts = g_new0 (TildeNuts, 1);
  gsize n = tilde_model_num_params_unconstrained (model);
  gsize m = MAX (n, 1);
  /* two points of 3 vectors, two proposals of 2, 8 end momenta and
   * velocities, 3 sums, 1 step velocity, and 8 a frame */
  gsize count = (22 + 8 * (gsize) (max_depth + 1)) * m;
  double *s;

  g_return_val_if_fail (max_depth >= 1, NULL);
  nuts->model = model;
  nuts->metric = metric;
  nuts->n = n;
  nuts->max_depth = max_depth;
  nuts->epsilon = 1.0;
  nuts->max_delta_h = 1000.0;
  nuts->storage = s = g_new0 (double, count);
#define CARVE(ptr) do { (ptr) = s; s += m; } while (0)
  CARVE (nuts->z_fwd.q); CARVE (nuts->z_fwd.p); CARVE (nuts->z_fwd.g);
  CARVE (nuts->z_bck.q); CARVE (nuts->z_bck.p); CARVE (nuts->z_bck.g);
  CARVE (nuts->sample.q); CARVE (nuts->sample.g);
  CARVE (nuts->propose.q); CARVE (nuts->propose.g);
  CARVE (nuts->p_fwd_fwd); CARVE (nuts->p_fwd_bck); CARVE (nuts->p_bck_fwd); CARVE (nuts->p_bck_bck);
  CARVE (nuts->v_fwd_fwd); CARVE (nuts->v_fwd_bck); CARVE (nuts->v_bck_fwd); CARVE (nuts->v_bck_bck);
  CARVE (nuts->rho); CARVE (nuts->rho_fwd); CARVE (nuts->rho_bck);
  CARVE (nuts->v_step);
  nuts->frames = g_new0 (Frame, max_depth + 1);
  for (guint d = 0; d <= max_depth; d++)
    {
      Frame *f = &nuts->frames[d];
      CARVE (f->p_init_end); CARVE (f->v_init_end); CARVE (f->rho_init);
      CARVE (f->p_final_beg); CARVE (f->v_final_beg); CARVE (f->rho_final);
      CARVE (f->propose_final.q); CARVE (f->propose_final.g);
    }
#undef CARVE
  g_assert (s == nuts->storage + count);
  return nuts;
}

void
tilde_nuts_free (TildeNuts *nuts)
{
  if (nuts == NULL)
    return;
  g_free (nuts->frames);
  g_free (nuts->storage);
  g_free (nuts->fatal_error);
  g_free (nuts);
}

void
tilde_nuts_set_point (TildeNuts *nuts, const double *q, double lp, const double *gradient)
{
  for (gsize i = 0; i < nuts->n; i++)
    {
      nuts->sample.q[i] = q[i];
      nuts->sample.g[i] = -gradient[i];
    }
  nuts->sample.V = -lp;
}

const double *
tilde_nuts_get_position (const TildeNuts *nuts)
{
  return nuts->sample.q;
}

double
tilde_nuts_get_lp (const TildeNuts *nuts)
{
  return -nuts->sample.V;
}

void
tilde_nuts_set_stepsize (TildeNuts *nuts, double stepsize)
{
  nuts->epsilon = stepsize;
}

double
tilde_nuts_get_stepsize (const TildeNuts *nuts)
{
  return nuts->epsilon;
}

void
tilde_nuts_set_max_delta_h (TildeNuts *nuts, double max_delta_h)
{
  nuts->max_delta_h = max_delta_h;
}

void
tilde_nuts_set_reject_func (TildeNuts *nuts, TildeNutsRejectFunc func, gpointer user_data)
{
  nuts->reject_func = func;
  nuts->reject_data = user_data;
}

void
tilde_nuts_set_timing (TildeNuts *nuts, gboolean timing)
{
  nuts->timing = timing;
}

const char *
tilde_nuts_get_fatal_error (const TildeNuts *nuts)
{
  return nuts->fatal_error;
}

guint64
tilde_nuts_get_gradient_count (const TildeNuts *nuts)
{
  return nuts->n_gradients;
}

double
tilde_nuts_get_density_seconds (const TildeNuts *nuts)
{
  return nuts->density_seconds;
}

/* ---- phase space ---- */

static double
now_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* V and its gradient at z->q. A model error makes the point's potential
 * infinite, so the step that reached it is divergent and rejected. */
static void
evaluate (TildeNuts *nuts, Point *z)
{
  TildeModelError *error = NULL;
  double start = nuts->timing ? now_seconds () : 0.0;
  double lp = tilde_model_log_density (nuts->model, z->q, TRUE, TRUE, z->g, &error);

  if (nuts->timing)
    nuts->density_seconds += now_seconds () - start;
  nuts->n_gradients++;
  if (error != NULL)
    {
      if (error->kind == TILDE_MODEL_ERROR_FATAL || error->kind == TILDE_MODEL_ERROR_DATA)
        {
          if (nuts->fatal_error == NULL)
            nuts->fatal_error = g_strdup (error->message);
        }
      else if (nuts->reject_func)
        nuts->reject_func (error, nuts->reject_data);
      tilde_model_error_free (error);
      z->V = INFINITY;
      return;
    }
  z->V = isnan (lp) ? INFINITY : -lp;
  for (gsize i = 0; i < nuts->n; i++)
    z->g[i] = -z->g[i];
}

/* H at z, given its velocity v; NaN counts as infinite. */
static double
hamiltonian (const TildeNuts *nuts, const Point *z, const double *v)
{
  double h = z->V + tilde_metric_kinetic (nuts->metric, z->p, v);
  return isnan (h) ? INFINITY : h;
}

/* The first half kick and the drift; for the unit and diagonal metrics in
 * one pass (the same operations, in the same order, as three). */
static void
kick_and_drift (TildeNuts *nuts, Point *z, double half, double epsilon)
{
  const TildeMetric *m = nuts->metric;
  gsize n = nuts->n;

  switch (m->kind)
    {
    case TILDE_METRIC_UNIT:
      for (gsize i = 0; i < n; i++)
        {
          z->p[i] -= half * z->g[i];
          z->q[i] += epsilon * z->p[i];
        }
      break;
    case TILDE_METRIC_DIAG:
      for (gsize i = 0; i < n; i++)
        {
          z->p[i] -= half * z->g[i];
          z->q[i] += epsilon * (m->inverse[i] * z->p[i]);
        }
      break;
    case TILDE_METRIC_DENSE:
      for (gsize i = 0; i < n; i++)
        z->p[i] -= half * z->g[i];
      tilde_metric_velocity (m, z->p, nuts->v_step);
      for (gsize i = 0; i < n; i++)
        z->q[i] += epsilon * nuts->v_step[i];
      break;
    }
}

static void
leapfrog (TildeNuts *nuts, Point *z, double epsilon)
{
  gsize n = nuts->n;
  double half = 0.5 * epsilon;

  kick_and_drift (nuts, z, half, epsilon);
  evaluate (nuts, z);
  for (gsize i = 0; i < n; i++)
    z->p[i] -= half * z->g[i];
}

/* A leapfrog step that also gives the velocity v at its end and returns
 * the Hamiltonian there (NaN counting as infinite): for the unit and
 * diagonal metrics the last kick, the velocity and the kinetic energy in
 * one pass. */
static double
leapfrog_to (TildeNuts *nuts, Point *z, double epsilon, double *v)
{
  const TildeMetric *m = nuts->metric;
  gsize n = nuts->n;
  double half = 0.5 * epsilon, twice_tau = 0.0, h;

  if (m->kind == TILDE_METRIC_DENSE)
    {
      leapfrog (nuts, z, epsilon);
      tilde_metric_velocity (m, z->p, v);
      return hamiltonian (nuts, z, v);
    }
  kick_and_drift (nuts, z, half, epsilon);
  evaluate (nuts, z);
  for (gsize i = 0; i < n; i++)
    {
      z->p[i] -= half * z->g[i];
      v[i] = m->kind == TILDE_METRIC_UNIT ? z->p[i] : m->inverse[i] * z->p[i];
      twice_tau += z->p[i] * v[i];
    }
  h = z->V + 0.5 * twice_tau;
  return isnan (h) ? INFINITY : h;
}


static void
copy (double *to, const double *from, gsize n)
{
  memcpy (to, from, sizeof (double) * n);
}

static void
point_from_proposal (Point *z, const Proposal *from, gsize n)
{
  copy (z->q, from->q, n);
  copy (z->g, from->g, n);
  z->V = from->V;
}

static void
proposal_from_point (Proposal *to, const Point *z, double H, gsize n)
{
  copy (to->q, z->q, n);
  copy (to->g, z->g, n);
  to->V = z->V;
  to->H = H;
}

static void
proposal_copy (Proposal *to, const Proposal *from, gsize n)
{
  copy (to->q, from->q, n);
  copy (to->g, from->g, n);
  to->V = from->V;
  to->H = from->H;
}

static double
log_sum_exp (double a, double b)
{
  if (a == -INFINITY)
    return b;
  if (a == INFINITY && b == INFINITY)
    return INFINITY;
  if (a > b)
    return a + log1p (exp (b - a));
  return b + log1p (exp (a - b));
}

/* The generalised no-U-turn criterion over a stretch whose summed
 * momentum is x + y (y may be NULL), with velocities v_minus and v_plus
 * at its ends: both ends still move apart. */
static gboolean
criterion (const double *v_minus, const double *v_plus, const double *x, const double *y, gsize n)
{
  double plus = 0.0, minus = 0.0;

  for (gsize i = 0; i < n; i++)
    {
      double rho = y ? x[i] + y[i] : x[i];
      plus += v_plus[i] * rho;
      minus += v_minus[i] * rho;
    }
  return plus > 0 && minus > 0;
}

/* Merging the two halves of a subtree: its summed momentum into `rho`,
 * and the criterion over the whole subtree and over each half extended by
 * the neighbouring point of the other, all in one pass (each sum is
 * accumulated in the same order as it would be alone). */
static gboolean
merge_halves (const Frame *f, const double *v_beg, const double *v_end, double *rho, gsize n)
{
  double whole_plus = 0, whole_minus = 0, init_plus = 0, init_minus = 0;
  double final_plus = 0, final_minus = 0;

  for (gsize i = 0; i < n; i++)
    {
      double both = f->rho_init[i] + f->rho_final[i];
      double init = f->rho_init[i] + f->p_final_beg[i];
      double final = f->rho_final[i] + f->p_init_end[i];

      whole_plus += v_end[i] * both;
      whole_minus += v_beg[i] * both;
      init_plus += f->v_final_beg[i] * init;
      init_minus += v_beg[i] * init;
      final_plus += v_end[i] * final;
      final_minus += f->v_init_end[i] * final;
      rho[i] = both;
    }
  return whole_plus > 0 && whole_minus > 0 && init_plus > 0 && init_minus > 0
         && final_plus > 0 && final_minus > 0;
}

/* ---- the tree ---- */

/* Builds a subtree of 2^depth leapfrog steps from the edge z in direction
 * `sign`: writes its summed momentum into rho, adds its log weight to
 * *log_sum_weight, writes the draw from the subtree into *propose and the
 * momenta and velocities at its beginning (next to the existing
 * trajectory) and its end. FALSE when the subtree diverged or turned back
 * on itself, which ends the transition. */
static gboolean
build_tree (TildeNuts *nuts, Walk *walk, guint depth, Point *z, Proposal *propose,
            double *v_beg, double *v_end, double *rho, double *p_beg, double *p_end,
            double sign, double *log_sum_weight)
{
  gsize n = nuts->n;

  if (depth == 0)
    {
      double h;

      h = leapfrog_to (nuts, z, sign * nuts->epsilon, v_beg);
      walk->n_leapfrog++;
      if (h - walk->H0 > nuts->max_delta_h)
        walk->divergent = TRUE;
      *log_sum_weight = log_sum_exp (*log_sum_weight, walk->H0 - h);
      walk->sum_metro_prob += walk->H0 - h > 0 ? 1.0 : exp (walk->H0 - h);
      proposal_from_point (propose, z, h, n);
      copy (v_end, v_beg, n);
      copy (rho, z->p, n);
      copy (p_beg, z->p, n);
      copy (p_end, z->p, n);
      return !walk->divergent;
    }

  Frame *f = &nuts->frames[depth];
  double log_sum_weight_init = -INFINITY, log_sum_weight_final = -INFINITY;
  double log_sum_weight_subtree;

  if (!build_tree (nuts, walk, depth - 1, z, propose, v_beg, f->v_init_end, f->rho_init,
                   p_beg, f->p_init_end, sign, &log_sum_weight_init))
    return FALSE;
  if (!build_tree (nuts, walk, depth - 1, z, &f->propose_final, f->v_final_beg, v_end,
                   f->rho_final, f->p_final_beg, p_end, sign, &log_sum_weight_final))
    return FALSE;

  /* uniform multinomial sampling between the two halves */
  log_sum_weight_subtree = log_sum_exp (log_sum_weight_init, log_sum_weight_final);
  *log_sum_weight = log_sum_exp (*log_sum_weight, log_sum_weight_subtree);
  if (log_sum_weight_final > log_sum_weight_subtree
      || gsl_rng_uniform (walk->rng) < exp (log_sum_weight_final - log_sum_weight_subtree))
    proposal_copy (propose, &f->propose_final, n);

  return merge_halves (f, v_beg, v_end, rho, n);
}

void
tilde_nuts_transition_from (TildeNuts *nuts, gsl_rng *rng, const double *momentum,
                            TildeNutsStats *stats)
{
  gsize n = nuts->n;
  Walk walk = { .rng = rng };
  double log_sum_weight = 0.0;   /* the initial point's weight, exp(H0 - H0) */
  guint depth = 0;

  point_from_proposal (&nuts->z_fwd, &nuts->sample, n);
  copy (nuts->z_fwd.p, momentum, n);
  tilde_metric_velocity (nuts->metric, nuts->z_fwd.p, nuts->v_fwd_fwd);
  walk.H0 = hamiltonian (nuts, &nuts->z_fwd, nuts->v_fwd_fwd);
  nuts->sample.H = walk.H0;

  point_from_proposal (&nuts->z_bck, &nuts->sample, n);
  copy (nuts->z_bck.p, momentum, n);
  copy (nuts->p_fwd_fwd, momentum, n);
  copy (nuts->p_fwd_bck, momentum, n);
  copy (nuts->p_bck_fwd, momentum, n);
  copy (nuts->p_bck_bck, momentum, n);
  copy (nuts->v_fwd_bck, nuts->v_fwd_fwd, n);
  copy (nuts->v_bck_fwd, nuts->v_fwd_fwd, n);
  copy (nuts->v_bck_bck, nuts->v_fwd_fwd, n);
  copy (nuts->rho, momentum, n);

  while (depth < nuts->max_depth)
    {
      double log_sum_weight_subtree = -INFINITY;
      gboolean valid, persist;

      /* the new subtree writes its own summed momentum */
      if (gsl_rng_uniform (rng) > 0.5)
        {
          /* the trajectory so far becomes the backward subtree */
          copy (nuts->rho_bck, nuts->rho, n);
          copy (nuts->p_bck_fwd, nuts->p_fwd_fwd, n);
          copy (nuts->v_bck_fwd, nuts->v_fwd_fwd, n);
          valid = build_tree (nuts, &walk, depth, &nuts->z_fwd, &nuts->propose,
                              nuts->v_fwd_bck, nuts->v_fwd_fwd, nuts->rho_fwd,
                              nuts->p_fwd_bck, nuts->p_fwd_fwd, 1.0, &log_sum_weight_subtree);
        }
      else
        {
          copy (nuts->rho_fwd, nuts->rho, n);
          copy (nuts->p_fwd_bck, nuts->p_bck_bck, n);
          copy (nuts->v_fwd_bck, nuts->v_bck_bck, n);
          valid = build_tree (nuts, &walk, depth, &nuts->z_bck, &nuts->propose,
                              nuts->v_bck_fwd, nuts->v_bck_bck, nuts->rho_bck,
                              nuts->p_bck_fwd, nuts->p_bck_bck, -1.0, &log_sum_weight_subtree);
        }
      if (!valid)
        break;
      depth++;

      /* biased progressive sampling: a heavier new subtree always wins */
      if (log_sum_weight_subtree > log_sum_weight
          || gsl_rng_uniform (rng) < exp (log_sum_weight_subtree - log_sum_weight))
        proposal_copy (&nuts->sample, &nuts->propose, n);
      log_sum_weight = log_sum_exp (log_sum_weight, log_sum_weight_subtree);

      for (gsize i = 0; i < n; i++)
        nuts->rho[i] = nuts->rho_bck[i] + nuts->rho_fwd[i];
      persist = criterion (nuts->v_bck_bck, nuts->v_fwd_fwd, nuts->rho, NULL, n)
                && criterion (nuts->v_bck_bck, nuts->v_fwd_bck, nuts->rho_bck, nuts->p_fwd_bck, n)
                && criterion (nuts->v_bck_fwd, nuts->v_fwd_fwd, nuts->rho_fwd, nuts->p_bck_fwd, n);
      if (!persist)
        break;
    }

  stats->lp = -nuts->sample.V;
  stats->accept_stat = walk.n_leapfrog > 0 ? walk.sum_metro_prob / walk.n_leapfrog : 0.0;
  stats->stepsize = nuts->epsilon;
  stats->treedepth = depth;
  stats->n_leapfrog = walk.n_leapfrog;
  stats->divergent = walk.divergent;
  stats->energy = nuts->sample.H;
}

void
tilde_nuts_transition (TildeNuts *nuts, gsl_rng *rng, TildeNutsStats *stats)
{
  /* the momentum is drawn into rho_bck, which the transition overwrites
   * only after copying it */
  tilde_metric_sample_momentum (nuts->metric, rng, nuts->rho_bck);
  tilde_nuts_transition_from (nuts, rng, nuts->rho_bck, stats);
}

/* ---- the first step size ---- */

/* H0 - H after one leapfrog step of the nominal size from the current
 * point with a fresh momentum. */
static double
trial_step (TildeNuts *nuts, gsl_rng *rng)
{
  Point *z = &nuts->z_fwd;
  double H0, h;

  point_from_proposal (z, &nuts->sample, nuts->n);
  tilde_metric_sample_momentum (nuts->metric, rng, z->p);
  tilde_metric_velocity (nuts->metric, z->p, nuts->v_fwd_fwd);
  H0 = hamiltonian (nuts, z, nuts->v_fwd_fwd);
  leapfrog (nuts, z, nuts->epsilon);
  tilde_metric_velocity (nuts->metric, z->p, nuts->v_fwd_fwd);
  h = hamiltonian (nuts, z, nuts->v_fwd_fwd);
  return H0 - h;
}

gboolean
tilde_nuts_init_stepsize (TildeNuts *nuts, gsl_rng *rng, char **problem)
{
  const double log_target = log (0.8);
  int direction;

  /* such step sizes could make the search run for ever */
  if (nuts->epsilon == 0 || nuts->epsilon > 1e7 || isnan (nuts->epsilon))
    return TRUE;

  direction = trial_step (nuts, rng) > log_target ? 1 : -1;
  for (;;)
    {
      double delta_h = trial_step (nuts, rng);

      if (direction == 1 && !(delta_h > log_target))
        break;
      if (direction == -1 && !(delta_h < log_target))
        break;
      nuts->epsilon = direction == 1 ? 2 * nuts->epsilon : 0.5 * nuts->epsilon;
      if (nuts->epsilon > 1e7)
        {
          *problem = g_strdup ("Posterior is improper. Please check your model.");
          return FALSE;
        }
      if (nuts->epsilon == 0)
        {
          *problem = g_strdup ("No acceptably small step size could be found. "
                               "Perhaps the posterior is not continuous?");
          return FALSE;
        }
    }
  return TRUE;
}
