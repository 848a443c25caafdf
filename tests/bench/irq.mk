# bench-irq: callgrind instruction counts of kernel/irq's hot paths: one
# handled interrupt through generic_handle_irq() per flow in steady state,
# one poll, and one host-port lock pair (to tell the port's share from the
# core's). Built -O2 without sanitizers against the host port; counts only
# what runs under bench_irq_measure() (--toggle-collect; the warm-up is
# outside it), divided by the number of operations. Figures are recorded in docs/benchmarks.md.
IRQ_BENCH_CORE_SRCS := $(sort $(wildcard kernel/irq/*.c))
IRQ_BENCH_BIN := $(BUILD)/host/bench/bench_irq
BENCH_HOST_BINS += $(IRQ_BENCH_BIN) $(IRQ_BENCH_BIN)-notrace $(IRQ_BENCH_BIN)-smp
IRQ_BENCH_OPS ?= 20000
# Trace rings that hold every event of the traced modes (one CPU, 1M events of 16 bytes).
IRQ_BENCH_TRACE_CFLAGS := -DIRQ_NR_CPUS=1 -DIRQ_TRACE_ENTRIES=1048576
IRQ_BENCH_MODES := edge fasteoi level poll lockpair edge-traced record \
	edge-notrace fasteoi-notrace level-notrace poll-notrace \
	edge-smp fasteoi-smp level-smp poll-smp

$(IRQ_BENCH_BIN): tests/bench/bench_irq.c $(IRQ_BENCH_CORE_SRCS) tests/host/irq_port_host.c \
		  $(wildcard kernel/irq/*.h) tests/host/irq_port_host.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) $(IRQ_BENCH_TRACE_CFLAGS) \
		tests/bench/bench_irq.c $(IRQ_BENCH_CORE_SRCS) tests/host/irq_port_host.c -o $@ -lpthread

# The same with the event trace compiled out (IRQ_TRACE_BUILD=0): the *-notrace modes, so the
# cost of the trace's hooks while it is off is measured on one tree (docs/trace.md, "Cost").
$(IRQ_BENCH_BIN)-notrace: $(IRQ_BENCH_BIN)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) $(IRQ_BENCH_TRACE_CFLAGS) \
		-DIRQ_TRACE_BUILD=0 tests/bench/bench_irq.c $(IRQ_BENCH_CORE_SRCS) tests/host/irq_port_host.c -o $@ -lpthread

# The same built for 8 CPUs (the kernel's IRQ_NR_CPUS): the *-smp modes. The main binary has one
# CPU for its trace rings, where the per-CPU statistics need no CPU number at all (one slot);
# this one pays for reading it and picking the slot (docs/porting.md, section 5a).
$(IRQ_BENCH_BIN)-smp: $(IRQ_BENCH_BIN)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 $(HOST_INC) -DIRQ_NR_CPUS=8 -DIRQ_TRACE_ENTRIES=1024 \
		tests/bench/bench_irq.c $(IRQ_BENCH_CORE_SRCS) tests/host/irq_port_host.c -o $@ -lpthread

.PHONY: bench-irq
BENCH_TARGETS += bench-irq
bench-irq: $(IRQ_BENCH_BIN) $(IRQ_BENCH_BIN)-notrace $(IRQ_BENCH_BIN)-smp
	@out=$(BUILD)/host/bench; mkdir -p $(BENCH_JSON_DIR); \
	echo "bench-irq: kernel/irq hot paths, instructions per operation (valgrind --tool=callgrind, host gcc -O2, $(IRQ_BENCH_OPS) ops)"; \
	for mode in $(IRQ_BENCH_MODES); do \
		bin=$(IRQ_BENCH_BIN); run=$$mode; \
		case $$mode in *-notrace) bin=$(IRQ_BENCH_BIN)-notrace; run=$${mode%-notrace};; \
			*-smp) bin=$(IRQ_BENCH_BIN)-smp; run=$${mode%-smp};; esac; \
		valgrind --tool=callgrind --callgrind-out-file=$$out/irq-$$mode.callgrind \
			--toggle-collect=bench_irq_measure $$bin $$run $(IRQ_BENCH_OPS) \
			> $$out/irq-$$mode.txt 2> $$out/irq-$$mode.log || { cat $$out/irq-$$mode.log; exit 1; }; \
		ir=$$(awk '/^(summary|totals):/ { print $$2; exit }' $$out/irq-$$mode.callgrind); \
		locks=$$(awk '/^locks_per_op/ { print $$2 }' $$out/irq-$$mode.txt); \
		events=$$(awk '/^events_per_op/ { print $$2 }' $$out/irq-$$mode.txt); \
		echo "$$mode $$ir $$locks $${events:-0}"; \
	done | awk -v ops=$(IRQ_BENCH_OPS) -v json=$(BENCH_JSON_DIR)/irq.json \
		-v cc="$$($(HOSTCC) -dumpfullversion)" -v vg="$$(valgrind --version)" ' \
		{ name[NR] = $$1; per[NR] = $$2 / ops; locks[NR] = $$3; events[NR] = $$4; if ($$1 == "lockpair") pair = $$2 / ops; \
		  if ($$1 == "edge") edge = $$2 / ops; plain[$$1] = $$2 / ops } \
		END { printf "{\"bench\": \"irq\", \"ops\": %d, \"cc\": \"%s\", \"valgrind\": \"%s\", \"rows\": [", \
			ops, cc, vg > json; \
		for (i = 1; i <= NR; i++) printf "%s{\"mode\": \"%s\", \"ir\": %.1f, \"locks\": %.0f, \"events\": %.2f}", \
			(i > 1 ? ", " : ""), name[i], per[i], locks[i] + 0, events[i] + 0 > json; \
		print "]}" > json; \
		for (i = 1; i <= NR; i++) { \
			if (name[i] == "lockpair") printf "  %-26s %7.1f Ir\n", "host port lock+unlock pair", per[i]; \
			else if (name[i] == "record") printf "  %-26s %7.1f Ir  (trace on: one irq_trace_record)\n", "one trace event", per[i]; \
			else if (name[i] ~ /-notrace$$/) { m = name[i]; sub(/-notrace$$/, "", m); \
				printf "  %-26s %7.1f Ir  (trace compiled out; compiled in and off: %+.1f Ir)\n", \
				"  " m ", IRQ_TRACE_BUILD=0", per[i], plain[m] - per[i]; } \
			else if (name[i] ~ /-smp$$/) { m = name[i]; sub(/-smp$$/, "", m); \
				printf "  %-26s %7.1f Ir  (IRQ_NR_CPUS=8: %+.1f Ir over one CPU)\n", \
				"  " m ", 8 CPUs", per[i], per[i] - plain[m]; } \
			else if (name[i] == "edge-traced") printf "  %-26s %7.1f Ir  (trace on: %.2f events, %.1f Ir each over the untraced edge)\n", \
				"one traced edge interrupt", per[i], events[i], (per[i] - edge) / events[i]; \
			else printf "  %-26s %7.1f Ir  (%.0f port lock pairs; core alone ~%.1f Ir)\n", \
				"one " name[i] (name[i] == "poll" ? " of an edge line" : " interrupt"), \
				per[i], locks[i], per[i] - locks[i] * pair; } }'
