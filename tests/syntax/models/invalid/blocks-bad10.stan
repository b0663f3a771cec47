transformed data  while
