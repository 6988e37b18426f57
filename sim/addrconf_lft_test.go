package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/script"
)

// TestIPv6LifetimesNotModelled holds the lines the model refuses, which no
// regression script can carry (a refusal stops a run): a finite lifetime
// below minLft6 but a preferred_lft of 0, making an address with its
// prefix route at its metric dynamic (6.18 gave that route an expiry in
// the past), making an address a down kept dynamic (6.18 left it
// tentative after the up), and nodad given to a tentative address. The
// lines around each are taken, so the refusal is the line's own.
func TestIPv6LifetimesNotModelled(t *testing.T) {
	cases := []struct {
		name, refused string
		before        []string
	}{
		{"short valid_lft", "addr add 2001:db8::1/64 dev i0 valid_lft 119 preferred_lft 0", nil},
		{"short preferred_lft", "addr add 2001:db8::1/64 dev i0 valid_lft 600 preferred_lft 60", nil},
		{"permanent with its prefix route made dynamic", "addr change 2001:db8::1/64 dev i0 valid_lft 600 preferred_lft 600",
			[]string{"addr add 2001:db8::1/64 dev i0 metric 100", "addr replace 2001:db8::1/64 dev i0 valid_lft 600 preferred_lft 0 metric 200",
				"addr replace 2001:db8::1/64 dev i0"}},
		{"kept over a down made dynamic", "addr replace 2001:db8::1/64 dev i0 valid_lft 600 preferred_lft 600",
			[]string{"sysctl net.ipv6.conf.i0.keep_addr_on_down=1", "addr add 2001:db8::1/64 dev i0", "link set i0 down"}},
		{"nodad to a tentative address", "addr replace 2001:db8::1/64 dev i0 nodad",
			[]string{"sysctl net.ipv6.conf.i0.keep_addr_on_down=1", "addr add 2001:db8::1/64 dev i0", "link set i0 down"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := New(Options{Seed: 1})
			ctx := context.Background()
			for _, l := range append([]string{"link add i0 type ifb", "link set i0 up"}, c.before...) {
				reqs, err := script.ParseString(l + "\n")
				require.NoError(t, err)
				require.NoError(t, tg.Apply(ctx, reqs[0]), l)
			}
			reqs, err := script.ParseString(c.refused + "\n")
			require.NoError(t, err)
			err = tg.Apply(ctx, reqs[0])
			require.True(t, errors.Is(err, ErrNotModelled), "%s: %v", c.refused, err)
		})
	}
}
