/* k-nomial tree over p ranks with any root and any radix k >= 2 (sharm's k-nomial reduce; the tree
 * of Jocksch et al. section 2.3 with a flexible number of leaves).
 *
 * Ranks are renumbered relative to the root, v = (rank - root) mod p, and written in base k. The
 * parent of v clears v's lowest non-zero digit; the children of v set one digit below it to 1..k-1.
 * So the root has up to k-1 children per digit position and the tree has ceil(log_k p) rounds:
 * in round t of a broadcast every holder sends to its children at digit position R-1-t (R the
 * number of rounds), and a reduction runs the same rounds backwards. The subtree of v is the
 * contiguous relative range [v, v + k^i) clipped to p, where k^i is the place of v's lowest
 * non-zero digit, which is what scatter/gather need to address a subtree's data as one piece.
 *
 * Pure arithmetic on (p, k, root, rank); no state. All ranks are team ranks in [0, p). */
#ifndef SHMCOLL_PATTERNS_KNOMIAL_H
#define SHMCOLL_PATTERNS_KNOMIAL_H

/* Rounds of a broadcast or reduction: ceil(log_k p), 0 for p = 1. */
int shmcoll_pattern_knomial_rounds(int p, int k);

/* Upper bound on the number of children of any rank: (k-1) * rounds. */
int shmcoll_pattern_knomial_max_children(int p, int k);

/* Parent of rank, -1 for the root. */
int shmcoll_pattern_knomial_parent(int p, int k, int root, int rank);

/* Children of rank in broadcast order (the largest subtree first; within one digit position in
 * ascending rank order); writes at most max_children entries and returns how many there are. */
int shmcoll_pattern_knomial_children(int p, int k, int root, int rank, int *children);

/* Hops from the root (number of non-zero base-k digits of the relative rank). */
int shmcoll_pattern_knomial_depth(int p, int k, int root, int rank);

/* Broadcast round in which rank receives from its parent (0 .. rounds-1), -1 for the root. A
 * reduction sends to the parent in round rounds-1-that. */
int shmcoll_pattern_knomial_round(int p, int k, int root, int rank);

/* Hops from the root to the deepest rank (0 for p = 1): the most non-zero base-k digits of any
 * relative rank below p, which bounds the steps of a pipelined tree collective. */
int shmcoll_pattern_knomial_height(int p, int k);

/* Number of ranks in rank's subtree (itself included). */
int shmcoll_pattern_knomial_subtree(int p, int k, int root, int rank);

#endif
