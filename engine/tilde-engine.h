/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The engine's public face: what the window and the CLI include. */
#pragma once

#include <glib.h>

#include "tilde-diagnostic.h"

G_BEGIN_DECLS

/* The version string of the engine, e.g. "0.1.0". */
const char *tilde_engine_version (void);
/* The Stan language level the front end implements, e.g. "2.36". */
const char *tilde_engine_stan_version (void);

G_END_DECLS
