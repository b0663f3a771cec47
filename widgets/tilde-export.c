/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-export.h"
#include "infer/run.h"

gboolean
tilde_export_plot_format_for_path (const char *path, TildePlotFormat *format)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = TILDE_PLOT_FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = TILDE_PLOT_FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = TILDE_PLOT_FORMAT_PDF;
  else
    return FALSE;
  return TRUE;
}

gboolean
tilde_export_draws (const char *const *paths, const char *path, GError **error)
{
  guint n = g_strv_length ((char **) paths);

  if (n == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The run wrote no draws."));
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *to = tilde_sample_chain_output_path (path, n, i + 1);
      g_autoptr(GFile) src = g_file_new_for_path (paths[i]);
      g_autoptr(GFile) dst = g_file_new_for_path (to);

      if (!g_file_copy (src, dst, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, error))
        return FALSE;
    }
  return TRUE;
}

typedef struct {
  TildeExportFileFunc func;
  gpointer            user_data;
} Choice;

static void
chooser_response (GtkNativeDialog *dialog, int response, gpointer data)
{
  Choice *choice = data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      choice->func (file, choice->user_data);
    }
  g_free (choice);
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
tilde_export_choose (GtkWidget          *parent,
                     const char         *title,
                     const char         *suggested_name,
                     gboolean            folder,
                     gboolean            open,
                     const char *const  *filters,
                     TildeExportFileFunc func,
                     gpointer            user_data)
{
  GtkRoot *root = gtk_widget_get_root (parent);
  GtkFileChooserAction action = folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                : open ? GTK_FILE_CHOOSER_ACTION_OPEN : GTK_FILE_CHOOSER_ACTION_SAVE;
  GtkFileChooserNative *dialog;
  Choice *choice = g_new0 (Choice, 1);

  dialog = gtk_file_chooser_native_new (title, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        action, open || folder ? _("_Open") : _("_Save"),
                                        _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  if (suggested_name && action == GTK_FILE_CHOOSER_ACTION_SAVE)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  for (guint i = 0; filters && filters[i] && filters[i + 1]; i += 2)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, filters[i]);
      gtk_file_filter_add_pattern (filter, filters[i + 1]);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
      g_object_unref (filter);
    }
  choice->func = func;
  choice->user_data = user_data;
  g_signal_connect (dialog, "response", G_CALLBACK (chooser_response), choice);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
