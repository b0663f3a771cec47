/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MCMC diagnostics of one quantity, as the R package posterior computes them
 * (Vehtari, Gelman, Simpson, Carpenter and Bürkner 2021, "Rank-normalization,
 * folding, and localization: an improved R-hat for assessing convergence of
 * MCMC").
 *
 * Every function reads `draws`: `n_chains` chains of `n_draws` draws each,
 * chain-major (draw i of chain c is draws[c * n_draws + i]). None keeps a
 * pointer or changes the draws.
 *
 * A quantity that cannot be assessed gives NaN, never a crash: any NaN among
 * the draws, draws that are all the same, chains too short (fewer than 3
 * draws per split chain for an ESS, fewer than 2 draws per chain for R-hat).
 * Infinite draws are ranked like any other value, so the rank-based R-hat and
 * bulk-ESS stay finite, while everything that needs moments or quantile
 * indicators (ess_tail, ess_mean, mcse_*) is NaN, as in posterior.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* max(bulk R-hat, tail R-hat): split-R-hat of the rank-normalised draws and
 * of the rank-normalised |draws - median|. */
double tilde_rhat         (const double *draws, gsize n_chains, gsize n_draws);
double tilde_rhat_bulk    (const double *draws, gsize n_chains, gsize n_draws);
double tilde_rhat_tail    (const double *draws, gsize n_chains, gsize n_draws);

/* Split-ESS of the rank-normalised draws. */
double tilde_ess_bulk     (const double *draws, gsize n_chains, gsize n_draws);
/* The smaller ESS of the indicators draws <= q5 and draws <= q95. */
double tilde_ess_tail     (const double *draws, gsize n_chains, gsize n_draws);
/* Split-ESS of the indicator draws <= quantile(prob). */
double tilde_ess_quantile (const double *draws, gsize n_chains, gsize n_draws, double prob);
/* Split-ESS of the draws themselves: posterior's ess_mean (= ess_basic). */
double tilde_ess_mean     (const double *draws, gsize n_chains, gsize n_draws);

/* sd / sqrt(ess_mean). */
double tilde_mcse_mean    (const double *draws, gsize n_chains, gsize n_draws);
/* Kenney and Keeping's variance of the variance, with the ESS of the
 * squared centred draws, carried to the sd by a first-order expansion. */
double tilde_mcse_sd      (const double *draws, gsize n_chains, gsize n_draws);

/* Mean and sample standard deviation (n - 1) of all draws. */
double tilde_draws_mean   (const double *draws, gsize n);
double tilde_draws_sd     (const double *draws, gsize n);
/* Quantile of all draws by Hyndman and Fan's definition 7 (R's default,
 * CmdStan's and posterior's): with the draws sorted, h = (n - 1) prob and
 * x[floor h] + (h - floor h) (x[ceil h] - x[floor h]). NaN if any draw is
 * NaN or n is 0. */
double tilde_draws_quantile  (const double *draws, gsize n, double prob);
void   tilde_draws_quantiles (const double *draws, gsize n,
                              const double *probs, gsize n_probs, double *out);

/* E-BFMI of one chain's energy__: mean squared successive difference over
 * the sample variance. NaN for fewer than 3 draws or a NaN energy. */
double tilde_ebfmi        (const double *energy, gsize n_draws);

/* Biased autocovariances (divided by n) of x at lags 0 .. n-1, by FFT. */
void   tilde_autocovariance (const double *x, gsize n, double *acov);

G_END_DECLS
