/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>

#include "tilde-problem.h"

struct _TildeProblem
{
  GObject parent_instance;

  TildeDiagnostic *diagnostic;
  GtkTextMark     *begin;
  GtkTextMark     *end;
  char            *summary;
  char            *location;
};

G_DEFINE_FINAL_TYPE (TildeProblem, tilde_problem, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MESSAGE,
  PROP_SUMMARY,
  PROP_LOCATION,
  PROP_ICON_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static char *
location_text (const TildeDiagnostic *diagnostic, GtkTextMark *begin)
{
  GtkTextIter iter;

  if (begin != NULL && diagnostic->include_frames == NULL)
    {
      gtk_text_buffer_get_iter_at_mark (gtk_text_mark_get_buffer (begin), &iter, begin);
      return g_strdup_printf (_("Line %d"), gtk_text_iter_get_line (&iter) + 1);
    }
  if (diagnostic->file != NULL && diagnostic->begin_line > 0)
    {
      g_autofree char *base = g_path_get_basename (diagnostic->file);
      return g_strdup_printf ("%s:%d", base, diagnostic->begin_line);
    }
  return g_strdup ("");
}

/* stanc lays long messages out over several lines; a row shows one. */
static char *
one_line (const char *message)
{
  g_auto(GStrv) lines = g_strsplit (message, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    g_strstrip (lines[i]);
  return g_strjoinv (" ", lines);
}

TildeProblem *
tilde_problem_new (const TildeDiagnostic *diagnostic, GtkTextMark *begin, GtkTextMark *end)
{
  TildeProblem *self;

  g_return_val_if_fail (diagnostic != NULL, NULL);
  g_return_val_if_fail ((begin == NULL) == (end == NULL), NULL);

  self = g_object_new (TILDE_TYPE_PROBLEM, NULL);
  self->diagnostic = tilde_diagnostic_copy (diagnostic);
  self->begin = begin ? g_object_ref (begin) : NULL;
  self->end = end ? g_object_ref (end) : NULL;
  self->summary = one_line (diagnostic->message);
  self->location = location_text (diagnostic, begin);
  return self;
}

const TildeDiagnostic *
tilde_problem_get_diagnostic (TildeProblem *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEM (self), NULL);
  return self->diagnostic;
}

TildeSeverity
tilde_problem_get_severity (TildeProblem *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEM (self), TILDE_SEVERITY_ERROR);
  return self->diagnostic->severity;
}

const char *
tilde_problem_get_message (TildeProblem *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEM (self), NULL);
  return self->diagnostic->message;
}

const char *
tilde_problem_get_summary (TildeProblem *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEM (self), NULL);
  return self->summary;
}

const char *
tilde_problem_get_location (TildeProblem *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEM (self), NULL);
  return self->location;
}

const char *
tilde_problem_get_icon_name (TildeProblem *self)
{
  g_return_val_if_fail (TILDE_IS_PROBLEM (self), NULL);
  switch (self->diagnostic->severity)
    {
    case TILDE_SEVERITY_ERROR:
      return "dialog-error-symbolic";
    case TILDE_SEVERITY_WARNING:
      return "dialog-warning-symbolic";
    default:
      return "dialog-information-symbolic";
    }
}

gboolean
tilde_problem_get_bounds (TildeProblem *self, GtkTextIter *begin, GtkTextIter *end)
{
  GtkTextBuffer *buffer;

  g_return_val_if_fail (TILDE_IS_PROBLEM (self), FALSE);
  if (self->begin == NULL || gtk_text_mark_get_deleted (self->begin)
      || gtk_text_mark_get_deleted (self->end))
    return FALSE;
  buffer = gtk_text_mark_get_buffer (self->begin);
  if (begin != NULL)
    gtk_text_buffer_get_iter_at_mark (buffer, begin, self->begin);
  if (end != NULL)
    gtk_text_buffer_get_iter_at_mark (buffer, end, self->end);
  return TRUE;
}

static void
delete_mark (GtkTextMark **mark)
{
  if (*mark != NULL && !gtk_text_mark_get_deleted (*mark))
    gtk_text_buffer_delete_mark (gtk_text_mark_get_buffer (*mark), *mark);
  g_clear_object (mark);
}

static void
tilde_problem_dispose (GObject *object)
{
  TildeProblem *self = TILDE_PROBLEM (object);

  delete_mark (&self->begin);
  delete_mark (&self->end);
  G_OBJECT_CLASS (tilde_problem_parent_class)->dispose (object);
}

static void
tilde_problem_finalize (GObject *object)
{
  TildeProblem *self = TILDE_PROBLEM (object);

  g_clear_pointer (&self->diagnostic, tilde_diagnostic_free);
  g_free (self->summary);
  g_free (self->location);
  G_OBJECT_CLASS (tilde_problem_parent_class)->finalize (object);
}

static void
tilde_problem_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeProblem *self = TILDE_PROBLEM (object);

  switch (prop_id)
    {
    case PROP_MESSAGE:
      g_value_set_string (value, tilde_problem_get_message (self));
      break;
    case PROP_SUMMARY:
      g_value_set_string (value, self->summary);
      break;
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_ICON_NAME:
      g_value_set_string (value, tilde_problem_get_icon_name (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_problem_class_init (TildeProblemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = tilde_problem_dispose;
  object_class->finalize = tilde_problem_finalize;
  object_class->get_property = tilde_problem_get_property;

  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SUMMARY] =
    g_param_spec_string ("summary", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOCATION] =
    g_param_spec_string ("location", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_ICON_NAME] =
    g_param_spec_string ("icon-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
tilde_problem_init (TildeProblem *self)
{
}
