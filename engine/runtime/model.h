/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An executable model: a transformed MIR program prepared once with its
 * data, then evaluated as often as a sampler needs.
 *
 * Preparation runs prepare_data with the data, resolves every function the
 * model calls (a function the runtime lacks fails here, naming it), and
 * compiles log_prob, generate_quantities and transform_inits into trees of
 * closures over typed slots, with data-only subexpressions computed once.
 *
 * Evaluating the log density records the model on a reverse-mode tape and
 * sweeps it back for the gradient. Each thread that evaluates gets its own
 * workspace (tape, arena, slots) from a pool, so chains may call the same
 * model concurrently; in steady state an evaluation allocates nothing.
 *
 * Errors while running (a domain error such as a negative scale, an index
 * out of range, reject()) are values: the call returns FALSE and sets
 * `*error`, and the model stays usable.
 */
#pragma once

#include <glib.h>
#include <gsl/gsl_rng.h>

#include "tilde-diagnostic.h"
#include "mir/mir.h"
#include "io/json-data.h"

G_BEGIN_DECLS

typedef enum {
  TILDE_MODEL_ERROR_DOMAIN,      /* recoverable: the sampler rejects the proposal */
  TILDE_MODEL_ERROR_INDEX,       /* index out of range, size mismatch */
  TILDE_MODEL_ERROR_REJECT,      /* reject() */
  TILDE_MODEL_ERROR_FATAL,       /* fatal_error(), or a tape that ran out of room */
  TILDE_MODEL_ERROR_DATA,        /* data or inits that do not fit the model */
} TildeModelErrorKind;

typedef struct {
  TildeModelErrorKind kind;
  char               *message;
  /* Where, as stanc's C++ says it: " (in 'm.stan', line 5, column 2 to
   * column 22)" for the statement that failed, then one more for each
   * user-function call that led there, innermost first; NULL when the
   * error has no statement (a size read from data, say). */
  char               *where;
  guint               n_places;    /* how many "(in ...)" where holds */
  /* The failing statement, for an editor: lines from 1, columns from 0;
   * begin_line 0 when unknown. */
  char               *file;
  int                 begin_line, begin_column, end_line, end_column;
} TildeModelError;

void tilde_model_error_free (TildeModelError *error);
TildeModelError *tilde_model_error_copy (const TildeModelError *error);
/* The error as CmdStan prints it: "Exception: " for each place, the
 * message, then the places; the bare message when there is none. */
char *tilde_model_error_describe (const TildeModelError *error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeModelError, tilde_model_error_free)

typedef struct TildeModel TildeModel;

/* Receives the output of one print() statement (without the newline
 * CmdStan ends it with). It runs on the thread that evaluates; calls from
 * one model are serialised, so it need not be reentrant for that model.
 * The default writes the text and a newline to standard output, where
 * CmdStan's console output puts it. */
typedef void (*TildeModelPrintFunc) (const char *text, gpointer user_data);

/* Prepares `program` (lowered MIR; it is transformed here when it is not
 * yet) with `data` (may be NULL for a model without data). On failure
 * returns NULL and appends diagnostics to `diagnostics`: TILDE_DIAG_DATA
 * for data that do not fit (missing, wrong shape or type, constraint
 * violated), TILDE_DIAG_RUNTIME for a function the runtime lacks or an
 * error while preparing the data. The program is copied. */
TildeModel *tilde_model_new   (const MirProgram    *program,
                               const TildeJsonData *data,
                               GPtrArray           *diagnostics);
/* The same, with the print() statements of the transformed data going to
 * `print_func` (NULL: standard output), which the model then keeps. */
TildeModel *tilde_model_new_full (const MirProgram    *program,
                                  const TildeJsonData *data,
                                  TildeModelPrintFunc  print_func,
                                  gpointer             print_data,
                                  GPtrArray           *diagnostics);
/* The same, with the random numbers of the transformed data (its _rng
 * calls) drawn from `rng`, which is used only while preparing. NULL gives
 * the runtime's own generator with seed 0, which tilde_model_new and
 * tilde_model_new_full use, so that such data are the same every time; a
 * run passes a stream of its seed, as CmdStan seeds the model it builds. */
TildeModel *tilde_model_new_with_rng (const MirProgram    *program,
                                      const TildeJsonData *data,
                                      gsl_rng             *rng,
                                      TildeModelPrintFunc  print_func,
                                      gpointer             print_data,
                                      GPtrArray           *diagnostics);
/* Where the print() statements of later evaluations go (NULL: standard
 * output). Set it before evaluating, not while another thread evaluates. */
void        tilde_model_set_print_func (TildeModel *model, TildeModelPrintFunc func,
                                        gpointer user_data);
void        tilde_model_free  (TildeModel *model);

/* What is wrong with one variable of the data. */
typedef enum {
  TILDE_DATA_PROBLEM_MISSING,  /* the data have no such variable */
  TILDE_DATA_PROBLEM_VALUE,    /* its value does not fit: shape, type, size, constraint */
  TILDE_DATA_PROBLEM_MODEL,    /* the data block itself cannot be evaluated */
} TildeDataProblemKind;

typedef struct {
  TildeDataProblemKind kind;
  const char          *name;     /* the variable (interned); NULL for MODEL */
  char                *message;
} TildeDataProblem;

void tilde_data_problem_free (TildeDataProblem *problem);

/* Reads `data` (may be NULL: no variables) against the data block of
 * `program` with the statements tilde_model_new runs for it: sizes
 * evaluated from earlier data, every variable read against its shape,
 * then its constraints checked. Unlike preparation it goes on after a
 * problem, so every variable gets its own; a variable whose sizes or
 * bounds use one that has a problem is not judged. Transformed data is
 * not run. Returns TildeDataProblem*, in the order of the data block
 * (empty when the data fit); the array frees them. */
GPtrArray  *tilde_model_check_data (const MirProgram    *program,
                                    const TildeJsonData *data);

/* Number of unconstrained parameters. */
gsize       tilde_model_num_params_unconstrained (const TildeModel *model);
/* Number of values tilde_model_constrain writes with these flags. */
gsize       tilde_model_num_outputs (const TildeModel *model, gboolean transformed_parameters,
                                     gboolean generated_quantities);
/* Stan CSV names ("theta.1", "L.2.1"): parameters, then (optionally)
 * transformed parameters and generated quantities. NULL-terminated, owned
 * by the model. */
const char *const *tilde_model_output_names (const TildeModel *model,
                                             gboolean transformed_parameters,
                                             gboolean generated_quantities);
/* The names of the unconstrained coordinates, in the order of `theta`
 * ("tau", "L.1", "L.2" for a Cholesky factor's free elements). */
const char *const *tilde_model_unconstrained_names (const TildeModel *model);

/* The log density at `theta_unconstrained`; with `propto` the constants
 * dropped by `~` statements are left out, with `jacobian` the log
 * Jacobians of the constraining transforms are added. `gradient` (may be
 * NULL) receives d/d theta. When the model raises an error the result is
 * NaN and `error` (may be NULL) is set; the gradient is then left alone. */
double      tilde_model_log_density (TildeModel       *model,
                                     const double     *theta_unconstrained,
                                     gboolean          propto,
                                     gboolean          jacobian,
                                     double           *gradient,
                                     TildeModelError **error);

/* Which terms of the target tilde_model_log_density sums: all of them
 * (JOINT, the default), the prior's (PRIOR: terms whose variate depends on
 * parameters, `target +=` without a density, and the log Jacobians), or
 * the likelihood's (LIKELIHOOD: terms whose variate is data). mir-terms.h
 * says how a term is classified. Terms that do not count are not
 * evaluated. Set it before evaluating, not while another thread
 * evaluates. */
typedef enum {
  TILDE_MODEL_CONTEXT_JOINT,
  TILDE_MODEL_CONTEXT_PRIOR,
  TILDE_MODEL_CONTEXT_LIKELIHOOD,
} TildeModelContext;

void        tilde_model_set_context (TildeModel *model, TildeModelContext context);

/* Constrained parameters, then transformed parameters and generated
 * quantities when asked, in Stan CSV order, into `out`
 * (tilde_model_num_outputs values). `rng` is needed for generated
 * quantities that draw. */
gboolean    tilde_model_constrain (TildeModel       *model,
                                   const double     *theta_unconstrained,
                                   gboolean          transformed_parameters,
                                   gboolean          generated_quantities,
                                   gsl_rng          *rng,
                                   double           *out,
                                   TildeModelError **error);

/* The unconstrained vector of the constrained parameter values in `inits`
 * (CmdStan JSON, by name). */
gboolean    tilde_model_unconstrain (TildeModel          *model,
                                     const TildeJsonData *inits,
                                     double              *theta_unconstrained,
                                     TildeModelError    **error);
/* The same for values printed with `digits` significant digits (a Stan CSV
 * file's draws): a simplex, zero-sum or unit vector (or matrix) that misses
 * its constraint by no more than that rounding is taken as the nearest
 * value that meets it. */
gboolean    tilde_model_unconstrain_rounded (TildeModel          *model,
                                             const TildeJsonData *inits,
                                             int                  digits,
                                             double              *theta_unconstrained,
                                             TildeModelError    **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeModel, tilde_model_free)

G_END_DECLS
