/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The memory-pattern analysis against the Stan compiler's rules
 * (Memory_patterns.ml): each parameter of mem_patterns.stan is demoted to
 * AoS by exactly one rule, or kept SoA, and the report has stanc's
 * `--debug-mem-patterns` lines.
 */
#define G_LOG_DOMAIN "tilde-test"

#include <string.h>

#include "mir-test-util.h"
#include "mir/mir-mem-pattern.h"
#include "mir/mir-transform.h"

static MirProgram *
transformed_fixture (void)
{
  g_autofree char *path = mir_test_path ("models", "mem_patterns.stan");
  g_autoptr (MirProgram) p = mir_test_lower_file (path, NULL);
  g_assert_nonnull (p);
  return mir_transform_program (p);
}

static void
test_report (void)
{
  g_autoptr (MirProgram) p = transformed_fixture ();
  g_autofree char *report = mir_mem_patterns_report (p);
  mir_test_assert_text ("report", report,
    "vector[N] beta: SoA\n"
    "vector[N] z: AoS\n"
    "vector[N] a: AoS\n"
    "vector[N] b: AoS\n"
    "vector[N] c: AoS\n"
    "vector[N] mu: SoA\n"
    "vector[N] scaled: SoA\n"
    "vector[N] copy: AoS\n"
    "vector[N] sorted: AoS\n"
    "array[vector[N], 2] both: AoS\n");
}

static void
test_reasons (void)
{
  g_autoptr (MirProgram) p = transformed_fixture ();
  g_autofree char *text = mir_mem_patterns_explain (p);
  static const char *const lines[] = {
    /* single cells in a loop (the loop from 1 to 1 over beta is none) */
    "vector[N] z: AoS  // indexed down to single cells inside a loop\n",
    "vector[N] a: AoS  // passed to the user-defined function f\n",
    "vector[N] b: AoS  // part of an array, row-vector or tuple expression\n",
    "vector[N] c: AoS  // used by sort_asc, which has no SoA signature\n",
    /* data matrix times autodiff vector (rep_vector counts as one) stays SoA */
    "vector[N] scaled: SoA\n",
    /* AoS spreads along assignments */
    "vector[N] copy: AoS  // assigned from AoS variables only\n",
    "vector[N] sorted: AoS  // assigned the result of sort_asc, which has no SoA signature\n",
    "array[vector[N], 2] both: AoS  // assigned an array or row-vector expression\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    if (!strstr (text, lines[i]))
      {
        g_test_message ("missing: %s\n%s", lines[i], text);
        g_test_fail ();
      }
}

static void
test_entries (void)
{
  g_autoptr (MirProgram) p = transformed_fixture ();
  g_autoptr (GArray) entries = mir_mem_patterns_analyze (p);
  g_assert_cmpuint (entries->len, ==, 10);
  const MirMemPatternEntry *z = &g_array_index (entries, MirMemPatternEntry, 1);
  g_assert_cmpstr (z->name, ==, "z");
  g_assert_cmpint (z->pattern, ==, MIR_MEM_AOS);
  g_assert_nonnull (z->span.file);
  const MirMemPatternEntry *beta = &g_array_index (entries, MirMemPatternEntry, 0);
  g_assert_cmpint (beta->pattern, ==, MIR_MEM_SOA);
  g_assert_null (beta->reason);
}

static void
test_signature_table (void)
{
  const TildeType *m = tilde_type_matrix (), *v = tilde_type_vector (), *r = tilde_type_real ();
  const TildeType *mv[] = { m, v };
  const TildeType *vv[] = { v, v };
  const TildeType *mm[] = { m, m };
  const TildeType *av[] = { tilde_type_array (r) };
  const TildeType *cv[] = { tilde_type_complex_vector () };
  g_assert_true (mir_mem_pattern_supports_soa ("Times__", mv, 2));
  g_assert_true (mir_mem_pattern_supports_soa ("normal_lupdf", vv, 2));
  g_assert_false (mir_mem_pattern_supports_soa ("multi_normal_lpdf", vv, 2));
  g_assert_true (mir_mem_pattern_supports_soa ("columns_dot_product", mm, 2));
  g_assert_false (mir_mem_pattern_supports_soa ("columns_dot_product", vv, 2));
  g_assert_true (mir_mem_pattern_supports_soa ("mean", av, 1));
  g_assert_false (mir_mem_pattern_supports_soa ("mean", vv, 1));
  g_assert_true (mir_mem_pattern_supports_soa ("simplex_constrain", vv, 1));
  g_assert_false (mir_mem_pattern_supports_soa ("simplex_unconstrain", vv, 1));
  g_assert_false (mir_mem_pattern_supports_soa ("exp", cv, 1));
  g_assert_false (mir_mem_pattern_supports_soa ("no_such_function", vv, 1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mir/mem-pattern/report", test_report);
  g_test_add_func ("/mir/mem-pattern/reasons", test_reasons);
  g_test_add_func ("/mir/mem-pattern/entries", test_entries);
  g_test_add_func ("/mir/mem-pattern/signature-table", test_signature_table);
  return g_test_run ();
}
