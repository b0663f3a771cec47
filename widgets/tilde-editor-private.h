/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the widgets of this folder and their tests. */
#pragma once

#include "tilde-completion-provider.h"
#include "tilde-editor.h"
#include "worker/worker.h"

G_BEGIN_DECLS

TildeWorker             *_tilde_editor_get_worker              (TildeEditor *self);
TildeCompletionProvider *_tilde_editor_get_completion_provider (TildeEditor *self);
/* The generation of the check whose result the editor shows (0: none). */
guint64                  _tilde_editor_get_shown_generation    (TildeEditor *self);
/* The check whose result the editor shows (NULL: none yet); the data
 * panel checks data against it. */
TildeCheckResult        *_tilde_editor_get_shown_check         (TildeEditor *self);

/* A job input holding the buffer as it is now, with the editor's file and
 * options, for other views of the same model (the IR viewer). */
TildeJobInput           *_tilde_editor_new_job_input           (TildeEditor *self);

G_END_DECLS
