#!/usr/bin/env bash
# mutate.sh: the mutation check behind `make mutate`.
#
# Each row of mutations.txt names a patch in testdata/ that breaks the model
# in one known way and the test that must catch it. First every distinct
# test command runs on the unmodified tree and must pass; then each patch is
# applied alone (git apply), its test runs, and the patch is taken out again
# (git apply -R, also from the EXIT/INT/TERM trap), so the files the patches
# touch end byte for byte as they began (checked). A table follows:
# mutation, test, killed/survived, time. The exit status is 1 when a
# mutation survived, 2 when the check could not run
# (a test failing on the unmodified tree, a patch that does not apply or
# does not build, a patched file left different).
#
# The kernel suites need root: RTNLSIM_REQUIRE_KERNEL=1 makes them fail
# rather than skip, so a skip never counts as a kill.
# MUTATE=REGEX runs only the mutations whose name matches.
# MUTATE_LOG=DIR keeps each run's output there (default: a new temp dir).
set -u -o pipefail

GO=${GO:-go}
root=$(git rev-parse --show-toplevel) || exit 2
cd "$root" || exit 2
here=tools/mutate
list=$here/mutations.txt
log=${MUTATE_LOG:-$(mktemp -d "${TMPDIR:-/tmp}/rtnlsim-mutate.XXXXXX")}
mkdir -p "$log" || exit 2
log=$(cd "$log" && pwd)
export RTNLSIM_REQUIRE_KERNEL=1
# A killed property suite shrinks its counterexample; a short budget is
# enough here (only the kill matters).
export RTNLSIM_SHRINK_SECONDS=${RTNLSIM_SHRINK_SECONDS:-20}

if [ "$(id -u)" != 0 ]; then
	echo "mutate: the kernel differentials need root" >&2
	exit 2
fi

applied=""
restore() {
	if [ -n "$applied" ]; then
		git apply -R "$applied" || echo "mutate: could not take out $applied; the tree is modified" >&2
		applied=""
	fi
}
# stop ends a running test: it runs as a job of its own process group, so
# the whole group (go test and the test binary) is signalled.
testpid=""
stop() {
	if [ -n "$testpid" ]; then
		kill -TERM -- "-$testpid" 2>/dev/null
		wait "$testpid" 2>/dev/null
		testpid=""
	fi
}
trap 'stop; restore; exit 130' INT TERM
trap 'restore' EXIT

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

rows=()
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	IFS='|' read -r name patch pkg run env <<<"$line"
	name=$(trim "$name") patch=$(trim "$patch") pkg=$(trim "$pkg") run=$(trim "$run") env=$(trim "$env")
	[ "$env" = - ] && env=""
	if [ -n "${MUTATE:-}" ] && ! [[ $name =~ $MUTATE ]]; then continue; fi
	rows+=("$name|$patch|$pkg|$run|$env")
	if ! git apply --check "$here/testdata/$patch"; then
		echo "mutate: $patch does not apply to this tree" >&2
		exit 2
	fi
done <"$list"
[ ${#rows[@]} -gt 0 ] || { echo "mutate: no mutation selected" >&2; exit 2; }

# The files the patches touch, as they were: compared at the end.
files=$(for r in "${rows[@]}"; do
	IFS='|' read -r _ patch _ <<<"$r"
	git apply --numstat "$here/testdata/$patch" | cut -f3
done | sort -u)
state() { for f in $files; do sha256sum "$f"; done; }
before=$(state)

# runtest PKG REGEX ENV OUT: the test command; its status.
# Counterexample files the suites write go to the log directory. The test
# runs in the background and is waited for, so that a signal reaches the
# trap at once.
runtest() {
	local rc
	set -m
	env TMPDIR="$log" $3 "$GO" test -count=1 -timeout 60m -failfast -run "$2" "$1" >"$4" 2>&1 &
	testpid=$!
	set +m
	wait "$testpid"
	rc=$?
	testpid=""
	return $rc
}
now() { date +%s; }

# The unmodified tree must pass every test the mutations are held to.
declare -A baseline
i=0
for r in "${rows[@]}"; do
	IFS='|' read -r name patch pkg run env <<<"$r"
	key="$pkg|$run|$env"
	[ -n "${baseline[$key]:-}" ] && continue
	i=$((i + 1))
	out=$log/baseline-$i.txt
	t0=$(now)
	if ! runtest "$pkg" "$run" "$env" "$out"; then
		echo "mutate: $pkg -run '$run' fails on the unmodified tree (see $out)" >&2
		exit 2
	fi
	baseline[$key]=$(($(now) - t0))s
	echo "baseline: $pkg -run '$run' passes (${baseline[$key]})"
done

table=()
survived=0
for r in "${rows[@]}"; do
	IFS='|' read -r name patch pkg run env <<<"$r"
	out=$log/$name-$(echo "$run" | tr -c 'A-Za-z0-9\n' '_').txt
	git apply "$here/testdata/$patch" || exit 2
	applied=$here/testdata/$patch
	t0=$(now)
	if ! "$GO" vet "$pkg" >"$out" 2>&1; then
		restore
		echo "mutate: $name does not build (see $out)" >&2
		exit 2
	fi
	if runtest "$pkg" "$run" "$env" "$out"; then
		result=survived
		survived=$((survived + 1))
	else
		result=killed
	fi
	restore
	table+=("$name|$pkg -run $run|$result|$(($(now) - t0))s")
	echo "$name: $result ($out)"
done

if [ "$(state)" != "$before" ]; then
	echo "mutate: a patched file differs from how it began" >&2
	exit 2
fi

echo
{
	echo "MUTATION|TEST|RESULT|TIME"
	printf '%s\n' "${table[@]}"
} | column -t -s'|'
echo "logs: $log"
[ "$survived" -eq 0 ] || { echo "mutate: $survived mutation(s) survived" >&2; exit 1; }
