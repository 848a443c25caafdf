/*
 * ata_regs.h - registers, bits and commands of parallel ATA/ATAPI devices
 * as drivers/ata uses them. Private to drivers/ata.
 *
 * Sources: ATA/ATAPI-6 (T13 1410D rev. 3b) volume 1 section 7 (registers)
 * and section 9 (protocols), ATA8-ACS (T13 1699-D) for the command codes,
 * SFF-8038i rev. 1.0 (bus-master IDE status), the PCI IDE Controller
 * Specification rev. 1.0 (programming interface, native-mode BARs), and
 * SPC-3 / MMC-5 for the packet commands and sense codes of ATAPI devices.
 */
#ifndef DRIVERS_ATA_REGS_H
#define DRIVERS_ATA_REGS_H

/* ---- Legacy ("compatibility mode") channel resources (PCI IDE spec 1.0, table 2) ---- */
#define ATA_LEGACY_CMD_PRIMARY    0x1F0  /* command block of the primary channel */
#define ATA_LEGACY_CTL_PRIMARY    0x3F6  /* its control block: alternate status / device control */
#define ATA_LEGACY_IRQ_PRIMARY    14     /* its ISA IRQ */
#define ATA_LEGACY_CMD_SECONDARY  0x170
#define ATA_LEGACY_CTL_SECONDARY  0x376
#define ATA_LEGACY_IRQ_SECONDARY  15

/* ---- Command block registers: offsets from the command block base ---- */
#define ATA_REG_DATA       0   /* 16-bit PIO data */
#define ATA_REG_ERROR      1   /* read: error */
#define ATA_REG_FEATURES   1   /* write: features (ATAPI: bit 0 = DMA) */
#define ATA_REG_COUNT      2   /* sector count; ATAPI read: interrupt reason */
#define ATA_REG_LBA_LOW    3   /* LBA 7:0 (and 31:24 as the HOB byte of LBA48) */
#define ATA_REG_LBA_MID    4   /* LBA 15:8 (39:32); ATAPI: byte count 7:0 */
#define ATA_REG_LBA_HIGH   5   /* LBA 23:16 (47:40); ATAPI: byte count 15:8 */
#define ATA_REG_DEVICE     6   /* device select, LBA mode, LBA 27:24 */
#define ATA_REG_STATUS     7   /* read: status (clears a pending INTRQ) */
#define ATA_REG_COMMAND    7   /* write: command (starts it) */

/* The control block register is one port: alternate status (read) / device control (write). */

/* ---- Status (and alternate status) bits ---- */
#define ATA_SR_ERR   0x01  /* error (ATAPI: CHK, check condition); details in ERROR */
#define ATA_SR_DRQ   0x08  /* data request: the device wants a data block moved */
#define ATA_SR_DSC   0x10  /* seek complete / service (obsolete, informative) */
#define ATA_SR_DF    0x20  /* device fault */
#define ATA_SR_DRDY  0x40  /* device ready to accept commands */
#define ATA_SR_BSY   0x80  /* busy: every other bit is meaningless while set */
#define ATA_SR_FLOATING 0xFF /* what an undriven bus reads: no device on the channel */

/* ---- Error register bits (ATA commands) ---- */
#define ATA_ER_AMNF  0x01  /* address mark not found (obsolete) */
#define ATA_ER_NM    0x02  /* no medium (removable media feature set) */
#define ATA_ER_ABRT  0x04  /* command aborted: unsupported, bad parameter, or not possible */
#define ATA_ER_MCR   0x08  /* medium change request */
#define ATA_ER_IDNF  0x10  /* address not found: the LBA is not on the medium */
#define ATA_ER_MC    0x20  /* medium changed */
#define ATA_ER_UNC   0x40  /* uncorrectable data error */
#define ATA_ER_ICRC  0x80  /* interface CRC error (Ultra DMA) */

/* ---- Error register of a PACKET command with CHK set (ATA/ATAPI-6 9.10) ---- */
#define ATAPI_ER_SENSE_SHIFT 4     /* bits 7:4: sense key */
#define ATAPI_ER_SENSE_MASK  0xF0

/* ---- Device register ---- */
#define ATA_DEV_OBSOLETE   0xA0  /* bits 7 and 5: set by convention (old drives need them) */
#define ATA_DEV_LBA        0x40  /* the address is an LBA (not CHS) */
#define ATA_DEV_SLAVE      0x10  /* DEV bit: device 1 */
#define ATA_DEV_LBA28_HIGH 0x0F  /* bits 3:0: LBA 27:24 in 28-bit commands */

/* ---- Device control register ---- */
#define ATA_CTL_NIEN  0x02  /* interrupt disable: the device does not assert INTRQ */
#define ATA_CTL_SRST  0x04  /* software reset of both devices on the channel */
#define ATA_CTL_HOB   0x80  /* read back the high-order bytes of LBA48 registers */

/* ---- ATAPI interrupt reason (count register while a PACKET command runs) ---- */
#define ATAPI_IR_COD  0x01  /* 1 = command packet / status, 0 = user data */
#define ATAPI_IR_IO   0x02  /* 1 = to the host, 0 = to the device */

/* ---- Signatures in LBA mid/high after reset or a refused IDENTIFY (ATA/ATAPI-6 9.12) ---- */
#define ATA_SIG_ATA_MID     0x00
#define ATA_SIG_ATA_HIGH    0x00
#define ATA_SIG_ATAPI_MID   0x14
#define ATA_SIG_ATAPI_HIGH  0xEB
#define ATA_SIG_SATA_MID    0x3C  /* SATA disk behind a legacy-mode controller */
#define ATA_SIG_SATA_HIGH   0xC3
#define ATA_SIG_SATAPI_MID  0x69  /* SATA packet device */
#define ATA_SIG_SATAPI_HIGH 0x96
#define ATA_SIG_NONE        0xFF  /* QEMU (and floating buses) for an absent device */

/* ---- Commands (ATA8-ACS) ---- */
#define ATA_CMD_DEVICE_RESET       0x08  /* ATAPI only */
#define ATA_CMD_READ_SECTORS       0x20
#define ATA_CMD_READ_SECTORS_EXT   0x24
#define ATA_CMD_READ_MULTIPLE_EXT  0x29
#define ATA_CMD_WRITE_SECTORS      0x30
#define ATA_CMD_WRITE_SECTORS_EXT  0x34
#define ATA_CMD_WRITE_MULTIPLE_EXT 0x39
#define ATA_CMD_PACKET             0xA0
#define ATA_CMD_IDENTIFY_PACKET    0xA1
#define ATA_CMD_READ_MULTIPLE      0xC4
#define ATA_CMD_WRITE_MULTIPLE     0xC5
#define ATA_CMD_SET_MULTIPLE       0xC6
#define ATA_CMD_FLUSH_CACHE        0xE7
#define ATA_CMD_IDENTIFY           0xEC
#define ATA_CMD_FLUSH_CACHE_EXT    0xEA

/* ---- Bus-master IDE registers (SFF-8038i), offsets from the channel's BM base ---- */
#define ATA_BM_STATUS      2     /* bus-master status register */
#define ATA_BM_ST_INTR     0x04  /* the device asserted INTRQ (write 1 to clear) */
#define ATA_BM_ST_DMA_CAP  0x60  /* drive 0/1 DMA capable: read/write, keep as found */
#define ATA_BM_CHANNEL_STRIDE 8  /* the secondary channel's registers follow the primary's */

/* ---- PCI IDE programming interface (PCI IDE Controller Specification 1.0, section 2) ---- */
#define ATA_PROGIF_PRIMARY_NATIVE    0x01  /* primary channel in PCI native mode */
#define ATA_PROGIF_SECONDARY_NATIVE  0x04  /* secondary channel in PCI native mode */
#define ATA_PROGIF_BUS_MASTER        0x80  /* bus-master IDE registers at BAR4 */
#define ATA_NATIVE_CTL_OFFSET        2     /* alternate status within the control-block BAR */
#define ATA_BAR_BUS_MASTER           4     /* BAR of the bus-master registers */

/* ---- IDENTIFY (PACKET) DEVICE data, word numbers (ATA8-ACS table 20 / 21) ---- */
#define ATA_ID_CONFIG          0    /* general configuration */
#define ATA_ID_SERIAL          10   /* 20 ASCII characters, words 10-19 */
#define ATA_ID_SERIAL_WORDS    10
#define ATA_ID_FIRMWARE        23   /* 8 characters, words 23-26 */
#define ATA_ID_FIRMWARE_WORDS  4
#define ATA_ID_MODEL           27   /* 40 characters, words 27-46 */
#define ATA_ID_MODEL_WORDS     20
#define ATA_ID_MULTIPLE_MAX    47   /* bits 7:0: most sectors per READ/WRITE MULTIPLE block */
#define ATA_ID_CAPABILITIES    49   /* bit 9: LBA supported */
#define ATA_ID_MULTIPLE_CUR    59   /* bit 8: setting valid, bits 7:0: current setting */
#define ATA_ID_LBA28_SECTORS   60   /* words 60-61: user-addressable sectors, 28-bit */
#define ATA_ID_COMMAND_SET_2   83   /* bit 10: 48-bit addresses, 12: FLUSH CACHE, 13: FLUSH CACHE EXT */
#define ATA_ID_COMMAND_ENABLED_2 86 /* the same bits: enabled */
#define ATA_ID_LBA48_SECTORS   100  /* words 100-103: user-addressable sectors, 48-bit */
#define ATA_ID_SECTOR_SIZE     106  /* bit 14 set, 15 clear: valid; bit 12: sectors longer than 256 words */
#define ATA_ID_INTEGRITY       255  /* bits 7:0 0xA5: bits 15:8 make the byte sum 0 */
#define ATA_ID_WORDS           256

#define ATA_ID_CONFIG_NOT_ATA      0x8000 /* word 0 bit 15: not an ATA device */
#define ATA_ID_CONFIG_ATAPI_MASK   0xC000 /* word 0 bits 15:14 = 10: ATAPI */
#define ATA_ID_CONFIG_ATAPI        0x8000
#define ATA_ID_CONFIG_REMOVABLE    0x0080 /* bit 7: removable media */
#define ATA_ID_CONFIG_TYPE_SHIFT   8      /* ATAPI bits 12:8: SCSI peripheral device type */
#define ATA_ID_CONFIG_TYPE_MASK    0x1F
#define ATA_ID_CONFIG_PACKET_MASK  0x0003 /* ATAPI bits 1:0: 00 = 12-byte packets */
#define ATA_ID_CAP_LBA             0x0200
#define ATA_ID_MULTIPLE_MASK       0x00FF
#define ATA_ID_MULTIPLE_VALID      0x0100
#define ATA_ID_CMD2_VALID_MASK     0xC000 /* words 83/86 bits 15:14 = 01: the word is valid */
#define ATA_ID_CMD2_VALID          0x4000
#define ATA_ID_CMD2_LBA48          0x0400
#define ATA_ID_CMD2_FLUSH          0x1000
#define ATA_ID_CMD2_FLUSH_EXT      0x2000
#define ATA_ID_SECSIZE_VALID_MASK  0xC000
#define ATA_ID_SECSIZE_VALID       0x4000
#define ATA_ID_SECSIZE_LONG        0x1000
#define ATA_ID_INTEGRITY_SIGNATURE 0xA5

/* ---- Packet commands (SPC-3, MMC-5) and sense data ---- */
#define ATAPI_PACKET_BYTES     12    /* word 0 bits 1:0 = 00 */
#define SCSI_TEST_UNIT_READY   0x00
#define SCSI_REQUEST_SENSE     0x03
#define SCSI_READ_CAPACITY_10  0x25
#define SCSI_READ_10           0x28
#define SCSI_WRITE_10          0x2A
#define SCSI_SENSE_BYTES       18    /* fixed-format sense data asked for */
#define SCSI_SENSE_KEY_BYTE    2     /* bits 3:0 */
#define SCSI_SENSE_KEY_MASK    0x0F
#define SCSI_SENSE_ASC_BYTE    12
#define SCSI_SENSE_ASCQ_BYTE   13
#define SCSI_CAPACITY_BYTES    8     /* last LBA (BE32), block length (BE32) */
#define SCSI_TYPE_CDROM        0x05  /* peripheral device type: CD/DVD */

/* Sense keys (SPC-3 table 27). */
#define SENSE_NO_SENSE        0x0
#define SENSE_RECOVERED_ERROR 0x1
#define SENSE_NOT_READY       0x2
#define SENSE_MEDIUM_ERROR    0x3
#define SENSE_HARDWARE_ERROR  0x4
#define SENSE_ILLEGAL_REQUEST 0x5
#define SENSE_UNIT_ATTENTION  0x6
#define SENSE_DATA_PROTECT    0x7
#define SENSE_ABORTED_COMMAND 0xB

/* Additional sense codes used by name (SPC-3 annex D). */
#define ASC_INVALID_OPCODE        0x20
#define ASC_LBA_OUT_OF_RANGE      0x21
#define ASC_INVALID_FIELD_IN_CDB  0x24
#define ASC_WRITE_PROTECTED       0x27
#define ASC_MEDIUM_MAY_HAVE_CHANGED 0x28
#define ASC_POWER_ON_RESET        0x29
#define ASC_MEDIUM_NOT_PRESENT    0x3A
#define ASC_INCOMPATIBLE_MEDIUM   0x30
#define ASC_UNRECOVERED_READ      0x11
#define ASC_NOT_READY_BECOMING    0x04  /* with ASCQ 01: becoming ready */

#endif /* DRIVERS_ATA_REGS_H */
