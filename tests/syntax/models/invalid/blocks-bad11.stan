transformed parameters { void
