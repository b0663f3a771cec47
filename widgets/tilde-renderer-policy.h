/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Which of GTK's renderers draws the window's frames.
 *
 * GTK 4.8 draws with OpenGL wherever GLX or EGL answers, and where no GPU
 * is (a virtual machine, a remote X server, Xvfb) Mesa answers with its
 * software rasteriser: its threads then composite every frame on the
 * processors the chains sample on, and the main loop waits for them. On a
 * two-processor machine streaming a run into the plots, that renderer left
 * a frame or two over 16 ms in nearly every run where GTK's cairo renderer
 * left none (bench/RESULTS.md, "The renderer"). So where OpenGL would run
 * in software the window's program asks for the cairo renderer; where a
 * GPU's render node is there, or GSK_RENDERER is set, GTK chooses as usual.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "cairo" when OpenGL would run in software: LIBGL_ALWAYS_SOFTWARE is set
 * to a true value, or `dri_dir` (/dev/dri) has no render node
 * (renderD*); NULL when GTK's own choice stands. */
const char *tilde_renderer_policy_choose (const char *dri_dir);

/* At the program's start, before GTK opens the display: sets GSK_RENDERER
 * to the choice for /dev/dri, unless it is already set. Returns the
 * renderer asked for, NULL when none was. */
const char *tilde_renderer_policy_apply  (void);

G_END_DECLS
