/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The "transformed MIR": what the Stan compiler's backend preparation
 * (stan_math_backend/Transform_Mir) makes explicit before code generation.
 *
 * - prepare_data: every data variable is read right after its declaration,
 *   `N = FnReadData__("N")[1];` for scalars, `y = FnReadData__("y");` for
 *   the rest; its size checks (FnValidateSize__) come before and its
 *   constraint checks (FnCheck__) after, as lowering put them.
 * - log_prob: every parameter is declared with its read,
 *   `real tau = (FnReadParam(constrain(Lower 0))(dims())(mem_pattern AoS))__();`:
 *   the unconstrained value is read and constrained, and when the Jacobian is
 *   requested the log absolute determinant of the transform is added to the
 *   target (stanc's read_constrain with its jacobian flag).
 * - generate_quantities: parameters are read (as data, without Jacobian)
 *   and written out with FnWriteParam__; transformed parameters are written
 *   after their checks when emit_transformed_parameters__ is set, generated
 *   quantities at the end.
 * - transform_inits: for each parameter, its declaration, the read of the
 *   constrained initial value and its write through the inverse transform,
 *   (FnWriteParam(unconstrain_opt(<transform>))(var x))__().
 * - the bodies of if, while and for statements are always blocks.
 *
 * Every node created carries the span of the declaration it serves.
 */
#pragma once

#include "mir/mir.h"

G_BEGIN_DECLS

/* A new program; `program` is not modified. Applying it to a program that
 * is already transformed returns a copy. */
MirProgram *mir_transform_program (const MirProgram *program);

G_END_DECLS
