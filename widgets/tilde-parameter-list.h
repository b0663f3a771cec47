/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-draws.h"

G_BEGIN_DECLS

#define TILDE_TYPE_PARAMETER_LIST (tilde_parameter_list_get_type ())

G_DECLARE_FINAL_TYPE (TildeParameterList, tilde_parameter_list, TILDE, PARAMETER_LIST, GtkWidget)

/* The parameters of a draws store with a search entry: containers are
 * rows that expand to their elements ("beta[1..8]", then "beta[1]", ...),
 * any number of rows can be selected, and :selected names the columns of
 * every selected row in the store's order, ready for
 * TildeTracePlot:parameters. The first row is selected when the store is
 * set. */
GtkWidget          *tilde_parameter_list_new          (void);
TildeDraws         *tilde_parameter_list_get_draws    (TildeParameterList *self);
void                tilde_parameter_list_set_draws    (TildeParameterList *self,
                                                       TildeDraws         *draws);
/* The Stan CSV names of the selected columns, NULL-terminated. */
const char *const  *tilde_parameter_list_get_selected (TildeParameterList *self);
/* The rows (GtkTreeListRow items holding TildeParameter), with their
 * selection. */
GtkSelectionModel  *tilde_parameter_list_get_model    (TildeParameterList *self);
/* Shows only the rows whose names contain `text` (any case), and the
 * groups holding such rows. */
void                tilde_parameter_list_set_search   (TildeParameterList *self,
                                                       const char         *text);

G_END_DECLS
