# kernel/irq's layers (tools/layers/layers.py; docs/irq-layers.md), included by the Makefile:
#   make layers       the include and use graph of kernel/irq's files, its circles, the best
#                     stacking of them, the check against each file's declared layer, and the
#                     walk of one disk command's expect token through the files (tools/layers/
#                     walk.c); writes $(BUILD)/layers/layers.json. It REPORTS ONLY: the tree
#                     still has the knot issue 32 describes, so what it finds does not fail it
#                     (a tool that cannot run does). LAYERS_ARGS=--strict fails on a violation,
#                     a circle or an undeclared layer, as issue 32's second part will make it.
#   make layers-test  host tests of the tool itself on small trees of its own (tests/layers)
LAYERS_ARGS ?=
.PHONY: layers layers-test
layers:
	@$(PYTHON) tools/layers/layers.py --cc $(CC) --hostcc $(HOSTCC) --walk --out $(BUILD)/layers \
		--json $(BUILD)/layers/layers.json $(LAYERS_ARGS)

layers-test:
	$(PYTHON) -m pytest -q -rfE tests/layers
