/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>
#include <gtksourceview/gtksource.h>

#include "tilde-application-private.h"
#include "tilde-autosave.h"
#include "tilde-engine.h"
#include "tilde-window-private.h"

struct _TildeApplication
{
  AdwApplication parent_instance;

  GSettings *settings;
  gboolean   restore_offered;
};

G_DEFINE_FINAL_TYPE (TildeApplication, tilde_application, ADW_TYPE_APPLICATION)

TildeApplication *
tilde_application_new (GApplicationFlags extra_flags)
{
  return g_object_new (TILDE_TYPE_APPLICATION,
                       "application-id", APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | extra_flags,
                       "resource-base-path", "/org/tilde/Workbench",
                       NULL);
}

GSettings *
tilde_application_get_settings (TildeApplication *self)
{
  g_return_val_if_fail (TILDE_IS_APPLICATION (self), NULL);
  return self->settings;
}

static GSettings *
load_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APPLICATION_ID, TRUE);
  if (schema == NULL)
    {
      g_debug ("Settings schema %s is not installed; preferences will not be kept", APPLICATION_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

/* The window to reuse for an opened file: the active one while it still holds an
 * untouched, empty buffer, so opening a file right after start does not leave an
 * empty window behind. */
static TildeWindow *
reusable_window (TildeApplication *self)
{
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (TILDE_IS_WINDOW (active) && tilde_window_is_pristine (TILDE_WINDOW (active)))
    return TILDE_WINDOW (active);
  return NULL;
}

/* ---- unsaved models kept when Tilde last ended without closing ---- */

static void
restore_response (AdwMessageDialog *dialog, const char *response, gpointer user_data)
{
  TildeApplication *self = user_data;
  GPtrArray *orphans = g_object_get_data (G_OBJECT (dialog), "tilde-orphans");
  gboolean restore = g_str_equal (response, "restore");

  /* Closed without an answer: ask again next time. */
  if (!restore && !g_str_equal (response, "discard"))
    return;
  for (guint i = 0; i < orphans->len; i++)
    {
      TildeAutosave *orphan = g_ptr_array_index (orphans, i);

      if (restore)
        {
          TildeWindow *window = reusable_window (self);

          if (window == NULL)
            window = tilde_window_new (self);
          _tilde_window_restore (window, orphan);
          gtk_window_present (GTK_WINDOW (window));
        }
      tilde_autosave_remove (orphan->id);
    }
}

static char *
orphan_names (GPtrArray *orphans)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < orphans->len; i++)
    {
      TildeAutosave *orphan = g_ptr_array_index (orphans, i);
      const char *title = orphan->title && orphan->title[0] ? orphan->title : _("Untitled model");

      if (i > 0)
        g_string_append (names, ", ");
      g_string_append_printf (names, "“%s”", g_str_has_prefix (title, "• ") ? title + strlen ("• ") : title);
    }
  return g_string_free (names, FALSE);
}

static void
orphans_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeApplication) self = user_data;
  g_autoptr(GPtrArray) orphans = tilde_autosave_find_orphans_finish (result, NULL);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  g_autofree char *names = NULL;
  AdwMessageDialog *dialog;

  if (orphans == NULL || orphans->len == 0 || window == NULL)
    return;
  names = orphan_names (orphans);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (window, _("Restore Unsaved Changes?"), NULL));
  /* Translators: %s is a list of quoted model names */
  adw_message_dialog_format_body (dialog, _("Tilde did not close properly last time. Unsaved changes "
                                            "to %s were kept."), names);
  adw_message_dialog_add_responses (dialog,
                                    "discard", _("_Discard"),
                                    "restore", _("_Restore"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "restore", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "restore");
  adw_message_dialog_set_close_response (dialog, "later");
  g_object_set_data_full (G_OBJECT (dialog), "tilde-orphans", g_ptr_array_ref (orphans),
                          (GDestroyNotify) g_ptr_array_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (restore_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_tilde_application_offer_restore (TildeApplication *self)
{
  g_return_if_fail (TILDE_IS_APPLICATION (self));
  self->restore_offered = TRUE;
  tilde_autosave_find_orphans_async (orphans_found, g_object_ref (self));
}

/* Once a session, when its first window is up. */
static void
offer_restore_once (TildeApplication *self)
{
  if (!self->restore_offered)
    _tilde_application_offer_restore (self);
}

static void
tilde_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (tilde_window_new (TILDE_APPLICATION (app)));
  gtk_window_present (window);
  offer_restore_once (TILDE_APPLICATION (app));
}

static void
tilde_application_open (GApplication  *app,
                        GFile        **files,
                        int            n_files,
                        const char    *hint)
{
  TildeApplication *self = TILDE_APPLICATION (app);

  for (int i = 0; i < n_files; i++)
    {
      TildeWindow *window = reusable_window (self);

      if (window == NULL)
        window = tilde_window_new (self);
      tilde_window_load_file (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
  offer_restore_once (self);
}

static void
new_window_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  gtk_window_present (GTK_WINDOW (tilde_window_new (TILDE_APPLICATION (user_data))));
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  /* Closing each window runs its unsaved-changes check; the application ends
   * when the last one is gone. */
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  for (GList *l = windows; l; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
  g_list_free (windows);
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  const char *developers[] = { _("The Tilde developers"), NULL };
  g_autofree char *comments = g_strdup_printf (_("A workbench for Bayesian models written in the "
                                                 "Stan language (Stan %s)."),
                                               tilde_engine_stan_version ());

  adw_show_about_window (gtk_application_get_active_window (app),
                         "application-name", _("Tilde"),
                         "application-icon", APPLICATION_ID,
                         "version", PACKAGE_VERSION,
                         "comments", comments,
                         "developers", developers,
                         "copyright", _("© 2026 The Tilde developers"),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         NULL);
}

static const GActionEntry app_actions[] = {
  { .name = "new-window", .activate = new_window_action },
  { .name = "quit", .activate = quit_action },
  { .name = "about", .activate = about_action },
};

static void
tilde_application_startup (GApplication *app)
{
  TildeApplication *self = TILDE_APPLICATION (app);
  GtkSourceLanguageManager *languages;
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *new_window_accels[] = { "<Control><Shift>n", NULL };
  static const char *new_accels[] = { "<Control>n", NULL };
  static const char *open_accels[] = { "<Control>o", NULL };
  static const char *save_accels[] = { "<Control>s", NULL };
  static const char *save_as_accels[] = { "<Control><Shift>s", NULL };
  static const char *close_accels[] = { "<Control>w", NULL };
  static const char *format_accels[] = { "<Shift><Alt>f", NULL };
  static const char *show_ir_accels[] = { "F9", NULL };
  static const char *next_pass_accels[] = { "F7", NULL };
  static const char *previous_pass_accels[] = { "<Shift>F7", NULL };

  G_APPLICATION_CLASS (tilde_application_parent_class)->startup (app);

  gtk_source_init ();
  /* stan.lang ships inside the binary, ahead of any system copy. */
  languages = gtk_source_language_manager_get_default ();
  gtk_source_language_manager_prepend_search_path (languages,
                                                   "resource:///org/tilde/Workbench/language-specs/");

  self->settings = load_settings ();

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.new-window", new_window_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.new", new_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.save", save_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.save-as", save_as_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "window.close", close_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.format", format_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.show-ir", show_ir_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.next-pass", next_pass_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.previous-pass", previous_pass_accels);
}

static void
tilde_application_shutdown (GApplication *app)
{
  /* The last copies are written, or removed, before the process ends. */
  tilde_autosave_flush ();
  G_APPLICATION_CLASS (tilde_application_parent_class)->shutdown (app);
}

static void
tilde_application_dispose (GObject *object)
{
  TildeApplication *self = TILDE_APPLICATION (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (tilde_application_parent_class)->dispose (object);
}

static void
tilde_application_class_init (TildeApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = tilde_application_dispose;
  app_class->startup = tilde_application_startup;
  app_class->shutdown = tilde_application_shutdown;
  app_class->activate = tilde_application_activate;
  app_class->open = tilde_application_open;
}

static void
tilde_application_init (TildeApplication *self)
{
}
