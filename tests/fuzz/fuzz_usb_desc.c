/*
 * fuzz_usb_desc.c - libFuzzer target for drivers/usb/usb_desc.c: the input
 * is a configuration descriptor set as a device would send it, and its
 * first 18 bytes are also tried as a device descriptor. Besides the
 * sanitizers, it checks what the parser promises: on failure nothing is
 * described and a reason is given; on success every kept interface and
 * endpoint obeys the limits and rules of include/drivers/usb.h.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <drivers/usb.h>

#define WHY_LEN 96

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usb_config cfg;
	struct usb_device_desc dd;
	char why[WHY_LEN];
	uint8_t *copy = malloc(size ? size : 1);   /* exact size: ASan sees any over-read */

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (usb_parse_config(copy, size, &cfg, why, sizeof(why)) != 0) {
		if (cfg.num_interfaces != 0 || cfg.value != 0 || why[0] == 0)
			abort();
	} else {
		if (cfg.num_interfaces == 0 || cfg.num_interfaces > USB_MAX_INTERFACES || cfg.value == 0 ||
		    cfg.total_length > size)
			abort();
		for (unsigned int i = 0; i < cfg.num_interfaces; i++) {
			const struct usb_interface *intf = &cfg.intf[i];

			if (intf->num_endpoints > USB_MAX_ENDPOINTS)
				abort();
			for (unsigned int e = 0; e < intf->num_endpoints; e++) {
				const struct usb_endpoint *ep = &intf->ep[e];

				if ((ep->address & 0x0F) == 0 || (ep->address & 0x70) || ep->max_packet == 0 ||
				    ep->max_packet > 64 || ep->type == USB_EP_CONTROL || ep->type == USB_EP_ISOCHRONOUS)
					abort();
			}
		}
	}
	if (strnlen(why, sizeof(why)) >= sizeof(why))
		abort();
	memset(&dd, 0, sizeof(dd));
	memcpy(&dd, copy, size < sizeof(dd) ? size : sizeof(dd));
	if (usb_check_device_desc(&dd, size < sizeof(dd) ? size : sizeof(dd), why, sizeof(why)) == 0 &&
	    (dd.max_packet0 < 8 || dd.num_configurations == 0))
		abort();
	free(copy);
	return 0;
}
