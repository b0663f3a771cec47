/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The Stan front end in one call: read (or take from an editor buffer),
 * preprocess includes, parse and type-check a model, and hand back the typed
 * tree with every diagnostic. The CLI, the editor, fuzzers and benchmarks
 * all come in here.
 *
 * A result is immutable and reference counted, so it may be handed to
 * another thread. When the parser reported an error the program is not
 * type-checked and the result holds no program; the diagnostics say why.
 */
#pragma once

#include <glib.h>

#include "tilde-diagnostic.h"
#include "syntax/ast.h"
#include "syntax/source.h"

G_BEGIN_DECLS

typedef struct {
  const char *const *include_paths;   /* NULL-terminated; may be NULL */
  gboolean search_own_directory;      /* look next to the including file first */
  gboolean allow_undefined;           /* forward declarations need no definition */
  gboolean functions_only;            /* a .stanfunctions file */
  gboolean pedantic;                  /* --warn-pedantic */
  gboolean warn_uninitialized;        /* --warn-uninitialized (implied by pedantic) */
} TildeFrontendOptions;

typedef struct TildeCheckResult TildeCheckResult;

/* Reads `path`; `error` is set (and NULL returned) only when it cannot be
 * read. A name ending in ".stanfunctions" implies functions_only. `opts` may
 * be NULL. */
TildeCheckResult *tilde_frontend_check_file   (const char                 *path,
                                               const TildeFrontendOptions *opts,
                                               GError                    **error);
/* `display_name` is what diagnostics call the buffer; `directory` (may be
 * NULL) is where its own includes are looked for when opts ask for it. len
 * -1: NUL-terminated. */
TildeCheckResult *tilde_frontend_check_buffer (const char                 *display_name,
                                               const char                 *directory,
                                               const char                 *text,
                                               gssize                      len,
                                               const TildeFrontendOptions *opts);

TildeCheckResult *tilde_check_result_ref   (TildeCheckResult *result);
void              tilde_check_result_unref (TildeCheckResult *result);

/* The typed program, or NULL when it did not parse. Owned by the result. */
TildeProgram     *tilde_check_result_get_program     (TildeCheckResult *result);
/* Every diagnostic (TildeDiagnostic*): lexing, include, parsing, semantic
 * errors and warnings, in the order found. Owned by the result. */
GPtrArray        *tilde_check_result_get_diagnostics (TildeCheckResult *result);
TildeSourceSet   *tilde_check_result_get_sources     (TildeCheckResult *result);
gboolean          tilde_check_result_has_errors      (TildeCheckResult *result);
/* The first error, or NULL. */
const TildeDiagnostic *tilde_check_result_get_first_error (TildeCheckResult *result);

/* The first error as stanc prints it (with its excerpt), or NULL when there
 * is none. */
char             *tilde_check_result_render_first_error (TildeCheckResult *result);
/* Every diagnostic in stanc's format, one after the other ("" when none). */
char             *tilde_check_result_render_all         (TildeCheckResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeCheckResult, tilde_check_result_unref)

G_END_DECLS
