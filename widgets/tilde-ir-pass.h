/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TILDE_TYPE_IR_PASS (tilde_ir_pass_get_type ())

G_DECLARE_FINAL_TYPE (TildeIrPass, tilde_ir_pass, TILDE, IR_PASS, GObject)

/* One row of the IR viewer's pass list: a step of the pipeline (its index
 * among the steps, its pass, how many lines it touched), or, with index -1,
 * the row that compares two whole stages. */
TildeIrPass *tilde_ir_pass_new             (int          index,
                                            const char  *name,
                                            const char  *description,
                                            guint        edits,
                                            gboolean     changed);
int          tilde_ir_pass_get_index       (TildeIrPass *self);
const char  *tilde_ir_pass_get_name        (TildeIrPass *self);
const char  *tilde_ir_pass_get_description (TildeIrPass *self);
/* Lines removed, added or changed. */
guint        tilde_ir_pass_get_edits       (TildeIrPass *self);
/* Whether the pass said it changed the program (it may change nothing
 * that prints). */
gboolean     tilde_ir_pass_get_changed     (TildeIrPass *self);

G_END_DECLS
