/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A chain's starting point, found as CmdStan finds it
 * (stan::services::util::initialize): parameters not given in an init
 * file are drawn uniformly in (-R, R) on the unconstrained scale (R = 2;
 * R = 0 puts them all at zero), given ones are read by name on the
 * constrained scale and unconstrained by the model. A point whose log
 * density or gradient is not finite, or where the model raises a domain
 * error, is rejected and another drawn, up to 100 times (once when
 * nothing is random). Every rejection and the final failure are reported
 * in CmdStan's words.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

#include "runtime/model.h"

G_BEGIN_DECLS

/* Constrained initial values by name (CmdStan JSON), read once and then
 * shared, read-only, by every chain. */
typedef struct TildeInits TildeInits;

TildeInits *tilde_inits_new_from_file   (const char *path, GError **error);
TildeInits *tilde_inits_new_from_string (const char *text, GError **error);
void        tilde_inits_free            (TildeInits *inits);

/* One line of CmdStan's informational output. */
typedef void (*TildeInitMessageFunc) (const char *line, gpointer user_data);

/* Writes the starting point into `theta` (unconstrained), with its log
 * density (propto, with the Jacobian) into *lp and gradient into
 * `gradient`. `inits` may be NULL. On failure returns FALSE and sets
 * `problem` ("Initialization failed." or the model's unrecoverable
 * error); the reasons went to `message` line by line. */
gboolean    tilde_init_find (TildeModel           *model,
                             const TildeInits     *inits,
                             double                radius,
                             gsl_rng              *rng,
                             double               *theta,
                             double               *lp,
                             double               *gradient,
                             TildeInitMessageFunc  message,
                             gpointer              user_data,
                             char                **problem);

/* How the starting point is judged. Sampling's (the defaults): the
 * density with the Jacobian, and CmdStan's lines on the time a gradient
 * took. Optimisation's: without the Jacobian (the objective as CmdStan's
 * optimize method starts it) and without the timing lines. */
typedef struct {
  gboolean jacobian;
  gboolean report_timing;
  /* Where the unrecoverable error that ended the search goes (its place
   * included), when not NULL; left NULL otherwise. */
  TildeModelError **fatal;
  /* Optional: told of each starting point the model's error rejected. */
  void (*rejected) (const TildeModelError *error, gpointer user_data);
  gpointer rejected_data;
} TildeInitOptions;

void        tilde_init_options_init (TildeInitOptions *options);

/* tilde_init_find with `options`; *lp is then the density up to a
 * constant with the Jacobian only when options->jacobian. */
gboolean    tilde_init_find_with (TildeModel             *model,
                                  const TildeInits       *inits,
                                  double                  radius,
                                  gsl_rng                *rng,
                                  const TildeInitOptions *options,
                                  double                 *theta,
                                  double                 *lp,
                                  double                 *gradient,
                                  TildeInitMessageFunc    message,
                                  gpointer                user_data,
                                  char                  **problem);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeInits, tilde_inits_free)

G_END_DECLS
