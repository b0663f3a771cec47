/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A heap GWeakRef for the user data of engine jobs: a job holds its widget
 * weakly, so closing the window disposes the widget (and stops its engine
 * thread) at once, whatever is still running.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

GWeakRef *tilde_weak_ref_new  (gpointer object);
/* A GDestroyNotify for what tilde_weak_ref_new made. */
void      tilde_weak_ref_free (gpointer weak_ref);

G_END_DECLS
