/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "mir/dataflow/trace.h"

static void
clear_step (gpointer data)
{
  MirDataflowStep *step = data;

  g_free (step->in);
  g_free (step->out);
}

MirDataflowTrace *
mir_dataflow_trace_new (gboolean backward, guint n_nodes)
{
  MirDataflowTrace *trace = g_new0 (MirDataflowTrace, 1);

  trace->backward = backward;
  trace->n_nodes = n_nodes;
  trace->initial_in = g_new0 (char *, n_nodes + 1);
  trace->initial_out = g_new0 (char *, n_nodes + 1);
  trace->steps = g_array_new (FALSE, FALSE, sizeof (MirDataflowStep));
  g_array_set_clear_func (trace->steps, clear_step);
  trace->converged = TRUE;
  return trace;
}

void
mir_dataflow_trace_free (MirDataflowTrace *trace)
{
  if (!trace)
    return;
  g_strfreev (trace->initial_in);
  g_strfreev (trace->initial_out);
  g_array_unref (trace->steps);
  g_free (trace);
}

void
mir_dataflow_trace_add (MirDataflowTrace *trace, guint node, char *in, char *out,
                        gboolean in_changed, gboolean out_changed, gboolean widened)
{
  MirDataflowStep step = { node, in, out, in_changed, out_changed, widened };

  g_array_append_val (trace->steps, step);
}

void
mir_dataflow_trace_replay (const MirDataflowTrace *trace, guint n_steps, char ***in,
                           char ***out)
{
  const char **cur_in = g_new0 (const char *, trace->n_nodes);
  const char **cur_out = g_new0 (const char *, trace->n_nodes);

  for (guint v = 0; v < trace->n_nodes; v++)
    {
      cur_in[v] = trace->initial_in[v];
      cur_out[v] = trace->initial_out[v];
    }
  for (guint i = 0; i < MIN (n_steps, trace->steps->len); i++)
    {
      const MirDataflowStep *step = &g_array_index (trace->steps, MirDataflowStep, i);
      cur_in[step->node] = step->in;
      cur_out[step->node] = step->out;
    }
  *in = g_new0 (char *, trace->n_nodes + 1);
  *out = g_new0 (char *, trace->n_nodes + 1);
  for (guint v = 0; v < trace->n_nodes; v++)
    {
      (*in)[v] = g_strdup (cur_in[v]);
      (*out)[v] = g_strdup (cur_out[v]);
    }
  g_free (cur_in);
  g_free (cur_out);
}

char *
mir_dataflow_trace_print (const MirDataflowTrace *trace)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < trace->steps->len; i++)
    {
      const MirDataflowStep *step = &g_array_index (trace->steps, MirDataflowStep, i);

      g_string_append_printf (text, "step %u: node %u in %s out %s", i + 1, step->node,
                              step->in, step->out);
      if (step->widened)
        g_string_append (text, " (widened)");
      if (step->out_changed)
        g_string_append (text, " (changed)");
      g_string_append_c (text, '\n');
    }
  if (!trace->converged)
    g_string_append (text, "stopped before reaching a fixed point\n");
  return g_string_free (text, FALSE);
}
