data while
