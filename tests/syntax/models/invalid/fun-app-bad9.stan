transformed data { T (while
