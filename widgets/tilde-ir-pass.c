/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include "tilde-ir-pass.h"

struct _TildeIrPass
{
  GObject   parent_instance;

  int       index;
  char     *name;
  char     *description;
  guint     edits;
  gboolean  changed;
};

G_DEFINE_FINAL_TYPE (TildeIrPass, tilde_ir_pass, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_INDEX,
  PROP_NAME,
  PROP_DESCRIPTION,
  PROP_EDITS,
  PROP_CHANGED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

TildeIrPass *
tilde_ir_pass_new (int index, const char *name, const char *description, guint edits, gboolean changed)
{
  return g_object_new (TILDE_TYPE_IR_PASS,
                       "index", index,
                       "name", name,
                       "description", description,
                       "edits", edits,
                       "changed", changed,
                       NULL);
}

int
tilde_ir_pass_get_index (TildeIrPass *self)
{
  g_return_val_if_fail (TILDE_IS_IR_PASS (self), -1);
  return self->index;
}

const char *
tilde_ir_pass_get_name (TildeIrPass *self)
{
  g_return_val_if_fail (TILDE_IS_IR_PASS (self), NULL);
  return self->name;
}

const char *
tilde_ir_pass_get_description (TildeIrPass *self)
{
  g_return_val_if_fail (TILDE_IS_IR_PASS (self), NULL);
  return self->description;
}

guint
tilde_ir_pass_get_edits (TildeIrPass *self)
{
  g_return_val_if_fail (TILDE_IS_IR_PASS (self), 0);
  return self->edits;
}

gboolean
tilde_ir_pass_get_changed (TildeIrPass *self)
{
  g_return_val_if_fail (TILDE_IS_IR_PASS (self), FALSE);
  return self->changed;
}

static void
tilde_ir_pass_finalize (GObject *object)
{
  TildeIrPass *self = TILDE_IR_PASS (object);

  g_free (self->name);
  g_free (self->description);
  G_OBJECT_CLASS (tilde_ir_pass_parent_class)->finalize (object);
}

static void
tilde_ir_pass_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  TildeIrPass *self = TILDE_IR_PASS (object);

  switch (prop_id)
    {
    case PROP_INDEX:
      g_value_set_int (value, self->index);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_EDITS:
      g_value_set_uint (value, self->edits);
      break;
    case PROP_CHANGED:
      g_value_set_boolean (value, self->changed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_ir_pass_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  TildeIrPass *self = TILDE_IR_PASS (object);

  switch (prop_id)
    {
    case PROP_INDEX:
      self->index = g_value_get_int (value);
      break;
    case PROP_NAME:
      self->name = g_value_dup_string (value);
      break;
    case PROP_DESCRIPTION:
      self->description = g_value_dup_string (value);
      break;
    case PROP_EDITS:
      self->edits = g_value_get_uint (value);
      break;
    case PROP_CHANGED:
      self->changed = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tilde_ir_pass_class_init (TildeIrPassClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = tilde_ir_pass_finalize;
  object_class->get_property = tilde_ir_pass_get_property;
  object_class->set_property = tilde_ir_pass_set_property;

  properties[PROP_INDEX] = g_param_spec_int ("index", NULL, NULL, -1, G_MAXINT, -1, flags);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_DESCRIPTION] = g_param_spec_string ("description", NULL, NULL, NULL, flags);
  properties[PROP_EDITS] = g_param_spec_uint ("edits", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_CHANGED] = g_param_spec_boolean ("changed", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
tilde_ir_pass_init (TildeIrPass *self)
{
  self->index = -1;
}
