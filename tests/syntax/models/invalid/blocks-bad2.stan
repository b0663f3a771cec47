functions {} cov_matrix
