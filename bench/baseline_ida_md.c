/* A straightforward C IDA* with Manhattan distance for the 15-puzzle: the baseline
 * of bench_solver.py.  Recursive, incremental Manhattan distance from a table,
 * blank moves up, left, right, down, never undoing the previous move, Korf's node
 * count (root once, every generated child).  Goal: blank top-left, tile t at cell t.
 *
 * Input: one board per line, 16 cells.  Output per board: length nodes CPU seconds
 * (process CPU time, as the Python side measures, so a loaded machine skews neither).
 * Build: cc -O3 -march=native -o baseline_ida_md baseline_ida_md.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int board[16];
static int md[16][16];            /* md[tile][cell] */
static int nbr[16][4];            /* neighbour cell per move, -1 off the board */
static long long nodes;
static int threshold, next_threshold;

static int dfs(int blank, int g, int h, int prev) {
    for (int op = 0; op < 4; op++) {
        if (prev >= 0 && op == 3 - prev) continue;
        int src = nbr[blank][op];
        if (src < 0) continue;
        int t = board[src];
        int nh = h - md[t][src] + md[t][blank];
        nodes++;
        int f = g + 1 + nh;
        if (f > threshold) {
            if (f < next_threshold) next_threshold = f;
            continue;
        }
        if (nh == 0) return g + 1;
        board[blank] = t;
        board[src] = 0;
        int r = dfs(src, g + 1, nh, op);
        board[src] = t;
        board[blank] = 0;
        if (r) return r;
    }
    return 0;
}

int main(void) {
    for (int c = 0; c < 16; c++) {
        int r = c / 4, k = c % 4;
        nbr[c][0] = r > 0 ? c - 4 : -1;
        nbr[c][1] = k > 0 ? c - 1 : -1;
        nbr[c][2] = k < 3 ? c + 1 : -1;
        nbr[c][3] = r < 3 ? c + 4 : -1;
        for (int t = 0; t < 16; t++)
            md[t][c] = t == 0 ? 0 : abs(r - t / 4) + abs(k - t % 4);
    }
    for (;;) {
        int blank = -1, h = 0;
        for (int i = 0; i < 16; i++) {
            if (scanf("%d", &board[i]) != 1) return 0;
            if (board[i] == 0) blank = i;
            h += md[board[i]][i];
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        nodes = 1;
        threshold = h;
        int len = h == 0 ? 0 : -1;
        while (len < 0) {
            next_threshold = 1 << 30;
            int r = dfs(blank, 0, h, -1);
            if (r) len = r;
            else threshold = next_threshold;
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        printf("%d %lld %.6f\n", len, nodes, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
        fflush(stdout);
    }
}
