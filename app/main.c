/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include <stdio.h>

#include "tilde-engine.h"

int
main (int argc, char *argv[])
{
  printf ("tilde %s\n", tilde_engine_version ());
  return 0;
}
