/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Diagnostics are values: every stage that reads user input reports what is wrong
 * through these structs, never by printing. The same list feeds the CLI's
 * stanc-style text, the JSON form (--json-diagnostics) and the editor's squiggles.
 *
 * Positions follow stanc: lines count from 1, columns from 0, and `end` is the
 * position just after the last character of the offending text.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TILDE_SEVERITY_ERROR,
  TILDE_SEVERITY_WARNING,
  TILDE_SEVERITY_INFO,
} TildeSeverity;

typedef enum {
  TILDE_DIAG_LEXING,      /* "Syntax error in ..., lexing error:" */
  TILDE_DIAG_PARSING,     /* "Syntax error in ..., parsing error:" */
  TILDE_DIAG_INCLUDE,     /* "Syntax error in ..., include error:" */
  TILDE_DIAG_SEMANTIC,    /* "Semantic error in ...:" */
  TILDE_DIAG_WARNING,     /* ordinary compiler warning */
  TILDE_DIAG_PEDANTIC,    /* --warn-pedantic */
  TILDE_DIAG_UNINITIALIZED, /* --warn-uninitialized */
  TILDE_DIAG_DATA,        /* data or inits that do not fit the model */
  TILDE_DIAG_RUNTIME,     /* an error while running a model */
} TildeDiagnosticKind;

/* One step of an #include chain: the place in `file` where the next file was included. */
typedef struct {
  char *file;
  int line;
  int column;
} TildeIncludeFrame;

typedef struct {
  TildeSeverity severity;
  TildeDiagnosticKind kind;
  char *file;             /* file the span is in (NULL when there is none) */
  int begin_line;         /* 1-based; 0 when the diagnostic has no location */
  int begin_column;       /* 0-based */
  int end_line;
  int end_column;
  char *message;          /* the explanation, possibly several lines */
  GArray *include_frames; /* TildeIncludeFrame, innermost first; NULL when none */
} TildeDiagnostic;

TildeDiagnostic *tilde_diagnostic_new (TildeSeverity       severity,
                                       TildeDiagnosticKind kind,
                                       const char         *file,
                                       int begin_line, int begin_column,
                                       int end_line, int end_column,
                                       const char         *message);
TildeDiagnostic *tilde_diagnostic_copy (const TildeDiagnostic *diag);
void             tilde_diagnostic_free (TildeDiagnostic *diag);
void             tilde_diagnostic_add_include_frame (TildeDiagnostic *diag,
                                                     const char      *file,
                                                     int              line,
                                                     int              column);
gboolean         tilde_diagnostic_is_error (const TildeDiagnostic *diag);

/* A GPtrArray of TildeDiagnostic* that frees its elements. */
GPtrArray       *tilde_diagnostic_list_new (void);
gboolean         tilde_diagnostic_list_has_errors (GPtrArray *list);

/* "error", "warning", "info" */
const char      *tilde_severity_to_string (TildeSeverity severity);
/* "lexing", "parsing", "include", "semantic", "warning", "pedantic", ... */
const char      *tilde_diagnostic_kind_to_string (TildeDiagnosticKind kind);

/* One JSON object per diagnostic, as printed by --json-diagnostics:
 * {"severity","kind","file","begin_line","begin_column","end_line","end_column","message"} */
char            *tilde_diagnostics_to_json (GPtrArray *list);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TildeDiagnostic, tilde_diagnostic_free)

G_END_DECLS
