/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "tilde"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "tilde-warnings-banner.h"

#define N_WARNINGS 5
#define ESS_LIMIT 400.0
/* Parameters named by the tree depth, R-hat and ESS warnings, at most. */
#define MAX_NAMED 4

typedef struct {
  char      *text;
  GPtrArray *parameters;   /* char *, NULL-terminated */
} Warning;

struct _TildeWarningsBanner
{
  GtkWidget  parent_instance;

  GtkWidget *info_bar;
  GtkWidget *box;
  Warning    warnings[N_WARNINGS];
};

G_DEFINE_FINAL_TYPE (TildeWarningsBanner, tilde_warnings_banner, GTK_TYPE_WIDGET)

enum {
  SIGNAL_SELECT_PARAMETERS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
warning_clear (Warning *w)
{
  g_clear_pointer (&w->text, g_free);
  g_clear_pointer (&w->parameters, g_ptr_array_unref);
}

static GPtrArray *
names_new (void)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (names, NULL);
  return names;
}

static void
names_add (GPtrArray *names, const char *name)
{
  names->pdata[names->len - 1] = g_strdup (name);
  g_ptr_array_add (names, NULL);
}

/* ---- which parameters ---- */

typedef struct {
  const TildeSummaryRow *row;
  double                 score;
} Ranked;

static int
by_score_descending (gconstpointer a, gconstpointer b)
{
  double x = ((const Ranked *) a)->score, y = ((const Ranked *) b)->score;

  if (isnan (x) || isnan (y))
    return isnan (x) - isnan (y);
  return (x < y) - (x > y);
}

static GArray *
model_rows (const TildeSummary *summary)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Ranked));

  for (guint i = 0; i < summary->rows->len; i++)
    {
      const TildeSummaryRow *r = g_ptr_array_index (summary->rows, i);
      Ranked k = { r, NAN };

      if (r->kind == TILDE_SUMMARY_MODEL)
        g_array_append_val (rows, k);
    }
  return rows;
}

/* How far, in standard deviations, the divergent draws' mean sits from
 * the other draws' mean. */
static double
divergence_score (TildeDraws *draws, int column)
{
  double sum_d = 0, sum_o = 0, sum2 = 0, sum = 0;
  guint n_d = 0, n_o = 0;

  for (guint c = 0; c < tilde_draws_get_n_chains (draws); c++)
    {
      guint n_div = 0, next = 0;
      const guint *div = tilde_draws_get_divergent (draws, c, &n_div);

      for (guint i = tilde_draws_get_n_warmup (draws, c); i < tilde_draws_get_n_draws (draws, c); i++)
        {
          double v = tilde_draws_get_value (draws, c, (guint) column, i);
          gboolean divergent;

          while (next < n_div && div[next] < i)
            next++;
          divergent = next < n_div && div[next] == i;
          if (divergent)
            sum_d += v, n_d++;
          else
            sum_o += v, n_o++;
          sum += v;
          sum2 += v * v;
        }
    }
  if (n_d == 0 || n_o == 0)
    return NAN;
  {
    double n = n_d + n_o, mean = sum / n, var = sum2 / n - mean * mean;

    return var > 0 ? fabs (sum_d / n_d - sum_o / n_o) / sqrt (var) : NAN;
  }
}

static GPtrArray *
rank_rows (GArray *rows, guint limit, gboolean keep_nan)
{
  GPtrArray *names = names_new ();

  g_array_sort (rows, by_score_descending);
  for (guint i = 0; i < rows->len && names->len <= limit; i++)
    {
      const Ranked *k = &g_array_index (rows, Ranked, i);

      if (keep_nan || !isnan (k->score))
        names_add (names, k->row->column);
    }
  return names;
}

static GPtrArray *
divergence_parameters (const TildeSummary *summary, TildeDraws *draws)
{
  g_autoptr(GArray) rows = model_rows (summary);

  for (guint i = 0; draws && i < rows->len; i++)
    {
      Ranked *k = &g_array_index (rows, Ranked, i);
      int column = tilde_draws_find_column (draws, k->row->column);

      if (column >= 0)
        k->score = divergence_score (draws, column);
    }
  return rank_rows (rows, 2, FALSE);
}

/* The rows with the lowest bulk ESS (highest score: -ESS). */
static GPtrArray *
lowest_ess (const TildeSummary *summary, guint limit, double below)
{
  g_autoptr(GArray) rows = model_rows (summary);

  for (guint i = 0; i < rows->len; i++)
    {
      Ranked *k = &g_array_index (rows, Ranked, i);
      double ess = fmin (k->row->ess_bulk, k->row->ess_tail);

      k->score = ess < below ? -ess : NAN;
    }
  return rank_rows (rows, limit, FALSE);
}

static GPtrArray *
highest_rhat (const TildeSummary *summary)
{
  g_autoptr(GArray) rows = model_rows (summary);

  for (guint i = 0; i < rows->len; i++)
    {
      Ranked *k = &g_array_index (rows, Ranked, i);

      k->score = k->row->rhat > TILDE_SUMMARY_RHAT_LIMIT ? k->row->rhat : NAN;
    }
  return rank_rows (rows, MAX_NAMED, FALSE);
}

/* ---- the sentences ---- */

static guint
sum_counts (const guint *counts, guint n)
{
  guint total = 0;

  for (guint i = 0; counts && i < n; i++)
    total += counts[i];
  return total;
}

static void
find_warnings (TildeWarningsBanner *self, const TildeSummary *s, TildeDraws *draws)
{
  guint transitions = s->n_draws * s->n_chains;
  guint divergent = sum_counts (s->divergent, s->n_chains);
  guint depth = sum_counts (s->max_treedepth, s->n_chains);
  guint low_bfmi = 0, n_rhat, n_ess;
  GPtrArray *names;

  for (guint c = 0; s->ebfmi && c < s->n_chains; c++)
    low_bfmi += s->ebfmi[c] < TILDE_SUMMARY_EBFMI_LIMIT;
  if (divergent > 0)
    {
      self->warnings[TILDE_RUN_WARNING_DIVERGENCES].text = g_strdup_printf (
        _("%u of %u transitions ended with a divergence: the sampler met curvature it could "
          "not follow, so the draws may be biased (a non-centred parameterisation or a higher "
          "adapt delta often helps)."), divergent, transitions);
      self->warnings[TILDE_RUN_WARNING_DIVERGENCES].parameters = divergence_parameters (s, draws);
    }
  if (depth > 0)
    {
      self->warnings[TILDE_RUN_WARNING_TREE_DEPTH].text = g_strdup_printf (
        _("%u of %u transitions hit the maximum tree depth of %d: trajectories were cut short, "
          "which costs efficiency rather than validity."), depth, transitions, (int) s->max_depth);
      self->warnings[TILDE_RUN_WARNING_TREE_DEPTH].parameters = lowest_ess (s, 3, INFINITY);
    }
  if (low_bfmi > 0)
    {
      self->warnings[TILDE_RUN_WARNING_EBFMI].text = g_strdup_printf (
        _("%u of %u chains had an E-BFMI below 0.3: the momentum resampling explored the energy "
          "poorly, often a sign of heavy tails or a funnel."), low_bfmi, s->n_chains);
      names = lowest_ess (s, 1, INFINITY);
      g_ptr_array_insert (names, 0, g_strdup ("lp__"));
      self->warnings[TILDE_RUN_WARNING_EBFMI].parameters = names;
    }
  names = highest_rhat (s);
  n_rhat = names->len - 1;
  if (n_rhat > 0)
    {
      self->warnings[TILDE_RUN_WARNING_RHAT].text = g_strdup (
        _("Some R-hat values are above 1.01: the chains do not agree yet, so run them longer "
          "before trusting the estimates."));
      self->warnings[TILDE_RUN_WARNING_RHAT].parameters = names;
    }
  else
    g_ptr_array_unref (names);
  names = lowest_ess (s, MAX_NAMED, ESS_LIMIT);
  n_ess = names->len - 1;
  if (n_ess > 0)
    {
      self->warnings[TILDE_RUN_WARNING_ESS].text = g_strdup (
        _("Some effective sample sizes are under 400: their means and quantiles are uncertain, "
          "so draw more or improve the mixing."));
      self->warnings[TILDE_RUN_WARNING_ESS].parameters = names;
    }
  else
    g_ptr_array_unref (names);
}

/* ---- the widget ---- */

static void
show_clicked (GtkButton *button, TildeWarningsBanner *self)
{
  tilde_warnings_banner_activate (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button),
                                                                             "warning")));
}

static void
add_row (TildeWarningsBanner *self, TildeRunWarning warning)
{
  Warning *w = &self->warnings[warning];
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  GtkWidget *label = gtk_label_new (w->text);
  GtkWidget *button;

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (row), icon);
  gtk_box_append (GTK_BOX (row), label);
  if (w->parameters && w->parameters->len > 1)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) w->parameters->pdata);
      g_autofree char *tip = g_strdup_printf (_("Plot %s"), joined);

      button = gtk_button_new_with_label (_("Show Parameters"));
      gtk_widget_set_tooltip_text (button, tip);
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      g_object_set_data (G_OBJECT (button), "warning", GUINT_TO_POINTER (warning));
      g_signal_connect (button, "clicked", G_CALLBACK (show_clicked), self);
      gtk_box_append (GTK_BOX (row), button);
    }
  gtk_box_append (GTK_BOX (self->box), row);
}

void
tilde_warnings_banner_set_summary (TildeWarningsBanner *self,
                                   const TildeSummary  *summary,
                                   TildeDraws          *draws)
{
  GtkWidget *child;
  guint shown = 0;

  g_return_if_fail (TILDE_IS_WARNINGS_BANNER (self));
  for (guint i = 0; i < N_WARNINGS; i++)
    warning_clear (&self->warnings[i]);
  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  if (summary != NULL)
    find_warnings (self, summary, draws);
  for (guint i = 0; i < N_WARNINGS; i++)
    if (self->warnings[i].text != NULL)
      {
        add_row (self, i);
        shown++;
      }
  gtk_info_bar_set_revealed (GTK_INFO_BAR (self->info_bar), shown > 0);
  gtk_widget_set_visible (self->info_bar, shown > 0);
}

guint
tilde_warnings_banner_get_n_warnings (TildeWarningsBanner *self)
{
  guint n = 0;

  for (guint i = 0; i < N_WARNINGS; i++)
    n += self->warnings[i].text != NULL;
  return n;
}

gboolean
tilde_warnings_banner_has_warning (TildeWarningsBanner *self, TildeRunWarning warning)
{
  return warning < N_WARNINGS && self->warnings[warning].text != NULL;
}

const char *
tilde_warnings_banner_get_text (TildeWarningsBanner *self, TildeRunWarning warning)
{
  return warning < N_WARNINGS ? self->warnings[warning].text : NULL;
}

const char *const *
tilde_warnings_banner_get_parameters (TildeWarningsBanner *self, TildeRunWarning warning)
{
  if (warning >= N_WARNINGS || self->warnings[warning].parameters == NULL)
    return NULL;
  return (const char *const *) self->warnings[warning].parameters->pdata;
}

void
tilde_warnings_banner_activate (TildeWarningsBanner *self, TildeRunWarning warning)
{
  const char *const *names = tilde_warnings_banner_get_parameters (self, warning);

  if (names != NULL && names[0] != NULL)
    g_signal_emit (self, signals[SIGNAL_SELECT_PARAMETERS], 0, names);
}

static void
tilde_warnings_banner_dispose (GObject *object)
{
  TildeWarningsBanner *self = TILDE_WARNINGS_BANNER (object);

  for (guint i = 0; i < N_WARNINGS; i++)
    warning_clear (&self->warnings[i]);
  g_clear_pointer (&self->info_bar, gtk_widget_unparent);
  G_OBJECT_CLASS (tilde_warnings_banner_parent_class)->dispose (object);
}

static void
tilde_warnings_banner_class_init (TildeWarningsBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tilde_warnings_banner_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "warningsbanner");

  /* The Stan CSV names of the parameters to plot. */
  signals[SIGNAL_SELECT_PARAMETERS] =
    g_signal_new ("select-parameters", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);
}

static void
tilde_warnings_banner_init (TildeWarningsBanner *self)
{
  self->info_bar = gtk_info_bar_new ();
  gtk_info_bar_set_message_type (GTK_INFO_BAR (self->info_bar), GTK_MESSAGE_WARNING);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_hexpand (self->box, TRUE);
  gtk_info_bar_add_child (GTK_INFO_BAR (self->info_bar), self->box);
  gtk_info_bar_set_revealed (GTK_INFO_BAR (self->info_bar), FALSE);
  gtk_widget_set_visible (self->info_bar, FALSE);
  gtk_widget_set_parent (self->info_bar, GTK_WIDGET (self));
}

GtkWidget *
tilde_warnings_banner_new (void)
{
  return g_object_new (TILDE_TYPE_WARNINGS_BANNER, NULL);
}
