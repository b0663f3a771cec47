/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Euclidean metrics of Stan's HMC: the kinetic energy is
 * tau(p) = p' M^-1 p / 2 with M^-1 the inverse metric, which is the
 * identity (unit_e), a diagonal (diag_e) or a full symmetric positive
 * definite matrix (dense_e). Momenta are drawn from N(0, M).
 *
 * A metric owns its storage; nothing here allocates after creation.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

G_BEGIN_DECLS

typedef enum {
  TILDE_METRIC_UNIT,
  TILDE_METRIC_DIAG,
  TILDE_METRIC_DENSE,
} TildeMetricKind;

typedef struct {
  TildeMetricKind kind;
  gsize           n;
  double         *inverse;   /* diag: n values; dense: n x n, row-major; unit: n ones */
  double         *factor;    /* dense: lower L with L L' = inverse; else NULL */
  double         *draws;     /* dense: n standard normal draws */
} TildeMetric;

/* The identity metric of `kind` on n coordinates. */
TildeMetric *tilde_metric_new  (TildeMetricKind kind, gsize n);
void         tilde_metric_free (TildeMetric *metric);

/* Replaces the inverse metric (n values for diag, n x n for dense; unit
 * ignores it). FALSE, leaving the metric as it was, when a dense matrix
 * is not positive definite or a value is not finite and positive. */
gboolean     tilde_metric_set_inverse (TildeMetric *metric, const double *inverse);

/* p ~ N(0, M). */
void         tilde_metric_sample_momentum (TildeMetric *metric, gsl_rng *rng, double *p);
/* v = dtau/dp = M^-1 p. */
void         tilde_metric_velocity (const TildeMetric *metric, const double *p, double *v);
/* tau(p) given v = M^-1 p. */
double       tilde_metric_kinetic  (const TildeMetric *metric, const double *p, const double *v);

/* "unit_e", "diag_e", "dense_e" as CmdStan names them. */
const char  *tilde_metric_kind_name (TildeMetricKind kind);
/* The kind of "unit", "diag", "dense" or of CmdStan's names; FALSE for others. */
gboolean     tilde_metric_kind_parse (const char *text, TildeMetricKind *kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeMetric, tilde_metric_free)

G_END_DECLS
