/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the tests. */
#pragma once

#include "tilde-application.h"

G_BEGIN_DECLS

/* Looks for unsaved models a process that ended without closing left in
 * the cache folder and, when there are some, asks whether to restore them.
 * The application does this once, when its first window opens. */
void _tilde_application_offer_restore (TildeApplication *self);

G_END_DECLS
