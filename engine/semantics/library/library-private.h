/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The generated table (library-table.c) as library.c reads it. The signature
 * code format is described in gen-library.py. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;
  guint32 first; /* into _tilde_lib_sig_index */
  guint32 count;
} TildeLibEntry;

typedef struct {
  const char *name;
  guint32 suffixes; /* TildeDistSuffix bits */
} TildeLibFamilyDef;

typedef struct {
  const char *name;
  const char *control;  /* fixed arguments and return type, as a signature */
  const char *callback; /* the function argument's leading parameters */
  gboolean allow_lpdf;
  gboolean reduce_sum;
} TildeLibVariadicDef;

typedef struct {
  const char *name;
  const char *replacement;
  int major, minor;
  gboolean removed;
} TildeLibDeprecationDef;

extern const char *const _tilde_lib_codes[];
extern const guint _tilde_lib_n_codes;
extern const guint32 _tilde_lib_sig_index[];
extern const TildeLibEntry _tilde_lib_entries[];     /* sorted by name */
extern const guint _tilde_lib_n_entries;
extern const TildeLibFamilyDef _tilde_lib_families[]; /* sorted by name */
extern const guint _tilde_lib_n_families;
extern const TildeLibVariadicDef _tilde_lib_variadics[]; /* sorted by name */
extern const guint _tilde_lib_n_variadics;
extern const TildeLibDeprecationDef _tilde_lib_deprecations[]; /* sorted by name */
extern const guint _tilde_lib_n_deprecations;

G_END_DECLS
