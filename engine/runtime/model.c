/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "runtime/model.h"
#include "runtime/exec-private.h"
#include "runtime/gpu-call.h"
#include "runtime/gpu-call-private.h"
#include "runtime/flat-private.h"
#include "runtime/normal-stats.h"
#include "mir/mir-transform.h"
#include "mir/dataflow/diagnostics.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

typedef struct {
  const char       *name;
  MirOutBlock       block;
  MirTransformKind  trans;
  const MirTransform *tr;       /* parameters: the transform, a tuple's with its members' */
  TildeShape       *shape;
  gsize             count;      /* values in Stan CSV */
  gsize             n_free;     /* parameters: unconstrained values */
} OutVar;

/* What one thread needs to evaluate: reused from call to call. */
typedef struct {
  AdTape     *tape;
  TildeValue *slots;
  gint32     *terms;
  guint       cap_terms;
  double     *out;
  gsize       cap_out;
  double     *flat;        /* the flat form's scratch, made on first use */
} Workspace;

struct TildeModel {
  MirProgram  *prog;
  TildeArena  *code;
  TildeArena  *persist;
  St          *parts[MIR_N_PARTS];
  RtFlat      *flat;         /* log_prob as straight-line code, when it covers it */
  RtFlat      *flat_joint;   /* flat while the context is the joint density, else NULL */
  guint        n_normal_stats;  /* statements by sufficient statistics */
  int          n_slots, n_globals;
  TildeValue  *globals;
  OutVar      *outs;
  guint        n_outs;
  gsize        n_params;
  char       **names[4];     /* by (tp, gq) flags */
  char       **free_names;
  TildeModelContext context;
  TildeModelPrintFunc print_func;
  gpointer     print_data;
  GMutex       print_lock;
  GMutex       lock;
  Workspace   *spare;        /* one workspace not in use, taken without the lock */
  Workspace  **pool;         /* the other workspaces not in use */
  guint        n_pool, cap_pool;
  RtGpu       *gpu;          /* statements run by OpenCL kernels */
};

void
tilde_model_error_free (TildeModelError *error)
{
  if (!error)
    return;
  g_free (error->message);
  g_free (error->where);
  g_free (error->file);
  g_free (error);
}

TildeModelError *
tilde_model_error_copy (const TildeModelError *error)
{
  TildeModelError *copy = g_new (TildeModelError, 1);
  *copy = *error;
  copy->message = g_strdup (error->message);
  copy->where = g_strdup (error->where);
  copy->file = g_strdup (error->file);
  return copy;
}

char *
tilde_model_error_describe (const TildeModelError *error)
{
  if (error->where == NULL)
    return g_strdup (error->message);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < error->n_places; i++)
    g_string_append (out, "Exception: ");
  g_string_append (out, error->message);
  g_string_append (out, error->where);
  return g_string_free (out, FALSE);
}

static Workspace *
workspace_new (TildeModel *m)
{
  Workspace *w = g_new0 (Workspace, 1);
  w->tape = ad_tape_new ();
  w->slots = g_new0 (TildeValue, MAX (m->n_slots, 1));
  return w;
}

static void
workspace_free (gpointer p)
{
  Workspace *w = p;
  ad_tape_free (w->tape);
  g_free (w->slots);
  g_free (w->terms);
  g_free (w->out);
  rt_flat_scratch_free (w->flat);
  g_free (w);
}

static inline __attribute__ ((always_inline)) Workspace *
workspace_take (TildeModel *m)
{
  Workspace *w = g_atomic_pointer_exchange (&m->spare, NULL);
  if (w)
    return w;
  g_mutex_lock (&m->lock);
  if (m->n_pool)
    w = m->pool[--m->n_pool];
  g_mutex_unlock (&m->lock);
  return w ? w : workspace_new (m);
}

/* workspace_give when the spare place is taken: another thread is
 * evaluating too. */
G_GNUC_NO_INLINE static void
workspace_park (TildeModel *m, Workspace *w)
{
  g_mutex_lock (&m->lock);
  if (m->n_pool == m->cap_pool)
    {
      m->cap_pool = MAX (4, 2 * m->cap_pool);
      m->pool = g_renew (Workspace *, m->pool, m->cap_pool);
    }
  m->pool[m->n_pool++] = w;
  g_mutex_unlock (&m->lock);
}

static inline void
workspace_give (TildeModel *m, Workspace *w)
{
  if (!g_atomic_pointer_compare_and_exchange (&m->spare, NULL, w))
    workspace_park (m, w);
}

/* An evaluation context over a workspace. */
static void
ev_init (Ev *ev, TildeModel *m, Workspace *w, jmp_buf *jmp)
{
  memset (ev, 0, sizeof *ev);
  ad_tape_reset (w->tape);
  ev->cx.tape = w->tape;
  ev->cx.arena = w->tape->arena;
  ev->cx.jmp = jmp;
  ev->param_args = 1;
  ev->print_func = m->print_func;
  ev->print_data = m->print_data;
  ev->print_lock = &m->print_lock;
  ev->slots = w->slots;
  if (m->globals)
    memcpy (ev->slots, m->globals, sizeof (TildeValue) * (gsize) m->n_globals);
  ev->terms = w->terms;
  ev->cap_terms = w->cap_terms;
  ev->out = w->out;
  ev->cap_out = w->cap_out;
}

static void
ev_done (Ev *ev, Workspace *w)
{
  w->out = ev->out;
  w->cap_out = ev->cap_out;
  w->terms = ev->terms;
  w->cap_terms = ev->cap_terms;
  g_free (ev->cx.err_msg);
  ev->cx.err_msg = NULL;
}

/* Runs a part; FALSE when it raised an error (left in ev->cx). */
static gboolean
run_part (Ev *ev, const St *part)
{
  if (setjmp (*ev->cx.jmp))
    return FALSE;
  rt_exec (ev, part);
  return TRUE;
}

static const TildeSpan *
located_span (const St *s)
{
  return s && s->mir && mir_span_is_located (&s->mir->span) ? &s->mir->span : NULL;
}

/* The statement that raised, then the calls that led to it: the error's
 * places, innermost first. */
static void
locate (TildeModelError *e, const Ev *ev)
{
  const TildeSpan *innermost = located_span (ev->stmt);
  GString *where = g_string_new (NULL);
  if (innermost)
    {
      g_autofree char *text = mir_span_to_string (innermost);
      g_string_append_printf (where, " (in %s)", text);
      e->n_places++;
      e->file = g_strdup (innermost->file ? innermost->file->name : "");
      e->begin_line = innermost->begin_line;
      e->begin_column = innermost->begin_column;
      e->end_line = innermost->end_line;
      e->end_column = innermost->end_column;
    }
  for (int k = MIN (ev->depth, RT_MAX_CALL_SITES) - 1; k >= 0; k--)
    {
      const TildeSpan *call = located_span (ev->call_sites[k]);
      if (call)
        {
          g_autofree char *text = mir_span_to_string (call);
          g_string_append_printf (where, " (in %s)", text);
          e->n_places++;
        }
    }
  e->where = g_string_free (where, e->n_places == 0);
}

static void
set_error (TildeModelError **error, const Ev *ev)
{
  if (!error)
    return;
  TildeModelError *e = g_new0 (TildeModelError, 1);
  e->kind = ev->cx.err_kind;
  e->message = g_strdup (ev->cx.err_msg ? ev->cx.err_msg : "error");
  locate (e, ev);
  *error = e;
}

static void
add_diag (GPtrArray *diagnostics, TildeDiagnosticKind kind, const char *message)
{
  if (diagnostics)
    g_ptr_array_add (diagnostics, tilde_diagnostic_new (TILDE_SEVERITY_ERROR, kind, NULL, 0, 0,
                                                        0, 0, message));
}

/* An error raised while preparing, at the statement that raised it. */
static void
add_located_diag (GPtrArray *diagnostics, TildeDiagnosticKind kind, const Ev *ev)
{
  if (!diagnostics)
    return;
  g_autoptr (TildeModelError) e = NULL;
  set_error (&e, ev);
  g_ptr_array_add (diagnostics, tilde_diagnostic_new (TILDE_SEVERITY_ERROR, kind, e->file,
                                                      e->begin_line, e->begin_column, e->end_line,
                                                      e->end_column, e->message));
}

/* Every variable that does not fit, not only the first (which is the
 * error preparation stopped at); the error itself, where it was raised,
 * when it came from transformed data. */
static void
add_data_problems (GPtrArray *diagnostics, const MirProgram *program, const TildeJsonData *data,
                   const Ev *ev)
{
  if (!diagnostics)
    return;
  g_autoptr (GPtrArray) problems = tilde_model_check_data (program, data);
  if (problems->len == 0)
    add_located_diag (diagnostics, TILDE_DIAG_DATA, ev);
  for (guint i = 0; i < problems->len; i++)
    add_diag (diagnostics, TILDE_DIAG_DATA,
              ((const TildeDataProblem *) g_ptr_array_index (problems, i))->message);
}

/* ---- names ---- */

static void
names_rec (GPtrArray *out, const char *prefix, const TildeShape *s)
{
  /* the dimensions of s (arrays, then eigen) in column-major order */
  int dims[16], nd = 0;
  const TildeShape *t = s;
  while (t->kind == TILDE_VALUE_ARRAY && nd < 14)
    {
      dims[nd++] = t->rows;
      t = t->elem;
    }
  if (t->kind == TILDE_VALUE_MATRIX || t->kind == TILDE_VALUE_COMPLEX_MATRIX)
    {
      dims[nd++] = t->rows;
      dims[nd++] = t->cols;
    }
  else if (tilde_value_kind_is_eigen (t->kind))
    dims[nd++] = t->rows * t->cols;
  gint64 total = 1;
  for (int i = 0; i < nd; i++)
    total *= dims[i];
  int idx[16] = { 0 };
  gboolean cplx = t->kind == TILDE_VALUE_COMPLEX
    || (t->kind >= TILDE_VALUE_COMPLEX_VECTOR && t->kind <= TILDE_VALUE_COMPLEX_MATRIX);
  for (gint64 k = 0; k < total; k++)
    {
      GString *name = g_string_new (prefix);
      for (int d = 0; d < nd; d++)
        g_string_append_printf (name, ".%d", idx[d] + 1);
      if (t->kind == TILDE_VALUE_TUPLE)
        {
          for (guint i = 0; i < t->n_members; i++)
            {
              g_autofree char *p = g_strdup_printf ("%s:%u", name->str, i + 1);
              names_rec (out, p, t->members[i]);
            }
          g_string_free (name, TRUE);
        }
      else if (cplx)
        {
          g_ptr_array_add (out, g_strdup_printf ("%s.real", name->str));
          g_ptr_array_add (out, g_strdup_printf ("%s.imag", name->str));
          g_string_free (name, TRUE);
        }
      else
        g_ptr_array_add (out, g_string_free (name, FALSE));
      for (int d = 0; d < nd; d++)
        {
          if (++idx[d] < dims[d])
            break;
          idx[d] = 0;
        }
    }
}

/* unconstrained names in the order of theta: array elements one after the
 * other, matrices column-major, structured transforms by position, tuple
 * members after a colon */
static void
free_names_rec (GPtrArray *out, const char *prefix, const TildeShape *s, const MirTransform *tr)
{
  MirTransformKind trans = tr ? tr->kind : MIR_TRANS_IDENTITY;
  if (s->kind == TILDE_VALUE_ARRAY)
    {
      for (gint32 i = 0; i < s->rows; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s.%d", prefix, i + 1);
          free_names_rec (out, p, s->elem, tr);
        }
      return;
    }
  if (s->kind == TILDE_VALUE_TUPLE)
    {
      for (guint i = 0; i < s->n_members; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s:%u", prefix, i + 1);
          free_names_rec (out, p, s->members[i],
                          tr && tr->members && i < tr->members->len
                          ? g_ptr_array_index (tr->members, i) : NULL);
        }
      return;
    }
  if (trans <= MIR_TRANS_OFFSET_MULTIPLIER)
    {
      names_rec (out, prefix, s);
      return;
    }
  gint32 n = rt_free_size (trans, s);
  for (gint32 i = 0; i < n; i++)
    g_ptr_array_add (out, g_strdup_printf ("%s.%d", prefix, i + 1));
}

/* The unconstrained size of a parameter; a tuple's is its members'. */
static gsize
free_size (const MirTransform *tr, const TildeShape *s)
{
  MirTransformKind trans = tr ? tr->kind : MIR_TRANS_IDENTITY;
  if (trans != MIR_TRANS_TUPLE)
    return (gsize) rt_free_size (trans, s);
  if (s->kind == TILDE_VALUE_ARRAY)
    return (gsize) s->rows * free_size (tr, s->elem);
  gsize n = 0;
  for (guint i = 0; s->kind == TILDE_VALUE_TUPLE && i < s->n_members; i++)
    n += free_size (tr->members && i < tr->members->len ? g_ptr_array_index (tr->members, i)
                    : NULL, s->members[i]);
  return n;
}

static gsize
shape_count (const TildeShape *s)
{
  switch (s->kind)
    {
    case TILDE_VALUE_ARRAY:
      return (gsize) s->rows * shape_count (s->elem);
    case TILDE_VALUE_TUPLE:
      {
        gsize n = 0;
        for (guint i = 0; i < s->n_members; i++)
          n += shape_count (s->members[i]);
        return n;
      }
    case TILDE_VALUE_COMPLEX:
      return 2;
    case TILDE_VALUE_COMPLEX_VECTOR:
    case TILDE_VALUE_COMPLEX_ROW_VECTOR:
    case TILDE_VALUE_COMPLEX_MATRIX:
      return 2 * (gsize) s->rows * (gsize) s->cols;
    default:
      return (gsize) s->rows * (gsize) s->cols;
    }
}

static char **
names_for (TildeModel *m, gboolean tp, gboolean gq)
{
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; i < m->n_outs; i++)
    {
      const OutVar *v = &m->outs[i];
      if ((v->block == MIR_OUT_TRANSFORMED_PARAMETERS && !tp)
          || (v->block == MIR_OUT_GENERATED_QUANTITIES && !gq))
        continue;
      names_rec (out, v->name, v->shape);
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* ---- preparation ---- */

static gboolean
compile_all (TildeModel *m, Compiler *c, GPtrArray *diagnostics)
{
  static const gboolean globals[MIR_N_PARTS] = { TRUE, FALSE, FALSE, FALSE };
  static const gboolean hoist[MIR_N_PARTS] = { FALSE, TRUE, FALSE, FALSE };
  char *ferror = NULL;
  if (!rt_compile_functions (c, m->prog->functions, &ferror))
    {
      add_diag (diagnostics, TILDE_DIAG_RUNTIME, ferror);
      g_free (ferror);
      return FALSE;
    }
  for (int p = 0; p < MIR_N_PARTS; p++)
    {
      char *error = NULL;
      m->parts[p] = rt_compile_part (c, m->prog->parts[p], globals[p], hoist[p], &error);
      if (!m->parts[p])
        {
          add_diag (diagnostics, TILDE_DIAG_RUNTIME, error);
          g_free (error);
          return FALSE;
        }
    }
  return TRUE;
}

static void
compute_cached (TildeModel *m, Compiler *c, Workspace *w)
{
  GPtrArray *cached = rt_compiler_cached (c);
  for (guint i = 0; i < cached->len; i++)
    {
      Ex *e = g_ptr_array_index (cached, i);
      jmp_buf jmp;
      Ev ev;
      ev_init (&ev, m, w, &jmp);
      ev.cx.arena = m->persist;
      TildeValue v;
      if (setjmp (jmp) == 0)
        {
          rt_eval (&ev, e->kids[0], &v);
          if (!rt_is_ad (&v))
            {
              e->k = v;
              e->ready = TRUE;
            }
        }
      ev_done (&ev, w);
    }
}

/* Parameter shapes depend on data only: computed once. */
static void
compute_param_shapes (TildeModel *m, Compiler *c, Workspace *w)
{
  GPtrArray *reads = rt_compiler_param_reads (c);
  for (guint i = 0; i < reads->len; i++)
    {
      Ex *e = g_ptr_array_index (reads, i);
      jmp_buf jmp;
      Ev ev;
      ev_init (&ev, m, w, &jmp);
      ev.cx.arena = m->persist;
      if (setjmp (jmp) == 0)
        e->shape = rt_param_shape (&ev, e);
      ev_done (&ev, w);
    }
}

static gboolean
describe_outputs (TildeModel *m, Compiler *c, Workspace *w, GPtrArray *diagnostics)
{
  GPtrArray *vars = m->prog->output_vars;
  m->n_outs = vars->len;
  m->outs = g_new0 (OutVar, MAX (vars->len, 1));
  for (guint i = 0; i < vars->len; i++)
    {
      const MirOutputVar *v = g_ptr_array_index (vars, i);
      OutVar *o = &m->outs[i];
      char *error = NULL;
      Sz *sz = rt_compile_sized (c, v->constrained, &error);
      if (error)
        {
          add_diag (diagnostics, TILDE_DIAG_RUNTIME, error);
          g_free (error);
          return FALSE;
        }
      jmp_buf jmp;
      Ev ev;
      ev_init (&ev, m, w, &jmp);
      ev.cx.arena = m->persist;
      if (setjmp (jmp))
        {
          add_diag (diagnostics, TILDE_DIAG_DATA, ev.cx.err_msg);
          ev_done (&ev, w);
          return FALSE;
        }
      o->shape = rt_eval_sized (&ev, sz);
      ev_done (&ev, w);
      o->name = v->name;
      o->block = v->block;
      o->trans = v->trans ? v->trans->kind : MIR_TRANS_IDENTITY;
      o->tr = v->trans;
      o->count = shape_count (o->shape);
      if (o->block == MIR_OUT_PARAMETERS)
        {
          o->n_free = free_size (o->tr, o->shape);
          m->n_params += o->n_free;
        }
    }
  for (int k = 0; k < 4; k++)
    m->names[k] = names_for (m, k & 1, (k >> 1) & 1);
  GPtrArray *fn = g_ptr_array_new ();
  for (guint i = 0; i < m->n_outs; i++)
    if (m->outs[i].block == MIR_OUT_PARAMETERS)
      free_names_rec (fn, m->outs[i].name, m->outs[i].shape, m->outs[i].tr);
  g_ptr_array_add (fn, NULL);
  m->free_names = (char **) g_ptr_array_free (fn, FALSE);
  return TRUE;
}

/* Chains run in parallel threads, each evaluating on its own: BLAS threads
 * of their own would only compete with the chains for the cores. */
static void
single_threaded_blas (void)
{
  static gsize done;
  if (g_once_init_enter (&done))
    {
      openblas_set_num_threads (1);
      g_once_init_leave (&done, 1);
    }
}

TildeModel *
tilde_model_new (const MirProgram *program, const TildeJsonData *data, GPtrArray *diagnostics)
{
  return tilde_model_new_full (program, data, NULL, NULL, diagnostics);
}

TildeModel *
tilde_model_new_full (const MirProgram *program, const TildeJsonData *data,
                      TildeModelPrintFunc print_func, gpointer print_data, GPtrArray *diagnostics)
{
  return tilde_model_new_with_rng (program, data, NULL, print_func, print_data, diagnostics);
}

TildeModel *
tilde_model_new_with_rng (const MirProgram *program, const TildeJsonData *data, gsl_rng *rng,
                          TildeModelPrintFunc print_func, gpointer print_data,
                          GPtrArray *diagnostics)
{
  single_threaded_blas ();
  TildeModel *m = g_new0 (TildeModel, 1);
  g_mutex_init (&m->lock);
  g_mutex_init (&m->print_lock);
  m->print_func = print_func;
  m->print_data = print_data;
  m->prog = mir_transform_program (program);
  m->persist = tilde_arena_new (64 * 1024);
  g_autoptr (TildeJsonData) empty = data ? NULL : tilde_json_data_new_empty ();
  if (!data)
    data = empty;
  Compiler *c = rt_compiler_new ();
  g_autoptr (MirTermDeps) term_deps = mir_term_deps_new (m->prog);
  rt_compiler_set_term_deps (c, term_deps);
  if (!compile_all (m, c, diagnostics))
    {
      m->code = rt_compiler_steal_arena (c);
      rt_compiler_free (c);
      tilde_model_free (m);
      return NULL;
    }
  m->n_slots = rt_compiler_n_slots (c);
  m->n_globals = rt_compiler_n_globals (c);

  /* prepare_data, into memory that lives as long as the model */
  Workspace *w = workspace_new (m);
  jmp_buf jmp;
  Ev ev;
  ev_init (&ev, m, w, &jmp);
  ev.cx.arena = m->persist;
  ev.data = data;
  gsl_rng *own_rng = NULL;
  if (rng == NULL)
    {
      own_rng = gsl_rng_alloc (gsl_rng_mt19937);
      gsl_rng_set (own_rng, 0);
    }
  ev.cx.rng = rng ? rng : own_rng;
  gboolean prepared = run_part (&ev, m->parts[MIR_PART_PREPARE_DATA]);
  ev.cx.rng = NULL;
  g_clear_pointer (&own_rng, gsl_rng_free);
  if (!prepared)
    {
      if (ev.cx.err_kind == TILDE_MODEL_ERROR_FATAL)
        add_located_diag (diagnostics, TILDE_DIAG_RUNTIME, &ev);
      else
        add_data_problems (diagnostics, m->prog, data, &ev);
      ev_done (&ev, w);
      workspace_free (w);
      m->code = rt_compiler_steal_arena (c);
      rt_compiler_free (c);
      tilde_model_free (m);
      return NULL;
    }
  m->globals = tilde_arena_memdup (m->persist, ev.slots,
                                   sizeof (TildeValue) * (gsize) MAX (m->n_globals, 1));
  ev_done (&ev, w);
  compute_cached (m, c, w);
  compute_param_shapes (m, c, w);
  gboolean ok = describe_outputs (m, c, w, diagnostics);
  if (ok && rt_compiler_fused ())
    {
      /* before the flat form, which leaves the switched statements alone */
      m->n_normal_stats = rt_normal_stats_attach (m->parts[MIR_PART_LOG_PROB], m->globals,
                                                  m->n_globals, m->persist);
      m->flat = rt_flat_compile (m->parts[MIR_PART_LOG_PROB], m->globals, m->n_globals,
                                 m->n_slots, m->n_params);
      m->flat_joint = m->context == TILDE_MODEL_CONTEXT_JOINT ? m->flat : NULL;
    }
  m->code = rt_compiler_steal_arena (c);
  rt_compiler_free (c);
  workspace_give (m, w);
  if (!ok)
    {
      tilde_model_free (m);
      return NULL;
    }
  return m;
}

void
tilde_model_free (TildeModel *m)
{
  if (!m)
    return;
  if (m->spare)
    workspace_free (m->spare);
  for (guint i = 0; i < m->n_pool; i++)
    workspace_free (m->pool[i]);
  g_free (m->pool);
  rt_gpu_free (m->gpu);
  g_mutex_clear (&m->lock);
  g_mutex_clear (&m->print_lock);
  mir_program_free (m->prog);
  rt_flat_free (m->flat);
  tilde_arena_free (m->code);
  tilde_arena_free (m->persist);
  g_free (m->outs);
  for (int k = 0; k < 4; k++)
    g_strfreev (m->names[k]);
  g_strfreev (m->free_names);
  g_free (m);
}

guint
tilde_model_use_device (TildeModel *m, TildeGpuContext *ctx, gboolean use_opencl,
                        GPtrArray *diagnostics)
{
  g_return_val_if_fail (m->gpu == NULL, 0);
  m->gpu = rt_gpu_attach (m->prog, m->parts[MIR_PART_LOG_PROB], m->globals, m->n_globals, ctx,
                          use_opencl, diagnostics);
  /* the flat form would run the switched statements as it compiled them */
  if (rt_gpu_n_sites (m->gpu) > 0)
    {
      g_clear_pointer (&m->flat, rt_flat_free);
      m->flat_joint = NULL;
    }
  return rt_gpu_n_sites (m->gpu);
}

guint
tilde_model_device_runs (const TildeModel *m)
{
  return rt_gpu_runs (m->gpu);
}

GPtrArray *
tilde_model_take_device_failures (TildeModel *m)
{
  return rt_gpu_take_failures (m->gpu);
}

guint
tilde_model_device_statements (const TildeModel *m)
{
  return rt_gpu_n_sites (m->gpu);
}

gsize
tilde_model_num_params_unconstrained (const TildeModel *m)
{
  return m->n_params;
}

gsize
tilde_model_num_outputs (const TildeModel *m, gboolean tp, gboolean gq)
{
  gsize n = 0;
  for (guint i = 0; i < m->n_outs; i++)
    {
      const OutVar *v = &m->outs[i];
      if ((v->block == MIR_OUT_TRANSFORMED_PARAMETERS && !tp)
          || (v->block == MIR_OUT_GENERATED_QUANTITIES && !gq))
        continue;
      n += v->count;
    }
  return n;
}

const char *const *
tilde_model_output_names (const TildeModel *m, gboolean tp, gboolean gq)
{
  return (const char *const *) m->names[(tp ? 1 : 0) | (gq ? 2 : 0)];
}

const char *const *
tilde_model_unconstrained_names (const TildeModel *m)
{
  return (const char *const *) m->free_names;
}

/* ---- inspection ---- */

static guint
count_fused_ex (const Ex *e)
{
  if (!e)
    return 0;
  if (e->fn == rt_ex_fused)
    return 1;
  guint n = e->fn == rt_ex_sx;
  for (int i = 0; e->fn == rt_ex_sx && i < e->n_sx; i++)
    n += count_fused_ex (e->sx[i].e);
  for (int i = 0; i < e->n_kids; i++)
    n += count_fused_ex (e->kids[i]);
  return n;
}

static guint
count_fused (const St *s)
{
  if (!s)
    return 0;
  if (s->fn == rt_st_target_fused || s->fn == rt_st_for_vector || s->fn == rt_st_for_scalars
      || s->fn == rt_st_for_recurrence || s->fn == rt_st_mvn_cov)
    return 1;
  guint n = count_fused (s->then_s) + count_fused (s->else_s) + count_fused_ex (s->e)
    + count_fused_ex (s->e2);
  for (int i = 0; i < s->n_body; i++)
    n += count_fused (s->body[i]);
  return n;
}

guint
rt_model_count_normal_stats (const TildeModel *m)
{
  return m->n_normal_stats;
}

gsize
rt_model_persist_bytes (const TildeModel *m)
{
  return tilde_arena_bytes_used (m->persist);
}

guint
rt_model_count_fused (const TildeModel *m)
{
  return count_fused (m->parts[MIR_PART_LOG_PROB]);
}

gboolean
rt_model_has_flat (const TildeModel *m)
{
  return m->flat != NULL;
}

/* ---- evaluation ---- */

void
tilde_model_set_context (TildeModel *m, TildeModelContext context)
{
  m->context = context;
  m->flat_joint = context == TILDE_MODEL_CONTEXT_JOINT ? m->flat : NULL;
}

void
tilde_model_set_print_func (TildeModel *m, TildeModelPrintFunc func, gpointer user_data)
{
  m->print_func = func;
  m->print_data = user_data;
}

/* The arguments of tilde_model_log_density. */
typedef struct {
  const double      *theta;
  gboolean           propto, jacobian;
  double            *gradient;
  TildeModelError  **error;
} LogDensityCall;

/* The log density the general way: the closures and the tape. */
G_GNUC_NO_INLINE static double
log_density_general (TildeModel *m, const double *theta, gboolean propto, gboolean jacobian,
                     double *gradient, TildeModelError **error)
{
  Workspace *w = workspace_take (m);
  jmp_buf jmp;
  Ev ev;
  ev_init (&ev, m, w, &jmp);
  ev.cx.propto = propto;
  ev.jacobian = jacobian;
  ev.context = m->context;
  ev.in_log_prob = TRUE;
  gint32 P = (gint32) m->n_params;
  TildeValue th = { .kind = TILDE_VALUE_VECTOR, .ad = 1, .rows = P, .cols = 1 };
  th.start = ad_new_vars (w->tape, P);
  memcpy (w->tape->val + th.start, theta, sizeof (double) * (gsize) P);
  ev.theta = &th;
  gboolean ok = run_part (&ev, m->parts[MIR_PART_LOG_PROB]);
  if (!ok)
    {
      set_error (error, &ev);
      ev_done (&ev, w);
      workspace_give (m, w);
      return NAN;
    }
  double lp = ev.target_const;
  const gint32 *terms = ev.terms;
  for (guint i = 0; i < ev.n_terms; i++)
    lp += w->tape->val[terms[i]];
  if (gradient)
    {
      ad_gradient (w->tape, terms, ev.n_terms);
      memcpy (gradient, w->tape->adj + th.start, sizeof (double) * (gsize) P);
    }
  ev_done (&ev, w);
  workspace_give (m, w);
  return lp;
}

/* After the flat form gave way: the general path, which raises the
 * error with its message when there is one. */
G_GNUC_NO_INLINE static double
log_density_after_flat (TildeModel *m, Workspace *w, const LogDensityCall *c)
{
  rt_flat_gave_way (m->flat, w->flat);
  workspace_give (m, w);
  return log_density_general (m, c->theta, c->propto, c->jacobian, c->gradient, c->error);
}

/* The flat form's run in w, which holds its scratch. */
static inline double
log_density_flat (TildeModel *m, Workspace *w, const LogDensityCall *c)
{
  double lp = rt_flat_run (m->flat, w->flat, c->theta, c->propto, c->jacobian, c->gradient);
  if (G_UNLIKELY (isnan (lp)))
    return log_density_after_flat (m, w, c);
  workspace_give (m, w);
  return lp;
}

/* The same, with w (NULL: the spare one was taken) yet to get a scratch:
 * another thread's workspace, or a first evaluation. */
G_GNUC_NO_INLINE static double
log_density_flat_new (TildeModel *m, Workspace *w, const LogDensityCall *c)
{
  if (!w)
    w = workspace_take (m);
  if (!w->flat)
    w->flat = rt_flat_scratch_new (m->flat);
  return log_density_flat (m, w, c);
}

/* The flat form's evaluation: the spare workspace taken and given back
 * with one atomic operation each, and the rest out of line; what only
 * the other paths read is kept in memory, not in registers. */
G_GNUC_NO_INLINE static double
log_density_with_flat (TildeModel *m, const double *theta, gboolean propto, gboolean jacobian,
                       double *gradient, TildeModelError **error)
{
  const LogDensityCall c = { theta, propto, jacobian, gradient, error };
  Workspace *w = g_atomic_pointer_exchange (&m->spare, NULL);
  if (G_UNLIKELY (!w || !w->flat))
    return log_density_flat_new (m, w, &c);
  return log_density_flat (m, w, &c);
}

/* Either path as a jump, with no frame of its own. */
double
tilde_model_log_density (TildeModel *m, const double *theta, gboolean propto, gboolean jacobian,
                         double *gradient, TildeModelError **error)
{
  if (G_UNLIKELY (!m->flat_joint))
    return log_density_general (m, theta, propto, jacobian, gradient, error);
  return log_density_with_flat (m, theta, propto, jacobian, gradient, error);
}

gboolean
tilde_model_constrain (TildeModel *m, const double *theta, gboolean tp, gboolean gq,
                       gsl_rng *rng, double *out, TildeModelError **error)
{
  Workspace *w = workspace_take (m);
  jmp_buf jmp;
  Ev ev;
  ev_init (&ev, m, w, &jmp);
  ev.cx.rng = rng;
  ev.emit_tp = tp;
  ev.emit_gq = gq;
  gint32 P = (gint32) m->n_params;
  TildeValue th = { .kind = TILDE_VALUE_VECTOR, .rows = P, .cols = 1 };
  th.u.d = tilde_arena_memdup (w->tape->arena, theta, sizeof (double) * (gsize) MAX (P, 1));
  ev.theta = &th;
  gboolean ok = run_part (&ev, m->parts[MIR_PART_GENERATE_QUANTITIES]);
  gsize expected = tilde_model_num_outputs (m, tp, gq);
  if (ok && ev.n_out != expected)
    {
      ev.cx.err_kind = TILDE_MODEL_ERROR_FATAL;
      ev.cx.err_msg = g_strdup_printf ("the model wrote %" G_GSIZE_FORMAT " values where %"
                                       G_GSIZE_FORMAT " were expected", ev.n_out, expected);
      ok = FALSE;
    }
  if (ok && expected > 0)
    memcpy (out, ev.out, sizeof (double) * expected);
  else if (!ok)
    set_error (error, &ev);
  ev_done (&ev, w);
  workspace_give (m, w);
  return ok;
}

gboolean
tilde_model_unconstrain (TildeModel *m, const TildeJsonData *inits, double *theta,
                         TildeModelError **error)
{
  return tilde_model_unconstrain_rounded (m, inits, 0, theta, error);
}

gboolean
tilde_model_unconstrain_rounded (TildeModel *m, const TildeJsonData *inits, int digits,
                                 double *theta, TildeModelError **error)
{
  Workspace *w = workspace_take (m);
  jmp_buf jmp;
  Ev ev;
  ev_init (&ev, m, w, &jmp);
  ev.data = inits;
  /* half a unit in the last digit, relative, with room for the sums */
  ev.cx.rounding = digits > 0 ? 5 * pow (10, -digits) : 0;
  gboolean ok = run_part (&ev, m->parts[MIR_PART_TRANSFORM_INITS]);
  if (ok && ev.n_out != m->n_params)
    {
      ev.cx.err_kind = TILDE_MODEL_ERROR_FATAL;
      ev.cx.err_msg = g_strdup_printf ("the inits gave %" G_GSIZE_FORMAT " unconstrained values "
                                       "where %" G_GSIZE_FORMAT " were expected", ev.n_out,
                                       m->n_params);
      ok = FALSE;
    }
  if (ok)
    memcpy (theta, ev.out, sizeof (double) * m->n_params);
  else
    set_error (error, &ev);
  ev_done (&ev, w);
  workspace_give (m, w);
  return ok;
}
