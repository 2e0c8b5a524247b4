/* Where the ranks run, as the MPI library sees it: every rank prints its processor name and the
 * size of its MPI_COMM_TYPE_SHARED communicator (its node), one line each:
 *
 *     hosts: rank R host NAME node_size S node_rank K
 *
 * and rank 0 checks the placement against the options:
 *   --hosts H     H distinct processor names
 *   --ppn P       P ranks on each of them
 *   --cyclic      rank r on host r mod H (default with --ppn: in blocks, rank r on host r / P),
 *                 hosts numbered in the order of their first rank
 * and, always, that each shared communicator holds exactly the ranks of one processor name.
 * Run on one host by ctest (tests/mpi/CMakeLists.txt) and across the simulated cluster by
 * `make test-cluster` (scripts/cluster-run.sh), where it proves that both MPI libraries see
 * several hosts with shared memory inside each. */
#include "mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct placement {
    char name[MPI_MAX_PROCESSOR_NAME];
    int node_size;
    int node_first; /* lowest MPI_COMM_WORLD rank in this rank's shared communicator */
} placement_t;

static void check_placement(const placement_t *all, int p, int hosts, int ppn, int cyclic) {
    int *host_of = check_alloc(sizeof(int) * (size_t)p); /* index by first appearance */
    int *first_of_host = check_alloc(sizeof(int) * (size_t)p);
    int *count_of_host = check_alloc(sizeof(int) * (size_t)p);
    int distinct = 0;
    for (int r = 0; r < p; r++) {
        int h = 0;
        while (h < distinct && strcmp(all[first_of_host[h]].name, all[r].name)) h++;
        if (h == distinct) {
            first_of_host[distinct] = r;
            count_of_host[distinct++] = 0;
        }
        host_of[r] = h;
        count_of_host[h]++;
    }
    printf("hosts: %d distinct, sizes", distinct);
    for (int h = 0; h < distinct; h++)
        printf(" %s=%d", all[first_of_host[h]].name, count_of_host[h]);
    printf("\n");

    CHECK(hosts <= 0 || distinct == hosts, "%d hosts, expected %d", distinct, hosts);
    for (int r = 0; r < p; r++) {
        const int h = host_of[r];
        CHECK(all[r].node_size == count_of_host[h],
              "rank %d: shared communicator of %d ranks, %d ranks on host %s", r, all[r].node_size,
              count_of_host[h], all[r].name);
        CHECK(all[r].node_first == first_of_host[h],
              "rank %d: shared communicator starts at rank %d, host %s at rank %d", r,
              all[r].node_first, all[r].name, first_of_host[h]);
        CHECK(ppn <= 0 || all[r].node_size == ppn, "rank %d: node size %d, expected %d", r,
              all[r].node_size, ppn);
        if (ppn > 0 && hosts > 0) {
            const int want = cyclic ? r % hosts : r / ppn;
            CHECK(h == want, "rank %d on the host numbered %d, expected %d (%s)", r, h, want,
                  cyclic ? "cyclic" : "blocks");
        }
    }
    free(host_of);
    free(first_of_host);
    free(count_of_host);
}

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    int hosts = 0, ppn = 0, cyclic = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hosts") && i + 1 < argc)
            hosts = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ppn") && i + 1 < argc)
            ppn = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cyclic"))
            cyclic = 1;
        else
            CHECK(0, "unknown argument %s", argv[i]);
    }

    placement_t mine;
    memset(&mine, 0, sizeof mine);
    int len = 0;
    MPI_Get_processor_name(mine.name, &len);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank;
    MPI_Comm_size(node, &mine.node_size);
    MPI_Comm_rank(node, &node_rank);
    PMPI_Allreduce(&check_rank, &mine.node_first, 1, MPI_INT, MPI_MIN, node);
    printf("hosts: rank %d host %s node_size %d node_rank %d\n", check_rank, mine.name,
           mine.node_size, node_rank);
    fflush(stdout);

    placement_t *all =
        check_rank == 0 ? check_alloc(sizeof(placement_t) * (size_t)check_size) : NULL;
    PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    if (check_rank == 0) {
        check_placement(all, check_size, hosts, ppn, cyclic);
        free(all);
    }
    MPI_Comm_free(&node);
    return check_finish("test_hosts");
}
