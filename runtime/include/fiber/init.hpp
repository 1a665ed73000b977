// fiber::init: the first call in main. In the master it returns; in a worker
// (the same executable, started by a backend) it serves tasks and exits the
// process without returning.
#pragma once

namespace fiber {

void init(int argc, char** argv);

}  // namespace fiber
