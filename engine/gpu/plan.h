/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Which statements of log_prob run as OpenCL kernels and where each data
 * variable lives: the compiler's side of the GPU, worked out on the
 * transformed MIR alone (no device, no data).
 *
 * A statement runs on the device when it is one of the GLMs the kernels
 * cover — normal_id_glm, bernoulli_logit_glm, poisson_log_glm,
 * neg_binomial_2_log_glm, ordered_logistic_glm, categorical_logit_glm (with
 * a vector alpha and a matrix beta), or the density of a linear
 * predictor that is one (`y ~ normal(X * beta + alpha, sigma)`,
 * `bernoulli_logit`, `poisson_log`, `neg_binomial_2_log`) — with a real
 * alpha, sigma and phi, a vector beta and vector cut points, and a design
 * matrix X and outcome y that are data variables, X living on the device.
 * X lives there when it is annotated `@gpu`, or, with --use-opencl,
 * whenever such a statement uses it (the size threshold is applied once
 * the data are known). The outcome goes with its design matrix.
 *
 * A normal linear model over data (normal_id_glm, or normal of a linear
 * predictor) is the exception: the CPU evaluates it by its sufficient
 * statistics (runtime/normal-stats.c), K^2 multiply-adds a gradient and no
 * pass over X, which no kernel reading X can match. Its statement stays
 * on the CPU and its data on the host, whatever their annotations.
 *
 * A reduction of an elementwise expression over data vectors
 * (TildeGpuEwSite below) runs on the device when every vector it reads
 * lives there: annotated `@gpu`, or with --use-opencl (again with the
 * size threshold).
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"
#include "gpu/glm.h"
#include "gpu/elementwise.h"

G_BEGIN_DECLS

/* A GLM statement the kernels can run. */
typedef struct {
  TildeGpuGlmFamily family;
  const MirStmt    *stmt;      /* the `target +=` statement */
  const MirExpr    *call;      /* the density call */
  const MirExpr    *y, *x;     /* data variables */
  const MirExpr    *alpha;     /* NULL: no intercept */
  const MirExpr    *beta;
  const MirExpr    *sigma;     /* NORMAL_ID's sigma, NEG_BINOMIAL_2_LOG's phi */
  const MirExpr    *cuts;      /* ORDERED_LOGISTIC's cut points */
  gboolean          written_as_predictor;  /* normal (X * beta + alpha, sigma) and the like */
} TildeGpuSite;

/* Whether the `target +=` expression `e` is such a statement over data
 * variables y and x (their residency is not looked at). */
gboolean tilde_gpu_site_match (const MirExpr *e, TildeGpuSite *site);

/* A reduction of an elementwise expression the kernels can run
 * (plan-elementwise.c): a top-level `target += R(E)`, `c * R(E)` or
 * `-R(E)` with R sum, dot_self or log_sum_exp and c a literal, or
 * `y ~ normal(E, sigma)` (normal_lpdf, normal_lupdf) with y a data vector
 * and sigma a scalar; E is +, -, .*, ./, scalar * and /, unary minus and plus,
 * pow, fma and exp, log, log1p, expm1, square, sqrt, inv, inv_logit,
 * log1p_exp, log_inv_logit and abs, elementwise over data vectors
 * of one length, scalars (variables — parameters, transformed
 * parameters, locals, data —, their elements at int indices such as
 * theta[1], and int arithmetic of data such as N - 1) and literals. E reads a vector, and a scalar of it (or
 * sigma) is not data. */
typedef struct {
  TildeGpuEwProgram prog;
  const MirStmt    *stmt;
  const MirExpr    *call;       /* the reduction or the density */
  const MirExpr    *expr;       /* E */
  double            scale;      /* c */
  const MirExpr    *vectors[TILDE_GPU_EW_MAX_VECTORS];   /* data variables, as first read */
  const MirExpr    *scalars[TILDE_GPU_EW_MAX_SCALARS];   /* variables or elements, as first
                                                           * read */
  const MirExpr    *sigma;      /* the normal's */
} TildeGpuEwSite;

/* Whether the `target +=` expression `e` is such a statement (where its
 * vectors live is not looked at). */
gboolean tilde_gpu_ew_site_match (const MirExpr *e, TildeGpuEwSite *site);

typedef struct {
  const char         *name;       /* interned */
  const MirSizedType *type;
  gboolean            device;     /* lives on the device (with --use-opencl: when large enough) */
  gboolean            chosen;     /* chosen by --use-opencl rather than annotated */
  char               *reason;
} TildeGpuResidency;

typedef struct {
  GArray    *vars;      /* TildeGpuResidency, every data and transformed data variable */
  GArray    *sites;     /* TildeGpuSite whose x lives on the device */
  GArray    *ew_sites;  /* TildeGpuEwSite whose vectors all live on the device */
  GArray    *cpu_sites; /* TildeGpuSite: normal linear models kept on the CPU by their
                         * sufficient statistics */
} TildeGpuPlan;

/* Whether normal linear models stay on the CPU, by their sufficient
 * statistics (TRUE, the default). Tests of the normal kernel turn it off;
 * the runtime then moves them to the device as the other families. */
void          tilde_gpu_plan_set_normal_on_cpu (gboolean on);

/* The plan for a transformed program, which must outlive it. */
TildeGpuPlan *tilde_gpu_plan_new  (const MirProgram *program, gboolean use_opencl);
void          tilde_gpu_plan_free (TildeGpuPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeGpuPlan, tilde_gpu_plan_free)

/* Whether the program annotates any variable `@gpu`. */
gboolean      tilde_gpu_program_has_annotations (const MirProgram *program);

/* Whether the data or transformed data variable `name` is annotated `@gpu`. */
gboolean      tilde_gpu_variable_is_annotated (const MirProgram *program,
                                               const char       *name);

/* One `<type> <name>: device|host  // why` line per data variable. */
char         *tilde_gpu_plan_report (const TildeGpuPlan *plan);

/* The number of columns of `site`'s design matrix when its declaration
 * gives it as a literal; -1 when only the data will say. */
gint32        tilde_gpu_plan_site_columns (const TildeGpuPlan *plan, const TildeGpuSite *site);

/* What --debug-opencl prints for the kernel of `site` (its source preceded
 * by `// OpenCL kernel for <family> (K = <K>)`), made without a device for
 * work-groups of `wg` items. When the declaration leaves K to the data, the
 * source is tilde_gpu_glm_source_for_data()'s and the first line says so. */
char         *tilde_gpu_plan_site_kernel (const TildeGpuPlan *plan, const TildeGpuSite *site,
                                          guint wg);

/* What builds and error messages call the kernel of `site`
 * ("sum of an elementwise expression (line 12)"). */
char         *tilde_gpu_plan_ew_what (const TildeGpuEwSite *site);
/* What --debug-opencl prints for it: `// OpenCL kernel for <what>` and
 * the source, for work-groups of `wg` items. */
char         *tilde_gpu_plan_ew_kernel (const TildeGpuPlan *plan, const TildeGpuEwSite *site,
                                        guint wg);

/* With --use-opencl, a design matrix (or a vector of an elementwise
 * statement) smaller than this many elements stays on the host: copying
 * and launching would cost more than they save. */
#define TILDE_GPU_AUTO_MIN_ELEMENTS 10000

G_END_DECLS
