/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* MESSAGE_ID of each kind of journal entry the daemon writes. Fixed forever:
 * operators filter on them (journalctl MESSAGE_ID=...), and
 * catalog/nvme-swapguard.catalog explains each one (journalctl -x). */

#define SWAPGUARD_MESSAGE_STARTED          "fd9558e733a44111a11b09d75cc33139"
#define SWAPGUARD_MESSAGE_CONTAINER_SEEN   "65fb38831d464932bb13eadfbcd9e069"
#define SWAPGUARD_MESSAGE_UNLOADED         "5f9add5ec6ba4bceb08dd44a1496e973"
#define SWAPGUARD_MESSAGE_BLOCKED          "d26a0597308b450481324cf4e89b659b"
#define SWAPGUARD_MESSAGE_SWAPPED          "d52b71b7f0f044ca8ed598ab2090efd0"
#define SWAPGUARD_MESSAGE_NAMESPACES_BACK  "52dbe424ed6d480e8402dfc529557c39"
#define SWAPGUARD_MESSAGE_RESTORED         "bf54ca7d2bec4edaa11caff4a4613f1a"
#define SWAPGUARD_MESSAGE_FAILED           "f52b7f6f00e0428aa7aedd0840ea6eb4"
#define SWAPGUARD_MESSAGE_RELOAD_DETECTED  "33be6ddb5194470aa0a57242da70fff5"
#define SWAPGUARD_MESSAGE_CONFIG_INVALID   "fe059e9bddeb411f9d74061da2390426"
#define SWAPGUARD_MESSAGE_STOP_RESTORED    "7bc368d6005b4d99b5e15d0902c4c229"
/* trust (issue 10): a matching container that may not give us kernel code */
#define SWAPGUARD_MESSAGE_CONTAINER_REFUSED "fd5fb014bc8b4c0199cdd59500d8f8b6"
/* The pin (pin-holder.c). */
#define SWAPGUARD_MESSAGE_PINNED           "a4e7c19ea7fa4bbda25cd3fc5b2dd7cf"
#define SWAPGUARD_MESSAGE_UNPINNED         "0b9d1b06c37c408593b8bb66ca442675"
#define SWAPGUARD_MESSAGE_PIN_PROBLEM      "57288b6f2d4d4a92807f04f728fc4259"
#define SWAPGUARD_MESSAGE_PIN_BLOCKS_DRIVER "4706cc61103247d4bfb4e6dc8c3f3de3"
