/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A line diff for showing two versions of a text side by side (the IR
 * viewer's "before" and "after").
 *
 * The edit script is a shortest one (fewest lines removed plus added),
 * found with Myers's O(ND) algorithm in its linear-space form: the middle
 * snake splits the problem in two until one side is empty. Lines are
 * compared as whole strings, after the common prefix and suffix are set
 * aside.
 *
 * The result is a list of rows, in order: each row pairs a line of the old
 * text with one of the new text, or shows one of them alone. Within a run
 * of edits between two unchanged lines, removed lines are paired with
 * added ones in order as CHANGED rows; what is left over stays REMOVED or
 * ADDED (removed rows first).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TILDE_DIFF_SAME,
  TILDE_DIFF_REMOVED,     /* old_line only */
  TILDE_DIFF_ADDED,       /* new_line only */
  TILDE_DIFF_CHANGED,     /* both, and they differ */
} TildeDiffKind;

typedef struct {
  TildeDiffKind kind;
  int           old_line;   /* 0-based line of the old text; -1 when none */
  int           new_line;   /* 0-based line of the new text; -1 when none */
} TildeDiffRow;

typedef struct {
  guint same;
  guint removed;    /* rows, not counting CHANGED */
  guint added;
  guint changed;
} TildeDiffStats;

/* The rows (a GArray of TildeDiffRow) of the diff of two lists of lines. */
GArray *tilde_line_diff       (const char *const *old_lines,
                               guint              n_old,
                               const char *const *new_lines,
                               guint              n_new);
/* The same for two texts split at '\n'. A final newline does not start
 * another line, so "a\n" and "a" are both the one line "a". */
GArray *tilde_line_diff_texts (const char *old_text,
                               const char *new_text);

/* The lines of `text` as tilde_line_diff_texts() splits them: a new
 * NULL-terminated vector (g_strfreev); *n_lines (may be NULL) gets their
 * number. */
char  **tilde_line_diff_split (const char *text,
                               guint      *n_lines);

/* How many rows of each kind `rows` has. */
void    tilde_line_diff_count (const GArray   *rows,
                               TildeDiffStats *stats);

/* The number of lines an edit touches: removed + added + changed rows. */
guint   tilde_diff_stats_edits (const TildeDiffStats *stats);

G_END_DECLS
