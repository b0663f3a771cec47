parameters while
