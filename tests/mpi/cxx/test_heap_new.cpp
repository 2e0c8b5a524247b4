// A C++ program whose buffers come from operator new and std::vector, run with libshmcoll
// preloaded and SHMCOLL_HEAP=malloc: its large allocations must come from shmcoll's shared heap
// (they lie in a mapping of a memory file named shmcoll-heap) and its collectives on them must
// take the heap path (each block moved once), with the right results. Prints the "expect:" lines
// of run_mpi.py's statistics check.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Whether address p lies in a mapping of one of shmcoll's heap arenas.
bool in_heap(const void *p) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    while (std::getline(maps, line)) {
        std::uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream fields(line);
        fields >> std::hex >> lo >> dash >> hi;
        if (at >= lo && at < hi) return line.find("memfd:shmcoll-heap") != std::string::npos;
    }
    return false;
}

double value(int rank, std::size_t i) {
    return double((rank * 7919 + i * 31) % 1000) - 500.0;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, failures = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const std::size_t n = std::size_t(5) << 17; // 5 MiB of doubles: the heap row from 4 MiB
    std::unique_ptr<double[]> send(new double[n]);
    std::vector<double> recv(n);
    if (!in_heap(send.get()) || !in_heap(recv.data())) {
        std::fprintf(stderr, "rank %d: new and std::vector did not allocate from the heap\n", rank);
        failures++;
    }
    for (std::size_t i = 0; i < n; i++) send[i] = value(rank, i);
    MPI_Allreduce(send.get(), recv.data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < n; i++) {
        double want = 0;
        for (int r = 0; r < size; r++) want += value(r, i);
        if (recv[i] != want) {
            failures++;
            break;
        }
    }

    const std::size_t block = std::size_t(2) << 20; // beyond SHMCOLL_CMA_MAX: the heap row
    std::vector<unsigned char> out(block * std::size_t(size)), in(block * std::size_t(size));
    for (int q = 0; q < size; q++) std::memset(&out[block * std::size_t(q)], rank * 16 + q, block);
    MPI_Alltoall(out.data(), int(block), MPI_BYTE, in.data(), int(block), MPI_BYTE, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        if (in[block * std::size_t(q)] != (unsigned char)(q * 16 + rank) ||
            in[block * std::size_t(q) + block - 1] != (unsigned char)(q * 16 + rank))
            failures++;

    int total = 0;
    PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        const unsigned long long all = (unsigned long long)block * size * size;
        std::printf("expect: handled=2 fellback=0\n");
        std::printf("expect: heap calls=%d\n", size > 1 ? 2 : 0);
        std::printf("expect: allreduce calls=1 bytes=%llu pmpi=0\n", (unsigned long long)n * 8);
        std::printf("expect: alltoall calls=1 bytes=%llu pmpi=0\n", all);
        std::printf("%s test_heap_new: %d failure(s) on %d ranks\n", total ? "FAIL" : "PASS", total,
                    size);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
