/*
 * episode.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the episodes a defence begins and ends, their reminders and irqfixup's
 * misroute episode (episode.c), split out of internals.h (issue 32,
 * docs/irq-layers.md). Included by episode.c, the poll scheduler (poll.c) and
 * the defences (expect.c, watch.c, flood.c, storm.c).
 *
 * Layer 2, a private header of the defences' services: may use layers 0-2
 * (docs/irq-layers.md).
 */
#ifndef IRQ_EPISODE_H
#define IRQ_EPISODE_H

#include "internals.h"

/*
 * __irq_health_begin / __irq_health_end - an episode of running on polling
 * starts (announced at once, naming the line, the driver and @why) or ends
 * (recovery announced). @action is NULL for the line itself (storms).
 * Lock held.
 */
void __irq_health_begin_say(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
			    unsigned int cause, const char *why, uint64_t now);
void __irq_health_end_say(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
			  const char *how, uint64_t now);
/* The sentences go through IRQ_TEXT: a terse build (IRQ_HEALTH_TEXT 0) has none of them. */
#define __irq_health_begin(desc, action, ep, cause, why, now) \
	__irq_health_begin_say(desc, action, ep, cause, IRQ_TEXT(why), now)
#define __irq_health_end(desc, action, ep, how, now) __irq_health_end_say(desc, action, ep, IRQ_TEXT(how), now)

/*
 * __irq_health_remind - from the poll timer: remind of the line's episodes
 * at the policy's low rate, and end a misroute episode whose evidence is
 * older than health_misroute_window_ns. Lock held.
 */
void __irq_health_remind(struct irq_desc *desc, uint64_t now);

/*
 * __irq_health_fixup_claim - irqfixup: this line's handlers claimed an
 * unclaimed interrupt of line @from_irq. Counts it, starts (announces) the
 * misroute episode or extends it, reschedules the poll timer for its end.
 * Lock of @desc held.
 */
void __irq_health_fixup_claim(struct irq_desc *desc, unsigned int from_irq, uint64_t now);

/* __irq_health_deadline - when health reporting wants the line looked at (a misroute's end; 0: never). Lock held. */
uint64_t __irq_health_deadline(const struct irq_desc *desc);

#endif /* IRQ_EPISODE_H */
