/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "tilde-data-panel.h"
#include "tilde-editor.h"
#include "tilde-run-controller.h"

G_BEGIN_DECLS

#define TILDE_TYPE_RUN_PANEL (tilde_run_panel_get_type ())

G_DECLARE_FINAL_TYPE (TildeRunPanel, tilde_run_panel, TILDE, RUN_PANEL, GtkWidget)

/* The options of a run (algorithm, chains, warm-up, draws, thin, seed,
 * adapt delta, tree depth, metric, init radius, context, device and
 * whether large data go to it, optimisation level; the optimiser and
 * Laplace draws; the folder runs go to), remembered in :settings when
 * given, Run and Stop, and the progress of the run of its :controller:
 * one bar per chain with its phase, iteration, draws per second and time
 * left. A run that cannot start, or a device it could not use, lists why
 * below.
 *
 * Run takes the text of :editor's buffer and of :data-panel's (no data
 * without one). Widget actions: run-panel.run, run-panel.stop. */
GtkWidget          *tilde_run_panel_new            (void);
TildeRunController *tilde_run_panel_get_controller (TildeRunPanel      *self);
void                tilde_run_panel_set_controller (TildeRunPanel      *self,
                                                    TildeRunController *controller);
TildeEditor        *tilde_run_panel_get_editor     (TildeRunPanel      *self);
void                tilde_run_panel_set_editor     (TildeRunPanel      *self,
                                                    TildeEditor        *editor);
TildeDataPanel     *tilde_run_panel_get_data_panel (TildeRunPanel      *self);
void                tilde_run_panel_set_data_panel (TildeRunPanel      *self,
                                                    TildeDataPanel     *data_panel);
/* Binds every option to its key (org.tilde.Workbench's run-* keys and
 * optimization-level); NULL unbinds. */
GSettings          *tilde_run_panel_get_settings   (TildeRunPanel      *self);
void                tilde_run_panel_set_settings   (TildeRunPanel      *self,
                                                    GSettings          *settings);

/* The options as chosen. */
void                tilde_run_panel_get_run_settings (TildeRunPanel    *self,
                                                      TildeRunSettings *settings);
/* Shows the options of a run (an opened one). */
void                tilde_run_panel_set_run_settings (TildeRunPanel          *self,
                                                      const TildeRunSettings *settings);
/* Lists the OpenCL devices the engine finds, on a thread of their own
 * (the first call only; the window makes it once): each is added after the
 * CPU as "opencl:PLATFORM:DEVICE" with its name, its platform and whether
 * it has double precision (one without is shown but cannot be chosen),
 * then :devices-listed goes TRUE. The device :settings keeps is chosen
 * again when it is listed; the CPU stays chosen otherwise. */
void                tilde_run_panel_list_devices     (TildeRunPanel    *self);
gboolean            tilde_run_panel_get_devices_listed (TildeRunPanel  *self);
/* Devices beyond the CPU, listed after it; `id` is what :settings keeps
 * ("opencl:P:D", as `tilde sample --device` takes it). */
void                tilde_run_panel_add_device       (TildeRunPanel    *self,
                                                      const char       *id,
                                                      const char       *label);
/* "cpu" or the chosen device's id. */
const char         *tilde_run_panel_get_device       (TildeRunPanel    *self);
/* The name a run takes when the editor's model has no file (a model
 * reopened from a saved run: that run's model's name); NULL: "model".
 * A model with a file is named after the file. */
void                tilde_run_panel_set_untitled_name (TildeRunPanel  *self,
                                                       const char     *name);
/* Starts a run of the editor's text with the data panel's; FALSE when
 * one goes on or there is no editor. */
gboolean            tilde_run_panel_run              (TildeRunPanel    *self);

/* The bar of chain `chain` (0-based) of the current run, NULL if none. */
GtkProgressBar     *tilde_run_panel_get_progress_bar (TildeRunPanel    *self,
                                                      guint             chain);
/* Selects the statement a run's problem is at in the editor and gives the
 * editor the focus; FALSE when the problem has no place in the model. */
gboolean            tilde_run_panel_go_to_problem    (TildeRunPanel    *self,
                                                      TildeProblem     *problem);
/* The line under the settings: how the last run ended. */
const char         *tilde_run_panel_get_status       (TildeRunPanel    *self);

G_END_DECLS
