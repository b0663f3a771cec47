/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Random number streams for chains. Each chain draws from a generator of
 * its own, keyed by the run's seed and the chain's id, so what a chain
 * draws depends on nothing else: not on the number of threads, nor on the
 * order in which chains happen to run.
 *
 * The generator is xoshiro256** behind GSL's gsl_rng interface, so the
 * model's _rng functions (which take a gsl_rng) draw from the chain's
 * stream too. Its 256-bit state is filled by splitmix64 from a hash of
 * the seed and the stream number.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

G_BEGIN_DECLS

/* A generator for stream `stream` of `seed`; free with gsl_rng_free. */
gsl_rng *tilde_rng_new_stream (guint64 seed, guint64 stream);

/* A standard normal draw. */
double   tilde_rng_normal (gsl_rng *rng);

/* The generator's type, for gsl_rng_alloc; gsl_rng_set (r, s) gives
 * stream 0 of seed s. */
const gsl_rng_type *tilde_rng_type (void);

G_END_DECLS
