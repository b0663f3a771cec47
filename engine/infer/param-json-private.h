/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A model's constrained parameter values written back as CmdStan JSON, as
 * an init file gives them, so that the model's own transform_inits can
 * unconstrain them: the starting points of init.c (random draws merged
 * with a partial init file) and the draws that generate.c reads from a
 * Stan CSV file. */
#pragma once

#include <glib.h>

#include "runtime/model.h"

G_BEGIN_DECLS

typedef struct TildeParamJson TildeParamJson;

/* The parameter variables of `model` with their shapes, from its column
 * names (arrays, vectors, matrices, complex values and tuples); NULL when
 * a name cannot be rebuilt into JSON. */
TildeParamJson *_tilde_param_json_new       (TildeModel *model);
void            _tilde_param_json_free      (TildeParamJson *pj);
guint           _tilde_param_json_n_vars    (const TildeParamJson *pj);
const char     *_tilde_param_json_var_name  (const TildeParamJson *pj, guint var);
/* `"name":value` of variable `var`, whose elements are taken from
 * `constrained` (the model's constrained parameters, in CSV order). */
void            _tilde_param_json_append    (const TildeParamJson *pj, guint var,
                                             const double *constrained, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeParamJson, _tilde_param_json_free)

G_END_DECLS
