generated quantities { void foo(); }
