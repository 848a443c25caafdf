# kernel/irq's layers (tools/layers/layers.py; docs/irq-layers.md), included by the Makefile:
#   make layers       the include and use graph of kernel/irq's files, its circles, the best
#                     stacking of them, the check against each file's declared layer, and the
#                     walk of one disk command's expect token through the files (tools/layers/
#                     walk.c); writes $(BUILD)/layers/layers.json. STRICT: it fails on a use or
#                     an include that runs from a lower layer to a higher one (but the one
#                     sanctioned note_interrupt()), on a circle of files, and on a file that does
#                     not declare its layer (make test runs it). LAYERS_ARGS= reports only.
#   make layers-test  host tests of the tool itself on small trees of its own (tests/layers)
LAYERS_ARGS ?= --strict
.PHONY: layers layers-test
layers:
	@$(PYTHON) tools/layers/layers.py --cc $(CC) --hostcc $(HOSTCC) --walk --out $(BUILD)/layers \
		--json $(BUILD)/layers/layers.json $(LAYERS_ARGS)

layers-test:
	$(PYTHON) -m pytest -q -rfE tests/layers
