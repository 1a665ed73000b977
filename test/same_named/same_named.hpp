// The other files of same_named_test, each with a file-local `work` (and a
// file-local class Env) of its own, as simulator code often has.
#pragma once

#include <fiber/fiber.hpp>

#include <vector>

/// Maps work of same_named/other.cpp over items.
std::vector<int> MapOtherWork(fiber::Pool& pool, const std::vector<int>& items);
/// Maps work of same_named/a/work.cpp and same_named/b/work.cpp: two files
/// of one base name registering one name on one line.
std::vector<int> MapWorkOfA(fiber::Pool& pool, const std::vector<int>& items);
std::vector<int> MapWorkOfB(fiber::Pool& pool, const std::vector<int>& items);
/// Makes other.cpp's Env in the manager and calls its value().
int OtherEnvValue(fiber::Manager& manager);
