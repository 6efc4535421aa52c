# Two commands matter: `make demo` and `make test`. Both install missing system libraries first.
SWIFT ?= swift
RELEASE_BIN = .build/release/tessera

.PHONY: bootstrap build release test demo bench fixtures clean

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build -c release --product tessera
	$(SWIFT) build -c release --product tessera-demo

test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: release
	@scripts/demo.sh $(RELEASE_BIN)

bench: release
	$(SWIFT) build -c release --product tessera-bench
	@scripts/bootstrap.sh --bench
	@scripts/bench.sh $(RELEASE_BIN)

# Regenerates the committed test fixtures (needs: pip install pillow==13.0.0 pillow-heif==1.8.1,
# and ffmpeg for the videos).
fixtures:
	python3 scripts/make-fixtures.py
	python3 scripts/make-video-fixtures.py

clean:
	rm -rf .build demo-out bench-out
