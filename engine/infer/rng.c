/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "infer/rng.h"

#include <limits.h>

#include <gsl/gsl_randist.h>

typedef struct {
  guint64 s[4];
} Xoshiro;

static guint64
splitmix64_next (guint64 *x)
{
  guint64 z = (*x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static inline guint64
rotl (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static inline guint64
xoshiro_next (Xoshiro *x)
{
  guint64 *s = x->s;
  guint64 result = rotl (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

/* Seed and stream are hashed separately and combined, so that nearby
 * seeds and nearby chain ids give unrelated states. */
static void
xoshiro_seed (Xoshiro *x, guint64 seed, guint64 stream)
{
  guint64 a = seed, b = stream ^ G_GUINT64_CONSTANT (0x6a09e667f3bcc909);
  guint64 key = splitmix64_next (&a) ^ rotl (splitmix64_next (&b), 32);
  for (int i = 0; i < 4; i++)
    x->s[i] = splitmix64_next (&key);
  if ((x->s[0] | x->s[1] | x->s[2] | x->s[3]) == 0)
    x->s[0] = 1;   /* the one state xoshiro cannot leave */
}

static void
type_set (void *state, unsigned long seed)
{
  xoshiro_seed (state, seed, 0);
}

/* The top bits are the generator's best. */
static unsigned long
type_get (void *state)
{
  return (unsigned long) (xoshiro_next (state) >> (64 - CHAR_BIT * sizeof (unsigned long)));
}

static double
type_get_double (void *state)
{
  return (double) (xoshiro_next (state) >> 11) * 0x1.0p-53;
}

static const gsl_rng_type xoshiro_type = {
  "tilde-xoshiro256**",
  ULONG_MAX,
  0,
  sizeof (Xoshiro),
  type_set,
  type_get,
  type_get_double,
};

const gsl_rng_type *
tilde_rng_type (void)
{
  return &xoshiro_type;
}

gsl_rng *
tilde_rng_new_stream (guint64 seed, guint64 stream)
{
  gsl_rng *r = gsl_rng_alloc (&xoshiro_type);
  xoshiro_seed (r->state, seed, stream);
  return r;
}

double
tilde_rng_normal (gsl_rng *rng)
{
  return gsl_ran_gaussian_ziggurat (rng, 1.0);
}
