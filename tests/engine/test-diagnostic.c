/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <json-glib/json-glib.h>

#include "tilde-engine.h"

static void
test_new_and_copy (void)
{
  g_autoptr(TildeDiagnostic) d = tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_PARSING,
                                                       "inner.stan", 3, 4, 3, 9, "bad");
  g_autoptr(TildeDiagnostic) copy = NULL;

  tilde_diagnostic_add_include_frame (d, "main.stan", 7, 0);
  copy = tilde_diagnostic_copy (d);
  g_assert_true (tilde_diagnostic_is_error (copy));
  g_assert_cmpstr (copy->file, ==, "inner.stan");
  g_assert_cmpint (copy->begin_line, ==, 3);
  g_assert_cmpint (copy->end_column, ==, 9);
  g_assert_cmpuint (copy->include_frames->len, ==, 1);
  g_assert_cmpstr (g_array_index (copy->include_frames, TildeIncludeFrame, 0).file, ==, "main.stan");
  g_assert_cmpint (g_array_index (copy->include_frames, TildeIncludeFrame, 0).line, ==, 7);
}

static void
test_list_has_errors (void)
{
  g_autoptr(GPtrArray) list = tilde_diagnostic_list_new ();

  g_assert_false (tilde_diagnostic_list_has_errors (list));
  g_ptr_array_add (list, tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_PEDANTIC,
                                               "m.stan", 1, 0, 1, 5, "w"));
  g_assert_false (tilde_diagnostic_list_has_errors (list));
  g_ptr_array_add (list, tilde_diagnostic_new (TILDE_SEVERITY_ERROR, TILDE_DIAG_SEMANTIC,
                                               "m.stan", 2, 0, 2, 5, "e"));
  g_assert_true (tilde_diagnostic_list_has_errors (list));
}

static void
test_json_round_trip (void)
{
  g_autoptr(GPtrArray) list = tilde_diagnostic_list_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *json = NULL;
  JsonArray *array;
  JsonObject *obj;

  g_ptr_array_add (list, tilde_diagnostic_new (TILDE_SEVERITY_WARNING, TILDE_DIAG_WARNING,
                                               "a \"quoted\" name.stan", 2, 1, 2, 6,
                                               "line one\nline two"));
  json = tilde_diagnostics_to_json (list);
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  array = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (array), ==, 1);
  obj = json_array_get_object_element (array, 0);
  g_assert_cmpstr (json_object_get_string_member (obj, "severity"), ==, "warning");
  g_assert_cmpstr (json_object_get_string_member (obj, "file"), ==, "a \"quoted\" name.stan");
  g_assert_cmpint (json_object_get_int_member (obj, "begin_column"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (obj, "message"), ==, "line one\nline two");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/diagnostic/new-and-copy", test_new_and_copy);
  g_test_add_func ("/engine/diagnostic/list-has-errors", test_list_has_errors);
  g_test_add_func ("/engine/diagnostic/json-round-trip", test_json_round_trip);
  return g_test_run ();
}
