/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define TILDE_TYPE_APPLICATION (tilde_application_get_type ())

G_DECLARE_FINAL_TYPE (TildeApplication, tilde_application, TILDE, APPLICATION, AdwApplication)

TildeApplication *tilde_application_new          (GApplicationFlags extra_flags);
/* The application's settings, or NULL when the schema is not installed (a build run
 * in place without `meson devenv`): then nothing is remembered, but all else works. */
GSettings        *tilde_application_get_settings (TildeApplication *self);

G_END_DECLS
