/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "semantics/library/library.h"
#include "tilde-completion-proposal.h"

struct _TildeCompletionProposal
{
  GObject             parent_instance;

  TildeCompletionKind kind;
  char               *name;
  char               *detail;
  gboolean            detail_known;
};

static void proposal_iface_init (GtkSourceCompletionProposalInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TildeCompletionProposal, tilde_completion_proposal, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GTK_SOURCE_TYPE_COMPLETION_PROPOSAL,
                                                      proposal_iface_init))

TildeCompletionProposal *
tilde_completion_proposal_new (TildeCompletionKind kind, const char *name, const char *detail)
{
  TildeCompletionProposal *self;

  g_return_val_if_fail (name != NULL, NULL);
  self = g_object_new (TILDE_TYPE_COMPLETION_PROPOSAL, NULL);
  self->kind = kind;
  self->name = g_strdup (name);
  self->detail = g_strdup (detail);
  self->detail_known = detail != NULL || kind == TILDE_COMPLETION_KEYWORD
                       || kind == TILDE_COMPLETION_VARIABLE;
  return self;
}

TildeCompletionKind
tilde_completion_proposal_get_kind (TildeCompletionProposal *self)
{
  g_return_val_if_fail (TILDE_IS_COMPLETION_PROPOSAL (self), TILDE_COMPLETION_KEYWORD);
  return self->kind;
}

const char *
tilde_completion_proposal_get_name (TildeCompletionProposal *self)
{
  g_return_val_if_fail (TILDE_IS_COMPLETION_PROPOSAL (self), NULL);
  return self->name;
}

/* A distribution's signatures are those of its density or mass function. */
static char *
library_detail (TildeCompletionProposal *self)
{
  if (self->kind == TILDE_COMPLETION_DISTRIBUTION)
    {
      const char *suffix = tilde_library_distribution_suffixes (self->name) & TILDE_DIST_LPMF
                           ? "_lpmf" : "_lpdf";
      g_autofree char *density = g_strconcat (self->name, suffix, NULL);
      g_autofree char *signatures = tilde_library_format_signatures (density);

      if (signatures == NULL)
        return NULL;
      return g_strdup_printf ("%s\n%s", density, signatures);
    }
  return tilde_library_format_signatures (self->name);
}

const char *
tilde_completion_proposal_get_detail (TildeCompletionProposal *self)
{
  g_return_val_if_fail (TILDE_IS_COMPLETION_PROPOSAL (self), NULL);
  if (!self->detail_known)
    {
      self->detail = library_detail (self);
      self->detail_known = TRUE;
    }
  return self->detail;
}

const char *
tilde_completion_proposal_get_kind_label (TildeCompletionProposal *self)
{
  g_return_val_if_fail (TILDE_IS_COMPLETION_PROPOSAL (self), NULL);
  switch (self->kind)
    {
    case TILDE_COMPLETION_VARIABLE:
      return self->detail ? self->detail : _("variable");
    case TILDE_COMPLETION_USER_FUNCTION:
      return _("function in this model");
    case TILDE_COMPLETION_KEYWORD:
      return _("keyword");
    case TILDE_COMPLETION_DISTRIBUTION:
      return _("distribution");
    case TILDE_COMPLETION_FUNCTION:
    default:
      return _("function");
    }
}

static char *
tilde_completion_proposal_get_typed_text (GtkSourceCompletionProposal *proposal)
{
  return g_strdup (TILDE_COMPLETION_PROPOSAL (proposal)->name);
}

static void
proposal_iface_init (GtkSourceCompletionProposalInterface *iface)
{
  iface->get_typed_text = tilde_completion_proposal_get_typed_text;
}

static void
tilde_completion_proposal_finalize (GObject *object)
{
  TildeCompletionProposal *self = TILDE_COMPLETION_PROPOSAL (object);

  g_free (self->name);
  g_free (self->detail);
  G_OBJECT_CLASS (tilde_completion_proposal_parent_class)->finalize (object);
}

static void
tilde_completion_proposal_class_init (TildeCompletionProposalClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = tilde_completion_proposal_finalize;
}

static void
tilde_completion_proposal_init (TildeCompletionProposal *self)
{
}
