transformed data { } .*=
