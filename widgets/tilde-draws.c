/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "tilde-draws.h"

#include <string.h>

#include "infer/column-name.h"

/* A frame at 60 Hz: "changed" is emitted no more often. */
#define FRAME_USEC 16667
/* GTK draws at G_PRIORITY_HIGH_IDLE + 20: emitting just before lets a
 * handler's queued redraw land in the same frame. */
#define CHANGED_PRIORITY (G_PRIORITY_HIGH_IDLE + 10)
/* About 512 KiB of doubles per chunk, 16 to 4,096 draws. */
#define CHUNK_TARGET_VALUES 65536

typedef struct
{
  /* Chunks of chunk_size draws, column-major inside a chunk so that a
   * column's draws lie together. The array of pointers may grow; the
   * chunks never move. */
  GPtrArray *chunks;
  guint      n_draws;
  guint      n_warmup;
  GArray    *divergent;
} Chain;

struct _TildeDraws
{
  GObject     parent_instance;

  GStrv       names;
  guint       n_columns;
  guint       n_chains;
  Chain      *chains;
  guint       chunk_shift;
  int         divergent_column;
  GListStore *parameters;
  guint64     stamp;

  guint       changed_source;
  gint64      last_changed;
};

G_DEFINE_FINAL_TYPE (TildeDraws, tilde_draws, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- columns and parameters ---- */

static gboolean
is_sampler_name (const char *name)
{
  return g_str_has_suffix (name, "__");
}

/* The variable a column belongs to: the name up to its first dot, or
 * colon (a tuple's member). */
static char *
variable_of (const char *name)
{
  gsize length = strcspn (name, ".:");

  return length > 0 ? g_strndup (name, length) : g_strdup (name);
}

/* "beta[1..8]" or "L[1..2,1..3]" from the index ranges of a group's
 * columns; the bare variable name when its indices are not all numbers
 * of the same count (tuples). */
static char *
group_name (const char *variable, const char *const *names, guint n)
{
  g_autofree gint64 *lo = NULL;
  g_autofree gint64 *hi = NULL;
  guint rank = 0;
  GString *text;

  for (guint i = 0; i < n; i++)
    {
      const char *rest = names[i] + strlen (variable);
      g_auto(GStrv) parts = NULL;

      if (*rest != '.')
        return g_strdup (variable);
      parts = g_strsplit (rest + 1, ".", -1);
      guint k = g_strv_length (parts);

      if (i == 0)
        {
          rank = k;
          lo = g_new (gint64, rank);
          hi = g_new (gint64, rank);
        }
      if (k != rank)
        return g_strdup (variable);
      for (guint d = 0; d < k; d++)
        {
          gint64 index;

          if (!g_ascii_string_to_signed (parts[d], 10, G_MININT64, G_MAXINT64, &index, NULL))
            return g_strdup (variable);
          lo[d] = i == 0 ? index : MIN (lo[d], index);
          hi[d] = i == 0 ? index : MAX (hi[d], index);
        }
    }
  text = g_string_new (variable);
  g_string_append_c (text, '[');
  for (guint d = 0; d < rank; d++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                            d > 0 ? "," : "", lo[d], hi[d]);
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

static TildeParameter *
leaf_parameter (TildeDraws *self, guint column)
{
  g_autofree char *name = tilde_column_display_name (self->names[column]);
  g_autofree char *variable = variable_of (self->names[column]);

  return tilde_parameter_new (name, variable, &column, 1, NULL);
}

/* Consecutive columns of one variable with indices make a group. */
static void
build_parameters (TildeDraws *self)
{
  guint column = 0;

  while (column < self->n_columns)
    {
      g_autofree char *variable = NULL;
      g_autoptr(GListStore) children = NULL;
      g_autoptr(TildeParameter) parameter = NULL;
      g_autofree guint *columns = NULL;
      g_autofree char *name = NULL;
      guint end = column + 1;

      if (is_sampler_name (self->names[column]))
        {
          column++;
          continue;
        }
      variable = variable_of (self->names[column]);
      if (self->names[column][strlen (variable)] != '\0')
        while (end < self->n_columns && !is_sampler_name (self->names[end])
               && g_str_has_prefix (self->names[end], variable)
               && (self->names[end][strlen (variable)] == '.'
                   || self->names[end][strlen (variable)] == ':'))
          end++;
      if (end - column == 1)
        {
          parameter = leaf_parameter (self, column);
          g_list_store_append (self->parameters, parameter);
          column = end;
          continue;
        }

      children = g_list_store_new (TILDE_TYPE_PARAMETER);
      columns = g_new (guint, end - column);
      for (guint c = column; c < end; c++)
        {
          g_autoptr(TildeParameter) child = leaf_parameter (self, c);

          g_list_store_append (children, child);
          columns[c - column] = c;
        }
      name = group_name (variable, (const char *const *) self->names + column, end - column);
      parameter = tilde_parameter_new (name, variable, columns, end - column,
                                       G_LIST_MODEL (children));
      g_list_store_append (self->parameters, parameter);
      column = end;
    }
}

TildeDraws *
tilde_draws_new (const char *const *names, guint n_chains)
{
  TildeDraws *self;
  guint chunk_size = 16;

  g_return_val_if_fail (names != NULL && names[0] != NULL, NULL);
  g_return_val_if_fail (n_chains > 0, NULL);

  self = g_object_new (TILDE_TYPE_DRAWS, NULL);
  self->names = g_strdupv ((char **) names);
  self->n_columns = g_strv_length (self->names);
  self->n_chains = n_chains;
  self->chains = g_new0 (Chain, n_chains);
  for (guint c = 0; c < n_chains; c++)
    {
      self->chains[c].chunks = g_ptr_array_new_with_free_func (g_free);
      self->chains[c].divergent = g_array_new (FALSE, FALSE, sizeof (guint));
    }
  self->chunk_shift = 4;
  while (chunk_size < 4096 && (gsize) chunk_size * 2 * self->n_columns <= CHUNK_TARGET_VALUES)
    {
      chunk_size *= 2;
      self->chunk_shift++;
    }
  self->divergent_column = tilde_draws_find_column (self, "divergent__");
  build_parameters (self);
  return self;
}

guint
tilde_draws_get_n_chains (TildeDraws *self)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  return self->n_chains;
}

guint
tilde_draws_get_n_columns (TildeDraws *self)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  return self->n_columns;
}

const char *
tilde_draws_get_column_name (TildeDraws *self, guint column)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), NULL);
  g_return_val_if_fail (column < self->n_columns, NULL);
  return self->names[column];
}

int
tilde_draws_find_column (TildeDraws *self, const char *name)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), -1);
  for (guint i = 0; i < self->n_columns; i++)
    if (g_str_equal (self->names[i], name))
      return (int) i;
  return -1;
}

gboolean
tilde_draws_is_sampler_column (TildeDraws *self, guint column)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), FALSE);
  g_return_val_if_fail (column < self->n_columns, FALSE);
  return is_sampler_name (self->names[column]);
}

GListModel *
tilde_draws_get_parameters (TildeDraws *self)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), NULL);
  return G_LIST_MODEL (self->parameters);
}

/* ---- appending ---- */

static gboolean
emit_changed (gpointer data)
{
  TildeDraws *self = data;

  self->changed_source = 0;
  self->last_changed = g_get_monotonic_time ();
  g_signal_emit (self, signals[CHANGED], 0);
  return G_SOURCE_REMOVE;
}

static void
schedule_changed (TildeDraws *self)
{
  gint64 since = g_get_monotonic_time () - self->last_changed;

  if (self->changed_source != 0)
    return;
  if (self->last_changed == 0 || since >= FRAME_USEC)
    self->changed_source = g_idle_add_full (CHANGED_PRIORITY, emit_changed, self, NULL);
  else
    self->changed_source = g_timeout_add_full (CHANGED_PRIORITY,
                                               (guint) ((FRAME_USEC - since + 999) / 1000),
                                               emit_changed, self, NULL);
  g_source_set_name_by_id (self->changed_source, "[tilde] draws changed");
}

static double *
chunk_of (TildeDraws *self, Chain *chain, guint draw)
{
  guint index = draw >> self->chunk_shift;

  while (chain->chunks->len <= index)
    g_ptr_array_add (chain->chunks, g_new (double, (gsize) self->n_columns << self->chunk_shift));
  return g_ptr_array_index (chain->chunks, index);
}

void
tilde_draws_append (TildeDraws *self, guint chain_index, const double *values, gsize n_values,
                    gboolean is_warmup)
{
  Chain *chain;
  gsize n_rows;
  guint chunk_size, mask;

  g_return_if_fail (TILDE_IS_DRAWS (self));
  g_return_if_fail (chain_index < self->n_chains);
  g_return_if_fail (n_values % self->n_columns == 0);
  chain = &self->chains[chain_index];
  g_return_if_fail (!is_warmup || chain->n_warmup == chain->n_draws);
  n_rows = n_values / self->n_columns;
  g_return_if_fail (n_rows <= G_MAXUINT - chain->n_draws);
  if (n_rows == 0)
    return;

  chunk_size = 1u << self->chunk_shift;
  mask = chunk_size - 1;
  /* Column by column within each chunk: the writes run along a column
   * while the few rows being read stay in the cache. */
  for (gsize r = 0; r < n_rows;)
    {
      guint draw = chain->n_draws + (guint) r;
      double *chunk = chunk_of (self, chain, draw);
      gsize run = MIN (n_rows - r, (gsize) (chunk_size - (draw & mask)));

      for (guint c = 0; c < self->n_columns; c++)
        {
          double *out = chunk + ((gsize) c << self->chunk_shift) + (draw & mask);
          const double *in = values + r * self->n_columns + c;

          for (gsize k = 0; k < run; k++)
            out[k] = in[k * self->n_columns];
        }
      r += run;
    }
  if (self->divergent_column >= 0)
    for (gsize r = 0; r < n_rows; r++)
      {
        double flag = values[r * self->n_columns + self->divergent_column];
        guint draw = chain->n_draws + (guint) r;

        if (flag != 0 && flag == flag)
          g_array_append_val (chain->divergent, draw);
      }
  /* Published last: readers see only whole rows. */
  chain->n_draws += (guint) n_rows;
  if (is_warmup)
    chain->n_warmup = chain->n_draws;
  self->stamp++;
  schedule_changed (self);
}

/* ---- reading ---- */

guint
tilde_draws_get_n_draws (TildeDraws *self, guint chain)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  g_return_val_if_fail (chain < self->n_chains, 0);
  return self->chains[chain].n_draws;
}

guint
tilde_draws_get_n_warmup (TildeDraws *self, guint chain)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  g_return_val_if_fail (chain < self->n_chains, 0);
  return self->chains[chain].n_warmup;
}

gboolean
tilde_draws_is_warmup (TildeDraws *self, guint chain, guint draw)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), FALSE);
  g_return_val_if_fail (chain < self->n_chains, FALSE);
  return draw < self->chains[chain].n_warmup;
}

guint
tilde_draws_get_max_draws (TildeDraws *self)
{
  guint most = 0;

  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  for (guint c = 0; c < self->n_chains; c++)
    most = MAX (most, self->chains[c].n_draws);
  return most;
}

double
tilde_draws_get_value (TildeDraws *self, guint chain, guint column, guint draw)
{
  const double *chunk;

  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  g_return_val_if_fail (chain < self->n_chains && column < self->n_columns, 0);
  g_return_val_if_fail (draw < self->chains[chain].n_draws, 0);
  chunk = g_ptr_array_index (self->chains[chain].chunks, draw >> self->chunk_shift);
  return chunk[((gsize) column << self->chunk_shift) + (draw & ((1u << self->chunk_shift) - 1))];
}

void
tilde_draws_copy_column (TildeDraws *self, guint chain, guint column, guint start, guint n,
                         double *out)
{
  guint chunk_size, draw = start;

  g_return_if_fail (TILDE_IS_DRAWS (self));
  g_return_if_fail (chain < self->n_chains && column < self->n_columns);
  g_return_if_fail (n <= self->chains[chain].n_draws && start <= self->chains[chain].n_draws - n);

  chunk_size = 1u << self->chunk_shift;
  while (draw < start + n)
    {
      const double *chunk = g_ptr_array_index (self->chains[chain].chunks,
                                               draw >> self->chunk_shift);
      guint offset = draw & (chunk_size - 1);
      guint count = MIN (chunk_size - offset, start + n - draw);

      memcpy (out + (draw - start), chunk + ((gsize) column << self->chunk_shift) + offset,
              count * sizeof *out);
      draw += count;
    }
}

const guint *
tilde_draws_get_divergent (TildeDraws *self, guint chain, guint *n_divergent)
{
  GArray *divergent;

  g_return_val_if_fail (TILDE_IS_DRAWS (self), NULL);
  g_return_val_if_fail (chain < self->n_chains, NULL);
  divergent = self->chains[chain].divergent;
  if (n_divergent)
    *n_divergent = divergent->len;
  return divergent->len > 0 ? (const guint *) divergent->data : NULL;
}

guint64
tilde_draws_get_stamp (TildeDraws *self)
{
  g_return_val_if_fail (TILDE_IS_DRAWS (self), 0);
  return self->stamp;
}

/* ---- object ---- */

static void
tilde_draws_finalize (GObject *object)
{
  TildeDraws *self = TILDE_DRAWS (object);

  g_clear_handle_id (&self->changed_source, g_source_remove);
  for (guint c = 0; c < self->n_chains; c++)
    {
      g_ptr_array_unref (self->chains[c].chunks);
      g_array_unref (self->chains[c].divergent);
    }
  g_free (self->chains);
  g_strfreev (self->names);
  g_clear_object (&self->parameters);
  G_OBJECT_CLASS (tilde_draws_parent_class)->finalize (object);
}

static void
tilde_draws_class_init (TildeDrawsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tilde_draws_finalize;

  /**
   * TildeDraws::changed:
   *
   * Draws were appended since the last emission; at most once a frame.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
tilde_draws_init (TildeDraws *self)
{
  self->parameters = g_list_store_new (TILDE_TYPE_PARAMETER);
}
