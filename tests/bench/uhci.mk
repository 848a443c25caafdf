# bench-uhci: drivers/usb/uhci.c in QEMU under -icount: enumeration time, the
# time until IRQ watching notices a misrouted controller, control transfers
# per second, healthy and misrouted, per irqpolicy (tests/bench/uhci_bench.py).
# Figures and how to read them: docs/usb.md, "Figures".
.PHONY: bench-uhci
BENCH_TARGETS += bench-uhci
bench-uhci: $(BUILD)/kernel.elf
	@$(PYTHON) tests/bench/uhci_bench.py
