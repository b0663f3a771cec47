/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-weak-ref.h"
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "io/data-template.h"
#include "io/json-data.h"
#include "io/json-format.h"
#include "tilde-data-panel-private.h"
#include "tilde-diagnostic-marks.h"
#include "tilde-editor-private.h"
#include "tilde-long-lines.h"
#include "tilde-problems-list.h"

#define DEFAULT_CHECK_DELAY_MS 250
#define UNTITLED_NAME "untitled.json"

struct _TildeDataPanel
{
  GtkWidget             parent_instance;

  /* Template children */
  GtkLabel             *file_label;
  GtkInfoBar           *info_bar;
  GtkLabel             *info_label;
  GtkSourceView        *view;
  GtkWidget            *empty_state;
  GtkStack             *content;
  GtkLabel             *summary_label;
  GtkGrid              *summary_variables;
  TildeProblemsList    *problems_list;

  GtkSourceBuffer      *buffer;
  /* What the view shows while the text is going in, or is too wide to lay out. */
  GtkSourceBuffer      *no_text;
  GtkSourceFile        *source_file;
  TildeDiagnosticMarks *marks;
  TildeWorker          *worker;
  TildeCheckResult     *model;
  TildeEditor          *editor;
  gulong                editor_checked_id;
  GBinding             *scheme_binding;

  /* Text going in a piece at a time (put_text_*), for a load. */
  char                 *put_text;
  gsize                 put_len;
  gsize                 put_pos;
  gsize                 put_longest_line;
  GStrv                 put_summary;
  gboolean              put_modified;
  GTask                *put_task;
  /* How the file was written, so that Save writes it back the same way. */
  GtkSourceNewlineType  newline;
  const GtkSourceEncoding *encoding;
  guint                 put_source;

  guint                 check_source;
  guint                 check_delay_ms;
  /* Counts buffer changes; a result is shown only for the text it checked. */
  guint64               stamp;
  guint64               checked_stamp;
  guint64               check_generation;
  guint64               shown_generation;
  guint                 checking : 1;
  guint                 loading : 1;
  guint                 saving : 1;
  guint                 templating : 1;
  guint                 summarised : 1;
  guint                 formatting : 1;
  /* Shown without highlighting for a long line alone (not for its size). */
  guint                 long_line_plain : 1;
};

G_DEFINE_FINAL_TYPE (TildeDataPanel, tilde_data_panel, GTK_TYPE_WIDGET)

G_DEFINE_QUARK (tilde-data-panel-error-quark, tilde_data_panel_error)

enum {
  PROP_0,
  PROP_EDITOR,
  PROP_FILE,
  PROP_MODIFIED,
  PROP_LOADING,
  PROP_CHECK_DELAY_MS,
  PROP_CHECKING,
  PROP_PROBLEMS,
  N_PROPS
};

enum {
  CHECKED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

GtkWidget *
tilde_data_panel_new (void)
{
  return g_object_new (TILDE_TYPE_DATA_PANEL, NULL);
}

GtkSourceBuffer *
tilde_data_panel_get_buffer (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return self->buffer;
}

GtkSourceView *
tilde_data_panel_get_view (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return self->view;
}

TildeCheckResult *
tilde_data_panel_get_model (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return self->model;
}

TildeEditor *
tilde_data_panel_get_editor (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return self->editor;
}

GFile *
tilde_data_panel_get_file (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return gtk_source_file_get_location (self->source_file);
}

gboolean
tilde_data_panel_get_modified (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), FALSE);
  return gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (self->buffer));
}

gboolean
tilde_data_panel_get_loading (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), FALSE);
  return self->loading;
}

guint
tilde_data_panel_get_check_delay (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), 0);
  return self->check_delay_ms;
}

void
tilde_data_panel_set_check_delay (TildeDataPanel *self, guint delay_ms)
{
  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  if (self->check_delay_ms == delay_ms)
    return;
  self->check_delay_ms = delay_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECK_DELAY_MS]);
}

gboolean
tilde_data_panel_get_checking (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), FALSE);
  return self->checking;
}

GListModel *
tilde_data_panel_get_problems (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return tilde_diagnostic_marks_get_problems (self->marks);
}

TildeWorker *
_tilde_data_panel_get_worker (TildeDataPanel *self)
{
  return self->worker;
}

const char *
_tilde_data_panel_get_message (TildeDataPanel *self)
{
  g_return_val_if_fail (TILDE_IS_DATA_PANEL (self), NULL);
  return gtk_info_bar_get_revealed (self->info_bar) ? gtk_label_get_text (self->info_label) : NULL;
}

guint64
_tilde_data_panel_get_shown_generation (TildeDataPanel *self)
{
  return self->shown_generation;
}

/* ---- state shown around the text ---- */

static gboolean
buffer_is_blank (TildeDataPanel *self)
{
  GtkTextIter iter;

  gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (self->buffer), &iter);
  while (!gtk_text_iter_is_end (&iter))
    {
      if (!g_unichar_isspace (gtk_text_iter_get_char (&iter)))
        return FALSE;
      gtk_text_iter_forward_char (&iter);
    }
  return TRUE;
}

static void
update_actions (TildeDataPanel *self)
{
  gboolean idle = !self->loading && !self->saving && !self->formatting;
  gboolean blank = buffer_is_blank (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "data.open", idle);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "data.save", idle);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "data.save-as", idle);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "data.insert-template",
                                 idle && !self->templating && self->model != NULL && blank);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "data.format", idle && !blank);
  gtk_widget_set_visible (self->empty_state,
                          !self->loading
                          && gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (self->buffer)) == 0);
}

static void
update_file_label (TildeDataPanel *self)
{
  GFile *file = tilde_data_panel_get_file (self);
  gboolean modified = tilde_data_panel_get_modified (self);
  g_autofree char *name = file ? g_file_get_basename (file) : NULL;
  g_autofree char *path = file ? g_file_get_parse_name (file) : NULL;
  g_autofree char *text = NULL;

  if (name == NULL && gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (self->buffer)) > 0)
    name = g_strdup (_("Unsaved"));
  /* The mark the window's title gives a model with unsaved changes. */
  if (name != NULL)
    text = modified && file ? g_strconcat ("• ", name, NULL) : g_strdup (name);
  gtk_label_set_text (self->file_label, text ? text : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->file_label), path);
}

static void
show_error (TildeDataPanel *self, const char *what, const GError *error)
{
  g_autofree char *text = g_strdup_printf ("%s\n%s", what, error->message);

  gtk_info_bar_set_message_type (self->info_bar, GTK_MESSAGE_ERROR);
  gtk_label_set_text (self->info_label, text);
  gtk_info_bar_set_revealed (self->info_bar, TRUE);
}

/* ---- highlighting ---- */

/* Highlighting is off for text going in whole (a file read, a text
 * restored), and back on once it is in, unless it is over this many
 * characters. GtkSourceView's highlighting of rows of numbers takes a tag
 * per number: a 29 MB file of 30,000 rows of 100 numbers took a minute of
 * the main thread and 1.1 GB of memory to colour, for text nobody reads
 * by eye. */
#define HIGHLIGHT_LIMIT_CHARS (2 * 1024 * 1024)
/* Nor with a line over TILDE_HIGHLIGHT_LINE_LIMIT bytes (tilde-long-lines.h). */

static void
stop_highlighting (TildeDataPanel *self)
{
  gtk_source_buffer_set_language (self->buffer, NULL);
}

static void
note (TildeDataPanel *self, const char *text)
{
  gtk_info_bar_set_message_type (self->info_bar, GTK_MESSAGE_INFO);
  gtk_label_set_text (self->info_label, text);
  gtk_info_bar_set_revealed (self->info_bar, TRUE);
}

/* Highlights text just put in whose longest line is `longest_line` bytes,
 * or says why it does not. */
static void
highlight_unless_large (TildeDataPanel *self, gsize longest_line)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  int chars = gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (self->buffer));

  self->long_line_plain = chars <= HIGHLIGHT_LIMIT_CHARS && longest_line > TILDE_HIGHLIGHT_LINE_LIMIT;
  if (chars <= HIGHLIGHT_LIMIT_CHARS && longest_line <= TILDE_HIGHLIGHT_LINE_LIMIT)
    {
      gtk_source_buffer_set_language (self->buffer,
                                      gtk_source_language_manager_get_language (languages, "json"));
      return;
    }
  if (self->summarised)
    return;   /* the summary says more */
  g_autofree char *text = NULL;
  if (chars > HIGHLIGHT_LIMIT_CHARS)
    {
      g_autofree char *size = g_format_size ((guint64) chars);
      text = g_strdup_printf (_("These data are large (%s), so they are shown without syntax "
                                "highlighting."), size);
    }
  else
    {
      g_autofree char *size = g_format_size (longest_line);
      text = g_strdup_printf (_("A line of these data is %s long, so they are shown without syntax "
                                "highlighting."), size);
    }
  note (self, text);
}

/* Typing or pasting a line longer than the limit turns highlighting off
 * before it costs a keystroke's worth of seconds. */
static void
text_inserted (TildeDataPanel *self, const GtkTextIter *end, const char *text, int len)
{
  gsize longest;

  if (self->put_task != NULL || gtk_source_buffer_get_language (self->buffer) == NULL)
    return;
  longest = tilde_longest_line_inserted (end, text, len);
  if (longest > TILDE_HIGHLIGHT_LINE_LIMIT)
    {
      stop_highlighting (self);
      highlight_unless_large (self, longest);
    }
}

/* Plain for a long line only: highlighted again once it is gone (the
 * whole text measured after each deletion, while that lasts). */
static void
range_deleted (TildeDataPanel *self)
{
  if (!self->long_line_plain || self->put_task != NULL || self->summarised
      || tilde_longest_line_in_buffer (GTK_TEXT_BUFFER (self->buffer)) > TILDE_HIGHLIGHT_LINE_LIMIT)
    return;
  highlight_unless_large (self, 0);
  if (gtk_source_buffer_get_language (self->buffer) != NULL)
    gtk_info_bar_set_revealed (self->info_bar, FALSE);
}

static void
info_bar_response_cb (TildeDataPanel *self, int response)
{
  gtk_info_bar_set_revealed (self->info_bar, FALSE);
}

static void
set_checking (TildeDataPanel *self, gboolean checking)
{
  if (self->checking == !!checking)
    return;
  self->checking = !!checking;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKING]);
}

static void
set_loading (TildeDataPanel *self, gboolean loading)
{
  if (self->loading == !!loading)
    return;
  self->loading = !!loading;
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->view), !loading);
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

/* ---- checking ---- */

/* Takes `text`, `*len` bytes of the buffer's text: the file as saved, its
 * last newline (not in the buffer) put back, grown in place so that a
 * large file's text is not copied again. */
static char *
as_saved (TildeDataPanel *self, char *text, gsize *len)
{
  if (gtk_source_buffer_get_implicit_trailing_newline (self->buffer) && *len > 0)
    {
      text = g_realloc (text, *len + 2);
      text[(*len)++] = '\n';
    }
  text[*len] = '\0';
  return text;
}

static char *
buffer_text (TildeDataPanel *self, gsize *len)
{
  GtkTextIter start, end;
  char *text;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  text = gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, TRUE);
  *len = strlen (text);
  return as_saved (self, text, len);
}

static char *
display_name (TildeDataPanel *self)
{
  GFile *file = tilde_data_panel_get_file (self);
  char *path = file ? g_file_get_path (file) : NULL;

  if (path == NULL && file != NULL)
    path = g_file_get_basename (file);
  return path ? path : g_strdup (UNTITLED_NAME);
}

static void
check_done (TildeJobResult *result, gpointer user_data)
{
  g_autoptr(TildeDataPanel) self = g_weak_ref_get (user_data);
  TildeJobInput *input = tilde_job_result_get_input (result);

  /* Text typed since the check was taken: its own check is on the way. */
  if (self == NULL || self->checked_stamp != self->stamp
      || tilde_job_result_get_generation (result) != self->check_generation)
    return;
  tilde_diagnostic_marks_show (self->marks, tilde_job_result_get_data_diagnostics (result),
                               tilde_job_input_get_display_name (input));
  self->shown_generation = tilde_job_result_get_generation (result);
  set_checking (self, FALSE);
  g_signal_emit (self, signals[CHECKED], 0);
}

/* Checks `text` (taken), what the buffer holds as saved. */
static void
check_text (TildeDataPanel *self, char *text, gsize len)
{
  g_autoptr(TildeJobInput) input = NULL;
  g_autofree char *name = NULL;

  g_clear_handle_id (&self->check_source, g_source_remove);
  if (self->worker == NULL)
    {
      g_free (text);
      return;
    }
  name = display_name (self);
  input = tilde_job_input_new_take (name, NULL, text, len, NULL);
  self->checked_stamp = self->stamp;
  self->check_generation = tilde_worker_check_data (self->worker, input, self->model, check_done,
                                                    tilde_weak_ref_new (self), tilde_weak_ref_free);
  set_checking (self, TRUE);
}

void
tilde_data_panel_check_now (TildeDataPanel *self)
{
  gsize len;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  char *text = buffer_text (self, &len);
  check_text (self, text, len);
}

static gboolean
check_timeout (gpointer user_data)
{
  TildeDataPanel *self = user_data;

  self->check_source = 0;
  tilde_data_panel_check_now (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_check (TildeDataPanel *self)
{
  g_clear_handle_id (&self->check_source, g_source_remove);
  self->check_source = g_timeout_add_full (G_PRIORITY_DEFAULT, self->check_delay_ms,
                                           check_timeout, self, NULL);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->check_source),
                            "[tilde] data check after typing");
  set_checking (self, TRUE);
}

static void
buffer_changed (TildeDataPanel *self)
{
  self->stamp++;
  update_actions (self);
  update_file_label (self);
  schedule_check (self);
}

static void
modified_changed (TildeDataPanel *self)
{
  update_file_label (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

/* ---- the model ---- */

void
tilde_data_panel_set_model (TildeDataPanel *self, TildeCheckResult *model)
{
  g_return_if_fail (TILDE_IS_DATA_PANEL (self));

  /* A model being typed is often broken for a moment: the data stay
   * checked against the last one that type-checked. */
  if (model != NULL && (tilde_check_result_has_errors (model)
                        || tilde_check_result_get_program (model) == NULL))
    return;
  if (self->model == model)
    return;
  g_clear_pointer (&self->model, tilde_check_result_unref);
  self->model = model ? tilde_check_result_ref (model) : NULL;
  update_actions (self);
  tilde_data_panel_check_now (self);
}

static void
editor_checked (TildeDataPanel *self, TildeEditor *editor)
{
  tilde_data_panel_set_model (self, _tilde_editor_get_shown_check (editor));
}

void
tilde_data_panel_set_editor (TildeDataPanel *self, TildeEditor *editor)
{
  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  g_return_if_fail (editor == NULL || TILDE_IS_EDITOR (editor));

  if (self->editor == editor)
    return;
  g_clear_pointer (&self->scheme_binding, g_binding_unbind);
  if (self->editor != NULL)
    g_clear_signal_handler (&self->editor_checked_id, self->editor);
  g_set_object (&self->editor, editor);
  if (editor != NULL)
    {
      self->editor_checked_id = g_signal_connect_object (editor, "checked", G_CALLBACK (editor_checked),
                                                         self, G_CONNECT_SWAPPED);
      self->scheme_binding = g_object_bind_property (tilde_editor_get_buffer (editor), "style-scheme",
                                                     self->buffer, "style-scheme",
                                                     G_BINDING_SYNC_CREATE);
      if (_tilde_editor_get_shown_check (editor) != NULL)
        editor_checked (self, editor);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITOR]);
}

void
tilde_data_panel_go_to_problem (TildeDataPanel *self, TildeProblem *problem)
{
  GtkTextBuffer *buffer;
  GtkTextIter begin;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  g_return_if_fail (TILDE_IS_PROBLEM (problem));

  /* Text too wide to show has no place to go to; the problem says where. */
  if (self->summarised || !tilde_problem_get_bounds (problem, &begin, NULL))
    return;
  buffer = GTK_TEXT_BUFFER (self->buffer);
  gtk_text_buffer_place_cursor (buffer, &begin);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->view), gtk_text_buffer_get_insert (buffer),
                                0.25, FALSE, 0, 0);
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

static void
problem_activated_cb (TildeDataPanel *self, TildeProblem *problem)
{
  tilde_data_panel_go_to_problem (self, problem);
}

/* ---- text going in whole ---- */

/* A line longer than this many bytes is not laid out: GtkTextView lays a
 * line out whole, 0.18 s a megabyte, at each change of it, and a file a
 * JSON writer put on one line is as long as the file. Such data are
 * summarised instead of shown, and stay read as they are. */
#define LAYOUT_LINE_LIMIT (256 * 1024)
/* What goes into the buffer in one main-loop turn, about 2 ms of it,
 * extended to the end of its line: inserting into a line costs its length,
 * so pieces begin lines. */
#define PUT_PIECE_BYTES (256 * 1024)

/* "name", "how it looks" pairs of the variables of `text`, for the summary
 * of text too wide to show (empty where it is not valid data). */
static GStrv
summarise (const char *text, gsize len)
{
  g_autoptr(TildeJsonData) data = tilde_json_data_new_from_string (text, (gssize) len, NULL);
  g_auto(GStrv) names = tilde_json_data_names (data);
  GStrvBuilder *pairs = g_strv_builder_new ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *look = tilde_json_data_describe (data, names[i]);
      g_strv_builder_add (pairs, names[i]);
      g_strv_builder_add (pairs, look);
    }
  GStrv out = g_strv_builder_end (pairs);
  g_strv_builder_unref (pairs);
  return out;
}

#define SUMMARY_MAX_VARIABLES 40

static void
show_summary (TildeDataPanel *self, gsize longest, GStrv pairs)
{
  GtkWidget *child;
  g_autofree char *size = g_format_size (longest);
  g_autofree char *text =
    g_strdup_printf (_("A line of these data is %s long, more than the editor lays out without "
                       "stalling the window. Runs and checks read the data as they are; problems "
                       "are listed below."), size);
  guint n = pairs ? g_strv_length (pairs) / 2 : 0;

  gtk_label_set_text (self->summary_label, text);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->summary_variables))) != NULL)
    gtk_grid_remove (self->summary_variables, child);
  for (guint i = 0; i < MIN (n, SUMMARY_MAX_VARIABLES); i++)
    {
      GtkWidget *name = gtk_label_new (pairs[2 * i]);
      GtkWidget *look = gtk_label_new (pairs[2 * i + 1]);

      gtk_label_set_xalign (GTK_LABEL (name), 1);
      gtk_label_set_xalign (GTK_LABEL (look), 0);
      gtk_label_set_selectable (GTK_LABEL (look), TRUE);
      gtk_widget_add_css_class (name, "monospace");
      gtk_widget_add_css_class (look, "monospace");
      gtk_widget_add_css_class (look, "dim-label");
      gtk_grid_attach (self->summary_variables, name, 0, (int) i, 1, 1);
      gtk_grid_attach (self->summary_variables, look, 1, (int) i, 1, 1);
    }
  if (n > SUMMARY_MAX_VARIABLES)
    {
      g_autofree char *more = g_strdup_printf (ngettext ("and %u more variable",
                                                         "and %u more variables",
                                                         n - SUMMARY_MAX_VARIABLES),
                                               n - SUMMARY_MAX_VARIABLES);
      GtkWidget *label = gtk_label_new (more);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_grid_attach (self->summary_variables, label, 0, SUMMARY_MAX_VARIABLES, 2, 1);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->summary_variables), n > 0);
  self->summarised = TRUE;
  gtk_stack_set_visible_child_name (self->content, "summary");
}

/* Before text goes in whole: the view lets go of the buffer, so that it
 * neither lays out each piece nor, for a line too wide, the whole. */
static void
put_text_begin (TildeDataPanel *self)
{
  gtk_info_bar_set_revealed (self->info_bar, FALSE);
  stop_highlighting (self);
  gtk_text_view_set_buffer (GTK_TEXT_VIEW (self->view), GTK_TEXT_BUFFER (self->no_text));
  self->summarised = FALSE;
  self->long_line_plain = FALSE;
}

/* Once it is in: the view shows it again, or the summary stands in. */
static void
put_text_end (TildeDataPanel *self, gsize longest, GStrv summary)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkTextIter start;

  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  if (longest > LAYOUT_LINE_LIMIT)
    show_summary (self, longest, summary);
  else
    {
      gtk_text_view_set_buffer (GTK_TEXT_VIEW (self->view), buffer);
      gtk_stack_set_visible_child_name (self->content, "text");
    }
  highlight_unless_large (self, longest);
}

/* Text to go in whole, as the data panel shows it (a file read, data
 * formatted), its last newline taken off as the buffer's is implicit. */
typedef struct {
  char                    *text;
  gsize                    len;
  gsize                    longest_line;
  GStrv                    summary;
  GtkSourceNewlineType     newline;    /* the file's, for saving it back */
  const GtkSourceEncoding *encoding;   /* the file's; NULL: UTF-8 */
} ReadText;

/* Takes `text`; measures it, and summarises it when too wide to show (off
 * the main thread). */
static ReadText *
read_text_new (char *text, gsize len)
{
  ReadText *r = g_new0 (ReadText, 1);

  r->text = text;
  r->len = len;
  r->longest_line = tilde_longest_line_in_text (text, len);
  if (r->longest_line > LAYOUT_LINE_LIMIT)
    r->summary = summarise (text, len);
  r->newline = GTK_SOURCE_NEWLINE_TYPE_LF;
  /* The buffer's last newline is implicit, as GtkSourceView's loader has it. */
  if (len > 1 && text[len - 2] == '\r' && text[len - 1] == '\n')
    r->len -= 2;
  else if (len > 0 && text[len - 1] == '\n')
    r->len--;
  return r;
}

static void
read_text_free (gpointer data)
{
  ReadText *r = data;

  g_free (r->text);
  g_strfreev (r->summary);
  g_free (r);
}

static void finish_load (TildeDataPanel *self, GTask *task, GError *error, char *text, gsize len);

static void
put_text_clear (TildeDataPanel *self)
{
  g_clear_handle_id (&self->put_source, g_source_remove);
  g_clear_pointer (&self->put_text, g_free);
  g_clear_pointer (&self->put_summary, g_strfreev);
}

static gboolean
put_text_step (gpointer user_data)
{
  TildeDataPanel *self = user_data;
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GTask *task = self->put_task;
  /* A format has taken the old text out already, and finishes. */
  gboolean cancelled = !self->put_modified && g_task_return_error_if_cancelled (task);
  GtkTextIter end;

  if (!cancelled)
    {
      gsize from = self->put_pos, to = MIN (from + PUT_PIECE_BYTES, self->put_len);
      const char *nl = memchr (self->put_text + to, '\n', self->put_len - to);

      to = nl ? (gsize) (nl - self->put_text) + 1 : self->put_len;
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, self->put_text + from, (int) (to - from));
      self->put_pos = to;
      if (to < self->put_len)
        return G_SOURCE_CONTINUE;
    }
  self->put_source = 0;
  self->put_task = NULL;
  if (cancelled)
    {
      /* Part of a file is not the file: nothing stays, and no file, so
       * that Save cannot write the part over it. */
      gtk_text_buffer_set_text (buffer, "", 0);
      gtk_source_file_set_location (self->source_file, NULL);
      self->put_longest_line = 0;
    }
  gtk_text_buffer_end_irreversible_action (buffer);
  put_text_end (self, self->put_longest_line, self->put_summary);
  /* The text just put in is checked as it is, not read out of the buffer
   * again (tens of milliseconds for a large file). */
  char *text = cancelled ? NULL : g_steal_pointer (&self->put_text);
  put_text_clear (self);
  /* A cancelled load has had its answer. */
  finish_load (self, cancelled ? NULL : task, NULL, text, self->put_len);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Puts `r` in from idle callbacks, for self->put_task, the buffer then
 * `modified` or not. put_text_begin() has been called. */
static void
put_text_in_pieces (TildeDataPanel *self, ReadText *r, gboolean modified)
{
  self->put_text = g_steal_pointer (&r->text);
  self->put_len = r->len;
  self->put_pos = 0;
  self->put_longest_line = r->longest_line;
  self->put_summary = g_steal_pointer (&r->summary);
  self->put_modified = modified;
  read_text_free (r);
  gtk_text_buffer_begin_irreversible_action (GTK_TEXT_BUFFER (self->buffer));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), "", 0);
  /* Below the redraws and the text views' measuring, so the window keeps
   * up while a large file goes in. */
  self->put_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, put_text_step, self, NULL);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->put_source),
                            "[tilde] data text going in");
}

/* A load taken over by the next one, or by the panel's end. While the
 * file is still being read, the read's end answers its task. */
static void
put_text_abandon (TildeDataPanel *self)
{
  GTask *task = self->put_task;

  if (task == NULL)
    return;
  self->put_task = NULL;
  set_loading (self, FALSE);
  if (self->put_source == 0)
    return;
  put_text_clear (self);
  gtk_text_buffer_end_irreversible_action (GTK_TEXT_BUFFER (self->buffer));
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s",
                           _("Other data were loaded"));
  g_object_unref (task);
}

/* ---- files ---- */

/* Lone carriage returns (old Mac files) as newlines; what the file used,
 * for saving it back. */
static GtkSourceNewlineType
newlines_of (char *text, gsize len)
{
  gboolean lf = FALSE, crlf = FALSE, cr = FALSE;

  for (gsize i = 0; i < len; i++)
    if (text[i] == '\n')
      lf = TRUE;
    else if (text[i] == '\r')
      {
        if (i + 1 < len && text[i + 1] == '\n')
          crlf = TRUE, i++;
        else
          cr = TRUE, text[i] = '\n';
      }
  return crlf ? GTK_SOURCE_NEWLINE_TYPE_CR_LF
         : cr && !lf ? GTK_SOURCE_NEWLINE_TYPE_CR : GTK_SOURCE_NEWLINE_TYPE_LF;
}

/* Reads the file in one go off the main thread, as GtkSourceView's loader
 * would take it: a UTF-8 byte order mark dropped, text that is not UTF-8
 * read as ISO-8859-15, and saved back so; a zero byte is not text. */
static void
read_text_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GFile *file = task_data;
  GError *error = NULL;
  const GtkSourceEncoding *encoding = NULL;
  char *text;
  gsize len;

  if (!g_file_load_contents (file, cancellable, &text, &len, NULL, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (memchr (text, '\0', len) != NULL)
    {
      g_free (text);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s",
                               _("The file holds a zero byte, so it is not text"));
      return;
    }
  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    {
      memmove (text, text + 3, len - 3);
      len -= 3;
    }
  if (!g_utf8_validate_len (text, len, NULL))
    {
      gsize converted_len;
      char *converted = g_convert (text, (gssize) len, "UTF-8", "ISO-8859-15", NULL, &converted_len,
                                   &error);
      g_free (text);
      if (converted == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      text = converted;
      len = converted_len;
      encoding = gtk_source_encoding_get_from_charset ("ISO-8859-15");
    }
  GtkSourceNewlineType newline = newlines_of (text, len);
  ReadText *r = read_text_new (text, len);
  r->newline = newline;
  r->encoding = encoding;
  g_task_return_pointer (task, r, read_text_free);
}

/* `text` (taken; NULL: the buffer's, read out) is the text that went in,
 * `len` bytes, to be checked. */
static void
finish_load (TildeDataPanel *self, GTask *task, GError *error, char *text, gsize len)
{
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), self->put_modified);
  self->put_modified = FALSE;
  set_loading (self, FALSE);
  update_file_label (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
  if (text != NULL)
    check_text (self, as_saved (self, text, &len), len);
  else
    tilde_data_panel_check_now (self);
  if (task == NULL)
    g_clear_error (&error);
  else if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
text_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  GError *error = NULL;
  ReadText *r = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->buffer == NULL || self->put_task != task)
    {
      /* disposed, or another load began, while the file was read */
      g_clear_pointer (&r, read_text_free);
      g_clear_error (&error);
      if (self->put_task == task)
        self->put_task = NULL;
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s",
                               self->buffer == NULL ? _("The data panel is gone")
                                                    : _("Other data were loaded"));
      g_object_unref (task);
      return;
    }
  if (error != NULL)
    {
      self->put_task = NULL;
      gtk_source_file_set_location (self->source_file, NULL);
      put_text_end (self, tilde_longest_line_in_buffer (GTK_TEXT_BUFFER (self->buffer)), NULL);
      finish_load (self, task, error, NULL, 0);
      g_object_unref (task);
      return;
    }
  self->newline = r->newline;
  self->encoding = r->encoding;
  put_text_in_pieces (self, r, FALSE);
}

void
tilde_data_panel_load_async (TildeDataPanel *self, GFile *file, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) read = NULL;
  GTask *task;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  g_return_if_fail (G_IS_FILE (file));

  put_text_abandon (self);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tilde_data_panel_load_async);
  gtk_source_file_set_location (self->source_file, file);
  set_loading (self, TRUE);
  put_text_begin (self);
  self->put_task = task;
  read = g_task_new (self, cancellable, text_read, task);
  g_task_set_source_tag (read, read_text_in_thread);
  g_task_set_task_data (read, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (read, read_text_in_thread);
}

gboolean
tilde_data_panel_load_finish (TildeDataPanel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
tilde_data_panel_restore_text (TildeDataPanel *self, GFile *file, const char *text)
{
  GtkTextBuffer *buffer;
  gsize len, longest;
  g_auto(GStrv) summary = NULL;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));
  g_return_if_fail (text != NULL);

  put_text_abandon (self);
  buffer = GTK_TEXT_BUFFER (self->buffer);
  len = strlen (text);
  longest = tilde_longest_line_in_text (text, len);
  if (longest > LAYOUT_LINE_LIMIT)
    summary = summarise (text, len);
  if (gtk_source_buffer_get_implicit_trailing_newline (self->buffer) && len > 0 && text[len - 1] == '\n')
    len--;
  gtk_source_file_set_location (self->source_file, file);
  self->newline = GTK_SOURCE_NEWLINE_TYPE_LF;
  self->encoding = NULL;
  put_text_begin (self);
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, text, (int) len);
  gtk_text_buffer_end_irreversible_action (buffer);
  put_text_end (self, longest, summary);
  gtk_text_buffer_set_modified (buffer, TRUE);
  update_file_label (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

static void
save_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  TildeDataPanel *self = g_task_get_source_object (task);
  GError *error = NULL;

  self->saving = FALSE;
  if (!gtk_source_file_saver_save_finish (GTK_SOURCE_FILE_SAVER (source), result, &error))
    {
      if (self->buffer != NULL)
        update_actions (self);
      g_task_return_error (task, error);
      return;
    }
  if (self->buffer == NULL)
    {
      /* disposed while the file was written: it was written */
      g_task_return_boolean (task, TRUE);
      return;
    }
  update_actions (self);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
  update_file_label (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
  g_task_return_boolean (task, TRUE);
}

void
tilde_data_panel_save_async (TildeDataPanel *self, GFile *file, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GtkSourceFileSaver) saver = NULL;
  GTask *task;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tilde_data_panel_save_async);
  if (file == NULL)
    file = tilde_data_panel_get_file (self);
  if (file == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                               "%s", _("The data have no file yet"));
      g_object_unref (task);
      return;
    }
  gtk_info_bar_set_revealed (self->info_bar, FALSE);
  saver = gtk_source_file_saver_new_with_target (self->buffer, self->source_file, file);
  gtk_source_file_saver_set_newline_type (saver, self->newline);
  if (self->encoding != NULL)
    gtk_source_file_saver_set_encoding (saver, self->encoding);
  self->saving = TRUE;
  update_actions (self);
  gtk_source_file_saver_save_async (saver, G_PRIORITY_DEFAULT, cancellable, NULL, NULL, NULL,
                                    save_done, task);
}

gboolean
tilde_data_panel_save_finish (TildeDataPanel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- formatting ---- */

/* Formatted text goes in as one undoable step up to this many bytes; more
 * goes in pieces, as a file does, and cannot be undone (reopen the file). */
#define FORMAT_UNDOABLE_BYTES (2 * 1024 * 1024)

typedef struct {
  char    *text;     /* the data as they were, their last newline included */
  gsize    len;
  guint64  stamp;    /* the buffer's changes when they were taken */
} FormatJob;

static void
format_job_free (gpointer data)
{
  FormatJob *job = data;

  g_free (job->text);
  g_free (job);
}

static void
format_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FormatJob *job = task_data;
  GError *error = NULL;
  gsize len;
  char *text = tilde_json_format (job->text, job->len, &len, &error);

  if (text == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Laid out so already: nothing to put in (and nothing to save). */
  if (len == job->len && memcmp (text, job->text, len) == 0)
    {
      g_free (text);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  g_task_return_pointer (task, read_text_new (text, len), read_text_free);
}

static void
formatted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  FormatJob *job = g_task_get_task_data (G_TASK (result));
  GError *error = NULL;
  ReadText *r = g_task_propagate_pointer (G_TASK (result), &error);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);

  self->formatting = FALSE;
  /* Text changed, or a file is coming in instead. */
  if (buffer == NULL || error != NULL || job->stamp != self->stamp || self->loading)
    {
      g_clear_pointer (&r, read_text_free);
      if (buffer != NULL)
        update_actions (self);
      if (error == NULL)
        error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                     buffer == NULL ? _("The data panel is gone")
                                                    : _("The data changed while they were formatted"));
      g_task_return_error (task, error);
      return;
    }
  if (r == NULL)
    {
      update_actions (self);
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* An undo must not bring a line too wide to show back into the view. */
  gboolean was_summarised = self->summarised;
  put_text_begin (self);
  if (r->len <= FORMAT_UNDOABLE_BYTES && !was_summarised)
    {
      GtkTextIter start, end;

      gtk_text_buffer_begin_user_action (buffer);
      gtk_text_buffer_get_bounds (buffer, &start, &end);
      gtk_text_buffer_delete (buffer, &start, &end);
      gtk_text_buffer_insert (buffer, &start, r->text, (int) r->len);
      gtk_text_buffer_end_user_action (buffer);
      put_text_end (self, r->longest_line, r->summary);
      read_text_free (r);
      update_actions (self);
      g_task_return_boolean (task, TRUE);
      return;
    }
  set_loading (self, TRUE);
  self->put_task = g_steal_pointer (&task);
  put_text_in_pieces (self, r, TRUE);
}

void
tilde_data_panel_format_async (TildeDataPanel *self, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) work = NULL;
  GTask *task;
  FormatJob *job;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tilde_data_panel_format_async);
  if (self->loading || self->formatting)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY, "%s",
                               _("The data are being read or formatted"));
      g_object_unref (task);
      return;
    }
  job = g_new0 (FormatJob, 1);
  job->text = buffer_text (self, &job->len);
  job->stamp = self->stamp;
  self->formatting = TRUE;
  update_actions (self);
  gtk_info_bar_set_revealed (self->info_bar, FALSE);
  work = g_task_new (self, cancellable, formatted, task);
  g_task_set_source_tag (work, format_in_thread);
  g_task_set_task_data (work, job, format_job_free);
  g_task_run_in_thread (work, format_in_thread);
}

gboolean
tilde_data_panel_format_finish (TildeDataPanel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
format_reported (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_format_finish (self, result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && self->buffer != NULL)
    show_error (self, _("The data cannot be formatted"), error);
}

static void
format_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_data_panel_format_async (TILDE_DATA_PANEL (widget), NULL, format_reported, NULL);
}

/* ---- the template ---- */

static void
make_template (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  TildeCheckResult *model = task_data;
  g_autofree char *problem = NULL;
  char *text = tilde_data_template (tilde_check_result_get_program (model), &problem);

  if (text != NULL)
    g_task_return_pointer (task, text, g_free);
  else
    g_task_return_new_error (task, TILDE_DATA_PANEL_ERROR, TILDE_DATA_PANEL_ERROR_TEMPLATE,
                             "%s", problem ? problem : _("The data block cannot be laid out"));
}

static void
template_made (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GError *error = NULL;
  g_autofree char *text = g_task_propagate_pointer (G_TASK (result), &error);
  GtkTextIter start, end;

  self->templating = FALSE;
  if (text == NULL)
    {
      if (self->buffer != NULL)
        update_actions (self);
      g_task_return_error (task, error);
      return;
    }
  if (self->buffer == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s",
                               _("The data panel is gone"));
      return;
    }
  update_actions (self);
  /* Typed into while the template was made: what was typed stays. */
  if (!buffer_is_blank (self))
    {
      g_task_return_new_error (task, TILDE_DATA_PANEL_ERROR, TILDE_DATA_PANEL_ERROR_NOT_EMPTY,
                               "%s", _("The data are not empty"));
      return;
    }
  if (gtk_source_buffer_get_implicit_trailing_newline (self->buffer) && g_str_has_suffix (text, "\n"))
    text[strlen (text) - 1] = '\0';
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, text, -1);
  gtk_text_buffer_end_user_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  g_task_return_boolean (task, TRUE);
}

void
tilde_data_panel_insert_template_async (TildeDataPanel *self, GCancellable *cancellable,
                                        GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  g_autoptr(GTask) maker = NULL;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tilde_data_panel_insert_template_async);
  if (self->model == NULL)
    {
      g_task_return_new_error (task, TILDE_DATA_PANEL_ERROR, TILDE_DATA_PANEL_ERROR_NO_MODEL,
                               "%s", _("There is no model to take the data block from"));
      g_object_unref (task);
      return;
    }
  if (!buffer_is_blank (self))
    {
      g_task_return_new_error (task, TILDE_DATA_PANEL_ERROR, TILDE_DATA_PANEL_ERROR_NOT_EMPTY,
                               "%s", _("The data are not empty"));
      g_object_unref (task);
      return;
    }
  /* Sizes written as literals can be large: made off the main thread. */
  maker = g_task_new (self, cancellable, template_made, task);
  g_task_set_task_data (maker, tilde_check_result_ref (self->model),
                        (GDestroyNotify) tilde_check_result_unref);
  self->templating = TRUE;
  update_actions (self);
  g_task_run_in_thread (maker, make_template);
}

gboolean
tilde_data_panel_insert_template_finish (TildeDataPanel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- actions ---- */

static GtkWindow *
parent_window (TildeDataPanel *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

static void
add_json_filters (GtkFileChooser *chooser)
{
  g_autoptr(GtkFileFilter) json = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  gtk_file_filter_set_name (json, _("JSON data"));
  gtk_file_filter_add_pattern (json, "*.json");
  gtk_file_filter_add_mime_type (json, "application/json");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (chooser, json);
  gtk_file_chooser_add_filter (chooser, all);
}

static void
load_reported (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  g_autoptr(GFile) file = user_data;
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_load_finish (self, result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *what = g_strdup_printf (_("Could not open “%s”"), name);
      show_error (self, what, error);
    }
}

static void
open_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  g_autoptr(TildeDataPanel) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      tilde_data_panel_load_async (self, file, NULL, load_reported, g_object_ref (file));
    }
  g_object_unref (dialog);
}

static void
choose_file_to_open (TildeDataPanel *self)
{
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Open Data"), parent_window (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  add_json_filters (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (open_response), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
discard_response (GtkDialog *dialog, int response, gpointer user_data)
{
  g_autoptr(TildeDataPanel) self = user_data;

  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == GTK_RESPONSE_ACCEPT)
    choose_file_to_open (self);
}

static void
open_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (widget);
  GtkWidget *dialog;
  GtkWidget *discard;

  if (!tilde_data_panel_get_modified (self) || buffer_is_blank (self))
    {
      choose_file_to_open (self);
      return;
    }
  /* Opening replaces the text: changes that were never saved go only when
   * asked to. */
  dialog = gtk_message_dialog_new (parent_window (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                   "%s", _("Discard Changes to the Data?"));
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s",
                                            _("Opening another data file replaces the data, "
                                              "and the changes that were not saved are lost."));
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
  discard = gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Discard"), GTK_RESPONSE_ACCEPT);
  gtk_widget_add_css_class (discard, "destructive-action");
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_signal_connect (dialog, "response", G_CALLBACK (discard_response), g_object_ref (self));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_reported (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_save_or_ask_finish (self, result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, _("Could not save the data"), error);
}

static void
saved_for_task (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (tilde_data_panel_save_finish (TILDE_DATA_PANEL (source), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
save_as_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  GTask *task = user_data;
  TildeDataPanel *self = g_task_get_source_object (task);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      tilde_data_panel_save_async (self, file, NULL, saved_for_task, task);
    }
  else
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s",
                               _("The data were not saved"));
      g_object_unref (task);
    }
  g_object_unref (dialog);
}

/* "model.data.json" next to "model.stan", as the examples are named. */
static void
suggest_name (TildeDataPanel *self, GtkFileChooser *chooser)
{
  GFile *model = self->editor ? tilde_editor_get_file (self->editor) : NULL;
  g_autofree char *base = model ? g_file_get_basename (model) : NULL;
  g_autoptr(GFile) folder = model ? g_file_get_parent (model) : NULL;
  g_autofree char *name = NULL;

  if (base != NULL && g_str_has_suffix (base, ".stan"))
    base[strlen (base) - strlen (".stan")] = '\0';
  name = base ? g_strconcat (base, ".data.json", NULL) : g_strdup (_("data.json"));
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (chooser, folder, NULL);
  gtk_file_chooser_set_current_name (chooser, name);
}

/* Takes `task`, which is answered once the data are saved, or not. */
static void
ask_where_to_save (TildeDataPanel *self, GTask *task)
{
  GFile *file = tilde_data_panel_get_file (self);
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Save Data As"), parent_window (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  add_json_filters (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  if (file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (dialog), file, NULL);
  else
    suggest_name (self, GTK_FILE_CHOOSER (dialog));
  g_signal_connect (dialog, "response", G_CALLBACK (save_as_response), task);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
tilde_data_panel_save_or_ask_async (TildeDataPanel *self, GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  GTask *task;

  g_return_if_fail (TILDE_IS_DATA_PANEL (self));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, tilde_data_panel_save_or_ask_async);
  if (tilde_data_panel_get_file (self) != NULL)
    tilde_data_panel_save_async (self, NULL, NULL, saved_for_task, task);
  else
    ask_where_to_save (self, task);
}

gboolean
tilde_data_panel_save_or_ask_finish (TildeDataPanel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
save_as_action (GtkWidget *widget, const char *name, GVariant *param)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (widget);
  GTask *task = g_task_new (self, NULL, save_reported, NULL);

  g_task_set_source_tag (task, tilde_data_panel_save_or_ask_async);
  ask_where_to_save (self, task);
}

static void
save_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_data_panel_save_or_ask_async (TILDE_DATA_PANEL (widget), save_reported, NULL);
}

static void
template_reported (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (source);
  g_autoptr(GError) error = NULL;

  if (!tilde_data_panel_insert_template_finish (self, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, _("Could not make a template of the data"), error);
    }
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

static void
insert_template_action (GtkWidget *widget, const char *name, GVariant *param)
{
  tilde_data_panel_insert_template_async (TILDE_DATA_PANEL (widget), NULL, template_reported, NULL);
}

/* ---- life cycle ---- */

static void
tilde_data_panel_dispose (GObject *object)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (object);
  GtkWidget *child;

  g_clear_handle_id (&self->check_source, g_source_remove);
  if (self->buffer != NULL)
    put_text_abandon (self);
  /* Stops the engine thread; no result arrives after this. */
  g_clear_pointer (&self->worker, tilde_worker_free);
  /* Before the buffer: the problems hold marks in it. */
  g_clear_object (&self->marks);
  g_clear_pointer (&self->model, tilde_check_result_unref);
  g_clear_pointer (&self->scheme_binding, g_binding_unbind);
  if (self->editor != NULL)
    g_clear_signal_handler (&self->editor_checked_id, self->editor);
  g_clear_object (&self->editor);
  gtk_widget_dispose_template (GTK_WIDGET (self), TILDE_TYPE_DATA_PANEL);
  /* Unnamed template children too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->source_file);
  g_clear_object (&self->buffer);
  g_clear_object (&self->no_text);
  G_OBJECT_CLASS (tilde_data_panel_parent_class)->dispose (object);
}

static void
tilde_data_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (object);

  switch (prop_id)
    {
    case PROP_EDITOR:
      g_value_set_object (value, self->editor);
      break;
    case PROP_FILE:
      g_value_set_object (value, tilde_data_panel_get_file (self));
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, tilde_data_panel_get_modified (self));
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_CHECK_DELAY_MS:
      g_value_set_uint (value, self->check_delay_ms);
      break;
    case PROP_CHECKING:
      g_value_set_boolean (value, self->checking);
      break;
    case PROP_PROBLEMS:
      g_value_set_object (value, tilde_data_panel_get_problems (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_data_panel_set_property (GObject *object, guint prop_id, const GValue *value,
                               GParamSpec *pspec)
{
  TildeDataPanel *self = TILDE_DATA_PANEL (object);

  switch (prop_id)
    {
    case PROP_EDITOR:
      tilde_data_panel_set_editor (self, g_value_get_object (value));
      break;
    case PROP_CHECK_DELAY_MS:
      tilde_data_panel_set_check_delay (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_data_panel_class_init (TildeDataPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_data_panel_dispose;
  object_class->get_property = tilde_data_panel_get_property;
  object_class->set_property = tilde_data_panel_set_property;

  properties[PROP_EDITOR] =
    g_param_spec_object ("editor", NULL, NULL, TILDE_TYPE_EDITOR,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CHECK_DELAY_MS] =
    g_param_spec_uint ("check-delay-ms", NULL, NULL, 0, 60000, DEFAULT_CHECK_DELAY_MS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CHECKING] =
    g_param_spec_boolean ("checking", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROBLEMS] =
    g_param_spec_object ("problems", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted when the result of a check is shown. */
  signals[CHECKED] = g_signal_new ("checked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  g_type_ensure (TILDE_TYPE_PROBLEMS_LIST);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/tilde/Workbench/ui/tilde-data-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, file_label);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, info_bar);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, info_label);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, view);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, empty_state);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, content);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, summary_label);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, summary_variables);
  gtk_widget_class_bind_template_child (widget_class, TildeDataPanel, problems_list);
  gtk_widget_class_bind_template_callback (widget_class, info_bar_response_cb);
  gtk_widget_class_bind_template_callback (widget_class, problem_activated_cb);

  gtk_widget_class_install_action (widget_class, "data.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "data.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "data.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "data.insert-template", NULL, insert_template_action);
  gtk_widget_class_install_action (widget_class, "data.format", NULL, format_action);
  /* No key bindings: the application's accelerators take Ctrl+S and
   * Shift+Alt+F before any widget sees them, and the window gives them to
   * the panel while the focus is in it (_tilde_window_key_for_data_panel). */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
tilde_data_panel_init (TildeDataPanel *self)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();

  gtk_widget_init_template (GTK_WIDGET (self));

  self->check_delay_ms = DEFAULT_CHECK_DELAY_MS;
  self->worker = tilde_worker_new ();
  self->source_file = gtk_source_file_new ();
  self->newline = GTK_SOURCE_NEWLINE_TYPE_LF;
  self->buffer = gtk_source_buffer_new (NULL);
  gtk_source_buffer_set_language (self->buffer,
                                  gtk_source_language_manager_get_language (languages, "json"));
  gtk_source_buffer_set_highlight_syntax (self->buffer, TRUE);
  gtk_text_view_set_buffer (GTK_TEXT_VIEW (self->view), GTK_TEXT_BUFFER (self->buffer));
  self->no_text = gtk_source_buffer_new (NULL);
  g_signal_connect_object (self->buffer, "insert-text",
                           G_CALLBACK (text_inserted), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->buffer, "delete-range",
                           G_CALLBACK (range_deleted), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->buffer, "changed",
                           G_CALLBACK (buffer_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->buffer, "modified-changed",
                           G_CALLBACK (modified_changed), self, G_CONNECT_SWAPPED);

  /* Squiggles, gutter marks, hovers and the problems list, as in the editor. */
  self->marks = tilde_diagnostic_marks_new (self->view);
  tilde_problems_list_set_problems (self->problems_list,
                                    tilde_diagnostic_marks_get_problems (self->marks));
  tilde_problems_list_set_checking_tooltip (self->problems_list, _("Checking the data"));
  g_object_bind_property (self, "checking", self->problems_list, "checking", G_BINDING_SYNC_CREATE);

  update_actions (self);
  update_file_label (self);
}
