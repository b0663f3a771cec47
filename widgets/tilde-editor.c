/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-weak-ref.h"
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "tilde-completion-provider.h"
#include "tilde-diagnostic-marks.h"
#include "tilde-editor-private.h"
#include "tilde-long-lines.h"

#define DEFAULT_CHECK_DELAY_MS 250
#define UNTITLED_NAME "untitled.stan"

struct _TildeEditor
{
  GtkWidget parent_instance;

  /* Template children */
  GtkSearchBar            *search_bar;
  GtkSearchEntry          *search_entry;
  GtkLabel                *occurrences_label;
  GtkToggleButton         *replace_toggle;
  GtkEntry                *replace_entry;
  GtkSourceView           *view;

  GtkSourceBuffer         *buffer;
  TildeDiagnosticMarks    *marks;
  TildeWorker             *worker;
  GFile                   *file;
  TildeCompletionProvider *completion;
  GtkSourceSearchSettings *search_settings;
  GtkSourceSearchContext  *search_context;

  guint                    check_source;
  guint                    check_delay_ms;
  /* Counts buffer changes; a result is shown only for the text it checked. */
  guint64                  stamp;
  guint64                  checked_stamp;
  guint64                  check_generation;
  guint64                  shown_generation;
  TildeCheckResult        *shown_check;
  guint                    pedantic : 1;
  guint                    checking : 1;
  guint                    highlight_suspended : 1;
};

G_DEFINE_FINAL_TYPE (TildeEditor, tilde_editor, GTK_TYPE_WIDGET)

G_DEFINE_QUARK (tilde-editor-error-quark, tilde_editor_error)

enum {
  PROP_0,
  PROP_BUFFER,
  PROP_FILE,
  PROP_PEDANTIC,
  PROP_CHECK_DELAY_MS,
  PROP_CHECKING,
  PROP_PROBLEMS,
  PROP_HIGHLIGHT_SUSPENDED,
  N_PROPS
};

enum {
  CHECKED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

GtkWidget *
tilde_editor_new (void)
{
  return g_object_new (TILDE_TYPE_EDITOR, NULL);
}

GtkSourceBuffer *
tilde_editor_get_buffer (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), NULL);
  return self->buffer;
}

GtkSourceView *
tilde_editor_get_view (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), NULL);
  return self->view;
}

GFile *
tilde_editor_get_file (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), NULL);
  return self->file;
}

gboolean
tilde_editor_get_pedantic (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), FALSE);
  return self->pedantic;
}

guint
tilde_editor_get_check_delay (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), 0);
  return self->check_delay_ms;
}

gboolean
tilde_editor_get_checking (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), FALSE);
  return self->checking;
}

GListModel *
tilde_editor_get_problems (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), NULL);
  return tilde_diagnostic_marks_get_problems (self->marks);
}

TildeWorker *
_tilde_editor_get_worker (TildeEditor *self)
{
  return self->worker;
}

TildeCompletionProvider *
_tilde_editor_get_completion_provider (TildeEditor *self)
{
  return self->completion;
}

guint64
_tilde_editor_get_shown_generation (TildeEditor *self)
{
  return self->shown_generation;
}

TildeCheckResult *
_tilde_editor_get_shown_check (TildeEditor *self)
{
  return self->shown_check;
}

static void
set_checking (TildeEditor *self, gboolean checking)
{
  if (self->checking == !!checking)
    return;
  self->checking = !!checking;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKING]);
}

/* ---- checking ---- */

static char *
buffer_text (TildeEditor *self)
{
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  text = gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, TRUE);
  /* The file's last newline is not in the buffer; check the file as saved. */
  if (gtk_source_buffer_get_implicit_trailing_newline (self->buffer))
    return g_strconcat (text, "\n", NULL);
  return g_steal_pointer (&text);
}

static char *
display_name (TildeEditor *self)
{
  char *path = self->file ? g_file_get_path (self->file) : NULL;

  if (path == NULL && self->file != NULL)
    path = g_file_get_basename (self->file);
  return path ? path : g_strdup (UNTITLED_NAME);
}

static TildeJobInput *
job_input (TildeEditor *self)
{
  g_autofree char *text = buffer_text (self);
  g_autofree char *name = display_name (self);
  g_autoptr(GFile) parent = self->file ? g_file_get_parent (self->file) : NULL;
  g_autofree char *directory = parent ? g_file_get_path (parent) : NULL;
  TildeFrontendOptions opts = { 0 };

  opts.search_own_directory = TRUE;
  opts.pedantic = self->pedantic;
  return tilde_job_input_new (name, directory, text, -1, &opts);
}

TildeJobInput *
_tilde_editor_new_job_input (TildeEditor *self)
{
  return job_input (self);
}

static void
show_check (TildeEditor *self, TildeCheckResult *check, const char *main_name)
{
  tilde_diagnostic_marks_show (self->marks, tilde_check_result_get_diagnostics (check), main_name);

  /* Completion keeps the last program that parsed, so half-typed text
   * still completes the names declared around it. */
  if (tilde_check_result_get_program (check) != NULL)
    tilde_completion_provider_set_check (self->completion, check);
}

static void
check_done (TildeJobResult *result, gpointer user_data)
{
  g_autoptr(TildeEditor) self = g_weak_ref_get (user_data);
  TildeJobInput *input = tilde_job_result_get_input (result);

  /* Text typed since the check was taken: its own check is on the way. */
  if (self == NULL || self->checked_stamp != self->stamp
      || tilde_job_result_get_generation (result) != self->check_generation)
    return;
  show_check (self, tilde_job_result_get_check (result),
              tilde_job_input_get_display_name (input));
  g_clear_pointer (&self->shown_check, tilde_check_result_unref);
  self->shown_check = tilde_check_result_ref (tilde_job_result_get_check (result));
  self->shown_generation = tilde_job_result_get_generation (result);
  set_checking (self, FALSE);
  g_signal_emit (self, signals[CHECKED], 0);
}

void
tilde_editor_check_now (TildeEditor *self)
{
  g_autoptr(TildeJobInput) input = NULL;

  g_return_if_fail (TILDE_IS_EDITOR (self));
  g_clear_handle_id (&self->check_source, g_source_remove);
  if (self->worker == NULL)
    return;
  input = job_input (self);
  self->checked_stamp = self->stamp;
  self->check_generation = tilde_worker_check (self->worker, input, check_done,
                                               tilde_weak_ref_new (self), tilde_weak_ref_free);
  set_checking (self, TRUE);
}

static gboolean
check_timeout (gpointer user_data)
{
  TildeEditor *self = user_data;

  self->check_source = 0;
  tilde_editor_check_now (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_check (TildeEditor *self)
{
  g_clear_handle_id (&self->check_source, g_source_remove);
  self->check_source = g_timeout_add_full (G_PRIORITY_DEFAULT, self->check_delay_ms,
                                           check_timeout, self, NULL);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->check_source),
                            "[tilde] check after typing");
  set_checking (self, TRUE);
}

static void
buffer_changed (TildeEditor *self)
{
  self->stamp++;
  schedule_check (self);
}

void
tilde_editor_set_file (TildeEditor *self, GFile *file)
{
  g_return_if_fail (TILDE_IS_EDITOR (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));

  if (self->file == file || (self->file && file && g_file_equal (self->file, file)))
    return;
  g_set_object (&self->file, file);
  schedule_check (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

void
tilde_editor_set_pedantic (TildeEditor *self, gboolean pedantic)
{
  g_return_if_fail (TILDE_IS_EDITOR (self));
  if (self->pedantic == !!pedantic)
    return;
  self->pedantic = !!pedantic;
  tilde_editor_check_now (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PEDANTIC]);
}

void
tilde_editor_set_check_delay (TildeEditor *self, guint delay_ms)
{
  g_return_if_fail (TILDE_IS_EDITOR (self));
  if (self->check_delay_ms == delay_ms)
    return;
  self->check_delay_ms = delay_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECK_DELAY_MS]);
}

void
tilde_editor_go_to_problem (TildeEditor *self, TildeProblem *problem)
{
  GtkTextBuffer *buffer;
  GtkTextIter begin;

  g_return_if_fail (TILDE_IS_EDITOR (self));
  g_return_if_fail (TILDE_IS_PROBLEM (problem));

  if (!tilde_problem_get_bounds (problem, &begin, NULL))
    return;
  buffer = GTK_TEXT_BUFFER (self->buffer);
  gtk_text_buffer_place_cursor (buffer, &begin);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->view), gtk_text_buffer_get_insert (buffer),
                                0.25, FALSE, 0, 0);
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

void
tilde_editor_select_range (TildeEditor *self, int line, int column, int end_line, int end_column)
{
  GtkTextBuffer *buffer;
  GtkTextIter begin, end;

  g_return_if_fail (TILDE_IS_EDITOR (self));

  buffer = GTK_TEXT_BUFFER (self->buffer);
  tilde_text_iter_at_position (buffer, &begin, line, column);
  tilde_text_iter_at_position (buffer, &end, end_line, end_column);
  if (gtk_text_iter_compare (&end, &begin) < 0)
    end = begin;
  /* The cursor at the start, so that what follows the cursor sees the
   * range's first line. */
  gtk_text_buffer_select_range (buffer, &begin, &end);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->view), gtk_text_buffer_get_insert (buffer),
                                0.1, FALSE, 0, 0);
}

/* ---- formatting ---- */

typedef struct {
  GTask   *task;
  guint64  stamp;
  gboolean returned;
} FormatRequest;

static void
format_request_free (gpointer data)
{
  FormatRequest *request = data;

  /* A format that was superseded or never ran still answers its caller. */
  if (!request->returned)
    g_task_return_new_error (request->task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "%s", _("Formatting was cancelled"));
  g_object_unref (request->task);
  g_free (request);
}

static void
format_return_error (FormatRequest *request, int code, const char *message)
{
  request->returned = TRUE;
  g_task_return_new_error (request->task, TILDE_EDITOR_ERROR, code, "%s", message);
}

/* Replaces only what differs, so marks and the view outside the change
 * stay where they are; one user action, so one undo step. */
static void
replace_text (GtkTextBuffer *buffer, const char *old_text, const char *new_text)
{
  gsize old_len = strlen (old_text), new_len = strlen (new_text);
  gsize prefix = 0, suffix = 0;
  GtkTextIter begin, end;

  while (prefix < old_len && prefix < new_len && old_text[prefix] == new_text[prefix])
    prefix++;
  while (prefix > 0 && (old_text[prefix] & 0xc0) == 0x80)
    prefix--;
  while (suffix < old_len - prefix && suffix < new_len - prefix
         && old_text[old_len - 1 - suffix] == new_text[new_len - 1 - suffix])
    suffix++;
  while (suffix > 0 && (old_text[old_len - suffix] & 0xc0) == 0x80)
    suffix--;
  if (prefix == old_len && prefix == new_len)
    return;

  gtk_text_buffer_get_iter_at_offset (buffer, &begin, (int) g_utf8_pointer_to_offset (old_text, old_text + prefix));
  gtk_text_buffer_get_iter_at_offset (buffer, &end,
                                      (int) g_utf8_pointer_to_offset (old_text, old_text + old_len - suffix));
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete (buffer, &begin, &end);
  gtk_text_buffer_insert (buffer, &begin, new_text + prefix, (int) (new_len - suffix - prefix));
  gtk_text_buffer_end_user_action (buffer);
}

static void
format_done (TildeJobResult *result, gpointer user_data)
{
  FormatRequest *request = user_data;
  TildeEditor *self = g_task_get_source_object (request->task);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  gboolean implicit_newline = gtk_source_buffer_get_implicit_trailing_newline (self->buffer);
  int line, column;
  const char *formatted = tilde_job_result_get_formatted (result, &line, &column);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  GtkTextIter cursor;

  request->returned = TRUE;
  if (g_task_return_error_if_cancelled (request->task))
    return;
  if (request->stamp != self->stamp || self->worker == NULL)
    {
      format_return_error (request, TILDE_EDITOR_ERROR_CHANGED,
                           _("The model changed while it was being formatted"));
      return;
    }
  if (formatted == NULL)
    {
      format_return_error (request, TILDE_EDITOR_ERROR_NOT_FORMATTED,
                           tilde_check_result_get_program (tilde_job_result_get_check (result)) == NULL
                           ? _("The model has syntax errors; correct them to format it")
                           : _("The formatter could not keep the model’s meaning, so it was left as it is"));
      return;
    }

  /* The buffer has not changed since, so it still holds the job's text. */
  before = g_strdup (tilde_job_input_get_text (tilde_job_result_get_input (result), NULL));
  after = g_strdup (formatted);
  if (implicit_newline && g_str_has_suffix (before, "\n"))
    before[strlen (before) - 1] = '\0';
  if (implicit_newline && g_str_has_suffix (after, "\n"))
    after[strlen (after) - 1] = '\0';
  replace_text (buffer, before, after);

  tilde_text_iter_at_position (buffer, &cursor, line, column);
  gtk_text_buffer_place_cursor (buffer, &cursor);
  gtk_text_view_scroll_mark_onscreen (GTK_TEXT_VIEW (self->view), gtk_text_buffer_get_insert (buffer));
  g_task_return_boolean (request->task, TRUE);
}

void
tilde_editor_format_async (TildeEditor *self, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  GtkTextBuffer *buffer;
  g_autoptr(TildeJobInput) input = NULL;
  FormatRequest *request;
  GtkTextIter cursor;

  g_return_if_fail (TILDE_IS_EDITOR (self));
  g_return_if_fail (self->worker != NULL);

  buffer = GTK_TEXT_BUFFER (self->buffer);
  gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
  request = g_new0 (FormatRequest, 1);
  request->task = g_task_new (self, cancellable, callback, user_data);
  request->stamp = self->stamp;
  g_task_set_source_tag (request->task, tilde_editor_format_async);
  input = job_input (self);
  tilde_worker_format (self->worker, input, gtk_text_iter_get_line (&cursor) + 1,
                       gtk_text_iter_get_line_index (&cursor),
                       format_done, request, format_request_free);
}

gboolean
tilde_editor_format_finish (TildeEditor *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- search and replace ---- */

static void
update_occurrences (TildeEditor *self)
{
  GtkTextIter start, end;
  int count = gtk_source_search_context_get_occurrences_count (self->search_context);
  int position;
  g_autofree char *text = NULL;

  if (gtk_source_search_settings_get_search_text (self->search_settings) == NULL || count < 0)
    {
      gtk_label_set_text (self->occurrences_label, "");
      return;
    }
  if (count == 0)
    {
      gtk_label_set_text (self->occurrences_label, _("No matches"));
      return;
    }
  gtk_text_buffer_get_selection_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  position = gtk_source_search_context_get_occurrence_position (self->search_context, &start, &end);
  if (position > 0)
    /* Translators: the match under the cursor and how many there are */
    text = g_strdup_printf (_("%d of %d"), position, count);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d match", "%d matches", count), count);
  gtk_label_set_text (self->occurrences_label, text);
}

static void
select_match (TildeEditor *self, gboolean backward, gboolean from_start_of_selection)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkTextIter start, end, match_start, match_end;
  gboolean wrapped, found;

  gtk_text_buffer_get_selection_bounds (buffer, &start, &end);
  if (backward)
    found = gtk_source_search_context_backward (self->search_context, &start,
                                                &match_start, &match_end, &wrapped);
  else
    found = gtk_source_search_context_forward (self->search_context,
                                               from_start_of_selection ? &start : &end,
                                               &match_start, &match_end, &wrapped);
  if (!found)
    return;
  gtk_text_buffer_select_range (buffer, &match_start, &match_end);
  gtk_text_view_scroll_mark_onscreen (GTK_TEXT_VIEW (self->view), gtk_text_buffer_get_insert (buffer));
  update_occurrences (self);
}

static void
search_changed_cb (TildeEditor *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  gtk_source_search_settings_set_search_text (self->search_settings, text[0] ? text : NULL);
  if (text[0] != '\0')
    select_match (self, FALSE, TRUE);
  update_occurrences (self);
}

static void
search_next_cb (TildeEditor *self)
{
  select_match (self, FALSE, FALSE);
}

static void
search_previous_cb (TildeEditor *self)
{
  select_match (self, TRUE, FALSE);
}

static void
stop_search_cb (TildeEditor *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

static void
replace_current (TildeEditor *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  const char *replacement = gtk_editable_get_text (GTK_EDITABLE (self->replace_entry));
  g_autoptr(GError) error = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_selection_bounds (buffer, &start, &end);
  if (gtk_source_search_context_get_occurrence_position (self->search_context, &start, &end) > 0
      && !gtk_source_search_context_replace (self->search_context, &start, &end,
                                             replacement, -1, &error))
    g_debug ("Could not replace: %s", error->message);
  else
    gtk_text_buffer_select_range (buffer, &end, &end);
  select_match (self, FALSE, FALSE);
}

static void
replace_all (TildeEditor *self)
{
  const char *replacement = gtk_editable_get_text (GTK_EDITABLE (self->replace_entry));
  g_autoptr(GError) error = NULL;

  if (gtk_source_search_context_replace_all (self->search_context, replacement, -1, &error) == 0
      && error != NULL)
    g_debug ("Could not replace: %s", error->message);
  update_occurrences (self);
}

void
tilde_editor_show_search (TildeEditor *self, gboolean replace)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_if_fail (TILDE_IS_EDITOR (self));
  buffer = GTK_TEXT_BUFFER (self->buffer);
  /* A selection on one line is what to look for. */
  if (gtk_text_buffer_get_selection_bounds (buffer, &start, &end)
      && gtk_text_iter_get_line (&start) == gtk_text_iter_get_line (&end))
    {
      g_autofree char *text = gtk_text_iter_get_slice (&start, &end);
      gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text);
    }
  gtk_toggle_button_set_active (self->replace_toggle, replace);
  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
  gtk_editable_select_region (GTK_EDITABLE (self->search_entry), 0, -1);
}

static void
find_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_editor_show_search (TILDE_EDITOR (widget), FALSE);
}

static void
find_replace_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_editor_show_search (TILDE_EDITOR (widget), TRUE);
}

static void
find_next_action (GtkWidget *widget, const char *name, GVariant *param)
{
  search_next_cb (TILDE_EDITOR (widget));
}

static void
find_previous_action (GtkWidget *widget, const char *name, GVariant *param)
{
  search_previous_cb (TILDE_EDITOR (widget));
}

static void
replace_action (GtkWidget *widget, const char *name, GVariant *param)
{
  replace_current (TILDE_EDITOR (widget));
}

static void
replace_all_action (GtkWidget *widget, const char *name, GVariant *param)
{
  replace_all (TILDE_EDITOR (widget));
}

/* ---- life cycle ---- */

static void
tilde_editor_dispose (GObject *object)
{
  TildeEditor *self = TILDE_EDITOR (object);
  GtkWidget *child;

  g_clear_handle_id (&self->check_source, g_source_remove);
  /* Stops the engine thread; no result arrives after this. */
  g_clear_pointer (&self->worker, tilde_worker_free);
  /* Before the buffer: the problems hold marks in it. */
  g_clear_object (&self->marks);
  g_clear_pointer (&self->shown_check, tilde_check_result_unref);
  g_clear_object (&self->search_context);
  g_clear_object (&self->search_settings);
  g_clear_object (&self->completion);
  g_clear_object (&self->file);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_EDITOR);
  /* Unnamed template children too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->buffer);
  G_OBJECT_CLASS (tilde_editor_parent_class)->dispose (object);
}

/* ---- lines too long to highlight (tilde-long-lines.h) ---- */

static void
suspend_highlighting (TildeEditor *self, gboolean suspended)
{
  if (self->highlight_suspended == !!suspended)
    return;
  self->highlight_suspended = !!suspended;
  gtk_source_buffer_set_highlight_syntax (self->buffer, !suspended);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGHLIGHT_SUSPENDED]);
}

/* Before GtkSourceView's engine gets to the line in its idle callback. */
static void
text_inserted (TildeEditor *self, const GtkTextIter *end, const char *text, int len)
{
  if (!self->highlight_suspended
      && tilde_longest_line_inserted (end, text, len) > TILDE_HIGHLIGHT_LINE_LIMIT)
    suspend_highlighting (self, TRUE);
}

/* Only a deletion can make the long lines short again. */
static void
range_deleted (TildeEditor *self)
{
  if (self->highlight_suspended
      && tilde_longest_line_in_buffer (GTK_TEXT_BUFFER (self->buffer)) <= TILDE_HIGHLIGHT_LINE_LIMIT)
    suspend_highlighting (self, FALSE);
}

gboolean
tilde_editor_get_highlight_suspended (TildeEditor *self)
{
  g_return_val_if_fail (TILDE_IS_EDITOR (self), FALSE);
  return self->highlight_suspended;
}

static void
tilde_editor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeEditor *self = TILDE_EDITOR (object);

  switch (prop_id)
    {
    case PROP_BUFFER:
      g_value_set_object (value, self->buffer);
      break;
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_PEDANTIC:
      g_value_set_boolean (value, self->pedantic);
      break;
    case PROP_CHECK_DELAY_MS:
      g_value_set_uint (value, self->check_delay_ms);
      break;
    case PROP_CHECKING:
      g_value_set_boolean (value, self->checking);
      break;
    case PROP_PROBLEMS:
      g_value_set_object (value, tilde_diagnostic_marks_get_problems (self->marks));
      break;
    case PROP_HIGHLIGHT_SUSPENDED:
      g_value_set_boolean (value, self->highlight_suspended);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_editor_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TildeEditor *self = TILDE_EDITOR (object);

  switch (prop_id)
    {
    case PROP_FILE:
      tilde_editor_set_file (self, g_value_get_object (value));
      break;
    case PROP_PEDANTIC:
      tilde_editor_set_pedantic (self, g_value_get_boolean (value));
      break;
    case PROP_CHECK_DELAY_MS:
      tilde_editor_set_check_delay (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_editor_class_init (TildeEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_editor_dispose;
  object_class->get_property = tilde_editor_get_property;
  object_class->set_property = tilde_editor_set_property;

  properties[PROP_BUFFER] =
    g_param_spec_object ("buffer", NULL, NULL, GTK_SOURCE_TYPE_BUFFER,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PEDANTIC] =
    g_param_spec_boolean ("pedantic", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* GSettings binds the schema's int key; the schema keeps it in range. */
  properties[PROP_CHECK_DELAY_MS] =
    g_param_spec_uint ("check-delay-ms", NULL, NULL, 0, 60000, DEFAULT_CHECK_DELAY_MS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CHECKING] =
    g_param_spec_boolean ("checking", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROBLEMS] =
    g_param_spec_object ("problems", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_HIGHLIGHT_SUSPENDED] =
    g_param_spec_boolean ("highlight-suspended", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted when the result of a check is shown. */
  signals[CHECKED] = g_signal_new ("checked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/tilde/Workbench/ui/tilde-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeEditor, search_bar);
  gtk_widget_class_bind_template_child (widget_class, TildeEditor, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TildeEditor, occurrences_label);
  gtk_widget_class_bind_template_child (widget_class, TildeEditor, replace_toggle);
  gtk_widget_class_bind_template_child (widget_class, TildeEditor, replace_entry);
  gtk_widget_class_bind_template_child (widget_class, TildeEditor, view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_next_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_previous_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);

  gtk_widget_class_install_action (widget_class, "editor.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "editor.find-replace", NULL, find_replace_action);
  gtk_widget_class_install_action (widget_class, "editor.find-next", NULL, find_next_action);
  gtk_widget_class_install_action (widget_class, "editor.find-previous", NULL, find_previous_action);
  gtk_widget_class_install_action (widget_class, "editor.replace", NULL, replace_action);
  gtk_widget_class_install_action (widget_class, "editor.replace-all", NULL, replace_all_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "editor.find", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_h, GDK_CONTROL_MASK, "editor.find-replace", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "editor.find-next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "editor.find-previous", NULL);
}

static void
tilde_editor_init (TildeEditor *self)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceCompletion *completion;
  GtkTextBuffer *buffer;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->check_delay_ms = DEFAULT_CHECK_DELAY_MS;
  self->worker = tilde_worker_new ();

  self->buffer = gtk_source_buffer_new (NULL);
  buffer = GTK_TEXT_BUFFER (self->buffer);
  gtk_source_buffer_set_language (self->buffer,
                                  gtk_source_language_manager_get_language (languages, "stan"));
  gtk_source_buffer_set_highlight_syntax (self->buffer, TRUE);
  gtk_text_view_set_buffer (GTK_TEXT_VIEW (self->view), buffer);
  g_signal_connect_object (self->buffer, "changed",
                           G_CALLBACK (buffer_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "insert-text",
                           G_CALLBACK (text_inserted), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->buffer, "delete-range",
                           G_CALLBACK (range_deleted), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);

  /* Squiggles, gutter marks, hovers and the problems list. */
  self->marks = tilde_diagnostic_marks_new (self->view);
  self->completion = tilde_completion_provider_new ();
  completion = gtk_source_view_get_completion (self->view);
  gtk_source_completion_add_provider (completion, GTK_SOURCE_COMPLETION_PROVIDER (self->completion));
  /* The first proposal is selected, so its signatures show at once. */
  g_object_set (completion, "select-on-show", TRUE, NULL);

  self->search_settings = gtk_source_search_settings_new ();
  gtk_source_search_settings_set_wrap_around (self->search_settings, TRUE);
  self->search_context = gtk_source_search_context_new (self->buffer, self->search_settings);
  g_object_bind_property (self->search_bar, "search-mode-enabled",
                          self->search_context, "highlight", G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->search_context, "notify::occurrences-count",
                           G_CALLBACK (update_occurrences), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "notify::cursor-position",
                           G_CALLBACK (update_occurrences), self, G_CONNECT_SWAPPED);
}
