# rtnlsim: build, test, benchmark, lint.
GO ?= go
# Kernel suites need root; CI sets RTNLSIM_REQUIRE_KERNEL=1 so they fail
# instead of skipping.
TESTFLAGS ?= -count=1 -timeout 60m
# The other OSes the module builds on: the command is built for each, and
# every package with its tests is vetted (so compiled) for each OS.
CROSS ?= darwin/amd64 darwin/arm64 windows/amd64 freebsd/amd64
CROSS_VET ?= darwin windows freebsd

.PHONY: build test bench lint fuzz tidy-check portable fidelity fidelity-tests speed mutate

build:
	$(GO) build -o bin/rtnlsim ./cmd/rtnlsim

test:
	$(GO) vet ./...
	$(GO) test $(TESTFLAGS) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	cd bench && $(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# go.mod and go.sum are what go mod tidy would make them, in the module
# and in the bench/ module (which must also build).
tidy-check:
	$(GO) mod tidy -diff
	cd bench && $(GO) mod tidy -diff && $(GO) vet ./...

portable:
	@set -e; for t in $(CROSS); do \
		echo "GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build ./cmd/rtnlsim"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -o /dev/null ./cmd/rtnlsim; \
	done; \
	for os in $(CROSS_VET); do \
		echo "GOOS=$$os $(GO) vet ./..."; \
		GOOS=$$os $(GO) vet ./...; \
	done

# The cost model's wall-clock accuracy against this machine's kernel: root,
# minutes, and a quiet machine (load moves the kernel's times), so it is not
# part of make test. fidelity times a prediction set of thirteen workloads
# on the kernel through ip -b and on the model (FIDELITY_PROFILE's prices),
# prints the table, writes it as JSON, and fails when fewer than 90% of the
# predictions are within 25% of the kernel's median. fidelity-tests are the
# seed and calibration checks of the same kind.
FIDELITY_PROFILE ?= docs/profiles/this-machine-2026-12-03.json
FIDELITY_JSON ?= bin/fidelity.json
fidelity:
	@mkdir -p $(dir $(FIDELITY_JSON))
	$(GO) run ./tools/speed -set fidelity -runs $(SPEED_RUNS) -profile $(FIDELITY_PROFILE) -json $(FIDELITY_JSON)

fidelity-tests:
	RTNLSIM_KMEASURE=1 $(GO) test -count=1 -timeout 60m -v \
		-run 'TestKernelSeed001Prediction|TestCalibratePredictsUnfitted|TestSeed004Prediction' \
		./props ./internal/repro/seed001 ./internal/repro/seed004

# The side-by-side benchmark (root, minutes; docs/measure.md): seven
# workloads, each timed on this machine's kernel through ip -b and on the
# model. RTNLSIM_SPEED_SCALE=0.1 makes every size ten times smaller.
SPEED_RUNS ?= 3
SPEED_PROFILE ?= docs/profiles/this-machine.json
SPEED_JSON ?= bin/speed.json
speed:
	@mkdir -p $(dir $(SPEED_JSON))
	$(GO) run ./tools/speed -runs $(SPEED_RUNS) -profile $(SPEED_PROFILE) -json $(SPEED_JSON)

# The mutation check (root): each known-bug patch of tools/mutate/testdata
# must make its differential or property test fail; the tree is restored.
mutate:
	GO=$(GO) ./tools/mutate/mutate.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./script/
