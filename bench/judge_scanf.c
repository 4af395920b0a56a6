/* Baseline for bench_io.py: the judge problem (SOURCES item 2) in C, reading
 * with scanf.  Repeated until end of input: n, then two n x n grids; prints
 * TAK if the first can be turned into the second, else NIE.  Parity of each
 * grid by counting the cycles of its permutation (O(n^2)). */
#include <stdio.h>
#include <stdlib.h>

static int invariant(const int *g, int n, char *seen) {
    int N = n * n, cycles = 0, blank = 0;
    for (int i = 0; i < N; i++) seen[i] = 0;
    for (int s = 0; s < N; s++) {
        if (g[s] == 0) blank = s;
        if (seen[s]) continue;
        cycles++;
        for (int i = s; !seen[i]; i = g[i]) seen[i] = 1;
    }
    return ((N - cycles) ^ (blank / n + blank % n)) & 1;
}

int main(void) {
    int n;
    int *a = NULL, *b = NULL;
    char *seen = NULL;
    size_t cap = 0;
    while (scanf("%d", &n) == 1) {
        size_t N = (size_t)n * n;
        if (N > cap) {
            cap = N;
            a = realloc(a, cap * sizeof *a);
            b = realloc(b, cap * sizeof *b);
            seen = realloc(seen, cap);
        }
        for (size_t i = 0; i < N; i++) if (scanf("%d", &a[i]) != 1) return 1;
        for (size_t i = 0; i < N; i++) if (scanf("%d", &b[i]) != 1) return 1;
        puts(invariant(a, n, seen) == invariant(b, n, seen) ? "TAK" : "NIE");
    }
    return 0;
}
