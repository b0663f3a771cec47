/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What `tilde compile --info` prints: a typed program's variables by block, the
 * library functions and distributions it uses, and its included files, as the
 * JSON object stanc's --info writes. */
#pragma once

#include <glib.h>

#include "syntax/ast.h"

G_BEGIN_DECLS

/* PROGRAM must have been type-checked without errors. */
char *tilde_program_info_json (const TildeProgram *program);

G_END_DECLS
