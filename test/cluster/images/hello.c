/* Test workload: hello [MESSAGE [STATUS [SECONDS]]]
 * Prints MESSAGE as one line on stdout, sleeps SECONDS (default 0) and exits
 * with STATUS (default 0). Built statically into a FROM-scratch image by
 * test/cluster/test. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  printf("%s\n", argc > 1 ? argv[1] : "hello from fiber");
  fflush(stdout);
  if (argc > 3)
    sleep((unsigned)atoi(argv[3]));
  return argc > 2 ? atoi(argv[2]) : 0;
}
