/*
 * ahci_regs.h - registers, bits and in-memory structures of an AHCI host
 * bus adapter (Serial ATA AHCI 1.3.1, Intel) as drivers/ata/ahci*.c use
 * them. Private to drivers/ata. Section numbers are the AHCI 1.3.1 ones;
 * FIS layouts are Serial ATA 3.x section 10.5. ATA command codes and
 * status/error bits are shared with the PIO driver (ata_regs.h).
 */
#ifndef DRIVERS_AHCI_REGS_H
#define DRIVERS_AHCI_REGS_H

#include <stdint.h>

/* ---- PCI (AHCI 1.3.1 section 2) ---- */
#define AHCI_PROGIF               0x01   /* class 01/06 prog-if 01: AHCI 1.0 */
#define AHCI_BAR_ABAR             5      /* ABAR: the HBA's memory registers */
#define AHCI_ABAR_MIN_SIZE        0x180  /* generic registers + one port (0x100 + 0x80) */

/* ---- Generic host control (section 3.1), offsets from ABAR ---- */
#define AHCI_CAP     0x00  /* host capabilities */
#define AHCI_GHC     0x04  /* global host control */
#define AHCI_IS      0x08  /* interrupt status: one bit per port (write 1 to clear) */
#define AHCI_PI      0x0C  /* ports implemented */
#define AHCI_VS      0x10  /* version (major 31:16, minor 15:0) */
#define AHCI_CAP2    0x24  /* host capabilities extended */
#define AHCI_BOHC    0x28  /* BIOS/OS handoff control and status */

#define AHCI_CAP_NP_MASK     0x1Fu        /* number of ports - 1 */
#define AHCI_CAP_NCS_SHIFT   8            /* number of command slots - 1, bits 12:8 */
#define AHCI_CAP_NCS_MASK    0x1Fu
#define AHCI_CAP_SSS         (1u << 27)   /* supports staggered spin-up (PxCMD.SUD) */
#define AHCI_CAP_SAM         (1u << 18)   /* AHCI mode only (GHC.AE read-only 1) */
#define AHCI_CAP_S64A        (1u << 31)   /* 64-bit addressing (we use 32-bit addresses) */

#define AHCI_GHC_HR          (1u << 0)    /* HBA reset; reads 1 until done */
#define AHCI_GHC_IE          (1u << 1)    /* interrupt enable (the whole HBA) */
#define AHCI_GHC_AE          (1u << 31)   /* AHCI enable (else legacy mode) */

#define AHCI_CAP2_BOH        (1u << 0)    /* BIOS/OS handoff supported */
#define AHCI_BOHC_BOS        (1u << 0)    /* BIOS owned semaphore */
#define AHCI_BOHC_OOS        (1u << 1)    /* OS owned semaphore */
#define AHCI_BOHC_BB         (1u << 4)    /* BIOS busy: cleaning up, wait longer */

/* ---- Port registers (section 3.3): port n at 0x100 + n * 0x80 ---- */
#define AHCI_PORT_BASE       0x100
#define AHCI_PORT_STRIDE     0x80
#define AHCI_MAX_PORTS       32

#define AHCI_PxCLB   0x00  /* command list base (1 KiB aligned) */
#define AHCI_PxCLBU  0x04  /* ... upper 32 bits */
#define AHCI_PxFB    0x08  /* FIS receive base (256-byte aligned) */
#define AHCI_PxFBU   0x0C
#define AHCI_PxIS    0x10  /* interrupt status (write 1 to clear) */
#define AHCI_PxIE    0x14  /* interrupt enable */
#define AHCI_PxCMD   0x18  /* command and status */
#define AHCI_PxTFD   0x20  /* task file data: status 7:0, error 15:8 */
#define AHCI_PxSIG   0x24  /* signature from the device's first D2H FIS */
#define AHCI_PxSSTS  0x28  /* SStatus: DET, SPD, IPM */
#define AHCI_PxSCTL  0x2C  /* SControl: DET = 1 sends COMRESET */
#define AHCI_PxSERR  0x30  /* SError (write 1 to clear) */
#define AHCI_PxSACT  0x34  /* NCQ tags outstanding */
#define AHCI_PxCI    0x38  /* command issue: one bit per slot, cleared by the HBA when done */

/* PxIS / PxIE bits (section 3.3.5 / 3.3.6). */
#define AHCI_PxIS_DHRS  (1u << 0)   /* device to host register FIS received (I bit) */
#define AHCI_PxIS_PSS   (1u << 1)   /* PIO setup FIS received (I bit) */
#define AHCI_PxIS_DSS   (1u << 2)   /* DMA setup FIS received */
#define AHCI_PxIS_SDBS  (1u << 3)   /* set device bits FIS received */
#define AHCI_PxIS_UFS   (1u << 4)   /* unknown FIS */
#define AHCI_PxIS_DPS   (1u << 5)   /* a PRD with the I bit was processed */
#define AHCI_PxIS_PCS   (1u << 6)   /* port connect change (mirrors SERR.DIAG.X) */
#define AHCI_PxIS_DMPS  (1u << 7)   /* mechanical presence switch */
#define AHCI_PxIS_PRCS  (1u << 22)  /* PhyRdy change (mirrors SERR.DIAG.N) */
#define AHCI_PxIS_IPMS  (1u << 23)  /* incorrect port multiplier status */
#define AHCI_PxIS_OFS   (1u << 24)  /* overflow: the device sent more than the PRDs hold */
#define AHCI_PxIS_INFS  (1u << 26)  /* interface non-fatal error */
#define AHCI_PxIS_IFS   (1u << 27)  /* interface fatal error */
#define AHCI_PxIS_HBDS  (1u << 28)  /* host bus data error */
#define AHCI_PxIS_HBFS  (1u << 29)  /* host bus fatal error (bad DMA address) */
#define AHCI_PxIS_TFES  (1u << 30)  /* task file error: the device set ERR */
#define AHCI_PxIS_CPDS  (1u << 31)  /* cold port detect */
/* Errors that stop the command and need the port restarted (section 6.2.2). */
#define AHCI_PxIS_ERRORS (AHCI_PxIS_UFS | AHCI_PxIS_IPMS | AHCI_PxIS_OFS | AHCI_PxIS_INFS | \
			  AHCI_PxIS_IFS | AHCI_PxIS_HBDS | AHCI_PxIS_HBFS | AHCI_PxIS_TFES)
/* What the driver enables: completions (D2H, PIO setup, SDB, DMA setup) and every error. */
#define AHCI_PxIE_DEFAULT (AHCI_PxIS_DHRS | AHCI_PxIS_PSS | AHCI_PxIS_DSS | AHCI_PxIS_SDBS | \
			   AHCI_PxIS_ERRORS)

/* PxCMD bits (section 3.3.7). */
#define AHCI_PxCMD_ST    (1u << 0)   /* start: the HBA processes the command list */
#define AHCI_PxCMD_SUD   (1u << 1)   /* spin-up device (with CAP.SSS) */
#define AHCI_PxCMD_POD   (1u << 2)   /* power on device (cold presence detect) */
#define AHCI_PxCMD_CLO   (1u << 3)   /* command list override */
#define AHCI_PxCMD_FRE   (1u << 4)   /* FIS receive enable */
#define AHCI_PxCMD_FR    (1u << 14)  /* FIS receive running */
#define AHCI_PxCMD_CR    (1u << 15)  /* command list running */
#define AHCI_PxCMD_ATAPI (1u << 24)  /* the device is an ATAPI device (drives the LED) */

/* PxTFD (section 3.3.8). */
#define AHCI_PxTFD_STS_MASK   0xFFu
#define AHCI_PxTFD_ERR_SHIFT  8

/* PxSSTS / PxSCTL (section 3.3.10 / 3.3.11). */
#define AHCI_SSTS_DET_MASK     0xFu
#define AHCI_SSTS_DET_PRESENT  0x3u   /* device present, PHY communication established */
#define AHCI_SSTS_IPM_SHIFT    8
#define AHCI_SSTS_IPM_MASK     0xFu
#define AHCI_SSTS_IPM_ACTIVE   0x1u
#define AHCI_SSTS_SPD_SHIFT    4
#define AHCI_SSTS_SPD_MASK     0xFu
#define AHCI_SCTL_DET_MASK     0xFu
#define AHCI_SCTL_DET_COMRESET 0x1u   /* hold: send COMRESET until DET goes back to 0 */
#define AHCI_SCTL_IPM_NONE     (0x3u << 8)  /* no partial or slumber transitions */

/* PxSERR (section 3.3.12): error bits 15:0, diagnostics 31:16. */
#define AHCI_SERR_ALL          0xFFFFFFFFu

/* Device signatures in PxSIG (section 3.3.9; SATA 3.x 11.4). */
#define AHCI_SIG_ATA    0x00000101u
#define AHCI_SIG_ATAPI  0xEB140101u
#define AHCI_SIG_SEMB   0xC33C0101u   /* enclosure management bridge */
#define AHCI_SIG_PM     0x96690101u   /* port multiplier */
#define AHCI_SIG_NONE   0xFFFFFFFFu   /* no D2H FIS received yet */

/* ---- Command list (section 4.2.2): 32 headers of 32 bytes ---- */
struct ahci_cmd_header {
	uint32_t flags;      /* CFL 4:0 (FIS length in dwords), A 5, W 6, P 7, R 8, C 10, PRDTL 31:16 */
	volatile uint32_t prdbc;  /* bytes transferred, written by the HBA */
	uint32_t ctba;       /* command table base, 128-byte aligned */
	uint32_t ctbau;
	uint32_t reserved[4];
};
#define AHCI_CH_CFL_MASK     0x1Fu
#define AHCI_CH_ATAPI        (1u << 5)
#define AHCI_CH_WRITE        (1u << 6)   /* host to device */
#define AHCI_CH_PREFETCH     (1u << 7)
#define AHCI_CH_CLEAR_BUSY   (1u << 10)  /* clear busy upon R_OK */
#define AHCI_CH_PRDTL_SHIFT  16
#define AHCI_CMD_LIST_BYTES  1024        /* 32 headers; alignment too */

/* ---- Received FIS area (section 4.2.1): 256 bytes, 256-aligned ---- */
#define AHCI_RFIS_BYTES      256
#define AHCI_RFIS_DSFIS      0x00   /* DMA setup FIS */
#define AHCI_RFIS_PSFIS      0x20   /* PIO setup FIS */
#define AHCI_RFIS_RFIS       0x40   /* D2H register FIS */
#define AHCI_RFIS_SDBFIS     0x58   /* set device bits FIS */

/* ---- Command table (section 4.2.3) ---- */
#define AHCI_CT_CFIS         0x00   /* command FIS, up to 64 bytes */
#define AHCI_CT_ACMD         0x40   /* ATAPI command, 12 or 16 bytes */
#define AHCI_CT_PRDT         0x80   /* physical region descriptor table */
#define AHCI_CT_ALIGN        128
#define AHCI_ACMD_BYTES      16

struct ahci_prd {
	uint32_t dba;        /* data base address; bit 0 must be 0 (word aligned) */
	uint32_t dbau;
	uint32_t reserved;
	uint32_t dbc;        /* byte count - 1 in 21:0 (bit 0 set: even counts); I bit 31 */
};
#define AHCI_PRD_DBC_MASK    0x3FFFFFu
#define AHCI_PRD_BYTES_MAX   (4u << 20)  /* 4 MiB per entry */
#define AHCI_PRD_I           (1u << 31)

/* ---- FIS (Serial ATA 3.x 10.5) ---- */
#define FIS_TYPE_REG_H2D     0x27
#define FIS_TYPE_REG_D2H     0x34
#define FIS_H2D_BYTES        20
#define FIS_H2D_DWORDS       5
#define FIS_H2D_C            0x80   /* byte 1: the FIS carries a command */
/* H2D register FIS bytes. */
enum fis_h2d_byte {
	FIS_TYPE = 0, FIS_FLAGS = 1, FIS_COMMAND = 2, FIS_FEATURES = 3,
	FIS_LBA0 = 4, FIS_LBA1 = 5, FIS_LBA2 = 6, FIS_DEVICE = 7,
	FIS_LBA3 = 8, FIS_LBA4 = 9, FIS_LBA5 = 10, FIS_FEATURES_EXP = 11,
	FIS_COUNT = 12, FIS_COUNT_EXP = 13, FIS_ICC = 14, FIS_CONTROL = 15,
};
/* D2H register FIS: byte 2 status, byte 3 error. */
#define FIS_D2H_STATUS       2
#define FIS_D2H_ERROR        3

/* ---- ATA commands AHCI uses beyond ata_regs.h's (ATA8-ACS) ---- */
#define ATA_CMD_READ_DMA_EXT   0x25
#define ATA_CMD_WRITE_DMA_EXT  0x35
#define ATA_CMD_READ_DMA       0xC8
#define ATA_CMD_WRITE_DMA      0xCA
#define ATAPI_FEATURE_DMA      0x01   /* PACKET features bit 0: data by DMA */

#endif /* DRIVERS_AHCI_REGS_H */
