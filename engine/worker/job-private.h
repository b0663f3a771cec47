/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared between the files of engine/worker only. */
#pragma once

#include "worker/job.h"

G_BEGIN_DECLS

/* The worker numbers a result before anyone else sees it. */
void _tilde_job_result_set_generation (TildeJobResult *result, guint64 generation);

G_END_DECLS
