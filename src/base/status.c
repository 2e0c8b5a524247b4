#include "base/status.h"

const char *shmcoll_status_string(shmcoll_status_t status) {
    switch (status) {
    case SHMCOLL_OK:
        return "success";
    case SHMCOLL_IN_PROGRESS:
        return "in progress";
    case SHMCOLL_ERR_NOT_SUPPORTED:
        return "not supported";
    case SHMCOLL_ERR_NO_MEMORY:
        return "out of memory";
    case SHMCOLL_ERR_NO_SPACE:
        return "no space in the segment directory";
    case SHMCOLL_ERR_SYSTEM:
        return "system call failed";
    case SHMCOLL_ERR_TIMEOUT:
        return "timeout";
    case SHMCOLL_ERR_PEER_DEAD:
        return "peer process died";
    case SHMCOLL_ERR_INVALID:
        return "invalid argument";
    case SHMCOLL_ERR_NO_BUDGET:
        return "shared-memory budget spent (SHMCOLL_SHM_BUDGET)";
    }
    return "unknown status";
}
