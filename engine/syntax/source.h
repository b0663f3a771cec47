/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The texts a model is made of: the main file (from disk or an editor buffer)
 * and everything it pulls in with #include.
 *
 * Includes follow stanc: `#include "f"`, `#include <f>` and `#include f` look
 * for `f` in each include path in turn, as the literal string
 * "<path>/<f>" (which is also the name diagnostics print). The directory of
 * the including file is not searched unless it is one of the include paths;
 * the editor can opt in to searching it first. Virtual files registered with
 * tilde_source_set_add_virtual_file() are found before the disk is consulted.
 *
 * Each inclusion is its own TildeSourceFile, so a file included twice has two
 * records that remember where each was included from; their text is shared.
 * A set is reference counted because syntax trees point into it.
 */
#pragma once

#include <glib.h>

#include "tilde-diagnostic.h"

G_BEGIN_DECLS

typedef struct TildeSourceSet TildeSourceSet;
typedef struct TildeSourceFile TildeSourceFile;

struct TildeSourceFile {
  const char            *name;           /* as diagnostics print it */
  const char            *directory;      /* for the opt-in own-directory search; may be NULL */
  const char            *text;           /* NUL-terminated */
  gsize                  length;
  const TildeSourceFile *included_from;  /* NULL for the main file */
  int                    include_line;   /* where the directive is in included_from */
  int                    include_column;
  gsize                  root_offset;    /* offset in the main file of the outermost directive */
  int                    depth;          /* 0 for the main file */
};

/* A stretch of source text. Lines count from 1 and columns (bytes) from 0,
 * like stanc; `end` is just past the last character. A span that starts and
 * ends in different inclusions keeps both files. */
typedef struct {
  const TildeSourceFile *file;
  const TildeSourceFile *end_file;
  int                    begin_line;
  int                    begin_column;
  int                    end_line;
  int                    end_column;
  guint                  begin_offset;   /* byte offsets in file->text / end_file->text */
  guint                  end_offset;
} TildeSpan;

/* The span from the start of a to the end of b. */
TildeSpan              tilde_span_join (const TildeSpan *a, const TildeSpan *b);
/* An offset in the main file that orders spans across inclusions. */
gsize                  tilde_span_root_offset (const TildeSpan *span);

typedef enum {
  TILDE_INCLUDE_FOUND,
  TILDE_INCLUDE_NOT_FOUND,
  TILDE_INCLUDE_RECURSIVE,
  TILDE_INCLUDE_TOO_DEEP,
} TildeIncludeStatus;

TildeSourceSet        *tilde_source_set_new        (void);
TildeSourceSet        *tilde_source_set_ref        (TildeSourceSet *set);
void                   tilde_source_set_unref      (TildeSourceSet *set);

void                   tilde_source_set_add_include_path (TildeSourceSet *set, const char *path);
/* Search the including file's own directory before the include paths. */
void                   tilde_source_set_set_search_own_directory (TildeSourceSet *set,
                                                                  gboolean        search);
/* An include target held in memory, found under `name` exactly or under
 * "<include path>/<name>". */
void                   tilde_source_set_add_virtual_file (TildeSourceSet *set,
                                                          const char     *name,
                                                          const char     *text);

/* The main file, read from disk; its name is `path` as given. */
const TildeSourceFile *tilde_source_set_load_main  (TildeSourceSet *set,
                                                    const char     *path,
                                                    GError        **error);
/* The main file from an editor buffer. `directory` (may be NULL) is only used
 * by the own-directory search. len -1 means NUL-terminated. */
const TildeSourceFile *tilde_source_set_set_main_buffer (TildeSourceSet *set,
                                                         const char     *display_name,
                                                         const char     *directory,
                                                         const char     *text,
                                                         gssize          len);
const TildeSourceFile *tilde_source_set_get_main   (TildeSourceSet *set);

/* Resolves an #include directive found in `from` at line/column (the `#`).
 * On TILDE_INCLUDE_FOUND *out is the new inclusion; otherwise *message is
 * stanc's explanation (free it). */
TildeIncludeStatus     tilde_source_set_open_include (TildeSourceSet        *set,
                                                      const TildeSourceFile *from,
                                                      int                    line,
                                                      int                    column,
                                                      gsize                  offset,
                                                      const char            *target,
                                                      const TildeSourceFile **out,
                                                      char                 **message);

/* The text of a file by the name diagnostics print, or NULL. */
const char            *tilde_source_set_lookup_text (TildeSourceSet *set, const char *name);
/* Every inclusion opened so far, main file first. */
guint                  tilde_source_set_get_n_files (TildeSourceSet *set);
const TildeSourceFile *tilde_source_set_get_file    (TildeSourceSet *set, guint index);

/* Appends the "included from" chain of `file` to `diag`, innermost first. */
void                   tilde_source_file_add_include_frames (const TildeSourceFile *file,
                                                             TildeDiagnostic       *diag);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeSourceSet, tilde_source_set_unref)

G_END_DECLS
