/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde-engine"

#include "config.h"

#include "tilde-engine.h"

const char *
tilde_engine_version (void)
{
  return PACKAGE_VERSION;
}

const char *
tilde_engine_stan_version (void)
{
  return "2.36";
}
