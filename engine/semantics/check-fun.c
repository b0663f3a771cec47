/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "check-private.h"

#include <string.h>

static const char *const known_annotations[] = { "extern", "gpu", "inline", "silent" };

gboolean
_tilde_annotation_is_known (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_annotations); i++)
    if (strcmp (name, known_annotations[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
has_annotation (const TildeStmt *s, const char *name)
{
  for (int i = 0; i < s->u.fun_def.n_annotations; i++)
    if (strcmp (s->u.fun_def.annotations[i].name.name, name) == 0)
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------ signatures */

/* The function type a definition declares, or NULL when a type is malformed. */
static const TildeType *
signature_of (const TildeStmt *s)
{
  int n = s->u.fun_def.n_args;
  g_autofree TildeArgType *args = g_new (TildeArgType, MAX (n, 1));
  const TildeType *ret = _tilde_unsized_type (s->u.fun_def.return_type);

  for (int i = 0; i < n; i++)
    {
      args[i].ad = s->u.fun_def.args[i].data_only ? TILDE_AD_DATA : TILDE_AD_AUTODIFF;
      args[i].type = _tilde_unsized_type (s->u.fun_def.args[i].type);
      if (args[i].type == NULL)
        return NULL;
    }
  if (ret == NULL)
    return NULL;
  return tilde_type_function ((guint) n, args, ret,
                              tilde_fun_kind_from_name (s->u.fun_def.name.name));
}

static gboolean
same_argument_types (const TildeType *a, const TildeType *b)
{
  if (tilde_type_n_args (a) != tilde_type_n_args (b))
    return FALSE;
  for (guint i = 0; i < tilde_type_n_args (a); i++)
    if (tilde_type_arg (a, i)->type != tilde_type_arg (b, i)->type)
      return FALSE;
  return TRUE;
}

static gboolean
same_arguments (const TildeType *a, const TildeType *b)
{
  if (!same_argument_types (a, b))
    return FALSE;
  for (guint i = 0; i < tilde_type_n_args (a); i++)
    if (tilde_type_arg (a, i)->ad != tilde_type_arg (b, i)->ad)
      return FALSE;
  return TRUE;
}

/* A forward declaration, not yet defined, of exactly this signature. */
static TildeFunction *
find_declared (TildeChecker *c, const char *name, const TildeType *type)
{
  for (TildeFunction *f = tilde_scope_lookup_function (c->scope, name); f; f = f->next)
    if (f->definition == NULL && same_arguments (f->type, type)
        && tilde_type_return (f->type) == tilde_type_return (type))
      return f;
  return NULL;
}

/* stanc's verify_unique_signature: the newest overload with the same
 * argument types decides. */
static gboolean
check_unique_signature (TildeChecker *c, const TildeStmt *s, const TildeType *type)
{
  const char *name = s->u.fun_def.name.name;
  const TildeType *clash = NULL;
  gboolean library = FALSE;

  for (TildeFunction *f = tilde_scope_lookup_function (c->scope, name); f; f = f->next)
    if (same_argument_types (f->type, type))
      clash = f->type;   /* the last one added is the newest */
  if (clash == NULL && !_tilde_library_name_yields (name))
    {
      guint n;
      const TildeType *const *lib = tilde_library_signatures (name, &n);

      for (guint i = 0; i < n && clash == NULL; i++)
        if (same_argument_types (lib[i], type))
          {
            clash = lib[i];
            library = TRUE;
          }
    }
  if (clash == NULL)
    return TRUE;
  if (tilde_type_return (clash) != tilde_type_return (type))
    _tilde_check_error (c, &s->span, "Function '%s' cannot be overloaded by return type only. "
                        "Previously used return type %s", name,
                        _tilde_type_name (tilde_type_return (clash)));
  else if (library)
    _tilde_check_error (c, &s->span, "Function '%s' is already declared in the Stan Math "
                        "library with signature \n%s", name, _tilde_type_name (type));
  else
    _tilde_check_error (c, &s->span, "Function '%s' has already been declared for signature %s",
                        name, _tilde_type_name (type));
  return FALSE;
}

static gboolean
check_function_name (TildeChecker *c, const TildeStmt *s)
{
  const char *name = s->u.fun_def.name.name;

  if (tilde_library_variadic (name))
    {
      _tilde_check_error (c, &s->span, "Identifier '%s' clashes with a non-overloadable Stan "
                          "Math library function.", name);
      return FALSE;
    }
  if (g_str_has_suffix (name, "_lupdf") || g_str_has_suffix (name, "_lupmf"))
    {
      _tilde_check_error (c, &s->span, "@['%s' is an invalid user-defined function name.@ "
                          "User-defined probability mass and density functions must@ be defined "
                          "as normalized@ (function names should end@ with@ _lpdf/_lpmf not "
                          "_lupdf/_lupmf).@]", name);
      return FALSE;
    }
  return TRUE;
}

static void
check_fun_annotations (TildeChecker *c, const TildeStmt *s)
{
  for (int i = 0; i < s->u.fun_def.n_annotations; i++)
    {
      const TildeAnnotation *a = &s->u.fun_def.annotations[i];

      if (!_tilde_annotation_is_known (a->name.name))
        _tilde_check_warning (c, &a->span, "Unknown annotation '%s' will be ignored by the "
                              "compiler", a->name.name);
      else if (strcmp (a->name.name, "gpu") == 0)
        _tilde_check_warning (c, &a->span, "Annotation 'gpu' only applies to variables of the "
                              "data and transformed data blocks and will be ignored by the "
                              "compiler");
    }
}

static void
collect_one (TildeChecker *c, TildeStmt *s)
{
  const char *name = s->u.fun_def.name.name;
  const TildeType *type = signature_of (s);
  TildeFunction *declared;

  check_fun_annotations (c, s);
  if (type == NULL)
    return;
  declared = find_declared (c, name, type);
  if (declared == NULL && !check_unique_signature (c, s, type))
    return;
  if (!check_function_name (c, s))
    return;
  if (declared && declared->is_extern)
    {
      /* an @extern declaration stands for a definition made elsewhere */
      _tilde_check_error (c, &s->span, "Function '%s' has already been declared for signature "
                          "%s", name, _tilde_type_name (type));
      return;
    }
  if (s->u.fun_def.body == NULL)
    {
      if (declared)
        {
          _tilde_check_error (c, &s->span, "Function '%s' has already been declared. A "
                              "definition is expected.", name);
          return;
        }
      declared = tilde_scope_add_function (c->scope, name, type);
      declared->declaration = s;
      declared->is_extern = has_annotation (s, "extern");
      return;
    }
  if (declared == NULL)
    declared = tilde_scope_add_function (c->scope, name, type);
  declared->definition = s;
}

void
_tilde_check_collect_functions (TildeChecker *c, TildeBlock *block)
{
  for (int i = 0; block && i < block->n_stmts; i++)
    if (block->stmts[i]->kind == TILDE_STMT_FUN_DEF)
      collect_one (c, block->stmts[i]);
}

/* ------------------------------------------------------------ definitions */

static gboolean
check_suffix_rules (TildeChecker *c, const TildeStmt *s, const TildeType *type)
{
  const char *name = s->u.fun_def.name.name;
  const TildeType *ret = tilde_type_return (type);
  const TildeType *first = tilde_type_n_args (type) ? tilde_type_arg (type, 0)->type : NULL;

  if (_tilde_has_conditioning_suffix (name) && !tilde_type_is_real (ret))
    {
      if (tilde_type_kind (ret) == TILDE_TYPE_VOID)
        _tilde_check_error (c, &s->span, "@[Real return type required for probability "
                            "functions ending in _lpdf, _lupdf, _lpmf, _lupmf, _cdf, _lcdf, or "
                            "_lccdf.@ Instead found a void function.@]");
      else
        {
          g_autofree char *found = _tilde_found_type (ret);
          _tilde_check_error (c, &s->span, "@[Real return type required for probability "
                              "functions ending in _lpdf, _lupdf, _lpmf, _lupmf, _cdf, _lcdf, or "
                              "_lccdf.%s@]", found);
        }
      return FALSE;
    }
  if (g_str_has_suffix (name, "_lpdf") && (first == NULL || tilde_type_is_discrete (first)))
    {
      g_autofree char *found = first ? _tilde_found_type (first) : g_strdup ("");
      _tilde_check_error (c, &s->span, "@[Probability density functions require real variates "
                          "(first argument).%s@]", found);
      return FALSE;
    }
  if (g_str_has_suffix (name, "_lpmf") && (first == NULL || !tilde_type_is_discrete (first)))
    {
      g_autofree char *found = first ? _tilde_found_type (first) : g_strdup ("");
      _tilde_check_error (c, &s->span, "@[Probability mass functions require integer variates "
                          "(first argument).%s@]", found);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_arguments (TildeChecker *c, const TildeStmt *s)
{
  gboolean ok = TRUE;

  for (int i = 0; i < s->u.fun_def.n_args; i++)
    {
      const TildeIdent *id = &s->u.fun_def.args[i].ident;

      if (_tilde_name_suffix (id->name) == TILDE_SUFFIX_LUPDF
      || _tilde_name_suffix (id->name) == TILDE_SUFFIX_LUPMF)
        {
          _tilde_check_error (c, &id->span, "Identifier '%s' has a _lupdf/_lupmf suffix, which "
                              "is only allowed for functions.", id->name);
          ok = FALSE;
        }
    }
  for (int i = 0; i < s->u.fun_def.n_args && ok; i++)
    for (int j = 0; j < i; j++)
      if (s->u.fun_def.args[i].ident.name == s->u.fun_def.args[j].ident.name)
        {
          _tilde_check_error (c, &s->span,
                              "All function arguments must have distinct identifiers.");
          return FALSE;
        }
  return ok;
}

static void
declare_arguments (TildeChecker *c, TildeStmt *s, const TildeType *type)
{
  for (int i = 0; i < s->u.fun_def.n_args; i++)
    {
      const TildeArgType *a = tilde_type_arg (type, (guint) i);
      TildeFunArg *arg = &s->u.fun_def.args[i];
      TildeVariable *v;

      _tilde_check_variable_name (c, &arg->ident);

      if (tilde_scope_lookup_variable (c->scope, arg->ident.name))
        continue;
      v = tilde_scope_new_variable (c->scope, arg->ident.name, a->type, TILDE_VAR_ARGUMENT,
                                    TILDE_BLOCK_FUNCTIONS, &arg->ident.span, s);
      /* data arguments behave like data, the others like parameters */
      v->origin = a->ad == TILDE_AD_DATA ? TILDE_BLOCK_DATA : TILDE_BLOCK_PARAMETERS;
      tilde_scope_add_variable (c->scope, v);
    }
}

void
_tilde_check_fun_def (TildeChecker *c, TildeStmt *s)
{
  const TildeType *type = signature_of (s);
  TildeChecker saved = *c;
  gboolean ok = TRUE;
  TildeFlow flow;

  for (int i = 0; i < s->u.fun_def.n_args; i++)
    ok &= _tilde_check_identifier (c, s->u.fun_def.args[i].ident.name,
                                   &s->u.fun_def.args[i].ident.span);
  ok &= _tilde_check_identifier (c, s->u.fun_def.name.name, &s->u.fun_def.name.span);
  if (type == NULL)
    return;
  for (int i = 0; i < s->u.fun_def.n_args; i++)
    s->u.fun_def.args[i].checked_type = tilde_type_arg (type, (guint) i)->type;
  ok = ok && check_suffix_rules (c, s, type);
  ok = ok && check_arguments (c, s);
  if (s->u.fun_def.body == NULL)
    return;
  tilde_scope_open (c->scope);
  declare_arguments (c, s, type);
  c->block = TILDE_BLOCK_FUNCTIONS;
  c->in_function = TRUE;
  c->fun_kind = tilde_type_fun_kind (type) == TILDE_FUN_LUPDF ? TILDE_FUN_LPDF
                : tilde_type_fun_kind (type);
  c->fun_return = tilde_type_kind (tilde_type_return (type)) == TILDE_TYPE_VOID
                  ? NULL : tilde_type_return (type);
  c->loop_depth = 0;
  flow = _tilde_check_stmt (c, s->u.fun_def.body);
  tilde_scope_close (c->scope);
  c->block = saved.block;
  c->in_function = saved.in_function;
  c->fun_kind = saved.fun_kind;
  c->fun_return = saved.fun_return;
  c->loop_depth = saved.loop_depth;
  if (ok && tilde_type_kind (tilde_type_return (type)) != TILDE_TYPE_VOID
      && flow != TILDE_FLOW_COMPLETE)
    _tilde_check_error (c, &s->span, "Function bodies must contain a return statement of "
                        "correct type in every branch.");
}

/* ------------------------------------------------------------ after the block */

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

void
_tilde_check_functions_defined (TildeChecker *c, TildeBlock *block)
{
  if (!c->allow_undefined)
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new ();

      for (guint i = 0; i < tilde_scope_n_function_names (c->scope); i++)
        g_ptr_array_add (names, (gpointer) tilde_scope_function_name (c->scope, i));
      g_ptr_array_sort (names, compare_names);
      for (guint i = 0; i < names->len; i++)
        for (TildeFunction *f = tilde_scope_lookup_function (c->scope,
                                                            g_ptr_array_index (names, i));
             f; f = f->next)
          if (f->definition == NULL && !f->is_extern && f->declaration)
            _tilde_check_error (c, &f->declaration->u.fun_def.name.span,
                                "Function '%s' is declared without specifying a definition.",
                                f->name);
    }
  for (int i = 0; block && i < block->n_stmts; i++)
    {
      TildeStmt *s = block->stmts[i];
      if (s->kind != TILDE_STMT_FUN_DEF)
        continue;
      if (s->u.fun_def.body && s->u.fun_def.body->kind != TILDE_STMT_BLOCK)
        _tilde_check_error (c, &s->u.fun_def.body->span,
                            "Function definitions must be wrapped in curly braces.");
      if (s->u.fun_def.body)
        continue;
      for (TildeFunction *f = tilde_scope_lookup_function (c->scope, s->u.fun_def.name.name);
           f; f = f->next)
        if (f->declaration == s && f->definition)
          _tilde_check_warning (c, &s->u.fun_def.name.span, "Functions do not need to be "
                                "declared before definition; all user defined function names "
                                "are always in scope regardless of definition order.");
    }
}
