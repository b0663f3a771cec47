/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The names of a program that analyses treat specially: data, transformed
 * data, parameters, functions, and the compiler's flags. Every list is a
 * new NULL-terminated array of interned names (free the array only).
 */
#pragma once

#include <glib.h>

#include "mir/mir.h"

G_BEGIN_DECLS

/* The data block's variables (input_vars). */
const char **mir_program_data_names             (const MirProgram *p);
/* Variables declared at the top level of prepare_data that are not data. */
const char **mir_program_transformed_data_names (const MirProgram *p);
/* The variables of the program's blocks declared @silent. */
const char **mir_program_silent_names           (const MirProgram *p);
/* The parameters block's variables. */
const char **mir_program_parameter_names        (const MirProgram *p);
/* Every output variable of a block. */
const char **mir_program_output_names           (const MirProgram *p, MirOutBlock block);
/* The functions of the functions block. */
const char **mir_program_function_names         (const MirProgram *p);
/* The arguments of a function. */
const char **mir_fun_def_arg_names              (const MirFunDef *f);
/* emit_transformed_parameters__ and emit_generated_quantities__, which the
 * generated code sets before generate_quantities runs. */
const char *const *mir_program_flag_names       (void);

/* Concatenation of NULL-terminated name lists (each may be NULL), without
 * repeats. */
const char **mir_names_concat                   (const char *const *a, const char *const *b,
                                                 const char *const *c);

G_END_DECLS
