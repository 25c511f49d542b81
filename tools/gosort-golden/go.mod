module gosortgolden

go 1.25
