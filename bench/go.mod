module github.com/rtnlsim/rtnlsim/bench

go 1.26.8

require (
	github.com/gaissmai/bart v0.30.0
	github.com/rtnlsim/rtnlsim v0.0.0
	github.com/yl2chen/cidranger v1.0.2
)

require golang.org/x/sys v0.50.0 // indirect

replace github.com/rtnlsim/rtnlsim => ../
