/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The matrix exponential of doubles. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* exp (A) of an n x n column-major matrix into e, by scaling and squaring
 * with Higham's Pade approximants (SIAM J. Matrix Anal. Appl. 26, 2005);
 * FALSE when A is not finite or a solve fails. */
gboolean rt_expm (const double *a, int n, double *e);

G_END_DECLS
