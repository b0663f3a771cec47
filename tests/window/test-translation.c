/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The German translation, loaded as a German desktop loads it: LANGUAGE=de,
 * the domain bound to the catalogues the build made ($TILDE_LOCALEDIR).
 * The window's title, its menu, the data panel and a plural then read in
 * German. Run under an X server (Xvfb).
 */
#define G_LOG_DOMAIN "tilde-test"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <string.h>

#include "tilde-application.h"
#include "tilde-autosave.h"
#include "tilde-window-private.h"
#include "window-test-util.h"

static TildeApplication *app;

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static void
collect_labels (GtkWidget *widget, GPtrArray *texts)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (GTK_IS_LABEL (widget))
    g_ptr_array_add (texts, g_strdup (gtk_label_get_text (GTK_LABEL (widget))));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, texts);
}

static gboolean
label_shown (GtkWidget *widget, const char *text)
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  collect_labels (widget, texts);
  for (guint i = 0; i < texts->len; i++)
    if (g_str_equal (texts->pdata[i], text))
      return TRUE;
  return FALSE;
}

static GtkWidget *
find_menu_button (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_primary (GTK_MENU_BUTTON (widget)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_menu_button (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether `menu` or one of its sections or submenus has an item labelled `label`. */
static gboolean
menu_has_label (GMenuModel *menu, const char *label)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *text = NULL;
      g_autoptr(GMenuLinkIter) links = NULL;
      GMenuModel *linked;

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &text)
          && g_str_equal (text, label))
        return TRUE;
      links = g_menu_model_iterate_item_links (menu, i);
      while (g_menu_link_iter_get_next (links, NULL, &linked))
        {
          gboolean found = menu_has_label (linked, label);

          g_object_unref (linked);
          if (found)
            return TRUE;
        }
    }
  return FALSE;
}

static void
test_catalogue_found (void)
{
  g_assert_cmpstr (_("Untitled model"), ==, "Unbenanntes Modell");
  g_assert_cmpstr (C_("shortcut window", "Quit"), ==, "Beenden");
  /* German has two plural forms, the singular for one only. */
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u warning", "%u warnings", 1), ==, "%u Warnung");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u warning", "%u warnings", 2), ==, "%u Warnungen");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%u warning", "%u warnings", 0), ==, "%u Warnungen");
}

static void
test_window_in_german (void)
{
  TildeWindow *window = tilde_window_new (app);
  GtkWidget *menu_button;
  GtkWidget *data;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (window_test_wait_for (mapped, window));
  window_test_let_it_draw (GTK_WIDGET (window));

  /* Set in C, with _(). */
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Unbenanntes Modell");
  /* From the templates, which GtkBuilder translates. */
  menu_button = find_menu_button (GTK_WIDGET (window));
  g_assert_nonnull (menu_button);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (menu_button), ==, "Hauptmenü");
  g_assert_true (menu_has_label (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button)),
                                 "_Neues Fenster"));
  g_assert_true (menu_has_label (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button)),
                                 "O1: Grundlegende Durchläufe"));
  g_assert_false (menu_has_label (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button)),
                                  "_New Window"));
  data = GTK_WIDGET (_tilde_window_get_data_panel (window));
  g_assert_true (label_shown (data, "Daten"));
  g_assert_true (label_shown (data, "Keine Daten"));
  g_assert_false (label_shown (data, "No Data"));
  /* The problems list's header, set in C when the first check is shown. */
  g_assert_true (label_shown (GTK_WIDGET (tilde_window_get_problems_list (window)), "Probleme"));

  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
main (int argc, char *argv[])
{
  const char *localedir = g_getenv ("TILDE_LOCALEDIR");
  g_autoptr(GError) error = NULL;
  int status;

  g_assert_nonnull (localedir);
  /* Any locale but C and POSIX lets LANGUAGE choose the messages. */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "de", TRUE);
  window_test_isolate_home ();
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_setenv ("ADW_DISABLE_PORTAL", "1", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  /* gtk_test_init() sets a locale of its own; the program's is wanted. */
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = tilde_application_new (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/translation/catalogue-found", test_catalogue_found);
  g_test_add_func ("/translation/window-in-german", test_window_in_german);
  status = g_test_run ();
  g_clear_object (&app);
  tilde_autosave_flush ();
  window_test_remove_home ();
  return status;
}
