/*
 * i8042_regs.h - the 8042 keyboard controller's ports, status and
 * configuration bits and commands, and the commands and answers of the PS/2
 * keyboard and mouse behind it. Private to drivers/input.
 *
 * Sources: IBM Personal System/2 Hardware Interface Technical Reference
 * (1988), "Keyboard/Auxiliary Device Controller" (the 8042's ports, status
 * byte, controller command byte and commands) and "Keyboard and Auxiliary
 * Device" (the devices' commands, answers and scan code set 2); Microsoft's
 * "Keyboard Scan Code Specification" rev. 1.3a (2000) for set 2 and its E0
 * and E1 sequences; the Microsoft IntelliMouse wheel extension (sample rates
 * 200, 100, 80, then device ID 3 and 4-byte packets). Where QEMU 7.2
 * (hw/input/pckbd.c, ps2.c) behaves in a way the code depends on, the
 * comment at the use says so.
 */
#ifndef DRIVERS_INPUT_I8042_REGS_H
#define DRIVERS_INPUT_I8042_REGS_H

/* ---- Ports and lines ---- */
#define I8042_DATA_PORT      0x60  /* read: output buffer (a byte from a device or the controller); write: input buffer (to the keyboard, or a command's argument) */
#define I8042_STATUS_PORT    0x64  /* read: status register */
#define I8042_COMMAND_PORT   0x64  /* write: controller command */
#define I8042_KBD_ISA_IRQ    1     /* the keyboard port's interrupt: raised while the output buffer holds a keyboard byte */
#define I8042_AUX_ISA_IRQ    12    /* the auxiliary (mouse) port's interrupt: the same for a mouse byte */

/* ---- Status register bits ---- */
#define I8042_STR_OBF        0x01  /* output buffer full: a byte waits at port 0x60 */
#define I8042_STR_IBF        0x02  /* input buffer full: the controller has not taken our last byte */
#define I8042_STR_SYSFLAG    0x04  /* system flag: set once the controller passed its self-test */
#define I8042_STR_CMDDAT     0x08  /* the last write was to port 0x64 (a command) */
#define I8042_STR_KEYLOCK    0x10  /* keyboard inhibit switch not engaged */
#define I8042_STR_AUXDATA    0x20  /* the byte in the output buffer came from the auxiliary port (PS/2: "MOBF") */
#define I8042_STR_TIMEOUT    0x40  /* general time-out (a device did not answer) */
#define I8042_STR_PARITY     0x80  /* parity error on the last byte */
#define I8042_STR_ABSENT     0xFF  /* what an undecoded port reads: no controller there */

/* ---- Controller configuration byte ("command byte", read with 0x20, written with 0x60) ---- */
#define I8042_CFG_KBD_INT    0x01  /* raise IRQ 1 when a keyboard byte is in the output buffer */
#define I8042_CFG_AUX_INT    0x02  /* raise IRQ 12 when a mouse byte is */
#define I8042_CFG_SYSFLAG    0x04  /* the status register's system flag */
#define I8042_CFG_KBD_OFF    0x10  /* keyboard port clock disabled */
#define I8042_CFG_AUX_OFF    0x20  /* auxiliary port clock disabled (stays 0 after 0xA7 on a one-port controller) */
#define I8042_CFG_XLATE      0x40  /* translate the keyboard's bytes to scan code set 1 */

/* ---- Controller commands (port 0x64) ---- */
#define I8042_CMD_READ_CFG   0x20  /* the configuration byte appears in the output buffer */
#define I8042_CMD_WRITE_CFG  0x60  /* the next byte written to port 0x60 is the configuration byte */
#define I8042_CMD_AUX_OFF    0xA7  /* disable the auxiliary port */
#define I8042_CMD_AUX_ON     0xA8  /* enable the auxiliary port */
#define I8042_CMD_AUX_TEST   0xA9  /* test the auxiliary port's lines: answer I8042_PORT_TEST_OK or an error */
#define I8042_CMD_SELF_TEST  0xAA  /* controller self-test: answer I8042_SELF_TEST_OK */
#define I8042_CMD_KBD_TEST   0xAB  /* test the keyboard port's lines */
#define I8042_CMD_KBD_OFF    0xAD  /* disable the keyboard port */
#define I8042_CMD_KBD_ON     0xAE  /* enable the keyboard port */
#define I8042_CMD_AUX_SEND   0xD4  /* the next byte written to port 0x60 goes to the auxiliary device */
#define I8042_CMD_PULSE_RESET 0xFE /* pulse the CPU reset line (the shell's `reboot`) */

/* ---- Controller answers ---- */
#define I8042_SELF_TEST_OK   0x55  /* 0xFC: failed */
#define I8042_PORT_TEST_OK   0x00  /* 0x01 clock stuck low, 0x02 clock high, 0x03 data low, 0x04 data high */

/* ---- Commands to a PS/2 device (written to port 0x60; for the mouse after I8042_CMD_AUX_SEND) ---- */
#define PS2_CMD_SET_LEDS     0xED  /* keyboard: the next byte is the LED mask (PS2_LED_*) */
#define PS2_CMD_ECHO         0xEE  /* keyboard: answers PS2_ECHO */
#define PS2_CMD_SCANSET      0xF0  /* keyboard: the next byte selects scan code set 1-3 (0: report it) */
#define PS2_CMD_SET_SCALE11  0xE6  /* mouse: scaling 1:1 */
#define PS2_CMD_SET_RES      0xE8  /* mouse: the next byte is the resolution (0-3: 1, 2, 4, 8 counts/mm) */
#define PS2_CMD_GET_ID       0xF2  /* answers ACK and the device ID (keyboard 0xAB 0x83; mouse 0x00, 0x03, 0x04) */
#define PS2_CMD_SET_RATE     0xF3  /* keyboard: the next byte is the typematic rate/delay; mouse: the sample rate */
#define PS2_CMD_ENABLE       0xF4  /* keyboard: scanning on; mouse: data reporting on */
#define PS2_CMD_DISABLE      0xF5  /* off (the keyboard also restores its defaults) */
#define PS2_CMD_RESET        0xFF  /* reset and basic assurance test: ACK, then PS2_BAT_OK (mouse: and its ID) */

/* ---- What a PS/2 device sends that is not a scan code or a packet byte ---- */
#define PS2_ACK              0xFA  /* command (or argument) accepted */
#define PS2_RESEND           0xFE  /* say that again (the byte arrived damaged, or makes no sense now) */
#define PS2_BAT_OK           0xAA  /* basic assurance test passed (after a reset, or a device plugged in) */
#define PS2_BAT_FAIL1        0xFC  /* basic assurance test failed */
#define PS2_BAT_FAIL2        0xFD
#define PS2_ECHO             0xEE  /* answer to PS2_CMD_ECHO */
#define PS2_OVERRUN_SET2     0x00  /* keyboard: its buffer overflowed or a key detection error (set 2, 3) */
#define PS2_OVERRUN_SET1     0xFF  /* the same in set 1 */

/* ---- Keyboard arguments ---- */
#define PS2_LED_SCROLL       0x01  /* PS2_CMD_SET_LEDS bits */
#define PS2_LED_NUM          0x02
#define PS2_LED_CAPS         0x04
#define PS2_SCANSET_GET      0x00  /* PS2_CMD_SCANSET argument: report the set in use */
#define PS2_SCANSET_2        0x02
#define PS2_KBD_ID_FIRST     0xAB  /* first byte of an MF2 keyboard's ID */
/* Typematic byte: bits 6-5 delay ((n + 1) * 250 ms), bits 4-0 rate (0x00 = 30/s ... 0x1F = 2/s). */
#define PS2_TYPEMATIC_DELAY_SHIFT 5

/* ---- Set 2 prefixes ---- */
#define PS2_SET2_EXT         0xE0  /* the next code is an extended key */
#define PS2_SET2_PAUSE       0xE1  /* the Pause key's eight-byte sequence begins */
#define PS2_SET2_BREAK       0xF0  /* the next code is a key release */

/* ---- Mouse ---- */
#define PS2_MOUSE_ID_STD     0x00  /* standard 3-byte PS/2 mouse */
#define PS2_MOUSE_ID_WHEEL   0x03  /* IntelliMouse: 4-byte packets, the 4th the wheel */
#define PS2_MOUSE_RES_4MM    0x02  /* PS2_CMD_SET_RES argument: 4 counts/mm (the power-on default) */
#define PS2_MOUSE_RATE_STD   100   /* samples a second, the power-on default */
/* The IntelliMouse knock: these three sample rates in a row make a wheel mouse report ID 3. */
#define PS2_MOUSE_KNOCK1     200
#define PS2_MOUSE_KNOCK2     100
#define PS2_MOUSE_KNOCK3     80

#endif /* DRIVERS_INPUT_I8042_REGS_H */
