/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-draws.h"
#include "infer/summary.h"

G_BEGIN_DECLS

#define TILDE_TYPE_WARNINGS_BANNER (tilde_warnings_banner_get_type ())

G_DECLARE_FINAL_TYPE (TildeWarningsBanner, tilde_warnings_banner, TILDE, WARNINGS_BANNER, GtkWidget)

typedef enum {
  TILDE_RUN_WARNING_DIVERGENCES,
  TILDE_RUN_WARNING_TREE_DEPTH,
  TILDE_RUN_WARNING_EBFMI,
  TILDE_RUN_WARNING_RHAT,
  TILDE_RUN_WARNING_ESS,
} TildeRunWarning;

/* The sampler's warnings after a run, each explained in one sentence with
 * a button that asks (::select-parameters, with the Stan CSV names) for
 * the parameters concerned to be plotted:
 *  - divergences: the two parameters whose draws at divergent transitions
 *    sit furthest from the others (in standard deviations), for a pairs
 *    plot;
 *  - tree depth: the parameters with the lowest bulk ESS;
 *  - E-BFMI: lp__ and the parameter with the lowest bulk ESS;
 *  - R-hat above 1.01 and ESS under 400: those parameters.
 * Hidden (revealed when there is anything to say) otherwise. */
GtkWidget   *tilde_warnings_banner_new         (void);
/* `draws` (may be NULL) gives the divergent draws. */
void         tilde_warnings_banner_set_summary (TildeWarningsBanner *self,
                                                const TildeSummary  *summary,
                                                TildeDraws          *draws);
guint        tilde_warnings_banner_get_n_warnings (TildeWarningsBanner *self);
gboolean     tilde_warnings_banner_has_warning    (TildeWarningsBanner *self,
                                                   TildeRunWarning      warning);
/* The sentence shown for a warning, NULL when it is not shown. */
const char  *tilde_warnings_banner_get_text       (TildeWarningsBanner *self,
                                                   TildeRunWarning      warning);
/* The Stan CSV names a warning's button selects. */
const char *const *tilde_warnings_banner_get_parameters (TildeWarningsBanner *self,
                                                         TildeRunWarning      warning);
/* Presses a warning's button. */
void         tilde_warnings_banner_activate    (TildeWarningsBanner *self,
                                                TildeRunWarning      warning);

G_END_DECLS
