/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scalar special functions on doubles, with the numerically careful forms
 * Stan uses (log1p_exp, log_inv_logit, Phi's tails, ...). Derivatives are
 * built from these by the kernels.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TILDE_LOG_PI        1.14472988584940017414342735135
#define TILDE_LOG_TWO       0.693147180559945309417232121458
#define TILDE_LOG_SQRT_TWO_PI 0.918938533204672741780329736406
#define TILDE_LOG_SQRT_PI   0.572364942924700087071713675677
#define TILDE_SQRT_TWO_PI   2.50662827463100050241576528481
#define TILDE_INV_SQRT_TWO_PI 0.398942280401432677939946059934
#define TILDE_SQRT_TWO      1.41421356237309504880168872421

double tilde_lgamma          (double x);
double tilde_digamma         (double x);
double tilde_trigamma        (double x);
double tilde_tetragamma      (double x);
double tilde_lbeta           (double a, double b);
double tilde_lchoose         (double n, double k);
/* log C(n + r - 1, n), the negative binomials' count term, from r itself:
 * forming n + r - 1 first rounds a small r away beside a large n. */
double tilde_lchoose_count (double n, double r);
double tilde_inv_logit       (double x);
double tilde_logit           (double p);
double tilde_log_inv_logit   (double x);
double tilde_log1m_inv_logit (double x);
double tilde_log1p_exp       (double x);
double tilde_log1m_exp       (double x);   /* log(1 - exp(x)), x < 0 */
double tilde_log1m           (double x);
double tilde_log_sum_exp2    (double a, double b);
double tilde_log_diff_exp    (double a, double b);
double tilde_Phi             (double x);
double tilde_inv_Phi         (double p);
double tilde_Phi_approx      (double x);
/* log of the standard normal density */
double tilde_std_normal_log_density (double x);
/* The regularised incomplete beta function I_x(a, b). */
double tilde_inc_beta        (double a, double b, double x);
/* 1 - I_x(a, b), accurate when it is small */
double tilde_inc_beta_q      (double a, double b, double x);
/* The regularised lower incomplete gamma function P(a, x). */
double tilde_gamma_p         (double a, double x);
double tilde_gamma_q         (double a, double x);
/* log Phi (x) and d log Phi (x) / dx, accurate in both tails */
double tilde_std_normal_lcdf (double x);
double tilde_std_normal_dlcdf (double x);
/* log F and its derivatives, where F is the regularised lower incomplete
 * gamma function P (a, x), or its complement Q (a, x) when upper. The
 * derivative in a (computed when da is not NULL) is a conditional mean of
 * log t, found by adaptive quadrature. */
double tilde_log_gamma_p_grad (double a, double x, gboolean upper, double *da, double *dx);
/* The same for the regularised incomplete beta function I_x (a, b) and
 * 1 - I_x (a, b): derivatives in a and b when da (db) is not NULL. */
double tilde_log_inc_beta_grad (double a, double b, double x, gboolean upper, double *da,
                                double *db, double *dx);
/* Owen's T function T (h, a) = 1/(2 pi) int_0^a exp (-h^2 (1 + x^2) / 2) / (1 + x^2) dx */
double tilde_owens_t          (double h, double a);
/* Bessel functions of integer order (NaN out of their domain) */
double tilde_bessel_j        (int n, double x);
double tilde_bessel_y        (int n, double x);
double tilde_bessel_i        (int n, double x);
double tilde_bessel_k        (int n, double x);
/* log I_v (z) for real order v >= 0 and z >= 0; with d/dv and d/dz when
 * not NULL */
double tilde_log_bessel_i    (double v, double z, double *dv, double *dz);
/* Lambert's W on its two real branches */
double tilde_lambert_w0      (double x);
double tilde_lambert_wm1     (double x);
/* inverse of the regularised incomplete beta function in x */
double tilde_inv_inc_beta    (double a, double b, double p);
/* the standard normal quantile of exp (lp), accurate for tiny lp */
double tilde_std_normal_log_qf (double lp);
/* log erfc (x), accurate where erfc underflows */
double tilde_log_erfc        (double x);
/* log I_0 (x) and I_1 (x) / I_0 (x) for x >= 0 (modified Bessel functions) */
double tilde_log_bessel_i0   (double x);
double tilde_bessel_i1_over_i0 (double x);

G_END_DECLS
