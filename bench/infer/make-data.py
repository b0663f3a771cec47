#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Synthetic data, from a fixed seed, for the runtime benchmark's models
(bench/runtime/models), of the sizes that benchmark uses: prints the JSON
data of the model named on the command line."""
import json
import math
import random
import sys


def logistic(rng):
    n, k = 5000, 20
    beta = [rng.gauss(0, 0.5) for _ in range(k)]
    x, y = [], []
    for _ in range(n):
        row = [rng.gauss(0, 1) for _ in range(k)]
        eta = 0.3 + sum(a * b for a, b in zip(row, beta))
        x.append(row)
        y.append(1 if rng.random() < 1 / (1 + math.exp(-eta)) else 0)
    return {"N": n, "K": k, "X": x, "y": y}


def eight_schools(rng):
    return {"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}


def hierarchical(rng):
    groups, n = 200, 2000
    eta = [rng.gauss(0, 1) for _ in range(groups)]
    g = [rng.randrange(groups) + 1 for _ in range(n)]
    y = [1.5 + 0.8 * eta[k - 1] + rng.gauss(0, 2) for k in g]
    return {"N": n, "G": groups, "g": g, "y": y}


def ar1(rng):
    y = [0.0]
    for _ in range(999):
        y.append(0.4 + 0.7 * y[-1] + rng.gauss(0, 1))
    return {"N": len(y), "y": y}


def gp(rng):
    n = 100
    x = sorted(rng.uniform(-5, 5) for _ in range(n))
    y = [math.sin(v) + rng.gauss(0, 0.3) for v in x]
    return {"N": n, "x": x, "y": y}


MAKERS = {
    "logistic": logistic,
    "logistic-loop": logistic,
    "eight-schools": eight_schools,
    "hierarchical": hierarchical,
    "ar1": ar1,
    "gp": gp,
}

if __name__ == "__main__":
    print(json.dumps(MAKERS[sys.argv[1]](random.Random(20241122))))
