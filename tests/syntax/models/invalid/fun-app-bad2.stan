transformed data { T ( 1.0 | while
