/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the tests: what a display's frame memory stands at. */
#pragma once

#include "tilde-frame-memory.h"

G_BEGIN_DECLS

/* How many realized windows keep @display's frame memory. */
guint    _tilde_frame_memory_get_holders (GdkDisplay *display);
/* Whether the image that keeps the pool is there. */
gboolean _tilde_frame_memory_is_kept     (GdkDisplay *display);

G_END_DECLS
