// Package bench compares fibtrie with peer longest-prefix-match libraries
// (github.com/gaissmai/bart, github.com/yl2chen/cidranger) on the same
// prefix set. It is a separate module so the main go.mod stays small; run
// it with `cd bench && go test -bench . -benchmem`.
package bench
