# Apache Otava (PyPI apache-otava, pinned with its dependencies in scripts/otava-requirements.txt)
# in a private venv under .run/otava (the recipe: mk/python.mk): scripts/history runs it over the
# history of results (docs/results.md), and the statistics tests use the SciPy it brings as their
# reference (test/unit/stats.test.mjs). Part of `make test`.
.PHONY: otava-deps
TEST_DEPS += otava-deps
OTAVA_VENV := .run/otava

otava-deps: $(OTAVA_VENV)/.installed
$(OTAVA_VENV)/.installed: scripts/otava-requirements.txt
	$(call python-venv,$(OTAVA_VENV),scripts/otava-requirements.txt,otava-deps)
