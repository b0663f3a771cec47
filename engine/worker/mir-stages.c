/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "worker/mir-stages.h"

#include <string.h>

#include "gpu/plan.h"
#include "mir/mir-lower.h"
#include "mir/mir-print.h"
#include "mir/mir-transform.h"
#include "mir/passes/pipeline.h"
#include "syntax/printer.h"
#include "tilde-line-diff.h"

/* Where a line printed from `span` comes from in the main file. */
static TildeMirSource
source_of (const TildeSpan *span)
{
  TildeMirSource s = { 0 };
  const TildeSourceFile *file = span->file;

  if (file == NULL || span->begin_line <= 0)
    return s;
  if (file->depth > 0)
    {
      /* The outermost #include stands for everything it brought in. */
      while (file->included_from != NULL && file->included_from->depth > 0)
        file = file->included_from;
      s.line = s.end_line = file->include_line;
      s.column = file->include_column;
      s.end_column = G_MAXINT;
      return s;
    }
  s.line = span->begin_line;
  s.column = span->begin_column;
  if ((span->end_file == NULL || span->end_file == file) && span->end_line >= span->begin_line)
    {
      s.end_line = span->end_line;
      s.end_column = span->end_column;
    }
  else
    {
      s.end_line = s.line;
      s.end_column = G_MAXINT;
    }
  return s;
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  if (*text != '\0' && text[strlen (text) - 1] != '\n')
    n++;
  return n;
}

/* Takes `text` and reads the sources out of `spans` (may be NULL: no line
 * has a source). */
static void
text_init (TildeMirText *t, char *text, const GArray *spans)
{
  t->text = text;
  t->n_lines = count_lines (text);
  t->sources = g_new0 (TildeMirSource, MAX (t->n_lines, 1));
  for (guint i = 0; spans != NULL && i < spans->len && i < t->n_lines; i++)
    t->sources[i] = source_of (&g_array_index (spans, TildeSpan, i));
}

static void
text_copy (TildeMirText *to, const TildeMirText *from)
{
  to->text = g_strdup (from->text);
  to->n_lines = from->n_lines;
  to->sources = g_memdup2 (from->sources, sizeof (TildeMirSource) * MAX (from->n_lines, 1));
}

static void
text_clear (TildeMirText *t)
{
  g_clear_pointer (&t->text, g_free);
  g_clear_pointer (&t->sources, g_free);
  t->n_lines = 0;
}

static void
print_into (TildeMirText *t, const MirProgram *program)
{
  GArray *spans = NULL;
  char *text = mir_print_program (program, MIR_PRINT_DEFAULT, &spans);

  text_init (t, text, spans);
  g_array_unref (spans);
}

static void
step_free (gpointer data)
{
  TildeMirStep *step = data;

  text_clear (&step->after);
  g_clear_pointer (&step->diff, g_array_unref);
  g_free (step);
}

static TildeMirStep *
step_new (const TildeMirText *before, const MirPassSnapshot *shot)
{
  TildeMirStep *step = g_new0 (TildeMirStep, 1);
  TildeDiffStats stats;

  step->name = shot->name;
  step->description = shot->pass ? shot->pass->description : NULL;
  step->changed = shot->changed;
  text_init (&step->after, g_strdup (shot->text), shot->line_spans);
  step->diff = tilde_line_diff_texts (before->text, step->after.text);
  tilde_line_diff_count (step->diff, &stats);
  step->edits = tilde_diff_stats_edits (&stats);
  return step;
}

/* Appends `chunk` (whole lines), each of its lines coming from `source`. */
static void
append_lines (GString *text, GArray *sources, const char *chunk, TildeMirSource source)
{
  guint n = count_lines (chunk);

  g_string_append (text, chunk);
  for (guint i = 0; i < n; i++)
    g_array_append_val (sources, source);
}

/* The plan as --debug-mem-patterns prints it, each line made a comment. */
static void
append_plan (GString *text, GArray *sources, const TildeGpuPlan *plan)
{
  g_autofree char *report = tilde_gpu_plan_report (plan);
  g_auto(GStrv) lines = g_strsplit (report, "\n", -1);
  TildeMirSource none = { 0 };

  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      {
        g_autofree char *line = g_strconcat ("// ", lines[i], "\n", NULL);

        append_lines (text, sources, line, none);
      }
}

/* What a device would run: the plan on the transformed program (as
 * --debug-mem-patterns makes it), the kernels of the optimized one (as a
 * prepared model runs them). */
static void
opencl_into (TildeMirStages *stages, const MirProgram *transformed, const MirProgram *optimized)
{
  g_autoptr(TildeGpuPlan) plan = tilde_gpu_plan_new (transformed, stages->use_opencl);
  g_autoptr(TildeGpuPlan) run = tilde_gpu_plan_new (optimized, stages->use_opencl);
  GString *text = g_string_new (NULL);
  g_autoptr(GArray) sources = g_array_new (FALSE, TRUE, sizeof (TildeMirSource));
  TildeMirText *t = &stages->stages[TILDE_MIR_STAGE_OPENCL];

  if (stages->use_opencl || tilde_gpu_program_has_annotations (transformed))
    append_plan (text, sources, plan);
  for (guint i = 0; i < run->sites->len; i++)
    {
      const TildeGpuSite *site = &g_array_index (run->sites, TildeGpuSite, i);
      g_autofree char *kernel = tilde_gpu_plan_site_kernel (run, site, TILDE_GPU_GLM_WG);

      if (text->len > 0 && i == 0)
        append_lines (text, sources, "\n", (TildeMirSource) { 0 });
      append_lines (text, sources, kernel, source_of (&site->stmt->span));
    }
  for (guint i = 0; i < run->ew_sites->len; i++)
    {
      const TildeGpuEwSite *site = &g_array_index (run->ew_sites, TildeGpuEwSite, i);
      g_autofree char *kernel = tilde_gpu_plan_ew_kernel (run, site, TILDE_GPU_EW_WG);

      /* each kernel's text ends with a blank line already */
      if (text->len > 0 && i == 0 && run->sites->len == 0)
        append_lines (text, sources, "\n", (TildeMirSource) { 0 });
      append_lines (text, sources, kernel, source_of (&site->stmt->span));
    }
  stages->opencl_kernels = run->sites->len + run->ew_sites->len;
  if (stages->opencl_kernels == 0)
    {
      g_autoptr(TildeGpuPlan) could = tilde_gpu_plan_new (transformed, TRUE);

      if (could->sites->len > 0)
        {
          const TildeGpuSite *site = &g_array_index (could->sites, TildeGpuSite, 0);

          stages->opencl_candidate = g_strdup (site->x->u.var.name);
          stages->opencl_candidate_call = g_strdup (site->call->u.call.fun.name);
          stages->opencl_candidate_line = site->stmt->span.begin_line;
        }
      else if (could->ew_sites->len > 0)
        {
          const TildeGpuEwSite *site = &g_array_index (could->ew_sites, TildeGpuEwSite, 0);
          GString *names = g_string_new (NULL);

          for (guint v = 0; v < site->prog.n_vectors; v++)
            {
              const char *name = site->vectors[v]->u.var.name;
              if (tilde_gpu_variable_is_annotated (transformed, name))
                continue;
              g_string_append_printf (names, "%s%s", names->len ? ", " : "", name);
            }
          stages->opencl_candidate = g_string_free (names, FALSE);
          stages->opencl_candidate_call = g_strdup (site->call->u.call.fun.name);
          stages->opencl_candidate_line = site->stmt->span.begin_line;
          stages->opencl_candidate_elementwise = TRUE;
        }
      else if (could->cpu_sites->len > 0)
        {
          const TildeGpuSite *site = &g_array_index (could->cpu_sites, TildeGpuSite, 0);

          stages->opencl_candidate_call = g_strdup (site->call->u.call.fun.name);
          stages->opencl_candidate_line = site->stmt->span.begin_line;
          stages->opencl_by_statistics = TRUE;
        }
    }
  t->text = g_string_free (text, FALSE);
  t->n_lines = sources->len;
  t->sources = g_new0 (TildeMirSource, MAX (t->n_lines, 1));
  if (sources->len > 0)
    memcpy (t->sources, sources->data, sizeof (TildeMirSource) * sources->len);
}

/* The passes of `level` from the transformed program, one step each. */
static void
run_passes (TildeMirStages *stages, const MirProgram *transformed)
{
  g_autoptr(GPtrArray) shots = NULL;
  MirProgram *optimized = mir_pipeline_run (transformed, stages->level, &shots);
  const TildeMirText *before = &stages->stages[TILDE_MIR_STAGE_TRANSFORMED];

  /* shots[0] is the program before the first pass. */
  for (guint i = 1; i < shots->len; i++)
    {
      TildeMirStep *step = step_new (before, g_ptr_array_index (shots, i));

      g_ptr_array_add (stages->steps, step);
      before = &step->after;
    }
  text_copy (&stages->stages[TILDE_MIR_STAGE_OPTIMIZED], before);
  stages->optimized_diff = tilde_line_diff_texts (stages->stages[TILDE_MIR_STAGE_TRANSFORMED].text,
                                                  stages->stages[TILDE_MIR_STAGE_OPTIMIZED].text);
  opencl_into (stages, transformed, optimized);
  mir_program_free (optimized);
}

TildeMirStages *
tilde_mir_stages_new (TildeCheckResult *check, MirOptLevel level, GCancellable *cancellable)
{
  return tilde_mir_stages_new_full (check, level, FALSE, cancellable);
}

TildeMirStages *
tilde_mir_stages_new_full (TildeCheckResult *check, MirOptLevel level, gboolean use_opencl,
                           GCancellable *cancellable)
{
  TildeProgram *program;
  g_autoptr(TildeMirStages) stages = NULL;
  MirProgram *mir, *transformed;

  g_return_val_if_fail (check != NULL, NULL);
  g_return_val_if_fail (level <= MIR_OPT_EXPERIMENTAL, NULL);

  program = tilde_check_result_get_program (check);
  if (program == NULL || tilde_check_result_has_errors (check))
    return NULL;
  mir = mir_lower_program (program);
  if (mir == NULL)
    return NULL;

  stages = g_new0 (TildeMirStages, 1);
  stages->level = level;
  stages->use_opencl = use_opencl;
  stages->steps = g_ptr_array_new_with_free_func (step_free);
  text_init (&stages->stages[TILDE_MIR_STAGE_AST],
             tilde_print_program (program, TILDE_PRINT_EXPAND_INCLUDES | TILDE_PRINT_NO_COMMENTS),
             NULL);
  print_into (&stages->stages[TILDE_MIR_STAGE_MIR], mir);
  transformed = mir_transform_program (mir);
  mir_program_free (mir);
  print_into (&stages->stages[TILDE_MIR_STAGE_TRANSFORMED], transformed);
  if (!g_cancellable_is_cancelled (cancellable))
    run_passes (stages, transformed);
  mir_program_free (transformed);
  if (g_cancellable_is_cancelled (cancellable))
    return NULL;
  return g_steal_pointer (&stages);
}

void
tilde_mir_stages_free (TildeMirStages *stages)
{
  if (stages == NULL)
    return;
  for (guint i = 0; i < TILDE_N_MIR_STAGES; i++)
    text_clear (&stages->stages[i]);
  g_clear_pointer (&stages->steps, g_ptr_array_unref);
  g_clear_pointer (&stages->optimized_diff, g_array_unref);
  g_free (stages->opencl_candidate);
  g_free (stages->opencl_candidate_call);
  g_free (stages);
}

const TildeMirText *
tilde_mir_stages_before_step (const TildeMirStages *stages, guint index)
{
  g_return_val_if_fail (stages != NULL, NULL);
  g_return_val_if_fail (index < stages->steps->len, NULL);

  if (index == 0)
    return &stages->stages[TILDE_MIR_STAGE_TRANSFORMED];
  return &((const TildeMirStep *) g_ptr_array_index (stages->steps, index - 1))->after;
}

gpointer
tilde_mir_stages_compile (TildeCheckResult *check, gpointer user_data,
                          GCancellable *cancellable, GDestroyNotify *value_free)
{
  int how = GPOINTER_TO_INT (user_data);

  *value_free = (GDestroyNotify) tilde_mir_stages_free;
  return tilde_mir_stages_new_full (check, (MirOptLevel) (how & 0xff),
                                    (how & TILDE_MIR_STAGES_USE_OPENCL) != 0, cancellable);
}

guint64
tilde_worker_compile_mir (TildeWorker *worker, TildeJobInput *input, MirOptLevel level,
                          TildeWorkerCallback callback, gpointer user_data, GDestroyNotify destroy)
{
  return tilde_worker_compile_mir_full (worker, input, level, FALSE, callback, user_data, destroy);
}

guint64
tilde_worker_compile_mir_full (TildeWorker *worker, TildeJobInput *input, MirOptLevel level,
                               gboolean use_opencl, TildeWorkerCallback callback,
                               gpointer user_data, GDestroyNotify destroy)
{
  int how = (int) level | (use_opencl ? TILDE_MIR_STAGES_USE_OPENCL : 0);

  g_return_val_if_fail (level <= MIR_OPT_EXPERIMENTAL, 0);
  return tilde_worker_compile (worker, input, tilde_mir_stages_compile, GINT_TO_POINTER (how),
                               NULL, callback, user_data, destroy);
}

const TildeMirStages *
tilde_job_result_get_mir_stages (const TildeJobResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  g_return_val_if_fail (tilde_job_result_get_kind (result) == TILDE_JOB_COMPILE, NULL);
  return tilde_job_result_get_compiled (result);
}

const char *
tilde_mir_stage_name (TildeMirStage stage)
{
  switch (stage)
    {
    case TILDE_MIR_STAGE_AST:
      return "ast";
    case TILDE_MIR_STAGE_MIR:
      return "mir";
    case TILDE_MIR_STAGE_TRANSFORMED:
      return "transformed";
    case TILDE_MIR_STAGE_OPTIMIZED:
      return "optimized";
    case TILDE_MIR_STAGE_OPENCL:
      return "opencl";
    default:
      return "?";
    }
}
