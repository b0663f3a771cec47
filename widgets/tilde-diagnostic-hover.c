/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "semantics/library/library.h"
#include "tilde-diagnostic-hover.h"
#include "tilde-problem.h"

struct _TildeDiagnosticHover
{
  GObject     parent_instance;

  GListModel *problems;
};

static void hover_provider_iface_init (GtkSourceHoverProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TildeDiagnosticHover, tilde_diagnostic_hover, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GTK_SOURCE_TYPE_HOVER_PROVIDER,
                                                      hover_provider_iface_init))

TildeDiagnosticHover *
tilde_diagnostic_hover_new (GListModel *problems)
{
  TildeDiagnosticHover *self;

  g_return_val_if_fail (G_IS_LIST_MODEL (problems), NULL);
  self = g_object_new (TILDE_TYPE_DIAGNOSTIC_HOVER, NULL);
  self->problems = g_object_ref (problems);
  return self;
}

char *
tilde_diagnostic_hover_signatures_for (const char *message, char **function_name)
{
  /* stanc's wording for a call that fits none of a function's signatures. */
  static const char prefix[] = "Ill-typed arguments supplied to function '";
  static const char *const density_suffixes[] = { "_lpdf", "_lpmf" };
  const char *start = strstr (message, prefix);
  const char *end;
  g_autofree char *name = NULL;
  char *signatures = NULL;

  if (start == NULL)
    return NULL;
  start += strlen (prefix);
  end = strchr (start, '\'');
  if (end == NULL)
    return NULL;
  name = g_strndup (start, end - start);
  signatures = tilde_library_format_signatures (name);
  for (guint i = 0; signatures == NULL && i < G_N_ELEMENTS (density_suffixes); i++)
    {
      char *density = g_strconcat (name, density_suffixes[i], NULL);

      signatures = tilde_library_format_signatures (density);
      if (signatures != NULL)
        {
          g_free (name);
          name = density;
        }
      else
        g_free (density);
    }
  if (signatures != NULL && function_name != NULL)
    *function_name = g_steal_pointer (&name);
  return signatures;
}

static GtkWidget *
label_new (const char *text, gboolean monospace, const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (monospace)
    gtk_widget_add_css_class (label, "monospace");
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static const char *
severity_heading (TildeProblem *problem)
{
  switch (tilde_problem_get_severity (problem))
    {
    case TILDE_SEVERITY_ERROR:
      return _("Error");
    case TILDE_SEVERITY_WARNING:
      return tilde_problem_get_diagnostic (problem)->kind == TILDE_DIAG_PEDANTIC
             ? _("Pedantic warning") : _("Warning");
    default:
      return _("Note");
    }
}

static GtkWidget *
problem_widget (TildeProblem *problem)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_autofree char *name = NULL;
  g_autofree char *signatures =
    tilde_diagnostic_hover_signatures_for (tilde_problem_get_message (problem), &name);

  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_box_append (GTK_BOX (box), label_new (severity_heading (problem), FALSE, "heading"));
  gtk_box_append (GTK_BOX (box), label_new (tilde_problem_get_message (problem), TRUE, NULL));
  if (signatures != NULL)
    {
      g_autofree char *heading = g_strdup_printf (_("All signatures of %s:"), name);
      GtkWidget *scroller = gtk_scrolled_window_new ();

      gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller),
                                      GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
      gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 240);
      gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
      gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scroller), TRUE);
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller),
                                     label_new (signatures, TRUE, "dim-label"));
      gtk_box_append (GTK_BOX (box), label_new (heading, FALSE, "heading"));
      gtk_box_append (GTK_BOX (box), scroller);
    }
  return box;
}

static gboolean
problem_covers (TildeProblem *problem, const GtkTextIter *iter)
{
  GtkTextIter begin, end;

  if (!tilde_problem_get_bounds (problem, &begin, &end))
    return FALSE;
  return gtk_text_iter_compare (&begin, iter) <= 0 && gtk_text_iter_compare (iter, &end) < 0;
}

static gboolean
tilde_diagnostic_hover_populate (GtkSourceHoverProvider *provider,
                                 GtkSourceHoverContext  *context,
                                 GtkSourceHoverDisplay  *display,
                                 GError                **error)
{
  TildeDiagnosticHover *self = TILDE_DIAGNOSTIC_HOVER (provider);
  guint n = g_list_model_get_n_items (self->problems);
  gboolean found = FALSE;
  GtkTextIter iter;

  if (gtk_source_hover_context_get_iter (context, &iter))
    for (guint i = 0; i < n; i++)
      {
        g_autoptr(TildeProblem) problem = g_list_model_get_item (self->problems, i);

        if (!problem_covers (problem, &iter))
          continue;
        if (found)
          gtk_source_hover_display_append (display, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
        gtk_source_hover_display_append (display, problem_widget (problem));
        found = TRUE;
      }
  if (!found)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No problem here");
  return found;
}

static void
hover_provider_iface_init (GtkSourceHoverProviderInterface *iface)
{
  iface->populate = tilde_diagnostic_hover_populate;
}

static void
tilde_diagnostic_hover_dispose (GObject *object)
{
  TildeDiagnosticHover *self = TILDE_DIAGNOSTIC_HOVER (object);

  g_clear_object (&self->problems);
  G_OBJECT_CLASS (tilde_diagnostic_hover_parent_class)->dispose (object);
}

static void
tilde_diagnostic_hover_class_init (TildeDiagnosticHoverClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = tilde_diagnostic_hover_dispose;
}

static void
tilde_diagnostic_hover_init (TildeDiagnosticHover *self)
{
}
