# bench-irq: callgrind instruction counts of kernel/irq's hot paths: one
# handled interrupt through generic_handle_irq() per flow in steady state,
# one poll, and one host-port lock pair (to tell the port's share from the
# core's). Built -O2 without sanitizers against the host port; counts only
# what runs under bench_irq_measure() (--toggle-collect; the warm-up is
# outside it), divided by the number of operations. Figures are recorded in docs/benchmarks.md.
IRQ_BENCH_CORE_SRCS := $(sort $(wildcard kernel/irq/*.c))
IRQ_BENCH_BIN := $(BUILD)/host/bench/bench_irq
IRQ_BENCH_OPS ?= 20000
IRQ_BENCH_MODES := edge fasteoi level poll lockpair

$(IRQ_BENCH_BIN): tests/bench/bench_irq.c $(IRQ_BENCH_CORE_SRCS) tests/host/irq_port_host.c \
		  $(wildcard kernel/irq/*.h) tests/host/irq_port_host.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) \
		tests/bench/bench_irq.c $(IRQ_BENCH_CORE_SRCS) tests/host/irq_port_host.c -o $@ -lpthread

.PHONY: bench-irq
BENCH_TARGETS += bench-irq
bench-irq: $(IRQ_BENCH_BIN)
	@out=$(BUILD)/host/bench; mkdir -p $(BENCH_JSON_DIR); \
	echo "bench-irq: kernel/irq hot paths, instructions per operation (valgrind --tool=callgrind, host gcc -O2, $(IRQ_BENCH_OPS) ops)"; \
	for mode in $(IRQ_BENCH_MODES); do \
		valgrind --tool=callgrind --callgrind-out-file=$$out/irq-$$mode.callgrind \
			--toggle-collect=bench_irq_measure $(IRQ_BENCH_BIN) $$mode $(IRQ_BENCH_OPS) \
			> $$out/irq-$$mode.txt 2> $$out/irq-$$mode.log || { cat $$out/irq-$$mode.log; exit 1; }; \
		ir=$$(awk '/^(summary|totals):/ { print $$2; exit }' $$out/irq-$$mode.callgrind); \
		locks=$$(awk '/^locks_per_op/ { print $$2 }' $$out/irq-$$mode.txt); \
		echo "$$mode $$ir $$locks"; \
	done | awk -v ops=$(IRQ_BENCH_OPS) -v json=$(BENCH_JSON_DIR)/irq.json \
		-v cc="$$($(HOSTCC) -dumpfullversion)" -v vg="$$(valgrind --version)" ' \
		{ name[NR] = $$1; per[NR] = $$2 / ops; locks[NR] = $$3; if ($$1 == "lockpair") pair = $$2 / ops } \
		END { printf "{\"bench\": \"irq\", \"ops\": %d, \"cc\": \"%s\", \"valgrind\": \"%s\", \"rows\": [", \
			ops, cc, vg > json; \
		for (i = 1; i <= NR; i++) printf "%s{\"mode\": \"%s\", \"ir\": %.1f, \"locks\": %.0f}", \
			(i > 1 ? ", " : ""), name[i], per[i], locks[i] + 0 > json; \
		print "]}" > json; \
		for (i = 1; i <= NR; i++) { \
			if (name[i] == "lockpair") printf "  %-26s %7.1f Ir\n", "host port lock+unlock pair", per[i]; \
			else printf "  %-26s %7.1f Ir  (%.0f port lock pairs; core alone ~%.1f Ir)\n", \
				"one " name[i] (name[i] == "poll" ? " of an edge line" : " interrupt"), \
				per[i], locks[i], per[i] - locks[i] * pair; } }'
