/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "tilde-autosave.h"
#include "tilde-data-panel.h"
#include "tilde-editor.h"
#include "tilde-frame-memory.h"
#include "tilde-ir-view-private.h"
#include "tilde-long-lines.h"
#include "tilde-problems-list.h"
#include "tilde-run-panel.h"
#include "tilde-run-plots.h"
#include "tilde-run-summary.h"
#include "tilde-window-private.h"

#define MAX_RECENT 10

struct _TildeWindow
{
  AdwApplicationWindow parent_instance;

  /* Template children */
  AdwWindowTitle  *window_title;
  AdwToastOverlay   *toast_overlay;
  AdwSplitButton    *open_button;
  GtkDropDown       *level_dropdown;
  GtkPaned          *workbench_paned;
  GtkPaned          *editor_paned;
  GtkPaned          *model_paned;
  TildeEditor       *editor;
  TildeProblemsList *problems_list;
  TildeDataPanel    *data_panel;
  TildeIrView       *ir_view;
  GtkStack          *side_stack;
  TildeRunPanel     *run_panel;
  TildeRunController *run_controller;

  GtkSourceBuffer *buffer;
  GtkSourceFile   *source_file;
  GCancellable    *cancellable;
  GMenu           *recent_menu;
  char            *optimization_level;
  char            *autosave_id;
  char            *run_folder;     /* the saved run the untitled model came from */
  GCancellable    *run_cancellable;
  guint            autosave_source;
  guint            autosaves;
  guint            loading : 1;
  guint            saving : 1;
  guint            close_after_save : 1;
  guint            close_confirmed : 1;
  guint            pedantic : 1;
  guint            show_ir : 1;
  guint            autosaved : 1;
};

G_DEFINE_FINAL_TYPE (TildeWindow, tilde_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_FILE,
  PROP_LOADING,
  PROP_SAVING,
  PROP_PEDANTIC,
  PROP_SHOW_IR,
  PROP_OPTIMIZATION_LEVEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

TildeWindow *
tilde_window_new (TildeApplication *app)
{
  return g_object_new (TILDE_TYPE_WINDOW, "application", app, NULL);
}

GFile *
tilde_window_get_file (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), NULL);
  return gtk_source_file_get_location (self->source_file);
}

GtkSourceBuffer *
tilde_window_get_buffer (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), NULL);
  return self->buffer;
}

GtkSourceView *
tilde_window_get_view (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), NULL);
  return tilde_editor_get_view (self->editor);
}

TildeEditor *
tilde_window_get_editor (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), NULL);
  return self->editor;
}

TildeProblemsList *
tilde_window_get_problems_list (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), NULL);
  return self->problems_list;
}

TildeIrView *
tilde_window_get_ir_view (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), NULL);
  return self->ir_view;
}

const char *
_tilde_window_get_autosave_id (TildeWindow *self)
{
  return self->autosave_id;
}

guint
_tilde_window_get_autosaves (TildeWindow *self)
{
  return self->autosaves;
}

GMenuModel *
_tilde_window_get_recent_menu (TildeWindow *self)
{
  return G_MENU_MODEL (self->recent_menu);
}

TildeDataPanel *
_tilde_window_get_data_panel (TildeWindow *self)
{
  return self->data_panel;
}

GtkPaned *
_tilde_window_get_workbench_paned (TildeWindow *self)
{
  return self->workbench_paned;
}

GtkPaned *
_tilde_window_get_model_paned (TildeWindow *self)
{
  return self->model_paned;
}

static GSettings *
app_settings (void)
{
  GApplication *app = g_application_get_default ();

  return app && TILDE_IS_APPLICATION (app) ? tilde_application_get_settings (TILDE_APPLICATION (app)) : NULL;
}

gboolean
tilde_window_is_loading (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), FALSE);
  return self->loading;
}

gboolean
tilde_window_is_saving (TildeWindow *self)
{
  g_return_val_if_fail (TILDE_IS_WINDOW (self), FALSE);
  return self->saving;
}

static gboolean
data_is_empty (TildeWindow *self)
{
  GtkTextBuffer *data = GTK_TEXT_BUFFER (tilde_data_panel_get_buffer (self->data_panel));

  return tilde_data_panel_get_file (self->data_panel) == NULL
         && gtk_text_buffer_get_char_count (data) == 0;
}

gboolean
tilde_window_is_pristine (TildeWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);

  return tilde_window_get_file (self) == NULL
         && !self->loading
         && !gtk_text_buffer_get_modified (buffer)
         && gtk_text_buffer_get_char_count (buffer) == 0
         && !tilde_data_panel_get_loading (self->data_panel)
         && !tilde_data_panel_get_modified (self->data_panel)
         && data_is_empty (self);
}

static gboolean
model_unsaved (TildeWindow *self)
{
  return gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (self->buffer));
}

/* Data typed and then deleted, never saved, lose nothing. */
static gboolean
data_unsaved (TildeWindow *self)
{
  return tilde_data_panel_get_modified (self->data_panel) && !data_is_empty (self);
}

static gboolean
has_unsaved_changes (TildeWindow *self)
{
  return model_unsaved (self) || data_unsaved (self);
}

/* Work for the file that is open; cancelled when another comes. */
static void
renew_cancellable (TildeWindow *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

static void
show_error_toast (TildeWindow *self, const char *what, const GError *error)
{
  g_autofree char *text = g_strdup_printf ("%s: %s", what, error->message);
  AdwToast *toast = adw_toast_new (text);

  adw_toast_set_timeout (toast, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* With ~ for the home folder. */
static char *
display_folder (const char *dir)
{
  const char *home = g_get_home_dir ();

  if (home && g_str_has_prefix (dir, home) && home[1] != '\0')
    return g_strconcat ("~", dir + strlen (home), NULL);
  return g_strdup (dir);
}

static void
update_title (TildeWindow *self)
{
  GFile *file = tilde_window_get_file (self);
  gboolean modified = gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (self->buffer));
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (file != NULL)
    {
      g_autoptr(GFile) parent = g_file_get_parent (file);

      name = g_file_get_basename (file);
      if (parent != NULL)
        {
          g_autofree char *dir = g_file_get_parse_name (parent);

          subtitle = display_folder (dir);
        }
    }
  else if (self->run_folder != NULL)
    {
      /* a model reopened from a saved run is named after the run */
      name = g_path_get_basename (self->run_folder);
      subtitle = display_folder (self->run_folder);
    }
  else
    name = g_strdup (_("Untitled model"));

  title = modified ? g_strconcat ("• ", name, NULL) : g_strdup (name);
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, subtitle ? subtitle : "");
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
set_loading (TildeWindow *self, gboolean loading)
{
  if (self->loading == !!loading)
    return;
  self->loading = !!loading;
  gtk_text_view_set_editable (GTK_TEXT_VIEW (tilde_window_get_view (self)), !loading);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
set_saving (TildeWindow *self, gboolean saving)
{
  if (self->saving == !!saving)
    return;
  self->saving = !!saving;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING]);
}

/* ---- recent models ---- */

static void
remember_recent (GFile *file)
{
  static char mime_type[] = "text/x-stan";
  static char exec[] = "tilde %u";
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *app_name = g_strdup (g_get_application_name ());
  GtkRecentData data = { 0 };

  data.mime_type = mime_type;
  data.app_name = app_name ? app_name : exec;
  data.app_exec = exec;
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static gboolean
is_model_uri (const char *uri)
{
  return g_str_has_suffix (uri, ".stan") || g_str_has_suffix (uri, ".stanfunctions");
}

static int
recent_newest_first (gconstpointer a, gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *y = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return g_date_time_compare (y, x);
}

static void
update_recent_menu (TildeWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  guint count = 0;

  items = g_list_sort (items, recent_newest_first);
  g_menu_remove_all (self->recent_menu);
  for (GList *l = items; l != NULL && count < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr(GMenuItem) item = NULL;

      if (!is_model_uri (uri) || !gtk_recent_info_is_local (info))
        continue;
      item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);
      g_menu_item_set_action_and_target (item, "win.open-recent", "s", uri);
      g_menu_append_item (self->recent_menu, item);
      count++;
    }
  if (count == 0)
    /* No such action, so the item shows, greyed out. */
    g_menu_append (self->recent_menu, _("No Recent Models"), "win.no-recent-models");
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

static void
open_recent_action (GtkWidget *widget, const char *name, GVariant *param)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));
  GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (widget)));

  g_application_open (app, &file, 1, "");
}

/* ---- autosave: a copy of unsaved changes in the cache folder ---- */

/* The text as it would be saved. */
static char *
buffer_text (GtkSourceBuffer *source)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (source);
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  if (gtk_source_buffer_get_implicit_trailing_newline (source))
    return g_strconcat (text, "\n", NULL);
  return g_steal_pointer (&text);
}

/* A restored text, less the newline that saving adds back. */
static char *
text_to_restore (GtkSourceBuffer *source, const char *text)
{
  char *body = g_strdup (text);

  if (gtk_source_buffer_get_implicit_trailing_newline (source) && g_str_has_suffix (body, "\n"))
    body[strlen (body) - 1] = '\0';
  return body;
}

static void
autosave_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!tilde_autosave_write_finish (result, &error))
    {
      g_warning ("Could not keep a copy of the unsaved model: %s", error->message);
      return;
    }
  self->autosaves++;
}

static gboolean
autosave_now (gpointer user_data)
{
  TildeWindow *self = user_data;
  g_autofree char *title = NULL;
  g_autofree char *text = NULL;
  g_autofree char *data_text = NULL;
  TildeAutosave copy = { 0 };

  self->autosave_source = 0;
  if (self->loading || !has_unsaved_changes (self))
    return G_SOURCE_REMOVE;
  if (self->autosave_id == NULL)
    self->autosave_id = tilde_autosave_new_id ();
  title = g_strdup (adw_window_title_get_title (self->window_title));
  text = buffer_text (self->buffer);
  if (data_unsaved (self))
    data_text = buffer_text (tilde_data_panel_get_buffer (self->data_panel));
  copy.id = self->autosave_id;
  copy.file = tilde_window_get_file (self);
  copy.title = title;
  copy.text = text;
  copy.modified = model_unsaved (self);
  copy.data_file = tilde_data_panel_get_file (self->data_panel);
  copy.data_text = data_text;
  tilde_autosave_write_async (&copy, autosave_written, g_object_ref (self));
  self->autosaved = TRUE;
  return G_SOURCE_REMOVE;
}

/* A few seconds after the first change since the last copy: a steady
 * typist still gets copies. */
static void
schedule_autosave (TildeWindow *self)
{
  GSettings *settings = app_settings ();
  guint delay_ms = settings ? (guint) g_settings_get_int (settings, "autosave-delay-ms") : 5000;

  if (self->autosave_source != 0 || self->loading || !has_unsaved_changes (self))
    return;
  self->autosave_source = g_timeout_add_full (G_PRIORITY_LOW, delay_ms, autosave_now, self, NULL);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->autosave_source),
                            "[tilde] autosave");
}

/* The model is saved, or its changes given up: the copy has no use. */
static void
discard_autosave (TildeWindow *self)
{
  g_clear_handle_id (&self->autosave_source, g_source_remove);
  if (self->autosaved)
    tilde_autosave_remove (self->autosave_id);
  self->autosaved = FALSE;
}

/* The model's or the data's: the copy follows what is still unsaved. */
static void
modified_changed (TildeWindow *self)
{
  update_title (self);
  if (!has_unsaved_changes (self))
    discard_autosave (self);
  else
    schedule_autosave (self);
}

/* ---- the data beside the model ---- */

typedef struct {
  TildeWindow  *window;
  GFile        *model;
  GCancellable *cancellable;   /* the model's: another model ends the search */
  guint         tried;
} DataSearch;

static void
data_search_free (DataSearch *search)
{
  g_object_unref (search->window);
  g_object_unref (search->model);
  g_object_unref (search->cancellable);
  g_free (search);
}

/* "foo.data.json", then "foo.json", beside "foo.stan"; NULL past the last. */
static GFile *
data_candidate (GFile *model, guint i)
{
  static const char *const suffixes[] = { ".data.json", ".json" };
  g_autofree char *base = g_file_get_basename (model);
  g_autoptr(GFile) folder = g_file_get_parent (model);
  g_autofree char *name = NULL;

  if (i >= G_N_ELEMENTS (suffixes) || folder == NULL || base == NULL
      || !g_str_has_suffix (base, ".stan"))
    return NULL;
  base[strlen (base) - strlen (".stan")] = '\0';
  name = g_strconcat (base, suffixes[i], NULL);
  return g_file_get_child (folder, name);
}

static void
data_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_load_finish (TILDE_DATA_PANEL (source), result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error_toast (self, _("Could not open the data"), error);
}

static void look_for_next_data (DataSearch *search);

static void
data_candidate_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DataSearch *search = user_data;
  TildeWindow *self = search->window;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (source), result, NULL);

  if (g_cancellable_is_cancelled (search->cancellable))
    {
      data_search_free (search);
      return;
    }
  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      look_for_next_data (search);
      return;
    }
  /* Data opened or typed in the meantime stay. */
  if (!tilde_data_panel_get_modified (self->data_panel) && data_is_empty (self))
    tilde_data_panel_load_async (self->data_panel, G_FILE (source), search->cancellable,
                                 data_loaded, g_object_ref (self));
  data_search_free (search);
}

static void
look_for_next_data (DataSearch *search)
{
  g_autoptr(GFile) candidate = data_candidate (search->model, search->tried++);

  if (candidate == NULL)
    {
      data_search_free (search);
      return;
    }
  g_file_query_info_async (candidate, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_DEFAULT, search->cancellable,
                           data_candidate_found, search);
}

/* Loads the model's data, when they lie next to it under its name. */
static void
load_data_beside (TildeWindow *self, GFile *model)
{
  DataSearch *search = g_new0 (DataSearch, 1);

  search->window = g_object_ref (self);
  search->model = g_object_ref (model);
  search->cancellable = g_object_ref (self->cancellable);
  look_for_next_data (search);
}

/* ---- the model's file ---- */

void
tilde_window_restore_text (TildeWindow *self, GFile *file, const char *text)
{
  GtkTextBuffer *buffer;
  g_autofree char *body = NULL;
  GtkTextIter start;

  g_return_if_fail (TILDE_IS_WINDOW (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));
  g_return_if_fail (text != NULL);

  buffer = GTK_TEXT_BUFFER (self->buffer);
  body = text_to_restore (self->buffer, text);
  renew_cancellable (self);
  g_clear_pointer (&self->run_folder, g_free);
  tilde_run_panel_set_untitled_name (self->run_panel, NULL);
  gtk_source_file_set_location (self->source_file, file);
  tilde_editor_set_file (self->editor, file);
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, body, -1);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_buffer_set_modified (buffer, TRUE);
  tilde_ir_view_reset (self->ir_view);
  schedule_autosave (self);
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

void
_tilde_window_restore (TildeWindow *self, const TildeAutosave *copy)
{
  TildeDataPanel *panel;

  g_return_if_fail (TILDE_IS_WINDOW (self));
  g_return_if_fail (copy != NULL && copy->text != NULL);

  tilde_window_restore_text (self, copy->file, copy->text);
  /* Kept for the sake of its data: the model is as its file has it. */
  if (!copy->modified && copy->file != NULL)
    gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
  panel = self->data_panel;
  if (copy->data_text != NULL)
    {
      g_autofree char *data = text_to_restore (tilde_data_panel_get_buffer (panel), copy->data_text);
      tilde_data_panel_restore_text (panel, copy->data_file, data);
    }
  else if (copy->data_file != NULL)
    tilde_data_panel_load_async (panel, copy->data_file, self->cancellable, data_loaded,
                                 g_object_ref (self));
  else if (copy->file != NULL)
    load_data_beside (self, copy->file);
}

static void
load_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  GtkTextIter start;

  if (!gtk_source_file_loader_load_finish (GTK_SOURCE_FILE_LOADER (source), result, &error))
    {
      GFile *file = gtk_source_file_loader_get_location (GTK_SOURCE_FILE_LOADER (source));

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *name = g_file_get_basename (file);
          g_autofree char *what = g_strdup_printf (_("Could not open “%s”"), name);
          show_error_toast (self, what, error);
        }
      /* Forget the file that failed, so a later Save asks where to write. */
      gtk_source_file_set_location (self->source_file, NULL);
      tilde_editor_set_file (self->editor, NULL);
    }
  else
    {
      GFile *file = gtk_source_file_loader_get_location (GTK_SOURCE_FILE_LOADER (source));

      gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (self->buffer), &start);
      gtk_text_buffer_place_cursor (GTK_TEXT_BUFFER (self->buffer), &start);
      remember_recent (file);
      load_data_beside (self, file);
    }
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
  set_loading (self, FALSE);
  /* Whatever compiled before the file came in was not this model. */
  tilde_ir_view_reset (self->ir_view);
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

void
tilde_window_load_file (TildeWindow *self, GFile *file)
{
  g_autoptr(GtkSourceFileLoader) loader = NULL;

  g_return_if_fail (TILDE_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  renew_cancellable (self);
  g_clear_pointer (&self->run_folder, g_free);
  tilde_run_panel_set_untitled_name (self->run_panel, NULL);
  gtk_source_file_set_location (self->source_file, file);
  tilde_editor_set_file (self->editor, file);
  loader = gtk_source_file_loader_new (self->buffer, self->source_file);
  set_loading (self, TRUE);
  update_title (self);
  gtk_source_file_loader_load_async (loader, G_PRIORITY_DEFAULT, self->cancellable,
                                     NULL, NULL, NULL, load_finished, g_object_ref (self));
}

static void save_then_close (TildeWindow *self);

static void
save_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  set_saving (self, FALSE);
  if (!gtk_source_file_saver_save_finish (GTK_SOURCE_FILE_SAVER (source), result, &error))
    {
      GFile *file = gtk_source_file_saver_get_location (GTK_SOURCE_FILE_SAVER (source));

      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *what = g_strdup_printf (_("Could not save “%s”"), name);

      self->close_after_save = FALSE;
      show_error_toast (self, what, error);
      return;
    }
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
  tilde_editor_set_file (self->editor, tilde_window_get_file (self));
  remember_recent (tilde_window_get_file (self));
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
  if (self->close_after_save)
    save_then_close (self);
}

void
tilde_window_save_to_file (TildeWindow *self, GFile *file)
{
  g_autoptr(GtkSourceFileSaver) saver = NULL;

  g_return_if_fail (TILDE_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  saver = gtk_source_file_saver_new_with_target (self->buffer, self->source_file, file);
  set_saving (self, TRUE);
  gtk_source_file_saver_save_async (saver, G_PRIORITY_DEFAULT, NULL, NULL, NULL, NULL,
                                    save_finished, g_object_ref (self));
}

static GtkFileFilter *
stan_file_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Stan models"));
  gtk_file_filter_add_pattern (filter, "*.stan");
  gtk_file_filter_add_pattern (filter, "*.stanfunctions");
  gtk_file_filter_add_mime_type (filter, "text/x-stan");
  return filter;
}

static void
open_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  TildeWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));

      /* The application decides whether this window is reused or a new one opens,
       * so an edited model is never replaced. */
      g_application_open (app, &file, 1, "");
    }
  g_object_unref (dialog);
}

static void
open_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) filter = stan_file_filter ();

  dialog = gtk_file_chooser_native_new (_("Open Model"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
save_as_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  TildeWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      tilde_window_save_to_file (self, file);
    }
  else
    self->close_after_save = FALSE;
  g_object_unref (dialog);
}

static void
save_as_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) filter = stan_file_filter ();
  GFile *file = tilde_window_get_file (self);

  dialog = gtk_file_chooser_native_new (_("Save Model As"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  if (file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (dialog), file, NULL);
  else
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), _("model.stan"));
  g_signal_connect (dialog, "response", G_CALLBACK (save_as_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
save_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);
  GFile *file = tilde_window_get_file (self);

  if (file == NULL)
    save_as_action (widget, "win.save-as", NULL);
  else
    tilde_window_save_to_file (self, file);
}

static void
format_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!tilde_editor_format_finish (TILDE_EDITOR (source), result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      AdwToast *toast = adw_toast_new (error->message);

      adw_toast_overlay_add_toast (self->toast_overlay, toast);
    }
}

static void
format_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);

  tilde_editor_format_async (self->editor, NULL, format_finished, g_object_ref (self));
}

/* Says once why the model went plain, each time it does. */
static void
highlight_suspended_changed (TildeWindow *self)
{
  g_autofree char *text = NULL;

  if (!tilde_editor_get_highlight_suspended (self->editor))
    return;
  text = g_strdup_printf (_("The model has a line longer than %d characters, so it is shown without syntax "
                            "highlighting until that line is shorter."),
                          TILDE_HIGHLIGHT_LINE_LIMIT);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (text));
}

/* ---- the data ---- */

/* win.open-data, win.save-data, win.save-data-as and win.format-data are
 * the data panel's own actions, offered in the window's menu. */
static void
data_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);
  const char *panel_action = g_str_equal (name, "win.open-data") ? "data.open"
                             : g_str_equal (name, "win.save-data") ? "data.save"
                             : g_str_equal (name, "win.format-data") ? "data.format"
                             : "data.save-as";

  gtk_widget_activate_action (GTK_WIDGET (self->data_panel), panel_action, NULL);
}

/* Application accelerators fire before any widget sees the key, so the
 * keys the data panel shares with the model would always save or format
 * the model. This controller, on the window ahead of them, gives those
 * keys to the panel while the focus is in it. Menu items and buttons are
 * not keys, and stay the model's. */
static const struct {
  const char *window_action;
  const char *panel_action;
} shared_keys[] = {
  { "win.save", "data.save" },
  { "win.save-as", "data.save-as" },
  { "win.format", "data.format" },
};

/* The key pressed is `accel` (of the form "<Control>s"): as GTK matches
 * its own shortcuts when there is an event (by keycode too, so that the
 * keys work on layouts that are not Latin), by keyval and modifiers
 * otherwise. */
static gboolean
key_is (GdkEvent *event, guint keyval, GdkModifierType mods, const char *accel)
{
  guint accel_key;
  GdkModifierType accel_mods;

  if (!gtk_accelerator_parse (accel, &accel_key, &accel_mods))
    return FALSE;
  if (event != NULL)
    return gdk_key_event_matches (event, accel_key, accel_mods) == GDK_KEY_MATCH_EXACT;
  return gdk_keyval_to_lower (accel_key) == gdk_keyval_to_lower (keyval) && accel_mods == mods;
}

static gboolean
key_for_data_panel (TildeWindow *self, GdkEvent *event, guint keyval, GdkModifierType state)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GdkModifierType mods = state & gtk_accelerator_get_default_mod_mask ();

  if (app == NULL || focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->data_panel)))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (shared_keys); i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (app, shared_keys[i].window_action);

      for (guint k = 0; accels[k] != NULL; k++)
        if (key_is (event, keyval, mods, accels[k]))
          {
            gtk_widget_activate_action (GTK_WIDGET (self->data_panel), shared_keys[i].panel_action,
                                        NULL);
            return TRUE;
          }
    }
  return FALSE;
}

gboolean
_tilde_window_key_for_data_panel (TildeWindow *self, guint keyval, GdkModifierType state)
{
  return key_for_data_panel (self, NULL, keyval, state);
}

static gboolean
key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
             gpointer user_data)
{
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));

  return key_for_data_panel (TILDE_WINDOW (user_data), event, keyval, state);
}

static void
template_inserted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_insert_template_finish (TILDE_DATA_PANEL (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error_toast (self, _("Could not make a template of the data"), error);
      return;
    }
  gtk_widget_grab_focus (GTK_WIDGET (tilde_data_panel_get_view (self->data_panel)));
}

/* Fills empty data with every variable of the model's data block. */
static void
data_template_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);

  tilde_data_panel_insert_template_async (self->data_panel, self->cancellable, template_inserted,
                                          g_object_ref (self));
}

static void
new_action (GtkWidget *widget, const char *name, GVariant *param)
{
  gtk_widget_activate_action (widget, "app.new-window", NULL);
}

static gboolean
close_in_idle (gpointer user_data)
{
  gtk_window_close (GTK_WINDOW (user_data));
  return G_SOURCE_REMOVE;
}

static void
data_saved_for_close (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(TildeWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_save_or_ask_finish (TILDE_DATA_PANEL (source), result, &error))
    {
      self->close_after_save = FALSE;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error_toast (self, _("Could not save the data"), error);
      return;
    }
  if (self->close_after_save)
    save_then_close (self);
}

/* Saves what is unsaved, the model first, asking where for what has no
 * file yet, and closes once all is saved; a cancel or a failure stops it. */
static void
save_then_close (TildeWindow *self)
{
  self->close_after_save = TRUE;
  if (model_unsaved (self))
    save_action (GTK_WIDGET (self), "win.save", NULL);
  else if (data_unsaved (self))
    tilde_data_panel_save_or_ask_async (self->data_panel, data_saved_for_close, g_object_ref (self));
  else
    {
      self->close_after_save = FALSE;
      self->close_confirmed = TRUE;
      gtk_window_close (GTK_WINDOW (self));
    }
}

static void
unsaved_response (AdwMessageDialog *dialog, const char *response, gpointer user_data)
{
  TildeWindow *self = user_data;

  if (g_str_equal (response, "discard"))
    {
      /* Close once the dialog, which is transient for this window, is gone. */
      self->close_confirmed = TRUE;
      g_idle_add_full (G_PRIORITY_DEFAULT, close_in_idle, g_object_ref (self), g_object_unref);
    }
  else if (g_str_equal (response, "save"))
    save_then_close (self);
}

static char *
model_name (TildeWindow *self)
{
  GFile *file = tilde_window_get_file (self);

  return file ? g_file_get_basename (file) : g_strdup (_("Untitled model"));
}

static char *
data_name (TildeWindow *self)
{
  GFile *file = tilde_data_panel_get_file (self->data_panel);

  return file ? g_file_get_basename (file) : g_strdup (_("Untitled data"));
}

static void
ask_before_close (TildeWindow *self)
{
  g_autofree char *model = model_name (self);
  g_autofree char *data = data_name (self);
  AdwMessageDialog *dialog;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), NULL));
  if (model_unsaved (self) && data_unsaved (self))
    /* Translators: the first %s is a model's file name, the second its data's */
    adw_message_dialog_format_body (dialog,
                                    _("“%s” and its data “%s” have unsaved changes. Changes "
                                      "which are not saved will be permanently lost."),
                                    model, data);
  else if (model_unsaved (self))
    adw_message_dialog_format_body (dialog,
                                    _("“%s” has unsaved changes. Changes which are not saved "
                                      "will be permanently lost."), model);
  else
    adw_message_dialog_format_body (dialog,
                                    _("The data “%s” have unsaved changes. Changes which are "
                                      "not saved will be permanently lost."), data);
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "save");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (unsaved_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static gboolean
tilde_window_close_request (GtkWindow *window)
{
  TildeWindow *self = TILDE_WINDOW (window);
  TildeApplication *app = TILDE_APPLICATION (gtk_window_get_application (window));
  GSettings *settings = app ? tilde_application_get_settings (app) : NULL;

  if (!self->close_confirmed && has_unsaved_changes (self))
    {
      ask_before_close (self);
      return TRUE;
    }

  if (settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window))
        {
          g_settings_set_int (settings, "window-width", width);
          g_settings_set_int (settings, "window-height", height);
        }
    }
  g_cancellable_cancel (self->cancellable);
  discard_autosave (self);
  return GTK_WINDOW_CLASS (tilde_window_parent_class)->close_request (window);
}

static void
update_style_scheme (TildeWindow *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  const char *id = adw_style_manager_get_dark (style) ? "Adwaita-dark" : "Adwaita";
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (schemes, id);

  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (schemes, "classic");
  gtk_source_buffer_set_style_scheme (self->buffer, scheme);
}

/* ---- the compiler's output ---- */

static void
set_show_ir (TildeWindow *self, gboolean show)
{
  if (self->show_ir == !!show)
    return;
  self->show_ir = !!show;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_IR]);
}

static gboolean
valid_level (const char *level)
{
  return g_strcmp0 (level, "0") == 0 || g_strcmp0 (level, "1") == 0
         || g_strcmp0 (level, "experimental") == 0;
}

static void
set_optimization_level (TildeWindow *self, const char *level)
{
  if (!valid_level (level))
    {
      g_warning ("“%s” is not an optimization level", level ? level : "(null)");
      return;
    }
  if (g_strcmp0 (self->optimization_level, level) == 0)
    return;
  g_free (self->optimization_level);
  self->optimization_level = g_strdup (level);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPTIMIZATION_LEVEL]);
}

static gboolean
level_to_view (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  const char *level = g_value_get_string (from);

  g_value_set_uint (to, g_strcmp0 (level, "experimental") == 0 ? 2 : g_strcmp0 (level, "1") == 0 ? 1 : 0);
  return TRUE;
}

static gboolean
level_from_view (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  static const char *const names[] = { "0", "1", "experimental" };

  g_value_set_string (to, names[MIN (g_value_get_uint (from), 2)]);
  return TRUE;
}

static void
step_pass_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);

  set_show_ir (self, TRUE);
  tilde_ir_view_step_by (self->ir_view, g_str_equal (name, "win.next-pass") ? 1 : -1);
}

static void
show_message (TildeWindow *self, const char *message)
{
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

/* ---- settings: the layout and the compiler's options ---- */

static const char *const stage_keys[] = { "ast", "mir", "transformed", "optimized", "opencl" };

static gboolean
stage_from_setting (GValue *value, GVariant *variant, gpointer user_data)
{
  const char *name = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (stage_keys); i++)
    if (g_str_equal (name, stage_keys[i]))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
stage_to_setting (const GValue *value, const GVariantType *type, gpointer user_data)
{
  guint stage = g_value_get_uint (value);

  return stage < G_N_ELEMENTS (stage_keys) ? g_variant_new_string (stage_keys[stage]) : NULL;
}

static void
position_changed (GtkPaned *paned, GParamSpec *pspec, gpointer user_data)
{
  GSettings *settings = app_settings ();

  /* Only where the person can have moved it: not while it is laid out
   * for the first time, nor while its end is hidden. */
  if (settings != NULL && gtk_widget_get_mapped (GTK_WIDGET (paned))
      && gtk_widget_get_visible (gtk_paned_get_end_child (paned)))
    g_settings_set_int (settings, user_data, gtk_paned_get_position (paned));
}

static void
remember_position (TildeWindow *self, GSettings *settings, GtkPaned *paned, const char *key)
{
  int position = g_settings_get_int (settings, key);

  if (position >= 0)
    gtk_paned_set_position (paned, position);
  g_signal_connect (paned, "notify::position", G_CALLBACK (position_changed), (gpointer) key);
}

static void
bind_settings (TildeWindow *self, GSettings *settings)
{
  g_settings_bind (settings, "pedantic", self, "pedantic", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "check-delay-ms", self->editor, "check-delay-ms",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (settings, "check-delay-ms", self->data_panel, "check-delay-ms",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (settings, "show-ir", self, "show-ir", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "optimization-level", self, "optimization-level", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "ir-hide-unchanged", self->ir_view, "hide-unchanged", G_SETTINGS_BIND_DEFAULT);
  /* the OpenCL stage shows what a run would put on the device */
  g_settings_bind (settings, "run-use-opencl", self->ir_view, "use-opencl", G_SETTINGS_BIND_GET);
  g_settings_bind_with_mapping (settings, "ir-left-stage", self->ir_view, "left-stage",
                                G_SETTINGS_BIND_DEFAULT, stage_from_setting, stage_to_setting, NULL, NULL);
  g_settings_bind_with_mapping (settings, "ir-right-stage", self->ir_view, "right-stage",
                                G_SETTINGS_BIND_DEFAULT, stage_from_setting, stage_to_setting, NULL, NULL);
  remember_position (self, settings, self->workbench_paned, "workbench-position");
  remember_position (self, settings, self->editor_paned, "problems-position");
  remember_position (self, settings, self->model_paned, "data-position");
  remember_position (self, settings, _tilde_ir_view_get_paned (self->ir_view), "ir-passes-width");
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (settings, "window-width"),
                               g_settings_get_int (settings, "window-height"));
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static void
tilde_window_dispose (GObject *object)
{
  TildeWindow *self = TILDE_WINDOW (object);

  g_clear_handle_id (&self->autosave_source, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_cancellable_cancel (self->run_cancellable);
  g_clear_object (&self->run_cancellable);
  g_clear_pointer (&self->run_folder, g_free);
  g_clear_object (&self->source_file);
  g_clear_object (&self->buffer);
  g_clear_object (&self->recent_menu);
  g_clear_pointer (&self->optimization_level, g_free);
  g_clear_pointer (&self->autosave_id, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_WINDOW);
  G_OBJECT_CLASS (tilde_window_parent_class)->dispose (object);
}

static void
tilde_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeWindow *self = TILDE_WINDOW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, tilde_window_get_file (self));
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_SAVING:
      g_value_set_boolean (value, self->saving);
      break;
    case PROP_PEDANTIC:
      g_value_set_boolean (value, self->pedantic);
      break;
    case PROP_SHOW_IR:
      g_value_set_boolean (value, self->show_ir);
      break;
    case PROP_OPTIMIZATION_LEVEL:
      g_value_set_string (value, self->optimization_level);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TildeWindow *self = TILDE_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PEDANTIC:
      if (self->pedantic != g_value_get_boolean (value))
        {
          self->pedantic = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_SHOW_IR:
      set_show_ir (self, g_value_get_boolean (value));
      break;
    case PROP_OPTIMIZATION_LEVEL:
      set_optimization_level (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* ---- runs ---- */

static void
run_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeWindow *self = TILDE_WINDOW (widget);

  if (!tilde_run_panel_run (self->run_panel))
    return;
  set_show_ir (self, TRUE);
  gtk_stack_set_visible_child_name (self->side_stack, "run");
}

static void
stop_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_run_controller_stop (TILDE_WINDOW (widget)->run_controller);
}

static void
run_state_changed (TildeWindow *self)
{
  gboolean running = tilde_run_controller_get_running (self->run_controller);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run", !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", running);
}

TildeRunPanel *
_tilde_window_get_run_panel (TildeWindow *self)
{
  return self->run_panel;
}

/* ---- opening a saved run ---- */

/* Texts as the editor and the files have them: the buffer drops the
 * newline that saving adds back. */
static gboolean
same_text (const char *a, const char *b)
{
  g_autofree char *x = g_strchomp (g_strdup (a ? a : ""));
  g_autofree char *y = g_strchomp (g_strdup (b ? b : ""));

  return g_str_equal (x, y);
}

static gboolean
holds_run (TildeWindow *self, const TildeSavedRun *saved)
{
  g_autofree char *model = buffer_text (self->buffer);
  g_autofree char *data = buffer_text (tilde_data_panel_get_buffer (self->data_panel));

  return !self->loading && !tilde_data_panel_get_loading (self->data_panel)
         && same_text (model, tilde_saved_run_get_model_text (saved))
         && same_text (data, tilde_saved_run_get_data_text (saved));
}

/* The run's model, untitled and unmodified (the run's folder keeps it),
 * and its data, in place of what the window held. */
static void
show_run_texts (TildeWindow *self, const TildeSavedRun *saved)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkSourceBuffer *data = tilde_data_panel_get_buffer (self->data_panel);
  g_autofree char *model_text = text_to_restore (self->buffer,
                                                 tilde_saved_run_get_model_text (saved));
  g_autofree char *data_text = text_to_restore (data, tilde_saved_run_get_data_text (saved));
  GtkTextIter start;

  renew_cancellable (self);
  g_free (self->run_folder);
  self->run_folder = g_strdup (tilde_saved_run_get_folder (saved));
  /* its re-runs are named after the model, as the first run was */
  tilde_run_panel_set_untitled_name (self->run_panel, tilde_saved_run_get_model_name (saved));
  gtk_source_file_set_location (self->source_file, NULL);
  tilde_editor_set_file (self->editor, NULL);
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, model_text, -1);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_buffer_set_modified (buffer, FALSE);
  tilde_data_panel_restore_text (self->data_panel, NULL, data_text);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (data), FALSE);
  tilde_ir_view_reset (self->ir_view);
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

/* The run's options in the run panel, its optimisation level in the
 * window's, and its results on the summary page. `saved` is taken. */
static void
show_run (TildeWindow *self, TildeSavedRun *saved, gboolean with_texts)
{
  static const char *const levels[] = { "0", "1", "experimental" };
  const TildeRunSettings *settings = tilde_saved_run_get_settings (saved);

  if (with_texts)
    show_run_texts (self, saved);
  tilde_run_panel_set_run_settings (self->run_panel, settings);
  set_optimization_level (self, levels[MIN ((guint) settings->level, G_N_ELEMENTS (levels) - 1)]);
  tilde_run_controller_show_saved (self->run_controller, saved);
  set_show_ir (self, TRUE);
  gtk_stack_set_visible_child_name (self->side_stack, "summary");
}

/* This window when it already holds the run's model and data (only the
 * results are new), or holds nothing yet; a new one otherwise, so that
 * no unsaved work is overwritten. */
static TildeWindow *
window_for_run (TildeWindow *self, const TildeSavedRun *saved, gboolean *with_texts)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  gboolean idle = !tilde_run_controller_get_busy (self->run_controller);
  TildeWindow *window;

  *with_texts = FALSE;
  if (idle && holds_run (self, saved))
    return self;
  *with_texts = TRUE;
  if (idle && tilde_window_is_pristine (self))
    return self;
  window = tilde_window_new (TILDE_IS_APPLICATION (app) ? TILDE_APPLICATION (app) : NULL);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static TildeRunSummary *
run_summary (TildeWindow *self)
{
  return TILDE_RUN_SUMMARY (gtk_stack_get_child_by_name (self->side_stack, "summary"));
}

static void
saved_run_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  TildeWindow *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  TildeSavedRun *saved = tilde_saved_run_read_finish (result, &error);
  TildeWindow *window;
  gboolean with_texts;

  if (saved == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          show_error_toast (self, _("Could not open the run"), error);
          tilde_run_summary_show_status (run_summary (self), error->message);
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  window = window_for_run (self, saved, &with_texts);
  show_run (window, saved, with_texts);
  g_task_return_pointer (task, g_object_ref (window), g_object_unref);
}

void
_tilde_window_open_run_async (TildeWindow         *self,
                              const char          *folder,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (TILDE_IS_WINDOW (self));
  g_return_if_fail (folder != NULL);
  task = g_task_new (self, self->run_cancellable, callback, user_data);
  g_task_set_source_tag (task, _tilde_window_open_run_async);
  tilde_saved_run_read_async (folder, self->run_cancellable, saved_run_read, task);
}

TildeWindow *
_tilde_window_open_run_finish (TildeWindow *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static gboolean
open_run_requested (TildeWindow *self, const char *folder)
{
  _tilde_window_open_run_async (self, folder, NULL, NULL);
  return TRUE;
}

static void
tilde_window_class_init (TildeWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = tilde_window_dispose;
  object_class->get_property = tilde_window_get_property;
  object_class->set_property = tilde_window_set_property;
  window_class->close_request = tilde_window_close_request;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SAVING] =
    g_param_spec_boolean ("saving", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Whether the editor adds pedantic warnings; kept in the settings. */
  properties[PROP_PEDANTIC] =
    g_param_spec_boolean ("pedantic", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Whether the compiler's output is shown beside the editor. */
  properties[PROP_SHOW_IR] =
    g_param_spec_boolean ("show-ir", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "0", "1" or "experimental", as the settings key has it. */
  properties[PROP_OPTIMIZATION_LEVEL] =
    g_param_spec_string ("optimization-level", NULL, NULL, "0",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (TILDE_TYPE_EDITOR);
  g_type_ensure (TILDE_TYPE_PROBLEMS_LIST);
  g_type_ensure (TILDE_TYPE_DATA_PANEL);
  g_type_ensure (TILDE_TYPE_IR_VIEW);
  g_type_ensure (TILDE_TYPE_RUN_CONTROLLER);
  g_type_ensure (TILDE_TYPE_RUN_PANEL);
  g_type_ensure (TILDE_TYPE_RUN_PLOTS);
  g_type_ensure (TILDE_TYPE_RUN_SUMMARY);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/tilde/Workbench/ui/tilde-window.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, editor);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, problems_list);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, data_panel);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, ir_view);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, level_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, workbench_paned);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, editor_paned);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, run_panel);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, run_controller);
  gtk_widget_class_bind_template_child (widget_class, TildeWindow, model_paned);

  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.format", NULL, format_action);
  gtk_widget_class_install_action (widget_class, "win.open-data", NULL, data_action);
  gtk_widget_class_install_action (widget_class, "win.save-data", NULL, data_action);
  gtk_widget_class_install_action (widget_class, "win.save-data-as", NULL, data_action);
  gtk_widget_class_install_action (widget_class, "win.format-data", NULL, data_action);
  gtk_widget_class_install_action (widget_class, "win.data-template", NULL, data_template_action);
  gtk_widget_class_install_property_action (widget_class, "win.pedantic", "pedantic");
  gtk_widget_class_install_property_action (widget_class, "win.show-ir", "show-ir");
  gtk_widget_class_install_property_action (widget_class, "win.optimization-level", "optimization-level");
  gtk_widget_class_install_action (widget_class, "win.next-pass", NULL, step_pass_action);
  gtk_widget_class_install_action (widget_class, "win.previous-pass", NULL, step_pass_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.run", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.stop", NULL);
}

static void
tilde_window_init (TildeWindow *self)
{
  GSettings *settings;

  self->show_ir = TRUE;
  self->optimization_level = g_strdup ("0");
  gtk_widget_init_template (GTK_WIDGET (self));
  tilde_frame_memory_keep (GTK_WINDOW (self));

  self->buffer = g_object_ref (tilde_editor_get_buffer (self->editor));
  g_object_bind_property (self, "pedantic", self->editor, "pedantic", G_BINDING_SYNC_CREATE);
  g_object_bind_property_full (self, "optimization-level", self->ir_view, "level",
                               G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL,
                               level_to_view, level_from_view, NULL, NULL);
  g_object_bind_property_full (self, "optimization-level", self->level_dropdown, "selected",
                               G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL,
                               level_to_view, level_from_view, NULL, NULL);
  self->source_file = gtk_source_file_new ();
  self->cancellable = g_cancellable_new ();

  /* Added last, so it runs before the application's accelerators. */
  {
    GtkEventController *keys = gtk_event_controller_key_new ();

    gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
    gtk_event_controller_set_static_name (keys, "tilde-data-panel-keys");
    g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed), self);
    gtk_widget_add_controller (GTK_WIDGET (self), keys);
  }

  g_signal_connect_object (self->buffer, "modified-changed",
                           G_CALLBACK (modified_changed), self, G_CONNECT_SWAPPED);
  /* After the buffer's own handler, which marks it modified. */
  g_signal_connect_object (self->buffer, "changed",
                           G_CALLBACK (schedule_autosave), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->data_panel, "notify::modified",
                           G_CALLBACK (modified_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (tilde_data_panel_get_buffer (self->data_panel), "changed",
                           G_CALLBACK (schedule_autosave), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_style_scheme), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->ir_view, "show-message",
                           G_CALLBACK (show_message), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->editor, "notify::highlight-suspended",
                           G_CALLBACK (highlight_suspended_changed), self, G_CONNECT_SWAPPED);
  update_style_scheme (self);
  update_title (self);

  self->recent_menu = g_menu_new ();
  adw_split_button_set_menu_model (self->open_button, G_MENU_MODEL (self->recent_menu));
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (update_recent_menu), self, G_CONNECT_SWAPPED);
  update_recent_menu (self);

  g_signal_connect_object (self->run_controller, "notify::running",
                           G_CALLBACK (run_state_changed), self, G_CONNECT_SWAPPED);
  run_state_changed (self);
  self->run_cancellable = g_cancellable_new ();
  g_signal_connect_object (run_summary (self), "open-run",
                           G_CALLBACK (open_run_requested), self, G_CONNECT_SWAPPED);

  /* The layout, sizes and options the last window had. */
  settings = app_settings ();
  if (settings != NULL)
    {
      bind_settings (self, settings);
      tilde_run_panel_set_settings (self->run_panel, settings);
    }
  tilde_run_panel_list_devices (self->run_panel);
}
