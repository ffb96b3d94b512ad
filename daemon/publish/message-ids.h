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
/* trust: a matching container that may not give us kernel code */
#define SWAPGUARD_MESSAGE_CONTAINER_REFUSED "fd5fb014bc8b4c0199cdd59500d8f8b6"
/* The pin (swap/pin-report.c). */
#define SWAPGUARD_MESSAGE_PINNED           "a4e7c19ea7fa4bbda25cd3fc5b2dd7cf"
#define SWAPGUARD_MESSAGE_UNPINNED         "0b9d1b06c37c408593b8bb66ca442675"
#define SWAPGUARD_MESSAGE_PIN_PROBLEM      "57288b6f2d4d4a92807f04f728fc4259"
#define SWAPGUARD_MESSAGE_PIN_BLOCKS_DRIVER "4706cc61103247d4bfb4e6dc8c3f3de3"

/* The driver container's whole life. */
#define SWAPGUARD_MESSAGE_EARLIER_BUILD          "d3322a26406e4cb0a41aa7fb1159b157"
#define SWAPGUARD_MESSAGE_EARLIER_BUILD_BLOCKED  "adbd67853e784137868988641d7019cc"
#define SWAPGUARD_MESSAGE_STACK_BROKEN           "a81ba0c10e82421d97e29bd6c629dd9a"
/* A broken stack whose repair would take out a module in use: not repaired, waited on. */
#define SWAPGUARD_MESSAGE_STACK_BROKEN_IN_USE    "df719088268a49d38fced14e4b4783e8"
/* UnloadAt=auto: the moment chosen for a driver container, and why. */
#define SWAPGUARD_MESSAGE_UNLOAD_MOMENT          "30f9407160bf46d9b71c7e43ec5a09cb"
#define SWAPGUARD_MESSAGE_NO_BUILD               "dabe24b8d8c343048eb79349235b3955"
#define SWAPGUARD_MESSAGE_READY_STALE            "da64cc3df69d42e9a148cb5be8ac23b1"
#define SWAPGUARD_MESSAGE_ENV_NO_NFSRDMA         "054b86adf25a4f10a662535e9e900ff9"
#define SWAPGUARD_MESSAGE_ENV_NVME_RDMA_SKIPPED  "88992d461a1f47e5981061c49350866f"
#define SWAPGUARD_MESSAGE_ENV_RESTORE_ON_STOP    "e7c24561f9fd4c49a33364b9bd68e42f"
#define SWAPGUARD_MESSAGE_ENV_ASSUMED            "b04f49eafd25476a88a3ebd98a66aad2"
#define SWAPGUARD_MESSAGE_GDS_GENERATION         "47164c2a2fe04b3884cd7ef0c9273611"

/* Mode=observe: what an observing node would do. */
#define SWAPGUARD_MESSAGE_MODE                   "b2e45a2e64314c86be896e05b361ebb8"
#define SWAPGUARD_MESSAGE_WOULD_UNLOAD           "bd1424dce765462cb9474e8320270a45"
#define SWAPGUARD_MESSAGE_WOULD_REFUSE           "bc48985a4fb9495b8a0c188ecbb629bc"
#define SWAPGUARD_MESSAGE_WOULD_LOAD             "ee696b163748439c9b124d18ee368dc3"
#define SWAPGUARD_MESSAGE_WOULD_RESTORE          "b7923664260f48399fd3e76fbfe82fd9"
/* The pod's end (swap/pod-end.c). */
#define SWAPGUARD_MESSAGE_POD_END_BUILD_STAYS    "0122ca423e844086b82259791e4cd8d0"
#define SWAPGUARD_MESSAGE_POD_END_TAKE_BACK      "143e096990b049cdbf61c0fd633db3f8"
#define SWAPGUARD_MESSAGE_POD_END_RESTORED       "2f196a6be30a4229ac05caa9322f6a37"
/* NVMe over Fabrics across the swap (swap/swap-fabrics.c). */
#define SWAPGUARD_MESSAGE_FABRICS_DROP           "3e7d56b3e107443d94539a8b86848780"
#define SWAPGUARD_MESSAGE_FABRICS_RECONNECTED    "6cb81c07790f45d5888c8cc768ad5921"
#define SWAPGUARD_MESSAGE_FABRICS_LOST           "98602a2a4eb24d3d9c5ea421a33e2210" /* given up */
#define SWAPGUARD_MESSAGE_FABRICS_PENDING        "0840d35ab20f4e1c8d7f638a5d68b9ad"
#define SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED    "e55a607a64cb44b49f39aaa28ab948e6"
#define SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT   "ec4b0c9739fb480e85cdd1a704bae1aa"
