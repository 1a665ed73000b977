// Runs a program of the test build as a child with extra environment
// variables, capturing its stdout and stderr, for tests of whole processes.
#pragma once

#include <map>
#include <string>
#include <vector>

struct Child {
  int pid = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

/// Path of a program built beside the running test executable.
std::string built_program(const std::string& name);

/// The path of command name as PATH finds it; /usr/bin/NAME when it does not.
std::string on_path(const std::string& name);

/// Starts argv[0] with the environment of this process plus env (a value of
/// "" removes the variable), in directory cwd if one is given.
Child spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& cwd = "");

/// Reads fd to its end (bounded by timeout_s seconds).
std::string read_all(int fd, int timeout_s = 60);
/// Reads one line from fd (bounded by timeout_s seconds).
std::string read_line(int fd, int timeout_s = 60);

/// Waits for the child (at most timeout_s seconds, then SIGKILL); returns the
/// exit status, or 128 + signal.
int wait_exit(const Child& child, int timeout_s = 60);
