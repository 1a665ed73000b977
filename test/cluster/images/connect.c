/* Test workload: connect HOST PORT
 * Opens a TCP connection to HOST:PORT (an IPv4 address); prints "connected"
 * and exits 0 on success, prints the error and exits 1 otherwise. Shows
 * that a host-network pod reaches services on the machine's 127.0.0.1. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: connect HOST PORT\n");
    return 2;
  }
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)atoi(argv[2]));
  if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
    fprintf(stderr, "bad address %s\n", argv[1]);
    return 2;
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    printf("cannot connect to %s:%s: %s\n", argv[1], argv[2], strerror(errno));
    return 1;
  }
  printf("connected\n");
  close(fd);
  return 0;
}
