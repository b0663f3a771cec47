/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Normal linear models over data by their sufficient statistics
 * (normal-stats.c). */
#pragma once

#include "runtime/exec-private.h"

G_BEGIN_DECLS

typedef struct RtNormalStats RtNormalStats;

/* Switches the statements of log_prob that are `normal_id_glm` (or
 * `normal (X * beta + alpha, sigma)`) over data y and X of `globals` to
 * their sufficient statistics, computed now into `arena`; how many. */
guint rt_normal_stats_attach (St *log_prob, const TildeValue *globals, int n_globals,
                              TildeArena *arena);

/* Whether models prepared from now on use the statistics (TRUE, the
 * default); benchmarks turn it off to time the pass over X. */
void  rt_normal_stats_set_enabled (gboolean on);

/* A statement switched (St.normal_stats is its statistics). */
Flow  rt_st_target_normal_stats (Ev *ev, const St *s);

G_END_DECLS
