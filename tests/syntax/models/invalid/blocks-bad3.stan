model while
