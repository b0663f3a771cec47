/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A small layout engine with the box semantics of OCaml's Format module,
 * which stanc uses to lay out its messages: so that our messages break lines
 * where stanc's do. A document is a tree of text, break hints and boxes:
 *
 *   h    breaks never break
 *   v    every break is a newline
 *   hv   all breaks stay spaces when the whole box fits, else all break
 *   hov  a break becomes a newline when what follows it, up to the next
 *        break in the same box, would not fit
 *
 * A line holds at most DOC_WIDTH columns. Boxes nest; a box opened at
 * column c indents its broken lines to c + indent + the break's offset.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define DOC_WIDTH 77

typedef enum { DOC_H, DOC_V, DOC_HV, DOC_HOV } DocBoxKind;

typedef struct _Doc Doc;

Doc  *doc_box (DocBoxKind kind, int indent);
void  doc_free (Doc *doc);

/* Appends to `box` and returns it, for chaining. */
Doc  *doc_text (Doc *box, const char *text);
Doc  *doc_printf (Doc *box, const char *format, ...) G_GNUC_PRINTF (2, 3);
Doc  *doc_break (Doc *box, int spaces, int offset);
/* "@ ": a space or a newline */
Doc  *doc_space (Doc *box);
/* "@,": nothing or a newline */
Doc  *doc_cut (Doc *box);
/* Takes ownership of child. */
Doc  *doc_add (Doc *box, Doc *child);
/* Each word of `text` as text, separated by spaces that may break. */
Doc  *doc_words (Doc *box, const char *text);

/* Lays `doc` out starting at column `column` and appends it to `out`;
 * returns the column after the last character. */
int   doc_render (Doc *doc, GString *out, int column);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Doc, doc_free)

G_END_DECLS
