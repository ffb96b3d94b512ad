/* SPDX-License-Identifier: Apache-2.0 */
/* The pure parts of the fabrics support: the kernel's attribute formats,
 * the connect option string, the connect reply, the record's JSON (round
 * trip and bad input named by field), the describer and the report lines. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-options.h"
#include "actions/fabrics-pass.h"
#include "host/host-root.h"
#include "host/kernel-log.h"
#include "nvme/fabrics-json.h"
#include "nvme/fabrics-record-json.h"
#include "nvme/fabrics-record.h"
#include "report/fabrics-report.h"
#include "util/strv.h"

static FabricsController *tcp_controller(FabricsTopology *t) {
        FabricsController *c = fabrics_topology_add_controller(t);
        FabricsNamespace *n;

        cr_assert_not_null(c);
        c->name = strdup("nvme1");
        c->transport = strdup("tcp");
        c->traddr = strdup("127.0.0.1");
        c->trsvcid = strdup("4420");
        c->subsysnqn = strdup("nqn.2026-12.test:sub");
        c->hostnqn = strdup("nqn.2014-08.org.nvmexpress:uuid:1234");
        c->hostid = strdup("1234");
        c->state = strdup("live");
        c->ctrl_loss_tmo = 600, c->reconnect_delay = 10, c->fast_io_fail_tmo = FABRICS_OPT_OFF;
        c->kato = 5, c->nr_io_queues = 2, c->queue_size = 128;
        n = fabrics_controller_add_namespace(c);
        cr_assert_not_null(n);
        n->name = strdup("nvme1n1");
        n->nsid = 1;
        n->nguid = strdup("0123456789abcdef0123456789abcdef");
        return c;
}

Test(fabrics, address_as_the_kernel_prints_it) {
        FabricsController c = {};

        cr_assert_eq(fabrics_parse_address("traddr=10.0.0.5,trsvcid=4420,host_traddr=10.0.0.1,host_iface=eth1,"
                                           "src_addr=10.0.0.1\n", &c), 0);
        cr_assert_str_eq(c.traddr, "10.0.0.5");
        cr_assert_str_eq(c.trsvcid, "4420");
        cr_assert_str_eq(c.host_traddr, "10.0.0.1");
        cr_assert_str_eq(c.host_iface, "eth1");
        free(c.traddr), free(c.trsvcid), free(c.host_traddr), free(c.host_iface);
        c = (FabricsController) {};
        cr_assert_eq(fabrics_parse_address("traddr=nn-0x1000:pn-0x2000,host_traddr=nn-0x3:pn-0x4", &c), 0);
        cr_assert_str_eq(c.traddr, "nn-0x1000:pn-0x2000", "fc addresses have colons, no port");
        cr_assert_null(c.trsvcid);
        free(c.traddr), free(c.host_traddr);
        c = (FabricsController) {};
        cr_assert_eq(fabrics_parse_address("traddr", &c), -EINVAL);
        cr_assert_eq(fabrics_parse_address("", &c), 0, "loop shows an empty address");
}

Test(fabrics, options_off_and_numbers) {
        int v = 0;

        cr_assert_eq(fabrics_parse_option("off", &v), 0);
        cr_assert_eq(v, FABRICS_OPT_OFF);
        cr_assert_eq(fabrics_parse_option("600\n", &v), 0);
        cr_assert_eq(v, 600);
        cr_assert_eq(fabrics_parse_option("-1", &v), 0);
        cr_assert_eq(v, -1);
        cr_assert_eq(fabrics_parse_option("-2", &v), -EINVAL);
        cr_assert_eq(fabrics_parse_option("10s", &v), -EINVAL);
}

Test(fabrics, connect_options_as_libnvme_builds_them) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_free_ char *s = NULL;
        FabricsController *c = tcp_controller(t);

        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, NULL), 0);
        cr_assert_str_eq(s, "nqn=nqn.2026-12.test:sub,transport=tcp,traddr=127.0.0.1,trsvcid=4420,"
                            "hostnqn=nqn.2014-08.org.nvmexpress:uuid:1234,hostid=1234,nr_io_queues=2,"
                            "queue_size=128,keep_alive_tmo=5,reconnect_delay=10,ctrl_loss_tmo=600");
        free(s);
        /* "off": reconnect forever is passed (-1); fast_io_fail off is the default, left out */
        c->ctrl_loss_tmo = FABRICS_OPT_OFF, c->fast_io_fail_tmo = 5, c->tls = true;
        c->queue_size = 8, c->nr_io_queues = FABRICS_OPT_UNSET, c->kato = FABRICS_OPT_UNSET;
        cr_assert_eq(fabrics_connect_options(c, "DHHC-1:00:host:", "DHHC-1:00:ctrl:", &s, NULL), 0);
        cr_assert_str_eq(s, "nqn=nqn.2026-12.test:sub,transport=tcp,traddr=127.0.0.1,trsvcid=4420,"
                            "hostnqn=nqn.2014-08.org.nvmexpress:uuid:1234,hostid=1234,reconnect_delay=10,"
                            "ctrl_loss_tmo=-1,fast_io_fail_tmo=5,dhchap_secret=DHHC-1:00:host:,"
                            "dhchap_ctrl_secret=DHHC-1:00:ctrl:,tls");
        free(s);
        /* loop: no address, no ctrl_loss_tmo/fast_io_fail_tmo, no tls */
        free(c->transport);
        c->transport = strdup("loop");
        free(c->traddr), free(c->trsvcid);
        c->traddr = c->trsvcid = NULL;
        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, NULL), 0);
        cr_assert_str_eq(s, "nqn=nqn.2026-12.test:sub,transport=loop,hostnqn=nqn.2014-08.org.nvmexpress:uuid:1234,"
                            "hostid=1234,reconnect_delay=10");
        free(s);
        s = NULL;
        free(c->subsysnqn);
        c->subsysnqn = NULL;
        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, NULL), -EINVAL);
        cr_assert_null(s);
}

/* The kernel splits options at ',' and '\n': a value holding one would
 * add an option of its own. Refused, naming the field. */
Test(fabrics, connect_options_refuse_hostile_values) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_free_ char *s = NULL;
        FabricsController *c = tcp_controller(t);
        const char *field = NULL;

        free(c->traddr);
        c->traddr = strdup("127.0.0.1,hostnqn=evil");
        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, &field), -EINVAL);
        cr_assert_str_eq(field, "traddr");
        cr_assert_null(s);
        free(c->traddr);
        c->traddr = strdup("127.0.0.1");
        free(c->hostnqn);
        c->hostnqn = strdup("nqn.a\nctrl_loss_tmo=1");
        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, &field), -EINVAL);
        cr_assert_str_eq(field, "hostnqn");
        free(c->hostnqn);
        c->hostnqn = strdup("nqn.a=b");
        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, &field), -EINVAL);
        free(c->hostnqn);
        c->hostnqn = strdup("nqn.a");
        /* a secret's base64 has '=': fine; a ',' is not */
        cr_assert_eq(fabrics_connect_options(c, "DHHC-1:00:YWJj==:", NULL, &s, &field), 0);
        free(s);
        s = NULL;
        cr_assert_eq(fabrics_connect_options(c, "DHHC-1:00:a,tls:", NULL, &s, &field), -EINVAL);
        cr_assert_str_eq(field, "dhchap_secret");
        cr_assert(fabrics_option_value_ok(NULL, false));
        cr_assert_not(fabrics_option_value_ok("a\tb", false));
}

Test(fabrics, connect_options_digests_and_queues) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_free_ char *s = NULL;
        FabricsController *c = tcp_controller(t);

        c->nr_write_queues = 2, c->nr_poll_queues = 1, c->hdr_digest = c->data_digest = true;
        cr_assert_eq(fabrics_connect_options(c, NULL, NULL, &s, NULL), 0);
        cr_assert_not_null(strstr(s, ",nr_io_queues=2,nr_write_queues=2,nr_poll_queues=1,queue_size=128,"), "%s", s);
        cr_assert_not_null(strstr(s, ",hdr_digest,data_digest"), "%s", s);
}

Test(fabrics, connect_reply) {
        unsigned i = 0;

        cr_assert_eq(fabrics_parse_connect_reply("instance=3,cntlid=1\n", &i), 0);
        cr_assert_eq(i, 3);
        cr_assert_eq(fabrics_parse_connect_reply("cntlid=1,instance=12", &i), 0);
        cr_assert_eq(i, 12);
        cr_assert_eq(fabrics_parse_connect_reply("cntlid=1\n", &i), -EINVAL);
        cr_assert_eq(fabrics_parse_connect_reply("instance=x", &i), -EINVAL);
}

Test(fabrics, describe_and_match) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        FabricsController *c = tcp_controller(t), d;
        _cleanup_free_ char *s = fabrics_controller_describe(c), *v6 = NULL;

        cr_assert_str_eq(s, "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub");
        d = *c;
        d.name = (char *) "nvme7";
        d.state = (char *) "connecting";
        cr_assert(fabrics_controller_same_connection(c, &d), "names and states do not matter");
        d.host_iface = (char *) "eth1";
        cr_assert_not(fabrics_controller_same_connection(c, &d));
        d.host_iface = NULL;
        d.hostnqn = (char *) "nqn.2014-08.org.nvmexpress:uuid:other";
        cr_assert_not(fabrics_controller_same_connection(c, &d), "another host identity is another connection");
        d.hostnqn = c->hostnqn;
        d.hostid = (char *) "5678";
        cr_assert_not(fabrics_controller_same_connection(c, &d));
        d.hostid = c->hostid;
        d.traddr = (char *) "fe80::1";
        v6 = fabrics_controller_describe(&d);
        cr_assert_str_eq(v6, "nvme7: tcp [fe80::1]:4420 nqn.2026-12.test:sub");
}

Test(fabrics, transport_modules) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_strv_free_ char **m = NULL;
        FabricsController *c;

        tcp_controller(t);
        c = tcp_controller(t);
        free(c->transport);
        c->transport = strdup("rdma");
        tcp_controller(t);
        cr_assert_eq(fabrics_topology_transport_modules(t, &m), 0);
        cr_assert_eq(strv_length(m), 2);
        cr_assert_str_eq(m[0], "nvme_rdma");
        cr_assert_str_eq(m[1], "nvme_tcp");
}

static char *record_of(const FabricsTopology *t) {
        json_object *root = NULL;
        char *s;

        cr_assert_eq(fabrics_record_to_json(t, &root), 0);
        s = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
        json_object_put(root);
        return s;
}

Test(fabrics, record_round_trip_never_holds_a_secret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology)), *back = NULL;
        _cleanup_free_ char *text = NULL, *again = NULL, *error = NULL;
        FabricsController *c = tcp_controller(t);

        c->dhchap_secret = true;
        c->tls = true;
        c->hdr_digest = true;
        c->nr_poll_queues = 3;
        c->entry = (FabricsEntryStatus) { .state = FABRICS_ENTRY_LOST, .captured_at = 1000, .lost_at = 2000,
                                          .attempts = 4, .last_error_kind = FABRICS_ERROR_NO_ANSWER, .last_errno = EAGAIN };
        text = record_of(t);
        cr_assert_null(strstr(text, "DHHC"), "no secret value");
        cr_assert_not_null(strstr(text, "\"has_dhchap\":true"));
        cr_assert_not_null(strstr(text, "\"fast_io_fail_tmo\":\"off\""));
        cr_assert_not_null(strstr(text, "\"state\":\"lost\""));
        cr_assert_not_null(strstr(text, "\"last_error_kind\":\"no-answer\""));
        cr_assert_not_null(strstr(text, "\"old_name\":\"nvme1\""));
        cr_assert_eq(fabrics_record_parse(text, "f.json", &back, &error), 0, "%s", error ?: "");
        again = record_of(back);
        cr_assert_str_eq(again, text);
        cr_assert_eq(back->controllers[0].fast_io_fail_tmo, FABRICS_OPT_OFF);
        cr_assert_eq(back->controllers[0].namespaces[0].nsid, 1);
        cr_assert_eq(back->controllers[0].entry.attempts, 4);
        cr_assert_eq(back->controllers[0].entry.lost_at, 2000);
        cr_assert(back->controllers[0].hdr_digest);
        cr_assert_eq(back->controllers[0].nr_poll_queues, 3);
}

static void refused(const char *text, const char *error_part) {
        FabricsTopology *t = NULL;
        char *error = NULL;

        cr_assert_eq(fabrics_record_parse(text, "/run/x/record.json", &t, &error), -EBADMSG, "%s", text);
        cr_assert_null(t);
        cr_assert_not_null(error);
        cr_assert_not_null(strstr(error, "/run/x/record.json: "), "%s", error);
        cr_assert_not_null(strstr(error, error_part), "\"%s\" does not say \"%s\"", error, error_part);
        free(error);
}

#define ENTRY(extra) "{\"version\":2,\"connections\":[{\"transport\":\"tcp\",\"subsysnqn\":\"n\"," \
                     "\"state\":\"pending\"," extra "\"namespaces\":[]}]}"

Test(fabrics, record_bad_input_names_file_and_field) {
        refused("", "not JSON");
        refused("[]", "not a JSON object");
        refused("null", "not a JSON object");
        refused("{\"connections\":[]}", "version: missing");
        refused("{\"version\":1,\"controllers\":[]}", "version: 1 is not 2");
        refused("{\"version\":2}", "connections: missing");
        refused("{\"version\":2,\"connections\":[1]}", "connections[0]: not an object");
        refused("{\"version\":2,\"connections\":[{\"transport\":\"tcp\"}]}", "connections[0].subsysnqn: missing");
        refused("{\"version\":2,\"connections\":[{\"transport\":\"pcie\",\"subsysnqn\":\"n\"}]}",
                "connections[0].transport: \"pcie\" is no fabrics transport");
        refused(ENTRY("\"traddr\":5,"), "connections[0].traddr: not a string");
        refused(ENTRY("\"keep_alive_tmo\":\"5\","), "connections[0].keep_alive_tmo: not a number, \"off\" or null");
        refused(ENTRY("\"keep_alive_tmo\":-7,"), "connections[0].keep_alive_tmo: -7 is out of range");
        refused(ENTRY("\"tls\":1,"), "connections[0].tls: not true or false");
        refused(ENTRY("\"lost_at\":-1,"), "connections[0].lost_at: -1 is out of range");
        refused(ENTRY("\"last_error_kind\":\"bad\","), "connections[0].last_error_kind: \"bad\" is no error kind");
        refused("{\"version\":2,\"connections\":[{\"transport\":\"tcp\",\"subsysnqn\":\"n\",\"state\":\"x\"}]}",
                "connections[0].state: \"x\" is not \"pending\" or \"lost\"");
        refused("{\"version\":2,\"connections\":[{\"transport\":\"tcp\",\"subsysnqn\":\"n\",\"state\":\"lost\","
                "\"namespaces\":[{\"name\":\"nvme1n1\",\"nsid\":\"1\"}]}]}", "connections[0].namespaces[0].nsid: not a number");
}

Test(fabrics, report_lines) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *r = fabrics_pass_result_new(FABRICS_VERB_CONNECT);
        _cleanup_strv_free_ char **lines = NULL, **results = NULL;
        FabricsController *c = tcp_controller(t);
        FabricsPassEntry *e;

        cr_assert_eq(fabrics_report_plan_lines(t, "reconnected after the load", &lines), 0);
        cr_assert_str_eq(lines[0], "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub: disconnected by the unload, "
                                   "reconnected after the load");
        e = fabrics_pass_result_add(r, c, FABRICS_OUTCOME_BACK);
        e->controller = strdup("nvme3");
        e = fabrics_pass_result_add(r, c, FABRICS_OUTCOME_FAILED);
        e->error_kind = FABRICS_ERROR_REFUSED, e->error = ECONNREFUSED, e->message = strdup("Connection refused");
        cr_assert_eq(fabrics_pass_result_settle(r), FABRICS_EXIT_PENDING);
        cr_assert_eq(fabrics_report_result_lines(r, &results), 0);
        cr_assert_str_eq(results[0], "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub: reconnected as nvme3");
        cr_assert_str_eq(results[1], "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub: not back (refused: Connection "
                                     "refused); tried again after its reconnect_delay");
        fabrics_pass_result_add(r, c, FABRICS_OUTCOME_LOST);
        cr_assert_eq(fabrics_pass_result_settle(r), FABRICS_EXIT_LOST);
        cr_assert_str_eq(fabrics_outcome_to_string(FABRICS_OUTCOME_SKIPPED_NO_TRANSPORT), "skipped-no-transport");
}

Test(fabrics, kernel_log_records) {
        char *t = kernel_log_record_text("3,1234,5678901,-;nvme nvme3: failed to connect socket: -111\n SUBSYSTEM=nvme");

        cr_assert_str_eq(t, "nvme nvme3: failed to connect socket: -111");
        free(t);
        t = kernel_log_record_text("6,1,2,-,caller=T12;nvme_fabrics: no handler found for transport tcp.");
        cr_assert_str_eq(t, "nvme_fabrics: no handler found for transport tcp.");
        free(t);
        cr_assert_null(kernel_log_record_text("no header"));
}

Test(fabrics, merge_keeps_each_connection_once) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *a = calloc(1, sizeof(FabricsTopology)),
                                                         *b = calloc(1, sizeof(FabricsTopology));
        FabricsController *c;

        tcp_controller(a);
        tcp_controller(b); /* the same connection, under another name below */
        free(b->controllers[0].name);
        b->controllers[0].name = strdup("nvme4");
        c = tcp_controller(b);
        free(c->trsvcid);
        c->trsvcid = strdup("4421");
        cr_assert_eq(fabrics_topology_merge(a, b), 0);
        cr_assert_eq(a->n_controllers, 2);
        cr_assert_str_eq(a->controllers[0].name, "nvme1", "into's own entry wins");
        cr_assert_str_eq(a->controllers[1].trsvcid, "4421");
        cr_assert_eq(a->controllers[1].n_namespaces, 1);
        cr_assert_str_eq(a->controllers[1].namespaces[0].nguid, "0123456789abcdef0123456789abcdef");
        cr_assert_eq(a->controllers[1].queue_size, 128);
}

Test(fabrics, kernel_log_tail_reads_only_what_came_after) {
        char dir[] = "/tmp/sg-kmsg-XXXXXX", path[64], *msg = NULL;
        FILE *f;
        int fd;

        cr_assert_not_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/dev", dir);
        cr_assert_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/dev/kmsg", dir);
        f = fopen(path, "we");
        fputs("3,1,1,-;nvme nvme1: an old message\n", f);
        fclose(f);
        cr_assert_eq(host_root_set(dir), 0);
        fd = kernel_log_open_tail();
        cr_assert_geq(fd, 0);
        f = fopen(path, "ae");
        fputs("6,2,2,-;usb 1-1: unrelated\n3,3,3,-;nvme nvme2: failed to connect socket: -111\n SUBSYSTEM=nvme\n", f);
        fclose(f);
        cr_assert_eq(kernel_log_read_new(fd, "nvme", &msg), 0);
        cr_assert_str_eq(msg, "nvme nvme2: failed to connect socket: -111");
        free(msg);
        close(fd);
        host_root_set(NULL);
        unlink(path);
        snprintf(path, sizeof(path), "%s/dev", dir);
        rmdir(path);
        rmdir(dir);
}
