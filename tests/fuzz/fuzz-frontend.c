/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target for the front end: any bytes go through the lexer, the parser
 * (with error recovery), the type checker and the pedantic checks, the
 * formatter on what parsed, and the stanc-style rendering of every
 * diagnostic. Nothing may crash, hang, leak or trip a sanitizer.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz-target.h"
#include "semantics/check.h"
#include "syntax/parser.h"
#include "syntax/printer.h"
#include "tilde-diagnostic-render.h"
#include "tilde-warnings.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GPtrArray) diagnostics = tilde_diagnostic_list_new ();
  TildeProgram *program;

  program = tilde_parse_buffer ("fuzz.stan", NULL, (const char *) data, (gssize) size,
                                NULL, 0, diagnostics);
  if (!tilde_diagnostic_list_has_errors (diagnostics))
    {
      g_autofree char *printed = tilde_print_program (program, TILDE_PRINT_DEFAULT);
      if (tilde_check_program (program, NULL, diagnostics))
        tilde_warnings_pedantic (program, diagnostics);
    }
  for (guint i = 0; i < diagnostics->len; i++)
    {
      g_autofree char *text = tilde_diagnostic_render_with_sources (g_ptr_array_index (diagnostics, i),
                                                                   program->sources);
    }
  tilde_program_free (program);
  return 0;
}
