/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-parameter.h"


struct _TildeParameter
{
  GObject     parent_instance;

  char       *name;
  char       *variable;
  guint      *columns;
  guint       n_columns;
  GListModel *children;
};

G_DEFINE_FINAL_TYPE (TildeParameter, tilde_parameter, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_VARIABLE,
  PROP_N_COLUMNS,
  PROP_IS_GROUP,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

TildeParameter *
tilde_parameter_new (const char *name, const char *variable, const guint *columns,
                     guint n_columns, GListModel *children)
{
  TildeParameter *self = g_object_new (TILDE_TYPE_PARAMETER, NULL);

  self->name = g_strdup (name);
  self->variable = g_strdup (variable);
  self->columns = g_memdup2 (columns, n_columns * sizeof *columns);
  self->n_columns = n_columns;
  self->children = children ? g_object_ref (children) : NULL;
  return self;
}

const char *
tilde_parameter_get_name (TildeParameter *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER (self), NULL);
  return self->name;
}

const char *
tilde_parameter_get_variable (TildeParameter *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER (self), NULL);
  return self->variable;
}

const guint *
tilde_parameter_get_columns (TildeParameter *self, guint *n_columns)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER (self), NULL);
  if (n_columns)
    *n_columns = self->n_columns;
  return self->columns;
}

GListModel *
tilde_parameter_get_children (TildeParameter *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER (self), NULL);
  return self->children;
}

gboolean
tilde_parameter_is_group (TildeParameter *self)
{
  g_return_val_if_fail (TILDE_IS_PARAMETER (self), FALSE);
  return self->children != NULL;
}

static void
tilde_parameter_finalize (GObject *object)
{
  TildeParameter *self = TILDE_PARAMETER (object);

  g_free (self->name);
  g_free (self->variable);
  g_free (self->columns);
  g_clear_object (&self->children);
  G_OBJECT_CLASS (tilde_parameter_parent_class)->finalize (object);
}

static void
tilde_parameter_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeParameter *self = TILDE_PARAMETER (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_VARIABLE:
      g_value_set_string (value, self->variable);
      break;
    case PROP_N_COLUMNS:
      g_value_set_uint (value, self->n_columns);
      break;
    case PROP_IS_GROUP:
      g_value_set_boolean (value, self->children != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_parameter_class_init (TildeParameterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tilde_parameter_finalize;
  object_class->get_property = tilde_parameter_get_property;

  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VARIABLE] =
    g_param_spec_string ("variable", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_COLUMNS] =
    g_param_spec_uint ("n-columns", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_IS_GROUP] =
    g_param_spec_boolean ("is-group", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
tilde_parameter_init (TildeParameter *self)
{
}
