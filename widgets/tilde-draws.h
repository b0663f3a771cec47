/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "tilde-parameter.h"

G_BEGIN_DECLS

#define TILDE_TYPE_DRAWS (tilde_draws_get_type ())

G_DECLARE_FINAL_TYPE (TildeDraws, tilde_draws, TILDE, DRAWS, GObject)

/* The draws of a run as they arrive: per chain, one append-only column
 * per Stan CSV column ("theta.1", "L.2.1", and the sampler's "lp__",
 * "divergent__", ... whose names end in two underscores), kept in chunks
 * so that appending never moves a draw already stored.
 *
 * Thread rule: a TildeDraws lives on the main thread. A sampler's thread
 * hands its batches over in an idle source attached to the main context at
 * G_PRIORITY_DEFAULT_IDLE (below GTK's redraw, so that a stream of
 * batches never holds a frame back) and appends them there; not with
 * g_main_context_invoke(), which runs the function on the calling thread
 * whenever the main thread is not iterating the context. Readers on
 * the main thread may read each chain up to tilde_draws_get_n_draws(),
 * which an append raises only once its draws are stored.
 *
 * "changed" is emitted from the main loop after appends, at most once
 * per frame (16 ms) however many batches arrived, and before GTK draws
 * its next frame, so a plot redrawn on it shows every batch so far. */
TildeDraws   *tilde_draws_new                (const char *const *names,
                                              guint              n_chains);
guint         tilde_draws_get_n_chains       (TildeDraws *self);
guint         tilde_draws_get_n_columns      (TildeDraws *self);
/* The Stan CSV name of a column ("theta.1"). */
const char   *tilde_draws_get_column_name    (TildeDraws *self,
                                              guint       column);
/* The column of a Stan CSV name, or -1. */
int           tilde_draws_find_column        (TildeDraws *self,
                                              const char *name);
/* Whether a column is the sampler's ("lp__", "treedepth__", ...). */
gboolean      tilde_draws_is_sampler_column  (TildeDraws *self,
                                              guint       column);
/* The model's parameters (and transformed parameters and generated
 * quantities: every column but the sampler's), as TildeParameter items
 * in column order: one per scalar, one group per container
 * ("beta[1..8]", with "beta[1]", ... as children). */
GListModel   *tilde_draws_get_parameters     (TildeDraws *self);

/* Appends n_values / n_columns draws to a chain: `values` holds whole
 * rows in column order, as a Stan CSV file does. Warmup draws come
 * before the others. Main thread only. */
void          tilde_draws_append             (TildeDraws   *self,
                                              guint         chain,
                                              const double *values,
                                              gsize         n_values,
                                              gboolean      is_warmup);

guint         tilde_draws_get_n_draws        (TildeDraws *self,
                                              guint       chain);
/* The first tilde_draws_get_n_warmup() draws of a chain are warmup. */
guint         tilde_draws_get_n_warmup       (TildeDraws *self,
                                              guint       chain);
gboolean      tilde_draws_is_warmup          (TildeDraws *self,
                                              guint       chain,
                                              guint       draw);
/* The most draws of any chain. */
guint         tilde_draws_get_max_draws      (TildeDraws *self);
double        tilde_draws_get_value          (TildeDraws *self,
                                              guint       chain,
                                              guint       column,
                                              guint       draw);
/* Copies draws [start, start + n) of one column of a chain to `out`;
 * they must have been appended. */
void          tilde_draws_copy_column        (TildeDraws *self,
                                              guint       chain,
                                              guint       column,
                                              guint       start,
                                              guint       n,
                                              double     *out);
/* The draws of a chain whose divergent__ is set, ascending; NULL when
 * there are none or no divergent__ column. */
const guint  *tilde_draws_get_divergent      (TildeDraws *self,
                                              guint       chain,
                                              guint      *n_divergent);
/* Rises with every append: a reader's cache is current while the stamp
 * it was built at is. */
guint64       tilde_draws_get_stamp          (TildeDraws *self);

G_END_DECLS
