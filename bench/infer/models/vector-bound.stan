data { int K; vector[K] lb; }
parameters { vector<lower=lb>[K] x; }
model { x ~ normal(0, 1); }
