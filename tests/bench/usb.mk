# bench-usb: the USB class drivers in QEMU under -icount (tests/bench/usb_bench.py):
# usb-kbd keystroke latency in guest time (median, worst) and usb-storage read
# MB/s, healthy and with uhci-misroute, for irqpolicy=irqkit, tejun2010,
# mainline. Method and figures: docs/usb-classes.md, "Benchmark".
USB_BENCH_KEYS ?= 20

.PHONY: bench-usb
BENCH_TARGETS += bench-usb
bench-usb: $(BUILD)/kernel.elf
	@$(PYTHON) tests/bench/usb_bench.py --keys $(USB_BENCH_KEYS) --json $(BENCH_JSON_DIR)/usb.json
