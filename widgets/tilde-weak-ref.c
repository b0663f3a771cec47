/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-weak-ref.h"

GWeakRef *
tilde_weak_ref_new (gpointer object)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, object);
  return ref;
}

void
tilde_weak_ref_free (gpointer weak_ref)
{
  g_weak_ref_clear (weak_ref);
  g_free (weak_ref);
}
