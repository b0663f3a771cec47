/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-editor.h"

G_BEGIN_DECLS

#define TILDE_TYPE_IR_VIEW (tilde_ir_view_get_type ())

G_DECLARE_FINAL_TYPE (TildeIrView, tilde_ir_view, TILDE, IR_VIEW, GtkWidget)

/* The sides of the side-by-side view. */
typedef enum {
  TILDE_IR_SIDE_LEFT,
  TILDE_IR_SIDE_RIGHT,
} TildeIrSide;

/* What the compiler makes of the model in :editor, side by side with a
 * line diff: two stages of the compiler (:left-stage, :right-stage, by
 * default the transformed and the optimized MIR), or the program before
 * and after one pass of the pipeline at :level (O0, O1, Oexperimental),
 * chosen in the pass list. The last stage, OpenCL, is what a device would
 * run: where the data live (`tilde compile --debug-mem-patterns`) and the
 * generated source of each kernel (`--debug-opencl`), or one line that says
 * why no statement runs there; with :use-opencl, large design matrices of
 * GLM statements count as on the device without @gpu (as --use-opencl). The model is compiled on the editor's engine
 * thread a moment after the last edit, while the view is shown. When the
 * model has errors the last output that compiled stays, dimmed, under a
 * banner.
 *
 * Clicking a line selects the source it came from in the editor; moving
 * the editor's cursor highlights the lines that came from its line. */
GtkWidget   *tilde_ir_view_new            (void);
TildeEditor *tilde_ir_view_get_editor     (TildeIrView *self);
void         tilde_ir_view_set_editor     (TildeIrView *self,
                                           TildeEditor *editor);
/* 0: O0, 1: O1, 2: Oexperimental (MirOptLevel). */
guint        tilde_ir_view_get_level      (TildeIrView *self);
void         tilde_ir_view_set_level      (TildeIrView *self,
                                           guint        level);
gboolean     tilde_ir_view_get_use_opencl (TildeIrView *self);
void         tilde_ir_view_set_use_opencl (TildeIrView *self,
                                           gboolean     use_opencl);
/* Which pipeline step is shown (an index into the steps of the shown
 * output), or -1 for the two stages. */
int          tilde_ir_view_get_step       (TildeIrView *self);
void         tilde_ir_view_select_step    (TildeIrView *self,
                                           int          step);
/* Moves the pass list's selection by `delta` rows (unchanged passes skipped
 * while they are hidden); FALSE at either end. */
gboolean     tilde_ir_view_step_by        (TildeIrView *self,
                                           int          delta);
/* The text one side shows, without the rows that stand for lines of the
 * other side; NULL before anything compiled. */
const char  *tilde_ir_view_get_text       (TildeIrView *self,
                                           TildeIrSide  side);
/* TRUE while the output shown is not that of the current text because the
 * text has errors. */
gboolean     tilde_ir_view_get_has_errors (TildeIrView *self);
/* TRUE from the moment a compile is due until its result is in. */
gboolean     tilde_ir_view_get_compiling  (TildeIrView *self);
/* Forgets what was shown, for a buffer that now holds another model (a
 * file was loaded into it): nothing from before stays as "the last version
 * that compiled". Compiles again. */
void         tilde_ir_view_reset          (TildeIrView *self);
/* Compiles now instead of after the delay (when the view is shown). */
void         tilde_ir_view_compile_now    (TildeIrView *self);

G_END_DECLS
