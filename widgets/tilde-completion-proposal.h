/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

#define TILDE_TYPE_COMPLETION_PROPOSAL (tilde_completion_proposal_get_type ())

G_DECLARE_FINAL_TYPE (TildeCompletionProposal, tilde_completion_proposal,
                      TILDE, COMPLETION_PROPOSAL, GObject)

/* What a proposed word is, in the order the list shows them. */
typedef enum {
  TILDE_COMPLETION_VARIABLE,       /* in scope at the cursor, from the last check */
  TILDE_COMPLETION_USER_FUNCTION,  /* defined in the functions block */
  TILDE_COMPLETION_KEYWORD,        /* block names, statements, types */
  TILDE_COMPLETION_DISTRIBUTION,   /* may follow `~` */
  TILDE_COMPLETION_FUNCTION,       /* built in */
} TildeCompletionKind;

/* `detail` (may be NULL) says more: a variable's type, a user function's
 * signatures. Built-in functions and distributions take their signatures
 * from the library when first asked. */
TildeCompletionProposal *tilde_completion_proposal_new        (TildeCompletionKind kind,
                                                               const char         *name,
                                                               const char         *detail);
TildeCompletionKind      tilde_completion_proposal_get_kind   (TildeCompletionProposal *self);
const char              *tilde_completion_proposal_get_name   (TildeCompletionProposal *self);
/* Several lines for functions and distributions (one signature a line,
 * "(real, real, real) => real"); NULL when there is nothing to add. */
const char              *tilde_completion_proposal_get_detail (TildeCompletionProposal *self);
/* A few words on what it is: "distribution", "vector[N]", ... */
const char              *tilde_completion_proposal_get_kind_label (TildeCompletionProposal *self);

G_END_DECLS
