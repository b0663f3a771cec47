/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lowering of a type-checked Stan program to the MIR, as the Stan compiler's
 * Ast_to_Mir does it:
 *
 * - operators become calls of their library functions (Plus__, PMinus__,
 *   Transpose__, ...), except && and || which stay short-circuit nodes;
 *   array, row-vector and tuple expressions become FnMakeArray__,
 *   FnMakeRowVec__ and FnMakeTuple__; [:e] becomes [1:e];
 * - an argument (or assigned value) whose type differs from the one the
 *   chosen signature (or the assignee) has is wrapped in a Promotion;
 * - `y ~ foo(...)` becomes `target += foo_lupdf(y, ...)` (or _lupmf), its
 *   truncation the guarded `target +=` of the _lcdf/_lccdf terms, each
 *   marked as coming from `~`; every `target +=` marked as a prior or a
 *   likelihood term (mir-terms.h);
 * - declarations become Decl statements preceded by FnValidateSize__ checks
 *   of their sizes and followed by FnCheck__ of their constraints (data,
 *   transformed data, transformed parameters, generated quantities); the
 *   sizes of parameters, transformed parameters and generated quantities
 *   are validated at the end of prepare_data;
 * - foreach loops become counted loops over FnLength__ (rows() for
 *   matrices) with the element assigned to the loop variable;
 * - log_prob holds the parameter declarations, the transformed parameters
 *   and the model block; generate_quantities the parameters again (as
 *   data), the transformed parameters and generated quantities behind the
 *   emit_transformed_parameters__ / emit_generated_quantities__ early
 *   returns; output_vars the constrained and unconstrained shapes.
 *
 * Forward declarations that have a definition are dropped; the others
 * (external functions) stay as functions without a body. Annotations are
 * kept on functions, declarations and input variables.
 */
#pragma once

#include <glib.h>

#include "syntax/ast.h"
#include "mir/mir.h"

G_BEGIN_DECLS

/* The MIR of `typed`, which must have parsed and type-checked without
 * errors; NULL when it holds anything untyped. The model name is stanc's
 * default ("<file>_model", made a valid identifier). The result keeps a
 * reference to the program's sources, not to the tree. */
MirProgram *mir_lower_program      (const TildeProgram *typed);
/* The same with an explicit model name (NULL: the default). */
MirProgram *mir_lower_program_full (const TildeProgram *typed, const char *model_name);

G_END_DECLS
