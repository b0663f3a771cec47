/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "infer/summary.h"

G_BEGIN_DECLS

#define TILDE_TYPE_SUMMARY_VIEW (tilde_summary_view_get_type ())

G_DECLARE_FINAL_TYPE (TildeSummaryView, tilde_summary_view, TILDE, SUMMARY_VIEW, GtkWidget)

typedef enum {
  TILDE_SUMMARY_COLUMN_NAME,
  TILDE_SUMMARY_COLUMN_MEAN,
  TILDE_SUMMARY_COLUMN_MCSE,
  TILDE_SUMMARY_COLUMN_SD,
  TILDE_SUMMARY_COLUMN_Q5,
  TILDE_SUMMARY_COLUMN_Q50,
  TILDE_SUMMARY_COLUMN_Q95,
  TILDE_SUMMARY_COLUMN_ESS_BULK,
  TILDE_SUMMARY_COLUMN_ESS_TAIL,
  TILDE_SUMMARY_COLUMN_RHAT,
  TILDE_SUMMARY_N_COLUMNS
} TildeSummaryColumn;

/* The summary of a run in a GtkColumnView: lp__ and the model's
 * quantities with mean, MCSE, sd, the 5, 50 and 95 % quantiles, bulk and
 * tail ESS and R-hat, sortable by any column. An R-hat above 1.01 and an
 * ESS under 400 are flagged with an icon and a word, not by colour alone.
 * An optimisation's estimates show as a table of names and values. */
GtkWidget    *tilde_summary_view_new           (void);
/* Copies what it shows; NULL empties the table. */
void          tilde_summary_view_set_summary   (TildeSummaryView   *self,
                                                const TildeSummary *summary);
void          tilde_summary_view_set_estimates (TildeSummaryView   *self,
                                                const char *const  *names,
                                                const double       *values,
                                                gsize               n);
GtkColumnView *tilde_summary_view_get_column_view (TildeSummaryView *self);
/* Rows in the order shown. */
guint         tilde_summary_view_get_n_rows    (TildeSummaryView   *self);
/* The text of a cell as shown ("0.0312", "1.05 high"); the name column
 * gives the name ("theta[1]"). */
char         *tilde_summary_view_get_cell_text (TildeSummaryView   *self,
                                                guint               row,
                                                TildeSummaryColumn  column);
/* The table as CSV: a header line, then one line per row, values with
 * full precision; the shown order. */
gboolean      tilde_summary_view_write_csv     (TildeSummaryView   *self,
                                                const char         *path,
                                                GError            **error);

G_END_DECLS
