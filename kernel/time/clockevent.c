/*
 * clockevent.c - clock event device registry, selection and programming.
 * See clockevent.h for what a driver provides; tick.c decides what the
 * chosen device is asked to do.
 */
#include "clockevent.h"
#include "internal.h"
#include "time_port.h"

static struct {
	struct clock_event_device *list;
	struct clock_event_device *current;
	unsigned count;
	char preferred[TIME_PREFER_NAME_MAX]; /* clockevent_prefer(); "" = by rating */
} ce_state;

/* Handler of devices the tick does not use: count, nothing else. */
static void clockevent_ignore(struct clock_event_device *dev)
{
	dev->events++;
}

struct clock_event_device *clockevent_current(void)
{
	return ce_state.current;
}

void clockevent_reset(void)
{
	ce_state.preferred[0] = 0;
	ce_state.list = NULL;
	ce_state.current = NULL;
	ce_state.count = 0;
}

static int validate(const struct clock_event_device *dev)
{
	const unsigned known = CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT;

	if (!dev || !dev->name || !dev->shutdown)
		return -EINVAL;
	if (!(dev->features & known) || (dev->features & ~known))
		return -EINVAL;
	if ((dev->features & CLOCK_EVT_FEAT_PERIODIC) && !dev->set_periodic)
		return -EINVAL;
	if (dev->features & CLOCK_EVT_FEAT_ONESHOT) {
		if (!dev->set_next_event || !dev->max_delta_ns || dev->max_delta_ns < dev->min_delta_ns)
			return -EINVAL;
		if (dev->max_delta_ns < CLOCKEVENT_MIN_DELTA_FLOOR_NS)
			return -EINVAL;
	}
	return 0;
}

/* Whether @a should drive the tick instead of current @b: the preferred
 * device beats every other; otherwise the higher rating wins, but nothing
 * displaces the preferred one. */
static bool beats(const struct clock_event_device *a, const struct clock_event_device *b)
{
	bool pa = time_name_is(a->name, ce_state.preferred);
	bool pb = time_name_is(b->name, ce_state.preferred);

	if (pa != pb)
		return pa;
	return a->rating > b->rating;
}

int clockevent_prefer(const char *name)
{
	unsigned long flags;
	int rc;

	if (!time_initialized())
		return -EAGAIN;
	flags = time_port_irq_save();
	rc = time_name_set(ce_state.preferred, name);
	time_port_irq_restore(flags);
	if (rc == 0 && name && name[0])
		time_port_log(TIME_LOG_INFO, "clockevent: %s preferred over the ratings", name);
	return rc;
}

/* The device clockevent_prefer() named, or NULL when the ratings choose. */
const char *clockevent_preferred(void)
{
	return ce_state.preferred[0] ? ce_state.preferred : NULL;
}

/* Add validated @dev; *rc gets 0 or -errno, *took_over whether @dev now
 * drives the tick. RETURNS the device it replaced (shut down), or NULL. */
static struct clock_event_device *add_locked(struct clock_event_device *dev, int *rc, bool *took_over)
{
	struct clock_event_device *p, *old = ce_state.current;
	unsigned n = 0;

	*took_over = false;
	for (p = ce_state.list; p && n < CLOCKEVENT_MAX; p = p->next, n++)
		if (p == dev) {
			*rc = -EEXIST;
			return NULL;
		}
	if (ce_state.count >= CLOCKEVENT_MAX) {
		*rc = -ENOSPC;
		return NULL;
	}
	dev->next = ce_state.list;
	ce_state.list = dev;
	ce_state.count++;
	*rc = 0;
	if (old && !beats(dev, old))
		return NULL;
	ce_state.current = dev;
	*took_over = true;
	if (old) {
		clockevent_shutdown(old);
		old->event_handler = clockevent_ignore;
	}
	return old;
}

/* Fill in the framework's fields of a new device. */
static void prepare(struct clock_event_device *dev)
{
	if ((dev->features & CLOCK_EVT_FEAT_ONESHOT) && dev->min_delta_ns < CLOCKEVENT_MIN_DELTA_FLOOR_NS)
		dev->min_delta_ns = CLOCKEVENT_MIN_DELTA_FLOOR_NS;
	dev->event_handler = clockevent_ignore;
	dev->state = CLOCKEVENT_DETACHED;
	dev->next_event_ns = 0;
	dev->events = 0;
	dev->programmed = 0;
	dev->clamped = 0;
	dev->program_errors = 0;
	dev->next = NULL;
}

int clockevent_register(struct clock_event_device *dev)
{
	struct clock_event_device *old;
	unsigned long flags;
	bool took_over;
	int rc;

	if (!time_initialized())
		return -EAGAIN;
	rc = validate(dev);
	if (rc < 0) {
		time_port_log(TIME_LOG_ERR, "clockevent: %s refused (%d)", dev && dev->name ? dev->name : "?", rc);
		return rc;
	}
	flags = time_port_irq_save();
	prepare(dev);
	old = add_locked(dev, &rc, &took_over);
	time_port_irq_restore(flags);
	if (rc < 0) {
		time_port_log(TIME_LOG_ERR, "clockevent: %s refused (%d)", dev->name, rc);
		return rc;
	}
	time_port_log(TIME_LOG_INFO, "clockevent: %s,%s%s rating %d%s%s", dev->name,
		      (dev->features & CLOCK_EVT_FEAT_PERIODIC) ? " periodic" : "",
		      (dev->features & CLOCK_EVT_FEAT_ONESHOT) ? " oneshot" : "", dev->rating,
		      took_over ? ", drives the tick" : "", old ? " (replaces the previous device)" : "");
	if (took_over)
		tick_configure();
	return 0;
}

int clockevent_set_periodic(struct clock_event_device *dev, uint32_t hz)
{
	int rc;

	if (!(dev->features & CLOCK_EVT_FEAT_PERIODIC))
		return -EINVAL;
	rc = dev->set_periodic(dev, hz);
	if (rc == 0)
		dev->state = CLOCKEVENT_PERIODIC;
	return rc;
}

int clockevent_shutdown(struct clock_event_device *dev)
{
	int rc = dev->shutdown(dev);

	if (rc == 0)
		dev->state = CLOCKEVENT_SHUTDOWN;
	return rc;
}

/* Delay to program for @expires_ns at @now_ns, clamped to the device. */
static uint64_t clamp_delta(struct clock_event_device *dev, uint64_t expires_ns, uint64_t now_ns)
{
	uint64_t delta = expires_ns > now_ns ? expires_ns - now_ns : 0;

	if (delta < dev->min_delta_ns) {
		delta = dev->min_delta_ns;
		dev->clamped++;
	} else if (delta > dev->max_delta_ns) {
		delta = dev->max_delta_ns;
		dev->clamped++;
	}
	return delta;
}

int clockevent_program(struct clock_event_device *dev, uint64_t expires_ns, uint64_t now_ns)
{
	uint64_t delta;
	int rc = -EIO, tries;

	if (!(dev->features & CLOCK_EVT_FEAT_ONESHOT))
		return -EINVAL;
	delta = clamp_delta(dev, expires_ns, now_ns);
	for (tries = 0; tries < CLOCKEVENT_PROGRAM_TRIES; tries++) {
		rc = dev->set_next_event(dev, delta);
		if (rc == 0) {
			dev->state = CLOCKEVENT_ONESHOT;
			dev->next_event_ns = now_ns + delta;
			dev->programmed++;
			return 0;
		}
		dev->program_errors++;
		/* Too close after all: try a longer delay, within the device. */
		delta = delta > dev->max_delta_ns / 2 ? dev->max_delta_ns : delta * 2;
	}
	/* Once per device: the interrupt path must not flood the log. */
	if (dev->program_errors <= CLOCKEVENT_PROGRAM_TRIES)
		time_port_log(TIME_LOG_ERR, "clockevent: %s: set_next_event failed (%d)", dev->name, rc);
	return rc;
}

void clockevent_conv_init(struct clockevent_conv *conv, uint32_t hz)
{
	conv->hz = hz;
	/* hz < 1e9 < 2^30: hz << 32 fits, and mult <= 2^32 - 4. */
	conv->mult = hz < NSEC_PER_SEC ? (uint32_t)((((uint64_t)hz << 32) + NSEC_PER_SEC - 1) / NSEC_PER_SEC) : 0;
}

uint64_t clockevent_ns_to_counts_exact(uint32_t hz, uint64_t ns)
{
	/* ns = q * 1e9 + r: ceil(ns * hz / 1e9) = q * hz + ceil(r * hz / 1e9),
	 * and r * hz < 1e9 * 2^32 < 2^63 cannot overflow. */
	uint64_t q = ns / NSEC_PER_SEC, r = ns % NSEC_PER_SEC;
	uint64_t whole, part = (r * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC, sum;

	if (__builtin_mul_overflow(q, (uint64_t)hz, &whole) || __builtin_add_overflow(whole, part, &sum))
		return UINT64_MAX;
	return sum;
}
