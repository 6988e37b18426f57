# rtnlsim: build, test, benchmark, lint.
GO ?= go
# Kernel suites need root; CI sets RTNLSIM_REQUIRE_KERNEL=1 so they fail
# instead of skipping.
TESTFLAGS ?= -count=1 -timeout 60m

.PHONY: build test bench lint fuzz

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

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./script/
