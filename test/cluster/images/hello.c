/* Test workload: prints its first argument as one line on stdout and exits
 * with the status given as its second argument (default: 0).
 * Built statically into a FROM-scratch image by test/cluster/test. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  printf("%s\n", argc > 1 ? argv[1] : "hello from fiber");
  fflush(stdout);
  return argc > 2 ? atoi(argv[2]) : 0;
}
