/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The minimisers on functions with known minima: the line search, BFGS and
 * L-BFGS with each of Stan's termination tests, Newton, and the
 * finite-difference Hessians against analytic ones. */
#define G_LOG_DOMAIN "tilde-test"

#include <float.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "infer/bfgs.h"
#include "infer/lbfgs.h"
#include "infer/linesearch.h"
#include "infer/newton.h"

/* ---- test functions ---- */

/* Rosenbrock's banana in n dimensions (n even): sum over pairs of
 * 100 (x2 - x1^2)^2 + (1 - x1)^2, minimum 0 at (1, ..., 1). */
static gboolean
rosenbrock (const double *x, double *f, double *g, gpointer user_data)
{
  gsize n = GPOINTER_TO_SIZE (user_data);

  *f = 0.0;
  for (gsize i = 0; i < n; i += 2)
    {
      double a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];
      *f += 100.0 * a * a + b * b;
      g[i] = -400.0 * x[i] * a - 2.0 * b;
      g[i + 1] = 200.0 * a;
    }
  return TRUE;
}

/* (x - c)' A (x - c) / 2 with A = [[4, 1, 0], [1, 3, 1], [0, 1, 2]]. */
static const double quad_a[9] = { 4, 1, 0, 1, 3, 1, 0, 1, 2 };
static const double quad_c[3] = { 1.5, -2.0, 0.25 };

static gboolean
quadratic (const double *x, double *f, double *g, gpointer user_data)
{
  double d[3];

  for (int i = 0; i < 3; i++)
    d[i] = x[i] - quad_c[i];
  *f = 0.0;
  for (int i = 0; i < 3; i++)
    {
      g[i] = 0.0;
      for (int j = 0; j < 3; j++)
        g[i] += quad_a[i * 3 + j] * d[j];
      *f += 0.5 * d[i] * g[i];
    }
  return TRUE;
}

/* (x - 3)^2 in one dimension. */
static gboolean
parabola (const double *x, double *f, double *g, gpointer user_data)
{
  *f = (x[0] - 3.0) * (x[0] - 3.0);
  g[0] = 2.0 * (x[0] - 3.0);
  return TRUE;
}

/* |x|: no step along -sign(x) meets the curvature condition, since the
 * slope is always -1 or 1 and c2 = 0.9. */
static gboolean
absolute (const double *x, double *f, double *g, gpointer user_data)
{
  *f = fabs (x[0]);
  g[0] = x[0] >= 0 ? 1.0 : -1.0;
  return TRUE;
}

/* x^4 - x^2 + y^2: a saddle at the origin, minima at (+-1/sqrt 2, 0). */
static gboolean
double_well (const double *x, double *f, double *g, gpointer user_data)
{
  *f = pow (x[0], 4) - x[0] * x[0] + x[1] * x[1];
  g[0] = 4.0 * pow (x[0], 3) - 2.0 * x[0];
  g[1] = 2.0 * x[1];
  return TRUE;
}

static TildeObjective
objective (gsize n, TildeObjectiveFunc func, gpointer user_data)
{
  return (TildeObjective) { .n = n, .func = func, .user_data = user_data };
}

/* ---- the line search ---- */

/* g(x) = x^3/3 - x has g(0) = 0, g'(0) = -1, g(2) = 2/3, g'(2) = 3 and its
 * minimum on [0, 2] at x = 1; the cubic through those data is g itself. */
static void
test_cubic_interp (void)
{
  g_assert_cmpfloat_with_epsilon (tilde_cubic_interp (-1.0, 2.0, 2.0 / 3.0, 3.0, 0.0, 2.0), 1.0, 1e-12);
  /* confined to [0, 0.5] the lowest point is the right end */
  g_assert_cmpfloat (tilde_cubic_interp (-1.0, 2.0, 2.0 / 3.0, 3.0, 0.0, 0.5), ==, 0.5);
  /* and on [1.5, 2] the left end */
  g_assert_cmpfloat (tilde_cubic_interp (-1.0, 2.0, 2.0 / 3.0, 3.0, 1.5, 2.0), ==, 1.5);
}

/* On (x - 3)^2 from 0 along p = 6 (the steepest descent), the steps grow
 * 0.001, 0.01, 0.1; at 0.1 the slope is -28.8, within 0.9 * 36. */
static void
test_line_search_grows (void)
{
  TildeObjective obj = objective (1, parabola, NULL);
  TildeLineSearchOptions options;
  double x0 = 0, f0, g0, p = 6, x1, f1, g1, alpha = 1e-3;

  tilde_line_search_options_init (&options);
  parabola (&x0, &f0, &g0, NULL);
  g_assert_true (tilde_wolfe_line_search (&obj, &options, &alpha, &x1, &f1, &g1, &p, &x0, f0, &g0));
  g_assert_cmpfloat_with_epsilon (alpha, 0.1, 1e-15);
  g_assert_cmpfloat_with_epsilon (x1, 0.6, 1e-15);
  g_assert_cmpuint (obj.evaluations, ==, 3);
}

/* With c2 = 0.1 the step 0.1 is not enough, 1 overshoots (f = 9 = f0),
 * and the cubic through the ends of [0.1, 1] of a parabola finds its
 * minimum exactly: 0.5, where x = 3. */
static void
test_line_search_zooms (void)
{
  TildeObjective obj = objective (1, parabola, NULL);
  TildeLineSearchOptions options;
  double x0 = 0, f0, g0, p = 6, x1, f1, g1, alpha = 1e-3;

  tilde_line_search_options_init (&options);
  options.c2 = 0.1;
  parabola (&x0, &f0, &g0, NULL);
  g_assert_true (tilde_wolfe_line_search (&obj, &options, &alpha, &x1, &f1, &g1, &p, &x0, f0, &g0));
  g_assert_cmpfloat_with_epsilon (alpha, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (x1, 3.0, 1e-12);
  g_assert_cmpuint (obj.evaluations, ==, 5);
}

/* Both strong Wolfe conditions hold where the search stops on Rosenbrock. */
static void
test_line_search_wolfe_conditions (void)
{
  TildeObjective obj = objective (2, rosenbrock, GSIZE_TO_POINTER (2));
  TildeLineSearchOptions options;
  double x0[2] = { -1.2, 1.0 }, g0[2], f0, p[2], x1[2], g1[2], f1;

  tilde_line_search_options_init (&options);
  for (int start = 0; start < 3; start++)
    {
      double alpha = (double[]) { 1e-3, 1e-4, 1.0 }[start], slope0, slope1;

      rosenbrock (x0, &f0, g0, GSIZE_TO_POINTER (2));
      p[0] = -g0[0];
      p[1] = -g0[1];
      g_assert_true (tilde_wolfe_line_search (&obj, &options, &alpha, x1, &f1, g1, p, x0, f0, g0));
      slope0 = g0[0] * p[0] + g0[1] * p[1];
      slope1 = g1[0] * p[0] + g1[1] * p[1];
      g_assert_cmpfloat (f1, <, f0);
      g_assert_cmpfloat (fabs (slope1), <=, -options.c2 * slope0);
      g_assert_cmpfloat_with_epsilon (x1[0], x0[0] + alpha * p[0], 1e-12);
    }
}

/* ---- quasi-Newton ---- */

static TildeQnStatus
minimise (TildeObjective *obj, const TildeQnOptions *options, const double *x0, double *x)
{
  g_autoptr (TildeQnMinimizer) qn = tilde_qn_new (obj, options);
  TildeQnStatus status;

  g_assert_true (tilde_qn_initialize (qn, x0));
  while ((status = tilde_qn_step (qn)) == TILDE_QN_CONTINUE)
    ;
  memcpy (x, tilde_qn_x (qn), sizeof (double) * obj->n);
  return status;
}

static void
test_rosenbrock (void)
{
  for (int history = 0; history <= 5; history += 5)
    {
      TildeObjective obj = objective (2, rosenbrock, GSIZE_TO_POINTER (2));
      TildeQnOptions options;
      double x0[2] = { -1.2, 1.0 }, x[2];
      TildeQnStatus status;

      tilde_qn_options_init (&options);
      options.history_size = history;
      status = minimise (&obj, &options, x0, x);
      g_assert_cmpint (status, >, 0);
      g_assert_cmpint (status, !=, TILDE_QN_MAX_ITER);
      g_assert_cmpfloat_with_epsilon (x[0], 1.0, 1e-4);
      g_assert_cmpfloat_with_epsilon (x[1], 1.0, 1e-4);
    }
}

/* Twenty dimensions: L-BFGS with short and long memories, and BFGS. */
static void
test_rosenbrock_20 (void)
{
  static const gsize histories[] = { 0, 1, 5, 30 };

  for (gsize h = 0; h < G_N_ELEMENTS (histories); h++)
    {
      TildeObjective obj = objective (20, rosenbrock, GSIZE_TO_POINTER (20));
      TildeQnOptions options;
      double x0[20], x[20];

      for (int i = 0; i < 20; i++)
        x0[i] = i % 2 ? 1.0 : -1.2;
      tilde_qn_options_init (&options);
      options.history_size = histories[h];
      options.max_iterations = 10000;
      g_assert_cmpint (minimise (&obj, &options, x0, x), >, 0);
      for (int i = 0; i < 20; i++)
        g_assert_cmpfloat_with_epsilon (x[i], 1.0, 1e-4);
    }
}

static void
test_quadratic (void)
{
  for (int history = 0; history <= 2; history += 2)
    {
      TildeObjective obj = objective (3, quadratic, NULL);
      TildeQnOptions options;
      double x0[3] = { 0, 0, 0 }, x[3];

      tilde_qn_options_init (&options);
      options.history_size = history;
      /* the default relative-gradient test stops at f ~ 1e-9, where
       * |x - c| ~ sqrt (2 f / smallest eigenvalue of A) ~ 5e-5 */
      g_assert_cmpint (minimise (&obj, &options, x0, x), >, 0);
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat_with_epsilon (x[i], quad_c[i], 2e-4);
    }
}

/* The quantities each termination test compares, at one iterate. */
typedef struct {
  double f, prev_f, grad_norm, step, rel_f, rel_grad;
} Measures;

static Measures
measures (const TildeQnMinimizer *qn, double prev_f, const double *prev_x, gsize n)
{
  Measures m = { .f = tilde_qn_f (qn), .prev_f = prev_f, .grad_norm = tilde_qn_gradient_norm (qn) };
  const double *x = tilde_qn_x (qn);
  double s = 0.0;

  for (gsize i = 0; i < n; i++)
    s += (x[i] - prev_x[i]) * (x[i] - prev_x[i]);
  m.step = sqrt (s);
  m.rel_f = fabs (prev_f - m.f) / MAX (fabs (prev_f), MAX (fabs (m.f), 1.0));
  return m;
}

/* Each tolerance on its own, the others off: the run stops with its code
 * at the first iterate that meets it, and not before. */
static void
test_termination_codes (void)
{
  static const struct {
    TildeQnStatus status;
    double tol_obj, tol_grad, tol_param, tol_rel_obj;
    int max_iterations;
    const char *message;   /* CmdStan's words */
  } cases[] = {
    { TILDE_QN_ABS_F, 1e-3, 0, 0, 0, 10000,
      "Convergence detected: absolute change in objective function was below tolerance" },
    { TILDE_QN_ABS_GRAD, 0, 1e-2, 0, 0, 10000,
      "Convergence detected: gradient norm is below tolerance" },
    { TILDE_QN_ABS_X, 0, 0, 1e-3, 0, 10000,
      "Convergence detected: absolute parameter change was below tolerance" },
    { TILDE_QN_REL_F, 0, 0, 0, 1e10, 10000,
      "Convergence detected: relative change in objective function was below tolerance" },
    { TILDE_QN_MAX_ITER, 0, 0, 0, 0, 7,
      "Maximum number of iterations hit, may not be at an optima" },
  };

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      TildeObjective obj = objective (2, rosenbrock, GSIZE_TO_POINTER (2));
      TildeQnOptions options;
      g_autoptr (TildeQnMinimizer) qn = NULL;
      double x0[2] = { -1.2, 1.0 }, prev_x[2], prev_f;
      TildeQnStatus status;
      Measures m;

      tilde_qn_options_init (&options);
      options.history_size = 5;
      options.tol_obj = cases[c].tol_obj;
      options.tol_grad = cases[c].tol_grad;
      options.tol_param = cases[c].tol_param;
      options.tol_rel_obj = cases[c].tol_rel_obj;
      options.tol_rel_grad = 0;
      options.max_iterations = cases[c].max_iterations;
      qn = tilde_qn_new (&obj, &options);
      g_assert_true (tilde_qn_initialize (qn, x0));
      do
        {
          memcpy (prev_x, tilde_qn_x (qn), sizeof prev_x);
          prev_f = tilde_qn_f (qn);
          status = tilde_qn_step (qn);
          m = measures (qn, prev_f, prev_x, 2);
          if (status == TILDE_QN_CONTINUE)
            {
              g_assert_cmpfloat (fabs (m.prev_f - m.f), >=, options.tol_obj);
              g_assert_cmpfloat (m.grad_norm, >=, options.tol_grad);
              g_assert_cmpfloat (m.step, >=, options.tol_param);
              g_assert_cmpfloat (m.rel_f, >=, options.tol_rel_obj * DBL_EPSILON);
            }
        }
      while (status == TILDE_QN_CONTINUE);
      g_assert_cmpint (status, ==, cases[c].status);
      switch (status)
        {
        case TILDE_QN_ABS_F:
          g_assert_cmpfloat (fabs (m.prev_f - m.f), <, options.tol_obj);
          break;
        case TILDE_QN_ABS_GRAD:
          g_assert_cmpfloat (m.grad_norm, <, options.tol_grad);
          break;
        case TILDE_QN_ABS_X:
          g_assert_cmpfloat (m.step, <, options.tol_param);
          /* and ||dx|| as the table prints it is that step */
          g_assert_cmpfloat_with_epsilon (tilde_qn_step_size (qn), m.step, 1e-12 + 1e-9 * m.step);
          break;
        case TILDE_QN_REL_F:
          g_assert_cmpfloat (m.rel_f, <, options.tol_rel_obj * DBL_EPSILON);
          break;
        case TILDE_QN_MAX_ITER:
          g_assert_cmpint (tilde_qn_iteration (qn), ==, 7);
          break;
        default:
          g_assert_not_reached ();
        }
      g_assert_cmpstr (tilde_qn_status_message (status), ==, cases[c].message);
    }
}

/* Only the relative gradient test on: it ends the run, at the minimum. */
static void
test_relative_gradient (void)
{
  TildeObjective obj = objective (3, quadratic, NULL);
  TildeQnOptions options;
  double x0[3] = { 0, 0, 0 }, x[3];

  tilde_qn_options_init (&options);
  options.tol_obj = options.tol_grad = options.tol_param = options.tol_rel_obj = 0;
  options.tol_rel_grad = 1e7;
  g_assert_cmpint (minimise (&obj, &options, x0, x), ==, TILDE_QN_REL_GRAD);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (x[i], quad_c[i], 1e-4);
  g_assert_cmpstr (tilde_qn_status_message (TILDE_QN_REL_GRAD), ==,
                   "Convergence detected: relative gradient magnitude is below tolerance");
}

static void
test_line_search_failure (void)
{
  TildeObjective obj = objective (1, absolute, NULL);
  TildeQnOptions options;
  double x0 = 1.0, x;

  tilde_qn_options_init (&options);
  options.history_size = 5;
  g_assert_cmpint (minimise (&obj, &options, &x0, &x), ==, TILDE_QN_LINE_SEARCH_FAILED);
  g_assert_cmpstr (tilde_qn_status_message (TILDE_QN_LINE_SEARCH_FAILED), ==,
                   "Line search failed to achieve a sufficient decrease, no more progress can be made");
}

/* A function that fails where x > 4 (as a model whose density is zero
 * there): steps that land there are shortened, and the run still finds
 * the minimum at 3. */
static gboolean
parabola_with_wall (const double *x, double *f, double *g, gpointer user_data)
{
  if (x[0] > 4.0)
    return FALSE;
  return parabola (x, f, g, user_data);
}

static void
test_failed_evaluations_shorten_steps (void)
{
  TildeObjective obj = objective (1, parabola_with_wall, NULL);
  TildeQnOptions options;
  double x0 = -5.0, x;

  tilde_qn_options_init (&options);
  g_assert_cmpint (minimise (&obj, &options, &x0, &x), >, 0);
  g_assert_cmpfloat_with_epsilon (x, 3.0, 1e-6);
}

/* ---- the L-BFGS history ---- */

static void
test_lbfgs_history (void)
{
  static const double y[3][3] = { { 1, 0.5, 0 }, { 0.2, 2, 0.1 }, { -0.3, 0.4, 3 } };
  static const double s[3][3] = { { 0.8, 0.1, 0 }, { 0.1, 0.9, 0.2 }, { 0, 0.3, 0.7 } };
  g_autoptr (TildeLbfgsHistory) all = tilde_lbfgs_history_new (3, 2);
  g_autoptr (TildeLbfgsHistory) last = tilde_lbfgs_history_new (3, 2);
  double g[3] = { 0.3, -1.0, 2.0 }, p_all[3], p_last[3], p[3];

  for (int k = 0; k < 3; k++)
    tilde_lbfgs_history_update (all, y[k], s[k], k == 0);
  for (int k = 1; k < 3; k++)
    tilde_lbfgs_history_update (last, y[k], s[k], k == 1);
  /* a full ring has forgotten the oldest pair */
  tilde_lbfgs_history_direction (all, g, p_all);
  tilde_lbfgs_history_direction (last, g, p_last);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (p_all[i], p_last[i], 1e-14);
  /* the secant condition for the newest pair: H y = s, so -H y = -s */
  tilde_lbfgs_history_direction (all, y[2], p);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (p[i], -s[2][i], 1e-13);
  /* a reset returns y'y / s'y */
  g_assert_cmpfloat_with_epsilon (tilde_lbfgs_history_update (all, y[0], s[0], TRUE),
                                  (1 + 0.25) / (0.8 + 0.05), 1e-14);
}

/* ---- Newton and Hessians ---- */

static void
test_hessians (void)
{
  TildeObjective obj = objective (2, rosenbrock, GSIZE_TO_POINTER (2));
  double x[2] = { -1.2, 1.0 }, h[4], f, g[2];
  /* d2/dx2 = 1200 x^2 - 400 y + 2, d2/dxdy = -400 x, d2/dy2 = 200 */
  double exact[4] = { 1200 * 1.44 - 400 + 2, 480, 480, 200 };

  g_assert_true (tilde_hessian_stencil (&obj, x, h, &f, g));
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (h[i], exact[i], 1e-6 * fabs (exact[i]));
  g_assert_cmpfloat_with_epsilon (f, 24.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (g[0], -215.6, 1e-9);
  g_assert_true (tilde_hessian_central (&obj, x, h));
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (h[i], exact[i], 1e-6 * fabs (exact[i]));
}

/* On a quadratic the stencil's Hessian is exact, and so is one step. */
static void
test_newton_quadratic (void)
{
  TildeObjective obj = objective (3, quadratic, NULL);
  double x[3] = { 10, -4, 7 }, f;

  g_assert_cmpint (tilde_newton_step (&obj, x, &f), ==, TILDE_NEWTON_MOVED);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (x[i], quad_c[i], 1e-9);
  g_assert_cmpfloat_with_epsilon (f, 0.0, 1e-15);
}

/* Where the Hessian is indefinite the step still goes downhill, and the
 * iteration reaches a minimum, not the saddle. */
static void
test_newton_indefinite (void)
{
  TildeObjective obj = objective (2, double_well, NULL);
  double x[2] = { 0.1, 1.0 }, f0, g0[2], f = 0;

  double_well (x, &f0, g0, NULL);
  for (int k = 0; k < 50; k++)
    {
      double before = k == 0 ? f0 : f;
      g_assert_cmpint (tilde_newton_step (&obj, x, &f), !=, TILDE_NEWTON_FAILED);
      g_assert_cmpfloat (f, <=, before);
    }
  g_assert_cmpfloat_with_epsilon (fabs (x[0]), 1.0 / sqrt (2.0), 1e-8);
  g_assert_cmpfloat_with_epsilon (x[1], 0.0, 1e-8);
  g_assert_cmpfloat_with_epsilon (f, -0.25, 1e-12);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/infer/optimize/cubic-interp", test_cubic_interp);
  g_test_add_func ("/infer/optimize/line-search/grows", test_line_search_grows);
  g_test_add_func ("/infer/optimize/line-search/zooms", test_line_search_zooms);
  g_test_add_func ("/infer/optimize/line-search/wolfe-conditions", test_line_search_wolfe_conditions);
  g_test_add_func ("/infer/optimize/qn/rosenbrock", test_rosenbrock);
  g_test_add_func ("/infer/optimize/qn/rosenbrock-20", test_rosenbrock_20);
  g_test_add_func ("/infer/optimize/qn/quadratic", test_quadratic);
  g_test_add_func ("/infer/optimize/qn/termination-codes", test_termination_codes);
  g_test_add_func ("/infer/optimize/qn/relative-gradient", test_relative_gradient);
  g_test_add_func ("/infer/optimize/qn/line-search-failure", test_line_search_failure);
  g_test_add_func ("/infer/optimize/qn/failed-evaluations", test_failed_evaluations_shorten_steps);
  g_test_add_func ("/infer/optimize/lbfgs-history", test_lbfgs_history);
  g_test_add_func ("/infer/optimize/hessians", test_hessians);
  g_test_add_func ("/infer/optimize/newton/quadratic", test_newton_quadratic);
  g_test_add_func ("/infer/optimize/newton/indefinite", test_newton_indefinite);
  return g_test_run ();
}
