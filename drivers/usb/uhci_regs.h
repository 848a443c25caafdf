/*
 * uhci_regs.h - registers and in-memory structures of the Universal Host
 * Controller Interface, following the Intel "Universal Host Controller
 * Interface (UHCI) Design Guide" revision 1.1 (chapter 2: I/O registers;
 * chapter 3: frame list, transfer descriptors, queue heads) and the Intel
 * 82371AB PIIX4 datasheet (section 11.1.5: the USB legacy support register
 * in PCI configuration space). Private to drivers/usb/uhci*.c.
 */
#ifndef DRIVERS_USB_UHCI_REGS_H
#define DRIVERS_USB_UHCI_REGS_H

#include <stdint.h>

/* ---- PCI configuration (PIIX4 11.1) ------------------------------------------------------ */
enum uhci_pci_regs {
	UHCI_PCI_BAR_IO = 4,          /* BAR4 (0x20): the I/O registers, 32 bytes */
	UHCI_PCI_LEGSUP = 0xC0,       /* legacy support register, 16 bits */
};

/* LEGSUP bits. Writing UHCI_LEGSUP_TAKEOVER clears the four trap/SMI status
 * bits (write 1 to clear) and A20 end-of-pass status, and writes 0 to every
 * enable: no SMI on USB interrupt, no port-60/64 keyboard emulation traps. */
enum uhci_legsup_bits {
	UHCI_LEGSUP_TAKEOVER = 0x8F00,   /* status bits 15, 11:8 cleared, every enable off */
	UHCI_LEGSUP_PIRQ_EN = 0x2000,    /* bit 13 USBPIRQDEN: the interrupt goes out on PIRQD */
};

/* ---- I/O registers (design guide 2.1) ----------------------------------------------------- */
enum uhci_io_regs {
	UHCI_USBCMD = 0x00,           /* 16 bits: command */
	UHCI_USBSTS = 0x02,           /* 16 bits: status, write 1 to clear */
	UHCI_USBINTR = 0x04,          /* 16 bits: interrupt enables */
	UHCI_FRNUM = 0x06,            /* 16 bits: frame number (bits 10:0 index the list) */
	UHCI_FRBASEADD = 0x08,        /* 32 bits: frame list base, 4 KiB aligned */
	UHCI_SOFMOD = 0x0C,           /* 8 bits: start-of-frame timing */
	UHCI_PORTSC0 = 0x10,          /* 16 bits each, port n at 0x10 + 2n */
	UHCI_IO_MIN_SIZE = 0x14,      /* registers up to two ports */
};

enum uhci_cmd_bits {
	UHCI_CMD_RS = 1u << 0,        /* run/stop: the schedule runs */
	UHCI_CMD_HCRESET = 1u << 1,   /* host controller reset; clears itself when done */
	UHCI_CMD_GRESET = 1u << 2,    /* global reset: USB reset on every port while set */
	UHCI_CMD_EGSM = 1u << 3,      /* enter global suspend */
	UHCI_CMD_FGR = 1u << 4,       /* force global resume */
	UHCI_CMD_SWDBG = 1u << 5,     /* software debug (single step) */
	UHCI_CMD_CF = 1u << 6,        /* configure flag: software owns the controller */
	UHCI_CMD_MAXP = 1u << 7,      /* 64-byte full-speed bandwidth reclamation packets */
};

enum uhci_sts_bits {
	UHCI_STS_USBINT = 1u << 0,    /* a TD with IOC completed, or a short packet (SPD) */
	UHCI_STS_ERROR = 1u << 1,     /* a transaction ended in error (USBERRINT) */
	UHCI_STS_RD = 1u << 2,        /* resume detect */
	UHCI_STS_HSE = 1u << 3,       /* host system error: PCI problem; the controller halts */
	UHCI_STS_HCPE = 1u << 4,      /* host controller process error: bad schedule; halts */
	UHCI_STS_HALTED = 1u << 5,    /* the controller has stopped */
	/* What raises our interrupt: USBINTR enables USBINT and ERROR; HSE and HCPE always do.
	 * RD is not enabled, so it is never ours to claim. */
	UHCI_STS_OURS = UHCI_STS_USBINT | UHCI_STS_ERROR | UHCI_STS_HSE | UHCI_STS_HCPE,
	UHCI_STS_CLEAR_ALL = 0x3F,
};

enum uhci_intr_bits {
	UHCI_INTR_TOCRC = 1u << 0,    /* time-out / CRC errors */
	UHCI_INTR_RESUME = 1u << 1,   /* resume */
	UHCI_INTR_IOC = 1u << 2,      /* interrupt on complete */
	UHCI_INTR_SP = 1u << 3,       /* short packet */
};

enum uhci_portsc_bits {
	UHCI_PORT_CCS = 1u << 0,      /* current connect status */
	UHCI_PORT_CSC = 1u << 1,      /* connect status change, write 1 to clear */
	UHCI_PORT_PED = 1u << 2,      /* port enabled */
	UHCI_PORT_PEDC = 1u << 3,     /* port enable change, write 1 to clear */
	UHCI_PORT_LINE = 3u << 4,     /* line status D+/D- */
	UHCI_PORT_RD = 1u << 6,       /* resume detect */
	UHCI_PORT_VALID = 1u << 7,    /* reserved, always reads 1: a port exists here */
	UHCI_PORT_LSDA = 1u << 8,     /* a low-speed device is attached */
	UHCI_PORT_PR = 1u << 9,       /* port reset */
	UHCI_PORT_SUSP = 1u << 12,    /* suspend */
	/* Bits a read-modify-write keeps; the write-1-to-clear ones are added on purpose only. */
	UHCI_PORT_RW = UHCI_PORT_PED | UHCI_PORT_RD | UHCI_PORT_PR | UHCI_PORT_SUSP,
	UHCI_PORT_W1C = UHCI_PORT_CSC | UHCI_PORT_PEDC,
};

enum uhci_frame_list {
	UHCI_FRAMES = 1024,           /* entries of the frame list (4 KiB) */
	UHCI_FRAME_LIST_ALIGN = 4096,
	UHCI_FRNUM_MASK = 0x7FF,      /* FRNUM bits 10:0 */
	UHCI_SOFMOD_DEFAULT = 64,     /* 12000 bit times per frame: exactly 1 ms */
};

/* ---- Link pointers (frame list entries, TD and QH links; design guide 3.1-3.3) ---------------- */
enum uhci_link_bits {
	UHCI_LINK_TERMINATE = 1u << 0, /* T: nothing follows */
	UHCI_LINK_QH = 1u << 1,        /* Q: the pointer is to a queue head (else a TD) */
	UHCI_LINK_DEPTH = 1u << 2,     /* Vf (TD links): go on down this queue in the same frame */
	UHCI_LINK_PTR_MASK = 0xFFFFFFF0u,
};

/* ---- Transfer descriptor (design guide 3.2) ------------------------------------------------------ */
enum uhci_td_ctrl_bits {
	UHCI_TD_ACTLEN_MASK = 0x7FF,   /* actual length - 1 (0x7FF: nothing) */
	UHCI_TD_BITSTUFF = 1u << 17,   /* bit stuff error */
	UHCI_TD_CRC_TIMEOUT = 1u << 18,/* CRC error or no handshake in time */
	UHCI_TD_NAK = 1u << 19,        /* a NAK was received (not an error) */
	UHCI_TD_BABBLE = 1u << 20,     /* the device sent more than asked */
	UHCI_TD_DBE = 1u << 21,        /* data buffer error (the controller could not keep up) */
	UHCI_TD_STALLED = 1u << 22,    /* STALL, or any error that exhausted the error counter */
	UHCI_TD_ACTIVE = 1u << 23,     /* to be executed */
	UHCI_TD_IOC = 1u << 24,        /* interrupt on complete */
	UHCI_TD_ISO = 1u << 25,        /* isochronous */
	UHCI_TD_LS = 1u << 26,         /* low-speed device */
	UHCI_TD_CERR_3 = 3u << 27,     /* error counter: three tries before stalling */
	UHCI_TD_SPD = 1u << 29,        /* short packet detect: a short IN stops the queue */
	UHCI_TD_ERRORS = UHCI_TD_BITSTUFF | UHCI_TD_CRC_TIMEOUT | UHCI_TD_BABBLE | UHCI_TD_DBE |
			 UHCI_TD_STALLED,
};

enum uhci_td_token {
	UHCI_PID_SETUP = 0x2D,
	UHCI_PID_IN = 0x69,
	UHCI_PID_OUT = 0xE1,
	UHCI_TOKEN_ADDR_SHIFT = 8,     /* device address, bits 14:8 */
	UHCI_TOKEN_EP_SHIFT = 15,      /* endpoint, bits 18:15 */
	UHCI_TOKEN_TOGGLE = 1u << 19,  /* DATA1 (else DATA0) */
	UHCI_TOKEN_MAXLEN_SHIFT = 21,  /* max length - 1, bits 31:21 (0x7FF: zero-length) */
	UHCI_LEN_NONE = 0x7FF,         /* encoding of zero bytes in MaxLen and ActLen */
};

/* A TD: 16 bytes the controller reads and writes, then 16 of ours. 16-byte aligned. */
struct uhci_td {
	volatile uint32_t link;
	volatile uint32_t ctrl;
	volatile uint32_t token;
	volatile uint32_t buffer;
	/* Software. */
	struct uhci_td *next;          /* next TD of the same transfer */
	uint16_t len;                  /* bytes this TD may move */
	uint8_t pid;
	uint8_t flags;                 /* UHCI_TDF_* (uhci.c) */
	uint32_t reserved[2];
} __attribute__((aligned(16)));

/* A QH: horizontal link and element link, then ours. 16-byte aligned. */
struct uhci_qh {
	volatile uint32_t link;
	volatile uint32_t element;
	/* Software. */
	void *owner;                   /* interrupt pipe, or NULL for skeleton/async QHs */
	uint32_t in_use;
} __attribute__((aligned(16)));

#if UINTPTR_MAX == 0xFFFFFFFFu   /* the kernel; host tests have wider pointers in the software part */
_Static_assert(sizeof(struct uhci_td) == 32, "uhci_td must be 32 bytes (16-byte aligned pool)");
_Static_assert(sizeof(struct uhci_qh) == 16, "uhci_qh must be 16 bytes");
#endif

#endif /* DRIVERS_USB_UHCI_REGS_H */
