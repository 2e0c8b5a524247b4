/* The selector: SHMCOLL_TUNE parsing (bands, fallback chains, errors that name the bad token),
 * rule lookup, and the cost model's choices on a few team shapes: flat for small reductions,
 * movement-avoiding for large commutative ones, never an algorithm that does not support the
 * call, hierarchical ones only on hierarchical machines. */
#include "check.h"
#include "select/select.h"
#include "shmcoll.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void check_bad(const char *text, const char *token) {
    shmcoll_tune_t tune = {0};
    char error[256] = "";
    CHECK(shmcoll_tune_parse(text, &tune, error, sizeof error) == SHMCOLL_ERR_INVALID,
          "'%s' must be refused", text);
    CHECK(strstr(error, token) != NULL, "error for '%s' names '%s': %s", text, token, error);
}

static const char *pick(shmcoll_coll_kind_t kind, size_t bytes, int commutative,
                        const shmcoll_select_team_t *team, const shmcoll_tune_t *tune) {
    shmcoll_select_args_t args = {
        .kind = kind, .bytes = bytes, .extent = 8, .commutative = commutative};
    const shmcoll_algo_t *a = shmcoll_select(&args, team, tune);
    if (a) CHECK(a->supports(&args, team), "chosen %s must support the call", a->name);
    return a ? a->name : "none";
}

int main(void) {
    shmcoll_tune_t tune = {0};
    char error[256] = "";
    CHECK(shmcoll_tune_parse(" allreduce:0-4k:@flat , 4k-:@ma|split ;\n# comment\nbcast:@pipeline",
                             &tune, error, sizeof error) == SHMCOLL_OK,
          "valid string: %s", error);
    CHECK(tune.nrules == 3, "3 rules, got %d", tune.nrules);
    const shmcoll_tune_rule_t *r = shmcoll_tune_lookup(&tune, SHMCOLL_KIND_ALLREDUCE, 4095, 2, 1);
    CHECK(r && r->nalgos == 1 && !strcmp(r->algos[0]->name, "flat"), "4095 B -> flat");
    r = shmcoll_tune_lookup(&tune, SHMCOLL_KIND_ALLREDUCE, 4096, 2, 1);
    CHECK(r && r->nalgos == 2 && !strcmp(r->algos[1]->name, "split"), "4 KiB -> ma|split");
    CHECK(!shmcoll_tune_lookup(&tune, SHMCOLL_KIND_REDUCE, 10, 2, 1), "no rule for reduce");
    CHECK(shmcoll_tune_lookup(&tune, SHMCOLL_KIND_BCAST, SIZE_MAX - 1, 2, 1),
          "bcast rule covers all");

    /* Sections per team size, and the MPI library's own algorithm for every kind. */
    shmcoll_tune_t sized = {0};
    CHECK(shmcoll_tune_parse("# fingerprint: ignored here\n# members: 4\nalltoall:2M-:@mpi\n"
                             "# members: 0\nbarrier:@mpi",
                             &sized, error, sizeof error) == SHMCOLL_OK,
          "sections: %s", error);
    CHECK(shmcoll_tune_lookup(&sized, SHMCOLL_KIND_ALLTOALL, 4 << 20, 4, 1), "4 members: rule");
    CHECK(!shmcoll_tune_lookup(&sized, SHMCOLL_KIND_ALLTOALL, 4 << 20, 2, 1), "2 members: none");
    r = shmcoll_tune_lookup(&sized, SHMCOLL_KIND_BARRIER, 0, 7, 1);
    /* Sections per node count: rules measured across nodes apply there only. */
    shmcoll_tune_t across = {0};
    CHECK(shmcoll_tune_parse("# members: 8\n# nodes: 4\nallreduce:1M-:@shares|mpi\n# nodes: 0\n"
                             "allreduce:0-8:@mpi",
                             &across, error, sizeof error) == SHMCOLL_OK,
          "node sections: %s", error);
    const shmcoll_tune_rule_t *n4 =
        shmcoll_tune_lookup(&across, SHMCOLL_KIND_ALLREDUCE, 1 << 20, 8, 4);
    CHECK(n4 && n4->nalgos == 2 && n4->algos[0]->nodes_form && !n4->algos[1]->ops,
          "4 nodes: a form across nodes, then @mpi");
    CHECK(!shmcoll_tune_lookup(&across, SHMCOLL_KIND_ALLREDUCE, 1 << 20, 8, 1),
          "one node: no rule");
    CHECK(shmcoll_tune_lookup(&across, SHMCOLL_KIND_ALLREDUCE, 4, 8, 2)->algos[0]->ops == NULL,
          "nodes 0: any node count");
    const shmcoll_select_args_t big = {.kind = SHMCOLL_KIND_ALLREDUCE, .bytes = 1 << 20};
    const shmcoll_select_team_t eight = {.size = 8, .chunk = 256 << 10};
    CHECK(!n4->algos[0]->supports(&big, &eight), "a form across nodes is not a node team's");
    CHECK(r && !r->algos[0]->ops, "@mpi is the MPI library's (no task ops)");
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++)
        CHECK(shmcoll_algo_find((shmcoll_coll_kind_t)k, "mpi"), "@mpi serves %s",
              shmcoll_coll_kind_name((shmcoll_coll_kind_t)k));
    char print[512];
    shmcoll_tune_fingerprint(print, sizeof print);
    CHECK(strstr(print, "cores=") && strstr(print, "shmcoll=" SHMCOLL_VERSION_STRING),
          "fingerprint: %s", print);

    check_bad("allreduse:@flat", "allreduse");
    check_bad("allreduce:@bogus", "bogus");
    check_bad("allreduce:0-4q:@flat", "4q");
    check_bad("allreduce:8k-4k:@flat", "8k-4k");
    check_bad("allreduce:0-4k:flat", "0-4k:flat");
    check_bad("bcast:@ma", "ma");

    const shmcoll_select_team_t flat2 = {.size = 2,
                                         .chunk = 256 << 10,
                                         .bcast_levels = 1,
                                         .bcast_max_group = 2,
                                         .reduce_levels = 1,
                                         .reduce_max_group = 2,
                                         .reduce_contiguous = 1};
    CHECK(!strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 8, 1, &flat2, NULL), "flat"), "8 B -> flat");
    CHECK(!strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 16 << 20, 1, &flat2, NULL), "ma"),
          "16 MiB commutative -> ma, got %s",
          pick(SHMCOLL_KIND_ALLREDUCE, 16 << 20, 1, &flat2, NULL));
    CHECK(strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 16 << 20, 0, &flat2, NULL), "ma"),
          "non-commutative never ma");
    CHECK(strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 16 << 20, 0, &flat2, NULL), "cyclic"),
          "non-commutative never cyclic");
    CHECK(strcmp(pick(SHMCOLL_KIND_BCAST, 1 << 20, 1, &flat2, NULL), "hier"),
          "no hierarchy -> no hier");
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++)
        CHECK(strcmp(pick((shmcoll_coll_kind_t)k, 64, 1, &flat2, NULL), "mpi"),
              "the model never picks the MPI library (%s)",
              shmcoll_coll_kind_name((shmcoll_coll_kind_t)k));
    CHECK(!strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 16 << 20, 1, &flat2, &tune), "ma"), "tuned ma");
    CHECK(!strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 16 << 20, 0, &flat2, &tune), "split"),
          "chain falls to split for non-commutative");
    CHECK(!strcmp(pick(SHMCOLL_KIND_ALLREDUCE, 100, 1, &flat2, &tune), "flat"), "tuned flat");

    const shmcoll_select_team_t numa = {.size = 64,
                                        .chunk = 256 << 10,
                                        .bcast_levels = 3,
                                        .bcast_max_group = 8,
                                        .reduce_levels = 3,
                                        .reduce_max_group = 8,
                                        .reduce_contiguous = 1};
    const char *big_bcast = pick(SHMCOLL_KIND_BCAST, 16 << 20, 1, &numa, NULL);
    CHECK(!strcmp(big_bcast, "hier"), "16 MiB bcast on 64 ranks over 3 levels -> hier, got %s",
          big_bcast);
    for (int k = 0; k < SHMCOLL_KIND_COUNT; k++)
        for (size_t b = 1; b < ((size_t)1 << 34); b <<= 3)
            for (int c = 0; c < 2; c++) pick((shmcoll_coll_kind_t)k, b, c, &numa, NULL);

    if (check_failures()) {
        fprintf(stderr, "select: %ld failures\n", check_failures());
        return 1;
    }
    printf("select: all checks passed\n");
    return 0;
}
