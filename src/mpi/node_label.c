/* Which processes can share segments, found locally: those of one boot of one kernel (its boot
 * id), with one host name, that see the same segment directory (its device and inode: every node
 * of a cluster simulated on one kernel has a tmpfs of its own). A hash of these is the color with
 * which group setup splits a communicator into nodes.
 *
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) would say the same, but MPICH pays about 0.9 MiB of
 * memory on its first use on a communicator other than MPI_COMM_WORLD, more than a team costs;
 * MPI_Comm_split with a color costs nothing lasting. A collision of two nodes' hashes puts them
 * in one node team, whose creation then fails on every member (the others cannot attach to the
 * segment), so the communicator goes to the MPI library: slower, never wrong. */
#include "mpi/node_label.h"

#include "base/config.h"
#include "topo/cpus.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int label;

static void compute(void) {
    uint64_t hash = SHMCOLL_CONFIG_HASH_SEED;
    const unsigned machine = shmcoll_topo_machine_id();
    hash = shmcoll_config_hash(hash, &machine, sizeof machine);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    hash = shmcoll_config_hash(hash, host, sizeof host);
    struct stat dir;
    if (stat(shmcoll_config()->shm_dir, &dir) == 0) {
        hash = shmcoll_config_hash(hash, &dir.st_dev, sizeof dir.st_dev);
        hash = shmcoll_config_hash(hash, &dir.st_ino, sizeof dir.st_ino);
    }
    label = (int)((hash ^ (hash >> 32)) & INT_MAX);
}

int shmcoll_mpi_node_label(void) {
    pthread_once(&once, compute);
    return label;
}
