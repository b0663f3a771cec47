/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The OpenCL headers at the version every part of engine/gpu targets. */
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
