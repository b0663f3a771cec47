/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/nuts.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* A point of phase space: position, momentum, the gradient of the log
 * density (not of the potential: kicks add it), the velocity M^-1 p, the
 * potential V = -lp and the Hamiltonian. A leapfrog step writes a new
 * state rather than changing the one it starts from, so a point is never
 * copied: the tree keeps references to the states at its ends and to its
 * draws, and a state is reused once nothing refers to it. */
typedef struct {
  double *q, *p, *g, *v;
  double  V, H;
  guint   refs;
} State;

/* The storage of one inner node of the tree: the summed momenta of its
 * two halves. A node of depth d uses frames[d], as only one node per
 * depth is under construction at a time. */
typedef struct {
  double *rho_init, *rho_final;
} Frame;

/* The transition under way. */
typedef struct {
  gsl_rng *rng;
  double   H0;
  guint    n_leapfrog;
  double   sum_metro_prob;
  gboolean divergent;
} Walk;

/* Evaluations between two timed ones when timing is on: an odd stride,
 * so that the timed ones do not keep falling on the same place of trees
 * of 2^k steps. */
enum { TIMING_STRIDE = 7 };

struct TildeNuts {
  TildeModel  *model;
  TildeMetric *metric;
  gsize        n;
  guint        max_depth;
  double       epsilon;
  double       max_delta_h;

  State       *sample;            /* the current point, and the draw */
  GPtrArray   *states;            /* every State made so far */
  State      **free_states;       /* those nothing refers to: a stack */
  guint        n_free;
  /* the whole trajectory's summed momentum (two buffers: the new sum is
   * written while the old one is still read) and a new subtree's */
  double      *rho, *rho_other, *rho_subtree;
  double      *v_step;            /* velocity inside a leapfrog step (dense metric) */
  Frame       *frames;            /* max_depth + 1; frames[0] unused */
  double      *storage;

  char               *fatal_error;
  TildeNutsRejectFunc reject_func;
  gpointer            reject_data;
  gboolean            timing;
  guint64             n_gradients;
  guint64             n_timed;
  double              timed_seconds;
};

static State *
state_new (gsize n)
{
  State *s = g_new0 (State, 1);
  double *block = g_new0 (double, 4 * MAX (n, 1));

  s->q = block;
  s->p = block + MAX (n, 1);
  s->g = block + 2 * MAX (n, 1);
  s->v = block + 3 * MAX (n, 1);
  return s;
}

static void
state_free (gpointer data)
{
  State *s = data;
  g_free (s->q);
  g_free (s);
}

/* A state nothing refers to, with one reference. New states are made
 * only when the tree gets deeper than it has been. */
static State *
state_take (TildeNuts *nuts)
{
  State *s;

  if (nuts->n_free > 0)
    s = nuts->free_states[--nuts->n_free];
  else
    {
      s = state_new (nuts->n);
      g_ptr_array_add (nuts->states, s);
      /* room for every state on the stack */
      nuts->free_states = g_renew (State *, nuts->free_states, nuts->states->len);
    }
  s->refs = 1;
  return s;
}

static State *
state_ref (State *s)
{
  s->refs++;
  return s;
}

static void
state_unref (TildeNuts *nuts, State *s)
{
  if (--s->refs == 0)
    nuts->free_states[nuts->n_free++] = s;
}

/* After a transition (which may have ended early, still holding
 * references), every state but the draw is free again. */
static void
states_reset (TildeNuts *nuts)
{
  nuts->n_free = 0;
  for (guint i = 0; i < nuts->states->len; i++)
    {
      State *s = g_ptr_array_index (nuts->states, i);
      if (s == nuts->sample)
        s->refs = 1;
      else
        {
          s->refs = 0;
          nuts->free_states[nuts->n_free++] = s;
        }
    }
}

TildeNuts *
tilde_nuts_new (TildeModel *model, TildeMetric *metric, guint max_depth)
{
  TildeNuts *nuts;
  gsize n = tilde_model_num_params_unconstrained (model);
  gsize m = MAX (n, 1);
  /* 3 trajectory sums, 1 step velocity, and 2 a frame */
  gsize count = (4 + 2 * (gsize) (max_depth + 1)) * m;
  double *s;

  g_return_val_if_fail (max_depth >= 1, NULL);
  nuts = g_new0 (TildeNuts, 1);
  nuts->model = model;
  nuts->metric = metric;
  nuts->n = n;
  nuts->max_depth = max_depth;
  nuts->epsilon = 1.0;
  nuts->max_delta_h = 1000.0;
  /* enough states for a tree of depth 3; deeper trees add their own */
  nuts->states = g_ptr_array_new_with_free_func (state_free);
  nuts->free_states = g_new (State *, 16);
  for (guint i = 0; i < 16; i++)
    {
      State *state = state_new (n);
      g_ptr_array_add (nuts->states, state);
      nuts->free_states[nuts->n_free++] = state;
    }
  nuts->sample = state_take (nuts);
  nuts->storage = s = g_new0 (double, count);
#define CARVE(ptr) do { (ptr) = s; s += m; } while (0)
  CARVE (nuts->rho); CARVE (nuts->rho_other); CARVE (nuts->rho_subtree);
  CARVE (nuts->v_step);
  nuts->frames = g_new0 (Frame, max_depth + 1);
  for (guint d = 0; d <= max_depth; d++)
    {
      CARVE (nuts->frames[d].rho_init);
      CARVE (nuts->frames[d].rho_final);
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
  g_free (nuts->free_states);
  g_ptr_array_unref (nuts->states);
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
      nuts->sample->q[i] = q[i];
      nuts->sample->g[i] = gradient[i];
    }
  nuts->sample->V = -lp;
}

const double *
tilde_nuts_get_position (const TildeNuts *nuts)
{
  return nuts->sample->q;
}

double
tilde_nuts_get_lp (const TildeNuts *nuts)
{
  return -nuts->sample->V;
}

const double *
tilde_nuts_get_gradient (const TildeNuts *nuts)
{
  return nuts->sample->g;
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
  if (nuts->n_timed == 0)
    return 0.0;
  return nuts->timed_seconds * ((double) nuts->n_gradients / (double) nuts->n_timed);
}

/* ---- phase space ---- */

static double
now_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static double
log_density (TildeNuts *nuts, const double *q, double *gradient, TildeModelError **error)
{
  double start, lp;

  if (!nuts->timing || nuts->n_gradients % TIMING_STRIDE != 0)
    return tilde_model_log_density (nuts->model, q, TRUE, TRUE, gradient, error);
  start = now_seconds ();
  lp = tilde_model_log_density (nuts->model, q, TRUE, TRUE, gradient, error);
  nuts->timed_seconds += now_seconds () - start;
  nuts->n_timed++;
  return lp;
}

/* V and the gradient at z->q. A model error makes the point's potential
 * infinite, so the step that reached it is divergent and rejected. */
static void
evaluate (TildeNuts *nuts, State *z)
{
  TildeModelError *error = NULL;
  double lp = log_density (nuts, z->q, z->g, &error);

  nuts->n_gradients++;
  if (error != NULL)
    {
      if (error->kind == TILDE_MODEL_ERROR_FATAL || error->kind == TILDE_MODEL_ERROR_DATA)
        {
          if (nuts->fatal_error == NULL)
            nuts->fatal_error = tilde_model_error_describe (error);
        }
      else if (nuts->reject_func)
        nuts->reject_func (error, nuts->reject_data);
      tilde_model_error_free (error);
      z->V = INFINITY;
      return;
    }
  z->V = isnan (lp) ? INFINITY : -lp;
}

/* H at z, given its velocity; NaN counts as infinite. */
static double
hamiltonian (const TildeNuts *nuts, const State *z)
{
  double h = z->V + tilde_metric_kinetic (nuts->metric, z->p, z->v);
  return isnan (h) ? INFINITY : h;
}

/* The first half kick and the drift from `from` into z: for the unit and
 * diagonal metrics in one pass. The kicks add half * grad lp where Stan
 * subtracts half * grad V, which is the same number: negation is exact. */
static void
kick_and_drift (TildeNuts *nuts, const State *from, State *z, double half, double epsilon)
{
  const TildeMetric *m = nuts->metric;
  const double *restrict q0 = from->q, *restrict p0 = from->p, *restrict g0 = from->g;
  const double *restrict inverse = m->inverse;
  double *restrict q = z->q, *restrict p = z->p;
  gsize n = nuts->n;

  switch (m->kind)
    {
    case TILDE_METRIC_UNIT:
      for (gsize i = 0; i < n; i++)
        {
          p[i] = p0[i] + half * g0[i];
          q[i] = q0[i] + epsilon * p[i];
        }
      break;
    case TILDE_METRIC_DIAG:
      for (gsize i = 0; i < n; i++)
        {
          p[i] = p0[i] + half * g0[i];
          q[i] = q0[i] + epsilon * (inverse[i] * p[i]);
        }
      break;
    case TILDE_METRIC_DENSE:
      for (gsize i = 0; i < n; i++)
        p[i] = p0[i] + half * g0[i];
      tilde_metric_velocity (m, p, nuts->v_step);
      for (gsize i = 0; i < n; i++)
        q[i] = q0[i] + epsilon * nuts->v_step[i];
      break;
    }
}

/* A leapfrog step from `from` into z, with the velocity at its end;
 * returns the Hamiltonian there (NaN counting as infinite). For the unit
 * and diagonal metrics the last kick, the velocity and the kinetic energy
 * take one pass. */
static double
leapfrog (TildeNuts *nuts, const State *from, State *z, double epsilon)
{
  const TildeMetric *m = nuts->metric;
  const double *restrict inverse = m->inverse, *restrict g = z->g;
  double *restrict p = z->p, *restrict v = z->v;
  gsize n = nuts->n;
  double half = 0.5 * epsilon, twice_tau = 0.0, h;

  kick_and_drift (nuts, from, z, half, epsilon);
  evaluate (nuts, z);
  switch (m->kind)
    {
    case TILDE_METRIC_UNIT:
      for (gsize i = 0; i < n; i++)
        {
          p[i] = p[i] + half * g[i];
          v[i] = p[i];
          twice_tau += p[i] * v[i];
        }
      break;
    case TILDE_METRIC_DIAG:
      for (gsize i = 0; i < n; i++)
        {
          p[i] = p[i] + half * g[i];
          v[i] = inverse[i] * p[i];
          twice_tau += p[i] * v[i];
        }
      break;
    case TILDE_METRIC_DENSE:
      for (gsize i = 0; i < n; i++)
        p[i] = p[i] + half * g[i];
      tilde_metric_velocity (m, p, v);
      return hamiltonian (nuts, z);
    }
  h = z->V + 0.5 * twice_tau;
  return isnan (h) ? INFINITY : h;
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

/* A subtree as build_tree leaves it: the states at its beginning (next to
 * the trajectory it extends) and at its end, its draw, and its summed
 * momentum. The caller holds a reference to each state. */
typedef struct {
  State        *beg, *end, *propose;
  const double *rho;
} Subtree;

/* Merging the two halves of a subtree: its summed momentum into `rho`,
 * and the criterion over the whole subtree and over each half extended by
 * the neighbouring point of the other, all in one pass (each sum is
 * accumulated in the same order as it would be alone). */
static gboolean
merge_halves (const Subtree *a, const Subtree *b, double *restrict rho, gsize n)
{
  const double *restrict rho_init = a->rho, *restrict rho_final = b->rho;
  const double *restrict v_beg = a->beg->v, *restrict v_end = b->end->v;
  const double *restrict p_init_end = a->end->p, *restrict v_init_end = a->end->v;
  const double *restrict p_final_beg = b->beg->p, *restrict v_final_beg = b->beg->v;
  double whole_plus = 0, whole_minus = 0, init_plus = 0, init_minus = 0;
  double final_plus = 0, final_minus = 0;

  for (gsize i = 0; i < n; i++)
    {
      double both = rho_init[i] + rho_final[i];
      double init = rho_init[i] + p_final_beg[i];
      double final = rho_final[i] + p_init_end[i];

      whole_plus += v_end[i] * both;
      whole_minus += v_beg[i] * both;
      init_plus += v_final_beg[i] * init;
      init_minus += v_beg[i] * init;
      final_plus += v_end[i] * final;
      final_minus += v_init_end[i] * final;
      rho[i] = both;
    }
  return whole_plus > 0 && whole_minus > 0 && init_plus > 0 && init_minus > 0
         && final_plus > 0 && final_minus > 0;
}

/* merge_halves for two single steps a and b: the halves' sums are their
 * momenta, so each half extended by its neighbour sums p_a + p_b, as
 * the whole does (addition commutes exactly), and its ends are the
 * whole's: the six sums are two, each twice. */
static gboolean
merge_steps (const Subtree *a, const Subtree *b, double *restrict rho, gsize n)
{
  const double *restrict p_a = a->rho, *restrict p_b = b->rho;
  const double *restrict v_beg = a->beg->v, *restrict v_end = b->end->v;
  double whole_plus = 0, whole_minus = 0;

  for (gsize i = 0; i < n; i++)
    {
      double both = p_a[i] + p_b[i];

      whole_plus += v_end[i] * both;
      whole_minus += v_beg[i] * both;
      rho[i] = both;
    }
  return whole_plus > 0 && whole_minus > 0;
}

/* ---- the tree ---- */

/* Builds a subtree of 2^depth leapfrog steps from the edge *edge in
 * direction `sign`, moving *edge to its last point: fills *tree (its
 * summed momentum in rho_buffer unless it is a single step), adds its log
 * weight to *log_sum_weight. FALSE when the subtree diverged or turned
 * back on itself, which ends the transition (and *tree is not to be
 * used). */
static gboolean
build_tree (TildeNuts *nuts, Walk *walk, guint depth, State **edge, double *rho_buffer,
            Subtree *tree, double sign, double *log_sum_weight)
{
  if (depth == 0)
    {
      State *z = state_take (nuts);
      double h = leapfrog (nuts, *edge, z, sign * nuts->epsilon);

      state_unref (nuts, *edge);
      *edge = z;
      z->H = h;
      walk->n_leapfrog++;
      if (h - walk->H0 > nuts->max_delta_h)
        walk->divergent = TRUE;
      *log_sum_weight = log_sum_exp (*log_sum_weight, walk->H0 - h);
      walk->sum_metro_prob += walk->H0 - h > 0 ? 1.0 : exp (walk->H0 - h);
      z->refs += 3;
      *tree = (Subtree) { .beg = z, .end = z, .propose = z, .rho = z->p };
      return !walk->divergent;
    }

  Frame *f = &nuts->frames[depth];
  Subtree init, final;
  double log_sum_weight_init = -INFINITY, log_sum_weight_final = -INFINITY;
  double log_sum_weight_subtree;
  gboolean persist;

  if (!build_tree (nuts, walk, depth - 1, edge, f->rho_init, &init, sign, &log_sum_weight_init))
    return FALSE;
  if (!build_tree (nuts, walk, depth - 1, edge, f->rho_final, &final, sign,
                   &log_sum_weight_final))
    return FALSE;

  /* uniform multinomial sampling between the two halves */
  log_sum_weight_subtree = log_sum_exp (log_sum_weight_init, log_sum_weight_final);
  *log_sum_weight = log_sum_exp (*log_sum_weight, log_sum_weight_subtree);
  if (log_sum_weight_final > log_sum_weight_subtree
      || gsl_rng_uniform (walk->rng) < exp (log_sum_weight_final - log_sum_weight_subtree))
    {
      state_unref (nuts, init.propose);
      tree->propose = final.propose;
    }
  else
    {
      state_unref (nuts, final.propose);
      tree->propose = init.propose;
    }

  persist = depth == 1 ? merge_steps (&init, &final, rho_buffer, nuts->n)
                       : merge_halves (&init, &final, rho_buffer, nuts->n);
  tree->beg = init.beg;
  tree->end = final.end;
  tree->rho = rho_buffer;
  state_unref (nuts, init.end);
  state_unref (nuts, final.beg);
  return persist;
}

/* The end states of the two subtrees the trajectory is made of: bck_bck
 * and fwd_fwd are its two edges, bck_fwd is the forward end of the
 * backward subtree. */
typedef struct {
  State *bck_bck, *bck_fwd, *fwd_bck, *fwd_fwd;
} Ends;

static void
replace (TildeNuts *nuts, State **slot, State *s)
{
  state_unref (nuts, *slot);
  *slot = s;
}

void
tilde_nuts_transition_from (TildeNuts *nuts, gsl_rng *rng, const double *momentum,
                            TildeNutsStats *stats)
{
  gsize n = nuts->n;
  Walk walk = { .rng = rng };
  State *start = nuts->sample;
  Ends ends;
  double log_sum_weight = 0.0;   /* the initial point's weight, exp(H0 - H0) */
  guint depth = 0;
  /* a subtree cut short keeps references that only a reset can drop */
  gboolean valid_end = TRUE;

  memcpy (start->p, momentum, sizeof (double) * n);
  tilde_metric_velocity (nuts->metric, start->p, start->v);
  walk.H0 = start->H = hamiltonian (nuts, start);
  memcpy (nuts->rho, momentum, sizeof (double) * n);
  start->refs += 4;
  ends = (Ends) { start, start, start, start };

  while (depth < nuts->max_depth)
    {
      double log_sum_weight_subtree = -INFINITY;
      const double *rho_bck, *rho_fwd;
      Subtree tree;
      gboolean valid, persist;

      if (gsl_rng_uniform (rng) > 0.5)
        {
          /* the trajectory so far becomes the backward subtree */
          replace (nuts, &ends.bck_fwd, state_ref (ends.fwd_fwd));
          valid = build_tree (nuts, &walk, depth, &ends.fwd_fwd, nuts->rho_subtree, &tree, 1.0,
                              &log_sum_weight_subtree);
          if (valid)
            replace (nuts, &ends.fwd_bck, tree.beg);
          rho_bck = nuts->rho;
          rho_fwd = tree.rho;
        }
      else
        {
          replace (nuts, &ends.fwd_bck, state_ref (ends.bck_bck));
          valid = build_tree (nuts, &walk, depth, &ends.bck_bck, nuts->rho_subtree, &tree, -1.0,
                              &log_sum_weight_subtree);
          if (valid)
            replace (nuts, &ends.bck_fwd, tree.beg);
          rho_bck = tree.rho;
          rho_fwd = nuts->rho;
        }
      if (!valid)
        {
          valid_end = FALSE;
          break;
        }
      depth++;
      state_unref (nuts, tree.end);   /* the new edge, held as such */

      /* biased progressive sampling: a heavier new subtree always wins */
      if (log_sum_weight_subtree > log_sum_weight
          || gsl_rng_uniform (rng) < exp (log_sum_weight_subtree - log_sum_weight))
        {
          state_unref (nuts, nuts->sample);
          nuts->sample = tree.propose;
        }
      else
        state_unref (nuts, tree.propose);
      log_sum_weight = log_sum_exp (log_sum_weight, log_sum_weight_subtree);

      {
        double *rho = nuts->rho_other;
        for (gsize i = 0; i < n; i++)
          rho[i] = rho_bck[i] + rho_fwd[i];
        nuts->rho_other = nuts->rho;
        nuts->rho = rho;
      }
      persist = criterion (ends.bck_bck->v, ends.fwd_fwd->v, nuts->rho, NULL, n)
                && criterion (ends.bck_bck->v, ends.fwd_bck->v, rho_bck, ends.fwd_bck->p, n)
                && criterion (ends.bck_fwd->v, ends.fwd_fwd->v, rho_fwd, ends.bck_fwd->p, n);
      if (!persist)
        break;
    }

  if (valid_end)
    {
      state_unref (nuts, ends.bck_bck);
      state_unref (nuts, ends.bck_fwd);
      state_unref (nuts, ends.fwd_bck);
      state_unref (nuts, ends.fwd_fwd);
    }
  else
    states_reset (nuts);
  stats->lp = -nuts->sample->V;
  stats->accept_stat = walk.n_leapfrog > 0 ? walk.sum_metro_prob / walk.n_leapfrog : 0.0;
  stats->stepsize = nuts->epsilon;
  stats->treedepth = depth;
  stats->n_leapfrog = walk.n_leapfrog;
  stats->divergent = walk.divergent;
  stats->energy = nuts->sample->H;
}

void
tilde_nuts_transition (TildeNuts *nuts, gsl_rng *rng, TildeNutsStats *stats)
{
  /* the momentum is drawn into rho_other, which the transition does not
   * use before its first doubling */
  tilde_metric_sample_momentum (nuts->metric, rng, nuts->rho_other);
  tilde_nuts_transition_from (nuts, rng, nuts->rho_other, stats);
}

/* ---- the first step size ---- */

/* H0 - H after one leapfrog step of the nominal size from the current
 * point with a fresh momentum. */
static double
trial_step (TildeNuts *nuts, gsl_rng *rng)
{
  State *start = nuts->sample, *z = state_take (nuts);
  double H0, h;

  tilde_metric_sample_momentum (nuts->metric, rng, start->p);
  tilde_metric_velocity (nuts->metric, start->p, start->v);
  H0 = hamiltonian (nuts, start);
  h = leapfrog (nuts, start, z, nuts->epsilon);
  state_unref (nuts, z);
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
