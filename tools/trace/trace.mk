# The event trace's tools (tools/trace/, docs/trace.md), included by the Makefile:
#   make trace SCENARIO=NAME[,NAME]  boot the named scenarios with the trace on (one boot),
#                                    write build/trace/NAME.{dump,json,html}; SCENARIO=all for all
#   make trace-test                  host tests of tools/trace/irqtrace.py (part of make test)
#   make trace-pictures              redraw the course's timelines in docs/course/pictures/
TRACE_ICOUNT ?= 3
TRACE_COMMA := ,
SCENARIO ?=

.PHONY: trace trace-test trace-pictures
trace: deps all
	@test -n "$(SCENARIO)" || { echo "make trace: say which, e.g. SCENARIO=ata-drop:100 (or all): healthy ata-drop:100 ata-mask spurious-flood e1000-storm uhci-misroute msi-mask ahci-noirq:100" >&2; exit 2; }
	$(PYTHON) tools/trace/scenarios.py --icount $(TRACE_ICOUNT) --out $(BUILD)/trace $(subst $(TRACE_COMMA), ,$(SCENARIO))

trace-test:
	$(PYTHON) -m pytest -q -rfE tests/trace

trace-pictures: deps all
	$(PYTHON) tools/trace/pictures.py --icount $(TRACE_ICOUNT) --out docs/course/pictures
