// expect: a task cannot take a non-const lvalue reference (T&): it runs on a copy in another process, so results cannot flow back through it
#include <fiber/fiber.hpp>

#include <vector>

void fill(std::vector<int>& out) { out.push_back(1); }
FIBER_TASK(fill);

int main() {}
