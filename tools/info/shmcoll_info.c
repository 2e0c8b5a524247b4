/* shmcoll-info: what shmcoll knows and would do, without launching MPI.
 *
 * Prints the topology (this machine's, or one given as an hwloc synthetic description or XML
 * file), the hierarchies a team of N ranks would get under a rank mapping, the algorithm
 * registry, every knob with its value, and the algorithm the selector picks per collective and
 * message size for that team; with --nodes, how a communicator of those ranks spans nodes (each
 * node's ranks and leaders, and the form and network bytes of allreduce across them). Everything
 * is computed by the same code the library runs. */
#include "base/config.h"
#include "core/budget.h"
#include "core/team.h"
#include "group/allreduce_plan.h"
#include "group/compose.h"
#include "group/leaders.h"
#include "kernels/nt_policy.h"
#include "select/select.h"
#include "shmcoll.h"
#include "topo/hierarchy.h"
#include "topo/topo.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    const char *topology; /* synthetic description or XML path; NULL: this machine */
    int ranks;            /* 0: one per PU */
    const char *mapping;
    const char *nodes; /* --nodes, or NULL */
} options_t;

static void usage(FILE *out) {
    fprintf(
        out,
        "usage: shmcoll-info [--topology \"<hwloc synthetic>\" | --topology-xml FILE]\n"
        "                    [--ranks N] [--mapping linear|numa-rr|<pu,pu,...>]\n"
        "                    [--nodes N[:cyclic] | --nodes A,B,...]\n"
        "Prints what shmcoll knows and would do on a machine, without an MPI launch.\n"
        "\n"
        "Computed by the same code the library runs: the topology (this machine's, through\n"
        "hwloc, or an injected one), the hierarchies a team of N ranks gets for bcast and\n"
        "barrier and for reductions (level <i>: <kind> groups=<g> leaders=<ranks>), the\n"
        "algorithm registry (every algorithm of every collective, by the name SHMCOLL_TUNE\n"
        "uses), every knob with its value, and the algorithm the selector picks per\n"
        "collective and message size for that team. With --nodes, a section \"nodes\": how a\n"
        "communicator of those ranks spans nodes, as the library composes its collectives\n"
        "there: each node's ranks, its leaders (node rank c leads network channel c), and for\n"
        "allreduce at a few sizes the form taken and the bytes each node hands to the network.\n"
        "\n"
        "options:\n"
        "  -t, --topology DESC      an hwloc synthetic description of the machine, e.g.\n"
        "                           \"pack:2 numa:2 l3:2 core:8 pu:1\" (default: this machine)\n"
        "  -x, --topology-xml FILE  an hwloc XML export (lstopo FILE.xml), e.g. of a node\n"
        "                           you do not have; a --topology ending in .xml is one too\n"
        "  -n, --ranks N            team size (default: one rank per PU of the topology)\n"
        "  -m, --mapping MAP        the PU of each rank: linear (rank r on the r-th PU),\n"
        "                           numa-rr (ranks dealt round-robin over the NUMA nodes) or\n"
        "                           a list of PU numbers 0,8,16,... (default linear)\n"
        "  -N, --nodes N[:cyclic]   split the ranks into N nodes as SHMCOLL_SIM_NODES does: in\n"
        "                           blocks of consecutive ranks, or round-robin with :cyclic\n"
        "      --nodes A,B,...      nodes of A, B, ... consecutive ranks (uneven nodes; the sum\n"
        "                           is the team size unless --ranks is given, which it must "
        "match)\n"
        "  -h, --help               this text\n"
        "\n"
        "environment:\n"
        "  The SHMCOLL_* knobs are read as the library reads them and all listed with their\n"
        "  values. SHMCOLL_HIER_BCAST and SHMCOLL_HIER_REDUCE shape the hierarchies,\n"
        "  SHMCOLL_CHUNK and SHMCOLL_CMA the choices, which are the cost model's: overrides by\n"
        "  SHMCOLL_TUNE or a tuning file are not applied to them. The topology and mapping\n"
        "  come from the options, not from SHMCOLL_TOPO or SHMCOLL_MAP. With --nodes,\n"
        "  SHMCOLL_NET_LEADERS, SHMCOLL_NET_SPLIT and SHMCOLL_NET_SEGMENT shape the nodes section\n"
        "  (the nodes come from --nodes, not from SHMCOLL_SIM_NODES).\n"
        "\n"
        "exit status:\n"
        "  0 on success, 1 when the topology or mapping cannot be used, 2 for a bad option.\n"
        "\n"
        "examples:\n"
        "  shmcoll-info\n"
        "  shmcoll-info --topology \"pack:2 numa:4 l3:2 core:8 pu:1\" --ranks 64 --mapping "
        "numa-rr\n"
        "  SHMCOLL_CMA=off shmcoll-info --ranks 16\n"
        "  SHMCOLL_NET_LEADERS=2 shmcoll-info --ranks 8 --nodes 2:cyclic\n"
        "  shmcoll-info --ranks 4 --nodes 3,1\n");
}

/* ---- --nodes ------------------------------------------------------------------------------ */

/* Ranks per node of a list "A,B,..." (count of them in *nnodes, their sum returned), or -1 when
 * the text is not one; sizes may be NULL to count only. */
static long node_list(const char *text, int *sizes, int *nnodes) {
    long sum = 0;
    *nnodes = 0;
    if (!strchr(text, ',')) return -1;
    for (const char *p = text;; p++) {
        char *end;
        const long size = strtol(p, &end, 10);
        if (end == p || size < 1 || (*end && *end != ',')) return -1;
        sum += size;
        if (sum > 1 << 20) return -1; /* a team of at most 2^20 ranks */
        if (sizes) sizes[*nnodes] = (int)size;
        (*nnodes)++;
        if (!*end) return sum;
        p = end;
    }
}

/* Nodes asked as "N" or "N:cyclic" (*cyclic set), or -1. */
static long node_count(const char *text, int *cyclic) {
    char *end;
    const long n = strtol(text, &end, 10);
    *cyclic = !strcmp(end, ":cyclic");
    return n >= 1 && end != text && (!*end || *cyclic) ? n : -1;
}

/* Checks --nodes; a list gives the team size when --ranks does not. 0, or 2 (a bad option). */
static int check_nodes(options_t *o) {
    int nnodes, cyclic;
    const long sum = node_list(o->nodes, NULL, &nnodes);
    if (sum < 0 && node_count(o->nodes, &cyclic) < 0) {
        fprintf(stderr,
                "shmcoll-info: --nodes takes N, N:cyclic or a list of ranks per node A,B,..., "
                "not '%s'\n",
                o->nodes);
        return 2;
    }
    if (sum >= 0 && o->ranks && o->ranks != sum) {
        fprintf(stderr, "shmcoll-info: --nodes %s places %ld ranks, --ranks asks for %d\n",
                o->nodes, sum, o->ranks);
        return 2;
    }
    if (sum >= 0) o->ranks = (int)sum;
    return 0;
}

/* The node label of each of n ranks as --nodes places them: a list in blocks of its sizes; N in
 * blocks or round-robin, N at most n, as mpi/group_setup.c places SHMCOLL_SIM_NODES. Writes how
 * to `how`. */
static void node_labels(const char *text, int n, int *labels, char *how, size_t how_len) {
    int nnodes, cyclic;
    int *sizes = malloc((strlen(text) / 2 + 1) * sizeof *sizes);
    if (sizes && node_list(text, sizes, &nnodes) >= 0) {
        for (int node = 0, r = 0; node < nnodes; node++)
            for (int i = 0; i < sizes[node]; i++) labels[r++] = node;
        snprintf(how, how_len, "in blocks of the sizes given");
        free(sizes);
        return;
    }
    free(sizes);
    long nodes = node_count(text, &cyclic);
    if (nodes > n) nodes = n;
    for (int r = 0; r < n; r++)
        labels[r] = cyclic ? r % (int)nodes : (int)((long long)r * nodes / n);
    snprintf(how, how_len, "%s", cyclic ? "round-robin" : "in blocks");
}

static int compare_sizes(const void *a, const void *b) {
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Allreduce of doubles across the nodes at a few sizes: the plan compose_allreduce.c follows
 * (group/allreduce_plan.h) and the bytes each node hands to the network per call, by channel
 * (leader), as the composition counts them (SHMCOLL_STATS's net= is their sum over the nodes and
 * calls). Network steps block where this build's MPI library's blocking collectives are used. */
static void print_net_allreduce(const shmcoll_group_map_t *map, int leaders,
                                const shmcoll_config_t *config) {
    const size_t extent = sizeof(double), split = config->net_split;
    const int steps_block = SHMCOLL_INFO_STEPS_BLOCK && !config->net_bounded;
    printf(
        "  allreduce of doubles across the nodes (SHMCOLL_NET_SPLIT=%zu, SHMCOLL_NET_SEGMENT=%zu, "
        "network steps %s):\n",
        split, config->net_segment, steps_block ? "blocking" : "non-blocking");
    printf("    one leader: node reduce to each node's first rank, one allreduce among them on\n"
           "      channel 0, node bcast (below SHMCOLL_NET_SPLIT bytes, or one leader per node)\n");
    if (leaders > 1)
        printf("    %s: the %d leaders of a node each own 1/%d of the vector%s: node\n"
               "      reduce-scatter, one allreduce per channel at once, node allgatherv\n",
               steps_block ? "shares" : "segments", leaders, leaders,
               steps_block ? "" : ", segment by segment, pipelined");
    printf("    non-commutative ops: %s\n", shmcoll_compose_all_blocks(map)
                                                ? "the same (each node holds consecutive ranks)"
                                                : "the MPI library (a node's ranks are not "
                                                  "consecutive)");
    printf("    %12s  %-20s  %s\n", "bytes", "form",
           "to the network per node and call (by channel)");
    const size_t below = split > extent ? (split - 1) / extent * extent : 0;
    size_t sizes[] = {8, 4096, below, split, 1 << 20, 16 << 20, 64 << 20};
    qsort(sizes, sizeof sizes / sizeof sizes[0], sizeof sizes[0], compare_sizes);
    size_t last = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t bytes = sizes[i] / extent * extent, count = bytes / extent;
        if (!count || bytes <= last) continue; /* ascending, each once */
        last = bytes;
        shmcoll_allreduce_plan_t plan;
        shmcoll_allreduce_plan(count, extent, leaders, steps_block, 0, &plan);
        char form[48], channels[SHMCOLL_NET_MAX_CHANNELS * 40];
        if (plan.form == SHMCOLL_ALLREDUCE_SEGMENTS)
            snprintf(form, sizeof form, "segments, %zu", plan.segments);
        else
            snprintf(form, sizeof form, "%s", shmcoll_allreduce_form_name(plan.form));
        size_t at = 0;
        for (int c = 0; c < plan.shares && at < sizeof channels; c++)
            at += (size_t)snprintf(channels + at, sizeof channels - at, "%schannel %d: %zu",
                                   c ? ", " : "", c,
                                   shmcoll_allreduce_plan_channel(&plan, count, c) * extent);
        printf("    %12zu  %-20s  %zu (%s)\n", bytes, form, bytes, channels);
    }
}

/* The section "nodes": how a communicator of n ranks spans the nodes --nodes describes, with the
 * group map and the leader rule of the library (group/group.h, group/leaders.h). */
static int print_nodes(const char *spec, int n, const shmcoll_config_t *config) {
    int *labels = malloc((size_t)n * sizeof *labels);
    shmcoll_group_map_t map;
    char how[64];
    if (!labels) return 1;
    node_labels(spec, n, labels, how, sizeof how);
    const shmcoll_status_t status = shmcoll_group_map_init(&map, labels, n);
    free(labels);
    if (status != SHMCOLL_OK) return 1;
    printf("nodes: %d ranks on %d node%s, %s (--nodes %s)\n", n, map.nnodes,
           map.nnodes == 1 ? "" : "s", how, spec);
    if (map.nnodes == 1) {
        printf("  one node: its team serves every collective, no network step\n");
        shmcoll_group_map_fini(&map);
        return 0;
    }
    const int leaders = shmcoll_group_leaders(&map, config->net_leaders, 0); /* own machines */
    int smallest = n;
    for (int node = 0; node < map.nnodes; node++)
        if (map.node_size[node] < smallest) smallest = map.node_size[node];
    printf("  leaders per node: %d (SHMCOLL_NET_LEADERS=%ld%s, at most %d and the smallest node's "
           "%d rank%s)\n",
           leaders, config->net_leaders,
           config->net_leaders > 0 ? "" : ": automatic, 2 for nodes on machines of their own;",
           SHMCOLL_NET_MAX_CHANNELS, smallest, smallest == 1 ? "" : "s");
    char ranks[4096];
    for (int node = 0; node < map.nnodes; node++) {
        const int *members = map.members + map.node_first[node], size = map.node_size[node];
        shmcoll_group_format_ranks(members, size, ranks, sizeof ranks);
        printf("  node %d: %d rank%s %s, leader%s", node, size, size == 1 ? "" : "s", ranks,
               leaders == 1 ? "" : "s");
        for (int c = 0; c < leaders; c++)
            printf("%s rank %d (channel %d)", c ? "," : "", members[c], c);
        printf("\n");
    }
    print_net_allreduce(&map, leaders, config);
    shmcoll_group_map_fini(&map);
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o) {
    static const struct option longs[] = {{"topology", required_argument, NULL, 't'},
                                          {"topology-xml", required_argument, NULL, 'x'},
                                          {"ranks", required_argument, NULL, 'n'},
                                          {"mapping", required_argument, NULL, 'm'},
                                          {"nodes", required_argument, NULL, 'N'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    *o = (options_t){.mapping = "linear"};
    for (int c; (c = getopt_long(argc, argv, "t:x:n:m:N:h", longs, NULL)) != -1;) {
        switch (c) {
        case 't':
        case 'x':
            o->topology = optarg;
            break;
        case 'n':
            o->ranks = atoi(optarg);
            if (o->ranks < 1) {
                fprintf(stderr, "shmcoll-info: --ranks needs a positive number, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'm':
            o->mapping = optarg;
            break;
        case 'N':
            o->nodes = optarg;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "shmcoll-info: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return o->nodes ? check_nodes(o) : 0;
}

static void print_topology(const shmcoll_topo_t *topo, const char *name) {
    printf("topology: %s\n", name);
    printf("  pus=%d cores=%d l3=%d numa=%d sockets=%d\n", shmcoll_topo_npus(topo),
           shmcoll_topo_count(topo, SHMCOLL_TOPO_CORE), shmcoll_topo_count(topo, SHMCOLL_TOPO_L3),
           shmcoll_topo_count(topo, SHMCOLL_TOPO_NUMA),
           shmcoll_topo_count(topo, SHMCOLL_TOPO_SOCKET));
    shmcoll_topo_caches_t c;
    if (shmcoll_topo_caches(topo, -1, &c) == SHMCOLL_OK && c.llc_level) {
        size_t usable = shmcoll_kernel_usable_cache(c.llc_size, c.llc_level > 2 ? c.l2_size : 0,
                                                    c.llc_cores, c.llc_inclusive);
        printf("  llc=L%d %zu KiB %s, shared by %d cores; l2=%zu KiB; usable cache for "
               "non-temporal decisions=%zu KiB\n",
               c.llc_level, c.llc_size >> 10, c.llc_inclusive ? "inclusive" : "non-inclusive",
               c.llc_cores, c.l2_size >> 10, usable >> 10);
    }
}

static shmcoll_topo_hier_t *print_hierarchy(const shmcoll_topo_place_t *places, int n,
                                            const char *what, const char *levels) {
    shmcoll_topo_kind_t kinds[SHMCOLL_TOPO_MAX_LEVELS];
    int nkinds = 0;
    char error[256];
    shmcoll_topo_hier_t *hier = NULL;
    printf("hierarchy for %s (levels \"%s\"):\n", what, levels);
    if (shmcoll_topo_levels_parse(levels, kinds, &nkinds, error, sizeof error) != SHMCOLL_OK ||
        shmcoll_topo_hier_build(places, n, kinds, nkinds, -1, &hier) != SHMCOLL_OK) {
        printf("  unusable: %s\n", error);
        return NULL;
    }
    shmcoll_topo_hier_print(hier, stdout);
    return hier;
}

/* Every kind with the algorithms registered for it. */
static void print_registry(void) {
    printf("algorithms (SHMCOLL_TUNE=<collective>:@<name>):\n");
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++)
        for (int i = 0; shmcoll_algo_at(i); i++) {
            const shmcoll_algo_t *a = shmcoll_algo_at(i);
            if (shmcoll_algo_serves(a, (shmcoll_coll_kind_t)k))
                printf("  %-20s @%-11s %s\n", shmcoll_coll_kind_name((shmcoll_coll_kind_t)k),
                       a->name, a->description);
        }
}

static void print_knobs(void) {
    printf("knobs:\n");
    const char *env, *deflt, *scope, *doc;
    for (int i = 0; shmcoll_config_knob(i, &env, &deflt, &scope, &doc); i++) {
        const char *value = getenv(env);
        printf("  %-24s = %-16s (default %s, scope %s) %s\n", env, value && *value ? value : deflt,
               *deflt ? deflt : "\"\"", scope, doc);
    }
}

/* What the communicators of n ranks cost each process, one after the other, until its
 * shared-memory budget is spent (core/budget.h): the same plan team creation follows. */
static void print_memory(int n, const shmcoll_config_t *config) {
    const long asked = config->lanes;
    const int lanes = asked >= 1 && asked <= SHMCOLL_MAX_LANES ? (int)asked : 1;
    size_t bytes, held = 0;
    const size_t chunk = shmcoll_team_plan_chunk(n, lanes, SIZE_MAX, &bytes);
    const size_t full = shmcoll_budget_cost(bytes, n);
    printf("memory: SHMCOLL_SHM_BUDGET %zu bytes per process\n", (size_t)config->shm_budget);
    printf("  a communicator of %d ranks: segment %zu bytes (%d lane(s) of %zu-byte chunks), %zu "
           "bytes per rank with the team's own state\n",
           n, bytes, lanes, chunk, full);
    printf("  communicators per process:");
    size_t last = 0;
    int count = 0, total = 0;
    for (; total < 1000000; total++) {
        const size_t left = config->shm_budget - held;
        const size_t c = shmcoll_team_plan_chunk(n, lanes, left < full ? left : full, &bytes);
        if (c != last && count) printf(" %d at %zu-byte chunks,", count, last);
        if (c != last) count = 0;
        if (!c) break;
        last = c;
        count++;
        held += shmcoll_budget_cost(bytes, n);
    }
    printf(" then the MPI library (%d communicators, %zu bytes)\n", total, held);
}

static void print_choices(const shmcoll_select_team_t *team) {
    const shmcoll_tune_t *tune = shmcoll_tune_current();
    printf("selection for %d ranks (chunk %zu, %s, single-copy %s; algorithm for commutative / "
           "non-commutative ops):\n",
           team->size, team->chunk, team->oversubscribed ? "oversubscribed" : "one rank per CPU",
           team->cma == SHMCOLL_CMA_OFF ? "off" : "where the kernel allows it");
    static const size_t sizes[] = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 67108864};
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t bytes = k == SHMCOLL_KIND_BARRIER ? 0 : sizes[i];
            const char *names[2];
            for (int c = 1; c >= 0; c--) {
                shmcoll_select_args_t args = {
                    .kind = (shmcoll_coll_kind_t)k, .bytes = bytes, .extent = 8, .commutative = c};
                const shmcoll_algo_t *a = shmcoll_select(&args, team, tune);
                names[c] = a ? a->name : "(MPI library)";
            }
            if (k == SHMCOLL_KIND_BARRIER) {
                printf("  %-20s %10s  %s\n", "barrier", "-", names[1]);
                break;
            }
            if (!shmcoll_coll_kinds[k].reduces)
                printf("  %-20s %10zu  %s\n", shmcoll_coll_kind_name(k), bytes, names[1]);
            else
                printf("  %-20s %10zu  %s / %s\n", shmcoll_coll_kind_name(k), bytes, names[1],
                       names[0]);
        }
    }
}

int main(int argc, char **argv) {
    options_t o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc;
    const shmcoll_config_t *config = shmcoll_config();
    printf("shmcoll-info %s\n", SHMCOLL_VERSION_STRING);

    char error[256] = "";
    shmcoll_topo_t *topo = NULL;
    if (shmcoll_topo_load(o.topology, &topo, error, sizeof error) != SHMCOLL_OK) {
        fprintf(stderr, "shmcoll-info: cannot load topology: %s\n", error);
        return 1;
    }
    print_topology(topo, o.topology ? o.topology : "this machine (hwloc)");
    const int n = o.ranks ? o.ranks : shmcoll_topo_npus(topo);
    int *pus = malloc((size_t)n * sizeof *pus);
    shmcoll_topo_place_t *places = malloc((size_t)n * sizeof *places);
    if (!pus || !places ||
        shmcoll_topo_map(topo, o.mapping, n, pus, error, sizeof error) != SHMCOLL_OK) {
        fprintf(stderr, "shmcoll-info: bad --mapping: %s\n", error);
        return 1;
    }
    for (int r = 0; r < n; r++)
        if (pus[r] < 0 || shmcoll_topo_place(topo, pus[r], &places[r]) != SHMCOLL_OK)
            shmcoll_topo_place_unknown(&places[r]);
    printf("team: %d ranks, mapping %s\n", n, o.mapping);
    shmcoll_topo_hier_t *bcast =
        print_hierarchy(places, n, "bcast and barrier", config->hier_bcast);
    shmcoll_topo_hier_t *reduce = print_hierarchy(places, n, "reductions", config->hier_reduce);

    print_registry();
    print_knobs();
    print_memory(n, config);
    shmcoll_select_team_t team;
    shmcoll_select_describe_shape(n, config->chunk, n > shmcoll_topo_npus(topo), bcast, reduce,
                                  &team);
    /* As on a machine whose kernel allows cross-memory attach (the team probes it at setup). */
    team.cma = shmcoll_team_cma_asked(config->cma);
    team.cma_min = config->cma_min;
    team.cma_max = config->cma_max;
    print_choices(&team);
    if (o.nodes && print_nodes(o.nodes, n, config)) {
        fprintf(stderr, "shmcoll-info: no memory for the nodes section\n");
        return 1;
    }

    shmcoll_topo_hier_destroy(bcast);
    shmcoll_topo_hier_destroy(reduce);
    free(places);
    free(pus);
    shmcoll_topo_destroy(topo);
    return 0;
}
