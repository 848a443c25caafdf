/*
 * trace.c - the event trace's control and dump (trace.h): the filter,
 * start, stop and clear, the driver event names, and the dump in the text
 * format of docs/trace.md (version IRQ_TRACE_FORMAT_VERSION), which
 * tools/trace/ reads. The rings and the recording are trace_ring.c's.
 *
 * Layer 4, a report: may use layers 0-3 (docs/irq-layers.md).
 *
 * The ring fills from its start and then drops what comes (counting it):
 * a trace from boot or from `trace start` keeps the beginning of what
 * went wrong, which is what the tools and the course read; `trace clear`
 * empties it.
 */
#include "internals.h"
#include "policy.h"
#include "trace.h"
#include "trace_filter.h"

#if IRQ_TRACE_BUILD

/* Longest driver event name, in characters. */
#define IRQ_TRACE_TAG_MAX 23
/* The longest line of the dump, in characters (with room to spare). */
#define IRQ_TRACE_LINE_MAX 160
/* FNV-1a, 32 bits: the dump's end line carries the hash of its event lines. */
#define IRQ_TRACE_FNV_OFFSET 2166136261u
#define IRQ_TRACE_FNV_PRIME 16777619u

#define IRQ_TRACE_LINE_WORDS ((IRQ_NR_LINES + 31) / 32)

const char *irq_trace_tag_names[IRQ_TRACE_TAGS + 1];

static irq_port_lock_t irq_trace_tag_lock;  /* registration of driver event names */
static uint32_t irq_trace_tag_lock_ready;  /* 32 bits: RV64's A extension has no byte swap */


static const char *const irq_trace_names[IRQ_TEV_NR] = {
	[IRQ_TEV_NONE] = "none",             [IRQ_TEV_IRQ_ENTRY] = "irq_entry",
	[IRQ_TEV_IRQ_EXIT] = "irq_exit",     [IRQ_TEV_ACTION] = "action",
	[IRQ_TEV_CHIP] = "chip",             [IRQ_TEV_POLL_START] = "poll_start",
	[IRQ_TEV_POLL_END] = "poll_end",     [IRQ_TEV_EXPECT] = "expect",
	[IRQ_TEV_UNEXPECT] = "unexpect",     [IRQ_TEV_VERDICT] = "verdict",
	[IRQ_TEV_STATE] = "state",           [IRQ_TEV_POLL_ARM] = "poll_arm",
	[IRQ_TEV_DRV] = "drv",
};

static const char *const irq_trace_class_names[] = { "irq", "chip", "poll", "expect", "state", "drv" };
static const char *const irq_trace_flow_names[] = { "none", "edge", "level", "fasteoi", "custom" };
static const char *const irq_trace_ret_names[] = { "none", "handled", "bad" };
static const char *const irq_trace_chip_names[] = { "mask", "unmask", "ack", "mask_ack", "eoi" };
static const char *const irq_trace_why_names[] = { "expect", "watch", "flood", "irqpoll", "fixup", "health", "hand", "caller" };
static const char *const irq_trace_poll_names[] = { "none", "handled", "busy", "noaction", "disabled", "deferred", "other" };
static const char *const irq_trace_unexp_names[] = { "irq", "poll", "timeout" };
static const char *const irq_trace_verdict_names[] = { "late", "unsure", "lost", "beat", "watch_late", "watch_polled",
							 "stalled", "watch_stalled" };
static const char *const irq_trace_state_names[] = { "verified", "distrusted", "flood_off", "reenable", "flood_over",
						     "watch_bad", "watch_end", "health_begin", "health_end" };
static const char *const irq_trace_drv_names[] = { "begin", "end", "mark" };

#define IRQ_TRACE_NAME(tab, i) ((i) < sizeof(tab) / sizeof((tab)[0]) ? (tab)[i] : "?")

const char *irq_trace_event_name(unsigned int type)
{
	return type < IRQ_TEV_NR ? irq_trace_names[type] : "?";
}

/* ---- control ---------------------------------------------------------------- */

static bool irq_trace_word_is(const char *s, unsigned int len, const char *word)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (word[i] != s[i])
			return false;
	return word[len] == '\0';
}

int irq_trace_parse_filter(const char *filter, uint32_t *classes, uint32_t lines[IRQ_TRACE_LINE_WORDS])
{
	uint32_t cls = 0, any_line = 0;
	unsigned int i, n;
	const char *s = filter;

	for (i = 0; i < IRQ_TRACE_LINE_WORDS; i++)
		lines[i] = 0;
	/* Bounded: every round consumes at least one character of the string. */
	while (s && *s) {
		unsigned int len = 0, value = 0;
		bool digits = true;

		while (s[len] && s[len] != ',') {
			if (s[len] < '0' || s[len] > '9')
				digits = false;
			else if (value < 100000u)
				value = value * 10u + (unsigned int)(s[len] - '0');
			len++;
		}
		if (len == 0)
			return -IRQ_EINVAL;
		if (digits) {
			if (len > 6 || value >= IRQ_NR_LINES)
				return -IRQ_EINVAL;
			lines[value / 32] |= 1u << (value % 32);
			any_line = 1;
		} else if (irq_trace_word_is(s, len, "all") || irq_trace_word_is(s, len, "on")) {
			cls = IRQ_TCLASS_ALL;
		} else {
			for (n = 0; n < sizeof(irq_trace_class_names) / sizeof(irq_trace_class_names[0]); n++)
				if (irq_trace_word_is(s, len, irq_trace_class_names[n]))
					break;
			if (n == sizeof(irq_trace_class_names) / sizeof(irq_trace_class_names[0]))
				return -IRQ_EINVAL;
			cls |= 1u << n;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	if (!any_line)
		for (i = 0; i < IRQ_TRACE_LINE_WORDS; i++)
			lines[i] = ~0u;
	*classes = cls ? cls : IRQ_TCLASS_ALL;
	return 0;
}

int irq_trace_start(const char *filter)
{
	uint32_t classes, lines[IRQ_TRACE_LINE_WORDS];
	unsigned int i;

	if (irq_trace_parse_filter(filter, &classes, lines))
		return -IRQ_EINVAL;
	/* Off while the filter changes, so no event sees half of it. */
	__atomic_store_n(&irq_trace_on, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < IRQ_NR_LINES; i++)
		__atomic_store_n(&irq_trace_line_sel[i], (uint8_t)(lines[i / 32] >> (i % 32) & 1u), __ATOMIC_RELAXED);
	__atomic_store_n(&irq_trace_classes, classes, __ATOMIC_RELAXED);
	/* RELEASE: a hook that sees the switch on sees the filter (its loads are relaxed, on one CPU in order). */
	__atomic_store_n(&irq_trace_on, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void irq_trace_stop(void)
{
	__atomic_store_n(&irq_trace_on, 0, __ATOMIC_SEQ_CST);
}

void irq_trace_clear(void)
{
	/* A load and a store, not a byte exchange (RV64 has none): start/stop race with clear harmlessly. */
	uint8_t was = __atomic_load_n(&irq_trace_on, __ATOMIC_SEQ_CST);
	unsigned int cpu, i;

	__atomic_store_n(&irq_trace_on, 0, __ATOMIC_SEQ_CST);
	for (cpu = 0; cpu < IRQ_NR_CPUS; cpu++) {
		struct irq_trace_ring *r = &irq_trace_rings[cpu];
		uint32_t used = __atomic_load_n(&r->head, __ATOMIC_RELAXED);

		if (used > IRQ_TRACE_ENTRIES)
			used = IRQ_TRACE_ENTRIES;
		for (i = 0; i < used; i++)
			__atomic_store_n(&r->e[i].type, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&r->dropped, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&r->head, 0, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&irq_trace_bad_cpu, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&irq_trace_on, was, __ATOMIC_SEQ_CST);
}

static uint32_t irq_trace_ring_used(const struct irq_trace_ring *r)
{
	uint32_t used = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	return used < IRQ_TRACE_ENTRIES ? used : IRQ_TRACE_ENTRIES;
}

void irq_trace_get_status(struct irq_trace_status *st)
{
	unsigned int cpu, i;

	*st = (struct irq_trace_status){ .on = irq_trace_enabled(), .ring_entries = IRQ_TRACE_ENTRIES };
	st->classes = __atomic_load_n(&irq_trace_classes, __ATOMIC_RELAXED);
	for (i = 0; i < IRQ_NR_LINES; i++)
		st->lines_selected += irq_trace_line_selected(i);
	st->dropped = __atomic_load_n(&irq_trace_bad_cpu, __ATOMIC_RELAXED);
	for (cpu = 0; cpu < IRQ_NR_CPUS; cpu++) {
		const struct irq_trace_ring *r = &irq_trace_rings[cpu];
		uint32_t used = irq_trace_ring_used(r), dropped = __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);

		st->events += used;
		st->dropped += dropped;
		if (used || dropped)
			st->cpus_used++;
	}
}

int irq_trace_param(const char *v, void *arg)
{
	(void)arg;
	if (v && irq_trace_word_is(v, 3, "off") && v[3] == '\0')
		return 0;
	switch (irq_trace_start(v && *v ? v : "all")) {
	case 0:
		break;
	default:
		irq_port_log(IRQ_LOG_ERR, "irq: trace=%.32s: bad filter; use on, or a comma list of lines and irq,chip,poll,expect,state,drv\n",
			     v ? v : "");
		return -IRQ_EINVAL;
	}
	irq_port_log(IRQ_LOG_INFO, "irq: tracing from boot (trace=%.32s)\n", v && *v ? v : "all");
	return 0;
}

/* ---- driver events ----------------------------------------------------------- */

unsigned int irq_trace_tag(const char *name)
{
	unsigned int i, len, tag = 0;
	unsigned long flags;

	if (!name)
		return 0;
	for (len = 0; name[len]; len++)
		if (len == IRQ_TRACE_TAG_MAX ||
		    !((name[len] >= 'a' && name[len] <= 'z') || (name[len] >= '0' && name[len] <= '9') || name[len] == '_'))
			return 0;
	if (!len)
		return 0;
	if (!__atomic_exchange_n(&irq_trace_tag_lock_ready, 1u, __ATOMIC_ACQ_REL))
		irq_port_lock_init(&irq_trace_tag_lock);  /* first use: thread context at driver init, one CPU */
	flags = irq_port_lock_irqsave(&irq_trace_tag_lock);
	for (i = 1; i <= IRQ_TRACE_TAGS; i++) {
		const char *have = irq_trace_tag_names[i];

		if (!have) {
			irq_trace_tag_names[i] = name;
			tag = i;
			break;
		}
		if (irq_trace_word_is(name, len, have) && have[len] == '\0') {
			tag = i;
			break;
		}
	}
	irq_port_unlock_irqrestore(&irq_trace_tag_lock, flags);
	if (!tag)
		irq_port_log(IRQ_LOG_WARN, "irq: trace: no room for driver event \"%.23s\" (IRQ_TRACE_TAGS %u)\n", name,
			     (unsigned int)IRQ_TRACE_TAGS);
	return tag;
}

/* ---- the dump ----------------------------------------------------------------- */

/* A line being built: no libc in the core, so a small appender. */
struct irq_trace_buf {
	char s[IRQ_TRACE_LINE_MAX];
	unsigned int len;
};

static void tb_str(struct irq_trace_buf *b, const char *s)
{
	while (*s && b->len < IRQ_TRACE_LINE_MAX - 1)
		b->s[b->len++] = *s++;
	b->s[b->len] = '\0';
}

static void tb_u64(struct irq_trace_buf *b, uint64_t v)
{
	char tmp[21];
	unsigned int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v && n < sizeof(tmp) - 1);
	while (n && b->len < IRQ_TRACE_LINE_MAX - 1)
		b->s[b->len++] = tmp[--n];
	b->s[b->len] = '\0';
}

static void tb_hex32(struct irq_trace_buf *b, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	int shift;

	for (shift = 28; shift >= 0 && b->len < IRQ_TRACE_LINE_MAX - 1; shift -= 4)
		b->s[b->len++] = digits[(v >> shift) & 0xFu];
	b->s[b->len] = '\0';
}

static void tb_kv(struct irq_trace_buf *b, const char *key, const char *value)
{
	tb_str(b, " ");
	tb_str(b, key);
	tb_str(b, "=");
	tb_str(b, value);
}

static void tb_kv_u(struct irq_trace_buf *b, const char *key, uint64_t value)
{
	tb_str(b, " ");
	tb_str(b, key);
	tb_str(b, "=");
	tb_u64(b, value);
}

static void tb_kv_x(struct irq_trace_buf *b, const char *key, uint32_t value)
{
	tb_str(b, " ");
	tb_str(b, key);
	tb_str(b, "=");
	tb_hex32(b, value);
}

/* The fields of one event after its name (docs/trace.md, "Events"). */
static void irq_trace_format_fields(struct irq_trace_buf *b, const struct irq_trace_entry *e)
{
	unsigned int i, sub = e->sub;
	bool first = true;

	switch (e->type) {
	case IRQ_TEV_IRQ_ENTRY:
	case IRQ_TEV_IRQ_EXIT:
		tb_kv(b, "flow", IRQ_TRACE_NAME(irq_trace_flow_names, sub));
		break;
	case IRQ_TEV_ACTION:
		tb_kv_u(b, "idx", e->arg & 0xFFu);
		tb_kv(b, "ret", IRQ_TRACE_NAME(irq_trace_ret_names, sub));
		tb_kv(b, "run", (e->arg & IRQ_TRACE_ACTION_POLL) ? "poll" : "irq");
		break;
	case IRQ_TEV_CHIP:
		tb_kv(b, "op", IRQ_TRACE_NAME(irq_trace_chip_names, sub));
		break;
	case IRQ_TEV_POLL_START:
		tb_str(b, " why=");
		for (i = 0; i < sizeof(irq_trace_why_names) / sizeof(irq_trace_why_names[0]); i++) {
			if (!(sub & (1u << i)))
				continue;
			if (!first)
				tb_str(b, "+");
			tb_str(b, irq_trace_why_names[i]);
			first = false;
		}
		if (first)
			tb_str(b, "none");
		break;
	case IRQ_TEV_POLL_END:
		tb_kv(b, "result", IRQ_TRACE_NAME(irq_trace_poll_names, sub));
		break;
	case IRQ_TEV_EXPECT:
		tb_kv_x(b, "token", e->arg);
		break;
	case IRQ_TEV_UNEXPECT:
		tb_kv_x(b, "token", e->arg);
		tb_kv(b, "by", IRQ_TRACE_NAME(irq_trace_unexp_names, sub));
		break;
	case IRQ_TEV_VERDICT:
		tb_kv(b, "kind", IRQ_TRACE_NAME(irq_trace_verdict_names, sub));
		if (sub == IRQ_TVERD_WATCH_LATE || sub == IRQ_TVERD_WATCH_POLLED || sub == IRQ_TVERD_WATCH_STALLED)
			tb_kv_u(b, "count", e->arg);
		else
			tb_kv_x(b, "token", e->arg);
		break;
	case IRQ_TEV_STATE:
		tb_kv(b, "what", IRQ_TRACE_NAME(irq_trace_state_names, sub));
		if (sub == IRQ_TSTATE_VERIFIED || sub == IRQ_TSTATE_DISTRUSTED)
			tb_kv_x(b, "token", e->arg);
		else
			tb_kv_u(b, "value", e->arg);
		break;
	case IRQ_TEV_POLL_ARM:
		if (sub)
			tb_kv(b, "cancel", "1");
		else
			tb_kv_u(b, "in_us", e->arg);
		break;
	case IRQ_TEV_DRV: {
		unsigned int tag = e->arg >> 24;
		const char *name = tag && tag <= IRQ_TRACE_TAGS ? irq_trace_tag_names[tag] : NULL;

		tb_kv(b, "name", name ? name : "unknown");
		tb_kv(b, "kind", IRQ_TRACE_NAME(irq_trace_drv_names, sub));
		tb_kv_u(b, "value", e->arg & 0xFFFFFFu);
		break;
	}
	default:
		break;
	}
}

static uint32_t irq_trace_fnv(uint32_t h, const char *s)
{
	while (*s) {
		h ^= (uint8_t)*s++;
		h *= IRQ_TRACE_FNV_PRIME;
	}
	h ^= (uint8_t)'\n';
	return h * IRQ_TRACE_FNV_PRIME;
}

unsigned long irq_trace_dump(void (*out)(void *ctx, const char *line), void *ctx)
{
	uint32_t used[IRQ_NR_CPUS], dropped = __atomic_load_n(&irq_trace_bad_cpu, __ATOMIC_RELAXED);
	uint32_t hash = IRQ_TRACE_FNV_OFFSET, unwritten = 0;
	unsigned long total = 0, printed = 0;
	struct irq_trace_buf b;
	unsigned int cpu, i;

	for (cpu = 0; cpu < IRQ_NR_CPUS; cpu++) {
		used[cpu] = irq_trace_ring_used(&irq_trace_rings[cpu]);
		total += used[cpu];
		dropped += __atomic_load_n(&irq_trace_rings[cpu].dropped, __ATOMIC_RELAXED);
	}
	b.len = 0;
	b.s[0] = '\0';
	tb_str(&b, "@irqkit-trace v");
	tb_u64(&b, IRQ_TRACE_FORMAT_VERSION);
	tb_kv_u(&b, "cpus", IRQ_NR_CPUS);
	tb_kv_u(&b, "ring", IRQ_TRACE_ENTRIES);
	tb_kv_u(&b, "slots", total);
	tb_kv_u(&b, "dropped", dropped);
	tb_kv(&b, "clock", "ns");
	out(ctx, b.s);
	for (cpu = 0; cpu < IRQ_NR_CPUS; cpu++) {
		const struct irq_trace_ring *r = &irq_trace_rings[cpu];

		for (i = 0; i < used[cpu]; i++) {
			const struct irq_trace_entry *e = &r->e[i];
			/* Pairs with the RELEASE store of the type in irq_trace_record. */
			uint8_t type = __atomic_load_n(&e->type, __ATOMIC_ACQUIRE);

			if (type == IRQ_TEV_NONE || type >= IRQ_TEV_NR) {
				unwritten++;
				continue;
			}
			b.len = 0;
			b.s[0] = '\0';
			tb_str(&b, "@T ");
			tb_u64(&b, printed);
			tb_str(&b, " ");
			tb_u64(&b, cpu);
			tb_str(&b, " ");
			tb_u64(&b, e->ts_ns);
			tb_str(&b, " ");
			tb_str(&b, irq_trace_names[type]);
			tb_str(&b, " ");
			if (e->line == IRQ_TRACE_NO_LINE)
				tb_str(&b, "-");
			else
				tb_u64(&b, e->line);
			irq_trace_format_fields(&b, e);
			hash = irq_trace_fnv(hash, b.s);
			out(ctx, b.s);
			printed++;
		}
	}
	b.len = 0;
	b.s[0] = '\0';
	tb_str(&b, "@irqkit-trace-end v");
	tb_u64(&b, IRQ_TRACE_FORMAT_VERSION);
	tb_kv_u(&b, "events", printed);
	tb_kv_u(&b, "dropped", dropped);
	tb_kv_u(&b, "unwritten", unwritten);
	tb_kv_x(&b, "hash", hash);
	out(ctx, b.s);
	return printed;
}

#else /* !IRQ_TRACE_BUILD */

/*
 * The trace compiled out (irq_config.h): no rings, no filter, no dump, no
 * event names. The control keeps its API and says so: irq_trace_start()
 * and irq_trace_parse_filter() answer -IRQ_ENODEV, the status is off and
 * empty, the dump prints nothing, no driver gets a tag (its events are not
 * recorded), and trace= at boot says the trace is not built.
 */
int irq_trace_parse_filter(const char *filter, uint32_t *classes, uint32_t lines[(IRQ_NR_LINES + 31) / 32])
{
	(void)filter;
	(void)lines;
	*classes = 0;
	return -IRQ_ENODEV;
}

int irq_trace_start(const char *filter)
{
	(void)filter;
	return -IRQ_ENODEV;
}

void irq_trace_stop(void)
{
}

void irq_trace_clear(void)
{
}

void irq_trace_get_status(struct irq_trace_status *st)
{
	*st = (struct irq_trace_status){ .ring_entries = IRQ_TRACE_ENTRIES };
}

unsigned long irq_trace_dump(void (*out)(void *ctx, const char *line), void *ctx)
{
	(void)out;
	(void)ctx;
	return 0;
}

const char *irq_trace_event_name(unsigned int type)
{
	(void)type;
	return "?";
}

int irq_trace_param(const char *v, void *arg)
{
	(void)arg;
	if (v && v[0] == 'o' && v[1] == 'f' && v[2] == 'f' && v[3] == '\0')
		return 0;
	irq_port_log(IRQ_LOG_ERR, "irq: trace=: the event trace is compiled out (IRQ_TRACE_BUILD 0)\n");
	return -IRQ_ENODEV;
}

unsigned int irq_trace_tag(const char *name)
{
	(void)name;
	return 0;
}

#endif /* IRQ_TRACE_BUILD */
