/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Copies of unsaved models in the user's cache folder
 * ($XDG_CACHE_HOME/tilde/autosave), so that a crash loses nothing: each
 * window writes its buffer there a few seconds after a change and removes
 * the copy once the model is saved or the window is closed on purpose. A
 * copy whose process is no longer running is an orphan, offered for
 * restoring at the next start.
 *
 * A copy is named after the window's id: `<id>.stan` (the model's text),
 * `<id>.json` (the text of its data, only while they have unsaved
 * changes) and `<id>.info` (a key file: the model's file, whether the model
 * itself had changes, the data's file, the title, the process and boot
 * that wrote it, when). All file work runs on one helper thread, in the
 * order it was asked for, so a removal never overtakes a write.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  char     *id;
  GFile    *file;      /* the model's own file; NULL for an untitled model */
  char     *title;     /* what the window called it */
  char     *text;
  gboolean  modified;  /* whether `text` has changes its file has not */
  GFile    *data_file; /* the data's file; NULL for none or data never saved */
  char     *data_text; /* the data, when they have unsaved changes; else NULL */
  gint64    saved;     /* when the copy was written, microseconds since 1970 */
} TildeAutosave;

void        tilde_autosave_free        (TildeAutosave *autosave);

/* The folder of the copies (a new string). */
char       *tilde_autosave_directory   (void);
/* A new id for a window's copies. */
char       *tilde_autosave_new_id      (void);

/* Writes (replaces) the copy `copy->id` (`saved` is set there and then).
 * `file`, `data_file` and `data_text` may be NULL. */
void        tilde_autosave_write_async (const TildeAutosave *copy,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
gboolean    tilde_autosave_write_finish (GAsyncResult  *result,
                                         GError       **error);
/* Removes the copy `id`, if there is one; nothing is reported. */
void        tilde_autosave_remove      (const char *id);

/* The orphaned copies, newest first: a GPtrArray of TildeAutosave. */
void        tilde_autosave_find_orphans_async  (GAsyncReadyCallback callback,
                                                gpointer            user_data);
GPtrArray  *tilde_autosave_find_orphans_finish (GAsyncResult  *result,
                                                GError       **error);

/* Waits until the helper thread has done everything asked of it. */
void        tilde_autosave_flush       (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeAutosave, tilde_autosave_free)

G_END_DECLS
