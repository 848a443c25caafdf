/*
 * cross_sizes.c - one object per type whose memory `make cross` reports,
 * compiled for each target architecture but never linked: the report reads
 * each object's size with nm -S, so the figures are what that compiler laid
 * out (padding and alignment included), not sums done by hand.
 * cross_nr_lines has IRQ_NR_LINES bytes, so the report also knows how many
 * lines the build was configured for. See tests/cross/cross.mk.
 */
#include <irq/episode.h>
#include <irq/expect.h>
#include <irq/flood.h>
#include <irq/stall.h>
#include <irq/storm.h>
#include <irq/tick_set.h>
#include <irq/watch.h>
#include <time/timer_wheel.h>

struct irq_desc cross_sizeof_irq_desc;        /* one interrupt line */
struct irqaction cross_sizeof_irqaction;      /* one handler (request_irq) */
struct irq_expect cross_sizeof_irq_expect;    /* one IRQ-expecting token */
struct timer_wheel cross_sizeof_timer_wheel;  /* one timer wheel */
struct wheel_timer cross_sizeof_wheel_timer;  /* one timer on it */
char cross_nr_lines[IRQ_NR_LINES];            /* IRQ_NR_LINES of this build */
