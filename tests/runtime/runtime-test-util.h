/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the runtime tests: models from source text or files. */
#pragma once

#include <glib.h>

#include "runtime/model.h"
#include "mir/passes/passes.h"

G_BEGIN_DECLS

/* The lowered MIR of a model's source; fails the test on errors. */
MirProgram *rt_test_mir_from_string (const char *source);
MirProgram *rt_test_mir_from_file   (const char *path);
/* A prepared model; data may be NULL. Fails the test when preparation does. */
TildeModel *rt_test_model (const char *source, const char *data_json);
/* The same, optimised at `level` first. */
TildeModel *rt_test_model_at (const char *source, const char *data_json, MirOptLevel level);
/* Preparation's diagnostics (the model, if any, is freed); a new list. */
GPtrArray  *rt_test_prepare_errors (const char *source, const char *data_json);
/* |a - b| <= tol * max (1, |a|, |b|) */
gboolean    rt_test_close (double a, double b, double tol);

G_END_DECLS
