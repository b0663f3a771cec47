/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TILDE_TYPE_PARAMETER (tilde_parameter_get_type ())

G_DECLARE_FINAL_TYPE (TildeParameter, tilde_parameter, TILDE, PARAMETER, GObject)

/* A row of the parameter list: one column of a draws store ("sigma",
 * "beta[3]", "L[2,1]") or the columns of one variable ("beta[1..8]"),
 * whose columns are then its children, one TildeParameter each. */
TildeParameter *tilde_parameter_new           (const char  *name,
                                               const char  *variable,
                                               const guint *columns,
                                               guint        n_columns,
                                               GListModel  *children);
/* As people read it: "beta[1..8]", "L[2,1]". */
const char     *tilde_parameter_get_name      (TildeParameter *self);
/* The variable's name in the model: "beta". */
const char     *tilde_parameter_get_variable  (TildeParameter *self);
/* The store's columns, ascending. */
const guint    *tilde_parameter_get_columns   (TildeParameter *self,
                                               guint          *n_columns);
/* The elements of a group; NULL for one column. */
GListModel     *tilde_parameter_get_children  (TildeParameter *self);
gboolean        tilde_parameter_is_group      (TildeParameter *self);


G_END_DECLS
