/* shmcoll-info: what shmcoll knows and would do, without launching MPI.
 *
 * Prints the topology (this machine's, or one given as an hwloc synthetic description or XML
 * file), the hierarchies a team of N ranks would get under a rank mapping, the algorithm
 * registry, every knob with its value, and the algorithm the selector picks per collective and
 * message size for that team. Everything is computed by the same code the library runs. */
#include "base/config.h"
#include "kernels/nt_policy.h"
#include "select/select.h"
#include "shmcoll.h"
#include "topo/hierarchy.h"
#include "topo/topo.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    const char *topology; /* synthetic description or XML path; NULL: this machine */
    int ranks;            /* 0: one per PU */
    const char *mapping;
} options_t;

static void usage(FILE *out) {
    fprintf(
        out,
        "usage: shmcoll-info [--topology \"<hwloc synthetic>\" | --topology-xml FILE]\n"
        "                    [--ranks N] [--mapping linear|numa-rr|<pu,pu,...>]\n"
        "Prints what shmcoll knows and would do on a machine, without an MPI launch.\n"
        "\n"
        "Computed by the same code the library runs: the topology (this machine's, through\n"
        "hwloc, or an injected one), the hierarchies a team of N ranks gets for bcast and\n"
        "barrier and for reductions (level <i>: <kind> groups=<g> leaders=<ranks>), the\n"
        "algorithm registry (every algorithm of every collective, by the name SHMCOLL_TUNE\n"
        "uses), every knob with its value, and the algorithm the selector picks per\n"
        "collective and message size for that team.\n"
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
        "  -h, --help               this text\n"
        "\n"
        "environment:\n"
        "  The SHMCOLL_* knobs are read as the library reads them and all listed with their\n"
        "  values. SHMCOLL_HIER_BCAST and SHMCOLL_HIER_REDUCE shape the hierarchies,\n"
        "  SHMCOLL_CHUNK and SHMCOLL_CMA the choices, which are the cost model's: overrides by\n"
        "  SHMCOLL_TUNE or a tuning file are not applied to them. The topology and mapping\n"
        "  come from the options, not from SHMCOLL_TOPO or SHMCOLL_MAP.\n"
        "\n"
        "exit status:\n"
        "  0 on success, 1 when the topology or mapping cannot be used, 2 for a bad option.\n"
        "\n"
        "examples:\n"
        "  shmcoll-info\n"
        "  shmcoll-info --topology \"pack:2 numa:4 l3:2 core:8 pu:1\" --ranks 64 --mapping "
        "numa-rr\n"
        "  SHMCOLL_CMA=off shmcoll-info --ranks 16\n");
}

static int parse_options(int argc, char **argv, options_t *o) {
    static const struct option longs[] = {
        {"topology", required_argument, NULL, 't'}, {"topology-xml", required_argument, NULL, 'x'},
        {"ranks", required_argument, NULL, 'n'},    {"mapping", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    *o = (options_t){.mapping = "linear"};
    for (int c; (c = getopt_long(argc, argv, "t:x:n:m:h", longs, NULL)) != -1;) {
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
    return 0;
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
    const char *env, *deflt, *doc;
    for (int i = 0; shmcoll_config_knob(i, &env, &deflt, &doc); i++) {
        const char *value = getenv(env);
        printf("  %-20s = %-16s (default %s) %s\n", env, value && *value ? value : deflt,
               *deflt ? deflt : "\"\"", doc);
    }
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
    shmcoll_select_team_t team;
    shmcoll_select_describe_shape(n, config->chunk, n > shmcoll_topo_npus(topo), bcast, reduce,
                                  &team);
    /* As on a machine whose kernel allows cross-memory attach (the team probes it at setup). */
    team.cma = shmcoll_team_cma_asked(config->cma);
    team.cma_min = config->cma_min;
    team.cma_max = config->cma_max;
    print_choices(&team);

    shmcoll_topo_hier_destroy(bcast);
    shmcoll_topo_hier_destroy(reduce);
    free(places);
    free(pus);
    shmcoll_topo_destroy(topo);
    return 0;
}
