/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the IR view's own files share: the widget's fields and the functions
 * one file calls in the other. Not for use outside the view.
 */
#pragma once

#include "tilde-diff-gutter.h"
#include "tilde-ir-view.h"
#include "tilde-line-diff.h"
#include "tilde-mir-highlight.h"
#include "worker/mir-stages.h"

G_BEGIN_DECLS

enum {
  TAG_ADDED,
  TAG_REMOVED,
  TAG_CHANGED,
  TAG_FILLER,
  TAG_SOURCE,
  N_TAGS
};

typedef struct {
  GtkSourceView   *view;
  GtkSourceBuffer *buffer;
  TildeDiffGutter *gutter;
  GtkTextTag      *tags[N_TAGS];
  GtkTextTag      *mir_tags[TILDE_MIR_N_TOKENS];
  GArray          *highlighted;   /* guint: buffer lines under TAG_SOURCE */
  const TildeMirText *text;       /* what the side shows; owned by `shown` */
  char           **text_lines;    /* `text` split into lines */
  GPtrArray       *lines;         /* char *: what each buffer line holds */
} Side;

/* A result being put in the views a slice at a time (tilde-ir-view-rows.c). */
typedef struct {
  guint next, end;                /* rows of `rows` still to insert */
  guint insert_at;                /* the buffer line they go before */
  int   top;                      /* the row to scroll to once done */
  guint rows;                     /* rows the next slice may insert */
  gint64 slice_end;               /* main-thread CPU time, µs, at the last slice's end */
  guint source;
} Apply;

static inline GtkTextBuffer *
side_buffer (Side *s)
{
  return GTK_TEXT_BUFFER (s->buffer);
}

struct _TildeIrView
{
  GtkWidget parent_instance;

  /* Template children */
  GtkInfoBar         *error_bar;
  GtkPaned           *paned;
  GtkSearchEntry     *pass_search;
  GtkCheckButton     *hide_unchanged_check;
  GtkListView        *pass_list;
  GtkStack           *content_stack;
  GtkLabel           *empty_label;
  GtkWidget          *diff_box;
  GtkStack           *left_title_stack;
  GtkStack           *right_title_stack;
  GtkDropDown        *left_stage_dropdown;
  GtkDropDown        *right_stage_dropdown;
  GtkLabel           *left_title;
  GtkLabel           *right_title;
  GtkScrolledWindow  *left_scroller;
  GtkScrolledWindow  *right_scroller;
  GtkSourceView      *left_view;
  GtkSourceView      *right_view;

  Side                sides[2];
  TildeEditor        *editor;
  GtkTextBuffer      *editor_buffer;
  GListStore         *passes;
  GtkCustomFilter    *filter;
  GtkSingleSelection *selection;

  /* The last result that compiled, whose stages are shown. */
  TildeJobResult     *shown;
  GArray             *rows;           /* TildeDiffRow of what is shown */
  /* What each buffer line is: rows of `rows` already in, and lines of what
   * was shown before (no line on either side, "stale") until removed. */
  GArray             *buffer_rows;
  Apply              *apply;
  guint               applies;
  guint               apply_rows;     /* rows a slice, for the tests; 0: default */
  GCancellable       *diff_cancellable;
  guint               follow_source;
  guint               scroll_source;
  int                 scroll_row;
  gboolean            scroll_align;
  guint64             compile_generation;
  /* Counts edits; a result is shown only for the text it compiled. */
  guint64             stamp;
  guint64             compiled_stamp;
  guint               compile_source;
  guint               results;
  int                 step;
  int                 last_source_row;
  int                 highlighted_line;  /* the editor line marked; -1 after new text */
  int                 last_top_row;
  guint               level;
  guint               left_stage;
  guint               right_stage;
  gboolean            use_opencl;
  /* The OpenCL stage of `shown` when it has no kernel: why, then the plan. */
  TildeMirText        opencl_note;
  GdkRGBA             colours[N_TAGS];

  guint               hide_unchanged : 1;
  guint               has_errors : 1;
  guint               compiling : 1;
  guint               dirty : 1;
  guint               updating : 1;
  guint               rebuilding : 1;
  guint               from_click : 1;
  guint               syncing_scroll : 1;
  guint               result_pending : 1;   /* a compile's result waits for its apply */
  guint               apply_hold : 1;
  guint               scroll_leader : 1;    /* TildeIrSide */
};

/* tilde-ir-view-rows.c: the rows in the buffers */

/* The line of `side` that `row` shows, or -1 when it shows none. */
int      _tilde_ir_view_row_line          (const TildeDiffRow *row,
                                           TildeIrSide         side);
/* Gives buffer lines first..last `tag`. */
void     _tilde_ir_view_apply_line_tag    (GtkTextBuffer *buffer,
                                           GtkTextTag    *tag,
                                           int            first,
                                           int            last);
void     _tilde_ir_view_update_gutters    (TildeIrView *self);
/* Starts putting `rows` in the buffers, the first slice now; `top` is the
 * row scrolled to once all are in. */
void     _tilde_ir_view_begin_apply       (TildeIrView *self,
                                           int          top);
void     _tilde_ir_view_schedule_apply    (TildeIrView *self);
void     _tilde_ir_view_cancel_apply      (TildeIrView *self);

/* tilde-ir-view.c: what follows a finished apply */

void     _tilde_ir_view_finish_result     (TildeIrView *self);
void     _tilde_ir_view_scroll_to_row     (TildeIrView *self,
                                           int          row,
                                           gboolean     align);
void     _tilde_ir_view_update_source_highlight (TildeIrView *self);

G_END_DECLS
