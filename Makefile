# Two commands matter: `make demo` and `make test`. Both install missing system libraries first.
SWIFT ?= swift
RELEASE_BIN = .build/release/tessera
# Release builds link the Swift runtime and FoundationEssentials statically into a position-
# dependent executable without an exported symbol table: the loader then has no 118,000 relative
# relocations to apply and no shared Swift libraries to map, which takes `tessera thumbnail` of a
# small JPEG from 26.8 MB to about 16 MB peak RSS (see README, Benchmarks). All release products
# share the flags, so building one never rebuilds the others.
# lld then places the functions a short command runs side by side (scripts/link/tessera.order, from
# `make order-file`; every function in its own section so that it can), so that start-up touches
# fewer 64 KB windows of the 21 MB text: 16.1 → 13.7 MB (scripts/startup-order.py says why).
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie -Xlinker --no-export-dynamic \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld \
	-Xlinker --symbol-ordering-file=$(CURDIR)/scripts/link/tessera.order -Xlinker --no-warn-symbol-ordering

.PHONY: bootstrap build release test docs format coverage demo bench fixtures fuzz fuzz-smoke sanitize order-file clean

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera-demo

test: bootstrap
	@# The tree as .swift-format writes it (`make format` rewrites it so).
	$(SWIFT) format lint --strict --recursive Sources Tests Examples Package.swift
	@# The module graph docs/layout.md draws is the one the imports and Package.swift make.
	scripts/module-graph.py
	@# No function over 80 lines, no type over 400 summed over its extensions.
	scripts/code-shape.py
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/browser-tests.sh
	@# The example app's sources and tests ran above; its own manifest must resolve as an app's would.
	$(SWIFT) package --package-path Examples/EmbeddedServer --scratch-path .build/example describe >/dev/null
	@# The API documentation builds with no docc warning, and every module documents 85 % of its API.
	scripts/docs.sh

# Formats every Swift file as .swift-format says (what `make test` checks with lint --strict).
format:
	$(SWIFT) format format --in-place --recursive Sources Tests Examples Package.swift

# Line coverage of each library module by the Swift tests, in a build of its own (.build/coverage).
coverage: bootstrap
	scripts/coverage.py --min 80

# The DocC archives of the eight library modules, in .build/docs (scripts/docs.sh says how to read them).
docs: bootstrap
	scripts/docs.sh

demo: release
	@scripts/demo.sh $(RELEASE_BIN)

bench: release
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera-bench
	@scripts/bootstrap.sh --bench
	@scripts/bench.sh $(RELEASE_BIN)

# Rewrites scripts/link/tessera.order from what the release binary runs (valgrind); commit the result.
# SwiftPM does not track the file as an input, hence the relink.
order-file: release
	@scripts/bootstrap.sh --bench
	scripts/startup-order.py $(RELEASE_BIN)
	rm -f $(RELEASE_BIN)
	$(SWIFT) build $(RELEASE_FLAGS) --product tessera

# Regenerates the committed test fixtures (needs: pip install pillow==13.0.0 pillow-heif==1.8.1,
# ffmpeg for the videos, colord-data, libgs-common and liblcms2-2 for the colour fixtures, and
# libopenjp2-tools, openjph-tools and libjxl-tools for the JPEG 2000 and JPEG XL ones).
fixtures:
	python3 scripts/make-fixtures.py
	python3 scripts/make-video-fixtures.py
	python3 scripts/make-bomb-fixtures.py
	python3 scripts/make-pdf-fixtures.py
	python3 scripts/make-jp2-fixtures.py
	python3 scripts/make-jxl-fixtures.py
	.build/browser-venv/bin/python scripts/make-colour-fixtures.py
	python3 scripts/make-corpus-fixtures.py

# libFuzzer harnesses for every parser of untrusted bytes (Sources/Fuzz), built with AddressSanitizer
# into .build/fuzz. `fuzz` runs each for FUZZ_SECONDS (default 300); `fuzz-smoke` runs the committed
# corpus (Fuzz/corpus) and a fixed number of mutations of it, for CI. Both fail on any finding and put
# the input under Fuzz/findings. See scripts/fuzz.py for the other settings and verbs.
fuzz: bootstrap
	scripts/fuzz.py run

fuzz-smoke: bootstrap
	scripts/fuzz.py smoke

# The Swift test suite under AddressSanitizer (with LeakSanitizer), then under ThreadSanitizer, each
# built apart in .build/sanitize-*. Not in CI: each takes about 20 minutes on 2 cores from scratch
# (ASan 11 to build, 6 to run; TSan 10 and 11), less after a change (README, Hardening).
sanitize: bootstrap
	scripts/sanitize.sh

clean:
	rm -rf .build demo-out bench-out
