# Two commands matter: `make demo` and `make test`. Both install missing system libraries first.
SWIFT ?= swift
RELEASE_BIN = .build/release/tessera
# Release builds link the Swift runtime and FoundationEssentials statically into a position-
# dependent executable without an exported symbol table: the loader then has no 118,000 relative
# relocations to apply and no shared Swift libraries to map, which takes `tessera thumbnail` of a
# small JPEG from 26.8 MB to about 15.4 MB peak RSS (see README, Benchmarks). All release products
# share the flags, so building one never rebuilds the others.
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie -Xlinker --no-export-dynamic

.PHONY: bootstrap build release test demo bench fixtures fuzz fuzz-smoke sanitize clean

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera-demo

test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/browser-tests.sh

demo: release
	@scripts/demo.sh $(RELEASE_BIN)

bench: release
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera-bench
	@scripts/bootstrap.sh --bench
	@scripts/bench.sh $(RELEASE_BIN)

# Regenerates the committed test fixtures (needs: pip install pillow==13.0.0 pillow-heif==1.8.1,
# ffmpeg for the videos, and colord-data, libgs-common and liblcms2-2 for the colour fixtures).
fixtures:
	python3 scripts/make-fixtures.py
	python3 scripts/make-video-fixtures.py
	python3 scripts/make-bomb-fixtures.py
	python3 scripts/make-pdf-fixtures.py
	.build/browser-venv/bin/python scripts/make-colour-fixtures.py

# libFuzzer harnesses for every parser of untrusted bytes (Sources/Fuzz), built with AddressSanitizer
# into .build/fuzz. `fuzz` runs each for FUZZ_SECONDS (default 300); `fuzz-smoke` runs the committed
# corpus (Fuzz/corpus) and a fixed number of mutations of it, for CI. Both fail on any finding and put
# the input under Fuzz/findings. See scripts/fuzz.py for the other settings and verbs.
fuzz: bootstrap
	scripts/fuzz.py run

fuzz-smoke: bootstrap
	scripts/fuzz.py smoke

# The Swift test suite under AddressSanitizer (with LeakSanitizer), then under ThreadSanitizer, each
# built apart in .build/sanitize-*. Not in CI: AddressSanitizer alone takes about 32 minutes on 2
# cores from scratch (24 to build, 8 to run), 11 after a change (README, Hardening).
sanitize: bootstrap
	scripts/sanitize.sh

clean:
	rm -rf .build demo-out bench-out
