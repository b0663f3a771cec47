transformed data { void
