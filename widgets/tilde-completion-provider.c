/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "semantics/library/library.h"
#include "syntax/lexer.h"
#include "tilde-completion-proposal.h"
#include "tilde-completion-provider.h"
#include "worker/anchor.h"
#include "worker/symbols.h"

/* Lines of signatures shown under the list; the rest are in Details. */
#define COMMENT_SIGNATURES 4

struct _TildeCompletionProvider
{
  GObject           parent_instance;

  TildeCheckResult *check;
};

typedef struct {
  const char          *name;
  TildeCompletionKind  kind;
} Word;

static void provider_iface_init (GtkSourceCompletionProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TildeCompletionProvider, tilde_completion_provider, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GTK_SOURCE_TYPE_COMPLETION_PROVIDER,
                                                      provider_iface_init))

TildeCompletionProvider *
tilde_completion_provider_new (void)
{
  return g_object_new (TILDE_TYPE_COMPLETION_PROVIDER, NULL);
}

void
tilde_completion_provider_set_check (TildeCompletionProvider *self, TildeCheckResult *check)
{
  g_return_if_fail (TILDE_IS_COMPLETION_PROVIDER (self));
  if (check != NULL)
    tilde_check_result_ref (check);
  g_clear_pointer (&self->check, tilde_check_result_unref);
  self->check = check;
}

static int
compare_words (gconstpointer a, gconstpointer b)
{
  const Word *x = a, *y = b;

  if (x->kind != y->kind)
    return (int) x->kind - (int) y->kind;
  return strcmp (x->name, y->name);
}

/* The language's own words, built once: they never change. */
static GArray *
language_words (void)
{
  static GArray *words;

  if (g_once_init_enter (&words))
    {
      GArray *w = g_array_new (FALSE, FALSE, sizeof (Word));

      for (int k = 0; k < TILDE_N_TOKEN_KINDS; k++)
        if (tilde_token_kind_is_keyword (k) || tilde_token_kind_is_type_keyword (k))
          g_array_append_val (w, ((Word) { tilde_token_kind_to_string (k), TILDE_COMPLETION_KEYWORD }));
      for (guint i = 0; i < tilde_library_n_names (); i++)
        {
          const char *name = tilde_library_name (i);

          g_array_append_val (w, ((Word) { name, TILDE_COMPLETION_FUNCTION }));
          if (g_str_has_suffix (name, "_lpdf") || g_str_has_suffix (name, "_lpmf"))
            {
              g_autofree char *family = g_strndup (name, strlen (name) - 5);

              if (tilde_library_is_distribution (family))
                g_array_append_val (w, ((Word) { g_intern_string (family), TILDE_COMPLETION_DISTRIBUTION }));
            }
        }
      g_array_sort (w, compare_words);
      g_once_init_leave (&words, w);
    }
  return words;
}

static int
compare_proposals (gconstpointer a, gconstpointer b, gpointer user_data)
{
  TildeCompletionProposal *x = (TildeCompletionProposal *) a;
  TildeCompletionProposal *y = (TildeCompletionProposal *) b;
  const char *prefix = user_data;
  gboolean x_exact = g_str_equal (tilde_completion_proposal_get_name (x), prefix);
  gboolean y_exact = g_str_equal (tilde_completion_proposal_get_name (y), prefix);

  if (x_exact != y_exact)
    return x_exact ? -1 : 1;
  if (tilde_completion_proposal_get_kind (x) != tilde_completion_proposal_get_kind (y))
    return (int) tilde_completion_proposal_get_kind (x) - (int) tilde_completion_proposal_get_kind (y);
  return strcmp (tilde_completion_proposal_get_name (x), tilde_completion_proposal_get_name (y));
}

static void
add_user_names (TildeCompletionProvider *self, GListStore *store, GHashTable *taken,
                const char *prefix, int line, int column)
{
  TildeProgram *program = self->check ? tilde_check_result_get_program (self->check) : NULL;
  const TildeSourceFile *main_file;
  g_autoptr(GPtrArray) names = NULL;
  gsize offset;

  if (program == NULL)
    return;
  main_file = tilde_source_set_get_main (tilde_check_result_get_sources (self->check));
  offset = tilde_text_offset_at (main_file->text, main_file->length, line, column);
  names = tilde_visible_names (program, offset);
  for (guint i = 0; i < names->len; i++)
    {
      const TildeVisibleName *v = names->pdata[i];
      g_autoptr(TildeCompletionProposal) proposal = NULL;

      if (!g_str_has_prefix (v->name, prefix) || g_hash_table_contains (taken, v->name))
        continue;
      proposal = tilde_completion_proposal_new (v->kind == TILDE_VISIBLE_FUNCTION
                                                ? TILDE_COMPLETION_USER_FUNCTION
                                                : TILDE_COMPLETION_VARIABLE,
                                                v->name, v->detail);
      g_hash_table_add (taken, (gpointer) v->name);
      g_list_store_append (store, proposal);
    }
}

GListModel *
tilde_completion_provider_propose (TildeCompletionProvider *self, const char *prefix,
                                   int line, int column)
{
  GListStore *store;
  g_autoptr(GHashTable) taken = NULL;
  GArray *words = language_words ();

  g_return_val_if_fail (TILDE_IS_COMPLETION_PROVIDER (self), NULL);
  g_return_val_if_fail (prefix != NULL, NULL);

  store = g_list_store_new (TILDE_TYPE_COMPLETION_PROPOSAL);
  taken = g_hash_table_new (g_str_hash, g_str_equal);
  add_user_names (self, store, taken, prefix, line, column);
  for (guint i = 0; i < words->len; i++)
    {
      const Word *w = &g_array_index (words, Word, i);
      g_autoptr(TildeCompletionProposal) proposal = NULL;

      /* A name the model declares hides the built-in one. */
      if (!g_str_has_prefix (w->name, prefix)
          || (w->kind == TILDE_COMPLETION_FUNCTION && g_hash_table_contains (taken, w->name)))
        continue;
      proposal = tilde_completion_proposal_new (w->kind, w->name, NULL);
      g_list_store_append (store, proposal);
    }
  g_list_store_sort (store, compare_proposals, (gpointer) prefix);
  return G_LIST_MODEL (store);
}

static GListModel *
propose_for_context (TildeCompletionProvider *self, GtkSourceCompletionContext *context)
{
  g_autofree char *word = gtk_source_completion_context_get_word (context);
  GtkTextIter begin, end;

  gtk_source_completion_context_get_bounds (context, &begin, &end);
  /* Typing alone proposes nothing until a word has begun. */
  if (word[0] == '\0'
      && gtk_source_completion_context_get_activation (context) != GTK_SOURCE_COMPLETION_ACTIVATION_USER_REQUESTED)
    return G_LIST_MODEL (g_list_store_new (TILDE_TYPE_COMPLETION_PROPOSAL));
  return tilde_completion_provider_propose (self, word, gtk_text_iter_get_line (&begin) + 1,
                                            gtk_text_iter_get_line_index (&begin));
}

static char *
tilde_completion_provider_get_title (GtkSourceCompletionProvider *provider)
{
  return g_strdup (_("Stan"));
}

static GListModel *
tilde_completion_provider_populate (GtkSourceCompletionProvider *provider,
                                    GtkSourceCompletionContext  *context,
                                    GError                     **error)
{
  return propose_for_context (TILDE_COMPLETION_PROVIDER (provider), context);
}

static void
tilde_completion_provider_refilter (GtkSourceCompletionProvider *provider,
                                    GtkSourceCompletionContext  *context,
                                    GListModel                  *model)
{
  g_autoptr(GListModel) proposals = propose_for_context (TILDE_COMPLETION_PROVIDER (provider),
                                                         context);

  gtk_source_completion_context_set_proposals_for_provider (context, provider, proposals);
}

/* The first signatures, then how many more the Details pane holds. */
static char *
short_detail (const char *detail)
{
  g_auto(GStrv) lines = g_strsplit (detail, "\n", -1);
  guint n = g_strv_length (lines);
  GString *out;

  if (n <= COMMENT_SIGNATURES + 1)
    return g_strdup (detail);
  out = g_string_new (NULL);
  for (guint i = 0; i < COMMENT_SIGNATURES; i++)
    g_string_append_printf (out, "%s%s", i ? "\n" : "", lines[i]);
  g_string_append_c (out, '\n');
  g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "… and %u more signature",
                                            "… and %u more signatures", n - COMMENT_SIGNATURES),
                          n - COMMENT_SIGNATURES);
  return g_string_free (out, FALSE);
}

static void
tilde_completion_provider_display (GtkSourceCompletionProvider *provider,
                                   GtkSourceCompletionContext  *context,
                                   GtkSourceCompletionProposal *proposal,
                                   GtkSourceCompletionCell     *cell)
{
  TildeCompletionProposal *p = TILDE_COMPLETION_PROPOSAL (proposal);
  const char *name = tilde_completion_proposal_get_name (p);
  const char *detail;

  switch (gtk_source_completion_cell_get_column (cell))
    {
    case GTK_SOURCE_COMPLETION_COLUMN_TYPED_TEXT:
      {
        g_autofree char *word = gtk_source_completion_context_get_word (context);
        PangoAttrList *attrs = gtk_source_completion_fuzzy_highlight (name, word);

        gtk_source_completion_cell_set_text_with_attributes (cell, name, attrs);
        g_clear_pointer (&attrs, pango_attr_list_unref);
      }
      break;
    case GTK_SOURCE_COMPLETION_COLUMN_AFTER:
      gtk_source_completion_cell_set_text (cell, tilde_completion_proposal_get_kind_label (p));
      break;
    case GTK_SOURCE_COMPLETION_COLUMN_COMMENT:
      detail = tilde_completion_proposal_get_detail (p);
      if (detail != NULL && tilde_completion_proposal_get_kind (p) != TILDE_COMPLETION_VARIABLE)
        {
          g_autofree char *text = short_detail (detail);
          gtk_source_completion_cell_set_text (cell, text);
        }
      else
        gtk_source_completion_cell_set_text (cell, NULL);
      break;
    case GTK_SOURCE_COMPLETION_COLUMN_DETAILS:
      detail = tilde_completion_proposal_get_detail (p);
      gtk_source_completion_cell_set_text (cell, tilde_completion_proposal_get_kind (p)
                                                 != TILDE_COMPLETION_VARIABLE ? detail : NULL);
      break;
    default:
      gtk_source_completion_cell_set_text (cell, NULL);
      break;
    }
}

static void
tilde_completion_provider_activate (GtkSourceCompletionProvider *provider,
                                    GtkSourceCompletionContext  *context,
                                    GtkSourceCompletionProposal *proposal)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (gtk_source_completion_context_get_buffer (context));
  const char *name = tilde_completion_proposal_get_name (TILDE_COMPLETION_PROPOSAL (proposal));
  GtkTextIter begin, end;

  if (!gtk_source_completion_context_get_bounds (context, &begin, &end))
    return;
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete (buffer, &begin, &end);
  gtk_text_buffer_insert (buffer, &begin, name, -1);
  gtk_text_buffer_end_user_action (buffer);
}

static void
provider_iface_init (GtkSourceCompletionProviderInterface *iface)
{
  iface->get_title = tilde_completion_provider_get_title;
  iface->populate = tilde_completion_provider_populate;
  iface->refilter = tilde_completion_provider_refilter;
  iface->display = tilde_completion_provider_display;
  iface->activate = tilde_completion_provider_activate;
}

static void
tilde_completion_provider_dispose (GObject *object)
{
  TildeCompletionProvider *self = TILDE_COMPLETION_PROVIDER (object);

  g_clear_pointer (&self->check, tilde_check_result_unref);
  G_OBJECT_CLASS (tilde_completion_provider_parent_class)->dispose (object);
}

static void
tilde_completion_provider_class_init (TildeCompletionProviderClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = tilde_completion_provider_dispose;
}

static void
tilde_completion_provider_init (TildeCompletionProvider *self)
{
}
