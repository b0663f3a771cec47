#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a valid Stan model of about N lines to stdout, for front-end timing.

The model grows the way real ones do: more data, more user functions, more
hierarchical groups and more generated quantities, each a few lines long and
each exercising declarations, loops, indexing, calls and distributions."""
import sys


def model(lines):
    groups = max(1, (lines - 20) // 24)
    out = ["functions {"]
    for g in range(groups):
        out += [
            f"  real scaled_{g}(real x, real s) {{",
            f"    return x / s + {g}.5;",
            "  }",
            f"  vector centre_{g}(vector v) {{",
            "    return v - mean(v);",
            "  }",
        ]
    out += ["}", "data {", "  int<lower=1> N;", "  int<lower=1> K;", "  matrix[N, K] X;"]
    for g in range(groups):
        out += [f"  vector[N] y_{g};", f"  array[N] int<lower=0, upper=1> z_{g};"]
    out += ["}", "transformed data {", "  matrix[N, K] Xc = X;",
            "  for (k in 1:K) {", "    Xc[, k] = X[, k] - mean(X[, k]);", "  }", "}",
            "parameters {"]
    for g in range(groups):
        out += [f"  real alpha_{g};", f"  vector[K] beta_{g};", f"  real<lower=0> sigma_{g};"]
    out += ["}", "transformed parameters {"]
    for g in range(groups):
        out += [f"  vector[N] mu_{g} = alpha_{g} + Xc * beta_{g};"]
    out += ["}", "model {"]
    for g in range(groups):
        out += [
            f"  alpha_{g} ~ normal(0, 10);",
            f"  beta_{g} ~ std_normal();",
            f"  sigma_{g} ~ exponential(1);",
            f"  y_{g} ~ normal(mu_{g}, sigma_{g});",
            f"  for (n in 1:N) {{",
            f"    if (z_{g}[n] == 1) {{",
            f"      target += normal_lpdf(y_{g}[n] | scaled_{g}(mu_{g}[n], 2), sigma_{g});",
            "    }",
            "  }",
            f"  z_{g} ~ bernoulli_logit(centre_{g}(mu_{g}));",
        ]
    out += ["}", "generated quantities {"]
    for g in range(groups):
        out += [
            f"  array[N] real y_rep_{g} = normal_rng(mu_{g}, sigma_{g});",
            f"  real log_lik_{g} = normal_lpdf(y_{g} | mu_{g}, sigma_{g});",
        ]
    out += ["}"]
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print("\n".join(model(n)))
