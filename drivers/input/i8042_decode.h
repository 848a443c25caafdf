/*
 * i8042_decode.h - the pure part of the PS/2 driver (i8042_decode.c,
 * host-tested by tests/unit/test_i8042_decode.c): the keyboard's scan code
 * set 2 byte stream to key events and characters, and the mouse's byte
 * stream to packets. No hardware and no kernel state: the driver (i8042.c)
 * feeds the bytes it took from the controller with the time it took them.
 *
 * KEYBOARD. Set 2 with the controller's translation off (docs/input.md says
 * why): a key's make code is one byte, or E0 and a byte for the extended
 * keys; its break code is the same with F0 before the last byte (E0 F0 xx);
 * Pause sends E1 14 77 E1 F0 14 F0 77 and no break. Each key is named by
 * its HID usage (HID Usage Tables 1.12 chapter 10, which lists each key's
 * set 2 codes beside it), so the characters come from the USB keyboard's US
 * map (usb_hid_key_char() in drivers/usb/usb_hid_keymap.c), with the same
 * shift, caps lock and Ctrl rules. The keyboard repeats a held key itself
 * (typematic: its make code again, no break between); caps, num and scroll
 * lock toggle on their make, not on a repeat, and ask the driver to set the
 * LEDs. The keypad gives digits only with num lock on.
 *
 * Garbage and resynchronisation: every byte a keyboard sends that is not
 * part of a scan code - ACK, RESEND, BAT, ECHO, overrun - is a distinct
 * value in set 2, so it is recognised in any state: a prefix it interrupts
 * is dropped (counted), and the answer is handed to the driver. A prefix
 * followed by another prefix, an E1 sequence that leaves its pattern, an
 * unknown code: counted and dropped, and the byte that broke a sequence is
 * decoded afresh. A break of a key that is not down is counted and
 * ignored. A stuck scan code - the same make byte again sooner than any
 * typematic repeat could come (a handler that reads port 0x60 without the
 * output buffer full reads the last byte again) - is dropped (PS2_KBD_*
 * tunables); the key's break ends it. Overrun and BAT release every key.
 *
 * MOUSE. Packets of 3 bytes (standard) or 4 (IntelliMouse, the 4th the
 * wheel): byte 0 has the buttons, bit 3 always set, the X/Y sign bits and
 * overflow bits; bytes 1 and 2 the low 8 bits of the 9-bit X and Y
 * movement (Y up). Resynchronisation: a first byte without bit 3 is
 * dropped; a packet with an overflow bit is dropped whole (its movement is
 * meaningless); a packet left unfinished for PS2_MOUSE_RESYNC_MS starts
 * over. A mouse that sends 4-byte packets when 3 were agreed (unannounced)
 * shows as one dropped byte after every packet: after PS2_MOUSE_LEARN such
 * packets in a row the decoder takes 4-byte packets; the reverse (a packet
 * whose 4th byte is a plausible first byte, with a wheel value no wheel
 * mouse sends) takes it back to 3 after as many.
 */
#ifndef DRIVERS_INPUT_I8042_DECODE_H
#define DRIVERS_INPUT_I8042_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tunables of the decoders; every one is a property of PS/2 devices, not of a machine. */
enum ps2_decode_tunables {
	/* The shortest typematic delay a PS/2 keyboard can be given is 250 ms: a held key's
	 * make code sooner than this after it went down is the same byte read twice, not a repeat. */
	PS2_KBD_FIRST_REPEAT_MIN_MS = 200,
	/* The fastest typematic rate is 30 a second (33 ms apart): a repeat sooner than this after
	 * the previous one is a stuck byte. Below 33 ms by a margin for delivery jitter. */
	PS2_KBD_REPEAT_GAP_MIN_MS = 20,
	/* A mouse sends a packet's bytes back to back (about 1 ms apart). One unfinished for this
	 * long is dropped and the next byte starts a packet. Longer than the slowest IRQ-watch
	 * poll (kernel/irq's poll_slow_ns, 3 s), so a packet whose middle byte waited for a watch
	 * poll after a lost interrupt is not cut in two. */
	PS2_MOUSE_RESYNC_MS = 3500,
	/* Packets in a row that each show the other packet length before the decoder switches. */
	PS2_MOUSE_LEARN = 4,
};

/* ---- Keyboard ---------------------------------------------------------------------------- */

/* Where the keyboard decoder is inside a multi-byte code. */
enum ps2_kbd_state {
	PS2_KBD_IDLE = 0,   /* between codes */
	PS2_KBD_EXT,        /* after E0 */
	PS2_KBD_BREAK,      /* after F0 */
	PS2_KBD_EXT_BREAK,  /* after E0 F0 */
	PS2_KBD_PAUSE,      /* inside E1 14 77 E1 F0 14 F0 77; pause_pos bytes matched */
};

/* What one byte gave. */
struct ps2_kbd_out {
	int ch;                 /* a character for the console (0-0x7F), or -1 */
	int response;           /* a device answer (PS2_ACK, PS2_RESEND, PS2_BAT_OK, PS2_ECHO, BAT failure, overrun), or -1 */
	uint8_t usage;          /* the key of a key event (HID usage), 0 for none */
	bool down;              /* its make (true) or break (false) */
	bool repeat;            /* a typematic repeat of the held key */
	bool leds_changed;      /* a lock key toggled: the driver sends ps2_kbd_leds() */
};

/* The keyboard decoder's state. Zero it, then ps2_kbd_init(). */
struct ps2_kbd {
	uint8_t state;                  /* enum ps2_kbd_state */
	uint8_t pause_pos;              /* bytes of the Pause sequence matched */
	uint32_t down[8];               /* keys held: bit n of the 256 HID usages */
	bool caps_lock, num_lock, scroll_lock;
	uint8_t repeat_usage;           /* the last key that went down and is still held (it repeats), 0 none */
	uint64_t repeat_down_ns;        /* when it went down */
	uint64_t repeat_last_ns;        /* when it last gave a make (down or repeat) */
	uint32_t repeat_count;          /* its repeats so far */
	/* statistics */
	uint32_t bytes;                 /* bytes fed */
	uint32_t keys_down;             /* makes of keys that were up */
	uint32_t keys_up;               /* breaks */
	uint32_t repeats;               /* typematic repeats taken */
	uint32_t chars;                 /* characters given (first and repeated) */
	uint32_t stuck;                 /* makes dropped as a stuck byte (faster than any typematic repeat) */
	uint32_t garbage;               /* prefixes or sequences broken off, breaks of keys not down */
	uint32_t unknown;               /* codes that name no key */
	uint32_t responses;             /* device answers seen */
	uint32_t overruns;              /* overrun / key detection error bytes */
	uint32_t resets;                /* BAT bytes: the keyboard reset itself (all keys released) */
};

/* ps2_kbd_init - the state after a keyboard reset, with num lock on (@num_lock). CONTEXT: any; pure. */
void ps2_kbd_init(struct ps2_kbd *k, bool num_lock);

/*
 * ps2_kbd_feed - decode @byte, taken from the keyboard at @now_ns
 * (monotonic), into @out. CONTEXT: any; pure.
 * RETURNS 1 when @out holds a key event or an answer, 0 when the byte was
 * part of a code (a prefix) or dropped; -1 for NULL arguments.
 */
int ps2_kbd_feed(struct ps2_kbd *k, uint8_t byte, uint64_t now_ns, struct ps2_kbd_out *out);

/* ps2_kbd_leds - the PS2_CMD_SET_LEDS argument for the lock state. CONTEXT: any; pure. */
uint8_t ps2_kbd_leds(const struct ps2_kbd *k);

/* ps2_kbd_mods - the HID modifier bitmap (usb_hid.h's USB_HID_MOD_*) of the keys held. */
uint8_t ps2_kbd_mods(const struct ps2_kbd *k);

/*
 * ps2_set2_usage - the HID usage of set 2 code @code, extended (after E0)
 * or not. CONTEXT: any; pure.
 * RETURNS the usage, or 0 when the code names no key (or is one of the
 * fake shifts E0 12 / E0 59 that some keyboards wrap around other keys).
 */
uint8_t ps2_set2_usage(uint8_t code, bool extended);

/* ---- Mouse --------------------------------------------------------------------------------- */

/* Packet bytes (byte 0 bits). */
enum ps2_mouse_bits {
	PS2_MOUSE_LEFT = 0x01,
	PS2_MOUSE_RIGHT = 0x02,
	PS2_MOUSE_MIDDLE = 0x04,
	PS2_MOUSE_BUTTONS = 0x07,
	PS2_MOUSE_ALWAYS1 = 0x08,      /* set in every first byte: the only sync the protocol has */
	PS2_MOUSE_X_SIGN = 0x10,
	PS2_MOUSE_Y_SIGN = 0x20,
	PS2_MOUSE_X_OVERFLOW = 0x40,
	PS2_MOUSE_Y_OVERFLOW = 0x80,
	PS2_MOUSE_PACKET_MAX = 4,
};

/* One decoded packet. */
struct ps2_mouse_packet {
	int dx, dy;                    /* movement; dy > 0 is up (PS/2's convention) */
	int dz;                        /* wheel: > 0 towards the user (IntelliMouse), 0 without one */
	uint8_t buttons;               /* PS2_MOUSE_LEFT | RIGHT | MIDDLE */
};

/* The mouse decoder's state. Zero it, then ps2_mouse_init(). */
struct ps2_mouse {
	uint8_t pkt[PS2_MOUSE_PACKET_MAX];
	uint8_t have;                  /* bytes of the current packet */
	uint8_t len;                   /* 3 or 4: the packet length in use */
	bool wheel;                    /* the mouse said ID 3: 4-byte packets are its own, never unlearned */
	uint64_t last_ns;              /* when the last byte came */
	uint8_t learn_long;            /* 3-byte mode: packets in a row followed by exactly one stray byte */
	uint8_t strays;                /* bytes dropped since the last packet ended (saturates at 2) */
	uint8_t learn_short;           /* learned 4-byte mode: packets in a row whose 4th byte looked like a first */
	/* statistics */
	uint32_t bytes;
	uint32_t packets;              /* packets decoded */
	uint32_t dropped_bytes;        /* bytes dropped to find a first byte again */
	uint32_t overflows;            /* packets dropped for an overflow bit */
	uint32_t timeouts;             /* unfinished packets dropped after PS2_MOUSE_RESYNC_MS */
	uint32_t relearned;            /* packet length switches (unannounced 4-byte packets, or back) */
	uint32_t resets;               /* BAT (AA 00) seen: the mouse reset itself or was plugged in */
};

/* ps2_mouse_init - a mouse sending @len-byte packets (3, or 4 for ID 3 with @wheel). */
void ps2_mouse_init(struct ps2_mouse *m, unsigned int len, bool wheel);

/*
 * ps2_mouse_feed - decode @byte, taken from the mouse at @now_ns. CONTEXT:
 * any; pure. RETURNS 1 when a packet is complete (in @p), 2 when the bytes
 * were the mouse's BAT (AA 00: it reset itself and now sends nothing until
 * it is set up again), 0 otherwise; -1 for NULL arguments.
 */
int ps2_mouse_feed(struct ps2_mouse *m, uint8_t byte, uint64_t now_ns, struct ps2_mouse_packet *p);

#endif /* DRIVERS_INPUT_I8042_DECODE_H */
