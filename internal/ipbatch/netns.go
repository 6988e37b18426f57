package ipbatch

import (
	"fmt"
	"os"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The kernel target keeps the namespaces a setup names (`netns add NAME`)
// out of /run/netns, where ip looks a name up. For the timed part, each
// is bind-mounted there under a name of this process's own, and the
// batch lines name that instead.

// runNetns is where ip looks a namespace's name up.
const runNetns = "/run/netns"

// mountedName is the /run/netns name NAME has while this process's ip
// processes run.
func mountedName(name string) string { return fmt.Sprintf("rtnlsim-measure-%d-%s", os.Getpid(), name) }

// setupNetns are the names the setup's `netns add` lines make.
func setupNetns(setup []rtnl.Request) map[string]bool {
	names := map[string]bool{}
	for _, r := range setup {
		if o, ok := r.Op.(rtnl.NetnsAdd); ok {
			names[o.Name] = true
		}
	}
	return names
}

// renameNetns makes every word after a `netns` that names one of names
// name its mount instead.
func renameNetns(line string, names map[string]bool) string {
	words := strings.Fields(line)
	changed := false
	for i := 1; i < len(words); i++ {
		if words[i-1] == "netns" && names[words[i]] {
			words[i] = mountedName(words[i])
			changed = true
		}
	}
	if !changed {
		return line
	}
	return strings.Join(words, " ")
}
