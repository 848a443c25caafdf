/*
 * i8042_decode.c - PS/2 keyboard (scan code set 2) and mouse byte streams to
 * key events, characters and packets. Pure code: no hardware, no kernel
 * state, tested on the host (tests/unit/test_i8042_decode.c). The driver is
 * i8042.c; i8042_decode.h explains the protocols, the resynchronisation
 * rules and the tunables. Set 2 codes: Microsoft's Keyboard Scan Code
 * Specification rev. 1.3a, appendix C; HID usages: HID Usage Tables 1.12,
 * chapter 10 (which lists the same set 2 codes for each usage).
 */
#include "i8042_decode.h"
#include "i8042_regs.h"
#include "../usb/usb_hid.h"

#define NS_PER_MS 1000000ull

/* HID usages the decoder treats specially (HID Usage Tables 1.12 table 12). */
enum ps2_usage {
	U_NONE = 0x00,
	U_CAPS_LOCK = 0x39,
	U_PRINT_SCREEN = 0x46,
	U_SCROLL_LOCK = 0x47,
	U_PAUSE = 0x48,
	U_NUM_LOCK = 0x53,
	U_KP_FIRST_NUMLOCKED = 0x59,   /* keypad 1 ... */
	U_KP_LAST_NUMLOCKED = 0x63,    /* ... keypad . : digits with num lock, navigation without */
	U_MOD_FIRST = 0xE0,            /* left control; modifiers run to 0xE7 (right GUI) */
	U_MOD_LAST = 0xE7,
};

/* Set 2 codes without prefix, 0x00-0x83 -> HID usage (0: no key). */
static const uint8_t set2_plain[0x84] = {
	[0x01] = 0x42, [0x03] = 0x3E, [0x04] = 0x3C, [0x05] = 0x3A,   /* F9 F5 F3 F1 */
	[0x06] = 0x3B, [0x07] = 0x45, [0x09] = 0x43, [0x0A] = 0x41,   /* F2 F12 F10 F8 */
	[0x0B] = 0x3F, [0x0C] = 0x3D, [0x0D] = 0x2B, [0x0E] = 0x35,   /* F6 F4 Tab ` */
	[0x11] = 0xE2, [0x12] = 0xE1, [0x14] = 0xE0, [0x15] = 0x14,   /* LAlt LShift LCtrl Q */
	[0x16] = 0x1E, [0x1A] = 0x1D, [0x1B] = 0x16, [0x1C] = 0x04,   /* 1 Z S A */
	[0x1D] = 0x1A, [0x1E] = 0x1F, [0x21] = 0x06, [0x22] = 0x1B,   /* W 2 C X */
	[0x23] = 0x07, [0x24] = 0x08, [0x25] = 0x21, [0x26] = 0x20,   /* D E 4 3 */
	[0x29] = 0x2C, [0x2A] = 0x19, [0x2B] = 0x09, [0x2C] = 0x17,   /* Space V F T */
	[0x2D] = 0x15, [0x2E] = 0x22, [0x31] = 0x11, [0x32] = 0x05,   /* R 5 N B */
	[0x33] = 0x0B, [0x34] = 0x0A, [0x35] = 0x1C, [0x36] = 0x23,   /* H G Y 6 */
	[0x3A] = 0x10, [0x3B] = 0x0D, [0x3C] = 0x18, [0x3D] = 0x24,   /* M J U 7 */
	[0x3E] = 0x25, [0x41] = 0x36, [0x42] = 0x0E, [0x43] = 0x0C,   /* 8 , K I */
	[0x44] = 0x12, [0x45] = 0x27, [0x46] = 0x26, [0x49] = 0x37,   /* O 0 9 . */
	[0x4A] = 0x38, [0x4B] = 0x0F, [0x4C] = 0x33, [0x4D] = 0x13,   /* / L ; P */
	[0x4E] = 0x2D, [0x52] = 0x34, [0x54] = 0x2F, [0x55] = 0x2E,   /* - ' [ = */
	[0x58] = 0x39, [0x59] = 0xE5, [0x5A] = 0x28, [0x5B] = 0x30,   /* CapsLock RShift Enter ] */
	[0x5D] = 0x31, [0x61] = 0x64, [0x66] = 0x2A, [0x69] = 0x59,   /* \ Non-US-\ Backspace KP1 */
	[0x6B] = 0x5C, [0x6C] = 0x5F, [0x70] = 0x62, [0x71] = 0x63,   /* KP4 KP7 KP0 KP. */
	[0x72] = 0x5A, [0x73] = 0x5D, [0x74] = 0x5E, [0x75] = 0x60,   /* KP2 KP5 KP6 KP8 */
	[0x76] = 0x29, [0x77] = 0x53, [0x78] = 0x44, [0x79] = 0x57,   /* Esc NumLock F11 KP+ */
	[0x7A] = 0x5B, [0x7B] = 0x56, [0x7C] = 0x55, [0x7D] = 0x61,   /* KP3 KP- KP* KP9 */
	[0x7E] = 0x47, [0x83] = 0x40,                                 /* ScrollLock F7 */
};

/* Set 2 codes after E0 -> HID usage. E0 12 and E0 59 (fake shifts around Print Screen and the
 * navigation keys on some keyboards) are deliberately absent: they are no key. */
static const struct { uint8_t code, usage; } set2_ext[] = {
	{ 0x11, 0xE6 }, { 0x14, 0xE4 }, { 0x1F, 0xE3 }, { 0x27, 0xE7 },  /* RAlt RCtrl LGUI RGUI */
	{ 0x2F, 0x65 }, { 0x4A, 0x54 }, { 0x5A, 0x58 }, { 0x69, 0x4D },  /* App KP/ KPEnter End */
	{ 0x6B, 0x50 }, { 0x6C, 0x4A }, { 0x70, 0x49 }, { 0x71, 0x4C },  /* Left Home Insert Delete */
	{ 0x72, 0x51 }, { 0x74, 0x4F }, { 0x75, 0x52 }, { 0x7A, 0x4E },  /* Down Right Up PageDown */
	{ 0x7C, U_PRINT_SCREEN }, { 0x7D, 0x4B },                        /* PrintScreen PageUp */
};

/* Pause's make: E1 14 77 E1 F0 14 F0 77 (no break code). pause_pos counts matched bytes. */
static const uint8_t pause_seq[] = { PS2_SET2_PAUSE, 0x14, 0x77, PS2_SET2_PAUSE, PS2_SET2_BREAK, 0x14,
				     PS2_SET2_BREAK, 0x77 };

uint8_t ps2_set2_usage(uint8_t code, bool extended)
{
	if (!extended)
		return code < sizeof(set2_plain) ? set2_plain[code] : U_NONE;
	for (size_t i = 0; i < sizeof(set2_ext) / sizeof(set2_ext[0]); i++)
		if (set2_ext[i].code == code)
			return set2_ext[i].usage;
	return U_NONE;
}

/* ---- Keyboard ---------------------------------------------------------------------------- */

static bool key_is_down(const struct ps2_kbd *k, uint8_t usage)
{
	return (k->down[usage / 32] >> (usage % 32)) & 1u;
}

static void key_set(struct ps2_kbd *k, uint8_t usage, bool down)
{
	if (down)
		k->down[usage / 32] |= 1u << (usage % 32);
	else
		k->down[usage / 32] &= ~(1u << (usage % 32));
}

uint8_t ps2_kbd_mods(const struct ps2_kbd *k)
{
	uint8_t mods = 0;

	for (unsigned int u = U_MOD_FIRST; u <= U_MOD_LAST; u++)
		if (key_is_down(k, (uint8_t)u))
			mods |= (uint8_t)(1u << (u - U_MOD_FIRST));   /* the HID bitmap is in usage order */
	return mods;
}

uint8_t ps2_kbd_leds(const struct ps2_kbd *k)
{
	return (uint8_t)((k->scroll_lock ? PS2_LED_SCROLL : 0) | (k->num_lock ? PS2_LED_NUM : 0) |
			 (k->caps_lock ? PS2_LED_CAPS : 0));
}

/* Release every key (the keyboard reset itself, or overran and may have lost breaks). */
static void release_all(struct ps2_kbd *k)
{
	for (size_t i = 0; i < sizeof(k->down) / sizeof(k->down[0]); i++)
		k->down[i] = 0;
	k->repeat_usage = 0;
}

void ps2_kbd_init(struct ps2_kbd *k, bool num_lock)
{
	if (!k)
		return;
	k->state = PS2_KBD_IDLE;
	k->pause_pos = 0;
	release_all(k);
	k->caps_lock = false;
	k->scroll_lock = false;
	k->num_lock = num_lock;
}

static bool is_answer(uint8_t b)
{
	return b == PS2_ACK || b == PS2_RESEND || b == PS2_BAT_OK || b == PS2_BAT_FAIL1 || b == PS2_BAT_FAIL2 ||
	       b == PS2_ECHO || b == PS2_OVERRUN_SET2 || b == PS2_OVERRUN_SET1;
}

/* The character of @usage now, with num lock deciding the keypad's digits. */
static int key_char(const struct ps2_kbd *k, uint8_t usage)
{
	if (usage >= U_KP_FIRST_NUMLOCKED && usage <= U_KP_LAST_NUMLOCKED && !k->num_lock)
		return -1;   /* num lock off: End, Down, PgDn ... give no character */
	return usb_hid_key_char(usage, ps2_kbd_mods(k), k->caps_lock);
}

/* A lock key's make: toggle it. RETURNS true if @usage is one. */
static bool toggle_lock(struct ps2_kbd *k, uint8_t usage)
{
	switch (usage) {
	case U_CAPS_LOCK: k->caps_lock = !k->caps_lock; return true;
	case U_NUM_LOCK: k->num_lock = !k->num_lock; return true;
	case U_SCROLL_LOCK: k->scroll_lock = !k->scroll_lock; return true;
	default: return false;
	}
}

/* A key went down (@down) or up; fills @out. RETURNS 1 for an event, 0 for a dropped make. */
static int key_event(struct ps2_kbd *k, uint8_t usage, bool down, uint64_t now, struct ps2_kbd_out *out)
{
	if (!down) {
		if (!key_is_down(k, usage)) {
			k->garbage++;        /* a break of a key we never saw go down: nothing to undo */
			return 0;
		}
		key_set(k, usage, false);
		k->keys_up++;
		if (k->repeat_usage == usage)
			k->repeat_usage = 0;
		out->usage = usage;
		out->down = false;
		return 1;
	}
	if (key_is_down(k, usage)) {
		/* The keyboard repeats only the last key that went down, and no sooner than its
		 * typematic delay and period allow: anything else is the same byte twice. */
		uint64_t since_down = now - k->repeat_down_ns, since_last = now - k->repeat_last_ns;

		if (usage != k->repeat_usage || now < k->repeat_last_ns ||
		    (k->repeat_count == 0 && since_down < PS2_KBD_FIRST_REPEAT_MIN_MS * NS_PER_MS) ||
		    since_last < PS2_KBD_REPEAT_GAP_MIN_MS * NS_PER_MS) {
			k->stuck++;
			return 0;
		}
		k->repeat_last_ns = now;
		k->repeat_count++;
		k->repeats++;
		out->usage = usage;
		out->down = true;
		out->repeat = true;
		out->ch = key_char(k, usage);     /* lock keys do not toggle again on a repeat */
		if (out->ch >= 0)
			k->chars++;
		return 1;
	}
	key_set(k, usage, true);
	k->keys_down++;
	k->repeat_usage = usage;
	k->repeat_down_ns = now;
	k->repeat_last_ns = now;
	k->repeat_count = 0;
	out->usage = usage;
	out->down = true;
	if (toggle_lock(k, usage))
		out->leds_changed = true;
	else
		out->ch = key_char(k, usage);
	if (out->ch >= 0)
		k->chars++;
	return 1;
}

/* A code byte (not a prefix or an answer) in state @st. RETURNS as ps2_kbd_feed. */
static int code_byte(struct ps2_kbd *k, uint8_t b, uint64_t now, struct ps2_kbd_out *out)
{
	bool ext = k->state == PS2_KBD_EXT || k->state == PS2_KBD_EXT_BREAK;
	bool brk = k->state == PS2_KBD_BREAK || k->state == PS2_KBD_EXT_BREAK;
	uint8_t usage = ps2_set2_usage(b, ext);

	k->state = PS2_KBD_IDLE;
	if (usage == U_NONE) {
		if (!(ext && (b == 0x12 || b == 0x59)))
			k->unknown++;        /* the fake shifts are expected; anything else names no key */
		return 0;
	}
	return key_event(k, usage, !brk, now, out);
}

int ps2_kbd_feed(struct ps2_kbd *k, uint8_t b, uint64_t now, struct ps2_kbd_out *out)
{
	if (!k || !out)
		return -1;
	*out = (struct ps2_kbd_out){ .ch = -1, .response = -1 };
	k->bytes++;
	if (k->state == PS2_KBD_PAUSE) {
		if (b == pause_seq[k->pause_pos]) {
			if (++k->pause_pos < sizeof(pause_seq))
				return 0;
			k->state = PS2_KBD_IDLE;
			k->keys_down++;      /* Pause has no break: a press, never held */
			out->usage = U_PAUSE;
			out->down = true;
			return 1;
		}
		/* Left the pattern: drop what was matched and decode this byte afresh. */
		k->garbage++;
		k->state = PS2_KBD_IDLE;
	}
	if (is_answer(b)) {
		if (k->state != PS2_KBD_IDLE)
			k->garbage++;        /* an answer cut a code short: its prefix is dropped */
		k->state = PS2_KBD_IDLE;
		k->responses++;
		if (b == PS2_BAT_OK || b == PS2_BAT_FAIL1 || b == PS2_BAT_FAIL2) {
			k->resets++;         /* a reset keyboard holds no key and lights no LED */
			release_all(k);
		} else if (b == PS2_OVERRUN_SET2 || b == PS2_OVERRUN_SET1) {
			k->overruns++;       /* breaks may be lost: nothing stays held */
			release_all(k);
		}
		out->response = b;
		return 1;
	}
	switch (b) {
	case PS2_SET2_EXT:
		if (k->state != PS2_KBD_IDLE)
			k->garbage++;
		k->state = PS2_KBD_EXT;
		return 0;
	case PS2_SET2_BREAK:
		if (k->state == PS2_KBD_EXT)
			k->state = PS2_KBD_EXT_BREAK;
		else if (k->state == PS2_KBD_IDLE)
			k->state = PS2_KBD_BREAK;
		else
			k->garbage++;        /* F0 F0: one break prefix is enough; the state stays */
		return 0;
	case PS2_SET2_PAUSE:
		if (k->state != PS2_KBD_IDLE)
			k->garbage++;
		k->state = PS2_KBD_PAUSE;
		k->pause_pos = 1;
		return 0;
	default:
		return code_byte(k, b, now, out);
	}
}

/* ---- Mouse --------------------------------------------------------------------------------- */

/* A wheel mouse's Z byte is -8..+7 (4 bits, sign-extended). */
#define WHEEL_MIN (-8)
#define WHEEL_MAX 7

void ps2_mouse_init(struct ps2_mouse *m, unsigned int len, bool wheel)
{
	if (!m)
		return;
	m->have = 0;
	m->len = len == 4 ? 4 : 3;
	m->wheel = wheel && m->len == 4;
	m->learn_long = 0;
	m->learn_short = 0;
	m->strays = 0;
}

static bool first_byte_ok(uint8_t b)
{
	return (b & PS2_MOUSE_ALWAYS1) != 0;
}

/* A first byte was taken: one dropped byte since the last packet, again and again, is an
 * unannounced 4th byte; learn 4-byte packets. */
static void learn_long_packets(struct ps2_mouse *m)
{
	bool one_stray = m->strays == 1 && m->packets;

	m->strays = 0;
	if (m->len != 3)
		return;
	if (!one_stray) {
		m->learn_long = 0;
		return;
	}
	if (++m->learn_long >= PS2_MOUSE_LEARN) {
		m->len = 4;              /* the stray byte was each packet's 4th: take it as the wheel */
		m->learn_long = 0;
		m->learn_short = 0;
		m->relearned++;
	}
}

/* Decode the complete packet in m->pkt (m->len bytes). RETURNS 1, or 0 if dropped. */
static int decode_packet(struct ps2_mouse *m, struct ps2_mouse_packet *p)
{
	uint8_t h = m->pkt[0];

	m->have = 0;
	if (h & (PS2_MOUSE_X_OVERFLOW | PS2_MOUSE_Y_OVERFLOW)) {
		m->overflows++;
		return 0;
	}
	p->buttons = h & PS2_MOUSE_BUTTONS;
	/* The sign bits are bit 8 of 9-bit two's complement values. */
	p->dx = (int)m->pkt[1] - ((h & PS2_MOUSE_X_SIGN) ? 256 : 0);
	p->dy = (int)m->pkt[2] - ((h & PS2_MOUSE_Y_SIGN) ? 256 : 0);
	p->dz = m->len == 4 ? (int)(int8_t)m->pkt[3] : 0;
	m->packets++;
	return 1;
}

int ps2_mouse_feed(struct ps2_mouse *m, uint8_t b, uint64_t now, struct ps2_mouse_packet *p)
{
	if (!m || !p)
		return -1;
	m->bytes++;
	if (m->have && now - m->last_ns > (uint64_t)PS2_MOUSE_RESYNC_MS * NS_PER_MS) {
		m->timeouts++;           /* a packet left unfinished: start over with this byte */
		m->have = 0;
		m->strays = 2;           /* not the pattern of a 4th byte */
	}
	m->last_ns = now;
	if (m->have == 0) {
		if (!first_byte_ok(b)) {
			m->dropped_bytes++;
			if (m->strays < 2)
				m->strays++;
			return 0;
		}
		learn_long_packets(m);
		m->pkt[m->have++] = b;
		return 0;
	}
	m->pkt[m->have++] = b;
	if (m->have == 2 && m->pkt[0] == PS2_BAT_OK && b == PS2_MOUSE_ID_STD) {
		/* AA 00: the mouse's self-test passed - it was reset or plugged in, and now sends
		 * 3-byte packets, and only once it is told to (a packet AA 00 .. would have its
		 * Y overflow bit set and be dropped anyway). */
		m->have = 0;
		m->resets++;
		m->len = 3;
		m->wheel = false;
		return 2;
	}
	if (m->have < m->len)
		return 0;
	if (m->len == 4 && !m->wheel) {
		/* Learned 4-byte packets: a 4th byte no wheel sends that looks like a first byte
		 * says the mouse went back to 3: decode 3 and start the next packet with it. */
		int8_t z = (int8_t)m->pkt[3];

		if ((z < WHEEL_MIN || z > WHEEL_MAX) && first_byte_ok(m->pkt[3])) {
			uint8_t next = m->pkt[3];
			int r;

			m->len = 3;
			r = decode_packet(m, p);
			if (++m->learn_short < PS2_MOUSE_LEARN) {
				m->len = 4;
			} else {
				m->learn_short = 0;
				m->relearned++;
			}
			m->pkt[0] = next;
			m->have = 1;
			return r;
		}
		m->learn_short = 0;
	}
	return decode_packet(m, p);
}
